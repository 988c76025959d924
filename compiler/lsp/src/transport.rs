//! The byte-level transport: LSP's `Content-Length` framing over any reader and writer, on two threads, feeding a
//! [`Connection`]. It replaces `lsp-server`'s own stdio transport, which ends the session at the first malformed
//! message: here a frame that is not JSON (or not JSON-RPC) is answered with a JSON-RPC error and skipped, a
//! malformed header line is skipped, and the session goes on.

use std::io::{self, BufRead, Read, Write};
use std::sync::{Arc, Mutex};
use std::thread;

use crossbeam_channel::{bounded, unbounded, Sender};
use lsp_server::{Connection, Message};

/// A frame larger than this is discarded unread (no client sends anything near it).
const MAX_FRAME_BYTES: usize = 256 << 20;

/// The reader and writer threads; [`IoThreads::join`] waits for both after the server loop returns.
pub struct IoThreads {
    reader: thread::JoinHandle<io::Result<()>>,
    writer: thread::JoinHandle<io::Result<()>>,
}

impl IoThreads {
    pub fn join(self) -> io::Result<()> {
        let reader = self.reader.join().unwrap_or_else(|_| Err(io::Error::other("reader thread panicked")));
        let writer = self.writer.join().unwrap_or_else(|_| Err(io::Error::other("writer thread panicked")));
        reader.and(writer)
    }
}

/// A connection over the process' standard input and output.
pub fn stdio() -> (Connection, IoThreads) {
    framed(io::BufReader::new(io::stdin()), io::stdout())
}

/// A connection over any byte streams (tests use `std::io::pipe`). The reader thread stops after `exit` or at
/// the end of its input; the writer thread stops when the connection's sender is dropped.
pub fn framed<R, W>(reader: R, writer: W) -> (Connection, IoThreads)
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let writer = Arc::new(Mutex::new(writer));
    let (to_client, from_server) = bounded::<Message>(0);
    let (to_server, from_client) = unbounded::<Message>();
    let writer_for_errors = Arc::clone(&writer);
    let reader = thread::Builder::new()
        .name("skc-lsp-reader".into())
        .spawn(move || read_loop(reader, to_server, &writer_for_errors))
        .expect("cannot start the language server's reader thread");
    let writer = thread::Builder::new()
        .name("skc-lsp-writer".into())
        .spawn(move || {
            for message in from_server {
                let mut out = writer.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                message.write(&mut *out)?;
            }
            Ok(())
        })
        .expect("cannot start the language server's writer thread");
    (Connection { sender: to_client, receiver: from_client }, IoThreads { reader, writer })
}

fn read_loop<R: BufRead, W: Write>(mut input: R, to_server: Sender<Message>, writer: &Mutex<W>) -> io::Result<()> {
    while let Some(frame) = read_frame(&mut input)? {
        let Some(body) = frame else { continue };
        match decode(&body) {
            Ok(message) => {
                let is_exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_server.send(message).is_err() || is_exit {
                    break;
                }
            }
            Err(reply) => {
                eprintln!("skc lsp: {}", reply["error"]["message"].as_str().unwrap_or("bad message"));
                let mut out = writer.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                write_raw(&mut *out, &reply)?;
            }
        }
    }
    Ok(())
}

/// Parses one frame's body; on failure returns the JSON-RPC error response to send (`id` null when unknown).
fn decode(body: &[u8]) -> Result<Message, serde_json::Value> {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Err(error_reply(serde_json::Value::Null, -32700, format!("parse error: {e}"))),
    };
    let id = value.get("id").cloned().unwrap_or(serde_json::Value::Null);
    // `lsp-server` would take `{"id": 1}` for a response with neither result nor error.
    if !["method", "result", "error"].iter().any(|key| value.get(key).is_some()) {
        return Err(error_reply(id, -32600, "not a JSON-RPC request, response or notification".into()));
    }
    serde_json::from_value::<Message>(value)
        .map_err(|e| error_reply(id, -32600, format!("not a JSON-RPC request, response or notification: {e}")))
}

fn error_reply(id: serde_json::Value, code: i32, message: String) -> serde_json::Value {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn write_raw<W: Write + ?Sized>(out: &mut W, value: &serde_json::Value) -> io::Result<()> {
    let text = value.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{}", text.len(), text)?;
    out.flush()
}

/// Reads one frame: `Ok(None)` at the end of input, `Ok(Some(None))` for a frame that had to be skipped (no or a
/// malformed `Content-Length`, or too large).
fn read_frame<R: BufRead>(input: &mut R) -> io::Result<Option<Option<Vec<u8>>>> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                length = value.trim().parse().ok();
                if length.is_none() {
                    eprintln!("skc lsp: ignoring a malformed Content-Length header: {text:?}");
                }
            }
            Some(_) => {}
            None => eprintln!("skc lsp: ignoring a malformed header line: {:?}", truncate(text)),
        }
    }
    let Some(length) = length else {
        eprintln!("skc lsp: skipping a message without a Content-Length header");
        return Ok(Some(None));
    };
    if length > MAX_FRAME_BYTES {
        eprintln!("skc lsp: skipping a message of {length} bytes");
        io::copy(&mut input.take(length as u64), &mut io::sink())?;
        return Ok(Some(None));
    }
    let mut body = vec![0; length];
    match input.read_exact(&mut body) {
        Ok(()) => Ok(Some(Some(body))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

fn truncate(text: &str) -> &str {
    match text.char_indices().nth(80) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Option<Vec<u8>>> {
        let mut reader = io::Cursor::new(input.to_vec());
        std::iter::from_fn(|| read_frame(&mut reader).unwrap()).collect()
    }

    #[test]
    fn reads_frames_and_skips_malformed_headers() {
        let input = b"Content-Length: 2\r\n\r\n{}garbage line\r\nContent-Length: 3\r\n\r\n[1]Content-Length: x\r\n\r\n";
        assert_eq!(frames(input), vec![Some(b"{}".to_vec()), Some(b"[1]".to_vec()), None]);
    }

    #[test]
    fn accepts_bare_newlines_and_non_utf8_headers() {
        let input = b"X-\xff: 1\nContent-Length: 2\n\n{}";
        assert_eq!(frames(input), vec![Some(b"{}".to_vec())]);
    }

    #[test]
    fn a_truncated_body_ends_the_input() {
        assert_eq!(frames(b"Content-Length: 10\r\n\r\n{}"), vec![]);
    }

    #[test]
    fn decode_reports_parse_and_shape_errors() {
        assert_eq!(decode(b"{not json").unwrap_err()["error"]["code"], -32700);
        assert_eq!(decode(b"\xff\xfe").unwrap_err()["error"]["code"], -32700);
        let reply = decode(br#"{"jsonrpc":"2.0","id":7,"params":{}}"#).unwrap_err();
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (7.into(), (-32600).into()));
        assert!(decode(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#).is_ok());
    }
}
