//! Every metric recomputed from a saved trajectory, in float32 or float64: the oracle of the summary tests. It
//! shares no code with the streaming updates (`stream`, `metrics.sk`): means and sums are plain sums over the
//! window, the standard deviation is two-pass, peaks are found by looking back over plateaus, differences are
//! taken between stored samples.
//!
//! The samples must be in the trajectory: `save_every = sample_every` and a settling time that is a whole
//! number of samples, so summary sample `k` is saved sample `settling / ds + k + 1`.

use std::ops::{Add, Div, Mul, Sub};

use super::{Layout, Part, SummarySpec};

/// The float types the recomputation runs in.
pub trait Float:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Send + Sync
{
    fn of(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
}

impl Float for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn abs(self) -> Self {
        f32::abs(self)
    }
}

impl Float for f64 {
    fn of(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

/// Why a trajectory cannot serve as the oracle.
#[derive(Clone, Debug, PartialEq)]
pub struct NotRecomputable(pub String);

/// The saved-sample index of summary sample 0.
pub fn first_saved_sample(spec: &SummarySpec, save_every: f64) -> Result<usize, NotRecomputable> {
    if save_every != spec.sample_every {
        return Err(NotRecomputable(format!(
            "saves every {save_every} do not hold the summary samples (every {})",
            spec.sample_every
        )));
    }
    let s = (spec.settling / spec.sample_every).round();
    if (s * spec.sample_every - spec.settling).abs() > 1e-12 * spec.settling.max(1.0) {
        return Err(NotRecomputable(format!("settling {} is not a whole number of samples", spec.settling)));
    }
    Ok(s as usize + 1)
}

/// Indices `j` (into `x`) of local maxima detected by sample `j + 1`: `x[j] > x[j + 1]` and the value before
/// the plateau that ends at `j` is below it (a plateau at the start is no peak).
fn is_peak<T: Float>(x: &[T], j: usize) -> bool {
    if j + 1 >= x.len() || x[j] <= x[j + 1] {
        return false;
    }
    let mut i = j;
    while i > 0 && x[i - 1] == x[j] {
        i -= 1;
    }
    i > 0 && x[i - 1] < x[j]
}

/// The recomputed summaries of one run: `windows x (variables x outputs)`, and for each value the magnitude
/// of its window's samples (`max |x|`), which scales the tolerance of sums.
#[derive(Clone, Debug, PartialEq)]
pub struct Recomputed<T> {
    pub values: Vec<T>,
    pub magnitude: Vec<f64>,
}

/// The summaries of one run from its saved samples (`n_saves x n_states`). Windows with a NaN sample
/// (a failed run is NaN-masked) are NaN.
pub fn recompute<T: Float>(
    spec: &SummarySpec,
    duration: f64,
    saves: &[T],
    n_states: usize,
    save_every: f64,
) -> Result<Recomputed<T>, NotRecomputable> {
    let layout = Layout::of(spec);
    let first = first_saved_sample(spec, save_every)?;
    let m = spec.per_window();
    let windows = spec.n_windows(duration);
    let samples = windows * m;
    if (first + samples) * n_states > saves.len() {
        return Err(NotRecomputable(format!(
            "{} saved samples, the summaries need {}",
            saves.len() / n_states.max(1),
            first + samples
        )));
    }
    let nan = T::of(f64::NAN);
    let mut out = Vec::with_capacity(windows * spec.variables.len() * layout.outputs.len());
    let mut magnitude = Vec::with_capacity(out.capacity());
    for w in 0..windows {
        for &var in &spec.variables {
            let x: Vec<T> = (0..samples).map(|k| saves[(first + k) * n_states + var]).collect();
            let range = w * m..(w + 1) * m;
            let no_nan = x[range.clone()].iter().all(|v| !v.to_f64().is_nan());
            let size = x[range.clone()].iter().fold(0.0f64, |acc, v| acc.max(v.to_f64().abs()));
            for output in &layout.outputs {
                magnitude.push(size);
                out.push(if no_nan { value(&x, range.clone(), output.part, spec.sample_every) } else { nan });
            }
        }
    }
    Ok(Recomputed { values: out, magnitude })
}

fn value<T: Float>(x: &[T], range: std::ops::Range<usize>, part: Part, ds: f64) -> T {
    let n = T::of(range.len() as f64);
    let window = &x[range.clone()];
    let sum = |f: &dyn Fn(T) -> T| window.iter().fold(T::of(0.0), |acc, v| acc + f(*v));
    let mean = sum(&|v| v) / n;
    let fold =
        |init: T, pick: &dyn Fn(T, T) -> T, f: &dyn Fn(T) -> T| window.iter().fold(init, |acc, v| pick(acc, f(*v)));
    let larger = |a: T, b: T| if b > a { b } else { a };
    let smaller = |a: T, b: T| if b < a { b } else { a };
    // Differences ending at each sample of the window that has enough history (k >= 1, k >= 2 overall).
    let d1: Vec<T> = range.clone().filter(|&k| k >= 1).map(|k| x[k] - x[k - 1]).collect();
    let d2: Vec<T> = range.clone().filter(|&k| k >= 2).map(|k| x[k] - T::of(2.0) * x[k - 1] + x[k - 2]).collect();
    let extreme = |d: &[T], max: bool| {
        d.iter()
            .fold(T::of(if max { -1e30 } else { 1e30 }), |acc, v| if max { larger(acc, *v) } else { smaller(acc, *v) })
    };
    // Peaks detected by the window's samples, in order: sample k detects a peak at k - 1.
    let peaks = |negative: bool, j: u32| {
        let y: Vec<T> = if negative { x.iter().map(|v| T::of(0.0) - *v).collect() } else { x.to_vec() };
        let found: Vec<usize> = range.clone().filter(|&k| k >= 1 && is_peak(&y, k - 1)).map(|k| k - 1).collect();
        found.get(j as usize).map(|i| T::of(*i as f64)).unwrap_or(T::of(-1.0))
    };
    match part {
        Part::Mean => mean,
        Part::Std => (sum(&|v| (v - mean) * (v - mean)) / n).sqrt(),
        Part::Rms => (sum(&|v| v * v) / n).sqrt(),
        Part::Max => fold(T::of(-1e30), &larger, &|v| v),
        Part::Min => fold(T::of(1e30), &smaller, &|v| v),
        Part::MaxMagnitude => fold(T::of(0.0), &larger, &|v| v.abs()),
        Part::Peak(j) => peaks(false, j),
        Part::NegativePeak(j) => peaks(true, j),
        Part::DxdtMax => extreme(&d1, true) / T::of(ds),
        Part::DxdtMin => extreme(&d1, false) / T::of(ds),
        Part::D2xdt2Max => extreme(&d2, true) / T::of(ds * ds),
        Part::D2xdt2Min => extreme(&d2, false) / T::of(ds * ds),
    }
}

/// Whether a part is a selection of sample values or of differences of stored samples (max, min, peaks,
/// derivatives): computed from the same values in the same precision, it must match exactly; means, standard
/// deviations and rms values are sums, whose rounding depends on the order.
pub fn is_exact(part: Part) -> bool {
    !matches!(part, Part::Mean | Part::Std | Part::Rms)
}

/// Compares summaries (`windows x (variables x outputs)` rows of one run) with the recomputation: exact parts
/// bit for bit (NaN equals NaN); with `s = 1 + max |x|` over the window, means and rms values within `tol s`,
/// standard deviations as variances within `tol s^2` (the running shifted sums lose `eps s^2` of the variance
/// to cancellation, which a small deviation cannot hide). Returns the number of values compared, or the first
/// mismatches.
pub fn compare<T: Float>(
    spec: &SummarySpec,
    actual: &[T],
    recomputed: &Recomputed<T>,
    tol: f64,
    label: &str,
) -> Result<usize, String> {
    let expected = &recomputed.values;
    let layout = Layout::of(spec);
    let names = layout.names(spec);
    if actual.len() != expected.len() {
        return Err(format!("{label}: {} summary values, expected {}", actual.len(), expected.len()));
    }
    let mut errors = Vec::new();
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let column = i % names.len();
        let part = layout.outputs[column % layout.outputs.len()].part;
        let (a, e) = (a.to_f64(), e.to_f64());
        let same = if a.is_nan() || e.is_nan() {
            a.is_nan() && e.is_nan()
        } else if is_exact(part) {
            a == e
        } else {
            let s = 1.0 + recomputed.magnitude[i];
            match part {
                Part::Std => (a * a - e * e).abs() <= tol * s * s,
                _ => (a - e).abs() <= tol * s,
            }
        };
        if !same && errors.len() < 10 {
            errors.push(format!("{label}: row {} {}: {a} != {e}", i / names.len(), names[column]));
        }
    }
    if errors.is_empty() {
        Ok(actual.len())
    } else {
        Err(errors.join("\n"))
    }
}
