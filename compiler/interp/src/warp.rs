//! The results of the warp collectives, as CUDA computes them with the mask skc emits (`skc_warp_mask()`: the
//! lanes that exist in the warp, all 32 except in the last warp of a block whose size is not a multiple of 32).
//!
//! Shuffles follow PTX's `shfl.sync` with CUDA's width of 32: the lane operand's low five bits count; `down`
//! past lane 31 and `up` below lane 0 give the lane's own value. A source lane that does not exist (in a partial
//! warp) is undefined in CUDA: every lane that reads it gets 0 (one value, as a missing lane's register would be,
//! so a broadcast stays warp-uniform), and the caller reports it.

use crate::code::{BlockReduceOp, ShuffleMode, VoteOp, WarpReduceOp};

/// What a shuffle reads from a lane that does not exist: undefined in CUDA; here the same value for every lane
/// that reads it (as a register of a missing lane would be), so a broadcast stays warp-uniform.
pub const ABSENT_LANE_VALUE: u64 = 0;

/// The lane whose value lane `lane` receives, or `None` when PTX gives the lane its own value, within groups of
/// `width` lanes (32 for the shuffles without a width), as CUDA's `__shfl_*_sync(mask, v, b, width)` computes it:
/// PTX's `shfl.sync` with the segment mask `32 - width` in bits 8..12 of its `c` operand (and the clamp 31, or 0
/// for `up`). For a width that is a power of two up to 32, `idx` reads lane `b mod width` of the caller's group,
/// `up` and `down` give the lane its own value past the edge of its group, and `xor` gives it its own value when
/// the lane it names is in a later group (an earlier group's lane is read). Other widths are undefined in CUDA;
/// this is what the formula computes with them.
pub fn shuffle_source_within(mode: ShuffleMode, lane: u32, operand: u64, width: u64) -> Option<u32> {
    let b = (operand & 31) as u32;
    let segment_mask = 32u32.wrapping_sub(width as u32) & 31;
    let clamp = if mode == ShuffleMode::Up { 0 } else { 31 };
    let max_lane = (lane & segment_mask) | (clamp & !segment_mask);
    let min_lane = lane & segment_mask;
    match mode {
        ShuffleMode::Idx => Some(min_lane | (b & !segment_mask)).filter(|j| *j <= max_lane),
        ShuffleMode::Down => Some(lane + b).filter(|j| *j <= max_lane),
        ShuffleMode::Up => lane.checked_sub(b).filter(|j| *j >= max_lane),
        ShuffleMode::Xor => Some(lane ^ b).filter(|j| *j <= max_lane),
    }
}

/// The result of a shuffle for every lane: `values`, `operands` and group `widths` of the `count` existing lanes.
/// Also the lanes that read a lane that does not exist.
pub fn shuffle_within(
    mode: ShuffleMode,
    values: &[u64],
    operands: &[u64],
    widths: &[u64],
) -> (Vec<u64>, Vec<(u32, u32)>) {
    let count = values.len() as u32;
    let mut absent = Vec::new();
    let results = (0..count)
        .map(|lane| match shuffle_source_within(mode, lane, operands[lane as usize], widths[lane as usize]) {
            Some(j) if j < count => values[j as usize],
            Some(j) => {
                absent.push((lane, j));
                ABSENT_LANE_VALUE
            }
            None => values[lane as usize],
        })
        .collect();
    (results, absent)
}

/// The result of a vote over the existing lanes' predicates (the same in every lane).
pub fn vote(op: VoteOp, predicates: &[u64]) -> u64 {
    match op {
        VoteOp::All => predicates.iter().all(|p| *p != 0) as u64,
        VoteOp::Any => predicates.iter().any(|p| *p != 0) as u64,
        VoteOp::Ballot => predicates.iter().enumerate().filter(|(_, p)| **p != 0).map(|(i, _)| 1u64 << i).sum(),
    }
}

/// The result of a warp reduction over the existing lanes' values (32-bit integers; the same in every lane).
pub fn warp_reduce(op: WarpReduceOp, values: &[u64]) -> u64 {
    let words = values.iter().map(|v| *v as u32);
    let result = match op {
        WarpReduceOp::Add => words.fold(0u32, u32::wrapping_add),
        WarpReduceOp::Min { signed: true } => words.map(|w| w as i32).min().unwrap_or(i32::MAX) as u32,
        WarpReduceOp::Min { signed: false } => words.min().unwrap_or(u32::MAX),
        WarpReduceOp::Max { signed: true } => words.map(|w| w as i32).max().unwrap_or(i32::MIN) as u32,
        WarpReduceOp::Max { signed: false } => words.max().unwrap_or(0),
        WarpReduceOp::And => words.fold(u32::MAX, |a, w| a & w),
        WarpReduceOp::Or => words.fold(0, |a, w| a | w),
        WarpReduceOp::Xor => words.fold(0, |a, w| a ^ w),
    };
    u64::from(result)
}

/// The result of a block barrier's reduction over every thread's predicate (the same in every thread).
pub fn block_reduce(op: BlockReduceOp, predicates: impl Iterator<Item = u64>) -> u64 {
    let mut holds = predicates.map(|p| p != 0);
    match op {
        BlockReduceOp::Count => holds.filter(|h| *h).count() as u64,
        BlockReduceOp::And => holds.all(|h| h) as u64,
        BlockReduceOp::Or => holds.any(|h| h) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shuffle(mode: ShuffleMode, values: &[u64], operands: &[u64]) -> (Vec<u64>, Vec<(u32, u32)>) {
        shuffle_within(mode, values, operands, &vec![32; values.len()])
    }

    #[test]
    fn shuffles_follow_ptx() {
        let values: Vec<u64> = (0..32).map(|i| 100 + i).collect();
        let d = vec![16; 32];
        let (down, absent) = shuffle(ShuffleMode::Down, &values, &d);
        assert_eq!(down[0], 116);
        assert_eq!(down[20], 120, "past lane 31: own value");
        assert!(absent.is_empty());
        let (up, _) = shuffle(ShuffleMode::Up, &values, &[1; 32]);
        assert_eq!((up[0], up[5]), (100, 104));
        let (idx, _) = shuffle(ShuffleMode::Idx, &values, &[33; 32]);
        assert_eq!(idx[7], 101, "the lane's low five bits");
        let (xor, _) = shuffle(ShuffleMode::Xor, &values, &[1; 32]);
        assert_eq!((xor[0], xor[1]), (101, 100));
    }

    #[test]
    fn shuffles_within_groups_follow_cuda() {
        let values: Vec<u64> = (0..32).map(|i| 100 + i).collect();
        let width = |w: u64| vec![w; 32];
        // idx: lane `src mod w` of the caller's group.
        let (idx, _) = shuffle_within(ShuffleMode::Idx, &values, &[3; 32], &width(8));
        assert_eq!((idx[0], idx[7], idx[8], idx[31]), (103, 103, 111, 127));
        let (idx, _) = shuffle_within(ShuffleMode::Idx, &values, &[9; 32], &width(8));
        assert_eq!((idx[0], idx[17]), (101, 117), "src mod 8");
        // down: own value past the end of the group.
        let (down, _) = shuffle_within(ShuffleMode::Down, &values, &[2; 32], &width(16));
        assert_eq!((down[0], down[13], down[14], down[15], down[16]), (102, 115, 114, 115, 118));
        // up: own value before the start of the group.
        let (up, _) = shuffle_within(ShuffleMode::Up, &values, &[1; 32], &width(4));
        assert_eq!((up[0], up[1], up[4], up[5]), (100, 100, 104, 104));
        // xor: a later group's lane gives the own value, an earlier group's lane is read.
        let (xor, _) = shuffle_within(ShuffleMode::Xor, &values, &[4; 32], &width(4));
        assert_eq!((xor[0], xor[4]), (100, 100), "lane 0 names lane 4, a later group");
        let (xor, _) = shuffle_within(ShuffleMode::Xor, &values, &[1; 32], &width(2));
        assert_eq!((xor[0], xor[1], xor[2]), (101, 100, 103));
        let (xor, _) = shuffle_within(ShuffleMode::Xor, &values, &[5; 32], &width(4));
        assert_eq!(xor[5], 100, "lane 5 names lane 0, an earlier group: read");
        // Width 32 is the plain shuffle.
        for mode in [ShuffleMode::Idx, ShuffleMode::Down, ShuffleMode::Up, ShuffleMode::Xor] {
            for operand in [0, 1, 5, 17, 31, 33] {
                let ops = vec![operand; 32];
                assert_eq!(shuffle_within(mode, &values, &ops, &width(32)), shuffle(mode, &values, &ops));
            }
        }
    }

    #[test]
    fn warp_and_block_reductions() {
        let values: Vec<u64> = [5i32, -3, 7, 0].iter().map(|v| *v as u32 as u64).collect();
        assert_eq!(warp_reduce(WarpReduceOp::Add, &values), 9);
        assert_eq!(warp_reduce(WarpReduceOp::Min { signed: true }, &values), (-3i32) as u32 as u64);
        assert_eq!(warp_reduce(WarpReduceOp::Min { signed: false }, &values), 0);
        assert_eq!(warp_reduce(WarpReduceOp::Max { signed: true }, &values), 7);
        assert_eq!(warp_reduce(WarpReduceOp::Max { signed: false }, &values), (-3i32) as u32 as u64);
        assert_eq!(warp_reduce(WarpReduceOp::Xor, &[1, 2, 3]), 0);
        assert_eq!(warp_reduce(WarpReduceOp::And, &[7, 6]), 6);
        assert_eq!(warp_reduce(WarpReduceOp::Or, &[4, 1]), 5);
        assert_eq!(block_reduce(BlockReduceOp::Count, [1, 0, 1, 1].into_iter()), 3);
        assert_eq!(block_reduce(BlockReduceOp::And, [1, 0].into_iter()), 0);
        assert_eq!(block_reduce(BlockReduceOp::Or, [0, 0, 1].into_iter()), 1);
    }

    #[test]
    fn partial_warps_report_absent_sources() {
        let values: Vec<u64> = (0..20).collect();
        let (down, absent) = shuffle(ShuffleMode::Down, &values, &[4; 20]);
        assert_eq!(down[15], 19);
        assert_eq!(down[16], ABSENT_LANE_VALUE);
        assert_eq!(absent.first(), Some(&(16, 20)));
        assert_eq!(vote(VoteOp::Ballot, &[1, 0, 1]), 0b101);
        assert_eq!(vote(VoteOp::All, &[1, 1, 0]), 0);
    }
}
