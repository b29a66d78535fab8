"""The llama backend (a model in seam's process) on real holes: the time of
a whole decoding step, the forward pass's and the full-vocabulary mask's
shares of it, next to llama-server's /completion on the same holes.

    python3 bench/run_inproc_bench.py --seam build/release/seam [--holes 20] \\
        [--model bench-qwen2.5-0.5b-shape-q8_0.gguf] [--candidates 10]

Needs SEAM_LLAMA_DIR and SEAM_TEST_MODELS (scripts/llama.sh and
`scripts/test_models.sh --bench`, which makes the Qwen2.5-Coder-0.5B-shaped
model with random weights and quantizes it to Q8_0: its forward pass costs
what the real model's does).  Holes: boundary and random-span cuts of the
standard library, one line at most, 32 tokens at most.  Per backend:
completions valid for CPython, found, tokens, round trips, milliseconds per
generated token (the whole step: evaluation, candidates, recognizer), and
for the llama backend the positions where no candidate would do and the
whole vocabulary was masked, with the mask's time (the loop's filter time
is candidates plus masks).  `--candidates 1` makes every position whose top
token is invalid go through the mask.

The semantic pruners are on (the default) in the llama rows; the rows
marked "semantic off" are the same without them, and the last lines give
the pruners' cost: the median, over the holes, of the filter's time per
token with them over without them.

Greedy runs both ways: lazily (the candidates in logit order, the mask only
where none is allowed) and with the mask at every position
(`mask_every_step`); they choose the same token at each position, so the
completions agree unless the loop backtracks (the row says in how many
holes they agree).  Sampling (temperature 0.8, top_p 0.95) draws from the
masked distribution at every position.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "backends"))
from harness import valid  # noqa: E402
from llama_server import LlamaServer, cache_dirs  # noqa: E402
from run_llama_bench import holes  # noqa: E402


def run(seam, path, settings):
    out = subprocess.run([seam, "complete", path, "--json", "--timeout-ms", "120000", "--max-tokens", "32",
                          "--multiline", "false"] + settings, capture_output=True, timeout=600)
    try:
        return json.loads(out.stdout.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {"error": out.stderr.decode("utf-8", "replace")[-300:]}


def report(name, rows):
    ok = [r for r in rows if "error" not in r]
    tokens = sum(r["tokens_generated"] for r in ok)
    decode_ms = sum(r["timings_us"]["decode"] for r in ok) / 1000
    per_token = [r["timings_us"]["decode"] / 1000 / r["tokens_generated"] for r in ok if r["tokens_generated"]]
    masks = sum(r.get("vocabulary_masks", 0) for r in ok)
    filter_ms = sum(r["timings_us"]["filter"] for r in ok) / 1000
    print("%-28s valid %2d/%-2d found %2d  tokens %4d  trips %5.1f  ms/token median %6.1f mean %6.1f  "
          "masks %3d  filter %7.1f ms (%4.1f%% of decode)" % (
              name, sum(r["valid"] for r in ok), len(rows), sum(r["found"] for r in ok), tokens,
              statistics.mean(r["round_trips"] for r in ok) if ok else 0,
              statistics.median(per_token) if per_token else 0, decode_ms / tokens if tokens else 0,
              masks, filter_ms, 100 * filter_ms / decode_ms if decode_ms else 0))
    errors = [r["error"] for r in rows if "error" in r]
    if errors:
        print("  errors: %d, first: %s" % (len(errors), errors[0]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--holes", type=int, default=20)
    ap.add_argument("--model", default="bench-qwen2.5-0.5b-shape-q8_0.gguf")
    ap.add_argument("--candidates", default="10")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    llama, models = cache_dirs()
    model = os.path.join(models, args.model)
    work = tempfile.mkdtemp(prefix="seam-inproc-bench-")
    cases = []
    for i, (name, left, right) in enumerate(holes(args.holes, args.seed)):
        path = os.path.join(work, "hole%d.py" % i)
        with open(path, "w", encoding="utf-8") as f:
            f.write(left + right)
        line = left.count("\n") + 1
        col = len(left.rsplit("\n", 1)[-1]) + 1
        cases.append(("%s:%d:%d" % (path, line, col), left, right))
    print("model %s, %d holes, candidates %s" % (args.model, len(cases), args.candidates))
    results = {}
    local = ["--backend", "llama", "--model-path", model, "--candidates", args.candidates, "--context-bytes", "4096"]
    results["llama (in process)"] = [run(args.seam, where, local) for where, _, _ in cases]
    results["llama, semantic off"] = [run(args.seam, where, local + ["--semantic", "false"]) for where, _, _ in cases]
    results["llama, mask every step"] = [run(args.seam, where, local + ["--mask_every_step", "true"])
                                         for where, _, _ in cases]
    results["llama, every step, sem. off"] = [run(args.seam, where, local + ["--mask_every_step", "true",
                                                                               "--semantic", "false"])
                                              for where, _, _ in cases]
    results["llama, sampling"] = [run(args.seam, where, local + ["--temperature", "0.8", "--top_p", "0.95"])
                                  for where, _, _ in cases]
    with LlamaServer(llama, model, ctx=4096) as srv:
        remote = ["--backend", "llamacpp", "--endpoint", srv.url, "--candidates", args.candidates,
                  "--context-bytes", "4096"]
        results["llamacpp (llama-server)"] = [run(args.seam, where, remote) for where, _, _ in cases]
    for name, rows in results.items():
        for r, (_, left, right) in zip(rows, cases):
            if "error" not in r:
                r["valid"] = not r["found"] or valid(left + r["completion"] + right)
        report(name, rows)
    lazy, every = results["llama (in process)"], results["llama, mask every step"]
    agree = sum(a.get("completion") == b.get("completion") for a, b in zip(lazy, every))
    print("lazy and mask-every-step greedy completions agree in %d of %d holes" % (agree, len(cases)))
    for on, off in (("llama (in process)", "llama, semantic off"),
                    ("llama, mask every step", "llama, every step, sem. off")):
        ratios = [(a["timings_us"]["filter"] / a["tokens_generated"]) / (b["timings_us"]["filter"] / b["tokens_generated"])
                  for a, b in zip(results[on], results[off])
                  if "error" not in a and "error" not in b and a["tokens_generated"] and b["tokens_generated"] and
                  b["timings_us"]["filter"]]
        if ratios:
            print("semantic pruners, %s: filter time per token x%.3f median over %d holes (target at most x1.20)"
                  % (on, statistics.median(ratios), len(ratios)))


if __name__ == "__main__":
    main()
