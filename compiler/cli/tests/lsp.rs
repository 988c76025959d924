//! `skc lsp` end to end: the real binary over stdio, as an editor runs it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(20);

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&["lsp"])
    }

    fn start_with(args: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_skc"));
        command.args(args);
        Server::spawn(command)
    }

    fn spawn(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start skc lsp");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            while let Some(message) = read_message(&mut stdout) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Server { child, stdin, messages }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// The next message for which `wanted` holds (others are skipped).
    fn expect(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.messages.recv_timeout(WAIT).expect("the server did not answer in time");
            if wanted(&message) {
                return message;
            }
        }
    }

    fn response(&mut self, id: i64) -> Value {
        self.expect(|m| m["id"] == id && m.get("method").is_none())
    }

    fn initialize(&mut self) {
        self.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "processId": null, "capabilities": {} } }));
        let reply = self.response(1);
        assert_eq!(reply["result"]["serverInfo"]["name"], "skc");
        self.send(json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }));
    }

    fn exit_status(mut self) -> i32 {
        drop(self.stdin);
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.child.kill().unwrap();
        panic!("skc lsp did not exit");
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

const URI: &str = "file:///tmp/skc-e2e/barrier.sk";
const BARRIER: &str = "kernel k (out : int32 vector) =\n  if thread_idx_x < 16 then Gpu.block_barrier\n";

#[test]
fn diagnostics_hover_and_clean_exit_over_stdio() {
    let mut server = Server::start();
    server.initialize();
    server.send(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": { "uri": URI, "languageId": "sk", "version": 1, "text": BARRIER } } }));
    let published = server.expect(|m| m["method"] == "textDocument/publishDiagnostics");
    let params = &published["params"];
    assert_eq!((params["uri"].as_str(), params["version"].as_i64()), (Some(URI), Some(1)));
    let error = &params["diagnostics"][0];
    assert_eq!(error["code"], "E0001");
    assert_eq!(error["severity"], 1);
    assert_eq!(error["source"], "skc");
    assert!(error["message"].as_str().unwrap().starts_with("Barrier in potentially diverged control flow"));
    assert_eq!(
        error["range"],
        json!({ "start": { "line": 1, "character": 28 }, "end": { "line": 1, "character": 45 } })
    );
    assert_eq!(error.get("codeDescription"), None, "no link to a web page: `skc.explain` has the page");
    assert!(params["diagnostics"].as_array().unwrap().iter().any(|d| d["severity"] == 4), "no mirrored hint");

    server.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
        "textDocument": { "uri": URI }, "position": { "line": 1, "character": 18 } } }));
    let hover = server.response(2);
    let value = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(value.contains("bool") && value.contains("thread-varying"), "{value}");

    server.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" }));
    assert_eq!(server.response(3)["result"], Value::Null);
    server.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(server.exit_status(), 0);
}

#[test]
fn garbage_unknown_methods_and_unknown_documents_over_stdio() {
    let mut server = Server::start();
    server.send_raw(b"Content-Length: 7\r\n\r\n{oops!}");
    assert_eq!(server.expect(|m| m.get("error").is_some())["error"]["code"], -32700);
    server.initialize();
    server.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "skc/unknown", "params": {} }));
    assert_eq!(server.response(2)["error"]["code"], -32601);
    server.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {
        "textDocument": { "uri": "file:///nowhere.sk" }, "position": { "line": 0, "character": 0 } } }));
    let reply = server.response(3);
    assert_eq!((reply["result"].clone(), reply.get("error")), (Value::Null, None));
    server.send(json!({ "jsonrpc": "2.0", "id": 4, "method": "shutdown" }));
    server.response(4);
    server.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(server.exit_status(), 0);
}

#[test]
fn exit_without_shutdown_exits_with_status_1() {
    let mut server = Server::start();
    server.initialize();
    server.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(server.exit_status(), 1);
}

/// Clients that name the transport start `skc lsp --stdio`: the same server.
#[test]
fn the_stdio_flag_is_the_same_server() {
    let mut server = Server::start_with(&["lsp", "--stdio"]);
    server.initialize();
    assert_eq!(server.exit_status(), 1);
}

#[test]
fn closed_input_ends_the_server() {
    let mut server = Server::start();
    server.initialize();
    assert_eq!(server.exit_status(), 1);
}

#[test]
fn a_conditional_store_gets_a_quick_fix_over_stdio() {
    const MAX_URI: &str = "file:///tmp/skc-e2e/max.sk";
    const MAX: &str = "kernel k (xs : float32 vector) (m : float32 vector) =\n  let i = global_thread_id in\n  let x = xs.(i) in\n  if x > m.(i) then m.(i) <- x\n";
    let mut server = Server::start();
    server.initialize();
    server.send(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": { "uri": MAX_URI, "languageId": "sk", "version": 1, "text": MAX } } }));
    let published = server.expect(|m| m["method"] == "textDocument/publishDiagnostics");
    assert_eq!(published["params"]["diagnostics"][0]["code"], "W0101");
    let at = json!({ "line": 3, "character": 22 });
    server.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {
        "textDocument": { "uri": MAX_URI }, "range": { "start": at, "end": at }, "context": { "diagnostics": [] } } }));
    let reply = server.response(2);
    let action = &reply["result"][0];
    assert_eq!(action["kind"], "quickfix");
    let edit = &action["edit"]["changes"][MAX_URI][0];
    assert_eq!(edit["newText"], "m.(i) <- select (x > m.(i)) x m.(i)");
    assert_eq!(edit["range"], json!({ "start": { "line": 3, "character": 2 }, "end": { "line": 3, "character": 30 } }));
    server.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" }));
    server.response(3);
    server.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(server.exit_status(), 0);
}

/// A document that starts with a UTF-8 byte-order mark is checked without it: no E0103, and columns on its first
/// line count from the first visible character.
#[test]
fn a_byte_order_mark_is_accepted_over_stdio() {
    const BOM_URI: &str = "file:///tmp/skc-e2e/bom.sk";
    const LINE: &str = "kernel k (out : int32 vector) = if thread_idx_x < 16 then Gpu.block_barrier";
    let mut server = Server::start();
    server.initialize();
    server.send(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": { "uri": BOM_URI, "languageId": "sk", "version": 1, "text": format!("\u{feff}{LINE}\n") } } }));
    let published = server.expect(|m| m["method"] == "textDocument/publishDiagnostics");
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    assert!(diagnostics.iter().all(|d| d["code"] != "E0103"), "{diagnostics:?}");
    let error = diagnostics.iter().find(|d| d["code"] == "E0001").expect("the barrier's error");
    let start = LINE.find("Gpu").unwrap();
    let end = start + "Gpu.block_barrier".len();
    assert_eq!(
        error["range"],
        json!({ "start": { "line": 0, "character": start }, "end": { "line": 0, "character": end } })
    );
    server.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }));
    server.response(2);
    server.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(server.exit_status(), 0);
}

/// An installed `skc lsp` opens standard library modules without the source tree: the embedded library is
/// written into the cache folder, whose files a definition can point at.
#[test]
fn the_server_opens_the_embedded_standard_library() {
    const USES_URI: &str = "file:///tmp/skc-e2e/uses_tables.sk";
    const USES: &str =
        "open Weno_tables\n\nkernel k (out : float64 vector) =\n  out.(global_idx) <- weno_c.(global_idx)\n";
    let cache = std::env::temp_dir().join(format!("skc-lsp-stdlib-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let mut child = Command::new(env!("CARGO_BIN_EXE_skc"));
    child.arg("lsp").env("SKC_CACHE_DIR", &cache).env_remove("SKC_STDLIB");
    let mut server = Server::spawn(child);
    server.initialize();
    server.send(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": { "uri": USES_URI, "languageId": "sk", "version": 1, "text": USES } } }));
    let published = server.expect(|m| m["method"] == "textDocument/publishDiagnostics");
    assert_eq!(published["params"]["diagnostics"], json!([]), "{published}");
    server.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "textDocument/definition", "params": {
        "textDocument": { "uri": USES_URI }, "position": { "line": 3, "character": 25 } } }));
    let reply = server.response(2);
    let target = reply["result"].to_string();
    assert!(target.contains(&cache.join("stdlib").display().to_string()), "{target}");
    assert!(target.contains("weno/weno_tables.sk"), "{target}");
    server.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" }));
    server.response(3);
    server.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(server.exit_status(), 0);
    let _ = std::fs::remove_dir_all(&cache);
}
