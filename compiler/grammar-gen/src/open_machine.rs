//! One rewrite of lalrpop's generated parser: its state machine is visible to the rest of skc-core's syntax
//! module, so that `syntax::drive` can run the same tables and actions in a loop of its own for files without
//! syntax errors (lalrpop-util's driver, with its error recovery, parses the others). The rewrite changes
//! visibility only: the generated module and the state machine's two fields become `pub(crate)`.

const MODULE: &str = "\nmod __parse__File {";
const MACHINE: &str = "    struct __StateMachine<'b, 's>
    where 's: 'b
    {
        b: &'b mut Builder<'s>,
        __phantom: core::marker::PhantomData<(&'b (), &'s ())>,
    }";

/// `parser` with the generated module and its state machine visible to the crate; `None` if lalrpop's text is
/// not the shape this rewrite knows.
pub fn rewrite(parser: &str) -> Option<String> {
    if parser.matches(MODULE).count() != 1 || parser.matches(MACHINE).count() != 1 {
        return None;
    }
    let machine = MACHINE
        .replace("    struct", "    pub(crate) struct")
        .replace("        b:", "        pub(crate) b:")
        .replace("        __phantom:", "        pub(crate) __phantom:");
    Some(parser.replacen(MODULE, "\npub(crate) mod __parse__File {", 1).replacen(MACHINE, &machine, 1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_visibility_changes() {
        let parser = format!("use x;\nmod __parse__File {{\n{}\n}}\n", super::MACHINE);
        let rewritten = super::rewrite(&parser).expect("the shape is known");
        assert_eq!(rewritten.replace("pub(crate) ", ""), parser);
        assert_eq!(rewritten.matches("pub(crate) ").count(), 4);
        assert!(super::rewrite("mod other {}").is_none());
    }
}
