//! The crate's one error type. Every failure a caller can cause or meet is a variant with the facts needed to
//! act on it: which kernel, which parameter, which CUDA error (by its driver name, `CUDA_ERROR_ILLEGAL_ADDRESS`).

use std::fmt;
use std::path::PathBuf;

use skc_nvrtc::NvrtcError;

pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum RuntimeError {
    /// The CUDA driver library (libcuda) could not be loaded: no NVIDIA driver on this machine.
    NoDriver { reason: String },
    /// The driver is there but has no device with this ordinal.
    NoDevice { ordinal: usize, count: usize },
    /// A CUDA driver call failed. `kernel` is the kernel launched (or, for errors reported later by a
    /// synchronising call, the last kernel launched on the context), so an asynchronous
    /// `CUDA_ERROR_ILLEGAL_ADDRESS` names the kernel that most likely caused it. `device` is the ordinal of the
    /// device the call acted on, when known.
    Driver { call: &'static str, code: String, description: String, kernel: Option<String>, device: Option<usize> },
    /// Fewer CUDA devices than a multi-device program asked for.
    NotEnoughDevices { asked: usize, present: usize },
    /// The same device ordinal appears twice in a device set.
    DuplicateDevice { ordinal: usize },
    /// The NCCL library could not be loaded (`searched` lists the files and names tried) or lacks a function.
    NcclMissing { searched: Vec<String>, reason: String },
    /// An NCCL call failed on the communicator of `rank`, which lives on device `device` (`code` is NCCL's name
    /// for the result, `ncclUnhandledCudaError`; `description` NCCL's own message, with its last error).
    Nccl { call: &'static str, code: String, description: String, rank: Option<usize>, device: Option<usize> },
    /// The `.sk` program has errors; `rendered` holds the diagnostics as `skc check` prints them.
    Frontend { file: String, error_count: usize, rendered: String },
    /// NVRTC could not be loaded or rejected the generated CUDA C.
    Nvrtc { module: String, source: NvrtcError },
    /// The program launches kernels from the device but `libcudadevrt.a` (the device runtime it must be linked
    /// with) was not found; `searched` lists the files and folders looked at.
    DeviceRuntimeMissing { module: String, searched: Vec<String> },
    /// The driver's linker failed to link a program with the device runtime (`log` is the linker's error log).
    Link { module: String, call: &'static str, code: String, log: String },
    /// A file could not be read.
    Io { path: PathBuf, source: std::io::Error },
    /// The module has no kernel of this name.
    NoSuchKernel { module: String, kernel: String, available: Vec<String> },
    /// A launch passed the wrong number of arguments.
    ArgumentCount { kernel: String, expected: usize, found: usize, params: Vec<String> },
    /// An argument does not have the parameter's type (scalar type, vector element type, or scalar vs vector).
    ArgumentType { kernel: String, param: String, index: usize, expected: String, found: String },
    /// The kernel writes through this vector but the argument lends the buffer read-only (`&buf`).
    ReadOnlyBuffer { kernel: String, param: String },
    /// Vector parameter `read`, which the kernel never writes, shares memory with vector parameter `written`, which
    /// it writes: the analysis that proved the kernel's barriers safe assumed it does not (see docs/runtime.md).
    AliasedVectors { kernel: String, read: String, written: String },
    /// The device pointer passed for vector parameter `param` is not a multiple of `align` bytes, which the kernel's
    /// vector loads or stores (`load_float4`) need.
    MisalignedVector { kernel: String, param: String, address: u64, align: u32 },
    /// A buffer has fewer elements than the length declared for its parameter.
    BufferTooShort { kernel: String, param: String, len: usize, required: u64, rule: String },
    /// A declared length refers to something the launch cannot evaluate (a negative count, a missing parameter).
    InvalidLength { kernel: String, param: String, reason: String },
    /// The grid, block or dynamic shared memory of a launch is not valid for this kernel on this device.
    LaunchConfig { kernel: String, reason: String },
    /// The block of a launch breaks the kernel's launch contract (`contract`: the attribute, as written, such as
    /// `[@block_multiple 32]`), which the convergence analysis relied on.
    LaunchContract { kernel: String, contract: String, reason: String },
    /// A host/device copy between buffers of different lengths.
    CopyLength { operation: &'static str, device_len: usize, other_len: usize },
}

impl RuntimeError {
    /// The CUDA driver's name for the error (`CUDA_ERROR_ILLEGAL_ADDRESS`), if it is one.
    pub fn cuda_error_name(&self) -> Option<&str> {
        match self {
            RuntimeError::Driver { code, .. } => Some(code),
            _ => None,
        }
    }

    /// The kernel the error is about, if any.
    pub fn kernel(&self) -> Option<&str> {
        match self {
            RuntimeError::Driver { kernel, .. } => kernel.as_deref(),
            RuntimeError::NoSuchKernel { kernel, .. }
            | RuntimeError::ArgumentCount { kernel, .. }
            | RuntimeError::ArgumentType { kernel, .. }
            | RuntimeError::ReadOnlyBuffer { kernel, .. }
            | RuntimeError::AliasedVectors { kernel, .. }
            | RuntimeError::MisalignedVector { kernel, .. }
            | RuntimeError::BufferTooShort { kernel, .. }
            | RuntimeError::InvalidLength { kernel, .. }
            | RuntimeError::LaunchConfig { kernel, .. }
            | RuntimeError::LaunchContract { kernel, .. } => Some(kernel),
            _ => None,
        }
    }

    /// The parameter the error is about, if any.
    pub fn param(&self) -> Option<&str> {
        match self {
            RuntimeError::ArgumentType { param, .. }
            | RuntimeError::ReadOnlyBuffer { param, .. }
            | RuntimeError::AliasedVectors { read: param, .. }
            | RuntimeError::MisalignedVector { param, .. }
            | RuntimeError::BufferTooShort { param, .. }
            | RuntimeError::InvalidLength { param, .. } => Some(param),
            _ => None,
        }
    }

    /// The device the error is about, if known.
    pub fn device(&self) -> Option<usize> {
        match self {
            RuntimeError::Driver { device, .. } | RuntimeError::Nccl { device, .. } => *device,
            RuntimeError::NoDevice { ordinal, .. } | RuntimeError::DuplicateDevice { ordinal } => Some(*ordinal),
            _ => None,
        }
    }

    pub(crate) fn driver(call: &'static str, error: cudarc::driver::DriverError, kernel: Option<String>) -> Self {
        RuntimeError::driver_on(call, error, kernel, None)
    }

    /// A driver error of a call that acted on device `device`.
    pub(crate) fn driver_on(
        call: &'static str,
        error: cudarc::driver::DriverError,
        kernel: Option<String>,
        device: Option<usize>,
    ) -> Self {
        let code =
            error.error_name().map(|c| c.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", error.0));
        let description = error.error_string().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
        RuntimeError::Driver { call, code, description, kernel, device }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::NoDriver { reason } => write!(
                f,
                "no CUDA driver: {reason}. Kernels need an NVIDIA GPU with its driver (libcuda.so) installed"
            ),
            RuntimeError::NoDevice { ordinal, count } => {
                write!(f, "no CUDA device {ordinal}: the driver reports {count} device(s)")
            }
            RuntimeError::Driver { call, code, description, kernel, device } => {
                write!(f, "{code} from {call}")?;
                if let Some(device) = device {
                    write!(f, " on device {device}")?;
                }
                if let Some(kernel) = kernel {
                    write!(f, " (kernel `{kernel}`)")?;
                }
                if !description.is_empty() {
                    write!(f, ": {description}")?;
                }
                Ok(())
            }
            RuntimeError::NotEnoughDevices { asked, present } => write!(
                f,
                "{asked} CUDA device(s) asked for, but the driver reports {present} (CUDA_VISIBLE_DEVICES may hide some)"
            ),
            RuntimeError::DuplicateDevice { ordinal } => write!(f, "device {ordinal} appears twice in a device set"),
            RuntimeError::NcclMissing { searched, reason } => write!(
                f,
                "NCCL could not be loaded: {reason}. Looked for: {}. Set {} to libnccl.so.2 (or its folder); the \
                 `nvidia-nccl-cu13` wheel (which PyTorch installs) has it in nvidia/nccl/lib",
                searched.join("; "),
                crate::nccl::NCCL_PATH_ENV
            ),
            RuntimeError::Nccl { call, code, description, rank, device } => {
                write!(f, "{code} from {call}")?;
                if let Some(rank) = rank {
                    write!(f, " (rank {rank}")?;
                    match device {
                        Some(device) => write!(f, ", device {device})")?,
                        None => write!(f, ")")?,
                    }
                } else if let Some(device) = device {
                    write!(f, " on device {device}")?;
                }
                if !description.is_empty() {
                    write!(f, ": {description}")?;
                }
                Ok(())
            }
            RuntimeError::Frontend { file, error_count, rendered } => {
                let plural = if *error_count == 1 { "" } else { "s" };
                write!(f, "{file} has {error_count} error{plural}:\n{}", rendered.trim_end())
            }
            RuntimeError::Nvrtc { module, source } => write!(f, "cannot compile `{module}`: {source}"),
            RuntimeError::DeviceRuntimeMissing { module, searched } => write!(
                f,
                "`{module}` launches kernels from the device and must be linked with the CUDA device runtime \
                 (libcudadevrt.a), which was not found. Looked in: {}. Set {} to the file (or its folder), set \
                 CUDA_PATH to a CUDA toolkit, or install the `nvidia-cuda-runtime` wheel (nvidia/cu13/lib)",
                searched.join("; "),
                skc_nvrtc::DEVRT_PATH_ENV
            ),
            RuntimeError::Link { module, call, code, log } => {
                write!(f, "cannot link `{module}` with the device runtime: {code} from {call}")?;
                if !log.is_empty() {
                    write!(f, ":\n{log}")?;
                }
                Ok(())
            }
            RuntimeError::Io { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            RuntimeError::NoSuchKernel { module, kernel, available } => write!(
                f,
                "module `{module}` has no kernel `{kernel}`; its kernels are: {}",
                if available.is_empty() { "(none)".to_string() } else { available.join(", ") }
            ),
            RuntimeError::ArgumentCount { kernel, expected, found, params } => write!(
                f,
                "kernel `{kernel}` takes {expected} argument(s) ({}), but the launch passes {found}",
                params.join(", ")
            ),
            RuntimeError::ArgumentType { kernel, param, index, expected, found } => write!(
                f,
                "kernel `{kernel}`, parameter `{param}` (argument {}): expected {expected}, found {found}",
                index + 1
            ),
            RuntimeError::ReadOnlyBuffer { kernel, param } => write!(
                f,
                "kernel `{kernel}` writes its parameter `{param}`, but the buffer is lent read-only: pass `&mut buffer`"
            ),
            RuntimeError::AliasedVectors { kernel, read, written } => write!(
                f,
                "kernel `{kernel}`: the buffer passed for `{read}`, which the kernel only reads, overlaps the one passed \
                 for `{written}`, which it writes; skc proved the kernel's barriers safe assuming a vector it never \
                 writes does not change during the launch, so the two must not share memory"
            ),
            RuntimeError::MisalignedVector { kernel, param, address, align } => write!(
                f,
                "kernel `{kernel}`, parameter `{param}`: the buffer starts at device address {address:#x}, which is not \
                 a multiple of {align} bytes; the kernel's vector loads or stores move {align} bytes at once and need it"
            ),
            RuntimeError::BufferTooShort { kernel, param, len, required, rule } => write!(
                f,
                "kernel `{kernel}`, parameter `{param}`: the buffer has {len} element(s) but {rule} requires at least {required}"
            ),
            RuntimeError::InvalidLength { kernel, param, reason } => {
                write!(f, "kernel `{kernel}`, length of parameter `{param}`: {reason}")
            }
            RuntimeError::LaunchConfig { kernel, reason } => write!(f, "cannot launch kernel `{kernel}`: {reason}"),
            RuntimeError::LaunchContract { kernel, contract, reason } => {
                write!(f, "cannot launch kernel `{kernel}`: the launch breaks its contract `{contract}`: {reason}")
            }
            RuntimeError::CopyLength { operation, device_len, other_len } => write!(
                f,
                "{operation}: the device buffer has {device_len} element(s) and the other side {other_len}"
            ),
        }
    }
}

impl From<skc_core::session::CompileError> for RuntimeError {
    fn from(e: skc_core::session::CompileError) -> Self {
        use skc_core::session::CompileError;
        match e {
            CompileError::Read { path, reason } => RuntimeError::Io { path, source: std::io::Error::other(reason) },
            CompileError::Errors { file, error_count, rendered } => {
                RuntimeError::Frontend { file, error_count, rendered }
            }
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RuntimeError::Nvrtc { source, .. } => Some(source),
            RuntimeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
