//! What the analysis keeps for the language server and the lints (`UniformityInfo`): the level and the first
//! source of each expression, and the levels of conditions and indices over calling contexts. The UI tests see
//! only diagnostics; these see the facts behind hovers and lints.

use super::{Uniformity, UniformityInfo};
use crate::syntax::ast::ExprId;
use crate::{check, Checked, NoModules};

fn checked(text: &str) -> Checked {
    let checked = check("t.sk", text, &NoModules, &Default::default());
    assert!(!checked.has_errors(), "{text} does not check: {:?}", checked.diagnostics);
    checked
}

/// The expression whose source is exactly the `nth` (from 0) occurrence of `snippet` as whole words.
fn expr(checked: &Checked, snippet: &str, nth: usize) -> ExprId {
    let text = &checked.sources.file(checked.root).text;
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let start = text
        .match_indices(snippet)
        .map(|(i, _)| i)
        .filter(|&i| !is_word(text[..i].chars().next_back()) && !is_word(text[i + snippet.len()..].chars().next()))
        .nth(nth)
        .unwrap_or_else(|| panic!("no {snippet} #{nth}")) as u32;
    let end = start + snippet.len() as u32;
    let index = (0..checked.module.exprs.len())
        .find(|&i| {
            let span = checked.module.span(ExprId(i as u32));
            span.file == checked.root && span.start == start && span.end == end
        })
        .unwrap_or_else(|| panic!("no expression spans {snippet} #{nth}"));
    ExprId(index as u32)
}

fn info(checked: &Checked) -> &UniformityInfo {
    &checked.uniformity
}

/// The text of the span where an expression's variation starts, and the sentence the hover shows.
fn source(checked: &Checked, e: ExprId) -> Option<(String, String)> {
    let source = info(checked).source(e, &checked.module, &checked.types)?;
    let text = &checked.sources.file(source.span.file).text;
    Some((text[source.span.start as usize..source.span.end as usize].to_string(), source.message))
}

const PROGRAM: &str = "kernel k (out : int32 vector) (n : int32) =
  let x = thread_idx_x + 1 in
  let y = n * 2 in
  let z = block_idx_x in
  let w = warp_id in
  out.(global_idx) <- x + y + z + w
";

#[test]
fn each_expression_has_its_level() {
    let c = checked(PROGRAM);
    assert_eq!(info(&c).level(expr(&c, "x", 1)), Uniformity::ThreadVarying);
    assert_eq!(info(&c).level(expr(&c, "y", 1)), Uniformity::Uniform);
    assert_eq!(info(&c).level(expr(&c, "z", 1)), Uniformity::BlockUniform);
    assert_eq!(info(&c).level(expr(&c, "w", 1)), Uniformity::WarpUniform);
    assert_eq!(info(&c).level(expr(&c, "x + y + z + w", 0)), Uniformity::ThreadVarying);
    assert_eq!(info(&c).level(expr(&c, "n * 2", 0)), Uniformity::Uniform);
}

#[test]
fn a_value_names_its_first_source() {
    let c = checked(PROGRAM);
    let thread = Some(("thread_idx_x".to_string(), "`thread_idx_x` is thread-varying".to_string()));
    assert_eq!(source(&c, expr(&c, "x", 1)), thread);
    assert_eq!(source(&c, expr(&c, "thread_idx_x + 1", 0)), thread);
    let block = Some(("block_idx_x".to_string(), "`block_idx_x` is block-varying".to_string()));
    assert_eq!(source(&c, expr(&c, "z", 1)), block);
    assert_eq!(source(&c, expr(&c, "y", 1)), None);
    // The sum's level is thread-varying, so its source is the thread-varying one, not the warp-uniform one.
    assert_eq!(source(&c, expr(&c, "x + y + z + w", 0)), thread);
}

#[test]
fn recording_an_expression_again_keeps_the_highest_level_and_the_first_source_at_it() {
    // The analysis records each expression once per analysis of its function; should it record one again, the
    // hover keeps the highest level, and at equal levels the source met first.
    let c = checked(PROGRAM);
    let (x, z, w) = (expr(&c, "x", 1), expr(&c, "z", 1), expr(&c, "w", 1));
    let sources = [expr(&c, "thread_idx_x", 0), expr(&c, "block_idx_x", 0), expr(&c, "warp_id", 0)];
    let mut facts = super::lattice::Facts::default();
    let mut value =
        |level, at: ExprId| facts.value(level, super::lattice::OriginKind::Builtin(at), c.module.span(at), None);
    let (block, warp, thread) = (
        value(Uniformity::BlockUniform, sources[1]),
        value(Uniformity::WarpUniform, sources[2]),
        value(Uniformity::ThreadVarying, sources[0]),
    );
    let other_thread = value(Uniformity::ThreadVarying, sources[2]);
    let mut info = UniformityInfo::new(c.module.exprs.len());
    // The sources are handles into the analysis's steps, which the analysis gives the information at its end.
    info.facts = facts.clone();
    let names = super::report::Names { module: &c.module, types: &c.types, facts: &facts };
    let text_of = |info: &UniformityInfo, e: ExprId| {
        let span = info.source(e, &c.module, &c.types).expect("a source").span;
        c.sources.file(span.file).text[span.start as usize..span.end as usize].to_string()
    };
    // Higher: the level rises and the source follows it.
    info.set(z, &block, names);
    info.set(z, &thread, names);
    assert_eq!((info.level(z), text_of(&info, z).as_str()), (Uniformity::ThreadVarying, "thread_idx_x"));
    // Equal: the first source stays.
    info.set(x, &thread, names);
    info.set(x, &other_thread, names);
    assert_eq!((info.level(x), text_of(&info, x).as_str()), (Uniformity::ThreadVarying, "thread_idx_x"));
    // Lower, or uniform: nothing changes.
    info.set(w, &warp, names);
    info.set(w, &block, names);
    info.set(w, &super::lattice::Value::uniform(), names);
    assert_eq!((info.level(w), text_of(&info, w).as_str()), (Uniformity::WarpUniform, "warp_id"));
    // A uniform value first leaves no source; a later varying one gives one.
    let y = expr(&c, "y", 1);
    info.set(y, &super::lattice::Value::uniform(), names);
    assert_eq!((info.level(y), info.source(y, &c.module, &c.types)), (Uniformity::Uniform, None));
    info.set(y, &warp, names);
    assert_eq!((info.level(y), text_of(&info, y).as_str()), (Uniformity::WarpUniform, "warp_id"));
}

#[test]
fn a_loop_read_has_the_level_and_first_source_of_the_loop_head() {
    // `v` is first block-uniform (from `block_idx_x`), then thread-varying (from `lane_id`): the hover on the
    // loop's reads shows the final level and its source; `u` is thread-varying from two sources in turn and keeps
    // the first it met.
    let c = checked(
        "kernel k (out : int32 vector) =
  let v = mut block_idx_x in
  let u = mut thread_idx_x in
  for i = 0 to 3 do
    out.(global_idx) <- v + u;
    v := lane_id;
    u := global_idx
  done
",
    );
    let read = expr(&c, "v + u", 0);
    assert_eq!(info(&c).level(read), Uniformity::ThreadVarying);
    let v = expr(&c, "v", 1);
    assert_eq!(info(&c).level(v), Uniformity::ThreadVarying);
    assert_eq!(source(&c, v).map(|s| s.0), Some("lane_id".to_string()));
    let u = expr(&c, "u", 1);
    assert_eq!(source(&c, u).map(|s| s.0), Some("thread_idx_x".to_string()));
}

#[test]
fn conditions_keep_their_levels_over_calling_contexts() {
    // The condition inside `f` is uniform on its own and in the first call, thread-varying in the second: the lint
    // asks for the highest level in any context and the lowest in the contexts kernels reach.
    let c = checked(
        "let f (a : int32) (out : int32 vector) =
  if a > 0 then out.(0) <- 1

kernel k (out : int32 vector) (n : int32) =
  f n out;
  f thread_idx_x out
",
    );
    let cond = expr(&c, "a > 0", 0);
    assert_eq!(info(&c).level(cond), Uniformity::Uniform);
    assert_eq!(info(&c).level_in_any_context(cond), Uniformity::ThreadVarying);
    assert_eq!(info(&c).level_in_every_context(cond), Uniformity::Uniform);
    let if_ = (0..c.module.exprs.len())
        .map(|i| ExprId(i as u32))
        .find(|&e| matches!(c.module.expr(e), crate::syntax::ast::ExprKind::If { cond: x, .. } if *x == cond))
        .expect("the if");
    assert_eq!(info(&c).thread_varying_ifs(), &[if_]);
}

#[test]
fn expressions_outside_conditions_and_indices_have_one_level() {
    let c = checked(PROGRAM);
    let e = expr(&c, "x", 1);
    assert_eq!(info(&c).level_in_any_context(e), info(&c).level(e));
    assert_eq!(info(&c).level_in_every_context(e), info(&c).level(e));
    assert!(info(&c).thread_varying_ifs().is_empty());
}

#[test]
fn levels_describe_themselves() {
    let words: Vec<&str> =
        [Uniformity::Uniform, Uniformity::BlockUniform, Uniformity::WarpUniform, Uniformity::ThreadVarying]
            .iter()
            .map(|u| u.describe())
            .collect();
    assert_eq!(words, ["uniform", "block-varying", "warp-varying", "thread-varying"]);
    assert_eq!(Uniformity::Uniform.hover(), "uniform (the same in every thread)");
    assert_eq!(Uniformity::BlockUniform.hover(), "block-uniform (the same in every thread of a block)");
    assert_eq!(Uniformity::WarpUniform.hover(), "warp-uniform (the same in every thread of a warp)");
    assert_eq!(Uniformity::ThreadVarying.hover(), "thread-varying");
}

/// Analyses `checked`'s module with the memoized calls on; returns how many calls were analysed and replayed.
fn call_counts(checked: &Checked) -> (u64, u64) {
    let mut walker = super::walk::Walker::new(&checked.module, &checked.types);
    for kernel in 0..checked.types.kernels.len() {
        walker.kernel(kernel);
    }
    (walker.calls_analysed, walker.calls_replayed)
}

#[test]
fn calls_in_a_context_met_before_are_replayed() {
    // Four calls of `f` with a uniform argument in converged code, two with a thread-varying one: two analyses;
    // `g` writes its cell, and its effect is replayed too (only `c` gets a thread-varying value).
    let c = checked(
        "let f (a : int32) : int32 = a * 2
let g (p : int32 ref) (v : int32) = p := !p + v

kernel k (out : int32 vector) (n : int32) =
  let r = ref 0 in
  let s = ref 0 in
  let t = ref 0 in
  let u = ref 0 in
  g r n;
  g s n;
  g t thread_idx_x;
  g u thread_idx_x;
  out.(global_idx) <- f n + f (n + 1) + f (2 * n) + f 3 + f thread_idx_x + f lane_id + !r + !s + !t + !u
",
    );
    assert_eq!(call_counts(&c), (4, 6));
    let read = |cell: &str| info(&c).level(expr(&c, &format!("!{cell}"), 0));
    assert_eq!(
        [read("r"), read("s"), read("t"), read("u")],
        [Uniformity::Uniform, Uniformity::Uniform, Uniformity::ThreadVarying, Uniformity::ThreadVarying]
    );
}

#[test]
fn calls_sharing_a_variable_between_parameters_are_analysed_each_time() {
    // How writes through two names of one cell combine depends on more than levels: never replayed.
    let c = checked(
        "let two (p : int32 ref) (q : int32 ref) = p := 0; q := thread_idx_x

kernel k (out : int32 vector) =
  let r = ref 0 in
  two r r;
  two r r;
  out.(global_idx) <- !r
",
    );
    assert_eq!(call_counts(&c), (2, 0));
}

#[test]
fn calls_are_replayed_whatever_their_results_hang_off() {
    let counts = |text: &str| call_counts(&checked(text));
    // The result hangs off an argument: also when one value is passed to both parameters.
    let one_value_twice = "let add (a : int32) (b : int32) : int32 = a + b

kernel k (out : int32 vector) =
  let t = thread_idx_x in
  out.(global_idx) <- add t t + add t t
";
    assert_eq!(counts(one_value_twice), (1, 1));
    // The result is the contents of the cell passed (no step of the callee's own).
    let contents = "let get (p : int32 ref) : int32 = !p

kernel k (out : int32 vector) =
  let r = ref thread_idx_x in
  out.(global_idx) <- get r + get r
";
    assert_eq!(counts(contents), (1, 1));
    // A cell made for the call (`f (ref e)`): the callee's writes reach nobody.
    let own_cell = "let bump (p : int32 ref) : int32 = p := !p + 1; !p

kernel k (out : int32 vector) (n : int32) =
  out.(global_idx) <- bump (ref n) + bump (ref n)
";
    assert_eq!(counts(own_cell), (1, 1));
    // What the callee leaves in a cell hangs off the diverged control flow it was called in.
    let control = "let put (p : int32 ref) = p := 1

kernel k (out : int32 vector) =
  let r = ref 0 in
  let s = ref 0 in
  if thread_idx_x > 2 then begin put r; put s end;
  out.(global_idx) <- !r + !s
";
    assert_eq!(counts(control), (1, 1));
}

/// A call thirty deep is replayed like one at the top: a summary's height counts the calls below it, not the
/// depth it was made at.
#[test]
fn calls_deep_in_a_chain_are_replayed() {
    let mut text = String::from("let leaf (x : int32) : int32 = x * 2\n");
    text.push_str("let f29 (x : int32) : int32 = leaf x + leaf x\n");
    for i in (0..29).rev() {
        text.push_str(&format!("let f{i} (x : int32) : int32 = f{} x\n", i + 1));
    }
    text.push_str("\nkernel k (out : int32 vector) (n : int32) =\n  out.(global_idx) <- f0 n\n");
    assert_eq!(call_counts(&checked(&text)), (31, 1));
}

/// `activemask` is the same in the lanes that run it together: warp-uniform in converged code, as uniform as the
/// control flow under a branch.
#[test]
fn activemask_is_as_uniform_as_the_control_flow_it_runs_in() {
    let c = checked(
        "kernel k (out : uint32 vector) (n : int32) =
  let m = Gpu.activemask in
  if thread_idx_x < n then out.(global_idx) <- m + Gpu.activemask
",
    );
    let level = |nth| info(&c).level(expr(&c, "Gpu.activemask", nth));
    assert_eq!([level(0), level(1)], [Uniformity::WarpUniform, Uniformity::ThreadVarying]);
}

/// A shuffle from lane 1 guards a warp collective: in a partial last warp lane 1 may be missing, so the program is
/// rejected, unless the host promises blocks of whole warps (`CheckOptions::full_warps`).
#[test]
fn a_shuffle_from_a_fixed_lane_is_uniform_only_under_the_promise_of_whole_warps() {
    let text = "kernel k (out : int32 vector) (u : int32) =\n  \
                if Gpu.shfl u 1 > 0 then out.(global_idx) <- int32 (Gpu.ballot true)\n";
    let codes = |full_warps: bool| {
        let options = crate::driver::CheckOptions { full_warps, ..Default::default() };
        let checked = check("k.sk", text, &NoModules, &options);
        checked.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
    };
    assert_eq!(codes(false), ["E0002"]);
    assert!(codes(true).is_empty(), "{:?}", codes(true));
}

/// Under the promise of whole warps a shuffle from a warp-uniform lane is as uniform as the value shuffled, and at
/// worst warp-uniform; from a thread-varying lane it is thread-varying.
#[test]
fn a_shuffle_under_the_promise_of_whole_warps_is_as_uniform_as_its_value_and_lane() {
    let codes = |body: &str| {
        let text = format!("kernel k (out : int32 vector) (u : int32) =\n  {body}\n");
        let options = crate::driver::CheckOptions { full_warps: true, ..Default::default() };
        let checked = check("k.sk", &text, &NoModules, &options);
        checked.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
    };
    let ballot = "out.(global_idx) <- int32 (Gpu.ballot true)";
    assert_eq!(codes("if Gpu.shfl u 1 > 0 then Gpu.block_barrier"), Vec::<&str>::new());
    assert_eq!(codes(&format!("if Gpu.shfl thread_idx_x 0 > 0 then {ballot}")), Vec::<&str>::new());
    assert_eq!(codes("if Gpu.shfl thread_idx_x 0 > 0 then Gpu.block_barrier"), ["E0001"]);
    assert_eq!(codes(&format!("if Gpu.shfl thread_idx_x lane_id > 0 then {ballot}")), ["E0002"]);
}

/// A loop's rounds report speculatively; here the first is not the fixpoint (`c` is warp-uniform in the first round,
/// thread-varying from the second), so what it reported (the barrier, explained by `warp_id`) is undone and only
/// the fixpoint's diagnostic, explained by `thread_idx_x`, remains.
#[test]
fn a_first_round_that_is_not_the_fixpoint_reports_nothing() {
    let text = "kernel k (out : int32 vector) =
  let c = mut warp_id in
  for i = 0 to 3 do
    if c > 0 then block_barrier ();
    c := thread_idx_x
  done;
  out.(0) <- c
";
    let c = check("t.sk", text, &NoModules, &Default::default());
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0001"], "{:?}", c.diagnostics);
    let labels: Vec<&str> = c.diagnostics[0].labels.iter().map(|l| l.message.as_str()).collect();
    assert!(labels.iter().any(|l| l.contains("thread_idx_x")), "{labels:?}");
    assert!(!labels.iter().any(|l| l.contains("warp")), "{labels:?}");
    assert_eq!(info(&c).level(expr(&c, "c", 1)), Uniformity::ThreadVarying);
    assert_eq!(source(&c, expr(&c, "c", 1)).map(|(text, _)| text), Some("thread_idx_x".to_string()));
}
