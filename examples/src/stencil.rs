//! One Jacobi step of the 2-D Laplace equation through a shared tile with a halo (kernels/stencil.sk), blocks of
//! 32 x 8 threads, edges clamped.

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, mismatches, Outcome, Rng};
use crate::kernels;

/// Threads per block along x and y.
pub const BLOCK: (u32, u32) = (32, 8);

pub struct Stencil {
    kernel: Kernel,
}

impl Stencil {
    pub fn load(ctx: &Context) -> Result<Stencil> {
        let kernel = kernels::STENCIL.load(ctx)?.kernel("stencil")?;
        let size = Extent::product(&["width", "height"]);
        let kernel = kernel.require_len("input", size.clone())?.require_len("output", size)?;
        Ok(Stencil { kernel })
    }

    /// `output` = one Jacobi step of `input` (`height` rows of `width`).
    pub fn run(
        &self,
        input: &DeviceBuffer<f32>,
        output: &mut DeviceBuffer<f32>,
        width: usize,
        height: usize,
    ) -> Result<()> {
        let tile = ((BLOCK.0 + 2) * (BLOCK.1 + 2)) as usize;
        let grid = (width.div_ceil(BLOCK.0 as usize) as u32, height.div_ceil(BLOCK.1 as usize) as u32);
        let config = LaunchConfig::new(grid, BLOCK).with_shared_elems::<f32>(tile);
        self.kernel.launch(&config, args![input, output, int32(width), int32(height), int32(tile)])
    }
}

/// The same step on the CPU, in the kernel's order of operations (so the results are equal, bit for bit).
pub fn cpu(input: &[f32], width: usize, height: usize) -> Vec<f32> {
    let at = |x: isize, y: isize| {
        let (x, y) = (x.clamp(0, width as isize - 1), y.clamp(0, height as isize - 1));
        input[y as usize * width + x as usize]
    };
    let mut out = vec![0.0; width * height];
    for y in 0..height as isize {
        for x in 0..width as isize {
            out[y as usize * width + x as usize] =
                0.25 * (((at(x - 1, y) + at(x + 1, y)) + at(x, y - 1)) + at(x, y + 1));
        }
    }
    out
}

pub fn check(ctx: &Context, width: usize, height: usize) -> Result<Outcome> {
    let mut rng = Rng::new(10);
    let input = rng.f32s(width * height, -1.0, 1.0);
    let example = Stencil::load(ctx)?;
    let device_input = ctx.upload(&input)?;
    let mut output = ctx.alloc_zeros::<f32>(width * height)?;
    example.run(&device_input, &mut output, width, height)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_input, &mut output, width, height)?;
    let ms = timer.stop()? as f64;
    Ok(Outcome {
        example: "stencil",
        size: format!("{width}x{height}"),
        error: mismatches(&output.download()?, &cpu(&input, width, height)) as f64,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(8.0 * (width * height) as f64, ms), "GB/s")),
    })
}
