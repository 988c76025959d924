//! Sarek's spellings that skc writes another way: the functions of Sarek's `Int32`, `Int64`, `Float32` and `Math`
//! modules that are operators or conversions in skc (`logand a b` is `a land b`). An unknown name that is one of
//! them gets this advice instead of an edit-distance guess, which would offer a builtin that only looks alike.
//! (Sarek's names that are builtins, such as `atomic_add_int32` or `warp_ballot`, are in the builtin table.)

/// What to write in skc for Sarek's `module.name` (`module` as qualified, if it was), if skc spells it otherwise.
pub(crate) fn sarek_advice(module: Option<&str>, name: &str) -> Option<String> {
    let form = operator(module, name).or_else(|| conversion(module, name))?;
    Some(format!("Sarek's `{name}` is written {form} in skc"))
}

/// The operator form of one of Sarek's arithmetic or bitwise functions (or the literal of a constant).
fn operator(module: Option<&str>, name: &str) -> Option<&'static str> {
    let float_module = module == Some("Float32") || module == Some("Float64");
    // Short names (`add`, `one`) only when qualified by one of Sarek's modules: bare, they are as likely a typo.
    let sarek_module = float_module || module == Some("Int32") || module == Some("Int64");
    Some(match name {
        "logand" | "logical_and" => "`a land b`",
        "logor" => "`a lor b`",
        "logxor" | "xor" => "`a lxor b`",
        "lognot" => "`lnot a`",
        "shift_left" => "`a lsl n`",
        "shift_right" => "`a asr n`",
        "shift_right_logical" => "`a lsr n`",
        "add_int32" | "add_int64" => "`a + b`",
        "sub_int32" | "sub_int64" => "`a - b`",
        "mul_int32" | "mul_int64" => "`a * b`",
        "div_int32" | "div_int64" => "`a / b`",
        "mod_int32" | "mod_int64" | "rem" => "`a mod b`",
        "add_float32" => "`a +. b`",
        "sub_float32" => "`a -. b`",
        "mul_float32" => "`a *. b`",
        "div_float32" => "`a /. b`",
        "add" if float_module => "`a +. b`",
        "minus" | "sub" if float_module => "`a -. b`",
        "mul" if float_module => "`a *. b`",
        "div" if float_module => "`a /. b`",
        "add" if sarek_module => "`a + b`",
        "sub" if sarek_module => "`a - b`",
        "mul" if sarek_module => "`a * b`",
        "div" if sarek_module => "`a / b`",
        "neg" if sarek_module => "`-a` (or `-.a` for a float)",
        "zero" if sarek_module => "`0`",
        "one" if sarek_module => "`1`",
        "minus_one" if sarek_module => "`-1`",
        "return_unit" => "`()`",
        _ => return None,
    })
}

/// The conversion builtin of one of Sarek's `of_*`/`to_*` functions; the module says the type converted to or from.
fn conversion(module: Option<&str>, name: &str) -> Option<&'static str> {
    let module_type = match module {
        Some("Float32") => "float32",
        Some("Float64") => "float64",
        Some("Int64") => "int64",
        Some("Int32") => "int32",
        _ => return None,
    };
    Some(match name {
        "of_int" | "of_float" | "of_int32" => match module_type {
            "float32" => "`float32 x`",
            "float64" => "`float64 x`",
            "int64" => "`int64 x`",
            _ => "`int32 x`",
        },
        "to_int" | "to_int32" => "`int32 x`",
        "to_float" => match module_type {
            "float64" => "`float64 x`",
            _ => "`float32 x`",
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_and_conversions() {
        assert_eq!(sarek_advice(None, "logand").as_deref(), Some("Sarek's `logand` is written `a land b` in skc"));
        assert_eq!(sarek_advice(Some("Float32"), "add").as_deref(), Some("Sarek's `add` is written `a +. b` in skc"));
        assert_eq!(sarek_advice(Some("Int32"), "add").as_deref(), Some("Sarek's `add` is written `a + b` in skc"));
        assert_eq!(
            sarek_advice(Some("Float32"), "of_int").as_deref(),
            Some("Sarek's `of_int` is written `float32 x` in skc")
        );
        assert_eq!(
            sarek_advice(Some("Int32"), "to_int").as_deref(),
            Some("Sarek's `to_int` is written `int32 x` in skc")
        );
        assert_eq!(sarek_advice(None, "thread_idx"), None);
        assert_eq!(sarek_advice(None, "one"), None, "a bare short name is left to the edit-distance search");
    }
}
