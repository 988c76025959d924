//! Shared helpers for the integration tests: loading NVRTC or deciding to skip.
#![allow(dead_code)]

use std::path::PathBuf;

use skc_nvrtc::{load_nvrtc, LibrarySearch, NvrtcLibrary};

/// The loaded NVRTC, or `None` (with a printed note) when it is unavailable.
/// With SKC_REQUIRE_NVRTC=1 an unavailable NVRTC fails the test instead.
pub fn nvrtc_or_skip(test: &str) -> Option<NvrtcLibrary> {
    match load_nvrtc(&LibrarySearch::from_env()) {
        Ok(lib) => Some(lib),
        Err(e) if nvrtc_required() => {
            panic!("SKC_REQUIRE_NVRTC=1 but NVRTC could not be loaded: {e}")
        }
        Err(e) => {
            eprintln!("note: {test} skipped, NVRTC not available: {e}");
            None
        }
    }
}

pub fn nvrtc_required() -> bool {
    std::env::var("SKC_REQUIRE_NVRTC").is_ok_and(|v| v == "1")
}

/// Returns early from the test when NVRTC is unavailable (and not required).
#[macro_export]
macro_rules! require_nvrtc {
    ($test:expr) => {
        match common::nvrtc_or_skip($test) {
            Some(lib) => lib,
            None => return,
        }
    };
}

pub fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fresh, empty folder under the system temp dir.
pub fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skc-nvrtc-it-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}
