#!/usr/bin/env bash
# Builds seam for use and installs it: a release build with libllama linked
# statically (the llama backend: GGUF models in seam's own process), under
# PREFIX (default ~/.local; the binary in PREFIX/bin).
#
#   bash scripts/install.sh [PREFIX]
#
# llama.cpp is built once per machine into a cache outside the clone
# (scripts/llama.sh: about 11 minutes on 2 cores the first time, nothing
# after); seam's own build takes about a minute.  Prints the installed
# binary's --version, which names the backends it has.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
prefix=${1:-$HOME/.local}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
log() { printf 'install: %s\n' "$*" >&2; }

scripts/setup.sh --llama-deps
llama=$(scripts/llama.sh)
dir=build/install
options=(--buildtype=release -Doptimization=2 -Db_ndebug=true -Dtests=disabled -Dllama=enabled
         "-Dpkg_config_path=$llama/lib/pkgconfig" "--prefix=$prefix")
if [ ! -f "$dir/build.ninja" ]; then
  log "configuring $dir"
  meson setup "$dir" "${options[@]}" >&2
else
  meson configure "$dir" "${options[@]}" >/dev/null
fi
ninja -C "$dir" >&2
meson install -C "$dir" --quiet --only-changed >&2
log "installed $prefix/bin/seam"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) log "$prefix/bin is not on PATH: add it, or point your editor's seam.path at $prefix/bin/seam" ;;
esac
"$prefix/bin/seam" --version
