//! `cargo run --release --example warp_reduce [SIZE]`: runs kernels/warp_reduce.sk (its float32 and int32 kernels) on
//! GPU 0 and checks them against the CPU.

fn main() {
    let n = skc_examples::common::size_arg(16777216);
    skc_examples::common::run_examples(|ctx| {
        Ok(vec![skc_examples::warp_reduce::check(ctx, n)?, skc_examples::warp_reduce::check_int32(ctx, n)?])
    })
}
