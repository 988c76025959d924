//! The launches of the weno_advection.sk kernels with their parameter lists, over skc-runtime (checked launches,
//! device buffers, event timing on the context's stream).

use skc_runtime::{args, Arg, Context, DeviceBuffer, DeviceElem, Kernel, LaunchConfig, ScalarValue};

/// The compute precision of a variant, on the host.
pub trait Real: DeviceElem + Into<ScalarValue> {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f64 {
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl Real for f32 {
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// The device the checks and the benchmark run on.
pub struct Gpu {
    pub ctx: Context,
}

pub type GpuResult<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Gpu {
    pub fn new() -> GpuResult<Gpu> {
        Ok(Gpu { ctx: Context::new(0).map_err(err)? })
    }

    pub fn name(&self) -> String {
        self.ctx.device().name.clone()
    }

    pub fn sm_count(&self) -> i64 {
        self.ctx.device().multiprocessors as i64
    }

    /// Boost clock in kHz.
    pub fn clock_khz(&self) -> i64 {
        self.ctx.device().clock_khz as i64
    }

    pub fn upload<T: DeviceElem>(&self, data: &[T]) -> GpuResult<DeviceBuffer<T>> {
        self.ctx.upload(data).map_err(err)
    }

    pub fn zeros<T: DeviceElem>(&self, n: usize) -> GpuResult<DeviceBuffer<T>> {
        self.ctx.alloc_zeros(n).map_err(err)
    }

    pub fn download<T: DeviceElem>(&self, data: &DeviceBuffer<T>) -> GpuResult<Vec<T>> {
        data.download().map_err(err)
    }

    pub fn sync(&self) -> GpuResult<()> {
        self.ctx.synchronize().map_err(err)
    }

    /// Milliseconds between two events around `work` (which enqueues launches).
    pub fn time(&self, mut work: impl FnMut() -> GpuResult<()>) -> GpuResult<f64> {
        let timer = self.ctx.stream().start_timer().map_err(err)?;
        work()?;
        Ok(timer.stop().map_err(err)? as f64)
    }
}

/// Sizes and layout of a grid with halos (see weno_advection.sk).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub n: [i32; 3],
    pub h: i32,
    pub bounded: [i32; 3],
}

impl Layout {
    pub fn sy(&self) -> i32 {
        self.n[0] + 2 * self.h
    }
    pub fn sz(&self) -> i32 {
        self.sy() * (self.n[1] + 2 * self.h)
    }
    pub fn len(&self) -> usize {
        (self.sz() * (self.n[2] + 2 * self.h)) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn off(&self) -> i32 {
        self.h * (1 + self.sy() + self.sz())
    }
    pub fn index(&self, i: i32, j: i32, l: i32) -> usize {
        (self.off() + i + j * self.sy() + l * self.sz()) as usize
    }
}

/// Device buffers of one 3-D problem.
pub struct Buffers<T: Real> {
    pub c: DeviceBuffer<T>,
    pub vel: [DeviceBuffer<T>; 3],
    pub act: DeviceBuffer<i32>,
    pub g: DeviceBuffer<T>,
    pub gtab: DeviceBuffer<T>,
    /// The region split's face fluxes near the walls (`flux_len`).
    pub fb: DeviceBuffer<T>,
}

/// A box of cells: start and size.
#[derive(Clone, Copy, Debug)]
pub struct CellBox {
    pub start: [i32; 3],
    pub size: [i32; 3],
}

impl CellBox {
    pub fn whole(layout: &Layout) -> CellBox {
        CellBox { start: [0; 3], size: layout.n }
    }
}

/// Face slots per row of a bounded direction in the split's flux buffer (`flux_slots` of weno_advection.sk).
pub fn flux_slots(k: i32) -> i32 {
    2 * k + 2
}

/// Length of the split's flux buffer: `flux_slots` per row of every bounded direction.
pub fn flux_len(layout: &Layout, k: i32) -> usize {
    let [nx, ny, nz] = layout.n;
    let rows = [ny * nz, nx * nz, nx * ny];
    (0..3).map(|d| (layout.bounded[d] != 0) as usize * (flux_slots(k) * rows[d]) as usize).sum()
}

/// Threads of tracer_tendency_boundary for direction `dir` (0 when that direction is periodic): x, one per wall
/// of each row; y and z, one per face slot of each row.
pub fn boundary_count(layout: &Layout, k: i32, dir: usize) -> i32 {
    if layout.bounded[dir] == 0 {
        return 0;
    }
    let [nx, ny, nz] = layout.n;
    match dir {
        0 => 2 * ny * nz,
        1 => flux_slots(k) * nx * nz,
        _ => flux_slots(k) * nx * ny,
    }
}

fn box_config(cells: &CellBox) -> LaunchConfig {
    let [ni, nj, nl] = cells.size;
    LaunchConfig::new(((ni as u32).div_ceil(32), (nj as u32).div_ceil(8), nl as u32), (32, 8, 1))
}

fn launched<T>(result: skc_runtime::Result<T>) -> GpuResult<()> {
    result.map(|_| ()).map_err(err)
}

/// What every box kernel takes after its buffers: the grid's sizes, strides and offset, which directions are
/// bounded, the inverse spacings and the box of cells.
fn box_args<'a, T: Real>(layout: &Layout, spacing: [f64; 3], cells: &CellBox) -> [Arg<'a>; 18] {
    let (sy, sz, off) = (layout.sy(), layout.sz(), layout.off());
    let [nx, ny, nz] = layout.n;
    let [bx, by, bz] = layout.bounded;
    let [ix, iy, iz] = spacing.map(|d| T::from_f64(1.0 / d));
    let ([i0, j0, l0], [ni, nj, nl]) = (cells.start, cells.size);
    args![nx, ny, nz, sy, sz, off, bx, by, bz, ix, iy, iz, i0, j0, l0, ni, nj, nl]
}

/// Launches a box kernel over `cells` with its buffer arguments `buffers`, then [`box_args`].
fn launch_over<'a, T: Real>(
    f: &Kernel,
    buffers: impl IntoIterator<Item = Arg<'a>>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    launch_over_as::<T>(f, buffers, layout, spacing, cells, false)
}

/// [`launch_over`], as the dependent of the launch before it (`Kernel::launch_dependent`) when `dependent`.
fn launch_over_as<'a, T: Real>(
    f: &Kernel,
    buffers: impl IntoIterator<Item = Arg<'a>>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
    dependent: bool,
) -> GpuResult<()> {
    if cells.size.iter().any(|&s| s <= 0) {
        return Ok(());
    }
    let args: Vec<Arg> = buffers.into_iter().chain(box_args::<T>(layout, spacing, cells)).collect();
    let config = box_config(cells);
    launched(if dependent { f.launch_dependent(&config, args) } else { f.launch(&config, args) })
}

/// Launches `tracer_tendency` over `cells`.
pub fn launch_box<T: Real>(
    f: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    let [u, v, w] = &b.vel;
    launch_over::<T>(f, args![&b.c, u, v, w, &b.act, &mut b.g, &b.gtab], layout, spacing, cells)
}

/// Launches `tracer_tendency_interior` (the region split, part 2) over `cells`: reads the fluxes of part 1.
/// With `dependent`, as the dependent of the launch before it (part 1): it starts while part 1 runs and waits for
/// it only where it reads a stored flux.
pub fn launch_interior<T: Real>(
    f: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
    dependent: bool,
) -> GpuResult<()> {
    let [u, v, w] = &b.vel;
    let buffers = args![&b.c, u, v, w, &b.act, &mut b.g, &b.fb, &b.gtab];
    launch_over_as::<T>(f, buffers, layout, spacing, cells, dependent)
}

/// Launches `tracer_tendency_boundary` (the region split, part 1) once, over the face slots of every bounded
/// direction: their reduced-order fluxes into `b.fb` (which must hold `flux_len(layout, k)`).
pub fn launch_boundary<T: Real>(f: &Kernel, b: &mut Buffers<T>, layout: &Layout, k: i32) -> GpuResult<()> {
    let count: i32 = (0..3).map(|d| boundary_count(layout, k, d)).sum();
    if count == 0 {
        return Ok(());
    }
    if b.fb.len() < flux_len(layout, k) {
        return Err(format!(
            "tracer_tendency_boundary: the flux buffer holds {}, needs {}",
            b.fb.len(),
            flux_len(layout, k)
        ));
    }
    let (sy, sz, off) = (layout.sy(), layout.sz(), layout.off());
    let [nx, ny, nz] = layout.n;
    let [bx, by, bz] = layout.bounded;
    let [u, v, w] = &b.vel;
    let config = LaunchConfig::new((count as u32).div_ceil(256), 256);
    launched(f.launch(&config, args![&b.c, u, v, w, &b.act, &mut b.fb, &b.gtab, nx, ny, nz, sy, sz, off, bx, by, bz]))
}

/// The region split: tracer_tendency_boundary (the fluxes near the walls), then tracer_tendency_interior over
/// the whole grid, as its dependent launch when `dependent` (programmatic stream serialization: the interior's
/// cells away from the walls are computed while part 1 runs; the default of the stdlib's users) or after it.
pub fn launch_split<T: Real>(
    interior: &Kernel,
    boundary: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    k: i32,
    dependent: bool,
) -> GpuResult<()> {
    launch_boundary(boundary, b, layout, k)?;
    launch_interior(interior, b, layout, spacing, &CellBox::whole(layout), dependent)
}

/// Launches `momentum_tendency`: q and gq hold three components of `layout.len()` each.
pub fn launch_momentum<T: Real>(
    f: &Kernel,
    q: &DeviceBuffer<T>,
    gq: &mut DeviceBuffer<T>,
    b: &Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    let len = layout.len() as i32;
    let [u, v, w] = &b.vel;
    launch_over::<T>(f, args![q, u, v, w, &b.act, gq, &b.gtab, len], layout, spacing, cells)
}

/// The buffers and sizes of `tracer_tendency_1d` over n cells (halo h on each side).
pub struct Line<'a, T: DeviceElem> {
    pub c: &'a DeviceBuffer<T>,
    pub u: &'a DeviceBuffer<T>,
    pub act: &'a DeviceBuffer<i32>,
    pub gtab: &'a DeviceBuffer<T>,
    pub n: i32,
    pub h: i32,
    pub bounded: i32,
    pub dx: f64,
}

/// Launches `tracer_tendency_1d` over `line`, writing its tendency into `g`.
pub fn launch_1d<T: Real>(f: &Kernel, line: &Line<T>, g: &mut DeviceBuffer<T>) -> GpuResult<()> {
    let inv = T::from_f64(1.0 / line.dx);
    let config = LaunchConfig::new((line.n as u32).div_ceil(128), 128);
    launched(f.launch(&config, args![line.c, line.u, line.act, g, line.gtab, line.n, line.h, line.bounded, inv]))
}

/// This k's tables in the layout of weno.sk's shared/global copies: c, d, beta, tau.
pub fn global_tables<T: Real>(k: usize, f32_tables: bool) -> Vec<T> {
    let e = skc_weno_tables::tables::Embedded::new(k);
    let conv = |q: skc_weno_tables::rational::Rational| {
        if f32_tables {
            T::from_f64(q.to_f32() as f64)
        } else {
            T::from_f64(q.to_f64())
        }
    };
    let int = |n: &i128| skc_weno_tables::rational::Rational::int(*n);
    let mut out: Vec<T> = e.c.iter().flatten().flatten().map(|q| conv(*q)).collect();
    out.extend(e.d.iter().flatten().map(|q| conv(*q)));
    out.extend(e.beta.iter().flatten().flatten().map(|n| conv(int(n))));
    out.extend(e.tau.iter().flatten().map(|n| conv(int(n))));
    out
}
