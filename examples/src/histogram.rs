//! A 256-bin histogram (kernels/histogram.sk): per-block histograms in shared memory with atomics, merged into
//! the global one with one atomic per non-empty bin.

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, mismatches, Outcome, Rng};
use crate::kernels;

pub const BINS: usize = 256;
pub const BLOCK: u32 = 256;

pub struct Histogram {
    kernel: Kernel,
    grid: u32,
}

impl Histogram {
    pub fn load(ctx: &Context) -> Result<Histogram> {
        let kernel = kernels::HISTOGRAM.load(ctx)?.kernel("histogram")?;
        let kernel =
            kernel.require_len("data", Extent::param("n"))?.require_len("bins", Extent::Elements(BINS as u64))?;
        let grid = ctx.device().multiprocessors * kernel.max_active_blocks_per_sm(BLOCK, 0)?.max(1);
        Ok(Histogram { kernel, grid })
    }

    /// Adds the counts of `data` (values taken modulo 256) to `bins`.
    pub fn run(&self, data: &DeviceBuffer<i32>, bins: &mut DeviceBuffer<i32>) -> Result<()> {
        let n = data.len();
        let blocks = self.grid.min(n.div_ceil(BLOCK as usize).max(1) as u32);
        self.kernel.launch(&LaunchConfig::new(blocks, BLOCK), args![data, bins, int32(n)])
    }
}

pub fn cpu(data: &[i32]) -> Vec<i32> {
    let mut bins = vec![0; BINS];
    for &x in data {
        bins[(x & 255) as usize] += 1;
    }
    bins
}

pub fn check(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(5);
    // Skewed, so that some bins are hot (contended atomics) and some empty.
    let data: Vec<i32> = (0..n).map(|_| (rng.below(256) * rng.below(256) / 255) as i32).collect();
    let example = Histogram::load(ctx)?;
    let device_data = ctx.upload(&data)?;
    let mut bins = ctx.alloc_zeros::<i32>(BINS)?;
    example.run(&device_data, &mut bins)?;
    bins.fill_zero()?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_data, &mut bins)?;
    let ms = timer.stop()? as f64;
    Ok(Outcome {
        example: "histogram",
        size: format!("n={n}"),
        error: mismatches(&bins.download()?, &cpu(&data)) as f64,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(4.0 * n as f64, ms), "GB/s")),
    })
}
