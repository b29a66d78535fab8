#!/usr/bin/env python3
"""Measures how far seam's viability is from exact on fill-in-the-middle cases.

usage: bench/run_viability_gap.py [--seam build/release/seam] [--cuts randspan|boundary]
                                  [--files 300] [--seed 202]

Viability of a middle m is exact when it holds just where some continuation
c makes left + m + c + right valid.  seam's never refuses a true middle
(the corpus checks that); where it over-approximates, an invalid middle is
refused only by can_end at its end instead of before it.  This script cuts
standard-library files as tests/corpus/stdlib_check.py does, makes
single-edit mutants of each middle that CPython rejects in context, runs
`seam check`, and for every mutant accepted to its end (not rejected early)
searches continuations c of up to two pieces from a fixed list: a mutant
with such a c is viable in the exact sense too, so no recognizer could have
refused it earlier.  Prints the counts; the mutants without a c found bound
the room an exact viability could still gain (some of them have longer
continuations).
"""
import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "corpus"))
import stdlib_check  # noqa: E402

PIECES = [")", "]", "}", ":", ",", "0", "x", "(", "[", "{", "'", '"', "\n", " ", "\\\n", "pass", "#",
          "\n    ", "\n        ", "\n\t", "else", "=", "+", "'''", '"""', "in"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seam", default="build/release/seam")
    parser.add_argument("--cuts", choices=("randspan", "boundary"), default="randspan")
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--seed", type=int, default=202)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cutter = stdlib_check.randspan_cuts if args.cuts == "randspan" else stdlib_check.boundary_cuts
    cases = []
    for _, text in stdlib_check.stdlib_files(args.files, args.seed, 200000):
        for left, middle, right in cutter(text, 8, rng):
            for _, _, mutated in stdlib_check.mutants(middle, 2, rng):
                if not stdlib_check.cpython_accepts(left + mutated + right):
                    cases.append({"id": len(cases), "left": left, "middle": mutated, "right": right})
    payload = "".join(json.dumps(c) + "\n" for c in cases)
    out = subprocess.run([args.seam, "check"], input=payload, capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    late = [c for c, r in zip(cases, rows) if r.get("accepted", 0) >= len(c["middle"].encode())]
    continuations = [""] + PIECES + [a + b for a in PIECES for b in PIECES]
    viable = sum(1 for c in late
                 if any(stdlib_check.cpython_accepts(c["left"] + c["middle"] + w + c["right"]) for w in continuations))
    print(json.dumps({
        "cuts": args.cuts,
        "mutants": len(cases),
        "rejected_early": len(cases) - len(late),
        "accepted_to_their_end": len(late),
        "of_these_viable_with_a_short_continuation": viable,
        "of_these_without_one_found": len(late) - viable,
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
