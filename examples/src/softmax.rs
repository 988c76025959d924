//! Row softmax with warp shuffles (kernels/softmax.sk): one block per row, `shfl_xor` butterflies in each warp,
//! the warps combined through shared memory. The kernel's launch contract (`[@block_1d] [@block_multiple 32]`)
//! makes the runtime refuse blocks that are not whole warps (`RuntimeError::LaunchContract`).

use skc_runtime::{args, Context, DeviceBuffer, Kernel, LaunchConfig, Result, RuntimeError};

use crate::common::{gb_per_s, int32, Outcome, Rng};
use crate::kernels;

/// Rows of every check.
pub const ROWS: usize = 64;

pub struct Softmax {
    kernel: Kernel,
}

impl Softmax {
    pub fn load(ctx: &Context) -> Result<Softmax> {
        Ok(Softmax { kernel: kernels::SOFTMAX.load(ctx)?.kernel("softmax")? })
    }

    /// `ys` = the softmax of each of the `xs.len() / cols` rows of `xs`, with blocks of `block` threads.
    pub fn run(&self, xs: &DeviceBuffer<f32>, ys: &mut DeviceBuffer<f32>, cols: usize, block: u32) -> Result<()> {
        let rows = xs.len().checked_div(cols).unwrap_or(0);
        if rows == 0 || rows * cols != xs.len() || ys.len() != xs.len() {
            return Err(RuntimeError::LaunchConfig {
                kernel: "softmax".into(),
                reason: format!("{} and {} values are not whole rows of {cols}", xs.len(), ys.len()),
            });
        }
        let config = LaunchConfig::new(rows as u32, block);
        self.kernel.launch(&config, args![xs, ys, int32(cols)])
    }
}

/// The float64 softmax of each row of `cols` values.
pub fn cpu(xs: &[f32], cols: usize) -> Vec<f64> {
    xs.chunks(cols)
        .flat_map(|row| {
            let m = row.iter().fold(f64::MIN, |a, &v| a.max(v as f64));
            let total: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
            row.iter().map(move |&v| (v as f64 - m).exp() / total)
        })
        .collect()
}

pub fn check(ctx: &Context, cols: usize, block: u32) -> Result<Outcome> {
    let mut rng = Rng::new(9);
    let xs = rng.f32s(ROWS * cols, -8.0, 8.0);
    let example = Softmax::load(ctx)?;
    let device_xs = ctx.upload(&xs)?;
    let mut ys = ctx.alloc_zeros::<f32>(ROWS * cols)?;
    example.run(&device_xs, &mut ys, cols, block)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_xs, &mut ys, cols, block)?;
    let ms = timer.stop()? as f64;
    let error = ys
        .download()?
        .iter()
        .zip(cpu(&xs, cols))
        .map(|(&got, exact)| (got as f64 - exact).abs() / exact.max(1e-30))
        .fold(0.0, f64::max);
    Ok(Outcome {
        example: "softmax",
        size: format!("{ROWS}x{cols}/{block}"),
        error,
        tolerance: 1e-4,
        relative: true,
        gpu_ms: ms,
        rate: Some((gb_per_s(8.0 * (ROWS * cols) as f64, ms), "GB/s")),
    })
}
