//! Property test of the convergence analysis against an obviously correct reference, on thousands of generated
//! loop-free programs (`program`): device functions with int, `ref` and array parameters (the same cell or array
//! passed twice, fresh cells, arrays chosen by `if`), aliases, early returns, block and warp barriers under
//! conditions on thread, lane, warp and block indices.
//!
//! The reference (`reference`) runs each program, with real values, for sampled threads of two blocks of 64 (two
//! warps each) and for two values of the kernel's uniform parameter, and records the barriers each thread reaches.
//! Two threads of one block whose sequences of block barriers differ, or two lanes of one warp whose sequences of
//! barriers and warp collectives differ, are a real divergence: at the first place the sequences differ, one of
//! the two operations reached there is reached by one thread and not the other. The analysis is sound only if it
//! reports (E0001 for a block barrier, E0002 for a warp barrier) at least one of them. The test fails on any
//! program where it reports neither, or where the program does not check for another reason (a generator bug).
//!
//! `SKC_PROPERTY_CASES=N` runs N programs instead of the default; `SKC_PROPERTY_SEED=S` changes the seed.

mod program;
mod reference;

use program::{print, Generator, Printed, Program, Rng};
use reference::{run, Event, Thread};
use skc_core::{check, NoModules};

/// Threads sampled in each block of 64: both warps, small indices (the conditions compare with small constants),
/// and lanes at the ends of each warp.
const SAMPLED_THREADS: [i32; 18] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 31, 32, 33, 34, 40, 63];

/// What the analysis said about one program.
struct Verdicts {
    /// Byte offsets of the operations reported E0001 and E0002.
    e0001: Vec<usize>,
    e0002: Vec<usize>,
}

#[derive(Default, Debug)]
struct Counts {
    programs: usize,
    /// Programs where some threads diverge (found by the reference).
    divergent: usize,
    /// Programs the analysis accepts.
    accepted: usize,
    /// Programs the analysis rejects although no sampled thread diverges (its imprecision, or divergence the
    /// samples miss).
    rejected_without_divergence: usize,
    /// Operations the reference found at a divergence, checked against the analysis.
    divergences_checked: usize,
}

#[test]
fn analysis_agrees_with_the_reference_on_generated_programs() {
    let cases: usize = std::env::var("SKC_PROPERTY_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seed: u64 = std::env::var("SKC_PROPERTY_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed);
    let mut rng = Rng::new(seed);
    let mut counts = Counts::default();
    for case in 0..cases {
        let program = Generator::new(&mut rng).program();
        let printed = print(&program);
        let verdicts = analyse(&printed, case);
        let problems = compare(&program, &printed, &verdicts, &mut counts);
        assert!(
            problems.is_empty(),
            "program {case} (seed {seed}): the analysis misses a divergence the reference found:\n{}\n--- program ---\n{}",
            problems.join("\n"),
            printed.text
        );
        counts.programs += 1;
        if verdicts.e0001.is_empty() && verdicts.e0002.is_empty() {
            counts.accepted += 1;
        }
    }
    println!("{counts:#?}");
    assert!(counts.divergent > cases / 10, "the generator makes divergent programs ({counts:?})");
    assert!(counts.accepted > cases / 10, "the generator makes accepted programs ({counts:?})");
}

/// Checks the program and collects where E0001 and E0002 are reported; any other error is a generator bug.
/// `check` reports at most 20 diagnostics per item, so the verdicts come from the analysis itself, run again on
/// the checked module: every operation it flags counts.
fn analyse(printed: &Printed, case: usize) -> Verdicts {
    let checked = check("generated.sk", &printed.text, &NoModules, &Default::default());
    if let Some(d) = checked.diagnostics.iter().find(|d| d.is_error() && !matches!(d.code, "E0001" | "E0002")) {
        let rendered = skc_core::diagnostic::render(d, &checked.sources, skc_core::diagnostic::ColorChoice::Never);
        panic!("generated program {case} does not check:\n{rendered}\n{}", printed.text);
    }
    let (_, diagnostics) = skc_core::convergence::analyse(&checked.module, &checked.types, false);
    let mut verdicts = Verdicts { e0001: Vec::new(), e0002: Vec::new() };
    for d in &diagnostics {
        match d.code {
            "E0001" => verdicts.e0001.push(d.primary_span().start as usize),
            "E0002" => verdicts.e0002.push(d.primary_span().start as usize),
            _ => {}
        }
    }
    verdicts
}

/// Runs the reference and checks every divergence it finds against the verdicts; returns the misses.
fn compare(program: &Program, printed: &Printed, verdicts: &Verdicts, counts: &mut Counts) -> Vec<String> {
    let mut problems = Vec::new();
    let mut divergent = false;
    for n in [0, 5] {
        for block in [0, 1] {
            let traces: Vec<(i32, Vec<Event>)> =
                SAMPLED_THREADS.iter().map(|&tid| (tid, run(program, Thread { tid, block, n }))).collect();
            // Threads of the block: block barriers only.
            let block_only = |events: &[Event]| -> Vec<Event> { events.iter().filter(|e| e.block).cloned().collect() };
            let first = block_only(&traces[0].1);
            for (tid, events) in &traces[1..] {
                if let Some(at) = first_difference(&first, &block_only(events)) {
                    divergent = true;
                    counts.divergences_checked += 1;
                    check_reported(&at, printed, verdicts, &mut problems, (n, block, traces[0].0, *tid));
                }
            }
            // Lanes of each warp: barriers and warp collectives.
            for warp in [0, 1] {
                let lanes: Vec<&(i32, Vec<Event>)> = traces.iter().filter(|(tid, _)| tid / 32 == warp).collect();
                let Some((first_tid, first)) = lanes.first().map(|(t, e)| (*t, e)) else { continue };
                for (tid, events) in &lanes[1..] {
                    if let Some(at) = first_difference(first, events) {
                        divergent = true;
                        counts.divergences_checked += 1;
                        check_reported(&at, printed, verdicts, &mut problems, (n, block, first_tid, *tid));
                    }
                }
            }
        }
    }
    if divergent {
        counts.divergent += 1;
    } else if !verdicts.e0001.is_empty() || !verdicts.e0002.is_empty() {
        counts.rejected_without_divergence += 1;
    }
    problems
}

/// The operations the two threads reach at the first place their sequences differ (one may have none: it ended).
fn first_difference(a: &[Event], b: &[Event]) -> Option<Vec<Event>> {
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    Some(a.get(i).into_iter().chain(b.get(i)).cloned().collect())
}

fn check_reported(
    at: &[Event],
    printed: &Printed,
    verdicts: &Verdicts,
    problems: &mut Vec<String>,
    (n, block, tid_a, tid_b): (i32, i32, i32, i32),
) {
    let reported = |event: &Event| {
        let Some(&(_, offset, _)) = printed.barriers.iter().find(|(id, _, _)| *id == event.barrier) else {
            return false;
        };
        if event.block {
            verdicts.e0001.contains(&offset)
        } else {
            verdicts.e0002.contains(&offset)
        }
    };
    if !at.iter().any(reported) {
        problems.push(format!(
            "n = {n}, block {block}: threads {tid_a} and {tid_b} diverge at {at:?}, and neither operation is reported"
        ));
    }
}
