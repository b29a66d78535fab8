#!/usr/bin/env bash
# Fuzzes the language server's framing and message handling with libFuzzer
# for a bounded time (default 120 s): bash scripts/fuzz.sh [SECONDS]
# Builds build/fuzz with clang, AddressSanitizer and UndefinedBehaviorSanitizer;
# installs clang from Debian when it is missing.  Not part of the test run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-120}
scripts/setup.sh >/dev/null
if ! command -v clang >/dev/null; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends clang >&2
fi
if [ ! -d build/fuzz ]; then
  CC=clang meson setup build/fuzz -Dfuzz=true -Dtests=disabled -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C build/fuzz fuzz_lsp >/dev/null
corpus=build/fuzz/corpus
mkdir -p "$corpus"
cp -n tests/fuzz/seeds/* "$corpus"/ 2>/dev/null || true
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  build/fuzz/fuzz_lsp -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 "$corpus"
