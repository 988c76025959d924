//! Builds variants with skc (front end, CUDA C, through one session) and NVRTC (CUBIN, ptxas report, through
//! skc-runtime's `Program`), and writes or reads a folder of CUBINs with a manifest (`manifest.tsv`: variant,
//! kernel, registers, stack, spill stores, spill loads) that a GPU machine without NVRTC loads.

use std::path::Path;

use skc_core::session::{stdlib_root, DiskFiles, Session};
use skc_nvrtc::{CompileOptions, KernelResources};
use skc_runtime::{Context, Module, Program};

use crate::variants::Variant;

/// One kernel's resources as ptxas reported them.
#[derive(Clone, Debug, PartialEq)]
pub struct Resources {
    pub kernel: String,
    pub registers: u32,
    pub stack: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

impl From<&KernelResources> for Resources {
    fn from(r: &KernelResources) -> Resources {
        Resources {
            kernel: r.name.clone(),
            registers: r.registers,
            stack: r.stack_frame_bytes,
            spill_stores: r.spill_store_bytes,
            spill_loads: r.spill_load_bytes,
        }
    }
}

pub struct Built {
    pub cuda: String,
    pub cubin: Vec<u8>,
    pub resources: Vec<Resources>,
}

/// A variant's program (front end only; no NVRTC): its source in the standard library, with its `-D`
/// definitions, named `{variant}.cu` for NVRTC.
pub fn program(variant: &Variant) -> Result<Program, String> {
    let path = stdlib_root().join(variant.precision.source());
    let files = DiskFiles::new();
    let session = Session::standard(&files).with_defines(variant.defines());
    let compiled = session.compile_file(&path).map_err(|e| format!("{}: {e}", variant.name()))?;
    Ok(Program::from_compiled(&format!("{}.cu", variant.name()), &compiled))
}

/// The CUDA C of a variant.
pub fn cuda_source(variant: &Variant) -> Result<String, String> {
    Ok(program(variant)?.cuda_source)
}

/// Front end, CUDA C and NVRTC (sm_90, no line tables) for one variant.
pub fn build(variant: &Variant) -> Result<Built, String> {
    let program = program(variant)?;
    let out = program.compile_with(CompileOptions::default()).map_err(|e| format!("{}: {e}", variant.name()))?;
    let resources = out.resources.iter().filter(|r| r.is_entry).map(Resources::from).collect();
    Ok(Built { cuda: program.cuda_source, cubin: out.cubin, resources })
}

/// Loads the CUBIN of `variant` built into `dir` (by [`write`]), with the signatures of the variant's program.
pub fn load(ctx: &Context, dir: &Path, variant: &Variant) -> Result<Module, String> {
    let path = dir.join(format!("{}.cubin", variant.name()));
    let cubin = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Module::from_cubin(ctx, program(variant)?, cubin).map_err(|e| e.to_string())
}

/// Writes `{name}.cubin` (and, with `cuda`, `{name}.cu`: to read, or to run on the host) and appends the
/// variant's lines to `manifest.tsv`.
pub fn write(dir: &Path, variant: &Variant, built: &Built, cuda: bool) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("{}.cubin", variant.name())), &built.cubin)?;
    if cuda {
        std::fs::write(dir.join(format!("{}.cu", variant.name())), &built.cuda)?;
    }
    let mut manifest = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("manifest.tsv"))?;
    for r in &built.resources {
        writeln!(
            manifest,
            "{}\t{}\t{}\t{}\t{}\t{}",
            variant.name(),
            r.kernel,
            r.registers,
            r.stack,
            r.spill_stores,
            r.spill_loads
        )?;
    }
    Ok(())
}

/// The manifest: (variant, resources of each kernel), in file order.
pub fn read_manifest(dir: &Path) -> Vec<(Variant, Vec<Resources>)> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap_or_default();
    let mut out: Vec<(Variant, Vec<Resources>)> = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 6 {
            continue;
        }
        let Some(variant) = Variant::parse(f[0]) else { continue };
        let num = |s: &str| s.parse::<u32>().unwrap_or(0);
        let r = Resources {
            kernel: f[1].into(),
            registers: num(f[2]),
            stack: num(f[3]),
            spill_stores: num(f[4]),
            spill_loads: num(f[5]),
        };
        match out.iter_mut().find(|(v, _)| *v == variant) {
            Some((_, list)) => list.push(r),
            None => out.push((variant, vec![r])),
        }
    }
    out
}
