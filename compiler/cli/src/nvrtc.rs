//! Running NVRTC for `skc build` and `skc emit --emit ptx`: through the compile cache, and on a miss in a worker
//! process (this same binary, `skc nvrtc-worker`), so that NVRTC crashing on the generated CUDA C ends the
//! worker, not skc. NVRTC crashing on, or rejecting, CUDA C that skc generated is an internal compiler error
//! (E0300, exit 101): the CUDA C is kept for the report, and after a crash each kernel's own CUDA C is compiled
//! alone to name the kernels NVRTC crashes on.

use std::path::{Path, PathBuf};

use skc_core::codegen::{CudaOutput, EmitOptions};
use skc_core::session::Session;
use skc_core::{Checked, Diagnostic};
use skc_nvrtc::{Cache, CompileOptions, CompileOutput, Isolation, NvrtcError, Runner, WorkerCommand, WORKER_ENV};

use crate::build::CodegenArgs;
use crate::input::{artifact_stem, display_name};
use crate::output::print_diagnostics;
use crate::FrontendArgs;

/// The exit status of an internal compiler error, as rustc's.
pub const ICE_EXIT: u8 = 101;

/// Where NVRTC runs: the worker `SKC_NVRTC_WORKER` names (or `in-process`), else this binary as its own worker.
fn isolation() -> Isolation {
    if std::env::var_os(WORKER_ENV).is_some_and(|v| !v.is_empty()) {
        return Isolation::from_env();
    }
    WorkerCommand::current_exe().map_or(Isolation::InProcess, Isolation::Worker)
}

/// NVRTC where `--nvrtc` says, and only there; else the default search.
fn runner(codegen: &CodegenArgs) -> Runner {
    let search = match &codegen.nvrtc {
        Some(path) => skc_nvrtc::LibrarySearch::only(path.clone()),
        None => skc_nvrtc::LibrarySearch::from_env(),
    };
    Runner { search, isolation: isolation() }
}

fn program_name(file: &Path) -> String {
    format!("{}.cu", artifact_stem(file))
}

/// What a compilation needs besides the CUDA C.
pub struct Job<'a> {
    /// The session the program was checked and emitted by (its emit options, for a kernel's CUDA C alone).
    pub session: &'a Session<'a>,
    pub checked: &'a Checked,
    pub file: &'a Path,
    pub codegen: &'a CodegenArgs,
    pub frontend: &'a FrontendArgs,
    pub cubin: bool,
    /// Where the CUDA C is kept when NVRTC fails on it (`None`: the system's temporary folder).
    pub keep_dir: Option<&'a Path>,
}

impl Job<'_> {
    fn options(&self, cuda: &CudaOutput) -> CompileOptions {
        CompileOptions {
            arch: self.codegen.arch.clone(),
            debug: self.codegen.debug,
            line_info: !self.codegen.debug,
            include_cubin: self.cubin,
            relocatable: cuda.needs_device_runtime,
            ..CompileOptions::default()
        }
    }

    /// Compiles `cuda`; `Err(exit status)` after printing what went wrong.
    pub fn compile(&self, cuda: &CudaOutput) -> Result<CompileOutput, u8> {
        let runner = runner(self.codegen);
        self.compile_with(&runner, cuda).map_err(|error| self.report_failure(cuda, &runner, error))
    }

    /// [`compile`](Self::compile), but `Ok(None)` when no NVRTC library is found (a build that writes only
    /// CUDA C goes on without its resource report).
    pub fn compile_if_found(&self, cuda: &CudaOutput) -> Result<Option<CompileOutput>, u8> {
        let runner = runner(self.codegen);
        match self.compile_with(&runner, cuda) {
            Ok(compiled) => Ok(Some(compiled)),
            Err(NvrtcError::LibraryNotFound { .. }) => Ok(None),
            Err(error) => Err(self.report_failure(cuda, &runner, error)),
        }
    }

    fn compile_with(&self, runner: &Runner, cuda: &CudaOutput) -> Result<CompileOutput, NvrtcError> {
        let cache = if self.codegen.no_cache { None } else { Cache::from_env() };
        runner.compile_cached(
            &cuda.source,
            &program_name(self.file),
            &self.options(cuda),
            cache.as_ref(),
            env!("CARGO_PKG_VERSION"),
        )
    }

    fn report_failure(&self, cuda: &CudaOutput, runner: &Runner, error: NvrtcError) -> u8 {
        let (kept, why) = match &error {
            NvrtcError::Crashed { ended, .. } => (self.keep(cuda, None), format!("NVRTC's worker process was {ended}")),
            NvrtcError::Compile { log } => {
                (self.keep(cuda, Some(log)), format!("NVRTC rejected it:\n{}", log.trim_end()))
            }
            _ => {
                errln!("error: {error}");
                return 2;
            }
        };
        let kernels = match &error {
            NvrtcError::Crashed { .. } => self.kernels_it_crashes_on(runner),
            _ => Vec::new(),
        };
        let diagnostics = self.diagnostics(&kernels, matches!(error, NvrtcError::Crashed { .. }), &why, &kept);
        print_diagnostics(&diagnostics, &self.checked.sources, self.frontend.message_format, self.frontend.color);
        ICE_EXIT
    }

    /// Writes the CUDA C (and NVRTC's log, `STEM.nvrtc.log`) next to the other artifacts, or into the temporary
    /// folder; the path of the CUDA C, or why it could not be written.
    fn keep(&self, cuda: &CudaOutput, log: Option<&str>) -> Result<PathBuf, String> {
        let dir = match self.keep_dir {
            Some(dir) => dir.to_path_buf(),
            None => std::env::temp_dir().join(format!("skc-ice-{}", std::process::id())),
        };
        let path = dir.join(program_name(self.file));
        let log_path = dir.join(format!("{}.nvrtc.log", artifact_stem(self.file)));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, &cuda.source))
            .and_then(|()| log.map_or(Ok(()), |log| std::fs::write(&log_path, log)))
            .map(|()| path.clone())
            .map_err(|e| format!("it could not be written to {}: {e}", path.display()))
    }

    /// The kernels whose CUDA C alone (with what it calls) still crashes NVRTC; empty if none does alone.
    fn kernels_it_crashes_on(&self, runner: &Runner) -> Vec<usize> {
        let checked = self.checked;
        (0..checked.types.kernels.len())
            .filter(|&index| {
                let only_kernels = Some(vec![checked.types.kernels[index].name.clone()]);
                let options = EmitOptions { only_kernels, ..self.session.emit.clone() };
                let alone = self.session.clone().with_emit(options).emit(checked);
                let result = runner.compile(&alone.source, &program_name(self.file), &self.options(&alone));
                matches!(result, Err(NvrtcError::Crashed { .. }))
            })
            .collect()
    }

    /// One E0300 per kernel NVRTC crashes on, or one at the first kernel for the whole program.
    fn diagnostics(
        &self,
        kernels: &[usize],
        crashed: bool,
        why: &str,
        kept: &Result<PathBuf, String>,
    ) -> Vec<Diagnostic> {
        let types = &self.checked.types;
        let what = if crashed { "crashed on" } else { "failed on" };
        let kept = match kept {
            Ok(path) => format!("the CUDA C is kept in {}", path.display()),
            Err(why) => format!("the CUDA C was not kept: {why}"),
        };
        let report = format!("this is a bug in skc: please report it with {} and the CUDA C", display_name(self.file));
        let diagnostic = |span, message: String, label: String| {
            Diagnostic::error("E0300", message)
                .primary(span, label)
                .note(why.to_string())
                .note(kept.clone())
                .help(report.clone())
        };
        if kernels.is_empty() {
            let span = types.kernels.first().map(|k| self.kernel_name_span(k)).unwrap_or_default();
            let message =
                format!("internal compiler error: NVRTC {what} the CUDA C generated for {}", display_name(self.file));
            let label =
                if crashed { "no kernel's CUDA C alone makes it crash" } else { "in the CUDA C of this program" };
            return vec![diagnostic(span, message, label.to_string())];
        }
        kernels
            .iter()
            .map(|&i| {
                let kernel = &types.kernels[i];
                diagnostic(
                    self.kernel_name_span(kernel),
                    format!("internal compiler error: NVRTC {what} the CUDA C generated for kernel `{}`", kernel.name),
                    "NVRTC crashes on this kernel's CUDA C".to_string(),
                )
            })
            .collect()
    }

    fn kernel_name_span(&self, kernel: &skc_core::types::KernelInfo) -> skc_core::source::Span {
        match self.checked.module.items.get(kernel.item) {
            Some(item) => item.name().span,
            None => kernel.span,
        }
    }
}
