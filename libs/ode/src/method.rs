//! The methods by name: explicit Runge-Kutta (ERK) and diagonally implicit (DIRK) steppers, their families, and
//! their index in the `.sk` tableau tables (`erk_method` / `dirk_method`).

use std::fmt;

/// A Runge-Kutta method of `stdlib/ode/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Euler,
    Heun,
    Ralston,
    BogackiShampine3,
    DormandPrince5,
    ClassicalRk4,
    CashKarp5,
    Fehlberg5,
    Tsit5,
    Vern7,
    ImplicitMidpoint,
    Trapezoidal,
    Sdirk2,
    LStableDirk3,
    Kvaerno3,
    Kvaerno5,
}

impl Method {
    /// Every explicit method, in the order of the `.sk` ERK table.
    pub const EXPLICIT: [Method; 10] = [
        Method::Euler,
        Method::Heun,
        Method::Ralston,
        Method::BogackiShampine3,
        Method::DormandPrince5,
        Method::ClassicalRk4,
        Method::CashKarp5,
        Method::Fehlberg5,
        Method::Tsit5,
        Method::Vern7,
    ];

    /// Every diagonally implicit method, in the order of the `.sk` DIRK table.
    pub const IMPLICIT: [Method; 6] = [
        Method::ImplicitMidpoint,
        Method::Trapezoidal,
        Method::Sdirk2,
        Method::LStableDirk3,
        Method::Kvaerno3,
        Method::Kvaerno5,
    ];

    /// All methods, explicit first.
    pub fn all() -> impl Iterator<Item = Method> {
        Self::EXPLICIT.into_iter().chain(Self::IMPLICIT)
    }

    /// The name used by the host API and the command lines (`tsit5`, `kvaerno5`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Method::Euler => "euler",
            Method::Heun => "heun",
            Method::Ralston => "ralston",
            Method::BogackiShampine3 => "bs3",
            Method::DormandPrince5 => "dp5",
            Method::ClassicalRk4 => "rk4",
            Method::CashKarp5 => "cash-karp",
            Method::Fehlberg5 => "fehlberg",
            Method::Tsit5 => "tsit5",
            Method::Vern7 => "vern7",
            Method::ImplicitMidpoint => "implicit-midpoint",
            Method::Trapezoidal => "trapezoidal",
            Method::Sdirk2 => "sdirk2",
            Method::LStableDirk3 => "lsdirk3",
            Method::Kvaerno3 => "kvaerno3",
            Method::Kvaerno5 => "kvaerno5",
        }
    }

    /// Looks a method up by its name or a common alias (case-insensitive).
    pub fn from_name(name: &str) -> Option<Method> {
        let lower = name.to_ascii_lowercase();
        let alias = match lower.as_str() {
            "bogacki-shampine" | "bogacki-shampine-32" | "rk23" => "bs3",
            "dormand-prince" | "dopri5" | "dormand-prince-54" | "rk45" => "dp5",
            "classical-rk4" => "rk4",
            "cashkarp" | "cash-karp-54" => "cash-karp",
            "rkf45" | "fehlberg-45" => "fehlberg",
            "midpoint" => "implicit-midpoint",
            "crank-nicolson" => "trapezoidal",
            "l-stable-dirk3" => "lsdirk3",
            other => other,
        };
        Method::all().find(|m| m.name() == alias)
    }

    /// [`Method::from_name`], with the error the host API reports for an unknown name.
    pub fn parse(name: &str) -> Result<Method, UnknownMethod> {
        Method::from_name(name).ok_or_else(|| UnknownMethod(name.to_string()))
    }

    /// Whether the method has implicit stages (solved by Newton iterations).
    pub fn is_implicit(self) -> bool {
        Self::IMPLICIT.contains(&self)
    }

    /// The index of the method in its `.sk` table (`erk_method` or `dirk_method`).
    pub fn sk_index(self) -> usize {
        let table: &[Method] = if self.is_implicit() { &Self::IMPLICIT } else { &Self::EXPLICIT };
        table.iter().position(|m| *m == self).expect("every method is in its table")
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A method name that [`Method::from_name`] does not know.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownMethod(pub String);

impl fmt::Display for UnknownMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<_> = Method::all().map(|m| m.name()).collect();
        write!(f, "unknown method `{}` (known: {})", self.0, known.join(", "))
    }
}

impl std::error::Error for UnknownMethod {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_aliases_resolve() {
        for m in Method::all() {
            assert_eq!(Method::from_name(m.name()), Some(m));
        }
        assert_eq!(Method::from_name("Tsit5"), Some(Method::Tsit5));
        assert_eq!(Method::from_name("rk45"), Some(Method::DormandPrince5));
        assert_eq!(Method::from_name("nope"), None);
    }
}
