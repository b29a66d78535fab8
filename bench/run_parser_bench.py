#!/usr/bin/env python3
"""Benchmarks seam's recognizer against CPython's own parser, in one run.

usage: bench/run_parser_bench.py [--bench build/release/bench/bench_parser]
                                 [--files N] [--seed S]

Picks N files of the machine's standard library (fixed seed), runs
bench_parser on them, times ast.parse on the same text (best of 3) in the
same run, and prints the issue's figures:
  - feeding a whole file: median of seam's time / ast.parse's time;
  - one-byte feed after a long prefix: median ns;
  - save + feed one token + restore: median ns;
  - peak memory (max RSS) of a process that handles only the largest file.
"""
import argparse
import ast
import json
import random
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path


def stdlib_files(count: int, seed: int) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    candidates = []
    for path in sorted(root.rglob("*.py")):
        parts = set(path.parts)
        if "site-packages" in parts or "lib2to3" in parts or "test" in parts or "tests" in parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
            ast.parse(text)
        except Exception:
            continue
        candidates.append(path)
    random.Random(seed).shuffle(candidates)
    chosen = candidates[:count]
    # always include a large file for the memory figure
    big = [p for p in candidates if 90_000 <= p.stat().st_size <= 120_000]
    if big and big[0] not in chosen:
        chosen.append(big[0])
    return chosen


def ast_time_us(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        ast.parse(text)
        best = min(best, time.perf_counter() - start)
    return best * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/release/bench/bench_parser")
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--python", default="3.11",
                        help="the grammar's Python version (the files are the machine's 3.11 standard library)")
    args = parser.parse_args()
    files = stdlib_files(args.files, args.seed)
    out = subprocess.run([args.bench, "--python", args.python, *map(str, files)], capture_output=True, text=True,
                         check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    ratios, chars, trials = [], [], []
    rejected = []
    for row in rows:
        text = Path(row["file"]).read_text(encoding="utf-8")
        row["ast_us"] = ast_time_us(text)
        ratios.append(row["feed_whole_us"] / row["ast_us"])
        chars.append(row["char_feed_ns_median"])
        trials.append(row["trial_ns_median"])
        if not row["complete"]:
            rejected.append(row["file"])
    largest = max(rows, key=lambda r: r["bytes"])
    # peak memory of one process that handles only the largest file
    alone = subprocess.run([args.bench, "--python", args.python, largest["file"]], capture_output=True, text=True,
                           check=True)
    largest_rss = json.loads(alone.stdout.splitlines()[0])["max_rss_kb"]
    summary = {
        "python": args.python,
        "files": len(rows),
        "feed_whole_over_ast_median": round(statistics.median(ratios), 2),
        "char_feed_ns_median": statistics.median(chars),
        "trial_ns_median": statistics.median(trials),
        "largest_file_bytes": largest["bytes"],
        "largest_file_max_rss_kb": largest_rss,
        "char_feed_ns_median_after_10_50_90_percent": [
            statistics.median(r["char_feed_ns_at_10"] for r in rows),
            statistics.median(r["char_feed_ns_at_50"] for r in rows),
            statistics.median(r["char_feed_ns_at_90"] for r in rows),
        ],
        "rejected_files": rejected,
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
