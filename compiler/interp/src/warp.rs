//! The results of the warp collectives, as CUDA computes them with the mask skc emits (`skc_warp_mask()`: the
//! lanes that exist in the warp, all 32 except in the last warp of a block whose size is not a multiple of 32).
//!
//! Shuffles follow PTX's `shfl.sync` with CUDA's width of 32: the lane operand's low five bits count; `down`
//! past lane 31 and `up` below lane 0 give the lane's own value. A source lane that does not exist (in a partial
//! warp) is undefined in CUDA: every lane that reads it gets 0 (one value, as a missing lane's register would be,
//! so a broadcast stays warp-uniform), and the caller reports it.

use crate::code::{ShuffleMode, VoteOp};

/// What a shuffle reads from a lane that does not exist: undefined in CUDA; here the same value for every lane
/// that reads it (as a register of a missing lane would be), so a broadcast stays warp-uniform.
pub const ABSENT_LANE_VALUE: u64 = 0;

/// The lane whose value lane `lane` receives, or `None` when PTX gives the lane its own value.
pub fn shuffle_source(mode: ShuffleMode, lane: u32, operand: u64) -> Option<u32> {
    let b = (operand & 31) as u32;
    match mode {
        ShuffleMode::Idx => Some(b),
        ShuffleMode::Down => Some(lane + b).filter(|j| *j <= 31),
        ShuffleMode::Up => lane.checked_sub(b),
        ShuffleMode::Xor => Some(lane ^ b),
    }
}

/// The result of a shuffle for every lane: `values` and `operands` of the `count` existing lanes. Also the lanes
/// that read a lane that does not exist.
pub fn shuffle(mode: ShuffleMode, values: &[u64], operands: &[u64]) -> (Vec<u64>, Vec<(u32, u32)>) {
    let count = values.len() as u32;
    let mut absent = Vec::new();
    let results = (0..count)
        .map(|lane| match shuffle_source(mode, lane, operands[lane as usize]) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
