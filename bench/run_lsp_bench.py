"""Inline-completion latency of the language server with the embedded model.

    python3 bench/run_lsp_bench.py --seam build/release/seam [--typing 30]

A 5,000-line Python file made of standard-library modules is opened; the
cursor sits in a function body near its end.  Reported: the first (cold)
completion, then completions while typing forward one character at a time
(warm: the document's recognizer is re-used), each as the client sees it
and as the server logs it (set-up and total), the same for CPython's
ast.parse of the whole file for scale, and the resident memory each open
document adds (10 copies opened and completed in).
"""

import argparse
import ast
import os
import re
import statistics
import sys
import sysconfig
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lsp"))
from lsp_check import Client  # noqa: E402

LOG = re.compile(r"completion inline: \w+, \d+ bytes, stop \w+, setup ([\d.]+) ms( \(cached\))?, total ([\d.]+) ms")


def make_file(lines_wanted):
    root = sysconfig.get_paths()["stdlib"]
    parts, count = [], 0
    for name in sorted(os.listdir(root)):
        if not name.endswith(".py"):
            continue
        try:
            text = open(os.path.join(root, name), encoding="utf-8").read()
            ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        n = text.count("\n")
        if count + n > lines_wanted:
            continue
        parts.append(text if text.endswith("\n") else text + "\n")
        count += n
    return "".join(parts)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--typing", type=int, default=30)
    ap.add_argument("--lines", type=int, default=5000)
    args = ap.parse_args()
    text = make_file(args.lines)
    lines = text.split("\n")
    # A cursor at the end of a "return" line near the end of the file.
    target = max(i for i, l in enumerate(lines[: len(lines) - 50]) if l.strip().startswith("return ") and len(l) < 60)
    line = lines[target]
    cut = len(line) - len(line.lstrip()) + len("return ")
    text = "\n".join(lines[:target] + [line[:cut]] + lines[target + 1:])
    work = tempfile.mkdtemp(prefix="seam-lsp-bench-")
    stderr_path = os.path.join(work, "stderr.log")
    c = Client(args.seam, ["--log-level", "debug", "--log-file", stderr_path])
    rid = c.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                   "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                                   "initializationOptions": {"debounce_ms": 0, "train_stdlib": True}})
    c.response(rid, timeout=60)
    c.notify("initialized", {})
    uri = "file://" + os.path.join(work, "big.py")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    # Wait for the embedded model (trained on start-up) with a throwaway request elsewhere.
    warm_uri = "file://" + os.path.join(work, "w.py")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": warm_uri, "languageId": "python", "version": 1,
                                                       "text": "x = 1\n"}})
    rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": warm_uri},
                                                      "position": {"line": 1, "character": 0},
                                                      "context": {"triggerKind": 1}})
    c.response(rid, timeout=120)

    def complete(col):
        t0 = time.perf_counter()
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                          "position": {"line": target, "character": col},
                                                          "context": {"triggerKind": 1}})
        r = c.response(rid, timeout=60)
        assert r is not None and "result" in r, r
        return (time.perf_counter() - t0) * 1000

    t0 = time.perf_counter()
    ast.parse(text)
    ast_ms = (time.perf_counter() - t0) * 1000
    cold = complete(cut)
    typed = "self"   # typed forward one character at a time, repeatedly
    warm = []
    col = cut
    version = 2
    for i in range(args.typing):
        ch = typed[i % len(typed)] if i % 5 != 4 else "_"
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [
            {"range": {"start": {"line": target, "character": col}, "end": {"line": target, "character": col}},
             "text": ch}]})
        version += 1
        col += 1
        warm.append(complete(col))

    # Memory per open document.
    before = rss_kb(c.proc.pid)
    for k in range(10):
        u = "file://" + os.path.join(work, "copy%d.py" % k)
        c.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "python", "version": 1,
                                                           "text": text}})
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": u},
                                                          "position": {"line": target, "character": cut},
                                                          "context": {"triggerKind": 1}})
        c.response(rid, timeout=60)
    after = rss_kb(c.proc.pid)
    rid = c.request("shutdown", None)
    c.response(rid)
    c.notify("exit", None)
    c.wait()
    logged = [LOG.search(l) for l in open(stderr_path, encoding="utf-8", errors="replace")]
    logged = [m for m in logged if m]
    big = logged[1:]   # the first is the warm-up document
    cold_log = big[0]
    warm_log = [m for m in big[1:1 + args.typing]]
    print("inline completion, embedded model, %d-line file (%d bytes), cursor on line %d"
          % (len(lines), len(text.encode()), target + 1))
    print("  ast.parse of the whole file: %.2f ms" % ast_ms)
    print("  cold: %.2f ms at the client; server: set-up %s ms, total %s ms"
          % (cold, cold_log.group(1), cold_log.group(3)))
    print("  warm (typing forward, %d keystrokes): %.2f ms median at the client (p90 %.2f); server set-up %.3f ms "
          "median, total %.2f ms median; recognizer re-used %d/%d"
          % (len(warm), statistics.median(warm), sorted(warm)[int(0.9 * len(warm))],
             statistics.median(float(m.group(1)) for m in warm_log),
             statistics.median(float(m.group(3)) for m in warm_log),
             sum(1 for m in warm_log if m.group(2)), len(warm_log)))
    print("  memory per open document (10 copies, each completed in): %.1f MiB (document %.2f MiB)"
          % ((after - before) / 1024 / 10, len(text.encode()) / 2**20))


if __name__ == "__main__":
    main()
