//! The region split on the host: the emitted CUDA C of the split variants, compiled with a C++ compiler (the
//! shims of `host/shim.h`: one thread at a time, each lane its own warp) and run over small grids with walls in
//! various directions, against `tracer_tendency` of the same module (the per-point dynamic path wherever a wall
//! lowers an order; the GPU check holds it to the CPU reference). It needs no GPU or NVRTC, so CI checks the
//! split's indexing: which faces part 1 stores where, and which cells part 2 takes from them (the flux buffer
//! starts as 1e30, so a slot read but never written shows). Needs `c++` (or `$CXX`); with `SKC_REQUIRE_CXX=1` a
//! missing compiler fails the test. Only the static per-order code qualifies (tables in shared memory need the
//! block barrier, which means nothing one thread at a time; global tables need the host's upload).

use std::path::{Path, PathBuf};
use std::process::Command;

use skc_weno_gpu::build::cuda_source;
use skc_weno_gpu::variants::{Precision, Variant};

const SHIM: &str = include_str!("host/shim.h");
const MAIN: &str = include_str!("host/main.cpp");

/// The variant's CUDA C for the host: no `#line` directives, and the inline-PTX reciprocal replaced by the shim's.
fn host_source(v: &Variant) -> String {
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
    format!("{SHIM}\n#define REAL {real}\n#define K {}\n{}\n{MAIN}", v.k, lines.join("\n"))
}

fn build(cxx: &str, dir: &Path, v: &Variant) -> PathBuf {
    let cpp = dir.join(format!("{}.cpp", v.name()));
    std::fs::write(&cpp, host_source(v)).unwrap();
    let exe = dir.join(v.name());
    let out = Command::new(cxx).args(["-O1", "-w", "-o"]).arg(&exe).arg(&cpp).output().unwrap();
    assert!(out.status.success(), "{}: {}", v.name(), String::from_utf8_lossy(&out.stderr));
    exe
}

#[test]
fn the_region_split_matches_the_dynamic_kernel_on_the_host() {
    let Some(cxx) = skc_tests::require::cxx("host emulation") else { return };
    let dir = std::env::temp_dir().join(format!("skc-weno-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut variants: Vec<Variant> = (2..=6).map(|k| Variant::new(Precision::F64, k, 3, 4)).collect();
    variants.extend([3, 5].map(|k| Variant::new(Precision::F32, k, 3, 4)));
    variants.push(Variant { fast_rcp: false, ..Variant::new(Precision::F64, 3, 3, 4) });
    let mut failures = Vec::new();
    for v in &variants {
        let exe = build(&cxx, &dir, v);
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
