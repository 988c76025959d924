//! The requests that help write code, through the protocol in process: completion, signature help, references,
//! document highlight and rename, each snapshotted in a readable form.

mod support;

use serde_json::{json, Value};
use support::{range_label, render_hover, uri, Client};

const PROGRAM: &str = "\
type point = { x : float32; y : float32 }
let scale = 2.0
let twice (v : float32) : float32 = v *. scale

kernel k (xs : float32 vector) (out : float32 vector) (n : int32) =
  let (p : point) = { x = 1.0; y = 2.0 } in
  let t = thread_idx_x in
  let i = block_idx_x * block_dim_x + t in
  let acc = mut 0.0 in
  if i < n then acc := xs.(i);
  acc := acc +. twice p.x;
  out.(i) <- Gpu.shfl_down acc 1
";

/// One line per completion item: label, kind, detail, description; builtins only when `builtins` is set.
fn render_completions(result: &Value, builtins: bool) -> String {
    let items: Vec<lsp_types::CompletionItem> = serde_json::from_value(result.clone()).unwrap();
    let mut out = String::new();
    for item in items {
        let description = item.label_details.as_ref().and_then(|d| d.description.clone()).unwrap_or_default();
        let is_builtin = item.sort_text.as_deref().is_some_and(|s| s.starts_with('2'));
        let is_keyword = item.kind == Some(lsp_types::CompletionItemKind::KEYWORD);
        if (is_builtin && !builtins) || is_keyword {
            continue;
        }
        let detail = item.detail.unwrap_or_default();
        out.push_str(&format!("{} ({:?}) {detail} [{description}]\n", item.label, item.kind.unwrap()));
        if let Some(lsp_types::Documentation::MarkupContent(doc)) = &item.documentation {
            for line in doc.value.lines().filter(|l| !l.is_empty()) {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    out
}

/// Completion at the end of `prefix`, typed as a new line before the last line of the kernel.
fn complete_while_typing(client: &mut Client, version: i32, prefix: &str) -> (String, Value) {
    let last = "  out.(i) <- Gpu.shfl_down acc 1\n";
    let text = PROGRAM.replace(last, &format!("  {prefix}"));
    client.change("prog.sk", version, &text);
    let response = client.at_with("textDocument/completion", "prog.sk", &text, prefix, prefix.len(), json!({}));
    assert!(response.error.is_none(), "{response:?}");
    (text, response.result.unwrap())
}

#[test]
fn completion_offers_locals_items_fields_and_module_members() {
    let mut client = Client::start();
    let published = client.open("prog.sk", PROGRAM);
    assert_eq!(published.diagnostics, vec![]);
    let mut out = String::new();
    // A name at the start of a statement: locals in scope (innermost first, with type and uniformity), items.
    let (_, result) = complete_while_typing(&mut client, 2, "out.(i) <- a");
    out.push_str(&format!("## names\n{}", render_completions(&result, false)));
    let items: Vec<lsp_types::CompletionItem> = serde_json::from_value(result).unwrap();
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    for wanted in ["thread_idx_x", "block_barrier", "shfl_down", "let", "done"] {
        assert!(labels.contains(&wanted), "no `{wanted}` in {labels:?}");
    }
    // A builtin's item carries its type, its convergence requirement and its doc.
    let barrier = items.iter().find(|i| i.label == "block_barrier").unwrap();
    out.push_str(&format!("\n## a builtin\n{}", render_completions(&serde_json::to_value([barrier]).unwrap(), true)));
    // After `p.`: the fields of `point`.
    let (_, result) = complete_while_typing(&mut client, 3, "out.(i) <- p.");
    out.push_str(&format!("\n## fields after `p.`\n{}", render_completions(&result, false)));
    // After `Gpu.`: the builtins (a few shown).
    let (_, result) = complete_while_typing(&mut client, 4, "Gpu.sh");
    let members: Vec<lsp_types::CompletionItem> = serde_json::from_value(result).unwrap();
    assert!(members.iter().all(|m| m.sort_text.as_deref().is_some_and(|s| s.starts_with('2'))), "only builtins");
    let shuffles: Vec<_> = members.iter().filter(|m| m.label.starts_with("shfl")).collect();
    out.push_str(&format!(
        "\n## after `Gpu.sh`\n{}",
        render_completions(&serde_json::to_value(shuffles).unwrap(), true)
    ));
    insta::assert_snapshot!("completion", out);
    client.shutdown().unwrap();
}

#[test]
fn completion_after_a_module_name_lists_the_module_items() {
    let mut client = Client::start();
    client.open("helpers.sk", "let halve (x : float32) : float32 = x *. 0.5\nlet limit = 8\n");
    let main = "open Helpers\nkernel k (out : float32 vector) =\n  out.(0) <- Helpers.\n";
    client.open("main.sk", main);
    let response = client.at_with("textDocument/completion", "main.sk", main, "Helpers.\n", 8, json!({}));
    let rendered = render_completions(&response.result.unwrap(), true);
    insta::assert_snapshot!("completion_module_members", rendered);
    client.shutdown().unwrap();
}

#[test]
fn an_instance_is_completed_and_hovered_under_its_written_names() {
    let mut client = Client::start();
    let helpers = "let[@param] factor : float32 = 0.5\nlet scale (x : float32) : float32 = x *. factor\n";
    client.open("helpers.sk", helpers);
    let main = "open Helpers (factor = 2.0) as Twice\nopen Helpers\n\
                kernel k (out : float32 vector) =\n  out.(0) <- Twice.scale (scale 1.0) +. Twice.\n";
    client.open("main.sk", main);
    let mut out = String::from("## after `Twice.`\n");
    let response = client.at_with("textDocument/completion", "main.sk", main, "Twice.\n", 6, json!({}));
    out.push_str(&render_completions(&response.result.unwrap(), false));
    out.push_str("\n## a bare name (no `Twice_scale`)\n");
    let response = client.at_with("textDocument/completion", "main.sk", main, "scale 1.0", 0, json!({}));
    out.push_str(&render_completions(&response.result.unwrap(), false));
    let main = "open Helpers (factor = 2.0) as Twice\nopen Helpers\n\
                kernel k (out : float32 vector) =\n  out.(0) <- Twice.scale (scale 1.0)\n";
    client.change("main.sk", 2, main);
    for (what, needle, shift) in [("`Twice.scale`", "Twice.scale", 7), ("the shared `scale`", "scale 1.0", 1)] {
        let response = client.at_with("textDocument/hover", "main.sk", main, needle, shift, json!({}));
        out.push_str(&format!("\n## hover on {what}\n{}\n", render_hover(main, &response.result.unwrap())));
    }
    insta::assert_snapshot!("instance_completion_and_hover", out);
    client.shutdown().unwrap();
}

#[test]
fn signature_help_for_builtins_and_functions() {
    let mut client = Client::start();
    client.open("prog.sk", PROGRAM);
    let mut out = String::new();
    let cases = [
        ("a builtin, first argument", "acc 1", 0),
        ("a builtin, second argument", "1\n", 0),
        ("a device function", "p.x;", 0),
        ("not in a call", "let t", 0),
    ];
    for (what, needle, shift) in cases {
        let response = client.at_with("textDocument/signatureHelp", "prog.sk", PROGRAM, needle, shift, json!({}));
        let result = response.result.unwrap_or(Value::Null);
        out.push_str(&format!("## {what} (`{}` +{shift})\n", needle.trim()));
        if result.is_null() {
            out.push_str("null\n");
            continue;
        }
        let help: lsp_types::SignatureHelp = serde_json::from_value(result).unwrap();
        let signature = &help.signatures[0];
        let active = help.active_parameter.unwrap() as usize;
        let parameters = signature.parameters.as_ref().unwrap();
        let lsp_types::ParameterLabel::LabelOffsets([start, end]) = parameters[active].label else { panic!() };
        let label_utf16: Vec<u16> = signature.label.encode_utf16().collect();
        let marked = String::from_utf16(&label_utf16[start as usize..end as usize]).unwrap();
        out.push_str(&format!("{}\nactive: {active} `{marked}`\n", signature.label));
        if let Some(lsp_types::Documentation::MarkupContent(doc)) = &signature.documentation {
            out.push_str(&format!("{}\n", doc.value));
        }
    }
    // While typing: after the name and a blank, the first argument is being written.
    let typing = PROGRAM.replace("  out.(i) <- Gpu.shfl_down acc 1\n", "  out.(i) <- twice ");
    client.change("prog.sk", 2, &typing);
    let response = client.at_with("textDocument/signatureHelp", "prog.sk", &typing, "<- twice ", 9, json!({}));
    let help: lsp_types::SignatureHelp = serde_json::from_value(response.result.unwrap()).unwrap();
    out.push_str(&format!(
        "## while typing `twice `\n{} active: {:?}\n",
        help.signatures[0].label, help.active_parameter
    ));
    insta::assert_snapshot!("signature_help", out);
    client.shutdown().unwrap();
}

fn render_locations(text: &str, result: &Value) -> String {
    let locations: Vec<lsp_types::Location> = serde_json::from_value(result.clone()).unwrap();
    locations.iter().map(|l| format!("  {}\n", range_label(text, &l.range))).collect()
}

#[test]
fn references_and_highlights() {
    let mut client = Client::start();
    client.open("prog.sk", PROGRAM);
    let mut out = String::new();
    for (what, needle) in [
        ("a mutable local", "acc = mut"),
        ("a parameter", "n : int32"),
        ("a function", "twice p"),
        ("a constant", "scale\n"),
        ("a record", "point ="),
        ("a field", "x;"),
        ("a builtin", "block_idx_x"),
    ] {
        let context = json!({ "context": { "includeDeclaration": true } });
        let response = client.at_with("textDocument/references", "prog.sk", PROGRAM, needle, 0, context);
        out.push_str(&format!("## references of {what} (`{}`)\n", needle.trim()));
        out.push_str(&render_locations(PROGRAM, &response.result.unwrap()));
        let response = client.at_with("textDocument/documentHighlight", "prog.sk", PROGRAM, needle, 0, json!({}));
        let highlights: Vec<lsp_types::DocumentHighlight> = serde_json::from_value(response.result.unwrap()).unwrap();
        let kinds: Vec<String> = highlights
            .iter()
            .map(|h| {
                format!(
                    "{}{}",
                    h.range.start.line + 1,
                    if h.kind == Some(lsp_types::DocumentHighlightKind::WRITE) { "w" } else { "r" }
                )
            })
            .collect();
        out.push_str(&format!("  highlights (line, read/write): {}\n", kinds.join(" ")));
    }
    // Without the declaration.
    let context = json!({ "context": { "includeDeclaration": false } });
    let response = client.at_with("textDocument/references", "prog.sk", PROGRAM, "t in", 0, context);
    out.push_str(&format!("## uses of `t` only\n{}", render_locations(PROGRAM, &response.result.unwrap())));
    insta::assert_snapshot!("references", out);
    client.shutdown().unwrap();
}

/// Applies a workspace edit's changes for one document.
fn apply(text: &str, edits: &[lsp_types::TextEdit]) -> String {
    let file = skc_core::source::SourceFile::new("t", text);
    let mut edits: Vec<_> = edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = text.to_string();
    for edit in edits {
        let start = file.offset_of_utf16(edit.range.start.line as usize, edit.range.start.character as usize);
        let end = file.offset_of_utf16(edit.range.end.line as usize, edit.range.end.character as usize);
        out.replace_range(start..end, &edit.new_text);
    }
    out
}

#[test]
fn rename_checks_that_the_meaning_is_kept() {
    let mut client = Client::start();
    client.open("prog.sk", PROGRAM);
    let mut out = String::new();
    let prepare = client.at_with("textDocument/prepareRename", "prog.sk", PROGRAM, "acc +.", 0, json!({}));
    out.push_str(&format!(
        "prepare at `acc +.`: {}\n",
        range_label(PROGRAM, &serde_json::from_value(prepare.result.unwrap()).unwrap())
    ));
    let prepare = client.at_with("textDocument/prepareRename", "prog.sk", PROGRAM, "thread_idx_x", 0, json!({}));
    out.push_str(&format!("prepare at a builtin: {}\n", prepare.error.unwrap().message));
    for (what, needle, new_name) in [
        ("a local", "acc = mut", "total"),
        ("a function, at a use", "twice p", "double"),
        ("a record", "point =", "vec2"),
        ("a field", "x;", "px"),
        ("a local to a name that shadows another", "t in", "i"),
        ("a local to a name used in its scope", "t in", "n"),
        ("a local to a builtin's name used in its scope", "t in", "block_dim_x"),
        ("a function to a local's name at its use", "twice p", "p"),
        ("a local to a keyword", "t in", "done"),
    ] {
        let response =
            client.at_with("textDocument/rename", "prog.sk", PROGRAM, needle, 0, json!({ "newName": new_name }));
        out.push_str(&format!("\n## {what}: `{}` -> `{new_name}`\n", needle.trim()));
        match (response.result, response.error) {
            (Some(result), None) => {
                let edit: lsp_types::WorkspaceEdit = serde_json::from_value(result).unwrap();
                let changes = edit.changes.unwrap();
                assert_eq!(changes.len(), 1);
                let renamed = apply(PROGRAM, &changes[&uri("prog.sk")]);
                out.push_str(&renamed);
                // What the rename gives checks as cleanly as before.
                let checked = skc_core::check("/prog.sk", &renamed, &skc_core::NoModules, &Default::default());
                assert_eq!(checked.diagnostics, vec![], "{renamed}");
            }
            (_, Some(error)) => out.push_str(&format!("refused: {}\n", error.message)),
            (None, None) => panic!("no answer"),
        }
    }
    insta::assert_snapshot!("rename", out);
    client.shutdown().unwrap();
}

#[test]
fn rename_across_open_documents() {
    let mut client = Client::start();
    let helper = "let sync_all () = Gpu.block_barrier\n";
    let main = "open Helper\nkernel k (out : int32 vector) =\n  sync_all ();\n  out.(0) <- 1\n";
    client.open("helper.sk", helper);
    client.open("main.sk", main);
    // Renamed from the module's own file: the open document that uses it is edited too.
    let response =
        client.at_with("textDocument/rename", "helper.sk", helper, "sync_all", 0, json!({ "newName": "barrier_all" }));
    let edit: lsp_types::WorkspaceEdit = serde_json::from_value(response.result.unwrap()).unwrap();
    let changes = edit.changes.unwrap();
    let mut files: Vec<_> = changes.keys().map(|u| u.path().rsplit('/').next().unwrap().to_string()).collect();
    files.sort();
    assert_eq!(files, ["helper.sk", "main.sk"]);
    assert_eq!(apply(helper, &changes[&uri("helper.sk")]), "let barrier_all () = Gpu.block_barrier\n");
    assert_eq!(
        apply(main, &changes[&uri("main.sk")]),
        "open Helper\nkernel k (out : int32 vector) =\n  barrier_all ();\n  out.(0) <- 1\n"
    );
    client.shutdown().unwrap();
}

#[test]
fn a_record_update_adds_no_local_to_completion_or_hints() {
    // The parser binds the copy `{ p with ... }` makes to a name no program can write: it is not offered.
    let mut client = Client::start();
    let program = "\
type point = { x : float32; y : float32 }
kernel k (ps : point vector) =
  let p = ps.(0) in
  ps.(0) <- { p with x = p.y }
";
    assert_eq!(client.open("update.sk", program).diagnostics, vec![]);
    let response = client.at_with("textDocument/completion", "update.sk", program, "p.y }", 0, json!({}));
    let items: Vec<lsp_types::CompletionItem> = serde_json::from_value(response.result.unwrap()).unwrap();
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert!(labels.contains(&"p"), "no `p` in {labels:?}");
    assert!(labels.iter().all(|l| !l.starts_with('{')), "a parser-made name in {labels:?}");
    let range = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } });
    let hints = client
        .request("textDocument/inlayHint", json!({ "textDocument": { "uri": uri("update.sk") }, "range": range }));
    let hints: Vec<lsp_types::InlayHint> = serde_json::from_value(hints.result.unwrap()).unwrap();
    assert_eq!(hints.iter().map(|h| h.position.line).collect::<Vec<_>>(), [2], "one hint, after `p`");
    client.shutdown().unwrap();
}

#[test]
fn variants_are_hovered_and_completed_without_the_parser_made_names() {
    // A `match` binds the matched value to a name no program can write, and its arms' payloads to the names of the
    // patterns: those are offered and hovered, the hidden one is not, and every position answers.
    let mut client = Client::start();
    let program = "\
type shape = Circle of float32 | Rect of float32 * float32 | Empty
kernel k (xs : float32 vector) =
  let s = if xs.(global_idx) > 0.0 then Circle xs.(global_idx) else Rect (1.0, 2.0) in
  xs.(global_idx) <- (match s with
    | Circle radius -> radius *. radius
    | Rect (w, h) -> w *. h
    | Empty -> 0.0)
";
    assert_eq!(client.open("variants.sk", program).diagnostics, vec![]);
    let response = client.at_with("textDocument/completion", "variants.sk", program, "radius *.", 0, json!({}));
    let items: Vec<lsp_types::CompletionItem> = serde_json::from_value(response.result.unwrap()).unwrap();
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert!(labels.contains(&"radius") && labels.contains(&"s"), "no `radius` or `s` in {labels:?}");
    assert!(labels.iter().all(|l| !l.starts_with('{')), "a parser-made name in {labels:?}");
    let hover = client.at("textDocument/hover", "variants.sk", program, "radius *.", 0);
    let shown = render_hover(program, &hover);
    assert!(shown.contains("float32") && shown.contains("thread-varying"), "{shown}");
    let hover = client.at("textDocument/hover", "variants.sk", program, "s with", 0);
    assert!(render_hover(program, &hover).contains("shape"), "{}", render_hover(program, &hover));
    for (line, text) in program.lines().enumerate() {
        for character in 0..text.chars().count() + 1 {
            let position = json!({ "line": line, "character": character });
            for method in ["textDocument/hover", "textDocument/definition", "textDocument/completion"] {
                let params = json!({ "textDocument": { "uri": uri("variants.sk") }, "position": position });
                let response = client.request(method, params);
                assert!(response.error.is_none(), "{method} at {position}: {response:?}");
            }
        }
    }
    client.shutdown().unwrap();
}
