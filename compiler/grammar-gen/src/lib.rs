//! The parser of `.sk` is generated from `compiler/core/src/syntax/grammar.lalrpop` by lalrpop and checked in as
//! `grammar.rs` next to it: building skc-core then needs only the small `lalrpop-util` runtime, not lalrpop and
//! its dependencies (over a minute of a clean build). `cargo run -p skc-grammar-gen` regenerates it after the
//! grammar changes; a test fails while the checked-in file differs from what the grammar generates.

use std::path::{Path, PathBuf};

mod box_wide;
mod copy_pops;
mod open_machine;

/// The grammar, in skc-core's syntax module.
pub fn grammar_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/syntax/grammar.lalrpop")
}

/// Generates the parser of the grammar into `out_dir` (as `grammar.rs`, with the rewrites of [`box_wide`],
/// [`copy_pops`] and [`open_machine`]) and returns its text.
pub fn generate(out_dir: &Path) -> std::io::Result<String> {
    std::fs::create_dir_all(out_dir)?;
    lalrpop::Configuration::new()
        .set_out_dir(out_dir)
        .force_build(true)
        .emit_rerun_directives(false)
        .emit_report(false)
        .process_file(grammar_path())
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let path = out_dir.join("grammar.rs");
    let parser = copy_pops::rewrite(&std::fs::read_to_string(&path)?)
        .ok_or_else(|| std::io::Error::other("lalrpop's pop functions are not in the shape `copy_pops` rewrites"))?;
    let parser = box_wide::rewrite(&parser)
        .ok_or_else(|| std::io::Error::other("lalrpop's symbol enum is not in the shape `box_wide` rewrites"))?;
    let parser = open_machine::rewrite(&parser)
        .ok_or_else(|| std::io::Error::other("lalrpop's state machine is not in the shape `open_machine` rewrites"))?;
    std::fs::write(&path, &parser)?;
    Ok(parser)
}

/// docs/language.md, whose "Grammar" section is [`reference`] of the grammar.
pub fn language_doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/language.md")
}

const START: &str =
    "<!-- grammar: generated from compiler/core/src/syntax/grammar.lalrpop by `cargo run -p skc-grammar-gen` -->";
const END: &str = "<!-- grammar: end -->";

/// The productions of the grammar without the Rust around them (types, bindings, actions): the grammar as
/// docs/language.md shows it, from the items down to the atoms.
pub fn reference(grammar: &str) -> String {
    let from = grammar.find("// ---- items").unwrap_or(0);
    let mut out = String::new();
    // The header comment (what the classes of expressions are), then the productions.
    for line in grammar.lines().take_while(|l| l.starts_with("//")) {
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    // `#[inline]` only tells lalrpop how to build its tables.
    for line in grammar[from..].lines().filter(|l| l.trim() != "#[inline]") {
        out.push_str(&reference_line(line));
        out.push('\n');
    }
    out.trim_end().to_string() + "\n"
}

fn reference_line(line: &str) -> String {
    if line.trim_start().starts_with("//") {
        return line.to_string();
    }
    let terminator = if line.trim_end().ends_with(';') && line.contains("=>") {
        ";"
    } else if line.contains("=>") {
        ","
    } else {
        ""
    };
    let code = match line.find(" =>") {
        Some(at) => &line[..at],
        None => line,
    };
    let mut text = without_bindings(code);
    if !line.starts_with(' ') {
        text = without_nonterminal_type(&text);
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let indent = if line.starts_with(' ') { "    " } else { "" };
    format!("{indent}{text}{terminator}")
}

/// `<name:X>` and `<X>` become `X`; `<l:@L>` disappears; macro arguments (`Or<B>`) stay.
fn without_bindings(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::new();
    let mut closers: Vec<bool> = Vec::new(); // per open `<`: whether its `>` is printed
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            let end = chars[i + 1..].iter().position(|&d| d == '"').map(|p| i + 1 + p).unwrap_or(chars.len() - 1);
            out.extend(&chars[i..=end]);
            i = end + 1;
            continue;
        }
        if c == '<' {
            let macro_argument = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
            if macro_argument {
                closers.push(true);
                out.push(c);
            } else {
                closers.push(false);
                let rest: String = chars[i + 1..].iter().collect();
                let name_len = rest.find(':').filter(|&n| rest[..n].chars().all(|d| d.is_alphanumeric() || d == '_'));
                if let Some(n) = name_len {
                    i += n + 1; // skip `name:`
                }
                if rest.get(name_len.map(|n| n + 1).unwrap_or(0)..).is_some_and(|r| r.starts_with('@')) {
                    // `<l:@L>`: a location, not part of the grammar.
                    let close = chars[i..].iter().position(|&d| d == '>').map(|p| i + p).unwrap_or(chars.len() - 1);
                    closers.pop();
                    i = close + 1;
                    continue;
                }
            }
            i += 1;
            continue;
        }
        if c == '>' && !closers.is_empty() {
            if closers.pop() == Some(true) {
                out.push(c);
            }
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `Seq: ExprId = {` becomes `Seq = {`.
fn without_nonterminal_type(text: &str) -> String {
    match (text.find(": "), text.find(" = ")) {
        (Some(colon), Some(equals)) if colon < equals => format!("{}{}", &text[..colon], &text[equals..]),
        _ => text.to_string(),
    }
}

/// docs/language.md with its grammar section replaced by [`reference`] of the grammar.
pub fn language_doc_with_reference(doc: &str, grammar: &str) -> Option<String> {
    let start = doc.find(START)?;
    let end = doc.find(END)?;
    Some(format!("{}{START}\n\n```text\n{}```\n\n{}", &doc[..start], reference(grammar), &doc[end..]))
}
