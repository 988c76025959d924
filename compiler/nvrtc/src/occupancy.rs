//! Theoretical occupancy (resident blocks and warps per SM) from a kernel's
//! resources, following the rules of CUDA's `cuda_occupancy.h` and the
//! per-architecture limits of the CUDA C++ Programming Guide.

use crate::ptxas::KernelResources;

/// Hardware limits of one SM for one compute capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchLimits {
    /// Compute capability times ten, e.g. 90 for sm_90.
    pub sm: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub max_threads_per_block: u32,
    pub registers_per_sm: u32,
    pub max_registers_per_block: u32,
    pub max_registers_per_thread: u32,
    /// Registers are handed to warps in chunks of this many.
    pub register_allocation_unit: u32,
    /// Register file partitions; each warp's registers come from one of them.
    pub register_sub_partitions: u32,
    /// Largest shared-memory carve-out per SM.
    pub shared_per_sm: u32,
    /// Largest shared memory one block may opt in to.
    pub max_shared_per_block: u32,
    /// Shared memory the driver reserves for each block (sm_80+).
    pub reserved_shared_per_block: u32,
    pub shared_allocation_unit: u32,
}

const KIB: u32 = 1024;

/// sm_70..sm_90 share everything but these five numbers.
const fn limits(sm: u32, warps: u32, blocks: u32, smem_sm_kib: u32, smem_block_kib: u32) -> ArchLimits {
    let ampere_or_newer = sm >= 80;
    ArchLimits {
        sm,
        max_warps_per_sm: warps,
        max_blocks_per_sm: blocks,
        max_threads_per_block: 1024,
        registers_per_sm: 64 * KIB,
        max_registers_per_block: 64 * KIB,
        max_registers_per_thread: 255,
        register_allocation_unit: 256,
        register_sub_partitions: 4,
        shared_per_sm: smem_sm_kib * KIB,
        max_shared_per_block: smem_block_kib * KIB,
        reserved_shared_per_block: if ampere_or_newer { KIB } else { 0 },
        shared_allocation_unit: if ampere_or_newer { 128 } else { 256 },
    }
}

/// Known architectures, oldest first (Programming Guide, "Technical Specifications
/// per Compute Capability").
const ARCHES: [ArchLimits; 10] = [
    limits(70, 64, 32, 96, 96),
    limits(75, 32, 16, 64, 64),
    limits(80, 64, 32, 164, 163),
    limits(86, 48, 16, 100, 99),
    limits(87, 48, 16, 164, 163),
    limits(89, 48, 24, 100, 99),
    limits(90, 64, 32, 228, 227),
    limits(100, 64, 32, 228, 227),
    limits(103, 64, 32, 228, 227),
    limits(120, 48, 32, 128, 99),
];

impl ArchLimits {
    /// Limits for an exact architecture ("sm_90", "sm_90a", "compute_90", "90").
    pub fn exact(arch: &str) -> Option<ArchLimits> {
        let sm = parse_sm(arch)?;
        ARCHES.iter().copied().find(|a| a.sm == sm)
    }

    /// Limits for `arch`, or for the closest older known one (sm_121 -> sm_120);
    /// anything older or unparsable gets sm_70's.
    pub fn nearest(arch: &str) -> ArchLimits {
        let sm = parse_sm(arch).unwrap_or(0);
        ARCHES.iter().rev().copied().find(|a| a.sm <= sm).unwrap_or(ARCHES[0])
    }
}

/// "sm_90a" / "compute_100f" / "90" -> 90 / 100 / 90.
fn parse_sm(arch: &str) -> Option<u32> {
    let digits_start = arch.find(|c: char| c.is_ascii_digit())?;
    let digits: String = arch[digits_start..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What stops more blocks from being resident.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limiter {
    /// Register file per SM (or the per-block/per-thread register limit).
    Registers,
    /// Shared memory per SM (or the per-block maximum).
    SharedMemory,
    /// The block size itself is invalid (0 or above the per-block thread limit).
    Threads,
    /// Maximum resident blocks per SM.
    Blocks,
    /// Maximum resident warps per SM.
    Warps,
}

/// Result of the occupancy calculation for one launch configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Occupancy {
    /// Resident blocks per SM; 0 means the kernel cannot launch with this configuration.
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub limited_by: Limiter,
    /// warps_per_sm / max warps per SM, in 0..=1.
    pub occupancy_fraction: f32,
}

/// Occupancy of `resources` launched with `block_size` threads and
/// `dynamic_shared_bytes` of dynamic shared memory on `arch` (see `ArchLimits::nearest`).
///
/// When several limits give the same block count, the hardware caps (warps,
/// blocks) are reported first: lowering resource use would not help then.
pub fn occupancy(resources: &KernelResources, block_size: u32, dynamic_shared_bytes: u32, arch: &str) -> Occupancy {
    occupancy_with_limits(resources, block_size, dynamic_shared_bytes, &ArchLimits::nearest(arch))
}

/// `occupancy` for explicit limits.
pub fn occupancy_with_limits(
    resources: &KernelResources,
    block_size: u32,
    dynamic_shared_bytes: u32,
    limits: &ArchLimits,
) -> Occupancy {
    if block_size == 0 || block_size > limits.max_threads_per_block {
        return finish(0, 0, Limiter::Threads, limits);
    }
    let warps_per_block = block_size.div_ceil(32);
    let candidates = [
        (limits.max_warps_per_sm / warps_per_block, Limiter::Warps),
        (limits.max_blocks_per_sm, Limiter::Blocks),
        (blocks_by_registers(resources.registers, warps_per_block, limits), Limiter::Registers),
        (blocks_by_shared_memory(resources.shared_bytes, dynamic_shared_bytes, limits), Limiter::SharedMemory),
    ];
    // min_by_key keeps the first of equal minima, i.e. the order above.
    let (blocks, limiter) = candidates.into_iter().min_by_key(|(b, _)| *b).unwrap_or((0, Limiter::Threads));
    finish(blocks, warps_per_block, limiter, limits)
}

fn finish(blocks: u32, warps_per_block: u32, limited_by: Limiter, limits: &ArchLimits) -> Occupancy {
    let warps_per_sm = blocks * warps_per_block;
    Occupancy {
        blocks_per_sm: blocks,
        warps_per_sm,
        limited_by,
        occupancy_fraction: warps_per_sm as f32 / limits.max_warps_per_sm as f32,
    }
}

/// Registers go to warps in allocation units, and each warp takes its registers
/// from one of the register-file sub-partitions, so count warps per partition.
fn blocks_by_registers(registers: u32, warps_per_block: u32, limits: &ArchLimits) -> u32 {
    if registers > limits.max_registers_per_thread {
        return 0;
    }
    let per_warp = round_up(registers * 32, limits.register_allocation_unit);
    if per_warp == 0 {
        return u32::MAX;
    }
    // The hardware checks the per-block limit as if warps filled all partitions evenly.
    let assumed_per_block = per_warp * round_up(warps_per_block, limits.register_sub_partitions);
    if assumed_per_block > limits.max_registers_per_block {
        return 0;
    }
    let warps_per_partition = limits.registers_per_sm / limits.register_sub_partitions / per_warp;
    warps_per_partition * limits.register_sub_partitions / warps_per_block
}

/// Static + dynamic + driver-reserved shared memory per block, rounded to the
/// allocation unit, against the SM's largest carve-out.
fn blocks_by_shared_memory(static_bytes: u32, dynamic_bytes: u32, limits: &ArchLimits) -> u32 {
    let reserved = limits.reserved_shared_per_block;
    let per_block =
        round_up(static_bytes.saturating_add(dynamic_bytes).saturating_add(reserved), limits.shared_allocation_unit);
    if per_block > limits.max_shared_per_block + reserved {
        return 0;
    }
    if per_block == 0 {
        return u32::MAX;
    }
    limits.shared_per_sm / per_block
}

fn round_up(value: u32, unit: u32) -> u32 {
    value.div_ceil(unit).saturating_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(registers: u32, shared_bytes: u32) -> KernelResources {
        KernelResources {
            name: "k".into(),
            arch: "sm_90".into(),
            registers,
            shared_bytes,
            is_entry: true,
            ..KernelResources::default()
        }
    }

    fn blocks_warps(o: Occupancy) -> (u32, u32) {
        (o.blocks_per_sm, o.warps_per_sm)
    }

    #[test]
    fn sm90_32_registers_256_threads_is_full() {
        let o = occupancy(&kernel(32, 0), 256, 0, "sm_90");
        assert_eq!(blocks_warps(o), (8, 64));
        assert_eq!(o.limited_by, Limiter::Warps);
        assert_eq!(o.occupancy_fraction, 1.0);
    }

    #[test]
    fn sm90_64_registers_256_threads_halves_it() {
        let o = occupancy(&kernel(64, 0), 256, 0, "sm_90");
        assert_eq!(blocks_warps(o), (4, 32));
        assert_eq!(o.limited_by, Limiter::Registers);
        assert_eq!(o.occupancy_fraction, 0.5);
    }

    #[test]
    fn sm90_255_registers_1024_threads_cannot_launch() {
        let o = occupancy(&kernel(255, 0), 1024, 0, "sm_90");
        assert_eq!(blocks_warps(o), (0, 0));
        assert_eq!(o.limited_by, Limiter::Registers);
    }

    #[test]
    fn register_rounding_to_allocation_unit() {
        // 40 regs * 32 = 1280 -> 1280 (already a multiple of 256); 16384/1280 = 12 warps per partition.
        assert_eq!(blocks_warps(occupancy(&kernel(40, 0), 128, 0, "sm_90")), (12, 48));
        // 33 regs * 32 = 1056 -> 1280 allocated, same as 40.
        assert_eq!(blocks_warps(occupancy(&kernel(33, 0), 128, 0, "sm_90")), (12, 48));
    }

    #[test]
    fn small_blocks_hit_block_limit() {
        let o = occupancy(&kernel(16, 0), 32, 0, "sm_90");
        assert_eq!(blocks_warps(o), (32, 32));
        assert_eq!(o.limited_by, Limiter::Blocks);
        let o = occupancy(&kernel(16, 0), 32, 0, "sm_89");
        assert_eq!((o.blocks_per_sm, o.limited_by), (24, Limiter::Blocks));
    }

    #[test]
    fn shared_memory_limits_with_reserved_kib() {
        // sm_90: 48 KiB + 1 KiB reserved per block, 228 KiB per SM -> 4 blocks.
        let o = occupancy(&kernel(32, 48 * 1024), 256, 0, "sm_90");
        assert_eq!((o.blocks_per_sm, o.limited_by), (4, Limiter::SharedMemory));
        // Dynamic shared memory counts the same: 16 KiB static + 32 KiB dynamic.
        let o = occupancy(&kernel(32, 16 * 1024), 256, 32 * 1024, "sm_90");
        assert_eq!(o.blocks_per_sm, 4);
        // The per-block maximum is 227 KiB on sm_90; 228 KiB cannot launch.
        assert_eq!(occupancy(&kernel(32, 0), 256, 227 * 1024, "sm_90").blocks_per_sm, 1);
        let o = occupancy(&kernel(32, 0), 256, 228 * 1024, "sm_90");
        assert_eq!((o.blocks_per_sm, o.limited_by), (0, Limiter::SharedMemory));
    }

    #[test]
    fn volta_has_no_reserved_shared_memory() {
        // sm_70: 96 KiB per SM, 32 KiB blocks -> exactly 3.
        assert_eq!(occupancy(&kernel(32, 32 * 1024), 128, 0, "sm_70").blocks_per_sm, 3);
        // sm_80: 164 KiB per SM, 32+1 KiB blocks -> 4.
        assert_eq!(occupancy(&kernel(32, 32 * 1024), 128, 0, "sm_80").blocks_per_sm, 4);
    }

    #[test]
    fn turing_and_ada_warp_limits() {
        // sm_75: 32 warps per SM -> 4 blocks of 256.
        let o = occupancy(&kernel(32, 0), 256, 0, "sm_75");
        assert_eq!((blocks_warps(o), o.limited_by, o.occupancy_fraction), ((4, 32), Limiter::Warps, 1.0));
        // sm_86: 48 warps per SM -> 6 blocks of 256.
        assert_eq!(blocks_warps(occupancy(&kernel(32, 0), 256, 0, "sm_86")), (6, 48));
        // sm_120: 48 warps per SM, 1536 threads -> one 1024-thread block.
        assert_eq!(blocks_warps(occupancy(&kernel(32, 0), 1024, 0, "sm_120")), (1, 32));
    }

    #[test]
    fn invalid_block_sizes() {
        for size in [0, 1025, 2048] {
            let o = occupancy(&kernel(32, 0), size, 0, "sm_90");
            assert_eq!((o.blocks_per_sm, o.limited_by), (0, Limiter::Threads), "block size {size}");
        }
        // Partial warps round up: 33 threads use 2 warps.
        assert_eq!(occupancy(&kernel(32, 0), 33, 0, "sm_90").warps_per_sm, 64);
    }

    #[test]
    fn zero_registers_are_not_a_limit() {
        assert_eq!(occupancy(&kernel(0, 0), 1024, 0, "sm_90").blocks_per_sm, 2);
    }

    #[test]
    fn arch_names_and_fallbacks() {
        assert_eq!(ArchLimits::exact("sm_90a").map(|l| l.sm), Some(90));
        assert_eq!(ArchLimits::exact("compute_100f").map(|l| l.sm), Some(100));
        assert_eq!(ArchLimits::exact("sm_121"), None);
        assert_eq!(ArchLimits::nearest("sm_121").sm, 120);
        assert_eq!(ArchLimits::nearest("sm_101").sm, 100);
        assert_eq!(ArchLimits::nearest("sm_52").sm, 70);
        assert_eq!(ArchLimits::nearest("bogus").sm, 70);
    }
}
