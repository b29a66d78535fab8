#!/usr/bin/env bash
# Installs, builds and runs the whole test suite twice: a -Werror debug
# build, and the same under AddressSanitizer and UndefinedBehaviorSanitizer.
# Prints Criterion's Synthesis line for every test executable and a closing
# "N passed, N failed" line; exits non-zero on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh debug asan || exit 1

status=0
passed=0
failed=0
for build in debug asan; do
  echo "== $build build"
  if ! meson test -C "build/$build" --print-errorlogs --num-processes 2; then
    status=1
  fi
  log="build/$build/meson-logs/testlog.txt"
  while IFS= read -r line; do
    echo "$build: $line"
    tested=$(sed -n 's/.*Tested: \([0-9]*\).*/\1/p' <<<"$line")
    passing=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
    passed=$((passed + passing))
    failed=$((failed + tested - passing))
  done < <(grep -a 'Synthesis:' "$log" | sed 's/\x1b\[[0-9;]*m//g')
done
[ "$failed" -eq 0 ] || status=1
[ "$passed" -gt 0 ] || status=1
echo "tests: $passed passed, $failed failed"
exit $status
