#!/usr/bin/env python3
"""Checks seam's JSON recognizer against Python's json module, strict (no
NaN or Infinity; control characters refused in strings, as RFC 8259 has
it), on real JSON: the machine's /usr/lib/node_modules (package.json
files, data, configuration).  Cases, all through `seam check --language
json`:

  - whole files fed byte by byte: every prefix viable, complete at the end;
  - single-character mutants (delete, insert, swap): where json refuses
    one, seam must say it is not complete; where json accepts it, seam
    must accept it whole;
  - fill-in-the-middle cuts (random spans, and spans from a point in a line
    to the end of that line or a later one): the true middle accepted whole
    and complete, and single-edit mutants of it judged as json judges
    left + mutant + right.

usage: json_check.py --seam BUILD/seam [--files N] [--mutants K] [--cuts K] [--seed S]
Prints a report and a closing line "json: N passed, N failed"; exits 1 when
a true middle or file is refused or a mutant json refuses is accepted.
"""
import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import js_check  # noqa: E402  (the cuts)
import stdlib_check  # noqa: E402  (the mutants and the seam check run, shared)

INSERTED = list('{}[]:,"\\ \n\t01-.eEtfn+')


def _no_constant(name):
    raise ValueError("not JSON: " + name)


def json_accepts(text: str) -> bool:
    """RFC 8259 through Python's json: strict strings, no NaN or Infinity."""
    try:
        json.loads(text, parse_constant=_no_constant)
        return True
    except (ValueError, RecursionError):
        return False


def candidate_paths() -> list[Path]:
    root = Path("/usr/lib/node_modules")
    return sorted(p for p in root.rglob("*.json") if p.is_file()) if root.is_dir() else []


def pick_files(paths, count: int, seed: int, max_bytes: int):
    paths = list(paths)
    random.Random(seed).shuffle(paths)
    chosen = []
    for path in paths:
        try:
            text = path.read_bytes().decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if not text.strip() or len(text.encode()) > max_bytes or not json_accepts(text):
            continue
        chosen.append((path, text))
        if len(chosen) >= count:
            break
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seam", required=True)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--mutants", type=int, default=12)
    parser.add_argument("--cuts", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--max-bytes", type=int, default=20000)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    files = pick_files(candidate_paths(), args.files, args.seed, args.max_bytes)
    if len(files) < min(args.files, 10):
        print(f"json: too few JSON files under /usr/lib/node_modules ({len(files)})")
        print("json: 0 passed, 1 failed")
        return 1
    # every case: (kind, path, left, middle, right)
    cases, valid, invalid = [], [], []
    for path, text in files:
        cases.append(("file", path, "", text, ""))
        for kind, _, mutated in stdlib_check.mutants(text, args.mutants, rng, INSERTED):
            (valid if json_accepts(mutated) else invalid).append((kind, path, "", mutated, ""))
        for kind, start, end in js_check.cuts(text, args.cuts, rng):
            left, middle, right = text[:start], text[start:end], text[end:]
            cases.append((f"cut-{kind}", path, left, middle, right))
            for mkind, _, mutated in stdlib_check.mutants(middle, 2, rng, INSERTED):
                whole = left + mutated + right
                (valid if json_accepts(whole) else invalid).append((f"cut-{mkind}", path, left, mutated, right))
    must_accept = cases + valid
    everything = must_accept + invalid
    results = stdlib_check.seam_check(args.seam, [{"id": i, "language": "json", "left": c[2], "middle": c[3],
                                                   "right": c[4]} for i, c in enumerate(everything)], 1800)
    if results is None:
        return 1
    refused = [(case, results[i]) for i, case in enumerate(must_accept)
               if not results[i].get("complete") or results[i].get("accepted") != len(case[3].encode())]
    unsound = [case for j, case in enumerate(invalid) if results[len(must_accept) + j].get("complete") is not False]
    early = sum(1 for j, case in enumerate(invalid)
                if results[len(must_accept) + j].get("accepted", 0) < len(case[3].encode()))
    print(f"files: {len(files)}")
    print(f"completeness: {len(must_accept) - len(refused)}/{len(must_accept)} files, true middles and "
          f"json-valid mutants accepted whole and complete")
    for (kind, path, left, middle, right), row in refused[:20]:
        print(f"  REFUSED {kind} {path} at {row.get('accepted', 0)}/{len(middle.encode())}: "
              f"{(left + middle)[-60:]!r}")
    print(f"soundness: {len(invalid) - len(unsound)}/{len(invalid)} mutants json refuses are refused")
    print(f"early rejection: {early}/{len(invalid)} refused before their end")
    for kind, path, left, middle, right in unsound[:20]:
        print(f"  ACCEPTED {kind} {path}: {(left + middle + right)[:120]!r}")
    failed = len(refused) + len(unsound)
    print(f"json: {len(everything) - failed} passed, {failed} failed")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
