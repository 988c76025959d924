//! `skc`: the command line. Diagnostics go to stderr; artifacts and JSON to stdout. Exit status: 0 clean, 1 errors
//! in the input, 2 usage or I/O errors, 101 an internal compiler error (a panic in skc, or NVRTC failing on the
//! CUDA C skc generated), with a one-line request to report it that names the input files.

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

/// mimalloc instead of glibc's allocator: a check makes about 300,000 small allocations (arena nodes' vectors,
/// names, side tables), and glibc's `malloc`, `free` and `realloc` took about a tenth of the whole process's
/// instructions (see docs/performance.md).
#[global_allocator]
static GLOBAL_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod build;
mod check;
mod input;
mod lints;
mod nvrtc;
mod output;
mod run;
mod status;
mod stdlib;

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
    /// Run a kernel (on the CPU interpreter, or a GPU) and print the vectors it writes as JSON.
    Run(Box<run::RunArgs>),
    /// Print the explanation of a diagnostic code (for example `skc explain E0001`).
    Explain {
        /// The code, such as E0001.
        code: String,
    },
    /// Run the language server on standard input and output (editors start this).
    Lsp {
        /// Accepted for clients that name the transport (VS Code's `TransportKind.stdio`, many Neovim and Emacs
        /// set-ups): standard input and output is the only one.
        #[arg(long)]
        stdio: bool,
    },
    /// Serve NVRTC compilations on standard input and output (`build` and `emit` start this as their worker).
    #[command(name = "nvrtc-worker", hide = true)]
    NvrtcWorker,
}

impl Command {
    /// The `.sk` files this command reads, named in the request to report an internal compiler error.
    fn input_files(&self) -> Vec<PathBuf> {
        match self {
            Command::Check(args) => args.files.clone(),
            Command::Build(args) => args.files.clone(),
            Command::Emit(args) => vec![args.file.clone()],
            Command::Run(args) => vec![args.file.clone()],
            Command::Explain { .. } | Command::Lsp { .. } | Command::NvrtcWorker => Vec::new(),
        }
    }
}

/// The input files of this run, for the internal-compiler-error message.
static INPUT_FILES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

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
    /// `-D NAME=VALUE` overrides a top-level constant; `-D warnings` turns every warning into an error (exit
    /// status 1), `-D W0101` one warning. May be repeated.
    #[arg(short = 'D', value_name = "NAME=VALUE|warnings|CODE")]
    pub defines: Vec<String>,
    /// Do not report a warning: `-A W0101` one, `-A warnings` all. May be repeated; a code given to `-D` wins
    /// over `-A warnings`, and errors cannot be allowed.
    #[arg(short = 'A', long = "allow", value_name = "CODE|warnings")]
    pub allow: Vec<String>,
    /// Treat warnings as errors (the same as `-D warnings`).
    #[arg(long = "deny-warnings")]
    pub deny_warnings: bool,
    /// Every kernel is launched with blocks of whole warps (a multiple of 32 threads): the convergence analysis
    /// may rely on every lane of a warp existing (a shuffle from any lane is defined), and warp collectives are
    /// emitted with the full mask. A launch with a partial warp is then undefined: use it only when the host
    /// guarantees the block sizes.
    #[arg(long = "whole-warps")]
    pub whole_warps: bool,
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

fn main() -> ExitCode {
    // The whole command runs on the front end's large stack, so `check` and `emit` need no thread of their own.
    let run = || {
        skc_core::stack::this_thread_has_a_large_stack();
        run()
    };
    let worker = std::thread::Builder::new().name("skc".into()).stack_size(skc_core::stack::STACK_BYTES).spawn(run);
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        // The panic's message and place were printed by the panic hook, on the line above.
        _ => {
            errln!("{}", ice_request(&INPUT_FILES.lock().map(|f| f.clone()).unwrap_or_default()));
            ExitCode::from(nvrtc::ICE_EXIT)
        }
    }
}

/// The one line printed after a panic.
fn ice_request(files: &[PathBuf]) -> String {
    let with = match files {
        [] => "the command line".to_string(),
        files => files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "),
    };
    format!(
        "error: internal compiler error: skc panicked (a bug in skc, not in your program); please report it with \
         {with} and the message above"
    )
}

fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    if let Ok(mut files) = INPUT_FILES.lock() {
        *files = cli.command.input_files();
    }
    panic_if_asked();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Build(args) => build::build(&args),
        Command::Emit(args) => build::emit(&args),
        Command::Run(args) => run::run(&args),
        Command::Explain { code } => explain(&code),
        Command::Lsp { .. } => {
            stdlib::write_for_language_server();
            skc_lsp::serve_stdio()
        }
        Command::NvrtcWorker => ExitCode::from(skc_nvrtc::serve_worker().clamp(0, 255) as u8),
    }
}

/// Debug builds only: `SKC_DEBUG_PANIC=1` makes skc panic after reading its arguments, so that the tests can see
/// how an internal compiler error is reported without depending on a real bug.
fn panic_if_asked() {
    #[cfg(debug_assertions)]
    if std::env::var_os("SKC_DEBUG_PANIC").is_some_and(|v| v == "1") {
        panic!("SKC_DEBUG_PANIC=1 asked for a panic");
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
