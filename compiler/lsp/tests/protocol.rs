//! The server through the protocol, in process: what it publishes and answers for a few inputs, snapshotted in a
//! readable form (ranges shown with the text they cover), plus the document lifecycle and the debounce.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{render_diagnostics, render_hover, uri, Client};

const DIVERGENT_BARRIER: &str = "\
kernel k (out : int32 vector) =
  if thread_idx_x < 16 then Gpu.block_barrier
";

const SYNTAX_ERROR: &str = "\
kernel k (out : int32 vector) =
  let x = 1
  out.(global_idx) <- x
";

const MULTIPLE_ERRORS: &str = "\
kernel k (xs : float32 vector) (out : float32 vector) =
  let t = thread_idx_x in
  if t < 1 then Gpu.block_barrier;
  if t < 2 then Gpu.warp_barrier;
  out.(global_idx) <- missing + 1.0
";

const VARYING: &str = "\
(* Thread-varying through two bindings; block-uniform from block_idx_x. *)
kernel k (out : int32 vector) =
  let t = thread_idx_x in
  let u = t * 2 in
  let b = block_idx_x in
  if b < 4 then Gpu.block_barrier;
  if u < 16 then out.(global_idx) <- u
";

const CONDITIONAL_STORE: &str = "\
kernel running_max (xs : float32 vector) (m : float32 vector) =
  let i = global_thread_id in
  let x = xs.(i) in
  if x > m.(i) then m.(i) <- x
";

const EARLY_RETURN: &str = "\
kernel k (out : int32 vector) (n : int32) =
  if global_idx >= n then return;
  out.(global_idx) <- 1;
  Gpu.block_barrier;
  out.(global_idx) <- 2
";

/// Applies the text edits of a workspace edit for one document (edits do not overlap).
fn apply_edits(text: &str, edits: &[lsp_types::TextEdit]) -> String {
    let mut out = text.to_string();
    let mut edits: Vec<&lsp_types::TextEdit> = edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse((e.range.start.line, e.range.start.character)));
    for edit in edits {
        let covered = support::range_text(&out, &edit.range);
        let start = support::position_of(&out, &covered, 0);
        assert_eq!(start, serde_json::to_value(edit.range.start).unwrap(), "a unique edited text");
        out = out.replacen(&covered, &edit.new_text, 1);
    }
    out
}

#[test]
fn a_conditional_store_gets_a_select_quick_fix() {
    let mut client = Client::start();
    let published = client.open("max.sk", CONDITIONAL_STORE);
    let on_store = support::position_of(CONDITIONAL_STORE, "m.(i) <- x", 0);
    let params = json!({
        "textDocument": { "uri": uri("max.sk") },
        "range": { "start": on_store, "end": on_store },
        "context": { "diagnostics": [] },
    });
    let response = client.request("textDocument/codeAction", params);
    let actions: Vec<lsp_types::CodeAction> = serde_json::from_value(response.result.unwrap()).unwrap();
    let [fix] = actions.as_slice() else { panic!("{actions:?}") };
    let edits = &fix.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri("max.sk")];
    let fixed = apply_edits(CONDITIONAL_STORE, edits);
    let mut shown = render_diagnostics(CONDITIONAL_STORE, &published);
    shown.push_str(&format!("\naction: {} ({:?}, preferred: {:?})\n", fix.title, fix.kind, fix.is_preferred));
    for edit in edits {
        let covered = support::range_text(CONDITIONAL_STORE, &edit.range);
        shown.push_str(&format!("replace `{covered}`\n   with `{}`\n", edit.new_text));
    }
    shown.push_str(&format!("\nafter the fix:\n{fixed}"));
    insta::assert_snapshot!("conditional_store_quick_fix", shown);
    assert_eq!(fix.diagnostics.as_ref().unwrap()[0].code, Some(lsp_types::NumberOrString::String("W0101".into())));
    // The fixed text is clean, and a request away from the store offers nothing.
    client.change("max.sk", 2, &fixed);
    assert_eq!(client.next_diagnostics().diagnostics, vec![]);
    let first_line = json!({ "line": 0, "character": 0 });
    let params = json!({
        "textDocument": { "uri": uri("max.sk") },
        "range": { "start": first_line, "end": first_line },
        "context": { "diagnostics": [] },
    });
    assert_eq!(client.request("textDocument/codeAction", params).result, Some(json!([])));
    client.shutdown().unwrap();
}

/// A divergence error's edit is a quick fix too: the barrier after an early return gets the flag rewrite, which
/// leaves a file without diagnostics.
#[test]
fn an_early_return_gets_a_flag_quick_fix() {
    let mut client = Client::start();
    let published = client.open("early.sk", EARLY_RETURN);
    let on_barrier = support::position_of(EARLY_RETURN, "Gpu.block_barrier", 0);
    let params = json!({
        "textDocument": { "uri": uri("early.sk") },
        "range": { "start": on_barrier, "end": on_barrier },
        "context": { "diagnostics": [] },
    });
    let response = client.request("textDocument/codeAction", params);
    let actions: Vec<lsp_types::CodeAction> = serde_json::from_value(response.result.unwrap()).unwrap();
    let [fix] = actions.as_slice() else { panic!("{actions:?}") };
    let edits = &fix.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri("early.sk")];
    let fixed = apply_edits(EARLY_RETURN, edits);
    let mut shown = render_diagnostics(EARLY_RETURN, &published);
    shown.push_str(&format!("\naction: {} ({:?}, preferred: {:?})\n", fix.title, fix.kind, fix.is_preferred));
    for edit in edits {
        let covered = support::range_text(EARLY_RETURN, &edit.range);
        shown.push_str(&format!("replace `{covered}`\n   with `{}`\n", edit.new_text));
    }
    shown.push_str(&format!("\nafter the fix:\n{fixed}"));
    insta::assert_snapshot!("early_return_quick_fix", shown);
    assert_eq!(fix.diagnostics.as_ref().unwrap()[0].code, Some(lsp_types::NumberOrString::String("E0001".into())));
    client.change("early.sk", 2, &fixed);
    assert_eq!(client.next_diagnostics().diagnostics, vec![]);
    client.shutdown().unwrap();
}

#[test]
fn divergent_barrier_diagnostics() {
    let mut client = Client::start();
    let published = client.open("barrier.sk", DIVERGENT_BARRIER);
    assert_eq!(published.uri, uri("barrier.sk"));
    insta::assert_snapshot!("divergent_barrier", render_diagnostics(DIVERGENT_BARRIER, &published));
    let error = &published.diagnostics[0];
    assert_eq!(error.source.as_deref(), Some("skc"));
    // No link to a web page: the explanation is the `skc.explain` command's answer.
    assert_eq!(error.code_description, None);
    // Every secondary label comes back as a hint at its own span, with the same code.
    let related = error.related_information.as_ref().unwrap();
    let hints: Vec<_> = published.diagnostics[1..].iter().collect();
    assert_eq!(hints.len(), related.len());
    for (hint, info) in hints.iter().zip(related) {
        assert_eq!(hint.severity, Some(lsp_types::DiagnosticSeverity::HINT));
        assert_eq!((hint.range, &hint.message, &hint.code), (info.location.range, &info.message, &error.code));
    }
    client.shutdown().unwrap();
}

#[test]
fn syntax_error_diagnostics() {
    let mut client = Client::start();
    let published = client.open("syntax.sk", SYNTAX_ERROR);
    insta::assert_snapshot!("syntax_error", render_diagnostics(SYNTAX_ERROR, &published));
    client.shutdown().unwrap();
}

#[test]
fn multiple_error_diagnostics() {
    let mut client = Client::start();
    let published = client.open("multiple.sk", MULTIPLE_ERRORS);
    insta::assert_snapshot!("multiple_errors", render_diagnostics(MULTIPLE_ERRORS, &published));
    client.shutdown().unwrap();
}

#[test]
fn a_clean_file_publishes_no_diagnostics() {
    let mut client = Client::start();
    let published = client.open("varying.sk", VARYING);
    assert_eq!(published.diagnostics, vec![], "{}", render_diagnostics(VARYING, &published));
    client.shutdown().unwrap();
}

#[test]
fn hovers_show_type_and_uniformity() {
    let mut client = Client::start();
    client.open("varying.sk", VARYING);
    let mut out = String::new();
    let cases = [
        ("a use of a thread-varying variable", "u < 16", 0),
        ("its binder", "u = t", 0),
        ("the builtin it comes from", "thread_idx_x in", 3),
        ("a comparison", "< 16", 0),
        ("a block-uniform variable", "b < 4", 0),
        ("a barrier", "Gpu.block_barrier", 5),
        ("a parameter", "out :", 0),
        ("the kernel's name", "k (out", 0),
        ("a keyword", "let t", 1),
    ];
    for (what, needle, shift) in cases {
        let hover = client.at("textDocument/hover", "varying.sk", VARYING, needle, shift);
        out.push_str(&format!("## {what} (`{needle}` +{shift})\n{}\n", render_hover(VARYING, &hover)));
    }
    insta::assert_snapshot!("hovers", out);
    client.shutdown().unwrap();
}

#[test]
fn hover_columns_count_utf16() {
    let text = "(* é𝄞 *) kernel k (out : int32 vector) = let v = thread_idx_x in out.(v) <- v\n";
    let mut client = Client::start();
    client.open("utf16.sk", text);
    let hover = client.at("textDocument/hover", "utf16.sk", text, "v) <-", 0);
    let rendered = render_hover(text, &hover);
    // The range is decoded in UTF-16 by the test: a server counting bytes or characters would cover `)` or `.`.
    let column = support::position_of(text, "v) <-", 0)["character"].as_u64().unwrap() + 1;
    assert!(rendered.starts_with(&format!("range: 1:{column}-1:{} `v`", column + 1)), "{rendered}");
    assert!(rendered.contains("v : int32"), "{rendered}");
    client.shutdown().unwrap();
}

const DEFINITIONS: &str = "\
type point = { x : float32; y : float32 }
let scale = 2.0
let twice (v : float32) = v *. scale

kernel k (out : float32 vector) =
  let p = { x = 1.0; y = 2.0 } in
  let q = (p : point) in
  out.(global_idx) <- twice q.x
";

#[test]
fn go_to_definition() {
    let mut client = Client::start();
    client.open("defs.sk", DEFINITIONS);
    let mut out = String::new();
    for (what, needle) in [
        ("local", "p : point"),
        ("parameter", "v *."),
        ("constant", "scale\n"),
        ("function", "twice q"),
        ("record type", "point)"),
        ("field", "x\n"),
        ("builtin", "global_idx"),
    ] {
        let result = client.at("textDocument/definition", "defs.sk", DEFINITIONS, needle, 0);
        let rendered = match serde_json::from_value::<lsp_types::Location>(result.clone()) {
            Ok(location) => {
                assert_eq!(location.uri, uri("defs.sk"));
                let r = location.range;
                let text = support::range_text(DEFINITIONS, &r);
                format!("{}:{} `{text}`", r.start.line + 1, r.start.character + 1)
            }
            Err(_) => result.to_string(),
        };
        out.push_str(&format!("{what} (`{}`) -> {rendered}\n", needle.trim()));
    }
    insta::assert_snapshot!("definitions", out);
    client.shutdown().unwrap();
}

#[test]
fn document_symbols() {
    let mut client = Client::start();
    client.open("defs.sk", DEFINITIONS);
    let result = client.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": uri("defs.sk") } }));
    let symbols: Vec<lsp_types::DocumentSymbol> = serde_json::from_value(result.result.unwrap()).unwrap();
    let mut out = String::new();
    fn walk(symbols: &[lsp_types::DocumentSymbol], depth: usize, out: &mut String) {
        for s in symbols {
            let r = s.selection_range.start;
            let detail = s.detail.as_deref().unwrap_or("");
            out.push_str(&format!(
                "{}{} {:?} {detail} at {}:{}\n",
                "  ".repeat(depth),
                s.name,
                s.kind,
                r.line + 1,
                r.character + 1
            ));
            walk(s.children.as_deref().unwrap_or(&[]), depth + 1, out);
        }
    }
    walk(&symbols, 0, &mut out);
    insta::assert_snapshot!("symbols", out);
    client.shutdown().unwrap();
}

#[test]
fn changes_are_debounced_to_the_latest_version() {
    // Queue the whole burst before the server runs: one check, of version 6.
    let mut client = Client::unstarted();
    client.send_request("initialize", json!({ "capabilities": {} }));
    client.notify("initialized", json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri("burst.sk"), "languageId": "sk", "version": 1, "text": "" } }),
    );
    for version in 2..=6 {
        let text = if version == 6 { DIVERGENT_BARRIER } else { "kernel k (out : int32 vector) = ()" };
        client.change("burst.sk", version, text);
    }
    client.run_server();
    client.response(&lsp_server::RequestId::from(1));
    let published = client.next_diagnostics();
    assert_eq!(published.version, Some(6));
    assert_eq!(published.diagnostics[0].code, Some(lsp_types::NumberOrString::String("E0001".into())));
    assert!(client.next_notification(Duration::from_millis(400)).is_none(), "a superseded version was checked");
    client.shutdown().unwrap();
}

#[test]
fn an_edit_after_a_quiet_spell_is_checked_and_a_burst_ends_on_its_latest_version() {
    let mut client = Client::start();
    client.open("edit.sk", DIVERGENT_BARRIER);
    std::thread::sleep(skc_lsp::DEBOUNCE * 2);
    let fixed = DIVERGENT_BARRIER.replace("thread_idx_x", "block_idx_x");
    client.change("edit.sk", 2, &fixed);
    let published = client.next_diagnostics();
    assert_eq!((published.version, published.diagnostics.len()), (Some(2), 0));
    // Two edits in quick succession: the last one is checked (the first may be, if the machine is slow enough
    // that they are more than the debounce apart), and nothing after it.
    client.change("edit.sk", 3, DIVERGENT_BARRIER);
    client.change("edit.sk", 4, &fixed);
    let mut published = client.next_diagnostics();
    if published.version == Some(3) {
        published = client.next_diagnostics();
    }
    assert_eq!((published.version, published.diagnostics.len()), (Some(4), 0));
    assert!(client.next_notification(Duration::from_millis(300)).is_none());
    client.shutdown().unwrap();
}

#[test]
fn closing_clears_diagnostics() {
    let mut client = Client::start();
    assert!(!client.open("close.sk", DIVERGENT_BARRIER).diagnostics.is_empty());
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri("close.sk") } }));
    let published = client.next_diagnostics();
    assert_eq!((published.uri, published.diagnostics.len()), (uri("close.sk"), 0));
    client.shutdown().unwrap();
}

#[test]
fn a_half_typed_file_still_gets_diagnostics() {
    let mut client = Client::start();
    client.open("typing.sk", "");
    for (version, end) in (2..).zip([10, 25, 40, 55, DIVERGENT_BARRIER.len()]) {
        client.change("typing.sk", version, &DIVERGENT_BARRIER[..end]);
        let published = client.next_diagnostics();
        assert_eq!(published.version, Some(version));
        if end < DIVERGENT_BARRIER.len() - 20 {
            assert!(!published.diagnostics.is_empty(), "no diagnostic for {:?}", &DIVERGENT_BARRIER[..end]);
        }
    }
    client.shutdown().unwrap();
}

#[test]
fn modules_are_read_from_open_documents_first() {
    let mut client = Client::start();
    let helper = "let sync () = Gpu.block_barrier\n";
    client.open("helper.sk", helper);
    let main = "open Helper\nkernel k (out : int32 vector) =\n  if thread_idx_x < 3 then sync ()\n";
    let published = client.open("main.sk", main);
    assert!(
        published.diagnostics.iter().any(|d| d.message.contains("Barrier") || d.message.contains("barrier")),
        "{}",
        render_diagnostics(main, &published)
    );
    // The module changes in the editor (unsaved): the file that opens it is checked again.
    client.change("helper.sk", 2, "let sync () = ()\n");
    let mut republished = Vec::new();
    for _ in 0..2 {
        republished.push(client.next_diagnostics());
    }
    let main_again = republished.iter().find(|p| p.uri == uri("main.sk")).expect("main.sk was not rechecked");
    assert_eq!(main_again.diagnostics, vec![], "{}", render_diagnostics(main, main_again));
    // `open Helper` and `sync` lead into the module's file.
    for (needle, line) in [("Helper", 0), ("sync ()", 0)] {
        let location = client.at("textDocument/definition", "main.sk", main, needle, 0);
        assert_eq!(location["uri"], uri("helper.sk").as_str(), "{needle}");
        assert_eq!(location["range"]["start"]["line"], line, "{needle}");
    }
    client.shutdown().unwrap();
}
