"""A loopback model server for seam's tests.

It speaks the APIs seam's HTTP backends use, as their servers document them:
llama.cpp's /infill and /completion (server-sent events with
completion_probabilities), OpenAI's /v1/completions (server-sent events with
logprobs) and Ollama's /api/generate (JSON lines with logprobs).  Its "model"
is a script: for the text generated so far, the candidates best first, each
a (token, logprob) pair; "<eos>" ends.  Generation is greedy, so the first
candidate is the token the model goes on with, as a real server does at
temperature 0.

Like llama.cpp's server it answers /props and /tokenize (unless it plays a
server without them, llamacpp=False), with a vocabulary of its own: the
fill-in-the-middle control strings of two families and the end of text are
tokens, other text is one token per byte, and each scripted token gets an id
the first time it is seen; prompts sent as token ids are read back to text.

Faults are chosen per server (LoopbackServer.fault): refuse to answer with
an HTTP error, stall before the first byte or in the middle of the body,
send a truncated or malformed stream, leave out the candidates, send
fewer or more candidates than asked, or hold text back as llama.cpp's server
does while the text could still become a stop string ("held": every other
token is sent as empty text and its text comes with the next one).
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EOS = "<eos>"

# The text after which a templated prompt holds the generated text.
MIDDLE_MARKS = ["<fim_middle>", "<|fim_middle|>", " <MID>", "[PREFIX]"]


CONTROL = ["<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|fim_prefix|>", "<|fim_suffix|>",
           "<|fim_middle|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<|endoftext|>"]
EOS_TEXT = "<|endoftext|>"


class Vocab:
    """Token ids: control strings 10.., bytes 1000..1255, scripted tokens 5000.."""

    def __init__(self):
        self.words = {}
        self.texts = {}

    def word(self, text):
        if text in CONTROL:
            return 10 + CONTROL.index(text)
        if text not in self.words:
            self.words[text] = 5000 + len(self.words)
            self.texts[self.words[text]] = text
        return self.words[text]

    def tokenize(self, text, parse_special):
        out = []
        i = 0
        while i < len(text):
            hit = next((c for c in CONTROL if parse_special and text.startswith(c, i)), None)
            if hit:
                out.append((10 + CONTROL.index(hit), hit.encode()))
                i += len(hit)
                continue
            for b in text[i].encode():
                out.append((1000 + b, bytes([b])))
            i += 1
        return out

    def detokenize(self, ids):
        data = b""
        for t in ids:
            if 10 <= t < 10 + len(CONTROL):
                data += CONTROL[t - 10].encode()
            elif 1000 <= t < 1256:
                data += bytes([t - 1000])
            elif t in self.texts:
                data += self.texts[t].encode()
        return data.decode("utf-8", "replace")


class Script:
    """candidates(generated) -> [(token, logprob), ...], best first.  With
    `where` ([(text, steps)]), a prompt whose context holds a text gets
    that text's steps instead (the first that matches)."""

    def __init__(self, steps, left="", where=()):
        self.steps = steps
        self.left = left
        self.where = list(where)

    def candidates(self, generated, context=""):
        steps = next((st for text, st in self.where if text in context), self.steps)
        return steps.get(generated, [(EOS, -0.01)])


class LoopbackServer:
    def __init__(self, script, fault=None, llamacpp=True, special=True, n_ctx=4096):
        self.script = script
        self.n_ctx = n_ctx          # the context size /props states
        self.fault = fault
        self.llamacpp = llamacpp
        self.special = special      # False: the end token's text is empty, as llama-server without --special
        self.vocab = Vocab()
        self.requests = []          # (path, body dict, headers dict)
        self.lock = threading.Lock()
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    # ---- the scripted model ----------------------------------------------

    def generate(self, generated, n_predict, n_probs, context=""):
        """Greedy generation: a list of positions (chosen, candidates).
        `context` is the prompt's text around the middle, for scripts that
        read it (Script's `where`)."""
        out = []
        for _ in range(max(1, n_predict)):
            cands = self.script.candidates(generated, context) if getattr(self.script, "where", None) \
                else self.script.candidates(generated)
            chosen = cands[0]
            out.append((chosen, cands[:n_probs] if n_probs else []))
            if chosen[0] == EOS:
                break
            generated += chosen[0]
        return out

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                with server.lock:
                    server.requests.append((self.path, {}, dict(self.headers)))
                if self.path == "/health":
                    self._send_json(200, {"status": "ok"})
                elif server.fault == "http503":
                    self._send_json(503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
                elif self.path == "/props" and server.llamacpp:
                    self._send_json(200, {"default_generation_settings": {"n_ctx": server.n_ctx},
                                          "bos_token": "", "eos_token": EOS_TEXT})
                else:
                    self._send_json(404, {"error": {"code": 404, "message": "File Not Found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append((self.path, body, dict(self.headers)))
                fault = server.fault
                if fault == "http500":
                    self._send_json(500, {"error": {"code": 500, "message": "model exploded", "type": "server_error"}})
                    return
                if fault == "http503":
                    self._send_json(503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
                    return
                if fault == "slow_first_byte":
                    time.sleep(3)
                if fault == "slow_generation" and self.path in ("/infill", "/completion", "/v1/completions"):
                    time.sleep(1)
                if self.path == "/tokenize" and server.llamacpp:
                    self._tokenize(body)
                elif self.path in ("/infill", "/completion"):
                    self._llamacpp(body)
                elif self.path == "/v1/completions":
                    self._openai(body)
                elif self.path == "/api/generate":
                    self._ollama(body)
                else:
                    self._send_json(404, {"error": "not found"})

            # ---- helpers ----------------------------------------------------

            def _send_json(self, code, obj):
                data = json.dumps(obj).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _start_stream(self, content_type):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

            def _write(self, data):
                try:
                    self.wfile.write(data)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    raise _Gone()

            def _events(self, events, framing):
                """Writes events (dicts) with the fault applied."""
                fault = server.fault
                try:
                    for i, ev in enumerate(events):
                        line = json.dumps(ev)
                        if fault == "malformed" and i == 1:
                            line = line[: len(line) // 2] + "}{"
                        frame = ("data: " + line + "\n\n") if framing == "sse" else (line + "\n")
                        if fault == "truncated" and i == 1:
                            self._write(frame[: len(frame) // 2].encode())
                            return
                        if fault == "slow_body" and i == 1:
                            time.sleep(3)
                        self._write(frame.encode())
                    if framing == "sse" and fault != "no_done":
                        self._write(b"data: [DONE]\n\n")
                except _Gone:
                    return

            def _tokenize(self, body):
                content = body.get("content", "")
                special = body.get("parse_special", True)
                if isinstance(content, list):
                    # llama.cpp's mixed prompts: ids as they are, each text tokenized alone
                    toks = []
                    for part in content:
                        if isinstance(part, int):
                            toks.append((part, server.vocab.detokenize([part]).encode()))
                        else:
                            toks += server.vocab.tokenize(part, special)
                else:
                    toks = server.vocab.tokenize(content, special)
                if body.get("with_pieces"):
                    def piece(b):
                        try:
                            return b.decode("utf-8")
                        except UnicodeDecodeError:
                            return list(b)
                    self._send_json(200, {"tokens": [{"id": t, "piece": piece(b)} for t, b in toks]})
                else:
                    self._send_json(200, {"tokens": [t for t, _ in toks]})

            @staticmethod
            def _generated(prompt):
                return Handler._split(prompt)[1]

            @staticmethod
            def _split(prompt):
                """(the context before the middle, the middle generated)"""
                if isinstance(prompt, list):
                    prompt = server.vocab.detokenize(prompt)
                cut = max((prompt.rfind(m) + len(m) if prompt.rfind(m) >= 0 else -1) for m in MIDDLE_MARKS)
                if cut >= 0:
                    return prompt[:cut], prompt[cut:]
                return prompt[:len(server.script.left)], prompt[len(server.script.left):]

            def _n_probs(self, asked):
                if server.fault == "no_probs":
                    return 0
                if server.fault == "fewer_probs":
                    return 1
                if server.fault == "more_probs":
                    return asked + 5
                return asked

            # ---- llama.cpp ----------------------------------------------------

            def _llamacpp(self, body):
                if self.path == "/infill":
                    generated = body.get("prompt", "")
                    extra = "".join(str(c.get("filename", "")) + "\n" + str(c.get("text", ""))
                                    for c in body.get("input_extra", []) if isinstance(c, dict))
                    context = extra + str(body.get("input_prefix", "")) + str(body.get("input_suffix", ""))
                else:
                    context, generated = self._split(body.get("prompt", ""))
                n = self._n_probs(int(body.get("n_probs", 0)))
                positions = server.generate(generated, int(body.get("n_predict", 16)), n, context)
                events = []
                stop_type = "limit"
                for chosen, cands in positions:
                    if chosen[0] == EOS:
                        stop_type = "eos"
                        break
                    ev = {"content": chosen[0], "stop": False}
                    if n:
                        word = server.vocab.word
                        eos_text = EOS_TEXT if server.special else ""
                        ev["completion_probabilities"] = [{
                            "id": word(chosen[0]), "token": chosen[0], "bytes": list(chosen[0].encode()),
                            "logprob": chosen[1],
                            "top_logprobs": [
                                {"id": word(t if t != EOS else EOS_TEXT), "token": t if t != EOS else eos_text,
                                 "bytes": list((t if t != EOS else eos_text).encode()), "logprob": lp}
                                for t, lp in cands],
                        }]
                    events.append(ev)
                if server.fault == "held" and n:
                    self._hold(events, stop_type == "eos")
                final = {"content": "", "stop": True, "stop_type": stop_type, "tokens_predicted": len(events)}
                if server.fault == "probs_recap":
                    # some servers repeat every position's probabilities at the end
                    final["completion_probabilities"] = [p for e in events for p in e.get("completion_probabilities", [])]
                events.append(final)
                if not body.get("stream"):
                    content = "".join(e["content"] for e in events)
                    probs = [p for e in events for p in e.get("completion_probabilities", [])]
                    self._send_json(200, {"content": content, "stop": True, "stop_type": stop_type,
                                          "completion_probabilities": probs})
                    return
                self._start_stream("text/event-stream")
                self._events(events, "sse")

            @staticmethod
            def _hold(events, eos):
                """Every other token's text comes with the next token; the
                end token carries what is still held, as llama.cpp does."""
                held = b""
                for i, ev in enumerate(events):
                    p = ev["completion_probabilities"][0]
                    own = bytes(p["bytes"])
                    if not held and i % 2 == 0:
                        held = own
                        p["token"], p["bytes"], ev["content"] = "", [], ""
                    else:
                        text = held + own
                        held = b""
                        p["token"], p["bytes"], ev["content"] = text.decode(), list(text), text.decode()
                if held and eos:
                    eos_id = server.vocab.word(EOS_TEXT)
                    events.append({"content": held.decode(), "stop": False, "completion_probabilities": [{
                        "id": eos_id, "token": held.decode(), "bytes": list(held), "logprob": -0.01,
                        "top_logprobs": [{"id": eos_id, "token": "", "bytes": [], "logprob": -0.01}]}]})

            # ---- OpenAI ---------------------------------------------------------

            def _openai(self, body):
                context, generated = self._split(body.get("prompt", ""))
                n = self._n_probs(int(body.get("logprobs") or 0))
                positions = server.generate(generated, int(body.get("max_tokens", 16)), n, context)
                events = []
                finish = "length"
                for chosen, cands in positions:
                    if chosen[0] == EOS:
                        finish = "stop"
                        break
                    choice = {"index": 0, "text": chosen[0], "finish_reason": None, "logprobs": None}
                    if n:
                        choice["logprobs"] = {
                            "tokens": [chosen[0]], "token_logprobs": [chosen[1]], "text_offset": [0],
                            "top_logprobs": [{(t if t != EOS else "<|endoftext|>"): lp for t, lp in cands}],
                        }
                    events.append({"id": "cmpl-1", "object": "text_completion", "model": body.get("model"),
                                   "choices": [choice]})
                events.append({"id": "cmpl-1", "object": "text_completion", "model": body.get("model"),
                               "choices": [{"index": 0, "text": "", "logprobs": None, "finish_reason": finish}]})
                self._start_stream("text/event-stream")
                self._events(events, "sse")

            # ---- Ollama ---------------------------------------------------------

            def _ollama(self, body):
                if body.get("suffix") is not None and server.fault == "no_insert":
                    self._send_json(400, {"error": "registry.ollama.ai/library/llama3:latest does not support insert"})
                    return
                if body.get("raw"):
                    context, generated = self._split(body.get("prompt", ""))
                else:
                    context = body.get("prompt", "") + str(body.get("suffix", ""))
                    generated = body.get("prompt", "")[len(server.script.left):]
                n = self._n_probs(int(body.get("top_logprobs") or 0) if body.get("logprobs") else 0)
                opts = body.get("options", {})
                positions = server.generate(generated, int(opts.get("num_predict", 16)), n, context)
                events = []
                reason = "length"
                for chosen, cands in positions:
                    if chosen[0] == EOS:
                        reason = "stop"
                        break
                    ev = {"model": body.get("model"), "created_at": "2026-01-01T00:00:00Z",
                          "response": chosen[0], "done": False}
                    if n:
                        ev["logprobs"] = [{
                            "token": chosen[0], "logprob": chosen[1], "bytes": list(chosen[0].encode()),
                            "top_logprobs": [
                                {"token": t if t != EOS else "<|endoftext|>", "logprob": lp,
                                 "bytes": list((t if t != EOS else "<|endoftext|>").encode())}
                                for t, lp in cands],
                        }]
                    events.append(ev)
                events.append({"model": body.get("model"), "created_at": "2026-01-01T00:00:00Z", "response": "",
                               "done": True, "done_reason": reason, "eval_count": len(events)})
                self._start_stream("application/x-ndjson")
                self._events(events, "ndjson")

        return Handler


class _Gone(Exception):
    pass
