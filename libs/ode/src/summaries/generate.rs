//! The summary chain of a solver program: the sizes of a [`Layout`] as `-D` definitions of the parameters of
//! `stdlib/metrics/summary_layout.sk` ([`layout_defines`]), and the generated module `Ode_summaries` that holds
//! what no parameter can carry ([`summaries_module`]): the list of summarised variables and the sequence of
//! metric calls at their offsets, calling the metric functions of `stdlib/metrics/metrics.sk`. The loop hooks
//! of `stdlib/metrics/summaries.sk` call it. Without summaries the program keeps `stdlib/ode/ode_summaries.sk`,
//! whose hooks do nothing (the kernel is the one without metrics, plus one unused pointer parameter).
//!
//! The per-variable loop runs inside the chain (`for v = 0 to summary_n_vars - 1`), once per sample; the state
//! index of variable `v` is a `select` chain on constants, so after NVRTC unrolls the loop every buffer index
//! and every state index is a constant.

use std::fmt::Write;

use super::{Layout, Part, SummarySpec, Unit};

/// `summary_var v`: the state index of summarised variable `v`.
fn variable_function(variables: &[usize]) -> String {
    let mut expr = variables.last().map(|v| v.to_string()).unwrap_or_else(|| "0".into());
    for (i, v) in variables.iter().enumerate().rev().skip(1) {
        expr = format!("select (v = {i}) {v} ({expr})");
    }
    format!("let summary_var (v : int32) : int32 = {expr}\n")
}

/// The update of `unit` at `off`; `h` is the offset of the shared history (see [`Layout::history`]).
fn update_call(unit: Unit, off: &str, h: &str, second: bool) -> String {
    match unit {
        Unit::Sum => format!("metric_sum_update buf ({off}) x"),
        Unit::SumSquares => format!("metric_sumsq_update buf ({off}) x"),
        Unit::Shifted => format!("metric_shifted_update buf ({off}) x k"),
        Unit::Extremes { max, min } => {
            let mut calls = Vec::new();
            if max {
                calls.push(format!("metric_max_update buf ({off}) x"));
            }
            if min {
                calls.push(format!("metric_min_update buf ({off} + {}) x", max as usize));
            }
            calls.join(";\n    ")
        }
        Unit::MaxMagnitude => format!("metric_max_magnitude_update buf ({off}) x"),
        Unit::Peaks { k, negative } => {
            let sign = if negative { "(-1.0d)" } else { "1.0d" };
            let lv = Unit::level_slot(second);
            format!("metric_peaks_update buf ({off}) {k} ({h}) ({h} + {lv}) {sign} x k")
        }
        Unit::Dxdt { max, min } => {
            let name = match (max, min) {
                (true, true) => "extrema",
                (true, false) => "max",
                _ => "min",
            };
            format!("metric_dxdt_{name}_update buf ({off}) ({h}) x k")
        }
        Unit::D2xdt2 { max, min } => {
            let name = match (max, min) {
                (true, true) => "extrema",
                (true, false) => "max",
                _ => "min",
            };
            format!("metric_d2xdt2_{name}_update buf ({off}) ({h}) x k")
        }
        // level reads prev before prev2 and prev move on.
        Unit::History { second, level } => {
            let mut calls = Vec::new();
            if level {
                let lv = Unit::level_slot(second);
                calls.push(format!("metric_level_update buf ({off} + {lv}) ({off}) x k"));
            }
            if second {
                calls.push(format!("metric_prev2_update buf ({off})"));
            }
            calls.push(format!("metric_prev_update buf ({off}) x"));
            calls.join(";\n    ")
        }
    }
}

/// The statements that start a window (the very first one included; the history of peaks and differences is
/// not reset, its first samples are gated by the sample index).
fn reset_calls(unit: Unit, off: &str) -> Vec<String> {
    match unit {
        Unit::Sum | Unit::SumSquares => vec![format!("metric_sum_reset buf ({off})")],
        Unit::Shifted => vec![format!("metric_shifted_reset buf ({off}) summary_per_window")],
        Unit::Extremes { max, min } => {
            let mut calls = Vec::new();
            if max {
                calls.push(format!("metric_max_reset buf ({off})"));
            }
            if min {
                calls.push(format!("metric_min_reset buf ({off} + {})", max as usize));
            }
            calls
        }
        Unit::MaxMagnitude => vec![format!("metric_sum_reset buf ({off})")],
        Unit::Peaks { k, .. } => vec![format!("metric_peaks_reset buf ({off}) {k}")],
        Unit::Dxdt { max, min } | Unit::D2xdt2 { max, min } => extreme_resets(off, 0, max, min),
        // History carries across windows; its first samples are gated by the sample index.
        Unit::History { .. } => Vec::new(),
    }
}

fn extreme_resets(off: &str, first: usize, max: bool, min: bool) -> Vec<String> {
    let mut calls = Vec::new();
    if max {
        calls.push(format!("metric_max_reset buf ({off} + {first})"));
    }
    if min {
        calls.push(format!("metric_min_reset buf ({off} + {})", first + max as usize));
    }
    calls
}

/// The value of an output, read from its unit at `off`.
fn value_expr(unit: Unit, part: Part, off: &str) -> String {
    let n = "summary_per_window";
    match (unit, part) {
        (Unit::Sum, Part::Mean) => format!("metric_mean_value buf ({off}) {n}"),
        (Unit::SumSquares, Part::Rms) => format!("metric_rms_value buf ({off}) {n}"),
        (Unit::Shifted, Part::Mean) => format!("metric_shifted_mean buf ({off}) {n}"),
        (Unit::Shifted, Part::Std) => format!("metric_shifted_std buf ({off}) {n}"),
        (Unit::Shifted, Part::Rms) => format!("metric_shifted_rms buf ({off}) {n}"),
        (Unit::Extremes { .. }, Part::Max) => format!("buf.({off})"),
        (Unit::Extremes { max, .. }, Part::Min) => format!("buf.({off} + {})", max as usize),
        (Unit::MaxMagnitude, Part::MaxMagnitude) => format!("buf.({off})"),
        (Unit::Extremes { max: true, min: true }, Part::MaxMagnitude) => {
            format!("metric_extrema_magnitude buf ({off})")
        }
        (Unit::Peaks { .. }, Part::Peak(j) | Part::NegativePeak(j)) => format!("metric_peaks_value buf ({off}) {j}"),
        (Unit::Dxdt { .. }, Part::DxdtMax) => format!("metric_scaled buf ({off}) summary_ds 1"),
        (Unit::Dxdt { max, .. }, Part::DxdtMin) => format!("metric_scaled buf ({off} + {}) summary_ds 1", max as usize),
        (Unit::D2xdt2 { .. }, Part::D2xdt2Max) => format!("metric_scaled buf ({off}) summary_ds 2"),
        (Unit::D2xdt2 { max, .. }, Part::D2xdt2Min) => {
            format!("metric_scaled buf ({off} + {}) summary_ds 2", max as usize)
        }
        (unit, part) => unreachable!("{part:?} is not read from {unit:?}"),
    }
}

/// The `-D` definitions of the layout's sizes (the parameters of `stdlib/metrics/summary_layout.sk`): whether
/// summaries are on, the variable count, the slots and outputs per variable, the window length in samples, the
/// window count over `duration`, the sample spacing and the settling time.
pub fn layout_defines(spec: &SummarySpec, layout: &Layout, duration: f64) -> Vec<(String, String)> {
    let values = [
        ("summary_enabled", "true".to_string()),
        ("summary_n_vars", spec.variables.len().to_string()),
        ("summary_slots", layout.slots.to_string()),
        ("summary_outputs", layout.columns.len().to_string()),
        ("summary_per_window", spec.per_window().to_string()),
        ("summary_n_windows", spec.n_windows(duration).to_string()),
        ("summary_ds", format!("{:?}", spec.sample_every)),
        ("summary_settling", format!("{:?}", spec.settling)),
    ];
    values.into_iter().map(|(name, value)| (name.to_string(), value)).collect()
}

/// The module text of the chain of `spec`: the state index of each summarised variable and the calls of the
/// metric functions at the offsets of `layout` (its sizes are the `-D` definitions of [`layout_defines`]).
pub fn summaries_module(spec: &SummarySpec, layout: &Layout) -> String {
    let mut out = String::from(
        "(* Summary chain of one solver program, generated by skc-ode (libs/ode/src/summaries/generate.rs). *)\n",
    );
    out.push_str("open Summary_layout\n");
    out.push_str("open Metrics\n");
    let units: Vec<String> = layout.units.iter().map(|(u, o)| format!("{} at {o}", u.name())).collect();
    writeln!(out, "(* Units per variable: {}. *)", units.join(", ")).unwrap();
    out.push_str(&variable_function(&spec.variables));

    out.push_str("\n(* Every unit of every variable starts its first window. *)\nlet summary_init buf =\n");
    out.push_str("  for i = 0 to summary_n_vars * summary_slots - 1 do\n    buf.(i) <- 0.0\n  done;\n");
    out.push_str("  for v = 0 to summary_n_vars - 1 do\n    let off = v * summary_slots in\n");
    let resets: Vec<String> = layout.units.iter().flat_map(|(u, o)| reset_calls(*u, &format!("off + {o}"))).collect();
    writeln!(out, "    {}", resets.join(";\n    ")).unwrap();
    out.push_str("  done\n");

    out.push_str(
        "\n(* One sample `k` of every variable, from the state `y`. *)\nlet summary_update y buf (k : int32) =\n",
    );
    out.push_str("  for v = 0 to summary_n_vars - 1 do\n    let x = y.(summary_var v) in\n");
    out.push_str("    let off = v * summary_slots in\n");
    let (h, second) = layout.history().unwrap_or((0, false));
    let h = format!("off + {h}");
    let updates: Vec<String> =
        layout.units.iter().map(|(u, o)| update_call(*u, &format!("off + {o}"), &h, second)).collect();
    writeln!(out, "    {}", updates.join(";\n    ")).unwrap();
    out.push_str("  done\n");

    out.push_str(
        "\n(* The outputs of a completed window (variables x outputs) at `first`, `stride` apart, then the next window\n   \
         starts. *)\nlet summary_flush buf out (first : int32) (stride : int32) =\n",
    );
    out.push_str("  for v = 0 to summary_n_vars - 1 do\n    let off = v * summary_slots in\n");
    out.push_str("    let o = first + v * summary_outputs * stride in\n");
    let mut stmts: Vec<String> = layout
        .columns
        .iter()
        .enumerate()
        .map(|(j, &(unit_index, part))| {
            let (unit, offset) = layout.units[unit_index];
            format!("out.(o + {j} * stride) <- {}", value_expr(unit, part, &format!("off + {offset}")))
        })
        .collect();
    stmts.extend(resets);
    writeln!(out, "    {}", stmts.join(";\n    ")).unwrap();
    out.push_str("  done\n");
    out
}
