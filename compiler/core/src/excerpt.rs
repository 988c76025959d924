//! What the terminal rendering of a diagnostic shows of its files, so that rendering costs what it prints, not
//! what the files hold. ariadne prints every line a label touches in full and indexes the whole text it is given;
//! a diagnostic on a 1 MB line printed the megabyte, once per diagnostic. So each file is handed to ariadne as an
//! excerpt: lines before the first labelled line are empty (the line numbers stay right), lines after the last
//! are left out, and a line longer than [`LONG_LINE_BYTES`] keeps only windows of [`CONTEXT_BYTES`] around the
//! labels' ends, joined by `...`. Labels are moved to the same text in the excerpt; the column ariadne prints in
//! a header is then put back to the column in the real line.

use std::collections::BTreeMap;

use crate::source::{FileId, SourceFile, Span};

/// A line at least this long is cut to windows around the labels.
pub const LONG_LINE_BYTES: usize = 240;
/// Bytes kept on each side of a label's start and end in a cut line.
pub const CONTEXT_BYTES: usize = 60;
const ELISION: &str = "...";

/// The excerpt of one file.
pub struct Excerpt {
    pub text: String,
    /// (original range, offset of its copy in `text`), sorted, for the parts of the file the excerpt copies.
    pieces: Vec<(std::ops::Range<usize>, usize)>,
}

impl Excerpt {
    /// The offset in the excerpt of `offset` in the file (every label end lies in a copied piece).
    pub fn map(&self, offset: usize) -> usize {
        let index = self.pieces.partition_point(|(range, _)| range.end < offset);
        match self.pieces.get(index) {
            Some((range, at)) if range.start <= offset => at + (offset - range.start),
            Some((_, at)) => *at,
            None => self.text.len(),
        }
    }
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The windows of a long line `line` (a byte range of `text`) around the points `points`, merged.
fn windows(text: &str, line: std::ops::Range<usize>, points: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut sorted: Vec<usize> = points.to_vec();
    if sorted.is_empty() {
        sorted.push(line.start);
    }
    sorted.sort_unstable();
    for p in sorted {
        let start = floor_boundary(text, p.saturating_sub(CONTEXT_BYTES).max(line.start));
        let end = ceil_boundary(text, (p + CONTEXT_BYTES).min(line.end));
        match out.last_mut() {
            Some(last) if start <= last.end + ELISION.len() + 2 => last.end = last.end.max(end),
            _ => out.push(start..end),
        }
    }
    out
}

/// Builds the excerpt of `file` for labels at `spans` (all in this file).
pub fn excerpt(file: &SourceFile, spans: &[Span]) -> Excerpt {
    let text = file.text.as_str();
    let mut points: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for span in spans {
        for offset in [span.start as usize, span.end as usize] {
            let offset = offset.min(text.len());
            points.entry(file.line_col(offset).0).or_default().push(offset);
        }
    }
    let (Some(&first), Some(&last)) = (points.keys().next(), points.keys().next_back()) else {
        return Excerpt { text: String::new(), pieces: Vec::new() };
    };
    let mut out = Excerpt { text: "\n".repeat(first), pieces: Vec::new() };
    for line in first..=last {
        let bounds = file.line_bounds(line);
        if bounds.len() < LONG_LINE_BYTES {
            out.pieces.push((bounds.clone(), out.text.len()));
            out.text.push_str(&text[bounds]);
        } else {
            let here = points.get(&line).map(Vec::as_slice).unwrap_or(&[]);
            for (i, window) in windows(text, bounds.clone(), here).into_iter().enumerate() {
                // The previous window ended with the elision; the first may need one before it.
                if i > 0 {
                    out.text.push(' ');
                } else if window.start > bounds.start {
                    out.text.push_str(ELISION);
                    out.text.push(' ');
                }
                out.pieces.push((window.clone(), out.text.len()));
                out.text.push_str(&text[window.clone()]);
                if window.end < bounds.end {
                    out.text.push(' ');
                    out.text.push_str(ELISION);
                }
            }
        }
        out.text.push('\n');
    }
    out
}

/// `(file, line, column in the excerpt, column in the file)` of a label start whose line was cut: the header
/// ariadne prints for it says the first column and must say the second (1-based, in characters).
pub fn moved_column(file: &SourceFile, excerpt: &Excerpt, offset: usize) -> Option<(usize, usize, usize)> {
    let (line, column) = file.line_col(offset);
    if file.line_bounds(line).len() < LONG_LINE_BYTES {
        return None;
    }
    let mapped = excerpt.map(offset);
    let line_start = excerpt.text[..mapped].rfind('\n').map_or(0, |i| i + 1);
    let moved = excerpt.text[line_start..mapped].chars().count();
    Some((line + 1, moved + 1, column + 1))
}

/// The files the spans point into, each with its spans.
pub fn spans_by_file(spans: impl IntoIterator<Item = Span>) -> BTreeMap<FileId, Vec<Span>> {
    let mut out: BTreeMap<FileId, Vec<Span>> = BTreeMap::new();
    for span in spans {
        out.entry(span.file).or_default().push(span);
    }
    out
}

/// A message, label or note longer than `max` characters keeps its start and end around `...` (a diagnostic
/// about a megabyte-long name does not print the name).
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let head = floor_boundary(text, max / 2);
    let tail = ceil_boundary(text, text.len() - max / 4);
    let hidden = text[head..tail].chars().count();
    format!("{}...({hidden} characters)...{}", &text[..head], &text[tail..]).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, end: usize) -> Span {
        Span::new(FileId(0), start, end)
    }

    #[test]
    fn short_lines_are_copied_and_earlier_lines_emptied() {
        let file = SourceFile::new("f.sk", "line one\nline two\nline three\nline four\n");
        let e = excerpt(&file, &[span(14, 17), span(23, 28)]);
        assert_eq!(e.text, "\nline two\nline three\n");
        assert_eq!(&e.text[e.map(14)..e.map(17)], "two");
        assert_eq!(&e.text[e.map(23)..e.map(28)], "three");
    }

    #[test]
    fn a_long_line_keeps_windows_around_the_labels() {
        let line = format!("{}HERE{}THERE{}", "a".repeat(1000), "b".repeat(100_000), "c".repeat(1000));
        let file = SourceFile::new("f.sk", format!("first\n{line}\nlast\n"));
        let here = 6 + 1000;
        let there = here + 4 + 100_000;
        let e = excerpt(&file, &[span(here, here + 4), span(there, there + 5)]);
        assert!(e.text.len() < 600, "{} bytes", e.text.len());
        assert_eq!(&e.text[e.map(here)..e.map(here + 4)], "HERE");
        assert_eq!(&e.text[e.map(there)..e.map(there + 5)], "THERE");
        assert!(e.text.starts_with("\n... aaa") && e.text.ends_with("ccc ...\n"), "{}", e.text);
        assert_eq!(e.text.matches(ELISION).count(), 3, "one elision between windows: {}", e.text);
        let (line, moved, real) = moved_column(&file, &e, here).expect("a cut line");
        assert_eq!((line, real), (2, 1001));
        assert!(moved < 100, "{moved}");
    }

    #[test]
    fn long_texts_are_shortened_in_the_middle() {
        assert_eq!(shorten("short", 10), "short");
        let long = format!("unknown name `{}`", "x".repeat(1_000_000));
        let short = shorten(&long, 200);
        assert!(short.len() < 260 && short.starts_with("unknown name `xxx") && short.ends_with("xx`"), "{short}");
        assert!(short.contains("characters)"), "{short}");
        let wide = "é".repeat(500);
        assert!(shorten(&wide, 101).chars().all(|c| c == 'é' || c.is_ascii()), "cut at character boundaries");
    }
}
