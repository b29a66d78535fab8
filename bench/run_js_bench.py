#!/usr/bin/env python3
"""Set-up time of a JavaScript file next to a Python file of the same size,
each next to its own language's parser, in one run; and of TypeScript, TSX
and JSX files next to theirs.

usage: bench/run_js_bench.py [--seam build/release/seam] [--files 40] [--seed 1] [--min-bytes 4000]

Pairs real JavaScript files (tests/corpus/js_check.py's sample) with
standard-library Python files of about the same size, cuts each at the
start of its middle line (left: the text before, empty middle, right: the
rest) and runs `seam check` on both, best of 3 per case.  Prints, per
language, the medians of: the set-up (the recognizer fed the left context),
can_end at the cut (for JavaScript it feeds the whole right context), the
whole file fed byte by byte per KB, and the reference parser's time for the
whole file (acorn under Node, ast.parse), with the file sizes.  The issue's
target: set-up for JavaScript no more than Python's at the same size.  The
same figures follow for TypeScript and TSX files (tests/corpus/ts_check.py's
samples, TypeScript's parser) and JSX files (jsx_check.py's, acorn-jsx).
"""
import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "corpus"))
sys.path.insert(0, str(HERE))
import js_check  # noqa: E402
import jsx_check  # noqa: E402
import stdlib_check  # noqa: E402
import ts_check  # noqa: E402
from run_parser_bench import ast_time_us  # noqa: E402
from run_fim_bench import best_of_runs  # noqa: E402


def seam_rows(seam: str, cases: list, runs: int = 3) -> list:
    return best_of_runs(seam, "".join(json.dumps(c) + "\n" for c in cases), runs)


def reference_us(parser: js_check.NodeParser, items: list) -> list:
    """The reference parser's best time of 5 for each (text, key)."""
    payload = "".join(json.dumps({"id": i, "text": t, parser.key: g, "repeat": 5}) + "\n"
                      for i, (t, g) in enumerate(items))
    out = subprocess.run(parser.argv, input=payload, capture_output=True, text=True, check=True)
    rows = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}
    return [rows[i]["us"] for i in range(len(items))]


def acorn_us(cache: Path, items: list) -> list:
    return reference_us(js_check.Acorn(cache), items)


def other_languages(args):
    """(name, language, files, reference) for TypeScript, TSX and JSX."""
    ts_cache, js_cache = js_check.reference_dir("typescript"), js_check.reference_dir("javascript")
    ts, tsx, jsx = ts_check.TypeScript(ts_cache), ts_check.TypeScript(ts_cache, "tsx"), jsx_check.AcornJsx(js_cache)
    picks = [
        ("typescript", "typescript", ts, ts_check.pick_files(
            ts, ts_check.candidate_paths(ts_cache, ts_check.PACKAGES), args.files * 6, args.seed, 30000), "ts"),
        ("tsx", "tsx", tsx, ts_check.pick_files(
            tsx, ts_check.candidate_paths(ts_cache, ts_check.TSX_PACKAGES, ".tsx"), args.files * 6, args.seed, 30000,
            "tsx"), "tsx"),
        ("jsx", "jsx", jsx, jsx_check.pick_files(
            jsx, jsx_check.candidate_paths(js_cache, jsx_check.PACKAGES), args.files * 6, args.seed, 30000), "module"),
    ]
    for name, language, parser, found, key in picks:
        files = [f for f in found if len(f[1].encode()) >= args.min_bytes][:args.files]
        yield name, language, files, parser, key


def middle_cut(text: str) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[:len(lines) // 2])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", default="build/release/seam")
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-bytes", type=int, default=4000, help="JavaScript files at least this long")
    args = ap.parse_args()
    cache = js_check.reference_dir()
    acorn = js_check.Acorn(cache)
    js_files = [f for f in js_check.pick_files(acorn, js_check.candidate_paths(cache), args.files * 6, args.seed, 30000)
                if len(f[1].encode()) >= args.min_bytes][:args.files]
    py_pool = stdlib_check.stdlib_files(2000, args.seed, 40000)
    py_pool.sort(key=lambda pt: len(pt[1].encode()))
    sizes = [len(pt[1].encode()) for pt in py_pool]
    py_files = []
    for _, text, _ in js_files:
        n = len(text.encode())
        i = min(range(len(sizes)), key=lambda k: abs(sizes[k] - n))
        py_files.append(py_pool[i])
    js_cases, py_cases, js_whole, py_whole = [], [], [], []
    for i, (path, text, goal) in enumerate(js_files):
        cut = middle_cut(text)
        js_cases.append({"id": i, "language": "javascript", "source_type": goal, "left": text[:cut], "middle": "",
                         "right": text[cut:]})
        js_whole.append({"id": i, "language": "javascript", "source_type": goal, "left": "", "middle": text,
                         "right": ""})
    for i, (path, text) in enumerate(py_files):
        cut = middle_cut(text)
        py_cases.append({"id": i, "left": text[:cut], "middle": "", "right": text[cut:]})
        py_whole.append({"id": i, "left": "", "middle": text, "right": ""})
    js_rows, py_rows = seam_rows(args.seam, js_cases), seam_rows(args.seam, py_cases)
    js_feed, py_feed = seam_rows(args.seam, js_whole, 1), seam_rows(args.seam, py_whole, 1)
    js_ref = acorn_us(cache, [(t, g) for _, t, g in js_files])
    py_ref = [ast_time_us(t) for _, t in py_files]

    def med(values):
        return statistics.median(values) if values else float("nan")

    def report(name, files, rows, feed, ref):
        kb = [len(f[1].encode()) / 1024 for f in files]
        print(f"{name:<11} {med(kb):7.1f} KB  set-up {med([r['setup_us'] for r in rows]):9.0f} us  "
              f"can_end {med([r['can_end_us'] for r in rows]):8.0f} us  "
              f"whole file {med([f['feed_us'] / k for f, k in zip(feed, kb)]):7.0f} us/KB  "
              f"reference parser {med(ref):7.0f} us  "
              f"set-up / reference {med([r['setup_us'] / x for r, x in zip(rows, ref)]):5.2f}x")
    print(f"{len(js_files)} JavaScript files ({sum(1 for f in js_files if f[2] == 'module')} modules) and "
          f"{len(py_files)} Python files of about the same sizes; medians, best of 3")
    report("javascript", js_files, js_rows, js_feed, js_ref)
    report("python", py_files, py_rows, py_feed, py_ref)
    ratio = med([j["setup_us"] / max(1e-9, p["setup_us"]) for j, p in zip(js_rows, py_rows)])
    print(f"set-up, JavaScript over Python at the same size (median of pairs): {ratio:.2f}x (target <= 1)")
    for name, language, files, parser, key in other_languages(args):
        cases, whole = [], []
        for i, (path, text, goal) in enumerate(files):
            cut = middle_cut(text)
            row = {"id": i, "language": language}
            if goal is not None:
                row["source_type"] = goal
            cases.append(dict(row, left=text[:cut], middle="", right=text[cut:]))
            whole.append(dict(row, left="", middle=text, right=""))
        rows, feed = seam_rows(args.seam, cases), seam_rows(args.seam, whole, 1)
        ref = reference_us(parser, [(t, key) for _, t, _ in files])
        print(f"{len(files)} {name} files")
        report(name, files, rows, feed, ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
