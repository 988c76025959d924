//! The one diagnostic type of the compiler, and its renderings: ariadne for terminals, a rustc-shaped JSON object
//! for tools, and a one-line `short` form. The language server converts the same value.

use crate::excerpt;
use crate::source::{SourceMap, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A labelled source span. The primary label says what is wrong; secondary labels say why, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

/// A suggested source edit (used by the language server as a quick fix).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub message: String,
    pub span: Span,
    pub replacement: String,
    pub applicability: Applicability,
}

/// Whether a suggestion may be applied without a person reading it (rustc's applicability levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applicability {
    /// The edit is proven to keep the meaning of a correct program (W0101's `select`): a tool may apply it.
    MachineApplicable,
    /// The edit is probably what is wanted but may change what the program does: a person must check it.
    MaybeIncorrect,
}

/// Every code whose diagnostics may carry a [`Suggestion`] (an edit the language server offers as a quick fix and
/// the JSON as `suggested_replacement`). An edit must never change what a correct program means; the suggestion
/// test of `tests/` applies every edit of each listed code, and fails for a code it has no case of.
pub const SUGGESTING_CODES: &[&str] = &["E0001", "E0002", "E0003", "E0004", "E0006", "W0101", "W0102"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code, `E0xxx` for errors and `W0xxx` for warnings; `skc explain CODE` documents it.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<Label>,
    /// Extra sentences printed after the snippet (`note: ...`).
    pub notes: Vec<String>,
    /// How to fix it (`help: ...`).
    pub help: Option<String>,
    pub suggestion: Option<Suggestion>,
}

/// The severity the code table gives `code`.
fn code_severity(code: &str) -> Option<Severity> {
    crate::codes::lookup(code).map(|c| c.severity)
}

impl Diagnostic {
    /// An error; `code` is an error's code of [`crate::codes::CODES`] (checked in debug builds).
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        debug_assert_eq!(code_severity(code), Some(Severity::Error), "{code} is not an error's code in codes::CODES");
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            suggestion: None,
        }
    }

    /// A warning; `code` is a warning's code of [`crate::codes::CODES`] (checked in debug builds).
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        debug_assert_eq!(
            code_severity(code),
            Some(Severity::Warning),
            "{code} is not a warning's code in codes::CODES"
        );
        Diagnostic {
            code,
            severity: Severity::Warning,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            suggestion: None,
        }
    }

    pub fn primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label { span, message: message.into(), primary: true });
        self
    }

    pub fn secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label { span, message: message.into(), primary: false });
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Attaches a machine-applicable edit ([`Applicability::MachineApplicable`]): proven to keep the meaning of a
    /// correct program. Only the codes of [`SUGGESTING_CODES`] may: a test applies every edit of each of them and
    /// checks that the program still checks and means the same.
    pub fn suggest(mut self, message: impl Into<String>, span: Span, replacement: impl Into<String>) -> Diagnostic {
        debug_assert!(SUGGESTING_CODES.contains(&self.code), "{} is not in SUGGESTING_CODES", self.code);
        self.suggestion = Some(Suggestion {
            message: message.into(),
            span,
            replacement: replacement.into(),
            applicability: Applicability::MachineApplicable,
        });
        self
    }

    /// A suggestion a person must check before applying it ([`Applicability::MaybeIncorrect`]).
    pub fn suggest_maybe_incorrect(
        mut self,
        message: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Diagnostic {
        self = self.suggest(message, span, replacement);
        if let Some(suggestion) = &mut self.suggestion {
            suggestion.applicability = Applicability::MaybeIncorrect;
        }
        self
    }

    /// The span of the primary label (every diagnostic the compiler makes has one).
    pub fn primary_span(&self) -> Span {
        self.labels.iter().find(|l| l.primary).or(self.labels.first()).map(|l| l.span).unwrap_or_default()
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sort diagnostics by file and position, so output is stable whatever order the passes found them in.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| {
        let s = d.primary_span();
        (s.file, s.start, s.end, d.code)
    });
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Always,
    Never,
}

/// Longest message or label printed in full (a longer one keeps its ends: see `excerpt::shorten`); notes and help,
/// which may quote a tool's log, get ten times as much.
const MAX_TEXT_CHARS: usize = 400;
const MAX_NOTE_CHARS: usize = 4_000;

/// Renders with ariadne. `color: Never` gives plain ASCII output, the form kept in snapshots. ariadne sees only an
/// excerpt of each file (`excerpt`): the cost is what is printed, whatever the size of the file or of its lines.
pub fn render(diagnostic: &Diagnostic, sources: &SourceMap, color: ColorChoice) -> String {
    use ariadne::{CharSet, Config, IndexType, Label as AriadneLabel, Report, ReportKind};
    let kind = match diagnostic.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    };
    let colored = color == ColorChoice::Always;
    let config = Config::default()
        .with_color(colored)
        .with_char_set(if colored { CharSet::Unicode } else { CharSet::Ascii })
        .with_index_type(IndexType::Byte);
    let primary = diagnostic.primary_span();
    let excerpts: std::collections::BTreeMap<_, _> =
        excerpt::spans_by_file(diagnostic.labels.iter().map(|l| l.span).chain([primary]))
            .into_iter()
            .map(|(file, spans)| (file, excerpt::excerpt(sources.file(file), &spans)))
            .collect();
    let range = |span: Span| {
        let e = &excerpts[&span.file];
        e.map(span.start as usize)..e.map(span.end as usize)
    };
    let name = |span: Span| sources.file(span.file).name.clone();
    let short = |text: &str| excerpt::shorten(text, MAX_TEXT_CHARS).into_owned();
    let long = |text: &str| excerpt::shorten(text, MAX_NOTE_CHARS).into_owned();
    let mut report = Report::build(kind, (name(primary), range(primary)))
        .with_config(config)
        .with_code(diagnostic.code)
        .with_message(short(&diagnostic.message));
    // Labels print in source order (top to bottom); the JSON keeps the explanation's order.
    let mut labels: Vec<&Label> = diagnostic.labels.iter().collect();
    // The primary label's file first: ariadne titles the report with the first group's position.
    labels.sort_by_key(|l| (l.span.file != primary.file, l.span.file, l.span.start, l.span.end));
    for label in &labels {
        let mut l = AriadneLabel::new((name(label.span), range(label.span))).with_message(short(&label.message));
        if colored {
            l = l.with_color(if label.primary { ariadne::Color::Red } else { ariadne::Color::Blue });
        }
        report = report.with_label(l);
    }
    for note in &diagnostic.notes {
        report = report.with_note(long(note));
    }
    if let Some(help) = &diagnostic.help {
        report = report.with_help(long(help));
    }
    let cache = ariadne::sources(excerpts.iter().map(|(file, e)| (sources.file(*file).name.clone(), e.text.clone())));
    let mut out = Vec::new();
    if report.finish().write(cache, &mut out).is_err() {
        return render_short(diagnostic, sources);
    }
    let mut rendered = String::from_utf8_lossy(&out).into_owned();
    // Headers of a cut line say the column in the excerpt: put back the column in the file.
    for span in std::iter::once(primary).chain(labels.iter().map(|l| l.span)) {
        let file = sources.file(span.file);
        if let Some((line, moved, real)) = excerpt::moved_column(file, &excerpts[&span.file], span.start as usize) {
            let wrong = format!("{}:{line}:{moved} ]", file.name);
            rendered = rendered.replacen(&wrong, &format!("{}:{line}:{real} ]", file.name), 1);
        }
    }
    rendered
}

/// `file:line:col: error[CODE]: message`.
pub fn render_short(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let span = diagnostic.primary_span();
    let file = sources.file(span.file);
    let (line, col) = file.line_col(span.start as usize);
    format!(
        "{}:{}:{}: {}[{}]: {}",
        file.name,
        line + 1,
        col + 1,
        diagnostic.severity.as_str(),
        diagnostic.code,
        excerpt::shorten(&diagnostic.message, MAX_TEXT_CHARS)
    )
}

/// A span as rustc's JSON writes it.
fn span_json(span: Span, label: &str, primary: bool, sources: &SourceMap) -> serde_json::Value {
    let file = sources.file(span.file);
    let (line_start, column_start) = file.line_col(span.start as usize);
    let (line_end, column_end) = file.line_col(span.end as usize);
    serde_json::json!({
        "file_name": file.name,
        "byte_start": span.start,
        "byte_end": span.end,
        "line_start": line_start + 1,
        "line_end": line_end + 1,
        "column_start": column_start + 1,
        "column_end": column_end + 1,
        "is_primary": primary,
        "label": label,
        "text": sources.snippet(span),
    })
}

/// A JSON object shaped like rustc's `--error-format=json` output. A suggestion becomes a `help` child whose one
/// span carries the replacement text (`suggested_replacement`), as rustc's machine-applicable suggestions do.
pub fn to_json(diagnostic: &Diagnostic, sources: &SourceMap) -> serde_json::Value {
    use serde_json::json;
    let spans: Vec<_> =
        diagnostic.labels.iter().map(|label| span_json(label.span, &label.message, label.primary, sources)).collect();
    let mut children: Vec<_> =
        diagnostic.notes.iter().map(|n| json!({"message": n, "level": "note", "spans": [], "children": []})).collect();
    if let Some(help) = &diagnostic.help {
        children.push(json!({"message": help, "level": "help", "spans": [], "children": []}));
    }
    if let Some(suggestion) = &diagnostic.suggestion {
        let mut span = span_json(suggestion.span, "", true, sources);
        span["suggested_replacement"] = json!(suggestion.replacement);
        children.push(json!({"message": suggestion.message, "level": "help", "spans": [span], "children": []}));
    }
    json!({
        "message": diagnostic.message,
        "code": {
            "code": diagnostic.code,
            "explanation": crate::explain::explain(diagnostic.code).map(|e| format!("{}\n\n{}", e.title, e.body.trim_end())),
        },
        "level": diagnostic.severity.as_str(),
        "spans": spans,
        "children": children,
        "rendered": render(diagnostic, sources, ColorChoice::Never),
    })
}
