//! Language server latency on a 5,000-line file, over the real byte transport (`transport::framed` on pipes: JSON
//! encoding, framing and decoding included; only the process boundary is missing), while a line is typed into
//! the middle of the file one character every 30 ms.
//!
//!   cargo run --release -p skc-lsp --example latency
//!
//! Two sessions:
//!
//! 1. Edits only. Bursts of 20 keystrokes 30 ms apart, then a pause. The first keystroke after a pause is
//!    checked at once; the others are inside the debounce window ([`skc_lsp::DEBOUNCE`]), so the server waits
//!    until typing pauses for that long and checks the latest version once. Reported: for every keystroke, the
//!    time to the first `publishDiagnostics` of its version or a newer one (this includes waiting for the burst
//!    to end and the debounce); and the server's own part, the time from when a check may start (at once for the
//!    first keystroke of a burst, the debounce after the last one) to the `publishDiagnostics`.
//! 2. Typing with the editor asking as it goes: after every keystroke, a completion request at the cursor and an
//!    inlay hint request for the 80 lines around it (as an editor asks for the visible part). A request on a
//!    changed document checks it first (no debounce), so each answer includes a check of the whole file.
//!
//! Every figure is a median and a 99th percentile over all keystrokes of the session.

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc::{channel, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const LINES: usize = 5000;
const KEYSTROKE: Duration = Duration::from_millis(30);
const BURST: usize = 20;
const BURSTS: usize = 15;
const URI: &str = "file:///latency/big.sk";
/// The line typed into the middle of the file, one character at a time.
const TYPED: &str = "  let extra = t * 3 + g in";

fn main() {
    let text = big_file(LINES);
    // After a `let g = ...` line in the middle of the file (the typed line uses `t` and `g`).
    let middle = text.len() / 2;
    let g_line = middle + text[middle..].find("  let g = ").expect("a kernel");
    let anchor = g_line + text[g_line..].find('\n').unwrap() + 1;
    println!(
        "file: {} lines, {} bytes; typing `{TYPED}` at line {}, one character every {} ms; debounce {} ms",
        text.lines().count(),
        text.len(),
        text[..anchor].lines().count() + 1,
        KEYSTROKE.as_millis(),
        skc_lsp::DEBOUNCE.as_millis()
    );
    let mut alone = Vec::new();
    for typed in 0..20 {
        let edited = with_typed(&text, anchor, typed);
        let started = Instant::now();
        skc_core::check("/latency/big.sk", &edited, &skc_core::NoModules, &Default::default());
        alone.push(started.elapsed());
    }
    report("skc_core::check of the whole file alone (20 versions)", &mut alone);
    println!();

    edits_only(&text, anchor);
    typing_with_requests(&text, anchor);
}

/// The file with the first `typed` characters of [`TYPED`] and a newline inserted at `anchor`.
fn with_typed(text: &str, anchor: usize, typed: usize) -> String {
    let mut edited = String::with_capacity(text.len() + TYPED.len() + 1);
    edited.push_str(&text[..anchor]);
    edited.push_str(&TYPED[..typed]);
    edited.push('\n');
    edited.push_str(&text[anchor..]);
    edited
}

/// CPU time this process (server and client threads) has used, from `/proc/self/stat` (Linux; its clock ticks
/// are USER_HZ, 100 per second): unlike the wall-clock figures, it does not grow when other programs share the
/// machine.
fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces): utime and stime are the
    // 14th and 15th fields of the line, the 12th and 13th after the `)`.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn report_cpu(since: Option<Duration>, keystrokes: usize) {
    if let (Some(since), Some(now)) = (since, process_cpu_time()) {
        let per_keystroke = (now - since) / keystrokes as u32;
        println!("   CPU time of the server and this client together: {:.1} ms per keystroke", ms(per_keystroke));
    }
}

fn edits_only(text: &str, anchor: usize) {
    let mut server = Server::start();
    server.open(text);
    let cpu = process_cpu_time();
    let mut to_diagnostics = Vec::new();
    let mut first_of_burst = Vec::new();
    let mut end_of_burst = Vec::new();
    let mut version = 1;
    for _ in 0..BURSTS {
        thread::sleep(skc_lsp::DEBOUNCE * 3);
        server.drain();
        let mut sent = Vec::new();
        for typed in 1..=BURST.min(TYPED.len()) {
            version += 1;
            sent.push((version, server.change(version, &with_typed(text, anchor, typed))));
            thread::sleep(KEYSTROKE);
        }
        // Everything published until the burst's last version is.
        let last = version;
        let mut published = Vec::new();
        while published.last().is_none_or(|(v, _)| *v < last) {
            let (at, message) = server.next(|m| m["method"] == "textDocument/publishDiagnostics");
            published.push((message["params"]["version"].as_i64().unwrap(), at));
        }
        for (v, at) in &sent {
            let (_, when) = published.iter().find(|(p, _)| p >= v).unwrap();
            to_diagnostics.push(*when - *at);
        }
        let (first_version, first_sent) = sent[0];
        if let Some((_, when)) = published.iter().find(|(p, _)| *p == first_version) {
            first_of_burst.push(*when - first_sent);
        }
        let (_, last_sent) = sent[sent.len() - 1];
        let (_, last_published) = published[published.len() - 1];
        end_of_burst.push(last_published.saturating_duration_since(last_sent + skc_lsp::DEBOUNCE));
    }
    server.stop();
    println!("1. edits only ({} keystrokes in {BURSTS} bursts of {BURST})", to_diagnostics.len());
    report("every keystroke: didChange -> publishDiagnostics of its version or a newer one", &mut to_diagnostics);
    report("first keystroke of a burst (checked at once): didChange -> publishDiagnostics", &mut first_of_burst);
    report("last keystroke of a burst: didChange -> publishDiagnostics, less the debounce", &mut end_of_burst);
    report_cpu(cpu, BURSTS * BURST.min(TYPED.len()));
    println!();
}

fn typing_with_requests(text: &str, anchor: usize) {
    let mut server = Server::start();
    server.open(text);
    let cpu = process_cpu_time();
    let mut completion = Vec::new();
    let mut inlay_hints = Vec::new();
    let mut to_diagnostics = Vec::new();
    let line = text[..anchor].lines().count() as u32;
    let mut version = 1;
    for _ in 0..BURSTS {
        thread::sleep(skc_lsp::DEBOUNCE * 3);
        server.drain();
        for typed in 1..=BURST.min(TYPED.len()) {
            version += 1;
            let changed = server.change(version, &with_typed(text, anchor, typed));
            let position = json!({ "line": line, "character": typed });
            let doc = json!({ "uri": URI });
            let asked = Instant::now();
            let id = server.request("textDocument/completion", json!({ "textDocument": doc, "position": position }));
            let (answered, reply) = server.next(|m| m["id"] == id);
            assert!(reply["result"].as_array().is_some_and(|items| items.len() > 100), "{reply}");
            completion.push(answered - asked);
            let range = json!({ "start": { "line": line.saturating_sub(40), "character": 0 }, "end": { "line": line + 40, "character": 0 } });
            let asked = Instant::now();
            let id = server.request("textDocument/inlayHint", json!({ "textDocument": doc, "range": range }));
            let (answered, reply) = server.next(|m| m["id"] == id);
            assert!(reply["result"].as_array().is_some_and(|hints| !hints.is_empty()), "{reply}");
            inlay_hints.push(answered - asked);
            // The completion request checked this version: its diagnostics went out before the answer.
            let published = server.seen.iter().find(|(_, m)| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"].as_i64() == Some(version)
            });
            if let Some((at, _)) = published {
                to_diagnostics.push(*at - changed);
            }
            let spent = changed.elapsed();
            thread::sleep(KEYSTROKE.saturating_sub(spent));
        }
    }
    server.stop();
    println!(
        "2. typing with completion and inlay hint requests after every keystroke ({} keystrokes)",
        completion.len()
    );
    report("completion (a check of the new version included)", &mut completion);
    report("inlay hints, 80 lines", &mut inlay_hints);
    report("didChange -> publishDiagnostics (the completion request's check)", &mut to_diagnostics);
    report_cpu(cpu, BURSTS * BURST.min(TYPED.len()));
}

fn report(what: &str, samples: &mut [Duration]) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1];
    println!(
        "   {what}: median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(samples[samples.len() - 1])
    );
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The server on the byte transport, over pipes, with a thread that timestamps every message it writes.
struct Server {
    to_server: std::io::PipeWriter,
    messages: Receiver<(Instant, Value)>,
    thread: thread::JoinHandle<()>,
    next_id: i64,
    /// Messages received while waiting for another one.
    seen: Vec<(Instant, Value)>,
}

impl Server {
    fn start() -> Server {
        let (server_in, to_server) = std::io::pipe().unwrap();
        let (from_server, server_out) = std::io::pipe().unwrap();
        let thread = thread::spawn(move || {
            let (connection, threads) = skc_lsp::transport::framed(BufReader::new(server_in), server_out);
            skc_lsp::run(connection).expect("the server stopped");
            threads.join().unwrap();
        });
        let (sender, messages) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(from_server);
            while let Some(message) = read_message(&mut reader) {
                if sender.send((Instant::now(), message)).is_err() {
                    break;
                }
            }
        });
        let mut server = Server { to_server, messages, thread, next_id: 0, seen: Vec::new() };
        let id = server.request("initialize", json!({ "capabilities": {} }));
        server.next(|m| m["id"] == id);
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: Value) -> Instant {
        let body = message.to_string();
        let sent = Instant::now();
        write!(self.to_server, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.to_server.flush().unwrap();
        sent
    }

    fn notify(&mut self, method: &str, params: Value) -> Instant {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params }));
        self.next_id
    }

    fn open(&mut self, text: &str) {
        let document = json!({ "uri": URI, "languageId": "sk", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": document }));
        self.next(|m| m["method"] == "textDocument/publishDiagnostics");
    }

    /// Sends the whole new text (the server asks for full synchronisation); returns when it was sent.
    fn change(&mut self, version: i64, text: &str) -> Instant {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": URI, "version": version }, "contentChanges": [{ "text": text }] }),
        )
    }

    /// The next message for which `wanted` holds, and when it arrived; the others are kept in `seen`.
    fn next(&mut self, wanted: impl Fn(&Value) -> bool) -> (Instant, Value) {
        loop {
            let (at, message) = self.messages.recv_timeout(Duration::from_secs(30)).expect("the server did not answer");
            if wanted(&message) {
                return (at, message);
            }
            self.seen.push((at, message));
        }
    }

    fn drain(&mut self) {
        self.seen.clear();
        while self.messages.try_recv().is_ok() {}
    }

    fn stop(mut self) {
        let id = self.request("shutdown", Value::Null);
        self.next(|m| m["id"] == id);
        self.notify("exit", Value::Null);
        self.thread.join().unwrap();
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// About `lines` lines of kernels and device functions, with a divergent barrier every 50 lines.
fn big_file(lines: usize) -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.lines().count() < lines {
        text.push_str(&format!(
            "let scale{i} (x : float32) (k : int32) : float32 =
  let acc = mut x in
  for j = 0 to k do
    acc := acc *. 1.5 +. float32 j
  done;
  acc

kernel k{i} (xs : float32 vector) (out : float32 vector) (n : int32) =
  let%shared (tile : float32) = 256 in
  let t = thread_idx_x in
  let g = block_idx_x * block_dim_x + t in
  if g < n then tile.(t) <- xs.(g);
  Gpu.block_barrier;
  let s = mut 0.0 in
  for j = 0 to 15 do
    s := s +. tile.((t + j) mod 256)
  done;
  if t < 16 then Gpu.block_barrier;
  if g < n then out.(g) <- scale{i} s 4
"
        ));
        text.push_str(&"\n".repeat(30));
        i += 1;
    }
    text
}
