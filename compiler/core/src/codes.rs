//! The diagnostic codes: one table that knows, for every code skc reports, its severity and the stages that
//! report it. `Diagnostic::error` and `Diagnostic::warning` check their code against it (in debug builds), the
//! driver asks it which codes are syntax errors, the parser and the CLI which codes are warnings, and the tests
//! hold the explanation pages (`explain`) and the table of docs/diagnostics.md to it.

use crate::diagnostic::Severity;

/// The part of the compiler that reports a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The parser could not read an item as written: the item's other diagnostics are not reported.
    Syntax,
    /// The parser read the item, but an attribute or annotation in it is wrong.
    Parser,
    /// Finding and loading the modules named by `open`.
    ModuleLoading,
    TypeChecker,
    /// The target architecture's resource limits, after the type checker.
    ResourceLimits,
    Convergence,
    /// The lints, after the convergence analysis.
    Lint,
    /// `skc build`, after NVRTC and ptxas.
    Build,
    /// A run of a kernel on the interpreter (`skc run`): reports of what the run did.
    Interpreter,
}

impl Stage {
    /// The stage as docs/diagnostics.md names it.
    pub fn doc_name(self) -> &'static str {
        match self {
            Stage::Syntax => "parser (syntax)",
            Stage::Parser => "parser",
            Stage::ModuleLoading => "parser (module loading)",
            Stage::TypeChecker => "type checker",
            Stage::ResourceLimits => "resource limits (after the type checker)",
            Stage::Convergence => "convergence",
            Stage::Lint => "lint (after the convergence analysis)",
            Stage::Build => "`skc build`",
            Stage::Interpreter => "`skc run` (interpreter)",
        }
    }
}

/// A diagnostic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub severity: Severity,
    /// The stages that report it, the first being where it is usually reported.
    pub stages: &'static [Stage],
}

impl Code {
    /// Does this code mean that the parser could not read an item as written?
    pub fn is_syntax(&self) -> bool {
        self.stages.contains(&Stage::Syntax)
    }
}

const fn error(code: &'static str, stages: &'static [Stage]) -> Code {
    Code { code, severity: Severity::Error, stages }
}

const fn warning(code: &'static str, stages: &'static [Stage]) -> Code {
    Code { code, severity: Severity::Warning, stages }
}

use Stage::*;

/// Every code, errors then warnings, each in code order.
pub static CODES: &[Code] = &[
    error("E0001", &[Convergence]),
    error("E0002", &[Convergence]),
    error("E0003", &[Convergence]),
    error("E0004", &[Convergence]),
    error("E0005", &[Parser]),
    error("E0006", &[Convergence]),
    error("E0100", &[Syntax]),
    error("E0101", &[Syntax]),
    error("E0102", &[Syntax]),
    error("E0103", &[Syntax]),
    error("E0104", &[Syntax, TypeChecker]),
    error("E0105", &[Syntax]),
    error("E0106", &[Syntax]),
    error("E0107", &[Syntax, TypeChecker]),
    error("E0200", &[TypeChecker]),
    error("E0201", &[TypeChecker]),
    error("E0202", &[TypeChecker]),
    error("E0203", &[TypeChecker]),
    error("E0204", &[TypeChecker]),
    error("E0205", &[Syntax, TypeChecker]),
    error("E0206", &[TypeChecker]),
    error("E0207", &[TypeChecker]),
    error("E0208", &[TypeChecker, Parser]),
    error("E0209", &[TypeChecker]),
    error("E0210", &[TypeChecker]),
    error("E0211", &[ModuleLoading]),
    error("E0212", &[TypeChecker]),
    error("E0213", &[TypeChecker]),
    error("E0214", &[TypeChecker]),
    error("E0215", &[TypeChecker]),
    error("E0216", &[TypeChecker]),
    error("E0217", &[TypeChecker]),
    error("E0218", &[ModuleLoading]),
    error("E0219", &[TypeChecker]),
    error("E0220", &[ResourceLimits]),
    error("E0221", &[TypeChecker]),
    error("E0222", &[TypeChecker]),
    error("E0223", &[TypeChecker]),
    error("E0224", &[ResourceLimits]),
    error("E0225", &[TypeChecker]),
    error("E0230", &[TypeChecker]),
    error("E0231", &[TypeChecker]),
    error("E0232", &[TypeChecker]),
    error("E0233", &[TypeChecker]),
    error("E0234", &[TypeChecker]),
    error("E0235", &[Parser]),
    error("E0236", &[Parser]),
    error("E0240", &[ModuleLoading]),
    error("E0241", &[ModuleLoading]),
    error("E0300", &[Build]),
    error("R0001", &[Interpreter]),
    error("R0002", &[Interpreter]),
    error("R0003", &[Interpreter]),
    error("R0004", &[Interpreter]),
    error("R0005", &[Interpreter]),
    error("R0006", &[Interpreter]),
    error("R0007", &[Interpreter]),
    error("R0008", &[Interpreter]),
    error("R0009", &[Interpreter]),
    error("R0010", &[Interpreter]),
    error("R0011", &[Interpreter]),
    error("R0012", &[Interpreter]),
    error("R0013", &[Interpreter]),
    error("R0014", &[Interpreter]),
    warning("W0002", &[Parser]),
    warning("W0003", &[TypeChecker]),
    warning("W0004", &[TypeChecker]),
    warning("W0005", &[Parser]),
    warning("W0100", &[Build]),
    warning("W0101", &[Lint]),
    warning("W0102", &[Lint]),
];

/// The code `code` names (case-insensitive: `e0001` is `E0001`).
pub fn lookup(code: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// Is `code` a warning's code?
pub fn is_warning(code: &str) -> bool {
    lookup(code).is_some_and(|c| c.severity == Severity::Warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_in_order() {
        let names: Vec<&str> = CODES.iter().map(|c| c.code).collect();
        let mut sorted = names.clone();
        sorted.sort_by_key(|c| (c.starts_with('W'), *c));
        sorted.dedup();
        assert_eq!(names, sorted, "codes are unique, errors (E, then R) then warnings, each in code order");
        for code in CODES {
            // An error is E (compiler) or R (a run on the interpreter); a warning is W.
            let letters: &[char] = if code.severity == Severity::Error { &['E', 'R'] } else { &['W'] };
            let letter_fits = code.code.starts_with(letters) && code.code.len() == 5;
            assert!(letter_fits, "{}: its letter is its severity", code.code);
            let is_run_report = code.code.starts_with('R');
            assert_eq!(
                is_run_report,
                code.stages == [Stage::Interpreter],
                "{}: R codes are the interpreter's",
                code.code
            );
            assert!(!code.stages.is_empty(), "{}: no stage", code.code);
        }
    }

    #[test]
    fn lookup_is_case_insensitive() {
        assert_eq!(lookup("e0001").map(|c| c.code), Some("E0001"));
        assert!(lookup("E9999").is_none() && lookup("").is_none());
        assert!(is_warning("w0101") && !is_warning("E0001") && !is_warning("W9999"));
    }
}
