"""Cut and uncut recognizers agree over the standard library.

    python3 tests/scope/cut_check.py --seam build/debug/seam [--files 60] [--cases 20]

For cursors in standard-library files (true middles and single-edit mutants
of them), `seam check` runs the recognizer on the whole left and right
contexts and on the statements around the cursor only (the cut points of
the scope code); every answer (how much of the middle is accepted, whether
the program is complete) must be the same.  Cursors inside a clause keyword
that begins a line (`el|se:`) are added to the random ones.  Also reports how much of the
contexts the cuts keep.
"""

import argparse
import ast
import json
import os
import random
import subprocess
import sys
import sysconfig


def stdlib_files(count, seed, max_bytes):
    root = sysconfig.get_paths()["stdlib"]
    paths = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("site-packages", "__pycache__") and not x.startswith("."))
        paths += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    random.Random(seed).shuffle(paths)
    out = []
    for p in paths:
        if len(out) >= count:
            break
        try:
            data = open(p, "rb").read()
            text = data.decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(data) > max_bytes or "\0" in text:
            continue
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        out.append(text)
    return out


def mutate(middle, rng):
    alphabet = "()[]{}:,.=+-*'\"# \n\tabcxyz019\\"
    i = rng.randrange(len(middle) + 1)
    kind = rng.choice(["delete", "insert", "swap"])
    if kind == "delete" and middle:
        i = min(i, len(middle) - 1)
        return middle[:i] + middle[i + 1:]
    if kind == "swap" and middle:
        i = min(i, len(middle) - 1)
        return middle[:i] + rng.choice(alphabet) + middle[i + 1:]
    return middle[:i] + rng.choice(alphabet) + middle[i:]


def clause_cursors(text, rng, most=3):
    """Cursors inside a top-level clause keyword (else, elif, except,
    finally) that begins a line, each with the end of its line: the
    middle is the rest of that line."""
    out = []
    at = 0
    for line in text.split("\n"):
        word = line.split(":")[0].split(" ")[0]
        if word in ("else", "elif", "except", "finally") and len(out) < most:
            out.append((at + rng.randrange(1, len(word)), at + len(line) + 1))
        at += len(line) + 1
    return [(o, min(e, len(text))) for o, e in out]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--cases", type=int, default=20, help="cursors per file")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--max-bytes", type=int, default=60000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lines = []
    for fi, text in enumerate(stdlib_files(args.files, args.seed, args.max_bytes)):
        for ci in range(args.cases):
            o = rng.randrange(len(text) + 1)
            k = rng.randrange(0, 60)
            middle = text[o:o + k]
            left, right = text[:o], text[o + len(middle):]
            for mi, m in enumerate([middle, mutate(middle, rng), mutate(middle, rng)]):
                for cut in (False, True):
                    lines.append(json.dumps({"id": [fi, ci, mi, cut], "left": left, "middle": m, "right": right,
                                             "cut": cut}))
        # A clause keyword begun at the cursor (`el` of else): the cut must
        # keep the compound statement it belongs to.
        for ci, (o, end) in enumerate(clause_cursors(text, rng)):
            for cut in (False, True):
                lines.append(json.dumps({"id": [fi, args.cases + ci, 0, cut], "left": text[:o],
                                         "middle": text[o:end], "right": text[end:], "cut": cut}))
    run = subprocess.run([args.seam, "check"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=3000)
    results = {}
    for line in run.stdout.splitlines():
        r = json.loads(line)
        results[tuple(r["id"])] = r
    same = differ = errors = 0
    kept = []
    for key, r in results.items():
        if key[3]:
            continue
        c = results.get(key[:3] + (True,))
        if "error" in r or c is None or "error" in c:
            errors += 1
            continue
        if (r["accepted"], r["complete"]) == (c["accepted"], c["complete"]):
            same += 1
        else:
            differ += 1
            if differ <= 10:
                print("DIFFER %r: uncut %s/%s, cut %s/%s" % (key, r["accepted"], r["complete"], c["accepted"],
                                                             c["complete"]))
        kept.append(c["cut_right"] - c["cut_left"])
    total = same + differ
    print("cut contexts: %d cases, %d agree, %d differ, %d errors" % (total, same, differ, errors))
    if kept:
        kept.sort()
        print("cut contexts keep a median of %d bytes (p90 %d)" % (kept[len(kept) // 2], kept[int(0.9 * len(kept))]))
    print("scope: %d passed, %d failed" % (same, differ + errors))
    return 1 if differ or errors or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
