#!/usr/bin/env bash
# Builds seam for use and installs it: the portable release build
# (scripts/portable.sh) with libllama linked statically (the llama backend:
# GGUF models in seam's own process), under PREFIX (default ~/.local; the
# binary in PREFIX/bin).
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

scripts/portable.sh "$prefix" >/dev/null
meson install -C build/install --quiet --only-changed >&2
log "installed $prefix/bin/seam"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) log "$prefix/bin is not on PATH: add it, or point your editor's seam.path at $prefix/bin/seam" ;;
esac
"$prefix/bin/seam" --version
