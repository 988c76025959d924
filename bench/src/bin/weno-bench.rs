//! `weno-bench [--only NAME,NAME] DIR [N]`: benchmarks the variants built into DIR (see weno-cubins), or only
//! those named, on N^3 cells (256).

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let only: Option<Vec<String>> = args.iter().position(|a| a == "--only").map(|at| {
        let names = args.get(at + 1).cloned().unwrap_or_default();
        args.drain(at..(at + 2).min(args.len()));
        names.split(',').map(str::to_string).collect()
    });
    let mut args = args.into_iter();
    let dir = std::path::PathBuf::from(args.next().expect("usage: weno-bench [--only NAME,NAME] DIR [N]"));
    let n: i32 = args.next().map(|s| s.parse().expect("N")).unwrap_or(256);
    let gpu = skc_weno_gpu::device::Gpu::new().unwrap_or_else(|e| {
        eprintln!("error: no usable GPU: {e}");
        std::process::exit(1);
    });
    if let Err(e) = skc_bench::weno::bench_all(&gpu, &dir, n, only.as_deref()) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
