//! The benchmark: 256^3 cells bounded in x, y and z, every benchmark variant of the manifest (both precisions,
//! WENO5 and WENO9), timed with CUDA events (median of 10 launches after 2 warm-up launches), against the
//! fixed-order kernel (the floor); plus the momentum-like kernel, registers and spills, and for the floor the
//! fraction of the FP64 (FP32) FMA peak from the SASS instruction counts (cuobjdump, when present).

use std::path::Path;

use skc_runtime::{DeviceBuffer, Module};

use skc_weno_gpu::build::{load, read_manifest, Resources};
use skc_weno_gpu::device::{
    boundary_count, flux_len, global_tables, launch_boundary, launch_box, launch_interior, launch_momentum,
    launch_split, Buffers, CellBox, Gpu, GpuResult, Layout, Real,
};
use skc_weno_gpu::problem::Rng;
use skc_weno_gpu::variants::{self, Precision, Variant, STRATEGIES, TABLES};

/// Times one variant's tracer and momentum kernels (ms).
type RunVariant<'a> = dyn FnMut(&Variant, &Module) -> GpuResult<(f64, f64)> + 'a;

pub struct Row {
    pub variant: Variant,
    pub tracer_ms: f64,
    pub momentum_ms: f64,
    pub registers: u32,
    pub spills: u32,
    pub note: String,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn timed(gpu: &Gpu, mut launch: impl FnMut() -> GpuResult<()>) -> GpuResult<f64> {
    for _ in 0..2 {
        launch()?;
    }
    gpu.sync()?;
    let mut times = Vec::new();
    for _ in 0..10 {
        times.push(gpu.time(&mut launch)?);
    }
    Ok(median(times))
}

struct Fields<T: Real> {
    layout: Layout,
    b: Buffers<T>,
    q: DeviceBuffer<T>,
    gq: DeviceBuffer<T>,
}

fn fields<T: Real>(gpu: &Gpu, n: i32) -> GpuResult<Fields<T>> {
    let layout = Layout { n: [n; 3], h: 6, bounded: [1, 1, 1] };
    let len = layout.len();
    let mut rng = Rng::new(99);
    let c: Vec<T> = (0..len).map(|i| T::from_f64(1.0 + (i as f64 * 1e-3).sin() + 0.1 * rng.uniform())).collect();
    let mut vel = Vec::new();
    for d in 0..3 {
        let mut v: Vec<T> = (0..len).map(|_| T::from_f64(2.0 * rng.uniform() - 1.0)).collect();
        // walls: zero normal velocity on faces 0 and n
        for l in 0..n {
            for j in 0..n {
                for f in [0, n] {
                    let p = match d {
                        0 => [f, j, l],
                        1 => [j, f, l],
                        _ => [j, l, f],
                    };
                    v[layout.index(p[0], p[1], p[2])] = T::from_f64(0.0);
                }
            }
        }
        vel.push(gpu.upload(&v)?);
    }
    let q: Vec<T> = (0..3 * len).map(|i| T::from_f64(1.0 + (i as f64 * 7e-4).cos())).collect();
    let vel: [DeviceBuffer<T>; 3] = vel.try_into().map_err(|_| "three velocities".to_string())?;
    Ok(Fields {
        layout,
        b: Buffers {
            c: gpu.upload(&c)?,
            vel,
            act: gpu.upload(&vec![1i32; len])?,
            g: gpu.zeros(len)?,
            gtab: gpu.zeros(1)?,
            // the largest k's (6)
            fb: gpu.zeros(flux_len(&layout, 6))?,
        },
        q: gpu.upload(&q)?,
        gq: gpu.zeros(3 * len)?,
    })
}

fn run_variant<T: Real>(gpu: &Gpu, module: &Module, v: &Variant, f: &mut Fields<T>) -> GpuResult<(f64, f64)> {
    let spacing = [1.0, 1.0, 1.0];
    let layout = f.layout;
    f.b.gtab = gpu.upload(&global_tables::<T>(v.k, v.precision == Precision::F32))?;
    let fun = |name: &str| module.kernel(name).map_err(|e| e.to_string());
    let whole = CellBox::whole(&layout);
    let tracer = if v.strategy == 3 {
        let (interior, boundary) = (fun("tracer_tendency_interior")?, fun("tracer_tendency_boundary")?);
        timed(gpu, || launch_split(&interior, &boundary, &mut f.b, &layout, spacing, v.k as i32, true))?
    } else {
        let t = fun("tracer_tendency")?;
        timed(gpu, || launch_box(&t, &mut f.b, &layout, spacing, &whole))?
    };
    let m = fun("momentum_tendency")?;
    let momentum = timed(gpu, || launch_momentum(&m, &f.q, &mut f.gq, &f.b, &layout, spacing, &whole))?;
    Ok((tracer, momentum))
}

/// Counts of floating-point pipe instructions of `kernel` in the CUBIN, from cuobjdump's SASS.
pub fn sass_counts(cubin: &Path, kernel: &str, single: bool) -> Option<(usize, usize, usize)> {
    let tool = ["/usr/local/cuda/bin/cuobjdump", "cuobjdump"]
        .into_iter()
        .find(|t| std::process::Command::new(t).arg("--version").output().is_ok())?;
    let out = std::process::Command::new(tool).args(["-sass", "-fun", kernel]).arg(cubin).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let ops: [&str; 3] = if single { ["FFMA", "FADD", "FMUL"] } else { ["DFMA", "DADD", "DMUL"] };
    let count =
        |op: &str| text.lines().filter(|l| l.split_whitespace().any(|w| w.split('.').next() == Some(op))).count();
    Some((count(ops[0]), count(ops[1]), count(ops[2])))
}

fn resources_of(res: &[Resources], v: &Variant) -> (u32, u32) {
    let names: &[&str] =
        if v.strategy == 3 { &["tracer_tendency_interior", "tracer_tendency_boundary"] } else { &["tracer_tendency"] };
    let rs: Vec<&Resources> = res.iter().filter(|r| names.contains(&r.kernel.as_str())).collect();
    (rs.iter().map(|r| r.registers).max().unwrap_or(0), rs.iter().map(|r| r.spill_stores + r.spill_loads).sum())
}

/// Where the region split's time goes: its two launches timed alone (median of 10; the boundary also for one
/// bounded direction at a time), their sum, and the whole split.
fn split_breakdown<T: Real>(gpu: &Gpu, module: &Module, v: &Variant, f: &mut Fields<T>) -> GpuResult<String> {
    let spacing = [1.0, 1.0, 1.0];
    let layout = f.layout;
    let k = v.k as i32;
    let fun = |name: &str| module.kernel(name).map_err(|e| e.to_string());
    let (interior, boundary) = (fun("tracer_tendency_interior")?, fun("tracer_tendency_boundary")?);
    let whole = CellBox::whole(&layout);
    let t_interior = timed(gpu, || launch_interior(&interior, &mut f.b, &layout, spacing, &whole, false))?;
    let mut parts = vec![format!("interior {:.3}", t_interior)];
    for dir in 0..3 {
        let only = Layout { bounded: std::array::from_fn(|d| (d == dir) as i32 * layout.bounded[d]), ..layout };
        if boundary_count(&only, k, dir) == 0 {
            continue;
        }
        let t = timed(gpu, || launch_boundary(&boundary, &mut f.b, &only, k))?;
        parts.push(format!("boundary {} {:.3}", ["x", "y", "z"][dir], t));
    }
    let t_bound = timed(gpu, || launch_boundary(&boundary, &mut f.b, &layout, k))?;
    let t_serial = timed(gpu, || launch_split(&interior, &boundary, &mut f.b, &layout, spacing, k, false))?;
    let t_split = timed(gpu, || launch_split(&interior, &boundary, &mut f.b, &layout, spacing, k, true))?;
    Ok(format!(
        "{}, boundary (all directions, one launch) {:.3}; interior + boundary {:.3}, the split with the interior \
         launched after part 1 {:.3}, as its dependent launch (the default) {:.3} ms",
        parts.join(", "),
        t_bound,
        t_interior + t_bound,
        t_serial,
        t_split
    ))
}

/// Runs every variant of the manifest (or only those named in `only`); prints a Markdown report.
pub fn bench_all(gpu: &Gpu, dir: &Path, n: i32, only: Option<&[String]>) -> GpuResult<Vec<Row>> {
    let manifest: Vec<(Variant, Vec<Resources>)> = read_manifest(dir)
        .into_iter()
        .filter(|(v, _)| !v.immersed && (v.k == 3 || v.k == 5))
        .filter(|(v, _)| only.as_ref().is_none_or(|o| o.contains(&v.name())))
        .collect();
    // in the order of benchmark_variants (a sharded build writes the manifest in another)
    let order = variants::benchmark_variants();
    let mut manifest = manifest;
    manifest.sort_by_key(|(v, _)| order.iter().position(|o| o == v).unwrap_or(usize::MAX));
    let sms = gpu.sm_count() as f64;
    let clock = gpu.clock_khz() as f64 * 1e3;
    println!("device: {} ({} SMs, {:.0} MHz), {n}^3 cells bounded in x, y, z\n", gpu.name(), sms, clock / 1e6);
    let mut rows = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        let single = precision == Precision::F32;
        let run = |f: &mut RunVariant| -> GpuResult<Vec<Row>> {
            let mut out = Vec::new();
            for (v, res) in manifest.iter().filter(|(v, _)| v.precision == precision) {
                let module = load(&gpu.ctx, dir, v)?;
                let (tracer_ms, momentum_ms) = f(v, &module)?;
                let (registers, spills) = resources_of(res, v);
                out.push(Row { variant: v.clone(), tracer_ms, momentum_ms, registers, spills, note: String::new() });
            }
            Ok(out)
        };
        let mut breakdowns = Vec::new();
        let mut part = if single {
            let mut f = fields::<f32>(gpu, n)?;
            run(&mut |v, m| {
                if v.strategy == 3 {
                    breakdowns.push(format!("{}: {}", v.name(), split_breakdown(gpu, m, v, &mut f)?));
                }
                run_variant(gpu, m, v, &mut f)
            })?
        } else {
            let mut f = fields::<f64>(gpu, n)?;
            run(&mut |v, m| {
                if v.strategy == 3 {
                    breakdowns.push(format!("{}: {}", v.name(), split_breakdown(gpu, m, v, &mut f)?));
                }
                run_variant(gpu, m, v, &mut f)
            })?
        };
        for b in &breakdowns {
            println!("split {b}");
        }
        for row in part.iter_mut().filter(|r| r.variant.strategy == 0) {
            let cubin = dir.join(format!("{}.cubin", row.variant.name()));
            if let Some((fma, add, mul)) = sass_counts(&cubin, "tracer_tendency", single) {
                let per_clk = if single { 128.0 } else { 64.0 };
                let cells = (n as f64).powi(3);
                let seconds = row.tracer_ms * 1e-3;
                let pipe = (fma + add + mul) as f64 * cells / seconds / (sms * per_clk * clock);
                let flops = (2 * fma + add + mul) as f64 * cells / seconds / (2.0 * sms * per_clk * clock);
                row.note = format!(
                    "{fma} FMA + {add} add + {mul} mul per cell: pipe {:.0}% of peak, {:.0}% of FMA FLOP peak",
                    pipe * 100.0,
                    flops * 100.0
                );
            }
        }
        rows.extend(part);
    }
    print_report(&rows);
    Ok(rows)
}

pub fn print_report(rows: &[Row]) {
    println!("| precision | k (order) | variant | tracer ms | x floor | momentum ms | x floor | registers | spills | notes |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for row in rows {
        let v = &row.variant;
        // the floor: the fixed-order kernel with the same division
        let floor = rows.iter().find(|r| {
            r.variant.precision == v.precision
                && r.variant.k == v.k
                && r.variant.strategy == 0
                && r.variant.fast_rcp == v.fast_rcp
        });
        let (ft, fm) = floor.map(|f| (f.tracer_ms, f.momentum_ms)).unwrap_or((f64::NAN, f64::NAN));
        let mut label = STRATEGIES[v.strategy].to_string();
        if v.strategy != 0 {
            label += &format!(" / {}", TABLES[v.table]);
        }
        if !v.fast_rcp {
            label += " / IEEE division";
        }
        if *v == variants::default_variant(v.precision, v.k) {
            label += " (default)";
        }
        println!(
            "| {} | {} ({}) | {} | {:.3} | {:.2} | {:.3} | {:.2} | {} | {} | {} |",
            v.precision.name(),
            v.k,
            2 * v.k - 1,
            label,
            row.tracer_ms,
            row.tracer_ms / ft,
            row.momentum_ms,
            row.momentum_ms / fm,
            row.registers,
            row.spills,
            row.note
        );
    }
}
