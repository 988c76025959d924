// The server's commands as the extension calls them through `workspace/executeCommand`, and the links it puts on
// diagnostic codes. No `vscode` import: the test drives these functions without VS Code.

/** The server's command that answers an explanation page as Markdown. */
export const EXPLAIN = "skc.explain";
/** The server's command that answers the CUDA C of a document. */
export const SHOW_CUDA = "skc.showCuda";

/** The extension's own commands (the server's are registered by the client under their own names). */
export const EXPLAIN_CODE_COMMAND = "skc.explainCode";
export const SHOW_CUDA_COMMAND = "skc.showCudaC";
export const RESTART_COMMAND = "skc.restartServer";

export interface ExecuteCommandParams {
  command: string;
  arguments: unknown[];
}

export function explainParams(code: string): ExecuteCommandParams {
  return { command: EXPLAIN, arguments: [code.trim()] };
}

export function showCudaParams(uri: string, position?: { line: number; character: number }): ExecuteCommandParams {
  return { command: SHOW_CUDA, arguments: position ? [uri, position] : [uri] };
}

/** The answer of `skc.showCuda`. */
export interface ShowCudaResult {
  kernel: string | null;
  line: number;
  language: string;
  source: string;
}

export function isShowCudaResult(value: unknown): value is ShowCudaResult {
  const v = value as ShowCudaResult;
  return typeof v === "object" && v !== null && typeof v.source === "string" && typeof v.line === "number";
}

/** A `command:` link that runs the explain command for `code` (what a diagnostic's code links to). */
export function explainLink(code: string): string {
  return `command:${EXPLAIN_CODE_COMMAND}?${encodeURIComponent(JSON.stringify([code]))}`;
}

/** Is `text` a diagnostic code (`E0001`, `W0101`)? */
export function isDiagnosticCode(text: string): boolean {
  return /^[EW][0-9]{4}$/.test(text.trim());
}
