#!/usr/bin/env python3
"""Differential test of seam's recognizer against CPython on generated snippets.

Snippets are built from Python fragments (statements, blocks at several
indentations, tabs, continuation lines, brackets across lines, strings of
every form, numbers with their tokenizer quirks, comments), then some are
mutated by one character.  For each, `seam check` must say complete exactly
when ast.parse accepts, and a snippet CPython accepts must keep every prefix
viable.

usage: snippet_check.py --seam BUILD/seam [--count N] [--seed S]
Closing line: "corpus: N passed, N failed"; exit 1 on any disagreement.
"""
import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_check import cpython_accepts  # noqa: E402

# "\N{...}" names and non-ASCII names have a test of their own (unicode_check.py).
ATOMS = ["x", "y1", "_", "match", "case", "None", "True", "0", "1_000", "0x1f", "0o7", "0b1", "1.5e-3",
         "1j", ".5", "07", "0_0", "1e", "'a'", '"b"', "'''t\nq'''", 'r"\\d"', "b'\\x41'", "f'{x!r:>{y1}}'",
         "f'{x=}'", "rb'\\q'", "f'{}'", "...", "(x)", "[x, y1]", "{x: y1}", "{x}",
         "(x for x in y1)", "lambda a, *b, c=1, **d: a", "await x", "(yield)",
         '1if x else y1', '0x1for', '1_000j', '0or', '1.e5', '1.__x__', "Rb'\\x'", "bR'a'", "fR'{x}'", "U'u'", "'''a'b''c'''", '"""q""q"""', "r'\\\\'", "f'{x:{y1}}'", 'f\'{f"{x}"}\'', "f'{{}}{x!s}'", "'\\\n'", "f'a\\{x}'", "f'{x:>\\{y1}}'", 'été', "'é'", 'x[*y1]', 'x[1:, ::2]', "{**x, 'k': 1}", '[*x, *y1]', '(x := 1)', '[y for x in z if (y := x)]', 'x if y1 else lambda: 0', 'a < b <= c != d', 'not not x', '-~+x', 'x ** -y1', 'await x ** 2', 'f(x, *y1, z=1, **w)', 'f(a)(b)[c].d']
BINOPS = ["+", "-", "*", "/", "//", "%", "@", "**", "<<", ">>", "&", "|", "^", " and ", " or ",
          " if x else ", " in ", " not in ", " is ", " is not ", "==", "<", ">=", "!="]
PREFIX = ["", "-", "not ", "~", "*"]


def expression(rng: random.Random, depth: int = 0) -> str:
    if depth > 2 or rng.random() < 0.4:
        return rng.choice(ATOMS)
    kind = rng.random()
    if kind < 0.5:
        return expression(rng, depth + 1) + rng.choice(BINOPS) + expression(rng, depth + 1)
    if kind < 0.65:
        return rng.choice(PREFIX) + expression(rng, depth + 1)
    if kind < 0.8:
        sep = rng.choice([", ", ",\n  ", ",\\\n"])
        return rng.choice(["f(", "(", "[", "x["]) + expression(rng, depth + 1) + sep + \
            expression(rng, depth + 1) + rng.choice([")", "]"])
    if kind < 0.9:
        return "x." + rng.choice(["a", "b()", "c[1:2, ::3]"])
    return "(" + expression(rng, depth + 1) + ")"


def simple_statement(rng: random.Random) -> str:
    e = expression(rng)
    return rng.choice([
        e, "x = " + e, "x: int = " + e, "x += " + e, "del x, y1[0]", "pass", "return " + e,
        "import a.b as c", "from . import (a, b,)", "global x", "assert " + e + ", 'm'",
        "raise E from " + e, "x = y1 = " + e, "*a, b = " + e, "f() = 1", "x := 1", "print x",
        e + "; " + e, "y1 = " + e + "  # comment",
        'nonlocal x, y1', 'x.y1[0] @= 1', '(x) = 2', '[a, (b, *c)] = d', 'x: list[int]', 'del (x), [y1]', 'yield from z', 'async for a in b: pass', 'with (a as b, c as d,): pass', 'import a, b.c', 'from .. x import (y)', 'raise', 'return', 'x = 1 \\\n    + 2', 'x = (1 +  # c\n  2)', '\x0cpass',
    ])


def block(rng: random.Random, indent: str, depth: int) -> list[str]:
    lines = []
    for _ in range(rng.randint(1, 3)):
        if depth < 2 and rng.random() < 0.35:
            header = rng.choice([
                "if " + expression(rng) + ":", "while x:", "for x in " + expression(rng) + ":",
                "def f(a, /, b=1, *c, d, **e) -> int:", "class A(B, metaclass=M):", "with a as b, c:",
                "try:", "async def g():", "match x:", "@dec\ndef h():", "else:",
            ])
            if header.startswith("@"):
                lines.append(indent + "@dec")
                header = "def h():"
            lines.append(indent + header)
            inner = indent + rng.choice(["    ", "  ", "\t", "        "])
            if header == "match x:":
                lines.append(inner + "case [1, *r] | {'k': _} if x:")
                lines.extend(block(rng, inner + "    ", depth + 2))
            else:
                lines.extend(block(rng, inner, depth + 1))
            if header == "try:":
                lines.append(indent + rng.choice(["except E as e:", "finally:", "except* E:"]))
                lines.extend(block(rng, indent + "    ", depth + 1))
        else:
            lines.append(indent + simple_statement(rng))
        if rng.random() < 0.15:
            lines.append(rng.choice(["", "   ", indent + "# note", "\\"]))
    return lines


def snippet(rng: random.Random) -> str:
    text = "\n".join(block(rng, "", 0))
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    elif rng.random() < 0.05:
        text = text.replace("\n", "\r")
    return text + rng.choice(["\n", "", "\r\n", "\n\n", "\n# end", "\\\n", "  "])


def mutate(rng: random.Random, text: str) -> str:
    if not text:
        return text
    i = rng.randrange(len(text))
    kind = rng.randrange(3)
    if kind == 0:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + rng.choice("()[]{}:,=.'\" \n\t\\#x1") + text[i:]
    return text[:i] + text[i + 1:i + 2] + text[i:i + 1] + text[i + 2:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seam", required=True)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = []
    for i in range(args.count):
        text = snippet(rng)
        if rng.random() < 0.5:
            text = mutate(rng, text)
        if "\0" in text:
            continue
        cases.append({"id": i, "left": "", "middle": text, "valid": cpython_accepts(text)})
    payload = "".join(json.dumps({k: c[k] for k in ("id", "left", "middle")}) + "\n" for c in cases)
    run = subprocess.run([args.seam, "check"], input=payload, capture_output=True, text=True, timeout=900)
    results = {json.loads(line)["id"]: json.loads(line) for line in run.stdout.splitlines()}
    failed = 0
    valid = sum(1 for c in cases if c["valid"])
    for case in cases:
        row = results.get(case["id"], {})
        complete = row.get("complete")
        whole = row.get("accepted") == len(case["middle"].encode())
        if complete != case["valid"] or (case["valid"] and not whole):
            failed += 1
            if failed <= 15:
                print(f"DISAGREE (CPython {'accepts' if case['valid'] else 'rejects'}, seam "
                      f"{'accepts' if complete else 'rejects'} at byte {row.get('accepted')}): {case['middle']!r}")
    print(f"snippets: {len(cases)} ({valid} valid for CPython); disagreements: {failed}")
    print(f"corpus: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
