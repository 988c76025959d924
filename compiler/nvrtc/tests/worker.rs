//! NVRTC in a worker process: the same results as in process, a crash of the worker reported as
//! `NvrtcError::Crashed` (the test process survives), and the cache consulted before any worker starts.

mod common;

use std::path::PathBuf;

use skc_nvrtc::{Cache, CompileOptions, Isolation, LibrarySearch, NvrtcError, Runner, WorkerCommand};

fn worker_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_skc-nvrtc-worker"))
}

fn in_worker(command: WorkerCommand) -> Runner {
    Runner { search: LibrarySearch::from_env(), isolation: Isolation::Worker(command) }
}

#[test]
fn a_worker_compiles_exactly_as_the_process_does() {
    require_nvrtc!("a_worker_compiles_exactly_as_the_process_does");
    let source = common::data("shared.cu");
    let options = CompileOptions::default();
    let here = Runner::in_process(LibrarySearch::from_env()).compile(&source, "shared.cu", &options).expect("compiles");
    let there =
        in_worker(WorkerCommand::new(worker_binary())).compile(&source, "shared.cu", &options).expect("compiles");
    // The logs differ only in ptxas's "Compile time" lines.
    assert!(there.ptx == here.ptx && there.cubin == here.cubin, "same PTX and CUBIN");
    assert_eq!((&there.resources, there.nvrtc_version), (&here.resources, here.nvrtc_version));

    let broken =
        in_worker(WorkerCommand::new(worker_binary())).compile(&common::data("broken.cu"), "broken.cu", &options);
    let Err(NvrtcError::Compile { log }) = broken else { panic!("a compile error, with its log: {broken:?}") };
    assert!(log.contains("error"), "{log}");
}

/// A stand-in worker that dies of a segmentation fault as soon as it starts: what NVRTC's crash looks like from
/// the parent, without depending on a particular NVRTC bug.
fn segfaulting_worker(dir: &std::path::Path) -> WorkerCommand {
    let script = dir.join("segfault.sh");
    std::fs::write(&script, "#!/bin/sh\nkill -SEGV $$\n").expect("write script");
    WorkerCommand { program: "/bin/sh".into(), args: vec![script.into_os_string()] }
}

#[test]
fn a_crashed_worker_is_an_error_that_says_how_it_ended() {
    require_nvrtc!("a_crashed_worker_is_an_error_that_says_how_it_ended");
    let dir = common::fresh_dir("segfault-worker");
    let runner = in_worker(segfaulting_worker(&dir));
    let error = runner.compile(&common::data("simple.cu"), "simple.cu", &CompileOptions::default()).unwrap_err();
    let NvrtcError::Crashed { program, ended, .. } = &error else { panic!("expected a crash, got {error:?}") };
    assert_eq!(program, "simple.cu");
    assert_eq!(ended, "killed by signal 11 (SIGSEGV)");
    assert!(error.to_string().contains("NVRTC crashed while compiling simple.cu"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_worker_that_cannot_start_is_a_clear_error() {
    require_nvrtc!("a_worker_that_cannot_start_is_a_clear_error");
    let runner = in_worker(WorkerCommand::new("/nonexistent/skc-nvrtc-worker"));
    let error = runner.compile(&common::data("simple.cu"), "simple.cu", &CompileOptions::default()).unwrap_err();
    assert!(matches!(error, NvrtcError::Worker { .. }), "{error:?}");
    assert!(error.to_string().contains("/nonexistent/skc-nvrtc-worker"), "{error}");
}

/// NVRTC 13.0's own crash, contained: the test process is still here to check the error.
#[test]
fn nvrtcs_own_crash_is_contained() {
    let library = require_nvrtc!("nvrtcs_own_crash_is_contained");
    let runner = in_worker(WorkerCommand::new(worker_binary()));
    let result = runner.compile(&common::data("nvrtc_13_0_crash.cu"), "crash.cu", &CompileOptions::default());
    match result {
        Err(NvrtcError::Crashed { ended, .. }) => assert!(ended.contains("signal"), "{ended}"),
        Ok(_) if library.version != (13, 0) => eprintln!("note: NVRTC {:?} compiles it (fixed)", library.version),
        other => panic!("NVRTC 13.0 crashes on this file; expected a contained crash, got {other:?}"),
    }
}

#[test]
fn a_cache_hit_starts_no_worker() {
    require_nvrtc!("a_cache_hit_starts_no_worker");
    let cache = Cache::new(common::fresh_dir("worker-cache"));
    let source = common::data("simple.cu");
    let options = CompileOptions::default();
    let good = in_worker(WorkerCommand::new(worker_binary()));
    let miss = good.compile_cached(&source, "simple.cu", &options, Some(&cache), "skc-test").expect("miss");
    assert!(!miss.cache_hit);
    // A worker that cannot start would fail any compile that needs it.
    let absent = in_worker(WorkerCommand::new("/nonexistent/skc-nvrtc-worker"));
    let hit = absent.compile_cached(&source, "simple.cu", &options, Some(&cache), "skc-test").expect("hit");
    assert!(hit.cache_hit);
    assert_eq!((&hit.ptx, &hit.cubin), (&miss.ptx, &miss.cubin));
    let _ = std::fs::remove_dir_all(cache.dir());
}

/// One worker serves many requests (a caller that compiles a lot keeps it).
#[test]
fn a_worker_serves_requests_until_its_input_closes() {
    let library = require_nvrtc!("a_worker_serves_requests_until_its_input_closes");
    let mut worker = skc_nvrtc::WorkerProcess::start(&WorkerCommand::new(worker_binary())).expect("starts");
    for name in ["simple.cu", "shared.cu", "broken.cu", "simple.cu"] {
        let request = skc_nvrtc::WorkerRequest {
            library: Some(library.path.clone()),
            program_name: name.into(),
            cuda_source: common::data(name),
            args: CompileOptions::default().nvrtc_args(),
            want_cubin: false,
        };
        match worker.request(&request).expect("a reply") {
            skc_nvrtc::WorkerReply::Compiled { succeeded, nvrtc_version, ptx, .. } => {
                assert_eq!(succeeded, name != "broken.cu", "{name}");
                assert_eq!(ptx.is_empty(), name == "broken.cu", "{name}");
                assert_eq!(nvrtc_version, library.version);
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// A worker whose parent goes away (closes its input) while NVRTC works for minutes ends at once: no compiler
/// is left running for nobody.
#[test]
fn closing_the_input_ends_a_busy_worker() {
    let library = require_nvrtc!("closing_the_input_ends_a_busy_worker");
    let mut child = std::process::Command::new(worker_binary())
        .arg(skc_nvrtc::WORKER_ARG)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let request = skc_nvrtc::WorkerRequest {
        library: Some(library.path.clone()),
        program_name: "slow.cu".into(),
        cuda_source: common::data("slow_inlining.cu"),
        args: CompileOptions::default().nvrtc_args(),
        want_cubin: false,
    };
    let mut input = child.stdin.take().expect("stdin");
    request.write(&mut input).expect("sent");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(child.try_wait().expect("status").is_none(), "NVRTC is still inlining");
    let closed = std::time::Instant::now();
    drop(input);
    while child.try_wait().expect("status").is_none() {
        assert!(closed.elapsed() < std::time::Duration::from_secs(10), "the worker outlives its parent's input");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    eprintln!("the busy worker ended {:?} after its input closed", closed.elapsed());
}
