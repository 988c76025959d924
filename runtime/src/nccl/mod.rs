//! Communication between the GPUs of a host (and of several hosts) through NCCL, loaded at run time
//! (`library`). [`Communicator`] is one rank of a communicator, on one device; [`group`] batches the calls of
//! several ranks (or several calls of one rank) into one NCCL launch.
//!
//! On one host, [`Communicator::init_all`] creates a communicator over a [`DeviceSet`](crate::DeviceSet) from one thread
//! (`ncclCommInitAll`, no MPI), and [`Communicator::init_threads`] the same with one thread per device
//! (`ncclGetUniqueId` then `ncclCommInitRank` on each thread). Across hosts each process calls
//! [`Communicator::init_rank`] with a [`UniqueId`] that rank 0 created and sent to the others, as bytes, over
//! whatever channel the program has (MPI broadcast, a shared file, a TCP socket): docs/runtime.md shows how.
//!
//! NVLink multicast stays off: loading NCCL sets `NCCL_NVLS_ENABLE=0` first (see `library`).

mod comm;
mod library;

pub use comm::{group, Communicator, NcclElem, UniqueId};
pub use library::{nccl_library, NCCL_PATH_ENV};
