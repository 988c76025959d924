//! The parent's side of a worker: start the worker process, send it requests, read its replies, and turn a worker
//! that died (NVRTC crashed inside it) into `NvrtcError::Crashed` with how it ended and what it printed.

use std::io::{BufReader, BufWriter, Read};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::protocol::{Reply, Request};
use super::WorkerCommand;
use crate::error::NvrtcError;

/// At most this much of a worker's standard error is kept for the crash report (its end: the last words).
const STDERR_KEPT_BYTES: usize = 16 * 1024;

/// A running worker. It serves any number of requests, one at a time; after a crash it is dead and a new one
/// must be started.
pub struct WorkerProcess {
    child: Child,
    input: Option<BufWriter<ChildStdin>>,
    output: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<JoinHandle<()>>,
}

impl WorkerProcess {
    /// Starts the worker `command` describes.
    pub fn start(command: &WorkerCommand) -> Result<WorkerProcess, NvrtcError> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| NvrtcError::Worker {
                message: format!("cannot start the NVRTC worker {}: {e}", command.describe()),
            })?;
        let (Some(input), Some(output), Some(stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(NvrtcError::Worker { message: "the NVRTC worker's pipes could not be opened".into() });
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stderr_reader = Some(drain_stderr(stderr_pipe, Arc::clone(&stderr)));
        Ok(WorkerProcess {
            child,
            input: Some(BufWriter::new(input)),
            output: BufReader::new(output),
            stderr,
            stderr_reader,
        })
    }

    /// Sends one request and waits for its reply. A worker that ends before replying (NVRTC crashed in it, or it
    /// was killed) is `NvrtcError::Crashed`; the worker is then finished.
    pub fn request(&mut self, request: &Request) -> Result<Reply, NvrtcError> {
        let Some(input) = self.input.as_mut() else {
            return Err(NvrtcError::Worker { message: "the NVRTC worker has already ended".into() });
        };
        // A worker that dies while reading makes the write fail (a broken pipe): what matters is how it ended.
        let sent = request.write(input);
        let reply = match sent {
            Ok(()) => Reply::read(&mut self.output),
            Err(e) => Err(e),
        };
        match reply {
            Ok(reply) => Ok(reply),
            Err(error) => Err(self.failure(&request.program_name, error)),
        }
    }

    /// Why the exchange failed. A closed pipe means the worker ended on its own (NVRTC crashed in it, or it was
    /// killed): that is a crash, reported with how it ended. Anything else is a stream that is not ours.
    fn failure(&mut self, program_name: &str, error: std::io::Error) -> NvrtcError {
        self.input = None;
        let ended_on_its_own =
            matches!(error.kind(), std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::BrokenPipe);
        if !ended_on_its_own {
            let _ = self.child.kill();
        }
        let status = self.child.wait().ok();
        let stderr = self.take_stderr();
        if !ended_on_its_own {
            return NvrtcError::Worker { message: format!("the NVRTC worker's reply could not be read: {error}") };
        }
        let ended = status.map_or_else(|| "ended".to_string(), describe_exit);
        NvrtcError::Crashed { program: program_name.to_string(), ended, stderr }
    }

    /// The worker's standard error so far, once it has ended.
    fn take_stderr(&mut self) -> String {
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
        let bytes = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }
}

impl Drop for WorkerProcess {
    /// Closing its input ends a healthy worker's loop; one that has not ended after a second is killed.
    fn drop(&mut self) {
        self.input = None;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while matches!(self.child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
    }
}

/// Reads the worker's standard error as it comes (a full pipe would block the worker), keeping the end.
fn drain_stderr(mut pipe: impl Read + Send + 'static, kept: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            let Ok(mut kept) = kept.lock() else { break };
            kept.extend_from_slice(&buf[..n]);
            if kept.len() > STDERR_KEPT_BYTES {
                let excess = kept.len() - STDERR_KEPT_BYTES;
                kept.drain(..excess);
            }
        }
    })
}

/// "killed by signal 11 (SIGSEGV)", "exited with status 3".
pub fn describe_exit(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return match signal_name(signal) {
                Some(name) => format!("killed by signal {signal} ({name})"),
                None => format!("killed by signal {signal}"),
            };
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "ended abnormally".to_string(),
    }
}

#[cfg(unix)]
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => return None,
    })
}
