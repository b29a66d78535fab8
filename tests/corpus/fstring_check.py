#!/usr/bin/env python3
"""seam's f-strings against CPython 3.11's own f-string tests: every str
constant of Lib/test/test_fstring.py (Debian's libpython3.11-testsuite)
that holds an f-string is a program, or a refused one, as the test suite
wrote it; each is given to `seam check` whole (as Python 3.11) and
compared with the machine's ast.parse, and so is every single-character
insertion into it (from characters that matter in f-strings).  A program
CPython accepts must be accepted whole, with every prefix viable; one it
refuses must be refused.

usage: fstring_check.py --seam BUILD/seam [--tests PATH] [--seed N]
Prints "corpus: N passed, N failed".
"""
import argparse
import ast
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stdlib_check import cpython_accepts  # noqa: E402
from version_check import seam_check  # noqa: E402

INSERTED = list("{}!:=#\\'\"rsa \n(x")


def snippets(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            v = node.value
            if any(p in v for p in ("f'", 'f"', "F'", 'F"')) and len(v) < 400 and "\x00" not in v:
                found.add(v if v.endswith("\n") else v + "\n")
    return sorted(found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--tests", default="/usr/lib/python3.11/test/test_fstring.py")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    if sys.version_info[:2] != (3, 11):
        print("fstring check: skipped, the machine's Python is not 3.11")
        print("corpus: 0 passed, 0 failed")
        return 0
    if not os.path.exists(args.tests):
        raise SystemExit("%s is missing: scripts/setup.sh --test-deps installs libpython3.11-testsuite" % args.tests)
    rng = random.Random(args.seed)
    programs = snippets(args.tests)
    mutants = [p[:i] + rng.choice(INSERTED) + p[i:] for p in programs for i in range(len(p))]
    texts = programs + mutants
    passed = failed = shown = 0
    answers = seam_check(os.path.abspath(args.seam), "3.11", [("", t, "") for t in texts])
    for text, a in zip(texts, answers):
        ok = cpython_accepts(text)
        agrees = a.get("complete") == ok and (not ok or a.get("accepted") == len(text.encode()))
        if agrees:
            passed += 1
        else:
            failed += 1
            if shown < 20:
                shown += 1
                print("FAIL: CPython %s, seam %r: %r" % ("accepts" if ok else "refuses", a, text[:120]))
    print("fstring check: %d snippets of test_fstring.py and %d mutants against CPython %d.%d.%d"
          % (len(programs), len(mutants), *sys.version_info[:3]))
    print("corpus: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
