"""Programs that tell Python versions apart, for tests/corpus/version_check.py:
each version's additions (3.10 to 3.14) and the syntax the older ones lack.

From 3.11 on, which version accepts which is not written here: each
version's own ast.parse says.  3.9 and 3.10 have no CPython here (the
machine's ast.parse with feature_version refuses some of their missing
syntax, not all), so SINCE names the version whose "What's New" adds the
syntax of the 3.10 and 3.11 programs: older versions must refuse them."""

SNIPPETS = [
    # 3.10: pattern matching, unparenthesized assignment expressions in an index
    "match point:\n    case (0, 0):\n        print('origin')\n    case [x, *rest] if x > 1:\n        pass\n"
    "    case {'k': v, **others}:\n        pass\n    case Point(x=0) | None:\n        pass\n    case _:\n        pass\n",
    "def f(cmd):\n    match cmd.split():\n        case ['go', direction]:\n            return direction\n",
    "x = a[y := 1]\n",
    "print(items[n := 2:])\n",
    "with (open('a') as f, open('b') as g):\n    pass\n",
    # 3.11: exception groups, star expressions in indexes and annotations
    "try:\n    pass\nexcept* ValueError as e:\n    pass\nexcept* (TypeError, KeyError):\n    pass\n",
    "x = a[*b]\n",
    "x = a[1, *b, 2]\n",
    "def f(*args: *Ts):\n    pass\n",
    "class A(Generic[*Ts]):\n    pass\n",
    # 3.12: type parameters and type aliases (PEP 695)
    "def first[T](xs: list[T]) -> T:\n    return xs[0]\n",
    "class Box[T: (int, str), *Ts, **P]:\n    def get(self) -> T:\n        ...\n",
    "async def run[T](x: T) -> T:\n    return x\n",
    "@dec\nclass C[T](Base[T], metaclass=M):\n    pass\n",
    "type Point = tuple[float, float]\n",
    "type ListOrSet[T] = list[T] | set[T]\n",
    "type = 5\nprint(type(type))\n",
    "type X[T: int, *Ts, **P] = Callable[P, tuple[T, *Ts]]\n",
    "def f[T,](x): pass\n",
    "def f[](x): pass\n",
    "type X = yield 1\n",
    "type match = int\n",
    # 3.13: defaults of type parameters (PEP 696)
    "def f[T = int](x: T) -> T:\n    return x\n",
    "class C[T: int = bool, *Ts = *tuple[int, ...], **P = [int, str]]:\n    pass\n",
    "type A[T = str] = list[T]\n",
    "def f[*Ts = *tuple[int]](): pass\n",
    "def f[**P = ...](): pass\n",
    "def f[T = int, U](): pass\n",
    # 3.14: several exception types without brackets (PEP 758)
    "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
    "try:\n    pass\nexcept* ValueError, TypeError:\n    pass\n",
    "try:\n    pass\nexcept ValueError, TypeError as e:\n    pass\n",
    "try:\n    pass\nexcept A, B,:\n    pass\n",
    "try:\n    pass\nexcept (A, B) as e:\n    pass\n",
    # 3.12: the same quotes inside a replacement field (PEP 701)
    "print(f\"{d[\"name\"]}\")\n",
    # 3.12: f-strings read with the tokenizer's modes (PEP 701); 3.14: template strings (PEP 750)
    'songs = [\'a\', \'b\']\nprint(f"This is the playlist: {", ".join(songs)}")\n',
    'x = f"{f"{f"{f"{1 + 1}"}"}"}"\n',
    'msg = f"{user["name"]!r:>{width}} and {x = }"\n',
    'x = f"""{\n    a  # the first\n    + b  # the second\n}"""\n',
    'x = f"{\n    value\n}"\n',
    'x = f"{\'\\n\'.join(lines)}"\n',
    'x = f"{x:{y:{z}}}" + f"{a!s:^10}{b=!a}"\n',
    'x = rf"\\d+{pattern}\\w" + fr\'{a}\\{b}\'\n',
    'x = f"{{literal}} {value:,.2f} }}{{"\n',
    'x = f"{a if b else c:>{w}}" f\'{d["k"]}\' "plain"\n',
    'x = f"{x:\n}"\n',
    'x = f"{lambda: 1}"\n',
    'x = f"{*a, b}"\n',
    'x = f"{yield}"\n',
    'x = f"{x for x in y}"\n',
    'x = f"{x!r }"\n',
    'x = f"{x! r}"\n',
    'x = f"{x:{y}:}" + F\'\'\'{x:\'}\'\'\'\n',
    'x = f"{x}}"\n',
    'x = f\'{"\\N{BULLET}"} \\N{EM DASH} {x:\\x41}\'\n',
    'name = \'World\'\ntemplate = t"Hello {name!r:>{width}}"\n',
    'x = t"{a}" t\'\'\'{b}\'\'\' rt"\\{c}" Tr\'{d=}\'\n',
    'x = t"{a}" "b"\n',
    'x = ft"{a}"\n',
    'x = t"{t"{1}"}".strings\n',
    # 3.12 on: a format spec's escapes ("\N{...}" whole; in a raw string 3.12
    # and 3.13 decode them all the same), "{{" as text once a field was
    # opened in the spec, and CPython's limits: 150 f-strings inside one
    # another, 200 brackets open counted across fields and strings
    "x = f'{a:\\N{BULLET}}'\n",
    "x = rf'{a:\\N{BULLET}}'\n",
    "x = rf'{a:\\x4}' + rf'{a:\\d}'\n",
    "x = f'{a:{b}{{}'\n",
    "x = f'{a:{b}{c}{{}' + f'{a:{{}'\n",
    'x = F"{y:{{}}{{}} }"\n',
    # common to all: what the new keywords must not break
    "match = 1\ncase = match + 1\ntype = case\n",
    "def type(x): return x\n",
    "print(f'{x!r:>{width}}', f\"{'a'}\")\n",
    "for x in *a, *b:\n    print(x)\n",
    "lambda: (yield)\n",
    # common to all: a decimal with leading zeros right before "else" (the
    # tokenizer reads "01e" as an exponent's start and gives the "e" back)
    "y = x if 01else 2\nz = x if 0_0_7else 3\nw = x if 00else 4\n",
    "y = x if 01 else 2\n",
    # 3.10 on: a lone "_" is the wildcard, tried before a value or class
    # pattern; a mapping key's "_.a" is a value
    "match x:\n    case _(a):\n        pass\n",
    "match x:\n    case _.a:\n        pass\n",
    "match x:\n    case [1, _(2)] | {1: _.b()}:\n        pass\n",
    "match x:\n    case C(_(1)):\n        pass\n",
    "match x:\n    case {_.a: 1, 2: _a.b, 3: a._(_)} | __(a=_):\n        pass\n",
]

# The programs of the 3.10 and 3.11 groups above, by the version that added
# their syntax (What's New in Python 3.10: PEP 634, bpo-43374's assignment
# expressions in indexes; 3.11: PEP 654, PEP 646).  Parenthesized context
# managers parse in 3.9 already (its new parser), though 3.10 documents them.
SINCE = {0: 310, 1: 310, 2: 310, 3: 310, 5: 311, 6: 311, 7: 311, 8: 311, 9: 311}

# CPython's limits on nesting, each side of them: 150 f-strings inside one
# another, 200 brackets open counted across fields and strings (a field's
# "{" and the brackets around the string among them).  Long programs:
# checked with sampled mutants, not every position's.
LIMITS = [
    "x = " + "f'{" * 149 + "1" + "}'" * 149 + "\n",
    "x = " + "f'{" * 150 + "1" + "}'" * 150 + "\n",
    "x = " + "(" * 199 + "f'{1}'" + ")" * 199 + "\n",
    "x = " + "(" * 200 + "f'{1}'" + ")" * 200 + "\n",
    "x = f'{" + "f'{((" * 66 + "1" + "))}'" * 66 + "}'\n",
    "x = f'{" + "f'{((" * 67 + "1" + "))}'" * 67 + "}'\n",
    "x = f'{" + "(" * 199 + "1" + ")" * 199 + "}'\n",
    "x = f'{" + "(" * 200 + "1" + ")" * 200 + "}'\n",
]
