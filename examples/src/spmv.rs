//! CSR sparse matrix times vector with one warp per row (kernels/spmv.sk), under the kernel's launch contract
//! (`[@block_1d] [@block_multiple 32]`: the warp's row, `thread_idx_x / 32`, is warp-uniform).

use skc_runtime::{args, Context, DeviceBuffer, Extent, Kernel, LaunchConfig, Result, RuntimeError};

use crate::common::{int32, Outcome, Rng};
use crate::kernels;

/// Threads per block (8 warps, 8 rows).
pub const BLOCK: u32 = 256;

/// A square sparse matrix in CSR form.
pub struct Csr {
    pub row_starts: Vec<i32>,
    pub cols: Vec<i32>,
    pub vals: Vec<f32>,
}

impl Csr {
    pub fn rows(&self) -> usize {
        self.row_starts.len() - 1
    }

    /// `rows` rows of 0 to 63 nonzeros in random columns (the interpreter's test makes the same matrix).
    pub fn random(rows: usize, rng: &mut Rng) -> Csr {
        let mut row_starts = vec![0i32];
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        for _ in 0..rows {
            for _ in 0..rng.below(64) {
                cols.push(rng.below(rows as u32) as i32);
                vals.push(rng.f32_in(-1.0, 1.0));
            }
            row_starts.push(int32(cols.len()));
        }
        Csr { row_starts, cols, vals }
    }

    /// Is it well formed for a vector of `n` values (what the kernel's loads rely on)?
    pub fn validate(&self, n: usize) -> std::result::Result<(), String> {
        let nnz = self.cols.len();
        if self.row_starts.first() != Some(&0) || self.row_starts.last() != Some(&int32(nnz)) {
            return Err("row starts must go from 0 to the number of nonzeros".into());
        }
        if self.row_starts.windows(2).any(|w| w[0] > w[1]) || self.vals.len() != nnz {
            return Err("row starts must not decrease, and there must be one value per column index".into());
        }
        if self.cols.iter().any(|&c| c < 0 || c as usize >= n) {
            return Err(format!("a column index is outside the vector of {n}"));
        }
        Ok(())
    }
}

pub struct Spmv {
    kernel: Kernel,
}

/// The matrix on the device.
pub struct DeviceCsr {
    row_starts: DeviceBuffer<i32>,
    cols: DeviceBuffer<i32>,
    vals: DeviceBuffer<f32>,
    rows: usize,
}

impl Spmv {
    pub fn load(ctx: &Context) -> Result<Spmv> {
        let kernel = kernels::SPMV.load(ctx)?.kernel("spmv")?.require_len("y", Extent::param("rows"))?;
        Ok(Spmv { kernel })
    }

    /// Checks `a` for a square product and uploads it.
    pub fn upload(ctx: &Context, a: &Csr) -> Result<DeviceCsr> {
        a.validate(a.rows()).map_err(|reason| RuntimeError::LaunchConfig { kernel: "spmv".into(), reason })?;
        Ok(DeviceCsr {
            row_starts: ctx.upload(&a.row_starts)?,
            cols: ctx.upload(&a.cols)?,
            vals: ctx.upload(&a.vals)?,
            rows: a.rows(),
        })
    }

    /// `y` = `a` `x`, with blocks of `block` threads (a multiple of 32: one row per warp).
    pub fn run(&self, a: &DeviceCsr, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>, block: u32) -> Result<()> {
        if x.len() != a.rows {
            let reason = format!("x has {} values, the matrix {} columns", x.len(), a.rows);
            return Err(RuntimeError::LaunchConfig { kernel: "spmv".into(), reason });
        }
        let warps = (block / 32).max(1) as usize;
        let config = LaunchConfig::new(a.rows.div_ceil(warps).max(1) as u32, block);
        self.kernel.launch(&config, args![&a.row_starts, &a.cols, &a.vals, x, y, int32(a.rows)])
    }
}

/// `a x` in float64.
pub fn cpu(a: &Csr, x: &[f32]) -> Vec<f64> {
    (0..a.rows())
        .map(|r| {
            let range = a.row_starts[r] as usize..a.row_starts[r + 1] as usize;
            range.map(|k| a.vals[k] as f64 * x[a.cols[k] as usize] as f64).sum()
        })
        .collect()
}

pub fn check(ctx: &Context, rows: usize, block: u32) -> Result<Outcome> {
    let mut rng = Rng::new(11);
    let a = Csr::random(rows, &mut rng);
    let x = rng.f32s(rows, -1.0, 1.0);
    let example = Spmv::load(ctx)?;
    let device_a = Spmv::upload(ctx, &a)?;
    let device_x = ctx.upload(&x)?;
    let mut y = ctx.alloc_zeros::<f32>(rows)?;
    example.run(&device_a, &device_x, &mut y, block)?;
    let timer = ctx.stream().start_timer()?;
    example.run(&device_a, &device_x, &mut y, block)?;
    let ms = timer.stop()? as f64;
    let error = y.download()?.iter().zip(cpu(&a, &x)).map(|(&g, c)| (g as f64 - c).abs()).fold(0.0, f64::max);
    let bytes = 8.0 * a.cols.len() as f64 + 4.0 * (a.row_starts.len() + 2 * rows) as f64;
    Ok(Outcome {
        example: "spmv",
        size: format!("{rows} rows/{block}"),
        error,
        tolerance: 1e-5 * 64.0,
        relative: false,
        gpu_ms: ms,
        rate: Some((bytes / (ms * 1e-3) / 1e9, "GB/s")),
    })
}
