"""How seam's cost grows with the code it reads.

    python3 bench/run_scaling_bench.py --seam build/release/seam [--sizes 16,32,64,128] [--check]

Each shape of text is made at each size (KB), doubling, and read whole:
- function: one function whose body is that many statements;
- module: top-level statements;
- call: one call with that many keyword arguments;
- nesting: blocks nested 12 deep with brackets nested 30 deep, repeated;
- document: a document opened in the language server and edited 20
  times (a character typed at its middle), then one completion asked.
For the first four, `seam check` opens a recognizer on the left and right
contexts around a cursor in the middle (the semantic pruners on, the whole
text read: no cut) and feeds the true middle; the figures are its set-up
time per byte, next to CPython's `ast.parse` of the same text in the same
run, and the peak resident memory of the process.  For documents: the
language server's time per edit and per completion, and its peak memory.

--check exits non-zero unless, for every shape, the set-up time per byte
grows at most 1.5x from the smallest size to the largest, and the peak
memory at the largest size stays under 400 MB.
"""

import argparse
import ast
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lsp"))
from lsp_check import Client, init, open_doc  # noqa: E402


def repeat(unit, size):
    """unit(i) for i = 0, 1, ... until size bytes."""
    parts, n, i = [], 0, 0
    while n < size:
        part = unit(i)
        parts.append(part)
        n += len(part)
        i += 1
    return parts


def nested(i):
    lines, depth = [], 12
    for d in range(depth):
        lines.append("    " * d + "if c%d_%d:\n" % (i, d))
    lines.append("    " * depth + "x = " + "(" * 30 + "a%d" % i + ")" * 30 + "\n")
    return "".join(lines)


def shape_text(shape, size):
    """(left, middle, right) of a text of about `size` bytes."""
    if shape == "function":
        parts = repeat(lambda i: "    x%d = f(a, b=%d)\n" % (i, i), size)
        half = len(parts) // 2
        return ("def g(a, b):\n" + "".join(parts[:half]) + "    y = ", "f(a)", "\n" + "".join(parts[half:]))
    if shape == "module":
        parts = repeat(lambda i: "x%d = f(a, b=%d)\n" % (i, i), size)
        half = len(parts) // 2
        return ("".join(parts[:half]) + "y = ", "f(a)", "\n" + "".join(parts[half:]))
    if shape == "call":
        parts = repeat(lambda i: "k%d=%d, " % (i, i), size)
        half = len(parts) // 2
        return ("f(" + "".join(parts[:half]) + "z=", "1", ", " + "".join(parts[half:]) + ")\n")
    if shape == "nesting":
        parts = repeat(nested, size)
        half = len(parts) // 2
        return ("".join(parts[:half]) + "y = ", "1", "\n" + "".join(parts[half:]))
    raise ValueError(shape)


def _run_child(argv, stdin_bytes, timeout):
    """In a small worker process: (stdout, exit code, peak resident KB).
    ru_maxrss counts the memory of the process that forked and exec'd the
    child, so the child is forked from a process that stays small."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as inp:
        inp.write(stdin_bytes)
        inp.seek(0)
        proc = subprocess.Popen(argv, stdin=inp, stdout=out, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        proc.returncode = 0  # reaped here
        out.seek(0)
        return out.read().decode(), os.waitstatus_to_exitcode(status), usage.ru_maxrss


POOL = None


def run_measured(argv, stdin_text, timeout=600):
    """(stdout, peak resident KB) of a process fed stdin_text."""
    out, code, rss = POOL.apply(_run_child, (argv, stdin_text.encode(), timeout))
    if code != 0:
        raise SystemExit("%s exited with %d" % (" ".join(argv), code))
    return out, rss


def ast_us(text):
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        ast.parse(text)
        t = (time.perf_counter() - t0) * 1e6
        best = t if best is None else min(best, t)
    return best


def measure_check(seam, shape, size):
    left, middle, right = shape_text(shape, size * 1024)
    text = left + middle + right
    case = {"id": "%s-%d" % (shape, size), "left": left, "middle": middle, "right": right, "semantic": True}
    out, rss = run_measured([seam, "check"], json.dumps(case) + "\n")
    result = json.loads(out.splitlines()[0])
    if result.get("accepted") != len(middle) or not result.get("complete"):
        raise SystemExit("%s at %d KB: the true middle was not accepted: %r" % (shape, size, result))
    return {"bytes": len(text), "setup_us": result["setup_us"], "feed_us": result["feed_us"],
            "ast_us": ast_us(text), "rss_kb": rss}


def measure_document(seam, size, workdir):
    parts = repeat(lambda i: "x%d = f(a, b=%d)\n" % (i, i), size * 1024)
    half = len(parts) // 2
    text = "".join(parts[:half]) + "y = \n" + "".join(parts[half:])
    line = half
    env = dict(os.environ, XDG_CONFIG_HOME=workdir, XDG_CACHE_HOME=workdir)
    c = Client(seam, env=env)
    uri = "file://" + os.path.join(workdir, "doc%d.py" % size)
    init(c, {"train_stdlib": False, "debounce_ms": 0})
    open_doc(c, uri, text)
    edits = int(os.environ.get("SEAM_BENCH_EDITS", "20"))
    t0 = time.perf_counter()
    for k in range(edits):
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2 + k},
            "contentChanges": [{"range": {"start": {"line": line, "character": 4 + k},
                                          "end": {"line": line, "character": 4 + k}}, "text": "a"}]})
    rid = c.request("workspace/executeCommand", {"command": "seam.noSuchCommand", "arguments": []})
    c.response(rid, timeout=300)
    edit_ms = (time.perf_counter() - t0) * 1000 / edits
    t0 = time.perf_counter()
    rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                      "position": {"line": line, "character": 4 + edits},
                                                      "context": {"triggerKind": 1}})
    r = c.response(rid, timeout=300)
    complete_ms = (time.perf_counter() - t0) * 1000
    if r is None or "result" not in r:
        raise SystemExit("document at %d KB: no answer to the completion: %r" % (size, r))
    with open("/proc/%d/status" % c.proc.pid) as f:
        peak = [int(l.split()[1]) for l in f if l.startswith("VmHWM:")][0]
    rid = c.request("shutdown", None)
    c.response(rid, timeout=60)
    c.notify("exit", None)
    c.proc.stdin.close()
    c.proc.wait(timeout=60)
    return {"bytes": len(text), "edit_ms": edit_ms, "complete_ms": complete_ms, "rss_kb": peak}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--sizes", default="16,32,64,128")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    global POOL
    POOL = multiprocessing.get_context("forkserver").Pool(1)
    sizes = [int(s) for s in args.sizes.split(",")]
    failures = []
    print("| shape | KB | set-up us | us per KB | ast.parse us | set-up / ast | feed us | peak MB |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in ("function", "module", "call", "nesting"):
        rows = [measure_check(args.seam, shape, size) for size in sizes]
        for size, r in zip(sizes, rows):
            print("| %s | %d | %.0f | %.1f | %.0f | %.1f | %.1f | %.1f |" % (
                shape, size, r["setup_us"], r["setup_us"] * 1024 / r["bytes"], r["ast_us"],
                r["setup_us"] / r["ast_us"], r["feed_us"], r["rss_kb"] / 1024))
        growth = (rows[-1]["setup_us"] / rows[-1]["bytes"]) / (rows[0]["setup_us"] / rows[0]["bytes"])
        print("| %s | growth of time per byte, %d to %d KB: %.2fx | | | | | | |" % (shape, sizes[0], sizes[-1], growth))
        if growth > 1.5:
            failures.append("%s: time per byte grew %.2fx" % (shape, growth))
        if rows[-1]["rss_kb"] > 400 * 1024:
            failures.append("%s: %.0f MB at %d KB" % (shape, rows[-1]["rss_kb"] / 1024, sizes[-1]))
    workdir = tempfile.mkdtemp(prefix="seam-scaling-")
    print()
    print("| document KB | ms per edit | completion ms | peak MB |")
    print("|---|---|---|---|")
    docs = [measure_document(args.seam, size, workdir) for size in sizes]
    for size, r in zip(sizes, docs):
        print("| %d | %.2f | %.0f | %.1f |" % (size, r["edit_ms"], r["complete_ms"], r["rss_kb"] / 1024))
    if docs[-1]["rss_kb"] > 400 * 1024:
        failures.append("document: %.0f MB at %d KB" % (docs[-1]["rss_kb"] / 1024, sizes[-1]))
    for f in failures:
        print("scaling: " + f)
    print("scaling: %s" % ("passed" if not failures else "failed"))
    return 1 if (args.check and failures) else 0


if __name__ == "__main__":
    sys.exit(main())
