//! `cargo run --release --example transpose [WIDTH [HEIGHT]]`: runs kernels/transpose.sk on GPU 0 and checks it
//! against the CPU.

fn main() {
    let width = skc_examples::common::size_arg(4096);
    let height = std::env::args().nth(2).map(|a| a.parse().expect("HEIGHT must be a whole number")).unwrap_or(width);
    let ctx = skc_examples::common::gpu_or_exit();
    println!("{}: {}", ctx.device().name, ctx.device().arch);
    match skc_examples::transpose::check(&ctx, width, height) {
        Ok(outcome) => {
            println!("{outcome}");
            std::process::exit(if outcome.passed() { 0 } else { 1 });
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
