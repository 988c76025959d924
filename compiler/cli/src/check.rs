//! `skc check FILE...`: the front end only (no CUDA needed).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use skc_core::driver::CheckOptions;
use skc_core::typeck::TypeckOptions;
use skc_core::Checked;

use crate::loader::FileLoader;
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
            match skc_core::explain::explain(&code) {
                Some(_) if code.starts_with('W') => Ok(code),
                Some(_) => Err(format!("`-A {code}`: only warnings can be allowed; {code} is an error")),
                None => Err(format!("`-A {code}`: no diagnostic has this code (see `skc explain`)")),
            }
        })
        .collect()
}

/// Reads and checks one file; `Err` is an I/O or usage problem (exit 2).
pub fn check_file(path: &PathBuf, arch: &str, frontend: &FrontendArgs) -> Result<Checked, String> {
    let target = skc_core::target::Target::parse(arch).map_err(|why| format!("`--arch {arch}`: {why}"))?;
    let text = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(text).map_err(|_| format!("{} is not valid UTF-8", path.display()))?;
    let defines = parse_defines(&frontend.defines)?;
    let allow = parse_allow(&frontend.allow)?;
    let options = CheckOptions { typeck: TypeckOptions { defines }, allow, target };
    let loader = FileLoader::new(frontend.include.clone());
    Ok(skc_core::check(&path.display().to_string(), &text, &loader, &options))
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
