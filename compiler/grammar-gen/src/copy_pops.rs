//! One rewrite of lalrpop's generated parser: popping a symbol whose payload is `Copy` (a token, an `ExprId`)
//! without running the symbol enum's drop glue.
//!
//! lalrpop pops a symbol with `match __symbols.pop() { Some((__l, __Symbol::VariantN(__v), __r)) => .., _ => .. }`.
//! When the payload is `Copy`, the pattern copies it and the popped symbol stays alive, so the enum's drop glue (a
//! call that dispatches on all its variants) runs for every token and most reductions: 24M instructions of
//! `bench_check`'s 100,000 lines. Taking the payload out of a `ManuallyDrop` copy of the symbol drops nothing;
//! a payload that owns memory (a vector) is moved out by lalrpop's own form, which drops nothing either.

/// The payload types of the grammar's symbols that are `Copy`: their pops are rewritten. A type listed here that
/// is not `Copy` fails to compile; one missing only keeps lalrpop's form.
const COPY_PAYLOADS: &[&str] = &[
    "Lexeme",
    "ExprId",
    "u32",
    "bool",
    "()",
    "Operator",
    "UnaryOp",
    "(u32, u32)",
    "(Lexeme, Lexeme)",
    "(Lexeme, ExprId)",
    "(Option<Lexeme>, Lexeme)",
    "Option<Lexeme>",
    "Option<ExprId>",
];

/// `parser` (lalrpop's output) with the pops of `Copy` payloads rewritten; `None` if lalrpop's text is not the
/// shape this rewrite knows (a different lalrpop version), so that the generator fails instead of guessing.
pub fn rewrite(parser: &str) -> Option<String> {
    let mut out = parser.to_string();
    let mut rewritten = 0;
    for (variant, payload) in symbol_variants(parser)? {
        if !COPY_PAYLOADS.contains(&payload.as_str()) {
            continue;
        }
        let arm = format!("Some((__l, __Symbol::{variant}(__v), __r)) => (__l, __v, __r),");
        let original = format!("        match __symbols.pop() {{\n            {arm}\n");
        let replacement = format!(
            "        let __popped = core::mem::ManuallyDrop::new(__symbols.pop());\n        match &*__popped {{\n            \
             Some((__l, __Symbol::{variant}(__v), __r)) => (*__l, *__v, *__r),\n"
        );
        if out.matches(&original).count() != 1 {
            return None;
        }
        out = out.replace(&original, &replacement);
        rewritten += 1;
    }
    (rewritten > 0).then_some(out)
}

/// The variants of the generated `__Symbol` enum with their payload types, as written.
pub(crate) fn symbol_variants(parser: &str) -> Option<Vec<(String, String)>> {
    let start = parser.find("enum __Symbol<>")?;
    let body = &parser[start..];
    let body = &body[body.find('{')? + 1..body.find("\n    }")?];
    let mut variants = Vec::new();
    for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let open = line.find('(')?;
        let payload = line.get(open + 1..line.len().checked_sub(2)?)?;
        variants.push((line[..open].to_string(), payload.to_string()));
    }
    Some(variants)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "    pub(crate) enum __Symbol<>
     {
        Variant0(Lexeme),
        Variant1(alloc::vec::Vec<ExprId>),
    }
    fn __pop_Variant0<
    >(
        __symbols: &mut alloc::vec::Vec<(u32,__Symbol<>,u32)>
    ) -> (u32, Lexeme, u32)
     {
        match __symbols.pop() {
            Some((__l, __Symbol::Variant0(__v), __r)) => (__l, __v, __r),
            _ => __symbol_type_mismatch()
        }
    }
    fn __pop_Variant1<
    >(
        __symbols: &mut alloc::vec::Vec<(u32,__Symbol<>,u32)>
    ) -> (u32, alloc::vec::Vec<ExprId>, u32)
     {
        match __symbols.pop() {
            Some((__l, __Symbol::Variant1(__v), __r)) => (__l, __v, __r),
            _ => __symbol_type_mismatch()
        }
    }
";

    #[test]
    fn only_copy_payloads_are_rewritten() {
        let out = rewrite(GENERATED).expect("the shape is known");
        assert!(out.contains(
            "match &*__popped {\n            Some((__l, __Symbol::Variant0(__v), __r)) => (*__l, *__v, *__r),"
        ));
        assert!(out.contains(
            "match __symbols.pop() {\n            Some((__l, __Symbol::Variant1(__v), __r)) => (__l, __v, __r),"
        ));
    }

    #[test]
    fn an_unknown_shape_is_refused() {
        assert_eq!(rewrite("fn main() {}"), None);
        assert_eq!(rewrite(&GENERATED.replace("match __symbols.pop()", "match pop()")), None);
    }
}
