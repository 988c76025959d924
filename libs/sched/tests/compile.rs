//! stdlib/sched/sched.sk through the front end and NVRTC (relocatable device code, sm_90) for every compile-time
//! variant, without a GPU: the scheduler must be accepted by the convergence analysis, compile, and keep its
//! kernels free of register spills. Needs NVRTC (as `scripts/test.sh`).

use skc_nvrtc::{compile, CompileOptions};
use skc_sched::{program, Config, MAILBOX_WORDS};

fn variants() -> Vec<(&'static str, Config)> {
    vec![
        ("default", Config::default()),
        ("history", Config { history: 1 << 16, ..Config::default() }),
        ("no fast path", Config { fast_path: false, ..Config::default() }),
        ("fast-path timestamps", Config { fast_timing: true, ..Config::default() }),
    ]
}

#[test]
fn every_variant_compiles_without_spills() {
    for (name, config) in variants() {
        let program = program(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
        for kernel in ["sched_main", "sched_child", "sched_empty", "sched_compute", "sched_pingpong"] {
            assert!(program.kernel(kernel).is_some(), "{name}: no kernel {kernel}");
        }
        let options = CompileOptions { relocatable: true, ..CompileOptions::for_arch("sm_90") };
        let out = compile(&program.cuda_source, "sched.cu", &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        for r in out.resources.iter().filter(|r| r.is_entry) {
            assert_eq!((r.spill_store_bytes, r.spill_load_bytes), (0, 0), "{name}: {} spills: {:?}", r.name, r);
        }
        let report: Vec<String> = out
            .resources
            .iter()
            .map(|r| {
                format!("{} regs {} stack {} spills {}", r.name, r.registers, r.stack_frame_bytes, r.spill_store_bytes)
            })
            .collect();
        eprintln!("{name}:\n  {}", report.join("\n  "));
        let main = out.resources.iter().find(|r| r.name == "sched_main").expect("sched_main in the report");
        // No shared memory at all: the mailboxes are in global memory, since a scheduler kernel that declared
        // them in shared memory stopped launching children after 2,048 launches (docs/performance.md).
        assert_eq!(main.shared_bytes, 0, "{name}: sched_main declares shared memory");
        // Eight warps of 256 threads must fit at least one block per SM (64K registers).
        assert!(main.registers <= 255, "{name}: sched_main uses {} registers", main.registers);
    }
}

#[test]
fn the_variants_differ_only_where_they_should() {
    let default = program(&Config::default()).unwrap().cuda_source;
    let no_fast = program(&Config { fast_path: false, ..Config::default() }).unwrap().cuda_source;
    assert_ne!(default, no_fast, "fast_path must change the emitted code");
    let history = program(&Config { history: 1, ..Config::default() }).unwrap().cuda_source;
    assert!(history.contains("static constexpr bool record_history = true;"), "-D record_history reaches sched.sk");
}

#[test]
fn the_records_match_the_host_layout() {
    let source = program(&Config::default()).unwrap().cuda_source;
    // Field order and types of `task` and `hrec` as layout.rs declares them (32 bytes each, no padding).
    let task = source.find("struct task").expect("task record emitted");
    let body = &source[task..task + source[task..].find('}').unwrap()];
    let fields: Vec<&str> = body.lines().skip(1).map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(
        fields,
        ["int kind;", "int arg;", "int aux;", "int pad;", "long long id;", "unsigned long long ret;"],
        "{body}"
    );
    // The host allocates MAILBOX_WORDS words of mailbox per block; the kernel indexes them with mb_words.
    let words = format!("static constexpr int mb_words = {MAILBOX_WORDS};");
    assert!(source.contains(&words), "sched.sk's mb_words differs from layout.rs's MAILBOX_WORDS ({MAILBOX_WORDS})");
}
