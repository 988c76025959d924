//! The metric update code in PTX and the resources of the integration kernel with metrics, through NVRTC
//! (sm_90, no GPU). Needs NVRTC; with `SKC_REQUIRE_NVRTC=1` a missing NVRTC fails the test.
//!
//! What `the_metric_update_has_no_branch_and_no_conditional_store` proves: `summary_probe_update` is the chain
//! of all 18 metrics on 3 variables (`summary_update`, exactly what the loop calls once per sample) between a
//! load and a store of the running buffers; in its PTX there is no branch instruction at all (`bra`, predicated
//! or not, so no store can sit in a region a branch skips), no predicated store (`@%p st`), no call, and no
//! local memory (the buffer is in registers, so every index was a compile-time constant); and it has exactly one
//! unpredicated `st.global` per buffer slot. So every write of the update is unconditional: the conditional
//! updates (max, min, extrema, max_magnitude, peaks, the derivative metrics) are selects (`selp`, or min/max
//! instructions). It does not prove anything of the window flush (`summary_flush`, which writes the window's
//! outputs to global memory once per window under `if (k + 1) mod m = 0`, by design), nor of the SASS that
//! ptxas makes of the PTX.

use skc_nvrtc::CompileOptions;
use skc_ode::program::{summary_probe, systems_dir, SolverProgram, SystemSource};
use skc_ode::sk::Options;
use skc_ode::summaries::{Layout, Metric, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};

fn all_metrics() -> SummarySpec {
    SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.01, 0.1)
}

/// The body of `.entry NAME` in a PTX text.
fn entry_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no entry {name} in the PTX"));
    let rest = &ptx[start..];
    let open = rest.find('{').expect("a body");
    let mut depth = 0;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[open..open + i + 1];
                }
            }
            _ => {}
        }
    }
    panic!("unterminated entry {name}")
}

/// PTX instructions (comments and directives dropped), one per line.
fn instructions(body: &str) -> Vec<String> {
    body.lines()
        .map(|l| l.split("//").next().unwrap().trim().trim_end_matches(';').to_string())
        .filter(|l| {
            !l.is_empty() && !l.starts_with('.') && !l.starts_with('{') && !l.starts_with('}') && !l.ends_with(':')
        })
        .collect()
}

fn opcode(instruction: &str) -> &str {
    let text = if instruction.starts_with('@') {
        instruction.split_once(' ').map_or("", |(_, r)| r.trim())
    } else {
        instruction
    };
    text.split_whitespace().next().unwrap_or("")
}

#[test]
fn the_metric_update_has_no_branch_and_no_conditional_store() {
    if !skc_tests::require::nvrtc("the metrics PTX tests") {
        return;
    }
    let spec = all_metrics();
    let slots = Layout::of(&spec).slots * spec.variables.len();
    for precision in [Precision::F32, Precision::F64] {
        let cuda = summary_probe(&spec, 3, precision, 1.0).unwrap();
        let options = CompileOptions { include_cubin: false, ..CompileOptions::default() };
        let out = skc_nvrtc::compile(&cuda.source, "summary_probe.cu", &options).unwrap();
        let body = entry_body(&out.ptx, "summary_probe_update");
        let ins = instructions(body);
        let label = precision.name();
        let count = |pred: &dyn Fn(&String) -> bool| ins.iter().filter(|i| pred(i)).count();
        let branches = count(&|i| opcode(i).starts_with("bra"));
        let predicated_stores = count(&|i| i.starts_with('@') && opcode(i).starts_with("st."));
        let stores = count(&|i| !i.starts_with('@') && opcode(i).starts_with("st.global"));
        let local = count(&|i| opcode(i).contains(".local"));
        let calls = count(&|i| opcode(i).starts_with("call"));
        let selects = count(&|i| opcode(i).starts_with("selp"));
        let min_max = count(&|i| opcode(i).starts_with("max.") || opcode(i).starts_with("min."));
        eprintln!(
            "{label}: {} PTX instructions, {branches} branches, {stores} stores ({slots} slots), {predicated_stores} \
             predicated stores, {local} local memory accesses, {calls} calls, {selects} selp, {min_max} min/max",
            ins.len()
        );
        assert_eq!(branches, 0, "{label}: a branch in the metric update:\n{body}");
        assert_eq!(predicated_stores, 0, "{label}: a predicated store in the metric update:\n{body}");
        assert_eq!(local, 0, "{label}: the running buffer left registers:\n{body}");
        assert_eq!(calls, 0, "{label}: a call in the metric update");
        assert_eq!(stores, slots, "{label}: one store per buffer slot");
        // Conditional updates per variable: the shift, max, min, 3 + 3 peak slots, 2 + 2 difference extremes
        // and the history's level: 14, each at least one select (or min/max).
        assert!(selects + min_max >= 3 * 14, "{label}: the conditional updates are not selects:\n{body}");
    }
}

/// The Lorenz integration kernel with all 18 metrics on its 3 variables, next to the same kernel without:
/// float32 must not spill nor use a stack frame; float64 is reported.
#[test]
fn lorenz_with_all_metrics_fits_in_registers() {
    if !skc_tests::require::nvrtc("the metrics PTX tests") {
        return;
    }
    let mut failures = Vec::new();
    for precision in [Precision::F32, Precision::F64] {
        for (method, controller) in [
            (Method::Tsit5, ControllerKind::Fixed),
            (Method::Tsit5, ControllerKind::I),
            (Method::DormandPrince5, ControllerKind::I),
        ] {
            let mut line = format!("lorenz {method} {} {}:", controller.name(), precision.name());
            for with_metrics in [false, true] {
                let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
                cfg.precision = precision;
                if with_metrics {
                    cfg.summaries = Some(all_metrics());
                }
                let program = SolverProgram::build(
                    &SystemSource::new(systems_dir().join("lorenz.sk")),
                    &cfg,
                    &Options::default(),
                )
                .unwrap();
                let options = CompileOptions { include_cubin: false, ..CompileOptions::default() };
                let out = skc_nvrtc::compile(&program.cuda.source, "ode.cu", &options).unwrap();
                let r = out.resources.iter().find(|r| r.is_entry && r.name == "ode_solve").expect("ode_solve");
                line += &format!(
                    " {} {:>3} registers, stack {} B, spills {}/{} B;",
                    if with_metrics { "18 metrics" } else { "no metrics" },
                    r.registers,
                    r.stack_frame_bytes,
                    r.spill_store_bytes,
                    r.spill_load_bytes
                );
                if precision == Precision::F32 && (r.spill_bytes() > 0 || r.stack_frame_bytes > 0) {
                    failures.push(line.clone());
                }
            }
            eprintln!("{line}");
        }
    }
    assert!(failures.is_empty(), "spills or stack:\n{}", failures.join("\n"));
}
