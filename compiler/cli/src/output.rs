//! Printing diagnostics in the formats the CLI offers: ariadne (human), one line (short), rustc-shaped JSON.

use std::io::IsTerminal;

use skc_core::diagnostic::{self, ColorChoice};
use skc_core::{Diagnostic, SourceMap};

use crate::{Color, MessageFormat};

/// Writes to a standard stream (through the `out!`/`err!` macros); if the reader has closed it (a broken pipe),
/// the program ends with status 0, since nobody is left to read; other errors are ignored, as `print!` would
/// have panicked on them.
pub fn write_or_exit(stream: &mut dyn std::io::Write, text: std::fmt::Arguments) {
    if let Err(e) = stream.write_fmt(text) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
    }
}

pub fn color_choice(color: Color) -> ColorChoice {
    match color {
        Color::Always => ColorChoice::Always,
        Color::Never => ColorChoice::Never,
        Color::Auto => {
            let no_color = std::env::var_os("NO_COLOR").map(|v| !v.is_empty()).unwrap_or(false);
            if no_color || !std::io::stderr().is_terminal() {
                ColorChoice::Never
            } else {
                ColorChoice::Always
            }
        }
    }
}

/// Prints diagnostics: human and short forms to stderr, JSON (one object per line) to stdout.
pub fn print_diagnostics(diagnostics: &[Diagnostic], sources: &SourceMap, format: MessageFormat, color: Color) {
    let color = color_choice(color);
    for d in diagnostics {
        match format {
            MessageFormat::Human => err!("{}", diagnostic::render(d, sources, color)),
            MessageFormat::Short => errln!("{}", diagnostic::render_short(d, sources)),
            MessageFormat::Json => outln!("{}", diagnostic::to_json(d, sources)),
        }
    }
}

/// `N errors, M warnings` summary for human output.
pub fn print_summary(file: &str, errors: usize, warnings: usize, format: MessageFormat) {
    if format == MessageFormat::Json {
        return;
    }
    if errors > 0 {
        errln!("error: {file}: {errors} error(s), {warnings} warning(s)");
    } else if warnings > 0 {
        errln!("warning: {file}: {warnings} warning(s)");
    }
}
