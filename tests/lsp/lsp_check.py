"""A scripted LSP client driving the real seam binary over pipes.

    python3 tests/lsp/lsp_check.py --seam build/debug/seam

One whole session (initialize, open, incremental and full edits, inline
completion, completion, cancellation, a newer request replacing an older
one, configuration changes good and bad, shutdown, exit) and every kind of
bad input, each followed by a request that must still be served.  Every
completion is applied to the document and parsed by CPython.  stdout must
hold nothing but well-framed messages.
"""

import argparse
import ast
import codeop
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import time
import warnings

SAMPLE = (
    "import os\n"
    "\n"
    "\n"
    "def read_lines(path):\n"
    "    with open(path, encoding=\"utf-8\") as handle:\n"
    "        return [line.rstrip() for line in handle]\n"
    "\n"
    "\n"
    "def main():\n"
    "    for name in os.listdir(\n"
    "    print(\"caf\u00e9 \U0001F600\", name)\n"
)


class Client:
    def __init__(self, seam, args=(), env=None):
        self.proc = subprocess.Popen([seam] + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.buf = b""
        self.next_id = 1
        self.notifications = []
        self.stray = []

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj):
        body = json.dumps(obj).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params, id=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        return id

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def _read_message(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                header = self.buf[:end].decode("ascii")
                lines = header.split("\r\n")
                lengths = [l for l in lines if l.lower().startswith("content-length:")]
                if len(lengths) != 1 or any(":" not in l for l in lines):
                    self.stray.append(header)
                    raise AssertionError("bad frame header from seam: %r" % header)
                n = int(lengths[0].split(":", 1)[1])
                if len(self.buf) >= end + 4 + n:
                    body = self.buf[end + 4:end + 4 + n]
                    self.buf = self.buf[end + 4 + n:]
                    return json.loads(body)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk

    def response(self, id, timeout=20):
        """The response to `id`; notifications seen meanwhile are kept."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self._read_message(deadline - time.monotonic())
            if msg is None:
                return None
            if "method" in msg and "id" not in msg:
                self.notifications.append(msg)
                continue
            if msg.get("id") == id:
                return msg
            self.notifications.append(msg)   # a response to something else
        return None

    def responses_with_null_id(self, timeout=5):
        out = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self._read_message(0.3)
            if msg is None:
                break
            if msg.get("id", "absent") is None:
                out.append(msg)
            else:
                self.notifications.append(msg)
        return out

    def wait(self, timeout=10):
        """Waits for the process to end, reading what it still writes."""
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        rest = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                rest += chunk
        try:
            return self.proc.wait(timeout=max(0.1, deadline - time.monotonic())), rest
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None, rest

    def close(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        return self.wait()[0]


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL:", what)
        return ok


def offset_of(text, line, character, encoding):
    lines = text.split("\n")
    before = sum(len(l) + 1 for l in lines[:line])
    row = lines[line]
    if encoding == "utf-8":
        return before + len(row.encode()[:character].decode())
    units = 0
    for i, ch in enumerate(row):
        if units >= character:
            return before + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return before + len(row)


def apply_edit(text, rng, new_text, encoding):
    a = offset_of(text, rng["start"]["line"], rng["start"]["character"], encoding)
    b = offset_of(text, rng["end"]["line"], rng["end"]["character"], encoding)
    return text[:a] + new_text + text[b:]


def parses(text):
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


def needs_more(head):
    """Whether CPython's only complaint about `head` is that it stops too
    soon: complete or incomplete input for codeop, an error placed past
    its last character, a bracket never closed, or a string the line may
    still close."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            codeop.compile_command(head, symbol="exec")
            return True
        except (SyntaxError, ValueError, OverflowError):
            pass
        try:
            ast.parse(head)
            return True
        except SyntaxError as e:
            lines = head.split("\n")
            if "was never closed" in e.msg or "unterminated" in e.msg and e.lineno == len(lines):
                return True
            return e.lineno == len(lines) and (e.offset or 0) > len(lines[-1])


def can_finish(text, rng, new_text, encoding):
    """Whether the edit, applied, leaves a text the person can still finish:
    it parses, or (code being typed binds only as far as it is written) the
    text up to the end of the cursor's line only stops too soon."""
    applied = apply_edit(text, rng, new_text, encoding)
    if parses(applied):
        return True
    a = offset_of(text, rng["start"]["line"], rng["start"]["character"], encoding)
    end = applied.find("\n", a + len(new_text))
    return needs_more(applied if end < 0 else applied[:end])


def init(client, options=None, encodings=("utf-8", "utf-16")):
    rid = client.request("initialize", {
        "processId": os.getpid(), "rootUri": None,
        "capabilities": {"general": {"positionEncodings": list(encodings)}},
        "initializationOptions": options or {"train_stdlib": False, "debounce_ms": 0},
    })
    resp = client.response(rid)
    client.notify("initialized", {})
    return resp


def open_doc(client, uri, text):
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})


def ask_inline(client, uri, line, character, timeout=30):
    """An explicit inline completion at (line, character); its response."""
    rid = client.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                           "position": {"line": line, "character": character},
                                                           "context": {"triggerKind": 1}})
    return client.response(rid, timeout=timeout)


def session(seam, ch, workdir):
    c = Client(seam)
    uri = "file://" + os.path.join(workdir, "sample.py")
    # Before initialize: ServerNotInitialized.
    rid = c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32002, "a request before initialize: %r" % r)

    r = init(c)
    caps = (r or {}).get("result", {}).get("capabilities", {})
    ch.check(caps.get("positionEncoding") == "utf-8", "utf-8 positions negotiated: %r" % caps)
    ch.check(caps.get("inlineCompletionProvider") is True and "completionProvider" in caps,
             "inline completion and completion providers")
    ch.check(caps.get("textDocumentSync", {}).get("change") == 2, "incremental sync")

    text = SAMPLE
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    # An incremental edit (positions in utf-8 bytes): after "path)" add nothing;
    # insert "dir" as the argument of listdir on line 9.
    line9 = text.split("\n")[9]
    col = len(line9.encode())
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 9, "character": col}, "end": {"line": 9, "character": col}}, "text": "d"},
        {"range": {"start": {"line": 9, "character": col + 1}, "end": {"line": 9, "character": col + 1}}, "text": "ir"},
    ]})
    text = text.replace("os.listdir(\n", "os.listdir(dir\n")
    line9 = text.split("\n")[9]

    def inline(line, character, kind=1, id=None, extra=None):
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character},
                  "context": {"triggerKind": kind}}
        if extra:
            params["context"].update(extra)
        return c.request("textDocument/inlineCompletion", params, id=id)

    # Inline completion at the end of line 9: the item, applied, parses.
    rid = inline(9, len(line9.encode()))
    r = c.response(rid)
    items = (r or {}).get("result", {}).get("items")
    ch.check(isinstance(items, list), "inline completion answered: %r" % r)
    if items:
        ch.check(can_finish(text, items[0]["range"], items[0]["insertText"], "utf-8"),
                 "inline completion applied can be finished: %r" % items[0])
    # The same through textDocument/completion.
    rid = c.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                "position": {"line": 9, "character": len(line9.encode())}})
    r = c.response(rid)
    result = (r or {}).get("result") or {}
    ch.check("items" in result and result.get("isIncomplete") is True, "completion answered: %r" % r)
    for item in result.get("items", []):
        ch.check(can_finish(text, item["textEdit"]["range"], item["textEdit"]["newText"], "utf-8"),
                 "completion item applied can be finished: %r" % item)

    # A full-text change.
    text = SAMPLE.replace("os.listdir(\n", "os.listdir('.'\n")
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text}]})
    line9 = text.split("\n")[9]
    rid = inline(9, len(line9.encode()))
    r = c.response(rid)
    items = (r or {}).get("result", {}).get("items", [])
    ch.check(r is not None and "result" in r, "inline completion after a full change")
    for item in items:
        ch.check(can_finish(text, item["range"], item["insertText"], "utf-8"),
                 "completion after full change can be finished: %r" % item)

    # A cursor after a non-ASCII character (utf-8 byte positions).
    line10 = text.split("\n")[10]
    rid = inline(10, len(line10.encode()))
    r = c.response(rid)
    ch.check(r is not None and "result" in r, "inline completion at the end of a line with an emoji: %r" % r)

    # selectedCompletionInfo: the popup's item is part of the result.
    base = text.replace("os.listdir('.'\n", "os.listdir(os.pa\n")
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": base}]})
    l9 = base.split("\n")[9]
    end = len(l9.encode())
    rid = inline(9, end, extra={"selectedCompletionInfo": {
        "range": {"start": {"line": 9, "character": end - 2}, "end": {"line": 9, "character": end}}, "text": "path"}})
    r = c.response(rid)
    items = (r or {}).get("result", {}).get("items", [])
    ch.check(r is not None and "result" in r, "inline completion with a selected item: %r" % r)
    for item in items:
        ch.check(item["insertText"].startswith("path"), "the selected item starts the insert text: %r" % item)
        ch.check(can_finish(base, item["range"], item["insertText"], "utf-8"),
                 "selected-item completion can be finished: %r" % item)
    text = base

    # Cancel: with a debounce, an automatic request is cancelled before it starts.
    c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"debounce_ms": 400}}})
    rid = inline(9, end, kind=2)
    c.notify("$/cancelRequest", {"id": rid})
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32800, "a cancelled request: %r" % r)
    # A newer request for the same document replaces the older one.
    first = inline(9, end, kind=2)
    second = inline(9, end, kind=2)
    r1, r2 = c.response(first), c.response(second)
    ch.check(r1 and r1.get("error", {}).get("code") == -32800, "the older request is cancelled: %r" % r1)
    ch.check(r2 and "result" in r2, "the newer request is served: %r" % r2)

    # A bad setting is refused with a message; the old settings stay in force.
    c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"max_tokens": "many", "debounce_ms": 0}}})
    rid = inline(9, end)
    r = c.response(rid)
    shown = [n for n in c.notifications if n.get("method") == "window/showMessage"
             and "max_tokens" in n["params"]["message"]]
    ch.check(bool(shown) and shown[-1]["params"]["type"] == 1, "a bad setting is shown as an error")
    ch.check(r and "result" in r, "served after a bad setting: %r" % r)

    # An editor's own settings beside seam's (the path to the binary): the
    # known ones apply, the others are named in one warning.
    before = len(c.notifications)
    c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {
        "path": "/opt/seam/bin/seam", "trace": {"server": "off"}, "max_lines": 2, "debounce_ms": 0}}})
    rid = inline(9, end)
    r = c.response(rid)
    new = c.notifications[before:]
    ch.check(any(n.get("method") == "window/logMessage" and n["params"]["type"] == 2
                 and "path" in n["params"]["message"] and "trace" in n["params"]["message"] for n in new),
             "unknown settings are named in a warning: %r" % new)
    ch.check(any("settings updated" in n.get("params", {}).get("message", "") for n in new)
             and not any(n.get("method") == "window/showMessage" for n in new),
             "the known settings apply beside unknown ones: %r" % new)
    ch.check(r and "result" in r, "served after settings with unknown keys: %r" % r)

    # A backend that cannot be reached: the request is answered, the user told.
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    c.notify("workspace/didChangeConfiguration", {"settings": {
        "backend": "llamacpp", "endpoint": "http://127.0.0.1:%d" % port, "connect_timeout_ms": 300, "retries": 0}})
    rid = inline(9, end)
    r = c.response(rid)
    ch.check(r is not None and ("result" in r or "error" in r), "answered with an unreachable backend: %r" % r)
    ch.check(any(n.get("method") == "window/showMessage" and "could not be reached" in n["params"]["message"]
                 for n in c.notifications), "an unreachable backend is shown to the user")
    c.notify("workspace/didChangeConfiguration", {"settings": {"backend": "embedded"}})
    rid = inline(9, end)
    r = c.response(rid)
    ch.check(r and "result" in r, "served after switching back to the embedded model: %r" % r)

    # Positions outside the document, unknown methods, unknown notifications.
    rid = inline(500, 0)
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32602, "a position outside the document: %r" % r)
    rid = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32601, "an unknown method: %r" % r)
    c.notify("textDocument/unknownThing", {})
    c.notify("$/setTrace", {"value": "off"})
    rid = c.request("textDocument/completion", {"textDocument": {"uri": "file:///nowhere.py"},
                                                "position": {"line": 0, "character": 0}})
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32602, "a document that is not open: %r" % r)

    # An edit with a range outside the document: an error shown, text kept.
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 9}, "contentChanges": [
        {"range": {"start": {"line": 900, "character": 0}, "end": {"line": 900, "character": 1}}, "text": "x"}]})
    rid = inline(9, end)
    r = c.response(rid)
    ch.check(r and "result" in r, "served after a bad edit: %r" % r)
    ch.check(any(n.get("method") == "window/showMessage" and "edit" in n["params"]["message"]
                 for n in c.notifications), "a bad edit is reported")

    # Invalid UTF-8 in a document's text (a lone surrogate escape in JSON).
    bad_uri = "file://" + os.path.join(workdir, "bad.py")
    c.send_raw(b'Content-Length: 121\r\n\r\n' + (b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":'
               b'{"uri":"' + bad_uri.encode() + b'","text":"x = \xff\\n"}}}')[:121])
    rid = c.request("textDocument/completion", {"textDocument": {"uri": bad_uri},
                                                "position": {"line": 0, "character": 0}})
    r = c.response(rid)
    ch.check(r is not None, "served after invalid UTF-8: %r" % r)

    # Framing faults: invalid JSON, a header without Content-Length, a
    # Content-Length that lies, junk between messages.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json")
    errs = c.responses_with_null_id(1.0)
    ch.check(any(e.get("error", {}).get("code") == -32700 for e in errs), "invalid JSON: parse error %r" % errs)
    c.send_raw(b"Content-Lenght: 5\r\n\r\n")
    c.send_raw(b"garbage line\r\n")
    body = json.dumps({"jsonrpc": "2.0", "id": 777, "method": "shutdown"}).encode()
    c.send_raw(b"Content-Length: 10\r\n\r\n" + body)   # too short: the rest is junk
    rid = inline(9, end, id=778)
    r = c.response(778)
    ch.check(r and "result" in r, "served after framing faults: %r" % r)

    # Shutdown, a request after it, exit.
    rid = c.request("shutdown", None)
    r = c.response(rid)
    ch.check(r and "result" in r and r["result"] is None, "shutdown: %r" % r)
    rid = inline(9, end)
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32600, "a request after shutdown: %r" % r)
    c.notify("exit", None)
    code, rest = c.wait()
    ch.check(code == 0, "exit after shutdown gives 0, got %r" % code)
    ch.check(not rest.strip() or rest.startswith(b"Content-Length"), "nothing but protocol on stdout")
    ch.check(not c.stray, "stray output: %r" % c.stray)


def oversized(seam, ch):
    c = Client(seam)
    init(c, {"train_stdlib": False, "max_message_bytes": 4096, "debounce_ms": 0})
    big = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "textDocument/completion", "params": {"x": "y" * 10000}})
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(big) + big.encode())
    errs = c.responses_with_null_id(1.0)
    ch.check(any(e.get("error", {}).get("code") == -32600 and "cap" in e["error"]["message"] for e in errs),
             "an oversized message is refused: %r" % errs)
    rid = c.request("shutdown", None)
    r = c.response(rid)
    ch.check(r and "result" in r, "served after an oversized message: %r" % r)
    c.notify("exit", None)
    ch.check(c.wait()[0] == 0, "exit after an oversized message")


def vanishing_client(seam, ch):
    c = Client(seam)
    init(c)
    c.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
    start = time.monotonic()
    code = c.close()
    ch.check(code == 1 and time.monotonic() - start < 5, "a client that leaves mid-message: exit %r" % code)
    c2 = Client(seam)
    init(c2)
    c2.notify("exit", None)
    ch.check(c2.wait()[0] == 1, "exit without shutdown gives 1")


def utf16_positions(seam, ch, workdir):
    c = Client(seam)
    r = init(c, encodings=("utf-16",))
    ch.check((r or {}).get("result", {}).get("capabilities", {}).get("positionEncoding") == "utf-16",
             "utf-16 when the client offers only that")
    uri = "file://" + os.path.join(workdir, "u16.py")
    text = "s = '\U0001F600'\nx = s.upper(\n"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    # An edit after the emoji, in UTF-16 units: the emoji counts 2.
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 7}}, "text": "!"}]})
    text = "s = '\U0001F600!'\nx = s.upper(\n"
    rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                      "position": {"line": 1, "character": 12},
                                                      "context": {"triggerKind": 1}})
    r = c.response(rid)
    ch.check(r and "result" in r, "utf-16 inline completion: %r" % r)
    for item in (r or {}).get("result", {}).get("items", []):
        ch.check(can_finish(text, item["range"], item["insertText"], "utf-16"),
                 "utf-16 completion can be finished: %r" % item)
    # Half a surrogate pair is not a position.
    rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                      "position": {"line": 0, "character": 6},
                                                      "context": {"triggerKind": 1}})
    r = c.response(rid)
    ch.check(r and r.get("error", {}).get("code") == -32602, "a position inside a surrogate pair: %r" % r)
    rid = c.request("shutdown", None)
    c.response(rid)
    c.notify("exit", None)
    c.wait()


def pull_configuration(seam, ch):
    """A client of the pull model: seam asks workspace/configuration."""
    c = Client(seam)
    rid = c.request("initialize", {"processId": None, "rootUri": None,
                                   "capabilities": {"workspace": {"configuration": True}},
                                   "initializationOptions": {"train_stdlib": False, "debounce_ms": 0}})
    c.response(rid)
    c.notify("initialized", {})

    def server_request(timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = c._read_message(deadline - time.monotonic())
            if msg is None:
                return None
            if msg.get("method") == "workspace/configuration" and "id" in msg:
                return msg
            c.notifications.append(msg)
        return None

    req = server_request()
    ch.check(req is not None and req["params"]["items"][0].get("section") == "seam",
             "seam asks for its settings after initialized: %r" % req)
    if req:
        c.send({"jsonrpc": "2.0", "id": req["id"], "result": [{"max_tokens": 3}]})
    # A change notification without settings: seam asks again.
    c.notify("workspace/didChangeConfiguration", {"settings": None})
    req2 = server_request()
    ch.check(req2 is not None and req2["id"] != (req or {}).get("id"), "seam asks again on a change: %r" % req2)
    if req2:
        c.send({"jsonrpc": "2.0", "id": req2["id"], "result": [{"max_tokens": "lots"}]})
    rid = c.request("shutdown", None)
    c.response(rid)
    updated = [n for n in c.notifications if n.get("method") == "window/logMessage"
               and "settings updated" in n["params"]["message"]]
    refused = [n for n in c.notifications if n.get("method") == "window/showMessage"
               and "max_tokens" in n["params"]["message"]]
    ch.check(len(updated) == 1 and len(refused) == 1, "pulled settings applied once, the bad ones refused: %r / %r"
             % (updated, refused))
    c.notify("exit", None)
    ch.check(c.wait()[0] == 0, "exit after pulled settings")


def same_settings_again(seam, ch, workdir):
    """Settings pushed again unchanged (editors send them at start and on
    changes of their own) keep the engine: a completion in flight, waiting
    for the embedded model to train, is answered, not canceled; a real
    change still makes a new engine."""
    c = Client(seam)
    try:
        options = {"train_stdlib": False, "debounce_ms": 0, "max_tokens": 8, "timeout_ms": 30000}
        rid = c.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {},
                                       "initializationOptions": options})
        c.response(rid, timeout=30)
        c.notify("initialized", {})
        uri = "file://" + os.path.join(workdir, "same_settings.py")
        open_doc(c, uri, "def total(values):\n    return sum(val")
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                           "position": {"line": 1, "character": 18},
                                                           "context": {"triggerKind": 1}})
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": dict(options)}})
        resp = c.response(rid, timeout=60)
        ch.check(resp is not None and "error" not in resp,
                 "the same settings again: the completion in flight is answered: %r" % resp)
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": dict(options, max_tokens=9)}})
        c.response(-1, timeout=2)
        updated = [n for n in c.notifications if n.get("method") == "window/logMessage"
                   and "settings updated" in n["params"]["message"]]
        ch.check(len(updated) == 1, "only the real change is applied: %r" % updated)
    finally:
        c.close()


def read_stderr_now(client):
    """What seam has written to stderr so far, without waiting."""
    out = b""
    while select.select([client.proc.stderr], [], [], 0)[0]:
        chunk = os.read(client.proc.stderr.fileno(), 65536)
        if not chunk:
            break
        out += chunk
    return out.decode("utf-8", "replace")


def waits_for_the_model(seam, ch, workdir, sanitized=False):
    """A request that comes while the embedded model trains waits for it
    within its latency budget: answered (empty) when the budget ends before
    the model is ready, and completed when the model is ready in time.
    Under the sanitizers (`sanitized`) training and decoding both take
    several times as long: the budget is 1 s rather than 200 ms, still
    far less than the training."""
    # an empty cache folder: the model is trained, not read back
    c = Client(seam, env=dict(os.environ, SEAM_CACHE_DIR=tempfile.mkdtemp(prefix="untrained-", dir=workdir)))
    try:
        # The standard library makes training take about a second here.
        budget = 1000 if sanitized else 200
        init(c, {"debounce_ms": 0, "timeout_ms": budget, "train_stdlib": True, "log_level": "debug"})
        uri = "file://" + os.path.join(workdir, "early.py")
        text = "import os\n\n\ndef main():\n    return os.path.\n"
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": text}})
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                          "position": {"line": 4, "character": 19},
                                                          "context": {"triggerKind": 1}})
        resp = c.response(rid, timeout=20)
        log = read_stderr_now(c)
        ch.check(resp is not None and resp.get("result") is not None and "error" not in resp,
                 "an early request is answered: %r" % resp)
        ch.check("embedded model ready" not in log,
                 "the early request was answered within its budget, before the model was ready: %r" % resp)
        deadline = time.monotonic() + 30
        while "embedded model ready" not in log and time.monotonic() < deadline:
            time.sleep(0.05)
            log += read_stderr_now(c)
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                          "position": {"line": 4, "character": 19},
                                                          "context": {"triggerKind": 1}})
        resp = c.response(rid, timeout=20)
        items = ((resp or {}).get("result") or {}).get("items", [])
        ch.check(bool(items) and can_finish(text, items[0]["range"], items[0]["insertText"], "utf-8"),
                 "once the model is ready, a completion: %r" % resp)
    finally:
        c.close()
    # A budget long enough: the request waits and is completed.
    c = Client(seam)
    try:
        init(c, {"debounce_ms": 0, "timeout_ms": 30000, "train_stdlib": True})
        uri = "file://" + os.path.join(workdir, "early2.py")
        text = "import os\n\n\ndef main():\n    return os.path.\n"
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": text}})
        rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                          "position": {"line": 4, "character": 19},
                                                          "context": {"triggerKind": 1}})
        resp = c.response(rid, timeout=40)
        items = ((resp or {}).get("result") or {}).get("items", [])
        ch.check(bool(items), "a request made while the model trains is completed when it is ready: %r" % resp)
    finally:
        c.close()


def progress_while_training(seam, ch):
    """A client that supports window/workDoneProgress is asked to create a
    token when the embedded model starts training, then gets "begin" once
    it has answered and "end" when the model is ready; one that does not
    support it gets neither."""
    c = Client(seam)
    try:
        rid = c.request("initialize", {
            "processId": os.getpid(), "rootUri": None,
            "capabilities": {"window": {"workDoneProgress": True}},
            "initializationOptions": {"train_stdlib": True, "debounce_ms": 0}})
        ch.check(c.response(rid) is not None, "initialize answered")
        c.notify("initialized", {})
        create = None
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = c._read_message(0.5)
            if msg is None:
                continue
            seen.append(msg)
            if msg.get("method") == "window/workDoneProgress/create" and "id" in msg and create is None:
                create = msg
                c.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            if msg.get("method") == "$/progress" and msg["params"]["value"]["kind"] == "end":
                break
        progress = [m["params"] for m in seen if m.get("method") == "$/progress"]
        ch.check(create is not None and isinstance(create["params"].get("token"), str),
                 "the server asks to create a progress token: %r" % seen)
        kinds = [p["value"]["kind"] for p in progress]
        ch.check(kinds == ["begin", "end"] and all(p["token"] == create["params"]["token"] for p in progress),
                 "progress begins and ends on that token: %r" % progress)
        ch.check(progress and "training" in progress[0]["value"].get("message", ""),
                 "the progress says the model is training: %r" % progress)
    finally:
        c.close()
    c = Client(seam)
    try:
        init(c, {"train_stdlib": True, "debounce_ms": 0})
        seen = []
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            msg = c._read_message(0.3)
            if msg is not None:
                seen.append(msg)
        ch.check(not any(m.get("method") in ("$/progress", "window/workDoneProgress/create") for m in seen),
                 "no progress for a client that does not support it: %r" % seen)
    finally:
        c.close()


class OddServer:
    """A TCP server on a free port that speaks no HTTP ("other": a banner
    of another protocol, then it closes) or accepts and never answers
    ("silent")."""

    def __init__(self, kind):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.kind = kind
        self.held = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.kind == "other":
                # as an SSH server does: its banner first, then it reads
                try:
                    conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
                    conn.settimeout(2)
                    conn.recv(65536)
                except OSError:
                    pass
                conn.close()
            else:
                self.held.append(conn)

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


def status_notifications(seam, ch, workdir):
    """A client that asks for seam/status (capabilities.experimental.seamStatus)
    hears "training" then "ready" from the embedded model, "unreachable"
    with the reason when the backend cannot be reached, and "ready" again
    when the settings change; a client that does not ask hears none."""
    import socket

    def statuses(c, until, timeout=30):
        got = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = c._read_message(0.3)
            if msg is None:
                continue
            if msg.get("method") == "seam/status":
                got.append(msg["params"])
                if until(got):
                    break
            elif "id" in msg and "method" in msg:
                c.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            else:
                c.notifications.append(msg)
        return got

    c = Client(seam)
    try:
        rid = c.request("initialize", {
            "processId": os.getpid(), "rootUri": None,
            "capabilities": {"experimental": {"seamStatus": True}},
            "initializationOptions": {"train_stdlib": True, "debounce_ms": 0}})
        ch.check(c.response(rid) is not None, "initialize answered")
        c.notify("initialized", {})
        got = statuses(c, lambda g: g[-1]["state"] == "ready")
        ch.check([g["state"] for g in got] == ["training", "ready"] and got[0]["backend"] == "embedded",
                 "the embedded model: training, then ready: %r" % got)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {
            "backend": "llamacpp", "endpoint": "http://127.0.0.1:%d" % port, "connect_timeout_ms": 300,
            "retries": 0}}})
        uri = "file://" + os.path.join(workdir, "status.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": "x = 1\n"}})
        c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                     "position": {"line": 1, "character": 0},
                                                     "context": {"triggerKind": 1}})
        got = statuses(c, lambda g: g[-1]["state"] == "unreachable", timeout=15)
        ch.check(got and got[-1]["state"] == "unreachable" and got[-1]["backend"] == "llamacpp"
                 and "could not be reached" in got[-1].get("message", ""),
                 "an unreachable backend: its status and the reason: %r" % got)
        # A server that answers in something other than HTTP is not "not
        # reached"; one that accepts and never answers leaves seam "slow",
        # not "ready".
        for kind, state, words in (("other", "unreachable", "not in HTTP"), ("silent", "slow", "timeout_ms")):
            server = OddServer(kind)
            c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {
                "backend": "llamacpp", "endpoint": "http://127.0.0.1:%d" % server.port, "connect_timeout_ms": 300,
                "retries": 0, "timeout_ms": 600}}})
            c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                         "position": {"line": 1, "character": 0},
                                                         "context": {"triggerKind": 1}})
            got = statuses(c, lambda g: g[-1]["state"] == state, timeout=15)
            ch.check(got and got[-1]["state"] == state and words in got[-1].get("message", ""),
                     "a server that %s: status %s: %r" % ("speaks no HTTP" if kind == "other" else "never answers",
                                                          state, got))
            server.close()
        # An editor's unset setting (null) returns to the value before the
        # editor's layers: the default backend here.
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {
            "backend": None, "endpoint": None, "connect_timeout_ms": None, "retries": None}}})
        got = statuses(c, lambda g: g[-1]["state"] == "ready", timeout=30)
        # a seam with libllama and no model found offers one's download
        version = subprocess.run([seam, "--version"], capture_output=True, text=True).stdout
        expected = {"state": "ready", "backend": "embedded"}
        if "llama (GGUF" in version:
            expected["offer_model"] = True
        last = {k: v for k, v in (got[-1] if got else {}).items()
                if not k.startswith("python_version") and k not in ("language", "source_type")}
        ch.check(got and last == expected,
                 "settings unset: back to the embedded model, ready again: %r" % got)
    finally:
        c.close()
    c = Client(seam)
    try:
        init(c, {"train_stdlib": False, "debounce_ms": 0})
        got = statuses(c, lambda g: True, timeout=3)
        ch.check(got == [], "no seam/status for a client that did not ask: %r" % got)
    finally:
        c.close()


def python_version_of_the_project(seam, ch, workdir):
    """With python_version auto, the workspace's pyproject.toml decides the
    grammar: a 3.13 project's type parameter defaults and a 3.12 project's
    f-strings with the same quotes nested (PEP 701) are code to complete
    after, and the status says which version and why; the setting
    overrides it."""
    projects = (
        ("py313-project", "3.13", "def first[T = int](xs: list[T]) -> T:\n    values = list(xs)\n    return val",
         (2, len("    return val"))),
        ("py312-project", "3.12", 'd = {"name": "seam"}\nvalues = list(d)\n'
         'print(f"{d["name"]!r:>{len(d)}} and {d = }", val', (2, len('print(f"{d["name"]!r:>{len(d)}} and {d = }", val'))),
    )
    for name, wanted, text, (line, character) in projects:
        project = os.path.join(workdir, name)
        os.makedirs(project, exist_ok=True)
        with open(os.path.join(project, "pyproject.toml"), "w") as f:
            f.write('[project]\nname = "demo"\nrequires-python = ">=%s"\n' % wanted)
        uri = "file://" + os.path.join(project, "demo.py")
        for options, version in (({"train_stdlib": False, "debounce_ms": 0}, wanted),
                                 ({"train_stdlib": False, "debounce_ms": 0, "python_version": "3.11"}, "3.11")):
            c = Client(seam)
            try:
                rid = c.request("initialize", {
                    "processId": os.getpid(), "rootUri": "file://" + project,
                    "capabilities": {"experimental": {"seamStatus": True}}, "initializationOptions": options})
                c.response(rid, timeout=30)
                c.notify("initialized", {})
                open_doc(c, uri, text)
                resp = ask_inline(c, uri, line, character)
                items = (resp or {}).get("result") or {}
                items = items.get("items", items) if isinstance(items, dict) else items
                c.response(-1, timeout=1)
                status = [n["params"] for n in c.notifications if n.get("method") == "seam/status"]
                said = [s for s in status if s.get("python_version")]
                ch.check(said and said[-1]["python_version"] == version and
                         ("pyproject.toml" in said[-1].get("python_version_why", "")) == (version == wanted),
                         "the status names Python %s and why: %r" % (version, said[-1:]))
                if version == wanted:
                    ch.check(bool(items), "after %s code, a completion: %r" % (wanted, resp))
                else:
                    ch.check(not items, "read as 3.11, the code before the cursor is not Python: no completion: %r"
                             % resp)
            finally:
                c.close()


def served_client(seam, url, root):
    """seam's language server, initialized on the workspace `root` with
    the llama.cpp server at `url` as its backend, no debounce."""
    c = Client(seam)
    rid = c.request("initialize", {
        "processId": os.getpid(), "rootUri": "file://" + root,
        "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
        "initializationOptions": {"backend": "llamacpp", "endpoint": url, "debounce_ms": 0}})
    c.response(rid)
    c.notify("initialized", {})
    return c


def semantic_in_the_server(seam, ch, workdir):
    """The semantic pruners in the language server: the workspace's own
    module (the workspace folder the client names) is known, the model's
    first choice (an attribute the module lacks) is refused and its second
    offered; switched off by the editor, the first choice stands."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends"))
    from loopback import EOS, LoopbackServer, Script
    ws = tempfile.mkdtemp(prefix="ws-", dir=workdir)
    with open(os.path.join(ws, "geometry.py"), "w", encoding="utf-8") as f:
        f.write("def scale(shape, factor=2):\n    return shape\n")
    left = "import geometry\n\nresult = "
    steps = {"": [("geometry.scael(1)", -0.1), ("geometry.scale(1)", -0.5)],
             "geometry.scael(1)": [(EOS, -0.1)], "geometry.scale(1)": [(EOS, -0.1)]}
    with LoopbackServer(Script(steps, left)) as server:
        c = served_client(seam, server.url, ws)
        uri = "file://" + os.path.join(ws, "main.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": left + "\n"}})

        def first_item():
            rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                              "position": {"line": 2, "character": 9},
                                                              "context": {"triggerKind": 1}})
            items = ((c.response(rid) or {}).get("result") or {}).get("items") or [{}]
            return items[0].get("insertText")

        got = first_item()
        ch.check(got == "geometry.scale(1)", "semantic pruners in the server: %r" % got)
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"semantic": False}}})
        got = first_item()
        ch.check(got == "geometry.scael(1)", "semantic pruners switched off in the server: %r" % got)
        rid = c.request("shutdown", None)
        c.response(rid)
        c.notify("exit", None)
        c.wait()


def settled(server, paths=("/infill", "/completion", "/v1/completions"), quiet=0.4, limit=20.0):
    """The model requests the server has had, once none came for `quiet`
    seconds (the language server's decoding ahead done)."""
    count = lambda: sum(1 for path, _, _ in server.requests if path in paths)  # noqa: E731
    seen, since, end = count(), time.monotonic(), time.monotonic() + limit
    while time.monotonic() < end:
        time.sleep(0.05)
        now = count()
        if now != seen:
            seen, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return seen


def typing_through(seam, ch, workdir):
    """Typing the characters an inline completion shows: the next request
    is answered with the rest of it, with no new model request; a
    character that leaves it asks the model again."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends"))
    from loopback import EOS, LoopbackServer, Script
    left = "import os\nroot = '.'\nname = 'a'\npath = "
    steps = {"": [("os.path.join(root, name)", -0.1)], "os.path.join(root, name)": [(EOS, -0.1)],
             ".path.join(root, name)": [(EOS, -0.1)]}
    with LoopbackServer(Script(steps, left)) as server:
        c = served_client(seam, server.url, workdir)
        uri = "file://" + os.path.join(workdir, "through.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": left + "\nprint(path)\n"}})

        def model_requests():
            return sum(1 for path, _, _ in server.requests if path in ("/infill", "/completion", "/v1/completions"))

        def typed(col, text, version):
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": 3, "character": col}, "end": {"line": 3, "character": col}},
                 "text": text}]})

        def shown(col):
            rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                              "position": {"line": 3, "character": col},
                                                              "context": {"triggerKind": 2}})
            items = ((c.response(rid) or {}).get("result") or {}).get("items") or [{}]
            return items[0].get("insertText")

        start = len("path = ")
        got = shown(start)
        asked = settled(server)
        ch.check(got == "os.path.join(root, name)" and asked > 0, "the first completion: %r" % got)
        typed(start, "os", 2)
        got = shown(start + 2)
        ch.check(got == ".path.join(root, name)" and model_requests() == asked,
                 "typing 'os' through it: the rest at once, no model request (%r, %d -> %d)"
                 % (got, asked, model_requests()))
        typed(start + 2, ".p", 3)
        got = shown(start + 4)
        ch.check(got == "ath.join(root, name)" and model_requests() == asked, "typing on through it: %r" % got)
        typed(start + 4, "x", 4)
        shown(start + 5)
        ch.check(model_requests() > asked, "a character the completion does not show asks the model again")
        rid = c.request("shutdown", None)
        c.response(rid)
        c.notify("exit", None)
        c.wait()


def decoding_ahead(seam, ch, workdir):
    """While a completion is shown, the one after it is decoded: once the
    person accepts it and breaks the line, the next line's completion is
    there at once, with no model request, the editor's indentation typed
    through; a request that leaves it asks the model; decode_ahead false
    decodes nothing ahead."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends"))
    from loopback import EOS, LoopbackServer, Script
    left = "import os\nroot = '.'\nname = 'a'\ndef main():\n    path = "
    first = "os.path.join(root, name)"
    steps = {"": [(first, -0.1)], first: [(EOS, -0.1)]}
    # (at the next line's start the model writes its indentation; after the
    # editor's, the line)
    nxt = {"": [("    print(path)", -0.1), ("print(path)", -0.2)], "    print(path)": [(EOS, -0.1)],
           "print(path)": [(EOS, -0.1)]}
    line = 4

    def own_requests(server):
        """Model requests not made for the line after the next one (whose
        prompts hold the next line)."""
        prompts = [body.get("prompt") for path, body, _ in server.requests
                   if path in ("/infill", "/completion", "/v1/completions")]
        prompts = [server.vocab.detokenize(p) if isinstance(p, list) else str(p) for p in prompts]
        return sum(1 for p in prompts if "    print(path)\n" not in p)

    for ahead in (True, False, "waits"):
        fault = "slow_generation" if ahead == "waits" else None
        with LoopbackServer(Script(steps, left, where=[("path = " + first + "\n", nxt)]), fault=fault) as server:
            c = Client(seam)
            rid = c.request("initialize", {
                "processId": os.getpid(), "rootUri": "file://" + workdir,
                "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                "initializationOptions": {"backend": "llamacpp", "endpoint": server.url, "debounce_ms": 0,
                                          "decode_ahead": bool(ahead), "timeout_ms": 10000}})
            c.response(rid)
            c.notify("initialized", {})
            uri = "file://" + os.path.join(workdir, "ahead.py")
            c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                               "text": left + "\n"}})
            version = [1]

            def typed(at, col, text):
                version[0] += 1
                c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version[0]},
                                                    "contentChanges": [
                    {"range": {"start": {"line": at, "character": col}, "end": {"line": at, "character": col}},
                     "text": text}]})

            def shown(at, col):
                rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                                  "position": {"line": at, "character": col},
                                                                  "context": {"triggerKind": 2}})
                items = ((c.response(rid) or {}).get("result") or {}).get("items") or [{}]
                return items[0].get("insertText")

            start = len("    path = ")
            got = shown(line, start)
            ch.check(got == first, "decode_ahead %s: the first completion: %r" % (ahead, got))
            if ahead == "waits":
                # Accepted and the line broken at once, while the model
                # (slow here) still decodes the next line ahead: the request
                # waits for that job rather than asking the model again.
                typed(line, start, first + "\n    ")
                got = shown(line + 1, 4)
                ch.check(got == "print(path)" and own_requests(server) == 2,
                         "a request on the text being decoded ahead waits for it: %r, %d model requests"
                         % (got, own_requests(server)))
            else:
                asked = settled(server)
            if ahead == "waits":
                rid = c.request("shutdown", None)
                c.response(rid)
                c.notify("exit", None)
                c.wait()
                continue
            # Accepted (the editor asks again at its end), then Enter and the
            # editor's indentation.
            typed(line, start, first)
            shown(line, start + len(first))
            before = settled(server)
            typed(line, start + len(first), "\n    ")
            got = shown(line + 1, 4)
            after = settled(server)
            if ahead:
                # (the requests after it decode the line after it ahead: their
                # prompts hold it)
                prompts = [body.get("prompt") for path, body, _ in server.requests
                           if path in ("/infill", "/completion", "/v1/completions")][before:after]
                prompts = [server.vocab.detokenize(p) if isinstance(p, list) else str(p) for p in prompts]
                ch.check(asked >= 2, "the next line decoded ahead while the first was shown: %d requests" % asked)
                ch.check(got == "print(path)" and all("    print(path)\n" in p for p in prompts),
                         "the next line at once, its indentation typed through, no model request for it "
                         "(%r, %d requests after it, for the line after)" % (got, after - before))
            else:
                ch.check(asked == 1, "decode_ahead false: nothing decoded ahead (%d requests)" % asked)
                ch.check(got == "print(path)" and after > before, "decode_ahead false: the model asked (%r)" % got)
            rid = c.request("shutdown", None)
            c.response(rid)
            c.notify("exit", None)
            c.wait()


def project_context(seam, ch, workdir):
    """The prompt carries the project's other files: a definition in another
    open document, in a module the document imports (read from the
    workspace), and in a document closed lately (read again from its file);
    not with context_files false.  The scripted model writes the call only
    when the definition is in its prompt."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends"))
    from loopback import EOS, LoopbackServer, Script
    root = os.path.join(workdir, "project-context")
    os.makedirs(os.path.join(root, "pkg"), exist_ok=True)
    for rel, text in (("pyproject.toml", ""), ("pkg/__init__.py", ""),
                      ("pkg/paths.py", "def resolve_path(name, base='.'):\n    return base + '/' + name\n")):
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    notes = "def summarize_notes(items, limit=3):\n    return items[:limit]\n"
    app_left = "from pkg.paths import resolve_path\n\n\ndef main(items):\n    x = "
    app = app_left + "\n    return x\n"
    guess = {"": [("None", -0.1)], "None": [(EOS, -0.1)]}

    def knows(call):
        return {"": [(call, -0.1)], call: [(EOS, -0.1)]}
    # (a name another open document defines but the document does not
    # import would be refused by the semantic pruners: the imported one first)
    script = Script(guess, where=[("def resolve_path(name, base='.'):", knows("resolve_path('a')")),
                                  ("def summarize_notes(items, limit=3):", knows("summarize_notes(items)"))])
    for on in (True, False):
        with LoopbackServer(script) as server:
            c = Client(seam)
            rid = c.request("initialize", {
                "processId": os.getpid(), "rootUri": "file://" + root,
                "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                "initializationOptions": {"backend": "llamacpp", "endpoint": server.url, "debounce_ms": 0,
                                          "context_files": on, "decode_ahead": False, "timeout_ms": 10000,
                                          "template": "qwen2.5-coder"}})
            c.response(rid)
            c.notify("initialized", {})
            notes_uri = "file://" + os.path.join(root, "notes.py")
            app_uri = "file://" + os.path.join(root, "app.py")
            open_doc(c, notes_uri, notes)
            open_doc(c, app_uri, app)

            def prompt_of_last():
                bodies = [b for p, b, _ in server.requests if p == "/completion"]
                return server.vocab.detokenize(bodies[-1]["prompt"]) if bodies else ""

            def completion():
                resp = ask_inline(c, app_uri, 4, len("    x = "))
                items = ((resp or {}).get("result") or {}).get("items") or [{}]
                return items[0].get("insertText"), prompt_of_last()

            got, prompt = completion()
            if on:
                ch.check("<|file_sep|>notes.py\n" + notes in prompt and "<|file_sep|>pkg/paths.py\n" in prompt
                         and prompt.index("<|file_sep|>app.py\n<|fim_prefix|>") > prompt.index(notes),
                         "project context: the open document and the imported module before the document: %r"
                         % prompt[:400])
                ch.check(got == "resolve_path('a')", "project context: the model saw the definition: %r" % got)
                # closed (its file saved first): read again from the file
                with open(os.path.join(root, "notes.py"), "w") as f:
                    f.write(notes)
                c.notify("textDocument/didClose", {"textDocument": {"uri": notes_uri}})
                got, prompt = completion()
                ch.check("<|file_sep|>notes.py\n" + notes in prompt,
                         "project context: a document closed lately is still offered: %r" % prompt[:400])
                # the imported module alone, when nothing else is open
                os.remove(os.path.join(root, "notes.py"))
                c.notify("textDocument/didClose", {"textDocument": {"uri": app_uri}})
                open_doc(c, app_uri, app)
                got, prompt = completion()
                ch.check(got == "resolve_path('a')" and "notes.py" not in prompt,
                         "project context: the imported module's definition: %r %r" % (got, prompt[:300]))
            else:
                ch.check(got == "None" and prompt.startswith("<|fim_prefix|>"),
                         "context_files false: nothing but the document: %r %r" % (got, prompt[:200]))
            c.close()


def venv_in_the_server(seam, ch, workdir):
    """The language server finds the workspace's .venv and reads the
    packages installed there: the model's first choice (an attribute an
    installed package lacks) is refused and its second offered.  The same
    package outside any environment the server knows constrains nothing."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends"))
    from loopback import EOS, LoopbackServer, Script
    ws = tempfile.mkdtemp(prefix="ws-venv-", dir=workdir)
    made = subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", os.path.join(ws, ".venv")],
                          capture_output=True, text=True)
    if made.returncode != 0:
        ch.check(False, "python3 -m venv: %s" % made.stderr[-300:])
        return
    site = subprocess.run([os.path.join(ws, ".venv", "bin", "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True).stdout.strip()
    os.makedirs(os.path.join(site, "seamshapes"), exist_ok=True)
    with open(os.path.join(site, "seamshapes", "__init__.py"), "w", encoding="utf-8") as f:
        f.write("def scale(shape, factor=2):\n    return shape\n")
    left = "import seamshapes\n\nresult = "
    steps = {"": [("seamshapes.scael(1)", -0.1), ("seamshapes.scale(1)", -0.5)],
             "seamshapes.scael(1)": [(EOS, -0.1)], "seamshapes.scale(1)": [(EOS, -0.1)]}
    elsewhere = tempfile.mkdtemp(prefix="ws-none-", dir=workdir)
    for root, wanted in ((ws, "seamshapes.scale(1)"), (elsewhere, "seamshapes.scael(1)")):
        with LoopbackServer(Script(steps, left)) as server:
            c = Client(seam, env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
            rid = c.request("initialize", {
                "processId": os.getpid(), "rootUri": "file://" + root,
                "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                "initializationOptions": {"backend": "llamacpp", "endpoint": server.url, "debounce_ms": 0}})
            c.response(rid)
            c.notify("initialized", {})
            uri = "file://" + os.path.join(root, "main.py")
            c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                               "text": left + "\n"}})
            rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                              "position": {"line": 2, "character": 9},
                                                              "context": {"triggerKind": 1}})
            items = ((c.response(rid) or {}).get("result") or {}).get("items") or [{}]
            got = items[0].get("insertText")
            ch.check(got == wanted, "the workspace's %s: %r, not %r" % (
                ".venv read" if root == ws else "packages unknown", wanted, got))
            if root == ws:
                # the package upgraded while the server runs (as pip does:
                # the new files put in place of the old): read again
                fresh = os.path.join(site, "seamshapes.new")
                os.makedirs(fresh)
                with open(os.path.join(fresh, "__init__.py"), "w", encoding="utf-8") as f:
                    f.write("def scael(shape, factor=2):\n    return shape\n")
                shutil.rmtree(os.path.join(site, "seamshapes"))
                os.rename(fresh, os.path.join(site, "seamshapes"))
                time.sleep(1.2)
                rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                                  "position": {"line": 2, "character": 9},
                                                                  "context": {"triggerKind": 1}})
                items = ((c.response(rid) or {}).get("result") or {}).get("items") or [{}]
                got = items[0].get("insertText")
                ch.check(got == "seamshapes.scael(1)",
                         "the package upgraded while seam runs: its new attribute is kept: %r" % got)
            rid = c.request("shutdown", None)
            c.response(rid)
            c.notify("exit", None)
            c.wait()


def settings_change_in_flight(seam, ch, workdir):
    """Editors send didChangeConfiguration whenever any setting changes: a
    change while a completion is in flight (its set-up in the thread pool,
    or its HTTP request waiting for a slow server) must not free what the
    job still uses.  The server answers on, and exits cleanly."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends"))
    from loopback import EOS, LoopbackServer, Script
    left = "import os\n\nresult = "
    steps = {"": [("os.sep", -0.1)], "os.sep": [(EOS, -0.1)]}
    with LoopbackServer(Script(steps, left), fault="slow_first_byte") as server:
        c = Client(seam)
        rid = c.request("initialize", {
            "processId": os.getpid(), "rootUri": None,
            "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
            "initializationOptions": {"backend": "llamacpp", "endpoint": server.url, "debounce_ms": 0,
                                      "timeout_ms": 10000}})
        c.response(rid)
        c.notify("initialized", {})
        uri = "file://" + os.path.join(workdir, "inflight.py")
        open_doc(c, uri, left + "\n")
        params = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 9},
                  "context": {"triggerKind": 1}}
        # In the thread pool: the change comes with the request.
        first = c.request("textDocument/inlineCompletion", params)
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"debounce_ms": 1}}})
        # Waiting for the slow server.
        second = c.request("textDocument/inlineCompletion", params)
        time.sleep(1.0)
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"debounce_ms": 2}}})
        answers = [c.response(first, timeout=20), c.response(second, timeout=20)]
        ch.check(all(a is not None for a in answers), "completions in flight across a settings change are "
                 "answered: %r" % answers)
        server.fault = None
        third = ask_inline(c, uri, 2, 9, timeout=20)
        items = ((third or {}).get("result") or {}).get("items") or [{}]
        ch.check(items[0].get("insertText") == "os.sep", "the server answers after the changes: %r" % third)
        rid = c.request("shutdown", None)
        c.response(rid)
        c.notify("exit", None)
        code, _ = c.wait()
        err = c.proc.stderr.read().decode("utf-8", "replace")
        ch.check(code == 0 and "AddressSanitizer" not in err and "runtime error" not in err,
                 "no crash across settings changes: exit %r %s" % (code, err[-2000:]))


def listen_and_exit(seam, ch):
    """`seam lsp --listen`: a client over TCP, then exit; the process ends
    with the exit code asked for and nothing read after its frame (the
    listening handle once lived on a returned stack frame)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([seam, "lsp", "--listen", "127.0.0.1:%d" % port], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    conn = None
    deadline = time.monotonic() + 10
    while conn is None and time.monotonic() < deadline:
        try:
            conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            time.sleep(0.05)
    if not ch.check(conn is not None, "seam lsp --listen accepts a client"):
        proc.kill()
        proc.wait()
        return
    def send(obj):
        body = json.dumps(obj).encode()
        conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {},
          "initializationOptions": {"train_stdlib": False}}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    got = b""
    conn.settimeout(10)
    try:
        while b'"id":2' not in got.replace(b" ", b""):
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    conn.close()
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    err = err.decode("utf-8", "replace")
    ch.check(b'"id":2' in got.replace(b" ", b""), "shutdown answered over TCP: %r" % got[-300:])
    ch.check(proc.returncode == 0 and "AddressSanitizer" not in err and "runtime error" not in err and not out,
             "seam lsp --listen exits cleanly after exit: %r %s" % (proc.returncode, err[-2000:]))


def non_utf8_from_the_model_server(seam, ch, workdir):
    """A model server whose error body is not UTF-8: what seam writes
    (window/showMessage, seam/status, seam complete --json) stays UTF-8 and
    JSON."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    import threading

    class Broken(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = b'{"error": {"message": "model \xff\xfe exploded \xe2\x82"}}'
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Broken)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d" % httpd.server_address[1]
    try:
        path = os.path.join(workdir, "broken.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write("x = sorted(\n")
        run = subprocess.run([seam, "complete", path + ":1:12", "--json", "--backend", "llamacpp",
                              "--endpoint", url, "--retries", "0"], capture_output=True, timeout=60)
        try:
            out = json.loads(run.stdout.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            out = {"undecodable": repr(e), "stdout": run.stdout[-300:]}
        ch.check("exploded" in out.get("error", ""), "seam complete --json stays UTF-8 JSON: %r" % out)
        c = Client(seam)
        try:
            rid = c.request("initialize", {
                "processId": os.getpid(), "rootUri": None,
                "capabilities": {"general": {"positionEncodings": ["utf-8"]},
                                 "experimental": {"seamStatus": True}},
                "initializationOptions": {"backend": "llamacpp", "endpoint": url, "debounce_ms": 0,
                                          "retries": 0}})
            c.response(rid)
            c.notify("initialized", {})
            uri = "file://" + path
            open_doc(c, uri, "x = sorted(\n")
            answer = ask_inline(c, uri, 0, 11)
            time.sleep(0.5)
            c._read_message(0.5)
            shown = [n for n in c.notifications if n.get("method") == "window/showMessage"]
            ch.check(answer is not None and any("exploded" in n["params"]["message"] for n in shown),
                     "the model server's words reach the editor as UTF-8: %r %r" % (answer, shown))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            ch.check(False, "seam wrote a message that is not UTF-8 JSON: %r" % e)
        finally:
            c.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


def cli_positions(seam, ch, workdir):
    """seam complete FILE:LINE:COL refuses a position that is not two
    numbers from 1 (strtoul once read "-1" as the largest line)."""
    path = os.path.join(workdir, "positions.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("x = 1\n")
    for where in ("-1:1", "1:-1", "+1:1", "0:1", "1:x"):
        run = subprocess.run([seam, "complete", "%s:%s" % (path, where)], capture_output=True, text=True,
                             timeout=30)
        ch.check(run.returncode == 64 and "expected FILE:LINE:COL" in run.stderr and "18446744" not in run.stderr,
                 "seam complete %s: %r %r" % (where, run.returncode, run.stderr))


def client_that_never_reads(seam, ch, workdir):
    """A client that sends and never reads what seam answers: seam keeps at
    most 4 times max_message_bytes of unread replies, then ends the
    session, instead of queueing without bound."""
    home = tempfile.mkdtemp(prefix="never-reads-", dir=workdir)
    os.makedirs(os.path.join(home, "seam"))
    with open(os.path.join(home, "seam", "config.json"), "w") as f:
        json.dump({"max_message_bytes": 4096, "train_stdlib": False}, f)
    proc = subprocess.Popen([seam], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, XDG_CONFIG_HOME=home))
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"processId": None, "capabilities": {}}}]
    messages += [{"jsonrpc": "2.0", "id": 2 + i, "method": "textDocument/completion",
                  "params": {"textDocument": {"uri": "file:///nowhere/%d.py" % i},
                             "position": {"line": 0, "character": 0}}} for i in range(4000)]
    try:
        for m in messages:
            body = json.dumps(m).encode()
            proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()
    except (BrokenPipeError, OSError):
        pass
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
        code = "still running after 30 s"
    err = proc.stderr.read().decode("utf-8", "replace")
    ch.check(code == 1 and "unread" in err, "a client that never reads: the session ends (exit %r): %s"
             % (code, err[-500:]))


def awkward_documents(seam, ch, workdir):
    """Document text an editor may send: a lone surrogate escaped (the
    message once failed to parse and the document was silently not
    tracked), a NUL (the copy was silently cut there), and more documents
    than seam tracks (one pop-up, not one each)."""
    c = Client(seam)
    try:
        init(c)
        uri = "file://" + os.path.join(workdir, "surrogate.py")
        body = ('{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "%s", '
                '"languageId": "python", "version": 1, "text": "s = \'\\ud800\'\\nx = len("}}}' % uri).encode()
        c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        r = ask_inline(c, uri, 1, 8)
        ch.check(r is not None and "result" in r, "a document with a lone surrogate is tracked: %r" % r)
        nul = "file://" + os.path.join(workdir, "nul.py")
        open_doc(c, nul, "x = 1\u0000\ny = 2\n")
        r = ask_inline(c, nul, 1, 5)
        shown = [n["params"]["message"] for n in c.notifications if n.get("method") == "window/showMessage"]
        ch.check(any("NUL" in m for m in shown) and r is not None and "error" in r,
                 "a document with a NUL is refused with a word: %r %r" % (shown, r))
        for i in range(1100):
            c.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///many/%d.py" % i,
                                                               "languageId": "python", "version": 1, "text": "x\n"}})
        rid = c.request("shutdown", None)
        c.response(rid, timeout=30)
        shown = [n["params"]["message"] for n in c.notifications if n.get("method") == "window/showMessage"
                 and "open documents" in n["params"]["message"]]
        ch.check(len(shown) == 1, "past the cap on open documents, one pop-up: %d" % len(shown))
        c.notify("exit", None)
    finally:
        c.close()


def summaries_run_no_module_code(seam, ch, workdir):
    """The attribute pruner learns what standard modules hold without
    running code that acts: venv.__main__ builds a virtual environment in
    the working folder when imported, and reading it must write nothing
    there nor in HOME; `this` prints, `antigravity` opens a browser.  What
    they hold is read from their source only; re's, whose namespace is
    written at run time, is asked of a sandboxed python3."""
    cwd = tempfile.mkdtemp(prefix="no-code-", dir=workdir)
    home = tempfile.mkdtemp(prefix="no-code-home-", dir=workdir)
    cases = [{"id": 1, "left": "import venv.__main__ as m\nx = m.", "middle": "main", "right": "\n",
              "semantic": True},
             {"id": 2, "left": "import this\nx = this.", "middle": "s", "right": "\n", "semantic": True},
             {"id": 3, "left": "import antigravity\nx = antigravity.", "middle": "geohash", "right": "\n",
              "semantic": True},
             {"id": 4, "left": "import venv.__main__ as m\nx = m.", "middle": "x", "right": "\n", "semantic": True},
             {"id": 5, "left": "import re\nx = re.", "middle": "VERBOSE", "right": "\n", "semantic": True},
             {"id": 6, "left": "import re\nx = re.", "middle": "VRBO", "right": "\n", "semantic": True}]
    env = dict(os.environ, HOME=home, SEAM_CACHE_DIR=os.path.join(workdir, "no-code-cache"))
    run = subprocess.run([os.path.abspath(seam), "check"], input="".join(json.dumps(c) + "\n" for c in cases),
                         cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    results = {r["id"]: r for r in map(json.loads, run.stdout.splitlines())}
    known = [results.get(i, {}).get("semantic", {}).get("complete") for i in range(1, 7)]
    ch.check(known == [True, True, True, False, True, False],
             "attributes of modules that act read from their source, re's asked: %r" % results)
    ch.check(os.listdir(cwd) == [], "reading modules wrote nothing in the working folder: %r" % os.listdir(cwd))
    ch.check(os.listdir(home) == [], "nor in HOME: %r" % os.listdir(home))


BLOG_JS = "function foo() {\nlet one = 1;\nlet two = \nlet four = 4;\n}\n"


def node_accepts(text, name="check.js"):
    """Whether Node's own parser accepts text as a file named `name`
    (`node --check` parses, runs nothing)."""
    folder = tempfile.mkdtemp(prefix="node-check-")
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    run = subprocess.run(["node", "--check", path], capture_output=True, text=True, timeout=60)
    return run.returncode == 0


def languages(seam, ch, workdir):
    """A document is read in its own language: a JavaScript one gets a
    completion that keeps it valid (Node's parser says so), in the server,
    from `seam complete` and in `seam check`; one in a language seam does
    not complete is never read as Python: no completion and one line in the
    log; `seam complete` says so.  Python is told by its languageId, its
    name and its #! line, or named with `language`."""
    c = Client(seam)
    try:
        init(c)
        js = "file://" + os.path.join(workdir, "blog.js")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": js, "languageId": "javascript", "version": 1,
                                                           "text": BLOG_JS}})
        r = ask_inline(c, js, 2, 10)
        items = (r or {}).get("result", {}).get("items", [])
        text = items[0].get("insertText", "") if items else ""
        if isinstance(text, dict):
            text = text.get("value", "")
        lines = BLOG_JS.split("\n")
        whole = "\n".join(lines[:2] + [lines[2] + text] + lines[3:])
        ch.check(bool(items) and text.strip() != "" and node_accepts(whole),
                 "a JavaScript document gets a completion that keeps it valid: %r" % r)
        ruby = "file://" + os.path.join(workdir, "blog.rb")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": ruby, "languageId": "ruby", "version": 1,
                                                           "text": "def foo\n  x = \nend\n"}})
        answers = [ask_inline(c, ruby, 1, 6) for _ in range(2)]
        ch.check(all(a is not None and a.get("result") == {"items": []} for a in answers),
                 "a Ruby document: no completion: %r" % answers)
        time.sleep(0.3)
        log = read_stderr_now(c)
        ch.check(log.count("not ruby") == 1, "one line in the log, not one per request: %r" % log[-400:])
        # a Python script with no .py name, opened as plaintext: its #! line tells
        script = "file://" + os.path.join(workdir, "tool")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": script, "languageId": "plaintext", "version": 1,
                                                           "text": "#!/usr/bin/env python3\nimport os\nx = os.\n"}})
        r = ask_inline(c, script, 2, 7)
        ch.check(r is not None and "result" in r and "error" not in r, "a #! python3 script is completed: %r" % r)
        c.notify("exit", None)
    finally:
        c.close()
    # the status says the language and goal of the document last completed
    c = Client(seam)
    try:
        rid = c.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                       "capabilities": {"experimental": {"seamStatus": True}},
                                       "initializationOptions": {"train_stdlib": False, "debounce_ms": 0}})
        c.response(rid)
        c.notify("initialized", {})
        mjs = "file://" + os.path.join(workdir, "blog.mjs")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": mjs, "languageId": "javascript", "version": 1,
                                                           "text": BLOG_JS}})
        c.request("textDocument/inlineCompletion", {"textDocument": {"uri": mjs},
                                                    "position": {"line": 2, "character": 10},
                                                    "context": {"triggerKind": 1}})
        said, deadline = [], time.monotonic() + 30
        while time.monotonic() < deadline and not any(s.get("language") for s in said):
            msg = c._read_message(0.3)
            if msg and msg.get("method") == "seam/status":
                said.append(msg["params"])
        told = [s for s in said if s.get("language")]
        ch.check(told and told[-1].get("language") == "javascript" and told[-1].get("source_type") == "module",
                 "seam/status tells a .mjs document's language and goal: %r" % said)
        c.notify("exit", None)
    finally:
        c.close()
    path = os.path.join(workdir, "blog.js")
    with open(path, "w", encoding="utf-8") as f:
        f.write(BLOG_JS)
    run = subprocess.run([seam, "complete", path + ":3:11", "--json"], capture_output=True, text=True, timeout=60)
    answer = json.loads(run.stdout) if run.returncode == 0 and run.stdout.startswith("{") else {}
    completion = answer.get("completion", "")
    ch.check(answer.get("language") == "javascript" and answer.get("source_type") == "script" and completion.strip()
             and node_accepts(BLOG_JS.replace("let two = ", "let two = " + completion)),
             "seam complete on a .js file keeps it valid: %r %r" % (run.stdout[:300], run.stderr[-300:]))
    ch.check(answer.get("scope", {}).get("kind") == "line" and answer.get("scope", {}).get("max_lines") == 1,
             "a JavaScript line with text before the cursor: the rest of the line: %r" % answer.get("scope"))
    # Python's semantic pruners are not opened for a JavaScript file, nor
    # is a Python version said for it
    ch.check("semantic pruners" not in run.stderr and "python_version" not in answer,
             "a JavaScript completion opens no Python environment: %r %r" % (run.stderr[-300:], sorted(answer)))
    empty = os.path.join(workdir, "empty_line.js")
    with open(empty, "w", encoding="utf-8") as f:
        f.write("function f(items) {\n  \n}\n")
    run = subprocess.run([seam, "complete", empty + ":2:3", "--json", "--max-lines", "4"], capture_output=True,
                         text=True, timeout=60)
    answer = json.loads(run.stdout) if run.returncode == 0 and run.stdout.startswith("{") else {}
    ch.check(answer.get("scope", {}).get("kind") == "block" and answer.get("scope", {}).get("max_lines") == 4,
             "an empty JavaScript line: statements, on up to max_lines: %r %r" % (run.stdout[:300], run.stderr[-300:]))
    rb = os.path.join(workdir, "blog.rb")
    with open(rb, "w", encoding="utf-8") as f:
        f.write("def foo\n  x = \nend\n")
    run = subprocess.run([seam, "complete", rb + ":2:7"], capture_output=True, text=True, timeout=60)
    ch.check(run.returncode == 1 and run.stdout == "" and "not in a language seam completes" in run.stderr,
             "seam complete on a .rb file: %r %r" % (run.returncode, run.stderr))
    run = subprocess.run([seam, "complete", path + ":3:11", "--language", "cobol"], capture_output=True, text=True,
                         timeout=60)
    ch.check(run.returncode == 1 and 'no language "cobol"' in run.stderr, "an unknown --language: %r" % run.stderr)
    run = subprocess.run([seam, "complete", path + ":3:11", "--language", "python", "--train-stdlib", "false",
                          "--json"], capture_output=True, text=True, timeout=60)
    ch.check(run.returncode in (0, 1) and ('"language":"python"' in run.stdout or "cannot start" in run.stderr),
             "--language python reads it as Python: %r %r" % (run.stdout[:200], run.stderr[-200:]))
    cases = [{"id": 1, "language": "javascript", "left": "let two = ", "middle": "2;", "right": "\n"},
             {"id": 2, "language": "python", "left": "x = ", "middle": "2", "right": "\n"},
             {"id": 3, "left": "x = ", "middle": "2", "right": "\n"},
             # a byte-order mark starts the file: skipped, as seam complete and the server skip it
             {"id": 4, "left": "\ufeffx = ", "middle": "2", "right": "\n"},
             {"id": 5, "language": "cobol", "left": "", "middle": "", "right": ""},
             {"id": 6, "language": "javascript", "source_type": "module", "left": "", "middle": "import x from 'y'",
              "right": "\n"},
             {"id": 7, "language": "javascript", "source_type": "script", "left": "", "middle": "import x from 'y'",
              "right": "\n"}]
    run = subprocess.run([seam, "check"], input="".join(json.dumps(x) + "\n" for x in cases), capture_output=True,
                         text=True, timeout=60)
    results = {r["id"]: r for r in map(json.loads, run.stdout.splitlines())}
    ch.check(results.get(1, {}).get("complete") and results.get(2, {}).get("complete")
             and results.get(3, {}).get("complete") and 'no language "cobol"' in results.get(5, {}).get("error", ""),
             "seam check by a case's language: %r" % results)
    ch.check(results.get(6, {}).get("complete") is True and results.get(7, {}).get("complete") is False,
             "seam check by a case's source_type: %r" % results)
    ch.check(results.get(4, {}).get("complete") is True, "seam check skips a byte-order mark: %r" % results.get(4))
    # a JavaScript line typed at the end of a file: nothing past the line
    # binds, and the line is finished only where a statement may end
    head = "const fs = require('fs');\nfor (const name of fs.readdirSync("
    typing = [("root", ")\n", True), ("root +", ")\n", False), ("foo(", "\n", False), ("1", ")\n", True)]
    cases = [{"id": i, "language": "javascript", "typing": True, "left": head if i < 2 else "x = " if i == 2
              else "const o = {\n  a: f(", "middle": m, "right": r} for i, (m, r, _) in enumerate(typing)]
    run = subprocess.run([seam, "check"], input="".join(json.dumps(x) + "\n" for x in cases), capture_output=True,
                         text=True, timeout=60)
    results = {r["id"]: r for r in map(json.loads, run.stdout.splitlines())}
    ch.check([results.get(i, {}).get("complete") for i in range(len(typing))] == [t[2] for t in typing]
             and all(results.get(i, {}).get("binding") == "end" for i in range(len(typing))),
             "JavaScript lines typed at the end of a file: %r" % results)
    # JSON, the third language: a .json file is JSON, strict
    cases = [{"id": 1, "language": "json", "left": '{"deps": ', "middle": '["a", "b"]', "right": "}\n"},
             {"id": 2, "language": "json", "left": '{"deps": ', "middle": '["a", "b",]', "right": "}\n"},
             {"id": 3, "language": "json", "left": '{"name": "se', "middle": "a", "right": 'm"}\n'}]
    run = subprocess.run([seam, "check"], input="".join(json.dumps(x) + "\n" for x in cases), capture_output=True,
                         text=True, timeout=60)
    results = {r["id"]: r for r in map(json.loads, run.stdout.splitlines())}
    ch.check([results.get(i, {}).get("complete") for i in (1, 2, 3)] == [True, False, True],
             "seam check reads JSON strictly, a middle inside a string included: %r" % results)
    manifest = os.path.join(workdir, "package.json")
    with open(manifest, "w", encoding="utf-8") as f:
        f.write('{\n  "name": "demo",\n  "private": \n}\n')
    run = subprocess.run([seam, "complete", manifest + ":3:14", "--json", "--train-stdlib", "false"],
                         capture_output=True, text=True, timeout=60)
    answer = json.loads(run.stdout) if run.returncode == 0 and run.stdout.startswith("{") else {}
    ch.check(answer.get("language") == "json", "seam complete reads a .json file as JSON: %r %r"
             % (run.stdout[:200], run.stderr[-200:]))
    # a .js file holding JSX (React projects write them) is read as JSX:
    # as JavaScript its text before the cursor could not start a program
    app = os.path.join(workdir, "App.js")
    with open(app, "w", encoding="utf-8") as f:
        f.write("import React from 'react';\n\nexport function App(props) {\n"
                "  return <div className=\"app\">{props.n}</div>;\n}\n\nexport const g = (a) => \n")
    run = subprocess.run([seam, "complete", app + ":7:25", "--json", "--train-stdlib", "false"],
                         capture_output=True, text=True, timeout=60)
    answer = json.loads(run.stdout) if run.returncode == 0 and run.stdout.startswith("{") else {}
    ch.check(answer.get("language") == "jsx" and "error" not in answer and answer.get("completion"),
             "seam complete reads a .js file holding JSX as JSX and completes it: %r %r"
             % (run.stdout[:300], run.stderr[-200:]))


def disk_cache(seam, ch, workdir):
    """A second `seam complete` takes the embedded model of the same files
    and Python's answers from the cache folder, and completes the same; a
    damaged model file is trained again, not trusted."""
    folder = tempfile.mkdtemp(prefix="disk-cache-", dir=workdir)
    cache = os.path.join(folder, "cache")
    path = os.path.join(folder, "small.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("import os\nimport re\n\ndef f(path):\n    parts = os.path.split(path)\n    return \n")
    env = dict(os.environ, SEAM_CACHE_DIR=cache)

    def complete():
        run = subprocess.run([seam, "complete", path + ":6:12", "--json", "--log-level", "debug"], env=env,
                             capture_output=True, text=True, timeout=120)
        ok = run.returncode == 0 and run.stdout.startswith("{")
        return (json.loads(run.stdout)["completion"] if ok else None), "from the cache folder" in run.stderr

    first, cached_first = complete()
    second, cached_second = complete()
    ch.check(first is not None and not cached_first and cached_second,
             "the second run takes the model from the cache folder: %r %r" % (cached_first, cached_second))
    ch.check(first == second, "and completes the same: %r %r" % (first, second))
    models = [n for n in os.listdir(cache) if n.startswith("ngram-")]
    answers = [n for n in os.listdir(cache) if n.startswith("python-")]
    ch.check(len(models) == 1 and len(answers) == 1, "one model and one set of answers kept: %r" % os.listdir(cache))
    if models:
        with open(os.path.join(cache, models[0]), "r+b") as f:
            f.seek(5000)
            byte = f.read(1)
            f.seek(5000)
            f.write(bytes([byte[0] ^ 0x10]))
    third, cached_third = complete()
    fourth, cached_fourth = complete()
    ch.check(not cached_third and cached_fourth and third == first,
             "a damaged model is trained again, then kept: %r %r %r" % (cached_third, cached_fourth, third))


def capped_reads(seam, ch, workdir):
    """What one request's recognizer reads is capped (parse_bytes): past
    the cap the answer says so, under it a completion comes; a document
    too large for tree-sitter is still served from the lexical scan."""
    path = os.path.join(workdir, "long_function.py")
    body = "".join("    x%d = f(a, b=%d)\n" % (i, i) for i in range(600))
    with open(path, "w", encoding="utf-8") as f:
        f.write("def f(a, b):\n" + body + "    y = \n")
    where = "%s:%d:9" % (path, 602)
    run = subprocess.run([seam, "complete", where, "--parse-bytes", "4096", "--train-stdlib", "false"],
                         capture_output=True, text=True, timeout=60)
    ch.check(run.returncode == 1 and "over parse_bytes (4096)" in run.stderr,
             "over parse_bytes, seam complete says so: %r %r" % (run.returncode, run.stderr))
    run = subprocess.run([seam, "complete", where, "--train-stdlib", "false"], capture_output=True, text=True,
                         timeout=60)
    ch.check(run.returncode == 0 and run.stdout.strip() != "", "under parse_bytes, a completion: %r %r" %
             (run.returncode, run.stderr))
    c = Client(seam)
    try:
        init(c, {"train_stdlib": False, "debounce_ms": 0, "parse_bytes": 4096})
        uri = "file://" + path
        with open(path, encoding="utf-8") as f:
            open_doc(c, uri, f.read())
        r = ask_inline(c, uri, 601, 8)
        ch.check(r is not None and "parse_bytes" in r.get("error", {}).get("message", ""),
                 "over parse_bytes, the language server says so: %r" % r)
        big = "file://" + os.path.join(workdir, "large.py")
        text = "".join("x%d = %d\n" % (i, i) for i in range(700000)) + "y = len(\n"
        open_doc(c, big, text)
        r = ask_inline(c, big, 700000, 8, timeout=120)
        ch.check(r is not None and "result" in r, "a document over 8 MiB is served: %r" % (r,))
        rid = c.request("shutdown", None)
        c.response(rid, timeout=30)
        c.notify("exit", None)
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--sanitized", action="store_true",
                    help="seam runs under ASan and UBSan, several times slower: latency budgets are longer")
    args = ap.parse_args()
    ch = Checker()
    workdir = tempfile.mkdtemp(prefix="seam-lsp-")
    session(args.seam, ch, workdir)
    oversized(args.seam, ch)
    vanishing_client(args.seam, ch)
    utf16_positions(args.seam, ch, workdir)
    pull_configuration(args.seam, ch)
    waits_for_the_model(args.seam, ch, workdir, args.sanitized)
    progress_while_training(args.seam, ch)
    status_notifications(args.seam, ch, workdir)
    semantic_in_the_server(args.seam, ch, workdir)
    typing_through(args.seam, ch, workdir)
    decoding_ahead(args.seam, ch, workdir)
    project_context(args.seam, ch, workdir)
    venv_in_the_server(args.seam, ch, workdir)
    python_version_of_the_project(args.seam, ch, workdir)
    same_settings_again(args.seam, ch, workdir)
    settings_change_in_flight(args.seam, ch, workdir)
    listen_and_exit(args.seam, ch)
    non_utf8_from_the_model_server(args.seam, ch, workdir)
    cli_positions(args.seam, ch, workdir)
    client_that_never_reads(args.seam, ch, workdir)
    awkward_documents(args.seam, ch, workdir)
    summaries_run_no_module_code(args.seam, ch, workdir)
    disk_cache(args.seam, ch, workdir)
    languages(args.seam, ch, workdir)
    capped_reads(args.seam, ch, workdir)
    print("lsp: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
