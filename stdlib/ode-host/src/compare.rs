//! Comparing a kernel's results (GPU, or the emitted C run on the host) with the CPU reference, run by run: the
//! same status bits, NaN masking, counters and sequence of accepted and rejected steps, and the same values.
//!
//! float64: every run must take the same steps (sizes within 1e-7 relative: the kernels' error norms round
//! differently in the last bits) with the same Newton iterations, and final states and samples agree to 1e-9.
//! float32: the error norms are float32, so a decision near the threshold may flip and step sizes drift by about
//! 1e-3; runs whose accept/reject sequence differs are counted (reported, not held) and the others compared:
//! fixed steps to 1e-5 (4e-5 for the low-order and implicit methods, which take more steps), adaptive steps to
//! 20 rtol (their sizes differ slightly, so their values differ at the level of the tolerance).

use crate::config::{Config, Precision, Status};
use crate::reference::Batch;
use crate::tableau::Tableau;

/// A kernel's outputs for a batch, as host arrays in float64.
pub struct KernelOutput<'a> {
    pub final_state: &'a [f64],
    pub saves: &'a [f64],
    pub status: &'a [Status],
    pub attempted: &'a [u32],
    pub rejected: &'a [u32],
    pub newton_iters: &'a [u32],
    /// runs x trace_len: +h accepted, -h rejected, 0 after the last attempt.
    pub trace: &'a [f64],
    pub trace_len: usize,
}

/// The outcome of a comparison (the checks that must hold have already held when this is returned).
#[derive(Clone, Debug)]
pub struct Agreement {
    pub worst_final: f64,
    pub step_mismatches: usize,
    pub runs: usize,
}

/// The value tolerance (relative to max(|value|, 1)) for a configuration.
pub fn value_tolerance(cfg: &Config) -> f64 {
    match cfg.precision {
        Precision::F64 => 1e-9,
        Precision::F32 if cfg.controller.is_adaptive() => 20.0 * cfg.rtol,
        Precision::F32 if Tableau::of(cfg.method).order >= 4 && !cfg.method.is_implicit() => 1e-5,
        Precision::F32 => 4e-5,
    }
}

/// Compares run by run; `Err` names the first check that fails.
pub fn compare(label: &str, cpu: &Batch, kernel: &KernelOutput, cfg: &Config) -> Result<Agreement, String> {
    let n = cpu.n_states;
    let tolerance = value_tolerance(cfg);
    let step_tolerance = if cfg.precision == Precision::F64 { 1e-7 } else { f64::INFINITY };
    let (mut worst, mut step_mismatches) = (0.0f64, 0usize);
    for (r, run) in cpu.runs.iter().enumerate() {
        if kernel.status[r] != run.status {
            return Err(format!("{label}: run {r}: status {:?}, the CPU's {:?}", kernel.status[r], run.status));
        }
        let len = kernel.trace_len;
        let kernel_steps: Vec<(bool, f64)> = kernel.trace[r * len..(r + 1) * len]
            .iter()
            .take_while(|h| **h != 0.0)
            .map(|h| (*h > 0.0, h.abs()))
            .collect();
        let cpu_steps: Vec<(bool, f64)> = run.trace.iter().take(len).map(|s| (s.accepted, s.h)).collect();
        let first_difference = kernel_steps
            .iter()
            .zip(&cpu_steps)
            .position(|(a, b)| a.0 != b.0 || (a.1 - b.1).abs() > step_tolerance * b.1 + 1e-11)
            .or((kernel_steps.len() != cpu_steps.len()).then_some(kernel_steps.len().min(cpu_steps.len())));
        let same_counters = kernel.attempted[r] == run.attempted && kernel.rejected[r] == run.rejected;
        if cfg.precision == Precision::F64 {
            if first_difference.is_some() || !same_counters {
                return Err(format!(
                    "{label}: run {r}: {} vs {} steps ({}/{} attempted/rejected vs {}/{}), first different step {first_difference:?}",
                    kernel_steps.len(),
                    cpu_steps.len(),
                    kernel.attempted[r],
                    kernel.rejected[r],
                    run.attempted,
                    run.rejected
                ));
            }
            if kernel.newton_iters[r] != run.newton_iters {
                return Err(format!(
                    "{label}: run {r}: {} Newton iterations, the CPU's {}",
                    kernel.newton_iters[r], run.newton_iters
                ));
            }
        }
        if first_difference.is_some() || !same_counters {
            step_mismatches += 1;
            continue;
        }
        for s in 0..n {
            let (k, c) = (kernel.final_state[r * n + s], run.final_state[s]);
            if c.is_nan() != k.is_nan() {
                return Err(format!("{label}: run {r}: final state {k}, the CPU's {c}"));
            }
            if !c.is_nan() {
                worst = worst.max((k - c).abs() / c.abs().max(1.0));
            }
        }
        for (i, c) in run.saves.iter().enumerate() {
            let k = kernel.saves[r * cpu.n_saves * n + i];
            if c.is_nan() != k.is_nan() || (!c.is_nan() && (k - c).abs() > tolerance * c.abs().max(1.0)) {
                return Err(format!("{label}: run {r}: sample value {i} is {k}, the CPU's {c}"));
            }
        }
    }
    if worst > tolerance {
        return Err(format!("{label}: worst final difference {worst:.2e} > {tolerance:.0e}"));
    }
    Ok(Agreement { worst_final: worst, step_mismatches, runs: cpu.runs.len() })
}
