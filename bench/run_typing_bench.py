"""How good seam's completions are while a line is being typed.

    python3 bench/run_typing_bench.py --seam build/release/seam [--lines 150] [--seed 5]
                                      [--language python|javascript|typescript|jsx|tsx]
    python3 bench/run_typing_bench.py --seam build/debug/seam --lines 40 --check   (the test command's)

Lines of standard-library files (with --language javascript: of the real
JavaScript files tests/corpus/js_check.py samples, one-line statements
ending in ";", judged by acorn; with --language typescript: of the
TypeScript files tests/corpus/ts_check.py samples, judged by TypeScript's
parser; with jsx and tsx: of the JSX and TSX files, judged by acorn-jsx
and TypeScript's parser) are typed left to right and stopped at a
random point, as an editor with VS Code's defaults has them: every bracket
and quote opened on the line so far is closed after the cursor (the
editor's auto-closing), and the person's own closers overtype those.  One
line in four is the first line of a statement that goes on over several
and ends with the bracket it opens (`labels = {`), typed before that
bracket: its construct's lines follow it in the file.  Two settings:
- the end of a file: the file stops after the line being typed;
- a new line in the middle of a file: the code after the line follows.
The true completion is what the person types before their first closer of
something opened before the cursor (the rest of the line once those closers
have been overtyped).  A completion is judged once the person finishes the
line as they meant to: the text they still type (from that first closer on)
follows it, and the file goes on as the original does.

The same imitation of a fill-in-the-middle model as run_quality_bench.py
knows each line's true completion, puts a token that breaks the syntax
there (the reference parser's word) first at up to 15% of positions and
runs on into the right context in half the lines; it is served over
llama.cpp's API by the loopback server of seam's tests.
For seam and two baselines from the same model (plain greedy decoding, and
greedy decoding cut where it repeats the right context) the table gives the
share of lines with a completion offered (non-empty), equal to the true
completion, and valid once the line is finished; then the embedded model
on the same lines (offered, valid).

--check exits non-zero unless, in both settings, seam offers a completion
at 95% of the lines or more, none of them breaks the file, and seam is
exactly right at least 20 points more often than the better baseline.
"""

import argparse
import copy
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "backends"))
# (LANGUAGE, the language of the lines, is run_quality_bench's: main() sets it)
from run_quality_bench import (LANGUAGE, PIECE, Imitation, add_noise_option, braces, cut_at_repeat,  # noqa: E402
                               greedy, js_files, settle_noise, valid_all)
from stdlib_files import random_files  # noqa: E402
from loopback import LoopbackServer  # noqa: E402

CLOSER = {"(": ")", "[": "]", "{": "}"}


class LineScan:
    """Brackets and a string open on a line being typed (brackets inside a
    string are text); a comment ends the scan."""

    def __init__(self):
        self.stack = []        # open brackets, outermost first
        self.quote = None      # the open string's quote ('"', "'", or a triple)
        self.escaped = False
        self.comment = False

    def level(self):
        return len(self.stack) + (1 if self.quote else 0)

    def step(self, text, i):
        """Consumes text[i...]; returns how many characters."""
        c = text[i]
        if self.comment:
            return 1
        if self.quote:
            if self.escaped:
                self.escaped = False
            elif c == "\\":
                self.escaped = True
            elif text.startswith(self.quote, i):
                n = len(self.quote)
                self.quote = None
                return n
            return 1
        javascript = braces()
        if (c == "#" and not javascript) or (javascript and text.startswith("//", i)):
            self.comment = True
        elif c in "\"'" or (javascript and c == "`"):
            self.quote = c * 3 if text.startswith(c * 3, i) and not javascript else c
            return len(self.quote)
        elif c in CLOSER:
            self.stack.append(c)
        elif c == "<" and LANGUAGE["name"] in ("typescript", "tsx") and i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_$."):
            self.stack.append(c)   # a type argument list ("Map<"), which no editor closes
        elif c == ">" and self.stack and self.stack[-1] == "<" and not (i > 0 and text[i - 1] == "="):
            self.stack.pop()
        elif c in ")]}" and self.stack:
            while len(self.stack) > 1 and self.stack[-1] == "<":
                self.stack.pop()
            self.stack.pop()
        return 1

    def closers(self):
        """What the editor has put after the cursor: the open string's
        quote, then the brackets' closers, innermost first (a type
        argument list's ">" is the person's to type)."""
        out = self.quote if self.quote else ""
        return out + "".join(CLOSER[b] for b in reversed(self.stack) if b in CLOSER)


def scan(text, state=None):
    s = state or LineScan()
    i = 0
    while i < len(text):
        i += s.step(text, i)
    return s


def first_closer(head_state, rest):
    """The index in `rest` where the person first closes something opened
    before the cursor, or len(rest) when they never do."""
    s = copy.deepcopy(head_state)
    start = s.level()
    i = 0
    while i < len(rest):
        before = i
        i += s.step(rest, i)
        if s.level() < start:
            return before
    return len(rest)


def logical_lines(text):
    """(first, last) physical line numbers (1-based) of each logical line of
    Python code."""
    start = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
                continue
            if start is None:
                start = tok.start[0]
            if tok.type == tokenize.NEWLINE:
                yield start, tok.start[0]
                start = None
    except (tokenize.TokenError, SyntaxError):
        pass


def one_line_statements(text):
    """Line numbers (0-based) of logical lines that are one physical line."""
    return {first - 1 for first, last in logical_lines(text) if first == last}


OPENERS = "([{"


def opening_lines(text):
    """Line numbers (0-based) of the first physical lines of logical lines
    that go on over several, when the line ends with an opening bracket
    (`labels = {`, `from x import (`, `if (a) {`): the person types it and
    the construct's lines follow."""
    out = set()
    if braces():
        for i, line in enumerate(text.split("\n")):
            body = line.rstrip()
            if not body.endswith(tuple(OPENERS)) or body.lstrip().startswith(("//", "/*", "*")) or "`" in line \
                    or "/" in body:
                continue
            s = scan(line)
            if s.stack and not s.quote and not s.comment:
                out.add(i)
        return out
    lines = text.split("\n")
    return {first - 1 for first, last in logical_lines(text)
            if last > first and lines[first - 1].rstrip().endswith(tuple(OPENERS)) and "#" not in lines[first - 1]}


def js_statements(text):
    """Line numbers (0-based) of JavaScript lines that look like one whole
    statement: ending in ";", brackets and quotes closed on the line."""
    out = set()
    for i, line in enumerate(text.split("\n")):
        body = line.strip()
        if not body.endswith(";") or body.startswith(("//", "/*", "*")) or "`" in line or "/" in body:
            continue
        s = scan(line)
        if not s.stack and not s.quote and not s.comment:
            out.add(i)
    return out


def typed_lines(count, seed):
    """Cases: (name, before, head, closers, expected, tail, after)."""
    rng = random.Random(seed)
    javascript = braces()
    files = js_files(rng, seed, min_lines=20) if javascript else random_files(rng, 40, private=False)
    out = []
    while len(out) < count:
        name, text, lines = next(files)
        # one line in four opens a construct its next lines go on with
        opening = rng.random() < 0.25
        singles = sorted(opening_lines(text) if opening else
                         js_statements(text) if javascript else one_line_statements(text))
        picks = [i for i in singles if 5 <= i < len(lines) - 5]
        if not picks:
            continue
        i = rng.choice(picks)
        line = lines[i]
        if '"""' in line or "'''" in line or not line.strip() or line.strip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        cuts = [m.end() for m in PIECE.finditer(line) if indent < m.end() < len(line.rstrip())]
        if not cuts:
            continue
        col = rng.choice(cuts)
        head, rest = line[:col], line[col:]
        state = scan(head)
        if state.comment or (opening and (state.stack or state.quote)):
            continue   # (an opening line is typed before its brackets: no closer after the cursor)
        j = first_closer(state, rest)
        expected, tail = rest[:j], rest[j:]
        closers = state.closers()
        if not expected.strip() or not tail.startswith(closers[:1]):
            continue   # the person's next key is a closer: nothing to complete
        if "<" in state.stack:
            continue   # inside a type argument list, which no editor closes: not this benchmark's typing
        before = "\n".join(lines[:i]) + "\n"
        after = "\n".join(lines[i + 1:])
        if not valid_all([before + head + expected + tail + "\n" + after], [name])[0]:
            continue
        out.append((name, before, head, closers, expected, tail, after))
    return out


def valid(text, name=""):
    return valid_all([text], [name])[0]


def buffer_of(case, at_end):
    """The editor's buffer and the cursor's offset in it."""
    name, before, head, closers, expected, tail, after = case
    left = before + head
    right = closers + "\n" + ("" if at_end else after)
    return left, right


def finished(case, completion):
    """The file once the person finishes the line as they meant to."""
    name, before, head, closers, expected, tail, after = case
    return before + head + completion + tail + "\n" + after


def run_seam(seam, work, i, case, at_end, settings):
    left, right = buffer_of(case, at_end)
    folder = os.path.join(work, "%d" % i)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, case[0])
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(left + right)
    line = left.count("\n") + 1
    col = len(left.rsplit("\n", 1)[-1]) + 1
    run = subprocess.run([seam, "complete", "%s:%d:%d" % (path, line, col), "--json"] + settings,
                         capture_output=True, timeout=120)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        out = json.loads(run.stdout.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return out


def figures(name, completions, cases):
    n = len(cases)
    offered = sum(c != "" for c in completions)
    equal = sum(c == case[4] for c, case in zip(completions, cases))
    judged = valid_all([finished(case, c) for c, case in zip(completions, cases)], [case[0] for case in cases])
    broken = sum(c != "" and not ok for c, ok in zip(completions, judged))
    print("%-26s %8.1f%% %8.1f%% %8.1f%% %8d" % (name, 100.0 * offered / n, 100.0 * equal / n,
                                                100.0 * (offered - broken) / max(offered, 1), broken))
    return {"offered": 100.0 * offered / n, "equal": 100.0 * equal / n, "broken": broken}


def setting(args, cases, work, at_end):
    title = "the end of a file" if at_end else "a new line in the middle of a file"
    print("\n== %s: %d lines (noise 15%% of positions, run-ons in 50%% of lines)" % (title, len(cases)))
    print("%-26s %9s %9s %9s %8s" % ("", "offered", "equal", "valid", "broken"))
    models = []
    for i, case in enumerate(cases):
        rng = random.Random(args.seed * 1000 + i)
        left, right = buffer_of(case, at_end)
        models.append(Imitation(case[4], right, 0.15, rng.random() < 0.5, args.seed * 7919 + i))
    if not args.unchecked_noise:
        settle_noise(models, [buffer_of(c, at_end)[0] for c in cases], [c[0] for c in cases])
    plain = [greedy(m) for m in models]
    cut = [cut_at_repeat(g, buffer_of(c, at_end)[1]) for g, c in zip(plain, cases)]
    result = {"greedy": figures("greedy", plain, cases), "cut": figures("greedy, cut at repeat", cut, cases)}
    seam_out, bindings, failures = [], {}, 0
    server = LoopbackServer(models[0])
    with server:
        for i, case in enumerate(cases):
            server.script = models[i]
            out = run_seam(args.seam, work, i, case, at_end,
                           ["--backend", "llamacpp", "--endpoint", server.url, "--timeout-ms", "10000"])
            if out is None:
                failures += 1
            completion = out.get("completion", "") if out and out.get("found") else ""
            seam_out.append(completion)
            kind = (out or {}).get("binding", {}).get("kind", "none")
            bindings[kind] = bindings.get(kind, 0) + 1
    result["seam"] = figures("seam", seam_out, cases)
    print("seam's bindings: %s%s" % (", ".join("%s %d" % kv for kv in sorted(bindings.items())),
                                     "; %d runs gave no JSON" % failures if failures else ""))
    if args.verbose:
        for c, case in zip(seam_out, cases):
            if c != case[4]:
                print("  %r|%r  seam %r  true %r%s" % (case[2].strip()[-40:], case[3], c, case[4],
                                                   "" if not c or valid(finished(case, c), case[0]) else "  BROKEN"))
    if not args.no_embedded:
        embedded = []
        for i, case in enumerate(cases):
            out = run_seam(args.seam, work, i, case, at_end, ["--train-stdlib", "false"])
            embedded.append(out.get("completion", "") if out and out.get("found") else "")
        e = figures("seam, embedded model", embedded, cases)
        result["embedded"] = e
        if args.verbose:
            for c, case in zip(embedded, cases):
                if c and not valid(finished(case, c), case[0]):
                    print("  embedded %r|%r  %r  true %r  BROKEN" % (case[2].strip()[-40:], case[3], c, case[4]))
    better = max(result["greedy"]["equal"], result["cut"]["equal"])
    print("seam offered %.1f%% (target >= 95%%), broken %d (target 0), equal - better baseline %+.1f points "
          "(target >= +20)" % (result["seam"]["offered"], result["seam"]["broken"], result["seam"]["equal"] - better))
    return result["seam"]["offered"] >= 95 and result["seam"]["broken"] == 0 and \
        result["seam"]["equal"] - better >= 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--lines", type=int, default=150)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-embedded", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 unless the targets are met")
    add_noise_option(ap)
    ap.add_argument("--verbose", action="store_true", help="print seam's completions that are not the true one")
    ap.add_argument("--language", choices=("python", "javascript", "typescript", "jsx", "tsx"), default="python")
    args = ap.parse_args()
    LANGUAGE["name"] = args.language
    cases = typed_lines(args.lines, args.seed)
    work = tempfile.mkdtemp(prefix="seam-typing-")
    try:
        ok = [setting(args, cases, work, at_end) for at_end in (True, False)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.check:
        passed = sum(ok)
        print("typing: %d passed, %d failed" % (passed, len(ok) - passed))
        return 0 if all(ok) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
