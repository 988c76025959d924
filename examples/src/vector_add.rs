//! `c = a + b` (kernels/vector_add.sk): one thread per element.

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, max_abs_diff, Outcome, Rng};
use crate::kernels;

pub struct VectorAdd {
    kernel: Kernel,
}

impl VectorAdd {
    pub fn load(ctx: &Context) -> Result<VectorAdd> {
        let kernel = kernels::VECTOR_ADD.load(ctx)?.kernel("vector_add")?;
        let n = Extent::param("n");
        let kernel = kernel.require_len("a", n.clone())?.require_len("b", n.clone())?.require_len("c", n)?;
        Ok(VectorAdd { kernel })
    }

    pub fn run(&self, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, c: &mut DeviceBuffer<f32>) -> Result<()> {
        let n = a.len();
        self.kernel.launch(&LaunchConfig::for_elements(n, 256), args![a, b, c, int32(n)])
    }
}

pub fn cpu(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

pub fn check(ctx: &Context, n: usize) -> Result<Outcome> {
    let mut rng = Rng::new(1);
    let (a, b) = (rng.f32s(n, -1.0, 1.0), rng.f32s(n, -1.0, 1.0));
    let example = VectorAdd::load(ctx)?;
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc_zeros::<f32>(n)?;
    example.run(&da, &db, &mut dc)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&da, &db, &mut dc)?;
    let ms = timer.stop()? as f64;
    let error = max_abs_diff(&dc.download()?, &cpu(&a, &b));
    Ok(Outcome {
        example: "vector_add",
        size: format!("n={n}"),
        error,
        tolerance: 0.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((gb_per_s(12.0 * n as f64, ms), "GB/s")),
    })
}
