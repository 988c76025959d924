//! 3-D tracer advection with WENO on a grid cut along z into slabs, one per GPU of a [`DeviceSet`]: the
//! tendency of weno_advection.sk's `tracer_tendency` (the `fixed` strategy: every face at full order, as a grid
//! periodic in x, y and z needs), three-stage SSP Runge-Kutta steps and the x-y periodic halos of
//! stdlib/weno/weno_slab.sk, and the z halos exchanged between neighbouring slabs with NCCL send/receive at
//! every stage (on one GPU, device copies of the slab's own far planes).
//!
//! Each device has a compute stream and a communication stream. A stage: fill the x-y halos (compute); the
//! exchange waits for that and moves the z halos (communication) while the compute stream works out the
//! tendency of the planes that read no halo; then the compute stream waits for the exchange, does the planes
//! next to the halos and the Runge-Kutta update. Every cell is computed by the same kernel from the same values
//! whatever the number of slabs, so the field on 2 or 4 GPUs equals the one-GPU field bit for bit.

use std::time::Instant;

use skc_core::session::{stdlib_root, DiskFiles, Session};
use skc_runtime::nccl::{group, Communicator};
use skc_runtime::{args, Arg, Context, DeviceArray, DeviceSet, Kernel, LaunchConfig, Program, Stream};

use crate::decomposition::{Decomposition, Slab};
use crate::device::global_tables;
use crate::variants::{Precision, Variant};

pub type SlabResult<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The flow and the initial tracer on the unit cube, from per-axis tables (so that filling a 512^3 grid costs
/// no trigonometry per cell): u = 1 + 0.3 sin(2 pi y), v = -0.7 + 0.3 sin(2 pi z), w = 0.5 + 0.3 sin(2 pi x), each
/// independent of its own coordinate (divergence-free; a face's velocity is its cell's), and the tracer
/// 2 + sin(2 pi x) cos(2 pi y) sin(2 pi z) + 0.5 cos(4 pi (x + z)), the last term expanded by the angle sum.
struct Fields {
    /// Per axis, per global cell: sin(2 pi t), cos(2 pi t), sin(4 pi t), cos(4 pi t) at the cell centre t.
    tables: [Vec<[f64; 4]>; 3],
}

impl Fields {
    fn new(n: [usize; 3]) -> Fields {
        use std::f64::consts::TAU;
        let axis = |n: usize| {
            (0..n)
                .map(|i| {
                    let t = (i as f64 + 0.5) / n as f64;
                    [(TAU * t).sin(), (TAU * t).cos(), (2.0 * TAU * t).sin(), (2.0 * TAU * t).cos()]
                })
                .collect()
        };
        Fields { tables: [axis(n[0]), axis(n[1]), axis(n[2])] }
    }

    fn tracer(&self, [i, j, l]: [usize; 3]) -> f64 {
        let (x, y, z) = (self.tables[0][i], self.tables[1][j], self.tables[2][l]);
        2.0 + x[0] * y[1] * z[0] + 0.5 * (x[3] * z[3] - x[2] * z[2])
    }

    fn velocity(&self, direction: usize, [i, j, l]: [usize; 3]) -> f64 {
        match direction {
            0 => 1.0 + 0.3 * self.tables[1][j][0],
            1 => -0.7 + 0.3 * self.tables[2][l][0],
            _ => 0.5 + 0.3 * self.tables[0][i][0],
        }
    }
}

/// One device's slab and its buffers.
struct Rank {
    slab: Slab,
    ctx: Context,
    compute: Stream,
    comm: Stream,
    tendency: Kernel,
    halo_xy: Kernel,
    rk: Kernel,
    /// The three state buffers (the step's start, and the stages' outputs), rotated by `current`.
    fields: [DeviceArray<f64>; 3],
    g: DeviceArray<f64>,
    vel: [DeviceArray<f64>; 3],
    act: DeviceArray<i32>,
    gtab: DeviceArray<f64>,
}

/// A tracer field advected over the devices of a set.
pub struct SlabAdvection {
    d: Decomposition,
    ranks: Vec<Rank>,
    comms: Vec<Communicator>,
    /// Which of `fields` holds the state at the start of a step.
    current: usize,
    pub dt: f64,
}

/// The programs: `tracer_tendency` of the fixed-order variant (order 2k-1), and weno_slab.sk.
fn programs(k: usize) -> SlabResult<(Program, Program)> {
    let tendency = crate::build::program(&Variant::new(Precision::F64, k, 0, 0))?;
    let files = DiskFiles::new();
    let session = Session::standard(&files);
    let path = stdlib_root().join("weno/weno_slab.sk");
    let compiled = session.compile_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((tendency, Program::from_compiled("weno_slab.cu", &compiled)))
}

impl SlabAdvection {
    /// Sets up the grid of `n` cells (unit cube, periodic) at WENO order 2k-1 over `devices` (slab i on the set's
    /// device i), with the initial tracer, and a time step of `cfl` times the cell size over the largest speed.
    pub fn new(devices: &DeviceSet, n: [usize; 3], k: usize, cfl: f64) -> SlabResult<SlabAdvection> {
        let d = Decomposition::new(n, k, devices.len())?;
        let (tendency_program, slab_program) = programs(k)?;
        let tendency_modules = devices.load(&tendency_program).map_err(err)?;
        let slab_modules = devices.load(&slab_program).map_err(err)?;
        let fields = Fields::new(n);
        let mut ranks = Vec::with_capacity(devices.len());
        for (rank, ctx) in devices.contexts().iter().enumerate() {
            let slab = d.slab(rank);
            let kernel = |m: &skc_runtime::Module, name: &str| m.kernel(name).map_err(err);
            let len = d.padded_len(slab.planes.len());
            let array = |ctx: &Context| ctx.device_array::<f64>(len).map_err(err);
            let gtab_values = global_tables::<f64>(k, false);
            let gtab = ctx.device_array::<f64>(gtab_values.len()).map_err(err)?;
            gtab.upload_at(0, &gtab_values).map_err(err)?;
            let r = Rank {
                ctx: ctx.clone(),
                compute: ctx.new_stream().map_err(err)?,
                comm: ctx.new_stream().map_err(err)?,
                tendency: kernel(&tendency_modules[rank], "tracer_tendency")?,
                halo_xy: kernel(&slab_modules[rank], "periodic_halo_xy")?,
                rk: kernel(&slab_modules[rank], "rk_stage")?,
                fields: [array(ctx)?, array(ctx)?, array(ctx)?],
                g: array(ctx)?,
                vel: [array(ctx)?, array(ctx)?, array(ctx)?],
                act: ctx.device_array::<i32>(len).map_err(err)?,
                gtab,
                slab,
            };
            fill_initial(&d, &fields, &r)?;
            ranks.push(r);
        }
        let comms = if devices.len() > 1 { Communicator::init_all(devices).map_err(err)? } else { Vec::new() };
        let dx = 1.0 / n.iter().copied().max().unwrap_or(1) as f64;
        // The largest speed of the flow (`Fields`).
        let speed = 1.3;
        Ok(SlabAdvection { d, ranks, comms, current: 0, dt: cfl * dx / speed })
    }

    pub fn decomposition(&self) -> &Decomposition {
        &self.d
    }

    /// Advances `steps` time steps and waits for every device; returns the host's wall time in milliseconds.
    pub fn run(&mut self, steps: usize) -> SlabResult<f64> {
        let started = Instant::now();
        for _ in 0..steps {
            self.step()?;
        }
        self.synchronize()?;
        Ok(started.elapsed().as_secs_f64() * 1e3)
    }

    pub fn synchronize(&self) -> SlabResult<()> {
        for r in &self.ranks {
            r.compute.synchronize().map_err(err)?;
            r.comm.synchronize().map_err(err)?;
        }
        Ok(())
    }

    /// One SSP-RK3 step: c1 = c0 + dt L(c0); c2 = 3/4 c0 + 1/4 (c1 + dt L(c1)); c0 = 1/3 c0 + 2/3 (c2 + dt L(c2)).
    fn step(&mut self) -> SlabResult<()> {
        let c0 = self.current;
        let (x, y) = ((c0 + 1) % 3, (c0 + 2) % 3);
        self.stage(c0, c0, x, 0.0, 1.0)?;
        self.stage(c0, x, y, 0.75, 0.25)?;
        self.stage(c0, y, x, 1.0 / 3.0, 2.0 / 3.0)?;
        self.current = x;
        Ok(())
    }

    /// out = a c0 + b (input + dt L(input)) on every slab, buffers named by index into `fields`.
    fn stage(&self, c0: usize, input: usize, out: usize, a: f64, b: f64) -> SlabResult<()> {
        let mut filled = Vec::with_capacity(self.ranks.len());
        for r in &self.ranks {
            self.launch_halo_xy(r, input)?;
            let event = r.compute.record_event().map_err(err)?;
            r.comm.wait_event(&event).map_err(err)?;
            filled.push(event);
        }
        self.exchange_z(input)?;
        for r in &self.ranks {
            let nl = r.slab.planes.len();
            self.launch_tendency(r, input, self.d.inner_planes(nl))?;
        }
        for r in &self.ranks {
            let nl = r.slab.planes.len();
            let arrived = r.comm.record_event().map_err(err)?;
            r.compute.wait_event(&arrived).map_err(err)?;
            for planes in self.d.edge_planes(nl) {
                self.launch_tendency(r, input, planes)?;
            }
            self.launch_rk(r, c0, input, out, a, b)?;
        }
        drop(filled);
        Ok(())
    }

    /// The z halos of buffer `field`: NCCL between slabs, or the slab's own far planes on one device.
    fn exchange_z(&self, field: usize) -> SlabResult<()> {
        let d = &self.d;
        if self.ranks.len() == 1 {
            let r = &self.ranks[0];
            let nl = r.slab.planes.len();
            let f = &r.fields[field];
            f.copy_within_on(d.send_up(nl), d.lower_halo().start, &r.comm).map_err(err)?;
            return f.copy_within_on(d.send_down(), d.upper_halo(nl).start, &r.comm).map_err(err);
        }
        // Per pair of ranks NCCL matches sends and receives in the order they are posted: every rank sends up
        // then down and receives from below then from above, which pairs "up" with "from below" even when the
        // neighbours below and above are the same rank (two slabs).
        group(|| {
            for (r, comm) in self.ranks.iter().zip(&self.comms) {
                let nl = r.slab.planes.len();
                let f = &r.fields[field];
                comm.send(f, d.send_up(nl), r.slab.upper, &r.comm)?;
                comm.send(f, d.send_down(), r.slab.lower, &r.comm)?;
                comm.recv(f, d.lower_halo(), r.slab.lower, &r.comm)?;
                comm.recv(f, d.upper_halo(nl), r.slab.upper, &r.comm)?;
            }
            Ok(())
        })
        .map_err(err)
    }

    fn launch_halo_xy(&self, r: &Rank, field: usize) -> SlabResult<()> {
        let d = &self.d;
        let (nx, ny, h, nl) = (d.n[0] as i32, d.n[1] as i32, d.h as i32, r.slab.planes.len() as i32);
        let (px, py) = ((nx + 2 * h) as u32, (ny + 2 * h) as u32);
        let config = LaunchConfig::new((px.div_ceil(32), py.div_ceil(8), nl as u32), (32, 8, 1));
        let mut a: Vec<Arg> = args![&r.fields[field], nx, ny, h, h, nl].into_iter().collect();
        r.halo_xy.launch_on(&r.compute, &config, &mut a).map_err(|e| format!("device {}: {e}", r.ctx.device().ordinal))
    }

    fn launch_tendency(&self, r: &Rank, field: usize, planes: std::ops::Range<usize>) -> SlabResult<()> {
        if planes.is_empty() {
            return Ok(());
        }
        let d = &self.d;
        let h = d.h as i32;
        let (nx, ny, nl) = (d.n[0] as i32, d.n[1] as i32, r.slab.planes.len() as i32);
        let sy = nx + 2 * h;
        let sz = sy * (ny + 2 * h);
        let off = h * (1 + sy + sz);
        let inv = |n: usize| n as f64;
        let (l0, count) = (planes.start as i32, planes.len() as i32);
        let config = LaunchConfig::new(((nx as u32).div_ceil(32), (ny as u32).div_ceil(8), count as u32), (32, 8, 1));
        let [u, v, w] = &r.vel;
        let mut a: Vec<Arg> = args![&r.fields[field], u, v, w, &r.act, &r.g, &r.gtab]
            .into_iter()
            .chain(args![nx, ny, nl, sy, sz, off, 0i32, 0i32, 0i32, inv(d.n[0]), inv(d.n[1]), inv(d.n[2])])
            .chain(args![0i32, 0i32, l0, nx, ny, count])
            .collect();
        r.tendency.launch_on(&r.compute, &config, &mut a).map_err(|e| format!("device {}: {e}", r.ctx.device().ordinal))
    }

    fn launch_rk(&self, r: &Rank, c0: usize, input: usize, out: usize, a: f64, b: f64) -> SlabResult<()> {
        let d = &self.d;
        let (nx, ny, nl, h) = (d.n[0] as i32, d.n[1] as i32, r.slab.planes.len() as i32, d.h as i32);
        let config = LaunchConfig::new(((nx as u32).div_ceil(32), (ny as u32).div_ceil(8), nl as u32), (32, 8, 1));
        let f = &r.fields;
        let mut args: Vec<Arg> =
            args![&f[c0], &f[input], &r.g, &f[out], a, b, self.dt, nx, ny, nl, h].into_iter().collect();
        r.rk.launch_on(&r.compute, &config, &mut args).map_err(|e| format!("device {}: {e}", r.ctx.device().ordinal))
    }

    /// The tracer over the whole grid (x fastest, then y, then z), gathered from every slab.
    pub fn download(&self) -> SlabResult<Vec<f64>> {
        self.synchronize()?;
        let d = &self.d;
        let [nx, ny, nz] = d.n;
        let (h, sy) = (d.h, nx + 2 * d.h);
        let sz = sy * (ny + 2 * h);
        let mut out = vec![0.0; nx * ny * nz];
        for r in &self.ranks {
            let padded = r.fields[self.current].download().map_err(err)?;
            for (l, z) in r.slab.planes.clone().enumerate() {
                for j in 0..ny {
                    let from = (l + h) * sz + (j + h) * sy + h;
                    out[(z * ny + j) * nx..(z * ny + j + 1) * nx].copy_from_slice(&padded[from..from + nx]);
                }
            }
        }
        Ok(out)
    }
}

/// Uploads the initial tracer and the velocities (everywhere, halos included: the velocities never change).
fn fill_initial(d: &Decomposition, fields: &Fields, r: &Rank) -> SlabResult<()> {
    let nl = r.slab.planes.len();
    let (px, py, pz) = (d.n[0] + 2 * d.h, d.n[1] + 2 * d.h, nl + 2 * d.h);
    let plane = px * py;
    let mut c = vec![0.0; plane * pz];
    let mut vel = [vec![0.0; plane * pz], vec![0.0; plane * pz], vec![0.0; plane * pz]];
    for lp in 0..pz {
        for jp in 0..py {
            for ip in 0..px {
                let e = lp * plane + jp * px + ip;
                let cell = d.global_cell(&r.slab, ip, jp, lp);
                c[e] = fields.tracer(cell);
                for (a, v) in vel.iter_mut().enumerate() {
                    v[e] = fields.velocity(a, cell);
                }
            }
        }
    }
    let up = |a: &DeviceArray<f64>, data: &[f64]| a.upload_at(0, data).map_err(err);
    up(&r.fields[0], &c)?;
    for (a, v) in r.vel.iter().zip(&vel) {
        up(a, v)?;
    }
    r.act.upload_at(0, &vec![1; plane * pz]).map_err(err)
}
