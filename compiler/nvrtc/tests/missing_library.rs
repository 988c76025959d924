//! NVRTC missing: a clean error, never a panic. Its own test binary, because once
//! a process has loaded NVRTC every later load returns that library.

mod common;

use skc_nvrtc::{compile_with, load_nvrtc, CompileOptions, LibrarySearch, NvrtcError};

/// SKC_NVRTC_PATH pointing at an empty folder, later fallbacks off (set through
/// the search value, not the process environment).
fn empty_search(dir: &std::path::Path) -> LibrarySearch {
    LibrarySearch { explicit: None, env_path: Some(dir.to_path_buf()), cuda_path: None, system_fallbacks: false }
}

#[test]
fn missing_library_is_a_clean_one_paragraph_error() {
    let dir = common::fresh_dir("empty-nvrtc");
    let err = compile_with("__global__ void k() {}", "k.cu", &CompileOptions::default(), &empty_search(&dir))
        .expect_err("nothing to load");
    let NvrtcError::LibraryNotFound { searched, rejected } = &err else {
        panic!("expected LibraryNotFound, got {err:?}");
    };
    assert_eq!(searched, &vec![format!("SKC_NVRTC_PATH ({})", dir.display())]);
    assert!(rejected.is_empty());
    let message = err.to_string();
    eprintln!("{message}");
    assert!(!message.contains('\n'), "one paragraph: {message}");
    assert!(message.contains(&dir.display().to_string()));
    assert!(message.contains("pip install nvidia-cuda-nvrtc==13.0.88"));
    assert!(message.contains("SKC_NVRTC_PATH"));
    assert!(message.contains("nvidia/cu13/lib"));
    assert!(message.contains("CUDA 13.0 toolkit"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unloadable_file_is_listed_with_the_reason() {
    let dir = common::fresh_dir("fake-nvrtc");
    let fake = dir.join("libnvrtc.so.13");
    std::fs::write(&fake, b"not an ELF file").expect("write fake library");
    let err = load_nvrtc(&LibrarySearch::only(&dir)).expect_err("fake library must not load");
    let NvrtcError::LibraryNotFound { rejected, .. } = &err else {
        panic!("expected LibraryNotFound, got {err:?}");
    };
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(rejected[0].starts_with(&fake.display().to_string()), "{rejected:?}");
    assert!(err.to_string().contains("Found but could not load"));
    let _ = std::fs::remove_dir_all(&dir);
}
