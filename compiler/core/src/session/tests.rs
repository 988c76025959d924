//! The search rule for `open M`, tested once here (every tool resolves modules through it), and the session's
//! check and compile entry points.

use std::path::{Path, PathBuf};

use super::search::{candidates, module_file_names, resolve, SearchPath};
use super::*;

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

#[test]
fn a_module_has_its_lower_case_and_its_own_file_name() {
    assert_eq!(module_file_names("Weno"), ["weno.sk", "Weno.sk"]);
    assert_eq!(module_file_names("Ode_f32"), ["ode_f32.sk", "Ode_f32.sk"]);
    assert_eq!(module_file_names("lower"), ["lower.sk"]);
    assert_eq!(module_file_names("Éclair"), ["éclair.sk", "Éclair.sk"]);
}

#[test]
fn names_that_cannot_be_files_have_no_candidates_and_never_panic() {
    for name in ["", "../Up", "a/B", "A.b", "\\C"] {
        assert!(module_file_names(name).is_empty(), "{name:?}");
        assert!(candidates(name, "dir/root.sk", &SearchPath::empty()).is_empty(), "{name:?}");
        let why = resolve(name, "dir/root.sk", &SearchPath::empty(), &[], &MemoryFiles::new()).unwrap_err();
        assert!(why.contains("cannot name a module file"), "{name:?}: {why}");
    }
}

#[test]
fn the_importing_folder_comes_first_then_the_search_path_in_order() {
    let search = SearchPath::empty().with_dirs(paths(&["inc", "lib", "lib/area"]));
    assert_eq!(
        candidates("Vec", "src/main.sk", &search),
        paths(&[
            "src/vec.sk",
            "src/Vec.sk",
            "inc/vec.sk",
            "inc/Vec.sk",
            "lib/vec.sk",
            "lib/Vec.sk",
            "lib/area/vec.sk",
            "lib/area/Vec.sk"
        ])
    );
    // A folder named twice is tried once; a bare importer name means the files' root folder.
    let twice = SearchPath::empty().with_dirs(paths(&["", "lib"]));
    assert_eq!(candidates("m", "main.sk", &twice), paths(&["m.sk", "lib/m.sk"]));
}

#[test]
fn the_first_readable_candidate_wins_and_memory_modules_win_over_files() {
    let files = MemoryFiles::new().with("lib/vec.sk", "(* lib *)").with("src/Vec.sk", "(* next to it *)");
    let search = SearchPath::empty().with_dirs(paths(&["lib"]));
    let found = resolve("Vec", "src/main.sk", &search, &[], &files).unwrap();
    assert_eq!((found.name.as_str(), found.text.as_str()), ("src/Vec.sk", "(* next to it *)"));
    let memory = [("Vec".to_string(), "(* generated *)".to_string())];
    let found = resolve("Vec", "src/main.sk", &search, &memory, &files).unwrap();
    assert_eq!((found.name.as_str(), found.text.as_str()), ("<generated Vec>", "(* generated *)"));
    let why = resolve("Nope", "src/main.sk", &search, &[], &files).unwrap_err();
    assert_eq!(why, "looked for src/nope.sk, src/Nope.sk, lib/nope.sk, lib/Nope.sk");
}

#[test]
fn a_library_is_searched_with_its_area_folders() {
    let files = MemoryFiles::new().with("std/top.sk", "").with("std/b/x.sk", "").with("std/a/y.sk", "");
    let search = SearchPath::empty().with_dirs(paths(&["inc"])).with_library(Path::new("std"), &files);
    assert_eq!(search.dirs, paths(&["inc", "std", "std/a", "std/b"]));
}

const HELPER: &str = "let twice (x : int32) : int32 = 2 * x\n";
const ROOT: &str = "open Helper\nkernel k (out : int32 vector) =\n  out.(global_idx) <- twice scale\n";

#[test]
fn a_session_checks_and_compiles_through_its_files_modules_and_definitions() {
    let files = MemoryFiles::new().with("lib/area/helper.sk", HELPER);
    let search = SearchPath::empty().with_library(Path::new("lib"), &files);
    let session = Session::new(&files).with_search(search).with_module("Scale", "let scale = 3\n");
    let root = format!("open Scale\n{ROOT}");
    let compiled = session.compile("src/main.sk", &root).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = compiled.checked.sources.files().map(|(_, f)| f.name.as_str()).collect();
    assert_eq!(names, ["src/main.sk", "<generated Scale>", "lib/area/helper.sk"]);
    assert!(compiled.cuda.source.contains("scale = 3"), "{}", compiled.cuda.source);
    let redefined = session.clone().with_define("scale", "5").compile("src/main.sk", &root).unwrap();
    assert!(redefined.cuda.source.contains("scale = 5"), "{}", redefined.cuda.source);
}

#[test]
fn compile_errors_are_rendered_and_unreadable_files_say_why() {
    let files = MemoryFiles::new().with("main.sk", ROOT);
    let session = Session::new(&files);
    match session.compile_file(Path::new("main.sk")) {
        Err(CompileError::Errors { file, error_count, rendered }) => {
            assert_eq!(file, "main.sk");
            assert!(error_count >= 1 && rendered.contains("E0211"), "{rendered}");
            assert!(rendered.contains("looked for helper.sk, Helper.sk"), "{rendered}");
        }
        other => panic!("expected errors, got {:?}", other.map(|c| c.cuda.source)),
    }
    match session.check_file(Path::new("absent.sk")) {
        Err(CompileError::Read { path, .. }) => assert_eq!(path, Path::new("absent.sk")),
        other => panic!("expected a read error, got {}", other.is_ok()),
    }
}

#[test]
fn emit_options_bound_a_kernel_by_name_over_its_attribute() {
    use crate::codegen::KernelBounds;
    let files = MemoryFiles::new();
    let source = "kernel[@launch_bounds 1024] k (out : int32 vector) =\n  out.(global_idx) <- 1\n\
                  kernel other (out : int32 vector) =\n  out.(global_idx) <- 2\n";
    let plain = Session::new(&files).compile("b.sk", source).unwrap();
    assert!(plain.cuda.source.contains("__global__ void __launch_bounds__(1024) k("), "{}", plain.cuda.source);
    let bounds = KernelBounds { kernel: "k".into(), max_threads: 256, min_blocks: Some(6) };
    let emit = EmitOptions { launch_bounds: vec![bounds], ..EmitOptions::default() };
    let bounded = Session::new(&files).with_emit(emit).compile("b.sk", source).unwrap();
    assert!(bounded.cuda.source.contains("__global__ void __launch_bounds__(256, 6) k("), "{}", bounded.cuda.source);
    assert!(bounded.cuda.source.contains("__global__ void other("), "{}", bounded.cuda.source);
}
