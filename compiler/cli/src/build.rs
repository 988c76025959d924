//! `skc build` and `skc emit`: check, emit CUDA C, compile it with NVRTC (through the cache, in a worker process:
//! `nvrtc`), write the artifacts and print each kernel's resources. A kernel that spills gets a warning (W0100)
//! naming it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use skc_core::codegen::{emit_cuda, CudaOutput, EmitOptions};
use skc_core::{Checked, Diagnostic};
use skc_nvrtc::{CompileOutput, KernelResources};

use crate::check::{check_file, report};
use crate::nvrtc::{file_stem, Job};
use crate::output::print_diagnostics;
use crate::{FrontendArgs, MessageFormat};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Artifact {
    Cuda,
    Ptx,
    Cubin,
}

#[derive(Args)]
pub struct BuildArgs {
    /// The `.sk` file to build.
    pub file: PathBuf,
    /// Output directory (default: the current directory).
    #[arg(short = 'o', long = "out-dir")]
    pub out_dir: Option<PathBuf>,
    /// Artifacts to write, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "cuda,ptx,cubin")]
    pub emit: Vec<Artifact>,
    #[command(flatten)]
    pub codegen: CodegenArgs,
    #[command(flatten)]
    pub frontend: FrontendArgs,
}

#[derive(Args)]
pub struct EmitArgs {
    /// The `.sk` file.
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
    /// Block size the occupancy column assumes.
    #[arg(long = "block-size", default_value_t = 256)]
    pub block_size: u32,
    /// Folder or file of libnvrtc (else SKC_NVRTC_PATH, CUDA_PATH, /usr/local/cuda, the Python wheel).
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
    pub compiled: CompileOutput,
}

/// Front end and CUDA C; `Err(exit code)` after printing what went wrong.
fn front_end(
    file: &PathBuf,
    codegen: &CodegenArgs,
    frontend: &FrontendArgs,
) -> Result<(Checked, CudaOutput), ExitCode> {
    let checked = check_file(file, &codegen.arch, frontend).map_err(|message| {
        errln!("error: {message}");
        ExitCode::from(2)
    })?;
    if report(&checked, frontend) {
        return Err(ExitCode::from(1));
    }
    let options = EmitOptions { line_directives: !codegen.no_line_directives, ..EmitOptions::default() };
    let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &options);
    Ok((checked, cuda))
}

pub fn build(args: &BuildArgs) -> ExitCode {
    let (checked, cuda) = match front_end(&args.file, &args.codegen, &args.frontend) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // The resource report needs ptxas, so NVRTC runs even when only CUDA C is written.
    let out_dir = args.out_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let job = Job {
        checked: &checked,
        file: &args.file,
        codegen: &args.codegen,
        frontend: &args.frontend,
        cubin: args.emit.contains(&Artifact::Cubin),
        keep_dir: Some(&out_dir),
    };
    let compiled = match job.compile(&cuda) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let built = Built { checked, cuda, compiled };
    if let Err(message) = write_artifacts(&built, args) {
        errln!("error: {message}");
        return ExitCode::from(2);
    }
    print_resources(&built, &args.codegen, args.frontend.message_format);
    if built.cuda.needs_device_runtime && args.frontend.message_format != MessageFormat::Json {
        print_device_runtime_note(args);
    }
    let mut warnings = spill_warnings(&built);
    // `-A W0100` silences these as the front end's own warnings are (the codes were checked by `check_file`).
    warnings.retain(|w| !args.frontend.allow.iter().any(|code| code.trim().eq_ignore_ascii_case(w.code)));
    print_diagnostics(&warnings, &built.checked.sources, args.frontend.message_format, args.frontend.color);
    if args.frontend.deny_warnings && !warnings.is_empty() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

pub fn emit(args: &EmitArgs) -> ExitCode {
    let (checked, cuda) = match front_end(&args.file, &args.codegen, &args.frontend) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let job = Job {
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
            Err(code) => return code,
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
fn print_device_runtime_note(args: &BuildArgs) {
    let stem = file_stem(&args.file);
    println!(
        "note: `{}` launches kernels from the device: compiled as relocatable device code (--relocatable-device-code=true).",
        args.file.display()
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

fn write_artifacts(built: &Built, args: &BuildArgs) -> Result<(), String> {
    let dir = args.out_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = file_stem(&args.file);
    let write = |name: String, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    for artifact in &args.emit {
        match artifact {
            Artifact::Cuda => write(format!("{stem}.cu"), built.cuda.source.as_bytes())?,
            Artifact::Ptx => write(format!("{stem}.ptx"), built.compiled.ptx.as_bytes())?,
            Artifact::Cubin => write(format!("{stem}.cubin"), &built.compiled.cubin)?,
        }
    }
    let signatures = serde_json::to_string_pretty(&built.cuda.kernels).map_err(|e| e.to_string())?;
    write(format!("{stem}.kernels.json"), signatures.as_bytes())
}

fn kernel_resources<'a>(built: &'a Built, name: &str) -> Option<&'a KernelResources> {
    built.compiled.resources.iter().find(|r| r.is_entry && r.name == name)
}

fn print_resources(built: &Built, codegen: &CodegenArgs, format: MessageFormat) {
    let compiled = &built.compiled;
    let kernels: Vec<&KernelResources> =
        built.cuda.kernels.iter().filter_map(|k| kernel_resources(built, &k.name)).collect();
    if format == MessageFormat::Json {
        let rows: Vec<_> = kernels.iter().map(|r| resource_json(r, codegen)).collect();
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
        "{:<24} {:>5} {:>6} {:>11} {:>7} {:>8}  occupancy at {} threads/block ({})",
        "kernel",
        "regs",
        "stack",
        "spill st/ld",
        "smem",
        "barriers",
        codegen.block_size,
        codegen.arch
    );
    for r in kernels {
        let occ = skc_nvrtc::occupancy(r, codegen.block_size, 0, &codegen.arch);
        outln!(
            "{:<24} {:>5} {:>6} {:>11} {:>7} {:>8}  {} blocks/SM, {} warps/SM ({:.0}%), limited by {:?}",
            r.name,
            r.registers,
            r.stack_frame_bytes,
            format!("{}/{}", r.spill_store_bytes, r.spill_load_bytes),
            r.shared_bytes,
            r.barriers,
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

fn resource_json(r: &KernelResources, codegen: &CodegenArgs) -> serde_json::Value {
    let occ = skc_nvrtc::occupancy(r, codegen.block_size, 0, &codegen.arch);
    serde_json::json!({
        "name": r.name,
        "registers": r.registers,
        "stack_frame_bytes": r.stack_frame_bytes,
        "spill_store_bytes": r.spill_store_bytes,
        "spill_load_bytes": r.spill_load_bytes,
        "shared_bytes": r.shared_bytes,
        "constant_bytes": r.constant_bytes,
        "barriers": r.barriers,
        "occupancy": {
            "block_size": codegen.block_size,
            "blocks_per_sm": occ.blocks_per_sm,
            "warps_per_sm": occ.warps_per_sm,
            "fraction": occ.occupancy_fraction,
            "limited_by": format!("{:?}", occ.limited_by),
        },
    })
}

/// W0100 for every kernel whose registers spill to local memory, pointing at the kernel's name.
fn spill_warnings(built: &Built) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for kernel in &built.checked.types.kernels {
        let Some(r) = kernel_resources(built, &kernel.name) else { continue };
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
