//! Which trajectories each device of an ensemble solves: the batch's blocks of the kernel's block size dealt to the
//! devices in turn, device `d` of `D` taking blocks `d, d + D, d + 2D, ...` ([`deal`]); and the index maps between
//! a device's own run numbers (its [`Share`], laid end to end in one device buffer) and the batch's, to gather its
//! inputs and to scatter its results back to their places.
//!
//! Why in turn: the cost of a trajectory varies along a batch (an adaptive sweep over a parameter takes more steps
//! at one end), so contiguous shares of equal counts take unequal times and the slowest device sets the pace.
//! Dealt blocks give every device an even sample of the whole batch without knowing any cost: the shares cost the
//! same to within about one block's cost wherever the cost varies slowly over `D` consecutive blocks. Only a cost
//! that repeats with a period of `D` blocks would defeat it.
//!
//! Why whole blocks: a share's blocks laid end to end start at multiples of the block size, and the batch's last
//! (maybe partial) block is the last of its share, so every warp holds the same trajectories in the same lanes as
//! in a one-GPU launch of the whole batch. The kernel's warp votes then decide the same, and the results are bit
//! for bit those of one GPU. Blocks of 256 runs copy at least a kilobyte per gathered piece, so gathering costs
//! about what one contiguous copy of the same rows costs.

use std::borrow::Cow;
use std::ops::Range;

/// The runs one device of an ensemble solves: blocks `device`, `device + devices`, ... of a batch cut into blocks
/// of `block` runs. Its runs are numbered `0 .. len()` in that order (local numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// The device's index in the ensemble.
    pub device: usize,
    /// Devices in the ensemble.
    pub devices: usize,
    /// Runs per block (the kernel's block size).
    pub block: usize,
    /// Runs in the whole batch.
    pub batch_runs: usize,
}

/// The shares of a batch of `batch_runs` runs over `devices` devices, blocks of `block` runs dealt in turn. Shares
/// hold equal numbers of blocks to within one; those of devices past the batch's last block are empty.
pub fn deal(batch_runs: usize, devices: usize, block: usize) -> Vec<Share> {
    assert!(devices > 0 && block > 0, "deal: {devices} devices, blocks of {block}");
    (0..devices).map(|device| Share { device, devices, block, batch_runs }).collect()
}

impl Share {
    /// Blocks in the whole batch, the last one maybe partial.
    fn batch_blocks(&self) -> usize {
        self.batch_runs.div_ceil(self.block)
    }

    /// The batch's number of the share's block `local_block`.
    fn batch_block(&self, local_block: usize) -> usize {
        self.device + local_block * self.devices
    }

    /// Blocks dealt to this device.
    pub fn blocks(&self) -> usize {
        self.batch_blocks().saturating_sub(self.device).div_ceil(self.devices)
    }

    /// Runs dealt to this device: whole blocks, the last one cut at the end of the batch.
    pub fn len(&self) -> usize {
        match self.blocks() {
            0 => 0,
            blocks => {
                let last_start = self.batch_block(blocks - 1) * self.block;
                (blocks - 1) * self.block + (self.batch_runs - last_start).min(self.block)
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.blocks() == 0
    }

    /// The batch's number of the share's run `local`.
    pub fn batch_run(&self, local: usize) -> usize {
        self.batch_block(local / self.block) * self.block + local % self.block
    }

    /// The batch's runs that the share's runs `local` are, in order, as ranges: one per block touched, merged where
    /// consecutive in the batch (all of them with one device).
    pub fn batch_ranges(&self, local: Range<usize>) -> Vec<Range<usize>> {
        assert!(local.start <= local.end && local.end <= self.len(), "runs {local:?} of a share of {}", self.len());
        let mut ranges: Vec<Range<usize>> = Vec::new();
        let mut at = local.start;
        while at < local.end {
            let block_end = ((at / self.block + 1) * self.block).min(local.end);
            let start = self.batch_run(at);
            let piece = start..start + (block_end - at);
            match ranges.last_mut() {
                Some(last) if last.end == piece.start => last.end = piece.end,
                _ => ranges.push(piece),
            }
            at = block_end;
        }
        ranges
    }

    /// The rows of the share's runs `local` from `batch`, an array of the whole batch with `width` values per run
    /// (run-major): borrowed when they are consecutive in the batch, gathered into one array otherwise.
    pub fn gather<'a, T: Copy>(&self, local: Range<usize>, width: usize, batch: &'a [T]) -> Cow<'a, [T]> {
        let ranges = self.batch_ranges(local.clone());
        if let [only] = ranges.as_slice() {
            return Cow::Borrowed(&batch[only.start * width..only.end * width]);
        }
        let mut rows = Vec::with_capacity(local.len() * width);
        for range in &ranges {
            rows.extend_from_slice(&batch[range.start * width..range.end * width]);
        }
        Cow::Owned(rows)
    }

    /// Writes `rows` (`width` values per run) of the share's runs from `first_local` on into their places in
    /// `batch`, an array of the whole batch: the inverse of [`gather`](Self::gather).
    pub fn scatter<T: Copy>(&self, first_local: usize, width: usize, rows: &[T], batch: &mut [T]) {
        if width == 0 {
            return;
        }
        let runs = rows.len() / width;
        let mut from = 0;
        for range in self.batch_ranges(first_local..first_local + runs) {
            let values = range.len() * width;
            batch[range.start * width..range.end * width].copy_from_slice(&rows[from..from + values]);
            from += values;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{deal, Share};

    /// Every batch run, with the share and local number it is dealt to, in local order per share.
    fn owners(shares: &[Share]) -> Vec<Option<(usize, usize)>> {
        let mut owner = vec![None; shares[0].batch_runs];
        for share in shares {
            for local in 0..share.len() {
                let run = share.batch_run(local);
                assert!(owner[run].is_none(), "run {run} dealt twice: {shares:?}");
                owner[run] = Some((share.device, local));
            }
        }
        owner
    }

    #[test]
    fn blocks_are_dealt_in_turn_and_cover_the_batch_once() {
        for block in [1, 32, 256] {
            for batch_runs in [0, 1, 31, 255, 256, 257, 1000, 4096, 20_077, 100_003] {
                for devices in 1..=9 {
                    let shares = deal(batch_runs, devices, block);
                    assert_eq!(shares.len(), devices);
                    let label = format!("{batch_runs} runs, {devices} devices, blocks of {block}");
                    assert_eq!(shares.iter().map(Share::len).sum::<usize>(), batch_runs, "{label}");
                    if batch_runs == 0 {
                        assert!(shares.iter().all(Share::is_empty), "{label}");
                        continue;
                    }
                    let owner = owners(&shares);
                    for (run, who) in owner.iter().enumerate() {
                        let (device, local) = who.unwrap_or_else(|| panic!("{label}: run {run} not dealt"));
                        // Blocks go to the devices in turn, and a run keeps its lane within its block.
                        assert_eq!(device, run / block % devices, "{label}: run {run}");
                        assert_eq!(local % block, run % block, "{label}: run {run}");
                    }
                    let blocks: Vec<usize> = shares.iter().map(Share::blocks).collect();
                    let (lo, hi) = (blocks.iter().min().unwrap(), blocks.iter().max().unwrap());
                    assert!(hi - lo <= 1, "{label}: blocks per share {blocks:?}");
                }
            }
        }
    }

    #[test]
    fn the_last_partial_block_ends_its_share_and_idle_devices_get_nothing() {
        // 5 blocks, the last of 10 runs, over 3 devices: blocks 0 3 | 1 4 | 2.
        let shares = deal(4 * 256 + 10, 3, 256);
        assert_eq!(shares.iter().map(Share::blocks).collect::<Vec<_>>(), [2, 2, 1]);
        assert_eq!(shares.iter().map(Share::len).collect::<Vec<_>>(), [512, 256 + 10, 256]);
        assert_eq!(shares[1].batch_run(256 + 9), 4 * 256 + 9);
        assert_eq!(shares[1].batch_ranges(0..266), [256..512, 1024..1034]);
        // More devices than blocks: 2 blocks over 5 devices.
        let shares = deal(300, 5, 256);
        assert_eq!(shares.iter().map(Share::len).collect::<Vec<_>>(), [256, 44, 0, 0, 0]);
        assert!(shares[2].is_empty() && shares[2].batch_ranges(0..0).is_empty());
    }

    #[test]
    fn batch_ranges_follow_the_blocks_and_merge_on_one_device() {
        let shares = deal(10 * 32 + 5, 3, 32);
        // Device 1 holds blocks 1, 4, 7, 10 (the last of 5 runs).
        assert_eq!(shares[1].len(), 3 * 32 + 5);
        assert_eq!(shares[1].batch_ranges(0..101), [32..64, 128..160, 224..256, 320..325]);
        assert_eq!(shares[1].batch_ranges(40..70), [136..160, 224..230]);
        assert_eq!(shares[1].batch_ranges(50..50), []);
        let one = deal(10 * 32 + 5, 1, 32);
        assert_eq!(one[0].batch_ranges(0..325), vec![0..325]);
        assert_eq!(one[0].batch_ranges(33..300), vec![33..300]);
    }

    #[test]
    fn gather_then_scatter_puts_every_row_back_in_any_chunking() {
        let width = 3;
        for (batch_runs, devices, block) in [(1000, 2, 32), (20_077, 4, 256), (257, 4, 256), (100, 3, 7), (64, 1, 32)] {
            let batch: Vec<u64> = (0..(batch_runs * width) as u64).collect();
            let mut back = vec![u64::MAX; batch.len()];
            for share in deal(batch_runs, devices, block) {
                let whole = share.gather(0..share.len(), width, &batch);
                for local in 0..share.len() {
                    let run = share.batch_run(local);
                    assert_eq!(whole[local * width..(local + 1) * width], batch[run * width..(run + 1) * width]);
                }
                // Chunks that start inside blocks as well as on their edges.
                let cuts = [0, share.len() / 3, share.len() / 3 + block, share.len()];
                for chunk in cuts.windows(2).filter(|c| c[0] < c[1]).map(|c| c[0]..c[1].min(share.len())) {
                    let rows = share.gather(chunk.clone(), width, &batch);
                    assert_eq!(rows[..], whole[chunk.start * width..chunk.end * width]);
                    share.scatter(chunk.start, width, &rows, &mut back);
                }
            }
            assert_eq!(back, batch, "{batch_runs} runs, {devices} devices, blocks of {block}");
        }
    }

    #[test]
    fn one_device_borrows_and_several_gather() {
        let batch: Vec<u32> = (0..1000).collect();
        assert!(matches!(deal(1000, 1, 32)[0].gather(0..1000, 1, &batch), std::borrow::Cow::Borrowed(_)));
        assert!(matches!(deal(1000, 2, 32)[0].gather(0..32, 1, &batch), std::borrow::Cow::Borrowed(_)));
        assert!(matches!(deal(1000, 2, 32)[0].gather(0..33, 1, &batch), std::borrow::Cow::Owned(_)));
        // Runs without values (a system without parameters) gather nothing.
        let share = deal(1000, 2, 32)[1];
        assert!(share.gather(0..share.len(), 0, &[] as &[f32]).is_empty());
        share.scatter(0, 0, &[] as &[f32], &mut []);
    }
}
