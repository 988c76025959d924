//! [`Producer`]: the single writer of one host ring. It checks that each task fits a slot, writes task slots (four
//! words each, stamped with their position: [`crate::layout::stamped_slot`]), publishes the ring's tail with a
//! release store (after a full fence when the slots are write-combined: x86 does not order WC stores with later
//! stores otherwise), and reuses a slot only once the task that last used it has completed, which it learns from
//! the completion record the GPU wrote there. Polling a completion is one load from ordinary cached host memory:
//! it never blocks and never calls the driver.

use std::sync::atomic::{fence, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::error::{Result, SchedError};
use crate::layout::{check_task, stamped_slot, Task, MAIN_KERNEL, MAX_POSITIONS, RING_WORD_STRIDE};
use crate::rings::{Rings, BUSY, IDLE};

/// Publish the tail at least every this many tasks of a batch, so the GPU starts early.
const PUBLISH_EVERY: u64 = 64;

/// A submitted task: its ring and position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket {
    pub ring: usize,
    pub position: u64,
}

/// The submitting end of one ring. Move it into the thread that submits; it is not shared.
pub struct Producer {
    rings: Arc<Rings>,
    cursor: Cursor,
}

/// The producer's own positions.
struct Cursor {
    ring: usize,
    /// Next position to write.
    tail: u64,
    /// Last tail published to the GPU.
    published: u64,
}

impl Producer {
    pub(crate) fn new(rings: Arc<Rings>, ring: usize) -> Producer {
        Producer { rings, cursor: Cursor { ring, tail: 0, published: 0 } }
    }

    pub fn ring(&self) -> usize {
        self.cursor.ring
    }

    /// Tasks submitted so far.
    pub fn submitted(&self) -> u64 {
        self.cursor.tail
    }

    /// Submits one task; returns its ticket.
    pub fn submit(&mut self, task: Task) -> Result<Ticket> {
        self.submit_batch(std::slice::from_ref(&task))
    }

    /// Submits tasks in order, publishing the tail once per batch (and every 64 tasks); returns the last one's
    /// ticket. Waits (up to the configured timeout) for ring slots whose tasks have not completed yet. A batch
    /// with a task that does not fit a ring slot (a kind outside 0..=255), or that would take the ring past
    /// [`MAX_POSITIONS`], is refused whole with [`SchedError::Task`] before anything is written.
    pub fn submit_batch(&mut self, tasks: &[Task]) -> Result<Ticket> {
        let Producer { rings, cursor } = self;
        cursor.check(tasks)?;
        let state = &rings.states[cursor.ring];
        if state.compare_exchange(IDLE, BUSY, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return Err(SchedError::Stopped { ring: cursor.ring });
        }
        let result = cursor.write_all(rings, tasks);
        state.store(IDLE, Ordering::Release);
        result
    }

    /// Whether the task has completed (its effects are visible to the host). One load; never blocks.
    pub fn is_done(&self, ticket: Ticket) -> bool {
        debug_assert_eq!(ticket.ring, self.cursor.ring, "a ticket of another ring");
        self.cursor.done_word(&self.rings, ticket.position).load(Ordering::Acquire) > ticket.position
    }

    /// Spins until the task has completed, up to the configured timeout.
    pub fn wait(&self, ticket: Ticket) -> Result<()> {
        let begin = Instant::now();
        let mut spins = 0u32;
        while !self.is_done(ticket) {
            spins += 1;
            if spins.is_multiple_of(4096) && begin.elapsed() > self.rings.timeout {
                return Err(SchedError::Timeout {
                    kernel: MAIN_KERNEL,
                    what: format!("completion of the task at position {} of ring {}", ticket.position, ticket.ring),
                    waited: self.rings.timeout,
                });
            }
            std::hint::spin_loop();
        }
        Ok(())
    }

    /// Waits for every task this producer submitted (tasks complete in any order).
    pub fn wait_all(&self) -> Result<()> {
        let cap = self.rings.capacity as u64;
        let first = self.cursor.tail.saturating_sub(cap);
        for position in first..self.cursor.tail {
            self.wait(Ticket { ring: self.cursor.ring, position })?;
        }
        Ok(())
    }

    /// The position up to which the GPU has taken this ring's tasks (published back by the scheduler warp).
    pub fn head(&self) -> u64 {
        self.rings.heads.atomic(self.cursor.ring * RING_WORD_STRIDE).load(Ordering::Acquire)
    }
}

impl Cursor {
    /// Whether `tasks` can be submitted after what this ring has taken so far.
    fn check(&self, tasks: &[Task]) -> Result<()> {
        let refuse = |reason: String| Err(SchedError::Task { ring: self.ring, reason });
        if let Some(reason) = tasks.iter().find_map(|task| check_task(task).err()) {
            return refuse(reason);
        }
        if self.tail.saturating_add(tasks.len() as u64) > MAX_POSITIONS {
            return refuse(format!(
                "{} tasks submitted and {} more would pass the {MAX_POSITIONS} positions a ring counts (40-bit \
                 completion records); start a new scheduler",
                self.tail,
                tasks.len()
            ));
        }
        Ok(())
    }

    fn write_all(&mut self, rings: &Rings, tasks: &[Task]) -> Result<Ticket> {
        let cap = rings.capacity as u64;
        for task in tasks {
            let pos = self.tail;
            if pos >= cap && !self.slot_free(rings, pos) {
                // Publish what is written before waiting: the slot frees only if the GPU sees the tasks.
                self.publish(rings);
                self.wait_slot(rings, pos)?;
            }
            let index = self.ring * rings.capacity + (pos % cap) as usize;
            let slot = rings.slots.ptr(index) as *mut u64;
            for (w, word) in stamped_slot(task, pos).words.into_iter().enumerate() {
                // SAFETY: the slot belongs to this ring (single writer) and its task one lap earlier has
                // completed, so the GPU no longer reads it for that position; the GPU takes a task from it only
                // after the tail that covers it is published and, read before that, only when all four words
                // carry this position's stamp. Each word is one aligned 8-byte store (never torn). Volatile
                // because the GPU reads behind the compiler's back.
                unsafe { std::ptr::write_volatile(slot.add(w), word) };
            }
            self.tail = pos + 1;
            if self.tail - self.published >= PUBLISH_EVERY {
                self.publish(rings);
            }
        }
        self.publish(rings);
        Ok(Ticket { ring: self.ring, position: self.tail.wrapping_sub(1) })
    }

    fn publish(&mut self, rings: &Rings) {
        if self.published == self.tail {
            return;
        }
        if rings.write_combined {
            // Drains the write-combining buffers before the tail store (mfence on x86).
            fence(Ordering::SeqCst);
        }
        rings.tails.atomic(self.ring * RING_WORD_STRIDE).store(self.tail, Ordering::Release);
        self.published = self.tail;
    }

    /// The completion word of position `pos`'s slot.
    fn done_word<'r>(&self, rings: &'r Rings, pos: u64) -> &'r std::sync::atomic::AtomicU64 {
        let cap = rings.capacity as u64;
        rings.done.atomic(self.ring * rings.capacity + (pos % cap) as usize)
    }

    /// Whether position `pos` may be written: the task one lap earlier completed.
    fn slot_free(&self, rings: &Rings, pos: u64) -> bool {
        let previous = pos - rings.capacity as u64;
        self.done_word(rings, pos).load(Ordering::Acquire) > previous
    }

    fn wait_slot(&self, rings: &Rings, pos: u64) -> Result<()> {
        let begin = Instant::now();
        let mut spins = 0u32;
        while !self.slot_free(rings, pos) {
            spins += 1;
            if spins.is_multiple_of(1024) {
                if begin.elapsed() > rings.timeout {
                    return Err(SchedError::Timeout {
                        kernel: MAIN_KERNEL,
                        what: format!(
                            "a free slot in ring {} (completion of the task at position {})",
                            self.ring,
                            pos - rings.capacity as u64
                        ),
                        waited: rings.timeout,
                    });
                }
                std::thread::yield_now();
            }
            std::hint::spin_loop();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_that_does_not_fit_is_refused_whole() {
        let cursor = Cursor { ring: 2, tail: 0, published: 0 };
        let batch = [Task::empty(0), Task { kind: 256, ..Task::empty(1) }, Task::empty(2)];
        let err = cursor.check(&batch).unwrap_err();
        assert!(matches!(&err, SchedError::Task { ring: 2, reason } if reason.contains("kind 256")), "{err}");
        assert!(err.to_string().starts_with("ring 2: cannot submit to `sched_main`: task 1 has kind 256"), "{err}");
        assert!(cursor.check(&[Task::empty(0), Task::spawn(1, 3, 0)]).is_ok());
    }

    #[test]
    fn a_ring_takes_positions_up_to_its_completion_records_reach() {
        let cursor = Cursor { ring: 0, tail: MAX_POSITIONS - 1, published: 0 };
        assert!(cursor.check(&[Task::empty(0)]).is_ok(), "the last position whose record fits 40 bits");
        let err = cursor.check(&[Task::empty(0), Task::empty(1)]).unwrap_err();
        assert!(matches!(err, SchedError::Task { ring: 0, .. }) && err.to_string().contains("40-bit"), "{err}");
    }
}
