#!/usr/bin/env bash
# Packages the VS Code extension (editors/vscode) as a .vsix with
# @vscode/vsce and prints its path: build/vscode/seam-VERSION.vsix.
#
# Its dependencies (vscode-languageclient, and vsce to package) come from
# npm as editors/vscode/package-lock.json pins them; vsce needs Node 22 or
# later, which scripts/vscode.sh provides (Node 24, cached outside the
# clone).  Install the result with `code --install-extension FILE`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools=$(scripts/vscode.sh)
node24="$tools/node/bin"
stage=build/vscode/extension
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' editors/vscode/package.json)
out="$root/build/vscode/seam-$version.vsix"

log() { printf 'vsix.sh: %s\n' "$*" >&2; }

mkdir -p "$stage"
# A fresh copy of the sources beside the installed dependencies.
find "$stage" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
cp editors/vscode/package.json editors/vscode/package-lock.json editors/vscode/extension.js \
  editors/vscode/README.md editors/vscode/.vscodeignore "$stage/"
if ! cmp -s editors/vscode/package-lock.json "$stage/node_modules/.seam-lock"; then
  log "installing the extension's dependencies with npm"
  (cd "$stage" && PATH="$node24:$PATH" npm ci --no-audit --no-fund >npm-ci.log 2>&1) ||
    { tail -20 "$stage/npm-ci.log" >&2; exit 1; }
  cp editors/vscode/package-lock.json "$stage/node_modules/.seam-lock"
fi
rm -f "$out"
(cd "$stage" && PATH="$node24:$PATH" ./node_modules/.bin/vsce package --skip-license \
  --allow-missing-repository --out "$out" >vsce.log 2>&1) || { tail -20 "$stage/vsce.log" >&2; exit 1; }
echo "$out"
