//! skc-interp: runs `.sk` kernels on the CPU, directly from the checked program, with the language's semantics:
//! every thread of the launch runs; a barrier completes only when every thread of the block reaches the same
//! barrier; a warp collective only when every existing lane of the warp reaches the same collective; shuffles,
//! votes and atomics give CUDA's results. What goes wrong is reported as a [`Report`] (a skc-core `Diagnostic`
//! with an `R` code): divergence, data races, out-of-bounds accesses, division by zero, reads of uninitialised
//! shared memory, kernels that never end.
//!
//! ```ignore
//! let checked = skc_core::check("add.sk", text, &skc_core::NoModules, &Default::default());
//! let program = skc_interp::Program::new(&checked);
//! let mut args = vec![Arg::Vector(Buffer::from_f32(&a)), Arg::Vector(Buffer::from_f32(&b)),
//!                     Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Float32), n)), Arg::i32(n as i32)];
//! let outcome = skc_interp::launch(&program, "vector_add", &Geometry::linear(blocks, 256), &mut args, &Options::default())?;
//! ```
//!
//! Layout: `compile` (typed AST to register code, `code`), `exec` (one thread's inner loop, with `ops` for the
//! arithmetic and `memory` for handles, shadow memory and happens-before), `sched` (one block: scheduling threads
//! between synchronisation points, completing barriers and collectives with `warp`, finding divergence), `launch`
//! (a grid: arguments, blocks, device-side launches), `report` (diagnostics), `value` (words, buffers, C layout),
//! `args` (JSON arguments and `.npy` files), and `fuzz` (the generator of random kernels and the properties that
//! test the compiler with the interpreter).

pub mod args;
mod code;
mod compile;
mod exec;
pub mod fuzz;
mod launch;
mod memory;
pub mod npy;
mod ops;
pub mod report;
mod sched;
mod thread;
pub mod value;
mod warp;

use skc_core::contract::LaunchContract;
use skc_core::syntax::ast::{ExprId, Item, Module};
use skc_core::types::{Type, TypeInfo};
use skc_core::{Checked, Span};

pub use launch::{launch, Geometry, LaunchError, Options, Outcome, Schedule};
pub use report::{Report, ReportKind};
pub use value::{Arg, Buffer, Scalar, ValueType};

/// The codes of the convergence analysis: a program whose only errors have these codes is well typed and can run
/// (`skc run --no-check`), to watch the divergence the analysis predicts.
pub const CONVERGENCE_CODES: &[&str] = &["E0001", "E0002", "E0003", "E0004", "E0006"];

/// A kernel parameter as a launch sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    Scalar(Scalar),
    Record(ValueType),
    /// A vector; `written` when the kernel (or a function it calls) may write it.
    Vector {
        elem: ValueType,
        written: bool,
    },
    /// A unit parameter: nothing is passed.
    Unit,
}

/// A compiled kernel's interface.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    /// The element type of its dynamic shared array, if it declares one (sized by the launch's bytes).
    pub dynamic_shared: Option<ValueType>,
    /// What every launch must keep (`[@block_multiple 32]`, ...), checked before any thread runs (R0013).
    pub contract: LaunchContract,
    /// The kernel's name where it is defined (what a contract report points at).
    pub name_span: Span,
}

/// A program compiled for the interpreter. It keeps its own copy of the AST (reports point into it), so it
/// outlives the `Checked` it came from.
pub struct Program {
    code: code::Code,
    module: Module,
    /// The text of each source file (by `FileId`), for report labels.
    sources: Vec<String>,
    kernels: Vec<Kernel>,
}

impl Program {
    /// Compiles every kernel and function of a checked program. The program must be well typed (no errors but,
    /// possibly, those of [`CONVERGENCE_CODES`]: see [`Program::runnable`]).
    pub fn new(checked: &Checked) -> Program {
        let sources = checked.sources.files().map(|(_, f)| f.text.clone()).collect();
        Program::from_parts(&checked.module, &checked.types, sources)
    }

    /// From a module and its types; `sources` are the texts of its files (by `FileId`), or empty.
    pub fn from_parts(module: &Module, types: &TypeInfo, sources: Vec<String>) -> Program {
        let mut code = compile::compile(module, types);
        for site in &mut code.printf_sites {
            let span = module.expr_spans.get(site.format.index()).copied().unwrap_or_default();
            let text = sources.get(span.file.0 as usize).and_then(|t| t.get(span.range())).unwrap_or("\"\"");
            site.pieces = skc_core::printf_format::parse(text).unwrap_or_default();
        }
        let kernels = types.kernels.iter().map(|k| kernel_interface(k, module, types)).collect();
        Program { code, module: module.clone(), sources, kernels }
    }

    /// Can the interpreter run this checked program? Not when it has errors other than the convergence
    /// analysis's (those it can run, to show them happening).
    pub fn runnable(checked: &Checked) -> Result<(), &skc_core::Diagnostic> {
        match checked.diagnostics.iter().find(|d| d.is_error() && !CONVERGENCE_CODES.contains(&d.code)) {
            Some(d) => Err(d),
            None => Ok(()),
        }
    }

    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    fn kernel_index(&self, name: &str) -> Option<usize> {
        self.kernels.iter().position(|k| k.name == name)
    }

    pub(crate) fn span(&self, e: ExprId) -> Span {
        self.module.expr_spans.get(e.index()).copied().unwrap_or_default()
    }

    /// The source text of `span` (empty if the program was built without its sources).
    pub(crate) fn source_text(&self, span: Span) -> &str {
        self.sources.get(span.file.0 as usize).and_then(|t| t.get(span.range())).unwrap_or("")
    }

    /// Instructions of the compiled code (a measure of its size).
    pub fn instruction_count(&self) -> usize {
        self.code.instrs.len()
    }
}

fn kernel_interface(info: &skc_core::types::KernelInfo, module: &Module, types: &TypeInfo) -> Kernel {
    let params = info
        .params
        .iter()
        .map(|p| {
            let kind = match &p.ty {
                Type::Unit => ParamKind::Unit,
                Type::Vector(elem) => ParamKind::Vector {
                    elem: ValueType::of(elem, types).unwrap_or(ValueType::Scalar(Scalar::Int32)),
                    written: p.written,
                },
                Type::Record(_) => {
                    ParamKind::Record(ValueType::of(&p.ty, types).unwrap_or(ValueType::Scalar(Scalar::Int32)))
                }
                other => ParamKind::Scalar(Scalar::of(other).unwrap_or(Scalar::Int32)),
            };
            Param { name: p.name.clone(), kind }
        })
        .collect();
    let dynamic_shared = info.dynamic_shared.as_ref().and_then(|t| ValueType::of(t, types));
    let (contract, name_span) = match module.items.get(info.item) {
        Some(Item::Kernel(k)) => (k.contract, k.name.span),
        _ => (LaunchContract::default(), Span::default()),
    };
    Kernel { name: info.name.clone(), params, dynamic_shared, contract, name_span }
}
