//! The convergence analysis runs in polynomial time on deep nests of loops and deep chains of calls with loops:
//! each family is checked at size `n` and `4n` in one run, and the ratio of the times must stay far below what an
//! exponential analysis takes (2^(3n) for loops analysed twice per level), with room for a loaded machine.
//! Before loop fixpoints were bounded this way, 24 nested `for` loops took 5.4 s and 50 never finished.

use std::time::{Duration, Instant};

use skc_core::{check, NoModules};

/// The slowest ratio accepted between size `4n` and size `n`: a quadratic analysis gives about 16, a cubic one 64.
const MAX_RATIO: f64 = 120.0;

/// The longest a check may take before the test fails instead of waiting (an exponential analysis never ends).
const TIMEOUT: Duration = Duration::from_secs(60);

/// The fastest of three checks of `text` (less noise from other work on the machine).
fn check_time(text: &str) -> Duration {
    let text = text.to_string();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let fastest = (0..3)
            .map(|_| {
                let start = Instant::now();
                let checked = check("scaling.sk", &text, &NoModules, &Default::default());
                let elapsed = start.elapsed();
                let unexpected: Vec<_> =
                    checked.diagnostics.iter().filter(|d| d.is_error() && d.code != "E0001").map(|d| d.code).collect();
                assert!(unexpected.is_empty(), "the generated program has other errors: {unexpected:?}\n{text}");
                elapsed
            })
            .min()
            .unwrap();
        let _ = sender.send(fastest);
    });
    receiver.recv_timeout(TIMEOUT).unwrap_or_else(|_| panic!("checking took more than {TIMEOUT:?} (or failed)"))
}

fn assert_polynomial(family: &str, n: usize, generate: impl Fn(usize) -> String) {
    let small = check_time(&generate(n));
    let large = check_time(&generate(4 * n));
    // A floor for the small time, so a very fast small case does not make the ratio noise.
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(0.002);
    println!("{family}: n = {n}: {small:?}, 4n = {}: {large:?}, ratio {ratio:.1}", 4 * n);
    assert!(ratio < MAX_RATIO, "{family}: {small:?} at n = {n}, {large:?} at 4n: ratio {ratio:.1} >= {MAX_RATIO}");
    assert!(large < Duration::from_secs(20), "{family}: {large:?} at 4n = {}", 4 * n);
}

/// `depth` nested `for` loops; the innermost reads and then writes a variable with a thread-varying value (so the
/// loops need more than one round), and each level resets it first (so every entry starts low again).
fn nested_for(depth: usize) -> String {
    let mut s = String::from("kernel k (out : int32 vector) =\n  let x = mut 0 in\n  let y = mut 0 in\n");
    for level in 0..depth {
        s.push_str(&format!("for i{level} = 0 to 3 do x := 0; y := y + i{level};\n"));
    }
    s.push_str("if x > 0 then out.(0) <- y; x := thread_idx_x\n");
    for _ in 0..depth {
        s.push_str("done;\n");
    }
    s.push_str("out.(global_idx) <- x + y\n");
    s
}

/// `depth` nested `while` loops with their own counters, the innermost guarding a barrier with a loop-carried
/// thread-varying value (an error, reported once).
fn nested_while(depth: usize) -> String {
    let mut s = String::from("kernel k (out : int32 vector) =\n  let x = mut 0 in\n");
    for level in 0..depth {
        // Indented: a `let` in the first column would start an item.
        s.push_str(&format!("  let c{level} = mut 0 in\n  while c{level} < 3 do c{level} := c{level} + 1;\n"));
    }
    s.push_str("  if x > 0 then Gpu.block_barrier; x := thread_idx_x\n");
    for _ in 0..depth {
        s.push_str("done;\n");
    }
    s.push_str("out.(global_idx) <- x\n");
    s
}

/// A chain of `depth` functions, each calling the next in a loop and passing a `ref` cell and a value; the last
/// accumulates into the cell.
fn call_chain(depth: usize) -> String {
    let mut s = String::from("let f0 (p : int32 ref) (v : int32) =\n  for i = 0 to 3 do p := !p + v * i done\n\n");
    for level in 1..depth {
        s.push_str(&format!(
            "let f{level} (p : int32 ref) (v : int32) =\n  let w = mut v in\n  for i = 0 to 3 do\n    f{} p w;\n    \
             w := w + !p\n  done\n\n",
            level - 1
        ));
    }
    s.push_str(&format!(
        "kernel k (out : int32 vector) (n : int32) =\n  let r = ref 0 in\n  f{} r n;\n  let s = ref 0 in\n  f{} s \
         thread_idx_x;\n  out.(global_idx) <- !r + !s\n",
        depth - 1,
        depth - 1
    ));
    s
}

#[test]
fn nested_for_loops_are_polynomial() {
    assert_polynomial("nested for", 25, nested_for);
}

#[test]
fn nested_while_loops_are_polynomial() {
    assert_polynomial("nested while", 25, nested_while);
}

#[test]
fn call_chains_with_loops_are_polynomial() {
    assert_polynomial("call chain", 15, call_chain);
}
