//! The requests the server answers once initialized: what it announces in `initialize` and one handler per
//! method, each a thin adapter from the protocol's parameters to a module that works on a checked document.

use std::collections::HashMap;

use lsp_server::{ErrorCode, Request, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability, CodeActionResponse,
    CompletionOptions, CompletionParams, CompletionResponse, DocumentHighlight, DocumentHighlightKind,
    DocumentHighlightParams, DocumentSymbolParams, DocumentSymbolResponse, ExecuteCommandOptions, ExecuteCommandParams,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverParams, HoverProviderCapability, InlayHint,
    InlayHintParams, Location, OneOf, PrepareRenameResponse, ReferenceParams, RenameOptions, RenameParams,
    SemanticTokens, SemanticTokensFullOptions, SemanticTokensOptions, SemanticTokensParams, SemanticTokensResult,
    SemanticTokensServerCapabilities, ServerCapabilities, SignatureHelp, SignatureHelpOptions, SignatureHelpParams,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind, Url, WorkspaceEdit,
};
use skc_core::Checked;

use crate::documents::{self, uri_of};
use crate::position::{offset_of, range_of};
use crate::references::{self, Access};
use crate::rename::{self, Program};
use crate::server::{error, Server};
use crate::{code_actions, commands, completion, definition, hover, signature_help, symbols, uniformity};

pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..CompletionOptions::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec![" ".into(), "(".into()]),
            retrigger_characters: None,
            work_done_progress_options: Default::default(),
        }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: uniformity::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: commands::all(),
            work_done_progress_options: Default::default(),
        }),
        ..ServerCapabilities::default()
    }
}

pub fn dispatch(server: &mut Server, request: Request) -> Response {
    match request.method.as_str() {
        "textDocument/hover" => server.on(request, hover_request),
        "textDocument/definition" => server.on(request, definition_request),
        "textDocument/references" => server.on(request, references_request),
        "textDocument/documentHighlight" => server.on(request, highlight_request),
        "textDocument/prepareRename" => server.on_fallible(request, prepare_rename_request),
        "textDocument/rename" => server.on_fallible(request, rename_request),
        "textDocument/documentSymbol" => server.on(request, document_symbols_request),
        "textDocument/completion" => server.on(request, completion_request),
        "textDocument/signatureHelp" => server.on(request, signature_help_request),
        "textDocument/inlayHint" => server.on(request, inlay_hint_request),
        "textDocument/semanticTokens/full" => server.on(request, semantic_tokens_request),
        "textDocument/codeAction" => server.on(request, code_action_request),
        "workspace/executeCommand" => server.on_fallible(request, execute_command_request),
        method => {
            let message = format!("`{method}` is not supported by skc lsp");
            error(request.id, ErrorCode::MethodNotFound, &message)
        }
    }
}

/// The checked document at a position, and the position's byte offset.
fn at<'s>(server: &'s mut Server, position: &TextDocumentPositionParams) -> Option<(&'s Checked, usize)> {
    let (checked, file) = server.checked(&position.text_document.uri)?;
    Some((checked, offset_of(file, position.position)))
}

fn hover_request(server: &mut Server, params: HoverParams) -> Option<Hover> {
    let (checked, offset) = at(server, &params.text_document_position_params)?;
    hover::hover(checked, offset)
}

fn definition_request(server: &mut Server, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let position = params.text_document_position_params;
    let (checked, offset) = at(server, &position)?;
    let location = definition::definition(checked, &position.text_document.uri, offset)?;
    Some(GotoDefinitionResponse::Scalar(location))
}

fn references_request(server: &mut Server, params: ReferenceParams) -> Option<Vec<Location>> {
    let position = params.text_document_position;
    let uri = position.text_document.uri.clone();
    let (checked, offset) = at(server, &position)?;
    let (symbol, _) = references::symbol_at(checked, offset)?;
    let occurrences = references::occurrences(checked, &symbol).into_iter();
    let wanted = occurrences.filter(|o| params.context.include_declaration || o.access != Access::Definition);
    let locations = wanted.filter_map(|o| {
        let file = checked.sources.file(o.span.file);
        let file_uri = if o.span.file == checked.root { uri.clone() } else { uri_of(&file.name)? };
        Some(Location { uri: file_uri, range: range_of(file, o.span) })
    });
    Some(locations.collect())
}

fn highlight_request(server: &mut Server, params: DocumentHighlightParams) -> Option<Vec<DocumentHighlight>> {
    let (checked, offset) = at(server, &params.text_document_position_params)?;
    let (symbol, _) = references::symbol_at(checked, offset)?;
    let file = checked.sources.file(checked.root);
    let in_root = references::occurrences(checked, &symbol).into_iter().filter(|o| o.span.file == checked.root);
    let highlights = in_root.map(|o| DocumentHighlight {
        range: range_of(file, o.span),
        kind: Some(match o.access {
            Access::Read => DocumentHighlightKind::READ,
            Access::Definition | Access::Write => DocumentHighlightKind::WRITE,
        }),
    });
    Some(highlights.collect())
}

fn prepare_rename_request(
    server: &mut Server,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, String> {
    let Some((checked, offset)) = at(server, &params) else { return Ok(None) };
    let file = checked.sources.file(checked.root);
    Ok(rename::prepare(checked, offset)?.map(|span| PrepareRenameResponse::Range(range_of(file, span))))
}

fn rename_request(server: &mut Server, params: RenameParams) -> Result<Option<WorkspaceEdit>, String> {
    let position = params.text_document_position;
    let uri = position.text_document.uri.clone();
    let Some((_, offset)) = at(server, &position) else { return Ok(None) };
    // Every other open document, checked at its current version: those whose program includes the renamed
    // item's file are edited too.
    let others: Vec<Url> = server.documents.uris().into_iter().filter(|u| *u != uri).collect();
    for other in &others {
        server.checked(other);
    }
    let server = &*server;
    let root =
        Program { uri: &uri, checked: server.documents.get(&uri).and_then(|d| d.current()).ok_or("not checked")? };
    let programs: Vec<Program> =
        others.iter().filter_map(|u| Some(Program { uri: u, checked: server.documents.get(u)?.current()? })).collect();
    let recheck = |uri: &Url, texts: &HashMap<String, String>| {
        documents::check_edited(&server.documents, &server.search_path, uri, texts)
    };
    rename::rename(&root, &programs, offset, &params.new_name, &recheck)
}

fn document_symbols_request(server: &mut Server, params: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
    let (checked, _) = server.checked(&params.text_document.uri)?;
    Some(DocumentSymbolResponse::Nested(symbols::document_symbols(checked)))
}

fn completion_request(server: &mut Server, params: CompletionParams) -> Option<CompletionResponse> {
    let (checked, offset) = at(server, &params.text_document_position)?;
    Some(CompletionResponse::Array(completion::completions(checked, offset)))
}

fn signature_help_request(server: &mut Server, params: SignatureHelpParams) -> Option<SignatureHelp> {
    let (checked, offset) = at(server, &params.text_document_position_params)?;
    signature_help::signature_help(checked, offset)
}

fn inlay_hint_request(server: &mut Server, params: InlayHintParams) -> Option<Vec<InlayHint>> {
    if !server.settings.inlay_hints {
        return Some(Vec::new());
    }
    let (checked, _) = server.checked(&params.text_document.uri)?;
    Some(uniformity::inlay_hints(checked, params.range))
}

fn semantic_tokens_request(server: &mut Server, params: SemanticTokensParams) -> Option<SemanticTokensResult> {
    if !server.settings.semantic_tokens {
        return Some(SemanticTokensResult::Tokens(SemanticTokens::default()));
    }
    let (checked, _) = server.checked(&params.text_document.uri)?;
    Some(SemanticTokensResult::Tokens(uniformity::semantic_tokens(checked)))
}

/// The quick fixes in the requested range. A divergence error's edit is attached to its diagnostic unchecked (a
/// check of the edited file for each would cost every keystroke several checks): it is offered only if the edited
/// file, checked now, has fewer errors of its code and no new one.
fn code_action_request(server: &mut Server, params: CodeActionParams) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    server.checked(&uri)?;
    let server = &*server;
    let checked = server.documents.get(&uri)?.current()?;
    let file_name = server.documents.get(&uri)?.file_name.clone();
    let text = &checked.sources.file(checked.root).text;
    let mut fixes_its_error = |diagnostic: &skc_core::Diagnostic| {
        let Some(suggestion) = diagnostic.suggestion.as_ref().filter(|_| diagnostic.is_error()) else { return true };
        let mut edited = text.clone();
        edited.replace_range(suggestion.span.range(), &suggestion.replacement);
        let texts = HashMap::from([(file_name.clone(), edited)]);
        documents::check_edited(&server.documents, &server.search_path, &uri, &texts).is_some_and(|after| {
            skc_core::driver::fixes_its_error(diagnostic.code, &checked.diagnostics, &after.diagnostics)
        })
    };
    Some(code_actions::quick_fixes(checked, &uri, params.range, &mut fixes_its_error))
}

fn execute_command_request(server: &mut Server, params: ExecuteCommandParams) -> Result<serde_json::Value, String> {
    match params.command.as_str() {
        commands::EXPLAIN => commands::explain(&params.arguments),
        commands::SHOW_CUDA => {
            let uri = params.arguments.first().and_then(|u| u.as_str()).and_then(|u| Url::parse(u).ok());
            let uri = uri.ok_or("`skc.showCuda` takes the URI of an open document")?;
            let position = params.arguments.get(1).and_then(|p| serde_json::from_value(p.clone()).ok());
            let (checked, file) = server.checked(&uri).ok_or_else(|| format!("{uri} is not open"))?;
            commands::show_cuda(checked, position.map(|p| offset_of(file, p)))
        }
        command => Err(format!("`{command}` is not a command of skc lsp")),
    }
}
