//! An installed `skc` works from any folder: the binary alone, copied into an empty folder as `cargo install`
//! leaves it, checks and builds (`--emit cuda`) a program outside the source tree that opens a standard library
//! module, with `SKC_STDLIB` unset. The standard library it reads is the one embedded in the binary
//! (`<stdlib>/...` in the `#line` directives), not the source tree's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::stderr;

const PROGRAM: &str = "open Weno_tables

(* Coefficients of WENO5, from the standard library's tables. *)
kernel coefficients (out : float64 vector) =
  let i = global_idx in
  out.(i) <- weno_c_full.(weno_c_full_base.(3) + i)
";

fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skc-install-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary under test, alone in `root/bin`.
fn installed_skc(root: &Path) -> PathBuf {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let skc = bin.join("skc");
    std::fs::copy(env!("CARGO_BIN_EXE_skc"), &skc).expect("copy skc");
    skc
}

#[test]
fn an_installed_skc_opens_the_standard_library_from_any_folder() {
    let root = fresh_dir("root");
    let skc = installed_skc(&root);
    let work = fresh_dir("work");
    std::fs::write(work.join("coefficients.sk"), PROGRAM).unwrap();
    let empty = fresh_dir("no-nvrtc");
    let run = |args: &[&str]| -> Output {
        Command::new(&skc)
            .args(args)
            .current_dir(&work)
            .env_remove("SKC_STDLIB")
            .env("NO_COLOR", "1")
            .output()
            .expect("the installed skc runs")
    };
    let o = run(&["check", "coefficients.sk"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["build", "coefficients.sk", "--emit", "cuda", "-o", "out", "--nvrtc", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cuda = std::fs::read_to_string(work.join("out/coefficients.cu")).expect("the CUDA C is written");
    assert!(cuda.contains("void coefficients("), "{cuda}");
    assert!(cuda.contains("\"<stdlib>/weno/weno_tables.sk\""), "the embedded standard library: {cuda}");
    // A module that does not exist names the embedded library among the places searched.
    std::fs::write(work.join("missing.sk"), "open No_such_module\n").unwrap();
    let o = run(&["check", "missing.sk"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("<stdlib>/no_such_module.sk"), "{}", stderr(&o));
}

/// `SKC_STDLIB` points the binary at a standard library on disk instead (one being edited).
#[test]
fn skc_stdlib_overrides_the_embedded_library() {
    let work = fresh_dir("override");
    let library = work.join("lib");
    std::fs::create_dir_all(library.join("area")).unwrap();
    std::fs::write(library.join("area/mine.sk"), "let mine_value = 7\n").unwrap();
    std::fs::write(work.join("uses.sk"), "open Mine\nkernel k (o : int32 vector) =\n  o.(0) <- mine_value\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_skc"))
        .args(["emit", "--emit", "cuda", "uses.sk"])
        .current_dir(&work)
        .env("SKC_STDLIB", &library)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("area/mine.sk"), "{}", String::from_utf8_lossy(&o.stdout));
}
