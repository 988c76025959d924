//! Robustness: the front end must never panic. Feeds it random token soup and thousands of mutations of every
//! UI input (deleted, duplicated and swapped ranges, inserted tokens, truncations), and checks that every
//! diagnostic it returns has a code, a message and a span inside the file.

use skc_core::driver::CheckOptions;
use skc_core::NoModules;

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const TOKENS: &[&str] = &[
    "let",
    "in",
    "if",
    "then",
    "else",
    "for",
    "to",
    "downto",
    "do",
    "done",
    "while",
    "begin",
    "end",
    "fun",
    "kernel",
    "superstep",
    "~divergent",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "[|",
    "|]",
    "[%kernel",
    "[%global",
    "[@",
    "[@@",
    ";",
    ";;",
    ":",
    ".",
    ".(",
    "<-",
    ":=",
    "->",
    "=",
    "<>",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "+.",
    "*.",
    "**",
    "&&",
    "||",
    "!",
    "mod",
    "land",
    "lsl",
    "not",
    "return",
    "break",
    "continue",
    "ref",
    "mut",
    "x",
    "y",
    "a",
    "n",
    "thread_idx_x",
    "block_idx_x",
    "Gpu.block_barrier",
    "Gpu.shfl_down",
    "Gpu.all",
    "warp_id",
    "lane_id",
    "atomic_add",
    "select",
    "int32",
    "float32",
    "vector",
    "0",
    "1l",
    "2.5",
    "1e-8",
    "0xFF",
    "99999999999999999999",
    "\"s\"",
    "(*",
    "*)",
    "let%shared",
    "let%superstep",
    "create_array",
    "Shared",
    "Local",
    "type",
    "open",
    "Std",
    "é",
    "\u{0}",
    "$",
    "#",
];

fn check_no_panic(text: &str) {
    let checked = skc_core::check("fuzz.sk", text, &NoModules, &CheckOptions::default());
    for d in &checked.diagnostics {
        assert!(!d.code.is_empty() && !d.message.is_empty(), "diagnostic without code or message on {text:?}");
        let span = d.primary_span();
        let file = checked.sources.file(span.file);
        assert!(span.end as usize <= file.text.len() && span.start <= span.end, "span out of file on {text:?}");
        // Rendering must not panic either.
        let _ = skc_core::diagnostic::render(d, &checked.sources, skc_core::diagnostic::ColorChoice::Never);
        let _ = skc_core::diagnostic::to_json(d, &checked.sources);
    }
}

fn ui_inputs() -> Vec<String> {
    let mut out = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).expect("ui folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().map(|e| e == "sk").unwrap_or(false) {
                out.push(std::fs::read_to_string(&path).expect("readable"));
            }
        }
    }
    out.sort();
    out
}

fn char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let a = char_boundary(text, rng.below(text.len() + 1));
    let b = char_boundary(text, rng.below(text.len() + 1));
    let (lo, hi) = (a.min(b), a.max(b));
    match rng.below(5) {
        0 => format!("{}{}", &text[..lo], &text[hi..]),
        1 => format!("{}{}{}", &text[..hi], &text[lo..hi], &text[hi..]),
        2 => format!("{} {} {}", &text[..lo], TOKENS[rng.below(TOKENS.len())], &text[lo..]),
        3 => text[..lo].to_string(),
        _ => format!("{}{}{}", &text[hi..], &text[lo..hi], &text[..lo]),
    }
}

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for _ in 0..3000 {
        let n = rng.below(60);
        let text: Vec<&str> = (0..n).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
        check_no_panic(&text.join(" "));
    }
}

#[test]
fn mutated_ui_inputs_never_panic() {
    let inputs = ui_inputs();
    assert!(inputs.len() >= 50, "expected the UI corpus, found {} files", inputs.len());
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    for input in &inputs {
        for _ in 0..40 {
            let mut text = mutate(&mut rng, input);
            if rng.below(3) == 0 {
                text = mutate(&mut rng, &text);
            }
            check_no_panic(&text);
        }
    }
}

/// The CLI and the language server run the front end on a large stack; so does this test.
fn on_large_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(256 << 20).spawn(f).expect("thread").join().expect("no panic");
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_stack_overflow() {
    on_large_stack(deep_nesting);
}

fn deep_nesting() {
    let deep = format!("kernel k (o : int32 vector) = o.(0) <- {}1{}", "(".repeat(5000), ")".repeat(5000));
    check_no_panic(&deep);
    let lets = format!("kernel k (o : int32 vector) = {} o.(0) <- 1", "let x = 1 in ".repeat(20000));
    check_no_panic(&lets);
    let ifs = format!("kernel k (o : int32 vector) = {} o.(0) <- 1", "if true then ".repeat(3000));
    check_no_panic(&ifs);
}

/// The CI slice of the long fuzz run (`scripts/fuzz.sh`): generated programs (records, refs, arrays, loops,
/// functions, constants, a module, attributes, every builtin the generator can fill, literals at the edges)
/// through check and emit, and every accepted program with new CUDA C through NVRTC, many programs per
/// translation unit. No panic, no program over 5 s, and nothing that checks but does not build.
#[test]
fn generated_programs_check_emit_and_build() {
    use skc_core::codegen::{emit_cuda, EmitOptions};
    use skc_tests::generator::{program_with, ProgramLoader, Settings};
    let nvrtc = match skc_nvrtc::load_nvrtc(&skc_nvrtc::LibrarySearch::from_env()) {
        Ok(_) => true,
        Err(error) => {
            assert!(std::env::var("SKC_REQUIRE_NVRTC").as_deref() != Ok("1"), "SKC_REQUIRE_NVRTC=1: {error}");
            eprintln!("note: NVRTC not found, the generated programs are only checked and emitted ({error})");
            false
        }
    };
    // Out-of-range float literals (`1e39f`) are generated too: `skc check` must reject them (E0221), never pass
    // an `inf` on to NVRTC.
    let settings = Settings::default();
    let (mut accepted, mut unique) = (0, std::collections::HashSet::new());
    let mut batch: Vec<(u64, String)> = Vec::new();
    let mut failures = Vec::new();
    let compile = |batch: &mut Vec<(u64, String)>, failures: &mut Vec<String>| {
        if !nvrtc || batch.is_empty() {
            batch.clear();
            return;
        }
        let options = skc_nvrtc::CompileOptions { include_cubin: false, ..Default::default() };
        let source: String = batch
            .iter()
            .enumerate()
            .map(|(k, (_, cuda))| format!("namespace fz{k} {{\n{}\n}}\n", cuda.replace("extern \"C\" ", "")))
            .collect();
        if skc_nvrtc::compile(&source, "fuzz_batch.cu", &options).is_err() {
            for (seed, cuda) in batch.iter() {
                if let Err(error) = skc_nvrtc::compile(cuda, "fuzz.cu", &options) {
                    failures.push(format!("seed {seed} checks but does not build: {error}"));
                }
            }
        }
        batch.clear();
    };
    for seed in 1..=2_000u64 {
        let program = program_with(seed, settings);
        let started = std::time::Instant::now();
        let loader = ProgramLoader(program.module.as_deref());
        let checked = skc_core::check("fuzz.sk", &program.root, &loader, &CheckOptions::default());
        let elapsed = started.elapsed();
        assert!(elapsed < std::time::Duration::from_secs(5), "seed {seed}: the front end took {elapsed:?}");
        if checked.has_errors() {
            continue;
        }
        accepted += 1;
        let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
        let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &options).source;
        if unique.insert(cuda.clone()) {
            batch.push((seed, cuda));
        }
        if batch.len() == 50 {
            compile(&mut batch, &mut failures);
        }
    }
    compile(&mut batch, &mut failures);
    eprintln!("2000 generated programs: {accepted} accepted, {} with new CUDA C", unique.len());
    assert!(accepted > 1_500, "the generator writes mostly valid programs ({accepted} of 2000)");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
