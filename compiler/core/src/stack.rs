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
    beside(work, || ()).0
}

/// Runs `work` on a thread with a stack of [`STACK_BYTES`] while `meanwhile` runs on this one, and returns both
/// results; where no thread can be started, `work` runs here after `meanwhile`, on whatever stack this thread
/// has. A panic in `work` continues on the caller's thread.
pub fn beside<A: Send, B>(work: impl FnOnce() -> A + Send, meanwhile: impl FnOnce() -> B) -> (A, B) {
    // Kept out of the thread's closure, so that it can still run here if the thread does not start.
    let pending = Mutex::new(Some(work));
    let take = |pending: &Mutex<Option<_>>| pending.lock().ok().and_then(|mut w| w.take());
    std::thread::scope(|scope| {
        let thread = spawn_scoped(scope, "skc-front-end", || take(&pending).map(|work| work()));
        let b = meanwhile();
        let a = match thread.map(|thread| thread.join()) {
            Some(Ok(Some(a))) => a,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            // Not started (or it found nothing to run, which cannot happen): the work is still pending.
            Some(Ok(None)) | None => take(&pending).expect("the work runs once, on the spawned thread or here")(),
        };
        (a, b)
    })
}

/// Starts `work` on a thread of `scope` named `name`, with a stack of [`STACK_BYTES`] (marked as such, so that
/// the entry points run in place on it); `None` where no thread can be started.
pub fn spawn_scoped<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    work: impl FnOnce() -> T + Send + 'scope,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>> {
    let thread = std::thread::Builder::new().name(name.into()).stack_size(STACK_BYTES);
    let started = thread.spawn_scoped(scope, move || {
        ON_LARGE_STACK.with(|on| on.set(true));
        work()
    });
    started.ok()
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
