//! C identifiers for `.sk` names. A `.sk` name may be a C or C++ keyword (`class`, `new`), a name the CUDA headers
//! or the builtin templates already use (`sqrtf`, `threadIdx`, `int2`), or contain `'`; and `.sk` shadowing
//! (`let x = x + 1 in`) has no C equivalent (`int x = x + 1;` reads the new `x`). So every local of a function gets
//! a name unique in that function, distinct from every global name, and every global name is distinct from every
//! name CUDA or the prelude defines.

use std::collections::HashSet;
use std::rc::Rc;

use crate::builtins::BUILTINS;

/// C and C++17 keywords, alternative tokens and names with a fixed meaning in every translation unit.
const C_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "main",
    "std",
    "size_t",
    "ptrdiff_t",
    "NULL",
    "assert",
    "printf",
    "malloc",
    "free",
    "memcpy",
    "memset",
];

/// Names defined by CUDA (built-in variables, vector types, intrinsics and the math library) that a `.sk` name
/// must not shadow or redefine. Names used by builtin templates are added from the table itself.
const CUDA_NAMES: &[&str] = &[
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "dim3",
    "uint",
    "ushort",
    "ulong",
    "uchar",
    "char1",
    "char2",
    "char3",
    "char4",
    "uchar1",
    "uchar2",
    "uchar3",
    "uchar4",
    "short1",
    "short2",
    "short3",
    "short4",
    "ushort1",
    "ushort2",
    "ushort3",
    "ushort4",
    "int1",
    "int2",
    "int3",
    "int4",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "long1",
    "long2",
    "long3",
    "long4",
    "ulong1",
    "ulong2",
    "ulong3",
    "ulong4",
    "longlong1",
    "longlong2",
    "longlong3",
    "longlong4",
    "ulonglong1",
    "ulonglong2",
    "ulonglong3",
    "ulonglong4",
    "float1",
    "float2",
    "float3",
    "float4",
    "double1",
    "double2",
    "double3",
    "double4",
    "make_int2",
    "make_float2",
    "make_float4",
    "clock",
    "clock64",
    "abs",
    "labs",
    "llabs",
    "min",
    "max",
    "umin",
    "umax",
    "llmin",
    "llmax",
    "ullmin",
    "ullmax",
    "fabs",
    "fabsf",
    "sqrt",
    "sqrtf",
    "rsqrt",
    "rsqrtf",
    "cbrt",
    "cbrtf",
    "rcbrt",
    "rcbrtf",
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "exp10",
    "exp10f",
    "expm1",
    "expm1f",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "log1p",
    "log1pf",
    "logb",
    "logbf",
    "ilogb",
    "ilogbf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "sincos",
    "sincosf",
    "sinpi",
    "sinpif",
    "cospi",
    "cospif",
    "sincospi",
    "sincospif",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "sinhf",
    "cosh",
    "coshf",
    "tanh",
    "tanhf",
    "asinh",
    "asinhf",
    "acosh",
    "acoshf",
    "atanh",
    "atanhf",
    "pow",
    "powf",
    "powi",
    "powif",
    "erf",
    "erff",
    "erfc",
    "erfcf",
    "erfinv",
    "erfinvf",
    "erfcinv",
    "erfcinvf",
    "erfcx",
    "erfcxf",
    "normcdf",
    "normcdff",
    "normcdfinv",
    "normcdfinvf",
    "lgamma",
    "lgammaf",
    "tgamma",
    "tgammaf",
    "j0",
    "j0f",
    "j1",
    "j1f",
    "jn",
    "jnf",
    "y0",
    "y0f",
    "y1",
    "y1f",
    "yn",
    "ynf",
    "cyl_bessel_i0",
    "cyl_bessel_i0f",
    "cyl_bessel_i1",
    "cyl_bessel_i1f",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "lround",
    "lroundf",
    "llround",
    "llroundf",
    "rint",
    "rintf",
    "lrint",
    "lrintf",
    "llrint",
    "llrintf",
    "nearbyint",
    "nearbyintf",
    "trunc",
    "truncf",
    "fmod",
    "fmodf",
    "remainder",
    "remainderf",
    "remquo",
    "remquof",
    "modf",
    "modff",
    "frexp",
    "frexpf",
    "ldexp",
    "ldexpf",
    "scalbn",
    "scalbnf",
    "scalbln",
    "scalblnf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fdim",
    "fdimf",
    "fma",
    "fmaf",
    "hypot",
    "hypotf",
    "rhypot",
    "rhypotf",
    "norm",
    "normf",
    "rnorm",
    "rnormf",
    "norm3d",
    "norm3df",
    "norm4d",
    "norm4df",
    "rnorm3d",
    "rnorm3df",
    "rnorm4d",
    "rnorm4df",
    "copysign",
    "copysignf",
    "nextafter",
    "nextafterf",
    "nan",
    "nanf",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "fdivide",
    "fdividef",
    "saturate",
    "trunc",
    "signbit",
    "atomicAdd",
    "atomicSub",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExch",
    "atomicCAS",
    "atomicInc",
    "atomicDec",
];

/// The prefix of every name the prelude and the emitter introduce; `.sk` names starting with it are renamed.
pub const RESERVED_PREFIX: &str = "skc_";

/// Every name a `.sk` name may not take as is.
fn reserved_names() -> HashSet<String> {
    let mut set: HashSet<String> = C_KEYWORDS.iter().chain(CUDA_NAMES).map(|s| s.to_string()).collect();
    for builtin in BUILTINS {
        set.extend(template_identifiers(builtin.cuda));
    }
    set
}

/// The identifiers a CUDA template mentions (`atomicAdd`, `threadIdx`, `sqrt`; `{f}` glued to a name also
/// yields the name with `f`).
fn template_identifiers(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let bytes = template.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if template[i..].starts_with("{i}") {
            // `{i}pow`: also `skc_ipow`.
            let rest = &template[i + 3..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            names.push(format!("skc_i{}", &rest[..end]));
        }
        if c == '{' {
            // Skip a placeholder.
            while i < bytes.len() && bytes[i] != b'}' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            let member = i > 0 && bytes[i - 1] == b'.';
            while i < bytes.len() && ((bytes[i] as char).is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let name = &template[start..i];
            if member {
                // `threadIdx.x`: a member name, not a name in scope.
                continue;
            }
            names.push(name.to_string());
            if template[i..].starts_with("{f}") {
                names.push(format!("{name}f"));
            }
            continue;
        }
        i += 1;
    }
    names
}

/// A C identifier for a `.sk` name, before uniqueness: `'` becomes `_prime`, other characters C does not allow
/// become `_`, and a name C reserves or the prelude could use gets a trailing `_` (or a `v` prefix).
pub fn sanitize(name: &str, reserved: &HashSet<String>) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\'' => out.push_str("_prime"),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => out.push('_'),
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) || out.starts_with('_') {
        // Names starting with `_` are reserved in C++ at global scope (and `__`/`_X` everywhere).
        out.insert(0, 'v');
    }
    if out.starts_with(RESERVED_PREFIX) {
        out.insert_str(0, "user_");
    }
    if reserved.contains(&out) {
        out.push('_');
    }
    out
}

/// Hands out names unique among the names live at a point: every global name, and the locals of the C blocks that
/// enclose it. A name is released when the C block that declares it closes, so sibling loops can both use `i`;
/// a name is never reused while a variable of that name is in scope, so no C declaration shadows another.
#[derive(Clone, Debug)]
pub struct NameAllocator {
    reserved: Rc<HashSet<String>>,
    /// Names an enclosing allocator handed out (every global, for a function's allocator): shared, not copied,
    /// so that starting a function costs nothing however many globals there are.
    inherited: Rc<HashSet<String>>,
    used: HashSet<String>,
    /// Names claimed in each open C block, innermost last (names claimed with no block open are permanent).
    scopes: Vec<Vec<String>>,
}

impl NameAllocator {
    pub fn new() -> NameAllocator {
        NameAllocator {
            reserved: Rc::new(reserved_names()),
            inherited: Rc::default(),
            used: HashSet::new(),
            scopes: Vec::new(),
        }
    }

    /// An allocator with no names taken that shares this one's reserved names (record fields: a namespace of
    /// their own, without rebuilding the reserved set).
    pub fn sibling(&self) -> NameAllocator {
        NameAllocator { reserved: Rc::clone(&self.reserved), ..NameAllocator::new_empty() }
    }

    fn new_empty() -> NameAllocator {
        NameAllocator { reserved: Rc::default(), inherited: Rc::default(), used: HashSet::new(), scopes: Vec::new() }
    }

    /// Moves the names handed out so far into the shared set, so that each later [`NameAllocator::child`] costs
    /// nothing (the global names, before thousands of functions each start from them). Only with no block open.
    pub fn freeze(&mut self) {
        if self.used.is_empty() {
            return;
        }
        let mut all = (*self.inherited).clone();
        all.extend(self.used.drain());
        self.inherited = Rc::new(all);
    }

    /// A fresh allocator that avoids everything this one has handed out (a function's locals avoid the globals).
    pub fn child(&self) -> NameAllocator {
        let inherited = if self.used.is_empty() {
            Rc::clone(&self.inherited)
        } else {
            Rc::new(self.inherited.iter().chain(&self.used).cloned().collect())
        };
        NameAllocator { reserved: Rc::clone(&self.reserved), inherited, used: HashSet::new(), scopes: Vec::new() }
    }

    fn taken(&self, name: &str) -> bool {
        self.used.contains(name) || self.inherited.contains(name)
    }

    /// A C block opens: names claimed from now on are released by the matching [`NameAllocator::leave_scope`].
    pub fn enter_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// The C block closes: its names may be used again.
    pub fn leave_scope(&mut self) {
        for name in self.scopes.pop().unwrap_or_default() {
            self.used.remove(&name);
        }
    }

    fn record(&mut self, name: &str) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name.to_string());
        }
    }

    /// A unique C name for the `.sk` name `name`: itself if free, else `name_1`, `name_2`...
    pub fn fresh(&mut self, name: &str) -> String {
        let mut base = sanitize(name, &self.reserved);
        if is_temporary_name(&base) {
            base.push('_');
        }
        self.claim(base)
    }

    /// A name the compiler makes in the reserved prefix (a tuple's record, `skc_tuple_float_int`), which no `.sk`
    /// name takes (`sanitize`): kept as it is unless another such name has it.
    pub fn compiler_name(&mut self, name: &str) -> String {
        self.claim(name.to_string())
    }

    /// A unique name for an emitter temporary (`tmp1`, `tmp2`...), spelled with the counter always present.
    ///
    /// Temporaries are never released: a temporary is often named after the block that computes its value has
    /// closed, yet declared before that block (`bool tmp2 = a; if (tmp2) { ...; tmp2 = b; }`), so a released name
    /// could be reused inside the block and shadow it. `fresh` keeps `.sk` names out of this namespace.
    pub fn temporary(&mut self, base: &str) -> String {
        let mut n = 1;
        loop {
            let candidate = format!("{base}{n}");
            if !self.taken(&candidate) && !self.reserved.contains(&candidate) {
                self.used.insert(candidate.clone());
                return candidate;
            }
            n += 1;
        }
    }

    fn claim(&mut self, base: String) -> String {
        let mut candidate = base.clone();
        let mut n = 0;
        while self.taken(&candidate) || (n > 0 && self.reserved.contains(&candidate)) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        self.used.insert(candidate.clone());
        self.record(&candidate);
        candidate
    }
}

/// `tmp` followed by digits: the emitter's temporaries.
fn is_temporary_name(name: &str) -> bool {
    name.strip_prefix("tmp").is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

impl Default for NameAllocator {
    fn default() -> Self {
        NameAllocator::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_primes_and_prefixes_are_escaped() {
        let mut names = NameAllocator::new();
        assert_eq!(names.fresh("class"), "class_");
        assert_eq!(names.fresh("x'"), "x_prime");
        assert_eq!(names.fresh("sqrtf"), "sqrtf_");
        assert_eq!(names.fresh("atomicAdd"), "atomicAdd_");
        assert_eq!(names.fresh("skc_lane_id"), "user_skc_lane_id");
        assert_eq!(names.fresh("_t"), "v_t");
        assert_eq!(names.fresh("x"), "x");
        assert_eq!(names.fresh("x"), "x_1");
        assert_eq!(names.fresh("x"), "x_2");
        assert_eq!(names.temporary("tmp"), "tmp1");
        assert_eq!(names.temporary("tmp"), "tmp2");
    }

    #[test]
    fn names_are_released_when_their_block_closes() {
        let mut names = NameAllocator::new();
        assert_eq!(names.fresh("n"), "n");
        names.enter_scope();
        assert_eq!(names.fresh("i"), "i");
        assert_eq!(names.fresh("n"), "n_1");
        names.leave_scope();
        names.enter_scope();
        assert_eq!(names.fresh("i"), "i");
        assert_eq!(names.fresh("n"), "n_1");
        names.leave_scope();
        assert_eq!(names.fresh("n"), "n_1");
    }

    #[test]
    fn template_names_are_reserved() {
        let ids = template_identifiers("sqrt{f}({0}) + __shfl_sync({mask}, {0}, {1})");
        assert!(ids.contains(&"sqrt".to_string()));
        assert!(ids.contains(&"sqrtf".to_string()));
        assert!(ids.contains(&"__shfl_sync".to_string()));
        assert_eq!(template_identifiers("((int)threadIdx.x)"), vec!["int".to_string(), "threadIdx".to_string()]);
    }
}
