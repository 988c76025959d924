//! What the server shows beyond diagnostics, through the protocol in process: the uniformity views (inlay hints,
//! semantic tokens) and their switches, the commands (`skc.explain`, `skc.showCuda`), explanation pages on
//! hover, and hovers on assignments.

mod support;

use serde_json::{json, Value};
use support::{position_of, render_hover, uri, Client};

const SPREADING: &str = "\
kernel k (xs : float32 vector) (out : float32 vector) (n : int32) =
  let b = block_idx_x in
  let w = warp_id in
  let t = thread_idx_x in
  let i = b * block_dim_x + t in
  let scale = float32 n in
  let acc = mut 0.0 in
  for j = 0 to 3 do
    if i < n then acc := acc +. xs.(i) *. scale
  done;
  let total = ref 0.0 in
  total := float32 w;
  if i < n then out.(i) <- acc +. !total
";

fn whole_file() -> Value {
    json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 100, "character": 0 } })
}

fn render_inlay_hints(text: &str, result: &Value) -> String {
    let hints: Vec<lsp_types::InlayHint> = serde_json::from_value(result.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for hint in hints {
        let lsp_types::InlayHintLabel::String(label) = &hint.label else { panic!("{hint:?}") };
        let line = lines[hint.position.line as usize];
        let (before, after) = line.split_at(hint.position.character as usize);
        let tooltip = match &hint.tooltip {
            Some(lsp_types::InlayHintTooltip::MarkupContent(m)) => m.value.replace('\n', " "),
            other => format!("{other:?}"),
        };
        out.push_str(&format!("{}:  {before}‹{label}›{after}\n      {tooltip}\n", hint.position.line + 1));
    }
    out
}

/// The decoded tokens: line, the text, type and modifiers.
fn render_semantic_tokens(text: &str, legend: &Value, result: &Value) -> String {
    let types: Vec<String> = serde_json::from_value(legend["tokenTypes"].clone()).unwrap();
    let modifiers: Vec<String> = serde_json::from_value(legend["tokenModifiers"].clone()).unwrap();
    let data: Vec<u32> = serde_json::from_value(result["data"].clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut column) = (0, 0);
    let mut out = String::new();
    for token in data.chunks(5) {
        line += token[0];
        column = if token[0] == 0 { column + token[1] } else { token[1] };
        let units: Vec<u16> = lines[line as usize].encode_utf16().collect();
        let name = String::from_utf16(&units[column as usize..(column + token[2]) as usize]).unwrap();
        let set: Vec<&str> =
            (0..modifiers.len()).filter(|b| token[4] & (1 << b) != 0).map(|b| modifiers[b].as_str()).collect();
        out.push_str(&format!("{}:{} {name} {} {}\n", line + 1, column + 1, types[token[3] as usize], set.join(",")));
    }
    out
}

#[test]
fn inlay_hints_and_semantic_tokens_show_uniformity() {
    let mut client = Client::spawn();
    let initialized = client.request("initialize", json!({ "capabilities": {} }));
    let legend = initialized.result.unwrap()["capabilities"]["semanticTokensProvider"]["legend"].clone();
    client.notify("initialized", json!({}));
    assert_eq!(client.open("spread.sk", SPREADING).diagnostics, vec![]);
    let hints = client.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri("spread.sk") }, "range": whole_file() }),
    );
    let mut out = format!("# inlay hints\n{}", render_inlay_hints(SPREADING, &hints.result.unwrap()));
    let tokens =
        client.request("textDocument/semanticTokens/full", json!({ "textDocument": { "uri": uri("spread.sk") } }));
    out.push_str(&format!(
        "\n# semantic tokens\n{}",
        render_semantic_tokens(SPREADING, &legend, &tokens.result.unwrap())
    ));
    insta::assert_snapshot!("uniformity_views", out);
    // A range: only the hints inside it.
    let range = json!({ "start": { "line": 2, "character": 0 }, "end": { "line": 3, "character": 99 } });
    let hints = client
        .request("textDocument/inlayHint", json!({ "textDocument": { "uri": uri("spread.sk") }, "range": range }));
    let hints: Vec<lsp_types::InlayHint> = serde_json::from_value(hints.result.unwrap()).unwrap();
    assert_eq!(hints.iter().map(|h| h.position.line).collect::<Vec<_>>(), [2, 3]);
    client.shutdown().unwrap();
}

#[test]
fn the_uniformity_views_can_be_turned_off_and_on() {
    let mut client = Client::spawn();
    let capabilities = json!({ "workspace": {
        "inlayHint": { "refreshSupport": true }, "semanticTokens": { "refreshSupport": true } } });
    let options = json!({ "inlayHints": false, "semanticTokens": { "enable": false } });
    client.request("initialize", json!({ "capabilities": capabilities, "initializationOptions": options }));
    client.notify("initialized", json!({}));
    client.open("spread.sk", SPREADING);
    let hints_params = json!({ "textDocument": { "uri": uri("spread.sk") }, "range": whole_file() });
    let tokens_params = json!({ "textDocument": { "uri": uri("spread.sk") } });
    let count = |client: &mut Client| {
        let hints = client.request("textDocument/inlayHint", hints_params.clone()).result.unwrap();
        let tokens = client.request("textDocument/semanticTokens/full", tokens_params.clone()).result.unwrap();
        (hints.as_array().unwrap().len(), tokens["data"].as_array().unwrap().len() / 5)
    };
    assert_eq!(count(&mut client), (0, 0), "off from the initialization options");
    // On again through the workspace configuration (VS Code's shape): the client is asked to refresh both.
    let settings =
        json!({ "settings": { "skc": { "inlayHints": { "enable": true }, "semanticTokens": { "enable": true } } } });
    client.notify("workspace/didChangeConfiguration", settings);
    let (hints, tokens) = count(&mut client);
    assert!(hints == 7 && tokens > 20, "{hints} hints, {tokens} tokens");
    let refreshes: Vec<String> = client.server_requests.drain(..).map(|r| r.method).collect();
    assert_eq!(refreshes, ["workspace/inlayHint/refresh", "workspace/semanticTokens/refresh"]);
    // Off again (Neovim's shape: the settings object itself), hints only.
    client.notify("workspace/didChangeConfiguration", json!({ "settings": { "inlayHints": false } }));
    assert_eq!(count(&mut client), (0, tokens));
    assert_eq!(client.server_requests.drain(..).map(|r| r.method).collect::<Vec<_>>(), ["workspace/inlayHint/refresh"]);
    client.shutdown().unwrap();
}

#[test]
fn hover_on_an_assignment_names_the_variable_and_its_level() {
    let mut client = Client::start();
    client.open("spread.sk", SPREADING);
    let mut out = String::new();
    for (what, needle) in [
        ("the target of `acc := ...`", "acc := acc"),
        ("a read of `acc`", "acc +. xs"),
        ("the binder of `acc`", "acc = mut"),
        ("the target of `total := ...`", "total := float32"),
        ("the binder of `scale`", "scale = float32"),
    ] {
        let hover = client.at("textDocument/hover", "spread.sk", SPREADING, needle, 0);
        out.push_str(&format!("## {what}\n{}\n", render_hover(SPREADING, &hover)));
    }
    insta::assert_snapshot!("assignment_hovers", out);
    client.shutdown().unwrap();
}

/// Writes through a `ref` parameter and through another name of a cell land in the caller's variable: the views
/// show the level the variable has after them (thread-varying for `x`, `r` and `q`, uniform again for `u` after
/// a uniform overwrite, warp-uniform for `a`), not the level it was declared with.
const THROUGH_NAMES: &str = "\
let set (p : int32 ref) = p := thread_idx_x

let keep (p : int32 ref) (v : int32) = p := v

kernel k (out : int32 vector) (n : int32) =
  let x = ref 0 in
  set x;
  let seen = !x in
  let r = ref 0 in
  let q = r in
  q := lane_id;
  let via_alias = !q in
  let u = ref thread_idx_x in
  keep u n;
  let overwritten = !u in
  let%local (a : int32) = 4 in
  a.(0) <- n;
  let b = a in
  b.(0) <- warp_id;
  let element = a.(0) in
  out.(global_idx) <- seen + via_alias + overwritten + element
";

#[test]
fn views_follow_writes_through_ref_parameters_and_other_names() {
    let mut client = Client::spawn();
    let initialized = client.request("initialize", json!({ "capabilities": {} }));
    let legend = initialized.result.unwrap()["capabilities"]["semanticTokensProvider"]["legend"].clone();
    client.notify("initialized", json!({}));
    assert_eq!(client.open("names.sk", THROUGH_NAMES).diagnostics, vec![]);
    let hints = client.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri("names.sk") }, "range": whole_file() }),
    );
    let mut out = format!("# inlay hints\n{}", render_inlay_hints(THROUGH_NAMES, &hints.result.unwrap()));
    let tokens =
        client.request("textDocument/semanticTokens/full", json!({ "textDocument": { "uri": uri("names.sk") } }));
    out.push_str(&format!(
        "\n# semantic tokens\n{}",
        render_semantic_tokens(THROUGH_NAMES, &legend, &tokens.result.unwrap())
    ));
    for (what, needle) in [
        ("the read of `x` after `set x`", "x in\n  let r"),
        ("the target of `q := lane_id`", "q := lane_id"),
        ("the read of `q` after it", "q in\n  let u"),
        ("the binder of `r`, written only through `q`", "r = ref"),
        ("the read of `u` after `keep u n`", "u in\n  let%local"),
        ("the read of `a` after the write through `b`", "a.(0) in"),
    ] {
        let hover = client.at("textDocument/hover", "names.sk", THROUGH_NAMES, needle, 0);
        out.push_str(&format!("## {what}\n{}\n", render_hover(THROUGH_NAMES, &hover)));
    }
    insta::assert_snapshot!("views_through_names", out);
    client.shutdown().unwrap();
}

const ALLOWED: &str = "\
let[@allow W0101] keep_max (m : float32 vector) (i : int32) (x : float32) =
  if x > m.(i) then m.(i) <- x
(* E0001 is the barrier error; E9999 is no code. *)
";

#[test]
fn explanation_pages_in_the_editor() {
    let mut client = Client::start();
    client.open("allowed.sk", ALLOWED);
    let hover = client.at("textDocument/hover", "allowed.sk", ALLOWED, "W0101", 2);
    let rendered = render_hover(ALLOWED, &hover);
    assert!(rendered.starts_with("range: 1:12-1:17 `W0101`\n# W0101: "), "{rendered}");
    let page = skc_core::explain::explain("W0101").unwrap();
    assert!(rendered.contains(page.body.trim_end()), "the whole page");
    let hover = client.at("textDocument/hover", "allowed.sk", ALLOWED, "E0001", 0);
    assert!(render_hover(ALLOWED, &hover).contains("# E0001: barrier in potentially diverged control flow"));
    assert_eq!(client.at("textDocument/hover", "allowed.sk", ALLOWED, "E9999 is", 0), Value::Null);
    // The command: the same page, as Markdown.
    let explained =
        client.request("workspace/executeCommand", json!({ "command": "skc.explain", "arguments": ["e0001"] }));
    let markdown = explained.result.unwrap();
    let page = skc_core::explain::explain("E0001").unwrap();
    // The page as `skc explain` has it (its text belongs to the compiler's tests), under a heading.
    assert_eq!(markdown.as_str().unwrap(), format!("# E0001: {}\n\n{}\n", page.title, page.body.trim_end()));
    for arguments in [json!(["e9999"]), json!([]), json!([7])] {
        let refused =
            client.request("workspace/executeCommand", json!({ "command": "skc.explain", "arguments": arguments }));
        assert_eq!(refused.error.map(|e| e.code), Some(lsp_server::ErrorCode::RequestFailed as i32), "{arguments}");
    }
    client.shutdown().unwrap();
}

const TWO_KERNELS: &str = "\
let twice (x : float32) : float32 = x *. 2.0

kernel first (out : float32 vector) =
  out.(global_idx) <- twice 1.0

kernel second (xs : float32 vector) (out : float32 vector) (n : int32) =
  let i = global_idx in
  if i < n then out.(i) <- twice xs.(i)
";

#[test]
fn show_cuda_emits_the_file_and_finds_the_kernel() {
    let mut client = Client::start();
    client.open("two.sk", TWO_KERNELS);
    let at_second = position_of(TWO_KERNELS, "if i < n", 0);
    let shown = client.request(
        "workspace/executeCommand",
        json!({ "command": "skc.showCuda", "arguments": [uri("two.sk"), at_second] }),
    );
    let shown = shown.result.unwrap();
    assert_eq!((shown["kernel"].as_str(), shown["language"].as_str()), (Some("second"), Some("cuda")));
    let source = shown["source"].as_str().unwrap();
    let line = source.lines().nth(shown["line"].as_u64().unwrap() as usize).unwrap();
    assert!(line.contains("__global__") && line.contains("second("), "{line}");
    // The same CUDA C as `skc emit` without `#line` directives.
    let checked = skc_core::check("/work/test/two.sk", TWO_KERNELS, &skc_core::NoModules, &Default::default());
    let options = skc_core::codegen::EmitOptions { line_directives: false, ..Default::default() };
    let emitted = skc_core::codegen::emit_cuda(&checked.module, &checked.types, &checked.sources, &options);
    assert_eq!(source, emitted.source);
    // The emitted text belongs to the emitter's tests; what this request adds is which kernel and where.
    let answer =
        json!({ "kernel": shown["kernel"], "line": shown["line"], "language": shown["language"], "header": line });
    insta::assert_snapshot!("show_cuda", serde_json::to_string_pretty(&answer).unwrap());
    // No position: the first kernel.
    let shown =
        client.request("workspace/executeCommand", json!({ "command": "skc.showCuda", "arguments": [uri("two.sk")] }));
    assert_eq!(shown.result.unwrap()["kernel"], "first");
    // A file with errors has no CUDA C; a document that is not open is an error too.
    client.change("two.sk", 2, "kernel k (out : int32 vector) =\n  if thread_idx_x < 1 then Gpu.block_barrier\n");
    client.next_diagnostics();
    for arguments in [json!([uri("two.sk")]), json!([uri("closed.sk")]), json!([])] {
        let refused =
            client.request("workspace/executeCommand", json!({ "command": "skc.showCuda", "arguments": arguments }));
        let error = refused.error.unwrap_or_else(|| panic!("{arguments}: no error"));
        assert_eq!(error.code, lsp_server::ErrorCode::RequestFailed as i32);
        if arguments == json!([uri("two.sk")]) {
            assert_eq!(error.message, "the file has 1 error: it has no CUDA C until they are fixed");
        }
    }
    let unknown = client.request("workspace/executeCommand", json!({ "command": "skc.frobnicate" }));
    assert!(unknown.error.is_some());
    let capabilities = client.request("shutdown", Value::Null);
    assert!(capabilities.error.is_none());
    client.notify("exit", Value::Null);
    client.join().unwrap();
}

#[test]
fn the_server_announces_its_commands_and_providers() {
    let mut client = Client::spawn();
    let result = client.request("initialize", json!({ "capabilities": {} })).result.unwrap();
    let capabilities = &result["capabilities"];
    assert_eq!(capabilities["executeCommandProvider"]["commands"], json!(["skc.explain", "skc.showCuda"]));
    for provider in [
        "completionProvider",
        "signatureHelpProvider",
        "referencesProvider",
        "documentHighlightProvider",
        "renameProvider",
        "inlayHintProvider",
        "semanticTokensProvider",
    ] {
        assert!(!capabilities[provider].is_null(), "no {provider}");
    }
    assert_eq!(capabilities["completionProvider"]["triggerCharacters"], json!(["."]));
    client.notify("initialized", json!({}));
    client.shutdown().unwrap();
}
