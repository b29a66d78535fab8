"""`seam model list` and `seam model pull` against a local imitation of
Hugging Face's hub (hub_imitation.py), and the language server using the
model once it is whole.

    SEAM_TEST_MODELS=... python3 tests/backends/model_pull_check.py --seam build/debug/seam

It must: list the known models and the files present; download a known
model by name and a USER/REPO FILE, byte for byte, with the token sent to
the hub and not to the host it redirects to; show a progress bar on a
terminal and JSON Lines with --json; survive a dropped connection within
one run and resume an interrupted run with Range; start over when the
server ignores Range; refuse (and delete) a file whose SHA-256 differs from
the stated one or that is not GGUF; explain 401 and 404; and the next
`seam lsp` uses the model (before it, its status offers a download).
"""

import argparse
import glob
import hashlib
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lsp"))
from harness import Checker  # noqa: E402
from hub_imitation import Hub  # noqa: E402
from llama_check import model  # noqa: E402
from llama_server import cache_dirs  # noqa: E402
from lsp_check import Client  # noqa: E402

NAME = "qwen2.5-coder-1.5b"
REPO = "ggml-org/Qwen2.5-Coder-1.5B-Q8_0-GGUF"
FILE = "qwen2.5-coder-1.5b-q8_0.gguf"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class PullChecker(Checker):
    def __init__(self, seam, hub):
        super().__init__(seam, "seam-models-")
        self.hub = hub
        self.home = os.path.join(self.dir, "home")
        os.makedirs(self.home)
        self.models = os.path.join(self.home, ".cache", "seam", "models")

    def env(self, **more):
        env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "HF_ENDPOINT": self.hub.endpoint}
        env.update(more)
        return {k: v for k, v in env.items() if v is not None}

    def run(self, args, timeout=120, **more):
        return subprocess.run([self.seam, "model"] + args, capture_output=True, text=True,
                              env=self.env(**more), timeout=timeout)

    def clear(self):
        for path in glob.glob(os.path.join(self.models, "*")):
            os.unlink(path)

    def leftovers(self):
        return sorted(os.path.basename(p) for p in glob.glob(os.path.join(self.models, "*")))


def json_lines(text):
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append({"event": "not json", "line": line})
    return out


def check_list(ch, source):
    run = ch.run(["list", "--json"])
    listed = json.loads(run.stdout) if run.returncode == 0 else {}
    ch.check(listed.get("present") == [] and listed.get("in_use") is None and
             listed.get("dir") == ch.models and
             [k["name"] for k in listed.get("known", [])][:1] == [NAME] and
             all(k["repo"] and k["file"].endswith(".gguf") and k["bytes"] > 100e6 for k in listed["known"]),
             "list: the known models, none present, the folder: %r %r" % (run.stdout[:300], run.stderr))
    run = ch.run(["list"])
    ch.check(run.returncode == 0 and NAME in run.stdout and "no model yet" in run.stdout and "1.65 GB" in run.stdout,
             "list as text: names, sizes, and what to do with no model: %r" % run.stdout[-400:])


def check_pull_by_name(ch, source):
    ch.hub.token = "hf_secret_token"
    ch.hub.log.clear()
    run = ch.run(["pull", NAME, "--json"], HF_TOKEN="hf_secret_token")
    events = json_lines(run.stdout)
    path = os.path.join(ch.models, FILE)
    ch.check(run.returncode == 0 and os.path.isfile(path) and sha256(path) == sha256(source),
             "pull NAME: the known model's file, byte for byte: %r %r" % (run.stderr[-300:], ch.leftovers()))
    ch.check(ch.leftovers() == [FILE], "no part file is left beside the model: %r" % ch.leftovers())
    kinds = [e["event"] for e in events]
    done = [e["done"] for e in events if e["event"] == "progress"]
    ch.check(kinds[:1] == ["start"] and kinds[-1:] == ["done"] and "verify" in kinds and len(done) >= 3 and
             done == sorted(done) and events[0]["total"] == os.path.getsize(source) and
             events[-1].get("sha256") == sha256(source) and events[-1].get("path") == path,
             "--json: start, growing progress, verify, done with the path and SHA-256: %r" % kinds[:8])
    resolve = ch.hub.requests("/" + REPO)
    cdn = ch.hub.requests("/cdn/")
    ch.check(resolve and all(h.get("Authorization") == "Bearer hf_secret_token" for _, _, h in resolve),
             "the token goes to the hub: %r" % [h.get("Authorization") for _, _, h in resolve])
    ch.check(cdn and all("Authorization" not in h for _, _, h in cdn),
             "and not to the host the hub redirects to: %r" % [sorted(h) for _, _, h in cdn])
    run = ch.run(["list", "--json"])
    listed = json.loads(run.stdout)
    ch.check([p["path"] for p in listed["present"]] == [path] and listed["in_use"] == path and
             listed["known"][0]["present"],
             "list shows the model present and in use: %r" % run.stdout[:400])
    ch.hub.log.clear()
    run = ch.run(["pull", NAME], HF_TOKEN="hf_secret_token")
    ch.check(run.returncode == 0 and run.stdout.strip() == path and not ch.hub.requests("/cdn/"),
             "pulling a present model again fetches nothing: %r" % run.stderr)
    ch.hub.token = None


def check_token_file_and_errors(ch, source):
    ch.clear()
    ch.hub.token = "hf_from_file"
    run = ch.run(["pull", NAME])
    ch.check(run.returncode == 1 and "HF_TOKEN" in run.stderr and not ch.leftovers(),
             "401 without a token: says to set HF_TOKEN: %r" % run.stderr)
    hf_home = os.path.join(ch.dir, "hf")
    os.makedirs(hf_home, exist_ok=True)
    with open(os.path.join(hf_home, "token"), "w") as f:
        f.write("hf_from_file\n")
    run = ch.run(["pull", NAME], HF_HOME=hf_home)
    ch.check(run.returncode == 0 and ch.leftovers() == [FILE],
             "the token in $HF_HOME/token, as Hugging Face's tools keep it: %r" % run.stderr[-300:])
    ch.hub.token = None
    run = ch.run(["pull", "someone/some-repo", "nothing.gguf"])
    ch.check(run.returncode == 1 and "has no file nothing.gguf" in run.stderr,
             "404: the repository has no such file: %r" % run.stderr)
    run = ch.run(["pull", "no-such-name"])
    ch.check(run.returncode == 1 and "seam model list" in run.stderr, "an unknown name: %r" % run.stderr)
    run = ch.run(["pull", "../x", "y.gguf"])
    ch.check(run.returncode == 1 and "not a repository name" in run.stderr, "a bad repository: %r" % run.stderr)
    run = ch.run(["pull", "a/b", "../../etc/passwd.gguf"])
    ch.check(run.returncode == 1 and "not a GGUF file's path" in run.stderr, "a path out of the repository: %r" % run.stderr)
    ch.clear()
    run = subprocess.run([ch.seam, "model", "pull", NAME], capture_output=True, text=True, timeout=60,
                         env=ch.env(HF_ENDPOINT="http://127.0.0.1:9"))
    ch.check(run.returncode == 1 and "cannot reach" in run.stderr, "no server: %r" % run.stderr[-300:])


def check_progress_bar(ch, source):
    """On a terminal: a bar redrawn in place, to 100 %."""
    ch.clear()
    ch.hub.chunk_delay = 0.01
    master, slave = pty.openpty()
    proc = subprocess.Popen([ch.seam, "model", "pull", "user/repo", "model.gguf"], stdout=subprocess.PIPE,
                            stderr=slave, env=ch.env(), close_fds=True)
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            shown += data
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    ch.hub.chunk_delay = 0.0
    text = shown.decode("utf-8", "replace")
    ch.check(proc.returncode == 0 and text.count("\r") >= 3 and "100% [" in text and "/s" in text and
             "left" in text and os.path.isfile(os.path.join(ch.models, "model.gguf")),
             "a progress bar on a terminal: %r" % text[-300:])


def check_dropped(ch, source):
    """A connection dropped halfway: tried again from where it stopped."""
    ch.clear()
    ch.hub.log.clear()
    ch.hub.drops = [10 << 20]
    run = ch.run(["pull", "user/repo", "model.gguf", "--json"])
    events = json_lines(run.stdout)
    gets = [h.get("Range") for m, p, h in ch.hub.requests("/cdn/") if m == "GET"]
    ch.check(run.returncode == 0 and sha256(os.path.join(ch.models, "model.gguf")) == sha256(source) and
             any(e["event"] == "retry" for e in events) and gets[:1] == [None] and
             len(gets) == 2 and gets[1] == "bytes=%d-" % (10 << 20),
             "a dropped connection is resumed in the same run: %r %r" % (gets, run.stderr[-300:]))


def check_resume_across_runs(ch, source):
    """A run killed halfway leaves a part that the next run resumes."""
    ch.clear()
    ch.hub.log.clear()
    ch.hub.chunk_delay = 0.02
    proc = subprocess.Popen([ch.seam, "model", "pull", "user/repo", "model.gguf", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ch.env(), text=True)
    got = 0
    for line in proc.stdout:
        event = json.loads(line)
        got = event.get("done", 0)
        if got >= (8 << 20):
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    ch.hub.chunk_delay = 0.0
    parts = [p for p in ch.leftovers() if p.endswith(".part")]
    ch.check(parts and not os.path.exists(os.path.join(ch.models, "model.gguf")),
             "killed halfway: a part, no model: %r" % ch.leftovers())
    kept = os.path.getsize(os.path.join(ch.models, parts[0])) if parts else 0
    ch.hub.log.clear()
    run = ch.run(["pull", "user/repo", "model.gguf", "--json"])
    events = json_lines(run.stdout)
    gets = [h.get("Range") for m, p, h in ch.hub.requests("/cdn/") if m == "GET"]
    ch.check(run.returncode == 0 and kept > 0 and events[0].get("resumed_from") == kept and
             gets == ["bytes=%d-" % kept] and sha256(os.path.join(ch.models, "model.gguf")) == sha256(source) and
             ch.leftovers() == ["model.gguf"],
             "the next run resumes at %d bytes with Range: %r %r" % (kept, gets, events[:1]))
    # a server that ignores Range: the whole file again, not a file of two halves
    ch.clear()
    ch.hub.drops = [5 << 20]
    ch.hub.ignore_range = True
    run = ch.run(["pull", "user/repo", "model.gguf"])
    ch.hub.ignore_range = False
    ch.check(run.returncode == 0 and sha256(os.path.join(ch.models, "model.gguf")) == sha256(source),
             "a server that ignores Range: started over, whole: %r" % run.stderr[-300:])


def check_refused(ch, source, not_gguf):
    """A wrong checksum or a file that is not GGUF is deleted, not used."""
    ch.clear()
    ch.hub.state_sha[("user/repo", "model.gguf")] = "ab" * 32
    run = ch.run(["pull", "user/repo", "model.gguf"])
    del ch.hub.state_sha[("user/repo", "model.gguf")]
    ch.check(run.returncode == 1 and "SHA-256" in run.stderr and "abab" in run.stderr and not ch.leftovers(),
             "a SHA-256 other than the stated one: refused, nothing kept: %r %r" % (run.stderr, ch.leftovers()))
    run = ch.run(["pull", "user/repo", "notes.gguf"])
    ch.check(run.returncode == 1 and "not a GGUF model" in run.stderr and not ch.leftovers(),
             "a file that is not GGUF: refused, nothing kept: %r %r" % (run.stderr, ch.leftovers()))


def check_untrusted_server(ch, source):
    """A server whose body runs past the size it stated, one that states no
    size nor SHA-256 and closes half way, and names that are patterns: the
    first is stopped and deleted as soon as it passes the size, the second
    refused unless --no-verify, the third refused; and the clean-up of
    stale parts takes this model's own parts only."""
    ch.clear()
    ch.hub.endless.add(("user/repo", "model.gguf"))
    run = ch.run(["pull", "user/repo", "model.gguf"])
    ch.hub.endless.discard(("user/repo", "model.gguf"))
    ch.check(run.returncode == 1 and "more than" in run.stderr and not ch.leftovers(),
             "a body past the stated size: stopped, nothing kept: %r %r" % (run.stderr[-300:], ch.leftovers()))
    ch.hub.unstated.add(("user/repo", "model.gguf"))
    run = ch.run(["pull", "user/repo", "model.gguf"])
    ch.check(run.returncode == 1 and "no SHA-256" in run.stderr and "--no-verify" in run.stderr and
             not ch.leftovers(), "no size nor SHA-256 stated: refused: %r %r" % (run.stderr[-300:], ch.leftovers()))
    run = ch.run(["pull", "user/repo", "model.gguf", "--no-verify"])
    ch.hub.unstated.discard(("user/repo", "model.gguf"))
    ch.check(run.returncode == 0 and "unchecked" in run.stderr and "is whole" not in run.stderr and
             "model.gguf" in ch.leftovers(),
             "with --no-verify, the file is taken and said to be unchecked: %r %r" % (
                 run.stderr[-300:], ch.leftovers()))
    ch.clear()
    os.makedirs(ch.models, exist_ok=True)
    others = ["other.gguf.0123456789abcdef.part", "model.gguf.extra.0123456789abcdef.part",
              "model.gguf.0123456789abcdef.part.keep"]
    for name in others + ["model.gguf.0123456789abcdef.part"]:
        with open(os.path.join(ch.models, name), "wb") as f:
            f.write(b"half a download")
    for pattern in ("*.gguf", "model?.gguf", "[m]odel.gguf"):
        run = ch.run(["pull", "user/repo", pattern])
        ch.check(run.returncode != 0 and "not a GGUF file's path" in run.stderr,
                 "the name %r is refused: %r" % (pattern, run.stderr[-200:]))
    run = ch.run(["pull", "user/repo", "model.gguf"])
    ch.check(run.returncode == 0 and ch.leftovers() == sorted(others + ["model.gguf"]),
             "the stale part of model.gguf removed, every other file kept: %r" % ch.leftovers())


def statuses(c):
    return [n["params"] for n in c.notifications if n.get("method") == "seam/status"]


def lsp_status(ch, want, timeout=60):
    c = Client(ch.seam, env=ch.env())
    try:
        rid = c.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                       "capabilities": {"experimental": {"seamStatus": True}},
                                       "initializationOptions": {"train_stdlib": False}})
        c.response(rid, timeout=60)
        c.notify("initialized", {})
        deadline = time.monotonic() + timeout
        while not any(want(s) for s in statuses(c)) and time.monotonic() < deadline:
            c.response(-1, timeout=0.5)
        return statuses(c)
    finally:
        c.close()


def check_lsp_uses_it(ch, source):
    ch.clear()
    seen = lsp_status(ch, lambda s: s.get("state") == "ready")
    ch.check(any(s.get("offer_model") and s.get("backend") == "embedded" for s in seen),
             "with no model, the server's status offers one: %r" % seen)
    run = ch.run(["pull", NAME])
    path = os.path.join(ch.models, FILE)
    seen = lsp_status(ch, lambda s: s.get("state") == "ready" and s.get("backend") == "llama")
    ch.check(run.returncode == 0 and any(s.get("backend") == "llama" and s.get("model") == path and
                                         s.get("state") == "ready" for s in seen) and
             not any(s.get("offer_model") for s in seen),
             "the next seam lsp uses the pulled model: %r" % seen)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    args = ap.parse_args()
    _, models = cache_dirs()
    source = model(models, "random-qwen2.gguf")
    hub = Hub()
    ch = PullChecker(os.path.abspath(args.seam), hub)
    not_gguf = os.path.join(ch.dir, "notes.bin")
    with open(not_gguf, "wb") as f:
        f.write(os.urandom(1 << 20))
    hub.add(REPO, FILE, source)
    hub.add("user/repo", "model.gguf", source)
    hub.add("user/repo", "notes.gguf", not_gguf)
    try:
        version = subprocess.run([ch.seam, "--version"], capture_output=True, text=True).stdout
        check_list(ch, source)
        check_pull_by_name(ch, source)
        check_token_file_and_errors(ch, source)
        check_progress_bar(ch, source)
        check_dropped(ch, source)
        check_resume_across_runs(ch, source)
        check_refused(ch, source, not_gguf)
        check_untrusted_server(ch, source)
        if "llama (GGUF" in version:
            check_lsp_uses_it(ch, source)
    finally:
        hub.close()
    print("models: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
