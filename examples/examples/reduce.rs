//! `cargo run --release --example reduce [SIZE]`: runs kernels/reduce.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(16777216);
    skc_examples::common::run_example(|ctx| skc_examples::reduce::check(ctx, n))
}
