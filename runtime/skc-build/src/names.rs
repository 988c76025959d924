//! Rust names for `.sk` names: `vector_add.sk` -> `VectorAdd`, a parameter called `type` -> `r#type`.

/// Rust's strict and reserved keywords (2021 edition).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self",
    "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become",
    "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// A usable Rust identifier for `name`: raw (`r#type`) for keywords, `self_` for the four that cannot be raw.
pub fn ident(name: &str) -> String {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    let clean =
        if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) { format!("_{clean}") } else { clean };
    match clean.as_str() {
        "self" | "Self" | "super" | "crate" | "_" => format!("{clean}_"),
        k if KEYWORDS.contains(&k) => format!("r#{k}"),
        _ => clean,
    }
}

/// `vector_add` -> `VectorAdd`, `point` -> `Point`.
pub fn camel(name: &str) -> String {
    let mut out = String::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Sk");
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idents_avoid_keywords() {
        assert_eq!(ident("n"), "n");
        assert_eq!(ident("type"), "r#type");
        assert_eq!(ident("self"), "self_");
        assert_eq!(ident("2d"), "_2d");
    }

    #[test]
    fn camel_case_type_names() {
        assert_eq!(camel("vector_add"), "VectorAdd");
        assert_eq!(camel("point"), "Point");
        assert_eq!(camel("3d"), "Sk3d");
    }
}
