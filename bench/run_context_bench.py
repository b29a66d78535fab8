"""The project's other files in the prompt: does the definition a hole needs reach the model?

    python3 bench/run_context_bench.py --seam build/release/seam [--holes 150] [--seed 1]

Workspaces of several modules from real projects: Python packages of the
standard library (email, json, http, importlib, concurrent, asyncio,
logging, xml, unittest) and the TypeScript sources of zod, rxjs,
react-day-picker and @tanstack's packages (scripts/typescript.sh,
SEAM_TYPESCRIPT_DIR), each copied into a scratch workspace.  A hole is
cut at a name on a line of one module, where that name is defined at the
top level of exactly one other file of the workspace, which the module
imports, and not in the module itself; the true middle (the name and the rest of its line) is taken out
of the file, as the person has not written it yet.  `seam complete --json`
then asks a logging imitation of llama-server (the tests' loopback server,
Qwen2.5-Coder's template) for the completion, and the prompt it received
is read back.

Reported, by language: the share of holes whose prompt holds the
defining line under the defining file's path (the issue's target: 80 %),
the prompt's size and the chunks' bytes, the time seam spent gathering
(reading the imported files and picking the chunks: median, p90), and
whether any prompt exceeded the server's context.  With SEAM_LLAMA_DIR and
SEAM_TEST_MODELS (scripts/llama.sh, scripts/test_models.sh), a real
llama-server with the tiny Qwen2 model also serves holes typed a character
at a time: the prompt tokens it evaluates per keystroke, with the project's
chunks and without (its prompt cache keeps the chunks).
"""

import argparse
import glob
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "backends"))
from loopback import EOS, LoopbackServer, Script  # noqa: E402

STDLIB = "/usr/lib/python3.11"
PY_PACKAGES = ["email", "json", "http", "importlib", "concurrent", "asyncio", "logging", "xml", "unittest"]
TS_PACKAGES = ["zod/src", "rxjs/src", "react-day-picker/src", "@tanstack/query-core/src", "@tanstack/table-core/src"]

PY_DEF = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=[^=]", re.M)
TS_DEF = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
                    r"(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)", re.M)
NAME = re.compile(r"[A-Za-z_$][\w$]*")
N_CTX = 16384   # the imitation server reads a byte as a token: some 4,700 tokens of code


def copy_workspace(src, dst, ending, marker):
    for path in glob.glob(os.path.join(src, "**", "*" + ending), recursive=True):
        if ending == ".ts" and path.endswith(".d.ts"):
            continue
        rel = os.path.relpath(path, os.path.dirname(src) if marker == "pyproject.toml" else src)
        if "/test" in "/" + rel or "__tests__" in rel:
            continue
        out = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(path, out)
    open(os.path.join(dst, marker), "w").close()


def definitions(root, ending, pattern):
    """{name: [(relative path, the defining line)]} of top-level definitions."""
    out = {}
    for path in glob.glob(os.path.join(root, "**", "*" + ending), recursive=True):
        rel = os.path.relpath(path, root)
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for m in pattern.finditer(text):
            name = m.group(1) or (m.group(2) if m.lastindex and m.lastindex >= 2 else None)
            if not name or name.startswith("__") or len(name) < 3:
                continue
            line = text[m.start():text.find("\n", m.start())]
            out.setdefault(name, []).append((rel, line))
    return out


def imported_files(rel, text):
    """The workspace paths (relative, without their ending) that the
    document at `rel` imports: Python's `import a.b` and `from .c import d`
    (d perhaps a module), TypeScript's relative specifiers; an independent
    reading, for choosing the holes."""
    here = os.path.dirname(rel)
    out = set()
    if rel.endswith(".py"):
        for m in re.finditer(r"^\s*(?:from\s+(\.*)([\w.]*)\s+import\s+\(?([\w, ]+)|import\s+([\w.]+))", text, re.M):
            if m.group(4):
                mods = [(0, m.group(4))]
            else:
                dots, mod = len(m.group(1)), m.group(2)
                mods = [(dots, mod)] + [(dots, (mod + "." if mod else "") + n.strip())
                                        for n in m.group(3).split(",") if n.strip()]
            for dots, mod in mods:
                base = here
                for _ in range(max(0, dots - 1)):
                    base = os.path.dirname(base)
                path = os.path.join(base if dots else "", *mod.split(".")) if mod else base
                out.add(os.path.normpath(path))
                out.add(os.path.normpath(os.path.join(path, "__init__")))
    else:
        for m in re.finditer(r"""(?:from|import|require\()\s*['"](\.{1,2}/[^'"]+)['"]""", text):
            path = os.path.normpath(os.path.join(here, m.group(1)))
            path = re.sub(r"\.(js|ts|mjs|cjs|jsx|tsx)$", "", path)
            out.add(path)
            out.add(os.path.join(path, "index"))
    return out


def holes_of(root, ending, pattern, count, rng):
    defs = definitions(root, ending, pattern)
    files = sorted(glob.glob(os.path.join(root, "**", "*" + ending), recursive=True))
    rng.shuffle(files)
    holes = []
    for path in files:
        rel = os.path.relpath(path, root)
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        own = {n for n, where in defs.items() if any(r == rel for r, _ in where)}
        imported = imported_files(rel, text)
        lines = text.split("\n")
        candidates = []
        offset = 0
        for i, line in enumerate(lines):
            stripped = line.strip()
            if i > 0 and stripped and not stripped.startswith(("import ", "from ", "#", "//", "*", "/*", "export {",
                                                                "export *")) and not pattern.match(line):
                for m in NAME.finditer(line):
                    where = defs.get(m.group(0), [])
                    if m.group(0) not in own and len(where) == 1 and where[0][0] != rel and m.start() > 0 and \
                            os.path.splitext(where[0][0])[0] in imported:
                        candidates.append((offset + m.start(), offset + len(line), m.group(0), where[0]))
                        break
            offset += len(line) + 1
        if candidates:
            at, end, name, (def_rel, def_line) = rng.choice(candidates)
            holes.append({"path": path, "root": root, "text": text, "cursor": at, "end": end, "name": name,
                          "def_rel": def_rel, "def_line": def_line})
        if len(holes) >= count:
            break
    return holes


def line_col(text, offset):
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def ask(seam, server, hole, extra=()):
    left, right = hole["text"][:hole["cursor"]], hole["text"][hole["end"]:]
    with open(hole["path"], "w", encoding="utf-8") as f:
        f.write(left + right)
    try:
        line, col = line_col(left + right, len(left))
        before = len(server.requests)
        run = subprocess.run([seam, "complete", "%s:%d:%d" % (hole["path"], line, col), "--json", "--backend",
                              "llamacpp", "--endpoint", server.url, "--template", "qwen2.5-coder", "--max-tokens", "1",
                              "--semantic", "false", "--timeout-ms", "20000"] + list(extra),
                             capture_output=True, text=True, timeout=120)
        out = json.loads(run.stdout) if run.stdout.strip() else {}
        bodies = [b for p, b, _ in server.requests[before:] if p == "/completion"]
        ids = bodies[0]["prompt"] if bodies else []
        return out, ids, server.vocab.detokenize(ids)
    finally:
        with open(hole["path"], "w", encoding="utf-8") as f:
            f.write(hole["text"])


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def measure(seam, language, holes, extra=()):
    found, sizes, chunk_bytes, gather, over = 0, [], [], [], 0
    with LoopbackServer(Script({"": [(EOS, -0.1)]}), n_ctx=N_CTX) as server:
        for hole in holes:
            out, ids, prompt = ask(seam, server, hole, extra)
            head = "<|file_sep|>" + hole["def_rel"] + "\n"
            at = prompt.find(head)
            found += at >= 0 and hole["def_line"] in prompt[at:]
            sizes.append(len(ids))
            over += len(ids) + 1 > N_CTX
            ctx = out.get("context", {})
            chunk_bytes.append(ctx.get("bytes", 0))
            gather.append(ctx.get("gather_ms", 0.0))
    n = len(holes)
    print("| %s | %d | **%.1f %%** | %d | %d | %.2f / %.2f ms | %d |" % (
        language, n, 100.0 * found / max(n, 1), statistics.median(sizes) if sizes else 0,
        statistics.median(chunk_bytes) if chunk_bytes else 0, statistics.median(gather) if gather else 0,
        pct(gather, 0.9), over))
    return found, n


def keystrokes(seam, holes, llama_dir, models):
    """Prompt tokens a real llama-server evaluates per keystroke (its
    prompt_tokens_total counter), typing the first characters of each
    hole's true middle in seam's language server, with the project's chunks
    and without.  What follows the cursor (the suffix) is evaluated again
    after any keystroke in a fill-in-the-middle prompt, chunks or not."""
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "lsp"))
    from llama_server import LlamaServer
    from lsp_check import Client
    rows = {}
    for on in (True, False):
        per_key = []
        with LlamaServer(llama_dir, os.path.join(models, "random-qwen2.gguf"), ctx=8192,
                         extra=["-b", "512", "-ub", "512"]) as srv:
            for hole in holes:
                middle = hole["text"][hole["cursor"]:hole["end"]]
                left, right = hole["text"][:hole["cursor"]], hole["text"][hole["end"]:]
                c = Client(seam)
                try:
                    rid = c.request("initialize", {
                        "processId": os.getpid(), "rootUri": "file://" + hole["root"],
                        "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                        "initializationOptions": {"backend": "llamacpp", "endpoint": srv.url, "debounce_ms": 0,
                                                  "decode_ahead": False, "context_files": on, "semantic": False,
                                                  "max_tokens": 1, "run_ahead": 1, "timeout_ms": 20000}})
                    c.response(rid, timeout=60)
                    c.notify("initialized", {})
                    uri = "file://" + hole["path"]
                    language = "python" if hole["path"].endswith(".py") else "typescript"
                    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language,
                                                                       "version": 1, "text": left + right}})
                    line = left.count("\n")
                    col = len(left.rsplit("\n", 1)[-1].encode())
                    for k in range(0, min(6, len(middle)) + 1):
                        if k:
                            ch = middle[k - 1]
                            c.notify("textDocument/didChange", {
                                "textDocument": {"uri": uri, "version": k + 1},
                                "contentChanges": [{"range": {"start": {"line": line, "character": col},
                                                              "end": {"line": line, "character": col}},
                                                    "text": ch}]})
                            col += len(ch.encode())
                        before = srv.metric("prompt_tokens_total")
                        rid = c.request("textDocument/inlineCompletion", {
                            "textDocument": {"uri": uri}, "position": {"line": line, "character": col},
                            "context": {"triggerKind": 1}})
                        c.response(rid, timeout=60)
                        if k:
                            per_key.append(srv.metric("prompt_tokens_total") - before)
                finally:
                    c.close()
        rows[on] = per_key
    for on, label in ((True, "with the chunks"), (False, "without")):
        xs = rows[on]
        print("| %s | %d | %s | %s | %s |" % (label, len(xs), statistics.median(xs) if xs else "-",
                                             pct(xs, 0.9) if xs else "-", max(xs) if xs else "-"))
    # the same keystrokes with and without: what the chunks cost beyond the
    # document's own tokens after the cursor
    extra = [a - b for a, b in zip(rows[True], rows[False])]
    if extra:
        print("| the difference, keystroke by keystroke | %d | %s | %s | %s |" % (
            len(extra), statistics.median(extra), pct(extra, 0.9), max(extra)))
        print()
        print("keystrokes where the chunks were evaluated again (difference over 16 tokens): %d of %d"
              % (sum(1 for x in extra if x > 16), len(extra)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--holes", type=int, default=150, help="holes per language")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keystroke-holes", type=int, default=8)
    ap.add_argument("--budget", type=int, default=0, help="context_files_bytes (0: seam's default)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="seam-context-bench-")
    py_ws, ts_ws = [], []
    for pkg in PY_PACKAGES:
        if os.path.isdir(os.path.join(STDLIB, pkg)):
            dst = os.path.join(work, "py-" + pkg)
            copy_workspace(os.path.join(STDLIB, pkg), dst, ".py", "pyproject.toml")
            py_ws.append(dst)
    ts_dir = os.environ.get("SEAM_TYPESCRIPT_DIR")
    for pkg in TS_PACKAGES if ts_dir else []:
        src = os.path.join(ts_dir, "node_modules", pkg)
        if os.path.isdir(src):
            dst = os.path.join(work, "ts-" + pkg.replace("/", "-").replace("@", ""))
            copy_workspace(src, dst, ".ts", "tsconfig.json")
            ts_ws.append(dst)
    print("| language | holes | defining chunk in the prompt | prompt tokens (median) | chunk bytes (median) "
          "| gathering median / p90 | prompts over the context |")
    print("|---|---|---|---|---|---|---|")
    all_holes = {}
    for language, spaces, ending, pattern in (("Python", py_ws, ".py", PY_DEF), ("TypeScript", ts_ws, ".ts", TS_DEF)):
        holes = []
        per = max(1, args.holes // max(1, len(spaces)))
        for ws in spaces:
            holes += holes_of(ws, ending, pattern, per, rng)
        if holes:
            measure(args.seam, language, holes, ["--context-files-bytes", str(args.budget)] if args.budget else [])
            all_holes[language] = holes
    llama_dir, models = os.environ.get("SEAM_LLAMA_DIR"), os.environ.get("SEAM_TEST_MODELS")
    if llama_dir and models and all_holes.get("Python"):
        print()
        print("| prompt tokens a real llama-server evaluates per keystroke | keystrokes | median | p90 | max |")
        print("|---|---|---|---|---|")
        keystrokes(args.seam, all_holes["Python"][:args.keystroke_holes], llama_dir, models)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
