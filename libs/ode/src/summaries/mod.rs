//! Summary metrics computed inside the integration loop: what is asked for ([`SummarySpec`]: metrics,
//! variables, sample spacing, window length, settling time), how it is stored ([`Layout`]: the chain of storage
//! units per variable, fused when all parts of a fused metric are requested, and the outputs), the `.sk` module
//! generated for a solver (`generate`: the chain and its layout as compile-time constants, calling the metric
//! functions of `stdlib/metrics/metrics.sk`), the same per-sample updates in float64 for the CPU reference of the
//! loop (`stream`), and the recomputation of every metric from a saved trajectory (`recompute`), the oracle of the
//! tests.
//!
//! Sampling: summary samples are taken at `t_start + (k + 1) ds` for `k = 0 .. K - 1`, where `t_start = t0 +
//! settling` and `ds = sample_every` (the loop lands steps on these times, as on save times). Window `w` holds
//! samples `w m .. (w + 1) m - 1` (`m = summarise_every / sample_every`, a whole number), so it covers the time
//! interval `(t_start + w T, t_start + (w + 1) T]`; there are `W = floor((duration - settling) / T)` windows
//! and `K = W m` samples. A run that fails has NaN in every window it did not complete.

pub mod generate;
pub mod recompute;
pub mod stream;

use std::fmt;

/// One of the 18 metrics of the notes (CuBIE's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    Mean,
    Max,
    Min,
    Rms,
    Std,
    MeanStd,
    StdRms,
    MeanStdRms,
    Extrema,
    MaxMagnitude,
    /// The sample indices of the first `k` local maxima of a window.
    Peaks(u32),
    /// The sample indices of the first `k` local minima of a window.
    NegativePeaks(u32),
    DxdtMax,
    DxdtMin,
    DxdtExtrema,
    D2xdt2Max,
    D2xdt2Min,
    D2xdt2Extrema,
}

/// One output value of a metric, per variable and window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Mean,
    Std,
    Rms,
    Max,
    Min,
    MaxMagnitude,
    Peak(u32),
    NegativePeak(u32),
    DxdtMax,
    DxdtMin,
    D2xdt2Max,
    D2xdt2Min,
}

impl Metric {
    /// Every metric, peaks with `k` slots.
    pub fn all(k: u32) -> Vec<Metric> {
        use Metric::*;
        vec![
            Mean,
            Max,
            Min,
            Rms,
            Std,
            MeanStd,
            StdRms,
            MeanStdRms,
            Extrema,
            MaxMagnitude,
            Peaks(k),
            NegativePeaks(k),
            DxdtMax,
            DxdtMin,
            DxdtExtrema,
            D2xdt2Max,
            D2xdt2Min,
            D2xdt2Extrema,
        ]
    }

    pub fn name(self) -> String {
        use Metric::*;
        match self {
            Mean => "mean".into(),
            Max => "max".into(),
            Min => "min".into(),
            Rms => "rms".into(),
            Std => "std".into(),
            MeanStd => "mean_std".into(),
            StdRms => "std_rms".into(),
            MeanStdRms => "mean_std_rms".into(),
            Extrema => "extrema".into(),
            MaxMagnitude => "max_magnitude".into(),
            Peaks(k) => format!("peaks[{k}]"),
            NegativePeaks(k) => format!("negative_peaks[{k}]"),
            DxdtMax => "dxdt_max".into(),
            DxdtMin => "dxdt_min".into(),
            DxdtExtrema => "dxdt_extrema".into(),
            D2xdt2Max => "d2xdt2_max".into(),
            D2xdt2Min => "d2xdt2_min".into(),
            D2xdt2Extrema => "d2xdt2_extrema".into(),
        }
    }

    /// `mean`, `peaks[3]`, ... (the names of [`Metric::name`]).
    pub fn parse(text: &str) -> Option<Metric> {
        let text = text.trim();
        for (prefix, make) in
            [("peaks[", Metric::Peaks as fn(u32) -> Metric), ("negative_peaks[", Metric::NegativePeaks)]
        {
            if let Some(rest) = text.strip_prefix(prefix) {
                return rest.strip_suffix(']')?.parse().ok().filter(|k| *k > 0).map(make);
            }
        }
        Metric::all(1)
            .into_iter()
            .find(|m| !matches!(m, Metric::Peaks(_) | Metric::NegativePeaks(_)) && m.name() == text)
    }

    /// The outputs of the metric, with their names after the metric's (empty for a single output).
    pub fn parts(self) -> Vec<(String, Part)> {
        use Part as P;
        let one = |p: Part| vec![(String::new(), p)];
        let named = |list: &[(&str, Part)]| list.iter().map(|(n, p)| (n.to_string(), *p)).collect();
        match self {
            Metric::Mean => one(P::Mean),
            Metric::Max => one(P::Max),
            Metric::Min => one(P::Min),
            Metric::Rms => one(P::Rms),
            Metric::Std => one(P::Std),
            Metric::MeanStd => named(&[("mean", P::Mean), ("std", P::Std)]),
            Metric::StdRms => named(&[("std", P::Std), ("rms", P::Rms)]),
            Metric::MeanStdRms => named(&[("mean", P::Mean), ("std", P::Std), ("rms", P::Rms)]),
            Metric::Extrema => named(&[("max", P::Max), ("min", P::Min)]),
            Metric::MaxMagnitude => one(P::MaxMagnitude),
            Metric::Peaks(k) => (0..k).map(|j| (j.to_string(), P::Peak(j))).collect(),
            Metric::NegativePeaks(k) => (0..k).map(|j| (j.to_string(), P::NegativePeak(j))).collect(),
            Metric::DxdtMax => one(P::DxdtMax),
            Metric::DxdtMin => one(P::DxdtMin),
            Metric::DxdtExtrema => named(&[("max", P::DxdtMax), ("min", P::DxdtMin)]),
            Metric::D2xdt2Max => one(P::D2xdt2Max),
            Metric::D2xdt2Min => one(P::D2xdt2Min),
            Metric::D2xdt2Extrema => named(&[("max", P::D2xdt2Max), ("min", P::D2xdt2Min)]),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// What to summarise and how often.
#[derive(Clone, Debug, PartialEq)]
pub struct SummarySpec {
    /// In request order; outputs follow it.
    pub metrics: Vec<Metric>,
    /// The summarised state variables (indices into the state), in output order.
    pub variables: Vec<usize>,
    /// Names of the state variables for the output names (`x.mean`); empty: `y0`, `y1`, ...
    pub state_names: Vec<String>,
    /// Sample spacing `ds`.
    pub sample_every: f64,
    /// Window length `T`, a whole multiple of `ds`.
    pub summarise_every: f64,
    /// No samples before `t0 + settling`.
    pub settling: f64,
}

/// A summary setting no kernel may run with.
#[derive(Clone, Debug, PartialEq)]
pub enum SummaryError {
    NoMetrics,
    NoVariables,
    Variable { index: usize, n_states: usize },
    DuplicateVariable(usize),
    Spacing { sample_every: f64, summarise_every: f64 },
    Settling(f64),
}

impl fmt::Display for SummaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SummaryError::NoMetrics => write!(f, "summaries need at least one metric"),
            SummaryError::NoVariables => write!(f, "summaries need at least one variable"),
            SummaryError::Variable { index, n_states } => {
                write!(f, "summarised variable {index} does not exist (the system has {n_states} states)")
            }
            SummaryError::DuplicateVariable(index) => write!(f, "variable {index} is summarised twice"),
            SummaryError::Spacing { sample_every, summarise_every } => write!(
                f,
                "summarise_every ({summarise_every}) must be a positive whole multiple of sample_every \
                 ({sample_every})"
            ),
            SummaryError::Settling(s) => write!(f, "the settling time must be finite and not negative, not {s}"),
        }
    }
}

impl std::error::Error for SummaryError {}

impl SummarySpec {
    /// Every variable of `0..n` with the given metrics, sampled every `ds` in windows of `T`.
    pub fn new(metrics: Vec<Metric>, variables: Vec<usize>, sample_every: f64, summarise_every: f64) -> SummarySpec {
        SummarySpec { metrics, variables, state_names: Vec::new(), sample_every, summarise_every, settling: 0.0 }
    }

    /// Samples per window, `m`.
    pub fn per_window(&self) -> usize {
        (self.summarise_every / self.sample_every).round().max(0.0) as usize
    }

    /// Whole windows in a run of `duration`: `floor((duration - settling) / T)` (within 1e-9).
    pub fn n_windows(&self, duration: f64) -> usize {
        let span = duration - self.settling;
        if span <= 0.0 {
            return 0;
        }
        (span / self.summarise_every * (1.0 + 1e-9)).floor() as usize
    }

    /// The time of sample `k` (before snapping to the end): `t0 + settling + (k + 1) ds`.
    pub fn sample_time(&self, t0: f64, t_end: f64, k: usize) -> f64 {
        let t = t0 + self.settling + (k + 1) as f64 * self.sample_every;
        if t >= t_end - 1e-9 * self.sample_every {
            t_end
        } else {
            t
        }
    }

    pub fn validate(&self, n_states: usize) -> Result<(), SummaryError> {
        if self.metrics.is_empty() {
            return Err(SummaryError::NoMetrics);
        }
        if self.variables.is_empty() {
            return Err(SummaryError::NoVariables);
        }
        for (i, &v) in self.variables.iter().enumerate() {
            if v >= n_states {
                return Err(SummaryError::Variable { index: v, n_states });
            }
            if self.variables[..i].contains(&v) {
                return Err(SummaryError::DuplicateVariable(v));
            }
        }
        let (ds, t) = (self.sample_every, self.summarise_every);
        let m = self.per_window();
        let whole = m >= 1 && (m as f64 * ds - t).abs() <= 1e-9 * t;
        if !(ds.is_finite() && ds > 0.0 && t.is_finite() && t > 0.0 && whole) {
            return Err(SummaryError::Spacing { sample_every: ds, summarise_every: t });
        }
        if !self.settling.is_finite() || self.settling < 0.0 {
            return Err(SummaryError::Settling(self.settling));
        }
        Ok(())
    }

    /// The name of state variable `index`.
    pub fn state_name(&self, index: usize) -> String {
        self.state_names.get(index).cloned().unwrap_or_else(|| format!("y{index}"))
    }
}

/// A storage unit of the chain: the running state one or more requested outputs are computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// mean alone: [sum].
    Sum,
    /// rms alone: [sum of squares].
    SumSquares,
    /// std, or mean/rms with std (mean_std, std_rms, mean_std_rms): [shift, sum d, sum d^2].
    Shifted,
    /// max, min, or both (extrema): [max], [min], [max, min].
    Extremes { max: bool, min: bool },
    /// max_magnitude alone: [max |x|]. With extrema it is max(max, -min) and has no unit of its own.
    MaxMagnitude,
    /// [k indices], -1 when empty; `negative`: local minima. Reads prev and level of [`Unit::History`].
    Peaks { k: u32, negative: bool },
    /// [max], [min] or [max, min]. Reads prev of [`Unit::History`].
    Dxdt { max: bool, min: bool },
    /// [max], [min] or [max, min]. Reads prev and prev2 of [`Unit::History`].
    D2xdt2 { max: bool, min: bool },
    /// The previous samples, one copy shared by peaks, negative_peaks and the differences: [prev, prev2 (with
    /// `second`), level (with `level`: the last value different from prev, the level before a plateau)].
    /// Always the last unit, so that it is updated after every unit that reads it.
    History { second: bool, level: bool },
}

impl Unit {
    pub fn slots(self) -> usize {
        match self {
            Unit::Sum | Unit::SumSquares | Unit::MaxMagnitude => 1,
            Unit::Shifted => 3,
            Unit::Extremes { max, min } | Unit::Dxdt { max, min } | Unit::D2xdt2 { max, min } => {
                max as usize + min as usize
            }
            Unit::Peaks { k, .. } => k as usize,
            Unit::History { second, level } => 1 + second as usize + level as usize,
        }
    }

    /// The slot of the level (last different value) in a [`Unit::History`], relative to its offset.
    pub fn level_slot(second: bool) -> usize {
        1 + second as usize
    }

    /// The fused metric's name this unit stands for (for reports).
    pub fn name(self) -> String {
        match self {
            Unit::Sum => "mean".into(),
            Unit::SumSquares => "rms".into(),
            Unit::Shifted => "mean_std_rms (shifted sums)".into(),
            Unit::Extremes { max: true, min: true } => "extrema".into(),
            Unit::Extremes { max, .. } => if max { "max" } else { "min" }.into(),
            Unit::MaxMagnitude => "max_magnitude".into(),
            Unit::Peaks { k, negative } => format!("{}peaks[{k}]", if negative { "negative_" } else { "" }),
            Unit::Dxdt { max: true, min: true } => "dxdt_extrema".into(),
            Unit::Dxdt { max, .. } => if max { "dxdt_max" } else { "dxdt_min" }.into(),
            Unit::D2xdt2 { max: true, min: true } => "d2xdt2_extrema".into(),
            Unit::D2xdt2 { max, .. } => if max { "d2xdt2_max" } else { "d2xdt2_min" }.into(),
            Unit::History { .. } => "previous samples (shared)".into(),
        }
    }
}

/// One output per variable and window: its name suffix (`mean`, `extrema.max`, `peaks[2].1`), the part, and
/// the unit it is read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub name: String,
    pub part: Part,
    pub unit: usize,
    /// Its column among the values the device writes per variable ([`Layout::columns`]).
    pub column: usize,
}

/// The chain for a [`SummarySpec`]: the units of one variable with their offsets, the outputs in request
/// order, and the distinct values the device writes (`columns`: a part requested by several metrics, `mean` by
/// mean, mean_std and mean_std_rms, is computed and written once). The same for every variable; variable `v`'s
/// segment starts at `v * slots`.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub units: Vec<(Unit, usize)>,
    pub slots: usize,
    pub outputs: Vec<Output>,
    /// (unit, part) of each value written per variable and window.
    pub columns: Vec<(usize, Part)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Moments,
    Extremes,
    MaxMagnitude,
    Peaks,
    NegativePeaks,
    Dxdt,
    D2xdt2,
}

fn group_of(part: Part) -> Group {
    match part {
        Part::Mean | Part::Std | Part::Rms => Group::Moments,
        Part::Max | Part::Min => Group::Extremes,
        Part::MaxMagnitude => Group::MaxMagnitude,
        Part::Peak(_) => Group::Peaks,
        Part::NegativePeak(_) => Group::NegativePeaks,
        Part::DxdtMax | Part::DxdtMin => Group::Dxdt,
        Part::D2xdt2Max | Part::D2xdt2Min => Group::D2xdt2,
    }
}

impl Layout {
    /// Chooses the chain: one unit per group of parts, in order of first request. The parts requested of a
    /// group decide its unit, so all parts of a fused metric use the fused one (`mean` + `std` -> the shifted
    /// sums of mean_std, `max` + `min` -> extrema, `dxdt_max` + `dxdt_min` -> dxdt_extrema, ...); `mean` with
    /// `rms` and no `std` keeps two single sums (2 slots instead of 3).
    pub fn of(spec: &SummarySpec) -> Layout {
        let mut order: Vec<Group> = Vec::new();
        let mut parts: Vec<Part> = Vec::new();
        let mut outputs = Vec::new();
        for metric in &spec.metrics {
            let metric_parts = metric.parts();
            for (suffix, part) in metric_parts {
                let group = group_of(part);
                if !order.contains(&group) {
                    order.push(group);
                }
                parts.push(part);
                let name = if suffix.is_empty() { metric.name() } else { format!("{}.{suffix}", metric.name()) };
                outputs.push((name, part, group));
            }
        }
        let has = |p: Part| parts.contains(&p);
        let peaks_k = |negative: bool| {
            parts
                .iter()
                .filter_map(|p| match (p, negative) {
                    (Part::Peak(j), false) | (Part::NegativePeak(j), true) => Some(j + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        let mut units = Vec::new();
        let mut offset = 0;
        for group in &order {
            let unit = match group {
                Group::Moments if has(Part::Std) => Unit::Shifted,
                Group::Moments if has(Part::Mean) => Unit::Sum,
                Group::Moments => Unit::SumSquares,
                Group::Extremes => Unit::Extremes { max: has(Part::Max), min: has(Part::Min) },
                // max(max, -min) is max |x| exactly: no slot of its own next to extrema.
                Group::MaxMagnitude if has(Part::Max) && has(Part::Min) => continue,
                Group::MaxMagnitude => Unit::MaxMagnitude,
                Group::Peaks => Unit::Peaks { k: peaks_k(false), negative: false },
                Group::NegativePeaks => Unit::Peaks { k: peaks_k(true), negative: true },
                Group::Dxdt => Unit::Dxdt { max: has(Part::DxdtMax), min: has(Part::DxdtMin) },
                Group::D2xdt2 => Unit::D2xdt2 { max: has(Part::D2xdt2Max), min: has(Part::D2xdt2Min) },
            };
            units.push((unit, offset));
            offset += unit.slots();
            // mean and rms without std: a second single sum for rms.
            if *group == Group::Moments && unit == Unit::Sum && has(Part::Rms) {
                units.push((Unit::SumSquares, offset));
                offset += 1;
            }
        }
        let level = order.contains(&Group::Peaks) || order.contains(&Group::NegativePeaks);
        let second = order.contains(&Group::D2xdt2);
        if level || second || order.contains(&Group::Dxdt) {
            let history = Unit::History { second, level };
            units.push((history, offset));
            offset += history.slots();
        }
        let outputs = outputs
            .into_iter()
            .map(|(name, part, group)| {
                let unit =
                    units.iter().position(|(u, _)| Self::unit_serves(*u, group, part)).expect("every part has a unit");
                Output { name, part, unit, column: 0 }
            })
            .collect::<Vec<_>>();
        let mut columns: Vec<(usize, Part)> = Vec::new();
        let outputs = outputs
            .into_iter()
            .map(|mut o| {
                o.column = columns.iter().position(|c| *c == (o.unit, o.part)).unwrap_or_else(|| {
                    columns.push((o.unit, o.part));
                    columns.len() - 1
                });
                o
            })
            .collect();
        Layout { units, slots: offset, outputs, columns }
    }

    /// For each output of [`Layout::names`] (variables x outputs), its column among the device's values
    /// (variables x columns).
    pub fn device_columns(&self, n_vars: usize) -> Vec<usize> {
        (0..n_vars).flat_map(|v| self.outputs.iter().map(move |o| v * self.columns.len() + o.column)).collect()
    }

    /// The offset of the shared [`Unit::History`] and its `second` flag, when the chain has one.
    pub fn history(&self) -> Option<(usize, bool)> {
        self.units.iter().find_map(|&(u, o)| match u {
            Unit::History { second, .. } => Some((o, second)),
            _ => None,
        })
    }

    fn unit_group(unit: Unit) -> Option<Group> {
        match unit {
            Unit::Sum | Unit::SumSquares | Unit::Shifted => Some(Group::Moments),
            Unit::Extremes { .. } => Some(Group::Extremes),
            Unit::MaxMagnitude => Some(Group::MaxMagnitude),
            Unit::Peaks { negative: false, .. } => Some(Group::Peaks),
            Unit::Peaks { negative: true, .. } => Some(Group::NegativePeaks),
            Unit::Dxdt { .. } => Some(Group::Dxdt),
            Unit::D2xdt2 { .. } => Some(Group::D2xdt2),
            Unit::History { .. } => None,
        }
    }

    /// Whether `unit` computes `part` (of `group`): max_magnitude comes from extrema with both parts.
    fn unit_serves(unit: Unit, group: Group, part: Part) -> bool {
        match unit {
            Unit::Sum => part == Part::Mean,
            Unit::SumSquares => part == Part::Rms,
            Unit::Extremes { max: true, min: true } if part == Part::MaxMagnitude => true,
            _ => Self::unit_group(unit) == Some(group),
        }
    }

    /// Output names per variable and output, `x.mean`, in the order of the device's output rows.
    pub fn names(&self, spec: &SummarySpec) -> Vec<String> {
        let mut out = Vec::new();
        for &v in &spec.variables {
            for o in &self.outputs {
                out.push(format!("{}.{}", spec.state_name(v), o.name));
            }
        }
        out
    }
}

/// Summaries of a batch as host arrays: `values` is runs x windows x (variables x outputs), row-major; look a
/// series up by name (`x.mean`, `y.extrema.max`, `x.peaks[3].0`).
#[derive(Clone, Debug, PartialEq)]
pub struct Summaries<T> {
    pub n_runs: usize,
    pub n_windows: usize,
    pub names: Vec<String>,
    pub values: Vec<T>,
}

/// Runs per tile of [`Summaries::from_device`]'s transpose: 64 runs of float32 are four cache lines per output.
const TILE_RUNS: usize = 64;

impl<T: Copy> Summaries<T> {
    /// From the device's layout, windows x (variables x columns) x runs (the run fastest, so flushes coalesce),
    /// with `columns[i]` the device column of output `i` ([`Layout::device_columns`]).
    ///
    /// A transpose of up to gigabytes (all 18 metrics of 2^20 runs are 3.6 GB in float32), so it is tiled and
    /// parallel. Read one run at a time, the device layout is a power-of-two stride (`n_runs` elements) between
    /// the outputs of a run: every read misses, the lines alias in the same cache sets, and 2^20 runs took ten
    /// seconds. Tiles of [`TILE_RUNS`] runs read each output's values of the tile as one contiguous slice and
    /// write them into the tile's rows, which stay in cache; threads take contiguous ranges of runs.
    pub fn from_device(n_runs: usize, n_windows: usize, names: Vec<String>, columns: &[usize], device: &[T]) -> Self
    where
        T: Send + Sync,
    {
        let device_width = columns.iter().max().map_or(0, |c| c + 1);
        let row = n_windows * columns.len();
        let Some(&fill) = device.first() else {
            return Summaries { n_runs, n_windows, names, values: Vec::new() };
        };
        let mut values = vec![fill; n_runs * row];
        if row == 0 {
            return Summaries { n_runs, n_windows, names, values };
        }
        let threads =
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(n_runs.div_ceil(TILE_RUNS)).max(1);
        let runs_per_thread = n_runs.div_ceil(threads).div_ceil(TILE_RUNS) * TILE_RUNS;
        std::thread::scope(|scope| {
            for (t, out) in values.chunks_mut(runs_per_thread * row).enumerate() {
                let first = t * runs_per_thread;
                scope.spawn(move || {
                    let runs = out.len() / row;
                    for tile in (0..runs).step_by(TILE_RUNS) {
                        let tile_runs = TILE_RUNS.min(runs - tile);
                        for w in 0..n_windows {
                            for (i, &c) in columns.iter().enumerate() {
                                let start = (w * device_width + c) * n_runs + first + tile;
                                let column = w * columns.len() + i;
                                for (k, &v) in device[start..start + tile_runs].iter().enumerate() {
                                    out[(tile + k) * row + column] = v;
                                }
                            }
                        }
                    }
                });
            }
        });
        Summaries { n_runs, n_windows, names, values }
    }

    /// The column of a name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Run x window values of one output (`runs x windows`, row-major).
    pub fn series(&self, name: &str) -> Option<Vec<T>> {
        let c = self.column(name)?;
        let width = self.names.len();
        Some((0..self.n_runs * self.n_windows).map(|rw| self.values[rw * width + c]).collect())
    }

    pub fn value(&self, run: usize, window: usize, column: usize) -> T {
        self.values[(run * self.n_windows + window) * self.names.len() + column]
    }
}

#[cfg(test)]
mod tests {
    use super::Summaries;

    /// The tiled, parallel transpose gives what reading the device layout one value at a time gives, for run counts
    /// that are and are not multiples of the tile, with columns in another order than the device's and one left out.
    #[test]
    fn from_device_is_the_transpose_of_the_device_layout() {
        let (n_windows, device_width) = (3, 5);
        let columns = [4, 0, 2, 3];
        for n_runs in [1, 63, 64, 65, 1000, 4099] {
            let device: Vec<u32> = (0..(n_windows * device_width * n_runs) as u32).collect();
            let names = vec![String::new(); columns.len()];
            let got = Summaries::from_device(n_runs, n_windows, names, &columns, &device);
            let mut expected = Vec::new();
            for run in 0..n_runs {
                for w in 0..n_windows {
                    expected.extend(columns.iter().map(|c| device[(w * device_width + c) * n_runs + run]));
                }
            }
            assert_eq!(got.values, expected, "{n_runs} runs");
        }
    }
}
