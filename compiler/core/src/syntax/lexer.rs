//! Tokens of `.sk` source, produced by logos. Lexing never fails: a character logos does not recognise, or an
//! unterminated comment or string, becomes an `Error` token that the parser reports and skips.

use logos::Logos;

fn skip_comment(lex: &mut logos::Lexer<Token>) -> logos::FilterResult<(), ()> {
    // `(*` was matched; find the matching `*)`, honouring nesting as OCaml does.
    let rest = lex.remainder().as_bytes();
    let mut depth = 1;
    let mut i = 0;
    while i + 1 < rest.len() {
        match (rest[i], rest[i + 1]) {
            (b'(', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b')') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    lex.bump(i);
                    return logos::FilterResult::Skip;
                }
            }
            _ => i += 1,
        }
    }
    lex.bump(rest.len());
    logos::FilterResult::Error(())
}

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Token {
    #[token("(*", skip_comment)]
    Comment,

    // keywords
    #[token("let")]
    Let,
    #[token("in")]
    In,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("for")]
    For,
    #[token("to")]
    To,
    #[token("downto")]
    Downto,
    #[token("do")]
    Do,
    #[token("done")]
    Done,
    #[token("while")]
    While,
    #[token("begin")]
    Begin,
    #[token("end")]
    End,
    #[token("fun")]
    Fun,
    #[token("superstep")]
    Superstep,
    #[token("type")]
    Type,
    #[token("open")]
    Open,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("not")]
    Not,
    #[token("mod")]
    Mod,
    #[token("land")]
    Land,
    #[token("lor")]
    Lor,
    #[token("lxor")]
    Lxor,
    #[token("lsl")]
    Lsl,
    #[token("lsr")]
    Lsr,
    #[token("asr")]
    Asr,
    #[token("lnot")]
    Lnot,
    #[token("return")]
    Return,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("rec")]
    Rec,
    #[token("match")]
    Match,
    #[token("with")]
    With,

    // names and literals
    #[regex(r"[a-z_][A-Za-z0-9_']*", priority = 2)]
    Ident,
    #[regex(r"[A-Z][A-Za-z0-9_']*")]
    UIdent,
    /// `'a`: a type variable in an annotation.
    #[regex(r"'[a-z_][A-Za-z0-9_']*")]
    TypeVariable,
    #[regex(r"[0-9][0-9_]*(l|L|u|U|UL|ul)?")]
    #[regex(r"0[xX][0-9a-fA-F][0-9a-fA-F_]*(l|L|u|U|UL|ul)?")]
    #[regex(r"0[bB][01][01_]*(l|L|u|U|UL|ul)?")]
    Int,
    #[regex(r"[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9][0-9_]*)?[fdh]?")]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9][0-9_]*[fdh]?")]
    #[regex(r"[0-9][0-9_]*[fdh]")]
    Float,
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    String,

    // punctuation
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("[|")]
    LArray,
    #[token("|]")]
    RArray,
    /// `[%` opens an extension node (`[%kernel ...]`, `[%global x]`).
    #[token("[%")]
    LExtension,
    /// `[@` opens an attribute (`[@sarek.module]`, `[@divergent]`).
    #[token("[@")]
    LAttribute,
    /// `[@@` opens an item attribute (`[@@sarek.type]`).
    #[token("[@@")]
    LItemAttribute,
    /// `[@@@` opens a floating attribute, an item of its own (`[@@@warning "-32"]`).
    #[token("[@@@")]
    LFloatingAttribute,
    /// `[%%` opens a structure-item extension (`[%%kernel let name params = body]`).
    #[token("[%%")]
    LItemExtension,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(";;")]
    SemiSemi,
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("<-")]
    LArrow,
    #[token(":=")]
    ColonEq,
    #[token("->")]
    Arrow,
    #[token("=")]
    Eq,
    #[token("==")]
    EqEq,
    #[token("<>")]
    LtGt,
    #[token("!=")]
    BangEq,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("+.")]
    PlusDot,
    #[token("-.")]
    MinusDot,
    #[token("*.")]
    StarDot,
    #[token("/.")]
    SlashDot,
    #[token("**")]
    StarStar,
    #[token("&&")]
    AmpAmp,
    #[token("&")]
    Amp,
    #[token("||")]
    BarBar,
    #[token("|")]
    Bar,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("%")]
    Percent,
    #[token("@")]
    At,

    /// Anything logos could not match, or an unterminated comment.
    Error,

    // Contextual keywords: never produced by logos, but by `syntax::tokens` from an `Ident` (or `let`, `fun`,
    // `[%`) in the one position where the word is a keyword.
    /// `let` in the first column: a top-level item.
    ItemLet,
    /// `fun` first on its line: a bare kernel item.
    ItemFun,
    /// `kernel` in the first column followed by a name or `[@`: a native kernel item.
    ItemKernel,
    /// `[%kernel` (one token made of `[%` and `kernel`).
    KernelExtension,
    /// `[%%kernel` (one token made of `[%%` and `kernel`).
    ItemKernelExtension,
    /// `mut` right after `let x =`.
    Mut,
    /// `create_array` right after `let x =`.
    CreateArray,
    /// `ref` before an argument.
    Ref,
    /// `pragma` before `[`.
    Pragma,
    /// `as` between an opened module (or its arguments) and the instance's name: `open M (real = float32) as M32`.
    As,
    /// End of input (added by [`lex`]).
    Eof,
}

impl Token {
    /// How the token is shown in "expected ..." messages.
    pub fn describe(self) -> &'static str {
        use Token::*;
        match self {
            Ident => "a name",
            UIdent => "a module or constructor name",
            TypeVariable => "a type variable",
            Int => "an integer",
            Float => "a float",
            String => "a string",
            Eof => "end of file",
            Error => "an invalid character",
            ItemLet => "`let`",
            ItemFun => "`fun`",
            ItemKernel => "`kernel`",
            KernelExtension => "`[%kernel`",
            ItemKernelExtension => "`[%%kernel`",
            Mut => "`mut`",
            CreateArray => "`create_array`",
            Ref => "`ref`",
            Pragma => "`pragma`",
            As => "`as`",
            Comment => "a comment",
            Let => "`let`",
            In => "`in`",
            If => "`if`",
            Then => "`then`",
            Else => "`else`",
            For => "`for`",
            To => "`to`",
            Downto => "`downto`",
            Do => "`do`",
            Done => "`done`",
            While => "`while`",
            Begin => "`begin`",
            End => "`end`",
            Fun => "`fun`",
            Superstep => "`superstep`",
            Type => "`type`",
            Open => "`open`",
            True => "`true`",
            False => "`false`",
            Not => "`not`",
            Mod => "`mod`",
            Land => "`land`",
            Lor => "`lor`",
            Lxor => "`lxor`",
            Lsl => "`lsl`",
            Lsr => "`lsr`",
            Asr => "`asr`",
            Lnot => "`lnot`",
            Return => "`return`",
            Break => "`break`",
            Continue => "`continue`",
            Rec => "`rec`",
            Match => "`match`",
            With => "`with`",
            LParen => "`(`",
            RParen => "`)`",
            LBrace => "`{`",
            RBrace => "`}`",
            LBracket => "`[`",
            RBracket => "`]`",
            LArray => "`[|`",
            RArray => "`|]`",
            LExtension => "`[%`",
            LAttribute => "`[@`",
            LItemAttribute => "`[@@`",
            LFloatingAttribute => "`[@@@`",
            LItemExtension => "`[%%`",
            Comma => "`,`",
            Semi => "`;`",
            SemiSemi => "`;;`",
            Colon => "`:`",
            Dot => "`.`",
            LArrow => "`<-`",
            ColonEq => "`:=`",
            Arrow => "`->`",
            Eq => "`=`",
            EqEq => "`==`",
            LtGt => "`<>`",
            BangEq => "`!=`",
            Lt => "`<`",
            Gt => "`>`",
            Le => "`<=`",
            Ge => "`>=`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            PlusDot => "`+.`",
            MinusDot => "`-.`",
            StarDot => "`*.`",
            SlashDot => "`/.`",
            StarStar => "`**`",
            AmpAmp => "`&&`",
            Amp => "`&`",
            BarBar => "`||`",
            Bar => "`|`",
            Bang => "`!`",
            Tilde => "`~`",
            Percent => "`%`",
            At => "`@`",
        }
    }
}

/// A token with its byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lexeme {
    pub token: Token,
    pub start: u32,
    pub end: u32,
}

/// Splits `text` into tokens, always ending with `Eof`.
pub fn lex(text: &str) -> Vec<Lexeme> {
    let mut out = Vec::with_capacity(text.len() / 4);
    out.extend(lexemes(text));
    out
}

/// The tokens of `text` one at a time, the last one `Eof`: [`lex`] without the vector, for a pass that reads the
/// tokens once (`syntax::tokens`).
pub fn lexemes(text: &str) -> impl Iterator<Item = Lexeme> + '_ {
    lexemes_in(text, 0..text.len())
}

/// [`lexemes`] of `text[range]` (a part of a file, `syntax::split`), located in the whole `text`; its `Eof` is
/// at the end of the range. `range` starts and ends at characters.
pub fn lexemes_in(text: &str, range: std::ops::Range<usize>) -> impl Iterator<Item = Lexeme> + '_ {
    let offset = range.start as u32;
    let end = range.end as u32;
    let mut lexer = Token::lexer(&text[range]);
    let mut ended = false;
    std::iter::from_fn(move || {
        if ended {
            return None;
        }
        let Some(result) = lexer.next() else {
            ended = true;
            return Some(Lexeme { token: Token::Eof, start: end, end });
        };
        let range = lexer.span();
        let (start, end) = (offset + range.start as u32, offset + range.end as u32);
        Some(Lexeme { token: result.unwrap_or(Token::Error), start, end })
    })
}
