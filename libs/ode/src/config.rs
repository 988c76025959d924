//! Solver settings shared by the CPU reference and the GPU host API: method, step controller and its gains,
//! tolerances, time span, step sizes, output times, Newton settings; the defaults of `docs/ode.md` (CuBIE's);
//! their validation (every error is found before any kernel runs); and the per-run status bits.

use std::fmt;

use crate::method::{Method, UnknownMethod};
use crate::summaries::{SummaryError, SummarySpec};
use crate::tableau::Tableau;

/// Floating-point type of the states (time is always float64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    F32,
    F64,
}

impl Precision {
    /// Machine epsilon of the state type: the finite-difference Jacobian steps by `sqrt(eps)` and the Newton test
    /// floors its relative tolerance at `64 eps`.
    pub fn epsilon(self) -> f64 {
        match self {
            Precision::F32 => f32::EPSILON as f64,
            Precision::F64 => f64::EPSILON,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "float32",
            Precision::F64 => "float64",
        }
    }
}

/// Step-size controllers (`controller` in the `.sk` kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControllerKind {
    Fixed,
    I,
    PI,
    PID,
    Gustafsson,
}

impl ControllerKind {
    pub const ALL: [ControllerKind; 5] =
        [ControllerKind::Fixed, ControllerKind::I, ControllerKind::PI, ControllerKind::PID, ControllerKind::Gustafsson];

    /// The value of the `.sk` constant `controller`.
    pub fn sk_index(self) -> i32 {
        Self::ALL.iter().position(|c| *c == self).expect("listed") as i32
    }

    pub fn name(self) -> &'static str {
        match self {
            ControllerKind::Fixed => "fixed",
            ControllerKind::I => "i",
            ControllerKind::PI => "pi",
            ControllerKind::PID => "pid",
            ControllerKind::Gustafsson => "gustafsson",
        }
    }

    pub fn from_name(name: &str) -> Option<ControllerKind> {
        Self::ALL.into_iter().find(|c| c.name() == name.to_ascii_lowercase())
    }

    pub fn is_adaptive(self) -> bool {
        self != ControllerKind::Fixed
    }
}

/// How the DIRK steppers get the Jacobian of the right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianKind {
    /// The system supplies `jac` (in `.sk`) / [`crate::reference::System::jacobian`].
    Analytic,
    /// Forward differences, one extra right-hand side evaluation per state and step.
    FiniteDifferences,
}

/// Gains of the adaptive controllers. With `k = 2 (p + 1)` (`p` the controller order of the method) and the
/// mean squared scaled error `nrm2` of this step (`prev`, `prev2` those of the last accepted steps):
/// - I: `safety * nrm2^(-k_i/k)`
/// - PI: `safety * nrm2^(-(k_i + k_p)/k) * prev^(k_p/k)`
/// - PID: `safety * nrm2^(-(k_i + k_p + k_d)/k) * prev^((k_p + 2 k_d)/k) * prev2^(-k_d/k)`
/// - Gustafsson: on accepted steps after the first, the smaller of the I gain with the Newton-damped safety
///   `fac = min(damping, damping (1 + 2 m) / (iters + 2 m))` (m = `max_newton`) and the predictive gain
///   `safety * damping * (h / h_prev) * (nrm2^2 / prev)^(-1/k)`; otherwise the I gain with `fac`.
///
/// The gain is clamped to `[min_shrink, max_growth]`, and a gain inside the dead band `[deadband_low,
/// deadband_high]` becomes 1 (the step is kept).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    pub k_i: f64,
    pub k_p: f64,
    pub k_d: f64,
    pub safety: f64,
    pub min_shrink: f64,
    pub max_growth: f64,
    pub deadband_low: f64,
    pub deadband_high: f64,
    pub damping: f64,
}

impl Gains {
    /// The defaults of the notes: safety 0.9, clamp [0.2, 10], dead band [1, 1.2]; I: k_I = 1; PI and PID:
    /// k_I = 0.3, k_P = 0.4 (PID: k_D = 0.1); Gustafsson: damping 0.9.
    pub fn defaults(kind: ControllerKind) -> Gains {
        let (k_i, k_p, k_d) = match kind {
            ControllerKind::Fixed | ControllerKind::I | ControllerKind::Gustafsson => (1.0, 0.0, 0.0),
            ControllerKind::PI => (0.3, 0.4, 0.0),
            ControllerKind::PID => (0.3, 0.4, 0.1),
        };
        Gains {
            k_i,
            k_p,
            k_d,
            safety: 0.9,
            min_shrink: 0.2,
            max_growth: 10.0,
            deadband_low: 1.0,
            deadband_high: 1.2,
            damping: 0.9,
        }
    }
}

/// Every setting of one batched solve (the same for every run of the batch).
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub method: Method,
    pub controller: ControllerKind,
    pub gains: Gains,
    pub atol: f64,
    pub rtol: f64,
    pub t0: f64,
    pub duration: f64,
    /// The fixed step, or the first step of an adaptive solve.
    pub dt: f64,
    pub dt_min: f64,
    pub dt_max: f64,
    /// Save the state every `save_every` from `t0` (the first sample is the initial state); `None`: final state only.
    pub save_every: Option<f64>,
    /// Attempted steps after which a run fails with [`Status::MAX_STEPS`].
    pub max_steps: u32,
    /// Newton iterations converge when the RMS of the update scaled by `atol + max(rtol, 64 eps) |z|` is at most
    /// this.
    pub newton_tol: f64,
    pub max_newton: u32,
    pub jacobian: JacobianKind,
    pub precision: Precision,
    /// Summary metrics computed while integrating (`crate::summaries`); `None`: none.
    pub summaries: Option<SummarySpec>,
}

impl Config {
    /// The defaults for a method: adaptive methods get CuBIE's default controller (I for ERK, PI for DIRK),
    /// methods without an embedded pair the fixed controller; atol = rtol = 1e-6, dt_min 1e-6, dt_max 1.
    pub fn new(method: Method, duration: f64, dt: f64) -> Config {
        let tableau = Tableau::of(method);
        let controller = match (tableau.is_adaptive(), method.is_implicit()) {
            (false, _) => ControllerKind::Fixed,
            (true, false) => ControllerKind::I,
            (true, true) => ControllerKind::PI,
        };
        Config {
            method,
            controller,
            gains: Gains::defaults(controller),
            atol: 1e-6,
            rtol: 1e-6,
            t0: 0.0,
            duration,
            dt,
            dt_min: 1e-6,
            dt_max: 1.0,
            save_every: None,
            max_steps: 1_000_000,
            newton_tol: 0.03,
            max_newton: 10,
            jacobian: JacobianKind::FiniteDifferences,
            precision: Precision::F64,
            summaries: None,
        }
    }

    /// Sets the controller and its default gains.
    pub fn with_controller(mut self, controller: ControllerKind) -> Config {
        self.controller = controller;
        self.gains = Gains::defaults(controller);
        self
    }

    pub fn with_tolerances(mut self, atol: f64, rtol: f64) -> Config {
        self.atol = atol;
        self.rtol = rtol;
        self
    }

    /// The number of saved samples per run: `floor(duration / save_every) + 1` (the last within 1e-9 of a step
    /// counts), or 0 for final state only.
    pub fn n_saves(&self) -> usize {
        match self.save_every {
            Some(every) => (self.duration / every * (1.0 + 1e-9)).floor() as usize + 1,
            None => 0,
        }
    }

    /// Checks every setting; the host API calls this before any kernel runs.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let tableau = Tableau::of(self.method);
        let finite_positive = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ConfigError::NotPositive { name, value: v })
            }
        };
        if !self.t0.is_finite() {
            return Err(ConfigError::NotFinite { name: "t0", value: self.t0 });
        }
        if !self.duration.is_finite() || self.duration < 0.0 {
            return Err(ConfigError::NegativeDuration(self.duration));
        }
        finite_positive("dt", self.dt)?;
        if self.controller.is_adaptive() {
            if !tableau.is_adaptive() {
                return Err(ConfigError::NoErrorEstimate { method: self.method, controller: self.controller });
            }
            finite_positive("atol", self.atol)?;
            // The float32 error norm multiplies by the hardware reciprocal of its scale `atol + rtol max(|y|,
            // |ynew|)` (at least atol), which flushes a subnormal to zero: atol must be a normal float32.
            if self.precision == Precision::F32 && (self.atol as f32) < f32::MIN_POSITIVE {
                return Err(ConfigError::SubnormalFloat32 { name: "atol", value: self.atol });
            }
            finite_positive("rtol", self.rtol)?;
            finite_positive("dt_min", self.dt_min)?;
            finite_positive("dt_max", self.dt_max)?;
            // A float32 solver proposes and clamps its next step in float32 (ode_solve.sk): dt_min must be a
            // normal float32 there (a larger dt_max than float32 holds is infinity, and never clamps).
            if self.precision == Precision::F32 && (self.dt_min as f32) < f32::MIN_POSITIVE {
                return Err(ConfigError::SubnormalFloat32 { name: "dt_min", value: self.dt_min });
            }
            if self.dt_min > self.dt_max {
                return Err(ConfigError::StepBounds { dt_min: self.dt_min, dt_max: self.dt_max });
            }
            let g = &self.gains;
            for (name, v) in [("safety", g.safety), ("min_shrink", g.min_shrink), ("max_growth", g.max_growth)] {
                finite_positive(name, v)?;
            }
            for (name, v) in [("k_i", g.k_i), ("k_p", g.k_p), ("k_d", g.k_d), ("damping", g.damping)] {
                if !v.is_finite() {
                    return Err(ConfigError::NotFinite { name, value: v });
                }
            }
        } else if self.method.is_implicit() {
            // Fixed steps still weigh Newton updates with the tolerances.
            finite_positive("atol", self.atol)?;
            if !self.rtol.is_finite() || self.rtol < 0.0 {
                return Err(ConfigError::NotFinite { name: "rtol", value: self.rtol });
            }
        }
        if let Some(every) = self.save_every {
            finite_positive("save_every", every)?;
        }
        if let Some(spec) = &self.summaries {
            // The variables are checked against the system where its size is known (`validate_for`).
            spec.validate(usize::MAX).map_err(ConfigError::Summaries)?;
        }
        if self.max_steps == 0 {
            return Err(ConfigError::NotPositive { name: "max_steps", value: 0.0 });
        }
        if self.method.is_implicit() {
            finite_positive("newton_tol", self.newton_tol)?;
            if self.max_newton == 0 {
                return Err(ConfigError::NotPositive { name: "max_newton", value: 0.0 });
            }
        }
        Ok(())
    }

    /// [`Config::validate`] and the summarised variables against a system of `n_states`.
    pub fn validate_for(&self, n_states: usize) -> Result<(), ConfigError> {
        self.validate()?;
        if let Some(spec) = &self.summaries {
            spec.validate(n_states).map_err(ConfigError::Summaries)?;
        }
        Ok(())
    }
}

/// A setting that no kernel may run with.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    NotPositive {
        name: &'static str,
        value: f64,
    },
    NotFinite {
        name: &'static str,
        value: f64,
    },
    /// A float32 setting below the smallest normal float32 (about 1.2e-38).
    SubnormalFloat32 {
        name: &'static str,
        value: f64,
    },
    NegativeDuration(f64),
    StepBounds {
        dt_min: f64,
        dt_max: f64,
    },
    NoErrorEstimate {
        method: Method,
        controller: ControllerKind,
    },
    UnknownMethod(UnknownMethod),
    UnknownController(String),
    Summaries(SummaryError),
    /// `Options::block_size` not a multiple of 32 from 32 to 1024.
    BlockSize(u32),
}

impl From<UnknownMethod> for ConfigError {
    fn from(unknown: UnknownMethod) -> Self {
        ConfigError::UnknownMethod(unknown)
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NotPositive { name, value } => write!(f, "{name} must be finite and positive, not {value}"),
            ConfigError::NotFinite { name, value } => write!(f, "{name} must be finite, not {value}"),
            ConfigError::SubnormalFloat32 { name, value } => {
                write!(f, "{name} must be at least the smallest normal float32 (1.1754944e-38) in float32, not {value}")
            }
            ConfigError::NegativeDuration(d) => write!(f, "the duration must be finite and not negative, not {d}"),
            ConfigError::BlockSize(b) => {
                write!(f, "the block size must be a multiple of 32 from 32 to 1024 (whole warps), not {b}")
            }
            ConfigError::StepBounds { dt_min, dt_max } => {
                write!(f, "dt_min ({dt_min}) is larger than dt_max ({dt_max})")
            }
            ConfigError::NoErrorEstimate { method, controller } => write!(
                f,
                "method {method} has no embedded error estimate: it needs the fixed controller, not {}",
                controller.name()
            ),
            ConfigError::UnknownMethod(unknown) => write!(f, "{unknown}"),
            ConfigError::UnknownController(name) => {
                write!(f, "unknown controller `{name}` (known: fixed, i, pi, pid, gustafsson)")
            }
            ConfigError::Summaries(e) => write!(f, "summaries: {e}"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Per-run status bits (0: success). The values of the first group are CuBIE's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Status(pub u32);

impl Status {
    pub const SUCCESS: Status = Status(0);
    /// A fixed step whose Newton iterations did not converge in `max_newton` iterations.
    pub const MAX_NEWTON_ITERATIONS: Status = Status(2);
    /// An adaptive step rejected with a proposed step below `dt_min`.
    pub const STEP_TOO_SMALL: Status = Status(8);
    /// A fixed step whose Newton iterations diverged (or met a singular iteration matrix).
    pub const NEWTON_DIVERGENCE: Status = Status(256);
    /// `max_steps` steps attempted before the end (skc's).
    pub const MAX_STEPS: Status = Status(16);
    /// The state of an accepted step is not finite (skc's).
    pub const NONFINITE: Status = Status(32);

    pub fn failed(self) -> bool {
        self.0 != 0
    }

    pub fn contains(self, bits: Status) -> bool {
        self.0 & bits.0 == bits.0
    }
}

impl std::ops::BitOr for Status {
    type Output = Status;
    fn bitor(self, rhs: Status) -> Status {
        Status(self.0 | rhs.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate() {
        for m in Method::all() {
            Config::new(m, 1.0, 1e-3).validate().unwrap_or_else(|e| panic!("{m}: {e}"));
        }
    }

    #[test]
    fn bad_settings_are_errors() {
        let base = Config::new(Method::Tsit5, 1.0, 1e-3);
        let mut c = base.clone();
        c.duration = -1.0;
        assert_eq!(c.validate(), Err(ConfigError::NegativeDuration(-1.0)));
        let mut c = base.clone();
        c.atol = f64::NAN;
        assert!(matches!(c.validate(), Err(ConfigError::NotPositive { name: "atol", .. })));
        // Float32 runs need a normal float32 atol (the norm's reciprocal flushes subnormals); float64 runs not.
        let mut c32 = c.clone();
        c32.precision = Precision::F32;
        c32.atol = 1e-39;
        assert!(matches!(c32.validate(), Err(ConfigError::SubnormalFloat32 { name: "atol", .. })));
        c32.atol = 1.2e-38;
        assert_eq!(c32.validate(), Ok(()));
        c32.dt_min = 1e-40;
        assert!(matches!(c32.validate(), Err(ConfigError::SubnormalFloat32 { name: "dt_min", .. })));
        c32.precision = Precision::F64;
        c32.atol = 1e-39;
        assert_eq!(c32.validate(), Ok(()));
        let c = Config::new(Method::ClassicalRk4, 1.0, 1e-3).with_controller(ControllerKind::PI);
        assert!(matches!(c.validate(), Err(ConfigError::NoErrorEstimate { .. })));
        let mut c = base;
        c.save_every = Some(0.0);
        assert!(c.validate().is_err());
    }

    #[test]
    fn save_counts() {
        let mut c = Config::new(Method::Tsit5, 1.0, 1e-3);
        assert_eq!(c.n_saves(), 0);
        c.save_every = Some(0.1);
        assert_eq!(c.n_saves(), 11);
        c.save_every = Some(0.3);
        assert_eq!(c.n_saves(), 4);
    }
}
