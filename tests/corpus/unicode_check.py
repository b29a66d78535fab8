#!/usr/bin/env python3
"""Differential test of what Python's lexer checks in the Unicode database:
"\\N{...}" escapes and the characters of names, seam against CPython.

Names are drawn from Python's Unicode database (stored names, Hangul
syllables, CJK ideographs, formal aliases from Debian's unicode-data), then
spelt as they are, in other letter cases, with one character changed, and
as named sequences, inside str, f-string, triple-quoted, raw and bytes
literals, whole or as the middle of a fill-in-the-middle case cut inside
the literal.  `seam check` must say complete exactly when ast.parse
accepts; a text CPython accepts must be accepted whole, and one it rejects
because of a name must be refused by the name's closing brace at the latest.

Names get a code point drawn from every plane (letters, marks, digits,
symbols, punctuation, format characters) at their start, inside or at their
end, as a variable, a function, an attribute, a keyword argument or in an
f-string field; an invalid character must be refused where it is fed.

usage: unicode_check.py --seam BUILD/seam [--count N] [--seed S]
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


def name_case(rng: random.Random) -> tuple[str, int]:
    """A text with a name holding one non-ASCII character, and the byte
    offset just past that character (CPython refuses the text there if the
    character is not allowed)."""
    while True:
        cp = rng.choice([rng.randrange(0x80, 0x800), rng.randrange(0x800, 0x10000), rng.randrange(0x10000, 0x30000),
                         rng.randrange(0xE0000, 0xE0200)])
        if not 0xD800 <= cp <= 0xDFFF and unicodedata.category(chr(cp)) != "Cn":
            break
    c = chr(cp)
    name = rng.choice([c + "ab", "a" + c + "b", "ab" + c, c])
    before, after = rng.choice([("", " = 1\n"), ("def ", "(): pass\n"), ("x.", "\n"), ("f(", "=1)\n"),
                                ("s = f'{", "}'\n"), ("import ", "\n")])
    text = before + name + after
    return text, len((before + name[:name.index(c) + 1]).encode())


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
        if i % 2:
            text, brace = name_case(rng)
        else:
            text = "x = " + literal(rng, name) + "\n"
            brace = text.rfind("}") + 1
        valid = cpython_accepts(text)
        if rng.random() < 0.5:
            # a fill-in-the-middle case cut inside the literal
            cut = rng.randrange(0, len(text) - 1)
            end = rng.randrange(cut, len(text))
            case = {"id": i, "left": text[:cut], "middle": text[cut:end], "right": text[end:]}
            brace -= len(text[:cut].encode())
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
    print(f"escapes and names: {len(cases)} ({valid} valid for CPython); disagreements: {failed}")
    print(f"corpus: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
