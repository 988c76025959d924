//! Quick fixes: a diagnostic that carries a [`Suggestion`](skc_core::diagnostic::Suggestion) becomes a code action
//! that applies its replacement, offered wherever the requested range meets the diagnostic's primary span. Only a
//! machine-applicable suggestion is marked preferred (the fix an editor may apply on its own, "fix all" or
//! "auto fix"); one that may change what the program does is offered for a person to choose. The caller decides
//! which edits are offered at all (the server checks a divergence error's edit first).

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Url, WorkspaceEdit};
use skc_core::diagnostic::{Applicability, Diagnostic};
use skc_core::Checked;

use crate::diagnostics;
use crate::position::range_of;

/// `offer` decides, for a diagnostic in the range with a suggestion, whether its edit is offered.
pub fn quick_fixes(
    checked: &Checked,
    uri: &Url,
    requested: Range,
    offer: &mut dyn FnMut(&Diagnostic) -> bool,
) -> Vec<CodeActionOrCommand> {
    let file = checked.sources.file(checked.root);
    let mut actions = Vec::new();
    for diagnostic in &checked.diagnostics {
        let Some(suggestion) = &diagnostic.suggestion else { continue };
        let primary = diagnostic.primary_span();
        if primary.file != checked.root || suggestion.span.file != checked.root {
            continue;
        }
        if !overlaps(range_of(file, primary), requested) || !offer(diagnostic) {
            continue;
        }
        let edit = TextEdit { range: range_of(file, suggestion.span), new_text: suggestion.replacement.clone() };
        let mut single = Vec::new();
        diagnostics::convert_one(diagnostic, checked, uri, &mut single);
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: suggestion.message.clone(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(single.into_iter().take(1).collect()),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(suggestion.applicability == Applicability::MachineApplicable),
            ..CodeAction::default()
        }));
    }
    actions
}

/// Do two ranges meet (touching counts, so a cursor at either end of a span gets its fix)?
fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use skc_core::Span;

    #[test]
    fn a_suggestion_becomes_a_quick_fix_where_its_diagnostic_is() {
        let text = "kernel k (out : int32 vector) =\n  out.(0) <- lenght\n";
        let mut checked = skc_core::check("/t.sk", text, &skc_core::NoModules, &Default::default());
        let at = text.find("lenght").unwrap();
        let span = Span::new(checked.root, at, at + 6);
        // Only the codes of SUGGESTING_CODES may carry an edit; which one does not matter here.
        checked.diagnostics = vec![Diagnostic::warning("W0102", "unknown name `lenght`")
            .primary(span, "not found")
            .suggest("replace with `length`", span, "length")];
        let uri = Url::parse("file:///t.sk").unwrap();
        let on_line = |line| Range::new(lsp_types::Position::new(line, 0), lsp_types::Position::new(line, 0));
        assert!(quick_fixes(&checked, &uri, on_line(0), &mut |_| true).is_empty());
        let fixes = quick_fixes(
            &checked,
            &uri,
            Range::new(lsp_types::Position::new(1, 14), lsp_types::Position::new(1, 14)),
            &mut |_| true,
        );
        let [CodeActionOrCommand::CodeAction(fix)] = fixes.as_slice() else { panic!("{fixes:?}") };
        assert_eq!(fix.title, "replace with `length`");
        let edits = &fix.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri];
        assert_eq!((edits[0].range.start.character, edits[0].new_text.as_str()), (13, "length"));
        assert_eq!(fix.diagnostics.as_ref().unwrap()[0].message.lines().next(), Some("unknown name `lenght`"));
        assert_eq!(fix.is_preferred, Some(true), "a machine-applicable suggestion is the preferred fix");
        // One that a person must check is offered, not preferred.
        let diagnostic = checked.diagnostics.pop().unwrap();
        let suggestion = diagnostic.suggestion.clone().unwrap();
        checked.diagnostics =
            vec![diagnostic.suggest_maybe_incorrect(suggestion.message, suggestion.span, suggestion.replacement)];
        let fixes = quick_fixes(
            &checked,
            &uri,
            Range::new(lsp_types::Position::new(1, 14), lsp_types::Position::new(1, 14)),
            &mut |_| true,
        );
        let [CodeActionOrCommand::CodeAction(fix)] = fixes.as_slice() else { panic!("{fixes:?}") };
        assert_eq!(fix.is_preferred, Some(false));
    }
}
