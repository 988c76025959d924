//! The checked-in parser is what the grammar generates (run `cargo run -p skc-grammar-gen` after a change).

#[test]
fn checked_in_parser_is_generated_from_the_grammar() {
    let out = std::env::temp_dir().join(format!("skc-grammar-gen-{}", std::process::id()));
    let generated = skc_grammar_gen::generate(&out).expect("the grammar generates a parser");
    let _ = std::fs::remove_dir_all(&out);
    let checked_in_path = skc_grammar_gen::grammar_path().with_extension("rs");
    let checked_in = std::fs::read_to_string(&checked_in_path).expect("grammar.rs is checked in");
    assert!(
        generated == checked_in,
        "{} is not what grammar.lalrpop generates: run `cargo run -p skc-grammar-gen`",
        checked_in_path.display()
    );
}

#[test]
fn language_doc_shows_the_grammar() {
    let grammar = std::fs::read_to_string(skc_grammar_gen::grammar_path()).expect("the grammar");
    let doc = std::fs::read_to_string(skc_grammar_gen::language_doc_path()).expect("docs/language.md");
    let current = skc_grammar_gen::language_doc_with_reference(&doc, &grammar).expect("grammar markers in the doc");
    assert!(
        current == doc,
        "docs/language.md's grammar section is not the grammar's: run `cargo run -p skc-grammar-gen`"
    );
}

#[test]
fn reference_drops_bindings_and_actions() {
    let line = "    <l:@L> \"if\" <c:Seq> \"then\" <t:ExprE> <r:@R> => b.if_(c, t, None, l, r),";
    assert_eq!(
        skc_grammar_gen::reference(&format!("// header\n\n// ---- items\n{line}")),
        "// header\n\n// ---- items\n    \"if\" Seq \"then\" ExprE,\n"
    );
    let line = "Or<B>: ExprId = { <l:@L> <lhs:And<BaseC>> \"||\" <rhs:Or<B>> <r:@R> => x,";
    assert_eq!(
        skc_grammar_gen::reference(&format!("// header\n\n// ---- items\n{line}")),
        "// header\n\n// ---- items\nOr<B> = { And<BaseC> \"||\" Or<B>,\n"
    );
}
