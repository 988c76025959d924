#![allow(dead_code)] // Shared by a test and an example, each using part of it.
//! The example kernels of `examples/kernels/` run by the interpreter with the launches their host code
//! makes (`examples/src/*.rs`: the same block sizes, grids and dynamic shared memory), each checked against a
//! CPU reference written here (the examples crate depends on the CUDA runtime; this keeps the interpreter's
//! tests free of it). Shared by `tests/examples.rs` (CI sizes) and `examples/run_examples.rs` (the GPU tests'
//! sizes, timed).

use std::path::Path;
use std::time::{Duration, Instant};

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Outcome, Program, Scalar, ValueType};

/// One example run: what it did and how far it is from the reference.
pub struct Run {
    pub example: &'static str,
    pub size: String,
    pub instructions: u64,
    /// AST nodes evaluated (with `Options::count_nodes`).
    pub nodes: u64,
    pub threads: u64,
    /// Wall-clock time of the launches.
    pub time: Duration,
    /// Time the launching thread spent on a CPU (Linux; the wall time elsewhere): on a shared machine the fair
    /// measure of the interpreter's speed.
    pub cpu: Duration,
    /// Mismatching elements, or the relative error for float sums.
    pub error: f64,
    pub tolerance: f64,
    pub reports: Vec<String>,
}

impl Run {
    pub fn passed(&self) -> bool {
        self.error <= self.tolerance && self.reports.is_empty()
    }
}

pub const EXAMPLES: &[&str] =
    &["vector_add", "reduce", "warp_reduce", "scan", "histogram", "transpose", "matmul", "softmax", "stencil", "spmv"];

/// The sizes of `examples/tests/gpu_examples.rs` (for transpose, width and height).
pub fn gpu_test_sizes(example: &str) -> Vec<(usize, usize)> {
    let one = |v: &[usize]| v.iter().map(|&n| (n, 0)).collect();
    match example {
        "vector_add" => one(&[1, 1000, 1 << 20, (1 << 20) + 7]),
        "reduce" => one(&[1, 255, 256, 100_003, 1 << 22]),
        "warp_reduce" => one(&[1, 31, 1000, 1 << 20, (1 << 24) + 3]),
        "scan" => one(&[1, 1023, 1024, 1025, 100_000, 1 << 20]),
        "histogram" => one(&[1, 1000, 1 << 20, 10_000_019]),
        "transpose" => vec![(1, 1), (32, 32), (1000, 777), (33, 1025), (2048, 2048)],
        "matmul" => one(&[128, 256, 512]),
        // (columns, threads per block); (width, height); (rows, threads per block).
        "softmax" => vec![(1, 32), (1000, 128), (4096, 256), (100_000, 1024)],
        "stencil" => vec![(1, 1), (1000, 777), (33, 1025), (4096, 4096)],
        "spmv" => vec![(1, 32), (1000, 128), (100_003, 256), (1 << 20, 256)],
        _ => Vec::new(),
    }
}

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

pub fn load(example: &str) -> Program {
    let path = repo().join(format!("examples/kernels/{example}.sk"));
    let text = std::fs::read_to_string(&path).expect("example kernel");
    let checked = skc_core::check(&path.display().to_string(), &text, &skc_core::NoModules, &Default::default());
    assert!(!checked.has_errors(), "{example}: {:?}", checked.diagnostics);
    Program::new(&checked)
}

/// xorshift64*, as the examples' host code uses.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * n as u64) >> 32) as u32
    }
}

/// Accumulates the launches of one example run.
struct Runner {
    program: Program,
    options: Options,
    instructions: u64,
    nodes: u64,
    threads: u64,
    reports: Vec<String>,
    time: Duration,
    cpu: Duration,
}

/// The calling thread's time on a CPU so far (`/proc/thread-self/schedstat`), if the system says.
pub fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(text.split_whitespace().next()?.parse().ok()?))
}

impl Runner {
    fn new(example: &str, options: &Options) -> Runner {
        Runner {
            program: load(example),
            options: options.clone(),
            instructions: 0,
            nodes: 0,
            threads: 0,
            reports: Vec::new(),
            time: Duration::ZERO,
            cpu: Duration::ZERO,
        }
    }

    fn launch(&mut self, kernel: &str, geometry: Geometry, args: &mut [Arg]) {
        let (start, cpu_start) = (Instant::now(), cpu_time());
        let outcome: Outcome = launch(&self.program, kernel, &geometry, args, &self.options).expect("launch");
        self.time += start.elapsed();
        self.cpu += match (cpu_start, cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => start.elapsed(),
        };
        self.instructions += outcome.instructions;
        self.nodes += outcome.nodes;
        self.threads += outcome.threads;
        self.reports.extend(outcome.reports.iter().map(|r| format!("{}: {}", r.kind.code(), r.diagnostic.message)));
    }

    fn finish(self, example: &'static str, size: String, error: f64, tolerance: f64) -> Run {
        Run {
            example,
            size,
            instructions: self.instructions,
            nodes: self.nodes,
            threads: self.threads,
            time: self.time,
            cpu: self.cpu,
            error,
            tolerance,
            reports: self.reports,
        }
    }
}

fn buffer(args: &[Arg], i: usize) -> &Buffer {
    args[i].buffer().expect("a vector argument")
}

fn zeros(scalar: Scalar, n: usize) -> Arg {
    Arg::Vector(Buffer::new(ValueType::Scalar(scalar), n))
}

fn mismatches<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).filter(|(x, y)| x != y).count() as f64
}

/// Runs `example` at `size` (`(n, 0)`, or `(width, height)` for transpose) and checks it.
pub fn run(example: &'static str, (n, m): (usize, usize), options: &Options) -> Run {
    let mut r = Runner::new(example, options);
    let blocks = |n: usize, block: usize| n.div_ceil(block).max(1) as u32;
    match example {
        "vector_add" => {
            let mut rng = Rng::new(1);
            let a: Vec<f32> = (0..n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
            let b: Vec<f32> = (0..n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
            let mut args = vec![
                Arg::Vector(Buffer::from_f32(&a)),
                Arg::Vector(Buffer::from_f32(&b)),
                zeros(Scalar::Float32, n),
                Arg::i32(n as i32),
            ];
            r.launch("vector_add", Geometry::linear(blocks(n, 256), 256), &mut args);
            let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            let error = mismatches(&buffer(&args, 2).as_f32(), &expected);
            r.finish(example, format!("n={n}"), error, 0.0)
        }
        "reduce" => {
            let mut rng = Rng::new(2);
            let input: Vec<i32> = (0..n).map(|_| rng.below(100) as i32).collect();
            let grid = blocks(n, 256);
            let mut args =
                vec![Arg::Vector(Buffer::from_i32(&input)), zeros(Scalar::Int32, grid as usize), Arg::i32(n as i32)];
            r.launch("reduce", Geometry::linear(grid, 256), &mut args);
            let got: i64 = buffer(&args, 1).as_i32().iter().map(|&x| x as i64).sum();
            let expected: i64 = input.iter().map(|&x| x as i64).sum();
            r.finish(example, format!("n={n}"), (got - expected).abs() as f64, 0.0)
        }
        "warp_reduce" => {
            let mut rng = Rng::new(3);
            let xs: Vec<f32> = (0..n).map(|_| rng.f32_in(0.0, 1.0)).collect();
            // The host fills the device: multiprocessors x resident blocks (an H100's 132 x 4 here).
            let grid = (132 * 4).min(blocks(n, 512));
            let mut args = vec![Arg::Vector(Buffer::from_f32(&xs)), zeros(Scalar::Float32, 1), Arg::i32(n as i32)];
            r.launch("warp_reduce", Geometry::linear(grid, 512), &mut args);
            let got = buffer(&args, 1).as_f32()[0] as f64;
            let expected: f64 = xs.iter().map(|&x| x as f64).sum();
            let float_error = (got - expected).abs() / expected.abs().max(1.0);
            // The same generic block_sum at int32, on values of both signs (every partial sum fits in int32).
            let ints: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
            let mut args = vec![Arg::Vector(Buffer::from_i32(&ints)), zeros(Scalar::Int32, 1), Arg::i32(n as i32)];
            r.launch("warp_reduce_int32", Geometry::linear(grid, 512), &mut args);
            let int_exact = buffer(&args, 1).as_i32()[0] as i64 == ints.iter().map(|&x| x as i64).sum::<i64>();
            // An int32 sum that differs counts as an error of 1, far above the float tolerance.
            r.finish(example, format!("n={n}"), float_error.max(if int_exact { 0.0 } else { 1.0 }), 1e-5)
        }
        "scan" => run_scan(r, n),
        "histogram" => {
            let mut rng = Rng::new(5);
            let data: Vec<i32> = (0..n).map(|_| (rng.below(256) * rng.below(256) / 255) as i32).collect();
            let grid = (132 * 8).min(blocks(n, 256));
            let mut args = vec![Arg::Vector(Buffer::from_i32(&data)), zeros(Scalar::Int32, 256), Arg::i32(n as i32)];
            r.launch("histogram", Geometry::linear(grid, 256), &mut args);
            let mut expected = vec![0; 256];
            for &x in &data {
                expected[(x & 255) as usize] += 1;
            }
            let error = mismatches(&buffer(&args, 1).as_i32(), &expected);
            r.finish(example, format!("n={n}"), error, 0.0)
        }
        "transpose" => {
            let (width, height) = (n, m);
            let mut rng = Rng::new(6);
            let input: Vec<f32> = (0..width * height).map(|_| rng.f32_in(-1.0, 1.0)).collect();
            let mut args = vec![
                Arg::Vector(Buffer::from_f32(&input)),
                zeros(Scalar::Float32, width * height),
                Arg::i32(width as i32),
                Arg::i32(height as i32),
            ];
            let geometry = Geometry {
                grid: [blocks(width, 32), blocks(height, 32), 1],
                block: [32, 4, 1],
                dynamic_shared_bytes: 0,
            };
            r.launch("transpose", geometry, &mut args);
            let mut expected = vec![0.0f32; width * height];
            for y in 0..height {
                for x in 0..width {
                    expected[x * height + y] = input[y * width + x];
                }
            }
            let error = mismatches(&buffer(&args, 1).as_f32(), &expected);
            r.finish(example, format!("{width}x{height}"), error, 0.0)
        }
        "matmul" => {
            let mut rng = Rng::new(7);
            let a: Vec<f32> = (0..n * n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
            let b: Vec<f32> = (0..n * n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
            let mut args = vec![
                Arg::Vector(Buffer::from_f32(&a)),
                Arg::Vector(Buffer::from_f32(&b)),
                zeros(Scalar::Float32, n * n),
                Arg::i32(n as i32),
            ];
            let tiles = (n / 128) as u32;
            let geometry = Geometry { grid: [tiles, tiles, 1], block: [16, 16, 1], dynamic_shared_bytes: 0 };
            r.launch("matmul", geometry, &mut args);
            let c = buffer(&args, 2).as_f32();
            // Every element for small n, a sample of 4096 otherwise (as the example's own check does).
            let mut pick = Rng::new(8);
            let cells: Vec<(usize, usize)> = if n <= 256 {
                (0..n * n).map(|i| (i / n, i % n)).collect()
            } else {
                (0..4096).map(|_| (pick.below(n as u32) as usize, pick.below(n as u32) as usize)).collect()
            };
            let error = cells
                .iter()
                .map(|&(row, col)| {
                    let exact: f64 = (0..n).map(|k| a[row * n + k] as f64 * b[k * n + col] as f64).sum();
                    (c[row * n + col] as f64 - exact).abs()
                })
                .fold(0.0, f64::max);
            r.finish(example, format!("{n}^3"), error, 1e-5 * n as f64)
        }
        "softmax" => run_softmax(r, n, m as u32),
        "stencil" => run_stencil(r, n, m),
        "spmv" => run_spmv(r, n, m as u32),
        other => panic!("no example {other}"),
    }
}

/// The rows of every softmax run.
pub const SOFTMAX_ROWS: usize = 6;

/// Row softmax (`examples/src/softmax.rs`): `SOFTMAX_ROWS` rows of `cols` values, one block of `block` threads
/// per row; a float64 reference, relative error.
fn run_softmax(mut r: Runner, cols: usize, block: u32) -> Run {
    let mut rng = Rng::new(9);
    let xs: Vec<f32> = (0..SOFTMAX_ROWS * cols).map(|_| rng.f32_in(-8.0, 8.0)).collect();
    let mut args =
        vec![Arg::Vector(Buffer::from_f32(&xs)), zeros(Scalar::Float32, SOFTMAX_ROWS * cols), Arg::i32(cols as i32)];
    r.launch("softmax", Geometry::linear(SOFTMAX_ROWS as u32, block), &mut args);
    let ys = buffer(&args, 1).as_f32();
    let mut error = 0.0f64;
    for row in 0..SOFTMAX_ROWS {
        let x = &xs[row * cols..(row + 1) * cols];
        let m = x.iter().fold(f64::MIN, |a, &v| a.max(v as f64));
        let total: f64 = x.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (j, &v) in x.iter().enumerate() {
            let exact = (v as f64 - m).exp() / total;
            error = error.max((ys[row * cols + j] as f64 - exact).abs() / exact.max(1e-30));
        }
    }
    r.finish("softmax", format!("{SOFTMAX_ROWS}x{cols}, block {block}"), error, 1e-4)
}

/// One Jacobi step with a shared tile and halo (`examples/src/stencil.rs`), blocks of 32 x 8 threads.
fn run_stencil(mut r: Runner, width: usize, height: usize) -> Run {
    const BLOCK: [u32; 2] = [32, 8];
    let mut rng = Rng::new(10);
    let input: Vec<f32> = (0..width * height).map(|_| rng.f32_in(-1.0, 1.0)).collect();
    let tile = ((BLOCK[0] + 2) * (BLOCK[1] + 2)) as usize;
    let mut args = vec![
        Arg::Vector(Buffer::from_f32(&input)),
        zeros(Scalar::Float32, width * height),
        Arg::i32(width as i32),
        Arg::i32(height as i32),
        Arg::i32(tile as i32),
    ];
    let grid = [width.div_ceil(BLOCK[0] as usize) as u32, height.div_ceil(BLOCK[1] as usize) as u32, 1];
    let geometry = Geometry { grid, block: [BLOCK[0], BLOCK[1], 1], dynamic_shared_bytes: (tile * 4) as u32 };
    r.launch("stencil", geometry, &mut args);
    let at = |x: isize, y: isize| {
        let (x, y) = (x.clamp(0, width as isize - 1), y.clamp(0, height as isize - 1));
        input[y as usize * width + x as usize]
    };
    let mut expected = vec![0.0f32; width * height];
    for y in 0..height as isize {
        for x in 0..width as isize {
            expected[y as usize * width + x as usize] =
                0.25 * (((at(x - 1, y) + at(x + 1, y)) + at(x, y - 1)) + at(x, y + 1));
        }
    }
    let error = mismatches(&buffer(&args, 1).as_f32(), &expected);
    r.finish("stencil", format!("{width}x{height}"), error, 0.0)
}

/// A random square CSR matrix of `rows` rows with 0 to 63 nonzeros each, as `examples/src/spmv.rs` makes it:
/// (row starts, columns, values).
pub fn spmv_matrix(rows: usize) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let mut rng = Rng::new(11);
    let mut starts = vec![0i32];
    let (mut cols, mut vals) = (Vec::new(), Vec::new());
    for _ in 0..rows {
        let count = rng.below(64);
        for _ in 0..count {
            cols.push(rng.below(rows as u32) as i32);
            vals.push(rng.f32_in(-1.0, 1.0));
        }
        starts.push(cols.len() as i32);
    }
    (starts, cols, vals)
}

/// CSR SpMV with one warp per row (`examples/src/spmv.rs`), blocks of `block` threads; a float64 reference.
fn run_spmv(mut r: Runner, rows: usize, block: u32) -> Run {
    let (starts, cols, vals) = spmv_matrix(rows);
    let mut rng = Rng::new(12);
    let x: Vec<f32> = (0..rows).map(|_| rng.f32_in(-1.0, 1.0)).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_i32(&starts)),
        Arg::Vector(Buffer::from_i32(&cols)),
        Arg::Vector(Buffer::from_f32(&vals)),
        Arg::Vector(Buffer::from_f32(&x)),
        zeros(Scalar::Float32, rows),
        Arg::i32(rows as i32),
    ];
    let warps = (block / 32) as usize;
    r.launch("spmv", Geometry::linear(rows.div_ceil(warps).max(1) as u32, block), &mut args);
    let y = buffer(&args, 4).as_f32();
    let error = (0..rows)
        .map(|row| {
            let range = starts[row] as usize..starts[row + 1] as usize;
            let exact: f64 = range.map(|k| vals[k] as f64 * x[cols[k] as usize] as f64).sum();
            (y[row] as f64 - exact).abs()
        })
        .fold(0.0, f64::max);
    r.finish("spmv", format!("{rows} rows, block {block}"), error, 1e-5 * 64.0)
}

/// The two-level scan of `examples/src/scan.rs`: scan each block of 1024, scan the block sums, add them back.
fn run_scan(mut r: Runner, n: usize) -> Run {
    const WIDTH: usize = 1024;
    let mut rng = Rng::new(4);
    let xs: Vec<i32> = (0..n).map(|_| rng.below(20) as i32 - 5).collect();
    let blocks = n.div_ceil(WIDTH).max(1);
    let geometry = |elements: usize| {
        Geometry::linear(elements.div_ceil(WIDTH).max(1) as u32, WIDTH as u32).with_shared((2 * WIDTH * 4) as u32)
    };
    let width = Arg::i32(WIDTH as i32);
    let mut first = vec![
        Arg::Vector(Buffer::from_i32(&xs)),
        zeros(Scalar::Int32, n),
        zeros(Scalar::Int32, blocks),
        Arg::i32(n as i32),
        width.clone(),
    ];
    r.launch("scan_blocks", geometry(n), &mut first);
    let mut ys = first[1].clone();
    if blocks > 1 {
        let sums = first[2].clone();
        let mut second =
            vec![sums, zeros(Scalar::Int32, blocks), zeros(Scalar::Int32, 1), Arg::i32(blocks as i32), width];
        r.launch("scan_blocks", geometry(blocks), &mut second);
        let mut third = vec![ys, second[1].clone(), Arg::i32(n as i32)];
        r.launch("add_offsets", Geometry::linear(n.div_ceil(WIDTH) as u32, WIDTH as u32), &mut third);
        ys = third[0].clone();
    }
    let mut sum = 0i32;
    let expected: Vec<i32> = xs
        .iter()
        .map(|&x| {
            sum = sum.wrapping_add(x);
            sum
        })
        .collect();
    let error = mismatches(&ys.buffer().expect("ys").as_i32(), &expected);
    r.finish("scan", format!("n={n}"), error, 0.0)
}
