//! Unit tests of the type checker. Each parses a small source through the driver and checks either the
//! diagnostics, as `(code, line)` pairs, or the tables the checker produces.

use std::sync::Arc;

use super::*;
use crate::types::{ArraySize, ConstValue, Resolution};

/// Diagnostics of `src` as sorted `(code, line)` pairs (lines from 1); the source must parse cleanly.
fn check(src: &str) -> Vec<(&'static str, usize)> {
    check_with(src, &TypeckOptions::default())
}

fn check_with(src: &str, options: &TypeckOptions) -> Vec<(&'static str, usize)> {
    let (sources, module, _, parse_diagnostics) = crate::driver::parse_all("test.sk", src, &crate::NoModules);
    assert!(parse_diagnostics.iter().all(|d| !d.is_error()), "parse errors: {parse_diagnostics:#?}");
    let (_, diagnostics) = check_module(&module, &sources, options);
    codes_and_lines(&sources, &diagnostics)
}

fn codes_and_lines(sources: &SourceMap, diagnostics: &[Diagnostic]) -> Vec<(&'static str, usize)> {
    let mut out: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            let span = d.primary_span();
            (d.code, sources.file(span.file).line_col(span.start as usize).0 + 1)
        })
        .collect();
    out.sort_by_key(|(code, line)| (*line, *code));
    out
}

/// The checker's tables and diagnostics for `src` (parse errors allowed).
fn check_info(src: &str) -> (TypeInfo, Vec<Diagnostic>) {
    check_info_with(src, &TypeckOptions::default())
}

fn check_info_with(src: &str, options: &TypeckOptions) -> (TypeInfo, Vec<Diagnostic>) {
    let (sources, module, _, _) = crate::driver::parse_all("test.sk", src, &crate::NoModules);
    check_module(&module, &sources, options)
}

fn defines(pairs: &[(&str, &str)]) -> TypeckOptions {
    TypeckOptions { defines: pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect() }
}

fn kernel_param_types(info: &TypeInfo, kernel: usize) -> Vec<String> {
    info.kernels[kernel].params.iter().map(|p| info.display(&p.ty)).collect()
}

fn written(info: &TypeInfo, kernel: usize) -> Vec<bool> {
    info.kernels[kernel].params.iter().map(|p| p.written).collect()
}

fn constant<'i>(info: &'i TypeInfo, name: &str) -> &'i crate::types::ConstantInfo {
    info.constants.iter().find(|c| c.name == name).expect("constant exists")
}

const SEED: &str = include_str!("../../../../tests/ui/seed/reduce.sk");

// --- inference ----------------------------------------------------------------------------------------

#[test]
fn seed_reduce_kernel_checks_without_diagnostics() {
    assert_eq!(check(SEED), vec![]);
}

#[test]
fn seed_reduce_kernel_infers_vector_params() {
    let (info, diagnostics) = check_info(SEED);
    assert!(diagnostics.is_empty());
    assert_eq!(kernel_param_types(&info, 0), ["int32 vector", "int32 vector", "int32 vector", "int32"]);
    assert_eq!(written(&info, 0), [true, false, true, false]);
}

#[test]
fn every_expression_gets_a_final_type() {
    let (info, _) = check_info(SEED);
    let (_, module, _, _) = crate::driver::parse_all("test.sk", SEED, &crate::NoModules);
    assert_eq!(info.expr_types.len(), module.exprs.len());
    let bad: Vec<_> = info
        .expr_types
        .iter()
        .enumerate()
        .filter(|(_, t)| matches!(t, Type::Var(_) | Type::Error))
        .map(|(i, _)| module.exprs[i].clone())
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn literals_take_their_suffix_types_and_default_by_class() {
    let src = "let a () = 1\nlet b () = 1l\nlet c () = 1L\nlet d () = 1u\nlet e () = 1UL\n\
               let f () = 1.0\nlet g () = 1.0f\nlet h () = 1.0d\nlet i () = true\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty());
    let rets: Vec<String> = info.functions.iter().map(|f| info.display(&f.ret)).collect();
    assert_eq!(rets, ["int32", "int32", "int64", "uint32", "uint64", "float32", "float32", "float64", "bool"]);
}

#[test]
fn literals_adopt_the_type_they_are_used_at() {
    let src = "let f (x : int64) (y : float64) = x + 1 > 0 && y *. 2.0 > 1.0\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty());
    assert!(info.expr_types.contains(&Type::Int64));
    assert!(info.expr_types.contains(&Type::Float64));
}

#[test]
fn untyped_function_params_are_inferred_from_uses() {
    let src = "let axpy a x y i = a *. x.(i) +. y.(i)\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty());
    let types: Vec<String> = info.functions[0].params.iter().map(|p| info.display(&info.local(*p).ty)).collect();
    assert_eq!(types, ["float32", "float32 vector", "float32 vector", "int32"]);
}

#[test]
fn uninferable_params_and_bindings_are_e0209() {
    let src =
        "let k = [%kernel fun a (b : int32 vector) ->\n  b.(0) <- 1\n]\nlet first x = x\nlet g (n : int32) = first n\n";
    assert_eq!(check(src), vec![("E0209", 1)]);
    let src = "let k = [%kernel fun (b : int32 vector) ->\n  b.(0) <- 1\n]\nlet first x = x\nlet g (n : int32) =\n  let t = create_array 32 Shared in ()\n";
    assert_eq!(check(src), vec![("E0209", 6)]);
}

#[test]
fn an_unknown_shared_element_type_is_e0209() {
    let src = "let k = [%kernel fun (n : int32) ->\n  let t = create_array 32 Shared in\n  ()\n]\n";
    assert_eq!(check(src), vec![("E0209", 2)]);
}

// --- names ------------------------------------------------------------------------------------------------

#[test]
fn unknown_names_suggest_a_close_visible_name() {
    let src = "let k = [%kernel fun (a : int32 vector) ->\n  let counter = 1 in\n  a.(thread_idx_y) <- countr + thred_idx_x\n]\n";
    let (_, diagnostics) = check_info(src);
    let helps: Vec<_> = diagnostics.iter().map(|d| (d.code, d.help.clone())).collect();
    assert_eq!(
        helps,
        [
            ("E0200", Some("did you mean `counter`?".to_string())),
            ("E0200", Some("did you mean `thread_idx_x`?".to_string()))
        ]
    );
}

#[test]
fn qualified_names_reach_builtins_and_items() {
    let src = "let half (x : float32) = x /. 2.0\n\
               let k = [%kernel fun (a : float32 vector) ->\n  \
               a.(Std.thread_idx_x) <- half (Math.sqrt a.(Gpu.global_idx_x));\n  Gpu.block_barrier\n]\n";
    assert_eq!(check(src), vec![]);
    let bad = "let k = [%kernel fun (a : float32 vector) ->\n  Gpu.blok_barrier;\n  Std.nothing 1\n]\n";
    assert_eq!(check(bad), vec![("E0200", 2), ("E0200", 3)]);
    // A qualifier that is neither a built-in namespace nor an opened module.
    let unopened = src.replace("<- half", "<- Weno.half");
    assert_eq!(check(&unopened), vec![("E0217", 3)]);
}

#[test]
fn sarek_aliases_resolve_to_their_builtins() {
    let src = "let k = [%kernel fun (a : float32 vector) (n : int32) ->\n  \
               if global_idx < n then a.(global_idx) <- float n +. float32 (int_of_float a.(0));\n  barrier ()\n]\n";
    assert_eq!(check(src), vec![]);
}

#[test]
fn items_may_be_used_before_their_definition() {
    let src = "let k = [%kernel fun (a : float32 vector) ->\n  a.(0) <- twice (float32 size)\n]\n\
               let twice (x : float32) = x *. 2.0\nlet size = half * 2\nlet half = 8\n";
    assert_eq!(check(src), vec![]);
}

#[test]
fn duplicate_top_level_names_are_e0207() {
    let src =
        "let n = 1\nlet n = 2\ntype p = { x : int32 }\ntype p = { y : int32 }\nlet f (a : int32) (a : int32) = a\n";
    assert_eq!(check(src), vec![("E0207", 2), ("E0207", 4), ("E0207", 5)]);
}

#[test]
fn recursion_is_e0206_once_per_cycle() {
    let src =
        "let f (x : int32) : int32 = g x\nlet g (x : int32) : int32 = f x\nlet h (x : int32) : int32 = h (x - 1)\n\
               let ok (x : int32) = f x\n";
    assert_eq!(check(src), vec![("E0206", 1), ("E0206", 3)]);
}

#[test]
fn resolutions_and_declared_locals_are_recorded() {
    let src = "let c = 3\nlet f (x : int32) = x\nlet k = [%kernel fun (a : int32 vector) ->\n  \
               let y = mut f c in\n  for i = 0 to 3 do y := y + i done;\n  \
               let%shared (t : int32) = 32 in\n  t.(0) <- y;\n  a.(thread_idx_x) <- [%global c]\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let kinds: Vec<&str> = info
        .resolutions
        .values()
        .map(|r| match r {
            Resolution::Local(_) => "local",
            Resolution::Constant(_) => "constant",
            Resolution::Function(_) => "function",
            Resolution::Builtin(_) => "builtin",
        })
        .collect();
    for kind in ["local", "constant", "function", "builtin"] {
        assert!(kinds.contains(&kind), "no {kind} resolution");
    }
    assert_eq!(info.declared_local.len(), 3);
    let names: Vec<&str> = info.declared_local.values().map(|l| info.local(*l).name.as_str()).collect();
    for name in ["y", "i", "t"] {
        assert!(names.contains(&name));
    }
    let y = info.locals.iter().find(|l| l.name == "y").unwrap();
    assert_eq!(y.mutability, crate::types::Mutability::Mutable);
    let a = info.locals.iter().find(|l| l.name == "a").unwrap();
    assert_eq!(a.param_index, Some(0));
}

// --- operators ----------------------------------------------------------------------------------------

#[test]
fn arithmetic_needs_numbers_of_one_type() {
    let src = "let f (x : int32) (y : float32) (b : bool) =\n  let _ = x + 1 in\n  let _ = y *. 2.0 in\n  \
               let _ = x + y in\n  let _ = b + 1 in\n  let _ = x +. 1.0 in\n  let _ = y mod 2.0 in\n  \
               let _ = x lsl 2 in\n  let _ = y ** 2.0 in\n  ()\n";
    assert_eq!(check(src), vec![("E0201", 4), ("E0201", 5), ("E0201", 6), ("E0201", 7)]);
}

#[test]
fn comparisons_and_logic() {
    let src = "type p = { x : int32 }\nlet f (x : int32) (v : int32 vector) (r : p) =\n  \
               let _ = x < 3 && (true || x = 2) in\n  let _ = x < 1.5 in\n  let _ = v = v in\n  \
               let _ = r = r in\n  let _ = x && true in\n  not (x <> 0)\n";
    assert_eq!(check(src), vec![("E0201", 4), ("E0201", 5), ("E0201", 6), ("E0201", 7)]);
}

#[test]
fn unary_operators() {
    let src = "let f (x : int32) (y : float32) =\n  let _ = - x in\n  let _ = -. y in\n  let _ = lnot x in\n  \
               let _ = not true in\n  let _ = -. x in\n  let _ = lnot y in\n  let _ = not x in\n  ()\n";
    assert_eq!(check(src), vec![("E0201", 6), ("E0201", 7), ("E0201", 8)]);
}

#[test]
fn deref_reads_ref_cells_and_rejects_mut_variables() {
    let src = "let f () =\n  let r = ref 1 in\n  r := !r + 1;\n  let m = mut 2 in\n  m := !m + 1;\n  \
               let x = 3 in\n  let _ = !x in\n  !r + m\n";
    assert_eq!(check(src), vec![("E0201", 5), ("E0201", 7)]);
    let (_, diagnostics) = check_info(src);
    assert!(diagnostics[0].help.as_deref().unwrap_or("").contains("without `!`"));
}

// --- control flow -------------------------------------------------------------------------------------

#[test]
fn if_conditions_branches_and_values() {
    let src = "let f (x : int32) =\n  let a = if x > 0 then 1 else 2 in\n  if x then ();\n  \
               if x > 0 then 5;\n  let _ = if x > 0 then 1 else 2.0 in\n  a\n";
    assert_eq!(check(src), vec![("E0201", 3), ("E0201", 4), ("E0201", 5)]);
}

#[test]
fn loops_need_integer_bounds_bool_conditions_and_unit_bodies() {
    let src = "let f (n : int64) =\n  for i = 0 to n do () done;\n  for i = 0l to n do () done;\n  \
               for i = 0.0 to 1.0 do () done;\n  while n do () done;\n  for i = 10 downto 0 do i done;\n  \
               for i = 0 to 3 do i := 1 done\n";
    assert_eq!(check(src), vec![("E0201", 3), ("E0201", 4), ("E0201", 5), ("E0201", 6), ("E0204", 7)]);
}

#[test]
fn break_and_continue_only_inside_loops() {
    let src =
        "let f (n : int32) =\n  for i = 0 to n do\n    if i = 2 then continue;\n    if i = 5 then break\n  done;\n  \
               while true do break done;\n  continue\n";
    assert_eq!(check(src), vec![("E0213", 7)]);
}

#[test]
fn discarded_values_warn() {
    let src = "let f (a : int32 vector) =\n  a.(0) + 1;\n  a.(0) <- 2;\n  a.(1)\n";
    assert_eq!(check(src), vec![("W0003", 2)]);
}

#[test]
fn return_unifies_with_the_function_result() {
    let src = "let f (x : int32) : int32 =\n  if x < 0 then return 0;\n  x\n\
               let g (x : int32) : int32 =\n  if x < 0 then return 1.5;\n  x\n\
               let k = [%kernel fun (a : int32 vector) ->\n  if a.(0) = 0 then return;\n  return 3\n]\n";
    assert_eq!(check(src), vec![("E0201", 5), ("E0201", 9)]);
}

#[test]
fn supersteps_and_pragmas() {
    let src = "let k = [%kernel fun (a : float32 vector) ->\n  superstep { a.(0) <- 1.0 };\n  \
               superstep ~divergent { if thread_idx_x = 0 then a.(1) <- 2.0 };\n  \
               pragma [\"unroll\"] for i = 0 to 3 do a.(i) <- 0.0 done;\n  superstep { 1 }\n]\n";
    assert_eq!(check(src), vec![("E0201", 5)]);
}

#[test]
fn kernel_bodies_must_be_unit() {
    let src = "let k = [%kernel fun (a : int32 vector) ->\n  a.(0)\n]\n";
    assert_eq!(check(src), vec![("E0201", 2)]);
}

// --- bindings -------------------------------------------------------------------------------------------

#[test]
fn let_forms_and_annotations() {
    let src = "let f (x : int32) =\n  let (y : int64) = 3 in\n  let _ = y in\n  let () = () in\n  \
               let () = x in\n  let (z : float32) = x in\n  let w : int32 = x in\n  (x : int32)\n";
    assert_eq!(check(src), vec![("E0201", 5), ("E0201", 6)]);
}

#[test]
fn assignment_needs_mut_or_ref() {
    let src = "let c = 3\nlet f (p : int32) =\n  let m = mut 0 in\n  m := 1;\n  m := 1.5;\n  let r = ref 0.0 in\n  \
               r := 2.0;\n  let i = 0 in\n  i := 1;\n  p := 2;\n  c := 4;\n  f := 2;\n  nowhere := 1\n";
    assert_eq!(
        check(src),
        vec![("E0201", 5), ("E0204", 9), ("E0204", 10), ("E0204", 11), ("E0204", 12), ("E0200", 13)]
    );
}

#[test]
fn ref_cells_have_ref_types() {
    let src = "let f () =\n  let r = ref 1.0 in\n  r := !r +. 1.0;\n  !r\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty());
    let r = info.locals.iter().find(|l| l.name == "r").unwrap();
    assert_eq!(r.ty, Type::Ref(Arc::new(Type::Float32)));
    assert_eq!(r.mutability, crate::types::Mutability::RefCell);
    assert_eq!(info.functions[0].ret, Type::Float32);
}

// --- arrays -------------------------------------------------------------------------------------------

#[test]
fn indexing_needs_arrays_and_integer_indices() {
    let src = "let f (x : int32) (v : float32 vector) =\n  let _ = x.(0) in\n  let _ = v.(1.0) in\n  \
               let _ = v.(2L) in\n  x.(0) <- 1;\n  v.(0) <- 1;\n  v.(0) <- 1.0\n";
    assert_eq!(check(src), vec![("E0210", 2), ("E0201", 3), ("E0210", 5), ("E0201", 6)]);
}

#[test]
fn constant_arrays_are_read_only() {
    let src = "let table = [| 1.0; 2.0 |]\nlet k = [%kernel fun (a : float32 vector) ->\n  \
               a.(0) <- table.(1) +. [%global table].(0);\n  table.(0) <- 1.0;\n  (); [%global table].(1) <- 2.0;\n  \
               let _ = atomic_exch table 0 1.0 in\n  ()\n]\n";
    assert_eq!(check(src), vec![("E0204", 4), ("E0204", 5), ("E0204", 6)]);
}

#[test]
fn array_literals_only_as_constant_values() {
    let src = "let ok = [| 1; 2; 3 |]\nlet k = [%kernel fun (a : int32 vector) ->\n  let t = [| 1; 2 |] in\n  \
               a.(0) <- t.(0)\n]\nlet mixed = [| 1; 2.0 |]\n";
    assert_eq!(check(src), vec![("E0205", 3), ("E0201", 6)]);
}

#[test]
fn shared_and_local_arrays_with_constant_sizes() {
    let src = "let block = 128\nlet k = [%kernel fun (a : float32 vector) ->\n  \
               let%shared (s : float32) = 256l in\n  let%local (l : float32) = block / 2 in\n  \
               let c = create_array (2 * block) Shared in\n  c.(0) <- s.(1) +. l.(2);\n  a.(0) <- c.(1)\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let sizes: Vec<(String, String)> = info
        .declared_local
        .values()
        .map(|l| (info.local(*l).name.to_string(), info.display(&info.local(*l).ty)))
        .collect();
    for expected in [("s", "float32 shared[256]"), ("l", "float32 local[64]"), ("c", "float32 shared[256]")] {
        assert!(sizes.contains(&(expected.0.to_string(), expected.1.to_string())), "{sizes:?}");
    }
    assert_eq!(info.kernels[0].dynamic_shared, None);
}

#[test]
fn dynamic_shared_arrays_are_sized_by_kernel_params() {
    let src = "let pad = 1\nlet k = [%kernel fun (a : float32 vector) (n : int32) ->\n  \
               let%shared (t : float32) = n + pad in\n  t.(thread_idx_x) <- a.(0);\n  a.(1) <- t.(0)\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(info.kernels[0].dynamic_shared, Some(Type::Float32));
    let t = info.locals.iter().find(|l| l.name == "t").unwrap();
    assert!(matches!(t.ty, Type::Array { size: ArraySize::Dynamic, .. }));
}

#[test]
fn bad_array_sizes_are_e0203() {
    let src = "let f (n : int32) =\n  let%shared (x : float32) = n in\n  ()\n\
               let k = [%kernel fun (a : float32 vector) (n : int32) ->\n  \
               let%shared (t : float32) = n in\n  let%shared (u : float32) = 2 * n in\n  \
               let%local (l : float32) = n in\n  let%shared (w : float32) = thread_idx_x in\n  \
               let%shared (z : float32) = 0 in\n  let%local (m : float32) = 1 - 2 in\n  ()\n]\n";
    assert_eq!(check(src), vec![("E0203", 2), ("E0203", 6), ("E0203", 7), ("E0203", 8), ("E0203", 9), ("E0203", 10)]);
}

#[test]
fn sized_types_in_signatures() {
    let src = "let n = 4\nlet sum (t : float32[n]) =\n  let s = mut 0.0 in\n  for i = 0 to n - 1 do s := s +. t.(i) done;\n  s\n\
               let k = [%kernel fun (a : float32 vector) ->\n  let%local (l : float32) = 4 in\n  a.(0) <- sum l\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let t = info.local(info.functions[0].params[0]);
    assert_eq!(info.display(&t.ty), "float32 local[4]");
}

// --- records ------------------------------------------------------------------------------------------

#[test]
fn records_literals_fields_and_field_writes() {
    let src = "type point = { x : float32; y : float32 }\nlet k = [%kernel fun (ps : point vector) ->\n  \
               let p = { x = 1.0; y = 2.0 } in\n  ps.(0) <- p;\n  ps.(1).x <- p.y;\n  \
               let q = mut { y = 0.0; x = 0.0 } in\n  q.x <- 3.0;\n  ps.(2) <- q\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(kernel_param_types(&info, 0), ["point vector"]);
    assert!(written(&info, 0)[0]);
    assert_eq!(info.records[0].fields, vec![("x".to_string(), Type::Float32), ("y".to_string(), Type::Float32)]);
}

#[test]
fn record_errors_are_e0208_and_e0204() {
    let src = "type point = { x : float32; y : float32 }\nlet f (p : point) =\n  let _ = { x = 1.0 } in\n  \
               let _ = { x = 1.0; x = 2.0; y = 0.0 } in\n  let _ = { x = 1.0; y = 2.0; z = 3.0 } in\n  \
               let _ = { w = 1.0 } in\n  let _ = p.z in\n  p.x <- 2.0;\n  let _ = { x = 1; y = 2.0 } in\n  ()\n";
    assert_eq!(
        check(src),
        vec![("E0208", 3), ("E0208", 4), ("E0208", 5), ("E0208", 6), ("E0208", 7), ("E0204", 8), ("E0201", 9)]
    );
}

#[test]
fn field_access_finds_the_record_of_an_unknown_type() {
    let src =
        "type cell = { value : int32; weight : float32 }\nlet k = [%kernel fun cells (out : float32 vector) ->\n  \
               out.(0) <- cells.(0).weight\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(kernel_param_types(&info, 0), ["cell vector", "float32 vector"]);
}

// --- calls ---------------------------------------------------------------------------------------------

#[test]
fn builtin_arity_and_argument_types() {
    let src = "let k = [%kernel fun (a : float32 vector) (o : int32 vector) ->\n  let _ = shfl a.(0) in\n  \
               let _ = sqrt 2 in\n  let _ = sqrt in\n  let _ = thread_idx_x () in\n  block_barrier ();\n  \
               let _ = atomic_add o 0 1 in\n  let _ = atomic_and a 0 1 in\n  let _ = atomic_add 3 0 1 in\n  ()\n]\n";
    assert_eq!(check(src), vec![("E0202", 2), ("E0201", 3), ("E0202", 4), ("E0201", 8), ("E0201", 9)]);
}

#[test]
fn builtins_accept_every_kind_of_array() {
    let src = "let k = [%kernel fun (a : int32 vector) (b : float32 vector) ->\n  \
               let%shared (s : int32) = 32 in\n  let _ = atomic_add s 0 1 in\n  let _ = atomic_add a 1 2 in\n  \
               let _ = uniform_load b 0 in\n  ()\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(written(&info, 0), [true, false]);
}

#[test]
fn function_calls_check_arity_and_arguments() {
    let src = "let one () = 1\nlet add (a : int32) (b : int32) = a + b\nlet f () =\n  let _ = one () in\n  \
               let _ = one in\n  let _ = add 1 in\n  let _ = add 1 2 3 in\n  let _ = add 1.0 2 in\n  \
               let x = 3 in\n  let _ = x 1 in\n  let _ = one () + add 1 2 in\n  ()\n";
    assert_eq!(check(src), vec![("E0233", 5), ("E0202", 6), ("E0202", 7), ("E0201", 8), ("E0210", 10)]);
}

#[test]
fn kernels_are_not_callable() {
    let src = "let k = [%kernel fun (a : int32 vector) ->\n  a.(0) <- 1\n]\n\
               let j = [%kernel fun (a : int32 vector) ->\n  k a\n]\n";
    assert_eq!(check(src), vec![("E0210", 5)]);
}

// --- written parameters ----------------------------------------------------------------------------------

#[test]
fn written_params_are_tracked_through_calls_aliases_and_atomics() {
    let src = "let store (v : float32 vector) (i : int32) (x : float32) = v.(i) <- x\n\
               let relay (w : float32 vector) = store w 0 1.0\n\
               let peek (v : float32 vector) = v.(0)\n\
               let k = [%kernel fun (a : float32 vector) (b : float32 vector) (c : float32 vector) (d : int32 vector) (e : float32 vector) ->\n  \
               relay a;\n  let alias = c in\n  alias.(0) <- peek b;\n  let _ = atomic_add d 0 1 in\n  \
               e.(0) <- b.(0)\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(written(&info, 0), [true, false, true, true, true]);
}

#[test]
fn untyped_array_params_take_the_kind_of_array_they_are_given() {
    let src = "let sum3 t = t.(0) +. t.(1) +. t.(2)\nlet clear t = t.(0) <- 0.0\nlet table = [| 1.0; 2.0; 3.0 |]\n\
               let k = [%kernel fun (a : float32 vector) ->\n  let%shared (s : float32) = 64 in\n  \
               s.(0) <- a.(0);\n  a.(1) <- sum3 s;\n  clear s;\n  let _ = sum3 table in\n  ()\n]\n\
               let bad = [%kernel fun (a : float32 vector) ->\n  clear table\n]\n";
    let (info, diagnostics) = check_info(src);
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0201", "E0201"], "{diagnostics:#?}");
    let t = info.local(info.functions[0].params[0]);
    assert_eq!(info.display(&t.ty), "float32 shared[64]");
    let src_ok = "let clear t = t.(0) <- 0.0\nlet table = [| 1.0 |]\nlet k = [%kernel fun (a : float32 vector) ->\n  clear table\n]\n";
    assert_eq!(check(src_ok), vec![("E0204", 1)]);
}

#[test]
fn read_only_kernels_write_nothing() {
    let src = "let k = [%kernel fun (a : float32 vector) (n : int32) ->\n  let _ = a.(n) in\n  ()\n]\n";
    let (info, _) = check_info(src);
    assert_eq!(written(&info, 0), [false, false]);
}

#[test]
fn kernel_params_must_be_scalars_records_or_vectors() {
    let src = "let k = [%kernel fun (r : int32 ref) (a : float32 array) (ok : float64 vector) ->\n  ()\n]\n";
    assert_eq!(check(src), vec![("E0214", 1), ("E0214", 1)]);
}

// --- constants -------------------------------------------------------------------------------------------

#[test]
fn constants_evaluate_at_compile_time() {
    let src = "let a = 6 * 7\nlet b = a / 4 + a mod 4\nlet (eps : float64) = 1e-8\nlet c = select (a > 40) 1.5 2.5\n\
               let d = int32 (float32 a *. 0.5)\nlet e = 1 lsl 4 lor 3\nlet f = not (a = 42) || false\n\
               let g = -a\nlet wrap = 2147483647 + 1\nlet big = 1L lsl 40\nlet t = [| 1.0; 2.0 *. 2.0 |]\nlet h = t.(1)\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let values: Vec<(&str, ConstValue)> = info.constants.iter().map(|c| (c.name.as_str(), c.value.clone())).collect();
    assert_eq!(
        values,
        vec![
            ("a", ConstValue::Int(42)),
            ("b", ConstValue::Int(12)),
            ("eps", ConstValue::Float(1e-8)),
            ("c", ConstValue::Float(1.5)),
            ("d", ConstValue::Int(21)),
            ("e", ConstValue::Int(19)),
            ("f", ConstValue::Bool(false)),
            ("g", ConstValue::Int(-42)),
            ("wrap", ConstValue::Int(i32::MIN as i64)),
            ("big", ConstValue::Int(1 << 40)),
            ("t", ConstValue::Array(vec![ConstValue::Float(1.0), ConstValue::Float(4.0)])),
            ("h", ConstValue::Float(4.0)),
        ]
    );
    assert_eq!(constant(&info, "eps").ty, Type::Float64);
    assert_eq!(constant(&info, "t").ty, Type::ConstArray { elem: Arc::new(Type::Float32), size: 2 });
}

#[test]
fn non_constant_values_are_e0212() {
    let src = "let f (x : int32) = x\nlet a = thread_idx_x\nlet b = f 2\nlet c = 1 / 0\nlet d = d + 1\n\
               let e = let x = 1 in x\nlet ok = 3\n";
    assert_eq!(check(src), vec![("E0212", 2), ("E0212", 3), ("E0212", 4), ("E0212", 5), ("E0212", 6)]);
}

#[test]
fn defines_override_constants_and_their_dependents() {
    let src = "let n = 256\nlet twice = n * 2\nlet (scale : float64) = 1.0\nlet debug = false\n";
    let options = defines(&[("n", "64"), ("scale", "0.25"), ("debug", "true")]);
    let (info, diagnostics) = check_info_with(src, &options);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(constant(&info, "n").value, ConstValue::Int(64));
    assert_eq!(constant(&info, "twice").value, ConstValue::Int(128));
    assert_eq!(constant(&info, "scale").value, ConstValue::Float(0.25));
    assert_eq!(constant(&info, "debug").value, ConstValue::Bool(true));
}

#[test]
fn bad_defines_are_e0215() {
    let src = "let n = 256\nlet f (x : int32) = x\n";
    let options = defines(&[("n", "1.5"), ("m", "3"), ("f", "1")]);
    assert_eq!(check_with(src, &options), vec![("E0215", 1), ("E0215", 1), ("E0215", 1)]);
    let (_, diagnostics) = check_info_with(src, &defines(&[("nn", "3")]));
    assert_eq!(diagnostics[0].help.as_deref(), Some("did you mean `n`?"));
}

#[test]
fn bad_defines_point_into_the_command_line() {
    let src = "let n = 256\n";
    let options = crate::driver::CheckOptions { typeck: defines(&[("n", "1.5"), ("m", "3")]), ..Default::default() };
    let checked = crate::driver::check("k.sk", src, &crate::driver::NoModules, &options);
    let at = |d: &crate::Diagnostic| -> Vec<(String, String)> {
        d.labels
            .iter()
            .map(|l| (checked.sources.file(l.span.file).name.clone(), checked.sources.snippet(l.span).into()))
            .collect()
    };
    let [bad_value, unknown] = checked.diagnostics.as_slice() else { panic!("{:#?}", checked.diagnostics) };
    assert_eq!(at(bad_value), [("k.sk".into(), "n".into()), ("<command line>".into(), "1.5".into())]);
    assert_eq!(at(unknown), [("<command line>".into(), "m".into())]);
    assert_eq!(
        checked.sources.file(unknown.primary_span().file).line_col(unknown.primary_span().start as usize),
        (1, 3)
    );
}

#[test]
fn constants_feed_array_sizes_after_overrides() {
    let src = "let block = 256\nlet k = [%kernel fun (a : int32 vector) ->\n  let%shared (t : int32) = block in\n  \
               t.(0) <- a.(0)\n]\n";
    let (info, diagnostics) = check_info_with(src, &defines(&[("block", "32")]));
    assert!(diagnostics.is_empty());
    let t = info.locals.iter().find(|l| l.name == "t").unwrap();
    assert!(matches!(t.ty, Type::Array { size: ArraySize::Const(32), .. }));
}

// --- Sarek forms -----------------------------------------------------------------------------------------

#[test]
fn sarek_forms_check() {
    let src = "let n = 4\nlet[@sarek.module] scale (x : float32) : float32 = x *. 2.0\n\
               let k = [%kernel fun (a : float32 vector) ->\n  let%shared (t : float32) = 256l in\n  \
               let s = mut 0.0 in\n  s := s +. scale a.(0);\n  let b = create_array n Shared in\n  \
               b.(0) <- s;\n  t.(thread_idx_x) <- b.(0) +. float [%global n];\n  Gpu.block_barrier\n]\n";
    let (info, diagnostics) = check_info(src);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let b = info.locals.iter().find(|l| l.name == "b").unwrap();
    assert_eq!(info.display(&b.ty), "float32 shared[4]");
}

// --- robustness ---------------------------------------------------------------------------------------------

#[test]
fn errors_do_not_cascade() {
    let src = "let k = [%kernel fun (a : float32 vector) ->\n  let x = missing in\n  \
               a.(0) <- x +. 1.0;\n  let y = x.(3) in\n  a.(y) <- y;\n  a.(1) <- (1 + ) \n]\n";
    let (_, diagnostics) = check_info(src);
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0200"]);
}

#[test]
fn unknown_types_are_reported_with_suggestions() {
    let src = "type point = { x : flaot32 }\nlet f (p : piont) (v : float32 vectr) (x : int) = x\n";
    let (_, diagnostics) = check_info(src);
    let helps: Vec<Option<String>> = diagnostics.iter().map(|d| d.help.clone()).collect();
    assert_eq!(
        helps,
        [
            Some("did you mean `float32`?".to_string()),
            Some("did you mean `point`?".to_string()),
            Some("did you mean `vector`?".to_string())
        ]
    );
}

#[test]
fn never_panics_on_truncated_or_garbled_sources() {
    let sources = [
        SEED,
        "type p = { x : float32 }\nlet t = [| 1.0 |]\nlet f (a : p vector) i = a.(i).x <- t.(0)\n",
        "let k = [%kernel fun a n -> let%shared (s : int32) = n in for i = 0 to n do s.(i) <- a.(i) done]\n",
    ];
    for src in sources {
        for end in (0..src.len()).filter(|i| src.is_char_boundary(*i)) {
            let (info, _) = check_info(&src[..end]);
            assert!(info.expr_types.iter().all(|t| !matches!(t, Type::Var(_))));
            let garbled = src[..end].replace(['(', ']'], " ");
            let _ = check_info(&garbled);
        }
    }
}

// --- the `tests/ui/types` inputs ---------------------------------------------------------------------------

/// `(code, line)` for every `(* error: CODE *)` or `(* warning: CODE *)` comment of `src`.
fn inline_expectations(src: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (index, line) in src.lines().enumerate() {
        for marker in ["(* error: ", "(* warning: "] {
            for (at, _) in line.match_indices(marker) {
                let rest = &line[at + marker.len()..];
                if let Some(code) = rest.split_whitespace().next() {
                    out.push((code.to_string(), index + 1));
                }
            }
        }
    }
    out.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    out
}

#[test]
fn ui_type_inputs_match_their_inline_expectations() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui/types");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("tests/ui/types exists").flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 25);
    let mut failures = Vec::new();
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "sk")) {
        let src = std::fs::read_to_string(path).expect("readable");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let checked = crate::driver::check(&name, &src, &crate::NoModules, &Default::default());
        let actual: Vec<(String, usize)> = codes_and_lines(&checked.sources, &checked.diagnostics)
            .into_iter()
            .map(|(c, l)| (c.to_string(), l))
            .collect();
        let expected = inline_expectations(&src);
        if actual != expected {
            failures.push(format!("{name}: expected {expected:?}, got {actual:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn never_panics_without_sources_or_on_token_soup() {
    let (_, module, _, _) = crate::driver::parse_all("test.sk", SEED, &crate::NoModules);
    let _ = check_module(&module, &SourceMap::new(), &defines(&[("nothing", "1")]));
    let vocabulary = [
        "let",
        "x",
        "=",
        "in",
        "a",
        ".(",
        ")",
        "<-",
        "1",
        "2.0",
        "+",
        "+.",
        "(",
        ";",
        "if",
        "then",
        "else",
        "for",
        "i",
        "to",
        "do",
        "done",
        "fun",
        "->",
        "[%kernel",
        "]",
        "{",
        "}",
        "f",
        ":=",
        "!",
        "mut",
        "ref",
        "[|",
        "|]",
        "type",
        "t",
        ":",
        "int32",
        "vector",
        "\n",
        "let%shared",
        "return",
        "break",
        "superstep",
        "Gpu.block_barrier",
        "shfl",
        "atomic_add",
        "[%global",
        "n",
        "(t : float32)",
        "create_array",
        "Shared",
        "=",
        "while",
        "true",
        "not",
        "-",
    ];
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..400 {
        let mut src = String::new();
        for _ in 0..60 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            src.push_str(vocabulary[(seed % vocabulary.len() as u64) as usize]);
            src.push(' ');
        }
        let (info, _) = check_info_with(&src, &defines(&[("x", "3"), ("n", "true")]));
        assert!(info.expr_types.iter().all(|t| !matches!(t, Type::Var(_))), "{src}");
    }
}

struct OneModule(&'static str, &'static str);

impl crate::ModuleLoader for OneModule {
    fn load(&self, module: &str, _importer: &str) -> Result<(String, String), String> {
        if module == self.0 {
            Ok((format!("{}.sk", module.to_lowercase()), self.1.to_string()))
        } else {
            Err("not found".to_string())
        }
    }
}

#[test]
fn opened_modules_are_reached_bare_and_qualified() {
    let weno =
        OneModule("Weno", "let order = 5\nlet coeffs = [| 0.1; 0.6; 0.3 |]\nlet smooth (x : float32) = x *. 0.5\n");
    let src = "open Weno\nlet k = [%kernel fun (a : float32 vector) ->\n  \
               let%local (t : float32) = order in\n  t.(0) <- Weno.coeffs.(1) +. smooth a.(0);\n  \
               a.(0) <- Weno.smooth t.(0) +. Weno.missing\n]\n";
    let checked = crate::driver::check("main.sk", src, &weno, &Default::default());
    let found: Vec<(&str, String)> =
        checked.diagnostics.iter().map(|d| (d.code, checked.sources.snippet(d.primary_span()).to_string())).collect();
    assert_eq!(found, [("E0200", "Weno.missing".to_string())]);
}

#[test]
fn long_sequences_are_checked_without_deep_recursion() {
    let body: Vec<String> = (0..20_000).map(|i| format!("  a.({}) <- {i}", i % 7)).collect();
    let src = format!("let k = [%kernel fun (a : int32 vector) ->\n{};\n  a.(0) + 1\n]\n", body.join(";\n"));
    let (info, diagnostics) = check_info(&src);
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0201"]);
    assert!(written(&info, 0)[0]);
}

/// Unifying two variables binds the smaller class to the larger (short chains, so that a constant array of
/// 50,000 literals checks in linear time), but an `Array` variable always stays the root: its element type lives
/// under it. An unannotated parameter indexed after its callers' variables met it (the metrics module's shape) is
/// a vector, whichever class is larger.
#[test]
fn an_array_variable_stays_the_root_of_its_class() {
    // `keep`'s parameter meets three callers' variables before its body makes it an array.
    let src = "let a1 buf (i : int32) = keep buf i\nlet a2 buf (i : int32) = keep buf i\nlet a3 buf (i : int32) = keep buf i\n\
               let keep buf (slot : int32) = buf.(slot) <- buf.(slot) +. 1.0\n\
               kernel k (xs : float32 vector) = a1 xs 0; a2 xs 1; a3 xs 2\n";
    assert_eq!(check(src), vec![]);
    let values: Vec<String> = (0..50_000).map(|i| (i % 7).to_string()).collect();
    let big = format!("let c = [| {} |]\nkernel k (o : int32 vector) = o.(0) <- c.(thread_idx_x)\n", values.join("; "));
    assert_eq!(check(&big), vec![]);
}
