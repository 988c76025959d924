//! The watchdog of the device thread. A kernel that never returns cannot be stopped inside its process (a context
//! whose kernel hangs is lost), so a thread watches each case's time on the device: past the limit it writes the
//! case's log and ends the process at once with `_exit` (no exit handlers, which could wait on the kernel), exit
//! status [`STOPPED_EXIT`], and the driver tears the context down with it. The next process skips the cases that
//! have an output or a log.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The exit status of a batch that stopped before its end (a hang, or a context that may be broken): running it
/// again finishes it.
pub const STOPPED_EXIT: u8 = 3;

/// The log of the case on the device, and since when.
type Watched = Arc<Mutex<Option<(PathBuf, Instant)>>>;

pub struct Watchdog {
    current: Watched,
}

impl Watchdog {
    /// Starts the watching thread: no case may stay on the device longer than `limit`.
    pub fn start(limit: Duration) -> Watchdog {
        let current: Watched = Arc::new(Mutex::new(None));
        let watched = Arc::clone(&current);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(20));
            let late = watched.lock().ok().and_then(|c| c.clone()).filter(|(_, since)| since.elapsed() > limit);
            if let Some((log, _)) = late {
                end_the_process(&log, limit);
            }
        });
        Watchdog { current }
    }

    /// Runs `work`, the device's part of the case whose log is `log`, under watch.
    pub fn watch<T>(&self, log: &Path, work: impl FnOnce() -> T) -> T {
        self.set(Some((log.to_path_buf(), Instant::now())));
        let result = work();
        self.set(None);
        result
    }

    fn set(&self, value: Option<(PathBuf, Instant)>) {
        if let Ok(mut current) = self.current.lock() {
            *current = value;
        }
    }
}

fn end_the_process(log: &Path, limit: Duration) -> ! {
    let message = format!(
        "error: timed out: the case ran on the device for more than {} s (a kernel that does not return); \
         skc-run-batch ended its process\n",
        limit.as_secs_f64()
    );
    let _ = std::fs::write(log, message);
    eprintln!("skc-run-batch: {} timed out; stopping (exit status {STOPPED_EXIT})", log.display());
    // SAFETY: `_exit` only ends the process; it runs no exit handlers and touches no memory of ours.
    unsafe { libc::_exit(i32::from(STOPPED_EXIT)) }
}
