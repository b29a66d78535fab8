"""seam's HTTP backends against the loopback server, through `seam complete`.

    python3 tests/backends/backend_check.py --seam build/debug/seam

For every backend: the completion of scripted fill-in-the-middle cases, the
same with per-token requests and with run-ahead (identical text, fewer round
trips), invalid candidates skipped, and each fault ending in a clear error or
an empty completion within its time limit.  CPython checks that every
completion makes a valid program.
"""

import argparse
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checker, sound, valid  # noqa: E402
from loopback import EOS, LoopbackServer, Script  # noqa: E402

LEFT = "def total(values):\n    result = sum("
RIGHT = "\n    return result\n"
WIDEN_LINES = 16   # the configuration's widen_lines

# The model's first choice is invalid there; the loop takes its second.
STEPS = {
    "": [("]", -0.1), ("values", -1.0), ("[", -2.0)],
    "values": [(")", -0.1), (",", -2.0)],
    "values)": [(EOS, -0.05), (" +", -3.0)],
}


def backends(url):
    """(name, seam settings) for each way seam talks to a server."""
    return [
        ("llamacpp", ["--backend", "llamacpp", "--endpoint", url]),
        ("llamacpp-infill", ["--backend", "llamacpp", "--endpoint", url, "--llamacpp-mode", "infill"]),
        ("llamacpp-template", ["--backend", "llamacpp", "--endpoint", url, "--template", "starcoder2"]),
        ("openai", ["--backend", "openai", "--endpoint", url + "/v1", "--model", "bigcode/starcoder2-3b"]),
        ("ollama", ["--backend", "ollama", "--endpoint", url, "--model", "qwen2.5-coder:1.5b",
                    "--template", "qwen2.5-coder"]),
    ]


GENERATION = ("/infill", "/completion", "/v1/completions", "/api/generate")


def generation_requests(server):
    return [r for r in server.requests if r[0] in GENERATION]


def check_backend(ch, name, settings, server):
    where = ch.write_case(LEFT, RIGHT)
    results = {}
    for run_ahead in ("1", "8"):
        before = len(generation_requests(server))
        run, out, _ = ch.complete(where, settings + ["--run-ahead", run_ahead])
        ch.check(run.returncode == 0 and out is not None, "%s run-ahead %s: exit %d, stderr %s"
                 % (name, run_ahead, run.returncode, run.stderr.strip()))
        if out is None:
            return
        results[run_ahead] = out
        seen = len(generation_requests(server)) - before
        ch.check(out["round_trips"] == seen, "%s: round trips %s reported, %d seen" % (name, out["round_trips"], seen))
    one, many = results["1"], results["8"]
    ch.check(one["found"] and one["completion"] == "values)", "%s: completion %r" % (name, one["completion"]))
    ch.check(valid(LEFT + one["completion"] + RIGHT), "%s: the completion does not parse" % name)
    ch.check(many["completion"] == one["completion"] and many["tokens"] == one["tokens"],
             "%s: run-ahead %r differs from per-token %r" % (name, many["completion"], one["completion"]))
    ch.check(many["round_trips"] < one["round_trips"],
             "%s: run-ahead %d round trips, per-token %d" % (name, many["round_trips"], one["round_trips"]))
    ch.check(one["rejected"] >= 1, "%s: the invalid candidate was not counted" % name)


def check_request_fields(ch, server):
    """The request bodies follow each API."""
    by_path = {}
    for path, body, headers in server.requests:
        by_path.setdefault(path, (body, headers))
    infill = by_path.get("/infill", ({}, {}))[0]
    detok = server.vocab.detokenize
    ch.check(detok(infill.get("input_prefix", [])) == LEFT and detok(infill.get("input_suffix", [])) == RIGHT,
             "llama.cpp /infill carries input_prefix and input_suffix as token ids: %r" % infill)
    ch.check(infill.get("n_probs", 0) >= 1 and infill.get("stream") is True and infill.get("cache_prompt") is True,
             "llama.cpp /infill asks for n_probs, stream and cache_prompt: %r" % infill)
    completion = by_path.get("/completion", ({}, {}))[0]
    prompt = completion.get("prompt")
    ch.check(isinstance(prompt, list) and server.vocab.detokenize(prompt).startswith(
        "<fim_prefix>" + LEFT + "<fim_suffix>" + RIGHT + "<fim_middle>"),
        "llama.cpp /completion carries the StarCoder2 prompt as token ids: %r" % prompt)
    ch.check("stop" not in completion and "t_max_predict_ms" not in completion and "top_k" not in completion
             and completion.get("timings_per_token") is True,
             "llama.cpp /completion sends no stop strings, time limit or top_k: %r" % completion)
    openai, headers = by_path.get("/v1/completions", ({}, {}))
    ch.check(openai.get("model") == "bigcode/starcoder2-3b" and openai.get("logprobs", 0) == 10
             and isinstance(openai.get("prompt"), list),
             "OpenAI /v1/completions on a llama.cpp server: model, 10 logprobs, a prompt of token ids: %r" % openai)
    ollama = by_path.get("/api/generate", ({}, {}))[0]
    ch.check(ollama.get("raw") is True and ollama.get("logprobs") is True and ollama.get("top_logprobs", 0) >= 1
             and ollama.get("prompt", "").startswith("<|fim_prefix|>" + LEFT),
             "Ollama /api/generate: raw prompt with logprobs: %r" % ollama)


def check_text_prompt_server(ch):
    """An OpenAI-compatible server without llama.cpp's /props and /tokenize
    (vLLM, say): the prompt is the rendered template, with its stops."""
    with LoopbackServer(Script(STEPS, LEFT), llamacpp=False) as server:
        check_backend(ch, "openai-text", ["--backend", "openai", "--endpoint", server.url + "/v1", "--model",
                                          "bigcode/starcoder2-3b"], server)
        body = next((b for p, b, _ in server.requests if p == "/v1/completions"), {})
        ch.check(body.get("prompt", "").startswith("<fim_prefix>" + LEFT + "<fim_suffix>") and
                 "<|endoftext|>" in body.get("stop", []),
                 "OpenAI /v1/completions on another server: a templated text prompt with stops: %r" % body)
    with LoopbackServer(Script(STEPS, LEFT), llamacpp=False) as server:
        run, out, _ = ch.complete(ch.write_case(LEFT, RIGHT), ["--backend", "llamacpp", "--endpoint", server.url])
        ch.check(run.returncode != 0 and "does not answer like a llama.cpp server" in run.stderr,
                 "llamacpp against a server without /props: %r" % run.stderr)


# A workspace whose main module uses a name another module defines: the
# scripted model writes the call only when the definition is in its prompt.
PROJECT = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/config.py": "import os\n\n\ndef load_settings(path, strict=False):\n    with open(path) as f:\n"
                     "        return f.read()\n",
    "pkg/unused.py": "def unrelated_thing(x):\n    return x\n",
}
PROJECT_LEFT = "from pkg.config import load_settings\n\n\ndef run(path):\n    s = "
PROJECT_RIGHT = "\n    return s\n"
KNOWS = {"": [("load_settings", -0.1), ("None", -1.0)], "load_settings": [("(path)", -0.1)],
         "load_settings(path)": [(EOS, -0.01)]}
GUESSES = {"": [("None", -0.1)], "None": [(EOS, -0.01)]}


def write_project(root):
    for rel, text in PROJECT.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    main = os.path.join(root, "app.py")
    with open(main, "w", encoding="utf-8") as f:
        f.write(PROJECT_LEFT + PROJECT_RIGHT)
    return "%s:%d:%d" % (main, PROJECT_LEFT.count("\n") + 1, len(PROJECT_LEFT.rsplit("\n", 1)[-1]) + 1)


def prompt_text(server, path, body):
    """The prompt a generation request carried, as text."""
    if path == "/infill":
        extra = "".join("<<%s>>%s" % (c.get("filename"), c.get("text")) for c in body.get("input_extra", []))
        return extra + server.vocab.detokenize(body.get("input_prefix", []))
    prompt = body.get("prompt", "")
    return server.vocab.detokenize(prompt) if isinstance(prompt, list) else prompt


def check_project_context(ch):
    """The definition of a name the document imports from another module of
    the workspace reaches the model, in each API's and family's format; not
    when context_files is off or the budget has no room for it."""
    root = os.path.join(ch.dir, "project")
    where = write_project(root)
    definition = "def load_settings(path, strict=False):"
    with LoopbackServer(Script(GUESSES, "", where=[(definition, KNOWS)])) as server:
        url = server.url
        layouts = [
            ("llamacpp (comments)", ["--backend", "llamacpp", "--endpoint", url],
             "<fim_prefix># pkg/config.py\nimport os\n\n" + definition),
            ("llamacpp qwen2.5-coder", ["--backend", "llamacpp", "--endpoint", url, "--template", "qwen2.5-coder"],
             "<|repo_name|>project\n<|file_sep|>pkg/config.py\nimport os\n\n" + definition),
            ("llamacpp infill", ["--backend", "llamacpp", "--endpoint", url, "--llamacpp-mode", "infill"],
             "<<pkg/config.py>>import os\n\n" + definition),
            # (the server's vocabulary is StarCoder's: no repository format)
            ("openai", ["--backend", "openai", "--endpoint", url + "/v1", "--model", "bigcode/starcoder2-3b"],
             "<fim_prefix># pkg/config.py\nimport os\n\n" + definition),
            ("ollama", ["--backend", "ollama", "--endpoint", url, "--model", "qwen2.5-coder:1.5b", "--template",
                        "qwen2.5-coder"], "<|repo_name|>project\n<|file_sep|>pkg/config.py\n"),
        ]
        for name, settings, head in layouts:
            before = len(server.requests)
            run, out, _ = ch.complete(where, settings)
            gen = [(p, b) for p, b, _ in server.requests[before:] if p in GENERATION]
            prompt = prompt_text(server, *gen[0]) if gen else ""
            ch.check(out is not None and out["completion"] == "load_settings(path)",
                     "%s: with the project, %r (%s)" % (name, out and out["completion"], run.stderr.strip()[-300:]))
            ch.check(prompt.startswith(head) or (name == "ollama" and head in prompt),
                     "%s: the prompt starts with the definition's file: %r" % (name, prompt[:300]))
            ch.check("unrelated_thing" not in prompt, "%s: a module not imported nor open is not sent" % name)
            chunks = (out or {}).get("context", {}).get("chunks", [])
            ch.check([c["path"] for c in chunks] == ["pkg/config.py"] and chunks[0]["origin"] == "imported",
                     "%s: --json lists the chunk: %r" % (name, chunks))
        for name, extra in (("off", ["--context-files", "false"]), ("no room", ["--context-files-bytes", "40"])):
            before = len(server.requests)
            run, out, _ = ch.complete(where, layouts[1][1] + extra)
            gen = [(p, b) for p, b, _ in server.requests[before:] if p in GENERATION]
            prompt = prompt_text(server, *gen[0]) if gen else ""
            ch.check(out is not None and out["completion"] == "None" and definition not in prompt
                     and (name != "off" or prompt.startswith("<|fim_prefix|>")),
                     "%s: no project in the prompt: %r %r" % (name, out and out["completion"], prompt[:200]))
    # a context of 256 tokens: the cursor's own contexts keep their share,
    # the project's chunks get what is left, and the prompt fits
    with LoopbackServer(Script(GUESSES, "", where=[(definition, KNOWS)]), n_ctx=200) as server:
        run, out, _ = ch.complete(where, ["--backend", "llamacpp", "--endpoint", server.url, "--template",
                                          "qwen2.5-coder", "--max-tokens", "16"])
        gen = [b for p, b, _ in server.requests if p == "/completion"]
        ok = gen and all(len(b["prompt"]) + 16 <= 200 for b in gen)
        text = server.vocab.detokenize(gen[0]["prompt"]) if gen else ""
        ch.check(ok and PROJECT_LEFT in text, "a small context: every prompt fits in it, the cursor's own contexts "
                 "whole: %r" % [len(b["prompt"]) for b in gen])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_faults(ch):
    where = ch.write_case(LEFT, RIGHT)
    quick = ["--connect-timeout-ms", "500", "--first-byte-timeout-ms", "800", "--request-timeout-ms", "1500",
             "--timeout-ms", "5000", "--retries", "0"]
    # Connection refused: nothing listens on the port.
    port = free_port()
    run, out, elapsed = ch.complete(where, ["--backend", "llamacpp", "--endpoint", "http://127.0.0.1:%d" % port] + quick)
    ch.check(run.returncode != 0 and "could not be reached" in run.stderr and elapsed < 5,
             "refused: exit %d in %.1fs, stderr %r" % (run.returncode, elapsed, run.stderr))
    faults = {
        "http500": "model exploded",
        "http503": "HTTP 503",
        "slow_first_byte": "first-byte timeout",
        "slow_body": "total timeout",
        "malformed": "malformed JSON",
    }
    for name, settings in backends("URL"):
        for fault, expect in faults.items():
            with LoopbackServer(Script(STEPS, LEFT), fault=fault) as server:
                s = [x.replace("URL", server.url) for x in settings]
                run, out, elapsed = ch.complete(where, s + quick)
                ch.check(run.returncode != 0 and expect in run.stderr and elapsed < 6,
                         "%s %s: exit %d in %.1fs, stderr %r" % (name, fault, run.returncode, elapsed, run.stderr))
        # A truncated stream: the positions that came are used, nothing invalid is returned.
        for fault in ("truncated", "no_probs", "fewer_probs", "more_probs", "no_done", "probs_recap", "held"):
            with LoopbackServer(Script(STEPS, LEFT), fault=fault) as server:
                s = [x.replace("URL", server.url) for x in settings]
                run, out, elapsed = ch.complete(where, s + quick)
                ok = out is not None and elapsed < 6 and (not out["found"] or valid(LEFT + out["completion"] + RIGHT))
                ch.check(ok, "%s %s: exit %d, out %r, stderr %r" % (name, fault, run.returncode, out, run.stderr))
                if fault in ("more_probs", "no_done", "probs_recap") and out is not None:
                    ch.check(out["completion"] == "values)", "%s %s: completion %r" % (name, fault, out["completion"]))
                if fault == "held" and name.startswith("llamacpp") and out is not None:
                    # Held text is the same token: no divergence, no extra round trip.
                    ch.check(out["completion"] == "values)" and out["round_trips"] == 2 and out["stop"] == "eos",
                             "%s held text: %r in %d round trips (%s)" % (name, out["completion"],
                                                                         out["round_trips"], out["stop"]))


def check_budgets_and_refusals(ch):
    where = ch.write_case(LEFT, RIGHT)
    # Ollama's own template (suffix) with a model that cannot fill in the middle.
    with LoopbackServer(Script(STEPS, LEFT), fault="no_insert") as server:
        run, out, _ = ch.complete(where, ["--backend", "ollama", "--endpoint", server.url, "--model", "llama3"])
        body = server.requests[0][1] if server.requests else {}
        ch.check(body.get("suffix") == RIGHT and body.get("prompt") == LEFT and not body.get("raw"),
                 "Ollama without a template sends prompt and suffix: %r" % body)
        ch.check(run.returncode != 0 and "does not support insert" in run.stderr,
                 "a model without fill-in-the-middle: %r" % run.stderr)
    # The latency budget ends a completion whose server stalls mid-stream.
    with LoopbackServer(Script(STEPS, LEFT), fault="slow_body") as server:
        run, out, elapsed = ch.complete(where, ["--backend", "llamacpp", "--endpoint", server.url, "--timeout-ms",
                                                "700", "--request-timeout-ms", "10000"])
        ch.check(out is not None and out["stop"] == "time" and elapsed < 3 and run.returncode == 0,
                 "the time budget: %r in %.1fs" % (out, elapsed))
        ch.check(out is not None and (not out["found"] or valid(LEFT + out["completion"] + RIGHT)),
                 "the time budget returns nothing invalid")
    # The server is asked again (retry) after 503 "loading model", then answers.
    with LoopbackServer(Script(STEPS, LEFT), fault="http503") as server:
        run, out, _ = ch.complete(where, ["--backend", "llamacpp", "--endpoint", server.url, "--retries", "2"])
        ch.check(len(server.requests) == 3, "503 is retried: %d requests" % len(server.requests))
        ch.check(all(p == "/props" for p, _, _ in server.requests), "the first request asks /props")


def check_api_key(ch):
    where = ch.write_case(LEFT, RIGHT)
    env = dict(os.environ, SEAM_TEST_KEY="sk-secret-1234")
    with LoopbackServer(Script(STEPS, LEFT)) as server:
        run, out, _ = ch.complete(where, ["--backend", "openai", "--endpoint", server.url, "--model", "starcoder2",
                                          "--api-key-env", "SEAM_TEST_KEY", "--log-level", "trace"], env=env)
        auth = [h.get("Authorization") for _, _, h in server.requests]
        ch.check(auth and all(a == "Bearer sk-secret-1234" for a in auth), "the API key is sent as a bearer token")
        ch.check("sk-secret" not in run.stderr and "sk-secret" not in run.stdout, "the API key is never logged")


def check_embedded(ch, count):
    """The embedded model end to end: every completion it gives parses."""
    import random
    import shutil
    import sysconfig
    stdlib = sysconfig.get_paths()["stdlib"]
    work = os.path.join(ch.dir, "workspace")
    os.makedirs(work, exist_ok=True)
    for name in ("textwrap.py", "shlex.py", "fnmatch.py", "glob.py", "colorsys.py", "bisect.py", "keyword.py"):
        shutil.copy(os.path.join(stdlib, name), work)
    with open(os.path.join(stdlib, "netrc.py"), encoding="utf-8") as f:
        text = f.read()
    target = os.path.join(work, "target.py")
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)
    lines = text.split("\n")
    rng = random.Random(7)
    found = 0
    for _ in range(count):
        line = rng.randrange(len(lines))
        col = rng.randrange(len(lines[line]) + 1)
        left = "\n".join(lines[:line]) + ("\n" if line else "") + lines[line][:col]
        right = text[len(left):]
        run, out, _ = ch.complete("%s:%d:%d" % (target, line + 1, col + 1), ["--train-stdlib", "false"])
        ok = run.returncode == 0 and out is not None
        ch.check(ok, "embedded at %d:%d: exit %d, stderr %r" % (line + 1, col + 1, run.returncode, run.stderr))
        if not ok:
            continue
        if out["found"]:
            found += 1
            ch.check(sound(out, left, right), "embedded at %d:%d: %r%s does not parse" % (
                line + 1, col + 1, out["completion"], " (partial)" if out["partial"] else ""))
            n_lines = out["completion"].count("\n") + 1
            budget = WIDEN_LINES if out["widened"] else out["scope"]["max_lines"]
            ch.check(n_lines <= budget, "embedded: %d lines in a %s scope of %d%s"
                     % (n_lines, out["scope"]["kind"], budget, ", widened" if out["widened"] else ""))
        else:
            ch.check(out["completion"] == "", "embedded: no completion but text %r" % out["completion"])
    ch.check(found >= count // 4, "embedded: only %d of %d cursors got a completion" % (found, count))
    return found


def check_escape(ch):
    """Context escape is refused by the loop, as a constraint while decoding."""
    cases = [
        # (left, right, script, completion with the guard, completion without it)
        ("a = b = 0\nresult = foo(a, ", ")\nprint(result)\n",
         {"": [("b)", -0.1), ("b", -0.5)], "b)": [(EOS, -0.1)], "b": [(")", -0.1), (EOS, -0.3)]},
         "b", None),
        ("def f(x):\n    if x:\n        ", "\n    return x\n",
         {"": [("y = 1\ndef g():\n    pass", -0.1), ("y = 1", -0.5)], "y = 1": [(EOS, -0.1)]},
         "y = 1", "y = 1\ndef g():\n    pass"),
    ]
    for left, right, steps, guarded, unguarded in cases:
        where = ch.write_case(left, right)
        with LoopbackServer(Script(steps, left)) as server:
            base = ["--backend", "llamacpp", "--endpoint", server.url, "--run-ahead", "4"]
            run, out, _ = ch.complete(where, base)
            ok = out is not None and out["completion"] == guarded and valid(left + out["completion"] + right)
            ch.check(ok, "escape guard: %r gave %r, stderr %r" % (left, out and out["completion"], run.stderr))
            ch.check(out is not None and out["rejected"] >= 1, "escape guard: the escaping candidate was refused")
            if unguarded is not None:
                run, out, _ = ch.complete(where, base + ["--escape-guard", "false"])
                ch.check(out is not None and out["completion"] == unguarded,
                         "without the guard: %r" % (out and out["completion"]))


def check_line_retry(ch):
    """A line typed in the middle of a file with only the editor's closer
    after the cursor: where the whole code after the cursor takes no middle
    the model writes (a pattern's names before `}`, the person's ` = props;`
    still to come), the rest of the line binds and the completion is
    offered; the model is asked again (two rounds)."""
    left = "function show(props) {\n  const { a, b"
    right = "}\n  return a + b;\n}\n"
    steps = {"": [(", c ", -0.1), (":", -0.5)], ", c ": [(EOS, -0.1)]}
    where = ch.write_case(left, right, name="show.mjs")
    with LoopbackServer(Script(steps, left)) as server:
        run, out, _ = ch.complete(where, ["--backend", "llamacpp", "--endpoint", server.url])
    ch.check(out is not None and out["completion"] == ", c " and out["found"],
             "line retry: %r, stderr %r" % (out and out["completion"], run.stderr))
    ch.check(out is not None and out["binding"]["kind"] == "line",
             "line retry: bound %r" % (out and out["binding"]))
    # finished code whose rest of the line is the person's (not closers)
    # binds whole and is not tried again
    left = "function show(props) {\n  const x = f(a"
    where = ch.write_case(left, ", 1);\n  return x;\n}\n", name="whole.mjs")
    with LoopbackServer(Script({"": [(" +", -0.1)], " +": [(EOS, -0.1)]}, left)) as server:
        run, out, _ = ch.complete(where, ["--backend", "llamacpp", "--endpoint", server.url])
    ch.check(out is not None and out["binding"]["kind"] == "whole" and out["completion"] == "",
             "no line retry for the person's code: %r" % ((out and (out["completion"], out["binding"])),))


def check_semantic(ch):
    """The semantic pruners refuse, while decoding, a candidate that reads a
    name nothing binds, takes an attribute a module lacks or passes a keyword
    a function lacks; the model's next choice is taken (they are on by
    default).  Without them the model's first choice stands."""
    with open(os.path.join(ch.dir, "geometry.py"), "w", encoding="utf-8") as f:
        f.write("ORIGIN = (0, 0)\n\ndef scale(shape, factor=2):\n    return shape\n")
    cases = [
        # (left, first choice, second choice, the pruner that refuses the first)
        ("def area(width, height):\n    return ", "widht * height", "width * height", "names"),
        ("import geometry\n\nresult = ", "geometry.scael(1)", "geometry.scale(1)", "attributes"),
        ("import geometry\n\nresult = ", "geometry.scale(1, facter=3)", "geometry.scale(1, factor=3)", "keywords"),
        ("import os\n\ndef joined(a, b):\n    return ", "os.path.joinpath(a, b)", "os.path.join(a, b)", "attributes"),
    ]
    right = "\n"
    for left, first, second, pruner in cases:
        steps = {"": [(first, -0.1), (second, -0.5)], first: [(EOS, -0.1)], second: [(EOS, -0.1)]}
        where = ch.write_case(left, right)
        with LoopbackServer(Script(steps, left)) as server:
            base = ["--backend", "llamacpp", "--endpoint", server.url, "--run-ahead", "4"]
            run, out, _ = ch.complete(where, base + ["--semantic", "true"])
            ch.check(out is not None and out["completion"] == second,
                     "semantic: %r gave %r, stderr %r" % (first, out and out["completion"], run.stderr))
            refused = (out or {}).get("semantic_refused", {})
            ch.check(refused.get(pruner, 0) >= 1 and sum(refused.values()) == refused.get(pruner, 0),
                     "semantic: %r refused by %s, counts %r" % (first, pruner, refused))
            run, out, _ = ch.complete(where, base + ["--semantic", "true", "--semantic-" + pruner, "false"])
            ch.check(out is not None and out["completion"] == first,
                     "semantic without %s: %r" % (pruner, out and out["completion"]))
            run, out, _ = ch.complete(where, base)
            ch.check(out is not None and out["completion"] == second, "semantic by default: %r" % (out and out["completion"]))
            run, out, _ = ch.complete(where, base + ["--semantic", "false"])
            ch.check(out is not None and out["completion"] == first and "semantic_refused" not in out,
                     "without semantic: %r" % (out and out["completion"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seam", required=True)
    parser.add_argument("--embedded", type=int, default=30, help="cursor positions for the embedded model")
    args = parser.parse_args()
    ch = Checker(args.seam)
    with LoopbackServer(Script(STEPS, LEFT)) as server:
        for name, settings in backends(server.url):
            check_backend(ch, name, settings, server)
        check_request_fields(ch, server)
    check_text_prompt_server(ch)
    check_project_context(ch)
    check_faults(ch)
    check_api_key(ch)
    check_escape(ch)
    check_line_retry(ch)
    check_semantic(ch)
    check_budgets_and_refusals(ch)
    found = check_embedded(ch, args.embedded)
    print("embedded: %d of %d cursors completed" % (found, args.embedded))
    print("backends: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
