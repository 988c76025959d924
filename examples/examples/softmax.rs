//! `cargo run --release --example softmax [COLS [BLOCK]]`: runs kernels/softmax.sk on GPU 0 (64 rows of COLS values,
//! one block of BLOCK threads per row) and checks it against the CPU. A BLOCK that is not a multiple of 32 breaks
//! the kernel's launch contract: the launch is refused with an error naming it.

fn main() {
    let cols = skc_examples::common::size_arg_at(1, "COLS", 4096);
    let block = skc_examples::common::size_arg_at(2, "BLOCK", 256) as u32;
    skc_examples::common::run_example(|ctx| skc_examples::softmax::check(ctx, cols, block))
}
