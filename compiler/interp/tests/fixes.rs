//! The edits that fix divergence errors (the cases of `tests/suggestions/`, applied as the compiler suggests them),
//! run on the interpreter with exact barrier and warp semantics: each kernel before and after its edit, over
//! launches where its threads may agree (every scalar parameter the launch's thread count, so that a bound or an
//! early exit on the thread's index splits no block) and where they do not (24). Where the original runs without any report (a correct launch), the edited
//! program must too, and write the same vectors: an edit never changes what a correct program computes. Where the
//! original diverges (R0001, R0002), the edited program must run without diverging.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, ReportKind, Scalar, Schedule};

/// Elements of every vector, threads per block and blocks of each launch.
const ELEMENTS: usize = 1024;
const THREADS: u32 = 64;
const BLOCKS: u32 = 2;

fn cases() -> Vec<(String, String)> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/suggestions");
    let mut cases: Vec<(String, String)> = std::fs::read_dir(&folder)
        .expect("tests/suggestions exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "sk"))
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&path).unwrap()))
        .collect();
    cases.sort();
    cases
}

/// The arguments of `kernel`: vectors filled with small values (integers 0..12, usable as indices and bounds),
/// every scalar `scalar`. `None` for a kernel with a parameter of another kind.
fn arguments(program: &Program, kernel: &str, scalar: i32) -> Option<Vec<Arg>> {
    let kernel = program.kernel(kernel)?;
    kernel
        .params
        .iter()
        .map(|param| match &param.kind {
            skc_interp::ParamKind::Scalar(Scalar::Int32) => Some(Arg::i32(scalar)),
            skc_interp::ParamKind::Vector { elem: skc_interp::ValueType::Scalar(Scalar::Int32), .. } => Some(
                Arg::Vector(Buffer::from_i32(&(0..ELEMENTS).map(|i| ((i * 37) % 101 / 8) as i32).collect::<Vec<_>>())),
            ),
            skc_interp::ParamKind::Vector { elem: skc_interp::ValueType::Scalar(Scalar::Float32), .. } => {
                Some(Arg::Vector(Buffer::from_f32(
                    &(0..ELEMENTS).map(|i| (((i * 37) % 101) as f32 - 50.0) / 8.0).collect::<Vec<_>>(),
                )))
            }
            _ => None,
        })
        .collect()
}

/// What a launch did: its reports' kinds and every vector after it.
struct Run {
    reports: Vec<ReportKind>,
    vectors: Vec<Vec<u64>>,
}

fn run(checked: &skc_core::Checked, kernel: &str, scalar: i32, schedule: Schedule) -> Option<Run> {
    let program = Program::new(checked);
    let mut args = arguments(&program, kernel, scalar)?;
    let options = Options { schedule, ..Options::default() };
    let outcome = launch(&program, kernel, &Geometry::linear(BLOCKS, THREADS), &mut args, &options).ok()?;
    let vectors = args
        .iter()
        .filter_map(|a| match a {
            Arg::Vector(b) => Some(b.as_f64().iter().map(|v| v.to_bits()).collect()),
            _ => None,
        })
        .collect();
    Some(Run { reports: outcome.reports.iter().map(|r| r.kind).collect(), vectors })
}

fn diverges(run: &Run) -> bool {
    run.reports.iter().any(|k| matches!(k, ReportKind::BarrierDivergence | ReportKind::CollectiveDivergence))
}

#[test]
fn fixes_keep_correct_launches_and_end_divergent_ones() {
    let mut failures = Vec::new();
    let (mut compared, mut fixed) = (0, 0);
    for (name, text) in cases() {
        let before = skc_core::check(&name, &text, &skc_core::NoModules, &Default::default());
        let edits: Vec<_> = before.diagnostics.iter().filter_map(|d| d.suggestion.clone()).collect();
        for edit in edits {
            let mut edited = text.clone();
            edited.replace_range(edit.span.range(), &edit.replacement);
            let after = skc_core::check(&name, &edited, &skc_core::NoModules, &Default::default());
            assert!(!after.has_errors(), "{name}: the edited program has errors\n{edited}");
            for kernel in Program::new(&before).kernels().iter().map(|k| k.name.clone()) {
                for scalar in [(BLOCKS * THREADS) as i32, 24] {
                    for schedule in [Schedule::InOrder, Schedule::Reversed] {
                        let (Some(original), Some(new)) =
                            (run(&before, &kernel, scalar, schedule), run(&after, &kernel, scalar, schedule))
                        else {
                            failures.push(format!("{name}: {kernel} cannot be launched"));
                            continue;
                        };
                        let at = format!("{name}: {kernel} with scalars {scalar} ({schedule})");
                        if original.reports.is_empty() {
                            compared += 1;
                            if !new.reports.is_empty() || new.vectors != original.vectors {
                                failures.push(format!(
                                    "{at}: a correct launch computes otherwise after the edit ({:?})\n{edited}",
                                    new.reports
                                ));
                            }
                        } else if diverges(&original) {
                            fixed += 1;
                            if diverges(&new) {
                                failures
                                    .push(format!("{at}: still diverges after the edit ({:?})\n{edited}", new.reports));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compared >= 32 && fixed >= 16, "correct launches compared: {compared}, divergent launches fixed: {fixed}");
}
