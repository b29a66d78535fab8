"""The decoding loop's own cost, with a model server that answers at once.

    python3 bench/run_decode_bench.py --seam build/release/seam [--cases 60] [--repeat 3]

Cuts single-line middles out of standard-library files and serves, through
the loopback llama.cpp server, a scripted model whose top candidate at each
position is sometimes a wrong token (a bracket or keyword that breaks the
program) and whose second is the true next piece.  Runs `seam complete`
per-token (run-ahead 1) and with run-ahead 16, and with run-ahead 16 and the
semantic pruners on, and reports, per completion: the filter's time per
generated token, its share of the decoding's wall time, and the round trips
of each mode; and how much the semantic pruners add to the filter's time
per token (the median of the per-completion ratios, same cases, same run).
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "backends"))
from loopback import EOS, LoopbackServer, Script  # noqa: E402

PIECE = re.compile(r"\s*(\w+|\*\*=?|//=?|[-+*/%&|^<>=!:]=|->|\S)")
WRONG = [")", "]", "}", " def", " class", ":", " import", " =", "else"]


def pieces(text):
    out, i = [], 0
    while i < len(text):
        m = PIECE.match(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(m.group(0))
        i = m.end()
    return out


def cases(count, seed):
    rng = random.Random(seed)
    root = sysconfig.get_paths()["stdlib"]
    files = sorted(p for p in os.listdir(root) if p.endswith(".py"))
    rng.shuffle(files)
    out = []
    for name in files:
        if len(out) >= count:
            break
        try:
            text = open(os.path.join(root, name), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        lines = text.split("\n")
        candidates = [i for i, l in enumerate(lines) if 20 <= len(l.strip()) <= 70 and not l.strip().startswith("#")]
        if not candidates:
            continue
        i = rng.choice(candidates)
        line = lines[i]
        indent = len(line) - len(line.lstrip())
        start = indent + rng.randrange(max(1, (len(line) - indent) // 3))
        left = "\n".join(lines[:i]) + "\n" + line[:start]
        middle = line[start:]
        right = "\n" + "\n".join(lines[i + 1:])
        out.append((name, left, middle, right))
    return out


def script_for(middle, rng):
    steps, done = {}, ""
    for p in pieces(middle):
        cands = [(p, -0.7)]
        if rng.random() < 0.3:
            cands.insert(0, (rng.choice(WRONG), -0.5))
        cands += [(w, -3.0 - k) for k, w in enumerate(rng.sample(WRONG, 3))]
        steps[done] = cands
        done += p
    steps[done] = [(EOS, -0.1), ("\n", -2.0)]
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each mode per case (the fastest is kept)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="seam-decode-bench-")
    modes = {"1": ["--run-ahead", "1", "--semantic", "false"], "16": ["--run-ahead", "16", "--semantic", "false"],
             "16 semantic": ["--run-ahead", "16", "--semantic", "true"]}
    rows = {mode: [] for mode in modes}
    for name, left, middle, right in cases(args.cases, args.seed):
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(left + right)
        line = left.count("\n") + 1
        col = len(left.rsplit("\n", 1)[-1]) + 1
        steps = script_for(middle, rng)
        for mode in rows:
            # Each mode runs --repeat times; the run with the least filter
            # time is kept (the loop's own cost, without the machine's noise).
            best = None
            for _ in range(args.repeat):
                with LoopbackServer(Script(steps)) as server:
                    run = subprocess.run([args.seam, "complete", "%s:%d:%d" % (path, line, col), "--json",
                                          "--backend", "llamacpp", "--endpoint", server.url, *modes[mode],
                                          "--max-tokens", "64", "--timeout-ms", "20000"],
                                         capture_output=True, text=True, timeout=60)
                out = json.loads(run.stdout)
                if best is None or out["timings_us"]["filter"] < best["timings_us"]["filter"]:
                    best = out
            rows[mode].append(best)
    print("decoding with a loopback llama.cpp server, %d single-line completions" % len(rows["1"]))
    same = sum(a["completion"] == b["completion"] for a, b in zip(rows["1"], rows["16"]))
    true = sum(o["found"] for o in rows["16"])
    print("  run-ahead 16 equals per-token: %d / %d; completions found: %d" % (same, len(rows["1"]), true))
    for mode, outs in rows.items():
        toks = [max(1, o["tokens_generated"]) for o in outs]
        per_tok = [o["timings_us"]["filter"] / t for o, t in zip(outs, toks)]
        share = [o["timings_us"]["filter"] / max(1, o["timings_us"]["decode"]) for o in outs]
        trips = [o["round_trips"] for o in outs]
        print("  run-ahead %-11s: filter %.1f us/token median (p90 %.1f), %.1f%% of decoding wall time, "
              "round trips %.1f mean (%d in all), %.1f tokens mean"
              % (mode, statistics.median(per_tok), sorted(per_tok)[int(0.9 * len(per_tok))],
                 100 * statistics.median(share), statistics.mean(trips), sum(trips), statistics.mean(toks)))
    same = sum(a["completion"] == b["completion"] for a, b in zip(rows["16"], rows["16 semantic"]))
    ratios = [(s["timings_us"]["filter"] / max(1, s["tokens_generated"])) /
              max(1e-9, b["timings_us"]["filter"] / max(1, b["tokens_generated"]))
              for b, s in zip(rows["16"], rows["16 semantic"])]
    refused = sum(sum(o.get("semantic_refused", {}).values()) for o in rows["16 semantic"])
    print("  semantic pruners: filter time per token x%.3f median (p90 x%.3f; target at most x1.20), "
          "same completions %d / %d, %d candidates refused"
          % (statistics.median(ratios), sorted(ratios)[int(0.9 * len(ratios))], same, len(ratios), refused))


if __name__ == "__main__":
    main()
