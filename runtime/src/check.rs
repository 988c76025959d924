//! The checks that make a launch safe, as pure functions of the kernel's signature, a description of each
//! argument and the launch geometry (so they are tested without a GPU): argument count and types, buffers lent
//! read-only to a kernel that writes them, declared lengths, grid and block limits, dynamic shared memory, and
//! the memory rule's assumption that a vector the kernel never writes shares no memory with one it writes.

use crate::config::{Extent, LaunchConfig};
use crate::error::{Result, RuntimeError};
use crate::scalar::ScalarValue;
use crate::signature::{ElemType, KernelSignature, ParamType};

/// What the launch knows about one argument.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ArgInfo {
    Scalar(ScalarValue),
    /// A device buffer; `writable` when lent mutably (`&mut buffer`).
    Buffer {
        elem: ElemType,
        len: usize,
        writable: bool,
    },
    Record(ElemType),
}

impl ArgInfo {
    fn describe(&self) -> String {
        match self {
            ArgInfo::Scalar(v) => format!("{} value {v}", v.scalar_type()),
            ArgInfo::Buffer { elem, len, .. } => format!("a buffer of {len} {elem}"),
            ArgInfo::Record(elem) => format!("record {elem}"),
        }
    }
}

/// A declared length: vector parameter `param` holds at least `extent` elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LengthRule {
    pub param: usize,
    pub extent: Extent,
}

/// The device's and the kernel's launch limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The kernel's own limit (it depends on its registers), at most the device's.
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    pub static_shared_bytes: u32,
    pub max_shared_optin: u32,
}

pub(crate) fn check_arguments(sig: &KernelSignature, args: &[ArgInfo]) -> Result<()> {
    if args.len() != sig.params.len() {
        return Err(RuntimeError::ArgumentCount {
            kernel: sig.name.clone(),
            expected: sig.params.len(),
            found: args.len(),
            params: sig.params.iter().map(|p| format!("{} : {}", p.name, p.ty)).collect(),
        });
    }
    for (index, (param, arg)) in sig.params.iter().zip(args).enumerate() {
        let mismatch = || RuntimeError::ArgumentType {
            kernel: sig.name.clone(),
            param: param.name.clone(),
            index,
            expected: expected_text(&param.ty),
            found: arg.describe(),
        };
        match (&param.ty, arg) {
            (ParamType::Scalar(want), ArgInfo::Scalar(value)) if *want == value.scalar_type() => {}
            (ParamType::Vector { elem, writable }, ArgInfo::Buffer { elem: got, writable: lent_mut, .. })
                if elem == got =>
            {
                if *writable && !lent_mut {
                    return Err(RuntimeError::ReadOnlyBuffer { kernel: sig.name.clone(), param: param.name.clone() });
                }
            }
            (ParamType::Record { name, size }, ArgInfo::Record(ElemType::Record { name: got, size: got_size }))
                if name == got && size == got_size => {}
            _ => return Err(mismatch()),
        }
    }
    Ok(())
}

fn expected_text(ty: &ParamType) -> String {
    match ty {
        ParamType::Scalar(s) => format!("a {s} value ({})", s.rust_name()),
        ParamType::Vector { elem: ElemType::Scalar(s), writable } => {
            let borrow = if *writable { "&mut " } else { "&" };
            format!("a {s} vector ({borrow}DeviceBuffer<{}>)", s.rust_name())
        }
        ParamType::Vector { elem, .. } => format!("a vector of {elem}"),
        ParamType::Record { name, size } => format!("record {name} ({size} bytes)"),
    }
}

/// Checks every declared length against the buffers passed (arguments already type-checked).
pub(crate) fn check_lengths(
    sig: &KernelSignature,
    args: &[ArgInfo],
    rules: &[LengthRule],
    config: &LaunchConfig,
) -> Result<()> {
    for rule in rules {
        let param = &sig.params[rule.param].name;
        let ArgInfo::Buffer { len, .. } = args[rule.param] else { continue };
        let required = evaluate(sig, args, &rule.extent, config).map_err(|reason| RuntimeError::InvalidLength {
            kernel: sig.name.clone(),
            param: param.clone(),
            reason,
        })?;
        if (len as u64) < required {
            return Err(RuntimeError::BufferTooShort {
                kernel: sig.name.clone(),
                param: param.clone(),
                len,
                required,
                rule: rule.extent.to_string(),
            });
        }
    }
    Ok(())
}

fn evaluate(sig: &KernelSignature, args: &[ArgInfo], extent: &Extent, config: &LaunchConfig) -> Result<u64, String> {
    match extent {
        Extent::Elements(n) => Ok(*n),
        Extent::GridThreads => Ok(config.threads()),
        Extent::GridBlocks => Ok(config.grid.count()),
        Extent::Param(_) | Extent::Product(_) => {
            let mut product: u64 = 1;
            for name in extent.params() {
                let index = sig.param_index(name).ok_or_else(|| format!("no parameter `{name}`"))?;
                let value = match &args[index] {
                    ArgInfo::Scalar(v) => *v,
                    other => return Err(format!("`{name}` is {}, not an integer", other.describe())),
                };
                let count = value.as_count().ok_or_else(|| format!("`{name}` = {value} is not a count"))?;
                product = product.checked_mul(count).ok_or_else(|| format!("{extent} overflows"))?;
            }
            Ok(product)
        }
    }
}

/// Checks a declared rule when it is declared: the vector and the scalars it names exist and have the right kind.
pub(crate) fn check_rule(sig: &KernelSignature, param: &str, extent: &Extent) -> Result<LengthRule> {
    let invalid =
        |reason: String| RuntimeError::InvalidLength { kernel: sig.name.clone(), param: param.into(), reason };
    let index = sig.param_index(param).ok_or_else(|| invalid(format!("kernel has no parameter `{param}`")))?;
    if !matches!(sig.params[index].ty, ParamType::Vector { .. }) {
        return Err(invalid(format!("`{param}` is not a vector")));
    }
    for name in extent.params() {
        match sig.param_index(name).map(|i| &sig.params[i].ty) {
            Some(ParamType::Scalar(s)) if s.is_integer() => {}
            Some(other) => return Err(invalid(format!("`{name}` is {other}, not an integer scalar"))),
            None => return Err(invalid(format!("kernel has no parameter `{name}`"))),
        }
    }
    Ok(LengthRule { param: index, extent: extent.clone() })
}

/// The device memory a buffer argument covers: `bytes` bytes from device address `address`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeviceRange {
    pub address: u64,
    pub bytes: u64,
}

impl DeviceRange {
    /// Do the two share a byte? (Ranges of different allocations never do; empty ranges never do.)
    fn overlaps(self, other: DeviceRange) -> bool {
        self.bytes > 0
            && other.bytes > 0
            && self.address < other.address.saturating_add(other.bytes)
            && other.address < self.address.saturating_add(self.bytes)
    }
}

/// The memory rule's assumption at the host boundary. The convergence analysis treats the contents of a vector
/// the kernel never writes as the same for every thread during the launch (a load from it at a uniform index is
/// uniform; the parameter is also `const __restrict__`). That holds only if no vector the kernel writes shares
/// memory with it: a launch where a read-only vector parameter's bytes overlap a written one's is refused.
/// `ranges` has one entry per parameter (`None` for scalars and records).
pub(crate) fn check_aliasing(sig: &KernelSignature, ranges: &[Option<DeviceRange>]) -> Result<()> {
    let vectors = |written: bool| {
        sig.params.iter().zip(ranges).filter_map(move |(param, range)| match (&param.ty, range) {
            (ParamType::Vector { writable, .. }, Some(range)) if *writable == written => Some((param, *range)),
            _ => None,
        })
    };
    for (read, read_range) in vectors(false) {
        if let Some((written, _)) = vectors(true).find(|(_, range)| range.overlaps(read_range)) {
            return Err(RuntimeError::AliasedVectors {
                kernel: sig.name.clone(),
                read: read.name.clone(),
                written: written.name.clone(),
            });
        }
    }
    Ok(())
}

/// A vector parameter that vector loads or stores reach (`load_float4`) needs its pointer aligned to the vector's
/// size: every index counts whole vectors, so the base is the one address the compiler cannot see. A buffer is
/// aligned (the driver's allocations are aligned to 256 bytes), but a view into one at an offset may not be.
/// `ranges` has one entry per parameter, with the device addresses taken.
pub(crate) fn check_alignment(sig: &KernelSignature, ranges: &[Option<DeviceRange>]) -> Result<()> {
    for (param, range) in sig.params.iter().zip(ranges) {
        let (Some(range), true) = (range, param.align > 1) else { continue };
        if range.address % u64::from(param.align) != 0 {
            return Err(RuntimeError::MisalignedVector {
                kernel: sig.name.clone(),
                param: param.name.clone(),
                address: range.address,
                align: param.align,
            });
        }
    }
    Ok(())
}

pub(crate) fn check_config(sig: &KernelSignature, config: &LaunchConfig, limits: &Limits) -> Result<()> {
    let fail = |reason: String| Err(RuntimeError::LaunchConfig { kernel: sig.name.clone(), reason });
    let (grid, block) = (config.grid.as_array(), config.block.as_array());
    if grid.contains(&0) || block.contains(&0) {
        return fail(format!("empty grid {} or block {}", config.grid, config.block));
    }
    let threads = config.block.count();
    if threads > limits.max_threads_per_block as u64 {
        return fail(format!(
            "a block of {threads} threads exceeds this kernel's limit of {} (set by its registers and the device)",
            limits.max_threads_per_block
        ));
    }
    for axis in 0..3 {
        if block[axis] > limits.max_block_dim[axis] || grid[axis] > limits.max_grid_dim[axis] {
            return fail(format!(
                "block {} or grid {} exceeds the device's limits (block {:?}, grid {:?})",
                config.block, config.grid, limits.max_block_dim, limits.max_grid_dim
            ));
        }
    }
    check_contract(sig, config)?;
    check_shared(sig, config, limits)
}

/// The kernel's launch contract (`[@block_multiple 32]`, ...), which its convergence analysis relied on: the one
/// definition of a violation is `skc_core::contract::LaunchContract::violation`, which the interpreter uses too.
pub(crate) fn check_contract(sig: &KernelSignature, config: &LaunchConfig) -> Result<()> {
    match sig.contract.violation(config.block.as_array()) {
        Some(violation) => Err(RuntimeError::LaunchContract {
            kernel: sig.name.clone(),
            contract: violation.attribute,
            reason: violation.reason,
        }),
        None => Ok(()),
    }
}

fn check_shared(sig: &KernelSignature, config: &LaunchConfig, limits: &Limits) -> Result<()> {
    let fail = |reason: String| Err(RuntimeError::LaunchConfig { kernel: sig.name.clone(), reason });
    let bytes = config.dynamic_shared_bytes;
    match sig.dynamic_shared_elem {
        None if bytes > 0 => {
            return fail(format!(
                "the launch gives {bytes} bytes of dynamic shared memory, but the kernel has no dynamic shared array"
            ))
        }
        Some(elem) if bytes == 0 => {
            return fail(format!(
                "the kernel has a dynamic shared array of {elem}: give its size with `LaunchConfig::with_shared_elems`"
            ))
        }
        Some(elem) if !(bytes as usize).is_multiple_of(elem.size() as usize) => {
            return fail(format!("{bytes} bytes of dynamic shared memory is not a whole number of {elem} elements"))
        }
        _ => {}
    }
    let total = bytes as u64 + limits.static_shared_bytes as u64;
    if total > limits.max_shared_optin as u64 {
        return fail(format!(
            "{bytes} bytes of dynamic shared memory plus {} static exceed the device's {} bytes per block",
            limits.static_shared_bytes, limits.max_shared_optin
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::ScalarType as S;
    use crate::signature::ParamSignature;

    fn vec_add() -> KernelSignature {
        KernelSignature::new(
            "vec_add",
            vec![
                ParamSignature::vector("a", S::Float32, false),
                ParamSignature::vector("b", S::Float32, false),
                ParamSignature::vector("c", S::Float32, true),
                ParamSignature::scalar("n", S::Int32),
            ],
        )
    }

    fn buffer(elem: S, len: usize, writable: bool) -> ArgInfo {
        ArgInfo::Buffer { elem: ElemType::Scalar(elem), len, writable }
    }

    fn good_args(n: i32) -> Vec<ArgInfo> {
        vec![
            buffer(S::Float32, 100, false),
            buffer(S::Float32, 100, false),
            buffer(S::Float32, 100, true),
            ArgInfo::Scalar(ScalarValue::Int32(n)),
        ]
    }

    fn limits() -> Limits {
        Limits {
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            static_shared_bytes: 1024,
            max_shared_optin: 232448,
        }
    }

    /// A `float16x2 vector` parameter, as the emitter describes it, takes a `DeviceBuffer<Float16x2>` (its C name
    /// and size), and not a buffer of `Float16`.
    #[test]
    fn a_vector_of_16_bit_pairs_takes_a_buffer_of_the_host_pairs() {
        use crate::signature::DeviceElem;
        let source =
            "kernel k (ps : float16x2 vector) (bs : bfloat16x2 vector) =\n  ps.(0) <- ps.(1);\n  bs.(0) <- bs.(1)\n";
        let files = skc_core::session::MemoryFiles::new();
        let session = skc_core::Session::new(&files);
        let checked = session.check("pairs.sk", source);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let output = session.emit(&checked);
        let sig = crate::signature::from_codegen(&output.kernels[0], &output.records);
        let pairs = |elem: ElemType| ArgInfo::Buffer { elem, len: 2, writable: true };
        let (f16x2, bf16x2) = (crate::Float16x2::elem_type(), crate::BFloat16x2::elem_type());
        assert_eq!(f16x2, ElemType::Record { name: "skc_float16x2".into(), size: 4 });
        assert!(check_arguments(&sig, &[pairs(f16x2.clone()), pairs(bf16x2)]).is_ok());
        assert!(check_arguments(&sig, &[pairs(ElemType::Scalar(S::Float16)), pairs(f16x2)]).is_err());
    }

    #[test]
    fn accepts_matching_arguments() {
        assert!(check_arguments(&vec_add(), &good_args(100)).is_ok());
    }

    #[test]
    fn wrong_count_names_the_kernel_and_its_parameters() {
        let err = check_arguments(&vec_add(), &good_args(100)[..3]).unwrap_err();
        assert!(matches!(err, RuntimeError::ArgumentCount { expected: 4, found: 3, .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("vec_add") && text.contains("n : int32"), "{text}");
    }

    #[test]
    fn wrong_scalar_type_names_the_parameter() {
        let mut args = good_args(100);
        args[3] = ArgInfo::Scalar(ScalarValue::Int64(100));
        let err = check_arguments(&vec_add(), &args).unwrap_err();
        assert_eq!((err.kernel(), err.param()), (Some("vec_add"), Some("n")));
        assert!(err.to_string().contains("expected a int32 value (i32), found int64"), "{err}");
    }

    #[test]
    fn wrong_element_type_names_the_parameter() {
        let mut args = good_args(100);
        args[1] = buffer(S::Float64, 100, false);
        let err = check_arguments(&vec_add(), &args).unwrap_err();
        assert_eq!(err.param(), Some("b"));
        assert!(err.to_string().contains("DeviceBuffer<f32>"), "{err}");
    }

    #[test]
    fn scalar_for_vector_is_a_type_error() {
        let mut args = good_args(100);
        args[0] = ArgInfo::Scalar(ScalarValue::Float32(1.0));
        assert_eq!(check_arguments(&vec_add(), &args).unwrap_err().param(), Some("a"));
    }

    #[test]
    fn written_vector_needs_a_mutable_loan() {
        let mut args = good_args(100);
        args[2] = buffer(S::Float32, 100, false);
        let err = check_arguments(&vec_add(), &args).unwrap_err();
        assert!(matches!(err, RuntimeError::ReadOnlyBuffer { ref param, .. } if param == "c"), "{err:?}");
    }

    fn range(address: u64, bytes: u64) -> Option<DeviceRange> {
        Some(DeviceRange { address, bytes })
    }

    /// `a` and `b` are read, `c` written (`vec_add`): `a` or `b` overlapping `c` by even a byte is refused, with
    /// both parameters named; read-only vectors may overlap each other, and touching ranges do not overlap.
    #[test]
    fn a_read_only_vector_may_not_overlap_a_written_one() {
        let sig = vec_add();
        let apart = [range(0x1000, 400), range(0x2000, 400), range(0x3000, 400), None];
        assert!(check_aliasing(&sig, &apart).is_ok());
        let same_read = [range(0x1000, 400), range(0x1000, 400), range(0x3000, 400), None];
        assert!(check_aliasing(&sig, &same_read).is_ok(), "two read-only views of the same memory are fine");
        let touching = [range(0x1000, 400), range(0x2000, 400), range(0x1000 + 400, 400), None];
        assert!(check_aliasing(&sig, &touching).is_ok(), "[0x1000, 0x1190) and [0x1190, ..) share no byte");
        for (read, at) in [(0, 0x3000 + 399), (1, 0x3000 - 399), (1, 0x3000 + 100)] {
            let mut ranges = apart;
            ranges[read] = range(at, 400);
            let err = check_aliasing(&sig, &ranges).unwrap_err();
            let expected = if read == 0 { "a" } else { "b" };
            assert!(
                matches!(&err, RuntimeError::AliasedVectors { kernel, read, written }
                    if kernel == "vec_add" && read == expected && written == "c"),
                "{err:?}"
            );
            assert_eq!((err.kernel(), err.param()), (Some("vec_add"), Some(expected)));
            let text = err.to_string();
            assert!(text.contains(&format!("`{expected}`")) && text.contains("`c`"), "{text}");
        }
        let empty = [range(0x3000, 0), range(0x2000, 400), range(0x3000, 400), None];
        assert!(check_aliasing(&sig, &empty).is_ok(), "an empty buffer covers no byte");
        let end = [range(u64::MAX - 10, 400), range(0x2000, 400), range(u64::MAX - 5, 400), None];
        assert!(check_aliasing(&sig, &end).is_err(), "no overflow at the top of the address space");
    }

    #[test]
    fn declared_lengths_are_checked_against_scalar_arguments() {
        let sig = vec_add();
        let rules: Vec<LengthRule> =
            ["a", "b", "c"].iter().map(|p| check_rule(&sig, p, &Extent::param("n")).unwrap()).collect();
        let config = LaunchConfig::for_elements(100, 128);
        assert!(check_lengths(&sig, &good_args(100), &rules, &config).is_ok());
        let err = check_lengths(&sig, &good_args(101), &rules, &config).unwrap_err();
        assert!(matches!(err, RuntimeError::BufferTooShort { len: 100, required: 101, ref param, .. } if param == "a"));
        let err = check_lengths(&sig, &good_args(-1), &rules, &config).unwrap_err();
        assert!(matches!(err, RuntimeError::InvalidLength { .. }), "{err:?}");
    }

    #[test]
    fn grid_extents_and_products() {
        let sig = vec_add();
        let config = LaunchConfig::new(1, 64);
        let rule = check_rule(&sig, "c", &Extent::GridThreads).unwrap();
        assert!(check_lengths(&sig, &good_args(1), std::slice::from_ref(&rule), &config).is_ok());
        let err = check_lengths(&sig, &good_args(1), &[rule], &LaunchConfig::new(2, 64)).unwrap_err();
        assert!(matches!(err, RuntimeError::BufferTooShort { required: 128, .. }), "{err:?}");
        let rule = check_rule(&sig, "a", &Extent::product(&["n", "n"])).unwrap();
        assert!(check_lengths(&sig, &good_args(10), std::slice::from_ref(&rule), &config).is_ok());
        assert!(check_lengths(&sig, &good_args(11), &[rule], &config).is_err());
    }

    #[test]
    fn rules_must_name_a_vector_and_integer_scalars() {
        let sig = vec_add();
        assert!(check_rule(&sig, "n", &Extent::Elements(1)).is_err());
        assert!(check_rule(&sig, "a", &Extent::param("b")).is_err());
        assert!(check_rule(&sig, "a", &Extent::param("m")).is_err());
        assert!(check_rule(&sig, "z", &Extent::Elements(1)).is_err());
    }

    #[test]
    fn launch_geometry_is_checked() {
        let sig = vec_add();
        assert!(check_config(&sig, &LaunchConfig::new(10, 256), &limits()).is_ok());
        assert!(check_config(&sig, &LaunchConfig::new(10, 2048), &limits()).is_err());
        assert!(check_config(&sig, &LaunchConfig::new(0, 256), &limits()).is_err());
        assert!(check_config(&sig, &LaunchConfig::new((1, 70000), 32), &limits()).is_err());
        assert!(check_config(&sig, &LaunchConfig::new(1, (1, 1, 128)), &limits()).is_err());
        let mut narrow = limits();
        narrow.max_threads_per_block = 512;
        let err = check_config(&sig, &LaunchConfig::new(1, 1024), &narrow).unwrap_err();
        assert!(err.to_string().contains("limit of 512"), "{err}");
    }

    #[test]
    fn every_launch_keeps_the_kernel_contract() {
        use skc_core::contract::LaunchContract;
        let mut sig = vec_add();
        sig.contract = LaunchContract { one_dimensional: true, block_multiple: Some(32), ..Default::default() };
        assert!(check_config(&sig, &LaunchConfig::new(10, 256), &limits()).is_ok());
        let err = check_config(&sig, &LaunchConfig::new(10, 100), &limits()).unwrap_err();
        match &err {
            RuntimeError::LaunchContract { kernel, contract, reason } => {
                assert_eq!((kernel.as_str(), contract.as_str()), ("vec_add", "[@block_multiple 32]"));
                assert!(reason.contains("100"), "{reason}");
            }
            other => panic!("not a contract error: {other:?}"),
        }
        assert_eq!(err.kernel(), Some("vec_add"));
        assert!(err.to_string().contains("[@block_multiple 32]"), "{err}");
        let err = check_config(&sig, &LaunchConfig::new(1, (32, 2, 1)), &limits()).unwrap_err();
        assert!(matches!(err, RuntimeError::LaunchContract { ref contract, .. } if contract == "[@block_1d]"));
        sig.contract = LaunchContract { block_size: Some(128), ..Default::default() };
        assert!(check_config(&sig, &LaunchConfig::new(3, 128), &limits()).is_ok());
        assert!(check_config(&sig, &LaunchConfig::new(3, 256), &limits()).is_err());
        sig.contract = LaunchContract { max_threads: Some(256), ..Default::default() };
        assert!(check_config(&sig, &LaunchConfig::new(3, (16, 16, 1)), &limits()).is_ok());
        assert!(check_config(&sig, &LaunchConfig::new(3, 512), &limits()).is_err());
    }

    #[test]
    fn dynamic_shared_memory_must_match_the_kernel() {
        let plain = vec_add();
        let err = check_config(&plain, &LaunchConfig::new(1, 32).with_shared_bytes(64), &limits()).unwrap_err();
        assert!(err.to_string().contains("no dynamic shared array"), "{err}");
        let shared = vec_add().with_dynamic_shared(S::Float32);
        assert!(check_config(&shared, &LaunchConfig::new(1, 32), &limits()).is_err());
        assert!(check_config(&shared, &LaunchConfig::new(1, 32).with_shared_bytes(6), &limits()).is_err());
        assert!(check_config(&shared, &LaunchConfig::new(1, 32).with_shared_elems::<f32>(32), &limits()).is_ok());
        let too_big = LaunchConfig::new(1, 32).with_shared_bytes(232448);
        assert!(check_config(&shared, &too_big, &limits()).is_err());
    }

    #[test]
    fn vector_loads_need_their_base_aligned() {
        let sig = KernelSignature::new(
            "scale4",
            vec![
                ParamSignature::vector("a", S::Float32, false).aligned(16),
                ParamSignature::vector("out", S::Float32, true),
                ParamSignature::scalar("n", S::Int32),
            ],
        );
        let range = |address| Some(DeviceRange { address, bytes: 64 });
        assert!(check_alignment(&sig, &[range(0x7f00_0000_0100), range(0x7f00_0000_0204), None]).is_ok());
        // A view 4 bytes into a buffer: the float4 loads would fault.
        let err = check_alignment(&sig, &[range(0x7f00_0000_0104), range(0x7f00_0000_0200), None]).unwrap_err();
        assert!(
            matches!(&err, RuntimeError::MisalignedVector { param, align: 16, address: 0x7f00_0000_0104, .. } if param == "a"),
            "{err:?}"
        );
        assert_eq!(err.kernel(), Some("scale4"));
        assert!(err.to_string().contains("kernel `scale4`, parameter `a`"), "{err}");
    }
}
