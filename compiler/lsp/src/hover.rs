//! Hover: what the name or expression under the cursor is (its type or signature, in a code block) and, for
//! values inside kernels and functions, how uniform it is and where its variation comes from, so that a user
//! can see why a barrier under it was rejected. On a diagnostic code (`W0101` in `[@allow W0101]`, or in a
//! comment), the code's explanation page.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use skc_core::builtins::{Builtin, Requirement};
use skc_core::syntax::ast::{ExprId, ExprKind, Item};
use skc_core::types::{ConstValue, FunctionInfo, KernelInfo, LocalId, Mutability, Type};
use skc_core::Checked;

use crate::cursor::{self, Target};
use crate::explain;
use crate::position::range_of;
use crate::uniformity::LocalLevels;

pub fn hover(checked: &Checked, offset: usize) -> Option<Hover> {
    if let Some(hover) = explain::hover_on_code(checked.sources.file(checked.root), offset) {
        return Some(hover);
    }
    let found = cursor::find(checked, offset)?;
    let sections = describe(checked, &found.target)?;
    let value = sections.into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n\n---\n\n");
    if value.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }),
        range: Some(range_of(checked.sources.file(checked.root), found.span)),
    })
}

/// The hover's sections: a code block, then prose.
fn describe(checked: &Checked, target: &Target) -> Option<Vec<String>> {
    Some(match target {
        Target::Local { local, expr } => local_hover(checked, *local, *expr),
        Target::Function(id) => {
            let function = checked.types.function(*id);
            in_instance(checked, function.item, &function.name, function_signature(checked, function))
        }
        Target::Builtin { builtin, expr } => {
            let mut sections = builtin_hover(builtin);
            sections.extend(expr.filter(|e| is_value(checked, *e)).map(|e| uniformity(checked, e)));
            sections
        }
        Target::Constant(id) => {
            let constant = &checked.types.constants[id.0 as usize];
            in_instance(checked, constant.item, &constant.name, constant_signature(checked, id.0 as usize))
        }
        Target::ItemName(item) | Target::RecordType(item) => {
            let name = checked.module.items.get(*item)?.name().name.clone();
            in_instance(checked, *item, &name, item_signature(checked, *item)?)
        }
        Target::Field { record, name, expr, .. } => {
            let ty =
                record.and_then(|r| checked.types.record(r).fields.iter().find(|(f, _)| f == name).map(|(_, t)| t));
            let mut sections = vec![code(&typed(name, ty.unwrap_or(&Type::Error), checked))];
            sections.extend(expr.map(|e| uniformity(checked, e)));
            sections
        }
        Target::Module(name) => vec![code(&format!("open {name}"))],
        Target::Expr(expr) => expression_hover(checked, *expr)?,
    })
}

/// An item's signature; for an item of an instance's copy (`open M (...) as A`), under the name it is written
/// with (`x`, not the compiler's `A_x`) and followed by how it is reached and which instance it belongs to.
fn in_instance(checked: &Checked, item: usize, name: &str, signature: String) -> Vec<String> {
    let instance = checked.item_files.get(item).and_then(|file| checked.units.instance_of(*file));
    let Some(instance) = instance else { return vec![code(&signature)] };
    let written = checked.units.written_name(instance, name);
    let alias = &checked.units.instances[instance].alias.name;
    let described = checked.units.describe(instance, &checked.module, &checked.sources);
    vec![code(&signature.replacen(name, written, 1)), format!("`{alias}.{written}`, {described}")]
}

/// Is `expr` a value worth a uniformity line (not a barrier or other `unit` statement)?
fn is_value(checked: &Checked, expr: ExprId) -> bool {
    !matches!(checked.types.type_of(expr), Type::Unit | Type::Error)
}

fn code(text: &str) -> String {
    format!("```sk\n{text}\n```")
}

/// `name : type`, or just `name` when the type is unknown.
fn typed(name: &str, ty: &Type, checked: &Checked) -> String {
    match ty {
        Type::Error => name.to_string(),
        ty => format!("{name} : {}", checked.types.display(ty)),
    }
}

fn local_hover(checked: &Checked, local: LocalId, expr: Option<ExprId>) -> Vec<String> {
    let info = checked.types.local(local);
    let prefix = match (info.mutability, info.param_index) {
        (_, Some(_)) => "(parameter) ",
        (Mutability::Mutable, _) => "mut ",
        (Mutability::RefCell, _) => "ref ",
        (Mutability::Immutable, _) => "",
    };
    let mut sections = vec![code(&format!("{prefix}{}", typed(&info.name, &info.ty, checked)))];
    let at_assignment = expr.is_some_and(|e| matches!(checked.module.expr(e), ExprKind::Assign { .. }));
    let value = match expr {
        // At a read, the value read there.
        Some(e) if !at_assignment => Some(uniformity(checked, e)),
        // At the binder or an assignment of a variable, every value it holds (an assignment in diverged control
        // flow makes it vary even when the value assigned does not); also of another name for a cell
        // (`let q = r in`), which is assigned too.
        _ if info.mutability != Mutability::Immutable || matches!(info.ty, Type::Ref(_)) => {
            Some(uniformity_text(checked, LocalLevels::of(checked).witness(local)))
        }
        // At a `let`, the value bound.
        _ => match cursor::declaring_expr(checked, local).map(|e| checked.module.expr(e)) {
            Some(ExprKind::Let { value, .. }) => Some(uniformity(checked, *value)),
            _ => None,
        },
    };
    sections.extend(value);
    sections
}

fn expression_hover(checked: &Checked, expr: ExprId) -> Option<Vec<String>> {
    use ExprKind::*;
    match checked.module.expr(expr) {
        // Statements and binding forms: the cursor is on a keyword; their type says nothing useful.
        Seq(..)
        | Let { .. }
        | LetArray { .. }
        | For { .. }
        | While { .. }
        | Superstep { .. }
        | Pragma { .. }
        | Return(_)
        | Break
        | Continue
        | Error => None,
        _ => {
            let ty = checked.types.type_of(expr);
            let mut sections = Vec::new();
            if *ty != Type::Error {
                sections.push(code(&checked.types.display(ty)));
            }
            sections.push(uniformity(checked, expr));
            Some(sections)
        }
    }
}

/// [`uniformity`] of `expr`, or "uniform" when there is none.
pub fn uniformity_text(checked: &Checked, expr: Option<ExprId>) -> String {
    match expr {
        Some(expr) => uniformity(checked, expr),
        None => format!("**{}**", skc_core::convergence::Uniformity::Uniform.hover()),
    }
}

/// "**thread-varying**: from `thread_idx_x` at line 3", and the reason when it says more than that.
fn uniformity(checked: &Checked, expr: ExprId) -> String {
    let level = checked.uniformity.level(expr);
    let mut text = format!("**{}**", level.hover());
    // At the source itself (`thread_idx_x`), the level is the whole story.
    let source = checked
        .uniformity
        .source(expr, &checked.module, &checked.types)
        .filter(|s| s.span != checked.module.span(expr));
    if let Some(source) = source {
        let file = checked.sources.file(source.span.file);
        let snippet = short(checked.sources.snippet(source.span));
        let (line, _) = file.line_col(source.span.start as usize);
        text.push_str(&format!(": from `{snippet}` at line {}", line + 1));
        if source.span.file != checked.root {
            text.push_str(&format!(" of `{}`", file.name));
        }
        if !source.message.starts_with(&format!("`{snippet}` is ")) {
            text.push_str(&format!("  \n{}", source.message));
        }
    }
    text
}

/// The first line of `text`, at most 40 characters.
fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

fn builtin_hover(builtin: &Builtin) -> Vec<String> {
    vec![code(&builtin_signature(builtin)), builtin.doc.to_string(), requirement_sentence(builtin).to_string()]
}

/// What a builtin requires of convergence, as a sentence (empty when nothing).
pub fn requirement_sentence(builtin: &Builtin) -> &'static str {
    match builtin.requirement {
        Requirement::None => "",
        Requirement::BlockConverged => {
            "Must be reached by every thread of the block together (converged control flow)."
        }
        Requirement::WarpConverged => "Must be reached by every thread of the warp together (converged control flow).",
    }
}

/// `shfl_down : 'word -> int32 -> 'word` (type variables named by their class, as docs/language.md prints them).
pub fn builtin_signature(builtin: &Builtin) -> String {
    format!("{} : {}", builtin.name, builtin.signature())
}

fn params(checked: &Checked, locals: impl Iterator<Item = LocalId>) -> String {
    locals.map(|l| checked.types.local(l)).map(|p| format!(" ({})", typed(&p.name, &p.ty, checked))).collect()
}

/// `(x : float32)`: one parameter as a signature shows it.
pub fn param_text(checked: &Checked, local: LocalId) -> String {
    let p = checked.types.local(local);
    format!("({})", typed(&p.name, &p.ty, checked))
}

pub fn function_signature(checked: &Checked, function: &FunctionInfo) -> String {
    let params = params(checked, function.params.iter().copied());
    let params = if params.is_empty() { " ()".to_string() } else { params };
    match function.ret {
        Type::Error => format!("let {}{params}", function.name),
        ref ret => format!("let {}{params} : {}", function.name, checked.types.display(ret)),
    }
}

fn kernel_signature(checked: &Checked, kernel: &KernelInfo) -> String {
    format!("kernel {}{}", kernel.name, params(checked, kernel.params.iter().map(|p| p.local)))
}

fn constant_signature(checked: &Checked, index: usize) -> String {
    let constant = &checked.types.constants[index];
    let value = match &constant.value {
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(f) => format!("{f:?}"),
        ConstValue::Bool(b) => b.to_string(),
        ConstValue::Array(items) => format!("[| {} elements |]", items.len()),
    };
    format!("let {} = {value}", typed(&constant.name, &constant.ty, checked))
}

/// The signature of the item defined by `module.items[item]`, from the type checker's tables when it has them.
pub fn item_signature(checked: &Checked, item: usize) -> Option<String> {
    let types = &checked.types;
    Some(match checked.module.items.get(item)? {
        Item::Kernel(k) => match types.kernels.iter().find(|info| info.item == item) {
            Some(info) => kernel_signature(checked, info),
            None => format!("kernel {}", k.name.name),
        },
        Item::Function(f) => match types.function_of_item(item) {
            Some(id) => function_signature(checked, types.function(id)),
            None => format!("let {}", f.name.name),
        },
        Item::Constant(c) => match types.constants.iter().position(|info| info.item == item) {
            Some(index) => constant_signature(checked, index),
            None => format!("let {}", c.name.name),
        },
        Item::Record(r) => match types.records.iter().find(|info| info.name == r.name.name) {
            Some(info) => {
                let fields: Vec<String> =
                    info.fields.iter().map(|(f, t)| format!("  {f} : {};", types.display(t))).collect();
                format!("type {} = {{\n{}\n}}", info.name, fields.join("\n"))
            }
            None => format!("type {}", r.name.name),
        },
        Item::Open(o) => format!("open {}", o.module.name),
    })
}
