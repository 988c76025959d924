//! W0102, misleading indentation: a branch of `if` ends at the first `;` (`if c then a; b` runs `b` whatever `c`
//! is), so a statement laid out as if the `if` guarded it is a trap (`if i < n then out.(i) <- a; out.(i + n) <- b`
//! stores out of bounds in every thread past `n`). As gcc's `-Wmisleading-indentation`, from the AST and the
//! source text: after a sequence `if ...; s`, the statement `s` is reported when it starts on the line where the
//! `if`'s last branch ends, or on a later line indented deeper than the line of the `if`. A branch closed by `)`
//! or `end` shows where it ends, and one that ends in `return`, `break` or `continue` cannot be meant to go on:
//! neither is reported. Loop bodies need no check: `do ... done` closes them, so nothing after a loop can look
//! like part of its body the way a statement after an unclosed branch does.
//!
//! The suggestion only moves `s` (whitespace), so applying it keeps the program's meaning: `s` on its own line at
//! the `if`'s indentation. If `s` was meant to be guarded, the help says to write `begin ... end`.

use crate::diagnostic::Diagnostic;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{ExprId, ExprKind, Module};

pub const CODE: &str = "W0102";

/// Warns on every statement that follows an `if` as if it were guarded by it.
pub fn check(module: &Module, sources: &SourceMap) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (index, kind) in module.exprs.iter().enumerate() {
        if let ExprKind::Seq(first, rest) = kind {
            if let Some(d) = misleading(module, sources, ExprId(index as u32), *first, *rest) {
                out.push(d);
            }
        }
    }
    out
}

/// The statement the `if` `e` guards last: its last branch, or that branch's own last branch when it is an `if`
/// (`if a then x else if b then y`).
fn last_guarded(module: &Module, e: ExprId) -> Option<ExprId> {
    let mut current = e;
    while let ExprKind::If { then_branch, else_branch, .. } = module.expr(current) {
        current = else_branch.unwrap_or(*then_branch);
    }
    (current != e).then_some(current)
}

/// A jump: what follows it runs only where the branch was not taken, so it cannot be meant to be in the branch.
fn is_jump(module: &Module, e: ExprId) -> bool {
    matches!(module.expr(e), ExprKind::Return(_) | ExprKind::Break | ExprKind::Continue)
}

fn misleading(module: &Module, sources: &SourceMap, seq: ExprId, first: ExprId, rest: ExprId) -> Option<Diagnostic> {
    let guarded = last_guarded(module, first)?;
    let (if_span, guarded_span, next_span) = (module.span(first), module.span(guarded), module.span(rest));
    let next = match module.expr(rest) {
        ExprKind::Seq(statement, _) => module.span(*statement),
        _ => next_span,
    };
    if if_span.file != next.file || module.span(seq).file != next.file || next.start <= guarded_span.end {
        return None;
    }
    // Between the guarded statement and the next one, only the `;` (a `)` or `end` shows where the branch ends).
    let between = text(sources, Span { start: guarded_span.end, end: next.start, file: next.file });
    if is_jump(module, guarded) || !is_blank_but_a_semicolon(between) {
        return None;
    }
    let source = sources.file(next.file);
    let file = &source.text;
    let if_indent = indentation(file, if_span.start as usize);
    // The statement is on a later line than the guarded one if a newline lies between them (lines end at `\n`
    // only, `SourceFile::line_col`), which a search of the few bytes between answers.
    let (guarded_end, next_start) = (guarded_span.end as usize, next.start as usize);
    let gap_bytes = file.as_bytes().get(guarded_end.min(file.len())..next_start.min(file.len())).unwrap_or_default();
    let same_line = !gap_bytes.contains(&b'\n');
    let deeper = !same_line && column(file, next.start as usize) > if_indent;
    if !same_line && !deeper {
        return None;
    }
    let layout =
        if same_line { "on the line of the statement the `if` guards" } else { "indented deeper than the `if`" };
    let mut d = Diagnostic::warning(CODE, "misleading indentation: this statement is not guarded by the `if`")
        .primary(
            Span { end: next.end.min(line_end(file, next.start as usize) as u32), ..next },
            format!("runs whether or not the condition holds, though it is {layout}"),
        )
        .secondary(guarded_span, "the `if` guards only this: its branch ends at the `;`")
        .help("if the statement belongs to the branch, write `if ... then begin ...; ... end`");
    if if_indent > 0 {
        // Only the spaces before the statement change: with the `if` in column 0 the statement would start a line
        // in column 0, where `let` begins a new item.
        let gap = whitespace_before(file, next.start as usize);
        let replacement = format!("{}{}", if same_line { "\n" } else { "" }, " ".repeat(if_indent));
        let span = Span { start: gap as u32, end: next.start, file: next.file };
        d = d.suggest(
            "if it runs unconditionally, put it on its own line at the `if`'s indentation",
            span,
            replacement,
        );
    }
    Some(d)
}

fn text(sources: &SourceMap, span: Span) -> &str {
    sources.file(span.file).text.get(span.range()).unwrap_or("")
}

/// Only whitespace and comments once the first `;` is read as a space. Nearly always only the `;` and blanks:
/// that is answered without building the text with the space.
fn is_blank_but_a_semicolon(text: &str) -> bool {
    text.trim() == ";" || is_blank(&text.replacen(';', " ", 1))
}

/// Only whitespace and comments.
fn is_blank(text: &str) -> bool {
    let mut rest = text.trim_start();
    while let Some(after) = rest.strip_prefix("(*") {
        match after.find("*)") {
            Some(close) => rest = after[close + 2..].trim_start(),
            None => return false,
        }
    }
    rest.is_empty()
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].rfind('\n').map(|i| i + 1).unwrap_or(0)
}

fn line_end(text: &str, offset: usize) -> usize {
    text[offset.min(text.len())..].find('\n').map(|i| offset + i).unwrap_or(text.len())
}

/// The column of `offset`, a tab advancing to the next multiple of 8.
fn column(text: &str, offset: usize) -> usize {
    text[line_start(text, offset)..offset.min(text.len())].chars().fold(0, |col, c| {
        if c == '\t' {
            (col / 8 + 1) * 8
        } else {
            col + 1
        }
    })
}

/// The column of the first character of the line of `offset` that is not a space or a tab.
fn indentation(text: &str, offset: usize) -> usize {
    let start = line_start(text, offset);
    let first = text[start..].find(|c: char| c != ' ' && c != '\t').map(|i| start + i).unwrap_or(start);
    column(text, first)
}

/// Where the run of spaces and tabs that ends at `offset` begins (on a later line: the start of the line).
fn whitespace_before(text: &str, offset: usize) -> usize {
    let before = &text[..offset.min(text.len())];
    before.trim_end_matches([' ', '\t']).len()
}
