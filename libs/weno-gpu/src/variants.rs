//! Compile-time variants of `stdlib/weno/weno_advection.sk` (selected with `-D`, the precision with the type
//! parameter `real` of `weno_tables.sk`), named
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

    /// The `.sk` type of `real`.
    pub fn real(self) -> &'static str {
        match self {
            Precision::F64 => "float64",
            Precision::F32 => "float32",
        }
    }

    /// The module file, relative to the stdlib folder: one source for both precisions.
    pub fn source(self) -> &'static str {
        "weno/weno_advection.sk"
    }
}

pub const STRATEGIES: [&str; 4] = ["fixed", "dynamic", "warp", "split"];
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

    /// `-D` overrides (the precision as the type parameter `real`).
    pub fn defines(&self) -> Vec<(String, String)> {
        vec![
            ("real".into(), self.precision.real().into()),
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
/// with two, and IEEE division for the floor and the default.
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
            out.push(Variant { fast_rcp: false, ..Variant::new(precision, k, 0, 0) });
            out.push(Variant { fast_rcp: false, ..default_variant(precision, k) });
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
        }
        for k in [2, 3, 4, 5, 6] {
            out.push(Variant { immersed: true, ..Variant::new(precision, k, 1, 0) });
            out.push(Variant { immersed: true, ..Variant::new(precision, k, 3, 2) });
        }
    }
    out
}

pub fn all_variants() -> Vec<Variant> {
    let mut v = benchmark_variants();
    v.extend(check_only_variants());
    v
}

/// The default of each compile-time constant, as written in the sources: the region split with the static
/// per-order code on the boundary, fast reciprocal.
pub fn default_variant(precision: Precision, k: usize) -> Variant {
    Variant::new(precision, k, 3, 4)
}
