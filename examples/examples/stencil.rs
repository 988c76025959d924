//! `cargo run --release --example stencil [WIDTH [HEIGHT]]`: runs kernels/stencil.sk on GPU 0 and checks it
//! against the CPU.

fn main() {
    let width = skc_examples::common::size_arg_at(1, "WIDTH", 4096);
    let height = skc_examples::common::size_arg_at(2, "HEIGHT", width);
    skc_examples::common::run_example(|ctx| skc_examples::stencil::check(ctx, width, height))
}
