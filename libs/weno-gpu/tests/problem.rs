//! CPU-only checks of the GPU test problems: the references run for every order (with and without solids),
//! a constant tracer gives -c div(u) exactly, and the boundary part of the region split covers 2k+2 face slots per
//! row of each bounded direction (one thread per wall of an x row, one per face slot of a y or z row).

use skc_weno_gpu::device::{boundary_count, flux_len, Layout};
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
            let div = (p.vel[0][i + 1] - p.vel[0][i]) / p.spacing[0]
                + (p.vel[1][i + sy] - p.vel[1][i]) / p.spacing[1]
                + (p.vel[2][i + sz] - p.vel[2][i]) / p.spacing[2];
            assert!((g[i] + 2.5 * div).abs() < 1e-11 * (1.0 + div.abs()), "k = {k}");
        }
    }
}

#[test]
fn boundary_fluxes_cover_2k_plus_2_face_slots_per_row() {
    let layout = Layout { n: [37, 23, 17], h: 6, bounded: [1, 0, 1] };
    assert_eq!(boundary_count(&layout, 5, 0), 2 * 23 * 17);
    assert_eq!(boundary_count(&layout, 5, 1), 0);
    assert_eq!(boundary_count(&layout, 5, 2), 12 * 37 * 23);
    assert_eq!(flux_len(&layout, 5), 12 * (23 * 17 + 37 * 23));
}
