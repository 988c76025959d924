//! The compiler's [`Diagnostic`] as LSP diagnostics: one on the primary span (code, headline, then the primary label, help and notes on their own lines; secondary labels as related
//! information), plus each secondary label in the same file mirrored as a hint at its own span, as
//! rust-analyzer and Gleam do, because editors show related information poorly.

use lsp_types::{
    Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range, Url,
};
use skc_core::syntax::ast::{Item, Open};
use skc_core::{Checked, Diagnostic, FileId, Severity, Span};

use crate::documents::uri_of;
use crate::position::range_of;

/// Every diagnostic of a checked document, as published for `uri` (its root file).
pub fn to_lsp(checked: &Checked, uri: &Url) -> Vec<LspDiagnostic> {
    let mut out = Vec::new();
    for diagnostic in &checked.diagnostics {
        convert_one(diagnostic, checked, uri, &mut out);
    }
    out
}

/// One compiler diagnostic: its main LSP diagnostic first, then the mirrored hints.
pub fn convert_one(diagnostic: &Diagnostic, checked: &Checked, uri: &Url, out: &mut Vec<LspDiagnostic>) {
    let primary = diagnostic.primary_span();
    let location_of = |span: Span| location(checked, uri, span);
    let mut related: Vec<DiagnosticRelatedInformation> = diagnostic
        .labels
        .iter()
        .filter(|label| !label.primary)
        .filter_map(|label| {
            Some(DiagnosticRelatedInformation { location: location_of(label.span)?, message: label.message.clone() })
        })
        .collect();
    let mut message = diagnostic.message.clone();
    let range = if primary.file == checked.root {
        range_of(checked.sources.file(checked.root), primary)
    } else {
        // An error inside an opened module: shown on the `open` that brought it in, pointing at the real place.
        let file_name = &checked.sources.file(primary.file).name;
        message = format!("in `{file_name}`: {message}");
        if let Some(location) = location_of(primary) {
            related.insert(0, DiagnosticRelatedInformation { location, message: "the error is here".into() });
        }
        range_of(checked.sources.file(checked.root), open_span(checked, primary.file))
    };
    if let Some(label) = diagnostic.labels.iter().find(|l| l.primary && !l.message.is_empty()) {
        message.push('\n');
        message.push_str(&label.message);
    }
    if let Some(help) = &diagnostic.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    for note in &diagnostic.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    let primary_location = Location { uri: uri.clone(), range };
    out.push(LspDiagnostic {
        related_information: (!related.is_empty()).then_some(related),
        ..base(diagnostic, range, severity(diagnostic.severity), message)
    });
    for label in diagnostic.labels.iter().filter(|l| !l.primary && l.span.file == checked.root) {
        let hint_range = range_of(checked.sources.file(checked.root), label.span);
        let back =
            DiagnosticRelatedInformation { location: primary_location.clone(), message: "original diagnostic".into() };
        out.push(LspDiagnostic {
            related_information: Some(vec![back]),
            ..base(diagnostic, hint_range, DiagnosticSeverity::HINT, label.message.clone())
        });
    }
}

fn base(diagnostic: &Diagnostic, range: Range, severity: DiagnosticSeverity, message: String) -> LspDiagnostic {
    LspDiagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(diagnostic.code.to_string())),
        // No link: the explanation page is the `skc.explain` command's answer (and a hover on the code).
        code_description: None,
        source: Some("skc".into()),
        message,
        related_information: None,
        tags: None,
        data: None,
    }
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

fn location(checked: &Checked, root_uri: &Url, span: Span) -> Option<Location> {
    let file = checked.sources.file(span.file);
    let uri = if span.file == checked.root { root_uri.clone() } else { uri_of(&file.name)? };
    Some(Location { uri, range: range_of(file, span) })
}

/// The span, in the root file, of the `open` that (directly or not) brought in `file`: the one naming it if
/// there is one, else the first `open`, else the start of the file.
fn open_span(checked: &Checked, file: FileId) -> Span {
    let name = &checked.sources.file(file).name;
    let stem = name.rsplit(['/', '\\']).next().unwrap_or(name).trim_end_matches(".sk").to_ascii_lowercase();
    let opens: Vec<&Open> = checked
        .module
        .items
        .iter()
        .zip(&checked.item_files)
        .filter_map(|(item, f)| match item {
            Item::Open(open) if *f == checked.root => Some(open),
            _ => None,
        })
        .collect();
    let naming = opens.iter().find(|open| open.module.name.to_ascii_lowercase() == stem);
    naming.or(opens.first()).map(|open| open.span).unwrap_or(Span { file: checked.root, start: 0, end: 0 })
}
