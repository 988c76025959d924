//! `cargo run --release --example matmul [SIZE]`: runs kernels/matmul.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(1024);
    skc_examples::common::run_example(|ctx| skc_examples::matmul::check(ctx, n))
}
