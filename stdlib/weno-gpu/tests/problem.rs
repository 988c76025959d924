//! CPU-only checks of the GPU test problems: the references run for every order (with and without solids),
//! a constant tracer gives -c div(u) exactly, and the shell of the region split counts every cell within k of
//! a wall once.

use skc_weno_gpu::device::{shell_count, CellBox, Layout};
use skc_weno_gpu::problem::Problem;

#[test]
fn references_run_and_constants_are_exact() {
    for k in 2..=6 {
        let mut p = Problem::random([13, 12, 12], 6, k as u64, 0.1, false);
        let _ = p.reference(k, true);
        for &(_, i) in &p.cells() {
            p.c[i] = 2.5;
        }
        let g = p.reference(k, false);
        let l = p.layout;
        let (sy, sz) = (l.sy() as usize, l.sz() as usize);
        for (_, i) in p.cells() {
            let div = (p.vel[0][i + 1] - p.vel[0][i]) / p.spacing[0] + (p.vel[1][i + sy] - p.vel[1][i]) / p.spacing[1]
                + (p.vel[2][i + sz] - p.vel[2][i]) / p.spacing[2];
            assert!((g[i] + 2.5 * div).abs() < 1e-11 * (1.0 + div.abs()), "k = {k}");
        }
    }
}

#[test]
fn interior_and_shell_partition_the_grid() {
    for k in 2..=6 {
        let layout = Layout { n: [37, 23, 17], h: 6, bounded: [1, 1, 1] };
        let inner = CellBox::interior(&layout, k);
        let interior: i32 = inner.size.iter().product();
        assert_eq!(interior + shell_count(&layout, k), 37 * 23 * 17);
    }
}
