//! `cargo run --release -p skc-bench --bin kernels-bench`: the numbers in docs/performance.md. Device-to-device copy bandwidth,
//! the warp-shuffle reduction of 2^28 float32 and of 2^28 int32 (one generic block reduction at both types; and
//! the seed's tree reduction of 2^28 int32), the 8192 x 8192 transpose and the 4096^3 matmul (the launch overhead
//! is skc-runtime's own bench, `launch_overhead`). Each kernel time is the median of several runs timed with CUDA
//! events behind the spinner (the host's launch hidden, as for the peers); results are also checked against the
//! CPU. Lines starting `RESULT` are meant for scripts.

use std::error::Error;

use skc_bench::timing::{hidden, Spinner};
use skc_examples::common::{gb_per_s, Rng};
use skc_examples::warp_reduce::{Summand, WarpReduce};
use skc_examples::{kernels, matmul::Matmul, reduce::Reduce, transpose::Transpose};
use skc_runtime::{args, Context, DeviceBuffer, LaunchConfig, Result};

type Outcome<T> = std::result::Result<T, Box<dyn Error>>;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).expect("no NaN timings"));
    samples[samples.len() / 2]
}

/// Device time in ms of `work` (which queues its kernel on the context's stream), with the host's work hidden
/// behind the spinner (docs/performance.md, "How we time peers"): the host's launch of `work` does not count.
fn timed(ctx: &Context, spinner: &Spinner, work: impl FnOnce() -> Result<()>) -> Outcome<f64> {
    let sample = hidden(spinner, &ctx.stream(), || Ok(work()?))?;
    if !sample.valid(spinner.ms()) {
        return Err(format!(
            "the host took {:.2} ms to queue a timed launch, more than the spinner hides ({:.1} ms)",
            sample.enqueue_ms,
            spinner.ms()
        )
        .into());
    }
    Ok(sample.gpu_ms)
}

/// Median of `reps` measurements after one warm-up.
fn time_ms(reps: usize, mut measure: impl FnMut() -> Outcome<f64>) -> Outcome<f64> {
    measure()?;
    let samples = (0..reps).map(|_| measure()).collect::<Outcome<Vec<f64>>>()?;
    Ok(median(samples))
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Outcome<()> {
    let ctx = skc_examples::common::gpu_or_exit();
    let device = ctx.device();
    println!(
        "device: {} ({}, {} SMs, {:.1} GiB)",
        device.name,
        device.arch,
        device.multiprocessors,
        device.total_memory as f64 / (1u64 << 30) as f64
    );
    println!("RESULT device={}", device.name.replace(' ', "_"));
    let spinner = Spinner::new(&ctx)?;
    let copy = bandwidth(&ctx, &spinner)?;
    reductions(&ctx, &spinner, copy)?;
    transpose(&ctx, &spinner, copy)?;
    matmul(&ctx, &spinner)?;
    Ok(())
}

const N: usize = 1 << 28;

/// The data the CuPy comparison (bench/peers/cupy_kernels.py) builds too.
fn reduction_data() -> Vec<f32> {
    (0..N).map(|i| ((i as u64 * 7919) % 1000) as f32 / 1000.0).collect()
}

/// Device-to-device copy of 2^28 float32 (1 GiB), counting bytes read and written.
fn bandwidth(ctx: &Context, spinner: &Spinner) -> Outcome<f64> {
    let src = ctx.upload(&reduction_data())?;
    let mut dst = ctx.alloc_zeros::<f32>(N)?;
    let ms = time_ms(20, || timed(ctx, spinner, || dst.copy_from(&src)))?;
    let gbs = gb_per_s(2.0 * 4.0 * N as f64, ms);
    println!("copy        1 GiB device-to-device     {ms:8.3} ms  {gbs:7.1} GB/s (read + write)");
    println!("RESULT copy_gbs={gbs:.1}");
    Ok(gbs)
}

/// A `warp_reduce` kernel's sum of `xs` and its median time over 20 runs (each zeroes the output first).
fn timed_sum<T: Summand>(
    ctx: &Context,
    spinner: &Spinner,
    example: &WarpReduce<T>,
    xs: &DeviceBuffer<T>,
) -> Outcome<(T, f64)> {
    let mut out = ctx.alloc_zeros::<T>(1)?;
    let ms = time_ms(20, || {
        out.fill_zero()?;
        timed(ctx, spinner, || example.run(xs, &mut out))
    })?;
    Ok((out.download()?[0], ms))
}

fn reductions(ctx: &Context, spinner: &Spinner, copy_gbs: f64) -> Outcome<()> {
    let xs = reduction_data();
    let reference: f64 = xs.iter().map(|&x| x as f64).sum();
    let device_xs = ctx.upload(&xs)?;
    drop(xs);
    let example = WarpReduce::<f32>::load(ctx)?;
    let (sum, ms) = timed_sum(ctx, spinner, &example, &device_xs)?;
    let sum = sum as f64;
    let gbs = gb_per_s(4.0 * N as f64, ms);
    println!(
        "warp_reduce 2^28 float32 sum            {ms:8.3} ms  {gbs:7.1} GB/s = {:.1}% of copy  (grid {} x {}, sum {sum:.6e}, relative error {:.1e})",
        100.0 * gbs / copy_gbs,
        example.grid(),
        skc_examples::warp_reduce::BLOCK,
        (sum - reference).abs() / reference
    );
    println!("RESULT reduce_gbs={gbs:.1} reduce_ms={ms:.4} reduce_sum={sum:.6e} reduce_reference={reference:.6e}");
    drop(device_xs);

    let mut rng = Rng::new(9);
    // Values of both signs: the int32 sums (per block, and the whole one) fit in int32.
    let ints: Vec<i32> = (0..N).map(|_| rng.below(100) as i32 - 50).collect();
    let int_reference: i64 = ints.iter().map(|&x| x as i64).sum();
    let device_ints = ctx.upload(&ints)?;
    let tree = Reduce::load(ctx)?;
    let mut partials = ctx.alloc_zeros::<i32>(Reduce::blocks(N))?;
    let ms = time_ms(10, || timed(ctx, spinner, || tree.run(&device_ints, &mut partials)))?;
    let total: i64 = partials.download()?.iter().map(|&x| x as i64).sum();
    let gbs = gb_per_s(4.0 * N as f64, ms);
    println!(
        "reduce      2^28 int32, seed tree pass  {ms:8.3} ms  {gbs:7.1} GB/s = {:.1}% of copy  (per-block sums; exact: {})",
        100.0 * gbs / copy_gbs,
        total == int_reference
    );
    println!("RESULT tree_reduce_gbs={gbs:.1}");

    // The same generic block_sum as warp_reduce, instantiated at int32.
    let (int_sum, ms) = timed_sum(ctx, spinner, &WarpReduce::<i32>::load(ctx)?, &device_ints)?;
    let exact = int_sum as i64 == int_reference;
    let gbs = gb_per_s(4.0 * N as f64, ms);
    println!(
        "warp_reduce_int32 2^28 int32 sum        {ms:8.3} ms  {gbs:7.1} GB/s = {:.1}% of copy  (generic block_sum; exact: {exact})",
        100.0 * gbs / copy_gbs
    );
    println!("RESULT int_reduce_gbs={gbs:.1} int_reduce_ms={ms:.4} int_reduce_exact={exact}");
    Ok(())
}

fn transpose(ctx: &Context, spinner: &Spinner, copy_gbs: f64) -> Outcome<()> {
    let size = 8192;
    let input = Rng::new(10).f32s(size * size, -1.0, 1.0);
    let device_input = ctx.upload(&input)?;
    let mut output = ctx.alloc_zeros::<f32>(size * size)?;
    let example = Transpose::load(ctx)?;
    let ms = time_ms(20, || timed(ctx, spinner, || example.run(&device_input, &mut output, size, size)))?;
    let got = output.download()?;
    let exact = (0..size).all(|y| (0..size).all(|x| got[x * size + y] == input[y * size + x]));
    let gbs = gb_per_s(2.0 * 4.0 * (size * size) as f64, ms);
    println!(
        "transpose   8192 x 8192 float32         {ms:8.3} ms  {gbs:7.1} GB/s = {:.1}% of copy  (32 x 4 threads, 8 rows each; exact: {exact})",
        100.0 * gbs / copy_gbs
    );
    println!("RESULT transpose_gbs={gbs:.1}");
    // The same tile moved by other block shapes (kernels/bench/transpose_rows.sk).
    let module = kernels::TRANSPOSE_ROWS.load(ctx)?;
    for (name, rows) in [("transpose_r2", 16u32), ("transpose_r4", 8)] {
        let kernel = module.kernel(name)?;
        let config = LaunchConfig::new((size as u32 / 32, size as u32 / 32), (32, rows));
        let s = size as i32;
        let ms =
            time_ms(20, || timed(ctx, spinner, || kernel.launch(&config, args![&device_input, &mut output, s, s])))?;
        let got = output.download()?;
        let exact = (0..size).all(|y| (0..size).all(|x| got[x * size + y] == input[y * size + x]));
        let gbs = gb_per_s(2.0 * 4.0 * (size * size) as f64, ms);
        println!(
            "{name:<11} 8192 x 8192 float32         {ms:8.3} ms  {gbs:7.1} GB/s = {:.1}% of copy  (32 x {rows} threads; exact: {exact})",
            100.0 * gbs / copy_gbs
        );
        println!("RESULT {name}_gbs={gbs:.1}");
    }
    Ok(())
}

fn matmul(ctx: &Context, spinner: &Spinner) -> Outcome<()> {
    let n = 4096;
    let mut rng = Rng::new(11);
    let (a, b) = (rng.f32s(n * n, -1.0, 1.0), rng.f32s(n * n, -1.0, 1.0));
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc_zeros::<f32>(n * n)?;
    let example = Matmul::load(ctx)?;
    let ms = time_ms(10, || timed(ctx, spinner, || example.run(&da, &db, &mut dc, n)))?;
    let error = skc_examples::matmul::max_error(&a, &b, &dc.download()?, n, Some(2048));
    let gflops = 2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e9;
    println!("matmul      4096^3 float32              {ms:8.3} ms  {gflops:7.0} GFLOP/s  (float4 loads, double-buffered, k step 8; max |error| over 2048 samples {error:.1e})");
    println!("RESULT matmul_gflops={gflops:.0}");
    let blocks = (n / 128) as u32;
    let config = LaunchConfig::new((blocks, blocks), (16, 16));
    let kernel = kernels::MATMUL_SCALAR.load(ctx)?.kernel("matmul_scalar")?;
    let ms = time_ms(10, || timed(ctx, spinner, || kernel.launch(&config, args![&da, &db, &mut dc, n as i32])))?;
    let error = skc_examples::matmul::max_error(&a, &b, &dc.download()?, n, Some(2048));
    let gflops = 2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e9;
    println!("matmul_scalar 4096^3 float32            {ms:8.3} ms  {gflops:7.0} GFLOP/s  (scalar loads, one buffer, k step 16; max |error| {error:.1e})");
    println!("RESULT matmul_scalar_gflops={gflops:.0}");
    let kernel = kernels::MATMUL_K8.load(ctx)?.kernel("matmul_k8")?;
    let ms = time_ms(10, || timed(ctx, spinner, || kernel.launch(&config, args![&da, &db, &mut dc, n as i32])))?;
    let error = skc_examples::matmul::max_error(&a, &b, &dc.download()?, n, Some(2048));
    let gflops = 2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e9;
    println!("matmul_k8    4096^3 float32              {ms:8.3} ms  {gflops:7.0} GFLOP/s  (k step 8; max |error| {error:.1e})");
    println!("RESULT matmul_k8_gflops={gflops:.0}");
    Ok(())
}
