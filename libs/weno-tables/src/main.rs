//! `weno-gen`: regenerates `stdlib/weno/weno_tables.sk` (run from anywhere in the repository).

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (path, text) in skc_weno_tables::sk::generated_files() {
        let full = root.join(&path);
        std::fs::create_dir_all(full.parent().unwrap()).expect("create folder");
        std::fs::write(&full, text).expect("write table");
        println!("wrote {path}");
    }
}
