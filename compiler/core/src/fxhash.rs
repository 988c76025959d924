//! A fast, non-cryptographic hasher for the compiler's own maps (the multiply-rotate hash of Firefox and rustc,
//! "FxHash"). The standard `HashMap` hashes with SipHash, built to resist collision attacks from hostile input;
//! the keys here are names and ids of one program, and hashing them was a visible part of checking a file.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type FxHashSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

/// rustc's `FxHasher`: one multiply and rotate per word.
#[derive(Clone, Copy, Default)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add_to_hash(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    /// Eight bytes at a time, then four, two and one: no copy of a partial word (names are short).
    #[inline]
    fn write(&mut self, mut bytes: &[u8]) {
        while let Some((word, rest)) = bytes.split_first_chunk::<8>() {
            self.add_to_hash(u64::from_le_bytes(*word));
            bytes = rest;
        }
        if let Some((word, rest)) = bytes.split_first_chunk::<4>() {
            self.add_to_hash(u32::from_le_bytes(*word) as u64);
            bytes = rest;
        }
        if let Some((word, rest)) = bytes.split_first_chunk::<2>() {
            self.add_to_hash(u16::from_le_bytes(*word) as u64);
            bytes = rest;
        }
        if let Some(&byte) = bytes.first() {
            self.add_to_hash(byte as u64);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add_to_hash(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add_to_hash(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add_to_hash(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add_to_hash(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_work_with_strings_and_ids() {
        let mut map: FxHashMap<String, u32> = FxHashMap::default();
        for i in 0..1000u32 {
            map.insert(format!("name_{i}"), i);
        }
        assert_eq!(map.get("name_537"), Some(&537));
        assert_eq!(map.get("name_1000"), None);
        let set: FxHashSet<(u32, u32)> = (0..100).map(|i| (i, i * 2)).collect();
        assert!(set.contains(&(7, 14)));
    }
}
