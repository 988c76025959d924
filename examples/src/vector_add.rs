//! `c = a + b` (kernels/vector_add.sk): one thread per element. Launched through the typed wrapper that
//! `build.rs` generates with skc-build: `launch_vector_add(&config, &a, &b, &mut c, n)` only accepts the
//! kernel's types, checked by rustc.

use skc_runtime::{Context, DeviceBuffer, Extent, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, max_abs_diff, Outcome, Rng};

/// Generated from kernels/vector_add.sk at build time.
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/vector_add.rs"));
}

pub struct VectorAdd {
    kernels: generated::VectorAdd,
}

impl VectorAdd {
    pub fn load(ctx: &Context) -> Result<VectorAdd> {
        let mut kernels = generated::VectorAdd::load(ctx)?;
        for vector in ["a", "b", "c"] {
            kernels.vector_add.set_len(vector, Extent::param("n"))?;
        }
        Ok(VectorAdd { kernels })
    }

    pub fn run(&self, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, c: &mut DeviceBuffer<f32>) -> Result<()> {
        let n = a.len();
        self.kernels.launch_vector_add(&LaunchConfig::for_elements(n, 256), a, b, c, int32(n))
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
