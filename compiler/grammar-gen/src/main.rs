//! Regenerates `compiler/core/src/syntax/grammar.rs` from `grammar.lalrpop`, and the grammar section of
//! docs/language.md.

fn main() -> std::io::Result<()> {
    let grammar_path = skc_grammar_gen::grammar_path();
    let syntax = grammar_path.parent().expect("the syntax folder").to_path_buf();
    skc_grammar_gen::generate(&syntax)?;
    println!("wrote {}", syntax.join("grammar.rs").display());
    let grammar = std::fs::read_to_string(&grammar_path)?;
    let doc_path = skc_grammar_gen::language_doc_path();
    let doc = std::fs::read_to_string(&doc_path)?;
    let doc = skc_grammar_gen::language_doc_with_reference(&doc, &grammar)
        .ok_or_else(|| std::io::Error::other("docs/language.md has no grammar markers"))?;
    std::fs::write(&doc_path, doc)?;
    println!("wrote {}", doc_path.display());
    Ok(())
}
