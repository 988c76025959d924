//! Compiling one device function or kernel: its frame (parameters first, in order, then a register that stays
//! zero, then temporaries and locals allocated as a stack), its body, and its exit.

use std::collections::HashMap;

use skc_core::syntax::ast::{ExprId, Item};
use skc_core::types::{LocalId, Type};

use super::layout::Layout;
use crate::code::{Code, FunctionCode, Instr, Reg};

/// The loop a `break` or `continue` leaves: jumps to patch when its exit and next-iteration points are known.
#[derive(Default)]
pub struct LoopLabels {
    pub breaks: Vec<usize>,
    pub continues: Vec<usize>,
}

/// The state of compiling one function or kernel.
pub struct FnCompiler<'l, 'a> {
    pub layout: &'l Layout<'a>,
    pub code: &'l mut Code,
    /// The registers of each local in scope (parameters, `let`s, loop counters, arrays, cells).
    pub locals: HashMap<LocalId, Reg>,
    /// The next free register, and the most used so far (the frame size).
    pub next: Reg,
    pub max: Reg,
    /// Words of the frame's local memory used so far.
    pub local_words: u32,
    /// A register nothing writes: reads as 0 (frames start zeroed).
    pub zero: Reg,
    /// The registers of the constants the body uses (literals, constants, loop steps), set once on entry.
    pub pool: HashMap<u64, Reg>,
    pub loops: Vec<LoopLabels>,
    pub in_kernel: bool,
    /// Words of the function's result.
    pub ret_words: u32,
    /// AST nodes compiled since the last instruction emitted (see `Code::weights`).
    pub nodes: u32,
    /// The iteration counters of the loops being compiled, outermost first.
    pub iterations: Vec<crate::code::LoopCounter>,
}

impl<'l, 'a> FnCompiler<'l, 'a> {
    fn new(layout: &'l Layout<'a>, code: &'l mut Code, in_kernel: bool, ret_words: u32) -> Self {
        FnCompiler {
            layout,
            code,
            locals: HashMap::new(),
            next: 0,
            max: 0,
            local_words: 0,
            zero: 0,
            pool: HashMap::new(),
            loops: Vec::new(),
            in_kernel,
            ret_words,
            nodes: 0,
            iterations: Vec::new(),
        }
    }

    pub fn emit(&mut self, instr: Instr, site: ExprId) -> usize {
        self.code.sites.push(site);
        self.code.weights.push(self.nodes.min(u16::MAX as u32) as u16);
        self.nodes = 0;
        let start = self.code.iteration_regs.len() as u32;
        if matches!(instr, Instr::Sync { .. } | Instr::Call { .. }) {
            self.code.iteration_regs.extend_from_slice(&self.iterations);
        }
        let len = self.code.iteration_regs.len() as u32 - start;
        self.code.loops_around.push((start, len));
        self.code.instrs.push(instr);
        self.code.instrs.len() - 1
    }

    /// The address of the next instruction.
    pub fn here(&self) -> u32 {
        self.code.instrs.len() as u32
    }

    /// Points the jump at `at` to `to`.
    pub fn patch(&mut self, at: usize, to: u32) {
        match &mut self.code.instrs[at] {
            Instr::Jump { to: t } | Instr::JumpIf { to: t, .. } | Instr::JumpIfNot { to: t, .. } => *t = to,
            Instr::Loop { to: t, .. } | Instr::BranchI32 { to: t, .. } | Instr::ForI32 { to: t, .. } => *t = to,
            other => debug_assert!(false, "patching {other:?}"),
        }
    }

    pub fn alloc(&mut self, words: u32) -> Reg {
        let r = self.next;
        self.next += words;
        self.max = self.max.max(self.next);
        r
    }

    pub fn mark(&self) -> Reg {
        self.next
    }

    /// Frees the registers allocated since `mark` (their values are dead).
    pub fn release(&mut self, mark: Reg) {
        self.next = mark;
    }

    /// `words` of the frame's local memory.
    pub fn alloc_local(&mut self, words: u32) -> u32 {
        let offset = self.local_words;
        self.local_words += words;
        offset
    }

    /// Gives each parameter its registers, in order, then reserves the zero register and the constant pool of
    /// `body`, whose registers are set on entry.
    fn bind_params(&mut self, params: &[LocalId], body: ExprId) {
        for &p in params {
            let words = super::slots(self.layout.local_ty(p), self.layout.types);
            let r = self.alloc(words);
            self.locals.insert(p, r);
        }
        self.zero = self.alloc(1);
        self.pool.insert(0, self.zero);
        for bits in self.layout.constants_of(body) {
            if !self.pool.contains_key(&bits) {
                let r = self.alloc(1);
                self.pool.insert(bits, r);
                self.emit(Instr::Const { dst: r, bits }, body);
            }
        }
    }

    fn finish(self, name: String, entry: u32) -> FunctionCode {
        FunctionCode { name, entry, frame_regs: self.max.max(1), frame_local: self.local_words }
    }
}

/// Compiles device function `index` (a `FunctionId`).
pub fn compile_function(layout: &Layout, code: &mut Code, index: usize) -> FunctionCode {
    let info = &layout.types.functions[index];
    let ret_words = super::slots(&info.ret, layout.types);
    let entry = code.instrs.len() as u32;
    let mut f = FnCompiler::new(layout, code, false, ret_words);
    match layout.module.items.get(info.item) {
        Some(Item::Function(function)) => {
            let body = function.body;
            f.bind_params(&info.params, body);
            let value = f.value(body);
            f.emit(Instr::Ret { src: value, n: ret_words }, body);
        }
        _ => {
            f.bind_params(&info.params, ExprId(0));
            f.trap_message(format!("function `{}` has no body", info.name), ExprId(0));
        }
    }
    f.finish(info.name.clone(), entry)
}

/// Compiles kernel `index` (in `TypeInfo::kernels`).
pub fn compile_kernel(layout: &Layout, code: &mut Code, index: usize) -> FunctionCode {
    let info = &layout.types.kernels[index];
    let entry = code.instrs.len() as u32;
    let mut f = FnCompiler::new(layout, code, true, 0);
    let params: Vec<LocalId> = info.params.iter().map(|p| p.local).collect();
    match layout.module.items.get(info.item) {
        Some(Item::Kernel(kernel)) => {
            let body = kernel.body;
            f.bind_params(&params, body);
            let mark = f.mark();
            f.value(body);
            f.release(mark);
            f.emit(Instr::Exit, body);
        }
        _ => {
            f.bind_params(&params, ExprId(0));
            f.trap_message(format!("kernel `{}` has no body", info.name), ExprId(0));
        }
    }
    f.finish(info.name.clone(), entry)
}

impl FnCompiler<'_, '_> {
    /// A `Trap` with its message.
    pub fn trap_message(&mut self, message: String, site: ExprId) {
        let index = self.code.traps.len() as u32;
        self.code.traps.push(message);
        self.emit(Instr::Trap { message: index }, site);
    }

    /// The words of a value of type `ty`.
    pub fn slots(&self, ty: &Type) -> u32 {
        super::slots(ty, self.layout.types)
    }
}
