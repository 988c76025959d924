//! Builds variants with skc (front end, CUDA C) and NVRTC (CUBIN, ptxas report), and writes or reads a folder
//! of CUBINs with a manifest (`manifest.tsv`: variant, kernel, registers, stack, spill stores, spill loads).

use std::path::{Path, PathBuf};

use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_core::driver::CheckOptions;
use skc_core::typeck::TypeckOptions;
use skc_core::ModuleLoader;
use skc_nvrtc::{CompileOptions, KernelResources};

use crate::variants::Variant;

/// The stdlib folder of this source tree (or `SKC_STDLIB`).
pub fn stdlib_dir() -> PathBuf {
    std::env::var_os("SKC_STDLIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../stdlib"))
}

/// `open M` finds `m.sk` next to the importing file, then in the stdlib folder.
struct Loader;

impl ModuleLoader for Loader {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let mut lower = module.to_string();
        lower[..1].make_ascii_lowercase();
        let dirs = [Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default(), stdlib_dir()];
        for dir in &dirs {
            let path = dir.join(format!("{lower}.sk"));
            if let Ok(text) = std::fs::read_to_string(&path) {
                return Ok((path.display().to_string(), text));
            }
        }
        Err(format!("no {lower}.sk"))
    }
}

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

/// The CUDA C of a variant (front end only; no NVRTC).
pub fn cuda_source(variant: &Variant) -> Result<String, String> {
    let path = stdlib_dir().join(variant.precision.source());
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let options = CheckOptions { typeck: TypeckOptions { defines: variant.defines() }, ..CheckOptions::default() };
    let checked = skc_core::check(&path.display().to_string(), &text, &Loader, &options);
    if checked.has_errors() {
        let messages: Vec<String> = checked.diagnostics.iter().map(|d| format!("{d:?}")).collect();
        return Err(format!("{}: {}", variant.name(), messages.join("\n")));
    }
    Ok(emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default()).source)
}

/// Front end, CUDA C and NVRTC (sm_90) for one variant.
pub fn build(variant: &Variant) -> Result<Built, String> {
    let cuda = cuda_source(variant)?;
    let options = CompileOptions { include_cubin: true, ..CompileOptions::default() };
    let out = skc_nvrtc::compile(&cuda, &format!("{}.cu", variant.name()), &options)
        .map_err(|e| format!("{}: {e}", variant.name()))?;
    let resources = out.resources.iter().filter(|r| r.is_entry).map(Resources::from).collect();
    Ok(Built { cuda, cubin: out.cubin, resources })
}

/// Writes `{name}.cubin` (and `{name}.cu` if `WENO_WRITE_CUDA` is set) and appends the variant's lines to `manifest.tsv`.
pub fn write(dir: &Path, variant: &Variant, built: &Built) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("{}.cubin", variant.name())), &built.cubin)?;
    // the CUDA C too, on request (to read, or to run on the host)
    if std::env::var_os("WENO_WRITE_CUDA").is_some() {
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
