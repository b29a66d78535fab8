#!/usr/bin/env python3
"""Checks seam's grammar for each Python version against that version's own
parser: 3.10, 3.12, 3.13 and 3.14 are CPython compiled to WebAssembly
(pyodide, scripts/pyodide.sh), 3.11 the machine's CPython, and 3.9 (which
no pyodide on npm carries whole) the machine's ast.parse with
feature_version (for the syntax it lacks).

For each version: the programs of version_snippets.py (every version's
additions) must get seam's verdict (complete) equal to the reference's,
with every prefix viable when the reference accepts; single-character
mutants of them must get the reference's verdict too (soundness: a mutant
the reference refuses is refused; completeness: one it accepts is
accepted whole); random fill-in-the-middle cuts of the accepted ones must
keep their true middle.  For 3.10 and 3.12 to 3.14, sampled files of that
version's own standard library are checked whole, with their mutants and
line and span cuts; from 3.12 on, a sample of those the machine's 3.11
also parses, and every file
that only the newer version parses (they use PEP 701 f-strings, type
parameters or t-strings), whose fill-in-the-middle cuts (at line
boundaries and at random spans) must keep their true middle too.

usage: version_check.py --seam BUILD/seam [--pyodide DIR] [--files N] [--newer N] [--mutants K]
Prints a report and "versions: N passed, N failed".
"""
import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from version_snippets import LIMITS, SINCE, SNIPPETS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
INSERTED = list("()[]{}:,=.'\" \n\ta1\\#*+-@")
VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14"]


def node():
    """Node 24 from scripts/vscode.sh's cache when the tests have it, else
    the machine's node."""
    tools = os.environ.get("SEAM_VSCODE_DIR")
    cached = os.path.join(tools, "node", "bin", "node") if tools else ""
    return cached if cached and os.path.exists(cached) else "node"


class Pyodide:
    """One CPython in WebAssembly, asked line by line (tests/pyodide/parse.mjs)."""

    def __init__(self, directory):
        self.proc = subprocess.Popen([node(), os.path.join(ROOT, "tests", "pyodide", "parse.mjs"), directory],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.version = json.loads(self.proc.stdout.readline())["version"]
        self.next = 0

    def ask(self, obj):
        self.next += 1
        obj["id"] = self.next
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def accepts(self, text):
        return self.ask({"text": text})["ok"]

    def stdlib(self):
        return self.ask({"files": True})["files"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def machine_accepts(text, feature_version=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if feature_version:
                ast.parse(text, feature_version=feature_version)
            else:
                ast.parse(text)
            return True
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return False


def seam_check(seam, version, cases):
    """[(left, middle, right)] -> seam check's answers, in order."""
    lines = "".join(json.dumps({"id": i, "left": l, "middle": m, "right": r, "python_version": version}) + "\n"
                    for i, (l, m, r) in enumerate(cases))
    out = subprocess.run([seam, "check"], input=lines, capture_output=True, text=True, timeout=1800).stdout
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == len(cases), "seam check answered %d of %d" % (len(answers), len(cases))
    return answers


def mutants(text, rng, per_position):
    seen = set()
    for i in range(len(text)):
        edits = [text[:i] + text[i + 1:]]
        for _ in range(per_position):
            edits.append(text[:i] + rng.choice(INSERTED) + text[i:])
        if i + 1 < len(text):
            edits.append(text[:i] + text[i + 1] + text[i] + text[i + 2:])
        for m in edits:
            if m not in seen and m != text:
                seen.add(m)
                yield m


def sampled_mutants(text, rng, count):
    """count single-character edits at random places (delete, insert, swap);
    none of an empty file."""
    for _ in range(count if text else 0):
        i = rng.randrange(len(text))
        kind = rng.choice(("delete", "insert", "swap"))
        if kind == "delete":
            yield text[:i] + text[i + 1:]
        elif kind == "insert":
            yield text[:i] + rng.choice(INSERTED) + text[i:]
        elif i + 1 < len(text):
            yield text[:i] + text[i + 1] + text[i] + text[i + 2:]


# An f-string or t-string literal starts here: 3.12 reads them with the
# lexer modes of PEP 701 (and 3.14 adds t-strings, PEP 750), which seam's
# lexer does not have yet.


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.shown = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            if self.shown < 25:
                self.shown += 1
                print("FAIL:", what)
        return ok


def check_programs(report, seam, version, accepts, programs, rng, mutants_per, label, sampled=0):
    """Whole programs and their mutants (every position's, or `sampled` at
    random places): seam's complete equals the reference's verdict;
    accepted programs have every prefix viable."""
    verdicts = [accepts(p) for p in programs]
    answers = seam_check(seam, version, [("", p, "") for p in programs])
    for p, ok, a in zip(programs, verdicts, answers):
        full = len(p.encode())
        agrees = a.get("complete") == ok and (not ok or a.get("accepted") == full)
        report.check(agrees, "%s %s: reference %s, seam %r on %r" % (version, label, ok, a, p[:120]))
    muts = []
    for p, ok in zip(programs, verdicts):
        if ok:
            muts.extend(sampled_mutants(p, rng, sampled) if sampled else mutants(p, rng, mutants_per))
    mverdicts = [accepts(m) for m in muts]
    manswers = seam_check(seam, version, [("", m, "") for m in muts])
    refused = [a.get("complete") is False for m, ok, a in zip(muts, mverdicts, manswers) if not ok]
    for m, ok, a in zip(muts, mverdicts, manswers):
        if ok:
            whole = a.get("complete") is True and a.get("accepted") == len(m.encode())
            report.check(whole, "%s %s mutant the reference accepts, seam %r: %r" % (version, label, a, m[:120]))
    share = 100.0 * sum(refused) / len(refused) if refused else 100.0
    report.check(share >= 99.5, "%s %s mutants the reference refuses: seam refuses %.2f%% (>= 99.5%%)"
                 % (version, label, share))
    for m, ok, a in zip(muts, mverdicts, manswers):
        if not ok and a.get("complete") is not False and report.shown < 25:
            report.shown += 1
            print("  accepted mutant (%s): %r" % (version, m[:160]))
    return len(programs), len(muts), share


def line_cut(p, rng):
    """A hole of one to three whole lines (a boundary cut)."""
    starts = [0] + [k + 1 for k, c in enumerate(p) if c == "\n" and k + 1 < len(p)]
    a = rng.randrange(len(starts))
    b = min(len(starts), a + rng.randint(1, 3))
    i = starts[a]
    j = starts[b] if b < len(starts) else len(p)
    return i, j


def span_cut(p, rng):
    """A random span of at most 200 characters."""
    i = rng.randrange(len(p) + 1)
    return i, min(len(p), i + rng.randrange(201))


def check_cuts(report, seam, version, programs, rng, per_program, cut=span_cut):
    """Fill-in-the-middle cuts of accepted programs keep their middle."""
    cases = []
    for p in programs:
        for _ in range(per_program):
            i, j = cut(p, rng)
            cases.append((p[:i], p[i:j], p[j:]))
    answers = seam_check(seam, version, cases)
    for (l, m, r), a in zip(cases, answers):
        kept = a.get("complete") is True and a.get("accepted") == len(m.encode())
        report.check(kept, "%s cut: true middle %r after %r refused: %r" % (version, m[:80], l[-60:], a))
    return len(cases)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--pyodide", default=os.environ.get("SEAM_PYODIDE_DIR"), help="default: $SEAM_PYODIDE_DIR")
    ap.add_argument("--files", type=int, default=12, help="sampled standard-library files 3.11 parses too")
    ap.add_argument("--newer", type=int, default=40, help="at most this many files only the version parses")
    ap.add_argument("--cuts", type=int, default=8, help="cuts of each kind per file only the version parses")
    ap.add_argument("--mutants", type=int, default=1, help="insertions per position of a snippet")
    ap.add_argument("--file-mutants", type=int, default=20, help="random mutants per standard-library file")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    if not args.pyodide or not os.path.isdir(args.pyodide):
        raise SystemExit("SEAM_PYODIDE_DIR does not name scripts/pyodide.sh's cache: run scripts/test.sh "
                         "(or export SEAM_PYODIDE_DIR=$(scripts/pyodide.sh))")
    seam = os.path.abspath(args.seam)
    report = Report()
    for version in VERSIONS:
        rng = random.Random("%s-%d" % (version, args.seed))
        minor = int(version.split(".")[1])
        py = None
        if minor >= 12 or minor == 10:
            py = Pyodide(os.path.join(args.pyodide, "node_modules", "pyodide-3%d" % minor))
            accepts = py.accepts
            where = "pyodide CPython %s" % py.version
        elif minor == 11:
            accepts = machine_accepts
            where = "CPython %d.%d.%d" % sys.version_info[:3]
        else:
            # the machine's parser, told the version; only where it refuses
            # syntax that version lacks is it a reference (feature_version
            # is best-effort the other way)
            late = {SNIPPETS[i] for i, since in SINCE.items() if since > 300 + minor}

            def accepts(text, minor=minor, late=late):
                return text not in late and machine_accepts(text, (3, minor))
            where = "CPython %d.%d ast.parse(feature_version=(3, %d))" % (sys.version_info[0], sys.version_info[1],
                                                                         minor)
        try:
            if (minor == 11 or minor == 9) and sys.version_info[:2] != (3, 11):
                print("%s: skipped, the machine's Python is not 3.11" % version)
                continue
            # (3.9: the programs 3.11 parses; their mutants are judged by
            # feature_version, sound where it refuses)
            programs = SNIPPETS if minor >= 10 else [p for p in SNIPPETS if machine_accepts(p)]
            n, m, share = check_programs(report, seam, version, accepts, programs, rng, args.mutants, "snippet")
            good = [p for p in programs if accepts(p)]
            cuts = check_cuts(report, seam, version, good, rng, 8)
            print("%s (%s): %d snippets (%d accepted), %d mutants (%.2f%% of the refused ones refused), %d cuts"
                  % (version, where, n, len(good), m, share, cuts))
            if minor >= 12:
                n, m, share = check_programs(report, seam, version, accepts, LIMITS, rng, 0, "limit", sampled=20)
                cuts = check_cuts(report, seam, version, [p for p in LIMITS if accepts(p)], rng, 2)
                print("%s nesting limits: %d programs, %d mutants (%.2f%% of the refused ones refused), %d cuts"
                      % (version, n, m, share, cuts))
            if py:
                files = py.stdlib()
                rng.shuffle(files)
                both, newer = [], []
                for name, text in files:
                    if len(both) >= args.files and len(newer) >= args.newer:
                        break
                    if len(text) > 200000 or not py.accepts(text):
                        continue
                    pick = both if machine_accepts(text) else newer
                    if pick is both and len(text) > 60000:
                        continue
                    if len(pick) < (args.files if pick is both else args.newer):
                        pick.append((name, text))
                sample = [t for _, t in both]
                n, m, share = check_programs(report, seam, version, accepts, sample,
                                             rng, 0, "stdlib file", sampled=args.file_mutants)
                cuts = check_cuts(report, seam, version, sample, rng, args.cuts // 2, line_cut)
                cuts += check_cuts(report, seam, version, sample, rng, args.cuts // 2, span_cut)
                print("%s standard library: %d files, %d mutants (%.2f%% of the refused ones refused), %d cuts"
                      % (version, n, m, share, cuts))
                if minor < 12:
                    continue    # (3.10's standard library is all 3.11 reads too)
                texts = [t for _, t in newer]
                n, m, share = check_programs(report, seam, version, accepts, texts, rng, 0,
                                             "stdlib file only %s parses" % version, sampled=args.file_mutants)
                cuts = check_cuts(report, seam, version, texts, rng, args.cuts, line_cut)
                cuts += check_cuts(report, seam, version, texts, rng, args.cuts, span_cut)
                print("%s standard library, files only %s parses: %d files, %d mutants (%.2f%% of the refused "
                      "ones refused), %d cuts (lines and random spans) with their true middles: %s"
                      % (version, version, n, m, share, cuts, ", ".join(nm for nm, _ in newer[:8])))
        finally:
            if py:
                py.close()
    print("versions: %d passed, %d failed" % (report.passed, report.failed))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
