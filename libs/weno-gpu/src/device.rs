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
    if cells.size.iter().any(|&s| s <= 0) {
        return Ok(());
    }
    let args: Vec<Arg> = buffers.into_iter().chain(box_args::<T>(layout, spacing, cells)).collect();
    launched(f.launch(&box_config(cells), args))
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
pub fn launch_interior<T: Real>(
    f: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    let [u, v, w] = &b.vel;
    launch_over::<T>(f, args![&b.c, u, v, w, &b.act, &mut b.g, &b.fb, &b.gtab], layout, spacing, cells)
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
/// the whole grid.
pub fn launch_split<T: Real>(
    interior: &Kernel,
    boundary: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    k: i32,
) -> GpuResult<()> {
    launch_boundary(boundary, b, layout, k)?;
    launch_interior(interior, b, layout, spacing, &CellBox::whole(layout))
}

/// The launch geometry of `tracer_tendency_shell` (the shell strategy) over a whole grid: blocks of 32 x
/// `block_height` threads; the `inner` box (cells at least k from every wall of a bounded direction) in
/// `inner_blocks` blocks per plane (x, y) and `inner_planes` planes, one per z coordinate of the box, after
/// `shell_planes` planes of blocks of `inner_blocks` each that take the `shell_cells` cells near the walls,
/// one per thread.
#[derive(Clone, Copy, Debug)]
pub struct ShellGeometry {
    pub inner: CellBox,
    pub block_height: u32,
    pub inner_blocks: [u32; 2],
    pub inner_planes: u32,
    pub shell_planes: u32,
    pub shell_cells: u64,
}

/// The block height of the shell strategy's launch for an inner box `inner_y` cells tall: the largest of 8 .. 4
/// that divides it (so that no warp of the inner box falls wholly outside it; 256 - 2k for k = 2..6 gives
/// 7, 5, 8, 6, 4), else 8.
pub fn shell_block_height(inner_y: i32) -> u32 {
    (4..=8).rev().find(|h| inner_y > 0 && inner_y % h == 0).unwrap_or(8) as u32
}

impl ShellGeometry {
    /// The geometry for `layout` at k stencils, blocks 32 x [`shell_block_height`]; bounded directions need at
    /// least 2k cells.
    pub fn new(layout: &Layout, k: i32) -> GpuResult<ShellGeometry> {
        let wall = if layout.bounded[1] != 0 { k } else { 0 };
        ShellGeometry::with_block_height(layout, k, shell_block_height(layout.n[1] - 2 * wall))
    }

    /// The geometry with blocks of 32 x `block_height` threads (1 ..= 32).
    pub fn with_block_height(layout: &Layout, k: i32, block_height: u32) -> GpuResult<ShellGeometry> {
        let wall = |d: usize| if layout.bounded[d] != 0 { k } else { 0 };
        for d in 0..3 {
            if layout.n[d] < 2 * wall(d) || layout.n[d] <= 0 {
                return Err(format!(
                    "tracer_tendency_shell: {} cells in direction {d}, needs at least {} (2k)",
                    layout.n[d],
                    2 * wall(d)
                ));
            }
        }
        let [nx, ny, nz] = layout.n.map(|n| n as u64);
        let [ax, ay, az] = [0, 1, 2].map(|d| wall(d) as u64);
        let [mx, my, mz] = [nx - 2 * ax, ny - 2 * ay, nz - 2 * az];
        let inner_blocks = [(mx as u32).div_ceil(32).max(1), (my as u32).div_ceil(block_height).max(1)];
        let inner_planes = if mx > 0 && my > 0 { mz as u32 } else { 0 };
        let shell_cells = 2 * az * ny * nx + 2 * ay * mz * nx + 2 * ax * my * mz;
        let per_plane = inner_blocks[0] as u64 * inner_blocks[1] as u64 * 32 * block_height as u64;
        let inner = CellBox { start: [ax, ay, az].map(|a| a as i32), size: [mx, my, mz].map(|m| m as i32) };
        Ok(ShellGeometry {
            inner,
            block_height,
            inner_blocks,
            inner_planes,
            shell_planes: shell_cells.div_ceil(per_plane) as u32,
            shell_cells,
        })
    }
}

/// Launches `tracer_tendency_shell` (the shell strategy, one launch over the whole grid) with `shell_planes` and
/// `inner_planes` planes of blocks (those of [`ShellGeometry`] for the whole tendency; fewer only to time a part
/// alone).
pub fn launch_shell_planes<T: Real>(
    f: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    geometry: &ShellGeometry,
    shell_planes: u32,
    inner_planes: u32,
) -> GpuResult<()> {
    if shell_planes + inner_planes == 0 {
        return Ok(());
    }
    let [u, v, w] = &b.vel;
    let [gx, gy] = geometry.inner_blocks;
    let config = LaunchConfig::new((gx, gy, shell_planes + inner_planes), (32, geometry.block_height, 1));
    let args: Vec<Arg> = args![&b.c, u, v, w, &b.act, &mut b.g, &b.gtab]
        .into_iter()
        .chain(box_args::<T>(layout, spacing, &geometry.inner))
        .chain(args![shell_planes as i32])
        .collect();
    launched(f.launch(&config, args))
}

/// The shell strategy: `tracer_tendency_shell` once over the whole grid.
pub fn launch_shell<T: Real>(
    f: &Kernel,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    k: i32,
) -> GpuResult<()> {
    let geometry = ShellGeometry::new(layout, k)?;
    launch_shell_planes(f, b, layout, spacing, &geometry, geometry.shell_planes, geometry.inner_planes)
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
