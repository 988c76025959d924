//! Offline linearizability check of a recorded FIFO-queue history.
//!
//! The GPU records every enqueue and dequeue of a run as an [`Op`]: the value moved (task ids are unique), who did
//! it, and an interval `[start, end]` read from `%globaltimer` before the operation began and after it ended.
//!
//! For a queue whose behaviour does not depend on the values it carries (ours copies them and never looks at
//! them) and a history in which every value is enqueued at most once, linearizability reduces to the absence of
//! four patterns (Henzinger, Sezgin and Vafeiadis, "Aspect-oriented linearizability proofs", CONCUR 2013; Lowe's
//! 2017 queue-specific checker builds on the same observation):
//!
//! - *fresh*: a value dequeued that was never enqueued, or whose dequeue ended before its enqueue began;
//! - *repeated*: a value dequeued twice;
//! - *order*: `enq(x)` ended before `enq(y)` began, `y` was dequeued, and `x` was either never dequeued or its
//!   dequeue began only after `y`'s had ended (FIFO forces `x` out first);
//! - *witness*: a dequeue answered "empty" while the queue provably held a value. Our dequeues never answer
//!   "empty" to a caller that took a position (a worker first reserves an element through the queue's count,
//!   Broker-Queue style, and only then takes a position), so histories contain no empty dequeues and this
//!   pattern cannot occur.
//!
//! [`check_fifo`] finds the first three in O(n log n). [`check_brute_force`] is the textbook Wing–Gong search
//! over linearizations for tiny histories; the unit tests run both on random histories and require the same
//! verdict, which is what makes the fast check trustworthy.
//!
//! Timestamps come from a clock that ticks every `slack` nanoseconds at most, so an operation recorded as
//! `[s, e]` truly lies within `[s, e + slack]`. `a` is taken to precede `b` only when that is certain:
//! `a.end + slack < b.start`. A coarser clock makes the check weaker, never wrong.

use std::collections::HashMap;
use std::fmt;

/// Which queue operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Enqueue,
    Dequeue,
}

/// One completed queue operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// Who did it (a global warp or lane number); only used in reports.
    pub thread: u32,
    pub kind: OpKind,
    /// The value enqueued or dequeued.
    pub value: u64,
    /// Clock reading taken before the operation began.
    pub start: u64,
    /// Clock reading taken after it ended.
    pub end: u64,
}

/// Why a history is not linearizable (or not a history the check can judge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// An operation whose end is before its start: the recording is broken.
    Malformed { op: Op },
    /// The same value enqueued twice: the check assumes unique values.
    DuplicateEnqueue { value: u64 },
    /// Dequeued but never enqueued.
    NeverEnqueued { dequeue: Op },
    /// The dequeue ended before the enqueue of the same value began.
    DequeuedBeforeEnqueued { enqueue: Op, dequeue: Op },
    /// The same value dequeued twice.
    DequeuedTwice { first: Op, second: Op },
    /// `first` was enqueued strictly before `second`, `second` was dequeued, and `first` was dequeued strictly
    /// after that (or never).
    Order { first: u64, second: u64, first_dequeued: bool },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Malformed { op } => write!(f, "operation {op:?} ends before it starts"),
            Violation::DuplicateEnqueue { value } => write!(f, "value {value} was enqueued twice"),
            Violation::NeverEnqueued { dequeue } => write!(f, "{dequeue:?} dequeued a value never enqueued"),
            Violation::DequeuedBeforeEnqueued { enqueue, dequeue } => {
                write!(f, "{dequeue:?} ended before {enqueue:?} began")
            }
            Violation::DequeuedTwice { first, second } => {
                write!(f, "value {} dequeued twice: {first:?} and {second:?}", first.value)
            }
            Violation::Order { first, second, first_dequeued: true } => write!(
                f,
                "FIFO order broken: {first} was enqueued before {second}, but dequeued after {second}'s dequeue ended"
            ),
            Violation::Order { first, second, first_dequeued: false } => write!(
                f,
                "FIFO order broken: {first} was enqueued before {second} and never dequeued, but {second} was"
            ),
        }
    }
}

/// `a` certainly ended before `b` began, on a clock that ticks every `slack` ns.
fn precedes(a_end: u64, b_start: u64, slack: u64) -> bool {
    a_end.saturating_add(slack) < b_start
}

/// Per value: its enqueue and its dequeue (if any).
struct Lifetime {
    enq: Op,
    deq: Option<Op>,
}

/// Checks a complete history of a FIFO queue with unique values (see the module documentation).
pub fn check_fifo(ops: &[Op], slack: u64) -> Result<(), Violation> {
    let values = pair_up(ops, slack)?;
    check_order(&values, slack)
}

/// Matches every dequeue with its enqueue; reports fresh, repeated and malformed operations.
fn pair_up(ops: &[Op], slack: u64) -> Result<Vec<Lifetime>, Violation> {
    let mut index: HashMap<u64, usize> = HashMap::with_capacity(ops.len() / 2 + 1);
    let mut values: Vec<Lifetime> = Vec::with_capacity(ops.len() / 2 + 1);
    for op in ops.iter().filter(|op| op.kind == OpKind::Enqueue) {
        if op.end < op.start {
            return Err(Violation::Malformed { op: *op });
        }
        if index.insert(op.value, values.len()).is_some() {
            return Err(Violation::DuplicateEnqueue { value: op.value });
        }
        values.push(Lifetime { enq: *op, deq: None });
    }
    for op in ops.iter().filter(|op| op.kind == OpKind::Dequeue) {
        if op.end < op.start {
            return Err(Violation::Malformed { op: *op });
        }
        let Some(&i) = index.get(&op.value) else {
            return Err(Violation::NeverEnqueued { dequeue: *op });
        };
        let life = &mut values[i];
        if let Some(first) = life.deq {
            return Err(Violation::DequeuedTwice { first, second: *op });
        }
        if precedes(op.end, life.enq.start, slack) {
            return Err(Violation::DequeuedBeforeEnqueued { enqueue: life.enq, dequeue: *op });
        }
        life.deq = Some(*op);
    }
    Ok(values)
}

/// The order pattern, by a sweep: for each dequeued `y` in order of its enqueue's start, the values `x` whose
/// enqueue certainly ended before are a growing prefix of the values sorted by enqueue end; among them only the
/// one dequeued latest (never dequeued counts as infinitely late) can witness a violation.
fn check_order(values: &[Lifetime], slack: u64) -> Result<(), Violation> {
    let mut by_enq_end: Vec<usize> = (0..values.len()).collect();
    by_enq_end.sort_by_key(|&i| values[i].enq.end);
    let mut by_enq_start: Vec<usize> = (0..values.len()).filter(|&i| values[i].deq.is_some()).collect();
    by_enq_start.sort_by_key(|&i| values[i].enq.start);

    let late_key = |i: usize| values[i].deq.map_or(u64::MAX, |d| d.start);
    let mut latest: Option<usize> = None;
    let mut next = 0;
    for &y in &by_enq_start {
        while next < by_enq_end.len() && precedes(values[by_enq_end[next]].enq.end, values[y].enq.start, slack) {
            let x = by_enq_end[next];
            if latest.is_none_or(|l| late_key(x) > late_key(l)) {
                latest = Some(x);
            }
            next += 1;
        }
        let Some(x) = latest else { continue };
        let y_deq = values[y].deq.expect("only dequeued values are swept");
        let violated = match values[x].deq {
            None => true,
            Some(x_deq) => precedes(y_deq.end, x_deq.start, slack),
        };
        if violated {
            return Err(Violation::Order {
                first: values[x].enq.value,
                second: values[y].enq.value,
                first_dequeued: values[x].deq.is_some(),
            });
        }
    }
    Ok(())
}

/// Wing–Gong search: is there an order of `ops`, consistent with real time (`precedes`), in which a sequential
/// FIFO queue gives every dequeue its value? Exponential; for histories of a dozen operations (tests).
pub fn check_brute_force(ops: &[Op], slack: u64) -> bool {
    let mut done = vec![false; ops.len()];
    let mut queue = std::collections::VecDeque::new();
    search(ops, slack, &mut done, &mut queue)
}

fn search(ops: &[Op], slack: u64, done: &mut [bool], queue: &mut std::collections::VecDeque<u64>) -> bool {
    if done.iter().all(|&d| d) {
        return true;
    }
    for i in 0..ops.len() {
        if done[i] {
            continue;
        }
        // `i` may go next only if no other pending operation certainly ended before it began.
        let minimal = (0..ops.len()).all(|j| j == i || done[j] || !precedes(ops[j].end, ops[i].start, slack));
        if !minimal {
            continue;
        }
        let op = ops[i];
        done[i] = true;
        let ok = match op.kind {
            OpKind::Enqueue => {
                queue.push_back(op.value);
                let ok = search(ops, slack, done, queue);
                queue.pop_back();
                ok
            }
            OpKind::Dequeue if queue.front() == Some(&op.value) => {
                queue.pop_front();
                let ok = search(ops, slack, done, queue);
                queue.push_front(op.value);
                ok
            }
            OpKind::Dequeue => false,
        };
        done[i] = false;
        if ok {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enq(value: u64, start: u64, end: u64) -> Op {
        Op { thread: 0, kind: OpKind::Enqueue, value, start, end }
    }

    fn deq(value: u64, start: u64, end: u64) -> Op {
        Op { thread: 1, kind: OpKind::Dequeue, value, start, end }
    }

    #[test]
    fn sequential_fifo_is_linearizable() {
        let h = [enq(1, 0, 1), enq(2, 2, 3), deq(1, 4, 5), deq(2, 6, 7)];
        assert_eq!(check_fifo(&h, 0), Ok(()));
        assert!(check_brute_force(&h, 0));
    }

    #[test]
    fn sequential_lifo_is_an_order_violation() {
        let h = [enq(1, 0, 1), enq(2, 2, 3), deq(2, 4, 5), deq(1, 6, 7)];
        assert_eq!(check_fifo(&h, 0), Err(Violation::Order { first: 1, second: 2, first_dequeued: true }));
        assert!(!check_brute_force(&h, 0));
    }

    #[test]
    fn overlapping_enqueues_may_come_out_either_way() {
        // The enqueues overlap, so either order is a valid linearization.
        let h = [enq(1, 0, 10), enq(2, 5, 12), deq(2, 20, 21), deq(1, 22, 23)];
        assert_eq!(check_fifo(&h, 0), Ok(()));
        assert!(check_brute_force(&h, 0));
    }

    #[test]
    fn overlapping_dequeues_may_finish_either_way() {
        let h = [enq(1, 0, 1), enq(2, 2, 3), deq(2, 4, 10), deq(1, 5, 11)];
        assert_eq!(check_fifo(&h, 0), Ok(()));
        assert!(check_brute_force(&h, 0));
    }

    #[test]
    fn a_skipped_value_is_an_order_violation() {
        let h = [enq(1, 0, 1), enq(2, 2, 3), deq(2, 4, 5)];
        assert_eq!(check_fifo(&h, 0), Err(Violation::Order { first: 1, second: 2, first_dequeued: false }));
        assert!(!check_brute_force(&h, 0));
    }

    #[test]
    fn fresh_and_repeated_values_are_reported() {
        let h = [enq(1, 0, 1), deq(1, 2, 3), deq(1, 4, 5)];
        assert!(matches!(check_fifo(&h, 0), Err(Violation::DequeuedTwice { .. })));
        let h = [enq(1, 0, 1), deq(7, 2, 3)];
        assert!(matches!(check_fifo(&h, 0), Err(Violation::NeverEnqueued { .. })));
        let h = [deq(1, 0, 1), enq(1, 2, 3)];
        assert!(matches!(check_fifo(&h, 0), Err(Violation::DequeuedBeforeEnqueued { .. })));
        assert!(!check_brute_force(&h, 0));
        let h = [enq(1, 0, 1), enq(1, 2, 3)];
        assert_eq!(check_fifo(&h, 0), Err(Violation::DuplicateEnqueue { value: 1 }));
        let h = [enq(1, 5, 1)];
        assert!(matches!(check_fifo(&h, 0), Err(Violation::Malformed { .. })));
    }

    #[test]
    fn a_coarse_clock_only_weakens_the_check() {
        // With a clock ticking every 2 ns, enq(1) ending at 1 and enq(2) starting at 2 may overlap: LIFO output is
        // then explainable, so it must be accepted.
        let h = [enq(1, 0, 1), enq(2, 2, 3), deq(2, 10, 11), deq(1, 12, 13)];
        assert_eq!(check_fifo(&h, 2), Ok(()));
        assert!(check_brute_force(&h, 2));
        assert!(check_fifo(&h, 0).is_err());
    }

    /// A small deterministic generator (no dependency for one test).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, bound: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % bound
        }
    }

    /// A random history: values 0..n enqueued once each, most dequeued once, intervals random; sometimes a
    /// dequeue is dropped or duplicated so that non-linearizable cases occur too.
    fn random_history(rng: &mut Lcg) -> Vec<Op> {
        let n = 1 + rng.next(4);
        let mut ops = Vec::new();
        for v in 0..n {
            let s = rng.next(20);
            ops.push(enq(v, s, s + rng.next(6)));
            if rng.next(8) != 0 {
                let s = rng.next(24);
                ops.push(deq(v, s, s + rng.next(6)));
            }
        }
        ops
    }

    #[test]
    fn the_fast_check_agrees_with_the_brute_force_search() {
        let mut rng = Lcg(42);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..20_000 {
            let h = random_history(&mut rng);
            let slack = rng.next(3);
            let fast = check_fifo(&h, slack).is_ok();
            assert_eq!(fast, check_brute_force(&h, slack), "disagreement on {h:?} with slack {slack}");
            if fast {
                accepted += 1
            } else {
                rejected += 1
            }
        }
        // Both verdicts must be exercised, or the agreement says little.
        assert!(accepted > 1000 && rejected > 1000, "accepted {accepted}, rejected {rejected}");
    }
}
