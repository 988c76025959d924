//! skc-lsp: the language server behind `skc lsp`. It owns the protocol loop (on rust-analyzer's `lsp-server`
//! scaffold), the store of open documents, and the translation of the compiler's results into LSP: diagnostics
//! and quick fixes, hovers (type and uniformity of the expression under the cursor, explanation pages of codes),
//! completion, signature help, go to definition, references, document highlight, rename, document symbols, the
//! uniformity views (inlay hints, semantic tokens) and the commands `skc.explain` and `skc.showCuda`.
//!
//! Everything the server knows comes from one call to [`skc_core::check`] per document version; the server adds
//! no analysis of its own. `run` takes any [`lsp_server::Connection`], so tests drive it in memory.

mod code_actions;
mod commands;
mod completion;
mod cursor;
mod definition;
mod diagnostics;
mod documents;
mod explain;
mod hover;
mod position;
mod references;
mod rename;
mod requests;
mod scope;
mod server;
mod settings;
mod signature_help;
mod symbols;
pub mod transport;
mod uniformity;

use std::fmt;

pub use server::{run, DEBOUNCE};

/// Why the server stopped other than by the `shutdown` then `exit` sequence.
#[derive(Debug)]
pub enum ServerError {
    /// The client sent `exit` without `shutdown` first (the protocol asks for exit status 1).
    ExitWithoutShutdown,
    /// The input closed before `exit`.
    Disconnected,
    Io(std::io::Error),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::ExitWithoutShutdown => write!(f, "the client sent `exit` before `shutdown`"),
            ServerError::Disconnected => write!(f, "the client closed the connection before `exit`"),
            ServerError::Io(e) => write!(f, "language server I/O failed: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// Serves one client over standard input and output until it sends `exit`.
pub fn run_stdio() -> Result<(), ServerError> {
    let (connection, io_threads) = transport::stdio();
    let result = run(connection);
    let joined = io_threads.join();
    result?;
    joined.map_err(ServerError::Io)
}

/// `skc lsp`: [`run_stdio`], with the error (if any) on stderr and the protocol's exit status.
pub fn serve_stdio() -> std::process::ExitCode {
    match run_stdio() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skc lsp: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
