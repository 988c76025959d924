//! Turning the analysis' facts into diagnostics: the headline on the barrier or collective, then secondary labels
//! that walk back from the divergence to the thread-varying source, step by step through bindings and calls.

use crate::diagnostic::{Diagnostic, Label};
use crate::source::Span;
use crate::syntax::ast::{ExprKind, Module};
use crate::types::{FunctionId, LocalId, TypeInfo};

use super::lattice::{Control, Divergence, DivergenceKind, Facts, Origin, OriginKind, Uniformity, Value};

/// At most this many secondary labels: the start of the chain (the divergence) and its source matter most.
const MAX_SECONDARY_LABELS: usize = 8;

/// Looks up the names that explanation steps refer to by id, and the steps themselves.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub module: &'a Module,
    pub types: &'a TypeInfo,
    pub facts: &'a Facts,
}

impl<'a> Names<'a> {
    pub fn words(&self) -> Words<'a> {
        Words { module: self.module, types: self.types }
    }
}

/// The names a sentence of an explanation uses, as written in the program.
#[derive(Clone, Copy)]
pub struct Words<'a> {
    pub module: &'a Module,
    pub types: &'a TypeInfo,
}

impl Words<'_> {
    fn local(&self, id: LocalId) -> &str {
        self.types.locals.get(id.0 as usize).map(|l| l.name.as_str()).unwrap_or("?")
    }
    fn function(&self, id: FunctionId) -> &str {
        self.types.functions.get(id.0 as usize).map(|f| f.name.as_str()).unwrap_or("?")
    }
    /// Is `e` a use of `shfl v src` (whose result depends on whether lane `src` exists)?
    fn is_broadcast(&self, e: crate::syntax::ast::ExprId) -> bool {
        matches!(
            self.types.resolution(e),
            Some(crate::types::Resolution::Builtin(b)) if b.result == crate::builtins::ResultUniformity::Broadcast
        )
    }
    fn written(&self, e: crate::syntax::ast::ExprId) -> String {
        match self.module.exprs.get(e.index()) {
            Some(ExprKind::Var(path)) | Some(ExprKind::Call { callee: path, .. }) => path.display(),
            _ => "?".into(),
        }
    }
}

/// The sentence for one step of a value's explanation.
pub fn origin_message(origin: &Origin, names: Words) -> String {
    let level = origin.level.describe();
    match origin.kind {
        OriginKind::Builtin(e) if origin.level == Uniformity::ThreadVarying && names.is_broadcast(e) => format!(
            "`{}` is {level}: the lane it reads may not exist (only lane 0 is sure to, in the last warp of a block \
             whose size is not a multiple of 32), and a missing lane gives an undefined value",
            names.written(e)
        ),
        OriginKind::Builtin(e) => format!("`{}` is {level}", names.written(e)),
        // The value a tuple pattern destructures has a hidden name: the label, on the pattern, says what it is.
        OriginKind::Let(x) if names.local(x).starts_with(crate::syntax::TUPLE_VALUE_PREFIX) => {
            format!("this tuple is bound to a {level} value here")
        }
        // The value a `match` tests has a hidden name too: the label is on the matched expression.
        OriginKind::Let(x) if names.local(x).starts_with(crate::syntax::MATCH_VALUE_PREFIX) => {
            format!("the matched value is {level} here")
        }
        OriginKind::Let(x) => format!("`{}` is bound to a {level} value here", names.local(x)),
        OriginKind::Assign(x) => format!("`{}` is assigned a {level} value here", names.local(x)),
        OriginKind::AssignInDivergence(x) => {
            format!("`{}` is assigned here in diverged control flow, so it becomes {level}", names.local(x))
        }
        OriginKind::Argument { function, param } => format!(
            "a {level} value is passed here to parameter `{}` of `{}`",
            names.local(param),
            names.function(function)
        ),
        OriginKind::CallResult(f) => format!("`{}` returns a {level} value here", names.function(f)),
        OriginKind::SharedLoad(x) => {
            format!("`{}` may be written by other threads, so what a thread reads from it is {level}", names.local(x))
        }
        OriginKind::LoopCounter(x) => format!("`{}` counts a loop whose bounds are {level}", names.local(x)),
        OriginKind::IfValue => format!("the value of this `if` depends on a {level} condition"),
        OriginKind::ElementWrite(x) => {
            format!("an element of `{}` is written with a {level} value here", names.local(x))
        }
    }
}

fn divergence_message(divergence: &Divergence, level: Uniformity, names: Names) -> String {
    let level = level.describe();
    match &divergence.kind {
        DivergenceKind::Branch => format!("control flow diverges here: this condition is {level}"),
        DivergenceKind::Loop => format!("the number of iterations of this loop is {level}"),
        DivergenceKind::LoopCondition => format!(
            "the number of iterations of this loop is {level}: its condition runs again in each iteration, in the \
             threads still in the loop only"
        ),
        DivergenceKind::ShortCircuit => {
            format!("the right operand runs only where this {level} left operand allows")
        }
        DivergenceKind::Return => "some threads may return here, so fewer threads run the code after it".into(),
        DivergenceKind::Break => "some threads may leave the loop here, so fewer threads run the rest of it".into(),
        DivergenceKind::Continue => "some threads may skip the rest of this iteration here".into(),
        DivergenceKind::Call(f) => {
            format!("`{}` is called here from diverged control flow", names.words().function(*f))
        }
    }
}

/// Secondary labels explaining a value, source last.
pub fn value_labels(value: &Value, labels: &mut Vec<Label>, names: Names) {
    let mut next = value.origin;
    while let Some(id) = next {
        let origin = names.facts.origin(id);
        push_label(labels, origin.span, origin_message(origin, names.words()));
        next = origin.cause;
    }
}

/// Secondary labels explaining why control flow diverged: the construct, the varying value it decided on, and
/// for exits and calls the divergence that made them divergent.
pub fn control_labels(control: &Control, labels: &mut Vec<Label>, names: Names) {
    let mut next = control.why;
    while let Some(id) = next {
        let divergence = names.facts.divergence(id);
        push_label(labels, divergence.span, divergence_message(divergence, control.level, names));
        if divergence.cause.level > Uniformity::Uniform {
            value_labels(&divergence.cause, labels, names);
            // The condition that decided is explained; outer divergence is not why this point diverged.
            break;
        }
        next = divergence.outer;
    }
}

fn push_label(labels: &mut Vec<Label>, span: Span, message: String) {
    if labels.len() >= MAX_SECONDARY_LABELS || labels.iter().any(|l| l.span == span) {
        return;
    }
    labels.push(Label { span, message, primary: false });
}

/// A diagnostic with its primary label and the explanation of `control`.
pub fn divergence_error(
    code: &'static str,
    message: String,
    primary: Span,
    primary_label: String,
    control: &Control,
    names: Names,
) -> Diagnostic {
    let mut labels = Vec::new();
    control_labels(control, &mut labels, names);
    labels.retain(|l| l.span != primary);
    let mut diagnostic = Diagnostic::error(code, message).primary(primary, primary_label);
    diagnostic.labels.extend(labels);
    diagnostic
}

/// A diagnostic about a value that must be uniform (a named barrier's id), explained back to its source.
pub fn value_divergence_error(
    code: &'static str,
    message: String,
    primary: Span,
    primary_label: String,
    value: &Value,
    names: Names,
) -> Diagnostic {
    let mut labels = Vec::new();
    value_labels(value, &mut labels, names);
    labels.retain(|l| l.span != primary);
    let mut diagnostic = Diagnostic::error(code, message).primary(primary, primary_label);
    diagnostic.labels.extend(labels);
    diagnostic
}
