//! skc-sched: the host side of the persistent on-GPU task scheduler of `stdlib/sched/sched.sk`.
//!
//! ```ignore
//! let ctx = skc_runtime::Context::new(0)?;
//! let mut sched = Scheduler::start(&ctx, Config { rings: 4, ..Config::default() })?;
//! let producers = sched.producers();                  // one per ring: move each into a host thread
//! let ticket = producers[0].submit(Task::compute(7, 500))?;
//! producers[0].wait(ticket)?;                         // or poll: producers[0].is_done(ticket)
//! let finished = sched.stop()?;                       // drains, waits for the kernel and its children
//! ```
//!
//! Layout: `layout` (the names, records and words shared with sched.sk), `config` (what to start, and sched.sk
//! compiled for it), `rings` (the host rings in pinned mapped memory), `producer` (a ring's single writer,
//! completion polling), `scheduler` (allocate, launch, stop), `linearizability` (the offline check of recorded
//! queue histories), `error`. Every CUDA call goes through skc-runtime (mapped and untracked memory, checked and
//! cooperative launches, streams). The benchmarks are in skc-bench (`bench/`).

pub mod config;
pub mod error;
pub mod layout;
pub mod linearizability;
pub mod producer;
mod rings;
pub mod scheduler;

pub use config::{program, Config};
pub use error::{Result, SchedError};
pub use layout::{HistRecord, Task, MAILBOX_WORDS, MAIN_KERNEL};
pub use producer::{Producer, Ticket};
pub use scheduler::{Finished, Scheduler, Stats};

/// Turns recorded history records into operations for [`linearizability::check_fifo`].
pub fn history_ops(records: &[HistRecord]) -> Vec<linearizability::Op> {
    use linearizability::{Op, OpKind};
    records
        .iter()
        .map(|r| Op {
            thread: r.who as u32,
            kind: if r.op == 0 { OpKind::Enqueue } else { OpKind::Dequeue },
            value: r.value as u64,
            start: r.t0,
            end: r.t1,
        })
        .collect()
}
