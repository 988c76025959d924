//! Signature help: inside the arguments of a call to a builtin or a device function (or just after its name, or
//! after an argument with only blanks before the cursor), its signature with the parameter being written marked,
//! and for builtins their doc and what they require of convergence.

use lsp_types::{
    Documentation, MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, SignatureHelp, SignatureInformation,
};
use skc_core::builtins::Builtin;
use skc_core::syntax::ast::{ExprId, ExprKind};
use skc_core::types::{FunctionId, Resolution};
use skc_core::{Checked, Span};

use crate::hover;
use crate::scope::reaches;

pub fn signature_help(checked: &Checked, offset: usize) -> Option<SignatureHelp> {
    let (callee, args, callee_span) = call_at(checked, offset)?;
    // The argument being written: the first that does not end before the cursor (a blank after an argument
    // starts the next one).
    let active = args.iter().take_while(|arg| (checked.module.span(**arg).end as usize) < offset).count();
    let active = if offset <= callee_span.end as usize { 0 } else { active };
    let signature = match callee {
        Resolution::Builtin(builtin) => builtin_signature(builtin.get()),
        Resolution::Function(function) => function_signature(checked, function),
        Resolution::Local(_) | Resolution::Constant(_) => return None,
    };
    let count = signature.parameters.as_ref().map_or(0, Vec::len);
    if count == 0 {
        return None;
    }
    Some(SignatureHelp {
        signatures: vec![signature],
        active_signature: Some(0),
        active_parameter: Some(active.min(count - 1) as u32),
    })
}

/// The innermost call (or bare name of a function, before its first argument) that `offset` is in or just after.
fn call_at(checked: &Checked, offset: usize) -> Option<(Resolution, Vec<ExprId>, Span)> {
    let module = &checked.module;
    let mut best: Option<(u32, Resolution, Vec<ExprId>, Span)> = None;
    for (index, kind) in module.exprs.iter().enumerate() {
        let id = ExprId(index as u32);
        let (path, args) = match kind {
            ExprKind::Call { callee, args } => (callee, args.clone()),
            ExprKind::Var(path) => (path, Vec::new()),
            _ => continue,
        };
        let span = module.span(id);
        // After the callee's name: `f|` is still the name being typed.
        if offset <= path.span().end as usize || !reaches(checked, span, offset) {
            continue;
        }
        let resolution = match checked.types.resolution(id) {
            Some(r @ Resolution::Function(_)) => r,
            Some(r @ Resolution::Builtin(builtin)) if !builtin.params.is_empty() => r,
            _ => continue,
        };
        let inner = match &best {
            Some((start, ..)) => span.start >= *start,
            None => true,
        };
        if inner {
            best = Some((span.start, resolution, args, path.span()));
        }
    }
    best.map(|(_, resolution, args, span)| (resolution, args, span))
}

fn builtin_signature(builtin: &Builtin) -> SignatureInformation {
    let types = builtin.signature_types();
    let mut label = format!("{} : ", builtin.name);
    let mut parameters = Vec::new();
    for (i, ty) in types.iter().enumerate() {
        if i > 0 {
            label.push_str(" -> ");
        }
        let start = utf16_len(&label);
        label.push_str(ty);
        if i + 1 < types.len() {
            parameters.push(ParameterInformation {
                label: ParameterLabel::LabelOffsets([start, utf16_len(&label)]),
                documentation: None,
            });
        }
    }
    let mut doc = builtin.doc.to_string();
    let requirement = hover::requirement_sentence(builtin);
    if !requirement.is_empty() {
        doc.push_str("\n\n");
        doc.push_str(requirement);
    }
    SignatureInformation {
        label,
        documentation: Some(Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: doc })),
        parameters: Some(parameters),
        active_parameter: None,
    }
}

fn function_signature(checked: &Checked, function: FunctionId) -> SignatureInformation {
    let info = checked.types.function(function);
    let mut label = format!("let {}", info.name);
    let mut parameters = Vec::new();
    for param in &info.params {
        label.push(' ');
        let start = utf16_len(&label);
        label.push_str(&hover::param_text(checked, *param));
        parameters.push(ParameterInformation {
            label: ParameterLabel::LabelOffsets([start, utf16_len(&label)]),
            documentation: None,
        });
    }
    if info.ret != skc_core::types::Type::Error {
        label.push_str(&format!(" : {}", checked.types.display(&info.ret)));
    }
    SignatureInformation { label, documentation: None, parameters: Some(parameters), active_parameter: None }
}

fn utf16_len(text: &str) -> u32 {
    text.encode_utf16().count() as u32
}
