//! The cost of a checked launch: host time per launch and the sustained rate of an empty kernel launched through
//! [`Kernel::launch`] (every check) and through cudarc's launch builder directly (none), in alternating rounds
//! (`cargo bench -p skc-runtime --bench launch_overhead`; needs a GPU). Lines starting `RESULT` are for scripts.
//! The raw loop lives here because this crate is the only one that may call the driver.

use std::error::Error;
use std::time::Instant;

use cudarc::driver::{LaunchConfig as RawConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use skc_runtime::{args, Context, LaunchConfig, Module, Program};

type Outcome<T> = Result<T, Box<dyn Error>>;

/// examples/kernels/empty.sk: two typical arguments, no work.
const EMPTY: &str = "let empty = [%kernel fun (xs : float32 vector) (n : int32) -> ()]\n";

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).expect("no NaN timings"));
    samples[samples.len() / 2]
}

fn main() {
    if let Err(e) = run() {
        eprintln!("launch_overhead: {e}");
        std::process::exit(1);
    }
}

fn run() -> Outcome<()> {
    let ctx = Context::new(0)?;
    let program = Program::from_source("empty.sk", EMPTY)?;
    let cubin = program.compile(&ctx.device().arch)?.cubin;
    let kernel = Module::from_program(&ctx, program)?.kernel("empty")?;
    let xs = ctx.alloc_zeros::<f32>(1)?;
    let config = LaunchConfig::new(1, 32);
    // The same device's primary context, driven through cudarc alone.
    let raw_ctx = cudarc::driver::CudaContext::new(0)?;
    let raw = raw_ctx.load_module(Ptx::from_binary(cubin))?.load_function("empty")?;
    let stream = raw_ctx.default_stream();
    let raw_xs = stream.alloc_zeros::<f32>(1)?;
    let raw_config = RawConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    let zero = 0i32;
    let mut checked = || kernel.launch(&config, args![&xs, 0i32]).map_err(Box::<dyn Error>::from);
    let mut raw_launch = || -> Outcome<()> {
        // SAFETY: `empty` takes (const float*, int), which is what is pushed.
        unsafe { stream.launch_builder(&raw).arg(&raw_xs).arg(&zero).launch(raw_config) }?;
        Ok(())
    };
    // Three alternating rounds of each; the medians are reported.
    let mut results: [(Vec<f64>, Vec<f64>); 2] = Default::default();
    for _round in 0..3 {
        for (which, launch) in
            [&mut checked as &mut dyn FnMut() -> Outcome<()>, &mut raw_launch].into_iter().enumerate()
        {
            // Host cost of one launch: batches shorter than the driver's queue, synchronised between batches.
            let (batches, batch) = (200, 256);
            let mut host = 0.0;
            for _ in 0..batches {
                let started = Instant::now();
                for _ in 0..batch {
                    launch()?;
                }
                host += started.elapsed().as_secs_f64();
                ctx.synchronize()?;
            }
            results[which].0.push(host / (batches * batch) as f64 * 1e6);
            // Sustained rate: many launches back to back, until the device has run them all.
            let count = 100_000;
            let started = Instant::now();
            for _ in 0..count {
                launch()?;
            }
            ctx.synchronize()?;
            results[which].1.push(count as f64 / started.elapsed().as_secs_f64());
        }
    }
    for (which, (name, key)) in [("runtime (checked)", "runtime"), ("raw cudarc", "raw")].into_iter().enumerate() {
        let (host_us, rate) = (median(results[which].0.clone()), median(results[which].1.clone()));
        println!("launch      empty kernel, {name:<18} {host_us:6.2} us host time per launch, {rate:9.0} launches/s sustained");
        println!("RESULT launch_{key}_host_us={host_us:.3} launch_{key}_per_s={rate:.0}");
    }
    Ok(())
}
