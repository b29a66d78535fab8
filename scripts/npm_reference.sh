#!/usr/bin/env bash
# Installs the npm packages a test folder pins (its package.json and
# package-lock.json, which holds every package's checksum; `npm ci` checks
# them) once per machine into a cache outside the clone, keyed by those two
# files, and prints the cache's path.  Used by scripts/pyodide.sh and
# scripts/javascript.sh.
#
#   scripts/npm_reference.sh NAME WHAT FILE...
#     NAME   the folder tests/NAME and the cache entry NAME-<key>
#     WHAT   what is fetched, for the log
#     FILE   paths under the cache entry that must exist afterwards
set -euo pipefail

name=$1 what=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
manifest="$root/tests/$name"
key=$(cat "$manifest/package.json" "$manifest/package-lock.json" | sha256sum | cut -c1-16)
cache=${SEAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seam}
prefix="$cache/$name-$key"
stamp="$prefix/.complete"

log() { printf '%s: %s\n' "$name" "$*" >&2; }

if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi
command -v npm >/dev/null || { log "missing npm (scripts/setup.sh installs it)"; exit 1; }
mkdir -p "$cache"
exec 9>"$cache/$name.lock"
flock 9
if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi
rm -rf "$prefix"
mkdir -p "$prefix"
cp "$manifest/package.json" "$manifest/package-lock.json" "$prefix/"
log "fetching $what with npm (once)"
(cd "$prefix" && npm ci --ignore-scripts --no-audit --no-fund >"$prefix/npm-ci.log" 2>&1) ||
  { tail -30 "$prefix/npm-ci.log" >&2; exit 1; }
for file in "$@"; do
  [ -e "$prefix/$file" ] || { log "$file is missing after npm ci"; exit 1; }
done
touch "$stamp"
echo "$prefix"
