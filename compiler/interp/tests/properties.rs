//! The properties of docs/interp.md ("Testing the compiler") on a fixed slice of generated programs, as CI runs
//! them (`cargo run --release -p skc-interp --example fuzz_compiler -- --programs N` runs millions):
//!
//! 1. every generated program the checker accepts runs without barrier or collective divergence in every launch
//!    (blocks of 64, 48 and 32 threads, several inputs and schedules); the known holes of the analysis
//!    (`Hole`, each shown by a UI test in `tests/ui/hole_*.sk`) are not generated here;
//! 2. the precision figure (rejected programs that never diverge) is computed and printed.
//!
//! Also: the generator makes only well-typed programs, both accepted and rejected, and some rejected ones diverge.

use skc_interp::fuzz::{generate, minimise, run_seeds, trials, Config, Verdict};

const PROGRAMS: u64 = 3000;

#[test]
fn accepted_programs_never_diverge() {
    let summary = run_seeds(0..PROGRAMS, &Config::without_known_holes());
    println!("{}", summary.report());
    let minimised: Vec<String> = summary
        .counterexamples
        .iter()
        .take(3)
        .map(|(seed, trial)| {
            let small = skc_interp::fuzz::minimise_counterexample(*seed, *trial, &Config::without_known_holes());
            format!("seed {seed} ({}):\n{}", trial.describe(), small.render())
        })
        .collect();
    assert!(
        summary.counterexamples.is_empty(),
        "accepted programs that diverge (holes in the convergence analysis), minimised:\n{}",
        minimised.join("\n")
    );
    assert_eq!(summary.invalid, 0, "ill-typed generated programs: {:?}", summary.invalid_examples);
    assert!(summary.accepted > PROGRAMS / 2, "{}", summary.report());
    assert!(summary.rejected > PROGRAMS / 20, "{}", summary.report());
    assert!(summary.rejected_diverging > 0, "the interpreter finds the divergence of some rejected programs");
    assert!(summary.launches >= summary.accepted * trials(0).len() as u64, "every accepted program ran every launch");
    assert_eq!(summary.inconclusive, 0, "launches that stopped for another reason than divergence");
}

#[test]
fn generation_is_deterministic() {
    let config = Config::default();
    for seed in [0, 1, 99, 12345] {
        assert_eq!(generate(seed, &config).render(), generate(seed, &config).render());
    }
    assert_ne!(generate(1, &config).render(), generate(2, &config).render());
}

/// The minimiser on real programs: a rejected program that diverges is cut down to a small one that is still
/// rejected and still diverges in the same launch.
#[test]
fn minimiser_keeps_the_failure() {
    let config = Config::default();
    let (seed, trial) = (0..500)
        .find_map(|seed| {
            let evaluation = skc_interp::fuzz::evaluate(&generate(seed, &config).render(), &trials(seed));
            (evaluation.verdict == Verdict::Rejected).then_some(evaluation.diverged.map(|t| (seed, t))).flatten()
        })
        .expect("a rejected program that diverges among 500");
    let fails = |p: &skc_interp::fuzz::program::Program| {
        let e = skc_interp::fuzz::evaluate(&p.render(), &[trial]);
        e.verdict == Verdict::Rejected && e.diverged.is_some()
    };
    let original = generate(seed, &config);
    let small = minimise(&original, &fails);
    assert!(fails(&small));
    assert!(
        small.render().len() * 2 < original.render().len(),
        "minimised from {} to {} bytes:\n{}",
        original.render().len(),
        small.render().len(),
        small.render()
    );
}
