//! Sums with grid-stride loads, warp shuffles and one atomic per block (kernels/warp_reduce.sk): the fast
//! reduction the benchmarks measure, in float32 and int32 (one generic `block_sum` in the `.sk` file).

use std::marker::PhantomData;

use skc_runtime::{args, Context, DeviceBuffer, DeviceElem, Extent, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, Outcome, Rng};
use crate::kernels;

pub const BLOCK: u32 = 512;

/// An element type the example sums, and its kernel.
pub trait Summand: DeviceElem + Copy {
    const KERNEL: &'static str;
}

impl Summand for f32 {
    const KERNEL: &'static str = "warp_reduce";
}

impl Summand for i32 {
    const KERNEL: &'static str = "warp_reduce_int32";
}

pub struct WarpReduce<T: Summand = f32> {
    kernel: Kernel,
    /// Blocks that fill the device once (all resident at the same time).
    grid: u32,
    element: PhantomData<T>,
}

impl<T: Summand> WarpReduce<T> {
    pub fn load(ctx: &Context) -> Result<WarpReduce<T>> {
        let kernel = kernels::WARP_REDUCE.load(ctx)?.kernel(T::KERNEL)?;
        let kernel = kernel.require_len("xs", Extent::param("n"))?.require_len("out", Extent::Elements(1))?;
        let per_sm = kernel.max_active_blocks_per_sm(BLOCK, 0)?.max(1);
        let grid = ctx.device().multiprocessors * per_sm;
        Ok(WarpReduce { kernel, grid, element: PhantomData })
    }

    /// Adds the sum of `xs` to `out[0]` (zero it first to get the sum).
    pub fn run(&self, xs: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
        let n = xs.len();
        let blocks = self.grid.min(n.div_ceil(BLOCK as usize).max(1) as u32);
        self.kernel.launch(&LaunchConfig::new(blocks, BLOCK), args![xs, out, int32(n)])
    }

    /// Zeroes `out` and sums `xs` into it.
    pub fn sum(&self, xs: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
        out.fill_zero()?;
        self.run(xs, out)
    }

    pub fn grid(&self) -> u32 {
        self.grid
    }
}

pub fn cpu(xs: &[f32]) -> f64 {
    xs.iter().map(|&x| x as f64).sum()
}

pub fn cpu_int32(xs: &[i32]) -> i64 {
    xs.iter().map(|&x| x as i64).sum()
}

/// The GPU's sum of `xs` and the time of the second of two runs (the first loads the module), milliseconds.
fn gpu_sum<T: Summand>(ctx: &Context, xs: &[T]) -> Result<(T, f64)> {
    let example = WarpReduce::<T>::load(ctx)?;
    let device_xs = ctx.upload(xs)?;
    let mut out = ctx.alloc_zeros::<T>(1)?;
    example.sum(&device_xs, &mut out)?;
    let timer = ctx.stream().start_timer()?;
    example.sum(&device_xs, &mut out)?;
    let ms = timer.stop()? as f64;
    Ok((out.download()?[0], ms))
}

pub fn check(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(3);
    let xs = rng.f32s(n, 0.0, 1.0);
    let (gpu, ms) = gpu_sum(ctx, &xs)?;
    let gpu = gpu as f64;
    let reference = cpu(&xs);
    Ok(Outcome {
        example: "warp_reduce",
        size: format!("n={n}"),
        error: (gpu - reference).abs() / reference.abs().max(1.0),
        tolerance: 1e-5,
        relative: true,
        gpu_ms: ms,
        rate: Some((gb_per_s(4.0 * n as f64, ms), "GB/s")),
    })
}

/// The int32 kernel on values of both signs (every partial sum fits in int32, as the kernel requires): exact
/// against the CPU.
pub fn check_int32(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(4);
    let xs: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
    let (gpu, ms) = gpu_sum(ctx, &xs)?;
    let reference = cpu_int32(&xs);
    Ok(Outcome {
        example: "warp_reduce_int32",
        size: format!("n={n}"),
        error: (gpu as i64 - reference).abs() as f64,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(4.0 * n as f64, ms), "GB/s")),
    })
}
