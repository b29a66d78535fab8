"""Files of the standard library for the benchmarks' holes."""

import ast
import os
import sysconfig


def random_files(rng, min_lines, private=True):
    """Endless (name, text, lines) of standard-library files CPython parses,
    drawn with `rng`; files shorter than min_lines are passed over."""
    stdlib = sysconfig.get_paths()["stdlib"]
    names = sorted(n for n in os.listdir(stdlib) if n.endswith(".py") and (private or not n.startswith("_")))
    while True:
        name = rng.choice(names)
        try:
            with open(os.path.join(stdlib, name), encoding="utf-8") as f:
                text = f.read()
            ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = text.split("\n")
        if len(lines) >= min_lines:
            yield name, text, lines
