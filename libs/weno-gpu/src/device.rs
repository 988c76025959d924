//! A minimal cudarc harness (driver API): context, CUBIN modules, buffers and the launches of the
//! weno_advection.sk kernels with their parameter lists.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg,
    ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;

/// The compute precision of a variant, on the host.
pub trait Real: DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + 'static {
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

pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
}

pub type GpuResult<T> = Result<T, String>;

fn err(e: impl std::fmt::Debug) -> String {
    format!("CUDA: {e:?}")
}

impl Gpu {
    pub fn new() -> GpuResult<Gpu> {
        let ctx = CudaContext::new(0).map_err(err)?;
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream })
    }

    pub fn name(&self) -> String {
        self.ctx.name().unwrap_or_else(|_| "unknown GPU".into())
    }

    pub fn attribute(&self, a: CUdevice_attribute) -> i64 {
        self.ctx.attribute(a).map(|v| v as i64).unwrap_or(0)
    }

    pub fn sm_count(&self) -> i64 {
        self.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    }

    /// Boost clock in kHz.
    pub fn clock_khz(&self) -> i64 {
        self.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
    }

    pub fn load(&self, cubin: Vec<u8>) -> GpuResult<Arc<CudaModule>> {
        self.ctx.load_module(Ptx::from_binary(cubin)).map_err(err)
    }

    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> GpuResult<CudaSlice<T>> {
        self.stream.clone_htod(data).map_err(err)
    }

    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize) -> GpuResult<CudaSlice<T>> {
        self.stream.alloc_zeros(n).map_err(err)
    }

    pub fn download<T: DeviceRepr + Default + Clone>(&self, data: &CudaSlice<T>) -> GpuResult<Vec<T>> {
        self.stream.clone_dtoh(data).map_err(err)
    }

    pub fn sync(&self) -> GpuResult<()> {
        self.stream.synchronize().map_err(err)
    }

    /// Milliseconds between two events around `work` (which enqueues launches).
    pub fn time(&self, mut work: impl FnMut() -> GpuResult<()>) -> GpuResult<f64> {
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.ctx.new_event(flags).map_err(err)?;
        let end = self.ctx.new_event(flags).map_err(err)?;
        start.record(&self.stream).map_err(err)?;
        work()?;
        end.record(&self.stream).map_err(err)?;
        Ok(start.elapsed_ms(&end).map_err(err)? as f64)
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
    pub fn off(&self) -> i32 {
        self.h * (1 + self.sy() + self.sz())
    }
    pub fn index(&self, i: i32, j: i32, l: i32) -> usize {
        (self.off() + i + j * self.sy() + l * self.sz()) as usize
    }
}

/// Device buffers of one 3-D problem.
pub struct Buffers<T: Real> {
    pub c: CudaSlice<T>,
    pub vel: [CudaSlice<T>; 3],
    pub act: CudaSlice<i32>,
    pub g: CudaSlice<T>,
    pub gtab: CudaSlice<T>,
    /// The region split's face fluxes near the walls (`flux_len`).
    pub fb: CudaSlice<T>,
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
    LaunchConfig {
        grid_dim: ((ni as u32).div_ceil(32), (nj as u32).div_ceil(8), nl as u32),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    }
}

fn box_args<'a>(
    l: &mut cudarc::driver::LaunchArgs<'a>,
    layout: &'a Layout,
    inv: &'a [impl DeviceRepr; 3],
    cells: &'a CellBox,
    sy: &'a i32,
    sz: &'a i32,
    off: &'a i32,
) {
    l.arg(&layout.n[0]).arg(&layout.n[1]).arg(&layout.n[2]).arg(sy).arg(sz).arg(off);
    l.arg(&layout.bounded[0]).arg(&layout.bounded[1]).arg(&layout.bounded[2]);
    l.arg(&inv[0]).arg(&inv[1]).arg(&inv[2]);
    l.arg(&cells.start[0])
        .arg(&cells.start[1])
        .arg(&cells.start[2])
        .arg(&cells.size[0])
        .arg(&cells.size[1])
        .arg(&cells.size[2]);
}

/// Launches `tracer_tendency` over `cells`.
pub fn launch_box<T: Real>(
    gpu: &Gpu,
    f: &CudaFunction,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    if cells.size.iter().any(|&s| s <= 0) {
        return Ok(());
    }
    let (sy, sz, off) = (layout.sy(), layout.sz(), layout.off());
    let inv = spacing.map(|d| T::from_f64(1.0 / d));
    let mut l = gpu.stream.launch_builder(f);
    l.arg(&b.c).arg(&b.vel[0]).arg(&b.vel[1]).arg(&b.vel[2]).arg(&b.act).arg(&mut b.g).arg(&b.gtab);
    box_args(&mut l, layout, &inv, cells, &sy, &sz, &off);
    unsafe { l.launch(box_config(cells)) }.map(|_| ()).map_err(err)
}

/// Launches `tracer_tendency_interior` (the region split, part 2) over `cells`: reads the fluxes of part 1.
pub fn launch_interior<T: Real>(
    gpu: &Gpu,
    f: &CudaFunction,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    if cells.size.iter().any(|&s| s <= 0) {
        return Ok(());
    }
    let (sy, sz, off) = (layout.sy(), layout.sz(), layout.off());
    let inv = spacing.map(|d| T::from_f64(1.0 / d));
    let mut l = gpu.stream.launch_builder(f);
    l.arg(&b.c).arg(&b.vel[0]).arg(&b.vel[1]).arg(&b.vel[2]).arg(&b.act).arg(&mut b.g).arg(&b.fb).arg(&b.gtab);
    box_args(&mut l, layout, &inv, cells, &sy, &sz, &off);
    unsafe { l.launch(box_config(cells)) }.map(|_| ()).map_err(err)
}

/// Launches `tracer_tendency_boundary` (the region split, part 1) once, over the face slots of every bounded
/// direction: their reduced-order fluxes into `b.fb` (which must hold `flux_len(layout, k)`).
pub fn launch_boundary<T: Real>(
    gpu: &Gpu,
    f: &CudaFunction,
    b: &mut Buffers<T>,
    layout: &Layout,
    k: i32,
) -> GpuResult<()> {
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
    let mut l = gpu.stream.launch_builder(f);
    l.arg(&b.c).arg(&b.vel[0]).arg(&b.vel[1]).arg(&b.vel[2]).arg(&b.act).arg(&mut b.fb).arg(&b.gtab);
    l.arg(&layout.n[0]).arg(&layout.n[1]).arg(&layout.n[2]).arg(&sy).arg(&sz).arg(&off);
    l.arg(&layout.bounded[0]).arg(&layout.bounded[1]).arg(&layout.bounded[2]);
    let cfg =
        LaunchConfig { grid_dim: ((count as u32).div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe { l.launch(cfg) }.map(|_| ()).map_err(err)
}

/// The region split: tracer_tendency_boundary (the fluxes near the walls), then tracer_tendency_interior over
/// the whole grid.
pub fn launch_split<T: Real>(
    gpu: &Gpu,
    interior: &CudaFunction,
    boundary: &CudaFunction,
    b: &mut Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    k: i32,
) -> GpuResult<()> {
    launch_boundary(gpu, boundary, b, layout, k)?;
    launch_interior(gpu, interior, b, layout, spacing, &CellBox::whole(layout))
}

/// Launches `momentum_tendency`: q and gq hold three components of `layout.len()` each.
#[allow(clippy::too_many_arguments)]
pub fn launch_momentum<T: Real>(
    gpu: &Gpu,
    f: &CudaFunction,
    q: &CudaSlice<T>,
    gq: &mut CudaSlice<T>,
    b: &Buffers<T>,
    layout: &Layout,
    spacing: [f64; 3],
    cells: &CellBox,
) -> GpuResult<()> {
    let (sy, sz, off) = (layout.sy(), layout.sz(), layout.off());
    let len = layout.len() as i32;
    let inv = spacing.map(|d| T::from_f64(1.0 / d));
    let mut l = gpu.stream.launch_builder(f);
    l.arg(q).arg(&b.vel[0]).arg(&b.vel[1]).arg(&b.vel[2]).arg(&b.act).arg(gq).arg(&b.gtab).arg(&len);
    l.arg(&layout.n[0]).arg(&layout.n[1]).arg(&layout.n[2]).arg(&sy).arg(&sz).arg(&off);
    l.arg(&layout.bounded[0]).arg(&layout.bounded[1]).arg(&layout.bounded[2]);
    l.arg(&inv[0]).arg(&inv[1]).arg(&inv[2]);
    l.arg(&cells.start[0])
        .arg(&cells.start[1])
        .arg(&cells.start[2])
        .arg(&cells.size[0])
        .arg(&cells.size[1])
        .arg(&cells.size[2]);
    unsafe { l.launch(box_config(cells)) }.map(|_| ()).map_err(err)
}

/// Launches `tracer_tendency_1d` over n cells (halo h on each side).
#[allow(clippy::too_many_arguments)]
pub fn launch_1d<T: Real>(
    gpu: &Gpu,
    f: &CudaFunction,
    c: &CudaSlice<T>,
    u: &CudaSlice<T>,
    act: &CudaSlice<i32>,
    g: &mut CudaSlice<T>,
    gtab: &CudaSlice<T>,
    n: i32,
    h: i32,
    bounded: i32,
    dx: f64,
) -> GpuResult<()> {
    let inv = T::from_f64(1.0 / dx);
    let mut l = gpu.stream.launch_builder(f);
    l.arg(c).arg(u).arg(act).arg(g).arg(gtab).arg(&n).arg(&h).arg(&bounded).arg(&inv);
    let cfg = LaunchConfig { grid_dim: ((n as u32).div_ceil(128), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    unsafe { l.launch(cfg) }.map(|_| ()).map_err(err)
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
