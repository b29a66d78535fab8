"""Typing through an inline suggestion: model requests and latency per keystroke.

    python3 bench/run_typethrough_bench.py --seam build/release/seam [--rounds 5]

seam's language server, with a llama.cpp server imitated by the tests'
loopback server as its backend, is asked for an inline completion at the
end of `path = ` in a small Python file; the model suggests the 20
characters `os.path.dirname(top)`.  The person then types those characters
one at a time, as an editor sends them (didChange, then an automatic
inline request at the new cursor).  For the first request and for each
keystroke the table gives the model requests it made and its latency as
the client sees it (median over --rounds sessions), and whether the answer
was the rest of the suggestion.  A last keystroke that leaves the
suggestion (a character it does not show) must ask the model again.  Before
typing, the person reads the suggestion while seam decodes the next line
ahead (decode_ahead).  Then, in sessions of their own with decode_ahead on
and off, the person accepts the suggestion, the editor asks again at its
end, and the person breaks the line (Enter and the editor's indentation):
the latency of the next line's completion and the model requests made for
it.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lsp"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "backends"))
from lsp_check import Client, served_client, settled  # noqa: E402
from loopback import EOS, LoopbackServer, Script  # noqa: E402

LEFT = "import os\ntop = '.'\npath = "
RIGHT = "\nprint(path)\n"
SUGGESTION = "os.path.dirname(top)"
PIECES = ["os", ".", "path", ".", "dirname", "(", "top", ")"]
LINE = 2


def model_requests(server):
    return sum(1 for path, _, _ in server.requests if path in ("/infill", "/completion", "/v1/completions"))


def steps():
    out, acc = {}, ""
    for piece in PIECES:
        out[acc] = [(piece, -0.1)]
        acc += piece
    out[acc] = [(EOS, -0.1)]
    return out


def one_session(seam, work):
    """[(model requests, ms, answer)] for the first request, each keystroke
    through the suggestion, and one that leaves it."""
    rows = []
    with LoopbackServer(Script(steps(), LEFT)) as server:
        c = served_client(seam, server.url, work)
        uri = "file://" + os.path.join(work, "through.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": LEFT + RIGHT}})
        col = len("path = ")

        def ask(character, kind):
            before = model_requests(server)
            start = time.monotonic()
            rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                              "position": {"line": LINE, "character": character},
                                                              "context": {"triggerKind": kind}})
            items = ((c.response(rid, timeout=60) or {}).get("result") or {}).get("items") or [{}]
            ms = (time.monotonic() - start) * 1000
            return model_requests(server) - before, ms, items[0].get("insertText")

        rows.append(ask(col, 2))
        settled(server)   # the person reads it; the next line is decoded ahead
        version = 1
        for k, ch in enumerate(SUGGESTION[:-1] + "!"):
            version += 1
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": LINE, "character": col + k}, "end": {"line": LINE, "character": col + k}},
                 "text": ch}]})
            rows.append(ask(col + k + 1, 1))
        rid = c.request("shutdown", None)
        c.response(rid)
        c.notify("exit", None)
        c.wait()
    return rows


def next_line(seam, work, ahead):
    """(model requests for it, ms, answer) of the next line's completion
    once the suggestion is accepted and the line broken."""
    nxt = {"": [("print(path)", -0.1)], "print(path)": [(EOS, -0.1)]}
    with LoopbackServer(Script(steps(), LEFT, where=[("path = " + SUGGESTION + "\n", nxt)])) as server:
        c = Client(seam)
        rid = c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + work,
                                       "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                                       "initializationOptions": {"backend": "llamacpp", "endpoint": server.url,
                                                                 "debounce_ms": 0, "decode_ahead": ahead}})
        c.response(rid)
        c.notify("initialized", {})
        uri = "file://" + os.path.join(work, "next.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": LEFT + "\n"}})

        def ask(line, character):
            start = time.monotonic()
            rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                              "position": {"line": line, "character": character},
                                                              "context": {"triggerKind": 2}})
            items = ((c.response(rid, timeout=60) or {}).get("result") or {}).get("items") or [{}]
            return (time.monotonic() - start) * 1000, items[0].get("insertText")

        col = len("path = ")
        ask(LINE, col)
        settled(server)
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": LINE, "character": col}, "end": {"line": LINE, "character": col}},
             "text": SUGGESTION}]})
        ask(LINE, col + len(SUGGESTION))
        before = settled(server)
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": LINE, "character": col + len(SUGGESTION)},
                       "end": {"line": LINE, "character": col + len(SUGGESTION)}}, "text": "\n"}]})
        ms, answer = ask(LINE + 1, 0)
        after = settled(server)
        prompts = [body.get("prompt") for path, body, _ in server.requests
                   if path in ("/infill", "/completion", "/v1/completions")][before:after]
        prompts = [server.vocab.detokenize(p) if isinstance(p, list) else str(p) for p in prompts]
        # (requests whose prompt holds the answer decode the line after it)
        own = sum(1 for p in prompts if "print(path)\n" not in p)
        rid = c.request("shutdown", None)
        c.response(rid)
        c.notify("exit", None)
        c.wait()
    return own, ms, answer


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="seam-through-")
    sessions = [one_session(args.seam, work) for _ in range(args.rounds)]
    print("%-28s %9s %12s  %s" % ("", "requests", "latency ms", "answer (first session)"))
    through_ms, through_requests, right = [], 0, 0
    for i in range(len(sessions[0])):
        requests = max(s[i][0] for s in sessions)
        ms = statistics.median(s[i][1] for s in sessions)
        answer = sessions[0][i][2]
        if i == 0:
            label = "first request"
        elif i < len(SUGGESTION):
            label = "typed %r (%d of %d)" % (SUGGESTION[i - 1], i, len(SUGGESTION) - 1)
            through_ms += [s[i][1] for s in sessions]
            through_requests += sum(s[i][0] for s in sessions)
            right += all(s[i][2] == SUGGESTION[i:] for s in sessions)
        else:
            label = "typed '!' (leaves it)"
        print("%-28s %9d %12.2f  %r" % (label, requests, ms, answer))
    n = len(SUGGESTION) - 1
    print("\ntyping through: %d of %d keystrokes answered with the suggestion's rest, %d model requests in %d "
          "sessions, %.2f ms median latency (p90 %.2f); the first request %.2f ms" % (
              right, n, through_requests, len(sessions), statistics.median(through_ms),
              sorted(through_ms)[int(len(through_ms) * 0.9)], statistics.median(s[0][1] for s in sessions)))
    left_ok = all(s[-1][0] > 0 for s in sessions)
    print("a keystroke that leaves the suggestion asks the model again: %s" % ("yes" if left_ok else "NO"))
    print("\naccepted, then Enter: the next line's completion")
    print("%-28s %9s %12s  %s" % ("", "requests", "latency ms", "answer (first session)"))
    ahead_ok = True
    for ahead in (True, False):
        runs = [next_line(args.seam, work, ahead) for _ in range(args.rounds)]
        print("%-28s %9d %12.2f  %r" % ("decode_ahead %s" % ("on" if ahead else "off"), max(r[0] for r in runs),
                                       statistics.median(r[1] for r in runs), runs[0][2]))
        if ahead:
            ahead_ok = all(r[0] == 0 and r[2] == "print(path)" for r in runs)
    return 0 if right == n and through_requests == 0 and left_ok and ahead_ok else 1


if __name__ == "__main__":
    sys.exit(main())
