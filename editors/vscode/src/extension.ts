// The VS Code client for the skc language server: starts `skc lsp` (the executable named by the `skc.path`
// setting) for `.sk` files and restarts it when the setting changes.

import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;

function makeClient(): LanguageClient {
  const config = vscode.workspace.getConfiguration("skc");
  const command = config.get<string>("path") || "skc";
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "sk" }],
    initializationOptions: { includePaths: config.get<string[]>("includePaths") ?? [] },
  };
  return new LanguageClient("skc", "skc language server", serverOptions, clientOptions);
}

async function start(): Promise<void> {
  client = makeClient();
  try {
    await client.start();
  } catch (error) {
    const path = vscode.workspace.getConfiguration("skc").get<string>("path") || "skc";
    void vscode.window.showErrorMessage(
      `Could not start the skc language server (\`${path} lsp\`): ${error}. Set "skc.path" to the skc executable.`,
    );
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("skc.path") || event.affectsConfiguration("skc.includePaths")) {
        await client?.stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
