//! Unit tests of the type checker: each parses a small source and checks the diagnostics (code, line) or the
//! types and tables produced.

use super::*;

fn check(src: &str) -> Vec<(&'static str, usize)> {
    check_with(src, &TypeckOptions::default())
}

fn check_with(src: &str, options: &TypeckOptions) -> Vec<(&'static str, usize)> {
    let (sources, module, _, parse_diagnostics) = crate::driver::parse_all("test.sk", src, &crate::NoModules);
    assert!(parse_diagnostics.iter().all(|d| !d.is_error()), "parse errors: {parse_diagnostics:?}");
    let (_, diagnostics) = check_module(&module, &sources, options);
    let file = sources.file(crate::FileId(0));
    diagnostics.iter().map(|d| (d.code, file.line_col(d.primary_span().start as usize).0 + 1)).collect()
}

#[test]
fn seed_reduce_kernel_checks() {
    let src = include_str!("../../../../tests/ui/seed/reduce.sk");
    assert_eq!(check(src), vec![]);
}

fn check_info(src: &str) -> (TypeInfo, Vec<Diagnostic>) {
    let (sources, module, _, _) = crate::driver::parse_all("test.sk", src, &crate::NoModules);
    check_module(&module, &sources, &TypeckOptions::default())
}

#[test]
fn seed_reduce_kernel_infers_vector_params() {
    let (info, diagnostics) = check_info(include_str!("../../../../tests/ui/seed/reduce.sk"));
    assert!(diagnostics.is_empty());
    let kernel = &info.kernels[0];
    let shown: Vec<String> = kernel.params.iter().map(|p| info.display(&p.ty)).collect();
    assert_eq!(shown, ["int32 vector", "int32 vector", "int32 vector", "int32"]);
    let written: Vec<bool> = kernel.params.iter().map(|p| p.written).collect();
    assert_eq!(written, [true, false, true, false]);
    assert!(info.expr_types.iter().all(|t| !matches!(t, crate::types::Type::Var(_))));
}
