//! `skc check FILE...`: the front end only (no CUDA needed).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use skc_core::session::{DiskFiles, SearchPath, Session};
use skc_core::target::Target;
use skc_core::{Checked, Severity};

use crate::output::{print_diagnostics, print_summary};
use crate::FrontendArgs;

#[derive(Args)]
pub struct CheckArgs {
    /// The `.sk` files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The architecture whose resource limits (shared and constant memory, parameter space, launch bounds) the
    /// program must fit; `skc build --arch` checks against the architecture it compiles for.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    #[command(flatten)]
    pub frontend: FrontendArgs,
}

/// Splits `NAME=VALUE` arguments; a malformed one is a usage error.
pub fn parse_defines(defines: &[String]) -> Result<Vec<(String, String)>, String> {
    defines
        .iter()
        .map(|d| match d.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.trim().to_string())),
            _ => Err(format!("`-D {d}` must have the form NAME=VALUE")),
        })
        .collect()
}

/// Checks `-A CODE` arguments: each must name a warning that `skc explain` knows (errors cannot be silenced).
pub fn parse_allow(codes: &[String]) -> Result<Vec<String>, String> {
    codes
        .iter()
        .map(|code| {
            let code = code.trim().to_ascii_uppercase();
            match skc_core::codes::lookup(&code) {
                Some(known) if known.severity == Severity::Warning => Ok(code),
                Some(_) => Err(format!("`-A {code}`: only warnings can be allowed; {code} is an error")),
                None => Err(format!("`-A {code}`: no diagnostic has this code (see `skc explain`)")),
            }
        })
        .collect()
}

/// The session the front-end arguments describe: `-I` folders before the standard library, `-D`, `-A` and the
/// target whose resource limits the program must fit (`--arch`).
pub fn session<'f>(files: &'f DiskFiles, arch: &str, frontend: &FrontendArgs) -> Result<Session<'f>, String> {
    let target = Target::parse(arch).map_err(|why| format!("`--arch {arch}`: {why}"))?;
    let mut session = Session::new(files)
        .with_search(SearchPath::standard(&frontend.include, files))
        .with_target(target)
        .with_defines(parse_defines(&frontend.defines)?);
    for code in parse_allow(&frontend.allow)? {
        session = session.with_allowed(code);
    }
    Ok(session)
}

/// Reads and checks one file; `Err` is an I/O or usage problem (exit 2).
pub fn check_file(path: &Path, arch: &str, frontend: &FrontendArgs) -> Result<Checked, String> {
    let files = DiskFiles::new();
    session(&files, arch, frontend)?.check_file(path).map_err(|e| e.to_string())
}

/// Prints a checked file's diagnostics; returns whether it counts as failed.
pub fn report(checked: &Checked, frontend: &FrontendArgs) -> bool {
    print_diagnostics(&checked.diagnostics, &checked.sources, frontend.message_format, frontend.color);
    let errors = checked.error_count();
    let warnings = checked.warning_count();
    print_summary(&checked.sources.file(checked.root).name, errors, warnings, frontend.message_format);
    errors > 0 || (frontend.deny_warnings && warnings > 0)
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let mut failed = false;
    for (index, path) in args.files.iter().enumerate() {
        match check_file(path, &args.arch, &args.frontend) {
            Ok(checked) => {
                failed |= report(&checked, &args.frontend);
                if index + 1 == args.files.len() {
                    // The process ends next and its memory goes back at once: freeing the last file's trees
                    // node by node would cost about a twentieth of the whole command on a large file.
                    std::mem::forget(checked);
                }
            }
            Err(message) => {
                errln!("error: {message}");
                return ExitCode::from(2);
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
