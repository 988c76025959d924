//! 16-bit floats (kernels/half_precision.sk): a float16 and a bfloat16 axpy, a float16 dot product summed in
//! float32, the pairs float16x2 and bfloat16x2 (+ - * /, negation and fma lane by lane), and atomic_add on
//! 16-bit floats. skc defines every 16-bit operation as rounded once, so the GPU must agree with the CPU bit for
//! bit, special values included: the error reported is the number of results whose bits differ.

use skc_runtime::{
    args, BFloat16, BFloat16x2, Context, DeviceBuffer, Float16, Float16x2, Kernel, LaunchConfig, Result,
};

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
    pairs_float16: Kernel,
    pairs_bfloat16: Kernel,
    sums_16: Kernel,
}

/// Bins of the 16-bit atomics' example, and the threads that add into them (64 adds per bin).
pub const BINS: usize = 64;
const ADDING_THREADS: usize = 4096;

impl HalfPrecision {
    pub fn load(ctx: &Context) -> Result<HalfPrecision> {
        let module = kernels::HALF_PRECISION.load(ctx)?;
        Ok(HalfPrecision {
            axpy_float16: module.kernel("axpy_float16")?,
            axpy_bfloat16: module.kernel("axpy_bfloat16")?,
            dot_float16: module.kernel("dot_float16")?,
            pairs_float16: module.kernel("pairs_float16")?,
            pairs_bfloat16: module.kernel("pairs_bfloat16")?,
            sums_16: module.kernel("sums_16")?,
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

    /// For each pair `i`: `x + y`, `x - y`, `x * y`, `fma (a, a) x y`, `x / y` and `-x` in `out[6 i ..]`, with
    /// `x` elements `2 i`, `2 i + 1` of `xs` and `y` = `ys[i]`.
    pub fn pairs_float16(
        &self,
        a: Float16,
        xs: &DeviceBuffer<Float16>,
        ys: &DeviceBuffer<Float16x2>,
        out: &mut DeviceBuffer<Float16x2>,
    ) -> Result<()> {
        let config = LaunchConfig::for_elements(ys.len(), BLOCK);
        self.pairs_float16.launch(&config, args![a, xs, ys, out, int32(ys.len())])
    }

    pub fn pairs_bfloat16(
        &self,
        a: BFloat16,
        xs: &DeviceBuffer<BFloat16>,
        ys: &DeviceBuffer<BFloat16x2>,
        out: &mut DeviceBuffer<BFloat16x2>,
    ) -> Result<()> {
        let config = LaunchConfig::for_elements(ys.len(), BLOCK);
        self.pairs_bfloat16.launch(&config, args![a, xs, ys, out, int32(ys.len())])
    }

    /// Adds of the first 4096 of `n` threads into `BINS` bins of each type (`atomic_add`,
    /// `atomic_add_float16x2`, `atomic_add_bfloat16x2`).
    pub fn sums_16(&self, n: usize, bins: &mut Bins16) -> Result<()> {
        let config = LaunchConfig::for_elements(n, BLOCK);
        let Bins16 { sums, bsums, pair_sums, bpair_sums } = bins;
        self.sums_16.launch(&config, args![sums, bsums, pair_sums, bpair_sums, int32(n)])
    }
}

/// The pair kernels' results on the CPU, lane by lane with the scalar operations (`skc_core::half_float`).
fn cpu_pairs<T, P>(a: T, xs: &[T], ys: &[P], lanes: impl Fn(P) -> (T, T), pair: impl Fn(T, T) -> P) -> Vec<P>
where
    T: Copy + std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
    T: std::ops::Div<Output = T> + std::ops::Neg<Output = T>,
    P: Copy,
    T: MulAdd,
{
    let mut out = Vec::with_capacity(6 * ys.len());
    for (i, &y) in ys.iter().enumerate() {
        let (x0, x1) = (xs[2 * i], xs[2 * i + 1]);
        let (y0, y1) = lanes(y);
        out.push(pair(x0 + y0, x1 + y1));
        out.push(pair(x0 - y0, x1 - y1));
        out.push(pair(x0 * y0, x1 * y1));
        out.push(pair(a.fma(x0, y0), a.fma(x1, y1)));
        out.push(pair(x0 / y0, x1 / y1));
        out.push(pair(-x0, -x1));
    }
    out
}

/// `fma` of the host's 16-bit floats, for [`cpu_pairs`].
trait MulAdd: Sized {
    fn fma(self, b: Self, c: Self) -> Self;
}

impl MulAdd for Float16 {
    fn fma(self, b: Float16, c: Float16) -> Float16 {
        self.mul_add(b, c)
    }
}

impl MulAdd for BFloat16 {
    fn fma(self, b: BFloat16, c: BFloat16) -> BFloat16 {
        self.mul_add(b, c)
    }
}

/// The bins of `sums_16` on the device.
pub struct Bins16 {
    pub sums: DeviceBuffer<Float16>,
    pub bsums: DeviceBuffer<BFloat16>,
    pub pair_sums: DeviceBuffer<Float16x2>,
    pub bpair_sums: DeviceBuffer<BFloat16x2>,
}

impl Bins16 {
    pub fn zeros(ctx: &Context) -> Result<Bins16> {
        Ok(Bins16 {
            sums: ctx.alloc_zeros(BINS)?,
            bsums: ctx.alloc_zeros(BINS)?,
            pair_sums: ctx.alloc_zeros(BINS)?,
            bpair_sums: ctx.alloc_zeros(BINS)?,
        })
    }

    /// Every bin's bits: the float16 bins, the bfloat16 bins, then the pairs' lanes (`x` first).
    pub fn download(&self) -> Result<Vec<u16>> {
        let mut bits: Vec<u16> = self.sums.download()?.iter().map(|h| h.0).collect();
        bits.extend(self.bsums.download()?.iter().map(|h| h.0));
        bits.extend(self.pair_sums.download()?.iter().flat_map(|p| [p.x.0, p.y.0]));
        bits.extend(self.bpair_sums.download()?.iter().flat_map(|p| [p.x.0, p.y.0]));
        Ok(bits)
    }
}

/// The atomics' bins as [`Bins16::download`] lists them: exact sums (every partial sum is exact in its format).
pub fn cpu_sums_16(n: usize) -> Vec<u16> {
    // The -v lane is summed as the device sums it, from +0: a bin nothing is added to stays +0, where the negated
    // sum would be -0.
    let (mut q_sums, mut v_sums, mut minus_v_sums) = (vec![0.0f32; BINS], vec![0.0f32; BINS], vec![0.0f32; BINS]);
    for i in 0..n.min(ADDING_THREADS) {
        let v = (i / BINS % 4) as f32 - 1.0;
        q_sums[i % BINS] += ((i % 4) as f32 - 1.0) * 0.25;
        v_sums[i % BINS] += v;
        minus_v_sums[i % BINS] += -v;
    }
    let f16 = |x: f32| Float16::from_f32(x).0;
    let bf16 = |x: f32| BFloat16::from_f32(x).0;
    let mut bits: Vec<u16> = q_sums.iter().map(|&q| f16(q)).collect();
    bits.extend(v_sums.iter().map(|&v| bf16(v)));
    bits.extend(q_sums.iter().flat_map(|&q| [f16(q), f16(2.0 * q)]));
    bits.extend(v_sums.iter().zip(&minus_v_sums).flat_map(|(&v, &w)| [bf16(v), bf16(w)]));
    bits
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

    // The pairs: ceil(n / 2) of them (x from the inputs, repeated to an even length; y from the inputs again,
    // its lanes swapped), every lane's bits compared.
    let n2 = n.div_ceil(2);
    let xp16: Vec<Float16> = (0..2 * n2).map(|k| x16[k % n]).collect();
    let pair_ys16: Vec<Float16x2> = (0..n2).map(|i| Float16x2::new(y16[(2 * i + 1) % n], y16[2 * i])).collect();
    let mut pairs16 = ctx.alloc_zeros::<Float16x2>(6 * n2)?;
    example.pairs_float16(a16, &ctx.upload(&xp16)?, &ctx.upload(&pair_ys16)?, &mut pairs16)?;
    let lanes16 = |p: Float16x2| [p.x.0, p.y.0];
    let gpu_pairs16: Vec<u16> = pairs16.download()?.into_iter().flat_map(lanes16).collect();
    let cpu_pairs16: Vec<u16> =
        cpu_pairs(a16, &xp16, &pair_ys16, |p| (p.x, p.y), Float16x2::new).into_iter().flat_map(lanes16).collect();

    let xpb: Vec<BFloat16> = (0..2 * n2).map(|k| xb[k % n]).collect();
    let pair_ysb: Vec<BFloat16x2> = (0..n2).map(|i| BFloat16x2::new(yb[(2 * i + 1) % n], yb[2 * i])).collect();
    let mut pairsb = ctx.alloc_zeros::<BFloat16x2>(6 * n2)?;
    example.pairs_bfloat16(a_bf16, &ctx.upload(&xpb)?, &ctx.upload(&pair_ysb)?, &mut pairsb)?;
    let lanesb = |p: BFloat16x2| [p.x.0, p.y.0];
    let gpu_pairsb: Vec<u16> = pairsb.download()?.into_iter().flat_map(lanesb).collect();
    let cpu_pairsb: Vec<u16> =
        cpu_pairs(a_bf16, &xpb, &pair_ysb, |p| (p.x, p.y), BFloat16x2::new).into_iter().flat_map(lanesb).collect();

    let mut bins = Bins16::zeros(ctx)?;
    example.sums_16(n, &mut bins)?;
    let gpu_sums = bins.download()?;
    let cpu_sums = cpu_sums_16(n);

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
        outcome(
            "pairs_f16x2",
            differing(&gpu_pairs16, &cpu_pairs16) + length_gap(&gpu_pairs16, &cpu_pairs16),
            0.0,
            None,
        ),
        outcome("pairs_bf16x2", differing(&gpu_pairsb, &cpu_pairsb) + length_gap(&gpu_pairsb, &cpu_pairsb), 0.0, None),
        outcome("atomic_add_16", differing(&gpu_sums, &cpu_sums) + length_gap(&gpu_sums, &cpu_sums), 0.0, None),
    ])
}

/// Results one side has and the other lacks (counted as differing).
fn length_gap(gpu: &[u16], cpu: &[u16]) -> f64 {
    gpu.len().abs_diff(cpu.len()) as f64
}
