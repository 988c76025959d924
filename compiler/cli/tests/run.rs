//! `skc run` as users run it, on the interpreter (no GPU needed): arguments from JSON and `.npy` files, the
//! written vectors on stdout or in files, reports and exit statuses, `--no-check`, and `--gpu` in a binary built
//! without GPU support.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn skc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skc")).args(args).env("NO_COLOR", "1").output().expect("skc runs")
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path).display().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stderr(o)))
}

/// A scratch folder of its own for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skc-run-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn vector_add_prints_the_written_vector() {
    let dir = scratch("vector_add");
    let args = write(
        &dir,
        "args.json",
        r#"{ "a": {"range": 1000}, "b": {"fill": 0.5, "len": 1000}, "c": {"fill": 0, "len": 1000}, "n": 1000 }"#,
    );
    let file = repo("examples/kernels/vector_add.sk");
    let o =
        skc(&["run", &file, "--kernel", "vector_add", "--grid", "4", "--block", "256", "--args", &args, "--interp"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c = json(&o)["c"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>();
    assert_eq!(c.len(), 1000);
    assert!(c.iter().enumerate().all(|(i, v)| *v == i as f64 + 0.5));
}

#[test]
fn scan_reads_npy_and_writes_npy() {
    let dir = scratch("scan");
    let xs: Vec<u64> = (0..3000).map(|i| (i % 7) as u64).collect();
    std::fs::write(dir.join("xs.npy"), skc_interp::npy::write(skc_interp::Scalar::Int32, &xs)).unwrap();
    let args = write(
        &dir,
        "args.json",
        r#"{ "xs": "xs.npy", "ys": {"fill": 0, "len": 3000}, "block_sums": {"fill": 0, "len": 3}, "n": 3000, "width": 1024 }"#,
    );
    let out = format!("{}/", dir.join("out").display());
    let file = repo("examples/kernels/scan.sk");
    let o = skc(&[
        "run",
        &file,
        "--kernel",
        "scan_blocks",
        "--grid",
        "3",
        "--block",
        "1024",
        "--shared",
        "8192",
        "--args",
        &args,
        "--out",
        &out,
        "--schedule",
        "random:5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ys = skc_interp::npy::read(&std::fs::read(dir.join("out/ys.npy")).unwrap()).unwrap();
    let skc_interp::npy::Values::Integers(ys) = ys else { panic!("int32 values") };
    // Each block of 1024 is scanned on its own.
    for (i, y) in ys.iter().enumerate() {
        let start = i / 1024 * 1024;
        let expected: i128 = (start..=i).map(|j| (j % 7) as i128).sum();
        assert_eq!(*y, expected, "ys[{i}]");
    }
    assert!(dir.join("out/block_sums.npy").exists());
}

#[test]
fn reports_exit_one_and_print_like_compile_errors() {
    let dir = scratch("race");
    let kernel = write(&dir, "race.sk", "kernel k (out : int32 vector) =\n  out.(0) <- global_idx\n");
    let args = write(&dir, "args.json", r#"{ "out": [0] }"#);
    let o = skc(&["run", &kernel, "--kernel", "k", "--grid", "2", "--block", "32", "--args", &args]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("[R0003] Error: data race on word 0 of `out`"), "{err}");
    assert!(err.contains("race.sk:2:3"), "{err}");
    assert_eq!(json(&o)["out"].as_array().map(Vec::len), Some(1), "the written vector is still printed");
}

#[test]
fn no_check_runs_a_rejected_program_and_shows_its_divergence() {
    let dir = scratch("deadlock");
    let file = repo("tests/ui/seed/deadlock.sk");
    let check = skc(&["run", &file, "--kernel", "deadlock", "--grid", "1", "--block", "64"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(stderr(&check).contains("--no-check"), "{}", stderr(&check));
    let kernel_text = "kernel k (out : int32 vector) =\n  if thread_idx_x < 16 then\n    Gpu.block_barrier;\n  out.(global_idx) <- 1\n";
    let sk = write(&dir, "k.sk", kernel_text);
    let args = write(&dir, "args.json", r#"{ "out": {"fill": 0, "len": 64} }"#);
    let o = skc(&["run", &sk, "--kernel", "k", "--grid", "1", "--block", "64", "--args", &args, "--no-check"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("[E0001]") && err.contains("[R0001] Error: barrier divergence"), "{err}");
    assert!(err.contains("threads 0-15 wait at this barrier") && err.contains("threads 16-63 left the kernel here"));
}

#[test]
fn usage_errors_exit_two() {
    let file = repo("examples/kernels/vector_add.sk");
    for args in [
        vec!["run", &file, "--kernel", "nope", "--grid", "1", "--block", "32"],
        vec!["run", &file, "--kernel", "vector_add", "--grid", "0", "--block", "32"],
        vec!["run", &file, "--kernel", "vector_add", "--grid", "1", "--block", "2048"],
        vec!["run", &file, "--kernel", "vector_add", "--grid", "1", "--block", "32", "--schedule", "sideways"],
        vec!["run", &file, "--kernel", "vector_add", "--grid", "1", "--block", "32", "--args", "/nonexistent.json"],
    ] {
        let o = skc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

#[cfg(not(feature = "gpu"))]
#[test]
fn gpu_needs_a_binary_built_with_gpu_support() {
    let dir = scratch("gpu");
    let args = write(&dir, "args.json", r#"{ "a": [1], "b": [2], "c": [0], "n": 1 }"#);
    let file = repo("examples/kernels/vector_add.sk");
    let o = skc(&["run", &file, "--kernel", "vector_add", "--grid", "1", "--block", "32", "--args", &args, "--gpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not built with GPU support in this binary"), "{}", stderr(&o));
    // Without `--gpu`, the interpreter runs it.
    let o = skc(&["run", &file, "--kernel", "vector_add", "--grid", "1", "--block", "32", "--args", &args]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["c"], serde_json::json!([3.0]));
}
