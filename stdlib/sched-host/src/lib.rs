//! skc-sched: the host side of the persistent on-GPU task scheduler (`stdlib/sched/`).

pub mod linearizability;
