#!/usr/bin/env python3
"""seam opening a project it must not trust: a cloned repository's files,
folder names and virtual environment are input, never code to run.

Each scenario builds a hostile or unlucky workspace in a temporary folder
and drives the real binary (`seam complete`, and the language server
through a scripted client):

- a workspace .venv whose bin/python is a script that leaves a marker: never
  run unless the workspace is trusted (workspace_trusted, passed by VS Code
  from its workspace trust), and run once it is (so the check can fail);
- a .pth file in a workspace venv with a real interpreter: never run, even
  trusted (the interpreter is asked with -S);
- an interpreter under a folder named like a shell command, given as
  python_path: the name is never run as a command (no shell);
- an installed package whose import detaches a child that keeps standard
  output open, or sleeps past the budget: seam answers within its budget,
  asks again of no new interpreter on every completion, and exits at once;
- a pyproject.toml that is a FIFO: initialize and completions are answered.

usage: untrusted_check.py --seam BUILD/seam
Prints "untrusted: N passed, N failed".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsp"))
from lsp_check import Checker, Client  # noqa: E402

PYTHON = "/usr/bin/python3"
VERSION = "%d.%d" % sys.version_info[:2]


def make_venv(root, python_script=None):
    """A virtual environment at root/.venv (pyvenv.cfg, bin/python, an empty
    site-packages): bin/python is python_script when given, else a link to
    the machine's interpreter.  Returns its site-packages folder."""
    venv = os.path.join(root, ".venv")
    site = os.path.join(venv, "lib", "python" + VERSION, "site-packages")
    os.makedirs(site)
    os.makedirs(os.path.join(venv, "bin"))
    with open(os.path.join(venv, "pyvenv.cfg"), "w") as f:
        f.write("home = /usr/bin\ninclude-system-site-packages = false\nversion = %s.0\n" % VERSION)
    python = os.path.join(venv, "bin", "python")
    if python_script is None:
        os.symlink(PYTHON, python)
    else:
        with open(python, "w") as f:
            f.write(python_script)
        os.chmod(python, 0o755)
    return site


def complete(seam, path, line, col, *extra, timeout=60):
    """`seam complete` with the embedded model; (seconds, result or None on a
    time-out)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    start = time.monotonic()
    try:
        done = subprocess.run([seam, "complete", "%s:%d:%d" % (path, line, col), "--train-stdlib", "false"]
                              + list(extra), capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, None
    return time.monotonic() - start, done


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def hostile_interpreter(seam, ch, tmp):
    """A workspace .venv/bin/python that is a script leaving a marker."""
    ws = tempfile.mkdtemp(prefix="ws-script-", dir=tmp)
    marker = os.path.join(tmp, "script-ran")
    make_venv(ws, "#!/bin/sh\ntouch '%s'\nexec %s \"$@\"\n" % (marker, PYTHON))
    write(os.path.join(ws, "main.py"), "import sys\nsys.\n")
    _, done = complete(seam, os.path.join(ws, "main.py"), 2, 5)
    ch.check(done is not None and done.returncode == 0, "seam complete in an untrusted workspace: %s" %
             (done.stderr[-300:] if done else "timed out"))
    ch.check(not os.path.exists(marker), "seam complete ran the untrusted workspace's .venv/bin/python")
    # through the language server too, with a completion that asks about a
    # compiled module
    c = Client(seam, ["lsp", "--stdio"], env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    lsp_complete(c, ws, "import sys\nsys.", 1, 4, {"train_stdlib": False, "debounce_ms": 0})
    status = lsp_exit(c)
    ch.check(status == 0, "the language server in an untrusted workspace exits cleanly (%r)" % status)
    ch.check(not os.path.exists(marker), "the language server ran the untrusted workspace's .venv/bin/python")
    # trusted, the environment's interpreter is asked (this check can fail)
    _, done = complete(seam, os.path.join(ws, "main.py"), 2, 5, "--workspace-trusted", "true")
    ch.check(os.path.exists(marker), "a trusted workspace's interpreter is asked about compiled modules")


def lsp_complete(c, root, text, line, character, options, timeout=30):
    """initialize with root, open main.py with text, ask one inline
    completion; its response (None: none in time)."""
    rid = c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root,
                                   "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                                   "initializationOptions": options})
    if c.response(rid, timeout=timeout) is None:
        return None
    c.notify("initialized", {})
    uri = "file://" + os.path.join(root, "main.py")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                       "text": text}})
    return ask(c, uri, line, character, timeout)


def ask(c, uri, line, character, timeout=30):
    rid = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": uri},
                                                      "position": {"line": line, "character": character},
                                                      "context": {"triggerKind": 1}})
    return c.response(rid, timeout=timeout)


def lsp_exit(c, limit=10):
    rid = c.request("shutdown", None)
    c.response(rid, timeout=limit)
    c.notify("exit", None)
    return c.wait(timeout=limit)[0]


def pth_file(seam, ch, tmp):
    """A .pth file in a workspace venv with a real interpreter: CPython runs
    its import lines at start-up unless -S; seam asks with -S, trusted or
    not."""
    ws = tempfile.mkdtemp(prefix="ws-pth-", dir=tmp)
    marker = os.path.join(tmp, "pth-ran")
    site = make_venv(ws)
    write(os.path.join(site, "seam_evil.pth"), "import os; open(%r, 'w').close()\n" % marker)
    # the scenario is real: the venv's interpreter with its site runs it
    subprocess.run([os.path.join(ws, ".venv", "bin", "python"), "-c", "pass"], check=False)
    ch.check(os.path.exists(marker), "the .pth file runs when the venv's interpreter starts normally")
    os.unlink(marker)
    write(os.path.join(ws, "main.py"), "import os\nos.\n")
    for trusted in ("false", "true"):
        _, done = complete(seam, os.path.join(ws, "main.py"), 2, 4, "--workspace-trusted", trusted)
        ch.check(done is not None and done.returncode == 0, "seam complete with a .pth (trusted %s)" % trusted)
        ch.check(not os.path.exists(marker), "a workspace .pth file ran (trusted %s)" % trusted)


def injection(seam, ch, tmp):
    """An interpreter deep under a folder whose name is a shell command."""
    marker = os.path.join(tmp, "injected")
    folder = os.path.join(tmp, "x$(touch${IFS}%s)" % marker)
    deep = os.path.join(folder, *(["d" * 200] * 6))
    site = make_venv(deep)
    ext = subprocess.run([PYTHON, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"],
                         capture_output=True, text=True).stdout.strip()
    # a compiled module in the site folder, so that the interpreter is asked
    shutil.copy(find_compiled("_json"), os.path.join(site, "seamcompiled" + ext))
    ws = tempfile.mkdtemp(prefix="ws-inject-", dir=tmp)
    write(os.path.join(ws, "main.py"), "import sys\nsys.\n")
    python = os.path.join(deep, ".venv", "bin", "python")
    _, done = complete(seam, os.path.join(ws, "main.py"), 2, 5, "--python-path", python)
    ch.check(done is not None and done.returncode == 0, "seam complete with a python_path named like a command")
    ch.check(not os.path.exists(marker), "a folder's name in python_path ran as a shell command")


def find_compiled(name):
    import importlib.util
    spec = importlib.util.find_spec(name)
    if spec and spec.origin and spec.origin.endswith(".so"):
        return spec.origin
    import glob
    return sorted(glob.glob("/usr/lib/python%s/lib-dynload/*.so" % VERSION))[0]


LAZY = """import sys, time
open({count!r}, "a").write("import\\n")
{action}
def __dir__():
    return ["known"]
def __getattr__(name):
    if name == "known":
        return 1
    raise AttributeError(name)
"""


def slow_packages(seam, ch, tmp):
    """Installed packages that say what they have with a module __dir__ (so
    seam imports them, trusted), one detaching a child that keeps standard
    output open, one sleeping past the budget."""
    ws = tempfile.mkdtemp(prefix="ws-slow-", dir=tmp)
    site = make_venv(ws)
    detach_count = os.path.join(tmp, "detach-imports")
    sleep_count = os.path.join(tmp, "sleep-imports")
    write(os.path.join(site, "seamdetach", "__init__.py"), LAZY.format(
        count=detach_count, action="import subprocess\nsubprocess.Popen(['sleep', '60.25'], start_new_session=True)"))
    write(os.path.join(site, "seamsleepy", "__init__.py"), LAZY.format(count=sleep_count, action="time.sleep(4)"))
    main = os.path.join(ws, "main.py")
    write(main, "import seamdetach\nseamdetach.\n")
    took, done = complete(seam, main, 2, 12, "--workspace-trusted", "true", timeout=60)
    ch.check(done is not None and done.returncode == 0,
             "seam complete with a package whose import detaches a child answers (%.1f s)" % took)
    ch.check(os.path.exists(detach_count), "the trusted package was imported to learn its names")
    # the language server: three completions in a file importing the sleepy
    # package, each with a budget shorter than its import; one import in all
    c = Client(seam, ["lsp", "--stdio"], env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    options = {"train_stdlib": False, "debounce_ms": 0, "workspace_trusted": True, "timeout_ms": 800}
    text = "import seamsleepy\nseamsleepy.\n"
    answered = [lsp_complete(c, ws, text, 1, 11, options) is not None]
    uri = "file://" + os.path.join(ws, "main.py")
    for _ in range(2):
        answered.append(ask(c, uri, 1, 11) is not None)
    ch.check(all(answered), "every completion in a file importing a slow package is answered: %r" % answered)
    time.sleep(5)    # the one import ends (4 s), and is not started again
    ask(c, uri, 1, 11)
    imports = open(sleep_count).read().count("import") if os.path.exists(sleep_count) else 0
    ch.check(imports == 1, "a package slower than the budget is imported once, not once per completion "
             "(%d times)" % imports)
    # a question being asked does not hold up the exit
    write(os.path.join(site, "seamslower", "__init__.py"), LAZY.format(count=sleep_count, action="time.sleep(30)"))
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                        "contentChanges": [{"text": "import seamslower\nseamslower.\n"}]})
    ask(c, uri, 1, 11)
    start = time.monotonic()
    status = lsp_exit(c)
    took = time.monotonic() - start
    ch.check(status == 0 and took < 5, "exit while Python is asked: status %r after %.1f s" % (status, took))


def noisy_package(seam, ch, tmp):
    """An installed package that prints megabytes at import and more at
    exit, some of it shaped like seam's own answers (Python's print and a
    raw write on file descriptor 1): none of it is taken for its names."""
    ws = tempfile.mkdtemp(prefix="ws-noisy-", dir=tmp)
    site = make_venv(ws)
    noise = "\n".join(["+seamnoisy", "fake_name", "-seamnoisy"] * 4) + "\n" + "x" * 1000
    write(os.path.join(site, "seamnoisy", "__init__.py"), LAZY.format(
        count=os.path.join(tmp, "noisy-imports"),
        action="import atexit, os\nfor _ in range(2000):\n    print(%r)\n    os.write(1, %r.encode())\n"
               "atexit.register(lambda: (print('fake_name'), os.write(1, b'fake_name\\n')))" % (noise, noise)))
    python = os.path.join(ws, ".venv", "bin", "python")
    left = "import seamnoisy\n\nvalue = "
    cases = [{"id": 1, "left": left, "middle": "seamnoisy.known", "right": "\n", "semantic": True},
             {"id": 2, "left": left, "middle": "seamnoisy.fake_name", "right": "\n", "semantic": True}]
    lines = "".join(json.dumps(c) + "\n" for c in cases)
    try:
        run = subprocess.run([seam, "check", "--python-path", python], input=lines, capture_output=True, text=True,
                             timeout=120, cwd="/")
        answers = [json.loads(line) for line in run.stdout.splitlines()]
    except (subprocess.TimeoutExpired, ValueError) as e:
        answers = []
        ch.check(False, "seam check with a noisy package: %s" % e)
    sem = [(a.get("semantic") or {}).get("complete") for a in answers]
    ch.check(sem == [True, False], "a noisy package's true name kept and printed fake one refused: %r" % sem)


def fifo_project(seam, ch, tmp):
    """A pyproject.toml and a .python-version that are FIFOs nobody writes."""
    ws = tempfile.mkdtemp(prefix="ws-fifo-", dir=tmp)
    os.mkfifo(os.path.join(ws, "pyproject.toml"))
    os.mkfifo(os.path.join(ws, ".python-version"))
    write(os.path.join(ws, "main.py"), "import os\nos.\n")
    _, done = complete(seam, os.path.join(ws, "main.py"), 2, 4, timeout=60)
    ch.check(done is not None, "seam complete next to a FIFO pyproject.toml ends")
    c = Client(seam, ["lsp", "--stdio"])
    got = lsp_complete(c, ws, "import os\nos.\n", 1, 3, {"train_stdlib": False, "debounce_ms": 0}, timeout=20)
    ch.check(got is not None, "initialize and a completion answered next to a FIFO pyproject.toml")
    lsp_exit(c)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seam", required=True)
    args = ap.parse_args()
    seam = os.path.abspath(args.seam)
    ch = Checker()
    tmp = tempfile.mkdtemp(prefix="seam-untrusted-")
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    os.environ["HOME"] = home       # seam's caches and models: the test's own
    os.environ["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    try:
        for scenario in (hostile_interpreter, pth_file, injection, slow_packages, noisy_package, fifo_project):
            scenario(seam, ch, tmp)
    finally:
        subprocess.run(["pkill", "-f", "sleep 60.25"], check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    print("untrusted: %d passed, %d failed" % (ch.passed, ch.failed))
    sys.exit(1 if ch.failed else 0)


if __name__ == "__main__":
    main()
