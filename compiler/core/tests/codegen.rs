//! Tests of the CUDA C emitter over `tests/codegen/*.sk`: snapshots that hold the `.sk` source, the emitted CUDA C
//! and the kernel signatures side by side, and a check that barriers and collectives appear in the C exactly as
//! often as in the source (over the UI inputs too). That NVRTC compiles every output without warnings is checked
//! in `tests/codegen_nvrtc.rs` (the core links no CUDA); `scripts/nvrtc_check.py` does the same by hand.

use std::path::Path;

use skc_core::builtins::Requirement;
use skc_core::codegen::{emit_cuda, CudaOutput, EmitOptions};
use skc_core::syntax::ast::ExprKind;
use skc_core::types::Resolution;
use skc_core::{check, Checked, NoModules};

/// Checks a `.sk` file, which must have no errors, and emits its CUDA C.
fn emit(path: &Path, options: &EmitOptions) -> (Checked, CudaOutput) {
    let text = std::fs::read_to_string(path).expect("readable input");
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let checked = check(&name, &text, &NoModules, &Default::default());
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| skc_core::diagnostic::render(d, &checked.sources, skc_core::diagnostic::ColorChoice::Never))
        .collect();
    assert!(errors.is_empty(), "{name} does not check:\n{}", errors.join("\n"));
    let output = emit_cuda(&checked.module, &checked.types, &checked.sources, options);
    (checked, output)
}

fn sk_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sk_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sk") {
            out.push(path);
        }
    }
}

/// `tests/codegen/*.sk`.
fn inputs() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    sk_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/codegen"), &mut files);
    files.sort();
    files
}

/// `tests/codegen/*.sk` and every `tests/ui/**/*.sk` that checks without errors (and opens no module).
fn all_valid_inputs() -> Vec<std::path::PathBuf> {
    let mut files = inputs();
    let mut ui = Vec::new();
    sk_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui"), &mut ui);
    ui.sort();
    for path in ui {
        let text = std::fs::read_to_string(&path).unwrap();
        if !check("ui.sk", &text, &NoModules, &Default::default()).has_errors() {
            files.push(path);
        }
    }
    files
}

#[test]
fn codegen_snapshots() {
    insta::glob!("../../../tests/codegen", "*.sk", |path| {
        let (checked, output) = emit(path, &EmitOptions::default());
        let name = path.file_name().unwrap().to_string_lossy();
        let source = &checked.sources.file(checked.root).text;
        let kernels: Vec<String> = output.kernels.iter().map(|k| serde_json::to_string(k).unwrap()).collect();
        let snapshot = format!(
            "==== {name} ====\n{}\n==== CUDA C ====\n{}\n==== kernels ====\n{}\n",
            source.trim_end(),
            output.source.trim_end(),
            kernels.join("\n")
        );
        insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(snapshot);
        });
    });
}

/// Every example's `.sk` source and CUDA C side by side (examples/kernels/**/*.sk), as for tests/codegen.
#[test]
fn example_codegen_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let mut files = Vec::new();
    sk_files(&root, &mut files);
    files.sort();
    assert!(files.len() >= 7, "expected the examples, found {}", files.len());
    for path in files {
        let (checked, output) = emit(&path, &EmitOptions::default());
        let relative = path.strip_prefix(&root).unwrap().to_string_lossy().replace(['/', '\\'], "__");
        let source = &checked.sources.file(checked.root).text;
        let snapshot =
            format!("==== {relative} ====\n{}\n==== CUDA C ====\n{}\n", source.trim_end(), output.source.trim_end());
        insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("example__{relative}"), snapshot);
        });
    }
}

/// No emitted statement assigns a variable to itself: that is the mark of a temporary shadowed by a reused name
/// (`bool tmp1 = a; if (tmp1) { bool tmp1 = ...; tmp1 = tmp1; }`), which silently loses a value.
#[test]
fn no_self_assignments_in_emitted_code() {
    for path in all_valid_inputs() {
        let (checked, output) = emit(&path, &EmitOptions { line_directives: false, ..EmitOptions::default() });
        let source = &checked.sources.file(checked.root).text;
        for line in output.source.lines() {
            let t = line.trim().trim_end_matches(';');
            if let Some((lhs, rhs)) = t.split_once(" = ") {
                // A store the source itself writes (`a.(i) <- a.(i)`, a W0101 test case) is not a lost value.
                let element = lhs.trim().replacen('[', ".(", 1).replacen(']', ")", 1);
                let written = source.contains(&format!("{element} <- {element}"));
                assert!(written || lhs.trim() != rhs.trim(), "{}: self-assignment `{}`", path.display(), line.trim());
            }
        }
    }
}

/// The emitted code outside the prelude.
fn code_after_prelude(source: &str) -> &str {
    match source.find("// ---- end of prelude ----") {
        Some(i) => &source[i..],
        None => source,
    }
}

/// The C function a builtin's template calls (`__shfl_down_sync`, `__syncthreads`, `skc_uniform_load`).
fn template_function(template: &str) -> String {
    template.trim_start_matches('(').split('(').next().unwrap().to_string()
}

/// The expressions of the kernels and of the device functions the output contains (the others are not emitted),
/// less the branches of constant `if`s that never run.
fn emitted_expressions(checked: &Checked, output: &CudaOutput) -> Vec<skc_core::syntax::ast::ExprId> {
    use skc_core::syntax::ast::Item;
    let mut stack: Vec<_> = checked
        .module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Kernel(k) => Some(k.body),
            Item::Function(f) if output.device_functions.iter().any(|name| *name == f.name.name.as_str()) => {
                Some(f.body)
            }
            _ => None,
        })
        .collect();
    // A branch of a constant `if` that never runs is not emitted.
    let never_run = skc_core::constant_if::never_run(&checked.module, &checked.types);
    let mut out = Vec::new();
    while let Some(e) = stack.pop() {
        if never_run[e.index()] {
            continue;
        }
        out.push(e);
        stack.extend(checked.module.children(e));
    }
    out
}

/// Every barrier and collective of the source appears exactly once in the C: no pass duplicated, dropped or
/// merged one (a superstep adds one `__syncthreads()`); functions no kernel reaches are not emitted at all.
#[test]
fn barriers_and_collectives_are_emitted_exactly_once() {
    let synchronising: Vec<String> = skc_core::builtins::BUILTINS
        .iter()
        .filter(|b| b.requirement != Requirement::None)
        .map(|b| template_function(b.cuda))
        .collect();
    let inputs = all_valid_inputs();
    assert!(inputs.len() > 40, "{} inputs", inputs.len());
    for path in inputs {
        let (checked, output) = emit(&path, &EmitOptions::default());
        let code = code_after_prelude(&output.source);
        let mut expected: std::collections::BTreeMap<String, usize> =
            synchronising.iter().map(|s| (s.clone(), 0)).collect();
        for e in emitted_expressions(&checked, &output) {
            let kind = &checked.module.exprs[e.index()];
            if matches!(kind, ExprKind::Superstep { .. }) {
                *expected.entry("__syncthreads".into()).or_default() += 1;
            }
            if let (ExprKind::Var(_) | ExprKind::Call { .. }, Some(Resolution::Builtin(b))) =
                (kind, checked.types.resolution(e))
            {
                if b.requirement != Requirement::None {
                    *expected.entry(template_function(b.cuda)).or_default() += 1;
                }
            }
        }
        for (function, count) in &expected {
            let found = code.matches(&format!("{function}(")).count();
            assert_eq!(found, *count, "{}: `{function}` appears {found} times, expected {count}", path.display());
        }
    }
}

#[test]
fn line_directives_can_be_turned_off() {
    for path in inputs() {
        let (_, with) = emit(&path, &EmitOptions::default());
        let (_, without) = emit(&path, &EmitOptions { line_directives: false, ..EmitOptions::default() });
        assert!(with.source.contains("#line "), "{}", path.display());
        assert!(!without.source.contains("#line"), "{}", path.display());
        let strip = |s: &str| s.lines().filter(|l| !l.starts_with("#line")).collect::<Vec<_>>().join("\n");
        assert_eq!(strip(&with.source), strip(&without.source));
    }
}

/// The emitter never panics, whatever the front end made of the input (it is only meant for programs without
/// errors, but the language server may call it on anything).
#[test]
fn odd_input_does_not_panic() {
    let inputs = [
        "kernel k (a : float32 vector) = a.(0) <- ",
        "kernel k = let x = in x",
        "let f x = f x\nkernel k (a : int32 vector) = a.(0) <- f 1",
        "kernel k (a : int32 vector) = let%shared (t : int32) = 0 in t.(0) <- undefined_name",
        "type r = { x : r }\nkernel k (a : r vector) = a.(0) <- a.(1)",
        "kernel k (a : int32 vector) = a.(0) <- (return 1)",
        "kernel k () = while true do break done; for i = 10 downto 0 do continue done",
        "let c = [| |]\nkernel k (a : int32 vector) = a.(0) <- c.(0)",
        "kernel k (a : int32 vector) = a.(0) <- select true (shfl 1 0) (shfl 2 0); let _ = activemask in ()",
        "kernel class (new : int32 vector) = let x' = 1 in let x' = x' + 1 in new.(0) <- x'",
    ];
    for text in inputs {
        let checked = check("odd.sk", text, &NoModules, &Default::default());
        let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
        assert!(output.source.starts_with("// Generated by skc"), "{text}");
    }
}

/// A loader that knows one module, `Geometry` (file `geometry.sk`).
struct GeometryModule;

impl skc_core::ModuleLoader for GeometryModule {
    fn load(&self, module: &str, _importer: &str) -> Result<(String, String), String> {
        match module {
            "Geometry" => Ok((
                "lib/geometry.sk".into(),
                "type point = { x : float32; y : float32 }\n\nlet norm2 (p : point) : float32 =\n  p.x *. p.x +. p.y *. p.y\n"
                    .into(),
            )),
            _ => Err(format!("no module {module}")),
        }
    }
}

/// Items of an opened module keep `#line` directives that name their own file.
#[test]
fn opened_modules_keep_their_file_names() {
    let root = "open Geometry\n\nkernel lengths (ps : point vector) (out : float32 vector) =\n  let i = global_idx_x in\n  out.(i) <- sqrt (norm2 ps.(i))\n";
    let checked = check("main \"dir\"\\lengths.sk", root, &GeometryModule, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(output.source);
    });
    assert!(output.source.contains("#line 1 \"lib/geometry.sk\""));
    assert!(output.source.contains("#line 3 \"main \\\"dir\\\"\\\\lengths.sk\""));
}

/// The runtime reads the signatures as JSON; a kernel whose name C reserves gets another symbol.
#[test]
fn kernel_signatures_as_json() {
    let text = "type pair = { a : int32; b : float64 }\nkernel main (xs : pair vector) (n : int64) (p : pair) (ok : bool) =\n  xs.(0) <- p";
    let checked = check("main.sk", text, &NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    let json = serde_json::to_value(&output).unwrap();
    assert_eq!(
        json["kernels"],
        serde_json::json!([{
            "name": "main",
            "symbol": "main_",
            "params": [
                { "name": "xs", "kind": { "vector": { "elem": { "record": "pair" }, "writable": true } } },
                { "name": "n", "kind": { "scalar": "int64" } },
                { "name": "p", "kind": { "record": "pair" } },
                { "name": "ok", "kind": { "scalar": "bool" } }
            ],
            "dynamic_shared_elem": null
        }])
    );
    assert_eq!(
        json["records"],
        serde_json::json!([{
            "name": "pair", "c_name": "pair", "size": 16, "align": 8,
            "fields": [
                { "name": "a", "ty": { "scalar": "int32" }, "offset": 0 },
                { "name": "b", "ty": { "scalar": "float64" }, "offset": 8 }
            ]
        }])
    );
    assert!(output
        .source
        .contains("extern \"C\" __global__ void main_(pair* __restrict__ xs, long long n, pair p, bool ok)"));
}

/// Mutations of every codegen input (words deleted, duplicated, swapped; truncations), emitted whether or not
/// they check: the emitter must not panic on whatever the front end returns.
#[test]
fn mutated_inputs_do_not_panic() {
    let mut state: u64 = 0x5eed_c0de_2024;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let mut emitted_clean = 0;
    for path in inputs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let words: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
        for _ in 0..150 {
            let mut w = words.clone();
            let (i, j) = (next(w.len()), next(w.len()));
            match next(4) {
                0 => {
                    w.remove(i);
                }
                1 => w.insert(i, words[j]),
                2 => w.swap(i, j),
                _ => w.truncate(i),
            }
            let mutated: String = w.concat();
            let checked = check("mutated.sk", &mutated, &NoModules, &Default::default());
            let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
            assert!(output.source.starts_with("// Generated by skc"));
            if !checked.has_errors() {
                emitted_clean += 1;
            }
        }
    }
    assert!(emitted_clean > 0);
}

/// `EmitOptions::full_warps`: the warp collectives keep their calls and take the constant full mask, which the
/// prelude then defines (the default computes the mask of a partial last warp from the block's size).
#[test]
fn full_warps_makes_the_warp_mask_constant() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/codegen/short_circuit_nested.sk");
    let (_, default) = emit(&path, &EmitOptions::default());
    let (_, full) = emit(&path, &EmitOptions { full_warps: true, ..EmitOptions::default() });
    let constant = "unsigned int skc_warp_mask() { return 0xFFFFFFFFu; }";
    assert!(default.source.contains("__all_sync(skc_warp_mask(), "), "{}", default.source);
    assert!(!default.source.contains(constant));
    assert!(default.source.contains("const int lanes = threads - (skc_thread_rank() & ~31);"));
    assert!(full.source.contains(constant), "{}", full.source);
    assert!(!full.source.contains("const int lanes"));
    assert_eq!(code_after_prelude(&default.source), code_after_prelude(&full.source));
}

fn emit_text(text: &str) -> CudaOutput {
    let checked = check("contract.sk", text, &NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default())
}

/// A kernel's launch contract of whole warps does per program what `EmitOptions::full_warps` does: when every
/// emitted kernel promises whole warps the mask is the constant full mask; one kernel without the promise keeps
/// the mask computed from the block's size (collectives in shared functions are emitted once). The contract is
/// in the signature, and an exact block size becomes `__launch_bounds__`.
#[test]
fn a_whole_warp_contract_makes_the_warp_mask_constant() {
    let constant = "unsigned int skc_warp_mask() { return 0xFFFFFFFFu; }";
    let contracted = "kernel[@block_size 256] k (xs : int32 vector) (out : int32 vector) =\n  \
                      out.(global_idx) <- Gpu.shfl_down xs.(global_idx) 1\n";
    let output = emit_text(contracted);
    assert!(output.source.contains(constant), "{}", output.source);
    assert!(output.source.contains("__global__ void __launch_bounds__(256) k("), "{}", output.source);
    let contract = output.kernels[0].contract;
    assert_eq!((contract.block_size, contract.max_threads), (Some(256), Some(256)));
    let sized = "kernel[@block_size 128] k (out : int32 vector) =\n  out.(global_idx) <- block_dim_x * block_dim_y\n";
    let output = emit_text(sized);
    assert!(output.source.contains("] = 128 * 1;"), "{}", output.source);
    assert!(contract.whole_warps());

    let mixed = format!("{contracted}\nkernel plain (xs : int32 vector) (out : int32 vector) =\n  out.(global_idx) <- Gpu.shfl_up xs.(global_idx) 1\n");
    let output = emit_text(&mixed);
    assert!(!output.source.contains(constant), "{}", output.source);
    assert!(output.source.contains("const int lanes"));
    assert!(!output.kernels[1].contract.is_declared());
}

/// Loads modules from `tests/ui/modules`.
struct UiModules;

impl skc_core::ModuleLoader for UiModules {
    fn load(&self, module: &str, _importer: &str) -> Result<(String, String), String> {
        let mut name = module.to_string();
        name[..1].make_ascii_lowercase();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/ui/modules/{name}.sk"));
        std::fs::read_to_string(&path).map(|text| (format!("{name}.sk"), text)).map_err(|e| e.to_string())
    }
}

/// Two instances of a parameterised module and its shared copy: the instances' functions, constants and kernels
/// are `S32_x` and `S64_x`, with the types and functions their arguments give.
#[test]
fn module_instances_snapshot() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui/modules/params_instances.sk");
    let text = std::fs::read_to_string(&path).unwrap();
    let checked = check("params_instances.sk", &text, &UiModules, &Default::default());
    assert!(!checked.has_errors());
    let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
    let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &options);
    let snapshot =
        format!("==== params_instances.sk ====\n{}\n==== CUDA C ====\n{}\n", text.trim_end(), output.source.trim_end());
    insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("module_instances", snapshot);
    });
}
