//! A test client for the language server: runs `skc_lsp::run` on a thread over an in-memory connection, does the
//! `initialize` handshake, and turns what the server publishes into text that snapshots can show.
#![allow(dead_code)] // each test file uses a different part of this

use std::collections::VecDeque;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::{PublishDiagnosticsParams, Url};
use serde_json::{json, Value};
use skc_lsp::ServerError;

pub const WAIT: Duration = Duration::from_secs(10);

pub struct Client {
    pub connection: Connection,
    server: Option<JoinHandle<Result<(), ServerError>>>,
    /// The server's end of the connection until [`Client::run_server`] starts it.
    unstarted: Option<Connection>,
    next_id: i32,
    /// Notifications received while waiting for a response.
    pub notifications: VecDeque<Notification>,
    /// Requests the server sent (refreshes) while the client waited for a response.
    pub server_requests: VecDeque<Request>,
}

pub fn uri(name: &str) -> Url {
    Url::parse(&format!("file:///work/test/{name}")).unwrap()
}

impl Client {
    /// A server that has not been sent anything yet.
    pub fn spawn() -> Client {
        let mut client = Client::unstarted();
        client.run_server();
        client
    }

    /// A client whose messages queue up until [`Client::run_server`] (so the server sees them all at once).
    pub fn unstarted() -> Client {
        let (client, server) = Connection::memory();
        Client {
            connection: client,
            server: None,
            unstarted: Some(server),
            next_id: 0,
            notifications: VecDeque::new(),
            server_requests: VecDeque::new(),
        }
    }

    pub fn run_server(&mut self) {
        let server = self.unstarted.take().expect("the server already runs");
        self.server = Some(std::thread::spawn(move || skc_lsp::run(server)));
    }

    /// A server after `initialize` and `initialized`.
    pub fn start() -> Client {
        let mut client = Client::spawn();
        let response = client.request("initialize", json!({ "capabilities": {} }));
        assert!(response.error.is_none(), "{response:?}");
        client.notify("initialized", json!({}));
        client
    }

    pub fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.connection.sender.send(Request::new(id.clone(), method.into(), params).into()).unwrap();
        id
    }

    pub fn request(&mut self, method: &str, params: Value) -> Response {
        let id = self.send_request(method, params);
        self.response(&id)
    }

    pub fn response(&mut self, id: &RequestId) -> Response {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.connection.receiver.recv_deadline(deadline).expect("no response from the server") {
                Message::Response(response) if &response.id == id => return response,
                Message::Notification(notification) => self.notifications.push_back(notification),
                Message::Request(request) => self.server_requests.push_back(request),
                other => panic!("unexpected message {other:?}"),
            }
        }
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.connection.sender.send(Notification::new(method.into(), params).into()).unwrap();
    }

    /// The next notification, within `timeout`.
    pub fn next_notification(&mut self, timeout: Duration) -> Option<Notification> {
        if let Some(n) = self.notifications.pop_front() {
            return Some(n);
        }
        match self.connection.receiver.recv_timeout(timeout).ok()? {
            Message::Notification(notification) => Some(notification),
            other => panic!("unexpected message {other:?}"),
        }
    }

    pub fn next_diagnostics(&mut self) -> PublishDiagnosticsParams {
        let n = self.next_notification(WAIT).expect("no diagnostics were published");
        assert_eq!(n.method, "textDocument/publishDiagnostics");
        serde_json::from_value(n.params).unwrap()
    }

    pub fn open(&mut self, name: &str, text: &str) -> PublishDiagnosticsParams {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(name), "languageId": "sk", "version": 1, "text": text } }),
        );
        self.next_diagnostics()
    }

    pub fn change(&self, name: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri(name), "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    /// `textDocument/hover` etc. at the first occurrence of `needle` in `text` (plus `shift` characters).
    pub fn at(&mut self, method: &str, name: &str, text: &str, needle: &str, shift: usize) -> Value {
        let position = position_of(text, needle, shift);
        let params = json!({ "textDocument": { "uri": uri(name) }, "position": position });
        let response = self.request(method, params);
        assert!(response.error.is_none(), "{response:?}");
        response.result.unwrap_or(Value::Null)
    }

    /// `method` at the first `needle` in `text` (plus `shift` characters), with more parameters merged in.
    pub fn at_with(
        &mut self,
        method: &str,
        name: &str,
        text: &str,
        needle: &str,
        shift: usize,
        more: Value,
    ) -> Response {
        let mut params = json!({ "textDocument": { "uri": uri(name) }, "position": position_of(text, needle, shift) });
        if let (Some(params), Value::Object(more)) = (params.as_object_mut(), more) {
            params.extend(more);
        }
        self.request(method, params)
    }

    /// `shutdown` then `exit`; returns how the server loop ended.
    pub fn shutdown(mut self) -> Result<(), ServerError> {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response.result, Some(Value::Null));
        self.notify("exit", Value::Null);
        self.join()
    }

    pub fn join(mut self) -> Result<(), ServerError> {
        self.server.take().unwrap().join().expect("the server thread panicked")
    }
}

/// The LSP position (line, UTF-16 column) of the first `needle` in `text`, moved right by `shift` characters.
pub fn position_of(text: &str, needle: &str, shift: usize) -> Value {
    let offset = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in the text"));
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..offset].encode_utf16().count() + shift;
    json!({ "line": line, "character": column })
}

/// The text an LSP range covers.
pub fn range_text(text: &str, range: &lsp_types::Range) -> String {
    let offset = |p: lsp_types::Position| {
        let line_start: usize = text.split_inclusive('\n').take(p.line as usize).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[line_start..].char_indices() {
            if units >= p.character as usize || c == '\n' {
                return line_start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    text[offset(range.start)..offset(range.end)].to_string()
}

pub fn range_label(text: &str, range: &lsp_types::Range) -> String {
    let (s, e) = (range.start, range.end);
    format!("{}:{}-{}:{} `{}`", s.line + 1, s.character + 1, e.line + 1, e.character + 1, range_text(text, range))
}

/// One block per diagnostic: severity, code, range (1-based, with the text it covers), message, related
/// information.
pub fn render_diagnostics(text: &str, published: &PublishDiagnosticsParams) -> String {
    use lsp_types::{DiagnosticSeverity as S, NumberOrString};
    let mut out = format!("version: {:?}\n", published.version);
    for d in &published.diagnostics {
        let severity = match d.severity {
            Some(S::ERROR) => "error",
            Some(S::WARNING) => "warning",
            Some(S::INFORMATION) => "info",
            Some(S::HINT) => "hint",
            _ => "?",
        };
        let code = match &d.code {
            Some(NumberOrString::String(s)) => s.clone(),
            other => format!("{other:?}"),
        };
        out.push_str(&format!("\n{severity}[{code}] {}\n", range_label(text, &d.range)));
        for line in d.message.lines() {
            out.push_str(&format!("  | {line}\n"));
        }
        for related in d.related_information.iter().flatten() {
            out.push_str(&format!("  related {}: {}\n", range_label(text, &related.location.range), related.message));
        }
    }
    out
}

/// The markdown of a hover and the text its range covers.
pub fn render_hover(text: &str, hover: &Value) -> String {
    if hover.is_null() {
        return "null".into();
    }
    let hover: lsp_types::Hover = serde_json::from_value(hover.clone()).unwrap();
    let lsp_types::HoverContents::Markup(markup) = hover.contents else { panic!("not markup: {hover:?}") };
    let range = hover.range.map(|r| range_label(text, &r)).unwrap_or_default();
    format!("range: {range}\n{}\n", markup.value)
}
