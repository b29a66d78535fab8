#!/usr/bin/env bash
# Packages the VS Code extension (editors/vscode) for Linux x64 with
# @vscode/vsce (--target linux-x64) and prints its path:
# build/vscode/seam-linux-x64-VERSION.vsix.  It carries the portable seam
# (scripts/portable.sh) in bin/ and libcjson in lib/, so that it works with
# no seam installed; the extension prefers seam.path, then seam on PATH,
# then ~/.local/bin/seam.
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
target=linux-x64
out="$root/build/vscode/seam-$target-$version.vsix"

log() { printf 'vsix.sh: %s\n' "$*" >&2; }

mkdir -p "$stage"
# A fresh copy of the sources beside the installed dependencies.
find "$stage" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
cp editors/vscode/package.json editors/vscode/package-lock.json editors/vscode/extension.js editors/vscode/models.js \
  editors/vscode/python.js \
  editors/vscode/README.md editors/vscode/.vscodeignore "$stage/"
if ! cmp -s editors/vscode/package-lock.json "$stage/node_modules/.seam-lock"; then
  log "installing the extension's dependencies with npm"
  (cd "$stage" && PATH="$node24:$PATH" npm ci --no-audit --no-fund >npm-ci.log 2>&1) ||
    { tail -20 "$stage/npm-ci.log" >&2; exit 1; }
  cp editors/vscode/package-lock.json "$stage/node_modules/.seam-lock"
fi
# The binary and the one shared library a plain Debian 12 may lack.
seam=$(scripts/portable.sh)
mkdir -p "$stage/bin" "$stage/lib"
strip -o "$stage/bin/seam" "$seam"
cjson=$(ldd "$seam" | sed -n 's/^[[:space:]]*libcjson\.so\.1 => \([^ ]*\) .*/\1/p')
[ -n "$cjson" ] || { log "ldd does not show libcjson.so.1 for $seam"; exit 1; }
cp -L "$cjson" "$stage/lib/libcjson.so.1"
rm -f "$out"
(cd "$stage" && PATH="$node24:$PATH" ./node_modules/.bin/vsce package --target "$target" --skip-license \
  --allow-missing-repository --out "$out" >vsce.log 2>&1) || { tail -20 "$stage/vsce.log" >&2; exit 1; }
echo "$out"
