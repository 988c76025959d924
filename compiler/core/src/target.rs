//! The GPU architectures skc compiles for, and the resource limits of each that a program can cross at compile
//! time: static shared memory per block, constant memory per program, the kernel parameter space, local memory per
//! thread, and what `[@launch_bounds]` may promise. `skc check` checks a program against one target (`--arch`,
//! sm_90 unless told otherwise), so that a program that checks also builds for it.
//!
//! The numbers were measured with NVRTC 13.0 (ptxas' errors and warnings at and just above each limit, for every
//! architecture it accepts) and agree with the CUDA C++ Programming Guide's table of technical specifications.
//! NVRTC 13 no longer compiles for sm_70 and older.

use std::fmt;

/// A compute capability NVRTC 13 compiles for, as `sm_XY` (times ten: 90 for sm_90).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub sm: u32,
}

/// The architecture `skc check` and `skc build` assume unless told otherwise (H100/H200).
pub const DEFAULT_SM: u32 = 90;

/// Every architecture NVRTC 13.0 accepts (`--gpu-architecture=sm_XY`), oldest first.
pub const SUPPORTED_SM: &[u32] = &[75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];

/// Static `__shared__` memory of one block (all of a kernel's shared arrays, and those of the functions it calls):
/// 48 KiB on every architecture. More needs dynamic shared memory and an opt-in at launch.
pub const STATIC_SHARED_BYTES: u64 = 48 * 1024;

/// `__constant__` memory of one program (all constant arrays together): 64 KiB.
pub const CONSTANT_BYTES: u64 = 64 * 1024;

/// A kernel's parameters, laid out as a C struct: 32,764 bytes (CUDA 12.1 and later, Volta and newer).
pub const PARAMETER_BYTES: u64 = 32_764;

/// Local memory of one thread: 512 KiB.
pub const LOCAL_BYTES_PER_THREAD: u64 = 512 * 1024;

/// Threads of one block.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;

impl Default for Target {
    fn default() -> Target {
        Target { sm: DEFAULT_SM }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm)
    }
}

impl Target {
    /// `sm_90`, `sm_90a`, `compute_90` or `90`; `Err` says which architectures exist.
    pub fn parse(text: &str) -> Result<Target, String> {
        let digits = text.trim().trim_start_matches("sm_").trim_start_matches("compute_");
        let digits = digits.trim_end_matches(['a', 'f']);
        let known = || SUPPORTED_SM.iter().map(|sm| format!("sm_{sm}")).collect::<Vec<_>>().join(", ");
        match digits.parse::<u32>() {
            Ok(sm) if SUPPORTED_SM.contains(&sm) => Ok(Target { sm }),
            _ => Err(format!("unknown architecture `{text}`: NVRTC 13 compiles for {}", known())),
        }
    }

    /// Threads that can be resident on one multiprocessor: what `[@launch_bounds T B]` needs for `T * B`.
    pub fn max_threads_per_sm(self) -> u64 {
        match self.sm {
            75 => 1024,
            86 | 87 | 88 | 89 | 110 | 120 | 121 => 1536,
            _ => 2048,
        }
    }

    /// Blocks that can be resident on one multiprocessor: the most `[@launch_bounds T B]` may ask for as `B`.
    pub fn max_blocks_per_sm(self) -> u64 {
        match self.sm {
            75 | 86 | 87 | 88 => 16,
            89 | 110 | 120 | 121 => 24,
            _ => 32,
        }
    }
}

/// `1,234,567`: byte counts in diagnostics.
pub fn grouped(n: u64) -> String {
    let reversed: Vec<char> = n.to_string().chars().rev().collect();
    let groups: Vec<String> = reversed.chunks(3).map(|group| group.iter().rev().collect()).collect();
    groups.into_iter().rev().collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_parse_in_every_spelling() {
        assert_eq!(Target::parse("sm_90"), Ok(Target { sm: 90 }));
        assert_eq!(Target::parse("sm_90a"), Ok(Target { sm: 90 }));
        assert_eq!(Target::parse("compute_86"), Ok(Target { sm: 86 }));
        assert_eq!(Target::parse("120"), Ok(Target { sm: 120 }));
        assert!(Target::parse("sm_70").unwrap_err().contains("sm_75"));
        assert!(Target::parse("gpu").is_err());
        assert_eq!(Target::default().to_string(), "sm_90");
    }

    #[test]
    fn byte_counts_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(49_152), "49,152");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
