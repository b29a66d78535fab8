"""seam against a real llama-server: each way of asking, on the same holes.

    python3 bench/run_llama_bench.py --seam build/release/seam [--holes 40] [--model random-qwen2.gguf]

Needs SEAM_LLAMA_DIR and SEAM_TEST_MODELS (scripts/llama.sh and
scripts/test_models.sh print them).  For every mode (llama.cpp /completion
with the template as token ids, llama.cpp /infill, OpenAI-compatible
/v1/completions), on holes cut from the standard library (boundary and
random-span cuts, one line at most), reports: completions valid for CPython,
completions found, round trips per completion, the prompt's length in
tokens (a one-token request made first, which also fills the server's
cache), the prompt tokens the server re-evaluated per round trip of the
completion itself (from its own /metrics counter, so any seam binary is
measured alike), and the time per completion.  The model has
random weights around a real vocabulary, so completions are meaningless but
the requests are real.  `--legacy` runs a binary from before llamacpp_mode
(its default was /infill, and /completion needed --template).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "backends"))
from harness import valid  # noqa: E402
from stdlib_files import random_files  # noqa: E402
from llama_server import LlamaServer, cache_dirs  # noqa: E402


def holes(count, seed):
    rng = random.Random(seed)
    out = []
    files = random_files(rng, 20)
    while len(out) < count:
        name, text, lines = next(files)
        i = rng.randrange(5, len(lines) - 5)
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if len(out) % 2 == 0:
            a, b = indent, len(line)                      # boundary: the rest of the line
        else:
            a = rng.randrange(indent, len(line))
            b = rng.randrange(a, len(line) + 1)           # random span within the line
        start = sum(len(l) + 1 for l in lines[:i])
        left, right = text[:start + a], text[start + b:]
        out.append((name, left, right))
    return out


def modes(url, legacy, template):
    if legacy:
        return [("completion", ["--backend", "llamacpp", "--endpoint", url, "--template", template]),
                ("infill", ["--backend", "llamacpp", "--endpoint", url]),
                ("openai", ["--backend", "openai", "--endpoint", url + "/v1", "--model", template])]
    return [("completion", ["--backend", "llamacpp", "--endpoint", url]),
            ("infill", ["--backend", "llamacpp", "--endpoint", url, "--llamacpp-mode", "infill"]),
            ("openai", ["--backend", "openai", "--endpoint", url + "/v1"])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--holes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--model", default="random-qwen2.gguf")
    ap.add_argument("--template", default="qwen2.5-coder", help="with --legacy: the template to name")
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--ctx", type=int, default=4096)
    args = ap.parse_args()
    llama, models = cache_dirs()
    cases = holes(args.holes, args.seed)
    work = tempfile.mkdtemp(prefix="seam-llama-bench-")
    print("%d holes, model %s, llama-server -c %d" % (len(cases), args.model, args.ctx))
    print("%-11s %6s %6s %6s %7s %8s %10s %10s %9s" % ("mode", "valid", "found", "errors", "trips", "prompt",
                                                         "re-eval/rt", "ms median", "ms p90"))
    for name, settings in modes("URL", args.legacy, args.template):
        with LlamaServer(llama, os.path.join(models, args.model), ctx=args.ctx) as srv:
            settings = [s.replace("URL", srv.url) for s in settings]
            valid_n = found = errors = trips = 0
            times = []
            first = reeval = 0.0
            for i, (base, left, right) in enumerate(cases):
                path = os.path.join(work, "%d_%s" % (i, base))
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(left + right)
                line = left.count("\n") + 1
                col = len(left.rsplit("\n", 1)[-1]) + 1
                cmd = [args.seam, "complete", "%s:%d:%d" % (path, line, col), "--json", "--timeout-ms", "30000"]
                before = srv.metric("prompt_tokens_total")
                subprocess.run(cmd + settings + ["--max-tokens", "1", "--run-ahead", "1"], capture_output=True)
                mid = srv.metric("prompt_tokens_total")
                start = time.monotonic()
                run = subprocess.run(cmd + settings, capture_output=True, text=True)
                times.append((time.monotonic() - start) * 1000)
                first += mid - before
                reeval += srv.metric("prompt_tokens_total") - mid
                try:
                    out = json.loads(run.stdout)
                except json.JSONDecodeError:
                    errors += 1
                    continue
                if out.get("error"):
                    errors += 1
                trips += out.get("round_trips", 0)
                if out["found"]:
                    found += 1
                    valid_n += valid(left + out["completion"] + right)
                else:
                    valid_n += 1   # nothing offered is never invalid
            times.sort()
            print("%-11s %6d %6d %6d %7.2f %8.0f %10.1f %10.1f %9.1f" % (
                name, valid_n, found, errors, trips / len(cases), first / len(cases), reeval / max(trips, 1),
                statistics.median(times), times[int(len(times) * 0.9)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
