//! Syntax errors in words. The parser reports where it recovered with the set of terminals it expected there
//! (often dozens: every operator that could continue an expression); this module says what was most likely
//! missing: an expression, `in`, a `;` at the end of the previous line, a closing bracket (pointing back at the
//! one it would close), an item. Lexer errors (an invalid character, an unterminated comment or string) are
//! reported once each, and the parser's recovery at them adds nothing.

use lalrpop_util::ParseError;

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};
use crate::syntax::builder::Recovery;
use crate::syntax::lexer::{Lexeme, Token};
use crate::syntax::tokens::{starts_argument, starts_item};

/// Appends the diagnostics of the lexer errors in `tokens` and of the parser's `recoveries`.
pub fn report(text: &str, file: FileId, tokens: &[Lexeme], recoveries: Vec<Recovery>, out: &mut Vec<Diagnostic>) {
    let reporter = Reporter { text, file, tokens };
    for &lexeme in tokens.iter().filter(|l| l.token == Token::Error) {
        out.push(reporter.lexer_error(lexeme));
    }
    // After an unexpected `match` or `fun` inside an expression the parser cannot tell where the construct ends:
    // what it reports up to the next item follows from that one error.
    let mut quiet_until = 0;
    for recovery in recoveries {
        let (found, expected) = match recovery.error {
            ParseError::UnrecognizedToken { token: (_, lexeme, _), expected } => (lexeme, expected),
            ParseError::UnrecognizedEof { expected, .. } => (reporter.end_of_file(), expected),
            _ => continue,
        };
        if found.token == Token::Error || found.start < quiet_until {
            continue;
        }
        let expected = Expected::new(&expected);
        let diagnostic = if found.token == Token::Fun && expected.expression {
            quiet_until = reporter.next_item_start(found);
            let help = "an anonymous function is written in parentheses, `(fun x -> e)`, as the argument of a device function's function parameter; otherwise use a top-level or local function";
            Diagnostic::error("E0205", "this construct inside a kernel is not supported")
                .primary(reporter.span(found), "this construct inside a kernel")
                .help(help)
        } else if found.token == Token::Match && expected.expression {
            // A `match` where its last arm would take what follows (an operand, a `then` branch before `else`,
            // an arm before another): the grammar admits it only in parentheses.
            quiet_until = reporter.next_item_start(found);
            Diagnostic::error("E0100", "a `match` here must be in parentheses")
                .primary(reporter.span(found), "its last arm would take what follows it")
                .help("write `(match e with ...)` or `begin match e with ... end`")
        } else if let Some(open_match) = reporter.match_before_else(found) {
            Diagnostic::error("E0100", "a `match` in a `then` branch before `else` must be in parentheses")
                .primary(reporter.span(open_match), "its last arm would take the `else`")
                .secondary(reporter.span(found), "this `else` then has no `if`")
                .help("write `(match e with ...)` or `begin match e with ... end`")
        } else {
            reporter.unexpected(found, &expected)
        };
        // One report per position: a second recovery at the same token adds nothing.
        if !out.iter().any(|d| d.primary_span() == diagnostic.primary_span()) {
            out.push(diagnostic);
        }
    }
}

/// The terminals the parser expected, by kind.
struct Expected {
    /// Terminal names as the grammar spells them (`"in"`, `Ident`), without quotes.
    names: Vec<String>,
    /// An expression may start here (`if` is expected, which only starts expressions).
    expression: bool,
}

impl Expected {
    fn new(names: &[String]) -> Expected {
        let names: Vec<String> = names.iter().map(|n| n.trim_matches('"').to_string()).collect();
        // `if` starts only expressions; an argument (after `!`, `ref`) starts with an atom.
        let has = |name: &str| names.iter().any(|n| n == name);
        let expression = has("if") || (has("Int") && has("(") && !has("<"));
        Expected { names, expression }
    }

    fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// What must come here: the expected terminals without those that would only continue what came before
    /// (operators, arguments, postfixes, `;`, a type annotation, `else`).
    fn required(&self) -> Vec<&str> {
        // `=` and `-` also start a definition's value or an operand: they continue an expression only where the
        // other operators do.
        let after_operand = self.has("<");
        self.names
            .iter()
            .map(String::as_str)
            .filter(|n| !(continues(n) && (after_operand || !matches!(*n, "=" | "-"))))
            .collect()
    }
}

/// Terminals that continue an expression, an application, a parameter list or a type already begun.
fn continues(name: &str) -> bool {
    matches!(
        name,
        "<-" | ":="
            | "||"
            | "&&"
            | "&"
            | "="
            | "=="
            | "<>"
            | "!="
            | "<"
            | "<="
            | ">"
            | ">="
            | "+"
            | "-"
            | "+."
            | "-."
            | "*"
            | "/"
            | "*."
            | "/."
            | "mod"
            | "land"
            | "lor"
            | "lxor"
            | "**"
            | "lsl"
            | "lsr"
            | "asr"
            | "."
            | ";"
            | ":"
            | ","
            | "else"
            | "["
            | "Ident"
            | "UIdent"
            | "Int"
            | "Float"
            | "String"
            | "true"
            | "false"
            | "("
            | "[|"
            | "[%"
            | "!"
            | "begin"
            | "{"
            | "[@"
            | "[@@"
    )
}

/// Closing tokens and the tokens that open them.
const DELIMITERS: [(Token, &[Token]); 6] = [
    (Token::RParen, &[Token::LParen]),
    (
        Token::RBracket,
        &[
            Token::LBracket,
            Token::LExtension,
            Token::KernelExtension,
            Token::ItemKernelExtension,
            Token::LItemExtension,
            Token::LAttribute,
            Token::LItemAttribute,
            Token::LFloatingAttribute,
        ],
    ),
    (Token::RArray, &[Token::LArray]),
    (Token::RBrace, &[Token::LBrace]),
    (Token::End, &[Token::Begin]),
    (Token::Done, &[Token::Do]),
];

struct Reporter<'a> {
    text: &'a str,
    file: FileId,
    tokens: &'a [Lexeme],
}

impl Reporter<'_> {
    fn span(&self, lexeme: Lexeme) -> Span {
        Span { file: self.file, start: lexeme.start, end: lexeme.end }
    }

    fn end_of_file(&self) -> Lexeme {
        let end = self.text.len() as u32;
        Lexeme { token: Token::Eof, start: end, end }
    }

    fn text_of(&self, lexeme: Lexeme) -> &str {
        &self.text[lexeme.start as usize..lexeme.end as usize]
    }

    /// Index of the first token at or after `offset`.
    fn index_at(&self, offset: u32) -> usize {
        self.tokens.partition_point(|l| l.start < offset)
    }

    fn next_item_start(&self, after: Lexeme) -> u32 {
        let from = self.index_at(after.end);
        self.tokens[from..].iter().find(|l| starts_item(l.token)).map(|l| l.start).unwrap_or(u32::MAX)
    }

    fn lexer_error(&self, lexeme: Lexeme) -> Diagnostic {
        let span = self.span(lexeme);
        let text = self.text_of(lexeme);
        if text.starts_with("(*") {
            Diagnostic::error("E0101", "unterminated comment")
                .primary(Span { end: span.start + 2, ..span }, "this comment is never closed")
                .help("close it with `*)`")
        } else if text.starts_with('"') {
            Diagnostic::error("E0101", "unterminated string").primary(span, "this string is never closed")
        } else {
            Diagnostic::error("E0103", format!("invalid character `{}`", text.escape_debug()))
                .primary(span, "not part of the .sk language")
        }
    }

    /// "expected X, found Y" for an unexpected token `found`.
    fn unexpected(&self, found: Lexeme, expected: &Expected) -> Diagnostic {
        let index = self.index_at(found.start);
        let previous = index.checked_sub(1).map(|i| self.tokens[i]);
        if let Some(previous) = previous.filter(|&p| self.missing_semicolon(p, found, expected)) {
            let end = Span { file: self.file, start: previous.end, end: previous.end };
            return Diagnostic::error("E0100", format!("expected `;`, found {}", self.found_text(found)))
                .primary(end, "expected `;` here")
                .secondary(self.span(found), "the next statement starts here");
        }
        let words = self.words(expected, previous);
        let mut d = Diagnostic::error("E0100", format!("expected {words}, found {}", self.found_text(found)))
            .primary(self.span(found), format!("expected {words}"));
        if let Some(open) = self.unclosed_opener(expected, index) {
            d = d.secondary(self.span(open), "unclosed delimiter opened here");
        }
        d
    }

    /// For an unexpected `else`: the `match` between it and the nearest `then` before it, whose last arm ended the
    /// `then` branch (a `match` is not a `then` branch before `else` unless in parentheses).
    fn match_before_else(&self, found: Lexeme) -> Option<Lexeme> {
        if found.token != Token::Else {
            return None;
        }
        let before = &self.tokens[..self.index_at(found.start)];
        let then = before.iter().rposition(|l| l.token == Token::Then)?;
        before[then..].iter().find(|l| l.token == Token::Match).copied()
    }

    fn found_text(&self, found: Lexeme) -> String {
        match found.token {
            Token::Eof => "end of file".to_string(),
            _ => format!("`{}`", self.text_of(found)),
        }
    }

    /// Two statements on two lines without a `;` between them (and no `let` waiting for its `in`).
    fn missing_semicolon(&self, previous: Lexeme, found: Lexeme, expected: &Expected) -> bool {
        let starts_statement = starts_argument(found.token)
            || matches!(
                found.token,
                Token::Minus
                    | Token::MinusDot
                    | Token::Not
                    | Token::Lnot
                    | Token::If
                    | Token::Match
                    | Token::Let
                    | Token::For
                    | Token::While
                    | Token::Return
                    | Token::Break
                    | Token::Continue
                    | Token::Superstep
                    | Token::Ref
                    | Token::Pragma
            );
        let new_line = self.text[previous.end as usize..found.start as usize].contains('\n');
        starts_statement && new_line && expected.has(";") && !expected.has("in") && !expected.expression
    }

    fn words(&self, expected: &Expected, previous: Option<Lexeme>) -> String {
        if expected.expression {
            return "an expression".to_string();
        }
        if expected.has("in") {
            return "`in`".to_string();
        }
        if expected.has("rec") {
            return "a name to bind".to_string(); // after `let`
        }
        let required = expected.required();
        if !required.is_empty() && required.iter().all(|n| is_item_start(n)) {
            return "an item (`let`, `kernel`, `type` or `open`)".to_string();
        }
        if required.is_empty() {
            let names: Vec<&str> = expected.names.iter().map(String::as_str).collect();
            return match names.as_slice() {
                ["(", "Ident"] | ["Ident", "("] if previous.map(|p| p.token) == Some(Token::Dot) => {
                    "`(` or a field name after `.`".to_string()
                }
                ["(", "Ident"] | ["Ident", "("] => "a type".to_string(),
                ["Ident"] => "a name".to_string(),
                ["UIdent"] => "a module name".to_string(),
                _ => list(&names),
            };
        }
        list(&required)
    }

    /// The opening token of the innermost unclosed delimiter whose closing token is the one expected.
    fn unclosed_opener(&self, expected: &Expected, before: usize) -> Option<Lexeme> {
        let required = expected.required();
        let [closer] = required.as_slice() else { return None };
        let (_, openers) = DELIMITERS.iter().find(|(token, _)| &token_name(*token) == closer)?;
        let mut stack: Vec<Lexeme> = Vec::new();
        for &lexeme in &self.tokens[..before.min(self.tokens.len())] {
            if DELIMITERS.iter().any(|(_, opens)| opens.contains(&lexeme.token)) {
                stack.push(lexeme);
            } else if let Some((_, opens)) = DELIMITERS.iter().find(|(close, _)| *close == lexeme.token) {
                if let Some(position) = stack.iter().rposition(|open| opens.contains(&open.token)) {
                    stack.truncate(position);
                }
            }
        }
        stack.into_iter().rev().find(|open| openers.contains(&open.token))
    }
}

fn is_item_start(name: &str) -> bool {
    matches!(name, "ItemLet" | "ItemKernel" | "ItemFun" | "[%kernel" | "type" | "open" | ";;")
}

/// How a token is named in the grammar (the closing tokens only).
fn token_name(token: Token) -> String {
    token.describe().trim_matches('`').to_string()
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
fn list(names: &[&str]) -> String {
    let mut words: Vec<String> = Vec::new();
    for word in names.iter().map(|n| describe(n)) {
        if !words.contains(&word) {
            words.push(word);
        }
    }
    match words.as_slice() {
        [] => "something else".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn describe(name: &str) -> String {
    match name {
        "Ident" => "a name".to_string(),
        "UIdent" => "a module or constructor name".to_string(),
        "Int" => "an integer".to_string(),
        "Float" => "a float".to_string(),
        "String" => "a string".to_string(),
        "ItemLet" => "`let`".to_string(),
        "ItemKernel" => "`kernel`".to_string(),
        "ItemFun" => "`fun`".to_string(),
        other => format!("`{other}`"),
    }
}
