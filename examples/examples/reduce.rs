//! `cargo run --release --example reduce [SIZE]`: runs kernels/reduce.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(16777216);
    let ctx = skc_examples::common::gpu_or_exit();
    println!("{}: {}", ctx.device().name, ctx.device().arch);
    match skc_examples::reduce::check(&ctx, n) {
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
