#!/usr/bin/env bash
# Builds the portable seam and prints its path (build/install/seam): a
# release build with libllama, libuv, tree-sitter and libstdc++ linked
# statically, libcurl opened at run time and libcjson looked for in ../lib
# beside the binary first (meson option `portable`).  It runs on a plain
# Debian 12: ldd shows libc, libm and libcjson only.  scripts/install.sh
# installs it; scripts/vsix.sh puts it in the VS Code extension.
#
#   bash scripts/portable.sh [PREFIX]     (PREFIX: where install.sh puts it)
#
# llama.cpp is built once per machine into a cache outside the clone
# (scripts/llama.sh: about 11 minutes on 2 cores the first time, nothing
# after); seam's own build takes about a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
prefix=${1:-$HOME/.local}
log() { printf 'portable: %s\n' "$*" >&2; }

scripts/setup.sh --llama-deps >&2
llama=$(scripts/llama.sh)
dir=build/install
options=(--buildtype=release -Doptimization=2 -Db_ndebug=true -Dtests=disabled -Dllama=enabled -Dportable=true
         "-Dpkg_config_path=$llama/lib/pkgconfig" "--prefix=$prefix")
if [ ! -f "$dir/build.ninja" ]; then
  log "configuring $dir"
  meson setup "$dir" "${options[@]}" >&2
else
  meson setup --reconfigure "$dir" "${options[@]}" >/dev/null
fi
ninja -C "$dir" seam >&2
echo "$root/$dir/seam"
