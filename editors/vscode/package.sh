#!/usr/bin/env bash
# Builds the extension and packages it as editors/vscode/skc.vsix (what compiler/cli/tests/vscode.rs drives):
# the dependencies from package-lock.json (`npm ci`), the TypeScript compiled, then `vsce package`.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npm run package
