//! Float literals against their final type: a literal too large for its type (`1e39` as a float32, `1e400`
//! anywhere) would silently be an infinity, so it is an error (`E0221`, as `E0102` is for an integer literal
//! that does not fit); one that rounds to zero or to a subnormal loses the value written, so it is a warning (`W0004`). The
//! type of an unsuffixed literal is known only after inference, hence this check after defaulting.

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::ExprId;
use crate::types::Type;

use super::Checker;

/// What a literal's value becomes in its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatFit {
    Exact,
    /// Beyond the largest finite value: an infinity.
    Overflows,
    /// A nonzero literal that rounds to zero.
    RoundsToZero,
    /// Rounds to a subnormal: fewer significant bits than the type has (and zero where subnormals are flushed).
    Subnormal,
}

/// How the literal `text` (its source, for whether it is nonzero) of value `value` fits `ty`.
pub(crate) fn float_fit(value: f64, text: &str, ty: &Type) -> FloatFit {
    let (rounded, min_normal) = match ty {
        Type::Float32 => (value as f32 as f64, f64::from(f32::MIN_POSITIVE)),
        Type::Float16 => (crate::typeck::consts::round_float(value, ty), 2f64.powi(-14)),
        Type::BFloat16 => (crate::typeck::consts::round_float(value, ty), f64::from(f32::MIN_POSITIVE)),
        _ => (value, f64::MIN_POSITIVE),
    };
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let written_nonzero = mantissa.chars().any(|c| c.is_ascii_digit() && c != '0');
    if rounded.is_infinite() {
        FloatFit::Overflows
    } else if rounded == 0.0 && written_nonzero {
        FloatFit::RoundsToZero
    } else if rounded != 0.0 && rounded.abs() < min_normal {
        FloatFit::Subnormal
    } else {
        FloatFit::Exact
    }
}

/// Does `value` fit every float type: nonzero, and a normal number of float16, the narrowest? Then no final type
/// makes it worth a word, and `finish` need not look at the literal again (most literals: `0.5`, `1.0`).
pub(crate) fn fits_every_float_type(value: f64) -> bool {
    (2f64.powi(-14)..=65504.0).contains(&value.abs())
}

impl Checker<'_> {
    /// Marks the float literal `id` (of value `value`) for `finish`'s check against its final type, unless every
    /// type holds it.
    pub(crate) fn mark_float_literal(&mut self, id: ExprId, value: f64) {
        if !fits_every_float_type(value) {
            self.mark_final_check(id);
        }
    }

    /// `E0221` and `W0004` for the float literal `id`.
    pub(crate) fn check_float_literal(&mut self, id: ExprId, value: f64) {
        // A float type is a scalar: resolving the variable is all zonking would do, and nothing is cloned.
        let Some(stored) = self.types.get(id.index()) else { return };
        let ty = self.vars.resolve_ref(stored);
        if ty.is_float() {
            let ty = ty.clone();
            self.report_float_fit(id, value, &ty);
        }
    }

    fn report_float_fit(&mut self, id: ExprId, value: f64, ty: &Type) {
        let text = self.snippet(id);
        let fit = float_fit(value, text, ty);
        if fit == FloatFit::Exact {
            return; // Nearly every literal: nothing is worded.
        }
        let shown = self.info.display(ty);
        let (largest, smallest_normal, smallest) = match ty {
            Type::Float32 => ("3.4028235e38", "1.1754944e-38", "1e-45"),
            Type::Float16 => ("65504", "6.1035156e-5", "6e-8"),
            Type::BFloat16 => ("3.3895314e38", "1.1754944e-38", "9.2e-41"),
            _ => ("1.7976931348623157e308", "2.2250738585072014e-308", "5e-324"),
        };
        let d = match fit {
            FloatFit::Exact => return,
            FloatFit::Overflows => Diagnostic::error("E0221", format!("float literal out of range for {shown}"))
                .primary(self.span(id), format!("larger than the largest finite {shown}, {largest}"))
                .help(match ty {
                    Type::Float16 => format!(
                        "make it a float32 (`{}f`), or write `infinity` if an infinity is meant",
                        text.trim_end_matches(['f', 'd', 'h'])
                    ),
                    Type::Float32 => format!(
                        "make it a float64 (`{}d`), or write `infinity` if an infinity is meant",
                        text.trim_end_matches(['f', 'd'])
                    ),
                    _ => "write `infinity` if an infinity is meant".to_string(),
                }),
            FloatFit::RoundsToZero => Diagnostic::warning("W0004", format!("float literal rounds to zero as {shown}"))
                .primary(self.span(id), format!("closer to zero than the smallest positive {shown}, {smallest}"))
                .help("write `0.0` if zero is meant, or use a float64 literal (`d` suffix)"),
            FloatFit::Subnormal => Diagnostic::warning("W0004", format!("float literal is subnormal as {shown}"))
                .primary(self.span(id), format!("below the smallest normal {shown}, {smallest_normal}"))
                .note(
                    "a subnormal has fewer significant bits, and is zero where the GPU flushes subnormals (fast math)",
                ),
        };
        self.diagnostics.push(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_fit_their_type() {
        assert_eq!(float_fit(1e39, "1e39", &Type::Float32), FloatFit::Overflows);
        assert_eq!(float_fit(1e39, "1e39", &Type::Float64), FloatFit::Exact);
        assert_eq!(float_fit(f64::INFINITY, "1e400", &Type::Float64), FloatFit::Overflows);
        assert_eq!(float_fit(3.4028235e38, "3.4028235e38", &Type::Float32), FloatFit::Exact);
        // Below the midpoint to the next power of two rounds down to the largest float32; the midpoint itself
        // rounds (to even) up to infinity, as a C compiler reads the literal.
        assert_eq!(float_fit(3.40282356e38, "3.40282356e38", &Type::Float32), FloatFit::Exact);
        assert_eq!(float_fit(3.4028235677973366e38, "3.4028235677973366e38", &Type::Float32), FloatFit::Overflows);
        assert_eq!(float_fit(3.5e38, "3.5e38", &Type::Float32), FloatFit::Overflows);
        assert_eq!(float_fit(1e-50, "1e-50", &Type::Float32), FloatFit::RoundsToZero);
        assert_eq!(float_fit(0.0, "1e-400", &Type::Float64), FloatFit::RoundsToZero);
        assert_eq!(float_fit(0.0, "0.0e-400", &Type::Float64), FloatFit::Exact);
        assert_eq!(float_fit(0.0, "0.", &Type::Float32), FloatFit::Exact);
        assert_eq!(float_fit(1e-40, "1e-40", &Type::Float32), FloatFit::Subnormal);
        assert_eq!(float_fit(1e-40, "1e-40", &Type::Float64), FloatFit::Exact);
        assert_eq!(float_fit(1.1754944e-38, "1.1754944e-38", &Type::Float32), FloatFit::Exact);
        assert_eq!(float_fit(1e-310, "1e-310", &Type::Float64), FloatFit::Subnormal);
        for value in [6.103515625e-5, 0.5, 1.0, 3.0e4, 65504.0, -65504.0, -6.103515625e-5] {
            assert!(fits_every_float_type(value));
            for ty in [Type::Float16, Type::BFloat16, Type::Float32, Type::Float64] {
                assert_eq!(float_fit(value, &value.to_string(), &ty), FloatFit::Exact, "{value} as {ty:?}");
            }
        }
        for value in [0.0, -0.0, 6.1e-5, 65505.0, f64::NAN, f64::INFINITY] {
            assert!(!fits_every_float_type(value));
        }
    }
}
