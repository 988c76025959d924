//! The per-sample updates of `stdlib/metrics/metrics.sk` in float64, operation for operation, for the CPU
//! reference of the loop (`reference::driver`): the same running buffer, the same predicated updates (written
//! as `if` on the host, where branches cost nothing), the same flush and reset.

use super::{Layout, Part, SummarySpec, Unit};

const LOW: f64 = -1e30;
const HIGH: f64 = 1e30;

/// The running state of one run's summaries.
#[derive(Clone, Debug)]
pub struct SummaryState {
    layout: Layout,
    variables: Vec<usize>,
    per_window: usize,
    ds: f64,
    buf: Vec<f64>,
    /// Samples taken so far (the sample index of the next one).
    pub samples: usize,
}

fn keep_max(buf: &mut [f64], slot: usize, d: f64, ok: bool) {
    if ok && d > buf[slot] {
        buf[slot] = d;
    }
}

fn keep_min(buf: &mut [f64], slot: usize, d: f64, ok: bool) {
    if ok && d < buf[slot] {
        buf[slot] = d;
    }
}

/// The update of `unit` at `off`; `h` is the shared history's offset and `second` whether it holds prev2.
fn update(buf: &mut [f64], unit: Unit, off: usize, h: usize, second: bool, x: f64, k: usize) {
    match unit {
        Unit::Sum => buf[off] += x,
        Unit::SumSquares => buf[off] += x * x,
        Unit::Shifted => {
            let shift = if k == 0 { x } else { buf[off] };
            let d = x - shift;
            buf[off] = shift;
            buf[off + 1] += d;
            buf[off + 2] += d * d;
        }
        Unit::Extremes { max, min } => {
            if max {
                keep_max(buf, off, x, true);
            }
            if min {
                keep_min(buf, off + max as usize, x, true);
            }
        }
        Unit::MaxMagnitude => keep_max(buf, off, x.abs(), true),
        Unit::Peaks { k: np, negative } => {
            let sign = if negative { -1.0 } else { 1.0 };
            let x = sign * x;
            let first = k == 0;
            let prev = if first { x } else { sign * buf[h] };
            let last_different = if first { x } else { sign * buf[h + Unit::level_slot(second)] };
            let found = prev > x && last_different < prev;
            // The first empty slot, if any (slots fill in order, -1 when empty).
            if let Some(j) = (0..np as usize).find(|&j| buf[off + j] < 0.0) {
                if found {
                    buf[off + j] = k as f64 - 1.0;
                }
            }
        }
        Unit::Dxdt { max, min } => {
            let d = x - buf[h];
            if max {
                keep_max(buf, off, d, k >= 1);
            }
            if min {
                keep_min(buf, off + max as usize, d, k >= 1);
            }
        }
        Unit::D2xdt2 { max, min } => {
            let d = x - 2.0 * buf[h] + buf[h + 1];
            if max {
                keep_max(buf, off, d, k >= 2);
            }
            if min {
                keep_min(buf, off + max as usize, d, k >= 2);
            }
        }
        Unit::History { second, level } => {
            let prev = buf[off];
            if level {
                let lv = off + Unit::level_slot(second);
                buf[lv] = if k == 0 {
                    x
                } else if x != prev {
                    prev
                } else {
                    buf[lv]
                };
            }
            if second {
                buf[off + 1] = prev;
            }
            buf[off] = x;
        }
    }
}

fn reset(buf: &mut [f64], unit: Unit, off: usize, n: usize) {
    let extremes = |buf: &mut [f64], max: bool, min: bool| {
        if max {
            buf[off] = LOW;
        }
        if min {
            buf[off + max as usize] = HIGH;
        }
    };
    match unit {
        Unit::Sum | Unit::SumSquares | Unit::MaxMagnitude => buf[off] = 0.0,
        Unit::Shifted => {
            buf[off] = shifted_mean(buf, off, n);
            buf[off + 1] = 0.0;
            buf[off + 2] = 0.0;
        }
        Unit::Extremes { max, min } | Unit::Dxdt { max, min } | Unit::D2xdt2 { max, min } => extremes(buf, max, min),
        Unit::Peaks { k, .. } => buf[off..off + k as usize].fill(-1.0),
        // Carries across windows.
        Unit::History { .. } => {}
    }
}

fn shifted_mean(buf: &[f64], off: usize, n: usize) -> f64 {
    buf[off] + buf[off + 1] / n as f64
}

fn value(buf: &[f64], unit: Unit, part: Part, off: usize, n: usize, ds: f64) -> f64 {
    let inv = 1.0 / n as f64;
    match (unit, part) {
        (Unit::Sum, Part::Mean) => buf[off] / n as f64,
        (Unit::SumSquares, Part::Rms) => (buf[off] / n as f64).sqrt(),
        (Unit::Shifted, Part::Mean) => shifted_mean(buf, off, n),
        (Unit::Shifted, Part::Std) => {
            let m = buf[off + 1] * inv;
            (buf[off + 2] * inv - m * m).max(0.0).sqrt()
        }
        (Unit::Shifted, Part::Rms) => {
            let shift = buf[off];
            (buf[off + 2] * inv + 2.0 * shift * buf[off + 1] * inv + shift * shift).max(0.0).sqrt()
        }
        (Unit::Extremes { .. }, Part::Max) | (Unit::MaxMagnitude, Part::MaxMagnitude) => buf[off],
        (Unit::Extremes { max: true, min: true }, Part::MaxMagnitude) => buf[off].max(-buf[off + 1]),
        (Unit::Extremes { max, .. }, Part::Min) => buf[off + max as usize],
        (Unit::Peaks { .. }, Part::Peak(j) | Part::NegativePeak(j)) => buf[off + j as usize],
        (Unit::Dxdt { .. }, Part::DxdtMax) => buf[off] / ds,
        (Unit::Dxdt { max, .. }, Part::DxdtMin) => buf[off + max as usize] / ds,
        (Unit::D2xdt2 { .. }, Part::D2xdt2Max) => buf[off] / (ds * ds),
        (Unit::D2xdt2 { max, .. }, Part::D2xdt2Min) => buf[off + max as usize] / (ds * ds),
        (unit, part) => unreachable!("{part:?} is not read from {unit:?}"),
    }
}

impl SummaryState {
    pub fn new(spec: &SummarySpec) -> SummaryState {
        let layout = Layout::of(spec);
        let n_vars = spec.variables.len();
        let mut state = SummaryState {
            buf: vec![0.0; n_vars * layout.slots],
            layout,
            variables: spec.variables.clone(),
            per_window: spec.per_window(),
            ds: spec.sample_every,
            samples: 0,
        };
        for v in 0..n_vars {
            state.reset_variable(v);
        }
        state
    }

    fn reset_variable(&mut self, v: usize) {
        let base = v * self.layout.slots;
        for &(unit, off) in &self.layout.units {
            reset(&mut self.buf, unit, base + off, self.per_window);
        }
    }

    /// One sample of the state `y`; returns the window's outputs (variables x outputs) when it completes one.
    pub fn sample(&mut self, y: &[f64]) -> Option<Vec<f64>> {
        let k = self.samples;
        let (h, second) = self.layout.history().unwrap_or((0, false));
        for (v, &index) in self.variables.iter().enumerate() {
            let base = v * self.layout.slots;
            for &(unit, off) in &self.layout.units {
                update(&mut self.buf, unit, base + off, base + h, second, y[index], k);
            }
        }
        self.samples += 1;
        if !self.samples.is_multiple_of(self.per_window) {
            return None;
        }
        let mut row = Vec::with_capacity(self.variables.len() * self.layout.outputs.len());
        for v in 0..self.variables.len() {
            let base = v * self.layout.slots;
            for output in &self.layout.outputs {
                let (unit, off) = self.layout.units[output.unit];
                row.push(value(&self.buf, unit, output.part, base + off, self.per_window, self.ds));
            }
            self.reset_variable(v);
        }
        Some(row)
    }
}
