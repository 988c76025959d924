//! Generates typed launchers with skc-build: for kernels/vector_add.sk (the other examples use the runtime's
//! checked dynamic launches) and for the record kernel of the tests. A `.sk` error fails this build, and a wrong
//! argument type fails the crate's compilation.

fn main() {
    skc_build::wrap("kernels/vector_add.sk");
    skc_build::wrap("tests/kernels/shift_points.sk");
}
