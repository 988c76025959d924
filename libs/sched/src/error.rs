//! The crate's error type: every failure names the kernel it is about and, for CUDA failures, the driver call and
//! the CUDA error by its name (`CUDA_ERROR_LAUNCH_FAILED`).

use std::fmt;
use std::time::Duration;

use skc_runtime::cudarc::driver::DriverError;
use skc_runtime::RuntimeError;

pub type Result<T, E = SchedError> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum SchedError {
    /// Compiling or loading the scheduler's `.sk` program failed (front end, NVRTC, link, module load).
    Runtime(RuntimeError),
    /// A CUDA driver call failed.
    Cuda { call: &'static str, kernel: &'static str, code: String, description: String },
    /// The configuration cannot work on this device (rings, capacities, grid size).
    Config { kernel: &'static str, reason: String },
    /// A producer submitted after `stop`.
    Stopped { ring: usize },
    /// Waited longer than allowed: the kernel did not answer (a hang is reported, never waited out).
    Timeout { kernel: &'static str, what: String, waited: Duration },
    /// A queue benchmark lost, repeated or corrupted an element (`what` says which and how many).
    Conservation { kernel: &'static str, what: String },
}

impl SchedError {
    pub(crate) fn cuda(call: &'static str, kernel: &'static str, error: DriverError) -> SchedError {
        let code =
            error.error_name().map(|c| c.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", error.0));
        let description = error.error_string().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
        SchedError::Cuda { call, kernel, code, description }
    }

    /// The CUDA error's name, if this is one.
    pub fn cuda_error_name(&self) -> Option<&str> {
        match self {
            SchedError::Cuda { code, .. } => Some(code),
            SchedError::Runtime(e) => e.cuda_error_name(),
            _ => None,
        }
    }

    /// The kernel the error is about.
    pub fn kernel(&self) -> Option<&str> {
        match self {
            SchedError::Runtime(e) => e.kernel(),
            SchedError::Cuda { kernel, .. }
            | SchedError::Config { kernel, .. }
            | SchedError::Timeout { kernel, .. }
            | SchedError::Conservation { kernel, .. } => Some(kernel),
            SchedError::Stopped { .. } => Some(crate::scheduler::MAIN_KERNEL),
        }
    }
}

impl From<RuntimeError> for SchedError {
    fn from(e: RuntimeError) -> Self {
        SchedError::Runtime(e)
    }
}

impl fmt::Display for SchedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedError::Runtime(e) => write!(f, "{e}"),
            SchedError::Cuda { call, kernel, code, description } => {
                write!(f, "{code} from {call} (kernel `{kernel}`)")?;
                if !description.is_empty() {
                    write!(f, ": {description}")?;
                }
                Ok(())
            }
            SchedError::Config { kernel, reason } => write!(f, "cannot run kernel `{kernel}`: {reason}"),
            SchedError::Stopped { ring } => {
                write!(f, "ring {ring}: the scheduler (kernel `sched_main`) was stopped; no more tasks are accepted")
            }
            SchedError::Conservation { kernel, what } => write!(f, "kernel `{kernel}` broke conservation: {what}"),
            SchedError::Timeout { kernel, what, waited } => {
                write!(f, "kernel `{kernel}`: {what} did not happen within {waited:?}")
            }
        }
    }
}

impl std::error::Error for SchedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SchedError::Runtime(e) => Some(e),
            _ => None,
        }
    }
}
