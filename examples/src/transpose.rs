//! Tiled transpose through 32 x 33 shared-memory tiles (kernels/transpose.sk).

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, mismatches, Outcome, Rng};
use crate::kernels;

pub struct Transpose {
    kernel: Kernel,
}

impl Transpose {
    pub fn load(ctx: &Context) -> Result<Transpose> {
        let kernel = kernels::TRANSPOSE.load(ctx)?.kernel("transpose")?;
        let size = Extent::product(&["width", "height"]);
        let kernel = kernel.require_len("input", size.clone())?.require_len("output", size)?;
        Ok(Transpose { kernel })
    }

    /// `output` (width rows of height) = transpose of `input` (height rows of width).
    pub fn run(
        &self,
        input: &DeviceBuffer<f32>,
        output: &mut DeviceBuffer<f32>,
        width: usize,
        height: usize,
    ) -> Result<()> {
        let grid = (width.div_ceil(32) as u32, height.div_ceil(32) as u32);
        let config = LaunchConfig::new(grid, (32, 4));
        self.kernel.launch(&config, args![input, output, int32(width), int32(height)])
    }
}

pub fn cpu(input: &[f32], width: usize, height: usize) -> Vec<f32> {
    let mut out = vec![0.0; width * height];
    for y in 0..height {
        for x in 0..width {
            out[x * height + y] = input[y * width + x];
        }
    }
    out
}

pub fn check(ctx: &Context, width: usize, height: usize) -> Result<Outcome> {
    let mut rng = Rng::new(6);
    let input = rng.f32s(width * height, -1.0, 1.0);
    let example = Transpose::load(ctx)?;
    let device_input = ctx.upload(&input)?;
    let mut output = ctx.alloc_zeros::<f32>(width * height)?;
    example.run(&device_input, &mut output, width, height)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_input, &mut output, width, height)?;
    let ms = timer.stop()? as f64;
    Ok(Outcome {
        example: "transpose",
        size: format!("{width}x{height}"),
        error: mismatches(&output.download()?, &cpu(&input, width, height)) as f64,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(8.0 * (width * height) as f64, ms), "GB/s")),
    })
}
