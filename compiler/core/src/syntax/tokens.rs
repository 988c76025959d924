//! The token stream the grammar reads: the lexer's tokens with the few decisions an LR(1) grammar cannot make
//! from one token of lookahead, taken here where the source text is at hand.
//!
//! - **Contextual keywords.** `kernel`, `mut`, `create_array`, `ref` and `pragma` are ordinary names except in one
//!   position each (see docs/language.md, "Lexical structure"); there they become keyword tokens.
//! - **The first column.** Items start in the first column: `let` there is `ItemLet` (a top-level item, while an
//!   indented `let` is local), `kernel` there (or first in the file, or after `;;`) followed by a name or `[@` is
//!   `ItemKernel`, and `fun` first on its
//!   line is `ItemFun` (a bare kernel). `[%kernel` is one token, so a kernel extension and `[%global x]` differ
//!   in their first token.
//! - **A trailing `;`** (before a closing token or the start of an item) is dropped, so the grammar's sequences
//!   need no production for it (one that would collide with statement-level error recovery).
//! - The end-of-file token is dropped: the parser sees the end of the iterator.

use crate::syntax::lexer::{Lexeme, Token};

/// Rewrites `lexemes` (ending with `Eof`, as [`crate::syntax::lexer::lex`] returns them) into the grammar's tokens,
/// in place: the grammar's tokens are never more than the lexer's.
pub fn contextualize(text: &str, mut lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    // `lexemes[..kept]` are the grammar's tokens so far; `i` is the next lexeme to read (`kept <= i`); `previous`
    // is the token of `lexemes[kept - 1]` (kept in a variable: one index fewer per token).
    let mut kept: usize = 0;
    let mut i = 0;
    let mut previous: Option<Token> = None;
    while i < lexemes.len() {
        let lexeme = lexemes[i];
        let next = lexemes.get(i + 1).map_or(Token::Eof, |l| l.token);
        let token = match lexeme.token {
            Token::Eof => break,
            Token::Ident => contextual_keyword(text, lexeme, previous, next),
            Token::Let if in_first_column(text, lexeme) => Token::ItemLet,
            Token::Fun if first_on_line(text, lexeme) => Token::ItemFun,
            Token::LExtension | Token::LItemExtension
                if next == Token::Ident && text_of(text, lexemes[i + 1]) == b"kernel" =>
            {
                let token =
                    if lexeme.token == Token::LExtension { Token::KernelExtension } else { Token::ItemKernelExtension };
                lexemes[kept] = Lexeme { token, start: lexeme.start, end: lexemes[i + 1].end };
                kept += 1;
                previous = Some(token);
                i += 2;
                continue;
            }
            other => other,
        };
        if previous == Some(Token::Semi) && (closes_sequence(token) || starts_item(token)) {
            kept -= 1;
        }
        lexemes[kept] = Lexeme { token, ..lexeme };
        kept += 1;
        previous = Some(token);
        i += 1;
    }
    lexemes.truncate(kept);
    if lexemes.last().map(|l| l.token) == Some(Token::Semi) {
        lexemes.pop();
    }
    lexemes
}

/// `kernel`, `mut`, `create_array`, `ref`, `pragma`, `as` in their keyword positions; any other name stays `Ident`.
fn contextual_keyword(text: &str, lexeme: Lexeme, previous: Option<Token>, next: Token) -> Token {
    // Most names have none of the lengths of the contextual keywords: that is one comparison.
    if !matches!(lexeme.end - lexeme.start, 2 | 3 | 6 | 12) {
        return Token::Ident;
    }
    match text_of(text, lexeme) {
        b"kernel"
            if (in_first_column(text, lexeme) || matches!(previous, None | Some(Token::SemiSemi)))
                && matches!(next, Token::Ident | Token::LAttribute) =>
        {
            Token::ItemKernel
        }
        b"mut" if previous == Some(Token::Eq) && next != Token::In => Token::Mut,
        b"create_array" if previous == Some(Token::Eq) => Token::CreateArray,
        b"ref" if starts_argument(next) => Token::Ref,
        b"pragma" if next == Token::LBracket => Token::Pragma,
        b"as" if matches!(previous, Some(Token::UIdent | Token::RParen)) && next == Token::UIdent => Token::As,
        _ => Token::Ident,
    }
}

fn text_of(text: &str, lexeme: Lexeme) -> &[u8] {
    &text.as_bytes()[lexeme.start as usize..lexeme.end as usize]
}

fn in_first_column(text: &str, lexeme: Lexeme) -> bool {
    lexeme.start == 0 || text.as_bytes()[lexeme.start as usize - 1] == b'\n'
}

/// Only blanks between the start of the line and the token.
fn first_on_line(text: &str, lexeme: Lexeme) -> bool {
    let before = &text[..lexeme.start as usize];
    before.rsplit('\n').next().unwrap_or("").trim().is_empty()
}

/// Tokens that can start an argument of an application (an atom, `!`).
pub fn starts_argument(token: Token) -> bool {
    use Token::*;
    matches!(token, Ident | UIdent | Int | Float | True | False | LParen | LArray | LExtension | Bang | Begin | LBrace)
}

/// Tokens that end a sequence: a `;` before one of them is a trailing `;`.
fn closes_sequence(token: Token) -> bool {
    use Token::*;
    matches!(
        token,
        RParen | RBrace | RBracket | RArray | End | Done | In | Then | Else | Do | To | Downto | SemiSemi | Bar
    )
}

/// Tokens that start a top-level item.
pub fn starts_item(token: Token) -> bool {
    use Token::*;
    matches!(
        token,
        ItemLet | ItemKernel | ItemFun | KernelExtension | ItemKernelExtension | LFloatingAttribute | Type | Open
    )
}
