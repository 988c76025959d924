//! The command line's inputs and outputs: standard input (`-`), several files for `build`, cargo-style status
//! lines, occupancy at a kernel's launch bounds, a CUDA C-only build without NVRTC, a byte-order mark, and the
//! warning levels `-D warnings`, `-D CODE`, `-A warnings` beside `-D NAME=VALUE`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;
use common::{repo, stderr, stdout};

fn skc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skc"));
    command.env("NO_COLOR", "1").env_remove("SKC_STDLIB");
    command
}

/// `skc ARGS` with `input` on its standard input.
fn skc_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        skc().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("skc runs");
    child.stdin.take().expect("piped").write_all(input).expect("skc reads its input");
    child.wait_with_output().expect("skc ends")
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skc-inputs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A folder with no libnvrtc: `--nvrtc` looks only there.
fn no_nvrtc() -> PathBuf {
    temp_dir("no-nvrtc")
}

fn nvrtc_or_skip() -> bool {
    let found = skc().args(["emit", "--emit", "ptx", &repo("tests/ui/seed/reduce.sk")]).output().unwrap();
    let found = if found.status.success() { Ok(()) } else { Err(stderr(&found)) };
    skc_tests::require::or_skip(skc_tests::require::Tool::Nvrtc, found, "the build tests").is_some()
}

const DEADLOCK: &str = "kernel k (xs : float32 vector) =\n  if thread_idx_x < 16 then\n    Gpu.block_barrier\n";

#[test]
fn check_reads_standard_input_named_stdin() {
    let o = skc_with_stdin(&["check", "-"], DEADLOCK.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("[ <stdin>:3:5 ]"), "{}", stderr(&o));
    let clean = std::fs::read(repo("tests/ui/seed/reduce.sk")).unwrap();
    let o = skc_with_stdin(&["check", "-"], &clean);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = skc_with_stdin(&["check", "-"], &[0xff, 0xfe]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<stdin>") && stderr(&o).contains("UTF-8"), "{}", stderr(&o));
}

#[test]
fn emit_and_build_read_standard_input() {
    let clean = std::fs::read(repo("tests/ui/seed/reduce.sk")).unwrap();
    let o = skc_with_stdin(&["emit", "--emit", "cuda", "-"], &clean);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("extern \"C\" __global__ void reduce("), "{}", stdout(&o));
    let out = temp_dir("stdin-build");
    let nvrtc = no_nvrtc();
    let args = ["build", "-", "--emit", "cuda", "-o", out.to_str().unwrap(), "--nvrtc", nvrtc.to_str().unwrap()];
    let o = skc_with_stdin(&args, &clean);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("stdin.cu").is_file() && out.join("stdin.kernels.json").is_file(), "{}", stderr(&o));
}

#[test]
fn build_takes_several_files_and_reports_each_artifact_in_cargo_style() {
    let out = temp_dir("several");
    let nvrtc = no_nvrtc();
    let o = skc()
        .args(["build", &repo("tests/ui/seed/reduce.sk"), &repo("examples/kernels/vector_add.sk"), "--emit", "cuda"])
        .args(["-o", out.to_str().unwrap(), "--nvrtc", nvrtc.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note:")).collect();
    let expected = [
        format!("   Compiling {} (sm_90)", repo("tests/ui/seed/reduce.sk")),
        format!("     Writing {}", out.join("reduce.cu").display()),
        format!("     Writing {}", out.join("reduce.kernels.json").display()),
        format!("   Compiling {} (sm_90)", repo("examples/kernels/vector_add.sk")),
        format!("     Writing {}", out.join("vector_add.cu").display()),
        format!("     Writing {}", out.join("vector_add.kernels.json").display()),
    ];
    assert_eq!(&lines[..6], &expected.iter().map(String::as_str).collect::<Vec<_>>()[..], "{err}");
    assert!(lines[6].starts_with("    Finished 2 files in "), "{err}");
    assert!(!err.contains('\u{1b}'), "no colour under NO_COLOR: {err}");
    // `--color always` colours the verb (bold green), as cargo does on a terminal.
    let o = skc()
        .args(["build", &repo("tests/ui/seed/reduce.sk"), "--emit", "cuda", "--color", "always"])
        .args(["-o", out.to_str().unwrap(), "--nvrtc", nvrtc.to_str().unwrap()])
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(stderr(&o).contains("\u{1b}[1m\u{1b}[32m   Compiling\u{1b}[0m "), "{}", stderr(&o));
    // Errors in one file fail the build, and the other files are still built.
    let bad = out.join("bad.sk");
    std::fs::write(&bad, DEADLOCK).unwrap();
    let o = skc()
        .args(["build", bad.to_str().unwrap(), &repo("tests/ui/seed/reduce.sk"), "--emit", "cuda"])
        .args(["-o", out.to_str().unwrap(), "--nvrtc", nvrtc.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("E0001") && !stderr(&o).contains("Finished"), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("Writing {}", out.join("reduce.cu").display())), "{}", stderr(&o));
}

/// `--emit cuda` writes the CUDA C with no libnvrtc anywhere it looks, and says the resource report is left out;
/// the other artifacts still need NVRTC and say how to get it.
#[test]
fn a_cuda_only_build_needs_no_nvrtc() {
    let out = temp_dir("no-nvrtc-build");
    let nvrtc = no_nvrtc();
    let build = |emit: &str| {
        skc()
            .args(["build", &repo("tests/ui/seed/reduce.sk"), "--emit", emit, "-o", out.to_str().unwrap()])
            .args(["--nvrtc", nvrtc.to_str().unwrap()])
            .env_remove("SKC_NVRTC_PATH")
            .env_remove("CUDA_PATH")
            .output()
            .unwrap()
    };
    let o = build("cuda");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("no NVRTC was found"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(out.join("reduce.cu")).unwrap().contains("void reduce("));
    let o = build("cuda,ptx");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nvidia-cuda-nvrtc"), "{}", stderr(&o));
}

/// The occupancy column uses `[@launch_bounds N]` when the kernel declares it, else `--block-size`. A kernel whose
/// CUDA C symbol differs from its name (`free`, which C reserves) has its row too.
#[test]
fn occupancy_uses_a_kernels_launch_bounds() {
    if !nvrtc_or_skip() {
        return;
    }
    let out = temp_dir("bounds");
    let file = out.join("bounded.sk");
    std::fs::write(
        &file,
        "kernel[@launch_bounds 128] bounded (xs : float32 vector) =\n  xs.(global_idx) <- 1.0\n\
         kernel free (xs : float32 vector) =\n  xs.(global_idx) <- 2.0\n",
    )
    .unwrap();
    let o = skc()
        .args(["build", file.to_str().unwrap(), "-o", out.to_str().unwrap(), "--block-size", "512", "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    let row = |name: &str| table.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_default();
    assert!(row("bounded").contains("at 128 threads/block (launch bounds):"), "{table}");
    assert!(row("free").contains("at 512 threads/block:"), "{table}");
    let o = skc()
        .args(["build", file.to_str().unwrap(), "-o", out.to_str().unwrap(), "--message-format=json", "--no-cache"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    let bounded = report["kernels"].as_array().unwrap().iter().find(|k| k["name"] == "bounded").unwrap();
    assert_eq!(bounded["occupancy"]["block_size"], 128);
    assert_eq!(bounded["occupancy"]["block_size_from"], "launch_bounds");
}

/// A UTF-8 byte-order mark at the start of a file is accepted, and columns count from the first visible
/// character, on disk and on standard input.
#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = temp_dir("bom");
    let file = dir.join("bom.sk");
    std::fs::write(&file, format!("\u{feff}{DEADLOCK}")).unwrap();
    let o = skc().args(["check", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("E0103"), "{}", stderr(&o));
    assert!(stderr(&o).contains("bom.sk:3:5 ]"), "{}", stderr(&o));
    let o = skc().args(["check", "--message-format=short", file.to_str().unwrap()]).output().unwrap();
    assert!(stderr(&o).starts_with(&format!("{}:3:5: error[E0001]", file.display())), "{}", stderr(&o));
    // On the first line, columns count from the first visible character.
    let line = "kernel k (xs : float32 vector) = if thread_idx_x < 16 then Gpu.block_barrier";
    std::fs::write(&file, format!("\u{feff}{line}\n")).unwrap();
    let o = skc().args(["check", "--message-format=json", file.to_str().unwrap()]).output().unwrap();
    let first: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["code"]["code"], "E0001");
    let primary = first["spans"].as_array().unwrap().iter().find(|s| s["is_primary"] == true).unwrap();
    let column = line.find("Gpu").unwrap();
    assert_eq!((primary["line_start"].as_u64(), primary["column_start"].as_u64()), (Some(1), Some(column as u64 + 1)));
    assert_eq!(primary["byte_start"].as_u64(), Some(column as u64));
    let clean = format!("\u{feff}{}", std::fs::read_to_string(repo("tests/ui/seed/reduce.sk")).unwrap());
    let o = skc_with_stdin(&["check", "-"], clean.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

const WARNS: &str = "tests/ui/lint/predicated_commit.sk";

/// `-D warnings` denies warnings as rustc does: shown as errors with a note naming the flag, exit status 1.
#[test]
fn dash_d_warnings_denies_warnings() {
    let plain = skc().args(["check", &repo(WARNS)]).output().unwrap();
    assert_eq!(plain.status.code(), Some(0), "a warning alone passes: {}", stderr(&plain));
    assert!(stderr(&plain).contains("[W0101] Warning"), "{}", stderr(&plain));
    for flags in [vec!["-D", "warnings"], vec!["-Dwarnings"], vec!["-D", "W0101"], vec!["--deny-warnings"]] {
        let o = skc().arg("check").args(&flags).arg(repo(WARNS)).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {err}");
        assert!(err.contains("[W0101] Error"), "{flags:?}: shown as an error: {err}");
        assert!(err.contains("turns this warning into an error"), "{flags:?}: {err}");
        assert!(err.contains("0 warning(s)"), "{flags:?}: {err}");
    }
    let o = skc().args(["check", "--message-format=json", "-D", "warnings", &repo(WARNS)]).output().unwrap();
    let first: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!((first["level"].as_str(), first["code"]["code"].as_str()), (Some("error"), Some("W0101")));
    // A specific code wins over `warnings`; `-A warnings` silences every warning.
    let o = skc().args(["check", "-D", "warnings", "-A", "W0101", &repo(WARNS)]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = skc().args(["check", "-A", "warnings", &repo(WARNS)]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    // Clean programs pass under -D warnings.
    let o = skc().args(["check", "-D", "warnings", &repo("tests/ui/seed/reduce.sk")]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `-D NAME=VALUE` still defines constants beside `-D warnings`; anything else is a usage error naming the forms.
#[test]
fn dash_d_keeps_defining_constants() {
    let dir = temp_dir("defines");
    let file = dir.join("tile.sk");
    std::fs::write(&file, "let tile = 64\nkernel k (o : int32 vector) =\n  o.(0) <- tile\n").unwrap();
    let emit = |args: &[&str]| skc().args(["emit", "--emit", "cuda"]).args(args).arg(&file).output().unwrap();
    let o = emit(&["-D", "tile=128", "-D", "warnings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("128"), "{}", stdout(&o));
    for (bad, says) in [("novalue", "NAME=VALUE"), ("E0001", "is an error, not a warning"), ("=3", "NAME=VALUE")] {
        let o = emit(&["-D", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
    let o = emit(&["-D", "W0101", "-A", "W0101"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn help_documents_the_forms_of_dash_d() {
    let o = skc().args(["check", "--help"]).output().unwrap();
    let help = stdout(&o);
    assert!(help.contains("-D warnings") && help.contains("NAME=VALUE") && help.contains("-A warnings"), "{help}");
}
