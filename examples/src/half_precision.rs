//! 16-bit floats (kernels/half_precision.sk): a float16 and a bfloat16 axpy, and a float16 dot product summed in
//! float32. skc defines every 16-bit operation as rounded once, so the GPU must agree with the CPU bit for bit,
//! special values included: the error reported is the number of results whose bits differ.

use skc_runtime::{args, BFloat16, Context, DeviceBuffer, Float16, Kernel, LaunchConfig, Result};

use crate::common::{gb_per_s, int32, Outcome, Rng};
use crate::kernels;

/// Threads per block of the dot product (its launch contract, `[@block_size 256]`).
pub const BLOCK: u32 = 256;

/// Inputs that start every check: NaN with a payload, infinities, signed zeros, subnormals, the largest finite
/// value, a value that rounds to a tie (as float16 bits; bfloat16 reads the same bits as its own values).
const SPECIAL: [u16; 10] = [0x7E01, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001, 0x83FF, 0x7BFF, 0x3C01, 0xC555];

pub struct HalfPrecision {
    axpy_float16: Kernel,
    axpy_bfloat16: Kernel,
    dot_float16: Kernel,
}

impl HalfPrecision {
    pub fn load(ctx: &Context) -> Result<HalfPrecision> {
        let module = kernels::HALF_PRECISION.load(ctx)?;
        Ok(HalfPrecision {
            axpy_float16: module.kernel("axpy_float16")?,
            axpy_bfloat16: module.kernel("axpy_bfloat16")?,
            dot_float16: module.kernel("dot_float16")?,
        })
    }

    pub fn axpy_float16(&self, a: Float16, xs: &DeviceBuffer<Float16>, ys: &mut DeviceBuffer<Float16>) -> Result<()> {
        let config = LaunchConfig::for_elements(xs.len(), BLOCK);
        self.axpy_float16.launch(&config, args![a, xs, ys, int32(xs.len())])
    }

    pub fn axpy_bfloat16(
        &self,
        a: BFloat16,
        xs: &DeviceBuffer<BFloat16>,
        ys: &mut DeviceBuffer<BFloat16>,
    ) -> Result<()> {
        let config = LaunchConfig::for_elements(xs.len(), BLOCK);
        self.axpy_bfloat16.launch(&config, args![a, xs, ys, int32(xs.len())])
    }

    /// One float32 partial sum per block of `BLOCK` elements.
    pub fn dot_float16(
        &self,
        xs: &DeviceBuffer<Float16>,
        ys: &DeviceBuffer<Float16>,
        partials: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        let config = LaunchConfig::for_elements(xs.len(), BLOCK);
        self.dot_float16.launch(&config, args![xs, ys, partials, int32(xs.len())])
    }
}

/// The dot product's partial sums as the kernel computes them: exact float32 products, then a tree over each
/// block (strides 128, 64, ..., 1) in float32.
pub fn cpu_dot_partials(xs: &[Float16], ys: &[Float16]) -> Vec<f32> {
    let block = BLOCK as usize;
    (0..xs.len().div_ceil(block).max(1))
        .map(|b| {
            let mut sums: Vec<f32> = (0..block)
                .map(|t| {
                    let i = b * block + t;
                    if i < xs.len() {
                        xs[i].to_f32() * ys[i].to_f32()
                    } else {
                        0.0
                    }
                })
                .collect();
            let mut stride = block / 2;
            while stride > 0 {
                for t in 0..stride {
                    sums[t] += sums[t + stride];
                }
                stride /= 2;
            }
            sums[0]
        })
        .collect()
}

fn inputs(n: usize, seed: u64) -> Vec<u16> {
    let mut rng = Rng::new(seed);
    (0..n).map(|i| SPECIAL.get(i).copied().unwrap_or_else(|| Float16::from_f32(rng.f32_in(-4.0, 4.0)).0)).collect()
}

pub fn check(ctx: &Context, n: usize) -> Result<Vec<Outcome>> {
    let example = HalfPrecision::load(ctx)?;
    let (xs, ys) = (inputs(n, 11), inputs(n, 12));
    let (a16, a_bf16) = (Float16::from_f32(-1.25), BFloat16::from_f32(0.3));

    let (x16, y16): (Vec<Float16>, Vec<Float16>) =
        (xs.iter().map(|&b| Float16(b)).collect(), ys.iter().map(|&b| Float16(b)).collect());
    let device_x16 = ctx.upload(&x16)?;
    let mut device_y16 = ctx.upload(&y16)?;
    let timer = ctx.stream().start_timer()?;
    example.axpy_float16(a16, &device_x16, &mut device_y16)?;
    let ms16 = timer.stop()? as f64;
    let cpu16: Vec<u16> = x16.iter().zip(&y16).map(|(&x, &y)| a16.mul_add(x, y).0).collect();
    let gpu16: Vec<u16> = device_y16.download()?.iter().map(|h| h.0).collect();

    let (xb, yb): (Vec<BFloat16>, Vec<BFloat16>) =
        (xs.iter().map(|&b| BFloat16(b)).collect(), ys.iter().map(|&b| BFloat16(b)).collect());
    let device_xb = ctx.upload(&xb)?;
    let mut device_yb = ctx.upload(&yb)?;
    example.axpy_bfloat16(a_bf16, &device_xb, &mut device_yb)?;
    let cpub: Vec<u16> = xb.iter().zip(&yb).map(|(&x, &y)| a_bf16.mul_add(x, y).0).collect();
    let gpub: Vec<u16> = device_yb.download()?.iter().map(|h| h.0).collect();

    // The dot product without the NaN and infinities (which would make every partial of their block NaN).
    let finite = |v: &[u16]| -> Vec<Float16> {
        v.iter().map(|&b| Float16(if b & 0x7C00 == 0x7C00 { 0x3C00 } else { b })).collect()
    };
    let (dx, dy) = (finite(&xs), finite(&ys));
    let mut partials = ctx.alloc_zeros::<f32>(n.div_ceil(BLOCK as usize).max(1))?;
    example.dot_float16(&ctx.upload(&dx)?, &ctx.upload(&dy)?, &mut partials)?;
    let gpu_dot: Vec<u32> = partials.download()?.iter().map(|v| v.to_bits()).collect();
    let cpu_dot: Vec<u32> = cpu_dot_partials(&dx, &dy).iter().map(|v| v.to_bits()).collect();

    let differing = |gpu: &[u16], cpu: &[u16]| gpu.iter().zip(cpu).filter(|(g, c)| g != c).count() as f64;
    let outcome = |example, error, gpu_ms, rate| Outcome {
        example,
        size: format!("n={n}"),
        error,
        tolerance: 0.0,
        relative: false,
        gpu_ms,
        rate,
    };
    Ok(vec![
        outcome("axpy_f16", differing(&gpu16, &cpu16), ms16, Some((gb_per_s(6.0 * n as f64, ms16), "GB/s"))),
        outcome("axpy_bf16", differing(&gpub, &cpub), 0.0, None),
        outcome("dot_f16", gpu_dot.iter().zip(&cpu_dot).filter(|(g, c)| g != c).count() as f64, 0.0, None),
    ])
}
