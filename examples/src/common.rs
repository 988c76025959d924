//! What every example shares: the outcome of a check, deterministic pseudo-random data, and sizes as kernel
//! integers.

use std::fmt;

/// The result of running an example on the GPU and on the CPU.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub example: &'static str,
    pub size: String,
    /// Largest difference from the CPU reference (absolute, or relative where `relative` says so).
    pub error: f64,
    pub tolerance: f64,
    pub relative: bool,
    /// Device time of one run, after a warm-up run.
    pub gpu_ms: f64,
    /// A throughput, e.g. (GB/s, "GB/s").
    pub rate: Option<(f64, &'static str)>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.error <= self.tolerance
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.relative { "relative error" } else { "max |error|" };
        write!(
            f,
            "{:<12} {:<18} {kind} {:.3e} (tolerance {:.1e}) {} | {:.3} ms",
            self.example,
            self.size,
            self.error,
            self.tolerance,
            if self.passed() { "ok" } else { "FAILED" },
            self.gpu_ms
        )?;
        if let Some((value, unit)) = self.rate {
            write!(f, " | {value:.1} {unit}")?;
        }
        Ok(())
    }
}

/// A small deterministic generator (xorshift64*), so runs and the CPU reference see the same data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [lo, hi).
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32_in(lo, hi)).collect()
    }
}

/// A size as the kernels' `int32`.
pub fn int32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or_else(|_| panic!("{n} does not fit the kernels' int32 sizes"))
}

/// `value` bytes in `ms` as GB/s (1e9 bytes per second).
pub fn gb_per_s(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e9
}

/// Largest absolute difference.
pub fn max_abs_diff(gpu: &[f32], cpu: &[f32]) -> f64 {
    assert_eq!(gpu.len(), cpu.len());
    gpu.iter().zip(cpu).map(|(g, c)| (*g as f64 - *c as f64).abs()).fold(0.0, f64::max)
}

/// Number of differing elements.
pub fn mismatches<T: PartialEq>(gpu: &[T], cpu: &[T]) -> usize {
    assert_eq!(gpu.len(), cpu.len());
    gpu.iter().zip(cpu).filter(|(g, c)| g != c).count()
}

/// The `index`-th command-line argument as a whole number, or `default` when it is absent; a malformed one ends
/// the program with a message and exit status 2 (an example answers bad input, it does not panic).
pub fn size_arg_at(index: usize, name: &str, default: usize) -> usize {
    match std::env::args().nth(index) {
        None => default,
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("error: {name} must be a whole number, not `{arg}`");
            std::process::exit(2)
        }),
    }
}

/// The size given as the first command-line argument, or `default`.
pub fn size_arg(default: usize) -> usize {
    size_arg_at(1, "SIZE", default)
}

/// GPU 0, or the reason there is none on stderr and exit status 2.
pub fn gpu_or_exit() -> skc_runtime::Context {
    skc_runtime::Context::new(0).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    })
}

/// The `main` of every example: runs `check` on GPU 0, prints the device and the outcome, and exits with 0 when
/// the GPU agreed with the CPU, 1 when it did not or a CUDA call failed (the error on stderr), 2 without a GPU.
pub fn run_example(check: impl FnOnce(&skc_runtime::Context) -> skc_runtime::Result<Outcome>) -> ! {
    run_examples(|ctx| Ok(vec![check(ctx)?]))
}

/// Like [`run_example`], for an example with several kernels: every outcome is printed, and the process fails if
/// one does.
pub fn run_examples(checks: impl FnOnce(&skc_runtime::Context) -> skc_runtime::Result<Vec<Outcome>>) -> ! {
    let ctx = gpu_or_exit();
    println!("{}: {}", ctx.device().name, ctx.device().arch);
    match checks(&ctx) {
        Ok(outcomes) => {
            for outcome in &outcomes {
                println!("{outcome}");
            }
            std::process::exit(if outcomes.iter().all(Outcome::passed) { 0 } else { 1 });
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
