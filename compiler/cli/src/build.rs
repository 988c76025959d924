//! `skc build` and `skc emit`: check, emit CUDA C, compile it with NVRTC (through the cache, in a worker process:
//! `nvrtc`), write the artifacts and print each kernel's resources, with its occupancy at its `[@launch_bounds]`
//! (else `--block-size`). `build` takes several files and says on stderr, in cargo's style, what it compiles and
//! each file it writes; a build of CUDA C alone goes on without NVRTC. A kernel that spills gets a warning
//! (W0100) naming it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use skc_core::codegen::{CudaOutput, EmitOptions};
use skc_core::session::{Files, Session};
use skc_core::syntax::ast::Item;
use skc_core::{Checked, Diagnostic, Severity};
use skc_nvrtc::{CompileOutput, KernelResources};

use crate::check::{check_input, report, session};
use crate::input::{artifact_stem, display_name};
use crate::lints::Lints;
use crate::nvrtc::Job;
use crate::output::print_diagnostics;
use crate::status::Status;
use crate::stdlib::CliFiles;
use crate::{FrontendArgs, MessageFormat};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Artifact {
    Cuda,
    Ptx,
    Cubin,
}

#[derive(Args)]
pub struct BuildArgs {
    /// The `.sk` files to build (`-`: standard input, whose artifacts are named `stdin.*`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output directory (default: the current directory).
    #[arg(short = 'o', long = "out-dir")]
    pub out_dir: Option<PathBuf>,
    /// Artifacts to write, comma-separated. `cuda` alone needs no NVRTC (its resource report does: it is left
    /// out, with a note, when no NVRTC is found).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "cuda,ptx,cubin")]
    pub emit: Vec<Artifact>,
    #[command(flatten)]
    pub codegen: CodegenArgs,
    #[command(flatten)]
    pub frontend: FrontendArgs,
}

#[derive(Args)]
pub struct EmitArgs {
    /// The `.sk` file (`-`: standard input).
    pub file: PathBuf,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value = "cuda")]
    pub emit: Artifact,
    #[command(flatten)]
    pub codegen: CodegenArgs,
    #[command(flatten)]
    pub frontend: FrontendArgs,
}

#[derive(Args, Clone)]
pub struct CodegenArgs {
    /// Target architecture.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    /// Debug build (`-G`: no optimisation, device debug information).
    #[arg(short = 'g', long)]
    pub debug: bool,
    /// Optimised build (the default; accepted for symmetry with `-g`).
    #[arg(short = 'O', long = "optimize")]
    pub optimize: bool,
    /// Leave out `#line` directives in the CUDA C.
    #[arg(long = "no-line-directives")]
    pub no_line_directives: bool,
    /// Block size the occupancy column assumes for a kernel without `[@launch_bounds N]` (one with uses N).
    #[arg(long = "block-size", default_value_t = 256)]
    pub block_size: u32,
    /// Folder or file of libnvrtc, and only there (else SKC_NVRTC_PATH, CUDA_PATH, /usr/local/cuda, the Python
    /// wheel, the system loader, in that order).
    #[arg(long = "nvrtc")]
    pub nvrtc: Option<PathBuf>,
    /// Do not read or write the compile cache.
    #[arg(long = "no-cache")]
    pub no_cache: bool,
}

/// Everything one build produced.
pub struct Built {
    pub checked: Checked,
    pub cuda: CudaOutput,
    /// NVRTC's output; `None` for a CUDA C-only build on a machine without NVRTC.
    pub compiled: Option<CompileOutput>,
}

/// The session of a build: the front-end arguments, `--arch` and the emit options; `Err(exit status)` after printing
/// what went wrong.
fn build_session<'f>(files: &'f dyn Files, codegen: &CodegenArgs, frontend: &FrontendArgs) -> Result<Session<'f>, u8> {
    let emit = EmitOptions { line_directives: !codegen.no_line_directives, ..EmitOptions::default() };
    match session(files, &codegen.arch, frontend) {
        Ok(session) => Ok(session.with_emit(emit)),
        Err(message) => Err(usage_error(message)),
    }
}

/// Prints a usage or I/O error; its exit status.
fn usage_error(message: String) -> u8 {
    errln!("error: {message}");
    2
}

/// The session, the checked program and its CUDA C; `Err(exit status)` after printing what went wrong.
fn front_end<'f>(
    files: &'f dyn Files,
    file: &Path,
    codegen: &CodegenArgs,
    frontend: &FrontendArgs,
) -> Result<(Session<'f>, Checked, CudaOutput), u8> {
    let session = build_session(files, codegen, frontend)?;
    let checked = check_input(&session, file).map_err(usage_error)?;
    if report(&checked, frontend) {
        return Err(1);
    }
    let cuda = session.emit(&checked);
    Ok((session, checked, cuda))
}

pub fn build(args: &BuildArgs) -> ExitCode {
    let status = Status::new(args.frontend.color);
    let started = Instant::now();
    let mut failed = false;
    for file in &args.files {
        match build_one(args, file, &status) {
            0 => {}
            1 => failed = true,
            // A usage, I/O or internal error ends the command; errors in one program do not stop the others.
            code => return ExitCode::from(code),
        }
    }
    if failed {
        return ExitCode::from(1);
    }
    let count = args.files.len();
    let plural = if count == 1 { "" } else { "s" };
    status.line("Finished", format!("{count} file{plural} in {:.2}s", started.elapsed().as_secs_f64()));
    ExitCode::SUCCESS
}

/// Builds one input; its exit status (0 built, 1 errors in the program, 2 usage or I/O, 101 internal error).
fn build_one(args: &BuildArgs, file: &Path, status: &Status) -> u8 {
    status.line("Compiling", format!("{} ({})", display_name(file), args.codegen.arch));
    let files = CliFiles::new();
    let (session, checked, cuda) = match front_end(&files, file, &args.codegen, &args.frontend) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let out_dir = args.out_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let job = Job {
        session: &session,
        checked: &checked,
        file,
        codegen: &args.codegen,
        frontend: &args.frontend,
        cubin: args.emit.contains(&Artifact::Cubin),
        keep_dir: Some(&out_dir),
    };
    let compiled = match compile_for(args, &job, &cuda) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let built = Built { checked, cuda, compiled };
    match write_artifacts(&built, args, file) {
        Ok(written) => written.iter().for_each(|path| status.line("Writing", path.display())),
        Err(message) => {
            errln!("error: {message}");
            return 2;
        }
    }
    report_resources(&built, args, file)
}

/// NVRTC's output for the artifacts `--emit` asks for. The resource report needs ptxas, so NVRTC runs even when
/// only CUDA C is written; then a missing NVRTC only leaves the report out (`Ok(None)`).
fn compile_for(args: &BuildArgs, job: &Job, cuda: &CudaOutput) -> Result<Option<CompileOutput>, u8> {
    if args.emit.iter().all(|artifact| *artifact == Artifact::Cuda) {
        job.compile_if_found(cuda)
    } else {
        job.compile(cuda).map(Some)
    }
}

/// Prints each kernel's resources, the device runtime's note and the spill warnings (W0100, under the warning
/// levels of `-D` and `-A`); the exit status of the file: 1 when a denied warning is left.
fn report_resources(built: &Built, args: &BuildArgs, file: &Path) -> u8 {
    let Some(compiled) = &built.compiled else {
        errln!("note: no NVRTC was found: the CUDA C is written, the resource report needs NVRTC (see --nvrtc)");
        return 0;
    };
    print_resources(built, compiled, &args.codegen, args.frontend.message_format);
    if built.cuda.needs_device_runtime && args.frontend.message_format != MessageFormat::Json {
        print_device_runtime_note(args, file);
    }
    let warnings = Lints::from_args(&args.frontend).unwrap_or_default().apply(&spill_warnings(built, compiled));
    print_diagnostics(&warnings, &built.checked.sources, args.frontend.message_format, args.frontend.color);
    u8::from(warnings.iter().any(|w| w.severity == Severity::Error))
}

pub fn emit(args: &EmitArgs) -> ExitCode {
    let files = CliFiles::new();
    let (session, checked, cuda) = match front_end(&files, &args.file, &args.codegen, &args.frontend) {
        Ok(x) => x,
        Err(code) => return ExitCode::from(code),
    };
    let job = Job {
        session: &session,
        checked: &checked,
        file: &args.file,
        codegen: &args.codegen,
        frontend: &args.frontend,
        cubin: false,
        keep_dir: None,
    };
    match args.emit {
        Artifact::Cuda => out!("{}", cuda.source),
        Artifact::Ptx => match job.compile(&cuda) {
            Ok(compiled) => out!("{}", compiled.ptx),
            Err(code) => return ExitCode::from(code),
        },
        Artifact::Cubin => {
            errln!("error: a CUBIN is binary; write it to a file with `skc build --emit cubin -o DIR`");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// A program that launches kernels from the device was compiled as relocatable device code: its CUBIN is an object
/// that must still be linked with the device runtime, which the runtime (`skc_runtime::Module`) does when it loads
/// the program. Says so, and whether this machine has the library.
fn print_device_runtime_note(args: &BuildArgs, file: &Path) {
    let stem = artifact_stem(file);
    println!(
        "note: `{}` launches kernels from the device: compiled as relocatable device code (--relocatable-device-code=true).",
        display_name(file)
    );
    if args.emit.contains(&Artifact::Cubin) {
        println!(
            "note: {stem}.cubin is an unlinked object; link it with libcudadevrt.a (the driver's cuLink*, or nvlink) \
             before loading. skc-runtime's Module does this itself."
        );
    }
    match skc_nvrtc::find_cudadevrt() {
        Ok(path) => println!("note: the device runtime to link with: {}", path.display()),
        Err(error) => println!("note: {error}"),
    }
}

/// Writes the artifacts `--emit` asks for and the kernels' signatures; the paths written, in order.
fn write_artifacts(built: &Built, args: &BuildArgs, file: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = args.out_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = artifact_stem(file);
    let mut written = Vec::new();
    let mut write = |name: String, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
        Ok::<(), String>(())
    };
    for artifact in &args.emit {
        match (artifact, &built.compiled) {
            (Artifact::Cuda, _) => write(format!("{stem}.cu"), built.cuda.source.as_bytes())?,
            (Artifact::Ptx, Some(compiled)) => write(format!("{stem}.ptx"), compiled.ptx.as_bytes())?,
            (Artifact::Cubin, Some(compiled)) => write(format!("{stem}.cubin"), &compiled.cubin)?,
            // Only a CUDA C-only build goes on without NVRTC.
            (Artifact::Ptx | Artifact::Cubin, None) => {}
        }
    }
    let signatures = serde_json::to_string_pretty(&built.cuda.kernels).map_err(|e| e.to_string())?;
    write(format!("{stem}.kernels.json"), signatures.as_bytes())?;
    Ok(written)
}

/// ptxas' report of the kernel named `name` in the `.sk` source (its CUDA C symbol may differ: `free` is
/// renamed because C reserves it).
fn kernel_resources<'a>(built: &Built, compiled: &'a CompileOutput, name: &str) -> Option<&'a KernelResources> {
    let symbol = built.cuda.kernels.iter().find(|k| k.name == name).map_or(name, |k| k.symbol.as_str());
    compiled.resources.iter().find(|r| r.is_entry && r.name == symbol)
}

/// The block size a kernel's occupancy is computed for: its `[@launch_bounds N]` when it has one (`true`), else
/// `--block-size` (`false`).
fn occupancy_block_size(built: &Built, kernel: &str, codegen: &CodegenArgs) -> (u32, bool) {
    let declared = built.checked.types.kernels.iter().find(|k| k.name == kernel).and_then(|k| {
        match built.checked.module.items.get(k.item) {
            Some(Item::Kernel(item)) => item.launch_bounds.map(|bounds| bounds.max_threads),
            _ => None,
        }
    });
    match declared {
        Some(threads) => (threads, true),
        None => (codegen.block_size, false),
    }
}

fn print_resources(built: &Built, compiled: &CompileOutput, codegen: &CodegenArgs, format: MessageFormat) {
    let kernels: Vec<(&str, &KernelResources)> = built
        .cuda
        .kernels
        .iter()
        .filter_map(|k| Some((k.name.as_str(), kernel_resources(built, compiled, &k.name)?)))
        .collect();
    if format == MessageFormat::Json {
        let rows: Vec<_> = kernels.iter().map(|(name, r)| resource_json(built, name, r, codegen)).collect();
        let report = serde_json::json!({
            "reason": "kernel-resources",
            "arch": codegen.arch,
            "block_size": codegen.block_size,
            "nvrtc_version": format!("{}.{}", compiled.nvrtc_version.0, compiled.nvrtc_version.1),
            "cache_hit": compiled.cache_hit,
            "compile_ms": compiled.elapsed.as_secs_f64() * 1e3,
            "kernels": rows,
        });
        outln!("{report}");
        return;
    }
    outln!(
        "{:<24} {:>5} {:>6} {:>11} {:>7} {:>8}  occupancy on {} (threads/block: [@launch_bounds], else --block-size)",
        "kernel",
        "regs",
        "stack",
        "spill st/ld",
        "smem",
        "barriers",
        codegen.arch
    );
    for (name, r) in kernels {
        let (block_size, from_bounds) = occupancy_block_size(built, name, codegen);
        let occ = skc_nvrtc::occupancy(r, block_size, 0, &codegen.arch);
        outln!(
            "{:<24} {:>5} {:>6} {:>11} {:>7} {:>8}  at {} threads/block{}: {} blocks/SM, {} warps/SM ({:.0}%), limited by {:?}",
            name,
            r.registers,
            r.stack_frame_bytes,
            format!("{}/{}", r.spill_store_bytes, r.spill_load_bytes),
            r.shared_bytes,
            r.barriers,
            block_size,
            if from_bounds { " (launch bounds)" } else { "" },
            occ.blocks_per_sm,
            occ.warps_per_sm,
            occ.occupancy_fraction * 100.0,
            occ.limited_by
        );
    }
    outln!(
        "NVRTC {}.{}, {} in {:.1} ms",
        compiled.nvrtc_version.0,
        compiled.nvrtc_version.1,
        if compiled.cache_hit { "cache hit" } else { "compiled" },
        compiled.elapsed.as_secs_f64() * 1e3
    );
}

fn resource_json(built: &Built, name: &str, r: &KernelResources, codegen: &CodegenArgs) -> serde_json::Value {
    let (block_size, from_bounds) = occupancy_block_size(built, name, codegen);
    let occ = skc_nvrtc::occupancy(r, block_size, 0, &codegen.arch);
    serde_json::json!({
        "name": name,
        "symbol": r.name,
        "registers": r.registers,
        "stack_frame_bytes": r.stack_frame_bytes,
        "spill_store_bytes": r.spill_store_bytes,
        "spill_load_bytes": r.spill_load_bytes,
        "shared_bytes": r.shared_bytes,
        "constant_bytes": r.constant_bytes,
        "barriers": r.barriers,
        "occupancy": {
            "block_size": block_size,
            "block_size_from": if from_bounds { "launch_bounds" } else { "block_size_option" },
            "blocks_per_sm": occ.blocks_per_sm,
            "warps_per_sm": occ.warps_per_sm,
            "fraction": occ.occupancy_fraction,
            "limited_by": format!("{:?}", occ.limited_by),
        },
    })
}

/// W0100 for every kernel whose registers spill to local memory, pointing at the kernel's name.
fn spill_warnings(built: &Built, compiled: &CompileOutput) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for kernel in &built.checked.types.kernels {
        let Some(r) = kernel_resources(built, compiled, &kernel.name) else { continue };
        if r.spill_store_bytes == 0 && r.spill_load_bytes == 0 {
            continue;
        }
        let span = match built.checked.module.items.get(kernel.item) {
            Some(item) => item.name().span,
            None => kernel.span,
        };
        out.push(
            Diagnostic::warning("W0100", format!("kernel `{}` spills registers to local memory", kernel.name))
                .primary(
                    span,
                    format!(
                        "{} bytes of spill stores and {} bytes of spill loads with {} registers",
                        r.spill_store_bytes, r.spill_load_bytes, r.registers
                    ),
                )
                .help("reduce live values (smaller local arrays, fewer unrolled iterations) or raise the block's register budget"),
        );
    }
    out
}
