//! The seed's superstep tree reduction (kernels/reduce.sk): each block sums its slice of int32 values in shared
//! memory; the host adds the per-block sums.

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, Outcome, Rng};
use crate::kernels;

/// Threads per block (a power of two: the tree halves the stride).
pub const BLOCK: u32 = 256;

pub struct Reduce {
    kernel: Kernel,
}

impl Reduce {
    pub fn load(ctx: &Context) -> Result<Reduce> {
        let kernel = kernels::REDUCE.load(ctx)?.kernel("reduce")?;
        let kernel = kernel.require_len("input", Extent::param("n"))?.require_len("output", Extent::GridBlocks)?;
        Ok(Reduce { kernel })
    }

    pub fn blocks(n: usize) -> usize {
        n.div_ceil(BLOCK as usize).max(1)
    }

    /// Writes one partial sum per block of `BLOCK` elements to `partials` (`blocks(n)` elements).
    pub fn run(&self, input: &DeviceBuffer<i32>, partials: &mut DeviceBuffer<i32>) -> Result<()> {
        let n = input.len();
        self.kernel.launch(&LaunchConfig::for_elements(n, BLOCK), args![input, partials, int32(n)])
    }
}

pub fn cpu(input: &[i32]) -> i64 {
    input.iter().map(|&x| x as i64).sum()
}

pub fn check(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(2);
    let input: Vec<i32> = (0..n).map(|_| rng.below(100) as i32).collect();
    let example = Reduce::load(ctx)?;
    let device_input = ctx.upload(&input)?;
    let mut partials = ctx.alloc_zeros::<i32>(Reduce::blocks(n))?;
    example.run(&device_input, &mut partials)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_input, &mut partials)?;
    let ms = timer.stop()? as f64;
    let gpu: i64 = partials.download()?.iter().map(|&x| x as i64).sum();
    Ok(Outcome {
        example: "reduce",
        size: format!("n={n}"),
        error: (gpu - cpu(&input)).abs() as f64,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(4.0 * n as f64, ms), "GB/s")),
    })
}
