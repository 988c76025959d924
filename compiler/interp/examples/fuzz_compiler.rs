//! Generates random kernels and checks the properties of docs/interp.md ("Testing the compiler"): prints
//! programs/s, the counts, the counterexamples (minimised) and the precision figure.
//!
//! `cargo run --release -p skc-interp --example fuzz_compiler -- [--programs N] [--start SEED] [--threads T]
//!  [--minimise N] [--without-known-holes] [--show SEED]` (`--minimise`: how many counterexamples to minimise, 20
//!  by default; `--without-known-holes`: not the shapes of `Config::without_known_holes`, as CI runs)

use std::time::Instant;

use skc_interp::fuzz::{generate, minimise_counterexample, run_seeds, Config, Summary, Trial};

fn main() {
    let mut programs = 1000u64;
    let mut start = 0u64;
    let mut threads = 1usize;
    let mut max_minimised = 20usize;
    let mut config = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse::<u64>().ok()).expect("a number");
        match arg.as_str() {
            "--programs" => programs = value(),
            "--start" => start = value(),
            "--threads" => threads = value() as usize,
            "--minimise" => max_minimised = value() as usize,
            "--without-known-holes" => config = Config::without_known_holes(),
            "--show" => {
                let seed = value();
                print!("{}", generate(seed, &config).render());
                return;
            }
            other => panic!("unknown argument {other}"),
        }
    }
    let begin = Instant::now();
    let workers: Vec<_> = (0..threads as u64)
        .map(|w| {
            let config = config.clone();
            let t = threads as u64;
            std::thread::spawn(move || run_seeds((start..start + programs).filter(move |s| s % t == w), &config))
        })
        .collect();
    let mut summary = Summary::default();
    for w in workers {
        summary.merge(w.join().expect("worker"));
    }
    let seconds = begin.elapsed().as_secs_f64();
    println!("{}", summary.report());
    println!("{:.1} programs/s ({} thread(s), {seconds:.1} s)", summary.programs as f64 / seconds, threads);
    // Each counterexample minimised; the same minimal program found from several seeds is printed once.
    let mut minimal: Vec<(String, Vec<u64>, Trial)> = Vec::new();
    for (seed, trial) in summary.counterexamples.iter().take(max_minimised) {
        let text = minimise_counterexample(*seed, *trial, &config).render();
        match minimal.iter_mut().find(|(t, _, _)| *t == text) {
            Some((_, seeds, _)) => seeds.push(*seed),
            None => minimal.push((text, vec![*seed], *trial)),
        }
    }
    for (text, seeds, trial) in &minimal {
        println!("\ncounterexample (seeds {seeds:?}; {}), minimised:\n{text}", trial.describe());
    }
    if summary.counterexamples.len() > max_minimised {
        println!("({} more counterexamples not minimised)", summary.counterexamples.len() - max_minimised);
    }
    for (seed, code) in &summary.invalid_examples {
        println!("invalid: seed {seed}: {code}");
    }
}
