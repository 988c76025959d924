//! The byte-level transport: LSP's `Content-Length` framing over any reader and writer, on two threads, feeding a
//! [`Connection`]. It replaces `lsp-server`'s own stdio transport, which ends the session at the first malformed
//! message: here a frame that is not JSON (or not JSON-RPC) is answered with a JSON-RPC error and skipped, a
//! malformed header line is skipped, and the session goes on.
//!
//! Resynchronisation: a frame whose `Content-Length` is missing, unreadable (`abc`, a number beyond `usize`) or
//! too large leaves its body in the stream with nothing to say where it ends. The body (JSON has no raw newline)
//! then runs into the next frame's header on one line, so every header line is searched for `Content-Length:`
//! anywhere in it, not only at its start: the frame after a bad one is read as usual. Only the last
//! [`MAX_HEADER_LINE`] bytes of a line are kept, so a long glued body costs no memory.
//!
//! Request ids: the protocol's ids are 32-bit integers or strings. A request with any other id (a larger
//! integer, a fraction, `null`, anything else) would otherwise be taken for a notification and never answered;
//! it gets an Invalid Request error, echoing its id when it is a number and `null` otherwise (JSON-RPC 2.0).

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};
use std::thread;

use crossbeam_channel::{unbounded, Sender};
use lsp_server::{Connection, Message};

/// A frame larger than this is not read: its body is skipped by resynchronising on the next header (no client
/// sends anything near it, and a length this large is more likely a corrupt header than a real frame).
const MAX_FRAME_BYTES: usize = 256 << 20;

/// How much of a header line is kept (its end, where a header glued to a skipped body is).
const MAX_HEADER_LINE: usize = 4096;

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
    // Unbounded: the server loop hands a message over and goes on; with a rendezvous channel every publish waited
    // for the writer thread to be scheduled, which on a busy machine delayed the answer to the next request.
    let (to_client, from_server) = unbounded::<Message>();
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
    // `lsp-server` would take a request with an id it cannot represent for a notification, and never answer it.
    if value.get("method").is_some() && value.get("id").is_some() && !is_valid_id(&id) {
        let echoed = if id.is_number() { id.clone() } else { serde_json::Value::Null };
        let message = format!("invalid request id {id}: an id is a string or an integer of 32 bits");
        return Err(error_reply(echoed, -32600, message));
    }
    serde_json::from_value::<Message>(value)
        .map_err(|e| error_reply(id, -32600, format!("not a JSON-RPC request, response or notification: {e}")))
}

/// Is `id` an id the protocol allows (a string, or an integer that fits in 32 bits)?
fn is_valid_id(id: &serde_json::Value) -> bool {
    match id {
        serde_json::Value::String(_) => true,
        serde_json::Value::Number(n) => n.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        _ => false,
    }
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
        if !read_header_line(input, &mut line)? {
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
        let text = match content_length_start(text) {
            Some(0) | None => text,
            Some(start) => {
                eprintln!("skc lsp: skipping {start} bytes before a Content-Length header");
                // A new header starts here: whatever came before belonged to a frame already given up.
                length = None;
                &text[start..]
            }
        };
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                length = value.trim().parse().ok();
                if length.is_none() {
                    eprintln!("skc lsp: ignoring a malformed Content-Length header: {:?}", truncate(text));
                }
            }
            Some(_) => {}
            None => eprintln!("skc lsp: ignoring a malformed header line: {:?}", truncate(text)),
        }
    }
    let Some(length) = length else {
        eprintln!("skc lsp: skipping a message without a valid Content-Length header");
        return Ok(Some(None));
    };
    if length > MAX_FRAME_BYTES {
        eprintln!("skc lsp: skipping a message of {length} bytes (more than {MAX_FRAME_BYTES})");
        return Ok(Some(None));
    }
    let mut body = vec![0; length];
    match input.read_exact(&mut body) {
        Ok(()) => Ok(Some(Some(body))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads one line (through its `\n`) into `line`, keeping only its last [`MAX_HEADER_LINE`] bytes; false at the
/// end of input.
fn read_header_line<R: BufRead>(input: &mut R, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut read_any = false;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            return Ok(read_any && !line.is_empty());
        }
        read_any = true;
        let (taken, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buffer.len(), false),
        };
        line.extend_from_slice(&buffer[..taken]);
        input.consume(taken);
        if line.len() > 2 * MAX_HEADER_LINE {
            line.drain(..line.len() - MAX_HEADER_LINE);
        }
        if done {
            return Ok(true);
        }
    }
}

/// Where the last `Content-Length:` header of a line starts (case-insensitively), if it has one.
fn content_length_start(text: &str) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    let bytes = text.as_bytes();
    (0..=bytes.len().checked_sub(NAME.len())?).rev().find(|&i| bytes[i..i + NAME.len()].eq_ignore_ascii_case(NAME))
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
    fn the_frame_after_a_bad_content_length_is_read() {
        let good = b"Content-Length: 2\r\n\r\n{}";
        for bad in [&b"abc"[..], b"99999999999999999999999", b"-1", b"", b"999999999"] {
            let mut input = b"Content-Length: ".to_vec();
            input.extend_from_slice(bad);
            input.extend_from_slice(b"\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}");
            for _ in 0..3 {
                input.extend_from_slice(good);
            }
            let bad = String::from_utf8_lossy(bad);
            assert_eq!(
                frames(&input),
                vec![None, Some(b"{}".to_vec()), Some(b"{}".to_vec()), Some(b"{}".to_vec())],
                "{bad}"
            );
        }
    }

    #[test]
    fn a_long_skipped_body_is_not_kept() {
        let mut input = b"Content-Length: abc\r\n\r\n".to_vec();
        input.extend(vec![b'x'; 100_000]);
        input.extend_from_slice(b"content-length: 3\r\n\r\n[1]");
        let mut reader = io::Cursor::new(input);
        assert_eq!(read_frame(&mut reader).unwrap(), Some(None));
        let mut line = Vec::new();
        let mut rest = reader.clone();
        assert!(read_header_line(&mut rest, &mut line).unwrap());
        assert!(line.len() <= 2 * MAX_HEADER_LINE, "{} bytes kept", line.len());
        assert_eq!(read_frame(&mut reader).unwrap(), Some(Some(b"[1]".to_vec())));
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

    #[test]
    fn requests_with_ids_the_protocol_does_not_allow_are_answered_with_an_error() {
        for (id, echoed) in [
            ("4294967296", serde_json::json!(4294967296u64)),
            ("-2147483649", serde_json::json!(-2147483649i64)),
            ("1.5", serde_json::json!(1.5)),
            ("null", serde_json::Value::Null),
            ("true", serde_json::Value::Null),
            ("[1]", serde_json::Value::Null),
        ] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
            let reply = decode(body.as_bytes()).unwrap_err();
            assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (echoed, (-32600).into()), "{id}");
        }
        for id in ["2147483647", "-2147483648", "\"abc\""] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
            assert!(matches!(decode(body.as_bytes()), Ok(Message::Request(_))), "{id}");
        }
    }
}
