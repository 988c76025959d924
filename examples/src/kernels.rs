//! The example kernels' `.sk` sources, embedded in the binaries (so a program runs from any folder and carries
//! nothing beside itself).

use skc_runtime::{Context, Module, Program, Result};

/// One `.sk` file.
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    pub file: &'static str,
    pub text: &'static str,
}

macro_rules! source {
    ($file:literal) => {
        KernelSource { file: $file, text: include_str!(concat!("../kernels/", $file)) }
    };
}

pub const VECTOR_ADD: KernelSource = source!("vector_add.sk");
pub const REDUCE: KernelSource = source!("reduce.sk");
pub const WARP_REDUCE: KernelSource = source!("warp_reduce.sk");
pub const SCAN: KernelSource = source!("scan.sk");
pub const HISTOGRAM: KernelSource = source!("histogram.sk");
pub const TRANSPOSE: KernelSource = source!("transpose.sk");
pub const MATMUL: KernelSource = source!("matmul.sk");
pub const EMPTY: KernelSource = source!("empty.sk");
pub const SOFTMAX: KernelSource = source!("softmax.sk");
pub const STENCIL: KernelSource = source!("stencil.sk");
pub const SPMV: KernelSource = source!("spmv.sk");
pub const HALF_PRECISION: KernelSource = source!("half_precision.sk");

/// Variants the benchmark compares with the examples' kernels (kernels/bench/).
pub const TRANSPOSE_ROWS: KernelSource = source!("bench/transpose_rows.sk");
pub const MATMUL_K8: KernelSource = source!("bench/matmul_k8.sk");
pub const MATMUL_SCALAR: KernelSource = source!("bench/matmul_scalar.sk");
pub const BENCH_VARIANTS: [KernelSource; 3] = [TRANSPOSE_ROWS, MATMUL_K8, MATMUL_SCALAR];

pub const ALL: [KernelSource; 12] = [
    VECTOR_ADD,
    REDUCE,
    WARP_REDUCE,
    SCAN,
    HISTOGRAM,
    TRANSPOSE,
    MATMUL,
    EMPTY,
    SOFTMAX,
    STENCIL,
    SPMV,
    HALF_PRECISION,
];

impl KernelSource {
    pub fn program(&self) -> Result<Program> {
        Program::from_source(self.file, self.text)
    }

    /// Compiles (through the cache) and loads on `ctx`.
    pub fn load(&self, ctx: &Context) -> Result<Module> {
        Module::from_source(ctx, self.file, self.text)
    }
}
