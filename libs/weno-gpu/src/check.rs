//! GPU correctness: every variant of the manifest against the float64 CPU reference on random fields (all
//! three directions bounded, so every wall's reduced orders are exercised; with a random immersed mask for
//! `_ib` variants), plus the 1-D kernel (periodic and bounded) and the momentum-like kernel.

use std::path::Path;

use skc_runtime::{Kernel, Module};
use skc_weno_tables::reference::Boundary;

use crate::build::{load, read_manifest};
use crate::device::{
    flux_len, global_tables, launch_1d, launch_box, launch_momentum, launch_split, Buffers, CellBox, Gpu, GpuResult,
    Line, Real,
};
use crate::problem::{Problem, Problem1d};
use crate::variants::{Precision, Variant};

/// Largest |gpu - reference| over the cells, relative to the largest |reference|.
fn relative_error(gpu: &[f64], reference: &[f64], cells: &[usize]) -> f64 {
    let scale = cells.iter().map(|&i| reference[i].abs()).fold(0.0, f64::max).max(1e-300);
    cells.iter().map(|&i| (gpu[i] - reference[i]).abs()).fold(0.0, f64::max) / scale
}

pub struct Outcome {
    pub name: String,
    /// (what, relative error)
    pub errors: Vec<(String, f64)>,
    pub tolerance: f64,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.errors.iter().all(|(_, e)| *e <= self.tolerance)
    }
}

fn function(module: &Module, name: &str) -> GpuResult<Kernel> {
    module.kernel(name).map_err(|e| e.to_string())
}

fn upload_problem<T: Real>(gpu: &Gpu, p: &Problem, k: usize, single: bool) -> GpuResult<Buffers<T>> {
    let conv = |v: &Vec<f64>| v.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>();
    Ok(Buffers {
        c: gpu.upload(&conv(&p.c))?,
        vel: [gpu.upload(&conv(&p.vel[0]))?, gpu.upload(&conv(&p.vel[1]))?, gpu.upload(&conv(&p.vel[2]))?],
        act: gpu.upload(&p.act)?,
        g: gpu.zeros(p.layout.len())?,
        gtab: gpu.upload(&global_tables::<T>(k, single))?,
        fb: gpu.zeros(flux_len(&p.layout, k as i32))?,
    })
}

fn to_f64<T: Real>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

/// Runs one variant's kernels on the problems and compares.
fn check_variant<T: Real>(gpu: &Gpu, dir: &Path, v: &Variant) -> GpuResult<Outcome> {
    let single = v.precision == Precision::F32;
    let module = load(&gpu.ctx, dir, v)?;
    let k = v.k;
    let solid = if v.immersed { 0.08 } else { 0.0 };
    let p = Problem::random([37, 23, 17], 6, 7 + k as u64, solid, single);
    let reference = p.reference(k, v.immersed);
    let all: Vec<usize> = p.cells().into_iter().map(|(_, i)| i).collect();
    let interior: Vec<usize> = p
        .cells()
        .into_iter()
        .filter(|(c, _)| (0..3).all(|d| c[d] >= k as i32 && c[d] < p.layout.n[d] - k as i32))
        .map(|(_, i)| i)
        .collect();
    let mut b = upload_problem::<T>(gpu, &p, k, single)?;
    let mut errors = Vec::new();
    let whole = CellBox::whole(&p.layout);
    // tracer_tendency over the whole grid (the fixed strategy is only right away from the walls)
    launch_box(&function(&module, "tracer_tendency")?, &mut b, &p.layout, p.spacing, &whole)?;
    let g = to_f64(&gpu.download(&b.g)?);
    let fixed = v.strategy == 0;
    errors.push((
        "tracer".to_string() + if fixed { " (interior)" } else { "" },
        relative_error(&g, &reference, if fixed { &interior } else { &all }),
    ));
    if v.strategy == 3 {
        b.g = gpu.zeros(p.layout.len())?;
        let (interior, boundary) =
            (function(&module, "tracer_tendency_interior")?, function(&module, "tracer_tendency_boundary")?);
        launch_split(&interior, &boundary, &mut b, &p.layout, p.spacing, k as i32, true)?;
        let g = to_f64(&gpu.download(&b.g)?);
        errors.push(("split".into(), relative_error(&g, &reference, &all)));
    }
    // momentum-like: three components (the tracer and two shifted copies)
    let len = p.layout.len();
    let mut q = vec![0.0; 3 * len];
    for m in 0..3 {
        for &i in &all {
            q[m * len + i] = p.c[i] * (1.0 + 0.5 * m as f64) - m as f64 * 0.25;
            if single {
                q[m * len + i] = q[m * len + i] as f32 as f64;
            }
        }
    }
    let qd = gpu.upload(&q.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>())?;
    let mut gq = gpu.zeros::<T>(3 * len)?;
    launch_momentum(&function(&module, "momentum_tendency")?, &qd, &mut gq, &b, &p.layout, p.spacing, &whole)?;
    let gq = to_f64(&gpu.download(&gq)?);
    let mut worst: f64 = 0.0;
    for m in 0..3 {
        let r = p.reference_momentum(k, m, &q[m * len..(m + 1) * len], v.immersed);
        worst = worst.max(relative_error(&gq[m * len..(m + 1) * len], &r, if fixed { &interior } else { &all }));
    }
    errors.push(("momentum".into(), worst));
    // 1-D, periodic and bounded
    if !fixed {
        for boundary in [Boundary::Periodic, Boundary::Bounded] {
            let p1 = Problem1d::random(61, 6, boundary, 3 + k as u64, solid, single);
            let r = p1.reference(k, v.immersed);
            let conv = |x: &Vec<f64>| x.iter().map(|&y| T::from_f64(y)).collect::<Vec<T>>();
            let (c, u, act) = (gpu.upload(&conv(&p1.c))?, gpu.upload(&conv(&p1.u))?, gpu.upload(&p1.act)?);
            let mut g = gpu.zeros::<T>(p1.c.len())?;
            let bounded = (boundary == Boundary::Bounded) as i32;
            let (n, h, dx) = (p1.n as i32, p1.h as i32, p1.dx);
            let line = Line { c: &c, u: &u, act: &act, gtab: &b.gtab, n, h, bounded, dx };
            launch_1d(&function(&module, "tracer_tendency_1d")?, &line, &mut g)?;
            let g = to_f64(&gpu.download(&g)?);
            let full: Vec<f64> =
                (0..p1.c.len()).map(|i| if i >= p1.h && i < p1.h + p1.n { r[i - p1.h] } else { 0.0 }).collect();
            let cells: Vec<usize> = (p1.h..p1.h + p1.n).collect();
            errors.push((format!("1-D {boundary:?}"), relative_error(&g, &full, &cells)));
        }
    }
    gpu.sync()?;
    Ok(Outcome { name: v.name(), errors, tolerance: if single { 1e-4 } else { 1e-11 } })
}

/// Checks every variant in `dir`'s manifest; prints one line each and returns the outcomes.
pub fn check_all(gpu: &Gpu, dir: &Path) -> GpuResult<Vec<Outcome>> {
    let mut out = Vec::new();
    for (v, _) in read_manifest(dir) {
        let outcome = match v.precision {
            Precision::F64 => check_variant::<f64>(gpu, dir, &v)?,
            Precision::F32 => check_variant::<f32>(gpu, dir, &v)?,
        };
        let parts: Vec<String> = outcome.errors.iter().map(|(w, e)| format!("{w} {e:.1e}")).collect();
        println!("{} {:<28} {}", if outcome.passed() { "ok  " } else { "FAIL" }, outcome.name, parts.join(", "));
        out.push(outcome);
    }
    Ok(out)
}
