//! One rewrite of lalrpop's generated parser: the symbol enum holds its wide, rare payloads in boxes.
//!
//! lalrpop keeps every symbol on its stack as `(u32, __Symbol, u32)`, and `__Symbol` is as wide as its widest
//! payload: lalrpop's own `ErrorRecovery` (the value of every `!`: a parse error with a token and a vector of
//! expected tokens, and a vector of dropped tokens, 72 bytes), a `LetItemBody`, a `ParamList`. Every shift and
//! reduction moves a whole symbol, and one happens per token, so a symbol of 80 bytes moves 80 bytes where a token
//! (12) or an `ExprId` (4) would do. Boxing the payloads that are wide and occur once per item or parameter (or
//! once per syntax error) leaves the symbol at 32 bytes: the payloads of tokens, expressions, operator chains and
//! vectors fit in 24.
//!
//! A boxed variant is built with `Box::new` where lalrpop pushes it and unboxed where lalrpop pops it, so the
//! reductions (and the grammar's actions) see the payload's own type.

/// The payload types that are boxed, as lalrpop writes them. A type listed here that no symbol carries fails the
/// generator (`None`); a wide payload missing from the list fails the size assertion the rewrite adds.
const BOXED_PAYLOADS: &[&str] = &[
    "__lalrpop_util::ErrorRecovery<u32, Lexeme, ()>",
    "LetItemBody",
    "LetValue",
    "ParamList",
    "Option<ParamList>",
    "(ParamList, ExprId)",
    "Attribute",
    "(crate::syntax::ast::Binder, Option<Box<TypeExpr>>)",
    "ConstructorCase",
    "PatternAlternative",
    "Pattern",
    "Arm",
];

/// The size the symbol enum must not exceed once the wide payloads are boxed (checked when skc-core compiles).
const SYMBOL_BYTES: usize = 32;

/// `parser` (lalrpop's output) with the payloads of [`BOXED_PAYLOADS`] boxed and an assertion of the symbol's
/// size; `None` if lalrpop's text is not the shape this rewrite knows.
pub fn rewrite(parser: &str) -> Option<String> {
    let mut out = parser.to_string();
    let variants = crate::copy_pops::symbol_variants(parser)?;
    for payload in BOXED_PAYLOADS {
        let (variant, _) = variants.iter().find(|(_, p)| p == payload)?;
        out = box_variant(&out, variant, payload)?;
    }
    let enum_end = out.find("enum __Symbol<>")?;
    let close = enum_end + out[enum_end..].find("\n    }\n")? + "\n    }\n".len();
    let assertion = format!(
        "    // The wide payloads are boxed (skc-grammar-gen's `box_wide`): every shift and reduction moves a symbol.\n    \
         const _: () = assert!(core::mem::size_of::<__Symbol>() <= {SYMBOL_BYTES});\n"
    );
    out.insert_str(close, &assertion);
    Some(out)
}

/// Boxes one variant: its declaration, every place it is built (lalrpop names the value `__nt`, `__token` or
/// `recovery`) and its pop.
fn box_variant(parser: &str, variant: &str, payload: &str) -> Option<String> {
    let declaration = format!("        {variant}({payload}),\n");
    if parser.matches(&declaration).count() != 1 {
        return None;
    }
    let mut out = parser.replace(&declaration, &format!("        {variant}(alloc::boxed::Box<{payload}>),\n"));
    let mut built = 0;
    for value in ["__nt", "__token", "recovery"] {
        let construction = format!("__Symbol::{variant}({value})");
        built += out.matches(&construction).count();
        out = out.replace(&construction, &format!("__Symbol::{variant}(alloc::boxed::Box::new({value}))"));
    }
    let pop = format!("Some((__l, __Symbol::{variant}(__v), __r)) => (__l, __v, __r),");
    if built == 0 || out.matches(&pop).count() != 1 {
        return None;
    }
    Some(out.replace(&pop, &format!("Some((__l, __Symbol::{variant}(__v), __r)) => (__l, *__v, __r),")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_is_boxed_where_it_is_declared_built_and_popped() {
        let generated = "    enum __Symbol<>\n     {\n        Variant0(Lexeme),\n        Variant1(ParamList),\n    }\n\
                         __symbols.push((__start, __Symbol::Variant1(__nt), __end));\n\
                         __symbols.push((__start, __Symbol::Variant0(__nt), __end));\n\
                         Some((__l, __Symbol::Variant1(__v), __r)) => (__l, __v, __r),\n";
        let out = box_variant(generated, "Variant1", "ParamList").expect("the shape is known");
        assert!(out.contains("        Variant1(alloc::boxed::Box<ParamList>),\n"));
        assert!(out.contains("__Symbol::Variant1(alloc::boxed::Box::new(__nt))"));
        assert!(out.contains("__Symbol::Variant0(__nt)"));
        assert!(out.contains("=> (__l, *__v, __r),"));
    }

    #[test]
    fn an_unknown_shape_is_refused() {
        assert_eq!(rewrite("fn main() {}"), None);
        assert_eq!(box_variant("enum __Symbol<> {}", "Variant1", "ParamList"), None);
    }
}
