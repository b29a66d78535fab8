#!/usr/bin/env python3
"""Differential test of "\\N{...}" escapes: seam against CPython.

Names are drawn from Python's Unicode database (stored names, Hangul
syllables, CJK ideographs, formal aliases from Debian's unicode-data), then
spelt as they are, in other letter cases, with one character changed, and
as named sequences, inside str, f-string, triple-quoted, raw and bytes
literals, whole or as the middle of a fill-in-the-middle case cut inside
the literal.  `seam check` must say complete exactly when ast.parse
accepts; a text CPython accepts must be accepted whole, and one it rejects
because of a name must be refused by the name's closing brace at the latest.

usage: escape_check.py --seam BUILD/seam [--count N] [--seed S]
Closing line: "corpus: N passed, N failed"; exit 1 on any disagreement.
"""
import argparse
import json
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_check import cpython_accepts  # noqa: E402

ALIASES = Path("/usr/share/unicode/NameAliases.txt")
EXTRA = ["LATIN CAPITAL LETTER A WITH MACRON AND GRAVE",  # a named sequence: not accepted by \N
         "KEYCAP NUMBER SIGN", "CJK UNIFIED IDEOGRAPH-04E00", "CJK UNIFIED IDEOGRAPH-4e00",
         "CJK UNIFIED IDEOGRAPH-004E00", "CJK UNIFIED IDEOGRAPH-4E0", "CJK UNIFIED IDEOGRAPH-2A6DF",
         "CJK UNIFIED IDEOGRAPH-2A6E0", "CJK UNIFIED IDEOGRAPH-FFFFF", "TANGUT IDEOGRAPH-17000",
         "HANGUL SYLLABLE GAG", "HANGUL SYLLABLE GAGG", "EM  DASH", " EM DASH", "EM-DASH", "LF", "NBSP"]


def names(rng: random.Random) -> list[str]:
    pool = []
    for cp in range(0x110000):
        name = unicodedata.name(chr(cp), None)
        if name:
            pool.append(name)
    if ALIASES.exists():
        for line in ALIASES.read_text(encoding="utf-8").splitlines():
            fields = line.split("#", 1)[0].strip().split(";")
            if len(fields) == 3:
                pool.append(fields[1])
    return rng.sample(pool, 400) + EXTRA


def spelling(rng: random.Random, name: str) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return name.lower()
    if kind == 1:
        return name.title()
    if kind == 2 and name:
        i = rng.randrange(len(name))
        return name[:i] + rng.choice("ABCXYZ -019") + name[i + 1:]
    return name


def literal(rng: random.Random, name: str) -> str:
    escape = "\\N{" + name + "}"
    return rng.choice([
        "'" + escape + "'", '"a' + escape + 'b"', "'''" + escape + "\n'''", "f'" + escape + "{x}'",
        "f'{x}" + escape + "'", "r'" + escape + "'", "b'" + escape + "'", "'\\\\" + escape + "'",
        "u'" + escape + escape + "'",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seam", required=True)
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pool = names(rng)
    cases = []
    for i in range(args.count):
        name = spelling(rng, rng.choice(pool))
        if not all(c.isascii() and c.isprintable() for c in name):
            continue
        text = "x = " + literal(rng, name) + "\n"
        valid = cpython_accepts(text)
        brace = text.rfind("}") + 1
        if rng.random() < 0.5:
            # a fill-in-the-middle case cut inside the literal
            cut = rng.randrange(4, len(text) - 1)
            end = rng.randrange(cut, len(text))
            case = {"id": i, "left": text[:cut], "middle": text[cut:end], "right": text[end:]}
            brace -= cut
        else:
            case = {"id": i, "left": "", "middle": text}
        case["valid"] = valid
        case["brace"] = brace
        cases.append(case)
    payload = "".join(json.dumps({k: c[k] for k in ("id", "left", "middle", "right") if k in c}) + "\n"
                      for c in cases)
    run = subprocess.run([args.seam, "check"], input=payload, capture_output=True, text=True, timeout=900)
    results = {json.loads(line)["id"]: json.loads(line) for line in run.stdout.splitlines()}
    failed = 0
    for case in cases:
        row = results.get(case["id"], {})
        middle_len = len(case["middle"].encode())
        whole = row.get("accepted") == middle_len
        early = case["valid"] or "right" in case or row.get("accepted", middle_len) < max(case["brace"], 1)
        if row.get("complete") != case["valid"] or (case["valid"] and not whole) or not early:
            failed += 1
            if failed <= 15:
                print(f"DISAGREE (CPython {'accepts' if case['valid'] else 'rejects'}, seam "
                      f"{'accepts' if row.get('complete') else 'rejects'} at byte {row.get('accepted')}): "
                      f"{case.get('left', '')!r} + {case['middle']!r} + {case.get('right', '')!r}")
    valid = sum(1 for c in cases if c["valid"])
    print(f"escapes: {len(cases)} ({valid} valid for CPython); disagreements: {failed}")
    print(f"corpus: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
