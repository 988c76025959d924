//! `skc check FILE...`: the front end only (no CUDA needed). `-` reads standard input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use skc_core::session::{Files, SearchPath, Session};
use skc_core::target::Target;
use skc_core::{Checked, Diagnostic, Severity};

use crate::input::{display_name, is_stdin, read_stdin};
use crate::lints::Lints;
use crate::output::{print_diagnostics, print_summary};
use crate::stdlib::{stdlib_root, CliFiles};
use crate::FrontendArgs;

#[derive(Args)]
pub struct CheckArgs {
    /// The `.sk` files to check (`-`: standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The architecture whose resource limits (shared and constant memory, parameter space, launch bounds) the
    /// program must fit; `skc build --arch` checks against the architecture it compiles for.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    #[command(flatten)]
    pub frontend: FrontendArgs,
}

/// The `NAME=VALUE` arguments of `-D` (the others are warning levels: [`Lints`]).
pub fn parse_defines(defines: &[String]) -> Result<Vec<(String, String)>, String> {
    defines
        .iter()
        .filter_map(|d| d.split_once('=').map(|split| (d, split)))
        .map(|(d, (name, value))| match name.trim() {
            "" => Err(format!("`-D {d}` must have the form NAME=VALUE")),
            name => Ok((name.to_string(), value.trim().to_string())),
        })
        .collect()
}

/// The session the front-end arguments describe: `-I` folders before the standard library (embedded, or
/// `$SKC_STDLIB`), `-D NAME=VALUE`, `-A CODE`, `--whole-warps` and the target whose resource limits the program
/// must fit (`--arch`).
pub fn session<'f>(files: &'f dyn Files, arch: &str, frontend: &FrontendArgs) -> Result<Session<'f>, String> {
    let target = Target::parse(arch).map_err(|why| format!("`--arch {arch}`: {why}"))?;
    let search = SearchPath::empty().with_dirs(frontend.include.iter().cloned()).with_library(&stdlib_root(), files);
    let mut session =
        Session::new(files).with_search(search).with_target(target).with_defines(parse_defines(&frontend.defines)?);
    for code in Lints::from_args(frontend)?.allow {
        session = session.with_allowed(code);
    }
    if frontend.whole_warps {
        session = session.with_full_warps();
    }
    Ok(session)
}

/// Checks one input (a file, or standard input for `-`) with `session`; `Err` is an I/O problem (exit 2).
pub fn check_input(session: &Session, path: &Path) -> Result<Checked, String> {
    if is_stdin(path) {
        let text = read_stdin()?;
        return Ok(session.check(&display_name(path), text));
    }
    session.check_file(path).map_err(|e| e.to_string())
}

/// Reads and checks one input; `Err` is an I/O or usage problem (exit 2).
pub fn check_file(path: &Path, arch: &str, frontend: &FrontendArgs) -> Result<Checked, String> {
    let files = CliFiles::new();
    check_input(&session(&files, arch, frontend)?, path)
}

/// The diagnostics of a checked program as the warning levels report them.
pub fn reported(checked: &Checked, frontend: &FrontendArgs) -> Vec<Diagnostic> {
    // The levels were checked when the session was made.
    Lints::from_args(frontend).unwrap_or_default().apply(&checked.diagnostics)
}

/// Prints a checked file's diagnostics; returns whether it counts as failed (an error, or a denied warning).
pub fn report(checked: &Checked, frontend: &FrontendArgs) -> bool {
    let diagnostics = reported(checked, frontend);
    print_diagnostics(&diagnostics, &checked.sources, frontend.message_format, frontend.color);
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
    print_summary(&checked.sources.file(checked.root).name, errors, warnings, frontend.message_format);
    errors > 0
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let files = CliFiles::new();
    let session = match session(&files, &args.arch, &args.frontend) {
        Ok(session) => session,
        Err(message) => {
            errln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    for (index, path) in args.files.iter().enumerate() {
        match check_input(&session, path) {
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
