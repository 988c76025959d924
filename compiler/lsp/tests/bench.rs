//! Latency benchmark (ignored by default; prints numbers, asserts nothing about time):
//! from a `didChange` of a 5,000-line file to its `publishDiagnostics`.
//!
//!   cargo test --release -p skc-lsp --test bench -- --ignored --nocapture

mod support;

use std::time::{Duration, Instant};

use support::Client;

/// About `lines` lines of kernels and device functions, with one divergent barrier per 50 lines.
fn big_file(lines: usize) -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.lines().count() < lines {
        text.push_str(&format!(
            "let scale{i} (x : float32) (k : int32) : float32 =
  let acc = mut x in
  for j = 0 to k do
    acc := acc *. 1.5 +. float32 j
  done;
  acc

kernel k{i} (xs : float32 vector) (out : float32 vector) (n : int32) =
  let%shared (tile : float32) = 256 in
  let t = thread_idx_x in
  let g = block_idx_x * block_dim_x + t in
  if g < n then tile.(t) <- xs.(g);
  Gpu.block_barrier;
  let s = mut 0.0 in
  for j = 0 to 15 do
    s := s +. tile.((t + j) mod 256)
  done;
  if t < 16 then Gpu.block_barrier;
  if g < n then out.(g) <- scale{i} s 4
"
        ));
        text.push_str(&"\n".repeat(50usize.saturating_sub(20).min(lines)));
        i += 1;
    }
    text
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn did_change_to_publish_diagnostics_on_5000_lines() {
    let text = big_file(5000);
    let lines = text.lines().count();
    let mut check_alone = Vec::new();
    let mut errors = 0;
    for _ in 0..10 {
        let started = Instant::now();
        let checked = skc_core::check("/bench/big.sk", &text, &skc_core::NoModules, &Default::default());
        check_alone.push(started.elapsed());
        errors = checked.error_count();
    }

    let mut client = Client::start();
    let published = client.open("big.sk", &text);
    assert_eq!(
        published.diagnostics.iter().filter(|d| d.severity == Some(lsp_types::DiagnosticSeverity::ERROR)).count(),
        errors
    );

    // An isolated edit (after a pause longer than the debounce): checked at once.
    let mut isolated = Vec::new();
    for version in 2..22 {
        std::thread::sleep(skc_lsp::DEBOUNCE + Duration::from_millis(20));
        let edited = format!("{text}(* edit {version} *)\n");
        let sent = Instant::now();
        client.change("big.sk", version, &edited);
        let published = client.next_diagnostics();
        isolated.push(sent.elapsed());
        assert_eq!(published.version, Some(version));
    }
    // The last edit of a burst (two edits 10 ms apart): the first, after a pause, is checked at once; the second
    // once the edits pause for the debounce.
    let mut burst = Vec::new();
    for version in (100..140).step_by(2) {
        std::thread::sleep(skc_lsp::DEBOUNCE + Duration::from_millis(20));
        client.change("big.sk", version, &text);
        std::thread::sleep(Duration::from_millis(10));
        let sent = Instant::now();
        client.change("big.sk", version + 1, &format!("{text}(* burst *)\n"));
        let mut published = client.next_diagnostics();
        if published.version == Some(version) {
            published = client.next_diagnostics();
        }
        burst.push(sent.elapsed());
        assert_eq!(published.version, Some(version + 1));
    }
    println!("file: {lines} lines, {} bytes, {errors} errors", text.len());
    println!("skc_core::check alone: median {:.1} ms of 10", median(&mut check_alone).as_secs_f64() * 1e3);
    println!(
        "didChange -> publishDiagnostics, isolated edit: median {:.1} ms (min {:.1}, max {:.1}, {} runs)",
        median(&mut isolated).as_secs_f64() * 1e3,
        isolated[0].as_secs_f64() * 1e3,
        isolated[isolated.len() - 1].as_secs_f64() * 1e3,
        isolated.len()
    );
    println!(
        "didChange -> publishDiagnostics, last edit of a burst (includes the {} ms debounce): median {:.1} ms",
        skc_lsp::DEBOUNCE.as_millis(),
        median(&mut burst).as_secs_f64() * 1e3
    );
    client.shutdown().unwrap();
}
