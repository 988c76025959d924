//! Hillis-Steele inclusive prefix sum of int32 values (kernels/scan.sk): scan each block in shared memory, scan
//! the block totals with one block, add each block's offset. Up to `WIDTH * WIDTH` elements.

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result, RuntimeError};

use crate::common::{gb_per_s, int32, mismatches, Outcome, Rng};
use crate::kernels;

/// Threads per block = elements scanned per block.
pub const WIDTH: u32 = 1024;

pub struct Scan {
    scan_blocks: Kernel,
    add_offsets: Kernel,
}

impl Scan {
    pub fn load(ctx: &Context) -> Result<Scan> {
        let module = kernels::SCAN.load(ctx)?;
        let n = Extent::param("n");
        let scan_blocks = module
            .kernel("scan_blocks")?
            .require_len("xs", n.clone())?
            .require_len("ys", n.clone())?
            .require_len("block_sums", Extent::GridBlocks)?;
        let add_offsets =
            module.kernel("add_offsets")?.require_len("ys", n)?.require_len("scanned_sums", Extent::GridBlocks)?;
        Ok(Scan { scan_blocks, add_offsets })
    }

    fn blocks(n: usize) -> usize {
        n.div_ceil(WIDTH as usize).max(1)
    }

    fn config(n: usize) -> LaunchConfig {
        LaunchConfig::for_elements(n, WIDTH).with_shared_elems::<i32>(2 * WIDTH as usize)
    }

    /// Device scratch for a scan of `n` elements.
    pub fn scratch(ctx: &Context, n: usize) -> Result<[DeviceBuffer<i32>; 3]> {
        let blocks = Scan::blocks(n);
        Ok([ctx.alloc_zeros(blocks)?, ctx.alloc_zeros(blocks)?, ctx.alloc_zeros(1)?])
    }

    /// `ys` = inclusive prefix sums of `xs`.
    pub fn run(
        &self,
        xs: &DeviceBuffer<i32>,
        ys: &mut DeviceBuffer<i32>,
        scratch: &mut [DeviceBuffer<i32>; 3],
    ) -> Result<()> {
        let n = xs.len();
        let blocks = Scan::blocks(n);
        if blocks > WIDTH as usize {
            return Err(RuntimeError::LaunchConfig {
                kernel: "scan_blocks".into(),
                reason: format!("{n} elements: this example scans at most {} (two levels)", WIDTH * WIDTH),
            });
        }
        let [sums, scanned, total] = scratch;
        let width = int32(WIDTH as usize);
        self.scan_blocks.launch(&Scan::config(n), args![xs, &mut *ys, &mut *sums, int32(n), width])?;
        if blocks > 1 {
            self.scan_blocks
                .launch(&Scan::config(blocks), args![&*sums, &mut *scanned, &mut *total, int32(blocks), width])?;
            self.add_offsets.launch(&LaunchConfig::for_elements(n, WIDTH), args![ys, &*scanned, int32(n)])?;
        }
        Ok(())
    }
}

pub fn cpu(xs: &[i32]) -> Vec<i32> {
    let mut sum = 0i32;
    xs.iter()
        .map(|&x| {
            sum = sum.wrapping_add(x);
            sum
        })
        .collect()
}

pub fn check(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(4);
    let xs: Vec<i32> = (0..n).map(|_| rng.below(20) as i32 - 5).collect();
    let example = Scan::load(ctx)?;
    let device_xs = ctx.upload(&xs)?;
    let mut ys = ctx.alloc_zeros::<i32>(n)?;
    let mut scratch = Scan::scratch(ctx, n)?;
    example.run(&device_xs, &mut ys, &mut scratch)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_xs, &mut ys, &mut scratch)?;
    let ms = timer.stop()? as f64;
    Ok(Outcome {
        example: "scan",
        size: format!("n={n}"),
        error: mismatches(&ys.download()?, &cpu(&xs)) as f64,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(8.0 * n as f64, ms), "GB/s")),
    })
}
