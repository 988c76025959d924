//! `weno-gpu-check DIR`: runs every variant built into DIR (see weno-cubins) on the GPU and compares with the
//! CPU reference. Exits 1 on any mismatch, and when there is no GPU.

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: weno-gpu-check DIR"));
    let gpu = skc_weno_gpu::device::Gpu::new().unwrap_or_else(|e| {
        eprintln!("error: no usable GPU: {e}");
        std::process::exit(1);
    });
    println!("device: {}", gpu.name());
    match skc_weno_gpu::check::check_all(&gpu, &dir) {
        Ok(outcomes) => {
            let failed = outcomes.iter().filter(|o| !o.passed()).count();
            println!("{} passed, {} failed", outcomes.len() - failed, failed);
            if failed > 0 || outcomes.is_empty() {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
