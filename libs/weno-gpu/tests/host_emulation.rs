//! The region split and the shell strategy on the host: the emitted CUDA C of their variants, compiled with a
//! C++ compiler (the shims of `host/shim.h`: one thread at a time, each lane its own warp) and run over small
//! grids with walls in various directions. It needs no GPU or NVRTC, so CI checks their indexing.
//!
//! The split (`host/main.cpp`) against `tracer_tendency` of the same module (the per-point dynamic path wherever
//! a wall lowers an order; the GPU check holds it to the CPU reference): which faces part 1 stores where, and
//! which cells part 2 takes from them (the flux buffer starts as 1e30, so a slot read but never written shows).
//!
//! The shell (`host/shell_main.cpp`) over the launch geometry of the host's launch (`ShellGeometry`), for k =
//! 2..6 in both precisions: against the float64 CPU reference where every direction is bounded (the reference's
//! case), and against `tracer_tendency` of the same module everywhere (periodic directions too); every interior
//! cell must be written once (the output starts as NaN) and no halo cell.
//!
//! Needs `c++` (or `$CXX`); with `SKC_REQUIRE_CXX=1` a missing compiler fails the test. Only the static per-order
//! code qualifies (tables in shared memory need the block barrier, which means nothing one thread at a time;
//! global tables need the host's upload).

use std::path::{Path, PathBuf};
use std::process::Command;

use skc_weno_gpu::build::cuda_source;
use skc_weno_gpu::device::{Layout, ShellGeometry};
use skc_weno_gpu::problem::Problem;
use skc_weno_gpu::variants::{Precision, Variant, STRATEGY_SHELL, TABLE_STATIC};

const SHIM: &str = include_str!("host/shim.h");
const MAIN: &str = include_str!("host/main.cpp");
const SHELL_MAIN: &str = include_str!("host/shell_main.cpp");

/// The variant's CUDA C for the host, followed by `main`: no `#line` directives, and the inline-PTX reciprocal
/// replaced by the shim's.
fn host_source(v: &Variant, main: &str) -> String {
    let cuda = cuda_source(v).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<String> = cuda
        .lines()
        .filter(|l| !l.starts_with("#line"))
        .map(|l| {
            for ty in ["float", "double"] {
                let head = format!("__device__ __forceinline__ {ty} skc_rcp_approx({ty} x) {{");
                if l.starts_with(&head) {
                    return format!("{head} return skc_rcp_approx_host(x); }}");
                }
            }
            l.to_string()
        })
        .collect();
    let real = if v.precision == Precision::F32 { "float" } else { "double" };
    format!("{SHIM}\n#define REAL {real}\n#define K {}\n{}\n{main}", v.k, lines.join("\n"))
}

fn build(cxx: &str, dir: &Path, v: &Variant, main: &str) -> PathBuf {
    let cpp = dir.join(format!("{}.cpp", v.name()));
    std::fs::write(&cpp, host_source(v, main)).unwrap();
    let exe = dir.join(v.name());
    let out = Command::new(cxx).args(["-O1", "-w", "-o"]).arg(&exe).arg(&cpp).output().unwrap();
    assert!(out.status.success(), "{}: {}", v.name(), String::from_utf8_lossy(&out.stderr));
    exe
}

#[test]
fn the_region_split_matches_the_dynamic_kernel_on_the_host() {
    let Some(cxx) = skc_tests::require::cxx("host emulation") else { return };
    let dir = std::env::temp_dir().join(format!("skc-weno-host-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut variants: Vec<Variant> = (2..=6).map(|k| Variant::new(Precision::F64, k, 3, 4)).collect();
    variants.extend([3, 5].map(|k| Variant::new(Precision::F32, k, 3, 4)));
    variants.push(Variant { fast_rcp: false, ..Variant::new(Precision::F64, 3, 3, 4) });
    let mut failures = Vec::new();
    for v in &variants {
        let exe = build(&cxx, &dir, v, MAIN);
        // n = 2k in some direction (the smallest the split takes), odd sizes, walls in all, some or one direction
        let n2k = (2 * v.k).to_string();
        let grids: [[&str; 6]; 4] = [
            ["13", "12", "11", "1", "1", "1"],
            [&n2k, "17", "12", "1", "1", "1"],
            ["10", &n2k, "13", "1", "0", "1"],
            ["14", "13", &n2k, "0", "1", "0"],
        ];
        for grid in grids {
            let out = Command::new(&exe).args(grid).output().unwrap();
            assert!(out.status.success(), "{} {grid:?}: {}", v.name(), String::from_utf8_lossy(&out.stderr));
            let error: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
            let tolerance = if v.precision == Precision::F32 { 1e-5 } else { 1e-12 };
            // written so that a NaN error fails too
            if error.is_nan() || error > tolerance {
                failures.push(format!("{} {grid:?}: {error:.2e}", v.name()));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "the split differs from tracer_tendency: {failures:?}");
}

/// Largest |a - b| over `cells`, relative to the largest |b| (NaN if any a is NaN).
fn relative_error(a: &[f64], b: &[f64], cells: &[usize]) -> f64 {
    let scale = cells.iter().map(|&i| b[i].abs()).fold(0.0, f64::max).max(1e-300);
    if cells.iter().any(|&i| a[i].is_nan()) {
        return f64::NAN;
    }
    cells.iter().map(|&i| (a[i] - b[i]).abs()).fold(0.0, f64::max) / scale
}

fn write_f64(path: &Path, data: &[f64]) {
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

fn read_f64(path: &Path) -> Vec<f64> {
    std::fs::read(path).unwrap().chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect()
}

/// Runs the shell variant's executable on a random problem of `n` cells with the walls `bounded`; the failures
/// it finds.
fn check_shell(exe: &Path, dir: &Path, v: &Variant, n: [i32; 3], bounded: [i32; 3]) -> Vec<String> {
    let single = v.precision == Precision::F32;
    let solid = if v.immersed { 0.08 } else { 0.0 };
    let mut p = Problem::random(n, 6, 11 + v.k as u64, solid, single);
    p.layout = Layout { bounded, ..p.layout };
    let len = p.layout.len();
    let geometry = ShellGeometry::new(&p.layout, v.k as i32).unwrap();
    let mut input = p.c.clone();
    for d in 0..3 {
        input.extend(&p.vel[d]);
    }
    input.extend(p.act.iter().map(|&a| a as f64));
    let (input_path, output_path) = (dir.join(format!("{}.in", v.name())), dir.join(format!("{}.out", v.name())));
    write_f64(&input_path, &input);
    let mut args: Vec<String> = vec![input_path.display().to_string(), output_path.display().to_string()];
    args.extend(n.iter().chain(&bounded).map(|x| x.to_string()));
    args.push(p.layout.h.to_string());
    let g = geometry;
    args.extend(
        [g.block_height, g.inner_blocks[0], g.inner_blocks[1], g.shell_planes, g.inner_planes].map(|x| x.to_string()),
    );
    args.extend(p.spacing.map(|d| (1.0 / d).to_string()));
    args.extend(g.inner.start.iter().chain(&g.inner.size).map(|x| x.to_string()));
    let out = Command::new(exe).args(&args).output().unwrap();
    assert!(out.status.success(), "{} {n:?} {bounded:?}: {}", v.name(), String::from_utf8_lossy(&out.stderr));
    let output = read_f64(&output_path);
    let (shell, tracer) = output.split_at(len);
    let interior: Vec<usize> = p.cells().into_iter().map(|(_, i)| i).collect();
    let halo_written = (0..len).filter(|i| !interior.contains(i) && !shell[*i].is_nan()).count();
    let case = format!("{} {n:?} walls {bounded:?}", v.name());
    let mut failures = Vec::new();
    if halo_written > 0 {
        failures.push(format!("{case}: {halo_written} halo cells written"));
    }
    // written so that a NaN error fails too
    let tolerance = if single { 1e-5 } else { 1e-12 };
    let error = relative_error(shell, tracer, &interior);
    if error.is_nan() || error > tolerance {
        failures.push(format!("{case}: {error:.2e} from tracer_tendency"));
    }
    if bounded == [1, 1, 1] {
        let reference = p.reference(v.k, v.immersed);
        let error = relative_error(shell, &reference, &interior);
        if error.is_nan() || error > if single { 1e-4 } else { 1e-11 } {
            failures.push(format!("{case}: {error:.2e} from the CPU reference"));
        }
    }
    failures
}

#[test]
fn the_shell_strategy_matches_the_cpu_reference_on_the_host() {
    let Some(cxx) = skc_tests::require::cxx("host emulation") else { return };
    let dir = std::env::temp_dir().join(format!("skc-weno-host-shell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut variants: Vec<Variant> = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        variants.extend((2..=6).map(|k| Variant::new(precision, k, STRATEGY_SHELL, TABLE_STATIC)));
    }
    variants.push(Variant { fast_rcp: false, ..Variant::new(Precision::F64, 3, STRATEGY_SHELL, TABLE_STATIC) });
    variants.push(Variant { immersed: true, ..Variant::new(Precision::F64, 3, STRATEGY_SHELL, TABLE_STATIC) });
    let mut failures = Vec::new();
    for v in &variants {
        let exe = build(&cxx, &dir, v, SHELL_MAIN);
        let k = v.k as i32;
        // n = 2k (an empty inner box in that direction), odd sizes, walls in all, some or no directions
        let cases: [([i32; 3], [i32; 3]); 7] = [
            ([2 * k + 7, 2 * k + 6, 2 * k + 5], [1, 1, 1]),
            ([2 * k, 2 * k + 9, 2 * k + 1], [1, 1, 1]),
            ([2 * k + 3, 2 * k, 2 * k + 2], [1, 1, 0]),
            ([2 * k + 1, 2 * k + 2, 2 * k + 3], [0, 1, 1]),
            ([2 * k + 2, 2 * k + 1, 2 * k], [1, 0, 1]),
            ([2 * k + 2, 9, 7], [1, 0, 0]),
            ([13, 10, 9], [0, 0, 0]),
        ];
        for (n, bounded) in cases {
            failures.extend(check_shell(&exe, &dir, v, n, bounded));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{failures:#?}");
}
