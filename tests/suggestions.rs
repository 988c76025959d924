//! Every edit skc suggests (a diagnostic's `suggestion`: the JSON `suggested_replacement`, the language server's
//! quick fix) is applied, one at a time, to its UI input, and the result re-checked: it must have no errors, the
//! diagnostic it answers must be gone, and the program must mean what it meant. Meaning is checked by running
//! both programs: each kernel of the file on the host (`skc_tests::host`, threads one after the other over two
//! blocks, every vector filled the same way), every vector compared after; an edit that only moves text
//! (W0102) must leave the emitted CUDA C as it was. Every code of `SUGGESTING_CODES` must have a case, so a new
//! kind of edit cannot go untested.

use std::collections::BTreeMap;

use skc_core::codegen::{emit_cuda, CudaOutput, ElemType, EmitOptions, ParamKind, ScalarKind};
use skc_core::diagnostic::SUGGESTING_CODES;
use skc_core::Checked;
use skc_tests::host::{compile_and_run, cxx_compiler, host_source, work_dir, CUDA_HOST_SHIM};
use skc_tests::{check_path, check_text, display_name};

/// An edit applied to its file.
struct Applied {
    code: &'static str,
    file: String,
    before: Checked,
    after: Checked,
    text: String,
}

fn emitted(checked: &Checked) -> CudaOutput {
    let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
    emit_cuda(&checked.module, &checked.types, &checked.sources, &options)
}

/// Applies every suggestion of every UI input, one at a time.
fn applied_suggestions() -> Vec<Applied> {
    let mut out = Vec::new();
    insta::glob!("ui/**/*.sk", |path| {
        let before = check_path(path);
        let root = before.root;
        let original = before.sources.file(root).text.clone();
        let suggestions: Vec<_> = before
            .diagnostics
            .iter()
            .filter_map(|d| d.suggestion.clone().map(|s| (d.code, s)))
            .filter(|(_, s)| s.span.file == root)
            .collect();
        for (code, suggestion) in suggestions {
            let mut text = original.clone();
            text.replace_range(suggestion.span.range(), &suggestion.replacement);
            let name = display_name(path);
            let after = check_text(&name, &text, Vec::new());
            out.push(Applied { code, file: name, before: check_path(path), after, text });
        }
    });
    out
}

#[test]
fn every_suggestion_applies_and_keeps_the_meaning() {
    let applied = applied_suggestions();
    let mut per_code: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut runs = Vec::new();
    for case in &applied {
        *per_code.entry(case.code).or_default() += 1;
        let errors: Vec<_> = case.after.diagnostics.iter().filter(|d| d.is_error()).map(|d| &d.message).collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{} ({}): the edited program has errors {errors:?}\n{}",
                case.file, case.code, case.text
            ));
            continue;
        }
        let count = |c: &Checked| c.diagnostics.iter().filter(|d| d.code == case.code).count();
        if count(&case.after) >= count(&case.before) {
            failures
                .push(format!("{} ({}): the edit does not answer its diagnostic\n{}", case.file, case.code, case.text));
        }
        let (before, after) = (emitted(&case.before), emitted(&case.after));
        if case.code == "W0102" && before.source != after.source {
            failures.push(format!("{}: moving a statement changed the emitted code\n{}", case.file, case.text));
        }
        if before.source != after.source {
            runs.push((case, before, after));
        }
    }
    for code in SUGGESTING_CODES {
        if !per_code.contains_key(code) {
            failures.push(format!("{code} may carry a suggestion, but no UI input has one: add a case"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(runs.len() >= 3, "edits that change the code are run ({} of {})", runs.len(), applied.len());
    let Some(cxx) = cxx_compiler("running suggested edits") else { return };
    let dir = work_dir("skc-suggestions");
    for (n, (case, before, after)) in runs.iter().enumerate() {
        let run = |label: &str, cuda: &CudaOutput| {
            let program = host_program(cuda);
            compile_and_run(&cxx, &dir, &format!("{label}_{n}"), &program)
                .unwrap_or_else(|e| panic!("{} ({}): {e}\n{program}", case.file, case.code))
        };
        let (original, edited) = (run("before", before), run("after", after));
        if original != edited {
            failures.push(format!(
                "{} ({}): the edit changes what the kernels compute\n{}",
                case.file, case.code, case.text
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Elements of every vector a kernel gets.
const ELEMENTS: usize = 4096;
/// Threads per block, and blocks, of the sequential run.
const THREADS: u32 = 64;
const BLOCKS: u32 = 2;

/// Device names the suggestion inputs use beyond the common shim: one block's shared memory is a static array
/// (threads run one after the other, so it is shared as on the GPU), a barrier is nothing.
const SEQUENTIAL_SHIM: &str = r#"
#define __shared__ static
static void __syncthreads() {}
static void __syncwarp(unsigned) {}
"#;

/// A C++ program that runs every kernel of `cuda` over [`BLOCKS`] blocks of [`THREADS`] threads, one thread after
/// the other, and prints every vector afterwards. Kernels with record parameters are left out.
fn host_program(cuda: &CudaOutput) -> String {
    let mut main = String::from("int main() {\n  blockDim.x = THREADS;\n");
    for (k, kernel) in cuda.kernels.iter().enumerate() {
        let mut args = Vec::new();
        let mut vectors = Vec::new();
        let mut declarations = String::new();
        let runnable = kernel.params.iter().enumerate().all(|(p, param)| {
            match &param.kind {
                ParamKind::Scalar(scalar) => args.push(format!("({}){}", scalar.c_name(), scalar_value(*scalar))),
                ParamKind::Vector { elem: ElemType::Scalar(scalar), .. } => {
                    let name = format!("v{k}_{p}");
                    declarations.push_str(&format!(
                        "  std::vector<{c}> {name}(ELEMENTS);\n  for (int i = 0; i < ELEMENTS; i++) {name}[i] = ({c})(((i * 37) % 101) - 50) / ({c})(8);\n",
                        c = scalar.c_name()
                    ));
                    args.push(format!("{name}.data()"));
                    vectors.push(name);
                }
                _ => return false,
            }
            true
        });
        if !runnable {
            continue;
        }
        main.push_str(&declarations);
        main.push_str(&format!(
            "  for (unsigned b = 0; b < BLOCKS; b++) for (unsigned t = 0; t < THREADS; t++) {{\n    blockIdx.x = b; threadIdx.x = t;\n    {}({});\n  }}\n",
            kernel.symbol,
            args.join(", ")
        ));
        for name in vectors {
            main.push_str(&format!(
                "  for (int i = 0; i < ELEMENTS; i++) printf(\"{name} %d %.17g\\n\", i, (double){name}[i]);\n"
            ));
        }
    }
    main.push_str("  return 0;\n}\n");
    format!(
        "{CUDA_HOST_SHIM}\n{SEQUENTIAL_SHIM}\n#define ELEMENTS {ELEMENTS}\n#define THREADS {THREADS}\n#define BLOCKS \
         {BLOCKS}\n{}\n{main}",
        host_source(&cuda.source)
    )
}

fn scalar_value(kind: ScalarKind) -> &'static str {
    match kind {
        ScalarKind::Bool => "true",
        ScalarKind::Float32 | ScalarKind::Float64 => "0.75",
        _ => "24",
    }
}
