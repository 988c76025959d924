//! Source files and byte spans. Every diagnostic and every AST node points into a `SourceMap` through a `Span`.

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both (they must be in the same file; the first one's file wins).
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn contains(self, offset: usize) -> bool {
        (self.start as usize) <= offset && offset <= (self.end as usize)
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// The UTF-8 byte-order mark, accepted (and dropped) at the start of a file.
pub const BYTE_ORDER_MARK: char = '\u{feff}';

/// `text` without a leading byte-order mark: the text a [`SourceFile`] holds and spans point into.
pub fn without_byte_order_mark(text: &str) -> &str {
    text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text)
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// Byte offset at which each line starts (line 0 starts at 0), computed the first time a position is asked
    /// for: checking a file without diagnostics never needs it.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceFile {
    /// A file named `name` holding `text`, without the UTF-8 byte-order mark some editors write at its start:
    /// spans and columns count from the first character a person sees.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let mut text = text.into();
        if text.starts_with(BYTE_ORDER_MARK) {
            text.drain(..BYTE_ORDER_MARK.len_utf8());
        }
        SourceFile { name: name.into(), text, line_starts: std::sync::OnceLock::new() }
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| line_starts(&self.text))
    }

    /// Zero-based (line, column in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts().binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts()[line];
        let col = self.text.get(start..offset).map(|s| s.chars().count()).unwrap_or(offset - start);
        (line, col)
    }

    /// Zero-based (line, column in UTF-16 code units), as the language server protocol counts.
    pub fn line_col_utf16(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let (line, _) = self.line_col(offset);
        let start = self.line_starts()[line];
        let col = self.text.get(start..offset).map(|s| s.encode_utf16().count()).unwrap_or(offset - start);
        (line, col)
    }

    /// Byte offset of a zero-based (line, UTF-16 column); clamps to the file.
    pub fn offset_of_utf16(&self, line: usize, col: usize) -> usize {
        let Some(&start) = self.line_starts().get(line) else { return self.text.len() };
        let end = self.line_starts().get(line + 1).copied().unwrap_or(self.text.len());
        let mut units = 0;
        for (i, ch) in self.text[start..end].char_indices() {
            if units >= col {
                return start + i;
            }
            units += ch.len_utf16();
        }
        end
    }

    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// The bytes of zero-based line `line`, without its newline (empty past the end).
    pub fn line_bounds(&self, line: usize) -> std::ops::Range<usize> {
        let Some(&start) = self.line_starts().get(line) else { return self.text.len()..self.text.len() };
        let end = self.line_starts().get(line + 1).map_or(self.text.len(), |next| next - 1);
        start..end.max(start)
    }
}

/// Byte offset at which each line starts: 0, and one past every `\n`. Eight bytes at a time: a word without a
/// newline (most of them) costs a few instructions, where searching line by line cost a call per line.
fn line_starts(text: &str) -> Vec<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
    starts.push(0);
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ (ONES * b'\n' as u64);
        // A high bit for each zero byte of `word` (a newline of `chunk`); bytes above the first zero may be
        // flagged wrongly, so each flagged byte is checked.
        let mut zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        while zeros != 0 {
            let index = zeros.trailing_zeros() as usize / 8;
            if chunk[index] == b'\n' {
                starts.push(offset + index + 1);
            }
            zeros &= zeros - 1;
        }
        offset += 8;
    }
    for (index, &byte) in chunks.remainder().iter().enumerate() {
        if byte == b'\n' {
            starts.push(offset + index + 1);
        }
    }
    starts
}

/// All files of one compilation: the root file and every module it opens.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files.iter().position(|f| f.name == name).map(|i| FileId(i as u32))
    }

    /// The source text a span covers.
    pub fn snippet(&self, span: Span) -> &str {
        self.file(span.file).text.get(span.range()).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_dropped_and_columns_count_from_the_first_visible_character() {
        let file = SourceFile::new("bom.sk", "\u{feff}let x = 1\nlet y = 2\n");
        assert_eq!(file.text, "let x = 1\nlet y = 2\n");
        assert_eq!(file.line_col(4), (0, 4));
        assert_eq!(file.line_col_utf16(4), (0, 4));
        assert_eq!(without_byte_order_mark("\u{feff}x"), "x");
        assert_eq!(without_byte_order_mark("x\u{feff}"), "x\u{feff}");
    }

    #[test]
    fn line_starts_match_a_plain_search() {
        let texts = ["", "\n", "a", "a\nb", "\n\n\n\n\n\n\n\n\n", "x\u{1}\n\u{1}\n", "x\u{e9}t\u{e9}\n\r\nend"];
        let long: String = (0..300).map(|i| if i % 7 == 0 { '\n' } else { 'a' }).collect();
        for text in texts.iter().map(|t| t.to_string()).chain([long]) {
            let mut expected = vec![0];
            expected.extend(text.match_indices('\n').map(|(i, _)| i + 1));
            assert_eq!(line_starts(&text), expected, "{text:?}");
        }
    }
}
