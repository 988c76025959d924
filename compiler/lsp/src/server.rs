//! The protocol loop: the `initialize` handshake, dispatch of requests and notifications, and the debounced
//! checking of changed documents. One thread does everything; a check of a document is fast enough (a few
//! milliseconds for thousands of lines) that requests never wait long behind one.
//!
//! Debounce: an edit that follows a quiet spell (no edit to that document in the last [`DEBOUNCE`]) is checked
//! as soon as the messages already queued are handled; an edit that follows another within [`DEBOUNCE`] waits
//! until edits pause for [`DEBOUNCE`], so a burst of keystrokes is checked once, at its latest version. The wait
//! is the main loop's `recv_deadline`, not a timer thread.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    ClientCapabilities, DidChangeConfigurationParams, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, InitializeParams, InitializeResult, PublishDiagnosticsParams, ServerInfo,
    TextDocumentContentChangeEvent, Url,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use skc_core::session::SearchPath;
use skc_core::source::SourceFile;

use crate::documents::{self, Documents};
use crate::position::offset_of;
use crate::settings::Settings;
use crate::{diagnostics, requests, ServerError};

/// How long edits must pause before a document in a burst of edits is checked again.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShuttingDown,
}

pub(crate) struct Server<'c> {
    connection: &'c Connection,
    phase: Phase,
    pub(crate) documents: Documents,
    pub(crate) search_path: SearchPath,
    pub(crate) settings: Settings,
    /// What the client said it can do (whether it takes refresh requests).
    client: ClientCapabilities,
    /// Documents waiting to be checked, and from when.
    pending: HashMap<Url, Instant>,
    last_edit: HashMap<Url, Instant>,
    /// Ids of the requests the server sends (their responses are not needed and are dropped).
    next_request: i32,
}

/// Serves one client on `connection` until it sends `exit`: `Ok` after `shutdown` then `exit`.
pub fn run(connection: Connection) -> Result<(), ServerError> {
    let mut server = Server {
        connection: &connection,
        phase: Phase::Uninitialized,
        documents: Documents::default(),
        search_path: documents::search_path(&[]),
        settings: Settings::default(),
        client: ClientCapabilities::default(),
        pending: HashMap::new(),
        last_edit: HashMap::new(),
        next_request: 0,
    };
    server.main_loop()
}

impl Server<'_> {
    fn main_loop(&mut self) -> Result<(), ServerError> {
        let receiver = &self.connection.receiver;
        loop {
            let message = match self.pending.values().min().copied() {
                Some(deadline) => match receiver.recv_deadline(deadline) {
                    Ok(message) => Some(message),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Err(ServerError::Disconnected),
                },
                None => Some(receiver.recv().map_err(|_| ServerError::Disconnected)?),
            };
            if let Some(message) = message {
                if let Some(end) = self.handle(message) {
                    return end;
                }
                // Edits already queued supersede the ones just handled; check once they are all in.
                if !receiver.is_empty() && !self.overdue() {
                    continue;
                }
            }
            self.check_due();
        }
    }

    /// Handles one message; `Some` when the session is over.
    fn handle(&mut self, message: Message) -> Option<Result<(), ServerError>> {
        match message {
            Message::Request(request) => {
                let response = self.handle_request(request);
                self.send(response.into());
                None
            }
            Message::Notification(notification) if notification.method == "exit" => {
                Some(if self.phase == Phase::ShuttingDown { Ok(()) } else { Err(ServerError::ExitWithoutShutdown) })
            }
            Message::Notification(notification) => {
                if self.phase == Phase::Running {
                    let method = notification.method.clone();
                    if catch_unwind(AssertUnwindSafe(|| self.handle_notification(notification))).is_err() {
                        eprintln!("skc lsp: internal error while handling `{method}`; the notification was dropped");
                    }
                }
                None
            }
            // The server's requests are refreshes: their answers say nothing it needs.
            Message::Response(_) => None,
        }
    }

    pub(crate) fn send(&self, message: Message) {
        // A closed connection ends the loop at the next receive; nothing to do here.
        let _ = self.connection.sender.send(message);
    }

    fn handle_request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        match (self.phase, request.method.as_str()) {
            (Phase::Uninitialized, "initialize") => self.on(request, Server::initialize),
            (Phase::Uninitialized, _) => {
                error(id, ErrorCode::ServerNotInitialized, "the server is not initialized yet")
            }
            (Phase::ShuttingDown, _) => error(id, ErrorCode::InvalidRequest, "the server is shutting down"),
            (Phase::Running, "initialize") => error(id, ErrorCode::InvalidRequest, "the server is already initialized"),
            (Phase::Running, "shutdown") => {
                self.phase = Phase::ShuttingDown;
                Response::new_ok(id, ())
            }
            (Phase::Running, method) => {
                let method = method.to_string();
                match catch_unwind(AssertUnwindSafe(|| self.dispatch(request))) {
                    Ok(response) => response,
                    Err(_) => {
                        eprintln!("skc lsp: internal error while handling `{method}`");
                        error(id, ErrorCode::InternalError, &format!("internal error while handling `{method}`"))
                    }
                }
            }
        }
    }

    fn dispatch(&mut self, request: Request) -> Response {
        requests::dispatch(self, request)
    }

    /// Decodes a request's parameters and answers with what `handler` returns.
    pub(crate) fn on<P: DeserializeOwned, R: Serialize>(
        &mut self,
        request: Request,
        handler: fn(&mut Self, P) -> R,
    ) -> Response {
        self.on_fallible(request, |server, params| Ok(handler(server, params)))
    }

    /// [`Server::on`] for a handler that may refuse (its sentence becomes a `RequestFailed` error).
    pub(crate) fn on_fallible<P: DeserializeOwned, R: Serialize>(
        &mut self,
        request: Request,
        handler: impl FnOnce(&mut Self, P) -> Result<R, String>,
    ) -> Response {
        match serde_json::from_value::<P>(request.params) {
            Ok(params) => match handler(self, params) {
                Ok(result) => Response::new_ok(request.id, result),
                Err(why) => error(request.id, ErrorCode::RequestFailed, &why),
            },
            Err(e) => error(request.id, ErrorCode::InvalidParams, &format!("invalid parameters: {e}")),
        }
    }

    fn handle_notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            "textDocument/didOpen" => decode(notification, |p| self.did_open(p)),
            "textDocument/didChange" => decode(notification, |p| self.did_change(p)),
            "textDocument/didClose" => decode(notification, |p| self.did_close(p)),
            "workspace/didChangeConfiguration" => decode(notification, |p| self.did_change_configuration(p)),
            // Known and nothing to do: the handshake's end, saves (the text came with the changes), cancellation
            // (requests are answered in order, at once).
            "initialized"
            | "textDocument/didSave"
            | "$/cancelRequest"
            | "$/setTrace"
            | "workspace/didChangeWatchedFiles" => {}
            _ => {}
        }
    }

    fn initialize(&mut self, params: InitializeParams) -> InitializeResult {
        self.phase = Phase::Running;
        if let Some(options) = &params.initialization_options {
            self.configure(options);
        }
        self.client = params.capabilities;
        InitializeResult {
            capabilities: requests::capabilities(),
            server_info: Some(ServerInfo { name: "skc".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        }
    }

    fn configure(&mut self, value: &serde_json::Value) {
        self.settings.update(value);
        self.search_path = documents::search_path(&self.settings.include_paths);
    }

    /// New settings: modules may resolve differently (every document is checked again), and the uniformity views
    /// are asked for again where the client can be told to.
    fn did_change_configuration(&mut self, params: DidChangeConfigurationParams) {
        let before = self.settings.clone();
        self.configure(&params.settings);
        if self.settings.include_paths != before.include_paths {
            for uri in self.documents.uris() {
                self.schedule(uri);
            }
        }
        let workspace = self.client.workspace.as_ref();
        let inlay_refresh = workspace.and_then(|w| w.inlay_hint.as_ref()).and_then(|c| c.refresh_support);
        let tokens_refresh = workspace.and_then(|w| w.semantic_tokens.as_ref()).and_then(|c| c.refresh_support);
        if self.settings.inlay_hints != before.inlay_hints && inlay_refresh == Some(true) {
            self.send_request("workspace/inlayHint/refresh");
        }
        if self.settings.semantic_tokens != before.semantic_tokens && tokens_refresh == Some(true) {
            self.send_request("workspace/semanticTokens/refresh");
        }
    }

    fn send_request(&mut self, method: &str) {
        self.next_request += 1;
        let id = RequestId::from(format!("skc-{}", self.next_request));
        self.send(Request::new(id, method.to_string(), serde_json::Value::Null).into());
    }

    fn did_open(&mut self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        self.documents.open(document.uri.clone(), document.version, document.text);
        self.schedule_with_dependents(&document.uri);
    }

    fn did_change(&mut self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let Some(document) = self.documents.get(&uri) else {
            eprintln!("skc lsp: ignoring a change to {uri}, which is not open");
            return;
        };
        let mut text = document.text.clone();
        for change in params.content_changes {
            apply_change(&mut text, change);
        }
        self.documents.change(&uri, params.text_document.version, text);
        self.schedule_with_dependents(&uri);
    }

    fn did_close(&mut self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.pending.remove(&uri);
        self.last_edit.remove(&uri);
        if let Some(document) = self.documents.close(&uri) {
            for dependent in self.documents.dependents_of(&document.file_name) {
                self.schedule(dependent);
            }
        }
        self.publish(uri, Vec::new(), None);
    }

    /// Schedules a check of `uri` and of every open document that read it as a module.
    fn schedule_with_dependents(&mut self, uri: &Url) {
        let file_name = documents::file_name_of(uri);
        for dependent in self.documents.dependents_of(&file_name) {
            self.schedule(dependent);
        }
        self.schedule(uri.clone());
    }

    fn schedule(&mut self, uri: Url) {
        let now = Instant::now();
        let in_burst = self.last_edit.get(&uri).is_some_and(|last| now.duration_since(*last) < DEBOUNCE);
        self.pending.insert(uri.clone(), if in_burst { now + DEBOUNCE } else { now });
        self.last_edit.insert(uri, now);
    }

    /// True when a check has waited a whole [`DEBOUNCE`] past its time (a flood of messages must not starve it).
    fn overdue(&self) -> bool {
        let now = Instant::now();
        self.pending.values().any(|deadline| now.saturating_duration_since(*deadline) > DEBOUNCE)
    }

    fn check_due(&mut self) {
        let now = Instant::now();
        let due: Vec<Url> = self.pending.iter().filter(|(_, d)| **d <= now).map(|(u, _)| u.clone()).collect();
        for uri in due {
            self.check_now(&uri);
        }
    }

    /// Checks the current text of `uri` and publishes its diagnostics.
    fn check_now(&mut self, uri: &Url) {
        self.pending.remove(uri);
        let (documents, search_path) = (&self.documents, &self.search_path);
        let result = catch_unwind(AssertUnwindSafe(|| {
            let (version, checked) = documents::check(documents, search_path, uri)?;
            let diagnostics = diagnostics::to_lsp(&checked, uri);
            Some((version, checked, diagnostics))
        }));
        match result {
            Ok(Some((version, checked, diagnostics))) => {
                if let Some(document) = self.documents.get_mut(uri) {
                    document.checked = Some(checked);
                    document.checked_version = Some(version);
                }
                self.publish(uri.clone(), diagnostics, Some(version));
            }
            Ok(None) => {}
            Err(_) => eprintln!("skc lsp: internal error while checking {uri}; its diagnostics were not updated"),
        }
    }

    fn publish(&self, uri: Url, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams { uri, diagnostics, version };
        self.send(Notification::new("textDocument/publishDiagnostics".into(), params).into());
    }

    /// The checked current version of `uri` (checking it now if an edit is waiting) and its root file.
    pub(crate) fn checked(&mut self, uri: &Url) -> Option<(&skc_core::Checked, &SourceFile)> {
        let stale = self.documents.get(uri)?.current().is_none();
        if stale {
            self.check_now(uri);
        }
        let checked = self.documents.get(uri)?.current()?;
        Some((checked, checked.sources.file(checked.root)))
    }
}

pub(crate) fn error(id: RequestId, code: ErrorCode, message: &str) -> Response {
    Response::new_err(id, code as i32, message.to_string())
}

/// Decodes a notification's parameters and hands them to `handler`; malformed ones are logged and dropped.
fn decode<P: DeserializeOwned>(notification: Notification, handler: impl FnOnce(P)) {
    match serde_json::from_value::<P>(notification.params) {
        Ok(params) => handler(params),
        Err(e) => eprintln!("skc lsp: ignoring `{}` with invalid parameters: {e}", notification.method),
    }
}

/// Applies one change: the whole text (what the server asks for), or a range edit (accepted all the same).
fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let file = SourceFile::new("", std::mem::take(text));
            let start = offset_of(&file, range.start);
            let end = offset_of(&file, range.end).max(start);
            let mut edited = file.text;
            edited.replace_range(start..end, &change.text);
            *text = edited;
        }
    }
}
