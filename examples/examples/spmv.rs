//! `cargo run --release --example spmv [ROWS [BLOCK]]`: runs kernels/spmv.sk on GPU 0 (a random square CSR matrix
//! of ROWS rows, one warp per row, blocks of BLOCK threads) and checks it against the CPU.

fn main() {
    let rows = skc_examples::common::size_arg_at(1, "ROWS", 1 << 20);
    let block = skc_examples::common::size_arg_at(2, "BLOCK", skc_examples::spmv::BLOCK as usize) as u32;
    skc_examples::common::run_example(|ctx| skc_examples::spmv::check(ctx, rows, block))
}
