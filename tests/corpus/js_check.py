#!/usr/bin/env python3
"""Checks seam's JavaScript recognizer against acorn 8.19 on real JavaScript.

Files are sampled from the machine's /usr/lib/node_modules (mostly CommonJS
scripts) and from ES module packages fetched pinned into the cache
(scripts/javascript.sh: lodash-es, rxjs).  Each file is read with the goal
symbol Node gives it: .mjs a module, .cjs a script, .js as the nearest
package.json's "type" says, else a script, else (acorn refusing it as one)
a module, as Node's syntax detection does; a file acorn refuses both ways
is not used.  Cases, all through `seam check --language javascript`:

  - whole files fed byte by byte: every prefix viable, complete at the end;
  - single-character mutants (delete, insert, swap): where acorn refuses
    one, seam must say it is not complete; where acorn accepts it, seam
    must accept it whole;
  - fill-in-the-middle cuts (random spans, and spans from a point in a line
    to the end of that line or a later one): the true middle accepted whole
    and complete, and single-edit mutants of it judged as acorn judges
    left + mutant + right.

usage: js_check.py --seam BUILD/seam [--files N] [--mutants K] [--cuts K] [--seed S]
Prints a report and a closing line "javascript: N passed, N failed";
exits 1 when a true middle or file is refused or soundness is under
--min-soundness percent.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import stdlib_check  # noqa: E402  (the mutants and the seam check run, shared)
# What acorn refuses that seam's context-free grammar does not express
# (docs/JAVASCRIPT_DIFFERENCES.md): a mutant refused for one of these and
# accepted by seam is reported, not counted as a failure.
KNOWN_DIFFERENCES = [
    re.compile(p) for p in (
        r"^Export '.*' is not defined",
        r"^'super' keyword outside a method",
        r"^super\(\) call outside constructor of a subclass",
        r"^Identifier '.*' has already been declared",
        r"^Duplicate export '.*'",
        r"^Undefined label '.*'",
        r"^Label '.*' is already declared",
        r"^Unsyntactic (break|continue)",
        r"^Duplicate constructor in the same class",
        r"^Identifier '.*' is reserved",
        r"^Cannot use 'yield' in",
        r"^Argument name clash",
        r"^Illegal 'use strict' directive in function with non-simple parameter list",
        r"^Binding (eval|arguments) in strict mode",
        r"^Assigning to (eval|arguments) in strict mode",
        r"^Deleting local variable in strict mode",
        r"^'return' outside of function",
        r"^'with' in strict mode",
        r"^Octal literal in strict mode",
        r"^Invalid regular expression",
        r"^Label '.*' is already declared",
    )
]

# acorn's refusal of a legacy octal number or escape in strict code: a
# difference only where a "use strict" directive, not the module goal, makes
# the code strict (a module's own strictness is in the grammar).
STRICT_ONLY = re.compile(r"^(Invalid number|Octal literal in strict mode|Octal escape sequences are not allowed|"
                         r"The keyword '.*' is reserved)")
STRICT_DIRECTIVE = re.compile(r"""(^|[\n;{])\s*(['"])use strict\2""")

INSERTED = list("()[]{};:,=.'\"` \n\ta1\\/*+-!?<>$#")


def reference_dir(name: str = "javascript") -> Path:
    """The cache folder scripts/NAME.sh fills (SEAM_NAME_DIR when set)."""
    path = os.environ.get(f"SEAM_{name.upper()}_DIR")
    if not path:
        path = subprocess.run([str(ROOT / "scripts" / f"{name}.sh")], capture_output=True, text=True,
                              check=True).stdout.strip()
    return Path(path)


class NodeParser:
    """A reference parser in one Node process (tests/NAME/parse.mjs),
    asked in batches: each text goes with its `key` (acorn's source_type,
    TypeScript's kind)."""

    def __init__(self, argv, key: str):
        self.argv = argv
        self.key = key

    def accepts(self, items):
        """items: [(text, goal)] -> [bool]"""
        return [ok for ok, _ in self.verdicts(items)]

    def verdicts(self, items):
        """items: [(text, goal)] -> [(ok, message)]"""
        return [(ok, message) for ok, _, message in self.errors(items)]

    def errors(self, items):
        """items: [(text, goal)] -> [(ok, pos, message)]: pos is the UTF-16
        offset the parser stopped at (None when it is valid or gave none)."""
        items = [(t, self.goal(g)) for t, g in items]
        payload = "".join(json.dumps({"id": i, "text": t, self.key: g}) + "\n" for i, (t, g) in enumerate(items))
        run = subprocess.run(self.argv, input=payload, capture_output=True, text=True, timeout=1200)
        if run.returncode != 0:
            raise SystemExit(f"{self.argv[1]} failed: {run.stderr[-1000:]}")
        answers = {}
        for line in run.stdout.splitlines():
            row = json.loads(line)
            answers[row["id"]] = (row["ok"], row.get("pos"), row.get("message", ""))
        return [answers[i] for i in range(len(items))]

    def goal(self, goal):
        """The key sent for a case's goal (None: the parser's default)."""
        return goal


class Acorn(NodeParser):
    """acorn, with ecmaVersion "latest" and each case's source_type."""

    def __init__(self, cache: Path):
        super().__init__(["node", str(ROOT / "tests" / "javascript" / "parse.mjs"),
                          "--acorn", str(cache / "node_modules" / "acorn" / "dist" / "acorn.mjs")], "source_type")


def package_type(path: Path) -> str | None:
    for folder in path.parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                return json.loads(manifest.read_text(encoding="utf-8")).get("type")
            except (ValueError, OSError):
                return None
    return None


def node_goal(path: Path) -> str:
    if path.suffix == ".mjs":
        return "module"
    if path.suffix == ".cjs":
        return "script"
    return "module" if package_type(path) == "module" else "script"


def candidate_paths(cache: Path) -> list[Path]:
    roots = [Path("/usr/lib/node_modules"), cache / "node_modules" / "lodash-es", cache / "node_modules" / "rxjs"]
    paths = []
    for root in roots:
        if root.is_dir():
            paths += [p for p in root.rglob("*") if p.suffix in (".js", ".mjs", ".cjs") and p.is_file()
                      and "acorn" not in p.parts]
    return sorted(paths)


def read_sample(paths, count: int, seed: int, max_bytes: int):
    """(path, text) of up to count * 3 of the paths, shuffled by seed: the
    UTF-8 files with text, no NUL and at most max_bytes."""
    paths = list(paths)
    random.Random(seed).shuffle(paths)
    texts = []
    for path in paths[:count * 3]:
        try:
            text = path.read_bytes().decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text or not text.strip() or len(text.encode()) > max_bytes:
            continue
        texts.append((path, text))
    return texts


def pick_files(acorn: Acorn, paths, count: int, seed: int, max_bytes: int):
    texts = [(path, text, node_goal(path)) for path, text in read_sample(paths, count, seed, max_bytes)]
    first = acorn.accepts([(t, g) for _, t, g in texts])
    other = acorn.accepts([(t, "module" if g == "script" else "script") for _, t, g in texts])
    chosen = []
    for (path, text, goal), ok, ok_other in zip(texts, first, other):
        if ok:
            chosen.append((path, text, goal))
        elif ok_other and goal == "script" and path.suffix == ".js":
            chosen.append((path, text, "module"))   # Node's syntax detection
        if len(chosen) >= count:
            break
    return chosen


def mutants(text: str, count: int, rng: random.Random):
    return stdlib_check.mutants(text, count, rng, INSERTED)


def cuts(text: str, count: int, rng: random.Random):
    """Random spans (up to 100 characters), and spans from a point in a line
    to the end of that line or of one of the next three."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    for n in range(count):
        if len(text) < 2:
            return
        cut = rng.randrange(len(text) - 1)
        if n % 2 == 0:
            span = rng.randint(1, max(1, min(100, len(text) // 5)))
            yield "randspan", cut, min(len(text), cut + span)
        else:
            row = max(i for i in range(len(lines)) if starts[i] <= cut)
            last = min(len(lines) - 1, row + rng.randrange(4))
            end = starts[last] + len(lines[last].rstrip("\r\n"))
            if end > cut:
                yield "line", cut, end


def judge(seam: str, language: str, files, reference, args, known=lambda case, message: False,
          name="acorn", label="javascript") -> int:
    """The cases of `files` ([(path, text, goal)]) through `seam check
    --language LANGUAGE` against `reference.verdicts`: whole files, mutants
    and cuts.  A case's "goal" goes to seam check as its source_type (None:
    none).  `known(case, message)`: whether a mutant the reference refuses
    and seam accepts is a listed difference.  Prints the report; the exit
    status."""
    rng = random.Random(args.seed)
    # every case: (kind, path, goal, left, middle, right, offset); what the reference says of the mutants
    cases, pending = [], []
    for path, text, goal in files:
        cases.append(("file", path, goal, "", text, "", 0))
        for kind, at, mutated in mutants(text, args.mutants, rng):
            pending.append((kind, path, goal, "", mutated, "", at))
        for kind, start, end in cuts(text, args.cuts, rng):
            left, middle, right = text[:start], text[start:end], text[end:]
            cases.append((f"cut-{kind}", path, goal, left, middle, right, start))
            for mkind, at, mutated in mutants(middle, 2, rng):
                pending.append((f"cut-{mkind}", path, goal, left, mutated, right, start + at))
    verdicts = reference.verdicts([(c[3] + c[4] + c[5], c[2]) for c in pending])
    valid = [c for c, (ok, _) in zip(pending, verdicts) if ok]
    invalid = [c for c, (ok, _) in zip(pending, verdicts) if not ok]
    why = {id(c): message for c, (ok, message) in zip(pending, verdicts) if not ok}
    must_accept = cases + valid

    everything = must_accept + invalid
    rows = []
    for i, c in enumerate(everything):
        row = {"id": i, "language": language, "left": c[3], "middle": c[4], "right": c[5]}
        if c[2] is not None:
            row["source_type"] = c[2]
        rows.append(row)
    results = stdlib_check.seam_check(seam, rows, 1800)
    if results is None:
        return 1
    refused = []
    for i, case in enumerate(must_accept):
        row = results[i]
        if not row.get("complete") or row.get("accepted") != len(case[4].encode()):
            refused.append((case, row))
    unsound = []
    early = 0
    for j, case in enumerate(invalid):
        row = results[len(must_accept) + j]
        if row.get("complete") is not False:
            unsound.append(case)
        if row.get("accepted", 0) < len(case[4].encode()):
            early += 1
    goals = sorted({g for _, _, g in files if g is not None})
    counts = ", ".join(f"{sum(1 for _, _, g in files if g == goal)} {goal}s" for goal in goals)
    print(f"files: {len(files)}" + (f" ({counts})" if counts else ""))
    print(f"completeness: {len(must_accept) - len(refused)}/{len(must_accept)} files, true middles and "
          f"{name}-valid mutants accepted whole and complete")
    dump = getattr(args, "dump", None)
    for n, (case, row) in enumerate(refused):
        if dump:
            Path(dump).mkdir(parents=True, exist_ok=True)
            Path(dump, f"refused-{n}.txt").write_text(case[3] + case[4] + case[5], encoding="utf-8")
    for case, row in refused[:25]:
        kind, path, goal, left, middle, right, at = case
        got = row.get("accepted", 0)
        text = (left + middle).encode()[:len(left.encode()) + got].decode(errors="ignore")
        print(f"  REFUSED {kind} {goal or ''} {path} at {got}/{len(middle.encode())}: {text[-60:]!r} | "
              f"{(middle + right)[len(text) - len(left):][:20]!r}")
    soundness = 100.0 * (len(invalid) - len(unsound)) / max(1, len(invalid))
    print(f"soundness: {len(invalid) - len(unsound)}/{len(invalid)} mutants {name} refuses are refused "
          f"({soundness:.2f}%, target {args.min_soundness}%)")
    print(f"early rejection: {early}/{len(invalid)} refused before their end")
    listed = [c for c in unsound if known(c, why[id(c)])]
    print(f"  of the accepted ones, {len(listed)} are refused by {name} for a listed difference")
    for case in unsound[:30]:
        kind, path, goal, left, middle, right, at = case
        whole = left + middle + right
        tag = "known" if case in listed else "ACCEPTED"
        print(f"  {tag} {kind} {goal or ''} at {at} in {path.name} ({why[id(case)]}): "
              f"{whole[max(0, at - 40):at + 40]!r}")
    failed = len(refused) + len(unsound) - len(listed)
    print(f"{label}: {len(everything) - failed} passed, {failed} failed")
    return 0 if not refused and soundness >= args.min_soundness else 1


def known_difference(case, message: str) -> bool:
    """A mutant acorn refuses for a difference docs/JAVASCRIPT_DIFFERENCES.md lists."""
    return (any(p.search(message) for p in KNOWN_DIFFERENCES)
            or bool(STRICT_ONLY.search(message) and STRICT_DIRECTIVE.search(case[3] + case[4] + case[5])))


def arguments(description: str) -> argparse.ArgumentParser:
    """The options a corpus check of real files takes (--seam, --files,
    --mutants, --cuts, --seed, --max-bytes, --min-soundness)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seam", required=True)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--mutants", type=int, default=12)
    parser.add_argument("--cuts", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--max-bytes", type=int, default=30000)
    parser.add_argument("--min-soundness", type=float, default=99.5)
    return parser


def main() -> int:
    args = arguments(__doc__.splitlines()[0]).parse_args()

    cache = reference_dir()
    acorn = Acorn(cache)
    files = pick_files(acorn, candidate_paths(cache), args.files, args.seed, args.max_bytes)
    return judge(args.seam, "javascript", files, acorn, args, known_difference)


if __name__ == "__main__":
    sys.exit(main())
