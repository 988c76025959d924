//! The small C statement tree the lowering builds, and its printer. The printer indents, chains `else if`, and
//! writes `#line N "file.sk"` before a statement whose `.sk` line differs from the line the C output is currently
//! mapped to (it counts the physical lines it prints, so consecutive statements on consecutive `.sk` lines need
//! no directive).

use crate::source::{SourceMap, Span};

/// One C statement, with the `.sk` expression it comes from (for `#line`).
#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub origin: Option<Span>,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// One line of C ending with `;` (a declaration, an assignment, a call, `break;`).
    Simple(String),
    /// `// text`.
    Comment(String),
    /// `{  // comment` ... `}`.
    Block {
        comment: Option<String>,
        body: Vec<Stmt>,
    },
    If {
        cond: String,
        then_body: Vec<Stmt>,
        else_body: Vec<Stmt>,
    },
    /// `header { body }` where header is `for (...)` or `while (...)`; `pragma` is printed on the line before.
    Loop {
        pragma: Option<String>,
        header: String,
        body: Vec<Stmt>,
    },
}

impl Stmt {
    pub fn simple(text: impl Into<String>, origin: Option<Span>) -> Stmt {
        Stmt { kind: StmtKind::Simple(text.into()), origin }
    }
}

/// Writes C text with indentation and `#line` directives.
pub struct Printer<'a> {
    pub out: String,
    indent: usize,
    sources: &'a SourceMap,
    line_directives: bool,
    /// The (file, one-based `.sk` line) the next printed line is mapped to, once a directive was written.
    mapped: Option<(u32, usize)>,
}

impl<'a> Printer<'a> {
    pub fn new(sources: &'a SourceMap, line_directives: bool) -> Printer<'a> {
        Printer { out: String::new(), indent: 0, sources, line_directives, mapped: None }
    }

    /// Prints one physical line at the current indentation (an empty `text` prints an empty line).
    pub fn line(&mut self, text: &str) {
        if !text.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
        if let Some((_, line)) = &mut self.mapped {
            *line += 1;
        }
    }

    /// Maps the next printed line to the `.sk` line where `span` starts, writing a directive if needed.
    pub fn directive(&mut self, span: Span) {
        self.directive_before(span, 0);
    }

    /// Maps the next printed line to `lines_before` lines above the `.sk` line where `span` starts (a loop's
    /// `#pragma` takes the line above the loop).
    fn directive_before(&mut self, span: Span, lines_before: usize) {
        if !self.line_directives {
            return;
        }
        let Some((_, file)) = self.sources.files().nth(span.file.0 as usize) else { return };
        let line = file.line_col(span.start as usize).0 + 1;
        let line = if line > lines_before { line - lines_before } else { line };
        if self.mapped == Some((span.file.0, line)) {
            return;
        }
        let name = file.name.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").replace('\r', "\\r");
        self.out.push_str(&format!("#line {line} \"{name}\"\n"));
        self.mapped = Some((span.file.0, line));
    }

    pub fn indent(&mut self) {
        self.indent += 1;
    }

    pub fn dedent(&mut self) {
        self.indent = self.indent.saturating_sub(1);
    }

    pub fn statements(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.statement(s);
        }
    }

    fn statement(&mut self, stmt: &Stmt) {
        if let Some(span) = stmt.origin {
            let pragma = matches!(&stmt.kind, StmtKind::Loop { pragma: Some(_), .. });
            self.directive_before(span, if pragma { 1 } else { 0 });
        }
        match &stmt.kind {
            StmtKind::Simple(text) => self.line(text),
            StmtKind::Comment(text) => self.line(&format!("// {text}")),
            StmtKind::Block { comment, body } => {
                match comment {
                    Some(c) => self.line(&format!("{{  // {c}")),
                    None => self.line("{"),
                }
                self.body(body);
                self.line("}");
            }
            StmtKind::If { cond, then_body, else_body } => self.if_chain(cond, then_body, else_body, ""),
            StmtKind::Loop { pragma, header, body } => {
                if let Some(p) = pragma {
                    self.line(p);
                }
                self.line(&format!("{header} {{"));
                self.body(body);
                self.line("}");
            }
        }
    }

    fn body(&mut self, body: &[Stmt]) {
        self.indent();
        self.statements(body);
        self.dedent();
    }

    /// `if (c) { } else if (d) { } else { }`: an else branch that is a lone `if` continues the chain (its `#line`,
    /// if any, goes before the `} else if` line).
    fn if_chain(&mut self, cond: &str, then_body: &[Stmt], else_body: &[Stmt], prefix: &str) {
        self.line(&format!("{prefix}if ({cond}) {{"));
        self.body(then_body);
        match else_body {
            [] => self.line("}"),
            [Stmt { kind: StmtKind::If { cond, then_body, else_body }, origin }] => {
                if let Some(span) = origin {
                    self.directive(*span);
                }
                self.if_chain(cond, then_body, else_body, "} else ");
            }
            _ => {
                self.line("} else {");
                self.body(else_body);
                self.line("}");
            }
        }
    }
}
