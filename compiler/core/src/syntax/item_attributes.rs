//! The attributes written on a top-level `let` between its keyword and the item's name (`let[@noinline] f x =
//! ...`), read again from the item's own tokens. The parser checks every attribute (W0002 for an unknown one) and
//! keeps those that change the tree it builds (`allow`, `launch_bounds`); a later pass that needs a hint the tree
//! does not carry (codegen's `noinline`) asks here, from the item's span and its name's span.

use crate::source::Span;
use crate::syntax::lexer::{lex, Token};

/// The names of the `[@name ...]` attributes in `text` (the file) between the start of `item` and the start of
/// `name`, in order (`sarek.module`, `noinline`).
pub fn item_attribute_names(text: &str, item: Span, name: Span) -> Vec<String> {
    let (start, end) = (item.start as usize, name.start as usize);
    let Some(header) = text.get(start..end.max(start)) else { return Vec::new() };
    let tokens = lex(header);
    let mut names = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].token != Token::LAttribute {
            i += 1;
            continue;
        }
        i += 1;
        // A dotted name (`sarek.module`); what follows it is the payload (`allow W0101`).
        let mut attribute = String::new();
        let is_name = |t: Token| matches!(t, Token::Ident | Token::UIdent);
        while i < tokens.len() && is_name(tokens[i].token) {
            attribute.push_str(&header[tokens[i].start as usize..tokens[i].end as usize]);
            i += 1;
            if i + 1 < tokens.len() && tokens[i].token == Token::Dot && is_name(tokens[i + 1].token) {
                attribute.push('.');
                i += 1;
            } else {
                break;
            }
        }
        names.push(attribute);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn names(text: &str, name: &str) -> Vec<String> {
        let at = text.find(name).expect("name in text") as u32;
        let span = |start: u32, end: u32| Span { file: FileId(0), start, end };
        item_attribute_names(text, span(0, text.len() as u32), span(at, at + name.len() as u32))
    }

    #[test]
    fn attributes_between_the_keyword_and_the_name() {
        assert_eq!(names("let[@noinline] f x = x", "f x"), ["noinline"]);
        assert_eq!(names("let [@sarek.module] [@noinline] (* why *) g x = x", "g x"), ["sarek.module", "noinline"]);
        assert_eq!(names("let[@allow W0101 W0003] h x = x", "h x"), ["allow"]);
        assert!(names("let f x = [@noinline]", "f x").is_empty(), "only the header counts");
        assert!(names("let f x = x", "f x").is_empty());
    }
}
