//! Generates random kernels and checks the properties of docs/interp.md ("Testing the compiler"): prints
//! programs/s, the counts, the counterexamples (minimised) and the precision figure.
//!
//! ```text
//! cargo run --release -p skc-interp --example fuzz_compiler -- [--programs N] [--start SEED] [--threads T]
//!     [--seconds S] [--minimise N] [--without-known-holes] [--nvrtc N]
//! fuzz_compiler --show SEED                       # print the program of SEED
//! fuzz_compiler --write-corpus DIR --cases N [--start SEED] [--threads T]   # the GPU differential's cases
//! fuzz_compiler --compare DIR                     # compare DIR/*.gpu.json with DIR/*.expected.json
//! ```
//!
//! `--seconds S`: stop generating after S seconds (the programs run by then are counted), for a run of a given
//! length; `--minimise N`: how many counterexamples to minimise (20 by default); `--without-known-holes`: leave
//! out the shapes of the analysis's known holes, as CI does; `--nvrtc N`: also compile the first N accepted
//! programs with NVRTC, in a worker process (property 3 here; needs `SKC_NVRTC_PATH` or a CUDA install). The
//! GPU differential (scripts/interp_gpu_diff.sh) writes its cases as `caseSEED.sk` with their arguments and the
//! interpreter's output, and compares the GPU's output with them.

use std::path::Path;
use std::time::Instant;

use skc_interp::fuzz::{
    compare_outputs, differential_case, generate, minimise_counterexample, run_seeds, Config, DifferentialCase,
    Summary, Trial,
};

struct Settings {
    programs: u64,
    start: u64,
    threads: usize,
    seconds: Option<f64>,
    max_minimised: usize,
    nvrtc: usize,
    config: Config,
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some(skc_nvrtc::WORKER_ARG) {
        std::process::exit(skc_nvrtc::serve_worker());
    }
    let mut s = Settings {
        programs: 1000,
        start: 0,
        threads: 1,
        seconds: None,
        max_minimised: 20,
        nvrtc: 0,
        config: Config::default(),
    };
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
            "--seconds" => s.seconds = Some(number(value()) as f64),
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
    let deadline = s.seconds.map(|seconds| begin + std::time::Duration::from_secs_f64(seconds));
    let workers: Vec<_> = (0..s.threads as u64)
        .map(|w| {
            let (config, t, start, programs) = (s.config.clone(), s.threads as u64, s.start, s.programs);
            let in_time = move |_: &u64| deadline.is_none_or(|d| Instant::now() < d);
            let seeds = (start..start + programs).filter(move |s| s % t == w).take_while(in_time);
            std::thread::spawn(move || run_seeds(seeds, &config))
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

/// Property 3 here: the first `s.nvrtc` accepted programs compile with NVRTC. NVRTC runs in a worker process
/// (this binary, started as `fuzz_compiler nvrtc-worker`), so that a crash of NVRTC is a finding, not the end of
/// the run.
fn nvrtc(s: &Settings) {
    use skc_core::codegen::{emit_cuda, EmitOptions};
    let command = skc_nvrtc::WorkerCommand::current_exe().unwrap_or_else(|e| usage(&e.to_string()));
    let mut worker = None;
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
        if let Err(e) = compile_in_worker(&mut worker, &command, &cuda.source, &format!("generated_{seed}.cu")) {
            failed += 1;
            println!("NVRTC rejects seed {seed}: {e}");
        }
        compiled += 1;
    }
    println!("NVRTC: {compiled} accepted programs compiled, {failed} failed ({:.1} s)", begin.elapsed().as_secs_f64());
}

/// Compiles `cuda` in `worker` (started, or restarted after a crash, from `command`): `Ok`, or NVRTC's log, or
/// how the worker crashed.
fn compile_in_worker(
    worker: &mut Option<skc_nvrtc::WorkerProcess>,
    command: &skc_nvrtc::WorkerCommand,
    cuda: &str,
    name: &str,
) -> Result<(), String> {
    use skc_nvrtc::{WorkerProcess, WorkerReply, WorkerRequest};
    let options = skc_nvrtc::CompileOptions { include_cubin: false, ..Default::default() };
    let request = WorkerRequest {
        library: None,
        program_name: name.to_string(),
        cuda_source: cuda.to_string(),
        args: options.nvrtc_args(),
        want_cubin: false,
    };
    if worker.is_none() {
        *worker = Some(WorkerProcess::start(command).map_err(|e| e.to_string())?);
    }
    match worker.as_mut().map(|w| w.request(&request)) {
        Some(Ok(WorkerReply::Compiled { succeeded: true, .. })) => Ok(()),
        Some(Ok(WorkerReply::Compiled { log, .. })) => Err(log),
        Some(Ok(WorkerReply::Failed { message })) => Err(message),
        Some(Err(error)) => {
            *worker = None;
            Err(format!("NVRTC crashed: {error}"))
        }
        None => Err("no NVRTC worker".into()),
    }
}

/// Writes the GPU differential's cases: `NAME.sk`, `NAME.json` (arguments), `NAME.expected.json` (what the
/// interpreter wrote) and one line `NAME<TAB>grid<TAB>block` per case in `cases.tsv`, for the first `s.programs`
/// seeds from `s.start` that make a case (the same cases whatever `s.threads`).
fn write_corpus(dir: &Path, s: &Settings) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| usage(&format!("cannot create {}: {e}", dir.display())));
    let begin = Instant::now();
    let (mut cases, tried) = find_cases(s);
    cases.sort_by_key(|(seed, _)| *seed);
    cases.truncate(s.programs as usize);
    let mut manifest = String::new();
    for (seed, case) in cases {
        let name = format!("case{seed:08}");
        let write = |ext: &str, text: String| {
            std::fs::write(dir.join(format!("{name}.{ext}")), text).unwrap_or_else(|e| usage(&e.to_string()))
        };
        write("sk", case.source);
        write("json", case.args.to_string());
        write("expected.json", format!("{}\n", case.expected));
        manifest.push_str(&format!("{name}\t{}\t{}\n", case.grid, case.block));
    }
    std::fs::write(dir.join("cases.tsv"), manifest).unwrap_or_else(|e| usage(&e.to_string()));
    println!(
        "{} cases written to {} ({tried} seeds tried from {}; {:.1} s)",
        s.programs,
        dir.display(),
        s.start,
        begin.elapsed().as_secs_f64()
    );
}

/// The differential cases of the seeds from `s.start`, found by `s.threads` threads taking chunks of seeds in
/// order until `s.programs` cases are found: every chunk taken is finished, so the chunks done are a prefix of
/// the seeds and hold the first `s.programs` cases. Returns the cases found and how many seeds were tried.
fn find_cases(s: &Settings) -> (Vec<(u64, DifferentialCase)>, u64) {
    use std::sync::atomic::{AtomicU64, Ordering};
    const CHUNK: u64 = 64;
    let (next_chunk, found) = (AtomicU64::new(0), AtomicU64::new(0));
    let cases = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..s.threads.max(1) {
            scope.spawn(|| {
                while found.load(Ordering::SeqCst) < s.programs {
                    let first = s.start + CHUNK * next_chunk.fetch_add(1, Ordering::SeqCst);
                    let chunk: Vec<_> =
                        (first..first + CHUNK).filter_map(|seed| Some((seed, differential_case(seed)?))).collect();
                    found.fetch_add(chunk.len() as u64, Ordering::SeqCst);
                    cases.lock().expect("cases").extend(chunk);
                }
            });
        }
    });
    (cases.into_inner().expect("cases"), CHUNK * next_chunk.load(Ordering::SeqCst))
}

/// Compares each case's `NAME.gpu.json` with its `NAME.expected.json` and prints a summary: the cases, how many
/// agree, and each disagreement or failure with its seed (its program is `caseSEED.sk` in `dir`). A case
/// with neither output nor log (`NAME.gpu.log`) was not run (the time ran out). Returns the exit status.
fn compare(dir: &Path) -> i32 {
    let manifest = std::fs::read_to_string(dir.join("cases.tsv")).unwrap_or_else(|e| usage(&e.to_string()));
    let read =
        |path: &Path| -> Option<serde_json::Value> { serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok() };
    let (mut cases, mut agree, mut differ, mut failed, mut not_run) = (0, 0, 0, 0, 0);
    for line in manifest.lines() {
        cases += 1;
        let name = line.split('\t').next().unwrap_or_default();
        let seed = name.trim_start_matches("case").trim_start_matches('0');
        let seed = if seed.is_empty() { "0" } else { seed };
        let expected = read(&dir.join(format!("{name}.expected.json")));
        let actual = read(&dir.join(format!("{name}.gpu.json")));
        let log = dir.join(format!("{name}.gpu.log"));
        match (expected, actual) {
            (Some(e), Some(a)) => match compare_outputs(&e, &a) {
                None => agree += 1,
                Some(difference) => {
                    differ += 1;
                    println!("DISAGREE seed {seed} ({name}): {difference}");
                }
            },
            _ if !log.exists() => not_run += 1,
            _ => {
                failed += 1;
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("(empty log)");
                println!("FAILED seed {seed} ({name}): no output; {first}");
            }
        }
    }
    println!(
        "summary: {cases} cases, {agree} agree, {differ} disagree, {failed} failed to run, {not_run} not run (time \
         limit)"
    );
    if differ == 0 && failed == 0 && agree > 0 {
        0
    } else {
        1
    }
}
