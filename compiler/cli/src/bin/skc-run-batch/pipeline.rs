//! The batch: a pool of threads prepares cases (the work that needs no device: the front end, the arguments,
//! NVRTC), and the calling thread runs them on the one device, one at a time, in the order they are ready.
//!
//! Before a case runs on the device its log says so, and the log is replaced when the case ends: a process that
//! dies (a crash, or the watchdog ending a kernel that hangs: `watchdog`) leaves its case recorded as failed, and
//! the next process skips it. A failure that leaves the device unusable (`Failure::fatal`: a CUDA
//! error, after which the context may be broken) is recorded and stops the batch, so that a fresh process runs
//! the rest.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::corpus::{Case, CaseFiles};
use crate::watchdog::Watchdog;

/// Why a case has no output.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    /// The device may be unusable after it: no further case runs in this process.
    pub fatal: bool,
}

impl Failure {
    pub fn of_case(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), fatal: false }
    }

    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub fn of_device(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), fatal: true }
    }
}

/// What a case wrote: the written vectors, and notes for its log (an interpreter's reports).
pub struct Finished {
    pub written: serde_json::Value,
    pub notes: String,
}

/// A machine that runs cases.
pub trait Backend: Sync {
    /// What `prepare` hands to `run`.
    type Prepared: Send;
    /// The work of a case that needs no device; runs on the pool's threads.
    fn prepare(&self, dir: &Path, case: &Case) -> Result<Self::Prepared, Failure>;
    /// The device's part, on the calling thread, one case at a time.
    fn run(&self, case: &Case, prepared: Self::Prepared) -> Result<Finished, Failure>;
}

/// What a batch did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Cases that wrote their output.
    pub written: usize,
    /// Cases recorded as failed.
    pub failed: usize,
    /// Cases skipped because an earlier process finished them.
    pub skipped: usize,
    /// Cases not started before the deadline (or after a fatal failure).
    pub not_run: usize,
    /// A fatal failure stopped the batch.
    pub stopped: bool,
}

/// How a batch runs.
pub struct Limits {
    /// Threads that prepare cases.
    pub threads: usize,
    /// No case starts after it.
    pub deadline: Option<Instant>,
    /// The longest a case may stay on the device before the watchdog ends the process.
    pub case_timeout: Duration,
}

/// Runs every case of `cases` not finished earlier, within `limits`. `Err` is an I/O error on the corpus itself.
pub fn run_batch<B: Backend>(backend: &B, dir: &Path, cases: &[Case], limits: &Limits) -> Result<Tally, String> {
    let (threads, deadline) = (limits.threads.max(1), limits.deadline);
    let mut tally = Tally::default();
    let todo: Vec<&Case> = cases.iter().filter(|c| !CaseFiles::new(dir, c).done()).collect();
    tally.skipped = cases.len() - todo.len();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let in_time = || deadline.is_none_or(|d| Instant::now() < d);
    let (sender, prepared) = mpsc::sync_channel(threads * 2);
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..threads {
            let sender = sender.clone();
            let (todo, next, stop) = (&todo, &next, &stop);
            let work = move || {
                skc_core::stack::this_thread_has_a_large_stack();
                while !stop.load(Ordering::SeqCst) && in_time() {
                    let Some(case) = todo.get(next.fetch_add(1, Ordering::SeqCst)) else { break };
                    if sender.send((*case, prepare_guarded(backend, dir, case))).is_err() {
                        break;
                    }
                }
            };
            std::thread::Builder::new()
                .stack_size(skc_core::stack::STACK_BYTES)
                .spawn_scoped(scope, work)
                .map_err(|e| format!("cannot start a thread: {e}"))?;
        }
        drop(sender);
        let watchdog = Watchdog::start(limits.case_timeout);
        let outcome = run_prepared(backend, dir, prepared, &watchdog, &mut tally, in_time);
        stop.store(true, Ordering::SeqCst);
        outcome
    })?;
    tally.not_run = todo.len() - tally.written - tally.failed;
    Ok(tally)
}

/// `backend.prepare`, with a panic (a bug in skc: the front end, the emitter) recorded as the case's failure
/// instead of ending the batch; its message and place are on stderr, printed by the panic hook.
fn prepare_guarded<B: Backend>(backend: &B, dir: &Path, case: &Case) -> Result<B::Prepared, Failure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| backend.prepare(dir, case))).unwrap_or_else(|_| {
        Err(Failure::of_case("error: internal compiler error: skc panicked on this case (its message is on stderr)"))
    })
}

/// Runs the prepared cases as they come, until there are none, the deadline passes or one is fatal.
fn run_prepared<B: Backend>(
    backend: &B,
    dir: &Path,
    prepared: mpsc::Receiver<(&Case, Result<B::Prepared, Failure>)>,
    watchdog: &Watchdog,
    tally: &mut Tally,
    in_time: impl Fn() -> bool,
) -> Result<(), String> {
    for (case, ready) in prepared {
        if !in_time() {
            break;
        }
        let files = CaseFiles::new(dir, case);
        let result = ready.and_then(|ready| {
            files.write_failure(DIED_WHILE_RUNNING)?;
            watchdog.watch(&files.log(), || backend.run(case, ready))
        });
        match result {
            Ok(finished) => {
                files.write_output(&finished.written, &finished.notes)?;
                tally.written += 1;
            }
            Err(failure) => {
                files.write_failure(&failure.message)?;
                tally.failed += 1;
                if failure.fatal {
                    tally.stopped = true;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The log of a case whose process ended while it ran on the device.
pub const DIED_WHILE_RUNNING: &str = "skc-run-batch: the process ended while this case ran on the device (a crash \
                                      in the driver, or killed from outside)";

impl From<String> for Failure {
    /// An I/O error on the case's own files.
    fn from(message: String) -> Failure {
        Failure::of_case(message)
    }
}
