//! The `skc` binary as users run it: exit statuses (0 clean, 1 errors, 2 usage or I/O), output streams, the JSON
//! message format, `explain`, `NO_COLOR`, and `build`/`emit` through NVRTC.

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::{repo, stderr, stdout};

fn skc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skc")).args(args).env("NO_COLOR", "1").output().expect("skc runs")
}

#[test]
fn clean_file_exits_zero_with_no_output() {
    let o = skc(&["check", &repo("tests/ui/seed/reduce.sk")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty() && stdout(&o).is_empty());
}

#[test]
fn errors_exit_one_and_render_without_colour() {
    let o = skc(&["check", &repo("tests/ui/seed/deadlock.sk")]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("[E0001] Error: Barrier in potentially diverged control flow"), "{err}");
    assert!(!err.contains('\u{1b}'), "NO_COLOR must turn colour off");
    assert!(stdout(&o).is_empty(), "diagnostics go to stderr");
}

#[test]
fn missing_file_and_bad_usage_exit_two() {
    let o = skc(&["check", "/nonexistent/file.sk"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    assert_eq!(skc(&["check"]).status.code(), Some(2));
    assert_eq!(skc(&["frobnicate"]).status.code(), Some(2));
    let o = skc(&["check", "-D", "novalue", &repo("tests/ui/seed/reduce.sk")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn non_utf8_input_is_an_io_error_not_a_panic() {
    let dir = std::env::temp_dir().join(format!("skc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.sk");
    std::fs::write(&file, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let o = skc(&["check", &file.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("UTF-8"), "{}", stderr(&o));
}

#[test]
fn json_format_prints_one_object_per_diagnostic() {
    let o = skc(&["check", "--message-format=json", &repo("tests/ui/convergence/multiple_errors.sk")]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    assert_eq!(lines.len(), 4, "{}", stdout(&o));
    let first = &lines[0];
    assert_eq!(first["code"]["code"], "E0001");
    assert_eq!(first["level"], "error");
    let spans = first["spans"].as_array().unwrap();
    let primary = spans.iter().find(|s| s["is_primary"] == true).unwrap();
    assert_eq!(primary["line_start"], 4);
    assert_eq!(primary["text"], "Gpu.block_barrier");
    assert!(spans.len() >= 3, "secondary labels explain the divergence");
    assert!(first["rendered"].as_str().unwrap().contains("E0001"));
}

#[test]
fn short_format_is_one_line() {
    let o = skc(&["check", "--message-format=short", &repo("tests/ui/seed/deadlock.sk")]);
    let err = stderr(&o);
    assert!(
        err.lines().next().unwrap().ends_with("error[E0001]: Barrier in potentially diverged control flow"),
        "{err}"
    );
}

#[test]
fn explain_prints_a_page_and_rejects_unknown_codes() {
    let o = skc(&["explain", "e0001"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("E0001"), "{}", stdout(&o));
    let unknown = format!("E{}", 9000 + 999);
    assert_eq!(skc(&["explain", &unknown]).status.code(), Some(2));
}

#[test]
fn defines_override_constants() {
    let dir = std::env::temp_dir().join(format!("skc-cli-d-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tile.sk");
    std::fs::write(&file, "let tile = 64\nkernel k (o : int32 vector) =\n  let%shared (t : int32) = tile in\n  t.(0) <- 1;\n  o.(0) <- tile\n").unwrap();
    let file = file.display().to_string();
    assert_eq!(skc(&["check", "-D", "tile=128", &file]).status.code(), Some(0));
    let o = skc(&["check", "-D", "nosuch=1", &file]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("E0215"), "{}", stderr(&o));
    // It points at the definition on the command line, not into the file.
    assert!(stderr(&o).contains("<command line>:1:4"), "{}", stderr(&o));
}

fn nvrtc_or_skip() -> bool {
    let found = if skc_nvrtc_available() { Ok(()) } else { Err("`skc emit --emit ptx` failed".to_string()) };
    skc_tests::require::or_skip(skc_tests::require::Tool::Nvrtc, found, "the build tests").is_some()
}

fn skc_nvrtc_available() -> bool {
    skc(&["emit", "--emit", "ptx", &repo("tests/ui/seed/reduce.sk")]).status.success()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skc-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn build_writes_artifacts_and_prints_resources() {
    if !nvrtc_or_skip() {
        return;
    }
    let out = temp_dir("build");
    let cache = temp_dir("cache");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_skc"))
            .args(["build", &repo("tests/ui/seed/reduce.sk"), "-o", &out.display().to_string()])
            .env("SKC_CACHE_DIR", &cache)
            .output()
            .unwrap()
    };
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.contains("regs") && table.lines().any(|l| l.starts_with("reduce ")), "{table}");
    for ext in ["cu", "ptx", "cubin", "kernels.json"] {
        assert!(out.join(format!("reduce.{ext}")).exists(), "missing reduce.{ext}");
    }
    assert!(stdout(&run()).contains("cache hit"), "the second build is served from the cache");
}

#[test]
fn build_json_reports_resources() {
    if !nvrtc_or_skip() {
        return;
    }
    let out = temp_dir("json");
    let o = skc(&[
        "build",
        &repo("tests/ui/seed/reduce.sk"),
        "-o",
        &out.display().to_string(),
        "--message-format=json",
        "--no-cache",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert_eq!(report["reason"], "kernel-resources");
    let kernel = &report["kernels"][0];
    assert_eq!(kernel["name"], "reduce");
    assert!(kernel["registers"].as_u64().unwrap() > 0);
    assert_eq!(kernel["spill_store_bytes"], 0);
}

#[test]
fn emit_prints_cuda_and_build_refuses_invalid_programs() {
    let o = skc(&["emit", &repo("tests/ui/seed/reduce.sk")]);
    if o.status.success() {
        assert!(stdout(&o).contains("extern \"C\" __global__ void reduce("), "{}", stdout(&o));
    }
    let o = skc(&["build", &repo("tests/ui/seed/deadlock.sk"), "-o", &temp_dir("bad").display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("E0001"));
}

#[test]
fn missing_nvrtc_is_one_clear_message() {
    let empty = temp_dir("nonvrtc");
    let o = Command::new(env!("CARGO_BIN_EXE_skc"))
        .args(["emit", "--emit", "ptx", &repo("tests/ui/seed/reduce.sk"), "--nvrtc", &empty.display().to_string()])
        .env("SKC_NVRTC_PATH", &empty)
        .env_remove("CUDA_PATH")
        .output()
        .unwrap();
    let err = stderr(&o);
    if o.status.success() {
        // A system-wide NVRTC was found through the fallbacks; nothing to assert about the message.
        return;
    }
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("nvidia-cuda-nvrtc"), "the message says how to install NVRTC: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A program that launches kernels from the device builds as relocatable code; `skc build` says the CUBIN is an
/// unlinked object and where the device runtime is (or that it is missing, naming the places it looked).
#[test]
fn build_explains_relocatable_programs() {
    if !nvrtc_or_skip() {
        return;
    }
    let out = temp_dir("rdc");
    let missing = out.join("no-such-libcudadevrt.a");
    let o = Command::new(env!("CARGO_BIN_EXE_skc"))
        .args(["build", &repo("tests/ui/sched/ok_launch.sk"), "-o", &out.display().to_string()])
        .env("SKC_CUDADEVRT", &missing)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.lines().any(|l| l.starts_with("parent ")), "resources of a relocatable build:\n{text}");
    assert!(text.contains("relocatable device code"), "{text}");
    assert!(text.contains("ok_launch.cubin is an unlinked object"), "{text}");
    assert!(
        text.contains("the device runtime to link with") || text.contains(&missing.display().to_string()),
        "the note names the library or the places searched:\n{text}"
    );
    assert!(out.join("ok_launch.cubin").exists());
}

#[test]
fn allow_silences_a_warning_and_json_carries_its_suggestion() {
    let file = repo("tests/ui/lint/predicated_commit.sk");
    let o = skc(&["check", "--deny-warnings", &file]);
    assert_eq!(o.status.code(), Some(1), "W0101 fails the check under --deny-warnings: {}", stderr(&o));
    assert!(stderr(&o).contains("[W0101] Error"), "a denied warning is shown as an error: {}", stderr(&o));
    let o = skc(&["check", "--deny-warnings", "-A", "W0101", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    // The code is checked: an unknown code and an error code are usage errors.
    let unknown = format!("W{}", 9999); // spelled out, the page test would take it for a code in use
    for bad in [unknown.as_str(), "E0001"] {
        let o = skc(&["check", "-A", bad, &file]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains(bad), "{}", stderr(&o));
    }
    // An edit only where each element is provably written by one thread (global_thread_id here).
    let o = skc(&["check", "--message-format", "json", &repo("tests/ui/lint/predicated_commit_owned.sk")]);
    let first: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["code"]["code"], "W0101");
    let fix = first["children"].as_array().unwrap().iter().find(|c| !c["spans"].as_array().unwrap().is_empty());
    let span = &fix.expect("a child with the suggestion")["spans"][0];
    assert_eq!(span["text"], "if x > m.(i) then m.(i) <- x");
    assert_eq!(span["suggested_replacement"], "m.(i) <- select (x > m.(i)) x m.(i)");
}

/// A reader that goes away (`skc explain W0101 | head -1`) ends the output quietly: no panic, status 0.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::Stdio;
    for args in
        [vec!["explain", "W0101"], vec!["check", "--message-format", "json", "tests/ui/lint/predicated_commit.sk"]]
    {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skc"))
            .args(&args)
            .current_dir(repo(""))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("skc runs");
        drop(child.stdout.take()); // closed before skc writes anything
        let o = child.wait_with_output().unwrap();
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("internal compiler error"), "{args:?}: {}", stderr(&o));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
}

/// A panic anywhere in skc is an internal compiler error: exit status 101 and one line asking for a report that
/// names the input files. `SKC_DEBUG_PANIC=1` (read by debug builds only) makes skc panic on purpose.
#[test]
fn a_panic_is_an_internal_compiler_error_with_status_101() {
    let file = repo("tests/ui/seed/reduce.sk");
    for args in [vec!["check", file.as_str()], vec!["emit", file.as_str()]] {
        let o = Command::new(env!("CARGO_BIN_EXE_skc")).args(&args).env("SKC_DEBUG_PANIC", "1").output().unwrap();
        assert_eq!(o.status.code(), Some(101), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        let request: Vec<&str> = err.lines().filter(|l| l.contains("internal compiler error")).collect();
        assert_eq!(request.len(), 1, "one line asks for a report: {err}");
        assert!(request[0].contains("please report it") && request[0].contains(&file), "{err}");
        assert!(err.contains("SKC_DEBUG_PANIC=1 asked for a panic"), "the panic's own message comes first: {err}");
    }
}

/// NVRTC crashing is contained in its worker process and becomes E0300 at each kernel, with status 101 and the
/// CUDA C kept. A stand-in worker that dies of SIGSEGV plays NVRTC's crash (`SKC_NVRTC_WORKER` names the worker).
#[test]
fn an_nvrtc_crash_names_the_kernels_and_keeps_the_cuda_c() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("crash");
    let worker = dir.join("segfault.sh");
    std::fs::write(&worker, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
    std::fs::set_permissions(&worker, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let file = repo("tests/codegen/reachability.sk");
    let o = Command::new(env!("CARGO_BIN_EXE_skc"))
        .args(["build", &file, "-o", &dir.display().to_string(), "--no-cache"])
        .env("SKC_NVRTC_WORKER", &worker)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(101), "{err}");
    for kernel in ["first", "second"] {
        let message = format!(
            "[E0300] Error: internal compiler error: NVRTC crashed on the CUDA C generated for kernel `{kernel}`"
        );
        assert!(err.contains(&message), "{err}");
    }
    assert!(err.contains("killed by signal 11 (SIGSEGV)"), "{err}");
    let kept = dir.join("reachability.cu");
    assert!(err.contains(&format!("the CUDA C is kept in {}", kept.display())), "{err}");
    assert!(std::fs::read_to_string(&kept).unwrap().contains("extern \"C\" __global__ void first("));
    assert!(err.contains("please report it with"), "{err}");
}

/// The program of the NVRTC crash report (a record built from nested `select`s and `if` values) builds: the
/// emitter binds the record conditional to a temporary, and NVRTC runs in a worker process anyway.
#[test]
fn the_record_conditional_that_crashed_nvrtc_builds() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("record-conditional");
    let o =
        skc(&["build", &repo("tests/codegen/record_conditionals.sk"), "-o", &dir.display().to_string(), "--no-cache"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).lines().any(|l| l.starts_with("k ")), "{}", stdout(&o));
}

/// NVRTC rejecting the generated CUDA C is the same internal compiler error (E0300, status 101), with NVRTC's log
/// in a note and kept next to the CUDA C. A stand-in worker (Python, speaking the worker protocol) rejects
/// every program.
#[test]
fn an_nvrtc_rejection_is_an_internal_compiler_error_with_its_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("rejects");
    let worker = dir.join("rejects.py");
    std::fs::write(
        &worker,
        r#"#!/usr/bin/env python3
import struct, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
def field():
    (n,) = struct.unpack("<Q", inp.read(8))
    return inp.read(n)
def put(b):
    out.write(struct.pack("<Q", len(b)) + b)
while inp.read(8) == b"skcnvrt1":
    for _ in range(4):
        field()
    (count,) = struct.unpack("<Q", inp.read(8))
    for _ in range(count):
        field()
    out.write(b"skcnvrt1")
    for b in [b"rejected", b"13.0", b"fuzz.cu(3): error: identifier \"bogus\" is undefined", b"", b""]:
        put(b)
    out.flush()
"#,
    )
    .unwrap();
    std::fs::set_permissions(&worker, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_skc"))
        .args(["build", &repo("tests/ui/seed/reduce.sk"), "-o", &dir.display().to_string(), "--no-cache"])
        .env("SKC_NVRTC_WORKER", &worker)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(101), "{err}");
    assert!(err.contains("[E0300] Error: internal compiler error: NVRTC failed on the CUDA C generated for"), "{err}");
    assert!(err.contains("identifier \"bogus\" is undefined"), "the log is in a note: {err}");
    let log = std::fs::read_to_string(dir.join("reduce.nvrtc.log")).unwrap();
    assert!(log.contains("bogus"), "{log}");
    assert!(dir.join("reduce.cu").is_file());
}

#[test]
fn whole_warps_lets_a_shuffle_read_any_lane_and_still_reports_divergence() {
    // The scheduler reads other lanes through shuffles; only blocks of whole warps make every lane exist.
    let sched = repo("stdlib/sched/sched.sk");
    let o = skc(&["check", &sched]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("the lane it reads may not exist"), "{}", stderr(&o));
    let o = skc(&["check", "--whole-warps", &sched]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A barrier under a thread-varying branch is an error whatever the block size.
    let o = skc(&["check", "--whole-warps", &repo("tests/ui/seed/deadlock.sk")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("[E0001]"), "{}", stderr(&o));
}
