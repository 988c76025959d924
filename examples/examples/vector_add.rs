//! `cargo run --release --example vector_add [SIZE]`: runs kernels/vector_add.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(16777216);
    skc_examples::common::run_example(|ctx| skc_examples::vector_add::check(ctx, n))
}
