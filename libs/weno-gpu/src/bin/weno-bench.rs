//! `weno-bench DIR [N]`: benchmarks the variants built into DIR (see weno-cubins) on N^3 cells (256).

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: weno-bench DIR [N]"));
    let n: i32 = args.next().map(|s| s.parse().expect("N")).unwrap_or(256);
    let gpu = skc_weno_gpu::device::Gpu::new().unwrap_or_else(|e| {
        eprintln!("error: no usable GPU: {e}");
        std::process::exit(1);
    });
    if let Err(e) = skc_weno_gpu::bench::bench_all(&gpu, &dir, n) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
