//! Positions: LSP counts lines and UTF-16 code units, the compiler counts bytes. Conversions go through
//! [`SourceFile::line_col_utf16`] and [`SourceFile::offset_of_utf16`], clamped the way the protocol asks (a
//! column past the end of its line means the end of the line).

use lsp_types::{Position, Range};
use skc_core::source::SourceFile;
use skc_core::Span;

pub fn position_of(file: &SourceFile, offset: usize) -> Position {
    let (line, col) = file.line_col_utf16(offset);
    Position::new(line as u32, col as u32)
}

pub fn range_of(file: &SourceFile, span: Span) -> Range {
    Range::new(position_of(file, span.start as usize), position_of(file, span.end as usize))
}

/// Byte offset of an LSP position, never past the end of its line (nor of the file).
pub fn offset_of(file: &SourceFile, position: Position) -> usize {
    let line = position.line as usize;
    if line >= file.line_count() {
        return file.text.len();
    }
    let offset = file.offset_of_utf16(line, position.character as usize);
    offset.min(line_content_end(file, line))
}

/// Where the text of `line` ends, before its `\n` or `\r\n`.
fn line_content_end(file: &SourceFile, line: usize) -> usize {
    let start = file.offset_of_utf16(line, 0);
    let rest = &file.text[start..];
    match rest.find('\n') {
        Some(i) if i > 0 && rest.as_bytes()[i - 1] == b'\r' => start + i - 1,
        Some(i) => start + i,
        None => file.text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let file = SourceFile::new("t.sk", "let a = 1\n(* é𝄞 *) x\r\nend");
        let x = file.text.find('x').unwrap();
        let position = position_of(&file, x);
        // `(* ` is 3 units, `é` 1, `𝄞` 2 (a surrogate pair), ` *) ` 4.
        assert_eq!(position, Position::new(1, 10));
        assert_eq!(offset_of(&file, position), x);
    }

    #[test]
    fn positions_past_the_end_are_clamped() {
        let file = SourceFile::new("t.sk", "ab\r\ncd\n");
        assert_eq!(offset_of(&file, Position::new(0, 99)), 2);
        assert_eq!(offset_of(&file, Position::new(1, 99)), 6);
        assert_eq!(offset_of(&file, Position::new(7, 0)), file.text.len());
    }
}
