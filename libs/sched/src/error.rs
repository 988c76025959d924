//! The crate's error type: every failure names the kernel it is about; CUDA failures come from skc-runtime with
//! the driver call and the CUDA error by its name (`CUDA_ERROR_LAUNCH_FAILED`).

use std::fmt;
use std::time::Duration;

use skc_runtime::RuntimeError;

use crate::layout::MAIN_KERNEL;

pub type Result<T, E = SchedError> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum SchedError {
    /// Compiling, loading or launching the scheduler's `.sk` program, or a CUDA call, failed.
    Runtime(RuntimeError),
    /// The configuration cannot work on this device (rings, capacities, grid size).
    Config { kernel: &'static str, reason: String },
    /// A producer submitted after `stop`.
    Stopped { ring: usize },
    /// A submitted task cannot be carried by a ring (`reason` says which and why); nothing of its batch was
    /// submitted.
    Task { ring: usize, reason: String },
    /// Waited longer than allowed: the kernel did not answer (a hang is reported, never waited out).
    Timeout { kernel: &'static str, what: String, waited: Duration },
    /// A queue benchmark lost, repeated or corrupted an element (`what` says which and how many).
    Conservation { kernel: &'static str, what: String },
}

impl SchedError {
    /// The CUDA error's name, if this is one.
    pub fn cuda_error_name(&self) -> Option<&str> {
        match self {
            SchedError::Runtime(e) => e.cuda_error_name(),
            _ => None,
        }
    }

    /// The kernel the error is about.
    pub fn kernel(&self) -> Option<&str> {
        match self {
            SchedError::Runtime(e) => e.kernel(),
            SchedError::Config { kernel, .. }
            | SchedError::Timeout { kernel, .. }
            | SchedError::Conservation { kernel, .. } => Some(kernel),
            SchedError::Stopped { .. } | SchedError::Task { .. } => Some(MAIN_KERNEL),
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
            SchedError::Config { kernel, reason } => write!(f, "cannot run kernel `{kernel}`: {reason}"),
            SchedError::Stopped { ring } => {
                write!(f, "ring {ring}: the scheduler (kernel `sched_main`) was stopped; no more tasks are accepted")
            }
            SchedError::Task { ring, reason } => write!(f, "ring {ring}: cannot submit to `sched_main`: {reason}"),
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
