//! Benchmark (not a test): `skc check` throughput on a generated file of about 100,000 lines.
//! Run: `cargo run --release -p skc-core --example bench_check [LINES] [--once]`. Prints lines per second for the
//! whole front end (the best of 5 runs, and their median) and for each stage. Target: 1,000,000 lines/s. `--once`
//! runs every stage a single time, so an instruction counter (`valgrind --tool=callgrind`, `perf stat`) sees one
//! run of each. The file is parsed in parts, one thread each (`syntax::split`); `SKC_THREADS=1` parses it in one.
//! `--write PATH` writes the generated file there and exits, to measure the whole `skc check` process on it.

use std::time::Instant;

/// The allocator of the `skc` binary, so that the figures are those of `skc check`.
#[global_allocator]
static GLOBAL_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use skc_core::convergence::UniformityInfo;
use skc_core::driver::{parse_all, CheckOptions, Checked};
use skc_core::syntax::ast::Module;
use skc_core::syntax::lexer::Lexeme;
use skc_core::types::TypeInfo;
use skc_core::{Diagnostic, FileId, NoModules, SourceMap};

/// One block of realistic code (28 lines): a device function and a kernel with supersteps, a uniform loop,
/// divergent branches, shared memory and warp collectives.
fn block(i: usize) -> String {
    format!(
        "(* block {i} *)
let scale_{i} (x : float32) (k : int32) : float32 =
  let acc = mut x in
  for j = 0 to k do
    acc := acc *. 0.5 +. float32 j
  done;
  acc

kernel reduce_{i} (input : float32 vector) (output : float32 vector) (n : int32) =
  let%shared (tile : float32) = 256 in
  superstep {{
    tile.(thread_idx_x) <- if global_idx < n then input.(global_idx) else 0.0
  }};
  let stride = ref (block_dim_x / 2) in
  while !stride > 0 do
    superstep {{
      if thread_idx_x < !stride then
        tile.(thread_idx_x) <- tile.(thread_idx_x) +. tile.(thread_idx_x + !stride)
    }};
    stride := !stride / 2
  done;
  let v = scale_{i} tile.(thread_idx_x) 4 in
  let w = Gpu.shfl_down v 1 in
  if Gpu.all (w > 0.0) then output.(global_idx) <- w;
  if thread_idx_x = 0 then
    output.(block_idx_x) <- tile.(0)

"
    )
}

// One function per stage, never inlined, so an instruction counter can attribute costs to a stage by symbol
// (`callgrind_annotate --inclusive=yes` lists `bench_check::stage_typeck` and the others).

#[inline(never)]
fn stage_lex(text: &str) -> Vec<Lexeme> {
    skc_core::syntax::lexer::lex(text)
}

#[inline(never)]
fn stage_tokens(text: &str, lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    skc_core::syntax::tokens::contextualize(text, lexemes)
}

#[inline(never)]
fn stage_parse(text: &str) -> (SourceMap, Module, Vec<FileId>, Vec<Diagnostic>) {
    parse_all("bench.sk", text, &NoModules)
}

/// Takes the text by value, as `skc check` hands the file it read to the check (a borrowed text is copied).
#[inline(never)]
fn stage_check(text: String) -> Checked {
    skc_core::check("bench.sk", text, &NoModules, &CheckOptions::default())
}

#[inline(never)]
fn stage_typeck(module: &Module, sources: &SourceMap) -> (TypeInfo, Vec<Diagnostic>) {
    skc_core::typeck::check_module(module, sources, &Default::default())
}

#[inline(never)]
fn stage_convergence(module: &Module, types: &TypeInfo) -> (UniformityInfo, Vec<Diagnostic>) {
    skc_core::convergence::analyse(module, types, false)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target_lines: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    let once = args.iter().any(|a| a == "--once");
    let mut text = String::new();
    let mut i = 0;
    let mut lines = 0;
    while lines < target_lines {
        let b = block(i);
        lines += b.lines().count();
        text.push_str(&b);
        i += 1;
    }
    if let Some(path) = args.iter().position(|a| a == "--write").and_then(|at| args.get(at + 1)) {
        std::fs::write(path, &text).expect("the benchmark file is written");
        return;
    }
    let lines = text.lines().count();
    let runs = if once { 1 } else { 5 };
    let mut totals = Vec::with_capacity(runs);
    let mut best_parse = f64::MAX;
    let mut best_lex = f64::MAX;
    let mut best_tokens = f64::MAX;
    let mut errors = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let lexemes = stage_lex(&text);
        best_lex = best_lex.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let _ = stage_tokens(&text, lexemes);
        best_tokens = best_tokens.min(t.elapsed().as_secs_f64());
        let t0 = Instant::now();
        let (_, _, _, _) = stage_parse(&text);
        best_parse = best_parse.min(t0.elapsed().as_secs_f64());
        let owned = text.clone();
        let t1 = Instant::now();
        let checked = stage_check(owned);
        totals.push(t1.elapsed().as_secs_f64());
        errors = checked.error_count();
    }
    let (sources, module, _, _) = stage_parse(&text);
    let t = Instant::now();
    let (types, _) = stage_typeck(&module, &sources);
    let typeck_time = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let _ = stage_convergence(&module, &types);
    let convergence_time = t.elapsed().as_secs_f64();
    println!("input: {lines} lines, {} bytes, {i} kernels and {i} functions", text.len());
    // A file this large is parsed in parts, one thread each (`syntax::split`); `SKC_THREADS=1` parses it in one.
    println!("parsed in parts: {}", skc_core::syntax::split::parts(text.len()));
    println!("diagnostics with errors: {errors}");
    println!("lex:              {:>8.1} ms  {:>12.0} lines/s", best_lex * 1e3, lines as f64 / best_lex);
    println!("tokens pre-pass:  {:>8.1} ms  {:>12.0} lines/s", best_tokens * 1e3, lines as f64 / best_tokens);
    println!("parse only:       {:>8.1} ms  {:>12.0} lines/s", best_parse * 1e3, lines as f64 / best_parse);
    println!("typeck:           {:>8.1} ms  {:>12.0} lines/s", typeck_time * 1e3, lines as f64 / typeck_time);
    println!("convergence:      {:>8.1} ms  {:>12.0} lines/s", convergence_time * 1e3, lines as f64 / convergence_time);
    // The median beside the best: on a shared machine the best can be a lucky run.
    totals.sort_by(f64::total_cmp);
    let (best_total, median) = (totals[0], totals[totals.len() / 2]);
    println!("check (all):      {:>8.1} ms  {:>12.0} lines/s", best_total * 1e3, lines as f64 / best_total);
    println!("median of the runs: {:>8.1} ms  {:>12.0} lines/s", median * 1e3, lines as f64 / median);
    let verdict = |seconds: f64| if lines as f64 / seconds >= 1e6 { "met" } else { "NOT met" };
    println!("target 1,000,000 lines/s: {} at best, {} by the median", verdict(best_total), verdict(median));
}
