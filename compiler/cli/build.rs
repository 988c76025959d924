//! Embeds the standard library: writes `stdlib_files.rs` into `OUT_DIR`, a table of every `.sk` file under the
//! repository's `stdlib/` (its path relative to that folder, and its text through `include_str!`), so that an
//! installed `skc` opens the standard library's modules from any folder.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let stdlib = manifest.join("../../stdlib");
    let mut files = Vec::new();
    collect_sk_files(&stdlib, &mut files);
    files.sort();
    // A new or removed file changes a folder's listing; `include_str!` makes cargo track each file's text.
    println!("cargo:rerun-if-changed={}", stdlib.display());
    let mut table = String::from("/// Every `.sk` file of the standard library: (path inside it, text).\n");
    table.push_str("pub static STDLIB_FILES: &[(&str, &str)] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.parent().unwrap_or(&stdlib).display());
        let relative = file.strip_prefix(&stdlib).expect("found under stdlib/");
        let relative = relative.to_str().expect("stdlib paths are UTF-8").replace('\\', "/");
        let absolute = file.canonicalize().unwrap_or_else(|_| file.clone());
        table.push_str(&format!("    ({relative:?}, include_str!({:?})),\n", absolute.display().to_string()));
    }
    table.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("stdlib_files.rs");
    std::fs::write(&out, table).expect("OUT_DIR is writable");
}

fn collect_sk_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_sk_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sk") {
            out.push(path);
        }
    }
}
