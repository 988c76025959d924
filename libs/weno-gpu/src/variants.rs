//! Compile-time variants of `stdlib/weno/weno_advection.sk` (selected with `-D`), named
//! `{f64|f32}_k{k}_{strategy}[_{table}][_div][_ib]` (`_div`: IEEE division instead of the default fast
//! reciprocal; `_ib`: immersed mask).

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Precision {
    F64,
    F32,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F64 => "f64",
            Precision::F32 => "f32",
        }
    }

    /// The module file, relative to the stdlib folder.
    pub fn source(self) -> &'static str {
        match self {
            Precision::F64 => "weno/weno_advection.sk",
            Precision::F32 => "weno/f32/weno_advection.sk",
        }
    }
}

pub const STRATEGIES: [&str; 5] = ["fixed", "dynamic", "warp", "split", "shell"];

/// Indices in [`STRATEGIES`] of the strategies with host launches of their own.
pub const STRATEGY_SPLIT: usize = 3;
pub const STRATEGY_SHELL: usize = 4;
/// Index in [`TABLES`] of the static per-order code.
pub const TABLE_STATIC: usize = 4;
pub const TABLES: [&str; 5] = ["constant", "shared", "global", "cascade", "static"];

#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub precision: Precision,
    pub k: usize,
    pub strategy: usize,
    pub table: usize,
    pub fast_rcp: bool,
    pub immersed: bool,
}

impl Variant {
    pub fn new(precision: Precision, k: usize, strategy: usize, table: usize) -> Variant {
        Variant { precision, k, strategy, table, fast_rcp: true, immersed: false }
    }

    pub fn name(&self) -> String {
        let mut name = format!("{}_k{}_{}", self.precision.name(), self.k, STRATEGIES[self.strategy]);
        if self.strategy != 0 {
            name.push('_');
            name.push_str(TABLES[self.table]);
        }
        if !self.fast_rcp {
            name.push_str("_div");
        }
        if self.immersed {
            name.push_str("_ib");
        }
        name
    }

    /// `-D` overrides.
    pub fn defines(&self) -> Vec<(String, String)> {
        vec![
            ("k".into(), self.k.to_string()),
            ("strategy".into(), self.strategy.to_string()),
            ("table".into(), self.table.to_string()),
            ("fast_rcp".into(), self.fast_rcp.to_string()),
            ("immersed".into(), self.immersed.to_string()),
        ]
    }

    pub fn parse(name: &str) -> Option<Variant> {
        let parts: Vec<&str> = name.split('_').collect();
        let precision = match *parts.first()? {
            "f64" => Precision::F64,
            "f32" => Precision::F32,
            _ => return None,
        };
        let k = parts.get(1)?.strip_prefix('k')?.parse().ok()?;
        let strategy_name = *parts.get(2)?;
        let strategy = STRATEGIES.iter().position(|s| *s == strategy_name)?;
        let mut v = Variant::new(precision, k, strategy, 0);
        for p in &parts[3..] {
            match *p {
                "div" => v.fast_rcp = false,
                "ib" => v.immersed = true,
                t => v.table = TABLES.iter().position(|x| *x == t)?,
            }
        }
        Some(v)
    }
}

/// The variants the benchmark compares: for WENO5 and WENO9 in both precisions, the fixed-order floor, the
/// dynamic kernel with each table location, the warp-uniform branch with three fallbacks, the region split
/// with two, the shell with the static per-order code, and IEEE division for the floor, the split and the
/// shell.
pub fn benchmark_variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        for k in [3, 5] {
            out.push(Variant::new(precision, k, 0, 0));
            for table in 0..5 {
                out.push(Variant::new(precision, k, 1, table));
            }
            for table in [0, 1, 4] {
                out.push(Variant::new(precision, k, 2, table));
            }
            for table in [1, 4] {
                out.push(Variant::new(precision, k, 3, table));
            }
            out.push(Variant::new(precision, k, STRATEGY_SHELL, TABLE_STATIC));
            out.push(Variant { fast_rcp: false, ..Variant::new(precision, k, 0, 0) });
            out.push(Variant { fast_rcp: false, ..Variant::new(precision, k, STRATEGY_SPLIT, TABLE_STATIC) });
            out.push(Variant { fast_rcp: false, ..Variant::new(precision, k, STRATEGY_SHELL, TABLE_STATIC) });
        }
    }
    out
}

/// Variants only checked for correctness: the other orders, and the immersed mask.
pub fn check_only_variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        for k in [2, 4, 6] {
            out.push(Variant::new(precision, k, 1, 0));
            out.push(Variant::new(precision, k, 2, 3));
            out.push(Variant::new(precision, k, 3, 4));
            out.push(Variant::new(precision, k, STRATEGY_SHELL, TABLE_STATIC));
        }
        // the shell's path with tables in shared memory (a barrier in every block, inner ones too)
        out.push(Variant::new(precision, 3, STRATEGY_SHELL, 1));
        for k in [2, 3, 4, 5, 6] {
            out.push(Variant { immersed: true, ..Variant::new(precision, k, 1, 0) });
            out.push(Variant { immersed: true, ..Variant::new(precision, k, 3, 2) });
        }
        for k in [3, 5] {
            out.push(Variant { immersed: true, ..Variant::new(precision, k, STRATEGY_SHELL, TABLE_STATIC) });
        }
    }
    out
}

pub fn all_variants() -> Vec<Variant> {
    let mut v = benchmark_variants();
    v.extend(check_only_variants());
    v
}

/// The default of each compile-time constant, as written in the sources: the shell with the static per-order
/// code near the walls, fast reciprocal.
pub fn default_variant(precision: Precision, k: usize) -> Variant {
    Variant::new(precision, k, STRATEGY_SHELL, TABLE_STATIC)
}
