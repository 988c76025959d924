//! `cargo run --release -p skc-examples --example half_precision [N]`: the 16-bit float kernels on the GPU
//! against the CPU, bit for bit.

use skc_examples::common::{run_examples, size_arg};

fn main() {
    let n = size_arg(1 << 24);
    run_examples(|ctx| skc_examples::half_precision::check(ctx, n));
}
