//! `skc`: the command line. Diagnostics go to stderr; artifacts and JSON to stdout. Exit status: 0 clean, 1 errors
//! in the input, 2 usage or I/O errors.

/// `print!`, `println!`, `eprint!` and `eprintln!` that end the program quietly when the reader has gone away
/// (`skc explain E0001 | head`) instead of panicking, as command-line tools do.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_or_exit(&mut std::io::stdout().lock(), format_args!($($arg)*)) };
}
macro_rules! outln {
    ($($arg:tt)*) => { out!("{}\n", format_args!($($arg)*)) };
}
macro_rules! err {
    ($($arg:tt)*) => { $crate::output::write_or_exit(&mut std::io::stderr().lock(), format_args!($($arg)*)) };
}
macro_rules! errln {
    ($($arg:tt)*) => { err!("{}\n", format_args!($($arg)*)) };
}

mod build;
mod check;
mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "skc", version, about = "Compiler for the .sk GPU kernel language")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, type-check and run the convergence analysis; print diagnostics.
    Check(check::CheckArgs),
    /// Check, emit CUDA C, compile with NVRTC, write artifacts and print each kernel's resources.
    Build(build::BuildArgs),
    /// Print an intermediate form (CUDA C or PTX) on stdout.
    Emit(build::EmitArgs),
    /// Print the explanation of a diagnostic code (for example `skc explain E0001`).
    Explain {
        /// The code, such as E0001.
        code: String,
    },
    /// Run the language server on standard input and output (editors start this).
    Lsp,
}

/// Options every command that reads `.sk` files takes.
#[derive(Args, Clone)]
pub struct FrontendArgs {
    /// How diagnostics are printed.
    #[arg(long = "message-format", value_enum, default_value = "human")]
    pub message_format: MessageFormat,
    /// Colour in human-readable diagnostics (`auto`: only on a terminal, and never under NO_COLOR).
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// More directories in which to look for modules named by `open M`.
    #[arg(short = 'I', long = "include")]
    pub include: Vec<PathBuf>,
    /// Override a top-level constant: `-D NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub defines: Vec<String>,
    /// Do not report this warning (for example `-A W0101`); may be repeated. Errors cannot be allowed.
    #[arg(short = 'A', long = "allow", value_name = "CODE")]
    pub allow: Vec<String>,
    /// Treat warnings as errors.
    #[arg(long = "deny-warnings")]
    pub deny_warnings: bool,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum MessageFormat {
    Human,
    Short,
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// The front end walks nested expressions recursively; a large stack keeps very long `let` chains and deep
/// nesting from overflowing it (as rustc does).
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let worker = std::thread::Builder::new().name("skc".into()).stack_size(STACK_BYTES).spawn(run);
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        _ => {
            errln!("error: internal compiler error (the compiler thread failed); please report it with the input");
            ExitCode::from(101)
        }
    }
}

fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Build(args) => build::build(&args),
        Command::Emit(args) => build::emit(&args),
        Command::Explain { code } => explain(&code),
        Command::Lsp => skc_lsp::serve_stdio(),
    }
}

fn explain(code: &str) -> ExitCode {
    match skc_core::explain::explain(code) {
        Some(page) => {
            outln!("{}: {}\n\n{}", page.code, page.title, page.body.trim_end());
            ExitCode::SUCCESS
        }
        None => {
            errln!("error: no diagnostic has the code `{code}`; codes look like E0001 (see docs/diagnostics.md)");
            ExitCode::from(2)
        }
    }
}
