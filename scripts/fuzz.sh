#!/usr/bin/env bash
# Fuzzes seam with libFuzzer, each target for SECONDS (default 120):
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Targets (tests/fuzz/fuzz_TARGET.c, seeds in tests/fuzz/TARGET/): lsp (the
# language server's framing and messages), recognizer (the recognizer and
# the quotient against a fresh recognizer), semantic (the pruners), settings
# (JSON settings and NAME=VALUE), check (`seam check`'s input), context (the
# project's other files: import readers and the chunks picked), mask (the
# vocabulary walk's masks against a check of every token).  All of them
# by default.  Builds build/fuzz with clang, AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage on all of seam's code.
# The corpus grows in build/fuzz/corpus/TARGET; a crash, leak or time-out
# leaves its input in build/fuzz/artifacts/.  Prints one line per target
# (runs, runs per second) and "fuzz: N passed, N failed"; exits non-zero on
# any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-120}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(lsp recognizer semantic settings check context mask)
scripts/setup.sh >/dev/null || exit 1
if ! command -v clang >/dev/null; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends clang >&2 || exit 1
fi
if [ ! -f build/fuzz/build.ninja ]; then
  CC=clang meson setup build/fuzz -Dfuzz=true -Dtests=disabled -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debugoptimized -Dllama=disabled >/dev/null || exit 1
fi
ninja -C build/fuzz $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null || exit 1

# The longest input each target is given: past the caps it must hold to
# (the language server's test cap on a message is 64 KiB; 200 brackets and
# 100 indents for the recognizer; 1,000 levels for the pruners' walk).
max_len_of() {
  case "$1" in
    lsp) echo 80000 ;;
    check) echo 16384 ;;
    mask) echo 512 ;;
    *) echo 8192 ;;
  esac
}

passed=0
failed=0
mkdir -p build/fuzz/artifacts
# the targets' own cache folder: nothing read from or written to the user's
# (a fuzz run depends on its inputs alone)
export SEAM_CACHE_DIR="$PWD/build/fuzz/seam-cache"
rm -rf "$SEAM_CACHE_DIR"
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  mkdir -p "$corpus"
  cp -n tests/fuzz/"$t"/* "$corpus"/ 2>/dev/null || true
  log=build/fuzz/$t.log
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    build/fuzz/fuzz_"$t" -max_total_time="$seconds" -max_len="$(max_len_of "$t")" -timeout=20 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/"$t"- "$corpus" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1))
    echo "fuzz $t: ${runs:-0} runs in ${seconds} s, ${rate:-0} a second, corpus $(ls "$corpus" | wc -l) inputs"
  else
    failed=$((failed + 1))
    echo "fuzz $t: FAILED after ${runs:-?} runs (exit $rc); see $log"
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
