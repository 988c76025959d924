//! `cargo run --release --example scan [SIZE]`: runs kernels/scan.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(1000000);
    skc_examples::common::run_example(|ctx| skc_examples::scan::check(ctx, n))
}
