// A stand-in for the `vscode` module, enough for the packaged extension and the `vscode-languageclient` it bundles
// to run under plain Node: the classes the client's converters build, the namespaces it calls (workspace,
// window, languages, commands, env), events the test can fire, and records of what the extension did (documents
// it opened, commands it ran, messages it showed, providers the client registered, diagnostics it set).
// Anything it lacks is reported by name when used (see `missing`), so a new client version fails loudly.

"use strict";

const missing = new Set();

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
  isBefore(other) {
    return this.line < other.line || (this.line === other.line && this.character < other.character);
  }
  isBeforeOrEqual(other) {
    return this.isBefore(other) || this.isEqual(other);
  }
  isAfter(other) {
    return !this.isBeforeOrEqual(other);
  }
  isAfterOrEqual(other) {
    return !this.isBefore(other);
  }
  isEqual(other) {
    return this.line === other.line && this.character === other.character;
  }
  compareTo(other) {
    return this.isBefore(other) ? -1 : this.isEqual(other) ? 0 : 1;
  }
  translate(lineDelta = 0, characterDelta = 0) {
    return new Position(this.line + lineDelta, this.character + characterDelta);
  }
  with(line = this.line, character = this.character) {
    return new Position(line, character);
  }
}

class Range {
  constructor(a, b, c, d) {
    if (typeof a === "number") {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
  get isEmpty() {
    return this.start.isEqual(this.end);
  }
  get isSingleLine() {
    return this.start.line === this.end.line;
  }
  contains(value) {
    if (value instanceof Range) {
      return this.contains(value.start) && this.contains(value.end);
    }
    return !value.isBefore(this.start) && !this.end.isBefore(value);
  }
  isEqual(other) {
    return this.start.isEqual(other.start) && this.end.isEqual(other.end);
  }
  with(start = this.start, end = this.end) {
    return new Range(start, end);
  }
}

class Selection extends Range {
  constructor(anchor, active) {
    super(anchor, active);
    this.anchor = anchor;
    this.active = active;
  }
}

class Uri {
  constructor(scheme, authority, path, query, fragment) {
    this.scheme = scheme;
    this.authority = authority || "";
    this.path = path || "";
    this.query = query || "";
    this.fragment = fragment || "";
  }
  static parse(text) {
    const match = /^([a-zA-Z][\w+.-]*):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/.exec(text);
    if (!match) {
      throw new Error(`not a URI: ${text}`);
    }
    return new Uri(match[1], match[3], decodeURIComponent(match[4]), match[6], match[8]);
  }
  static file(path) {
    return new Uri("file", "", path);
  }
  get fsPath() {
    return this.path;
  }
  with(change) {
    return new Uri(
      change.scheme ?? this.scheme,
      change.authority ?? this.authority,
      change.path ?? this.path,
      change.query ?? this.query,
      change.fragment ?? this.fragment,
    );
  }
  toString() {
    const authority = this.scheme === "file" || this.authority ? `//${this.authority}` : "";
    const path = this.scheme === "command" ? this.path : encodeURI(this.path).replace(/[?#]/g, encodeURIComponent);
    const query = this.query ? `?${this.query}` : "";
    const fragment = this.fragment ? `#${this.fragment}` : "";
    return `${this.scheme}:${authority}${path}${query}${fragment}`;
  }
  toJSON() {
    return this.toString();
  }
}

class Disposable {
  constructor(onDispose) {
    this.onDispose = onDispose;
  }
  static from(...disposables) {
    return new Disposable(() => disposables.forEach((d) => d && d.dispose && d.dispose()));
  }
  dispose() {
    if (this.onDispose) {
      this.onDispose();
      this.onDispose = undefined;
    }
  }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg, disposables) => {
      const bound = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.add(bound);
      const disposable = new Disposable(() => this.listeners.delete(bound));
      if (Array.isArray(disposables)) {
        disposables.push(disposable);
      }
      return disposable;
    };
  }
  fire(value) {
    for (const listener of [...this.listeners]) {
      listener(value);
    }
  }
  dispose() {
    this.listeners.clear();
  }
}

class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
    this.emitter = emitter;
  }
  cancel() {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose() {}
}

class CancellationError extends Error {}

class MarkdownString {
  constructor(value = "", supportThemeIcons = false) {
    this.value = value;
    this.supportThemeIcons = supportThemeIcons;
  }
  appendText(text) {
    this.value += text;
    return this;
  }
  appendMarkdown(text) {
    this.value += text;
    return this;
  }
  appendCodeblock(code, language = "") {
    this.value += `\n\`\`\`${language}\n${code}\n\`\`\`\n`;
    return this;
  }
}

class CodeActionKind {
  constructor(value) {
    this.value = value;
  }
  append(part) {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  contains(other) {
    return this.value === other.value || other.value.startsWith(`${this.value}.`);
  }
  intersects(other) {
    return this.contains(other) || other.contains(this);
  }
}
for (const [name, value] of Object.entries({
  Empty: "",
  QuickFix: "quickfix",
  Refactor: "refactor",
  RefactorExtract: "refactor.extract",
  RefactorInline: "refactor.inline",
  RefactorMove: "refactor.move",
  RefactorRewrite: "refactor.rewrite",
  Source: "source",
  SourceOrganizeImports: "source.organizeImports",
  SourceFixAll: "source.fixAll",
  Notebook: "notebook",
})) {
  CodeActionKind[name] = new CodeActionKind(value);
}

class WorkspaceEdit {
  constructor() {
    this.edits = new Map();
  }
  set(uri, edits) {
    this.edits.set(uri.toString(), [uri, edits]);
  }
  get(uri) {
    return (this.edits.get(uri.toString()) || [uri, []])[1];
  }
  replace(uri, range, newText) {
    this.set(uri, [...this.get(uri), new TextEdit(range, newText)]);
  }
  entries() {
    return [...this.edits.values()];
  }
  get size() {
    return this.edits.size;
  }
}

class TextEdit {
  constructor(range, newText) {
    this.range = range;
    this.newText = newText;
  }
  static replace(range, newText) {
    return new TextEdit(range, newText);
  }
}

/** A class that keeps its constructor's arguments under the given names. */
function dataClass(...names) {
  return class {
    constructor(...args) {
      names.forEach((name, i) => {
        this[name] = args[i];
      });
    }
  };
}

/** An enum whose members are numbered in order from `first`. */
function numbered(first, ...names) {
  const result = {};
  names.forEach((name, i) => {
    result[name] = first + i;
    result[first + i] = name;
  });
  return result;
}

const classes = {
  Position,
  Range,
  Selection,
  Uri,
  Disposable,
  EventEmitter,
  CancellationTokenSource,
  CancellationError,
  MarkdownString,
  CodeActionKind,
  WorkspaceEdit,
  TextEdit,
  Location: dataClass("uri", "range"),
  Diagnostic: dataClass("range", "message", "severity"),
  DiagnosticRelatedInformation: dataClass("location", "message"),
  Hover: dataClass("contents", "range"),
  CompletionItem: dataClass("label", "kind"),
  CompletionList: dataClass("items", "isIncomplete"),
  SignatureHelp: class {
    constructor() {
      this.signatures = [];
    }
  },
  SignatureInformation: class {
    constructor(label, documentation) {
      this.label = label;
      this.documentation = documentation;
      this.parameters = [];
    }
  },
  ParameterInformation: dataClass("label", "documentation"),
  InlayHint: dataClass("position", "label", "kind"),
  InlayHintLabelPart: dataClass("value"),
  SemanticTokens: dataClass("data", "resultId"),
  SemanticTokensLegend: dataClass("tokenTypes", "tokenModifiers"),
  SemanticTokensEdit: dataClass("start", "deleteCount", "data"),
  SemanticTokensEdits: dataClass("edits", "resultId"),
  CodeAction: dataClass("title", "kind"),
  CodeLens: dataClass("range", "command"),
  DocumentHighlight: dataClass("range", "kind"),
  DocumentLink: dataClass("range", "target"),
  DocumentSymbol: class {
    constructor(name, detail, kind, range, selectionRange) {
      Object.assign(this, { name, detail, kind, range, selectionRange, children: [] });
    }
  },
  SymbolInformation: dataClass("name", "kind", "containerName", "location"),
  SnippetString: dataClass("value"),
  FoldingRange: dataClass("start", "end", "kind"),
  SelectionRange: dataClass("range", "parent"),
  Color: dataClass("red", "green", "blue", "alpha"),
  ColorInformation: dataClass("range", "color"),
  ColorPresentation: dataClass("label"),
  CallHierarchyItem: dataClass("kind", "name", "detail", "uri", "range", "selectionRange"),
  CallHierarchyIncomingCall: dataClass("from", "fromRanges"),
  CallHierarchyOutgoingCall: dataClass("to", "fromRanges"),
  TypeHierarchyItem: dataClass("kind", "name", "detail", "uri", "range", "selectionRange"),
  LinkedEditingRanges: dataClass("ranges", "wordPattern"),
  InlineValueText: dataClass("range", "text"),
  InlineValueVariableLookup: dataClass("range", "variableName", "caseSensitiveLookup"),
  InlineValueEvaluatableExpression: dataClass("range", "expression"),
  InlineCompletionItem: dataClass("insertText", "range", "command"),
  InlineCompletionList: dataClass("items"),
  RelativePattern: dataClass("base", "pattern"),
  TabInputText: dataClass("uri"),
  TabInputTextDiff: dataClass("original", "modified"),
  TabInputCustom: dataClass("uri", "viewType"),
  TabInputNotebook: dataClass("uri", "notebookType"),
  NotebookCellKind: numbered(1, "Markup", "Code"),
};

const enums = {
  DiagnosticSeverity: numbered(0, "Error", "Warning", "Information", "Hint"),
  DiagnosticTag: numbered(1, "Unnecessary", "Deprecated"),
  CompletionItemKind: numbered(
    0, "Text", "Method", "Function", "Constructor", "Field", "Variable", "Class", "Interface", "Module", "Property",
    "Unit", "Value", "Enum", "Keyword", "Snippet", "Color", "File", "Reference", "Folder", "EnumMember", "Constant",
    "Struct", "Event", "Operator", "TypeParameter", "User", "Issue",
  ),
  CompletionItemTag: numbered(1, "Deprecated"),
  CompletionTriggerKind: numbered(0, "Invoke", "TriggerCharacter", "TriggerForIncompleteCompletions"),
  SignatureHelpTriggerKind: numbered(1, "Invoke", "TriggerCharacter", "ContentChange"),
  SymbolKind: numbered(
    0, "File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor", "Enum",
    "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key", "Null",
    "EnumMember", "Struct", "Event", "Operator", "TypeParameter",
  ),
  SymbolTag: numbered(1, "Deprecated"),
  DocumentHighlightKind: numbered(0, "Text", "Read", "Write"),
  InlayHintKind: numbered(1, "Type", "Parameter"),
  FoldingRangeKind: numbered(1, "Comment", "Imports", "Region"),
  TextDocumentSaveReason: numbered(1, "Manual", "AfterDelay", "FocusOut"),
  CodeActionTriggerKind: numbered(1, "Invoke", "Automatic"),
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
  TextEditorRevealType: numbered(0, "Default", "InCenter", "InCenterIfOutsideViewport", "AtTop"),
  ConfigurationTarget: numbered(1, "Global", "Workspace", "WorkspaceFolder"),
  EndOfLine: numbered(1, "LF", "CRLF"),
  UIKind: numbered(1, "Desktop", "Web"),
  FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
  LogLevel: numbered(0, "Off", "Trace", "Debug", "Info", "Warning", "Error"),
};

/** What the extension and the client did, for the test to check. */
const records = {
  openedDocuments: [],
  executedCommands: [],
  messages: [],
  providers: {},
  diagnostics: new Map(),
  outputChannels: [],
};

const events = {
  didOpenTextDocument: new EventEmitter(),
  didCloseTextDocument: new EventEmitter(),
  didChangeTextDocument: new EventEmitter(),
  didSaveTextDocument: new EventEmitter(),
  willSaveTextDocument: new EventEmitter(),
  didChangeConfiguration: new EventEmitter(),
  didChangeWorkspaceFolders: new EventEmitter(),
  didChangeActiveTextEditor: new EventEmitter(),
  didChangeVisibleTextEditors: new EventEmitter(),
  didChangeTabs: new EventEmitter(),
};

/** The settings the extension reads, as nested objects (`skc.inlayHints.enable` is `settings.skc.inlayHints.enable`). */
const settings = {};

function lookup(root, dotted) {
  return dotted.split(".").reduce((value, key) => (value === undefined || value === null ? undefined : value[key]), root);
}

function configuration(section) {
  const root = section ? lookup(settings, section) || {} : settings;
  const config = {
    get: (name, fallback) => {
      const value = lookup(root, name);
      return value === undefined ? fallback : value;
    },
    has: (name) => lookup(root, name) !== undefined,
    inspect: (name) => ({ key: name, defaultValue: undefined, globalValue: lookup(root, name) }),
    update: async () => {},
  };
  return Object.assign(Object.create(config), root);
}

/** A text document as the client sees it; `setText` edits it as a user would (the test fires the event). */
function makeDocument(uri, languageId, text) {
  const document = {
    uri: typeof uri === "string" ? Uri.parse(uri) : uri,
    fileName: (typeof uri === "string" ? Uri.parse(uri) : uri).fsPath,
    languageId,
    version: 1,
    isDirty: false,
    isClosed: false,
    isUntitled: false,
    eol: 1,
    text,
    getText(range) {
      if (!range) {
        return this.text;
      }
      return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
    },
    get lineCount() {
      return this.text.split("\n").length;
    },
    lineAt(line) {
      const lineNumber = typeof line === "number" ? line : line.line;
      const content = this.text.split("\n")[lineNumber] || "";
      return { lineNumber, text: content, range: new Range(lineNumber, 0, lineNumber, content.length) };
    },
    offsetAt(position) {
      const lines = this.text.split("\n");
      let offset = 0;
      for (let i = 0; i < position.line && i < lines.length; i++) {
        offset += lines[i].length + 1;
      }
      return offset + position.character;
    },
    positionAt(offset) {
      const before = this.text.slice(0, offset).split("\n");
      return new Position(before.length - 1, before[before.length - 1].length);
    },
    getWordRangeAtPosition(position) {
      const line = this.lineAt(position.line).text;
      let start = position.character;
      let end = position.character;
      while (start > 0 && /\w/.test(line[start - 1])) start--;
      while (end < line.length && /\w/.test(line[end])) end++;
      return start === end ? undefined : new Range(position.line, start, position.line, end);
    },
    validateRange: (range) => range,
    validatePosition: (position) => position,
    save: async () => true,
  };
  return document;
}

const workspace = {
  textDocuments: [],
  workspaceFolders: undefined,
  name: undefined,
  getConfiguration: configuration,
  getWorkspaceFolder: () => undefined,
  onDidOpenTextDocument: events.didOpenTextDocument.event,
  onDidCloseTextDocument: events.didCloseTextDocument.event,
  onDidChangeTextDocument: events.didChangeTextDocument.event,
  onDidSaveTextDocument: events.didSaveTextDocument.event,
  onWillSaveTextDocument: events.willSaveTextDocument.event,
  onDidChangeConfiguration: events.didChangeConfiguration.event,
  onDidChangeWorkspaceFolders: events.didChangeWorkspaceFolders.event,
  onDidCreateFiles: new EventEmitter().event,
  onDidRenameFiles: new EventEmitter().event,
  onDidDeleteFiles: new EventEmitter().event,
  onWillCreateFiles: new EventEmitter().event,
  onWillRenameFiles: new EventEmitter().event,
  onWillDeleteFiles: new EventEmitter().event,
  onDidOpenNotebookDocument: new EventEmitter().event,
  onDidCloseNotebookDocument: new EventEmitter().event,
  onDidChangeNotebookDocument: new EventEmitter().event,
  onDidSaveNotebookDocument: new EventEmitter().event,
  notebookDocuments: [],
  createFileSystemWatcher: () => ({
    onDidCreate: new EventEmitter().event,
    onDidChange: new EventEmitter().event,
    onDidDelete: new EventEmitter().event,
    dispose() {},
  }),
  applyEdit: async (edit) => {
    records.appliedEdits = (records.appliedEdits || []).concat([edit]);
    return true;
  },
  openTextDocument: async (options) => {
    const content = typeof options === "object" && options !== null && "content" in options ? options.content : "";
    const language = (options && options.language) || "plaintext";
    const document = makeDocument(`untitled:Untitled-${records.openedDocuments.length + 1}`, language, content);
    records.openedDocuments.push(document);
    return document;
  },
};

function makeEditor(document, position = new Position(0, 0)) {
  return {
    document,
    selection: new Selection(position, position),
    selections: [new Selection(position, position)],
    visibleRanges: [new Range(0, 0, 100, 0)],
    revealed: [],
    revealRange(range, type) {
      this.revealed.push({ range, type });
    },
    edit: async () => true,
    setDecorations() {},
  };
}

function message(kind) {
  return async (text, ...items) => {
    records.messages.push({ kind, text });
    return undefined;
  };
}

const window = {
  activeTextEditor: undefined,
  visibleTextEditors: [],
  tabGroups: { all: [], onDidChangeTabs: events.didChangeTabs.event, onDidChangeTabGroups: new EventEmitter().event },
  onDidChangeActiveTextEditor: events.didChangeActiveTextEditor.event,
  onDidChangeVisibleTextEditors: events.didChangeVisibleTextEditors.event,
  showErrorMessage: message("error"),
  showWarningMessage: message("warning"),
  showInformationMessage: message("information"),
  showInputBox: async () => undefined,
  showTextDocument: async (document) => {
    const editor = makeEditor(document);
    records.shownEditors = (records.shownEditors || []).concat([editor]);
    return editor;
  },
  createOutputChannel: (name) => {
    const channel = {
      name,
      lines: [],
      append(text) {
        this.lines.push(text);
      },
      appendLine(text) {
        this.lines.push(text);
      },
      replace(text) {
        this.lines = [text];
      },
      clear() {
        this.lines = [];
      },
      show() {},
      hide() {},
      dispose() {},
    };
    records.outputChannels.push(channel);
    return channel;
  },
  withProgress: async (options, task) => task({ report() {} }, new CancellationTokenSource().token),
  createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }),
};

function matches(selector, document) {
  const selectors = Array.isArray(selector) ? selector : [selector];
  return selectors.some((s) =>
    typeof s === "string"
      ? s === document.languageId
      : (!s.language || s.language === document.languageId) && (!s.scheme || s.scheme === document.uri.scheme),
  )
    ? 10
    : 0;
}

function registerProvider(kind) {
  return (selector, provider, ...rest) => {
    (records.providers[kind] = records.providers[kind] || []).push({ selector, provider, rest });
    return new Disposable(() => {
      records.providers[kind] = records.providers[kind].filter((p) => p.provider !== provider);
    });
  };
}

const languages = new Proxy(
  {
    match: matches,
    createDiagnosticCollection: (name) => {
      const entries = new Map();
      const collection = {
        name,
        set(uri, diagnostics) {
          if (Array.isArray(uri)) {
            uri.forEach(([u, d]) => this.set(u, d));
            return;
          }
          entries.set(uri.toString(), diagnostics || []);
          records.diagnostics.set(uri.toString(), diagnostics || []);
        },
        get: (uri) => entries.get(uri.toString()),
        has: (uri) => entries.has(uri.toString()),
        delete(uri) {
          entries.delete(uri.toString());
          records.diagnostics.delete(uri.toString());
        },
        clear() {
          for (const key of entries.keys()) records.diagnostics.delete(key);
          entries.clear();
        },
        forEach: (callback) => entries.forEach((d, u) => callback(Uri.parse(u), d, collection)),
        dispose() {
          this.clear();
        },
      };
      return collection;
    },
    getDiagnostics: (uri) => records.diagnostics.get(uri.toString()) || [],
    setLanguageConfiguration: () => new Disposable(),
  },
  {
    get(target, name) {
      if (name in target) {
        return target[name];
      }
      if (typeof name === "string" && name.startsWith("register")) {
        return registerProvider(name.slice("register".length));
      }
      return undefined;
    },
  },
);

const registeredCommands = new Map();
const commands = {
  registerCommand: (id, callback) => {
    if (registeredCommands.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    registeredCommands.set(id, callback);
    return new Disposable(() => registeredCommands.delete(id));
  },
  executeCommand: async (id, ...args) => {
    records.executedCommands.push({ id, args });
    const callback = registeredCommands.get(id);
    return callback ? callback(...args) : undefined;
  },
  getCommands: async () => [...registeredCommands.keys()],
  registered: registeredCommands,
};

const env = {
  language: "en",
  appName: "vscode-mock",
  appRoot: "",
  machineId: "mock",
  sessionId: "mock",
  uiKind: 1,
  openExternal: async () => true,
  clipboard: { readText: async () => "", writeText: async () => {} },
};

const root = {
  version: "1.82.0",
  ...classes,
  ...enums,
  workspace,
  window,
  languages,
  commands,
  env,
  extensions: { getExtension: () => undefined, all: [], onDidChange: new EventEmitter().event },
  l10n: { t: (text) => text },
};

/** The module: its members, and a name of anything else that is asked for in `missing`. */
const vscode = new Proxy(root, {
  get(target, name) {
    if (name in target || typeof name === "symbol" || name === "then" || name === "__esModule") {
      return target[name];
    }
    missing.add(String(name));
    return undefined;
  },
});

module.exports = { vscode, records, events, settings, makeDocument, makeEditor, missing };
