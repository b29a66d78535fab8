#!/usr/bin/env bash
# Installs CPython 3.10, 3.12, 3.13 and 3.14 compiled to WebAssembly (npm's
# pyodide 0.22.1, 0.27.7, 0.29.5 and 314.0.7) once per machine into a cache outside
# the clone, keyed by tests/pyodide/package-lock.json (which pins every
# package's checksum; `npm ci` checks them), and prints the cache's path.
# About 55 MB to fetch, seconds after the first run.  They are the reference
# parsers of the per-version checks (tests/corpus/version_check.py), run
# with Node by tests/pyodide/parse.mjs.
#
#   scripts/pyodide.sh           # install if missing, print the cache path
#
# In the cache: node_modules/pyodide-3NN/ (pyodide.mjs; python_stdlib.zip
# from 3.12 on, the standard library inside pyodide.asm.data before).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
manifest="$root/tests/pyodide"
key=$(cat "$manifest/package.json" "$manifest/package-lock.json" | sha256sum | cut -c1-16)
cache=${SEAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seam}
prefix="$cache/pyodide-$key"
stamp="$prefix/.complete"

log() { printf 'pyodide.sh: %s\n' "$*" >&2; }

if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi
command -v npm >/dev/null || { log "missing npm (scripts/setup.sh installs it)"; exit 1; }
mkdir -p "$cache"
exec 9>"$cache/pyodide.lock"
flock 9
if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi
rm -rf "$prefix"
mkdir -p "$prefix"
cp "$manifest/package.json" "$manifest/package-lock.json" "$prefix/"
log "fetching pyodide for CPython 3.10, 3.12, 3.13 and 3.14 with npm (about 55 MB, once)"
(cd "$prefix" && npm ci --ignore-scripts --no-audit --no-fund >"$prefix/npm-ci.log" 2>&1) ||
  { tail -30 "$prefix/npm-ci.log" >&2; exit 1; }
for v in 310 312 313 314; do
  [ -f "$prefix/node_modules/pyodide-$v/pyodide.mjs" ] ||
    { log "pyodide-$v has no pyodide.mjs"; exit 1; }
done
touch "$stamp"
echo "$prefix"
