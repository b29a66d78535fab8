#!/usr/bin/env bash
# Installs, builds and runs the whole test suite twice: a -Werror debug
# build, and the same under AddressSanitizer and UndefinedBehaviorSanitizer;
# then the seam scripts/install.sh installs, and each fuzz target for 15 s
# from its seeds.
# Prints Criterion's Synthesis line for every test executable, the corpus
# check's count of cases against CPython, and a closing
# "N passed, N failed" line; exits non-zero on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh --test-deps || exit 1
# llama.cpp and the tiny test models, built once into a cache outside the
# clone (about 10 minutes the first time on 2 cores, then nothing); the
# test builds link its libllama.
SEAM_LLAMA_DIR=$(scripts/llama.sh) || exit 1
SEAM_TEST_MODELS=$(scripts/test_models.sh) || exit 1
export SEAM_LLAMA_DIR SEAM_TEST_MODELS
# code-server, Node 24 and playwright-core for the VS Code test, cached the
# same way (about 3 minutes the first time), and seam's extension packaged
# from editors/vscode.
SEAM_VSCODE_DIR=$(scripts/vscode.sh) || exit 1
# CPython 3.12, 3.13 and 3.14 in WebAssembly (npm's pyodide, about 45 MB
# once): each version's grammar is checked against its own parser.
SEAM_PYODIDE_DIR=$(scripts/pyodide.sh) || exit 1
export SEAM_PYODIDE_DIR
# acorn 8.19, JavaScript's reference parser, and ES module packages to
# check against (npm, pinned, a few MB once).
SEAM_JAVASCRIPT_DIR=$(scripts/javascript.sh) || exit 1
export SEAM_JAVASCRIPT_DIR
# typescript 6.0.3, TypeScript's reference parser, and packages that ship
# their TypeScript sources (npm, pinned, about 12 MB once).
SEAM_TYPESCRIPT_DIR=$(scripts/typescript.sh) || exit 1
export SEAM_TYPESCRIPT_DIR
SEAM_VSIX=$(scripts/vsix.sh) || exit 1
export SEAM_VSCODE_DIR SEAM_VSIX
SEAM_WITH_LLAMA="$SEAM_LLAMA_DIR" scripts/setup.sh debug asan || exit 1

status=0
passed=0
failed=0
for build in debug asan; do
  echo "== $build build"
  failed_before=$failed
  meson_ok=1
  if ! meson test -C "build/$build" --print-errorlogs --num-processes 2 --no-suite corpus-full; then
    status=1
    meson_ok=0
  fi
  log="build/$build/meson-logs/testlog.txt"
  while IFS= read -r line; do
    echo "$build: $line"
    tested=$(sed -n 's/.*Tested: \([0-9]*\).*/\1/p' <<<"$line")
    passing=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
    passed=$((passed + passing))
    failed=$((failed + tested - passing))
  done < <(grep -a 'Synthesis:' "$log" | sed 's/\x1b\[[0-9;]*m//g')
  # the Python checks count their cases in a closing "NAME: N passed, N failed"
  while IFS= read -r line; do
    echo "$build: $line"
    passed=$((passed + $(sed -n 's/^[a-z]*: \([0-9]*\) passed.*/\1/p' <<<"$line")))
    failed=$((failed + $(sed -n 's/.* \([0-9]*\) failed$/\1/p' <<<"$line")))
  done < <(grep -aE '^(corpus|javascript|typescript|jsx|tsx|json|versions|venv|untrusted|backends|llama|inproc|models|lsp|scope|neovim|emacs|vscode|typing): [0-9]+ passed, [0-9]+ failed$' "$log")
  # a test executable that failed without reporting a failed case (a crash,
  # a time-out) still counts as one failure
  if [ "$meson_ok" -eq 0 ] && [ "$failed" -eq "$failed_before" ]; then
    echo "$build: a test executable failed without a count (see above)"
    failed=$((failed + 1))
  fi
done
# the seam a user installs (scripts/install.sh: release, libllama linked
# in) into a scratch PREFIX, then asked to complete with a GGUF model
echo "== install"
install_prefix=$(mktemp -d)
# (its runs keep their cache beside the installation, not in the user's)
export SEAM_CACHE_DIR="$install_prefix/seam-cache"
install_counted=0
if bash scripts/install.sh "$install_prefix" >build/install.log 2>&1; then
  while IFS= read -r line; do
    echo "$line"
    case "$line" in
      "install: "*" passed, "*)
        install_counted=1
        passed=$((passed + $(sed -n 's/^install: \([0-9]*\) passed.*/\1/p' <<<"$line")))
        failed=$((failed + $(sed -n 's/.* \([0-9]*\) failed$/\1/p' <<<"$line")))
        ;;
    esac
  done < <(python3 tests/backends/install_check.py --seam "$install_prefix/bin/seam" 2>&1)
fi
if [ "$install_counted" -eq 0 ]; then
  echo "install: scripts/install.sh or its check failed (see build/install.log)"
  tail -5 build/install.log
  failed=$((failed + 1))
fi
rm -rf "$install_prefix"
# a short run of each fuzz target from its seeds in tests/fuzz/ (a clang
# build with both sanitizers; scripts/fuzz.sh SECONDS for a long one)
echo "== fuzz"
fuzz_counted=0
while IFS= read -r line; do
  echo "$line"
  case "$line" in
    "fuzz: "*)
      fuzz_counted=1
      passed=$((passed + $(sed -n 's/^fuzz: \([0-9]*\) passed.*/\1/p' <<<"$line")))
      failed=$((failed + $(sed -n 's/.* \([0-9]*\) failed$/\1/p' <<<"$line")))
      ;;
  esac
done < <(scripts/fuzz.sh 15 2>&1)
if [ "$fuzz_counted" -eq 0 ]; then
  echo "fuzz: the fuzz build did not run"
  failed=$((failed + 1))
fi
[ "$failed" -eq 0 ] || status=1
[ "$passed" -gt 0 ] || status=1
echo "tests: $passed passed, $failed failed"
exit $status
