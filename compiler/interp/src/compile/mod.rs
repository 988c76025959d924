//! Compiles a checked program (AST and `TypeInfo`) into the interpreter's register code ([`crate::code`]).
//!
//! Program-wide layout first (`layout`): every shared array of fixed size gets its own offset in the block's
//! shared memory, every constant array its place in the constant memory, every constant its words. Then each
//! device function and kernel is compiled on its own (`function`): expressions (`expr`), control flow
//! (`control`), memory accesses (`access`) and builtins (`builtin`). A construct the interpreter cannot run
//! compiles to a `Trap` that fails the launch only if a thread reaches it.
//!
//! Evaluation order is the language's (docs/language.md, "Semantics when run"): operands left to right, the right
//! operand of `&&`/`||` only when needed, both operands of `select`, a `for`'s bounds once before the loop.

mod access;
mod builtin;
mod control;
mod expr;
mod function;
mod layout;

use skc_core::syntax::ast::Module;
use skc_core::types::TypeInfo;

use crate::code::Code;

pub use layout::slots;

/// Compiles every function and kernel of a checked, error-free program.
pub fn compile(module: &Module, types: &TypeInfo) -> Code {
    let layout = layout::Layout::new(module, types);
    let mut code =
        Code { static_shared: layout.static_shared, constants: layout.constant_words.clone(), ..Code::default() };
    for (index, info) in types.functions.iter().enumerate() {
        let compiled = function::compile_function(&layout, &mut code, index);
        debug_assert_eq!(compiled.name, info.name);
        code.functions.push(compiled);
    }
    for index in 0..types.kernels.len() {
        let compiled = function::compile_kernel(&layout, &mut code, index);
        code.kernels.push(compiled);
    }
    code
}
