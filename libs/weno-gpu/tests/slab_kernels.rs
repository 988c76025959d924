//! stdlib/weno/weno_slab.sk run on the CPU by skc-interp (every thread of the launch, races checked) against a
//! plain Rust reference: the x-y periodic halo fill and the Runge-Kutta stage, on small odd-sized slabs. No GPU.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program};

fn program() -> Program {
    let path = skc_core::session::stdlib_root().join("weno/weno_slab.sk");
    let text = std::fs::read_to_string(&path).expect("weno_slab.sk");
    let checked = skc_core::check(&path.display().to_string(), &text, &skc_core::NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    Program::new(&checked)
}

fn geometry(x: usize, y: usize, z: usize) -> Geometry {
    Geometry { grid: [x.div_ceil(8) as u32, y.div_ceil(4) as u32, z as u32], block: [8, 4, 1], dynamic_shared_bytes: 0 }
}

fn run(program: &Program, kernel: &str, geometry: &Geometry, args: &mut [Arg]) {
    let outcome = launch(program, kernel, geometry, args, &Options::default()).expect("the launch starts");
    assert!(outcome.completed && outcome.reports.is_empty(), "{kernel}: {:?}", outcome.reports);
}

/// A value that tells every padded cell apart.
fn marker(e: usize) -> f64 {
    e as f64 * 0.5 + 1.0
}

#[test]
fn periodic_halo_xy_copies_the_wrapped_interior_cells() {
    let program = program();
    for (nx, ny, nl, h) in [(5, 4, 3, 2), (7, 3, 2, 3), (4, 6, 1, 1)] {
        let (px, py, pz) = (nx + 2 * h, ny + 2 * h, nl + 2 * h);
        let original: Vec<f64> = (0..px * py * pz).map(marker).collect();
        // The kernel fills the interior planes h .. h + nl - 1 only.
        let mut args = vec![
            Arg::Vector(Buffer::from_f64(&original)),
            Arg::i32(nx as i32),
            Arg::i32(ny as i32),
            Arg::i32(h as i32),
            Arg::i32(h as i32),
            Arg::i32(nl as i32),
        ];
        run(&program, "periodic_halo_xy", &geometry(px, py, nl), &mut args);
        let got = args[0].buffer().unwrap().as_f64();
        let mut want = original.clone();
        for lp in h..h + nl {
            for jp in 0..py {
                for ip in 0..px {
                    let interior = (h..h + nx).contains(&ip) && (h..h + ny).contains(&jp);
                    if !interior {
                        let (is, js) = (h + (ip + nx - h) % nx, h + (jp + ny - h) % ny);
                        want[(lp * py + jp) * px + ip] = original[(lp * py + js) * px + is];
                    }
                }
            }
        }
        assert_eq!(got, want, "nx {nx} ny {ny} nl {nl} h {h}");
    }
}

#[test]
fn rk_stage_updates_the_interior_only() {
    let program = program();
    let (nx, ny, nl, h) = (5usize, 3usize, 4usize, 2usize);
    let len = (nx + 2 * h) * (ny + 2 * h) * (nl + 2 * h);
    let c0: Vec<f64> = (0..len).map(|e| (e as f64 * 0.37).sin()).collect();
    let c: Vec<f64> = (0..len).map(|e| (e as f64 * 0.11).cos()).collect();
    let g: Vec<f64> = (0..len).map(|e| e as f64 * 1e-3 - 0.2).collect();
    let out = vec![-7.0; len];
    let (a, b, dt) = (0.75, 0.25, 0.01);
    let mut args = vec![
        Arg::Vector(Buffer::from_f64(&c0)),
        Arg::Vector(Buffer::from_f64(&c)),
        Arg::Vector(Buffer::from_f64(&g)),
        Arg::Vector(Buffer::from_f64(&out)),
        Arg::f64(a),
        Arg::f64(b),
        Arg::f64(dt),
        Arg::i32(nx as i32),
        Arg::i32(ny as i32),
        Arg::i32(nl as i32),
        Arg::i32(h as i32),
    ];
    run(&program, "rk_stage", &geometry(nx, ny, nl), &mut args);
    let got = args[3].buffer().unwrap().as_f64();
    let (sy, sz) = (nx + 2 * h, (nx + 2 * h) * (ny + 2 * h));
    let mut updated = 0;
    for (e, value) in got.iter().enumerate() {
        let (ip, jp, lp) = (e % sy, e / sy % (ny + 2 * h), e / sz);
        let interior = (h..h + nx).contains(&ip) && (h..h + ny).contains(&jp) && (h..h + nl).contains(&lp);
        if interior {
            let want = a * c0[e] + b * (c[e] + dt * g[e]);
            assert!((value - want).abs() <= 1e-15 * want.abs().max(1.0), "cell {e}: {value} != {want}");
            updated += 1;
        } else {
            assert_eq!(*value, -7.0, "halo cell {e} was written");
        }
    }
    assert_eq!(updated, nx * ny * nl);
}
