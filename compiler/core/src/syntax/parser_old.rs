//! A hand-written recursive-descent parser with precedence climbing, from tokens to [`ast::Module`].
//!
//! Why not lalrpop: the ML-style surface (`let ... in` and `if ... then` without `else` that extend as far right as
//! possible, `;` sequencing, juxtaposition for application) is resolved by precedence in OCaml's own grammar; an
//! LR grammar without precedence declarations must be stratified by hand, and recovery would be limited to `!`
//! productions. Here recovery happens at two levels: statements (skip to the next `;` or closing token) and items
//! (skip to the next item keyword at the start of a line), so one run reports several errors.
//!
//! Precedence, loosest first (OCaml's): `;` < `let`/`if` (open-ended) < `<-` `:=` (right) < `||` (right) <
//! `&&` (right) < comparisons (left) < `+ - +. -.` (left) < `* / *. /. mod land lor lxor` (left) <
//! `** lsl lsr asr` (right) < unary `-` `not` < application < `!` and `.( )` `.f`.

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{lex, Lexeme, Token};

/// Parses `text` (file `file`) and appends its items and expressions to `module`. Returns syntax diagnostics.
/// `default_kernel_name` names a bare `fun ... -> ...` kernel (the CLI passes the file stem).
pub fn parse(text: &str, file: FileId, module: &mut Module, default_kernel_name: &str) -> Vec<Diagnostic> {
    let tokens = lex(text);
    // Typical code has a little over one expression per two tokens: reserving them up front saves growing (and
    // copying) the arena.
    module.exprs.reserve(tokens.len() * 3 / 5);
    module.expr_spans.reserve(tokens.len() * 3 / 5);
    let mut parser = Parser {
        text,
        file,
        tokens,
        pos: 0,
        module,
        diagnostics: Vec::new(),
        default_kernel_name: default_kernel_name.to_string(),
        bare_kernels: 0,
        pending_launch_bounds: None,
        attribute_errors: Vec::new(),
        depth: 0,
        statements: Vec::new(),
    };
    parser.parse_items();
    let mut diagnostics = parser.diagnostics;
    diagnostics.append(&mut parser.attribute_errors);
    diagnostics
}

/// Deepest expression nesting accepted; deeper input gets a diagnostic instead of overflowing the stack.
const MAX_DEPTH: u32 = 200;

struct Parser<'a> {
    text: &'a str,
    file: FileId,
    tokens: Vec<Lexeme>,
    pos: usize,
    module: &'a mut Module,
    diagnostics: Vec<Diagnostic>,
    default_kernel_name: String,
    bare_kernels: u32,
    /// `[@launch_bounds ...]` read after `let`, for the kernel that the item may turn out to define.
    pending_launch_bounds: Option<LaunchBounds>,
    /// Errors in attributes whose item parsed well: reported, but they start no error recovery (which would skip
    /// the next item).
    attribute_errors: Vec<Diagnostic>,
    depth: u32,
    /// Statements of the sequences being parsed (see `parse_seq`).
    statements: Vec<ExprId>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Assoc {
    Left,
    Right,
}

/// Binary operators: precedence level (higher binds tighter), associativity, operator.
fn binary_operator(token: Token) -> Option<(u8, Assoc, BinaryOp)> {
    use BinaryOp as B;
    use Token as T;
    Some(match token {
        T::BarBar => (2, Assoc::Right, B::Or),
        T::AmpAmp | T::Amp => (3, Assoc::Right, B::And),
        T::Eq | T::EqEq => (4, Assoc::Left, B::Eq),
        T::LtGt | T::BangEq => (4, Assoc::Left, B::Ne),
        T::Lt => (4, Assoc::Left, B::Lt),
        T::Le => (4, Assoc::Left, B::Le),
        T::Gt => (4, Assoc::Left, B::Gt),
        T::Ge => (4, Assoc::Left, B::Ge),
        T::Plus => (5, Assoc::Left, B::Add),
        T::Minus => (5, Assoc::Left, B::Sub),
        T::PlusDot => (5, Assoc::Left, B::FAdd),
        T::MinusDot => (5, Assoc::Left, B::FSub),
        T::Star => (6, Assoc::Left, B::Mul),
        T::Slash => (6, Assoc::Left, B::Div),
        T::StarDot => (6, Assoc::Left, B::FMul),
        T::SlashDot => (6, Assoc::Left, B::FDiv),
        T::Mod => (6, Assoc::Left, B::Mod),
        T::Land => (6, Assoc::Left, B::Land),
        T::Lor => (6, Assoc::Left, B::Lor),
        T::Lxor => (6, Assoc::Left, B::Lxor),
        T::StarStar => (7, Assoc::Right, B::Pow),
        T::Lsl => (7, Assoc::Right, B::Lsl),
        T::Lsr => (7, Assoc::Right, B::Lsr),
        T::Asr => (7, Assoc::Right, B::Asr),
        _ => return None,
    })
}

/// Level of `<-` and `:=`.
const ASSIGN_LEVEL: u8 = 1;
/// Operand level of unary minus and `not`: only `**` and the shifts bind tighter.
const UNARY_OPERAND_LEVEL: u8 = 7;

/// Tokens that end a sequence or a branch: never consumed by error recovery inside an expression.
fn is_closer(token: Token) -> bool {
    use Token::*;
    matches!(
        token,
        RParen | RBrace | RBracket | RArray | End | Done | In | Then | Else | Do | To | Downto | SemiSemi | Eof
    )
}

/// Tokens that start a top-level item (recovery resumes at one of these at the start of a line).
fn starts_item(token: Token) -> bool {
    matches!(token, Token::Let | Token::Type | Token::Open | Token::LExtension | Token::Fun)
}

impl<'a> Parser<'a> {
    // --- token access -------------------------------------------------------------------------------

    fn peek(&self) -> Token {
        self.tokens[self.pos].token
    }

    fn peek_at(&self, n: usize) -> Token {
        self.tokens.get(self.pos + n).map(|l| l.token).unwrap_or(Token::Eof)
    }

    fn current(&self) -> Lexeme {
        self.tokens[self.pos]
    }

    fn text_of(&self, lexeme: Lexeme) -> &'a str {
        &self.text[lexeme.start as usize..lexeme.end as usize]
    }

    fn peek_text(&self) -> &'a str {
        self.text_of(self.current())
    }

    fn span_of(&self, lexeme: Lexeme) -> Span {
        Span { file: self.file, start: lexeme.start, end: lexeme.end }
    }

    fn current_span(&self) -> Span {
        self.span_of(self.current())
    }

    /// End of the last consumed token.
    fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            0
        } else {
            self.tokens[self.pos - 1].end
        }
    }

    fn span_from(&self, start: u32) -> Span {
        Span { file: self.file, start, end: self.prev_end().max(start) }
    }

    fn bump(&mut self) -> Lexeme {
        let lexeme = self.current();
        if lexeme.token != Token::Eof {
            self.pos += 1;
        }
        lexeme
    }

    fn bump_span(&mut self) -> Span {
        let lexeme = self.bump();
        self.span_of(lexeme)
    }

    fn eat(&mut self, token: Token) -> bool {
        if self.peek() == token {
            self.bump();
            true
        } else {
            false
        }
    }

    fn at_ident(&self, name: &str) -> bool {
        self.peek() == Token::Ident && self.peek_text() == name
    }

    /// `kernel name ...` or `kernel[@...] name ...` in column 0 (`kernel` is a keyword only there, so Sarek code may
    /// name a kernel `kernel`).
    fn at_native_kernel(&self) -> bool {
        self.at_ident("kernel") && matches!(self.peek_at(1), Token::Ident | Token::LAttribute) && {
            let start = self.current().start as usize;
            start == 0 || self.text.as_bytes()[start - 1] == b'\n'
        }
    }

    /// Does an item start here (recovery resumes at such a token)?
    fn at_item_start(&self) -> bool {
        (starts_item(self.peek()) && self.at_line_start()) || self.at_native_kernel()
    }

    /// Is the current token the first on its line (for `let`: in column 0, since nested `let`s are indented)?
    fn at_line_start(&self) -> bool {
        let start = self.current().start as usize;
        let before = &self.text[..start];
        let line_prefix = before.rsplit('\n').next().unwrap_or("");
        if self.peek() == Token::Let {
            line_prefix.is_empty()
        } else {
            line_prefix.trim().is_empty()
        }
    }

    // --- errors -------------------------------------------------------------------------------------

    fn error_here(&mut self, expected: &str) {
        let found = self.current();
        let span = self.span_of(found);
        let found_text = match found.token {
            Token::Eof => "end of file".to_string(),
            Token::Error => return self.report_error_token(found),
            _ => format!("`{}`", self.text_of(found)),
        };
        // One report per position: later expectations at the same token add nothing.
        if self.diagnostics.last().map(|d| d.primary_span() == span).unwrap_or(false) {
            return;
        }
        let d = Diagnostic::error("E0100", format!("expected {expected}, found {found_text}"))
            .primary(span, format!("expected {expected}"));
        self.diagnostics.push(d);
    }

    fn report_error_token(&mut self, lexeme: Lexeme) {
        let span = self.span_of(lexeme);
        if self.diagnostics.iter().any(|d| d.primary_span() == span) {
            return;
        }
        let text = self.text_of(lexeme);
        let d = if text.starts_with("(*") {
            Diagnostic::error("E0101", "unterminated comment")
                .primary(Span { end: span.start + 2, ..span }, "this comment is never closed")
                .help("close it with `*)`")
        } else if text.starts_with('"') {
            Diagnostic::error("E0101", "unterminated string").primary(span, "this string is never closed")
        } else {
            Diagnostic::error("E0103", format!("invalid character `{}`", text.escape_debug()))
                .primary(span, "not part of the .sk language")
        };
        self.diagnostics.push(d);
    }

    fn expect(&mut self, token: Token) -> bool {
        if self.eat(token) {
            return true;
        }
        self.error_here(token.describe());
        false
    }

    /// Expects a closing token; on failure, points back at the opening one.
    fn expect_closing(&mut self, token: Token, open: Span) {
        if self.eat(token) {
            return;
        }
        let before = self.diagnostics.len();
        self.error_here(token.describe());
        if self.diagnostics.len() > before {
            let d = self.diagnostics.pop().expect("just pushed");
            self.diagnostics.push(d.secondary(open, "unclosed delimiter opened here"));
        }
    }

    fn unsupported(&mut self, span: Span, what: &str, help: &str) {
        self.diagnostics
            .push(Diagnostic::error("E0205", format!("{what} is not supported")).primary(span, what).help(help));
    }

    fn error_expr(&mut self, span: Span) -> ExprId {
        self.module.alloc(ExprKind::Error, span)
    }

    // --- items ----------------------------------------------------------------------------------------

    fn parse_items(&mut self) {
        while self.peek() != Token::Eof {
            let before_pos = self.pos;
            let before_errors = self.diagnostics.len();
            self.parse_item();
            while self.eat(Token::SemiSemi) {}
            if self.diagnostics.len() > before_errors || self.pos == before_pos {
                self.recover_to_item(before_pos);
            }
        }
    }

    /// Skips to the next token that starts an item at the beginning of a line.
    fn recover_to_item(&mut self, item_start: usize) {
        if self.pos == item_start {
            self.bump();
        }
        while self.peek() != Token::Eof && !self.at_item_start() {
            if self.peek() == Token::Error {
                let lexeme = self.current();
                self.report_error_token(lexeme);
            }
            self.bump();
        }
    }

    fn parse_item(&mut self) {
        let start = self.current().start;
        match self.peek() {
            Token::Let => self.parse_let_item(start),
            Token::Ident
                if self.peek_text() == "kernel" && matches!(self.peek_at(1), Token::Ident | Token::LAttribute) =>
            {
                self.parse_native_kernel(start)
            }
            Token::Type => self.parse_type_decl(start),
            Token::Open => {
                self.bump();
                if let Some(module) = self.expect_uident() {
                    let span = self.span_from(start);
                    self.module.items.push(Item::Open(Open { module, span }));
                }
            }
            Token::LExtension | Token::Fun => {
                let name = self.next_bare_kernel_name(start);
                self.parse_kernel_value(name, start);
            }
            Token::Error => {
                let lexeme = self.current();
                self.report_error_token(lexeme);
            }
            _ => self.error_here("an item (`let`, `kernel`, `type` or `open`)"),
        }
    }

    fn next_bare_kernel_name(&mut self, start: u32) -> Ident {
        let name = if self.bare_kernels == 0 {
            self.default_kernel_name.clone()
        } else {
            format!("{}_{}", self.default_kernel_name, self.bare_kernels)
        };
        self.bare_kernels += 1;
        Ident { name: name.into(), span: Span { file: self.file, start, end: start } }
    }

    fn expect_ident(&mut self) -> Option<Ident> {
        if self.peek() == Token::Ident {
            let l = self.bump();
            return Some(Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) });
        }
        self.error_here("a name");
        None
    }

    fn expect_uident(&mut self) -> Option<Ident> {
        if self.peek() == Token::UIdent {
            let l = self.bump();
            return Some(Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) });
        }
        self.error_here("a module name");
        None
    }

    /// Parses `[@name payload]` or `[@@name payload]` after its opening token; returns the dotted name.
    fn parse_attribute_body(&mut self, open: Span) -> Ident {
        let start = self.current().start;
        let mut name = String::new();
        while matches!(self.peek(), Token::Ident | Token::UIdent | Token::Dot) && self.peek_at(0) != Token::Eof {
            name.push_str(self.peek_text());
            self.bump();
        }
        let span = self.span_from(start);
        // Skip any payload, keeping brackets balanced.
        let mut depth = 0;
        loop {
            match self.peek() {
                Token::Eof => break,
                Token::RBracket if depth == 0 => break,
                Token::LBracket | Token::LAttribute | Token::LItemAttribute | Token::LExtension => depth += 1,
                Token::RBracket => depth -= 1,
                _ => {}
            }
            self.bump();
        }
        self.expect_closing(Token::RBracket, open);
        Ident { name: name.into(), span }
    }

    /// `[@launch_bounds MAX_THREADS]` or `[@launch_bounds MAX_THREADS MIN_BLOCKS]` after its opening token: positive
    /// integer literals (E0106 otherwise).
    fn parse_launch_bounds(&mut self, open: Span) -> Option<LaunchBounds> {
        let start = self.current().start;
        self.bump(); // launch_bounds
        let mut numbers = Vec::new();
        let mut bad = None;
        while !matches!(self.peek(), Token::RBracket | Token::Eof) {
            let lexeme = self.bump();
            let parsed = match lexeme.token {
                Token::Int => match self.int_literal(lexeme) {
                    ExprKind::Int { value, .. } if (1..=u32::MAX as u64).contains(&value) => Some(value as u32),
                    _ => None,
                },
                _ => None,
            };
            match parsed {
                Some(n) => numbers.push(n),
                None => bad = bad.or(Some(self.span_of(lexeme))),
            }
        }
        let span = self.span_from(start);
        self.expect_closing(Token::RBracket, open);
        if bad.is_none() && (1..=2).contains(&numbers.len()) {
            return Some(LaunchBounds { max_threads: numbers[0], min_blocks: numbers.get(1).copied(), span });
        }
        self.attribute_errors.push(
            Diagnostic::error("E0106", "malformed `launch_bounds` attribute")
                .primary(bad.unwrap_or(span), "expected one or two positive integer literals")
                .help("write `[@launch_bounds 1024]` (threads per block) or `[@launch_bounds 1024 1]` (and blocks per multiprocessor)"),
        );
        None
    }

    /// Attributes of a kernel item: `[@launch_bounds ...]`; anything else is ignored with W0002.
    fn kernel_attributes(&mut self) -> Option<LaunchBounds> {
        let mut bounds = None;
        while self.peek() == Token::LAttribute {
            let open = self.bump();
            let open = self.span_of(open);
            if self.peek() == Token::Ident && self.peek_text() == "launch_bounds" {
                bounds = self.parse_launch_bounds(open).or(bounds);
                continue;
            }
            if self.peek_text() == "allow" {
                self.bump();
                self.parse_allow_payload(open);
                continue;
            }
            let attribute = self.parse_attribute_body(open);
            self.diagnostics.push(
                Diagnostic::warning("W0002", format!("unknown attribute `{}` is ignored", attribute.name))
                    .primary(attribute.span, "not an attribute skc knows"),
            );
        }
        bounds
    }

    /// `[@allow W0101 W0003]` (or `[@allow "W0101"]`): after the name, the codes up to the closing bracket.
    fn parse_allow_payload(&mut self, open: Span) {
        while matches!(self.peek(), Token::UIdent | Token::Ident | Token::String) {
            let code = self.bump();
            // `W0101` or `"W0101"` (the quotes are not part of the code).
            let (text, mut span) = (self.text_of(code), self.span_of(code));
            let text = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                Some(inner) => {
                    span = Span { start: span.start + 1, end: span.end - 1, ..span };
                    inner
                }
                None => text,
            };
            let code = Ident { name: Name::new(text), span };
            let known = crate::explain::explain(code.name.as_str()).is_some_and(|e| e.code.starts_with('W'));
            if !known {
                self.diagnostics.push(
                    Diagnostic::warning("W0002", format!("`allow` names `{}`, which is not a warning code", code.name))
                        .primary(code.span, "not a warning of skc (`skc explain` lists the codes)"),
                );
            }
            self.module.allows.push(code);
        }
        self.expect_closing(Token::RBracket, open);
    }

    /// Attributes accepted on `let` items: `[@sarek.module]` (a device function), `[@inline]`-style hints,
    /// `[@launch_bounds ...]` (kept for a kernel the item defines) and `[@allow CODE ...]` (silences those warnings
    /// inside the item).
    fn skip_item_attributes(&mut self) {
        while self.peek() == Token::LAttribute {
            let open = self.bump();
            let open = self.span_of(open);
            if self.peek() == Token::Ident && self.peek_text() == "launch_bounds" {
                self.pending_launch_bounds = self.parse_launch_bounds(open).or(self.pending_launch_bounds);
                continue;
            }
            if self.peek_text() == "allow" {
                self.bump();
                self.parse_allow_payload(open);
                continue;
            }
            let attribute = self.parse_attribute_body(open);
            let known = ["sarek.module", "sarek.kernel", "inline", "noinline", "device"];
            if !known.contains(&attribute.name.as_str()) {
                self.diagnostics.push(
                    Diagnostic::warning("W0002", format!("unknown attribute `{}` is ignored", attribute.name))
                        .primary(attribute.span, "not an attribute skc knows"),
                );
            }
        }
    }

    fn parse_let_item(&mut self, start: u32) {
        self.bump(); // let
        self.pending_launch_bounds = None;
        self.skip_item_attributes();
        self.parse_let_item_rest(start);
        if let Some(bounds) = self.pending_launch_bounds.take() {
            self.attribute_errors.push(
                Diagnostic::error("E0106", "`launch_bounds` applies to kernels only")
                    .primary(bounds.span, "this item is not a kernel"),
            );
        }
    }

    fn parse_let_item_rest(&mut self, start: u32) {
        if self.peek() == Token::Rec {
            let span = self.current_span();
            self.bump();
            self.unsupported(span, "recursion", "GPU device functions cannot recurse here; write a loop");
        }
        if self.peek() == Token::Percent {
            let span = self.current_span();
            self.unsupported(span, "this extension at top level", "use `let name = [%kernel fun ... -> ...]`");
            return;
        }
        // `let (name : T) = value`
        if self.peek() == Token::LParen && self.peek_at(1) == Token::Ident && self.peek_at(2) == Token::Colon {
            let open = self.bump();
            let name = self.expect_ident();
            self.expect(Token::Colon);
            let ty = self.parse_type();
            self.expect_closing(Token::RParen, self.span_of(open));
            self.expect(Token::Eq);
            let value = self.parse_seq();
            if let Some(name) = name {
                let span = self.span_from(start);
                self.module.items.push(Item::Constant(Constant { name, ty: Some(ty), value, span }));
            }
            return;
        }
        let Some(name) = self.expect_ident() else { return };
        let (params, is_function) = self.parse_params_marked();
        let ret = if self.eat(Token::Colon) { Some(self.parse_type()) } else { None };
        if !self.expect(Token::Eq) {
            return;
        }
        if !is_function && matches!(self.peek(), Token::LExtension) {
            self.parse_kernel_value(name, start);
            return;
        }
        if !is_function && self.peek() == Token::Fun {
            // `let f = fun x y -> body`: a device function.
            self.bump();
            let params = self.parse_params();
            self.expect(Token::Arrow);
            let body = self.parse_seq();
            let span = self.span_from(start);
            self.module.items.push(Item::Function(Function { name, params, ret, body, span }));
            return;
        }
        let body = self.parse_seq();
        let span = self.span_from(start);
        if !is_function {
            self.module.items.push(Item::Constant(Constant { name, ty: ret, value: body, span }));
        } else {
            self.module.items.push(Item::Function(Function { name, params, ret, body, span }));
        }
    }

    /// `[%kernel fun params -> body]` or `fun params -> body`, named `name`.
    fn parse_kernel_value(&mut self, name: Ident, start: u32) {
        let bracketed = self.peek() == Token::LExtension;
        let mut open = self.current_span();
        if bracketed {
            open = self.bump_span();
            let ext = self.expect_ident();
            if let Some(ext) = ext {
                if ext.name != "kernel" {
                    self.unsupported(ext.span, "this extension here", "a kernel is written `[%kernel fun ... -> ...]`");
                    return;
                }
            }
        }
        if !self.expect(Token::Fun) {
            return;
        }
        let params = self.parse_params();
        self.expect(Token::Arrow);
        let body = self.parse_seq();
        if bracketed {
            self.expect_closing(Token::RBracket, open);
        }
        let span = self.span_from(start);
        let launch_bounds = self.pending_launch_bounds.take();
        self.module.items.push(Item::Kernel(Kernel { name, params, body, span, launch_bounds }));
    }

    /// `kernel name (a : T) b = body`, `kernel[@launch_bounds 256 2] name ... = body`.
    fn parse_native_kernel(&mut self, start: u32) {
        self.bump();
        let launch_bounds = self.kernel_attributes();
        let Some(name) = self.expect_ident() else { return };
        let params = self.parse_params();
        if !self.expect(Token::Eq) {
            return;
        }
        let body = self.parse_seq();
        let span = self.span_from(start);
        self.module.items.push(Item::Kernel(Kernel { name, params, body, span, launch_bounds }));
    }

    /// Parameters: `x`, `(x : T)`, `()` (no parameter), `_`.
    fn parse_params(&mut self) -> Vec<Param> {
        self.parse_params_marked().0
    }

    /// Parameters, and whether any were written at all (`let f () = ...` has none but is a function).
    fn parse_params_marked(&mut self) -> (Vec<Param>, bool) {
        let start_pos = self.pos;
        let params = self.parse_params_inner();
        (params, self.pos > start_pos)
    }

    fn parse_params_inner(&mut self) -> Vec<Param> {
        let mut params = Vec::new();
        loop {
            let start = self.current().start;
            match self.peek() {
                Token::Ident => {
                    let l = self.bump();
                    let name = Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) };
                    params.push(Param { name, ty: None, span: self.span_of(l) });
                }
                Token::LParen if self.peek_at(1) == Token::RParen => {
                    self.bump();
                    self.bump();
                }
                Token::LParen => {
                    let open = self.bump();
                    let Some(name) = self.expect_ident() else { return params };
                    let ty = if self.eat(Token::Colon) { Some(self.parse_type()) } else { None };
                    self.expect_closing(Token::RParen, self.span_of(open));
                    params.push(Param { name, ty, span: self.span_from(start) });
                }
                _ => return params,
            }
        }
    }

    /// `type name = { f : T; ... } [@@sarek.type]`.
    fn parse_type_decl(&mut self, start: u32) {
        self.bump();
        let Some(name) = self.expect_ident() else { return };
        self.expect(Token::Eq);
        let open = self.current_span();
        if !self.expect(Token::LBrace) {
            return;
        }
        let mut fields = Vec::new();
        while self.peek() != Token::RBrace && self.peek() != Token::Eof {
            if self.at_ident("mutable") {
                self.bump();
            }
            let Some(field) = self.expect_ident() else { break };
            self.expect(Token::Colon);
            let ty = self.parse_type();
            fields.push((field, ty));
            if !self.eat(Token::Semi) {
                break;
            }
        }
        self.expect_closing(Token::RBrace, open);
        while self.peek() == Token::LItemAttribute {
            let open = self.bump_span();
            self.parse_attribute_body(open);
        }
        let span = self.span_from(start);
        self.module.items.push(Item::Record(RecordDecl { name, fields, span }));
    }

    // --- types ----------------------------------------------------------------------------------------

    fn parse_type(&mut self) -> TypeExpr {
        let mut ty = match self.peek() {
            Token::LParen => {
                let open = self.bump_span();
                let inner = self.parse_type();
                self.expect_closing(Token::RParen, open);
                inner
            }
            Token::Ident => {
                let l = self.bump();
                TypeExpr::Named(Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) })
            }
            _ => {
                self.error_here("a type");
                TypeExpr::Named(Ident { name: "{error}".into(), span: self.current_span() })
            }
        };
        loop {
            match self.peek() {
                Token::Ident => {
                    let l = self.bump();
                    let constructor = Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) };
                    ty = TypeExpr::Apply { arg: Box::new(ty), constructor };
                }
                Token::LBracket => {
                    let open = self.bump_span();
                    let size = self.parse_expr();
                    self.expect_closing(Token::RBracket, open);
                    let span = ty.span().to(self.span_from(open.start));
                    ty = TypeExpr::Sized { elem: Box::new(ty), size, span };
                }
                _ => return ty,
            }
        }
    }

    // --- expressions ----------------------------------------------------------------------------------

    /// `e1; e2; ...` (with statement-level recovery).
    /// Sequences nest to the right (`a; (b; c)`) so walkers can follow the spine in a loop.
    fn parse_seq(&mut self) -> ExprId {
        let first = self.parse_statement();
        if self.peek() != Token::Semi {
            return first;
        }
        // The statements wait on a stack shared by all sequences (nested ones push and pop above this one's
        // base), so a sequence costs no allocation of its own.
        let base = self.statements.len();
        self.statements.push(first);
        while self.peek() == Token::Semi {
            self.bump();
            if is_closer(self.peek()) || self.at_item_start() {
                break; // trailing `;` (a `let` in column 0 starts the next item)
            }
            let statement = self.parse_statement();
            self.statements.push(statement);
        }
        let mut expr = self.statements.pop().expect("at least one statement");
        while self.statements.len() > base {
            let first = self.statements.pop().expect("above the base");
            let span = self.module.span(first).to(self.module.span(expr));
            expr = self.module.alloc(ExprKind::Seq(first, expr), span);
        }
        expr
    }

    /// A `let` body: in tail position, so a chain of `let`s does not count towards the nesting limit (later
    /// passes walk such chains on the CLI's and language server's large stacks).
    fn parse_tail_seq(&mut self) -> ExprId {
        let depth = self.depth;
        self.depth = self.depth.saturating_sub(1);
        let body = self.parse_seq();
        self.depth = depth;
        body
    }

    /// One element of a sequence; on a syntax error, skips to the next `;` or closing token.
    fn parse_statement(&mut self) -> ExprId {
        let before = self.diagnostics.len();
        let expr = self.parse_expr();
        if self.diagnostics.len() > before {
            self.skip_statement();
        }
        expr
    }

    fn skip_statement(&mut self) {
        let mut depth = 0i32;
        loop {
            let token = self.peek();
            if token == Token::Eof || (depth == 0 && (token == Token::Semi || is_closer(token))) {
                return;
            }
            if depth == 0 && token != Token::Let && self.at_item_start() {
                return;
            }
            match token {
                Token::LParen | Token::LBrace | Token::LBracket | Token::LArray | Token::Begin => depth += 1,
                Token::RParen | Token::RBrace | Token::RBracket | Token::RArray | Token::End => depth -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// An expression without a top-level `;`.
    fn parse_expr(&mut self) -> ExprId {
        self.parse_binary(ASSIGN_LEVEL)
    }

    fn parse_binary(&mut self, min_level: u8) -> ExprId {
        if self.depth > MAX_DEPTH {
            let span = self.current_span();
            if !self.diagnostics.iter().any(|d| d.code == "E0104") {
                self.diagnostics.push(
                    Diagnostic::error("E0104", "expression nested too deeply")
                        .primary(span, format!("more than {MAX_DEPTH} levels of nesting here")),
                );
            }
            self.skip_statement();
            return self.error_expr(span);
        }
        self.depth += 1;
        let result = self.parse_binary_inner(min_level);
        self.depth -= 1;
        result
    }

    fn parse_binary_inner(&mut self, min_level: u8) -> ExprId {
        let start = self.current().start;
        let mut lhs = self.parse_unary();
        loop {
            let token = self.peek();
            if (token == Token::LArrow || token == Token::ColonEq) && min_level <= ASSIGN_LEVEL {
                self.bump();
                let value = self.parse_binary(ASSIGN_LEVEL);
                lhs = self.make_assignment(token, lhs, value, start);
                continue;
            }
            let Some((level, assoc, op)) = binary_operator(token) else { break };
            if level < min_level {
                break;
            }
            self.bump();
            let next_min = if assoc == Assoc::Right { level } else { level + 1 };
            let rhs = self.parse_binary(next_min);
            lhs = self.module.alloc(ExprKind::Binary { op, lhs, rhs }, self.span_from(start));
        }
        lhs
    }

    fn make_assignment(&mut self, token: Token, target: ExprId, value: ExprId, start: u32) -> ExprId {
        let span = self.span_from(start);
        let kind = match (token, self.module.expr(target).clone()) {
            (Token::LArrow, ExprKind::Index { array, index }) => ExprKind::IndexSet { array, index, value },
            (Token::LArrow, ExprKind::Field { record, field }) => ExprKind::FieldSet { record, field, value },
            (Token::ColonEq, ExprKind::Var(path)) => ExprKind::Assign { target: path, value },
            (_, ExprKind::Error) => ExprKind::Error,
            (Token::LArrow, _) => {
                let d = Diagnostic::error("E0105", "`<-` needs an array element or a record field on its left")
                    .primary(self.module.span(target), "not `a.(i)` or `r.f`")
                    .help("write `a.(i) <- v`; to change a variable use `x := v`");
                self.diagnostics.push(d);
                ExprKind::Error
            }
            _ => {
                let d = Diagnostic::error("E0105", "`:=` needs a variable on its left")
                    .primary(self.module.span(target), "not a variable")
                    .help("declare it with `let x = mut e in` or `let x = ref e in`, then write `x := v`");
                self.diagnostics.push(d);
                ExprKind::Error
            }
        };
        self.module.alloc(kind, span)
    }

    fn parse_unary(&mut self) -> ExprId {
        let start = self.current().start;
        let op = match self.peek() {
            Token::Minus => UnaryOp::Neg,
            Token::MinusDot => UnaryOp::FNeg,
            Token::Not => UnaryOp::Not,
            Token::Lnot => UnaryOp::Lnot,
            _ => return self.parse_application(),
        };
        self.bump();
        // `-2147483648`: the magnitude of a negated literal may be one past the positive maximum.
        let operand = if op == UnaryOp::Neg
            && self.peek() == Token::Int
            && binary_operator(self.peek_at(1)).map(|o| o.0 < 7).unwrap_or(true)
        {
            let lexeme = self.bump();
            let kind = self.int_literal_negated(lexeme, true);
            self.module.alloc(kind, self.span_of(lexeme))
        } else {
            self.parse_binary(UNARY_OPERAND_LEVEL)
        };
        self.module.alloc(ExprKind::Unary { op, operand }, self.span_from(start))
    }

    /// Could this token start an argument of an application?
    fn starts_argument(&self) -> bool {
        use Token::*;
        if self.at_native_kernel() {
            return false;
        }
        match self.peek() {
            Ident => !matches!(self.peek_text(), "mutable"),
            UIdent | Int | Float | True | False | LParen | LArray | LExtension | Bang | Begin | LBrace => true,
            _ => false,
        }
    }

    fn parse_application(&mut self) -> ExprId {
        let start = self.current().start;
        match self.peek() {
            Token::If => return self.parse_if(),
            Token::Let => return self.parse_let(),
            Token::For => return self.parse_for(),
            Token::While => return self.parse_while(),
            Token::Superstep => return self.parse_superstep(),
            Token::Return => return self.parse_return(),
            Token::Break => {
                let span = self.bump_span();
                return self.module.alloc(ExprKind::Break, span);
            }
            Token::Continue => {
                let span = self.bump_span();
                return self.module.alloc(ExprKind::Continue, span);
            }
            Token::Fun | Token::Match => {
                let span = self.current_span();
                self.bump();
                self.unsupported(span, "this construct inside a kernel", "use `if` and top-level functions");
                return self.error_expr(span);
            }
            Token::Ident if self.peek_text() == "ref" && self.peek_at(1) != Token::Eq => {
                self.bump();
                let operand = self.parse_argument();
                return self.module.alloc(ExprKind::Ref(operand), self.span_from(start));
            }
            Token::Ident if self.peek_text() == "pragma" && self.peek_at(1) == Token::LBracket => {
                return self.parse_pragma();
            }
            _ => {}
        }
        let head = self.parse_argument();
        if !self.starts_argument() {
            return head;
        }
        // Only names are applied; after anything else, the next token belongs to the caller (which reports a
        // missing `in` or `;` there).
        let ExprKind::Var(callee) = self.module.expr(head).clone() else { return head };
        let mut args = Vec::new();
        while self.starts_argument() {
            args.push(self.parse_argument());
        }
        self.module.alloc(ExprKind::Call { callee, args }, self.span_from(start))
    }

    /// An atom with its postfix `.( i )` and `.field` accesses, or `!atom`.
    fn parse_argument(&mut self) -> ExprId {
        let start = self.current().start;
        if self.eat(Token::Bang) {
            let operand = self.parse_argument();
            return self.module.alloc(ExprKind::Unary { op: UnaryOp::Deref, operand }, self.span_from(start));
        }
        let mut expr = self.parse_atom();
        while self.peek() == Token::Dot {
            match self.peek_at(1) {
                Token::LParen => {
                    self.bump();
                    let open = self.bump_span();
                    let index = self.parse_seq();
                    self.expect_closing(Token::RParen, open);
                    expr = self.module.alloc(ExprKind::Index { array: expr, index }, self.span_from(start));
                }
                Token::Ident => {
                    self.bump();
                    let l = self.bump();
                    let field = Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) };
                    expr = self.module.alloc(ExprKind::Field { record: expr, field }, self.span_from(start));
                }
                _ => {
                    self.bump();
                    self.error_here("`(` or a field name after `.`");
                    break;
                }
            }
        }
        expr
    }

    fn parse_atom(&mut self) -> ExprId {
        let start = self.current().start;
        let lexeme = self.current();
        let span = self.span_of(lexeme);
        match lexeme.token {
            Token::Int => {
                self.bump();
                let kind = self.int_literal(lexeme);
                self.module.alloc(kind, span)
            }
            Token::Float => {
                self.bump();
                let kind = self.float_literal(lexeme);
                self.module.alloc(kind, span)
            }
            Token::True | Token::False => {
                self.bump();
                self.module.alloc(ExprKind::Bool(lexeme.token == Token::True), span)
            }
            Token::Ident => {
                self.bump();
                let name = Ident { name: Name::new(self.text_of(lexeme)), span };
                self.module.alloc(ExprKind::Var(Path { module: None, name }), span)
            }
            Token::UIdent => self.parse_qualified_name(),
            Token::LParen => self.parse_parenthesised(),
            Token::Begin => {
                self.bump();
                if self.eat(Token::End) {
                    return self.module.alloc(ExprKind::Unit, self.span_from(start));
                }
                let inner = self.parse_seq();
                self.expect_closing(Token::End, span);
                inner
            }
            Token::LArray => self.parse_array_literal(),
            Token::LBrace => self.parse_record_literal(),
            Token::LExtension => self.parse_extension(),
            Token::Error => {
                self.bump();
                self.report_error_token(lexeme);
                self.error_expr(span)
            }
            _ => {
                self.error_here("an expression");
                if !is_closer(lexeme.token) && lexeme.token != Token::Semi {
                    self.bump();
                }
                self.error_expr(span)
            }
        }
    }

    /// `Gpu.block_barrier`, `Std.sqrt`, `Weno.coeffs`, or a bare constructor such as `Shared`.
    fn parse_qualified_name(&mut self) -> ExprId {
        let l = self.bump();
        let first = Ident { name: Name::new(self.text_of(l)), span: self.span_of(l) };
        if self.peek() == Token::Dot && self.peek_at(1) == Token::Ident {
            self.bump();
            let n = self.bump();
            let name = Ident { name: Name::new(self.text_of(n)), span: self.span_of(n) };
            let span = first.span.to(name.span);
            return self.module.alloc(ExprKind::Var(Path { module: Some(Box::new(first)), name }), span);
        }
        let span = first.span;
        self.module.alloc(ExprKind::Var(Path { module: None, name: first }), span)
    }

    /// `()`, `( e )`, `( e : T )`.
    fn parse_parenthesised(&mut self) -> ExprId {
        let start = self.current().start;
        let open = self.bump_span();
        if self.eat(Token::RParen) {
            return self.module.alloc(ExprKind::Unit, self.span_from(start));
        }
        let inner = self.parse_seq();
        if self.eat(Token::Colon) {
            let ty = self.parse_type();
            self.expect_closing(Token::RParen, open);
            return self.module.alloc(ExprKind::Annot { expr: inner, ty: Box::new(ty) }, self.span_from(start));
        }
        self.expect_closing(Token::RParen, open);
        inner
    }

    fn parse_array_literal(&mut self) -> ExprId {
        let start = self.current().start;
        let open = self.bump_span();
        let mut items = Vec::new();
        while self.peek() != Token::RArray && !is_closer(self.peek()) {
            items.push(self.parse_expr());
            if !self.eat(Token::Semi) {
                break;
            }
        }
        self.expect_closing(Token::RArray, open);
        self.module.alloc(ExprKind::ArrayLit(items), self.span_from(start))
    }

    fn parse_record_literal(&mut self) -> ExprId {
        let start = self.current().start;
        let open = self.bump_span();
        let mut fields = Vec::new();
        while self.peek() != Token::RBrace && !is_closer(self.peek()) {
            let Some(field) = self.expect_ident() else { break };
            self.expect(Token::Eq);
            let value = self.parse_expr();
            fields.push((field, value));
            if !self.eat(Token::Semi) {
                break;
            }
        }
        self.expect_closing(Token::RBrace, open);
        self.module.alloc(ExprKind::Record(fields), self.span_from(start))
    }

    /// `[%global name]` inside expressions.
    fn parse_extension(&mut self) -> ExprId {
        let start = self.current().start;
        let open = self.bump_span();
        let Some(ext) = self.expect_ident() else { return self.error_expr(open) };
        if ext.name != "global" {
            self.unsupported(ext.span, "this extension inside an expression", "`[%global name]` names a constant");
            self.skip_statement();
            return self.error_expr(open);
        }
        let Some(name) = self.expect_ident() else { return self.error_expr(open) };
        self.expect_closing(Token::RBracket, open);
        self.module.alloc(ExprKind::Global(name), self.span_from(start))
    }

    fn int_literal(&mut self, lexeme: Lexeme) -> ExprKind {
        self.int_literal_negated(lexeme, false)
    }

    fn int_literal_negated(&mut self, lexeme: Lexeme, negated: bool) -> ExprKind {
        let text = self.text_of(lexeme);
        let (digits, suffix) = split_int_suffix(text);
        let digits = without_underscores(digits);
        let decimal = !digits.starts_with("0x")
            && !digits.starts_with("0X")
            && !digits.starts_with("0b")
            && !digits.starts_with("0B");
        let parsed = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
            u64::from_str_radix(hex, 16)
        } else if let Some(bin) = digits.strip_prefix("0b").or(digits.strip_prefix("0B")) {
            u64::from_str_radix(bin, 2)
        } else {
            digits.parse::<u64>()
        };
        // An int32 literal written in decimal must fit int32; in hex or binary it may spell any 32-bit pattern.
        let limit = match suffix {
            None | Some(IntSuffix::L32) if decimal => i32::MAX as u64 + negated as u64,
            None | Some(IntSuffix::L32) => u32::MAX as u64,
            Some(IntSuffix::U32) => u32::MAX as u64,
            Some(IntSuffix::L64) | Some(IntSuffix::U64) => u64::MAX,
        };
        match parsed {
            Ok(value)
                if value <= limit
                    && !(decimal && suffix == Some(IntSuffix::L64) && value > i64::MAX as u64 + negated as u64) =>
            {
                ExprKind::Int { value, suffix }
            }
            _ => {
                let d = Diagnostic::error("E0102", "integer literal out of range")
                    .primary(self.span_of(lexeme), "does not fit its type")
                    .help("add the suffix `L` for int64 or `UL` for uint64");
                self.diagnostics.push(d);
                ExprKind::Error
            }
        }
    }

    fn float_literal(&mut self, lexeme: Lexeme) -> ExprKind {
        let text = self.text_of(lexeme);
        let (digits, suffix) = match text.as_bytes().last() {
            Some(b'f') => (&text[..text.len() - 1], Some(FloatSuffix::F32)),
            Some(b'd') => (&text[..text.len() - 1], Some(FloatSuffix::F64)),
            _ => (text, None),
        };
        let digits = without_underscores(digits);
        match digits.parse::<f64>() {
            Ok(value) => ExprKind::Float { value, suffix },
            Err(_) => {
                let d = Diagnostic::error("E0102", "invalid float literal").primary(self.span_of(lexeme), "here");
                self.diagnostics.push(d);
                ExprKind::Error
            }
        }
    }

    fn parse_if(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        let cond = self.parse_seq_until_keyword();
        self.expect(Token::Then);
        let then_branch = self.parse_expr();
        let else_branch = if self.eat(Token::Else) { Some(self.parse_expr()) } else { None };
        self.module.alloc(ExprKind::If { cond, then_branch, else_branch }, self.span_from(start))
    }

    /// A condition or bound: an expression, but `;` inside it is allowed as in OCaml's `if a; b then`.
    fn parse_seq_until_keyword(&mut self) -> ExprId {
        self.parse_seq()
    }

    fn parse_for(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        let var = self.expect_ident().unwrap_or(Ident { name: "{error}".into(), span: self.current_span() });
        self.expect(Token::Eq);
        let from = self.parse_seq_until_keyword();
        let downto = match self.peek() {
            Token::Downto => {
                self.bump();
                true
            }
            _ => {
                self.expect(Token::To);
                false
            }
        };
        let to = self.parse_seq_until_keyword();
        let open = self.current_span();
        self.expect(Token::Do);
        let body = self.parse_loop_body();
        self.expect_closing(Token::Done, open);
        self.module.alloc(ExprKind::For { var, start: from, end: to, downto, body }, self.span_from(start))
    }

    fn parse_loop_body(&mut self) -> ExprId {
        if self.peek() == Token::Done {
            return self.module.alloc(ExprKind::Unit, self.current_span());
        }
        self.parse_seq()
    }

    fn parse_while(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        let cond = self.parse_seq_until_keyword();
        let open = self.current_span();
        self.expect(Token::Do);
        let body = self.parse_loop_body();
        self.expect_closing(Token::Done, open);
        self.module.alloc(ExprKind::While { cond, body }, self.span_from(start))
    }

    fn parse_return(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        let value = if self.starts_argument() || matches!(self.peek(), Token::Minus | Token::Not | Token::If) {
            Some(self.parse_expr())
        } else {
            None
        };
        self.module.alloc(ExprKind::Return(value), self.span_from(start))
    }

    /// `pragma ["unroll"; ...] e`.
    fn parse_pragma(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        let open = self.bump_span();
        let mut options = Vec::new();
        while self.peek() == Token::String {
            let l = self.bump();
            let text = self.text_of(l);
            options.push(text[1..text.len() - 1].to_string());
            if !self.eat(Token::Semi) {
                break;
            }
        }
        self.expect_closing(Token::RBracket, open);
        let body = self.parse_expr();
        self.module.alloc(ExprKind::Pragma { options, body }, self.span_from(start))
    }

    /// `superstep { body }` or `superstep ~divergent { body }`.
    fn parse_superstep(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        let mut divergent = false;
        while self.eat(Token::Tilde) {
            if let Some(attribute) = self.expect_ident() {
                divergent |= self.superstep_attribute(&attribute);
            }
        }
        let open = self.current_span();
        if !self.expect(Token::LBrace) {
            return self.error_expr(open);
        }
        let body = if self.peek() == Token::RBrace {
            self.module.alloc(ExprKind::Unit, self.current_span())
        } else {
            self.parse_seq()
        };
        self.expect_closing(Token::RBrace, open);
        self.module.alloc(ExprKind::Superstep { name: None, divergent, body }, self.span_from(start))
    }

    /// Returns whether the attribute is `divergent`; anything else is an error (never silently ignored).
    fn superstep_attribute(&mut self, attribute: &Ident) -> bool {
        if attribute.name == "divergent" {
            return true;
        }
        let d = Diagnostic::error("E0005", format!("unknown superstep attribute `{}`", attribute.name))
            .primary(attribute.span, "not a superstep attribute")
            .help("the only superstep attribute is `divergent`");
        self.diagnostics.push(d);
        false
    }

    // --- let forms ------------------------------------------------------------------------------------

    fn parse_let(&mut self) -> ExprId {
        let start = self.current().start;
        self.bump();
        if self.peek() == Token::Percent {
            return self.parse_let_extension(start);
        }
        if self.peek() == Token::Open {
            return self.parse_let_open(start);
        }
        if self.peek() == Token::Rec {
            let span = self.current_span();
            self.bump();
            self.unsupported(span, "recursion", "GPU code cannot recurse here; write a loop");
        }
        let (binder, ty) = self.parse_binder();
        if self.starts_argument() && !matches!(self.peek(), Token::LBrace) {
            // `let f x = ... in`: a local function.
            let span = self.current_span();
            self.unsupported(span, "a local function", "define the function at top level");
            self.parse_params();
        }
        let ty = if ty.is_none() && self.eat(Token::Colon) { Some(self.parse_type()) } else { ty };
        self.expect(Token::Eq);
        self.parse_let_rest(start, binder, ty)
    }

    /// After `let binder [: T] =`: the value and `in body`, recognising `mut e` and `create_array n Space`.
    fn parse_let_rest(&mut self, start: u32, binder: Binder, ty: Option<TypeExpr>) -> ExprId {
        if self.at_ident("create_array") {
            if let Binder::Name(name) = &binder {
                return self.parse_create_array(start, name.clone(), ty);
            }
        }
        let kind = if self.at_ident("mut") && self.peek_at(1) != Token::In {
            self.bump();
            LetKind::Mutable
        } else {
            LetKind::Immutable
        };
        let value = self.parse_seq();
        self.expect(Token::In);
        let body = self.parse_tail_seq();
        let ty = ty.map(Box::new);
        self.module.alloc(ExprKind::Let { binder, ty, kind, value, body }, self.span_from(start))
    }

    /// `let a = create_array n Shared in` (Sarek): a shared or local array.
    fn parse_create_array(&mut self, start: u32, name: Ident, ty: Option<TypeExpr>) -> ExprId {
        self.bump();
        let size = self.parse_argument();
        let space = match self.peek() {
            Token::UIdent if self.peek_text() == "Shared" => MemorySpace::Shared,
            Token::UIdent if self.peek_text() == "Local" => MemorySpace::Local,
            _ => {
                self.error_here("`Shared` or `Local`");
                MemorySpace::Local
            }
        };
        if self.peek() == Token::UIdent {
            self.bump();
        }
        self.expect(Token::In);
        let body = self.parse_seq();
        let elem = ty.map(|t| match t {
            TypeExpr::Apply { arg, constructor } if constructor.name == "array" => arg,
            other => Box::new(other),
        });
        self.module.alloc(ExprKind::LetArray { name, elem, space, size, body }, self.span_from(start))
    }

    /// `x`, `_`, `()`, `(x : T)`.
    fn parse_binder(&mut self) -> (Binder, Option<TypeExpr>) {
        let span = self.current_span();
        match self.peek() {
            Token::Ident if self.peek_text() == "_" => {
                self.bump();
                (Binder::Wildcard(span), None)
            }
            Token::Ident => {
                self.bump();
                (Binder::Name(Ident { name: Name::new(&self.text[span.range()]), span }), None)
            }
            Token::LParen if self.peek_at(1) == Token::RParen => {
                self.bump();
                let end = self.bump();
                (Binder::Unit(span.to(self.span_of(end))), None)
            }
            Token::LParen => {
                let open = self.bump_span();
                let (binder, _) = self.parse_binder();
                let ty = if self.eat(Token::Colon) { Some(self.parse_type()) } else { None };
                self.expect_closing(Token::RParen, open);
                (binder, ty)
            }
            _ => {
                self.error_here("a name to bind");
                (Binder::Wildcard(span), None)
            }
        }
    }

    /// `let%shared (t : T) = n in`, `let%local (t : T) = n in`, `let%superstep[@divergent] name = body in rest`.
    fn parse_let_extension(&mut self, start: u32) -> ExprId {
        self.bump(); // %
        if self.peek() == Token::Superstep {
            self.bump();
            return self.parse_let_superstep(start);
        }
        let Some(ext) = self.expect_ident() else { return self.error_expr(self.span_from(start)) };
        match ext.name.as_str() {
            "shared" | "local" => {
                let space = if ext.name == "shared" { MemorySpace::Shared } else { MemorySpace::Local };
                let (binder, ty) = self.parse_binder();
                self.expect(Token::Eq);
                let size = self.parse_seq();
                self.expect(Token::In);
                let body = self.parse_seq();
                let name = binder.name().cloned().unwrap_or(Ident { name: "_".into(), span: binder.span() });
                let elem = ty.map(Box::new);
                self.module.alloc(ExprKind::LetArray { name, elem, space, size, body }, self.span_from(start))
            }
            "superstep" => self.parse_let_superstep(start),
            other => {
                let what = format!("the extension `let%{other}`");
                self.unsupported(ext.span, &what, "known: `let%shared`, `let%local`, `let%superstep`");
                self.skip_statement();
                self.error_expr(self.span_from(start))
            }
        }
    }

    fn parse_let_superstep(&mut self, start: u32) -> ExprId {
        let mut divergent = false;
        while self.peek() == Token::LAttribute {
            let open = self.bump_span();
            let attribute = self.parse_attribute_body(open);
            divergent |= self.superstep_attribute(&attribute);
        }
        let name = self.expect_ident();
        self.expect(Token::Eq);
        let body = self.parse_seq();
        let step_span = self.span_from(start);
        let step = self.module.alloc(ExprKind::Superstep { name, divergent, body }, step_span);
        self.expect(Token::In);
        if is_closer(self.peek()) {
            return step;
        }
        let rest = self.parse_seq();
        self.module.alloc(ExprKind::Seq(step, rest), self.span_from(start))
    }

    /// `let open Std in body`: builtin modules are always open; other modules must be opened at top level.
    fn parse_let_open(&mut self, start: u32) -> ExprId {
        self.bump();
        if let Some(module) = self.expect_uident() {
            if !crate::builtins::BUILTIN_MODULES.contains(&module.name.as_str()) {
                let span = module.span;
                self.module.items.push(Item::Open(Open { module, span }));
            }
        }
        self.expect(Token::In);
        let body = self.parse_seq();
        let _ = start;
        body
    }
}

/// The digits of a literal without its `_` separators (borrowed when it has none, as nearly every literal).
fn without_underscores(digits: &str) -> std::borrow::Cow<'_, str> {
    if digits.contains('_') {
        std::borrow::Cow::Owned(digits.chars().filter(|&c| c != '_').collect())
    } else {
        std::borrow::Cow::Borrowed(digits)
    }
}

fn split_int_suffix(text: &str) -> (&str, Option<IntSuffix>) {
    for (suffix, kind) in [("UL", IntSuffix::U64), ("ul", IntSuffix::U64)] {
        if let Some(d) = text.strip_suffix(suffix) {
            return (d, Some(kind));
        }
    }
    let is_hex = text.starts_with("0x") || text.starts_with("0X");
    match text.as_bytes().last() {
        Some(b'l') => (&text[..text.len() - 1], Some(IntSuffix::L32)),
        Some(b'L') => (&text[..text.len() - 1], Some(IntSuffix::L64)),
        Some(b'u') | Some(b'U') if !is_hex || !text.ends_with(|c: char| c.is_ascii_hexdigit()) => {
            (&text[..text.len() - 1], Some(IntSuffix::U32))
        }
        _ => (text, None),
    }
}
