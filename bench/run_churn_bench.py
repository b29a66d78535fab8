#!/usr/bin/env python3
"""What settings changed again and again cost the language server: memory
and the time to exit.

    export SEAM_LLAMA_DIR=$(scripts/llama.sh) SEAM_TEST_MODELS=$(scripts/test_models.sh)
    python3 bench/run_churn_bench.py --seam build/release/seam [--changes 0,10,20,40,80]

For each count N, a fresh server (built with libllama) opens a document,
then takes N settings changes that alternate a GGUF model in process (the
tiny generated one) and the embedded model trained on the standard
library, as an editor pushing settings back and forth would; then one
completion is asked.  Reported: the completion's time, the server's
resident memory then (VmRSS) and at its peak (VmHWM) from /proc, and the
time from `exit` to the process's end.  Each change cancels the load or
the training it replaces, so memory and the exit time stay flat as N
grows (before that, both grew with N: over 10 s to exit after 40).
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "backends"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lsp"))
from inproc_check import push_settings_churn  # noqa: E402
from llama_check import COMPARE, model  # noqa: E402
from llama_server import cache_dirs  # noqa: E402
from lsp_check import Client, init  # noqa: E402


def memory_kib(pid):
    """(VmRSS, VmHWM) of a process, in KiB."""
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    return fields.get("VmRSS", 0), fields.get("VmHWM", 0)


def one_run(seam, gguf, changes, work):
    c = Client(seam)
    try:
        uri = "file://" + os.path.join(work, "churn.py")
        init(c, {"backend": "embedded", "debounce_ms": 0, "timeout_ms": 30000, "train_stdlib": True})
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": COMPARE[0] + COMPARE[1]}})
        push_settings_churn(c, gguf, changes)
        line = COMPARE[0].count("\n")
        col = len(COMPARE[0].rsplit("\n", 1)[-1])
        start = time.monotonic()
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                          "position": {"line": line, "character": col},
                                                          "context": {"triggerKind": 1}})
        resp = c.response(rid, timeout=300)
        answered = time.monotonic() - start
        rss, peak = memory_kib(c.proc.pid)
        rid = c.request("shutdown", None)
        c.response(rid, timeout=60)
        start = time.monotonic()
        c.notify("exit", None)
        status, _ = c.wait(timeout=120)
        exited = time.monotonic() - start
        ok = resp is not None and "result" in resp and status == 0
        return ok, answered, rss, peak, exited
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--changes", default="0,10,20,40,80")
    args = ap.parse_args()
    _, models = cache_dirs()
    gguf = model(models, "random-qwen2.gguf")
    if not os.path.isfile(gguf):
        raise SystemExit("no %s: export SEAM_TEST_MODELS=$(scripts/test_models.sh)" % gguf)
    work = tempfile.mkdtemp(prefix="seam-churn-")
    print("%8s %4s %12s %12s %12s %10s" % ("changes", "ok", "answer (s)", "RSS (MiB)", "peak (MiB)", "exit (s)"))
    for n in [int(x) for x in args.changes.split(",")]:
        ok, answered, rss, peak, exited = one_run(args.seam, gguf, n, work)
        print("%8d %4s %12.2f %12.1f %12.1f %10.2f" % (n, "yes" if ok else "NO", answered, rss / 1024.0,
                                                      peak / 1024.0, exited))
    return 0


if __name__ == "__main__":
    sys.exit(main())
