"""seam against a real llama.cpp server, through `seam complete` and the
language server.

    SEAM_LLAMA_DIR=... SEAM_TEST_MODELS=... python3 tests/backends/llama_check.py --seam build/debug/seam

llama-server (built by scripts/llama.sh) runs on 127.0.0.1 with the tiny
models of tests/models/make_models.py, with and without --special.  seam's
llama.cpp backend in both request modes (/completion with the model's
template as token ids, and /infill) and its OpenAI-compatible backend, each
streamed and not, must give:
- the scripted model's exact output, ended where the model ends it;
- the second candidate where the first is invalid (candidate lists);
- a completion valid for CPython on real holes with random-weight models,
  also when the file is far longer than the server's context;
- a clear message for a model without fill-in-the-middle tokens;
- special-token strings in the user's file sent as text, not control tokens.
"""

import argparse
import json
import os
import random
import sys
import sysconfig
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lsp"))
from harness import Checker, sound, valid  # noqa: E402
from llama_server import LlamaServer, RecordingProxy, cache_dirs  # noqa: E402
from lsp_check import Client, init  # noqa: E402


COMPARE = ("def f(a, b):\n    return ", "\n")
DETOUR = ("def total(values):\n    result = sum(", "\n    return result\n")


def modes(url):
    """(name, settings) for every way seam asks a llama.cpp server."""
    out = []
    for stream in ("true", "false"):
        tag = "" if stream == "true" else " unstreamed"
        out += [
            ("completion" + tag, ["--backend", "llamacpp", "--endpoint", url, "--stream", stream]),
            ("infill" + tag, ["--backend", "llamacpp", "--endpoint", url, "--llamacpp-mode", "infill",
                              "--stream", stream]),
            ("openai" + tag, ["--backend", "openai", "--endpoint", url + "/v1", "--stream", stream]),
        ]
    return out


class LlamaChecker(Checker):
    def complete_at(self, where, settings, timeout=60):
        return super().complete(where, settings, timeout=timeout)

    def complete(self, left, right, settings, timeout=60):
        run, out, _ = super().complete(self.write_case(left, right), ["--timeout-ms", "20000"] + settings,
                                       timeout=timeout)
        return run, out


def model(models, name):
    return os.path.join(models, name)


def check_scripted(ch, llama, models):
    """The scripted output back exactly, the end recognised, in every mode."""
    for vocab in ("starcoder", "qwen2"):
        for special in (False, True):
            with LlamaServer(llama, model(models, "scripted-compare-%s.gguf" % vocab), special=special) as srv:
                for name, settings in modes(srv.url):
                    what = "%s %s%s" % (vocab, name, " --special" if special else "")
                    run, out = ch.complete(*COMPARE, settings)
                    ok = ch.check(out is not None and run.returncode == 0,
                                  "%s: exit %d, stderr %r" % (what, run.returncode, run.stderr))
                    if not ok:
                        continue
                    ch.check(out["completion"] == " a < b" and out["found"] and out["stop"] == "eos",
                             "%s: %r ended by %s, expected ' a < b' ended by the model" %
                             (what, out["completion"], out["stop"]))
                    ch.check(valid(COMPARE[0] + out["completion"] + COMPARE[1]), "%s: invalid" % what)
                    ch.check(out["round_trips"] == 1, "%s: %d round trips" % (what, out["round_trips"]))


def check_utf8(ch, llama, models):
    """Tokens that end inside a character: the server sends nothing for them
    and then all their bytes with the token that completes the character."""
    left, right = 'DASH = "', '"\n'
    for vocab in ("starcoder", "qwen2"):
        with LlamaServer(llama, model(models, "scripted-utf8-%s.gguf" % vocab)) as srv:
            for name, settings in modes(srv.url):
                what = "utf8 %s %s" % (vocab, name)
                run, out = ch.complete(left, right, settings)
                if not ch.check(out is not None, "%s: stderr %r" % (what, run.stderr)):
                    continue
                ch.check(out["completion"] == "\u2014" and out["stop"] == "eos" and out["round_trips"] == 1,
                         "%s: %r ended by %s in %d round trips" % (what, out["completion"], out["stop"],
                                                                    out["round_trips"]))


def check_detour(ch, llama, models):
    """The first candidate is invalid: the loop takes the second from the list."""
    for vocab in ("starcoder", "qwen2"):
        with LlamaServer(llama, model(models, "scripted-detour-%s.gguf" % vocab)) as srv:
            for name, settings in modes(srv.url):
                what = "detour %s %s" % (vocab, name)
                run, out = ch.complete(*DETOUR, settings)
                if not ch.check(out is not None, "%s: stderr %r" % (what, run.stderr)):
                    continue
                ch.check(not out["found"] or valid(DETOUR[0] + out["completion"] + DETOUR[1]),
                         "%s: invalid %r" % (what, out["completion"]))
                if name.startswith("infill"):
                    # /infill puts the generated text before the suffix, so
                    # the model never continues after it: only validity holds.
                    continue
                ch.check(out["completion"] == "values)" and out["rejected"] >= 1 and out["stop"] == "eos",
                         "%s: %r (rejected %d, %s)" % (what, out["completion"], out["rejected"], out["stop"]))
                ch.check(out["round_trips"] == 2, "%s: %d round trips" % (what, out["round_trips"]))
                if "prompt_tokens_evaluated" in out and "unstreamed" not in name:
                    # The second request repeats the first's prompt plus one token.
                    ch.check(out["prompt_tokens_evaluated"] <= out["prompt_tokens_per_round_trip"] * 2 and
                             out["prompt_tokens_per_round_trip"] >= 1,
                             "%s: prompt tokens %r" % (what, out))


def tokenize(url, text, special):
    req = urllib.request.Request(url + "/tokenize", data=json.dumps(
        {"content": text, "add_special": False, "parse_special": special}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())["tokens"]


def check_special_text(ch, llama, models):
    """A file holding special-token strings: they reach the model as text."""
    left = 'MARKS = ["<|endoftext|>", "<|fim_middle|>", "<|fim_prefix|>"]\n\n\n' + COMPARE[0]
    right = COMPARE[1]
    for backend in ("llamacpp", "openai"):
        with LlamaServer(llama, model(models, "scripted-compare-qwen2.gguf")) as srv:
            as_text = len(tokenize(srv.url, left, False)) + len(tokenize(srv.url, right, False))
            as_special = len(tokenize(srv.url, left, True)) + len(tokenize(srv.url, right, True))
            endpoint = srv.url + ("/v1" if backend == "openai" else "")
            run, out = ch.complete(left, right, ["--backend", backend, "--endpoint", endpoint])
            if not ch.check(out is not None, "special text %s: stderr %r" % (backend, run.stderr)):
                continue
            ch.check(out["completion"] == " a < b", "special text %s: %r" % (backend, out["completion"]))
            # Three control tokens around the contexts, all evaluated on a
            # fresh server.
            ch.check(as_special < as_text and out.get("prompt_tokens_evaluated") == as_text + 3,
                     "special text %s: %r prompt tokens evaluated, %d as text, %d parsed as special" %
                     (backend, out.get("prompt_tokens_evaluated"), as_text, as_special))


def holes(count, seed):
    """(left, right) cuts of standard-library files at line ends and in lines."""
    stdlib = sysconfig.get_paths()["stdlib"]
    rng = random.Random(seed)
    names = ["textwrap.py", "shlex.py", "fnmatch.py", "glob.py", "colorsys.py", "bisect.py", "netrc.py"]
    out = []
    while len(out) < count:
        with open(os.path.join(stdlib, rng.choice(names)), encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        i = rng.randrange(1, len(lines) - 1)
        if not lines[i].strip():
            continue
        col = rng.randrange(len(lines[i]) - len(lines[i].lstrip()), len(lines[i]) + 1)
        left = "\n".join(lines[:i]) + "\n" + lines[i][:col]
        out.append((left, text[len(left):]))
    return out


def check_random(ch, llama, models, count):
    """Random weights, real vocabularies: every completion is valid."""
    cases = holes(count, 11)
    for vocab in ("starcoder", "qwen2"):
        with LlamaServer(llama, model(models, "random-%s.gguf" % vocab)) as srv:
            for name, settings in modes(srv.url):
                if "unstreamed" in name:
                    continue
                found = 0
                for left, right in cases:
                    run, out = ch.complete(left, right, settings + ["--max-tokens", "16"])
                    ok = out is not None and "error" not in out
                    ch.check(ok, "random %s %s: %r %r" % (vocab, name, out, run.stderr[-300:]))
                    if ok and out["found"]:
                        found += 1
                        ch.check(sound(out, left, right),
                                 "random %s %s: %r does not parse" % (vocab, name, out["completion"]))
                ch.check(found >= 1, "random %s %s: no completion in %d holes" % (vocab, name, len(cases)))


def check_long_file(ch, llama, models):
    """A file far longer than the server's context is answered, not refused."""
    rows = ["TABLE_%d = [%s]" % (i, ", ".join(str(i * 7919 + j) for j in range(12))) for i in range(120)]
    left = "\n".join(rows) + "\n\n\ndef lookup(i):\n    return "
    right = "\n\n\n" + "\n".join(rows) + "\n"
    with LlamaServer(llama, model(models, "random-qwen2.gguf"), ctx=512) as srv:
        for name, settings in modes(srv.url):
            if "unstreamed" in name:
                continue
            run, out = ch.complete(left, right, settings + ["--max-tokens", "8"])
            ch.check(out is not None and "error" not in out and out["round_trips"] >= 1,
                     "long file %s: %r %r" % (name, out and out.get("error"), run.stderr[-300:]))
            if out and out["found"]:
                ch.check(sound(out, left, right), "long file %s: invalid" % name)


def check_no_fim(ch, llama, models):
    """A model whose vocabulary has no fill-in-the-middle tokens."""
    with LlamaServer(llama, model(models, "random-qwen2-nofim.gguf")) as srv:
        expect = [
            (["--backend", "llamacpp", "--endpoint", srv.url], "no fill-in-the-middle tokens"),
            (["--backend", "llamacpp", "--endpoint", srv.url, "--template", "qwen2.5-coder"], "does not fit"),
            (["--backend", "openai", "--endpoint", srv.url + "/v1"], "no fill-in-the-middle tokens"),
            (["--backend", "llamacpp", "--endpoint", srv.url, "--llamacpp-mode", "infill"],
             "Infill is not supported"),
        ]
        for settings, message in expect:
            run, out = ch.complete(*COMPARE, settings)
            text = run.stderr + (out.get("error", "") if out else "")
            ch.check(message in text and (out is None or out["completion"] == ""),
                     "no FIM tokens %s: %r" % (settings[1:], text))


def check_lsp(ch, llama, models):
    """The language server with the llama.cpp backend: an inline completion,
    and another after the server was restarted with a model of another
    vocabulary on the same port (what seam learnt of the first is stale)."""
    c = Client(ch.seam)
    try:
        uri = "file://" + os.path.join(ch.dir, "lsp.py")
        line = COMPARE[0].count("\n")
        col = len(COMPARE[0].rsplit("\n", 1)[-1])
        port = None
        for i, name in enumerate(("scripted-compare-starcoder.gguf", "scripted-compare-qwen2.gguf")):
            with LlamaServer(llama, model(models, name), port=port) as srv:
                if i == 0:
                    port = srv.port
                    init(c, {"backend": "llamacpp", "endpoint": srv.url, "debounce_ms": 0, "train_stdlib": False})
                    c.notify("textDocument/didOpen", {"textDocument": {
                        "uri": uri, "languageId": "python", "version": 1, "text": COMPARE[0] + COMPARE[1]}})
                rid = c.request("textDocument/inlineCompletion", {
                    "textDocument": {"uri": uri}, "position": {"line": line, "character": col},
                    "context": {"triggerKind": 1}})
                resp = c.response(rid, timeout=30)
                items = (resp or {}).get("result") or {}
                items = items.get("items", items) if isinstance(items, dict) else items
                ch.check(bool(items) and items[0]["insertText"] == " a < b",
                         "language server with llama.cpp (%s): %r" % (name, resp))
    finally:
        c.close()


def write_repository(root):
    """A project named as llama-server names every project ("myproject"),
    whose document is named as it names every document ("filename", read
    as Python by the setting `language`): the chunks of helpers.py, which
    the document imports, are the only difference /infill leaves."""
    os.makedirs(root, exist_ok=True)
    files = {"pyproject.toml": "",
             "helpers.py": "import os\n\n\ndef load_config(path, strict=False):\n    with open(path) as f:\n"
                           "        return f.read()\n\n\nclass Registry:\n    def __init__(self):\n"
                           "        self.items = {}\n",
             "filename": "from helpers import load_config, Registry\n\n\ndef main(path):\n    conf = load_\n"
                         "    return conf\n"}
    for rel, text in files.items():
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    return os.path.join(root, "filename") + ":5:17"


def check_repository_format(ch, llama, models):
    """With the vocabulary's repository tokens (Qwen2.5-Coder's), the prompt
    seam sends /completion as token ids is llama-server's own /infill prompt
    for the same chunks, byte for byte and token for token count; and while
    the person types on one line, the server re-evaluates the few tokens
    typed, not the chunks before them (its prompt cache)."""
    root = os.path.join(ch.dir, "repo", "myproject")
    where = write_repository(root)
    common = ["--language", "python", "--stream", "false", "--timeout-ms", "20000", "--max-tokens", "4"]
    with LlamaServer(llama, model(models, "random-qwen2.gguf"), special=True, ctx=4096,
                     extra=["-b", "512", "-ub", "512"]) as srv, RecordingProxy(srv.url) as proxy:
        run, out, _ = ch.complete_at(where, ["--backend", "llamacpp", "--endpoint", proxy.url,
                                             "--llamacpp-mode", "infill"] + common)
        infill = next((b for p, b in proxy.requests if p == "/infill"), None)
        ch.check(infill is not None and [c["filename"] for c in infill.get("input_extra", [])] == ["helpers.py"],
                 "/infill: the imported module's chunks as input_extra: %r" % (infill or {}).get("input_extra"))
        if infill is None:
            return
        proxy.requests.clear()
        run, out, _ = ch.complete_at(where, ["--backend", "llamacpp", "--endpoint", proxy.url] + common)
        ours = next((b["prompt"] for p, b in proxy.requests if p == "/completion"), None)
        ch.check(isinstance(ours, list) and out is not None, "/completion: a prompt of ids (%s)" % run.stderr[-300:])
        if not isinstance(ours, list):
            return
        # the server's own layout of the same chunks and contexts
        ref = srv.post("/infill", dict(infill, n_predict=1, cache_prompt=False, stream=False, prompt=""))
        text = srv.post("/detokenize", {"tokens": ours})["content"]
        ch.check(text == ref["prompt"], "the repository prompt is llama-server's /infill prompt:\n%r\n%r"
                 % (text, ref["prompt"]))
        ch.check(len(ours) == ref["tokens_evaluated"], "as many tokens as /infill's: %d, %d"
                 % (len(ours), ref["tokens_evaluated"]))
        ch.check(text.startswith("<|repo_name|>myproject\n<|file_sep|>helpers.py\n") and
                 "def load_config(path, strict=False):" in text and
                 "<|file_sep|>filename\n<|fim_prefix|>from helpers import" in text,
                 "Qwen2.5-Coder's repository format: %r" % text[:200])
        # typing on: "load_" becomes "load_c", "load_co", ...; each request
        # evaluates what changed, the chunks stay cached
        evaluated = []
        with open(os.path.join(root, "filename")) as f:
            base = f.read()
        for n, typed in enumerate(("c", "co", "con")):
            with open(os.path.join(root, "filename"), "w") as f:
                f.write(base.replace("conf = load_\n", "conf = load_" + typed + "\n"))
            run, out, _ = ch.complete_at(where.rsplit(":", 1)[0] + ":%d" % (17 + len(typed)),
                                         ["--backend", "llamacpp", "--endpoint", srv.url, "--max-tokens", "1"]
                                         + common[:-2])
            if out and out.get("prompt_tokens_evaluated") is not None:
                # (a later round trip of the same completion evaluates the
                # token or two generated since)
                evaluated.append(out["prompt_tokens_evaluated"] - 2 * (out["round_trips"] - 1))
        with open(os.path.join(root, "filename"), "w") as f:
            f.write(base)
        # (what follows the cursor in a fill-in-the-middle prompt, the
        # suffix and its two control tokens, is evaluated again after any
        # change before it)
        suffix = len(srv.post("/tokenize", {"content": "\n    return conf\n"})["tokens"]) + 2
        chunks = ours.index(151664, ours.index(151664) + 1)   # the document's separator: the chunks before it
        ch.check(len(evaluated) == 3 and all(e <= suffix + 4 for e in evaluated) and chunks > 40,
                 "typing on one line re-evaluates the typed tokens and the suffix (%d), not the %d tokens of "
                 "chunks: %r" % (suffix, chunks, evaluated))


def check_inproc_repository(ch, llama, models):
    """seam's own process lays the project's chunks out as llama-server
    does: with context_files on, the first request evaluates exactly the
    tokens of llama-server's repository head more than with it off."""
    root = os.path.join(ch.dir, "repo-inproc", "myproject")
    where = write_repository(root)
    gguf = model(models, "random-qwen2.gguf")
    evaluated = {}
    for on in ("true", "false"):
        run, out, _ = ch.complete_at(where, ["--backend", "llama", "--model-path", gguf, "--language", "python",
                                             "--max-tokens", "1", "--run-ahead", "1", "--context-files", on,
                                             "--timeout-ms", "30000"],
                                     timeout=120)
        if ch.check(out is not None and out.get("prompt_tokens_evaluated") is not None,
                    "in process, context_files %s: %s" % (on, run.stderr[-300:])):
            evaluated[on] = (out["prompt_tokens_evaluated"], out["round_trips"], out.get("context", {}))
    if len(evaluated) < 2:
        return
    chunks = evaluated["true"][2].get("chunks", [])
    ch.check([c["path"] for c in chunks] == ["helpers.py"], "in process: the chunks: %r" % chunks)
    with LlamaServer(llama, gguf, ctx=4096, extra=["-b", "512", "-ub", "512"]) as srv, \
            RecordingProxy(srv.url) as proxy:
        ch.complete_at(where, ["--backend", "llamacpp", "--endpoint", proxy.url, "--llamacpp-mode", "infill",
                               "--language", "python", "--stream", "false", "--max-tokens", "1"])
        infill = next((b for p, b in proxy.requests if p == "/infill"), {})
        content = [151663, "myproject\n"]
        for c in infill.get("input_extra", []):
            content += [151664, c["filename"] + "\n", c["text"]]
        content += [151664, "filename\n"]
        head = len(srv.post("/tokenize", {"content": content})["tokens"])
    # (a round trip after the first evaluates the one token taken since:
    # requests of one token each)
    on, off = [evaluated[k][0] - (evaluated[k][1] - 1) for k in ("true", "false")]
    ch.check(on - off == head, "in process: the first request evaluates %d tokens more with the project, "
             "llama-server's head is %d" % (on - off, head))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--holes", type=int, default=6, help="real holes per random model and mode")
    args = ap.parse_args()
    llama, models = cache_dirs()
    ch = LlamaChecker(args.seam, "seam-llama-")
    start = time.monotonic()
    check_scripted(ch, llama, models)
    check_detour(ch, llama, models)
    check_utf8(ch, llama, models)
    check_special_text(ch, llama, models)
    check_no_fim(ch, llama, models)
    check_long_file(ch, llama, models)
    check_random(ch, llama, models, args.holes)
    check_lsp(ch, llama, models)
    check_repository_format(ch, llama, models)
    check_inproc_repository(ch, llama, models)
    print("llama.cpp checks took %.0f s" % (time.monotonic() - start))
    print("llama: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
