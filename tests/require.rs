//! "Skip unless required": a test that needs a tool this machine may lack (NVRTC, a C++ compiler, Neovim, Emacs
//! with eglot, the packaged VS Code extension and Node) runs when the tool is there; otherwise it says so and
//! passes, unless `SKC_REQUIRE_<TOOL>=1` is set (`scripts/test.sh` sets it for NVRTC, `.ci/run` for all), where
//! it fails.

use std::process::Command;

/// A tool some tests need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Nvrtc,
    Cxx,
    Nvim,
    Emacs,
    Vscode,
}

impl Tool {
    /// The variable that turns a missing tool into a failure.
    pub fn variable(self) -> &'static str {
        match self {
            Tool::Nvrtc => "SKC_REQUIRE_NVRTC",
            Tool::Cxx => "SKC_REQUIRE_CXX",
            Tool::Nvim => "SKC_REQUIRE_NVIM",
            Tool::Emacs => "SKC_REQUIRE_EMACS",
            Tool::Vscode => "SKC_REQUIRE_VSCODE",
        }
    }
}

/// `found` when the tool is there; else a note that `what` is skipped and `None`, or a panic when the tool is
/// required.
pub fn or_skip<T>(tool: Tool, found: Result<T, String>, what: &str) -> Option<T> {
    match found {
        Ok(value) => Some(value),
        Err(why) => {
            let variable = tool.variable();
            assert!(std::env::var(variable).as_deref() != Ok("1"), "{variable}=1 but {tool:?} is missing: {why}");
            eprintln!("note: {tool:?} is missing ({why}): {what} skipped (set {variable}=1 to make this fail)");
            None
        }
    }
}

/// Whether NVRTC can be loaded (`SKC_NVRTC_PATH`, `CUDA_PATH`, ...), else [`or_skip`].
pub fn nvrtc(what: &str) -> bool {
    let found = skc_nvrtc::load_nvrtc(&skc_nvrtc::LibrarySearch::from_env()).map(|_| ()).map_err(|e| e.to_string());
    or_skip(Tool::Nvrtc, found, what).is_some()
}

/// A C++ compiler for the host-emulation tests (`$CXX`, `c++`, `g++` or `clang++`), else [`or_skip`].
pub fn cxx(what: &str) -> Option<String> {
    let candidates = std::env::var("CXX").ok().into_iter().chain(["c++", "g++", "clang++"].map(String::from));
    let found = candidates.into_iter().find(|cxx| runs(Command::new(cxx).arg("--version")).is_some());
    or_skip(Tool::Cxx, found.ok_or_else(|| "no C++ compiler ($CXX, c++, g++, clang++)".to_string()), what)
}

/// Neovim's version line, else [`or_skip`].
pub fn nvim(what: &str) -> Option<String> {
    let found = runs(Command::new("nvim").arg("--version")).ok_or_else(|| "`nvim` cannot be run".to_string());
    or_skip(Tool::Nvim, found, what)
}

/// The first line of a command's output, if it ran and succeeded.
fn runs(command: &mut Command) -> Option<String> {
    let output = command.output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).lines().next().unwrap_or("").to_string())
}
