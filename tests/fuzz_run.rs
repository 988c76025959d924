//! The long fuzz run: generated programs (`skc_tests::generator`) through `check` and `emit`, and every accepted
//! program whose CUDA C is new through NVRTC (build, with ptxas), looking for a panic, a front end that takes over
//! 5 s on an input under 100 KB, or a program that checks but does not build.
//!
//! `cargo run --release -p skc-tests --example fuzz -- [--programs N] [--seed S] [--threads T]
//! [--nvrtc-threads T] [--batch B] [--no-nvrtc] [--arch sm_90] [--syntax-only] [--ptxas-every N] [--out DIR]
//! [--keep N] [--print N]
//! [--no-out-of-range-floats]` (see `scripts/fuzz.sh`). Findings are grouped by kind (the panic's message,
//! NVRTC's first error with the line numbers left out); `--keep` examples of each are saved, all are counted, and
//! `summary.txt` in `--out` lists the kinds with their counts. The exit status is 1 when there is a finding.
//!
//! Cheap by design: check and emit run for every program on `--threads` threads; NVRTC runs only for accepted
//! programs whose CUDA C (without `#line` directives) has not been seen, `--batch` programs per translation unit
//! (each in a namespace of its own, its kernels without `extern "C"` so that their names do not clash), in
//! worker processes (this binary, started as `fuzz nvrtc-worker`) so that an NVRTC crash is a finding, not the
//! end of the run. A batch that fails is split: each of its programs is compiled alone, and those that fail alone
//! are the findings (saved in `--out` with their CUDA C and NVRTC's log).

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_core::driver::CheckOptions;
use skc_nvrtc::{CompileOptions, WorkerCommand, WorkerProcess, WorkerReply, WorkerRequest};
use skc_tests::generator::{program_with, Program, ProgramLoader, Settings};

/// A front end slower than this on an input under `SLOW_INPUT_BYTES` is a finding.
const SLOW: Duration = Duration::from_secs(5);
const SLOW_INPUT_BYTES: usize = 100 * 1024;

struct Options {
    programs: u64,
    seed: u64,
    threads: usize,
    nvrtc_threads: usize,
    batch: usize,
    nvrtc: bool,
    out: PathBuf,
    print: u64,
    /// NVRTC's target: `sm_90` runs ptxas too (as `skc build` does); `compute_90` stops at PTX.
    arch: String,
    /// Every n-th batch is compiled for `sm_90` (with ptxas) whatever `arch` says (0: never).
    ptxas_every: u64,
    /// Stop after NVRTC's C++ front end (`-fdevice-syntax-only`): ten times faster than a build, and what rejects
    /// every ill-formed CUDA C; the batches of `ptxas_every` still run the whole build.
    syntax_only: bool,
    /// Examples kept of each kind of finding (all are counted).
    keep: usize,
    settings: Settings,
}

fn options() -> Options {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut o = Options {
        programs: 10_000,
        seed: 1,
        threads: cores,
        nvrtc_threads: cores,
        batch: 40,
        nvrtc: true,
        out: PathBuf::from("target/fuzz"),
        print: 0,
        arch: skc_nvrtc::DEFAULT_ARCH.to_string(),
        ptxas_every: 0,
        syntax_only: false,
        keep: 5,
        settings: Settings::default(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = || args.get(i + 1).cloned().unwrap_or_default();
        let number = || value().replace('_', "").parse::<u64>().unwrap_or_else(|_| panic!("{}: a number", args[i]));
        match args[i].as_str() {
            "--programs" => o.programs = number(),
            "--seed" => o.seed = number(),
            "--threads" => o.threads = number() as usize,
            "--nvrtc-threads" => o.nvrtc_threads = number() as usize,
            "--batch" => o.batch = number().max(1) as usize,
            "--out" => o.out = PathBuf::from(value()),
            "--print" => o.print = number(),
            "--arch" => o.arch = value(),
            "--ptxas-every" => o.ptxas_every = number(),
            "--keep" => o.keep = number() as usize,
            "--syntax-only" => {
                o.syntax_only = true;
                i -= 1;
            }
            "--no-out-of-range-floats" => {
                o.settings.out_of_range_floats = false;
                i -= 1;
            }
            "--no-nvrtc" => {
                o.nvrtc = false;
                i -= 1;
            }
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    o
}

/// What the run counts.
#[derive(Default)]
struct Counts {
    generated: AtomicU64,
    accepted: AtomicU64,
    unique: AtomicU64,
    compiled: AtomicU64,
    /// Programs of batches compiled for `sm_90` because of `--ptxas-every`.
    with_ptxas: AtomicU64,
    batches: AtomicU64,
    front_end_nanos: AtomicU64,
    slowest_nanos: AtomicU64,
    nvrtc_nanos: AtomicU64,
    findings: AtomicU64,
    kinds: Findings,
}

/// An accepted program on its way to NVRTC.
struct Unit {
    seed: u64,
    program: Program,
    cuda: String,
}

fn check(program: &Program) -> skc_core::Checked {
    skc_core::check("fuzz.sk", &program.root, &ProgramLoader(program.module.as_deref()), &CheckOptions::default())
}

/// Every finding's kind (a short signature) and how many there were.
type Findings = Mutex<std::collections::BTreeMap<String, u64>>;

/// The signature of an NVRTC failure: its first error, without the file and line.
fn nvrtc_signature(log: &str) -> String {
    let first = log.lines().find(|l| l.contains("error")).unwrap_or(log.lines().next().unwrap_or("")).trim();
    let without_place = match first.find("): ") {
        Some(i) => &first[i + 3..],
        None => first,
    };
    without_place.chars().take(160).collect()
}

/// Counts a finding of kind `signature`, and saves it (the program, its module, and whatever else explains it)
/// if fewer than `--keep` of its kind were saved.
fn record(o: &Options, counts: &Counts, signature: &str, seed: u64, program: &Program, extra: &[(&str, &str)]) {
    counts.findings.fetch_add(1, Ordering::Relaxed);
    let seen = counts.kinds.lock().map(|mut f| {
        let n = f.entry(signature.to_string()).or_insert(0);
        *n += 1;
        *n
    });
    if seen.is_ok_and(|n| n as usize <= o.keep) {
        let kind: String = signature
            .split(':')
            .next()
            .unwrap_or("finding")
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let mut extra = extra.to_vec();
        extra.push(("kind.txt", signature));
        save(&o.out, &kind, seed, program, &extra);
    }
}

/// Saves a finding: the program, its module, and whatever else explains it.
fn save(out: &Path, kind: &str, seed: u64, program: &Program, extra: &[(&str, &str)]) {
    let dir = out.join(format!("{kind}-{seed}"));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("fuzz.sk"), &program.root);
    if let Some(module) = &program.module {
        let _ = std::fs::write(dir.join("lib.sk"), module);
    }
    for (name, text) in extra {
        let _ = std::fs::write(dir.join(name), text);
    }
    eprintln!("finding: {kind} (seed {seed}), saved in {}", dir.display());
}

/// Check and emit one program; the CUDA C (without `#line`) when it is accepted.
fn front_end(seed: u64, o: &Options, counts: &Counts) -> Option<Unit> {
    let program = program_with(seed, o.settings);
    if seed < o.seed + o.print {
        println!("==== seed {seed} ====\n{}{}", program.module.as_deref().unwrap_or(""), program.root);
    }
    let size = program.root.len() + program.module.as_ref().map_or(0, String::len);
    let started = Instant::now();
    let result = std::panic::catch_unwind(|| {
        let checked = check(&program);
        if checked.has_errors() {
            return None;
        }
        let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
        Some(emit_cuda(&checked.module, &checked.types, &checked.sources, &options))
    });
    let elapsed = started.elapsed();
    counts.front_end_nanos.fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
    counts.slowest_nanos.fetch_max(elapsed.as_nanos() as u64, Ordering::Relaxed);
    if elapsed > SLOW && size < SLOW_INPUT_BYTES {
        record(o, counts, "slow: check and emit over 5 s", seed, &program, &[("time.txt", &format!("{elapsed:?}"))]);
    }
    match result {
        Err(panic) => {
            let message =
                panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            let message = message.unwrap_or_default();
            let first: String = message.lines().next().unwrap_or("").chars().take(120).collect();
            record(o, counts, &format!("panic: {first}"), seed, &program, &[("panic.txt", &message)]);
            None
        }
        Ok(None) => None,
        Ok(Some(cuda)) => {
            counts.accepted.fetch_add(1, Ordering::Relaxed);
            if cuda.needs_device_runtime {
                return None; // the generator writes no `launch`
            }
            Some(Unit { seed, program, cuda: cuda.source })
        }
    }
}

/// The translation unit of several programs: each in a namespace, kernels without C linkage.
fn batch_source(units: &[Unit]) -> String {
    let mut out = String::new();
    for (k, unit) in units.iter().enumerate() {
        out.push_str(&format!("namespace fz{k} {{\n{}\n}}\n", unit.cuda.replace("extern \"C\" ", "")));
    }
    out
}

/// Compiles with NVRTC in `worker` (restarted after a crash). `Ok(())`, or NVRTC's log or how it crashed.
fn nvrtc(
    worker: &mut Option<WorkerProcess>,
    command: &WorkerCommand,
    arch: &str,
    syntax_only: bool,
    source: &str,
) -> Result<(), String> {
    let extra = if syntax_only { vec!["-fdevice-syntax-only".to_string()] } else { Vec::new() };
    let options = CompileOptions { arch: arch.to_string(), include_cubin: false, extra, ..CompileOptions::default() };
    let request = WorkerRequest {
        library: None,
        program_name: "fuzz.cu".to_string(),
        cuda_source: source.to_string(),
        args: options.nvrtc_args(),
        want_cubin: false,
    };
    if worker.is_none() {
        *worker = Some(WorkerProcess::start(command).map_err(|e| e.to_string())?);
    }
    let reply = worker.as_mut().map(|w| w.request(&request));
    match reply {
        Some(Ok(WorkerReply::Compiled { succeeded: true, .. })) => Ok(()),
        Some(Ok(WorkerReply::Compiled { log, .. })) => Err(log),
        Some(Ok(WorkerReply::Failed { message })) => Err(message),
        Some(Err(error)) => {
            *worker = None;
            Err(format!("crash: {error}"))
        }
        None => Err("no worker".into()),
    }
}

struct Nvrtc<'a> {
    worker: Option<WorkerProcess>,
    command: WorkerCommand,
    o: &'a Options,
    counts: &'a Counts,
}

impl Nvrtc<'_> {
    /// Compiles `units` in one translation unit; when that fails, each half again, down to single programs, which
    /// are the findings. A failure no single program has is a finding of the batch. Returns the findings.
    fn compile(&mut self, units: &[Unit]) -> usize {
        let started = Instant::now();
        let batch = self.counts.batches.fetch_add(1, Ordering::Relaxed);
        let ptxas = self.o.ptxas_every > 0 && batch.is_multiple_of(self.o.ptxas_every);
        if ptxas {
            self.counts.with_ptxas.fetch_add(units.len() as u64, Ordering::Relaxed);
        }
        let (arch, syntax_only) =
            if ptxas { (skc_nvrtc::DEFAULT_ARCH, false) } else { (self.o.arch.as_str(), self.o.syntax_only) };
        let result = nvrtc(&mut self.worker, &self.command, arch, syntax_only, &batch_source(units));
        self.counts.nvrtc_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        match result {
            Ok(()) => {
                self.counts.compiled.fetch_add(units.len() as u64, Ordering::Relaxed);
                0
            }
            Err(log) if units.len() == 1 => {
                let unit = &units[0];
                let signature = if log.starts_with("crash") {
                    "nvrtc crashed".to_string()
                } else {
                    format!("nvrtc: {}", nvrtc_signature(&log))
                };
                record(
                    self.o,
                    self.counts,
                    &signature,
                    unit.seed,
                    &unit.program,
                    &[("fuzz.cu", &unit.cuda), ("nvrtc.log", &log)],
                );
                1
            }
            Err(log) => {
                let (first, second) = units.split_at(units.len() / 2);
                let found = self.compile(first) + self.compile(second);
                if found == 0 {
                    let unit = &units[0];
                    let signature = format!("batch only: {}", nvrtc_signature(&log));
                    record(
                        self.o,
                        self.counts,
                        &signature,
                        unit.seed,
                        &unit.program,
                        &[("batch.cu", &batch_source(units)), ("nvrtc.log", &log)],
                    );
                    return 1;
                }
                found
            }
        }
    }
}

fn nvrtc_thread(queue: Arc<Mutex<Receiver<Unit>>>, command: WorkerCommand, o: &Options, counts: &Counts) {
    let mut nvrtc = Nvrtc { worker: None, command, o, counts };
    loop {
        let mut units = Vec::with_capacity(o.batch);
        {
            let Ok(receiver) = queue.lock() else { return };
            while units.len() < o.batch {
                match receiver.recv_timeout(Duration::from_millis(200)) {
                    Ok(unit) => units.push(unit),
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) if units.is_empty() => continue,
                    Err(_) => break,
                }
            }
        }
        if units.is_empty() {
            return;
        }
        nvrtc.compile(&units);
    }
}

fn front_end_thread(
    next: &AtomicU64,
    o: &Options,
    counts: &Counts,
    seen: &Mutex<HashSet<u64>>,
    queue: Option<SyncSender<Unit>>,
) {
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= o.programs {
            return;
        }
        let seed = o.seed + index;
        counts.generated.fetch_add(1, Ordering::Relaxed);
        let Some(unit) = front_end(seed, o, counts) else { continue };
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        unit.cuda.hash(&mut hasher);
        let new = seen.lock().map(|mut s| s.insert(hasher.finish())).unwrap_or(false);
        if new {
            counts.unique.fetch_add(1, Ordering::Relaxed);
            if let Some(queue) = &queue {
                if queue.send(unit).is_err() {
                    return;
                }
            }
        }
    }
}

fn report(counts: &Counts, o: &Options, elapsed: Duration, last: bool) {
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let generated = get(&counts.generated);
    let front_end = Duration::from_nanos(get(&counts.front_end_nanos));
    let per_second = generated as f64 / elapsed.as_secs_f64().max(1e-9);
    let compiled = get(&counts.compiled);
    eprintln!(
        "{}{generated} programs in {elapsed:.0?} ({per_second:.0}/s on {} threads; front end {:.1?} per program, slowest \
         {:.1?}); accepted {}; unique CUDA C {}; NVRTC ({}{}): {compiled} compiled in {} batches ({} of them with ptxas; \
         {:.1} programs/s of NVRTC time); findings {}",
        if last { "done: " } else { "" },
        o.threads,
        front_end / generated.max(1) as u32,
        Duration::from_nanos(get(&counts.slowest_nanos)),
        get(&counts.accepted),
        get(&counts.unique),
        o.arch,
        if o.syntax_only { ", C++ front end only" } else { "" },
        get(&counts.batches),
        get(&counts.with_ptxas),
        compiled as f64 / Duration::from_nanos(get(&counts.nvrtc_nanos)).as_secs_f64().max(1e-9),
        get(&counts.findings),
    );
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some(skc_nvrtc::WORKER_ARG) {
        std::process::exit(skc_nvrtc::serve_worker());
    }
    let o = options();
    let counts = Counts::default();
    let next = AtomicU64::new(0);
    let seen = Mutex::new(HashSet::new());
    let started = Instant::now();
    let done = AtomicBool::new(false);
    let command = WorkerCommand::current_exe().expect("this executable");
    let (sender, receiver) = sync_channel::<Unit>(4 * o.batch * o.nvrtc_threads.max(1));
    let queue = Arc::new(Mutex::new(receiver));
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if last.elapsed() > Duration::from_secs(30) {
                    report(&counts, &o, started.elapsed(), false);
                    last = Instant::now();
                }
            }
        });
        let mut workers = Vec::new();
        for _ in 0..o.threads {
            let sender = o.nvrtc.then(|| sender.clone());
            workers.push(s.spawn(|| front_end_thread(&next, &o, &counts, &seen, sender)));
        }
        drop(sender);
        if o.nvrtc {
            for _ in 0..o.nvrtc_threads {
                let (queue, command) = (Arc::clone(&queue), command.clone());
                workers.push(s.spawn(|| nvrtc_thread(queue, command, &o, &counts)));
            }
        }
        for worker in workers {
            let _ = worker.join();
        }
        done.store(true, Ordering::Relaxed);
    });
    report(&counts, &o, started.elapsed(), true);
    let kinds = counts.kinds.lock().map(|k| k.clone()).unwrap_or_default();
    let mut summary = String::new();
    for (kind, n) in &kinds {
        summary.push_str(&format!("{n:>9}  {kind}\n"));
        eprintln!("{n:>9}  {kind}");
    }
    let _ = std::fs::create_dir_all(&o.out);
    let _ = std::fs::write(o.out.join("summary.txt"), summary);
    if counts.findings.load(Ordering::Relaxed) > 0 {
        std::process::exit(1);
    }
}
