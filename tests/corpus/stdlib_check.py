#!/usr/bin/env python3
"""Checks seam's recognizer against CPython on the machine's standard library.

Every sampled file that CPython accepts must be accepted whole by
`seam check`, with every prefix viable when fed one code point at a time
(completeness: 100% required).  Single-character mutants of those files
(delete, insert, swap) that CPython rejects must get complete == false
(soundness: at least --min-soundness percent).  The share of those mutants
rejected before their end (early rejection) is reported.

usage: stdlib_check.py --seam BUILD/seam [--files N] [--mutants K] [--seed S]
                       [--cuts boundary|randspan]
With --cuts, each file also gives K fill-in-the-middle cases cut as the
paper's two data sets are: their true middles must be accepted whole with
complete == true, and single-edit mutants of a middle that CPython rejects
in its context must get complete == false.
Prints a report and a closing line "corpus: N passed, N failed" (cases);
exits 1 if completeness or soundness falls short.
"""
import argparse
import ast
import json
import random
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path

INSERTED = list("()[]{}:,=.'\" \n\ta1\\#*+-@")


def cpython_accepts(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
            return True
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return False


def stdlib_files(count: int, seed: int, max_bytes: int) -> list[tuple[Path, str]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return pick_files([p for p in root.rglob("*.py") if "site-packages" not in p.parts and "lib2to3" not in p.parts],
                      count, seed, max_bytes)


def pick_files(paths, count: int, seed: int, max_bytes: int) -> list[tuple[Path, str]]:
    """count of the files, in an order fixed by seed, that are UTF-8, hold
    no NUL, are at most max_bytes and parse."""
    paths = sorted(paths)
    random.Random(seed).shuffle(paths)
    chosen = []
    for path in paths:
        if len(chosen) >= count:
            break
        try:
            text = path.read_bytes().decode("utf-8")  # keeps CRLF
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text or len(text.encode()) > max_bytes or not cpython_accepts(text):
            continue
        chosen.append((path, text))
    return chosen


def mutants(text: str, count: int, rng: random.Random, inserted=INSERTED):
    """Yields (kind, offset, mutated text) for single-character edits, an
    insertion taking a character of `inserted`."""
    if not text:
        return
    for _ in range(count):
        i = rng.randrange(len(text))
        kind = rng.choice(("delete", "insert", "swap"))
        if kind == "delete":
            yield kind, i, text[:i] + text[i + 1:]
        elif kind == "insert":
            yield kind, i, text[:i] + rng.choice(inserted) + text[i:]
        elif i + 1 < len(text):
            yield kind, i, text[:i] + text[i + 1] + text[i] + text[i + 2:]


def seam_check(seam: str, cases: list, timeout: int):
    """Runs `seam check` on cases (dicts with an "id"); its answers by id,
    or None (said why) when it fails or does not answer every case."""
    payload = "".join(json.dumps(case) + "\n" for case in cases)
    run = subprocess.run([seam, "check"], input=payload, capture_output=True, text=True, timeout=timeout)
    results = {}
    for line in run.stdout.splitlines():
        row = json.loads(line)
        results[row["id"]] = row
    if run.returncode != 0 or len(results) != len(cases):
        print(f"seam check failed (exit {run.returncode}, {len(results)} of {len(cases)} answers)")
        print(run.stderr[-2000:])
        return None
    return results


def boundary_cuts(text: str, count: int, rng: random.Random):
    """Yields (left, middle, right) cut the way the paper's STACK-BOUNDARY set
    is: two tokens on lines of equal indentation are picked, the text between
    them and a random part of the first token is removed; the right context
    starts at the second token."""
    import io
    import tokenize
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER)
                  and t.string]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
    lines = io.StringIO(text).readlines()  # the lines tokenize saw: split at "\n" only
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos):
        return starts[pos[0] - 1] + pos[1]

    def indent(row):
        line = lines[row - 1]
        return len(line) - len(line.lstrip(" \t"))

    for _ in range(count * 4):
        if count <= 0 or len(tokens) < 3:
            return
        a = rng.randrange(len(tokens) - 1)
        b = rng.randrange(a + 1, min(len(tokens), a + 40))
        first, second = tokens[a], tokens[b]
        if indent(first.start[0]) != indent(second.start[0]):
            continue
        cut = offset(first.start) + rng.randrange(max(1, len(first.string)))
        end = offset(second.start)
        if cut >= end:
            continue
        count -= 1
        yield text[:cut], text[cut:end], text[end:]


def randspan_cuts(text: str, count: int, rng: random.Random):
    """Yields (left, middle, right) cut the way the paper's STACK-RANDSPAN set
    is: a random point in the first 90% of the file, removing up to 100
    characters or 20% of the file."""
    for _ in range(count):
        if len(text) < 2:
            return
        cut = rng.randrange(max(1, int(len(text) * 0.9)))
        span = rng.randint(1, max(1, min(100, len(text) // 5)))
        yield text[:cut], text[cut:cut + span], text[cut + span:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seam", required=True)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--mutants", type=int, default=20, help="mutants tried per file")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--max-bytes", type=int, default=40000)
    parser.add_argument("--min-soundness", type=float, default=99.9)
    parser.add_argument("--cuts", choices=("none", "boundary", "randspan"), default="none",
                        help="fill-in-the-middle cases: left, true middle, right (needs right-context support)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    cases, meta = [], {}
    for path, text in stdlib_files(args.files, args.seed, args.max_bytes):
        key = f"file:{path}"
        cases.append({"id": key, "left": "", "middle": text})
        meta[key] = ("file", path, 0, text)
        for kind, offset, mutated in mutants(text, args.mutants, rng):
            if cpython_accepts(mutated):
                continue
            key = f"mutant:{len(meta)}"
            cases.append({"id": key, "left": "", "middle": mutated})
            meta[key] = (kind, path, offset, mutated)
        cutter = {"boundary": boundary_cuts, "randspan": randspan_cuts}.get(args.cuts)
        for left, middle, right in (cutter(text, args.mutants, rng) if cutter else ()):
            key = f"file:cut:{len(meta)}"
            cases.append({"id": key, "left": left, "middle": middle, "right": right})
            meta[key] = ("file", path, len(left), middle)
            # single-edit mutants of the middle that CPython rejects in context
            for kind, offset, mutated in mutants(middle, 2, rng):
                if cpython_accepts(left + mutated + right):
                    continue
                key = f"mutant:cut:{len(meta)}"
                cases.append({"id": key, "left": left, "middle": mutated, "right": right})
                meta[key] = (kind, path, len(left) + offset, mutated)
    results = seam_check(args.seam, cases, 1200)
    if results is None:
        return 1

    files = [k for k in meta if meta[k][0] == "file"]
    rejected_files = [k for k in files if not results[k].get("complete")
                      or results[k].get("accepted") != len(meta[k][3].encode())]
    muts = [k for k in meta if meta[k][0] != "file"]
    unsound = [k for k in muts if results[k].get("complete") is not False]
    early = sum(1 for k in muts if results[k].get("accepted", 0) < len(meta[k][3].encode()))
    soundness = 100.0 * (len(muts) - len(unsound)) / max(1, len(muts))
    print(f"completeness: {len(files) - len(rejected_files)}/{len(files)} files accepted whole, "
          f"every prefix viable")
    for key in rejected_files:
        row = results[key]
        text = meta[key][3]
        at = len(text.encode()[:row.get('accepted', 0)].decode(errors='ignore'))
        print(f"  REJECTED {meta[key][1]} at byte {row.get('accepted')}: {text[max(0, at - 50):at + 10]!r}")
    print(f"soundness: {len(muts) - len(unsound)}/{len(muts)} mutants CPython rejects are rejected "
          f"({soundness:.2f}%, target {args.min_soundness}%)")
    print(f"early rejection: {early}/{len(muts)} rejected before their end "
          f"({100.0 * early / max(1, len(muts)):.1f}%)")
    for key in unsound[:20]:
        kind, path, offset, text = meta[key]
        print(f"  ACCEPTED {kind} at {offset} in {path.name}: {text[max(0, offset - 40):offset + 40]!r}")
    failed = len(rejected_files) + len(unsound)
    print(f"corpus: {len(cases) - failed} passed, {failed} failed")
    return 0 if not rejected_files and soundness >= args.min_soundness else 1


if __name__ == "__main__":
    sys.exit(main())
