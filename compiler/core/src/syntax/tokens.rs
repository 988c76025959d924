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

/// The grammar's tokens made from `lexemes` (ending with `Eof`, as [`crate::syntax::lexer::lexemes`] yields them),
/// read once: the parser passes the lexer's iterator, so that no vector of the lexer's tokens is written and read
/// again.
pub fn contextualize(text: &str, lexemes: impl IntoIterator<Item = Lexeme>) -> Vec<Lexeme> {
    contextualize_part(text, text.len(), lexemes)
}

/// [`contextualize`] for the lexemes of `length` bytes of `text` (a part of the file, `syntax::split`).
pub fn contextualize_part(text: &str, length: usize, lexemes: impl IntoIterator<Item = Lexeme>) -> Vec<Lexeme> {
    let mut lexemes = lexemes.into_iter();
    // About one token per four bytes of typical code; the grammar's tokens are never more than the lexer's.
    let mut out: Vec<Lexeme> = Vec::with_capacity(lexemes.size_hint().0.max(length / 4));
    let mut previous: Option<Token> = None;
    let mut current = lexemes.next();
    while let Some(lexeme) = current {
        let following = lexemes.next();
        let next = following.map_or(Token::Eof, |l| l.token);
        let token = match lexeme.token {
            Token::Eof => break,
            Token::Ident => contextual_keyword(text, lexeme, previous, next),
            Token::Let if in_first_column(text, lexeme) => Token::ItemLet,
            Token::Fun if first_on_line(text, lexeme) => Token::ItemFun,
            Token::LExtension | Token::LItemExtension
                if following
                    .is_some_and(|kernel| kernel.token == Token::Ident && text_of(text, kernel) == b"kernel") =>
            {
                let token =
                    if lexeme.token == Token::LExtension { Token::KernelExtension } else { Token::ItemKernelExtension };
                let end = following.map_or(lexeme.end, |kernel| kernel.end);
                out.push(Lexeme { token, start: lexeme.start, end });
                previous = Some(token);
                current = lexemes.next();
                continue;
            }
            other => other,
        };
        if previous == Some(Token::Semi) && (closes_sequence(token) || starts_item(token)) {
            out.pop();
        }
        out.push(Lexeme { token, ..lexeme });
        previous = Some(token);
        current = following;
    }
    if out.last().map(|l| l.token) == Some(Token::Semi) {
        out.pop();
    }
    out
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
