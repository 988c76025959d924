//! What the `skc` binary's tests share: paths in the repository and the text of a finished command's streams.
#![allow(dead_code)]

use std::path::Path;
use std::process::Output;

/// `path` (relative to the repository's root) as an absolute path.
pub fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path).display().to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
