#!/usr/bin/env python3
"""Generates corpus cases for `seam check` from the machine's standard library.

A case is one JSON object a line (JSON Lines, UTF-8, LF line ends).  The
four fields `seam check` reads are `id`, `left`, `middle` and `right`; the
others describe the case for `run.py` and for people:

    mode               prefix | mutant | boundary | randspan
    kind               whole | split | boundary | randspan | delete | insert | swap
    file               path relative to the standard library's folder
    newline            "lf", or "crlf" when the file's LF line ends were
                       turned into CRLF for this case (see --crlf)
    offset             code point offset in the (possibly CRLF) file where
                       the middle starts (true middles) or of the edit (mutants)
    byte_offset        the same offset in UTF-8 bytes
    edit               mutants only: {"op", "at", "char"}; `at` is a code
                       point offset in the file, `char` the character deleted,
                       inserted, or the first of the two swapped
    expected_complete  CPython's verdict on left + middle + right (ast.parse)
    cpython_error      null, or the exception that rejected it: SyntaxError
                       (IndentationError and TabError included), ValueError,
                       or MemoryError / RecursionError (resource limits, which
                       run.py keeps out of the soundness figure)
    cpython_message    short message with line and column, or null
    min_accepted       bytes of the middle that must stay viable whatever
                       the verdict: the whole middle when CPython accepts,
                       the unchanged text before the edit for a mutant

Modes:
    prefix    the whole file as middle (empty left and right), then splits
              "left = first k code points, middle = the rest" at sampled k;
    mutant    single-character mutants of the whole file: delete a
              character, insert one of INSERT_CHARS, swap two adjacent
              different characters; half of them get a left context that
              ends at a line start before the edit, so the edit is always
              in the middle;
    boundary  two tokens on lines of equal indentation (tokenize) are
              picked; the text between them plus a random non-empty part of
              the end of the first token is the middle, the text before is
              left, the text from the second token on is right;
    randspan  a random point in the first 90% of the file; the middle is
              the next 1..min(100, 20% of the file) code points.
In boundary and randspan mode each cut also yields --cut-mutants
single-character mutants of its middle (in the same left and right).

Output is deterministic for a given Python installation, mode and options:
files are taken in an order shuffled by --seed from their sorted relative
paths, and every file has its own random generator seeded from the seed,
the mode and its path.

usage:
    python3 tests/corpus/cases.py --mode prefix --out /tmp/prefix.jsonl
    python3 tests/corpus/cases.py --mode mutant --files 100 --per-file 20 --seed 1
    python3 tests/corpus/cases.py --mode all --out /tmp/all.jsonl

Importable: generate(), select_sources(), cpython_verdict(), read_cases().
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import random
import sys
import sysconfig
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

MODES = ("prefix", "mutant", "boundary", "randspan")

# Characters a mutant may insert.
INSERT_CHARS = ("(", ")", "[", "]", "{", "}", ":", ",", "=", ".", "'", '"',
                " ", "\n", "\t", "a", "1", "\\")

# Cases per file when --per-file is not given: about 2,000 cases with the
# default --files.  A boundary or randspan cut also brings --cut-mutants.
DEFAULT_PER_FILE = {"prefix": 20, "mutant": 20, "boundary": 10, "randspan": 10}
DEFAULT_FILES = 100
DEFAULT_MAX_BYTES = 20000
DEFAULT_SEED = 1

# Folders of the standard library never sampled.  lib2to3's test data holds
# Python 2 files (most of which CPython rejects anyway).
SKIPPED_PARTS = ("site-packages", "__pycache__")
SKIPPED_PREFIXES = ("lib2to3/tests/data/",)

RESOURCE_ERRORS = ("MemoryError", "RecursionError")

# Tokens a boundary cut may start or end at.
CUT_TOKEN_TYPES = (tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP)
BOUNDARY_WINDOW = 50  # the second token is at most this many tokens after the first


# ---------------------------------------------------------------- CPython


@dataclass(frozen=True)
class Verdict:
    """CPython's answer on a program: accepted, or why not."""
    ok: bool
    error: str | None = None     # exception class name
    message: str | None = None   # short message with the position, if any

    @property
    def resource(self) -> bool:
        """True when CPython gave up for want of memory or stack."""
        return self.error in RESOURCE_ERRORS


def cpython_verdict(text: str) -> Verdict:
    """Parses `text` with ast.parse (warnings silenced) and says whether
    CPython accepts it.  SyntaxError (with IndentationError and TabError),
    ValueError (null bytes), MemoryError and RecursionError are rejections;
    the class name is kept so that resource limits can be told apart."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except SyntaxError as exc:
            where = f" (line {exc.lineno}, column {exc.offset})" if exc.lineno else ""
            return Verdict(False, "SyntaxError", f"{type(exc).__name__}: {exc.msg}{where}")
        except (ValueError, MemoryError, RecursionError) as exc:
            return Verdict(False, type(exc).__name__, f"{type(exc).__name__}: {exc}"[:200])
    return Verdict(True)


def cpython_accepts(text: str) -> bool:
    """True when ast.parse accepts `text`."""
    return cpython_verdict(text).ok


# ---------------------------------------------------------------- sources


@dataclass(frozen=True)
class Source:
    """One standard-library file as the cases see it."""
    rel: str       # path relative to the standard library's folder, with '/'
    text: str      # decoded UTF-8, line ends as in the file (or CRLF, see newline)
    newline: str   # "lf" (as read) or "crlf" (LF turned into CRLF)


def stdlib_root() -> Path:
    """The folder of the running interpreter's standard library."""
    return Path(sysconfig.get_paths()["stdlib"])


def candidate_paths(root: Path) -> list[str]:
    """Sorted relative paths of the .py files under `root` that may be sampled."""
    rels = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if any(part in SKIPPED_PARTS for part in rel.split("/")):
            continue
        if rel.startswith(SKIPPED_PREFIXES):
            continue
        rels.append(rel)
    return sorted(rels)


def read_source(root: Path, rel: str, max_bytes: int) -> tuple[str | None, str]:
    """Reads one file; returns (text, "") or (None, why it is skipped).

    The bytes are decoded strictly as UTF-8 without newline translation, so
    CRLF and lone CR stay as they are in the file."""
    try:
        data = (root / rel).read_bytes()
    except OSError:
        return None, "unreadable"
    if max_bytes and len(data) > max_bytes:
        return None, "too large"
    if not data.strip():
        return None, "empty"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8"
    if not cpython_accepts(text):
        return None, "rejected by CPython"
    return text, ""


def select_sources(files: int, seed: int, max_bytes: int, crlf_share: float = 0.0,
                   root: Path | None = None, stats: dict | None = None) -> list[Source]:
    """Picks up to `files` usable files in an order shuffled by `seed`.

    A share `crlf_share` of them (chosen by the same seed) has its LF line
    ends turned into CRLF, when the file has no CR of its own and CPython
    still accepts it.  `stats`, when given, counts the skipped files by reason."""
    root = root or stdlib_root()
    rels = candidate_paths(root)
    random.Random(f"files:{seed}").shuffle(rels)
    chosen: list[Source] = []
    for rel in rels:
        if len(chosen) >= files:
            break
        text, why = read_source(root, rel, max_bytes)
        if text is None:
            if stats is not None:
                stats[why] = stats.get(why, 0) + 1
            continue
        newline = "lf"
        if crlf_share > 0 and random.Random(f"crlf:{seed}:{rel}").random() < crlf_share \
                and "\r" not in text:
            converted = text.replace("\n", "\r\n")
            if cpython_accepts(converted):
                text, newline = converted, "crlf"
        chosen.append(Source(rel, text, newline))
    return chosen


# ---------------------------------------------------------------- helpers


def utf8_len(text: str) -> int:
    """Length of `text` in UTF-8 bytes."""
    return len(text.encode("utf-8"))


def line_starts(text: str) -> list[int]:
    """Code point offsets where lines start, splitting at LF only (as the
    tokenizer does for CRLF files: the CR stays at the end of its line).
    Unlike str.splitlines, form feeds and other separators do not split."""
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def make_case(src: Source, mode: str, kind: str, index: int, left: str, middle: str,
              right: str, offset: int, edit: dict | None = None,
              verdict: Verdict | None = None, min_accepted: int | None = None) -> dict:
    """Builds one case dictionary (see the module's docstring for the fields).

    Without `verdict` the case is a true middle (left + middle + right is the
    file, which CPython accepts)."""
    verdict = verdict or Verdict(True)
    full = src.text if edit is None else left + middle + right
    case = {
        "id": f"{mode}:{src.rel}:{index}",
        "left": left,
        "middle": middle,
        "right": right,
        "mode": mode,
        "kind": kind,
        "file": src.rel,
        "newline": src.newline,
        "offset": offset,
        "byte_offset": utf8_len(full[:offset]),
    }
    if edit is not None:
        case["edit"] = edit
    case["expected_complete"] = verdict.ok
    case["cpython_error"] = verdict.error
    case["cpython_message"] = verdict.message
    case["min_accepted"] = utf8_len(middle) if verdict.ok or min_accepted is None else min_accepted
    return case


def mutate(text: str, rng: random.Random, seen: set) -> tuple[dict, str] | None:
    """One single-character edit of `text` not in `seen`: deletes a
    character, inserts one of INSERT_CHARS, or swaps two adjacent different
    characters.  Returns ({"op", "at", "char"}, mutated text), or None when
    no new edit was found in a few tries."""
    for _ in range(20):
        op = rng.choice(("delete", "insert", "swap"))
        if op == "insert":
            at = rng.randrange(len(text) + 1)
            char = rng.choice(INSERT_CHARS)
            mutated = text[:at] + char + text[at:]
        elif op == "delete":
            if not text:
                continue
            at = rng.randrange(len(text))
            char = text[at]
            mutated = text[:at] + text[at + 1:]
        else:
            if len(text) < 2:
                continue
            at = rng.randrange(len(text) - 1)
            char = text[at]
            if text[at] == text[at + 1]:
                continue
            mutated = text[:at] + text[at + 1] + text[at] + text[at + 2:]
        key = (op, at, char)
        if key in seen:
            continue
        seen.add(key)
        return {"op": op, "at": at, "char": char}, mutated
    return None


def cut_mutants(src: Source, mode: str, index: int, left: str, middle: str, right: str,
                count: int, rng: random.Random) -> list[dict]:
    """`count` single-character mutants of a cut's middle, in its context."""
    out, seen = [], set()
    for _ in range(count):
        found = mutate(middle, rng, seen)
        if found is None:
            break
        edit, mutated = found
        at = len(left) + edit["at"]
        edit = dict(edit, at=at)
        verdict = cpython_verdict(left + mutated + right)
        out.append(make_case(src, mode, edit["op"], index + len(out), left, mutated, right,
                             offset=at, edit=edit, verdict=verdict,
                             min_accepted=utf8_len(mutated[:at - len(left)])))
    return out


# ---------------------------------------------------------------- modes


def prefix_cases(src: Source, per_file: int, rng: random.Random, **_) -> list[dict]:
    """The whole file as middle, then per_file - 1 splits at sampled code points.

    When the file has non-ASCII characters, one split is put right after one
    of them, so that left ends in a multi-byte character."""
    text = src.text
    cases = [make_case(src, "prefix", "whole", 0, "", text, "", offset=0)]
    wanted = min(max(0, per_file - 1), max(0, len(text) - 1))
    points: list[int] = []
    wide = [i for i, c in enumerate(text) if ord(c) > 0x7F]
    if wide and wanted and wide[-1] + 1 < len(text):
        points.append(rng.choice([i + 1 for i in wide if i + 1 < len(text)]))
    while len(points) < wanted:
        k = rng.randrange(1, len(text))
        if k not in points:
            points.append(k)
    for n, k in enumerate(sorted(set(points)), start=1):
        if 0 < k < len(text):
            cases.append(make_case(src, "prefix", "split", n, text[:k], text[k:], "", offset=k))
    return cases


def mutant_cases(src: Source, per_file: int, rng: random.Random, **_) -> list[dict]:
    """per_file single-character mutants of the whole file, with CPython's
    verdict.  Every other one (by coin toss) moves the text before a line
    start at or before the edit into the left context."""
    text, cases, seen = src.text, [], set()
    for _ in range(per_file):
        found = mutate(text, rng, seen)
        if found is None:
            break
        edit, mutated = found
        k = 0
        if rng.random() < 0.5:
            starts = [s for s in line_starts(mutated) if s <= edit["at"]]
            k = rng.choice(starts)
        verdict = cpython_verdict(mutated)
        cases.append(make_case(src, "mutant", edit["op"], len(cases), mutated[:k], mutated[k:], "",
                               offset=edit["at"], edit=edit, verdict=verdict,
                               min_accepted=utf8_len(mutated[k:edit["at"]])))
    return cases


def cut_tokens(text: str) -> tuple[list[tuple[int, int, str]], list[int]] | None:
    """Tokens a boundary cut may use, as (start, end, indentation of the
    start's line) in code point offsets, and the line starts; None when the
    tokenize module cannot read the file."""
    starts: list[int] = []
    lines: list[str] = []
    reader = io.StringIO(text, newline="")  # no newline translation: CRLF stays

    def readline() -> str:
        line = reader.readline()
        if line:
            starts.append(starts[-1] + len(lines[-1]) if lines else 0)
            lines.append(line)
        return line

    # readline splits at LF, CRLF and lone CR alike (newline=""); the tokenize
    # module then sees the same physical lines as CPython's tokenizer.
    out = []
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type not in CUT_TOKEN_TYPES or not tok.string:
                continue
            (srow, scol), (erow, ecol) = tok.start, tok.end
            line = lines[srow - 1]
            indent = line[:len(line) - len(line.lstrip(" \t\f"))]
            out.append((starts[srow - 1] + scol, starts[erow - 1] + ecol, indent))
    except (tokenize.TokenError, SyntaxError):
        return None
    return out, starts


def boundary_cases(src: Source, per_file: int, rng: random.Random, cut_mutants_per: int = 1,
                   **_) -> list[dict]:
    """per_file boundary cuts (see the module's docstring) and their mutants."""
    text = src.text
    found = cut_tokens(text)
    if found is None:
        return []
    tokens, _ = found
    cases: list[dict] = []
    seen = set()
    if len(tokens) < 2:
        return cases
    for _ in range(per_file * 10):
        if len(seen) >= per_file:
            break
        a = rng.randrange(len(tokens) - 1)
        start_a, end_a, indent_a = tokens[a]
        followers = [t for t in tokens[a + 1:a + 1 + BOUNDARY_WINDOW] if t[2] == indent_a]
        if not followers:
            continue
        start_b = rng.choice(followers)[0]
        cut = rng.randrange(start_a, end_a)
        if (cut, start_b) in seen or cut >= start_b:
            continue
        seen.add((cut, start_b))
        left, middle, right = text[:cut], text[cut:start_b], text[start_b:]
        index = len(cases)
        cases.append(make_case(src, "boundary", "boundary", index, left, middle, right, offset=cut))
        cases += cut_mutants(src, "boundary", index + 1, left, middle, right, cut_mutants_per, rng)
    return cases


def randspan_cases(src: Source, per_file: int, rng: random.Random, cut_mutants_per: int = 1,
                   **_) -> list[dict]:
    """per_file random-span cuts (see the module's docstring) and their mutants."""
    text = src.text
    n = len(text)
    cases: list[dict] = []
    seen = set()
    if n < 2:
        return cases
    longest = max(1, min(100, n // 5))
    for _ in range(per_file * 10):
        if len(seen) >= per_file:
            break
        cut = rng.randrange(max(1, int(n * 0.9)))
        span = rng.randint(1, longest)
        if (cut, span) in seen:
            continue
        seen.add((cut, span))
        left, middle, right = text[:cut], text[cut:cut + span], text[cut + span:]
        index = len(cases)
        cases.append(make_case(src, "randspan", "randspan", index, left, middle, right, offset=cut))
        cases += cut_mutants(src, "randspan", index + 1, left, middle, right, cut_mutants_per, rng)
    return cases


GENERATORS = {"prefix": prefix_cases, "mutant": mutant_cases,
              "boundary": boundary_cases, "randspan": randspan_cases}


def generate(mode: str, files: int = DEFAULT_FILES, per_file: int | None = None,
             seed: int = DEFAULT_SEED, max_bytes: int = DEFAULT_MAX_BYTES,
             cut_mutants_per: int = 1, crlf_share: float = 0.1,
             sources: list[Source] | None = None, stats: dict | None = None) -> Iterator[dict]:
    """Yields the cases of one mode ("all" for the four in turn)."""
    modes = MODES if mode == "all" else (mode,)
    if sources is None:
        sources = select_sources(files, seed, max_bytes, crlf_share, stats=stats)
    for m in modes:
        count = DEFAULT_PER_FILE[m] if per_file is None else per_file
        for src in sources:
            rng = random.Random(f"{m}:{seed}:{src.rel}")
            yield from GENERATORS[m](src, count, rng, cut_mutants_per=cut_mutants_per)


def write_cases(cases: Iterable[dict], out) -> int:
    """Writes cases as JSON Lines (UTF-8 kept as is, one object a line) to a
    binary file; returns how many were written."""
    n = 0
    for case in cases:
        out.write(json.dumps(case, ensure_ascii=False).encode("utf-8") + b"\n")
        n += 1
    return n


def read_cases(path: str | Path) -> list[dict]:
    """Reads a case file written by write_cases ("-" for stdin)."""
    data = sys.stdin.buffer.read() if str(path) == "-" else Path(path).read_bytes()
    cases = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            case = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}:{number}: not a case: {exc}") from None
        if not isinstance(case, dict) or not all(isinstance(case.get(k), str)
                                                  for k in ("left", "middle")):
            raise ValueError(f"{path}:{number}: a case needs string fields left and middle")
        case.setdefault("right", "")
        cases.append(case)
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="See tests/corpus/README.md.")
    parser.add_argument("--mode", choices=MODES + ("all",), default="prefix")
    parser.add_argument("--files", type=int, default=DEFAULT_FILES, help="files sampled (default %(default)s)")
    parser.add_argument("--per-file", type=int, default=None,
                        help="cases (cuts, mutants, splits + the whole file) per file; default per mode: "
                             + ", ".join(f"{m} {n}" for m, n in DEFAULT_PER_FILE.items()))
    parser.add_argument("--cut-mutants", type=int, default=1,
                        help="mutants of each boundary/randspan middle (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                        help="skip files larger than this (default %(default)s; 0: no limit)")
    parser.add_argument("--crlf", type=float, default=0.1, metavar="SHARE",
                        help="share of files given CRLF line ends (default %(default)s)")
    parser.add_argument("--out", default="-", help="output file (default: stdout)")
    args = parser.parse_args(argv)

    stats: dict = {}
    sources = select_sources(args.files, args.seed, args.max_bytes, args.crlf, stats=stats)
    cases = generate(args.mode, per_file=args.per_file, seed=args.seed,
                     cut_mutants_per=args.cut_mutants, sources=sources)
    counts: dict = {}

    def counted(it):
        for case in it:
            key = (case["mode"], case["kind"], case["expected_complete"])
            counts[key] = counts.get(key, 0) + 1
            yield case

    if args.out == "-":
        n = write_cases(counted(cases), sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        with open(args.out, "wb") as out:
            n = write_cases(counted(cases), out)
    skipped = ", ".join(f"{why} {k}" for why, k in sorted(stats.items())) or "none"
    crlf = sum(1 for s in sources if s.newline == "crlf")
    print(f"cases.py: {n} cases from {len(sources)} files ({crlf} with CRLF; skipped: {skipped})",
          file=sys.stderr)
    for (mode, kind, ok), k in sorted(counts.items()):
        print(f"  {mode:9} {kind:9} {'CPython accepts' if ok else 'CPython rejects'}: {k}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
