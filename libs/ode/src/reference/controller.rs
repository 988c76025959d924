//! The error norm and the step-size controllers (formulas in [`crate::config::Gains`]).

use crate::config::{ControllerKind, Gains};

/// Smallest error the controllers raise to negative powers (an exact step has error 0).
pub const ERROR_FLOOR: f64 = 1e-20;

/// The mean squared scaled error: `(1/n) sum (err_i / (atol + rtol max(|y_new,i|, |y_old,i|)))^2`.
pub fn error_norm(err: &[f64], y_old: &[f64], y_new: &[f64], atol: f64, rtol: f64) -> f64 {
    let sum: f64 = (0..err.len())
        .map(|i| {
            let scaled = err[i] / (atol + rtol * y_new[i].abs().max(y_old[i].abs()));
            scaled * scaled
        })
        .sum();
    // Times 1/n (as the kernels do: a multiplication, not a division).
    sum * (1.0 / err.len() as f64)
}

/// What a controller remembers between steps: the norms of the last two accepted steps and the last accepted
/// step size (0 before the first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct History {
    pub prev: f64,
    pub prev2: f64,
    pub h_prev: f64,
}

impl Default for History {
    fn default() -> Self {
        History { prev: 1.0, prev2: 1.0, h_prev: 0.0 }
    }
}

impl History {
    pub fn record_accepted(&mut self, nrm2: f64, h: f64) {
        self.prev2 = self.prev;
        self.prev = nrm2.max(ERROR_FLOOR);
        self.h_prev = h;
    }
}

/// The controller's factor for the step `h` just tried, clamped to `[min_shrink, max_growth]`, before the dead
/// band. `order` is the controller order `p`; `newton_iters` the Newton iterations of the step (Gustafsson only).
#[allow(clippy::too_many_arguments)]
pub fn clamped_gain(
    kind: ControllerKind,
    g: &Gains,
    order: u32,
    nrm2: f64,
    accepted: bool,
    h: f64,
    history: &History,
    newton_iters: u32,
    max_newton: u32,
) -> f64 {
    let k = 2.0 * (order as f64 + 1.0);
    let e = if nrm2.is_nan() { f64::INFINITY } else { nrm2.max(ERROR_FLOOR) };
    let raw = match kind {
        ControllerKind::Fixed => 1.0,
        ControllerKind::I => g.safety * e.powf(-g.k_i / k),
        ControllerKind::PI => g.safety * e.powf(-(g.k_i + g.k_p) / k) * history.prev.powf(g.k_p / k),
        ControllerKind::PID => {
            g.safety
                * e.powf(-(g.k_i + g.k_p + g.k_d) / k)
                * history.prev.powf((g.k_p + 2.0 * g.k_d) / k)
                * history.prev2.powf(-g.k_d / k)
        }
        ControllerKind::Gustafsson => {
            let m = max_newton as f64;
            let fac = g.damping.min(g.damping * (1.0 + 2.0 * m) / (newton_iters as f64 + 2.0 * m));
            let basic = fac * e.powf(-g.k_i / k);
            if accepted && history.h_prev > 0.0 {
                let predictive = g.safety * g.damping * (h / history.h_prev) * (e * e / history.prev).powf(-g.k_i / k);
                basic.min(predictive)
            } else {
                basic
            }
        }
    };
    if raw.is_nan() {
        g.min_shrink
    } else {
        raw.clamp(g.min_shrink, g.max_growth)
    }
}

/// The factor by which the step `h` just tried is multiplied, clamped and with the dead band applied.
/// `order` is the controller order `p`; `newton_iters` the Newton iterations of the step (Gustafsson only).
#[allow(clippy::too_many_arguments)]
pub fn gain(
    kind: ControllerKind,
    g: &Gains,
    order: u32,
    nrm2: f64,
    accepted: bool,
    h: f64,
    history: &History,
    newton_iters: u32,
    max_newton: u32,
) -> f64 {
    dead_band(g, clamped_gain(kind, g, order, nrm2, accepted, h, history, newton_iters, max_newton))
}

/// A clamped gain inside the dead band `[deadband_low, deadband_high]` keeps the step: 1.
pub fn dead_band(g: &Gains, clamped: f64) -> f64 {
    if clamped >= g.deadband_low && clamped <= g.deadband_high {
        1.0
    } else {
        clamped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i_controller_matches_the_formula() {
        let g = Gains::defaults(ControllerKind::I);
        // Tsit5: p = 4, k = 10; nrm2 = 1e-3 -> 0.9 * 1e-3^(-0.1)
        let v = gain(ControllerKind::I, &g, 4, 1e-3, true, 0.1, &History::default(), 0, 10);
        assert!((v - 0.9 * 1e-3f64.powf(-0.1)).abs() < 1e-15);
        // Clamped and dead band.
        assert_eq!(gain(ControllerKind::I, &g, 4, 1e-30, true, 0.1, &History::default(), 0, 10), 10.0);
        assert_eq!(gain(ControllerKind::I, &g, 4, 1e9, false, 0.1, &History::default(), 0, 10), 0.2);
        assert_eq!(gain(ControllerKind::I, &g, 4, 0.3, true, 0.1, &History::default(), 0, 10), 1.0);
        assert_eq!(gain(ControllerKind::I, &g, 4, f64::NAN, false, 0.1, &History::default(), 0, 10), 0.2);
    }

    #[test]
    fn pi_uses_the_previous_error() {
        let g = Gains::defaults(ControllerKind::PI);
        let h = History { prev: 0.5, prev2: 1.0, h_prev: 0.1 };
        let v = gain(ControllerKind::PI, &g, 2, 0.01, true, 0.1, &h, 0, 10);
        let k = 6.0;
        assert!((v - 0.9 * 0.01f64.powf(-0.7 / k) * 0.5f64.powf(0.4 / k)).abs() < 1e-15);
    }

    #[test]
    fn gustafsson_takes_the_smaller_gain_after_accepted_steps() {
        let g = Gains::defaults(ControllerKind::Gustafsson);
        let h = History { prev: 1e-4, prev2: 1.0, h_prev: 0.05 };
        let accepted = gain(ControllerKind::Gustafsson, &g, 3, 0.5, true, 0.1, &h, 0, 10);
        let rejected = gain(ControllerKind::Gustafsson, &g, 3, 0.5, false, 0.1, &h, 0, 10);
        assert!(accepted <= rejected);
    }

    #[test]
    fn norm() {
        let v = error_norm(&[1e-6, 0.0], &[1.0, 0.0], &[-2.0, 0.0], 1e-6, 1e-6);
        assert!((v - 0.5 * (1.0f64 / 3.0).powi(2)).abs() < 1e-15);
    }
}
