//! Compiles a .cu file and prints the NVRTC log (used to collect sample ptxas reports).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: dump_log FILE.cu [sm_XX] [nvrtc options...]");
        std::process::exit(2);
    };
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    // An optional first extra argument "sm_XX" picks the architecture.
    let mut extra = args[2..].to_vec();
    let arch = match extra.first() {
        Some(a) if a.starts_with("sm_") => extra.remove(0),
        _ => skc_nvrtc::DEFAULT_ARCH.to_string(),
    };
    let options = skc_nvrtc::CompileOptions { arch, extra, ..Default::default() };
    let started = std::time::Instant::now();
    match skc_nvrtc::load_nvrtc(&skc_nvrtc::LibrarySearch::from_env()) {
        Ok(lib) => eprintln!("loaded {} (found by {}) in {:?}", lib.path.display(), lib.found_by, started.elapsed()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
    match skc_nvrtc::compile(&source, path, &options) {
        Ok(out) => {
            print!("{}", out.log);
            eprintln!(
                "nvrtc {:?}, {:?}, ptx {} bytes, cubin {} bytes",
                out.nvrtc_version,
                out.elapsed,
                out.ptx.len(),
                out.cubin.len()
            );
            eprintln!("mapped: {:?}", skc_nvrtc::mapped_files_containing("libnvrtc"));
            for r in &out.resources {
                eprintln!("{r:?}");
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
