//! Writes the CUDA C, PTX, CUBIN (sm_90) and ptxas report of the benchmark's kernels into a folder, for reading
//! the generated code and disassembling it (`cuobjdump -sass DIR/NAME.cubin` on a machine with the CUDA tools).
//! The `-all18` kernels are fixed-step Tsit5 with `metrics-bench lorenz`'s 18 metrics on 3 variables, without and
//! with `__launch_bounds__` of 3, 4 or 5 blocks per SM (their registers and spills).
//!
//! cargo run --release -p skc-bench --bin ode-dump -- [--computed-mask] DIR

use skc_nvrtc::CompileOptions;
use skc_ode::config::Gains;
use skc_ode::program::{SolverProgram, SystemSource};
use skc_ode::sk::Options;
use skc_ode::summaries::{Metric, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::Program;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let computed_mask = args.iter().any(|a| a == "--computed-mask");
    let dir = args.iter().find(|a| !a.starts_with("--")).ok_or("usage: ode-dump [--computed-mask] DIR")?;
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let lorenz = SystemSource::new(skc_ode::program::systems_dir().join("lorenz.sk"));
    // `-lb6`: ptxas held to 6 blocks of 256 threads per SM (at most 40 registers), as ode-bench's sweep runs them.
    let lb6 = Options { min_blocks_per_sm: 6, ..Options::default() };
    let lb = |blocks| Options { min_blocks_per_sm: blocks, ..Options::default() };
    let variants = [
        ("tsit5-fixed", Method::Tsit5, ControllerKind::Fixed, Options::default()),
        ("tsit5-fixed-meanx", Method::Tsit5, ControllerKind::Fixed, Options::default()),
        ("tsit5-fixed-all18", Method::Tsit5, ControllerKind::Fixed, Options::default()),
        ("tsit5-fixed-all18-lb3", Method::Tsit5, ControllerKind::Fixed, lb(3)),
        ("tsit5-fixed-all18-lb4", Method::Tsit5, ControllerKind::Fixed, lb(4)),
        ("tsit5-fixed-all18-lb5", Method::Tsit5, ControllerKind::Fixed, lb(5)),
        ("tsit5-adaptive", Method::Tsit5, ControllerKind::I, Options::default()),
        ("dp5-adaptive", Method::DormandPrince5, ControllerKind::I, Options::default()),
        ("tsit5-adaptive-lb6", Method::Tsit5, ControllerKind::I, lb6.clone()),
        ("dp5-adaptive-lb6", Method::DormandPrince5, ControllerKind::I, lb6),
    ];
    for (name, method, controller, options) in variants {
        let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
        cfg.gains = Gains { deadband_low: 1.0, deadband_high: 1.0, ..Gains::defaults(controller) };
        cfg.precision = Precision::F32;
        if name.contains("meanx") {
            cfg.summaries = Some(SummarySpec::new(vec![Metric::Mean], vec![0], 0.01, 0.1));
        }
        if name.contains("all18") {
            cfg.summaries = Some(SummarySpec {
                state_names: vec!["x".into(), "y".into(), "z".into()],
                ..SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.01, 0.1)
            });
        }
        // `--computed-mask`: the votes' mask computed from the block size (skc's default emission), as
        // `ode-bench sweep-computed-mask` runs the kernels.
        let options = Options { full_warps: !computed_mask, ..options };
        let program = SolverProgram::build(&lorenz, &cfg, &options)?;
        let out = Program::from_output("ode.cu", &program.cuda).compile_with(CompileOptions::default())?;
        std::fs::write(dir.join(format!("{name}.cu")), &program.cuda.source)?;
        std::fs::write(dir.join(format!("{name}.ptx")), &out.ptx)?;
        std::fs::write(dir.join(format!("{name}.cubin")), &out.cubin)?;
        std::fs::write(dir.join(format!("{name}.log")), &out.log)?;
        println!("{name}: {:?}", out.resources.iter().find(|r| r.is_entry));
    }
    Ok(())
}
