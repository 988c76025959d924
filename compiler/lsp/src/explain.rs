//! Explanation pages inside the editor: the page of a diagnostic code as Markdown, for the `skc.explain` command
//! and for hovers on a code written in the source (`[@allow W0101]`, `(* error: E0001 *)`).

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use skc_core::source::SourceFile;
use skc_core::Span;

use crate::position::range_of;

/// The page of `code` (any case), as `skc explain CODE` prints it, with its title as a heading.
pub fn page_markdown(code: &str) -> Option<String> {
    let page = skc_core::explain::explain(code.trim())?;
    Some(format!("# {}: {}\n\n{}\n", page.code, page.title, page.body.trim_end()))
}

/// The page of the diagnostic code under the cursor, if the word there is one.
pub fn hover_on_code(file: &SourceFile, offset: usize) -> Option<Hover> {
    let text = &file.text;
    let offset = offset.min(text.len());
    let is_word = |c: char| c.is_ascii_alphanumeric();
    let start = text[..offset].trim_end_matches(is_word).len();
    let end = offset + (text[offset..].len() - text[offset..].trim_start_matches(is_word).len());
    let word = &text[start..end];
    let looks_like_code = word.len() == 5
        && (word.starts_with('E') || word.starts_with('W'))
        && word[1..].bytes().all(|b| b.is_ascii_digit());
    if !looks_like_code {
        return None;
    }
    let value = page_markdown(word)?;
    let span = Span::new(skc_core::FileId(0), start, end);
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }),
        range: Some(range_of(file, span)),
    })
}
