//! Every edit skc suggests (a diagnostic's `suggestion`: the JSON `suggested_replacement`, the language server's
//! quick fix) is applied, one at a time, to its UI input, and the result re-checked: it must have no errors, the
//! diagnostic it answers must be gone, and the program must mean what it meant. Meaning is checked by running
//! both programs: each kernel of the file on the host (`skc_tests::host`, threads one after the other over two
//! blocks, every vector filled the same way), every vector compared after; an edit that only moves text
//! (W0102) must leave the emitted CUDA C as it was. Every code of `SUGGESTING_CODES` must have a case, so a new
//! kind of edit cannot go untested.
//!
//! The edits that fix divergence errors (E0001 to E0004) change what a broken program does by design (threads
//! that returned early now reach the barrier), and keep what a correct one computes; the sequential run above
//! (barriers do nothing, one lane per warp) is the same before and after for both. Their cases are
//! `tests/suggestions/*.sk`: each is snapshotted with every diagnostic's help, its edit and the file after the
//! edit, which must check without errors; a `words_only_*.sk` case must get no edit (where none can be proven
//! right, the help stays in words).

use std::collections::BTreeMap;

use skc_core::codegen::{emit_cuda, CudaOutput, ElemType, EmitOptions, ParamKind, ScalarKind};
use skc_core::diagnostic::SUGGESTING_CODES;
use skc_core::Checked;
use skc_tests::host::{compile_and_run, cxx_compiler, host_source, work_dir, CUDA_HOST_SHIM};
use skc_tests::{actual, check_path, check_text, compare, display_name, expected};

/// An edit applied to its file.
struct Applied {
    code: &'static str,
    /// A case of `tests/suggestions/` (whose kernels the host runs), not a UI input.
    curated: bool,
    file: String,
    before: Checked,
    after: Checked,
    text: String,
}

fn emitted(checked: &Checked) -> CudaOutput {
    let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
    emit_cuda(&checked.module, &checked.types, &checked.sources, &options)
}

/// Applies every suggestion of every UI input and suggestion case, one at a time.
fn applied_suggestions() -> Vec<Applied> {
    let mut paths = Vec::new();
    insta::glob!("ui/**/*.sk", |path| paths.push((path.to_path_buf(), false)));
    insta::glob!("suggestions/*.sk", |path| paths.push((path.to_path_buf(), true)));
    let mut out = Vec::new();
    for (path, curated) in paths {
        let path = path.as_path();
        let before = check_path(path);
        let root = before.root;
        let original = before.sources.file(root).text.clone();
        let suggestions: Vec<_> = before
            .diagnostics
            .iter()
            .filter_map(|d| d.suggestion.clone().map(|s| (d.code, s)))
            .filter(|(_, s)| s.span.file == root)
            .collect();
        for (code, suggestion) in suggestions {
            let mut text = original.clone();
            text.replace_range(suggestion.span.range(), &suggestion.replacement);
            let name = display_name(path);
            let after = check_text(&name, &text, Vec::new());
            out.push(Applied { code, curated, file: name, before: check_path(path), after, text });
        }
    }
    out
}

/// Each case of `tests/suggestions/`: its verdict matches the inline expectations, every divergence error has an
/// edit (none in a `words_only_` case), and the edited file checks without errors. The snapshot shows each
/// diagnostic's help and edit, and the edited file.
#[test]
fn divergence_fixes_apply_and_check() {
    let mut failures = Vec::new();
    insta::glob!("suggestions/*.sk", |path| {
        let checked = check_path(path);
        let original = checked.sources.file(checked.root).text.clone();
        let name = display_name(path);
        let differences = compare(&expected(&original), &actual(&checked));
        if !differences.is_empty() {
            failures.push(format!("{name}: verdicts differ from the inline expectations:\n{differences}"));
        }
        let words_only = path.file_name().is_some_and(|f| f.to_string_lossy().starts_with("words_only_"));
        let mut report = String::new();
        for d in &checked.diagnostics {
            let line = checked.sources.file(checked.root).line_col(d.primary_span().start as usize).0 + 1;
            report.push_str(&format!("{} on line {line}\nhelp: {}\n", d.code, d.help.as_deref().unwrap_or("-")));
            let Some(s) = &d.suggestion else {
                report.push_str("edit: none\n\n");
                if !words_only && d.is_error() {
                    failures.push(format!("{name}: {} on line {line} has no edit", d.code));
                }
                continue;
            };
            if words_only {
                failures.push(format!("{name}: {} on line {line} has an edit in a words-only case", d.code));
            }
            let mut text = original.clone();
            text.replace_range(s.span.range(), &s.replacement);
            let after = check_text(&name, &text, Vec::new());
            let errors: Vec<String> = after
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            if !errors.is_empty() {
                failures.push(format!("{name}: after the edit of line {line}: {errors:?}\n{text}"));
            }
            report.push_str(&format!(
                "edit ({:?}): {}\nafter the edit ({}):\n{text}\n",
                s.applicability,
                s.message,
                if errors.is_empty() { "no errors".to_string() } else { errors.join("; ") }
            ));
        }
        insta::assert_snapshot!(report);
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_suggestion_applies_and_keeps_the_meaning() {
    let applied = applied_suggestions();
    let mut per_code: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut runs = Vec::new();
    for case in &applied {
        *per_code.entry(case.code).or_default() += 1;
        // The edit may leave other errors of the file, never add one.
        let errors_of = |c: &Checked| {
            let mut counts = BTreeMap::<&str, usize>::new();
            for d in c.diagnostics.iter().filter(|d| d.is_error()) {
                *counts.entry(d.code).or_default() += 1;
            }
            counts
        };
        let (had, has) = (errors_of(&case.before), errors_of(&case.after));
        let errors: Vec<_> = case
            .after
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && has[d.code] > had.get(d.code).copied().unwrap_or(0))
            .map(|d| &d.message)
            .collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{} ({}): the edited program has new errors {errors:?}\n{}",
                case.file, case.code, case.text
            ));
            continue;
        }
        let count = |c: &Checked| c.diagnostics.iter().filter(|d| d.code == case.code).count();
        if count(&case.after) >= count(&case.before) {
            failures
                .push(format!("{} ({}): the edit does not answer its diagnostic\n{}", case.file, case.code, case.text));
        }
        let (before, after) = (emitted(&case.before), emitted(&case.after));
        if case.code == "W0102" && before.source != after.source {
            failures.push(format!("{}: moving a statement changed the emitted code\n{}", case.file, case.text));
        }
        // The host runs the kernels of the warnings' edits, and of the divergence fixes' cases (the UI inputs'
        // divergence errors are many, and use atomics and vector types the host shim does not emulate), except
        // kernels with inline PTX (named barriers), which a host compiler cannot build.
        let runnable = case.curated || !case.before.has_errors();
        if before.source != after.source && runnable && !before.source.contains("asm volatile") {
            runs.push((case, before, after));
        }
    }
    for code in SUGGESTING_CODES {
        if !per_code.contains_key(code) {
            failures.push(format!("{code} may carry a suggestion, but no UI input has one: add a case"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(runs.len() >= 3, "edits that change the code are run ({} of {})", runs.len(), applied.len());
    let Some(cxx) = cxx_compiler("running suggested edits") else { return };
    let dir = work_dir("skc-suggestions");
    for (n, (case, before, after)) in runs.iter().enumerate() {
        let run = |label: &str, cuda: &CudaOutput| {
            let program = host_program(cuda);
            compile_and_run(&cxx, &dir, &format!("{label}_{n}"), &program)
                .map_err(|e| format!("{} ({}): {e}\n{program}", case.file, case.code))
        };
        let (original, edited) = match (run("before", before), run("after", after)) {
            (Ok(original), Ok(edited)) => (original, edited),
            (Err(e), _) | (_, Err(e)) => {
                failures.push(e);
                continue;
            }
        };
        if original != edited {
            failures.push(format!(
                "{} ({}): the edit changes what the kernels compute\n{}",
                case.file, case.code, case.text
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Elements of every vector a kernel gets.
const ELEMENTS: usize = 4096;
/// Threads per block, and blocks, of the sequential run.
const THREADS: u32 = 64;
const BLOCKS: u32 = 2;

/// Device names the suggestion inputs use beyond the common shim: one block's shared memory is a static array
/// (threads run one after the other, so it is shared as on the GPU), a barrier is nothing, and a warp is one
/// lane (a shuffle reads the lane's own value, a barrier reduction its own predicate), as the shim's votes do.
const SEQUENTIAL_SHIM: &str = r#"
#define __shared__ static
#define __launch_bounds__(...)
static void __syncthreads() {}
static int __syncthreads_count(int p) { return p != 0; }
static int __syncthreads_and(int p) { return p != 0; }
static int __syncthreads_or(int p) { return p != 0; }
static void __syncwarp(unsigned) {}
static unsigned __ballot_sync(unsigned, int p) { return p != 0 ? 1u : 0u; }
template <class T> static T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> static T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> static T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> static T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
"#;

/// A C++ program that runs every kernel of `cuda` over [`BLOCKS`] blocks of [`THREADS`] threads, one thread after
/// the other, and prints every vector afterwards. Kernels with record parameters are left out.
fn host_program(cuda: &CudaOutput) -> String {
    let mut main = String::from("int main() {\n  blockDim.x = THREADS;\n");
    for (k, kernel) in cuda.kernels.iter().enumerate() {
        let mut args = Vec::new();
        let mut vectors = Vec::new();
        let mut declarations = String::new();
        let runnable = kernel.params.iter().enumerate().all(|(p, param)| {
            match &param.kind {
                ParamKind::Scalar(scalar) => args.push(format!("({}){}", scalar.c_name(), scalar_value(*scalar))),
                ParamKind::Vector { elem: ElemType::Scalar(scalar), .. } => {
                    let name = format!("v{k}_{p}");
                    declarations.push_str(&format!(
                        "  std::vector<{c}> {name}(ELEMENTS);\n  for (int i = 0; i < ELEMENTS; i++) {name}[i] = ({c})(((i * 37) % 101) - 50) / ({c})(8);\n",
                        c = scalar.c_name()
                    ));
                    args.push(format!("{name}.data()"));
                    vectors.push(name);
                }
                _ => return false,
            }
            true
        });
        if !runnable {
            continue;
        }
        main.push_str(&declarations);
        main.push_str(&format!(
            "  for (unsigned b = 0; b < BLOCKS; b++) for (unsigned t = 0; t < THREADS; t++) {{\n    blockIdx.x = b; threadIdx.x = t;\n    {}({});\n  }}\n",
            kernel.symbol,
            args.join(", ")
        ));
        for name in vectors {
            main.push_str(&format!(
                "  for (int i = 0; i < ELEMENTS; i++) printf(\"{name} %d %.17g\\n\", i, (double){name}[i]);\n"
            ));
        }
    }
    main.push_str("  return 0;\n}\n");
    format!(
        "{CUDA_HOST_SHIM}\n{SEQUENTIAL_SHIM}\n#define ELEMENTS {ELEMENTS}\n#define THREADS {THREADS}\n#define BLOCKS \
         {BLOCKS}\n{}\n{main}",
        host_source(&cuda.source)
    )
}

fn scalar_value(kind: ScalarKind) -> &'static str {
    match kind {
        ScalarKind::Bool => "true",
        ScalarKind::Float32 | ScalarKind::Float64 => "0.75",
        _ => "24",
    }
}
