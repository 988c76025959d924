//! stdlib/sched/sched.sk through the front end and NVRTC (relocatable device code, sm_90) for every compile-time
//! option, without a GPU: the scheduler must be accepted by the convergence analysis, compile, and keep its
//! kernels free of register spills. Needs NVRTC (as `scripts/test.sh`).

use skc_nvrtc::{compile, CompileOptions};
use skc_sched::{program, Config, MAILBOX_WORDS};

fn configurations() -> Vec<(&'static str, Config)> {
    vec![
        ("default", Config::default()),
        ("history", Config { history: 1 << 16, ..Config::default() }),
        ("no fast path", Config { fast_path: false, ..Config::default() }),
        ("fast-path timestamps", Config { fast_timing: true, ..Config::default() }),
        ("history, timestamps", Config { history: 1 << 16, fast_timing: true, ..Config::default() }),
    ]
}

#[test]
fn every_option_compiles_without_spills() {
    for (name, config) in configurations() {
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
fn the_options_differ_only_where_they_should() {
    let default = program(&Config::default()).unwrap().cuda_source;
    let no_fast = program(&Config { fast_path: false, ..Config::default() }).unwrap().cuda_source;
    assert_ne!(default, no_fast, "fast_path must change the emitted code");
    // `if record_history then record ...` is a constant condition: only with -D record_history=true is the
    // history recorder called, and so emitted.
    let history = program(&Config { history: 1, ..Config::default() }).unwrap().cuda_source;
    let records = |cuda: &str| cuda.contains("record(ctl, hist, hist_len");
    assert!(records(&history), "-D record_history reaches sched.sk");
    assert!(!records(&default), "without -D record_history the recorder is not called");
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
    // The control words the host reads back and the trace's words, as layout.rs numbers them (constants the
    // kernel does not use are not emitted: the trace's only with fast_timing).
    use skc_sched::layout::{ctl, trace};
    let source = program(&Config { fast_timing: true, ..Config::default() }).unwrap().cuda_source;
    let constants = [
        ("c_mailbox", ctl::MAILBOX),
        ("c_fast", ctl::FAST),
        ("tr_words", trace::WORDS),
        ("tr_poll", trace::POLL),
        ("tr_tail", trace::TAIL),
        ("tr_slot", trace::SLOT),
        ("tr_checked", trace::CHECKED),
        ("tr_handed", trace::HANDED),
        ("tr_quiet", trace::QUIET),
        ("tr_empty", trace::EMPTY_POLLS),
        ("tr_path", trace::PATH),
        ("tr_seen", trace::SEEN),
        ("tr_taken", trace::TAKEN),
        ("tr_ran", trace::RAN),
        ("tr_recorded", trace::RECORDED),
        ("tr_released", trace::RELEASED),
    ];
    for (name, value) in constants {
        let line = format!("static constexpr int {name} = {value};");
        assert!(source.contains(&line), "sched.sk's {name} differs from layout.rs ({value})");
    }
}

/// The element and scalar types `Scheduler::launch` and the benchmark's baselines pass, parameter by parameter:
/// the launch checks them on the GPU; this checks them without one.
#[test]
fn the_host_passes_each_parameter_its_type() {
    use skc_runtime::{DeviceElem, ElemType, ParamType, ScalarType};
    use skc_sched::layout::RingSlot;
    use skc_sched::{HistRecord, Task};
    let vector = |elem: ElemType| Some(elem);
    let scalar = |_: ScalarType| None;
    let (u64s, u32s, f32s, i32) = (u64::elem_type(), u32::elem_type(), f32::elem_type(), ScalarType::Int32);
    let expected: Vec<(&str, &str, Option<ElemType>)> = vec![
        ("sched_main", "hctl", vector(u64s.clone())),
        ("sched_main", "ring_slots", vector(RingSlot::elem_type())),
        ("sched_main", "ring_words", vector(u64s.clone())),
        ("sched_main", "ring_tail", vector(u64s.clone())),
        ("sched_main", "ring_head", vector(u64s.clone())),
        ("sched_main", "done_", vector(u64s.clone())),
        ("sched_main", "ring_cap", scalar(i32)),
        ("sched_main", "n_rings", scalar(i32)),
        ("sched_main", "ctl", vector(u64s.clone())),
        ("sched_main", "q_slots", vector(Task::elem_type())),
        ("sched_main", "q_state", vector(u32s.clone())),
        ("sched_main", "q_cap", scalar(i32)),
        ("sched_main", "counts", vector(u32s.clone())),
        ("sched_main", "n_ids", scalar(i32)),
        ("sched_main", "hist", vector(HistRecord::elem_type())),
        ("sched_main", "hist_len", scalar(i32)),
        ("sched_main", "child_blocks", vector(u32s)),
        ("sched_main", "child_cap", scalar(i32)),
        ("sched_main", "sink", vector(f32s.clone())),
        ("sched_main", "mb", vector(u64s.clone())),
        ("sched_main", "trace", vector(u64s.clone())),
        ("sched_main", "trace_len", scalar(i32)),
        ("sched_empty", "sink", vector(f32s.clone())),
        ("sched_compute", "sink", vector(f32s)),
        ("sched_pingpong", "ping", vector(u64s.clone())),
        ("sched_pingpong", "pong", vector(u64s.clone())),
        ("sched_pingpong", "words", vector(u64s.clone())),
        ("sched_pingpong", "stamps", vector(u64s.clone())),
        ("sched_pingpong", "costs", vector(u64s)),
    ];
    let program = program(&Config::default()).unwrap();
    let main = program.kernel("sched_main").unwrap();
    let names: Vec<&str> = main.params.iter().map(|p| p.name.as_str()).collect();
    let in_order: Vec<&str> =
        expected.iter().filter(|(k, _, _)| *k == "sched_main").map(|(_, name, _)| *name).collect();
    assert_eq!(names, in_order, "sched_main's parameters, in the order Scheduler::launch passes them");
    for (kernel, name, elem) in expected {
        let signature = program.kernel(kernel).unwrap_or_else(|| panic!("no kernel {kernel}"));
        let param = signature.params.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("{kernel}: {name}"));
        match (&param.ty, elem) {
            (ParamType::Vector { elem: found, .. }, Some(elem)) => assert_eq!(*found, elem, "{kernel}: {name}"),
            (ParamType::Scalar(ScalarType::Int32), None) => {}
            (other, _) => panic!("{kernel}: {name} is {other}"),
        }
    }
}
