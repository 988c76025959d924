// Drives the packaged extension's client code against `skc lsp`, without VS Code: the `extension/` folder of the
// .vsix (its compiled code and the `vscode-languageclient` it bundles) runs under Node with `vscode-mock.js` in
// place of the `vscode` module. The extension is activated as VS Code would (settings, an open .sk document),
// and the test goes through what the real client code does: the handshake, document sync, diagnostics with
// their explanation links, hover, completion, signature help, inlay hints, semantic tokens, references, rename,
// the extension's commands (explain a code, show the CUDA C, restart the server), settings changes reaching the
// server, and shutdown.
//
//   node test/packaged-client.js EXTRACTED_VSIX/extension path/to/skc
//
// Not covered (VS Code itself is not there): how VS Code renders any of it (hover widgets, inlay hints, theme
// colours for the semantic token modifiers, the Problems view), the TextMate grammar and the language
// configuration (brackets, comments, indentation), contribution points (the command palette, menus, the settings
// UI, activation on `onLanguage:sk`), VS Code opening a `command:` link from a diagnostic code, the Markdown
// preview, editing in a real editor (documents here change by the test firing VS Code's change event), file
// watching and multi-root workspaces.

"use strict";

const assert = require("node:assert/strict");
const Module = require("node:module");
const path = require("node:path");

const mock = require("./vscode-mock");

const [extensionDir, skcPath] = process.argv.slice(2);
if (!extensionDir || !skcPath) {
  console.error("usage: node packaged-client.js EXTRACTED_VSIX/extension SKC_BINARY");
  process.exit(2);
}

// Every `require("vscode")` of the extension and its bundled client gets the mock.
const load = Module._load;
Module._load = function (request, parent, isMain) {
  return request === "vscode" ? mock.vscode : load.call(this, request, parent, isMain);
};

const { vscode, records, events, settings } = mock;
const token = new vscode.CancellationTokenSource().token;
const TIMEOUT_MS = 20000;

function log(text) {
  process.stdout.write(`ok: ${text}\n`);
}

async function waitFor(what, condition) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const value = await condition();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function provider(kind) {
  const registered = records.providers[kind];
  assert.ok(registered && registered.length > 0, `the client registered no ${kind}`);
  return registered[registered.length - 1].provider;
}

const BARRIER = "kernel k (out : int32 vector) =\n  let t = thread_idx_x in\n  if t < 16 then Gpu.block_barrier\n";
const FIXED = "kernel k (out : int32 vector) =\n  let t = thread_idx_x in\n  if block_idx_x < 16 then Gpu.block_barrier;\n  out.(t) <- t\n";

/** Replaces a document's text as an edit in VS Code would, firing the change event the client listens to. */
function edit(document, text) {
  const range = new vscode.Range(new vscode.Position(0, 0), document.positionAt(document.text.length));
  document.text = text;
  document.version += 1;
  events.didChangeTextDocument.fire({ document, contentChanges: [{ range, rangeOffset: 0, rangeLength: 0, text }], reason: undefined });
}

async function main() {
  const manifest = require(path.join(extensionDir, "package.json"));
  const contributed = manifest.contributes.commands.map((c) => c.command);
  assert.deepEqual(contributed.sort(), ["skc.explainCode", "skc.restartServer", "skc.showCudaC"]);
  for (const setting of ["skc.path", "skc.includePaths", "skc.inlayHints.enable", "skc.semanticTokens.enable"]) {
    assert.ok(manifest.contributes.configuration.properties[setting], `no setting ${setting}`);
  }
  const extension = require(path.join(extensionDir, manifest.main));

  settings.skc = { path: skcPath, includePaths: [], inlayHints: { enable: true }, semanticTokens: { enable: true } };
  const document = mock.makeDocument("file:///tmp/skc-vscode-test/barrier.sk", "sk", BARRIER);
  vscode.workspace.textDocuments.push(document);
  const context = { subscriptions: [], extensionPath: extensionDir, extensionUri: vscode.Uri.file(extensionDir) };
  await extension.activate(context);
  const client = extension.languageClient();
  assert.ok(client && client.isRunning(), "the client is not running");
  assert.equal(client.initializeResult.serverInfo.name, "skc");
  log(`activated; the client started \`${skcPath} lsp\` (server ${client.initializeResult.serverInfo.version})`);

  // Diagnostics: published for the open document, converted by the client, the code linked to its page.
  const uri = document.uri.toString();
  const diagnostics = await waitFor("diagnostics", () => {
    const d = records.diagnostics.get(uri);
    return d && d.length > 0 ? d : undefined;
  });
  const error = diagnostics.find((d) => d.severity === vscode.DiagnosticSeverity.Error);
  assert.ok(error, "no error diagnostic");
  assert.equal(error.code.value, "E0001");
  assert.equal(error.code.target.toString(), 'command:skc.explainCode?%5B%22E0001%22%5D');
  assert.equal(error.message.split("\n")[0], "Barrier in potentially diverged control flow");
  assert.deepEqual([error.range.start.line, error.range.start.character], [2, 17]);
  assert.ok(diagnostics.some((d) => d.severity === vscode.DiagnosticSeverity.Hint), "no hint for a secondary label");
  log(`E0001 at 3:${error.range.start.character + 1}, its code linked to ${error.code.target.toString()}`);

  // Hover, completion, signature help, inlay hints, semantic tokens, references, rename: each through the
  // provider the client registered, as VS Code would call it.
  const hover = await provider("HoverProvider").provideHover(document, new vscode.Position(2, 5), token);
  const hoverText = [].concat(hover.contents).map((c) => c.value).join("\n");
  assert.match(hoverText, /thread-varying/);
  log("hover on `t`: thread-varying");
  const completion = await provider("CompletionItemProvider").provideCompletionItems(
    document, new vscode.Position(2, 5), token, { triggerKind: vscode.CompletionTriggerKind.Invoke });
  const items = Array.isArray(completion) ? completion : completion.items;
  const labels = items.map((i) => (typeof i.label === "string" ? i.label : i.label.label));
  assert.ok(labels.includes("t") && labels.includes("block_barrier") && labels.includes("thread_idx_x"), labels.join(" "));
  log(`completion: ${items.length} items, \`t\`, \`thread_idx_x\` and \`block_barrier\` among them`);
  const hints = await provider("InlayHintsProvider").provideInlayHints(document, new vscode.Range(0, 0, 10, 0), token);
  assert.deepEqual(hints.map((h) => [h.position.line, h.label]), [[1, "thread"]]);
  log("inlay hint `thread` after `let t`");
  const tokens = await provider("DocumentSemanticTokensProvider").provideDocumentSemanticTokens(document, token);
  assert.ok(tokens.data.length >= 10 && tokens.data.length % 5 === 0, `semantic tokens: ${tokens.data}`);
  const legend = records.providers.DocumentSemanticTokensProvider.at(-1).rest[0];
  assert.deepEqual(legend.tokenModifiers, ["threadVarying", "warpUniform", "blockUniform"]);
  log(`semantic tokens: ${tokens.data.length / 5} names, legend ${legend.tokenModifiers.join(", ")}`);
  const references = await provider("ReferenceProvider").provideReferences(
    document, new vscode.Position(1, 6), { includeDeclaration: true }, token);
  assert.deepEqual(references.map((r) => r.range.start.line), [1, 2]);
  const renamed = await provider("RenameProvider").provideRenameEdits(document, new vscode.Position(1, 6), "lane", token);
  const [[, renameEdits]] = renamed.entries();
  assert.deepEqual(renameEdits.map((e) => e.newText), ["lane", "lane"]);
  log("references and rename of `t`");

  // The extension's commands.
  await vscode.commands.executeCommand("skc.explainCode", "E0001");
  const page = records.openedDocuments.at(-1);
  assert.equal(page.languageId, "markdown");
  assert.match(page.text, /^# E0001: barrier in potentially diverged control flow/);
  assert.equal(records.executedCommands.at(-1).id, "markdown.showPreview");
  log("skc.explainCode E0001 opened the page in a Markdown preview");
  vscode.window.activeTextEditor = mock.makeEditor(document, new vscode.Position(2, 2));
  await vscode.commands.executeCommand("skc.showCudaC");
  assert.match(records.messages.at(-1).text, /has 1 error: it has no CUDA C until they are fixed/);
  log(`skc.showCudaC on a file with an error: "${records.messages.at(-1).text}"`);

  // An edit through the document: the client sends it, the diagnostics clear, and the CUDA C can be shown.
  edit(document, FIXED);
  await waitFor("the diagnostics to clear", () => (records.diagnostics.get(uri) || [1]).length === 0);
  log("edited: diagnostics cleared");
  await vscode.commands.executeCommand("skc.showCudaC");
  const cuda = records.openedDocuments.at(-1);
  assert.equal(cuda.languageId, "cuda-cpp");
  assert.match(cuda.text, /extern "C" __global__ void k\(/);
  const shown = records.shownEditors.at(-1);
  const headerLine = cuda.text.split("\n").findIndex((l) => l.includes("__global__ void k("));
  assert.equal(shown.selection.active.line, headerLine);
  log(`skc.showCudaC opened ${cuda.text.split("\n").length} lines of CUDA C at the kernel (line ${headerLine + 1})`);

  // Settings reach the running server: inlay hints off, then on.
  settings.skc.inlayHints.enable = false;
  events.didChangeConfiguration.fire({ affectsConfiguration: (section) => "skc.inlayHints.enable".startsWith(section) });
  const off = await waitFor("inlay hints to turn off", async () => {
    const h = await provider("InlayHintsProvider").provideInlayHints(document, new vscode.Range(0, 0, 10, 0), token);
    return h.length === 0;
  });
  assert.ok(off);
  log("skc.inlayHints.enable = false reached the server: no inlay hints");

  // Restart: a new server process, the document opened again in it.
  records.diagnostics.clear();
  await vscode.commands.executeCommand("skc.restartServer");
  const restarted = extension.languageClient();
  assert.ok(restarted !== client && restarted.isRunning(), "no new client after the restart");
  await waitFor("diagnostics from the restarted server", () => records.diagnostics.has(uri));
  log("skc.restartServer: a new server, the open document checked again");

  await extension.deactivate();
  assert.ok(!restarted.isRunning());
  log("deactivated: the server was shut down");
  assert.deepEqual([...mock.missing], [], "the client used parts of the vscode API the mock lacks");
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`FAIL: ${error && error.stack ? error.stack : error}\n`);
    for (const m of mock.records.messages) {
      process.stderr.write(`${m.kind} message: ${m.text}\n`);
    }
    for (const channel of mock.records.outputChannels) {
      process.stderr.write(`output channel ${channel.name}:\n${channel.lines.join("")}\n`);
    }
    if (mock.missing.size) {
      process.stderr.write(`vscode API the mock lacks: ${[...mock.missing].join(", ")}\n`);
    }
    process.exit(1);
  },
);
