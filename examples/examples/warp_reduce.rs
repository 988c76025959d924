//! `cargo run --release --example warp_reduce [SIZE]`: runs kernels/warp_reduce.sk on GPU 0 and checks it against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(16777216);
    skc_examples::common::run_example(|ctx| skc_examples::warp_reduce::check(ctx, n))
}
