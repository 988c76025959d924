//! The launch interface of a kernel as the runtime checks it: the type of every parameter, whether the kernel
//! writes through each vector, and the element type of its dynamic shared array. The compiler's emitter produces
//! these (`skc_core::codegen::KernelSignature`, converted in `frontend`); hand-written CUDA C supplies its own.
//!
//! [`DeviceElem`] ties a Rust type to a vector element type, so `DeviceBuffer<f32>` is a `float32 vector`.

use std::fmt;

use cudarc::driver::DeviceRepr;

use crate::scalar::{DeviceScalar, ScalarType};
pub use skc_core::contract::LaunchContract;

/// The element type of a vector: a scalar or a record (by its C name, with its size in bytes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    Scalar(ScalarType),
    Record { name: String, size: usize },
}

impl ElemType {
    pub fn size(&self) -> usize {
        match self {
            ElemType::Scalar(s) => s.size() as usize,
            ElemType::Record { size, .. } => *size,
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElemType::Scalar(s) => write!(f, "{s}"),
            ElemType::Record { name, size } => write!(f, "{name} ({size} bytes)"),
        }
    }
}

/// How a parameter is passed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// By value.
    Scalar(ScalarType),
    /// A device pointer to elements of `elem`; `writable` when the kernel (or a function it calls) writes it.
    Vector { elem: ElemType, writable: bool },
    /// A record by value.
    Record { name: String, size: usize },
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::Scalar(s) => write!(f, "{s}"),
            ParamType::Vector { elem, writable: true } => write!(f, "{elem} vector (written)"),
            ParamType::Vector { elem, writable: false } => write!(f, "{elem} vector (read-only)"),
            ParamType::Record { name, size } => write!(f, "record {name} ({size} bytes)"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamSignature {
    /// The `.sk` name.
    pub name: String,
    pub ty: ParamType,
    /// For a vector: the alignment in bytes its device pointer must have, checked at launch (vector loads such as
    /// `load_float4` move 16 bytes at once from a multiple of 16); 0 when its elements' own alignment is enough.
    pub align: u32,
}

/// Everything needed to launch one kernel safely.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelSignature {
    /// The `.sk` name.
    pub name: String,
    /// The `extern "C"` symbol in the CUDA C (the `.sk` name unless C reserves it).
    pub symbol: String,
    /// The parameters passed at launch, in order.
    pub params: Vec<ParamSignature>,
    /// Element type of the kernel's dynamic shared array, if it has one (its bytes are given at launch).
    pub dynamic_shared_elem: Option<ScalarType>,
    /// What every launch must keep (`[@block_multiple 32]`, ...): the emitter's, checked at every launch.
    pub contract: LaunchContract,
}

impl KernelSignature {
    /// A signature for hand-written CUDA C, whose symbol is its name.
    pub fn new(name: impl Into<String>, params: Vec<ParamSignature>) -> Self {
        let name = name.into();
        KernelSignature {
            symbol: name.clone(),
            name,
            params,
            dynamic_shared_elem: None,
            contract: LaunchContract::default(),
        }
    }

    pub fn with_dynamic_shared(mut self, elem: ScalarType) -> Self {
        self.dynamic_shared_elem = Some(elem);
        self
    }

    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// `name (a : float32 vector, n : int32)`, for error messages and generated docs.
    pub fn describe(&self) -> String {
        let params: Vec<String> = self.params.iter().map(|p| format!("{} : {}", p.name, p.ty)).collect();
        format!("{} ({})", self.name, params.join(", "))
    }
}

impl ParamSignature {
    pub fn scalar(name: impl Into<String>, ty: ScalarType) -> Self {
        ParamSignature { name: name.into(), ty: ParamType::Scalar(ty), align: 0 }
    }

    pub fn vector(name: impl Into<String>, elem: ScalarType, writable: bool) -> Self {
        ParamSignature { name: name.into(), ty: ParamType::Vector { elem: ElemType::Scalar(elem), writable }, align: 0 }
    }

    /// The same parameter, its pointer required to be a multiple of `align` bytes at launch.
    pub fn aligned(mut self, align: u32) -> Self {
        self.align = align;
        self
    }
}

/// A Rust type that can be the element of a device vector.
///
/// # Safety
/// `elem_type` must describe the C layout of `Self` exactly (size, field order and offsets).
pub unsafe trait DeviceElem: DeviceRepr + Copy + Default + Send + Sync + 'static {
    fn elem_type() -> ElemType;
}

// SAFETY: a scalar's `TYPE` describes it exactly (see `DeviceScalar`).
unsafe impl<T: DeviceScalar> DeviceElem for T {
    fn elem_type() -> ElemType {
        ElemType::Scalar(T::TYPE)
    }
}

/// Declares a `#[repr(C)]` Rust struct to be the `.sk` record `c_name`, so it can be a vector element and a
/// by-value kernel argument. The launch checks the name and the size against the kernel's signature.
///
/// ```ignore
/// #[repr(C)] #[derive(Clone, Copy, Default)] struct Point { x: f32, y: f32 }
/// skc_runtime::sk_record!(Point = "point");
/// ```
#[macro_export]
macro_rules! sk_record {
    ($rust:ty = $c_name:literal) => {
        // SAFETY: the user declares `$rust` as `#[repr(C)]` with the record's fields in order.
        unsafe impl $crate::__private::DeviceRepr for $rust {}
        // SAFETY: as above; the launch still compares name and size.
        unsafe impl $crate::DeviceElem for $rust {
            fn elem_type() -> $crate::ElemType {
                $crate::ElemType::Record { name: $c_name.to_string(), size: ::std::mem::size_of::<$rust>() }
            }
        }
    };
}

/// The runtime's view of a signature the emitter produced; records get their sizes from the emitter's layouts.
pub(crate) fn from_codegen(
    kernel: &skc_core::codegen::KernelSignature,
    records: &[skc_core::codegen::RecordLayout],
) -> KernelSignature {
    use skc_core::codegen::{ElemType as CElem, ParamKind};
    let record = |name: &str| ElemType::Record {
        name: name.to_string(),
        size: records.iter().find(|r| r.c_name == name).map(|r| r.size as usize).unwrap_or(0),
    };
    let elem = |e: &CElem| match e {
        CElem::Scalar(s) => ElemType::Scalar(*s),
        CElem::Record(name) => record(name),
    };
    let params = kernel
        .params
        .iter()
        .map(|p| ParamSignature {
            name: p.name.clone(),
            ty: match &p.kind {
                ParamKind::Scalar(s) => ParamType::Scalar(*s),
                ParamKind::Vector { elem: e, writable } => ParamType::Vector { elem: elem(e), writable: *writable },
                ParamKind::Record(name) => match record(name) {
                    ElemType::Record { name, size } => ParamType::Record { name, size },
                    ElemType::Scalar(s) => ParamType::Scalar(s),
                },
            },
            align: p.align,
        })
        .collect();
    KernelSignature {
        name: kernel.name.clone(),
        symbol: kernel.symbol.clone(),
        params,
        dynamic_shared_elem: kernel.dynamic_shared_elem,
        contract: kernel.contract,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_parameters_in_sk_terms() {
        let sig = KernelSignature::new(
            "saxpy",
            vec![
                ParamSignature::vector("x", ScalarType::Float32, false),
                ParamSignature::scalar("n", ScalarType::Int32),
            ],
        );
        assert_eq!(sig.describe(), "saxpy (x : float32 vector (read-only), n : int32)");
        assert_eq!(sig.param_index("n"), Some(1));
    }
}
