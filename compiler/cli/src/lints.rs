//! Warning levels from the command line, as rustc spells them: `-D warnings` turns every warning into an error
//! (`--deny-warnings` is the same), `-D W0101` one warning, `-A warnings` silences every warning, `-A W0101` one.
//! A specific code wins over `warnings`. `-D` also defines constants (`-D NAME=VALUE`): an argument with `=` is a
//! definition, one without is a level.

use skc_core::{Diagnostic, Severity};

use crate::FrontendArgs;

/// What `-D` and `-A` (without `=`) ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lints {
    pub deny_all: bool,
    pub allow_all: bool,
    /// Warning codes denied one by one (upper case).
    pub deny: Vec<String>,
    /// Warning codes allowed one by one (upper case).
    pub allow: Vec<String>,
}

/// What happens to one warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Allow,
    Warn,
    Deny,
}

impl Lints {
    /// The levels `-D`, `-A` and `--deny-warnings` give; `Err` is a usage error.
    pub fn from_args(frontend: &FrontendArgs) -> Result<Lints, String> {
        let mut lints = Lints { deny_all: frontend.deny_warnings, ..Lints::default() };
        for argument in frontend.defines.iter().filter(|d| !d.contains('=')) {
            match warning_or_code("-D", argument)? {
                None => lints.deny_all = true,
                Some(code) => lints.deny.push(code),
            }
        }
        for argument in &frontend.allow {
            match warning_or_code("-A", argument)? {
                None => lints.allow_all = true,
                Some(code) => lints.allow.push(code),
            }
        }
        if let Some(code) = lints.deny.iter().find(|code| lints.allow.contains(code)) {
            return Err(format!("`-D {code}` and `-A {code}` contradict each other"));
        }
        Ok(lints)
    }

    fn level(&self, code: &str) -> Level {
        if self.deny.iter().any(|c| c == code) {
            Level::Deny
        } else if self.allow.iter().any(|c| c == code) {
            Level::Allow
        } else if self.deny_all {
            Level::Deny
        } else if self.allow_all {
            Level::Allow
        } else {
            Level::Warn
        }
    }

    /// The warnings to report, as their levels say: allowed ones dropped, denied ones made errors with a note that
    /// names the flag. Errors pass unchanged.
    pub fn apply(&self, diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
        let mut out = Vec::with_capacity(diagnostics.len());
        for diagnostic in diagnostics {
            if diagnostic.severity != Severity::Warning {
                out.push(diagnostic.clone());
                continue;
            }
            match self.level(diagnostic.code) {
                Level::Allow => {}
                Level::Warn => out.push(diagnostic.clone()),
                Level::Deny => out.push(self.denied(diagnostic)),
            }
        }
        out
    }

    fn denied(&self, warning: &Diagnostic) -> Diagnostic {
        let flag = if self.deny.iter().any(|c| c == warning.code) {
            format!("-D {}", warning.code)
        } else {
            "-D warnings".to_string()
        };
        let mut error = warning.clone();
        error.severity = Severity::Error;
        error.notes.push(format!("`{flag}` turns this warning into an error"));
        error
    }
}

/// `warnings` (`None`) or a warning's code that `skc explain` knows (errors cannot be allowed or denied).
fn warning_or_code(flag: &str, argument: &str) -> Result<Option<String>, String> {
    let argument = argument.trim();
    if argument == "warnings" {
        return Ok(None);
    }
    let code = argument.to_ascii_uppercase();
    match skc_core::codes::lookup(&code) {
        Some(known) if known.severity == Severity::Warning => Ok(Some(code)),
        Some(_) => Err(format!("`{flag} {code}`: {code} is an error, not a warning; only warnings have levels")),
        None if flag == "-D" => Err(format!(
            "`-D {argument}`: expected NAME=VALUE (a constant), `warnings` or a warning's code such as W0101"
        )),
        None => Err(format!("`{flag} {argument}`: expected `warnings` or a warning's code such as W0101")),
    }
}
