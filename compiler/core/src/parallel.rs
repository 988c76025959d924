//! Threads of the front end: how many it may use (`SKC_THREADS`), and two passes run at once. A large file is
//! parsed in parts (`syntax::split`), and the checks after typing that do not read the convergence analysis run
//! beside it (`driver`); everything else runs on the caller's thread, in order.

use std::sync::OnceLock;

/// How many threads the front end may use: `SKC_THREADS` if set (1: one thread, every pass in order), otherwise
/// the processors this process may run on.
pub fn thread_budget() -> usize {
    static BUDGET: OnceLock<usize> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let set = std::env::var("SKC_THREADS").ok().and_then(|v| v.trim().parse::<usize>().ok());
        set.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
    })
}

/// Runs `beside` on a thread of its own (with the front end's large stack, `stack::beside`) while `here` runs on
/// this one, and returns both results; one after the other on this thread when the budget is one thread or no
/// thread can be started. A panic in `beside` continues on this thread.
pub fn join<A: Send, B>(beside: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    if thread_budget() < 2 {
        let a = beside();
        return (a, here());
    }
    crate::stack::beside(beside, here)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_run_and_their_results_come_back_in_order() {
        let data = [1, 2, 3];
        let (sum, count) = join(|| data.iter().sum::<i32>(), || data.len());
        assert_eq!((sum, count), (6, 3));
    }

    #[test]
    fn a_panic_beside_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| join(|| panic!("beside"), || 1));
        assert!(caught.is_err());
    }
}
