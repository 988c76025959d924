//! `skc run` as users run it, on the interpreter (no GPU needed): arguments from JSON and `.npy` files, the
//! written vectors on stdout or in files, reports and exit statuses, `--no-check`, and `--gpu` in a binary built
//! without GPU support.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{repo, stderr};

fn skc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skc")).args(args).env("NO_COLOR", "1").output().expect("skc runs")
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
fn printf_lines_go_to_stderr_in_thread_order() {
    let dir = scratch("printf");
    let kernel = "kernel k (out : int32 vector) =\n  printf \"t%d=%.1f\\n\" thread_idx_x (float32 thread_idx_x / 2.0);\n  out.(thread_idx_x) <- thread_idx_x\n";
    let file = write(&dir, "k.sk", kernel);
    let args = write(&dir, "args.json", r#"{ "out": {"fill": 0, "len": 3} }"#);
    let o = skc(&["run", &file, "--kernel", "k", "--grid", "1", "--block", "3", "--args", &args, "--interp"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["out"], serde_json::json!([0, 1, 2]), "stdout is the written vectors only");
    assert!(stderr(&o).starts_with("t0=0.0\nt1=0.5\nt2=1.0\n"), "{}", stderr(&o));
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

/// Runs `skc run --interp` on an example kernel with `args` (JSON) and returns the written vectors.
fn run_example(
    file: &str,
    kernel: &str,
    grid: &str,
    block: &str,
    extra: &[&str],
    args: serde_json::Value,
) -> serde_json::Value {
    let dir = scratch(&format!("example-{kernel}"));
    let args_file = write(&dir, "args.json", &args.to_string());
    let path = repo(&format!("examples/kernels/{file}"));
    let mut command =
        vec!["run", &path, "--kernel", kernel, "--grid", grid, "--block", block, "--args", &args_file, "--interp"];
    command.extend_from_slice(extra);
    let o = skc(&command);
    assert_eq!(o.status.code(), Some(0), "{kernel}: {}", stderr(&o));
    json(&o)
}

fn ints(v: &serde_json::Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

/// Every example kernel through `skc run --interp` (the launches of its host code, at small sizes that are not
/// multiples of the block), against its CPU reference.
#[test]
fn every_example_runs_on_the_interpreter() {
    let n = 1000;
    let xs: Vec<i64> = (0..n).map(|i| (i * 37 + 11) % 100).collect();
    // reduce: one partial sum per block of 256.
    let out = run_example(
        "reduce.sk",
        "reduce",
        "4",
        "256",
        &[],
        serde_json::json!({
        "input": xs, "output": {"fill": 0, "len": 4}, "n": n }),
    );
    assert_eq!(ints(&out["output"]).iter().sum::<i64>(), xs.iter().sum::<i64>());
    // warp_reduce: the sum into out[0] (floats: exact here, small integers).
    let out = run_example(
        "warp_reduce.sk",
        "warp_reduce",
        "2",
        "512",
        &[],
        serde_json::json!({
        "xs": xs, "out": [0.0], "n": n }),
    );
    assert_eq!(floats(&out["out"])[0], xs.iter().sum::<i64>() as f64);
    // warp_reduce_int32: the same generic block_sum at int32.
    let out = run_example(
        "warp_reduce.sk",
        "warp_reduce_int32",
        "2",
        "512",
        &[],
        serde_json::json!({
        "xs": xs, "out": [0], "n": n }),
    );
    assert_eq!(ints(&out["out"])[0], xs.iter().sum::<i64>());
    // histogram: counts of the values modulo 256.
    let out = run_example(
        "histogram.sk",
        "histogram",
        "3",
        "256",
        &[],
        serde_json::json!({
        "data": xs, "bins": {"fill": 0, "len": 256}, "n": n }),
    );
    let mut bins = vec![0i64; 256];
    for x in &xs {
        bins[(*x & 255) as usize] += 1;
    }
    assert_eq!(ints(&out["bins"]), bins);
    // scan_blocks then add_offsets are covered by scan_reads_npy_and_writes_npy; add_offsets alone here.
    let out = run_example(
        "scan.sk",
        "add_offsets",
        "2",
        "1024",
        &[],
        serde_json::json!({
        "ys": {"fill": 1, "len": 1500}, "scanned_sums": [10, 20], "n": 1500 }),
    );
    let ys = ints(&out["ys"]);
    assert!(ys[..1024].iter().all(|y| *y == 1) && ys[1024..].iter().all(|y| *y == 11));
    // transpose: 40 x 33 through 32 x 33 tiles with blocks of 32 x 4.
    let (w, h) = (40usize, 33usize);
    let input: Vec<f64> = (0..w * h).map(|i| i as f64).collect();
    let out = run_example(
        "transpose.sk",
        "transpose",
        "2,2",
        "32,4",
        &[],
        serde_json::json!({
        "input": input, "output": {"fill": 0.0, "len": w * h}, "width": w, "height": h }),
    );
    let t = floats(&out["output"]);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(t[x * h + y], input[y * w + x]);
        }
    }
    // matmul: 128 x 128 (one tile), a = identity-like pattern, b = small integers: exact in float32.
    let m = 128usize;
    let a: Vec<f64> = (0..m * m).map(|i| if i / m == i % m { 2.0 } else { 0.0 }).collect();
    let b: Vec<f64> = (0..m * m).map(|i| (i % 7) as f64).collect();
    let out = run_example(
        "matmul.sk",
        "matmul",
        "1,1",
        "16,16",
        &["--no-races"],
        serde_json::json!({
        "a": a, "b": b, "c": {"fill": 0.0, "len": m * m}, "n": m }),
    );
    let c = floats(&out["c"]);
    assert!(c.iter().zip(&b).all(|(c, b)| *c == 2.0 * b));
}
