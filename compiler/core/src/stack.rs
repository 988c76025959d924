//! A large stack for the front end. Parsing is iterative, but the passes after it walk nested expressions
//! recursively, and the spines they follow (a sequence's statements, a `let` body, the left operand of
//! `a + b + c`) are bounded only by the input's length. A spawned Rust thread has 2 MiB of stack, where a
//! few thousand terms of one chain overflow a debug build; so the entry points run their passes on a thread
//! of [`STACK_BYTES`] (as rustc does), whatever thread their caller is on. The memory is reserved, not
//! touched: a small program uses as little as it would on the caller's stack.

use std::cell::Cell;
use std::sync::Mutex;

/// The stack of the thread the front end runs on.
pub const STACK_BYTES: usize = 256 << 20;

thread_local! {
    static ON_LARGE_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` on a thread with a stack of [`STACK_BYTES`], or right here when this thread already has one
/// (or no thread can be started). A panic in `work` continues on the caller's thread.
pub fn on_large_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if ON_LARGE_STACK.with(Cell::get) {
        return work();
    }
    let pending = Mutex::new(Some(work));
    let take = |pending: &Mutex<Option<_>>| pending.lock().ok().and_then(|mut w| w.take());
    let result = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().name("skc-front-end".into()).stack_size(STACK_BYTES).spawn_scoped(
            scope,
            || {
                ON_LARGE_STACK.with(|on| on.set(true));
                take(&pending).map(|work| work())
            },
        );
        match spawned.map(|thread| thread.join()) {
            Ok(Ok(result)) => result,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => None,
        }
    });
    match result {
        Some(result) => result,
        // No thread could be started: run here, on whatever stack this thread has.
        None => take(&pending).expect("the work runs once, on the spawned thread or here")(),
    }
}

/// Marks this thread as having a stack of at least [`STACK_BYTES`] (a program's own large-stack thread), so
/// the entry points run their passes directly on it.
pub fn this_thread_has_a_large_stack() {
    ON_LARGE_STACK.with(|on| on.set(true));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_work_once_and_returns_its_result() {
        assert_eq!(on_large_stack(|| 6 * 7), 42);
        assert!(on_large_stack(|| on_large_stack(|| ON_LARGE_STACK.with(Cell::get))));
    }

    #[test]
    fn deep_recursion_fits() {
        fn depth(n: u32) -> u32 {
            let pad = std::hint::black_box([0u8; 512]);
            if n == 0 {
                u32::from(pad[0])
            } else {
                1 + depth(n - 1)
            }
        }
        // About 50 MB of frames: far past a spawned thread's 2 MiB.
        assert_eq!(on_large_stack(|| depth(100_000)), 100_000);
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| on_large_stack(|| panic!("inside")));
        assert!(caught.is_err());
    }
}
