#!/usr/bin/env bash
# Installs what seam needs on a Debian 12 machine, fetches the languages'
# tree-sitter grammars with npm (tree-sitter-python, tree-sitter-javascript,
# tree-sitter-typescript: not in Debian), and configures and builds the
# requested build directories.
# Idempotent: a second run installs nothing and only rebuilds what changed.
#
#   scripts/setup.sh [--test-deps | --llama-deps] [release] [debug] [asan]
#
# --test-deps also installs what only the tests need (the editors, chromium,
# what builds llama.cpp and code-server's native modules), so that the main
# job (scripts/demo.sh) does not wait for them; --llama-deps only what
# builds llama.cpp (scripts/install.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

debian_packages=(
  gcc meson ninja-build pkg-config python3
  libuv1-dev libcjson-dev libtree-sitter-dev libcriterion-dev libcurl4-openssl-dev
  unicode-data
)
# what builds llama.cpp (scripts/llama.sh)
llama_packages=(g++ cmake git)
test_packages=(
  neovim emacs-nox elpa-eglot elpa-lsp-mode
  # for the tests on llama.cpp (scripts/llama.sh, scripts/test_models.sh)
  "${llama_packages[@]}" python3-numpy python3-yaml
  # for the VS Code test (scripts/vscode.sh builds code-server's native
  # modules; playwright-core drives chromium)
  make libkrb5-dev chromium
  # libFuzzer for the fuzz targets' short runs (scripts/fuzz.sh)
  clang
  # a virtual environment with a compiled module the test builds, over
  # Debian's numpy (tests/corpus/venv_check.py)
  python3-venv python3-dev
  # CPython 3.11's own test suite: test_fstring.py's snippets are checked
  # (tests/corpus/fstring_check.py)
  libpython3.11-testsuite
)
if [ "${1:-}" = "--test-deps" ]; then
  debian_packages+=("${test_packages[@]}")
  shift
elif [ "${1:-}" = "--llama-deps" ]; then
  debian_packages+=("${llama_packages[@]}")
  shift
fi
# The tree-sitter grammars, NAME VERSION SHA-256 of npm's tarball: versions
# whose parser.c is ABI 14, which Debian 12's libtree-sitter 0.20.7 loads.
tree_sitter_grammars=(
  "tree-sitter-python 0.23.6 aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a"
  "tree-sitter-javascript 0.23.1 90e80b25a67517a4daf6ad751557bee21efbda7b7a5a554897933245d1734398"
  "tree-sitter-typescript 0.23.2 0fdf63c35930a75885145d75ee63cb879da2d49db9bfe454bd8e60b08ba778a1"
)

log() { printf 'setup: %s\n' "$*" >&2; }

install_debian_packages() {
  local missing=() pkg
  for pkg in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# fetch_grammar NAME VERSION SHA256: npm's package NAME@VERSION, checked,
# unpacked into third_party/NAME once.
fetch_grammar() {
  local name=$1 version=$2 sha256=$3
  local dir="third_party/$name" stamp="third_party/$name/.seam-$version"
  [ -f "$stamp" ] && return 0
  command -v npm >/dev/null || install_npm
  log "fetching $name $version with npm"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null 2>&1)
  local tarball="$tmp/$name-$version.tgz"
  echo "$sha256  $tarball" | sha256sum --check --quiet || {
    log "checksum mismatch for $tarball"; rm -rf "$tmp"; exit 1; }
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -xzf "$tarball" -C "$dir" --strip-components=1
  rm -rf "$tmp"
  touch "$stamp"
}

install_npm() {
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq npm >&2
}

# configure NAME MESON-ARGS...: sets up build/NAME once, then builds it.
# With SEAM_WITH_LLAMA set to a llama.cpp build (scripts/llama.sh), the build
# must link its libllama.
configure_and_build() {
  local name=$1; shift
  local dir="build/$name"
  local llama=()
  if [ -n "${SEAM_WITH_LLAMA:-}" ]; then
    llama=(-Dllama=enabled "-Dpkg_config_path=$SEAM_WITH_LLAMA/lib/pkgconfig")
  fi
  if [ ! -f "$dir/build.ninja" ]; then
    log "configuring $dir"
    meson setup "$dir" "$@" "${llama[@]}" >&2
  elif [ ${#llama[@]} -gt 0 ]; then
    meson configure "$dir" "${llama[@]}" >/dev/null
  fi
  ninja -C "$dir" >&2
}

install_debian_packages
for grammar in "${tree_sitter_grammars[@]}"; do
  # shellcheck disable=SC2086
  fetch_grammar $grammar
done

for build in "$@"; do
  case "$build" in
    release) configure_and_build release --buildtype=release -Doptimization=2 -Db_ndebug=true ;;
    debug)   configure_and_build debug --buildtype=debug --werror ;;
    asan)    configure_and_build asan --buildtype=debug --werror -Db_sanitize=address,undefined -Db_lundef=false ;;
    *) log "unknown build '$build' (release, debug or asan)"; exit 2 ;;
  esac
done
