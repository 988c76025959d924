//! `skc-run-batch DIR --interp` (no GPU needed) on a corpus as `fuzz_compiler --write-corpus` writes it: each
//! case's output is byte for byte what `skc run --interp --out` writes, and agrees with the interpreter's
//! expected output; a case that cannot run is recorded in its log and does not stop the batch; finished cases
//! are skipped by the next process; no case starts after `--seconds`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use skc_interp::fuzz::{compare_outputs, differential_case};

fn batch(dir: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skc-run-batch"))
        .arg(dir)
        .args(["--interp", "--threads", "2"])
        .args(extra)
        .output()
        .expect("skc-run-batch runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skc-run-batch-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first `count` differential cases from seed 0, written as `fuzz_compiler --write-corpus` writes them, with
/// their expected outputs; returns the manifest's lines.
fn write_corpus(dir: &Path, count: usize) -> Vec<(String, u32, u32, serde_json::Value)> {
    let cases: Vec<_> = (0u64..).filter_map(|seed| Some((seed, differential_case(seed)?))).take(count).collect();
    let mut lines = Vec::new();
    for (seed, case) in cases {
        let name = format!("case{seed:08}");
        std::fs::write(dir.join(format!("{name}.sk")), &case.source).unwrap();
        std::fs::write(dir.join(format!("{name}.json")), case.args.to_string()).unwrap();
        lines.push((name, case.grid, case.block, case.expected));
    }
    lines
}

fn write_manifest(dir: &Path, lines: &[(String, u32, u32)]) {
    let text: String = lines.iter().map(|(name, grid, block)| format!("{name}\t{grid}\t{block}\n")).collect();
    std::fs::write(dir.join("cases.tsv"), text).unwrap();
}

#[test]
fn the_batch_writes_what_skc_run_writes_and_records_failures() {
    let dir = scratch("corpus");
    let cases = write_corpus(&dir, 6);
    std::fs::write(dir.join("broken.sk"), "kernel k (out : int32 vector) =\n  out.(0) <- true\n").unwrap();
    std::fs::write(dir.join("broken.json"), "{}").unwrap();
    std::fs::write(dir.join("noargs.sk"), "kernel k (out : int32 vector) =\n  out.(0) <- 1\n").unwrap();
    let mut manifest: Vec<_> = cases.iter().map(|(n, g, b, _)| (n.clone(), *g, *b)).collect();
    manifest.insert(2, ("broken".into(), 1, 32));
    manifest.push(("noargs".into(), 1, 32));
    write_manifest(&dir, &manifest);

    let first = batch(&dir, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert!(text(&first).contains("8 cases: 6 written, 2 failed, 0 finished earlier, 0 not run"), "{}", text(&first));

    let reference = scratch("reference");
    for (name, grid, block, expected) in &cases {
        let out = reference.join(format!("{name}.json"));
        let sk = dir.join(format!("{name}.sk"));
        let args = dir.join(format!("{name}.json"));
        let run = Command::new(env!("CARGO_BIN_EXE_skc"))
            .args(["run", &sk.display().to_string(), "--kernel", "k", "--interp"])
            .args(["--grid", &grid.to_string(), "--block", &block.to_string()])
            .args(["--args", &args.display().to_string(), "--out", &out.display().to_string()])
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", text(&run));
        let batch_output = std::fs::read(dir.join(format!("{name}.gpu.json"))).unwrap();
        assert_eq!(batch_output, std::fs::read(&out).unwrap(), "{name}: the batch and `skc run` differ");
        let written: serde_json::Value = serde_json::from_slice(&batch_output).unwrap();
        assert_eq!(compare_outputs(expected, &written), None, "{name}");
        assert!(!dir.join(format!("{name}.gpu.log")).exists(), "{name}: a clean case leaves no log");
    }
    for (name, why) in [("broken", "error"), ("noargs", "cannot read")] {
        assert!(!dir.join(format!("{name}.gpu.json")).exists(), "{name} has no output");
        let log = std::fs::read_to_string(dir.join(format!("{name}.gpu.log"))).unwrap();
        assert!(log.contains(why), "{name}'s log: {log}");
    }

    let again = batch(&dir, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(text(&again).contains("0 written, 0 failed, 8 finished earlier, 0 not run"), "{}", text(&again));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&reference);
}

#[test]
fn no_case_starts_after_the_deadline() {
    let dir = scratch("deadline");
    let cases = write_corpus(&dir, 3);
    write_manifest(&dir, &cases.iter().map(|(n, g, b, _)| (n.clone(), *g, *b)).collect::<Vec<_>>());
    let late = batch(&dir, &["--seconds", "0"]);
    assert_eq!(late.status.code(), Some(0), "{}", text(&late));
    assert!(text(&late).contains("3 cases: 0 written, 0 failed, 0 finished earlier, 3 not run"), "{}", text(&late));
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains(".gpu.")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A case that never ends on the device (made to hang with `SKC_DEBUG_HANG` in a debug build) is ended by the
/// watchdog, which records it and stops the process (exit status 3); the next process runs the rest.
#[test]
fn a_hanging_case_is_recorded_and_the_next_process_finishes_the_batch() {
    let dir = scratch("hang");
    let cases = write_corpus(&dir, 4);
    write_manifest(&dir, &cases.iter().map(|(n, g, b, _)| (n.clone(), *g, *b)).collect::<Vec<_>>());
    let hanging = &cases[1].0;
    let stopped = Command::new(env!("CARGO_BIN_EXE_skc-run-batch"))
        .arg(&dir)
        .args(["--interp", "--threads", "1", "--case-timeout", "0.5"])
        .env("SKC_DEBUG_HANG", hanging)
        .output()
        .unwrap();
    assert_eq!(stopped.status.code(), Some(3), "{}", text(&stopped));
    assert!(text(&stopped).contains("timed out"), "{}", text(&stopped));
    let log = std::fs::read_to_string(dir.join(format!("{hanging}.gpu.log"))).unwrap();
    assert!(log.starts_with("error: timed out"), "{log}");
    assert!(!dir.join(format!("{hanging}.gpu.json")).exists());
    let after = cases.iter().filter(|(n, ..)| dir.join(format!("{n}.gpu.json")).exists()).count();
    assert!(after < cases.len() - 1, "the process stopped at the hanging case: {after} outputs");

    let rest = batch(&dir, &[]);
    assert_eq!(rest.status.code(), Some(0), "{}", text(&rest));
    for (name, .., expected) in &cases {
        let output = std::fs::read(dir.join(format!("{name}.gpu.json")));
        match output {
            Ok(bytes) => assert_eq!(compare_outputs(expected, &serde_json::from_slice(&bytes).unwrap()), None),
            Err(_) => assert_eq!(name, hanging, "only the hanging case has no output"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_manifest_or_a_missing_gpu_build_is_a_usage_error() {
    let dir = scratch("usage");
    std::fs::write(dir.join("cases.tsv"), "case1\t0\t32\n").unwrap();
    let bad = batch(&dir, &[]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("cases.tsv:1"), "{}", text(&bad));
    if !cfg!(feature = "gpu") {
        std::fs::write(dir.join("cases.tsv"), "").unwrap();
        let gpu = Command::new(env!("CARGO_BIN_EXE_skc-run-batch")).arg(&dir).arg("--gpu").output().unwrap();
        assert_eq!(gpu.status.code(), Some(2), "{}", text(&gpu));
        assert!(text(&gpu).contains("--features gpu"), "{}", text(&gpu));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
