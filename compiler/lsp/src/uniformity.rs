//! Uniformity you can see: inlay hints with the level of each `let` binding (uniform / block / warp / thread) and
//! semantic tokens that mark every local name with the level of its value, so divergence shows where it spreads
//! before any barrier complains.
//!
//! Levels are the convergence analysis' own (the ones hovers show): an immutable binding has the level of its
//! value; a mutable variable (`mut`, `ref`) the highest level of its initial value, of every value assigned to it
//! and of every read of it (a read after an assignment in diverged control flow is where that assignment's
//! variation shows), joined over every name of a cell (`let q = r in`: an assignment through `q` is one to `r`).
//! Arrays and vectors get no level: the analysis' level of an array name is that of its
//! elements, which would mark every written vector as if the name itself varied.

use lsp_types::{
    InlayHint, InlayHintLabel, InlayHintTooltip, MarkupContent, MarkupKind, Range, SemanticToken,
    SemanticTokenModifier, SemanticTokenType, SemanticTokens, SemanticTokensLegend,
};
use skc_core::convergence::Uniformity;
use skc_core::syntax::ast::{Binder, ExprId, ExprKind};
use skc_core::types::{LocalId, Resolution};
use skc_core::{Checked, Span};

use crate::position::{position_of, range_of};

/// The highest level of each local (indexed by `LocalId`) and the expression that has it.
pub struct LocalLevels {
    levels: Vec<(Uniformity, Option<ExprId>)>,
    is_array: Vec<bool>,
}

impl LocalLevels {
    pub fn of(checked: &Checked) -> LocalLevels {
        let uniformity = &checked.uniformity;
        let mut levels = vec![(Uniformity::Uniform, None); checked.types.locals.len()];
        let mut raise = |local: LocalId, expr: ExprId| {
            let level = uniformity.level(expr);
            if let Some(slot) = levels.get_mut(local.0 as usize) {
                if slot.1.is_none() || level > slot.0 {
                    *slot = (level, Some(expr));
                }
            }
        };
        for (expr, local) in checked.types.declared_local.iter() {
            if let ExprKind::Let { value, .. } = checked.module.expr(*expr) {
                raise(*local, *value);
            }
        }
        for (expr, resolution) in checked.types.resolutions.iter() {
            let Resolution::Local(local) = resolution else { continue };
            match checked.module.expr(*expr) {
                ExprKind::Assign { value, .. } => raise(*local, *value),
                _ => raise(*local, *expr),
            }
        }
        share_between_names(checked, &mut levels);
        let is_array = checked.types.locals.iter().map(|l| l.ty.element().is_some()).collect();
        LocalLevels { levels, is_array }
    }

    /// The level of a scalar or record local; `None` for an array or vector.
    pub fn level(&self, local: LocalId) -> Option<Uniformity> {
        if self.is_array.get(local.0 as usize).copied().unwrap_or(true) {
            return None;
        }
        self.levels.get(local.0 as usize).map(|(level, _)| *level)
    }

    /// The expression whose level the local has (for the hint's explanation).
    pub fn witness(&self, local: LocalId) -> Option<ExprId> {
        self.levels.get(local.0 as usize).and_then(|(_, expr)| *expr)
    }
}

/// `let q = r in` on a cell makes `q` another name for `r`'s storage: what is assigned through either name is
/// assigned to both, so each gets the highest level of the two. Names of names (`let q2 = q in`) are later
/// locals than what they name: names first, from the last, carry their level to what they name, then it
/// comes back down in declaration order.
fn share_between_names(checked: &Checked, levels: &mut [(Uniformity, Option<ExprId>)]) {
    let aliases = &checked.types.aliases;
    let mut join = |to: LocalId, from: LocalId| {
        let from = levels.get(from.0 as usize).copied();
        if let (Some(slot), Some(from)) = (levels.get_mut(to.0 as usize), from) {
            if from.1.is_some() && (slot.1.is_none() || from.0 > slot.0) {
                *slot = from;
            }
        }
    };
    for (name, roots) in aliases.iter().rev() {
        for root in roots {
            join(*root, *name);
        }
    }
    for (name, roots) in aliases.iter() {
        for root in roots {
            join(*name, *root);
        }
    }
}

/// The short word an inlay hint shows.
pub fn short_name(level: Uniformity) -> &'static str {
    match level {
        Uniformity::Uniform => "uniform",
        Uniformity::BlockUniform => "block",
        Uniformity::WarpUniform => "warp",
        Uniformity::ThreadVarying => "thread",
    }
}

/// One hint after the name of each `let` binding of the root file inside `range`.
pub fn inlay_hints(checked: &Checked, range: Range) -> Vec<InlayHint> {
    let file = checked.sources.file(checked.root);
    let levels = LocalLevels::of(checked);
    let mut hints = Vec::new();
    for (expr, local) in checked.types.declared_local.iter() {
        let ExprKind::Let { binder: Binder::Name(name), .. } = checked.module.expr(*expr) else { continue };
        // A name starting with `{` is the parser's (a record update's copy), not a binding the program wrote.
        if name.span.file != checked.root || name.name.starts_with('{') {
            continue;
        }
        let position = position_of(file, name.span.end as usize);
        if position < range.start || position > range.end {
            continue;
        }
        let Some(level) = levels.level(*local) else { continue };
        let why = crate::hover::uniformity_text(checked, levels.witness(*local));
        hints.push(InlayHint {
            position,
            label: InlayHintLabel::String(short_name(level).to_string()),
            kind: None,
            text_edits: None,
            tooltip: Some(InlayHintTooltip::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: why })),
            padding_left: Some(true),
            padding_right: Some(false),
            data: None,
        });
    }
    hints.sort_by_key(|h| h.position);
    hints
}

/// Token types of [`legend`], by index.
const VARIABLE: u32 = 0;
const PARAMETER: u32 = 1;

/// Modifier bits of [`legend`]: one per level above uniform.
fn modifier_bits(level: Uniformity) -> u32 {
    match level {
        Uniformity::Uniform => 0,
        Uniformity::BlockUniform => 1 << 2,
        Uniformity::WarpUniform => 1 << 1,
        Uniformity::ThreadVarying => 1,
    }
}

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: vec![SemanticTokenType::VARIABLE, SemanticTokenType::PARAMETER],
        token_modifiers: vec![
            SemanticTokenModifier::new("threadVarying"),
            SemanticTokenModifier::new("warpUniform"),
            SemanticTokenModifier::new("blockUniform"),
        ],
    }
}

/// Every name of a local in the root file (binders, reads, assignment targets), with its level as a modifier
/// (none for uniform values and for arrays).
pub fn semantic_tokens(checked: &Checked) -> SemanticTokens {
    let levels = LocalLevels::of(checked);
    let mut names: Vec<(Span, LocalId, Option<Uniformity>)> = Vec::new();
    for (index, local) in checked.types.locals.iter().enumerate() {
        let id = LocalId(index as u32);
        names.push((local.span, id, levels.level(id)));
    }
    for (expr, resolution) in checked.types.resolutions.iter() {
        let Resolution::Local(local) = resolution else { continue };
        let at_read = levels.level(*local).map(|_| checked.uniformity.level(*expr));
        match checked.module.expr(*expr) {
            ExprKind::Var(path) => names.push((path.name.span, *local, at_read)),
            ExprKind::Assign { target, .. } => names.push((target.name.span, *local, levels.level(*local))),
            _ => {}
        }
    }
    names.retain(|(span, _, _)| span.file == checked.root && !span.is_empty());
    names.sort_by_key(|(span, _, _)| span.start);
    names.dedup_by_key(|(span, _, _)| span.start);
    encode(checked, &names)
}

fn encode(checked: &Checked, names: &[(Span, LocalId, Option<Uniformity>)]) -> SemanticTokens {
    let file = checked.sources.file(checked.root);
    let mut data = Vec::with_capacity(names.len());
    let (mut line, mut column) = (0, 0);
    for (span, local, level) in names {
        let range = range_of(file, *span);
        if range.start.line != range.end.line {
            continue;
        }
        let token_type = if checked.types.local(*local).param_index.is_some() { PARAMETER } else { VARIABLE };
        let delta_line = range.start.line - line;
        let delta_start = if delta_line == 0 { range.start.character - column } else { range.start.character };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: range.end.character - range.start.character,
            token_type,
            token_modifiers_bitset: level.map_or(0, modifier_bits),
        });
        (line, column) = (range.start.line, range.start.character);
    }
    SemanticTokens { result_id: None, data }
}
