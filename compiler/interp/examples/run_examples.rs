//! Runs the seven example kernels at the sizes of the GPU tests (`examples/tests/gpu_examples.rs`) in the
//! interpreter, checks each against its CPU reference, and prints the time and the thread-instructions per second.
//!
//! `cargo run --release -p skc-interp --example run_examples [EXAMPLE...] [--schedule in-order|reversed|random:SEED]
//! [--no-races] [--count-nodes]` (`--count-nodes`: also count the AST nodes evaluated, a few percent slower)

#[path = "../tests/support/examples.rs"]
mod examples;

use skc_interp::{Options, Schedule};

fn main() {
    let mut options = Options::default();
    let mut chosen = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--schedule" => {
                options.schedule = args.next().and_then(|s| s.parse::<Schedule>().ok()).expect("a schedule")
            }
            "--no-races" => options.check_races = false,
            "--count-nodes" => options.count_nodes = true,
            name => chosen.push(name.to_string()),
        }
    }
    let (mut instructions, mut nodes, mut seconds, mut cpu_seconds, mut failed) = (0u64, 0u64, 0f64, 0f64, 0);
    println!(
        "{:<12} {:<12} {:>10} {:>14} {:>9} {:>9} {:>12}  check",
        "example", "size", "threads", "instructions", "wall (s)", "cpu (s)", "instr/cpu-s"
    );
    for example in examples::EXAMPLES {
        if !chosen.is_empty() && !chosen.iter().any(|c| c == example) {
            continue;
        }
        for size in examples::gpu_test_sizes(example) {
            let run = examples::run(example, size, &options);
            let (time, cpu) = (run.time.as_secs_f64(), run.cpu.as_secs_f64());
            instructions += run.instructions;
            nodes += run.nodes;
            seconds += time;
            cpu_seconds += cpu;
            let verdict =
                if run.passed() { "ok".to_string() } else { format!("FAILED: error {} {:?}", run.error, run.reports) };
            failed += !run.passed() as u32;
            // Below 10 ms of CPU the clock's resolution makes a rate meaningless.
            let rate = if cpu >= 0.01 { format!("{:.3e}", run.instructions as f64 / cpu) } else { "-".into() };
            println!(
                "{:<12} {:<12} {:>10} {:>14} {:>9.3} {:>9.3} {:>12}  {verdict}",
                run.example, run.size, run.threads, run.instructions, time, cpu, rate
            );
        }
    }
    println!(
        "total: {instructions} thread-instructions in {cpu_seconds:.2} s of CPU ({seconds:.2} s wall) = {:.3e} per CPU \
         second (schedule {}, races {})",
        instructions as f64 / cpu_seconds.max(1e-9),
        options.schedule,
        if options.check_races { "checked" } else { "not checked" }
    );
    if options.count_nodes {
        println!(
            "AST nodes evaluated: {nodes} = {:.2} per instruction, {:.3e} per CPU second",
            nodes as f64 / instructions.max(1) as f64,
            nodes as f64 / cpu_seconds.max(1e-9)
        );
    }
    std::process::exit(if failed == 0 { 0 } else { 1 });
}
