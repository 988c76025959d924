// The extension's settings and what the language server is started with. No `vscode` import: the test drives
// these functions without VS Code.

/** Reads one setting of the `skc` section (VS Code's `WorkspaceConfiguration.get`). */
export type SettingReader = <T>(name: string) => T | undefined;

/** The `skc lsp` command line: the executable named by `skc.path` (default `skc`). */
export function serverCommand(get: SettingReader): { command: string; args: string[] } {
  return { command: get<string>("path") || "skc", args: ["lsp"] };
}

/**
 * What the server reads at `initialize` (the same shape as the `skc` settings section, which the client also
 * sends on every change of the settings).
 */
export function initializationOptions(get: SettingReader): Record<string, unknown> {
  return {
    includePaths: get<string[]>("includePaths") ?? [],
    inlayHints: { enable: get<boolean>("inlayHints.enable") ?? true },
    semanticTokens: { enable: get<boolean>("semanticTokens.enable") ?? true },
  };
}

/** Settings that take a new server process to apply (the others reach the running server). */
export const RESTART_SETTINGS = ["skc.path"];
