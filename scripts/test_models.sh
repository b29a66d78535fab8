#!/usr/bin/env bash
# Generates the tiny GGUF models seam's tests run on llama.cpp (random
# weights or scripted output around real vocabularies; see
# tests/models/make_models.py) into the cache beside the llama.cpp build,
# keyed by the build and the generator's text, and prints their folder.
# Needs the llama.cpp build (scripts/llama.sh) for gguf-py and the
# vocabularies, and Debian's python3-numpy and python3-yaml.  Takes about a minute once.
#
#   scripts/test_models.sh [--bench]   # --bench adds the Qwen2.5-Coder-0.5B-shaped model (and its Q8_0)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
llama=$("$root/scripts/llama.sh")
generator="$root/tests/models/make_models.py"
key=$(sha256sum "$generator" | cut -c1-16)
out="$(dirname "$llama")/models-$(basename "$llama")-$key"
bench=()
want="$out/.complete"
if [ "${1:-}" = "--bench" ]; then
  bench=(--bench)
  want="$out/.complete-bench"
fi
if [ ! -f "$want" ]; then
  exec 9>"$(dirname "$llama")/models.lock"
  flock 9
  if [ ! -f "$want" ]; then
    printf 'test_models.sh: generating the test models in %s\n' "$out" >&2
    # Debian's python3 has Debian's numpy, whatever python3 is first on PATH.
    /usr/bin/python3 "$generator" --gguf-py "$llama/gguf-py" --vocab "$llama/models" --out "$out" "${bench[@]}" >&2
    if [ ${#bench[@]} -gt 0 ]; then
      # The benchmark's model as users run it: quantized to Q8_0 by
      # llama.cpp's own tool.
      "$llama/bin/llama-quantize" "$out/bench-qwen2.5-0.5b-shape-f32.gguf" \
        "$out/bench-qwen2.5-0.5b-shape-q8_0.gguf" Q8_0 >"$out/quantize.log" 2>&1 ||
        { tail -20 "$out/quantize.log" >&2; exit 1; }
    fi
    touch "$want"
  fi
fi
echo "$out"
