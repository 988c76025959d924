//! `cargo run --release --example histogram [SIZE]`: runs kernels/histogram.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(16777216);
    skc_examples::common::run_example(|ctx| skc_examples::histogram::check(ctx, n))
}
