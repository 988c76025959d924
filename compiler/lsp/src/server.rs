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
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability, CodeActionResponse,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, DocumentSymbolParams,
    DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverParams, HoverProviderCapability,
    InitializeParams, InitializeResult, OneOf, PublishDiagnosticsParams, ServerCapabilities, ServerInfo,
    TextDocumentContentChangeEvent, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use skc_core::session::SearchPath;
use skc_core::source::SourceFile;

use crate::documents::{self, Documents};
use crate::position::offset_of;
use crate::{code_actions, definition, diagnostics, hover, symbols, ServerError};

/// How long edits must pause before a document in a burst of edits is checked again.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShuttingDown,
}

struct Server<'c> {
    connection: &'c Connection,
    phase: Phase,
    documents: Documents,
    search_path: SearchPath,
    /// Documents waiting to be checked, and from when.
    pending: HashMap<Url, Instant>,
    last_edit: HashMap<Url, Instant>,
}

/// Serves one client on `connection` until it sends `exit`: `Ok` after `shutdown` then `exit`.
pub fn run(connection: Connection) -> Result<(), ServerError> {
    let mut server = Server {
        connection: &connection,
        phase: Phase::Uninitialized,
        documents: Documents::default(),
        search_path: documents::search_path(&[]),
        pending: HashMap::new(),
        last_edit: HashMap::new(),
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
            // The server sends no requests, so expects no responses.
            Message::Response(_) => None,
        }
    }

    fn send(&self, message: Message) {
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
        match request.method.as_str() {
            "textDocument/hover" => self.on(request, Server::hover),
            "textDocument/definition" => self.on(request, Server::definition),
            "textDocument/documentSymbol" => self.on(request, Server::document_symbols),
            "textDocument/codeAction" => self.on(request, Server::code_actions),
            method => {
                let message = format!("`{method}` is not supported by skc lsp");
                error(request.id, ErrorCode::MethodNotFound, &message)
            }
        }
    }

    /// Decodes a request's parameters and answers with what `handler` returns.
    fn on<P: DeserializeOwned, R: Serialize>(&mut self, request: Request, handler: fn(&mut Self, P) -> R) -> Response {
        match serde_json::from_value::<P>(request.params) {
            Ok(params) => Response::new_ok(request.id, handler(self, params)),
            Err(e) => error(request.id, ErrorCode::InvalidParams, &format!("invalid parameters: {e}")),
        }
    }

    fn handle_notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            "textDocument/didOpen" => decode(notification, |p| self.did_open(p)),
            "textDocument/didChange" => decode(notification, |p| self.did_change(p)),
            "textDocument/didClose" => decode(notification, |p| self.did_close(p)),
            // Known and nothing to do: the handshake's end, saves (the text came with the changes), cancellation
            // (requests are answered in order, at once), configuration.
            "initialized"
            | "textDocument/didSave"
            | "$/cancelRequest"
            | "$/setTrace"
            | "workspace/didChangeConfiguration"
            | "workspace/didChangeWatchedFiles" => {}
            _ => {}
        }
    }

    fn initialize(&mut self, params: InitializeParams) -> InitializeResult {
        self.phase = Phase::Running;
        let options = params.initialization_options.unwrap_or_default();
        if let Some(paths) = options.get("includePaths").and_then(|p| p.as_array()) {
            let include: Vec<PathBuf> = paths.iter().filter_map(|p| p.as_str()).map(PathBuf::from).collect();
            self.search_path = documents::search_path(&include);
        }
        InitializeResult {
            capabilities: capabilities(),
            server_info: Some(ServerInfo { name: "skc".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        }
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
    fn checked(&mut self, uri: &Url) -> Option<(&skc_core::Checked, &SourceFile)> {
        let stale = self.documents.get(uri)?.current().is_none();
        if stale {
            self.check_now(uri);
        }
        let checked = self.documents.get(uri)?.current()?;
        Some((checked, checked.sources.file(checked.root)))
    }

    fn hover(&mut self, params: HoverParams) -> Option<Hover> {
        let position = params.text_document_position_params;
        let (checked, file) = self.checked(&position.text_document.uri)?;
        hover::hover(checked, offset_of(file, position.position))
    }

    fn definition(&mut self, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
        let position = params.text_document_position_params;
        let uri = position.text_document.uri;
        let (checked, file) = self.checked(&uri)?;
        let location = definition::definition(checked, &uri, offset_of(file, position.position))?;
        Some(GotoDefinitionResponse::Scalar(location))
    }

    fn document_symbols(&mut self, params: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
        let (checked, _) = self.checked(&params.text_document.uri)?;
        Some(DocumentSymbolResponse::Nested(symbols::document_symbols(checked)))
    }
}

impl Server<'_> {
    fn code_actions(&mut self, params: CodeActionParams) -> Option<CodeActionResponse> {
        let uri = params.text_document.uri;
        let (checked, _) = self.checked(&uri)?;
        Some(code_actions::quick_fixes(checked, &uri, params.range))
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

fn error(id: RequestId, code: ErrorCode, message: &str) -> Response {
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
