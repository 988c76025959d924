// The VS Code client for the skc language server: starts `skc lsp` (the executable named by `skc.path`) for `.sk`
// files, passes the settings on, links every diagnostic code to its explanation page, and adds the commands
// "skc: Explain a Diagnostic Code", "skc: Show the CUDA C of This Kernel" and "skc: Restart the Language Server".

import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

import * as requests from "./requests";
import { initializationOptions, RESTART_SETTINGS, serverCommand, SettingReader } from "./settings";

let client: LanguageClient | undefined;

function settings(): SettingReader {
  const config = vscode.workspace.getConfiguration("skc");
  return <T>(name: string) => config.get<T>(name);
}

function makeClient(): LanguageClient {
  const { command, args } = serverCommand(settings());
  // Standard input and output, which is what an executable without `transport` gets (`skc lsp` also accepts the
  // `--stdio` argument that `TransportKind.stdio` would add, for other clients that name the transport).
  const serverOptions: ServerOptions = { run: { command, args }, debug: { command, args } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "sk" }],
    initializationOptions: initializationOptions(settings()),
    // Every change of the `skc` settings reaches the server (inlay hints and semantic tokens on or off).
    synchronize: { configurationSection: "skc" },
    middleware: {
      // The code of each diagnostic links to its explanation page, shown inside VS Code.
      handleDiagnostics(uri, diagnostics, next) {
        for (const diagnostic of diagnostics) {
          const code = typeof diagnostic.code === "object" ? diagnostic.code.value : diagnostic.code;
          if (typeof code === "string" && requests.isDiagnosticCode(code)) {
            diagnostic.code = { value: code, target: vscode.Uri.parse(requests.explainLink(code)) };
          }
        }
        next(uri, diagnostics);
      },
    },
  };
  return new LanguageClient("skc", "skc language server", serverOptions, clientOptions);
}

async function start(): Promise<void> {
  client = makeClient();
  try {
    await client.start();
  } catch (error) {
    const { command } = serverCommand(settings());
    void vscode.window.showErrorMessage(
      `Could not start the skc language server (\`${command} lsp\`): ${error}. Set "skc.path" to the skc executable.`,
    );
  }
}

async function restart(): Promise<void> {
  await client?.stop();
  await start();
}

async function executeOnServer(params: requests.ExecuteCommandParams): Promise<unknown> {
  if (!client?.isRunning()) {
    throw new Error("the skc language server is not running");
  }
  return client.sendRequest(ExecuteCommandRequest.type, params);
}

/** The code of an skc diagnostic under the cursor, if there is one. */
function codeUnderCursor(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return undefined;
  }
  const position = editor.selection.active;
  for (const diagnostic of vscode.languages.getDiagnostics(editor.document.uri)) {
    const code = typeof diagnostic.code === "object" ? diagnostic.code.value : diagnostic.code;
    if (diagnostic.range.contains(position) && typeof code === "string" && requests.isDiagnosticCode(code)) {
      return code;
    }
  }
  return undefined;
}

async function explainCode(code?: string): Promise<void> {
  const wanted =
    code ??
    codeUnderCursor() ??
    (await vscode.window.showInputBox({ prompt: "Diagnostic code", placeHolder: "E0001", validateInput: (v) => (requests.isDiagnosticCode(v) ? undefined : "a code such as E0001 or W0101") }));
  if (!wanted) {
    return;
  }
  try {
    const markdown = await executeOnServer(requests.explainParams(wanted));
    const document = await vscode.workspace.openTextDocument({ language: "markdown", content: String(markdown) });
    await vscode.commands.executeCommand("markdown.showPreview", document.uri);
  } catch (error) {
    void vscode.window.showErrorMessage(`skc: ${error instanceof Error ? error.message : error}`);
  }
}

async function showCuda(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "sk") {
    void vscode.window.showInformationMessage("skc: open a .sk file to see its CUDA C");
    return;
  }
  const position = editor.selection.active;
  try {
    const answer = await executeOnServer(
      requests.showCudaParams(editor.document.uri.toString(), { line: position.line, character: position.character }),
    );
    if (!requests.isShowCudaResult(answer)) {
      throw new Error("the server's answer has no CUDA C");
    }
    const document = await vscode.workspace.openTextDocument({ language: "cuda-cpp", content: answer.source });
    const shown = await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    const line = new vscode.Position(answer.line, 0);
    shown.selection = new vscode.Selection(line, line);
    shown.revealRange(new vscode.Range(line, line), vscode.TextEditorRevealType.AtTop);
  } catch (error) {
    void vscode.window.showErrorMessage(`skc: ${error instanceof Error ? error.message : error}`);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand(requests.EXPLAIN_CODE_COMMAND, explainCode),
    vscode.commands.registerCommand(requests.SHOW_CUDA_COMMAND, showCuda),
    vscode.commands.registerCommand(requests.RESTART_COMMAND, restart),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (RESTART_SETTINGS.some((name) => event.affectsConfiguration(name))) {
        await restart();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

/** For the test that drives the packaged extension without VS Code: the running client. */
export function languageClient(): LanguageClient | undefined {
  return client;
}
