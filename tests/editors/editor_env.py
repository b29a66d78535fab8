"""What the editor checks share: the language server check's counter,
the judges (CPython, the backend checks' `valid`, for Python; Node's
parser for JavaScript; TypeScript's parser for TypeScript), and an environment whose HOME and XDG folders lie
inside a temporary folder (so that an editor writes nothing outside it)."""

import json
import os
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lsp"))
sys.path.insert(0, os.path.join(TESTS, "backends"))
from harness import valid as parses  # noqa: E402,F401
from lsp_check import Checker, needs_more  # noqa: E402,F401


def isolated_env(top):
    """os.environ with HOME and the XDG folders (created) under `top`."""
    home = os.path.join(top, "home")
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_DATA_HOME=os.path.join(home, ".local", "share"),
               XDG_STATE_HOME=os.path.join(home, ".local", "state"), XDG_RUNTIME_DIR=os.path.join(top, "run"))
    for key in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        os.makedirs(env[key], exist_ok=True)
    return env


def node_check(text):
    """Node's verdict on text as a CommonJS file (`node --check` parses and
    runs nothing): None when it parses, else its error message."""
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False, encoding="utf-8") as f:
        f.write(text)
    try:
        run = subprocess.run(["node", "--check", f.name], capture_output=True, text=True, timeout=60)
        return None if run.returncode == 0 else run.stderr
    finally:
        os.unlink(f.name)


def node_parses(text):
    """Whether Node's parser accepts text as a CommonJS file."""
    return node_check(text) is None


def node_needs_more(text):
    """Whether Node refuses text only because it stops too soon."""
    error = node_check(text)
    return error is not None and "Unexpected end of input" in error


def typescript_check(text, kind="ts"):
    """TypeScript 6.0.3's parser's verdict on text as a .ts file (kind
    "tsx": a .tsx file) (tests/typescript/parse.mjs; scripts/typescript.sh's
    cache, exported by scripts/test.sh as SEAM_TYPESCRIPT_DIR): None when it
    reads it without a diagnostic, else the first one's (message, UTF-16
    offset)."""
    root = os.path.dirname(TESTS)
    cache = os.environ.get("SEAM_TYPESCRIPT_DIR") or subprocess.run(
        [os.path.join(root, "scripts", "typescript.sh")], capture_output=True, text=True, check=True).stdout.strip()
    run = subprocess.run(["node", os.path.join(TESTS, "typescript", "parse.mjs"), "--typescript",
                          os.path.join(cache, "node_modules", "typescript", "lib", "typescript.js")],
                         input=json.dumps({"id": 0, "text": text, "kind": kind}) + "\n", capture_output=True,
                         text=True, timeout=60, check=True)
    answer = json.loads(run.stdout)
    return None if answer["ok"] else (answer.get("message", ""), answer.get("pos") or 0)


def ts_parses(text):
    """Whether TypeScript's parser reads text as a .ts file."""
    return typescript_check(text) is None


def ts_needs_more(text):
    """Whether TypeScript's parser refuses text only because it stops too
    soon: its first diagnostic stands at the end."""
    error = typescript_check(text)
    return error is not None and error[1] >= len(text.rstrip().encode("utf-16-le")) // 2


def tsx_parses(text):
    """Whether TypeScript's parser reads text as a .tsx file."""
    return typescript_check(text, "tsx") is None


def tsx_needs_more(text):
    """Whether TypeScript's parser refuses text as a .tsx file only because
    it stops too soon."""
    error = typescript_check(text, "tsx")
    return error is not None and error[1] >= len(text.rstrip().encode("utf-16-le")) // 2


def judges(path):
    """(parses, needs_more) for a file of this name: Node's for .js,
    TypeScript's for .ts and .tsx, else CPython's."""
    if path.endswith(".js"):
        return node_parses, node_needs_more
    if path.endswith(".ts"):
        return ts_parses, ts_needs_more
    if path.endswith(".tsx"):
        return tsx_parses, tsx_needs_more
    return parses, needs_more
