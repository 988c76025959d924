//! Generates random kernels and checks the properties of docs/interp.md ("Testing the compiler"): prints
//! programs/s, the counts, the counterexamples (minimised) and the precision figure.
//!
//! ```text
//! cargo run --release -p skc-interp --example fuzz_compiler -- [--programs N] [--start SEED] [--threads T]
//!     [--minimise N] [--without-known-holes] [--nvrtc N]
//! fuzz_compiler --show SEED                       # print the program of SEED
//! fuzz_compiler --write-corpus DIR --cases N      # the GPU differential's cases (scripts/interp_gpu_diff.sh)
//! fuzz_compiler --compare DIR                     # compare DIR/*.gpu.json with DIR/*.expected.json
//! ```
//!
//! `--minimise N`: how many counterexamples to minimise (20 by default); `--without-known-holes`: leave out the
//! shapes of the analysis's known holes, as CI does; `--nvrtc N`: also compile the first N accepted programs with
//! NVRTC (property 3 here; needs `SKC_NVRTC_PATH` or a CUDA install).

use std::path::Path;
use std::time::Instant;

use skc_interp::fuzz::{
    compare_outputs, differential_case, generate, minimise_counterexample, run_seeds, Config, Summary, Trial,
};

struct Settings {
    programs: u64,
    start: u64,
    threads: usize,
    max_minimised: usize,
    nvrtc: usize,
    config: Config,
}

fn main() {
    let mut s =
        Settings { programs: 1000, start: 0, threads: 1, max_minimised: 20, nvrtc: 0, config: Config::default() };
    let mut corpus = None;
    let mut to_compare = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{arg} needs a value")));
        let number = |v: String| v.parse::<u64>().unwrap_or_else(|_| usage(&format!("`{v}` is not a number")));
        match arg.as_str() {
            "--programs" | "--cases" => s.programs = number(value()),
            "--start" => s.start = number(value()),
            "--threads" => s.threads = number(value()) as usize,
            "--minimise" => s.max_minimised = number(value()) as usize,
            "--nvrtc" => s.nvrtc = number(value()) as usize,
            "--without-known-holes" => s.config = Config::without_known_holes(),
            "--show" => {
                print!("{}", generate(number(value()), &s.config).render());
                return;
            }
            "--write-corpus" => corpus = Some(value()),
            "--compare" => to_compare = Some(value()),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    match (corpus, to_compare) {
        (Some(dir), _) => write_corpus(Path::new(&dir), &s),
        (_, Some(dir)) => std::process::exit(compare(Path::new(&dir))),
        _ => run(&s),
    }
}

fn usage(problem: &str) -> ! {
    eprintln!("error: {problem} (see the comment at the top of compiler/interp/examples/fuzz_compiler.rs)");
    std::process::exit(2)
}

fn run(s: &Settings) {
    let begin = Instant::now();
    let workers: Vec<_> = (0..s.threads as u64)
        .map(|w| {
            let (config, t, start, programs) = (s.config.clone(), s.threads as u64, s.start, s.programs);
            std::thread::spawn(move || run_seeds((start..start + programs).filter(move |s| s % t == w), &config))
        })
        .collect();
    let mut summary = Summary::default();
    for w in workers {
        summary.merge(w.join().expect("worker"));
    }
    let seconds = begin.elapsed().as_secs_f64();
    println!("{}", summary.report());
    println!("{:.1} programs/s ({} thread(s), {seconds:.1} s)", summary.programs as f64 / seconds, s.threads);
    // Each counterexample minimised; the same minimal program found from several seeds is printed once.
    let mut minimal: Vec<(String, Vec<u64>, Trial)> = Vec::new();
    for (seed, trial) in summary.counterexamples.iter().take(s.max_minimised) {
        let text = minimise_counterexample(*seed, *trial, &s.config).render();
        match minimal.iter_mut().find(|(t, _, _)| *t == text) {
            Some((_, seeds, _)) => seeds.push(*seed),
            None => minimal.push((text, vec![*seed], *trial)),
        }
    }
    for (text, seeds, trial) in &minimal {
        println!("\ncounterexample (seeds {seeds:?}; {}), minimised:\n{text}", trial.describe());
    }
    if summary.counterexamples.len() > s.max_minimised {
        println!("({} more counterexamples not minimised)", summary.counterexamples.len() - s.max_minimised);
    }
    for (seed, code) in &summary.invalid_examples {
        println!("invalid: seed {seed}: {code}");
    }
    if s.nvrtc > 0 {
        nvrtc(s);
    }
}

/// Property 3 here: the first `s.nvrtc` accepted programs compile with NVRTC.
fn nvrtc(s: &Settings) {
    use skc_core::codegen::{emit_cuda, EmitOptions};
    let begin = Instant::now();
    let (mut compiled, mut failed) = (0, 0);
    for seed in s.start.. {
        if compiled == s.nvrtc {
            break;
        }
        let source = generate(seed, &s.config).render();
        let checked = skc_core::check("generated.sk", &source, &skc_core::NoModules, &Default::default());
        if checked.has_errors() {
            continue;
        }
        let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
        let options = skc_nvrtc::CompileOptions { include_cubin: false, ..Default::default() };
        if let Err(e) = skc_nvrtc::compile(&cuda.source, &format!("generated_{seed}.cu"), &options) {
            failed += 1;
            println!("NVRTC rejects seed {seed}: {e}");
        }
        compiled += 1;
    }
    println!("NVRTC: {compiled} accepted programs compiled, {failed} failed ({:.1} s)", begin.elapsed().as_secs_f64());
}

/// Writes the GPU differential's cases: `NAME.sk`, `NAME.json` (arguments), `NAME.expected.json` (what the
/// interpreter wrote) and one line `NAME<TAB>grid<TAB>block` per case in `cases.tsv`.
fn write_corpus(dir: &Path, s: &Settings) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| usage(&format!("cannot create {}: {e}", dir.display())));
    let mut manifest = String::new();
    let (mut written, mut tried) = (0u64, 0u64);
    let mut seed = s.start;
    while written < s.programs {
        tried += 1;
        if let Some(case) = differential_case(seed) {
            let name = format!("case{seed:08}");
            let write = |ext: &str, text: String| {
                std::fs::write(dir.join(format!("{name}.{ext}")), text).unwrap_or_else(|e| usage(&e.to_string()))
            };
            write("sk", case.source);
            write("json", case.args.to_string());
            write("expected.json", format!("{}\n", case.expected));
            manifest.push_str(&format!("{name}\t{}\t{}\n", case.grid, case.block));
            written += 1;
        }
        seed += 1;
    }
    std::fs::write(dir.join("cases.tsv"), manifest).unwrap_or_else(|e| usage(&e.to_string()));
    println!("{written} cases written to {} (from {tried} generated programs)", dir.display());
}

/// Compares each case's `NAME.gpu.json` with its `NAME.expected.json`; returns the exit status.
fn compare(dir: &Path) -> i32 {
    let manifest = std::fs::read_to_string(dir.join("cases.tsv")).unwrap_or_else(|e| usage(&e.to_string()));
    let read =
        |path: &Path| -> Option<serde_json::Value> { serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok() };
    let (mut agree, mut differ, mut missing) = (0, 0, 0);
    for line in manifest.lines() {
        let name = line.split('\t').next().unwrap_or_default();
        let expected = read(&dir.join(format!("{name}.expected.json")));
        let actual = read(&dir.join(format!("{name}.gpu.json")));
        match (expected, actual) {
            (Some(e), Some(a)) => match compare_outputs(&e, &a) {
                None => agree += 1,
                Some(difference) => {
                    differ += 1;
                    println!("{name}: {difference}");
                }
            },
            _ => {
                missing += 1;
                println!("{name}: no GPU output (see {name}.gpu.log)");
            }
        }
    }
    println!("{agree} cases agree, {differ} differ, {missing} without GPU output");
    if differ == 0 && missing == 0 {
        0
    } else {
        1
    }
}
