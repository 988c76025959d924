//! Tiled matrix multiply, 128 x 128 tiles per block, 8 x 8 per thread in registers, float4 loads from global
//! and shared memory, k in steps of 8 through two shared buffers (kernels/matmul.sk).

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result, RuntimeError};

use crate::common::{int32, Outcome, Rng};
use crate::kernels;

/// The block tile: n must be a multiple of it.
pub const TILE: usize = 128;

pub struct Matmul {
    kernel: Kernel,
}

impl Matmul {
    pub fn load(ctx: &Context) -> Result<Matmul> {
        let kernel = kernels::MATMUL.load(ctx)?.kernel("matmul")?;
        let size = Extent::product(&["n", "n"]);
        let kernel = kernel.require_len("a", size.clone())?.require_len("b", size.clone())?.require_len("c", size)?;
        Ok(Matmul { kernel })
    }

    /// `c = a * b` for n x n row-major matrices.
    pub fn run(&self, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, c: &mut DeviceBuffer<f32>, n: usize) -> Result<()> {
        if n == 0 || !n.is_multiple_of(TILE) {
            return Err(RuntimeError::LaunchConfig {
                kernel: "matmul".into(),
                reason: format!("n = {n}: this kernel needs a positive multiple of {TILE}"),
            });
        }
        let blocks = (n / TILE) as u32;
        self.kernel.launch(&LaunchConfig::new((blocks, blocks), (16, 16)), args![a, b, c, int32(n)])
    }
}

/// One element of `a * b`, in float64.
pub fn cpu_element(a: &[f32], b: &[f32], n: usize, row: usize, col: usize) -> f64 {
    (0..n).map(|k| a[row * n + k] as f64 * b[k * n + col] as f64).sum()
}

/// Largest absolute error over `samples` elements (every element when `samples` is `None`).
pub fn max_error(a: &[f32], b: &[f32], c: &[f32], n: usize, samples: Option<usize>) -> f64 {
    let mut rng = Rng::new(8);
    let cells: Vec<(usize, usize)> = match samples {
        None => (0..n * n).map(|i| (i / n, i % n)).collect(),
        Some(k) => (0..k).map(|_| (rng.below(n as u32) as usize, rng.below(n as u32) as usize)).collect(),
    };
    cells.iter().map(|&(r, col)| (c[r * n + col] as f64 - cpu_element(a, b, n, r, col)).abs()).fold(0.0, f64::max)
}

pub fn check(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(7);
    let (a, b) = (rng.f32s(n * n, -1.0, 1.0), rng.f32s(n * n, -1.0, 1.0));
    let example = Matmul::load(ctx)?;
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc_zeros::<f32>(n * n)?;
    example.run(&da, &db, &mut dc, n)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&da, &db, &mut dc, n)?;
    let ms = timer.stop()? as f64;
    let c = dc.download()?;
    let samples = if n <= 512 { None } else { Some(4096) };
    Ok(Outcome {
        example: "matmul",
        size: format!("{n}^3"),
        error: max_error(&a, &b, &c, n, samples),
        tolerance: 1e-5 * n as f64,
        relative: false,
        gpu_ms: ms,
        rate: Some((2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e9, "GFLOP/s")),
    })
}
