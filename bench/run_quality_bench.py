"""How good seam's completions are, measured against the true middle.

    python3 bench/run_quality_bench.py --seam build/release/seam [--holes 150] [--seed 1]
                                       [--language python|javascript|typescript|jsx|tsx]
                                       [--shapes lines|multiline]

Holes are cut from the standard library (with --language javascript, from
the JavaScript files tests/corpus/js_check.py samples, judged by acorn
instead of CPython; with --language typescript, from the TypeScript files
tests/corpus/ts_check.py samples, judged by TypeScript's parser; with jsx
and tsx, from the JSX and TSX files tests/corpus/jsx_check.py and
ts_check.py --kind tsx sample, judged by acorn-jsx and TypeScript's
parser): the rest of a line (boundary), a
random span inside a line, and one to three whole lines.  With --shapes
multiline, the seed paper's two shapes, each spanning a line break: random
spans of up to 100 characters (randspan), and cuts from inside a token to a
later token at the same indentation with the end of the first token removed
(boundary).  An imitation of a
fill-in-the-middle model, served over llama.cpp's API by the loopback server
of seam's tests, knows each hole's true middle and behaves like a real one:
- noise: at a share of positions its first choice is a token that breaks
  the syntax there, the true token second (a closer or a colon, asked of
  the reference parser; where none breaks it, no noise);
- run-ons: in a share of holes it does not stop where the middle ends but
  writes on into the right context (its first line or two), the end token
  only second at the true end;
- once the text it is given leaves the true middle, it ends.
For seam and two baselines computed from the same model -- plain greedy
decoding, and greedy decoding cut where it starts repeating the right
context (the overlap of its end with the right context's start trimmed, as
several editor plugins do) -- the table gives the share of completions that
are valid for CPython, equal to the true middle, valid and non-empty, and
empty, the number invalid, and seam's time per completion.  A partial
completion (whole lines of a middle longer than seam's widened budget) is
valid when the true middle's rest after it makes the file a program; one
that is not a prefix of the true middle is counted apart.  Settings: noise and run-ons together, run-ons alone, the
same with the end token sent as empty text (llama-server without
--special), and the embedded model on the same holes (valid, non-empty, and
the mean length of the prefix it shares with the true middle).  A last
setting puts a misspelt name (a letter doubled) first at 15% of the names
the middle holds, and gives seam with the semantic pruners (the default)
and without them.
"""

import argparse
import ast
import json
import keyword
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "backends"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "corpus"))
from harness import valid as python_valid  # noqa: E402
import js_check  # noqa: E402
import jsx_check  # noqa: E402
import ts_check  # noqa: E402
from stdlib_files import random_files  # noqa: E402
from loopback import EOS, LoopbackServer  # noqa: E402

# The language of the holes: set by main().
LANGUAGE = {"name": "python", "reference": None, "goals": {}}


def braces():
    """Whether the language is JavaScript or TypeScript (JavaScript's
    comments, strings and templates)."""
    return LANGUAGE["name"] in ("javascript", "typescript", "jsx", "tsx")


def valid_all(texts, names):
    """Whether each text (of the file named as in names) is a program for
    the language's own parser."""
    if braces():
        return LANGUAGE["reference"].accepts([(t, LANGUAGE["goals"].get(n)) for t, n in zip(texts, names)])
    return [python_valid(t) for t in texts]


PIECE = re.compile(r"\n[ \t]*|[ \t]*\w+|[ \t]*[^\w\s]|[ \t]+|\s")
NOISE = [")", "]", "}", ":", " )", "]]"]
# compile()'s flag for CPython's "incomplete input" (codeop's PyCF_ALLOW_INCOMPLETE_INPUT)
PY_ALLOW_INCOMPLETE = 0x4000


def pieces(text):
    """Model tokens: a line break with the next line's indentation, or
    blanks followed by a word or one other character."""
    out = [m.group(0) for m in PIECE.finditer(text)]
    assert "".join(out) == text, text
    return out


class Imitation:
    """A fill-in-the-middle model that knows the true middle of one hole."""

    def __init__(self, middle, right, noise, run_on, seed, misspell=0.0):
        self.middle = middle
        self.noise = noise
        self.misspell = misspell
        self.seed = seed
        tokens = pieces(middle)
        self.end_at = len(tokens)
        if run_on:
            # On into the right context: its first one or two lines.
            lines = right.split("\n")
            extra = "\n".join(lines[:2]) if not lines[0].strip() else lines[0]
            tokens += pieces(extra) if extra else []
        self.tokens = tokens
        self.prefixes = {}
        acc = ""
        for i, t in enumerate(tokens):
            self.prefixes[acc] = i
            acc += t
        self.prefixes[acc] = len(tokens)
        # generated text -> the noise put first there: the hashed token,
        # unchecked, until settle_noise() keeps only noise that breaks
        self.noise_at = {generated: NOISE[h % len(NOISE)] for generated, i, h in self.sites()
                         if NOISE[h % len(NOISE)] != tokens[i]}

    def hashed(self, generated):
        return zlib.crc32(("%d:%s" % (self.seed, generated)).encode())

    def sites(self):
        """(generated, token index, hash) where the model puts noise first."""
        for generated, i in self.prefixes.items():
            h = self.hashed(generated)
            if i < len(self.tokens) and i != self.end_at and (h % 1000) < self.noise * 1000:
                yield generated, i, h

    def noise_sites(self):
        """[(generated, [noise tokens in the order tried])]: the hashed
        token, then the others in turn."""
        return [(generated, [bad for bad in (NOISE[(h + k) % len(NOISE)] for k in range(len(NOISE)))
                             if bad != self.tokens[i]])
                for generated, i, h in self.sites()]

    def candidates(self, generated):
        i = self.prefixes.get(generated)
        if i is None:
            return [(EOS, -0.05)]                 # lost: it ends
        if i == len(self.tokens):
            return [(EOS, -0.05), ("\n", -4.0)]
        true = self.tokens[i]
        cands = [(true, -0.3)]
        if i == self.end_at:
            cands.append((EOS, -1.6))             # a run-on: the end only second
        if generated in self.noise_at:
            cands.insert(0, (self.noise_at[generated], -0.2))
        h = self.hashed(generated)
        word = true.strip()
        if ((h >> 10) % 1000) < self.misspell * 1000 and len(word) >= 3 and word.isidentifier() and \
                not keyword.iskeyword(word):
            cands.insert(0, (true[:-1] + true[-2] + true[-1], -0.2))  # a misspelt name: a letter doubled
        cands.append((" pass", -6.0))
        return cands


def first_errors(texts, names):
    """The reference parser's first error in each text as (position,
    message), or None for a program.  Positions count UTF-16 code units
    for the Node parsers, characters for CPython; an input that is only
    unfinished (CPython's "incomplete input") is at the text's end."""
    if braces():
        rows = LANGUAGE["reference"].errors([(t, LANGUAGE["goals"].get(n)) for t, n in zip(texts, names)])
        return [None if ok else (-1 if pos is None else pos, message) for ok, pos, message in rows]
    return [python_error(t) for t in texts]


def python_error(text):
    try:
        compile(text, "<hole>", "exec", ast.PyCF_ONLY_AST | PY_ALLOW_INCOMPLETE)
        return None
    except SyntaxError as e:
        if e.msg == "incomplete input":
            return (len(text), e.msg)
        lines = text.split("\n")
        row = min(max((e.lineno or 1) - 1, 0), len(lines))
        pos = sum(len(line) + 1 for line in lines[:row]) + max((e.offset or 1) - 1, 0)
        return (min(pos, len(text)), e.msg)
    except (ValueError, MemoryError, RecursionError) as e:
        return (0, str(e))


def text_end(text):
    return len(text.encode("utf-16-le")) // 2 if braces() else len(text)


def breaks(error, base, text, noise):
    """Whether the reference parser's first error in text + noise (base:
    in text alone) says the noise breaks the syntax: it stops before the
    end, not in a string, template or comment that began before the noise
    and does not end, and not where it stopped inside text already."""
    if error is None or error[0] >= text_end(text + noise):
        return False
    if "nterminated" in error[1] and error[0] <= text_end(text):
        return False      # inside a string, template or comment begun before it
    if base is None or error[0] != base[0]:
        return True
    return base[0] >= text_end(text)


def settle_noise(models, lefts, names):
    """Keep only noise that breaks the syntax there, as the model's
    description says: at each site, the first token tried after which
    the reference parser stops inside or right after the noise (not at
    the text's end, where more text could still make a program, and not
    where it stops without the noise too, as inside a string).  A site
    where no noise token breaks the syntax gets none."""
    sites = [{"model": m, "text": left + generated, "name": name, "generated": generated, "order": order}
             for m, left, name in zip(models, lefts, names) for generated, order in m.noise_sites()]
    for m in models:
        m.noise_at = {}
    for site, base in zip(sites, first_errors([s["text"] for s in sites], [s["name"] for s in sites])):
        site["base"] = base
    while sites:
        tried = first_errors([s["text"] + s["order"][0] for s in sites], [s["name"] for s in sites])
        left_over = []
        for site, error in zip(sites, tried):
            if breaks(error, site["base"], site["text"], site["order"][0]):
                site["model"].noise_at[site["generated"]] = site["order"][0]
            elif len(site["order"]) > 1:
                site["order"] = site["order"][1:]
                left_over.append(site)
        sites = left_over


def add_noise_option(ap):
    """--unchecked-noise, for both benchmarks."""
    ap.add_argument("--unchecked-noise", action="store_true",
                    help="put the hashed noise token first without asking the reference parser whether it breaks "
                         "the syntax there (the imitation before session 63)")


def greedy(model, limit=64):
    text = ""
    for _ in range(limit):
        tok = model.candidates(text)[0][0]
        if tok == EOS:
            break
        text += tok
    return text


def cut_at_repeat(text, right):
    """Greedy output cut where it starts repeating the right context."""
    for p in range(len(text)):
        if right.startswith(text[p:]):
            return text[:p]
    return text


def js_files(rng, seed, min_lines=30):
    """(name, text, lines) of real JavaScript files (each named with its
    goal's ending, .mjs or .cjs), TypeScript files (.ts), JSX files (.jsx)
    or TSX files (.tsx) of more than min_lines lines, endlessly."""
    language = LANGUAGE["name"]
    if language in ("typescript", "tsx"):
        kind = "tsx" if language == "tsx" else "ts"
        cache = js_check.reference_dir("typescript")
        LANGUAGE["reference"] = ts_check.TypeScript(cache, kind)
        packages = ts_check.TSX_PACKAGES if kind == "tsx" else ts_check.PACKAGES
        found = ts_check.pick_files(LANGUAGE["reference"], ts_check.candidate_paths(cache, packages, "." + kind), 400,
                                    seed, 30000, kind)
    elif language == "jsx":
        cache = js_check.reference_dir()
        LANGUAGE["reference"] = jsx_check.AcornJsx(cache)
        found = jsx_check.pick_files(LANGUAGE["reference"], jsx_check.candidate_paths(cache, jsx_check.PACKAGES), 400,
                                     seed, 30000)
    else:
        cache = js_check.reference_dir()
        LANGUAGE["reference"] = js_check.Acorn(cache)
        found = js_check.pick_files(LANGUAGE["reference"], js_check.candidate_paths(cache), 400, seed, 30000)
    chosen = [f for f in found if f[1].count("\n") > min_lines]
    ending = {"typescript": ".ts", "tsx": ".tsx", "jsx": ".jsx"}.get(language)
    while True:
        path, text, goal = rng.choice(chosen)
        name = path.stem + (ending or (".mjs" if goal == "module" else ".cjs"))
        LANGUAGE["goals"][name] = goal
        yield name, text, text.split("\n")


def skipped_line(line, javascript):
    """A line holes do not touch: a comment, or a line with a triple-quoted
    string's quotes (Python) or a template literal (JavaScript)."""
    body = line.strip()
    if javascript:
        return body.startswith(("//", "/*", "*")) or "`" in line
    return body.startswith("#") or '"""' in line or "'''" in line


def sites(seed, margin):
    """(rng, name, text, lines, i): line i, at least 10 lines from the start
    and `margin` from the end, of a file holes are cut from, endlessly."""
    rng = random.Random(seed)
    files = js_files(rng, seed) if braces() else random_files(rng, 30, private=False)
    while True:
        name, text, lines = next(files)
        yield rng, name, text, lines, rng.randrange(10, len(lines) - margin)


def holes(count, seed):
    out = []
    javascript = braces()
    for rng, name, text, lines, i in sites(seed, 10):
        if len(out) == count:
            break
        line = lines[i]
        if not line.strip() or skipped_line(line, javascript) or '"""' in line or "'''" in line:
            continue
        indent = len(line) - len(line.lstrip())
        start = sum(len(x) + 1 for x in lines[:i])
        kind = ("boundary", "span", "lines")[len(out) % 3]
        if kind == "lines":
            n = rng.randrange(1, 4)
            block = lines[i:i + n]
            if any(not b.strip() or '"""' in b or "'''" in b for b in block):
                continue
            a = start + indent
            b = start + sum(len(x) + 1 for x in block) - 1
        else:
            cuts = [indent] + [m.end() for m in PIECE.finditer(line) if m.end() > indent]
            a_col = rng.choice(cuts[:-1]) if len(cuts) > 1 else indent
            b_col = len(line) if kind == "boundary" else rng.choice([c for c in cuts if c > a_col] or [len(line)])
            a, b = start + a_col, start + b_col
        if b <= a:
            continue
        left, middle, right = text[:a], text[a:b], text[b:]
        out.append((kind, name, left, middle, right))
    return out


def multiline_holes(count, seed, max_span=100):
    """The seed paper's two shapes, each hole spanning at least one line
    break: random spans of up to max_span characters (randspan), and cuts
    from inside a token to a later token at the same indentation, the first
    token's end removed with the text between (boundary)."""
    out = []
    javascript = braces()
    for rng, name, text, lines, i in sites(seed, 20):
        if len(out) == count:
            break
        starts = [0]
        for x in lines:
            starts.append(starts[-1] + len(x) + 1)
        kind = ("randspan", "boundary")[len(out) % 2]
        if kind == "randspan":
            a = rng.randrange(starts[i], starts[i + 1])
            b = a + rng.randrange(1, max_span + 1)
        else:
            line = lines[i]
            indent = len(line) - len(line.lstrip())
            ends = [m for m in PIECE.finditer(line) if m.end() > indent and not m.group(0).isspace()]
            later = [j for j in range(i + 1, min(i + 8, len(lines) - 10))
                     if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) == indent]
            if not ends or not later:
                continue
            tok = rng.choice(ends)
            word_start = tok.start() + len(tok.group(0)) - len(tok.group(0).lstrip())
            a = starts[i] + rng.randrange(word_start, tok.end())
            j = rng.choice(later)
            b = starts[j] + indent
        last = text.count("\n", 0, b)
        if b > len(text) or b <= a or "\n" not in text[a:b] or \
                any(skipped_line(x, javascript) for x in lines[i:last + 1]) or \
                not text[a:b].strip():
            continue
        out.append((kind, name, text[:a], text[a:b], text[b:]))
    return out


def run_seam(seam, work, i, base, left, right, settings):
    path = os.path.join(work, "%d_%s" % (i, base))
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(left + right)
    line = left.count("\n") + 1
    col = len(left.rsplit("\n", 1)[-1]) + 1
    start = time.monotonic()
    run = subprocess.run([seam, "complete", "%s:%d:%d" % (path, line, col), "--json"] + settings,
                         capture_output=True)
    ms = (time.monotonic() - start) * 1000
    try:
        out = json.loads(run.stdout.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, ms
    return out, ms


def row(name, results, cases):
    """results: (text, offered[, partial]); a completion not offered is
    empty and not invalid.  A partial one (whole lines of a middle that
    goes on, for the person to accept and ask again) is valid when the
    true middle's rest after it makes the file a program, and counted
    apart otherwise: left + it + right is no program by design."""
    n = len(cases)
    results = [(r[0], r[1], len(r) > 2 and r[2]) for r in results]
    joined = []
    for (r, _, partial), c in zip(results, cases):
        rest = c[3][len(r):] if partial and c[3].startswith(r) else ""
        joined.append(c[2] + r + rest + c[4])
    judged = valid_all(joined, [c[1] for c in cases])
    v = sum(not offered or ok for (_, offered, _), ok in zip(results, judged))
    eq = sum(r == c[3] for (r, _, _), c in zip(results, cases))
    empty = sum(r == "" for r, _, _ in results)
    written = sum(r != "" and offered and ok for (r, offered, _), ok in zip(results, judged))
    partial = sum(p for _, _, p in results)
    off = sum(p and not ok for (_, _, p), ok in zip(results, judged))
    line = "%-24s %6.1f%% %6.1f%% %13.1f%% %6.1f%% %7d" % (name, 100.0 * v / n, 100.0 * eq / n, 100.0 * written / n,
                                                       100.0 * empty / n, n - v - off)
    if partial:
        line += "  (%d partial, %d of them off the true middle)" % (partial, off)
    return line


def setting(args, cases, work, title, noise, run_on_share, special, misspell=0.0):
    print("\n== %s (noise %d%% of positions, run-ons in %d%% of holes%s%s)" % (
        title, noise * 100, run_on_share * 100, "" if special else ", end token as empty text",
        ", a misspelt name first at %d%% of names" % (misspell * 100) if misspell else ""))
    print("%-24s %7s %7s %14s %7s %7s" % ("", "valid", "equal", "valid, written", "empty", "invalid"))
    models = []
    for i, (_, _, left, middle, right) in enumerate(cases):
        rng = random.Random(args.seed * 1000 + i)
        models.append(Imitation(middle, right, noise, rng.random() < run_on_share, args.seed * 7919 + i, misspell))
    if noise and not args.unchecked_noise:
        settle_noise(models, [c[2] for c in cases], [c[1] for c in cases])
    plain = [greedy(m) for m in models]
    cut = [cut_at_repeat(g, c[4]) for g, c in zip(plain, cases)]
    print(row("greedy", [(g, True) for g in plain], cases))
    print(row("greedy, cut at repeat", [(g, True) for g in cut], cases))
    seam_out, times, own, checks, plain_seam = [], [], [], [], []
    server = LoopbackServer(models[0], special=special)
    with server:
        for i, (_, base, left, middle, right) in enumerate(cases):
            server.script = models[i]
            settings = ["--backend", "llamacpp", "--endpoint", server.url, "--timeout-ms", "10000"]
            out, ms = run_seam(args.seam, work, i, base, left, right, settings)
            times.append(ms)
            own.append(out["timings_us"]["total"] / 1000 if out and "timings_us" in out else ms)
            checks.append(out["timings_us"]["filter"] / 1000 if out and "timings_us" in out else 0)
            seam_out.append((out["completion"], out["found"], out.get("partial", False)) if out else ("", False))
            if misspell:
                out, _ = run_seam(args.seam, work, i, base, left, right, settings + ["--semantic", "false"])
                plain_seam.append((out["completion"], out["found"], out.get("partial", False)) if out else ("", False))
    print(row("seam", seam_out, cases))
    if args.show_misses:
        judged = valid_all([c[2] + got + c[4] for (got, *_), c in zip(seam_out, cases)], [c[1] for c in cases])
        for (got, *rest), (kind, _, left, middle, right), ok in zip(seam_out, cases, judged):
            if got != middle:
                flag = "" if ok or not got or (len(rest) > 1 and rest[1]) else "  INVALID"
                print("  miss (%s): %r | seam %r | true %r | %r%s" % (kind, left[-40:], got, middle, right[:30], flag))
    if misspell:
        print(row("seam, semantic off", plain_seam, cases))
    print("seam: %.1f ms per completion inside seam (median; p90 %.1f; most of it the imitation server in "
          "Python), %.2f ms of it checking candidates, %.1f ms for the whole process" % (
              statistics.median(own), sorted(own)[int(len(own) * 0.9)], statistics.median(checks),
              statistics.median(times)))
    eq = lambda xs: sum(x == c[3] for x, c in zip(xs, cases)) * 100.0 / len(cases)  # noqa: E731
    return eq([t for t, *_ in seam_out]), eq(plain), eq(cut)


def embedded(args, cases, work):
    print("\n== the embedded model on the same holes")
    outs, times = [], []
    for i, (_, base, left, middle, right) in enumerate(cases):
        out, ms = run_seam(args.seam, work, i, base, left, right, ["--train-stdlib", "false"])
        outs.append((out["completion"], out["found"]) if out else ("", False))
        times.append(ms)
    n = len(cases)
    judged = valid_all([c[2] + r + c[4] for (r, _), c in zip(outs, cases)],
                       [c[1] for c in cases])
    v = sum(not found or ok for (_, found), ok in zip(outs, judged))
    nonempty = sum(r != "" for r, _ in outs)
    common = [len(os.path.commonprefix([r, c[3]])) for (r, _), c in zip(outs, cases)]
    eq = sum(r == c[3] for (r, _), c in zip(outs, cases))
    print("valid %.1f%%, non-empty %.1f%%, equal %.1f%%, shared prefix with the true middle %.1f characters "
          "on average (true middles %.1f); %.1f ms per completion (median)" % (
              100.0 * v / n, 100.0 * nonempty / n, 100.0 * eq / n, statistics.mean(common),
              statistics.mean(len(c[3]) for c in cases), statistics.median(times)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--holes", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-embedded", action="store_true")
    ap.add_argument("--show-misses", action="store_true", help="print each hole seam does not fill exactly")
    add_noise_option(ap)
    ap.add_argument("--shapes", choices=("lines", "multiline"), default="lines",
                    help="lines: one-line holes and one to three whole lines; multiline: the seed paper's random "
                         "spans of up to 100 characters and token-to-token cuts at the same indentation, each "
                         "spanning a line break")
    ap.add_argument("--language", choices=("python", "javascript", "typescript", "jsx", "tsx"), default="python")
    args = ap.parse_args()
    LANGUAGE["name"] = args.language
    cases = multiline_holes(args.holes, args.seed) if args.shapes == "multiline" else holes(args.holes, args.seed)
    work = tempfile.mkdtemp(prefix="seam-quality-")
    kinds = {k: sum(c[0] == k for c in cases) for k in ("boundary", "span", "lines", "randspan") if any(c[0] == k for c in cases)}
    print("%d holes from %s: %s" % (len(cases), {"javascript": "real JavaScript", "typescript": "real TypeScript", "jsx": "real JSX",
                                     "tsx": "real TSX"}
                                    .get(args.language, "the standard library"), kinds))
    s, g, c = setting(args, cases, work, "noise and run-ons", 0.15, 0.5, True)
    print("seam equal - better baseline: %+.1f points (target +20)" % (s - max(g, c)))
    s, g, c = setting(args, cases, work, "run-ons alone", 0.0, 1.0, True)
    print("seam equal - cut baseline: %+.1f points (target >= 0)" % (s - c))
    setting(args, cases, work, "noise and run-ons", 0.15, 0.5, False)
    s, g, c = setting(args, cases, work, "misspelt names", 0.0, 0.0, True, misspell=0.15)
    print("seam (semantic pruners on) equal - better baseline: %+.1f points" % (s - max(g, c)))
    if not args.no_embedded:
        embedded(args, cases, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
