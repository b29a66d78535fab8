"""seam's `llama` backend: a GGUF model in seam's own process (libllama),
through `seam complete` and the language server.

    SEAM_LLAMA_DIR=... SEAM_TEST_MODELS=... python3 tests/backends/inproc_check.py --seam build/debug/seam

With the tiny models of tests/models/make_models.py, it must give:
- the scripted model's exact output, ended where the model ends it, for the
  starcoder and qwen2 vocabularies;
- past an invalid first choice, the model's best valid token, also when the
  model offers a single candidate (the full-vocabulary mask finds it);
- a character split over one-byte tokens;
- special-token strings in the user's file evaluated as text (the prompt's
  length against llama-server's own tokenizer);
- completions valid for CPython on real holes with random weights;
- with the semantic pruners, completions from the whole vocabulary (greedy
  and sampled) that the pruners accept;
- clear errors for a missing file, a file that is not GGUF, a truncated
  model and a vocabulary without fill-in-the-middle tokens;
- in the language server: a completion, a bad model path refused while the
  previous settings keep serving, and requests cancelled by newer ones
  while a decode runs, every one answered;
- each document's KV cache kept: back in a document, only new tokens are
  evaluated; a settings change keeps the model loaded.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lsp"))
from harness import Checker, sound, valid  # noqa: E402
from llama_check import COMPARE, DETOUR, holes, model, tokenize  # noqa: E402
from llama_server import LlamaServer, cache_dirs  # noqa: E402
from lsp_check import Client, init  # noqa: E402


class InprocChecker(Checker):
    def complete(self, left, right, settings, budget_ms=30000):
        run, out, _ = super().complete(self.write_case(left, right), ["--timeout-ms", str(budget_ms)] + settings,
                                       timeout=budget_ms / 1000 + 90)
        return run, out


def local(path, *more):
    return ["--backend", "llama", "--model-path", path] + list(more)


def check_scripted(ch, models):
    for vocab in ("starcoder", "qwen2"):
        run, out = ch.complete(*COMPARE, local(model(models, "scripted-compare-%s.gguf" % vocab)))
        if not ch.check(out is not None and run.returncode == 0, "scripted %s: %r" % (vocab, run.stderr)):
            continue
        ch.check(out["completion"] == " a < b" and out["stop"] == "eos" and out["backend"] == "llama",
                 "scripted %s: %r ended by %s" % (vocab, out["completion"], out["stop"]))
        ch.check(valid(COMPARE[0] + out["completion"] + COMPARE[1]), "scripted %s: invalid" % vocab)
        # Memory: the weights are most of the file; the vocabulary's bytes
        # and trie and the KV cache are counted.
        mem = out.get("memory_bytes", {})
        size = os.path.getsize(model(models, "scripted-compare-%s.gguf" % vocab))
        ch.check(size // 2 <= mem.get("weights", 0) <= size and mem.get("vocabulary", 0) > 400000 and
                 mem.get("kv_cache", 0) > 0 and mem.get("context_tokens", 0) >= 512,
                 "scripted %s: memory %r for a file of %d bytes" % (vocab, mem, size))


def check_detour(ch, models):
    """The model's first choice (`]`) is invalid: with ten candidates the
    second is taken; with one, the mask of the whole vocabulary finds it."""
    for vocab in ("starcoder", "qwen2"):
        for candidates in ("10", "1"):
            what = "detour %s, %s candidate(s)" % (vocab, candidates)
            run, out = ch.complete(*DETOUR, local(model(models, "scripted-detour-%s.gguf" % vocab),
                                                  "--candidates", candidates))
            if not ch.check(out is not None, "%s: %r" % (what, run.stderr)):
                continue
            ch.check(out["completion"] == "values)" and out["stop"] == "eos" and out["rejected"] >= 1,
                     "%s: %r (%s, rejected %d)" % (what, out["completion"], out["stop"], out["rejected"]))
            ch.check((out["vocabulary_masks"] >= 1) == (candidates == "1"),
                     "%s: the vocabulary masked %d times" % (what, out["vocabulary_masks"]))


def check_utf8(ch, models):
    left, right = 'DASH = "', '"\n'
    for vocab in ("starcoder", "qwen2"):
        run, out = ch.complete(left, right, local(model(models, "scripted-utf8-%s.gguf" % vocab)))
        if ch.check(out is not None, "utf8 %s: %r" % (vocab, run.stderr)):
            ch.check(out["completion"] == "\u2014" and out["stop"] == "eos",
                     "utf8 %s: %r ended by %s" % (vocab, out["completion"], out["stop"]))


def check_special_text(ch, llama, models):
    left = 'MARKS = ["<|endoftext|>", "<|fim_middle|>", "<|fim_prefix|>"]\n\n\n' + COMPARE[0]
    right = COMPARE[1]
    path = model(models, "scripted-compare-qwen2.gguf")
    with LlamaServer(llama, path) as srv:
        as_text = len(tokenize(srv.url, left, False)) + len(tokenize(srv.url, right, False))
        as_special = len(tokenize(srv.url, left, True)) + len(tokenize(srv.url, right, True))
    run, out = ch.complete(left, right, local(path))
    if not ch.check(out is not None, "special text: %r" % run.stderr):
        return
    ch.check(out["completion"] == " a < b", "special text: %r" % out["completion"])
    # The first request evaluates the whole prompt: the text's tokens and
    # three control tokens; the later ones only what they add.
    first = out.get("prompt_tokens_evaluated", 0) - (out["round_trips"] - 1)
    ch.check(as_special < as_text and first == as_text + 3,
             "special text: %r prompt tokens evaluated in %d requests, %d as text, %d as special" %
             (out.get("prompt_tokens_evaluated"), out["round_trips"], as_text, as_special))


def check_random(ch, models, count):
    cases = holes(count, 23)
    for vocab in ("starcoder", "qwen2"):
        found = 0
        for left, right in cases:
            run, out = ch.complete(left, right, local(model(models, "random-%s.gguf" % vocab), "--max-tokens", "16"))
            ok = out is not None and "error" not in out and run.returncode == 0
            ch.check(ok, "random %s: %r %r" % (vocab, out, run.stderr[-300:]))
            if ok and out["found"]:
                found += 1
                ch.check(sound(out, left, right),
                         "random %s: %r does not parse" % (vocab, out["completion"]))
        ch.check(found >= 1, "random %s: no completion in %d holes" % (vocab, len(cases)))


def check_every_step(ch, models, count):
    """Greedy with the mask at every position gives the lazy path's
    completion (candidates first, the mask only where none is allowed)."""
    run, out = ch.complete(*DETOUR, local(model(models, "scripted-detour-qwen2.gguf"), "--mask_every_step", "true"))
    if ch.check(out is not None, "every step, detour: %r" % run.stderr):
        ch.check(out["completion"] == "values)" and out["rejected"] == 0 and
                 out["vocabulary_masks"] >= out["tokens_generated"] + 1,
                 "every step, detour: %r, rejected %d, %d masks for %d tokens" %
                 (out["completion"], out["rejected"], out["vocabulary_masks"], out["tokens_generated"]))
    # Random weights: valid completions, a mask at every position (one
    # position per round trip).  The completions themselves may differ from
    # the lazy path's where the loop backtracks: there the lazy path has only
    # the candidates left to try (test_model_mask.c checks that the first
    # choice is the same token).
    path = model(models, "random-qwen2.gguf")
    for left, right in holes(count, 29):
        run, out = ch.complete(left, right, local(path, "--max-tokens", "12", "--mask_every_step", "true"))
        if not ch.check(out is not None and run.returncode == 0, "every step: %r" % run.stderr[-300:]):
            continue
        ch.check(out["vocabulary_masks"] >= out["round_trips"] - 1 and out["rejected"] == out["rejected_past_lines"],
                 "every step: %d masks in %d round trips, %d refused (%d past the line budget)" %
                 (out["vocabulary_masks"], out["round_trips"], out["rejected"], out["rejected_past_lines"]))
        if out["found"]:
            ch.check(sound(out, left, right), "every step: %r does not parse" % out["completion"])


def check_sampling(ch, models, count):
    """Sampling draws from the distribution restricted to the tokens that
    keep the middle valid: with random weights nearly every token of the
    vocabulary is likely, and still no draw is refused."""
    path = model(models, "random-qwen2.gguf")
    cases = holes(count, 31)
    differ = 0
    for left, right in cases:
        outs = []
        for seed in ("5", "5", "6"):
            # (a budget no run reaches: a draw the clock cut short would differ
            # from the same seed's uncut one; a widened middle of the random
            # model takes up to 270 masks, some 15 s under ASan)
            run, out = ch.complete(left, right, local(path, "--max-tokens", "12", "--temperature", "1.0",
                                                      "--top_p", "0.95", "--seed", seed), budget_ms=300000)
            if not ch.check(out is not None and run.returncode == 0 and out["stop"] != "time",
                            "sampling: %r" % (out["stop"] if out else run.stderr[-300:])):
                break
            outs.append(out)
            # (the mask does not know the line budget: a draw may be refused
            # for going past it, never by the recognizer)
            ch.check(out["rejected"] == out["rejected_past_lines"] and out["vocabulary_masks"] >= out["round_trips"] - 1,
                     "sampling: %d draws refused (%d past the line budget), %d masks in %d round trips" %
                     (out["rejected"], out["rejected_past_lines"], out["vocabulary_masks"], out["round_trips"]))
            if out["found"]:
                ch.check(sound(out, left, right), "sampling: %r does not parse" % out["completion"])
        if len(outs) == 3:
            ch.check(outs[0]["completion"] == outs[1]["completion"],
                     "sampling: the same seed gave %r and %r" % (outs[0]["completion"], outs[1]["completion"]))
            differ += outs[0]["completion"] != outs[2]["completion"]
    ch.check(differ >= 1, "sampling: seeds 5 and 6 gave the same completions in all %d holes" % len(cases))
    # At a low temperature the draw is the masked distribution's mode: the
    # scripted model's detour, as greedy finds it.
    run, out = ch.complete(*DETOUR, local(model(models, "scripted-detour-qwen2.gguf"), "--temperature", "0.05"))
    if ch.check(out is not None, "sampling, detour: %r" % run.stderr):
        ch.check(out["completion"] == "values)" and out["rejected"] == 0,
                 "sampling, detour: %r, rejected %d" % (out["completion"], out["rejected"]))


def check_found_model(ch, models):
    """Without a backend chosen, a model found on the machine is used in
    process: $SEAM_MODEL, else the first *.gguf in $XDG_CACHE_HOME/seam/models/;
    one that does not load leaves the embedded model, with a warning."""
    cache = os.path.join(ch.dir, "cache")
    os.makedirs(os.path.join(cache, "seam", "models"), exist_ok=True)
    shutil.copy(model(models, "scripted-compare-qwen2.gguf"), os.path.join(cache, "seam", "models", "a.gguf"))
    shutil.copy(model(models, "scripted-detour-qwen2.gguf"), os.path.join(cache, "seam", "models", "b.gguf"))
    where = ch.write_case(*COMPARE)
    base = {k: v for k, v in os.environ.items() if k != "SEAM_MODEL"}

    def ask(what, env, settings=()):
        run, out, _ = Checker.complete(ch, where, ["--timeout-ms", "30000"] + list(settings), timeout=120,
                                       env=dict(base, **env))
        ch.check(out is not None and run.returncode == 0, "%s: %r" % (what, run.stderr[-300:]))
        return run, out or {}

    _, out = ask("the models folder", {"XDG_CACHE_HOME": cache})
    ch.check(out.get("backend") == "llama" and out.get("completion") == " a < b",
             "the models folder: %s %r" % (out.get("backend"), out.get("completion")))
    _, out = ask("$SEAM_MODEL", {"XDG_CACHE_HOME": cache, "SEAM_MODEL": model(models, "random-qwen2.gguf")})
    ch.check(out.get("backend") == "llama" and out.get("completion") != " a < b",
             "$SEAM_MODEL comes first: %s %r" % (out.get("backend"), out.get("completion")))
    run, out = ask("a model that does not load", {"XDG_CACHE_HOME": cache, "SEAM_MODEL": os.path.join(ch.dir, "no.gguf")})
    ch.check(out.get("backend") == "embedded" and "was not used" in run.stderr,
             "a model that does not load: %s, %r" % (out.get("backend"), run.stderr[-200:]))
    # one that looks like a model and that libllama refuses, off the loop
    broken = os.path.join(ch.dir, "broken-found.gguf")
    with open(model(models, "random-qwen2.gguf"), "rb") as f:
        head = f.read(4096)
    with open(broken, "wb") as f:
        f.write(head)
    run, out = ask("a model that libllama refuses", {"XDG_CACHE_HOME": cache, "SEAM_MODEL": broken})
    ch.check(out.get("backend") == "embedded" and "was not used" in run.stderr and out.get("completion"),
             "a model libllama refuses: the embedded model serves: %s %r, %r" %
             (out.get("backend"), out.get("completion"), run.stderr[-200:]))
    _, out = ask("backend chosen", {"XDG_CACHE_HOME": cache}, ["--backend", "embedded"])
    ch.check(out.get("backend") == "embedded", "the embedded backend chosen: %s" % out.get("backend"))
    _, out = ask("nothing found", {"XDG_CACHE_HOME": os.path.join(ch.dir, "empty")})
    ch.check(out.get("backend") == "embedded", "no model found: %s" % out.get("backend"))


def check_bad_files(ch, models):
    truncated = os.path.join(ch.dir, "truncated.gguf")
    with open(model(models, "random-qwen2.gguf"), "rb") as f:
        head = f.read(4096)
    with open(truncated, "wb") as f:
        f.write(head)
    text = os.path.join(ch.dir, "notes.gguf")
    with open(text, "w") as f:
        f.write("not a model\n")
    fifo = os.path.join(ch.dir, "fifo.gguf")   # opening it would wait for a writer
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    folder = os.path.join(ch.dir, "folder.gguf")
    os.makedirs(folder, exist_ok=True)
    expect = [
        (local(fifo), "is not a regular file"),
        (local(folder), "is a directory"),
        (local(os.path.join(ch.dir, "missing.gguf")), "cannot open the model file"),
        (local(text), "is not a GGUF model file"),
        (local(truncated), "could not be loaded"),
        (local(model(models, "random-qwen2-nofim.gguf")), "no fill-in-the-middle tokens"),
        (local(model(models, "random-qwen2-nofim.gguf"), "--template", "qwen2.5-coder"), "does not fit"),
        (["--backend", "llama"], "needs model_path"),
    ]
    for settings, message in expect:
        run, out = ch.complete(*COMPARE, settings)
        ch.check(run.returncode == 1 and message in run.stderr and run.returncode != -11 and not run.stdout,
                 "%s: exit %d, %r" % (settings[-1], run.returncode, run.stderr))


def check_documents(ch, models):
    """Each document keeps its KV cache: back in a document after another,
    only the new tokens are evaluated; with one cached document the whole
    prompt is evaluated again.  A settings change keeps the model loaded."""
    docs = holes(2, 23)
    evaluated = {}
    for slots in (4, 1):
        log = os.path.join(ch.dir, "documents-%d.log" % slots)
        c = Client(ch.seam)
        try:
            init(c, {"backend": "llama", "model_path": model(models, "random-qwen2.gguf"), "debounce_ms": 0,
                     "timeout_ms": 30000, "max_tokens": 3, "cached_documents": slots, "log_file": log,
                     "log_level": "debug"})
            uris = []
            for i, (left, right) in enumerate(docs):
                uris.append("file://" + os.path.join(ch.dir, "doc%d.py" % i))
                c.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uris[-1], "languageId": "python", "version": 1, "text": left + right}})

            def ask(i):
                left = docs[i][0]
                rid = c.request("textDocument/inlineCompletion", {
                    "textDocument": {"uri": uris[i]},
                    "position": {"line": left.count("\n"), "character": len(left.rsplit("\n", 1)[-1].encode())},
                    "context": {"triggerKind": 1}})
                return c.response(rid, timeout=60)

            answers = [ask(i) for i in (0, 1, 0, 1)]
            ch.check(all(a is not None and "result" in a for a in answers), "documents: %r" % answers)
            if slots == 4:
                c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"max_tokens": 2}}})
                ch.check(ask(0) is not None, "documents: served after a settings change")
        finally:
            c.close()
        with open(log, encoding="utf-8") as f:
            text = f.read()
        evaluated[slots] = [(int(m.group(1)), int(m.group(2))) for m in
                            re.finditer(r"(\d+) round trips, (\d+) prompt tokens evaluated", text)]
        if slots == 4:
            ch.check(re.search(r"model \S+ stays loaded\n.*model \S+: weights", text) is not None,
                     "a settings change keeps the model loaded and makes a new context: %s" %
                     [line for line in text.splitlines() if "model" in line][:4])
    kept, lost = evaluated[4], evaluated[1]
    if not ch.check(len(kept) >= 4 and len(lost) == 4, "documents: evaluations logged %r %r" % (kept, lost)):
        return
    # (round trips, tokens): the first visit evaluates the whole prompt, the
    # return only what the cache lacks (a token a round trip).
    ch.check(kept[0][1] > 100 and kept[1][1] > 100 and kept[2][1] <= kept[2][0] + 1 and
             kept[3][1] <= kept[3][0] + 1, "four cached documents: back in a document, only new tokens: %r" % kept)
    ch.check(lost[2][1] > lost[0][1] // 2 and lost[3][1] > lost[1][1] // 2,
             "one cached document: the return evaluates the prompt again: %r" % lost)
    # After the settings change the new context starts empty.
    if len(kept) >= 5:
        ch.check(kept[4][1] > 100, "a new context evaluates the prompt: %r" % kept)


def ask_inline_at(c, uri, text):
    """An explicit inline completion at the end of `text` in uri; its id."""
    line = text.count("\n")
    col = len(text.rsplit("\n", 1)[-1])
    return c.request("textDocument/inlineCompletion", {
        "textDocument": {"uri": uri}, "position": {"line": line, "character": col},
        "context": {"triggerKind": 1}})


def first_item(resp):
    """The first inline completion's text in a response, or None."""
    items = (resp or {}).get("result") or {}
    items = items.get("items", items) if isinstance(items, dict) else items
    return items[0]["insertText"] if items else None


def check_lsp(ch, models):
    c = Client(ch.seam)
    try:
        uri = "file://" + os.path.join(ch.dir, "lsp.py")
        good = model(models, "scripted-compare-qwen2.gguf")
        init(c, {"backend": "llama", "model_path": good, "debounce_ms": 0, "timeout_ms": 30000})
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": COMPARE[0] + COMPARE[1]}})

        def ask():
            return ask_inline_at(c, uri, COMPARE[0])

        resp = c.response(ask(), timeout=60)
        ch.check(first_item(resp) == " a < b", "language server, llama backend: %r" % resp)
        # A model path that cannot be loaded: told, and the model in use stays.
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {
            "model_path": os.path.join(ch.dir, "missing.gguf")}}})
        resp = c.response(ask(), timeout=60)
        ch.check(first_item(resp) == " a < b", "a bad model path keeps the previous model: %r" % resp)
        ch.check(any(n.get("method") == "window/showMessage" and "cannot open the model file" in
                     n["params"]["message"] for n in c.notifications), "a bad model path is shown to the user")
        # A random model decodes for a while: newer requests cancel older ones.
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {
            "model_path": model(models, "random-starcoder.gguf"), "max_tokens": 64}}})
        ids = [ask() for _ in range(12)]
        answers = [c.response(i, timeout=120) for i in ids]
        cancelled = sum(1 for a in answers if a and a.get("error", {}).get("code") == -32800)
        ch.check(all(a is not None for a in answers) and "result" in answers[-1],
                 "every request answered, the last with a result: %r" % answers[-1:])
        ch.check(cancelled >= 1, "older requests cancelled by newer ones: %d of %d" % (cancelled, len(ids)))
        resp = c.response(ask(), timeout=120)
        ch.check(resp is not None and "result" in resp, "served after the cancellations: %r" % resp)
    finally:
        c.close()


def check_loading(ch, models):
    """The model loads off the loop: the language server says "loading",
    answers a completion asked meanwhile once the model is there, then
    says "ready"; a new model that does not load leaves the one in use
    serving, with a word to the user."""
    c = Client(ch.seam)
    try:
        uri = "file://" + os.path.join(ch.dir, "loading.py")
        rid = c.request("initialize", {
            "processId": os.getpid(), "rootUri": None, "capabilities": {"experimental": {"seamStatus": True}},
            "initializationOptions": {"backend": "llama", "debounce_ms": 0, "timeout_ms": 30000,
                                      "model_path": model(models, "scripted-compare-qwen2.gguf")}})
        c.response(rid, timeout=60)
        c.notify("initialized", {})
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": COMPARE[0] + COMPARE[1]}})

        def ask():
            return ask_inline_at(c, uri, COMPARE[0])

        def states():
            return [n["params"]["state"] for n in c.notifications if n.get("method") == "seam/status"]

        resp = c.response(ask(), timeout=60)
        ch.check(first_item(resp) == " a < b", "a completion asked while the model loads: %r" % resp)
        ch.check(states()[:1] == ["loading"], "the status says the model is loading first: %r" % states())
        deadline = time.monotonic() + 30
        while "ready" not in states() and time.monotonic() < deadline:
            c.response(-1, timeout=0.5)
        ch.check("ready" in states() and states().index("ready") > 0, "then ready: %r" % states())
        truncated = os.path.join(ch.dir, "truncated-lsp.gguf")
        with open(model(models, "random-qwen2.gguf"), "rb") as f:
            head = f.read(4096)
        with open(truncated, "wb") as f:
            f.write(head)
        c.notifications.clear()
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": {"model_path": truncated}}})
        deadline = time.monotonic() + 30
        shown = []
        while not shown and time.monotonic() < deadline:
            c.response(-1, timeout=0.5)
            shown = [n["params"]["message"] for n in c.notifications if n.get("method") == "window/showMessage"]
        ch.check(shown and "could not be loaded" in shown[0] and "previous settings stay" in shown[0],
                 "a model that does not load is shown, and the previous one stays: %r" % shown)
        resp = c.response(ask(), timeout=60)
        ch.check(first_item(resp) == " a < b", "the model in use still serves: %r" % resp)
    finally:
        c.close()


def pruners_accept(seam, left, middle, right, partial=False):
    """Whether the semantic pruners, asked through `seam check`, accept the
    whole middle (a partial one: every byte of it, as a middle that goes
    on)."""
    case = json.dumps({"id": 0, "left": left, "middle": middle, "right": right, "semantic": True})
    run = subprocess.run([seam, "check"], input=case + "\n", capture_output=True, text=True, timeout=60)
    try:
        semantic = json.loads(run.stdout)["semantic"]
        return semantic["accepted"] >= len(middle.encode("utf-8")) if partial else semantic["complete"]
    except (ValueError, KeyError):
        return False


def check_semantic(ch, models, count):
    """The semantic pruners on the whole vocabulary: with random weights
    nearly any name is likely, and every completion still passes the
    pruners (greedy with the mask at every step, and sampling); the mask's
    choices are put to them, so the loop rarely has to refuse a token it
    took from the mask."""
    path = model(models, "random-qwen2.gguf")
    refused = checked = 0
    for mode in (["--mask_every_step", "true"], ["--temperature", "1.0", "--seed", "3"]):
        for left, right in holes(count, 37):
            run, out = ch.complete(left, right, local(path, "--max-tokens", "12", "--semantic", "true", *mode))
            if not ch.check(out is not None and run.returncode == 0, "semantic %s: %r" % (mode, run.stderr[-300:])):
                continue
            ch.check("semantic_refused" in out, "semantic %s: no pruner counts" % mode)
            refused += out["rejected"] - out["rejected_past_lines"]
            if out["found"]:
                checked += 1
                ch.check(sound(out, left, right), "semantic: %r does not parse" % out["completion"])
                ch.check(pruners_accept(ch.seam, left, out["completion"], right, out["partial"]),
                         "semantic %s: the pruners refuse %r" % (mode, out["completion"]))
    ch.check(checked >= 1, "semantic: no completion to check")
    print("semantic on the whole vocabulary: %d completions checked, %d tokens refused after the mask" %
          (checked, refused))


def push_settings_churn(c, gguf, count):
    """Sends `count` settings changes alternating the GGUF model `gguf` in
    process and the embedded model (bench/run_churn_bench.py too)."""
    for i in range(count):
        settings = {"backend": "llama", "model_path": gguf} if i % 2 == 0 else \
            {"backend": "embedded", "model_path": None, "max_tokens": 8 + i}
        c.notify("workspace/didChangeConfiguration", {"settings": {"seam": settings}})


def check_settings_churn(ch, models):
    """Settings pushed again and again, alternating a GGUF model and the
    embedded model (trained on the standard library): each change cancels
    the load or training it replaces, so a completion after 40 changes is
    answered and `exit` ends the server within seconds, not after every
    superseded load and training has run."""
    c = Client(ch.seam)
    try:
        uri = "file://" + os.path.join(ch.dir, "churn.py")
        init(c, {"backend": "embedded", "debounce_ms": 0, "timeout_ms": 30000, "train_stdlib": True})
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": COMPARE[0] + COMPARE[1]}})
        push_settings_churn(c, model(models, "random-qwen2.gguf"), 40)
        resp = c.response(ask_inline_at(c, uri, COMPARE[0]), timeout=120)
        ch.check(resp is not None and "result" in resp, "a completion after 40 settings changes: %r" % resp)
        rid = c.request("shutdown", None)
        c.response(rid, timeout=30)
        start = time.monotonic()
        c.notify("exit", None)
        status, _ = c.wait(timeout=60)
        took = time.monotonic() - start
        ch.check(status == 0 and took < 5, "exit after 40 settings changes: status %r after %.1f s" % (status, took))
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--holes", type=int, default=6)
    args = ap.parse_args()
    llama, models = cache_dirs()
    ch = InprocChecker(args.seam, "seam-inproc-")
    check_scripted(ch, models)
    check_detour(ch, models)
    check_utf8(ch, models)
    check_special_text(ch, llama, models)
    check_random(ch, models, args.holes)
    check_every_step(ch, models, args.holes)
    check_sampling(ch, models, args.holes)
    check_semantic(ch, models, args.holes)
    check_found_model(ch, models)
    check_bad_files(ch, models)
    check_lsp(ch, models)
    check_loading(ch, models)
    check_documents(ch, models)
    check_settings_churn(ch, models)
    shutil.rmtree(ch.dir, ignore_errors=True)
    print("inproc: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
