"""A real VS Code (code-server, in Debian's chromium, headless) with seam's
extension: ghost text typed for, accepted with Tab, saved, checked by CPython.

    SEAM_VSCODE_DIR=$(scripts/vscode.sh) SEAM_VSIX=$(scripts/vsix.sh) \\
        python3 tests/editors/vscode_check.py --seam build/debug/seam --artifacts DIR

(scripts/test.sh exports both.)

The extension is installed into a temporary extensions folder; code-server
runs with HOME, the XDG folders, its user data and its config inside a
temporary folder, and is stopped with everything it started.  In a folder
with a Python file, the test (through tests/editors/vscode_drive.js) waits
for the status bar to say seam is ready, then at several positions types a
line, waits for ghost text, accepts it with Tab and saves: the file on disk
must be the typed text plus the suggestion, and valid for CPython.  Then,
with VS Code's auto-closing of brackets on, it types lines at the end of a
file and in the middle of one, accepts the ghost text, finishes each line
past the closers the editor typed, and checks the file again.  One
suggestion must span several lines (a screenshot of it is saved in DIR).
It also checks the status bar's states: training then ready at start,
inline completions off (no ghost text) and on again, and an unreachable
backend named there and then cleared.  Prints the time from the last
keystroke to the ghost text (median over the positions).
"""

import argparse
import json
import os
import queue
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from editor_env import Checker, isolated_env, node_parses, parses, ts_parses, tsx_parses  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "backends"))
from hub_imitation import Hub  # noqa: E402
from llama_server import cache_dirs  # noqa: E402

SAMPLE = '''import os


def python_files(root):
    names = []
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            names.append(os.path.join(root, name))
    return names


def total_size(paths):
    size = 0
    return size


def main():
    files = python_files(".")
    print(total_size(files))
'''

# Code being typed, with VS Code's auto-closing of brackets and quotes on
# (its default): a file that ends inside main(), lines typed at its end and
# in the middle of it.  After the ghost text is accepted the person goes to
# the end of the line (past the closers the editor typed) and finishes the
# line there: `finish`.
TYPING = '''import os


def listing(root):
    names = []
    return names


def main():
'''
TYPED = [
    # (the line to type after, None for the end of the file; typed; finish)
    (None, "    for name in os.listdir(", ":\n        print(name)\n"),
    ("    names = []", "    names = sorted(os.listdir(", ""),
    (None, "    path = os.path.join(", "\n"),
    (None, "    if os.path.exists(", ":\n        pass\n"),
    (None, "    with open(", " as f:\n        pass\n"),
]

# The same in a JavaScript file: the language server reads it with
# JavaScript's grammar, and Node's parser judges the file.
TYPING_JS = """const fs = require("fs");

function listFiles(root) {
  const names = [];
  return names;
}

"""

# TypeScript's: the language server reads a .ts file with TypeScript's
# grammar, and TypeScript's parser judges the file.
TYPING_TS = """interface Entry {
  name: string;
  size: number;
}

function total(entries: Entry[]): number {
  let sum = 0;
  return sum;
}

"""

TYPED_TS = [
    ("  let sum = 0;", "  sum += Math.max(", ""),
    (None, "console.log(total(", ";\n"),
    (None, "const sizes: Map<string, number> = new Map(", ";\n"),
]

TYPING_TSX = """interface Props {
  names: string[];
}

export function List({ names }: Props) {
  const count = names.length;
  return <ul>{names.map((n) => <li key={n}>{n}</li>)}</ul>;
}

"""

# a line in a component, an element's attribute (its tag closed by hand,
# self-closing: VS Code closes an opening tag's when ">" is typed) and a
# generic arrow, which a .tsx file tells from an element by its ","
TYPED_TSX = [
    ("  const count = names.length;", "  const label = String(", ""),
    (None, "const title = <List names={", " />;\n"),
    (None, "const first = <T,>(xs: T[]) => xs[", ";\n"),
]

TYPED_JS = [
    ("  const names = [];", "  names.push(...fs.readdirSync(", ""),
    (None, "console.log(listFiles(", ";\n"),
    (None, "for (const name of listFiles(", " console.log(name);\n"),
]


# The latency budget of the typed lines' completions when seam runs under
# the sanitizers (--sanitized): the default, 1500 ms, is the product's, and
# the embedded model's decoding takes about ten times as long there.
SANITIZED_BUDGET_MS = 8000

# Where to type: after the line that starts with the anchor (its first
# occurrence in the file as it is then), a new line with this text.
POSITIONS = [
    ("    size = 0", "    for path in paths:\n        size += "),
    ("    print(total_size(files))", "\n\ndef count_lines(path):\n    "),
    ("    print(total_size(files))", "    for name in files:\n        print("),
    ("    names = []", "    if not os.path.isdir(root):\n        "),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    """tests/editors/vscode_drive.js: a JSON command in, a JSON answer out."""

    def __init__(self, node, tools, url, env):
        self.proc = subprocess.Popen(
            [node, os.path.join(HERE, "vscode_drive.js"), url, "/usr/bin/chromium"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(env, NODE_PATH=os.path.join(tools, "tools", "node_modules")), start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def answer(self, timeout):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return {"ok": False, "error": "no answer in %d s" % timeout}
        if line is None:
            return {"ok": False, "error": "the driver exited: %s" % "".join(self.stderr[-20:])}
        return json.loads(line)

    def do(self, op, timeout=60, **args):
        self.proc.stdin.write(json.dumps(dict(args, op=op)) + "\n")
        self.proc.stdin.flush()
        return self.answer(timeout)

    def close(self):
        try:
            if self.proc.poll() is None:
                self.do("quit", timeout=10)
        except (BrokenPipeError, OSError):
            pass
        stop_group(self.proc)


def stop_group(proc):
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def type_keys(driver, text):
    """Types text as keystrokes, hiding any ghost text (Escape) before each
    opening bracket: VS Code types an opener that the ghost text shows
    through it, without auto-closing it, so a suggestion arriving while
    the line is typed would leave the editor's closer out."""
    segment = ""
    for c in text:
        if c in "([{":
            if segment:
                driver.do("type", text=segment)
                segment = ""
            driver.do("key", key="Escape")
        segment += c
    if segment:
        driver.do("type", text=segment)


def type_after(driver, path, anchor, text):
    """Types a new line after the first line that is `anchor` (in the file
    as saved); returns the file's text and the offset where the line
    ends, or (text, -1) when there is no such line."""
    before = read(path)
    start = before.find("\n" + anchor + "\n")
    if start < 0:
        return before, -1
    driver.do("goto", line=before[:start + 1].count("\n") + 1, col=len(anchor) + 1)
    type_keys(driver, "\n" + text)
    return before, start + 1 + len(anchor)


def closers_of(typed):
    """What VS Code's auto-closing has put after the cursor once `typed`
    (a line without strings) is typed: the closers of the brackets it
    leaves open, innermost first."""
    stack = []
    for c in typed:
        if c in "([{":
            stack.append({"(": ")", "[": "]", "{": "}"}[c])
        elif c in ")]}" and stack:
            stack.pop()
    return "".join(reversed(stack))


def typing_checks(driver, work, check, artifacts, name="typing.py", lines=TYPED, valid=parses,
                  reference="CPython", budget_ms=None):
    """Lines typed with auto-closing on, at the end of a file and in the
    middle of one: ghost text for each, accepted with Tab, the line
    finished past the editor's closers, the file valid for the language's
    own parser (`valid`)."""
    folder_settings = os.path.join(work, ".vscode", "settings.json")
    settings = {"editor.autoClosingBrackets": "languageDefined",
                "editor.autoClosingQuotes": "languageDefined"}
    if budget_ms:
        settings["seam.timeout_ms"] = budget_ms
    write_json(folder_settings, settings)
    time.sleep(4)   # (the settings file is watched)
    path = os.path.join(work, name)
    r = driver.do("open", file=name)
    check(r.get("ok"), "Quick Open opens %s: %r" % (name, r))
    for anchor, typed, finish in lines:
        if anchor is None:
            before = read(path)
            at = len(before)
            # (Go to Line waits for the editor; a bare Control+End pressed
            # while a loaded machine still opens the file can be lost)
            driver.do("goto", line=before.count("\n") + 1, col=1)
            type_keys(driver, typed)
            head = typed
        else:
            before, at = type_after(driver, path, anchor, typed)
            if not check(at >= 0, "anchor %r in %s" % (anchor, name)):
                continue
            head = "\n" + typed
        where = "at the end of the file" if anchor is None else "in the middle of the file"
        shown = driver.do("ghost", timeout_ms=8000)
        for _ in range(2):
            if shown.get("text"):
                break
            # The automatic request may rightly give nothing (the model's
            # end); the person asks explicitly (Trigger Inline Suggestion),
            # again if a loaded machine let the first answer come too late.
            driver.do("command", title="Trigger Inline Suggestion")
            shown = driver.do("ghost", timeout_ms=30000, timeout=90)
        text = shown.get("text")
        if not check(text, "ghost text %s after typing %r with auto-closing on: %r" % (where, typed, shown)):
            driver.do("screenshot", path=os.path.join(os.path.abspath(artifacts), "vscode-typing-no-ghost.png"))
            driver.do("key", key="End")
            driver.do("type", text=finish)
            driver.do("key", key="Control+S")
            time.sleep(0.5)
            continue
        driver.do("key", key="Tab")
        driver.do("key", key="End")
        driver.do("type", text=finish)
        driver.do("key", key="Control+S")
        # A ghost that ends with the editor's first closers (asked before
        # the editor had put them all in) is merged with them by VS Code,
        # which writes over the closers the suggestion repeats.
        closers = closers_of(typed)
        merged = max(k for k in range(len(closers) + 1) if text.endswith(closers[:k]))
        accepted = {before[:at] + head + text + closers[k:] + finish + before[at:] for k in {0, merged}}
        expected = before[:at] + head + text + closers[merged:] + finish + before[at:]
        got = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            got = read(path)
            if got in accepted:
                expected = got
                break
            time.sleep(0.1)
        check(got == expected, "typed %r %s, ghost %r, the line finished with %r: the file is %r, not %r"
              % (typed, where, text, finish, got, expected))
        check(valid(got), "the file after typing %r and finishing the line is valid for %s:\n%s"
              % (typed + text, reference, got))
    write_json(folder_settings, {})
    time.sleep(4)   # (the settings file is watched)
    if os.environ.get("SEAM_VSCODE_DEBUG"):
        driver.do("screenshot", path=os.path.join(os.path.abspath(artifacts), "vscode-after-typing.png"))


def seam_processes(under):
    """The executables of the running seam processes under a folder (or
    started from one through a link)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            exe = os.readlink("/proc/%s/exe" % pid)
            cmd = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")[0].decode()
        except OSError:
            continue
        if os.path.basename(exe) == "seam" and (exe.startswith(under) or cmd.startswith(under)):
            found.append(exe)
    return sorted(set(found))


def check_portable(check, binary, exts):
    """The carried seam needs nothing a plain Debian 12 lacks: libc and libm,
    and libcjson from the extension's own lib/."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    libs = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and "=>" in parts:
            libs[parts[0]] = parts[parts.index("=>") + 1]
    allowed = {"libc.so.6", "libm.so.6", "libcjson.so.1"}
    check(set(libs) <= allowed and libs.get("libcjson.so.1", "").startswith(exts),
          "the carried seam links libc, libm and its own libcjson only: %r" % libs)


def download_checks(driver, check, env, seam_log):
    """The offered download: progress in the status bar, then seam
    restarted with the model, whole."""
    r = driver.do("notification_click", text="Download qwen2.5-coder-1.5b", button="Download",
                  timeout_ms=20000, timeout=60)
    check(r.get("ok"), "the notification's Download button: %r" % r)
    r = driver.do("wait_status", label="seam: downloading the model", timeout_ms=30000, timeout=40)
    check(r.get("found"), "the status bar shows the download: %r" % r)
    model = os.path.join(env["XDG_CACHE_HOME"], "seam", "models", "qwen2.5-coder-1.5b-q8_0.gguf")
    deadline = time.monotonic() + 180
    used = False
    while time.monotonic() < deadline and not used:
        time.sleep(1)
        used = os.path.exists(seam_log) and ("using the model %s in process" % model) in read(seam_log)
    r = driver.do("wait_status", label="seam: ready", timeout_ms=120000, timeout=150)
    check(used and os.path.isfile(model) and r.get("found"),
          "the model is downloaded whole, and seam restarted with it is ready: %r %r" % (used, r))


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- An imitation of the Python extension ----------------------------------------

# What the Python extension (ms-python.python) exposes to other extensions,
# as far as seam's extension uses it: environments.getActiveEnvironmentPath()
# and onDidChangeActiveEnvironmentPath.  The interpreter it selects is read
# from a file the test writes (SEAM_TEST_INTERPRETER), polled, as a user
# picking another interpreter would change it.
PYTHON_IMITATION_JS = r"""
'use strict';
const vscode = require('vscode');
const fs = require('fs');
function activate(context) {
  const file = process.env.SEAM_TEST_INTERPRETER;
  const read = () => { try { return fs.readFileSync(file, 'utf8').trim(); } catch { return ''; } };
  const changed = new vscode.EventEmitter();
  let current = read();
  const timer = setInterval(() => {
    const now = read();
    if (now && now !== current) {
      current = now;
      changed.fire({ id: now, path: now });
    }
  }, 200);
  context.subscriptions.push({ dispose: () => clearInterval(timer) }, changed);
  return {
    environments: {
      getActiveEnvironmentPath: () => ({ id: current, path: current }),
      onDidChangeActiveEnvironmentPath: changed.event,
    },
  };
}
module.exports = { activate, deactivate: () => undefined };
"""


def python_imitation_vsix(path):
    """A .vsix of the imitation, as vsce lays one out."""
    manifest = {"name": "python", "publisher": "ms-python", "version": "2099.1.0", "displayName": "Python (test)",
                "engines": {"vscode": "^1.80.0"}, "main": "./extension.js", "activationEvents": ["onLanguage:python"]}
    vsixmanifest = """<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id="python" Version="2099.1.0" Publisher="ms-python" />
    <DisplayName>Python (test)</DisplayName>
    <Description xml:space="preserve">An imitation of the Python extension's environments API.</Description>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="^1.80.0" />
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace" />
    </Properties>
  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code" />
  </Installation>
  <Dependencies />
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true" />
  </Assets>
</PackageManifest>
"""
    types = ('<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
             'content-types"><Default Extension=".json" ContentType="application/json"/><Default Extension=".js" '
             'ContentType="application/javascript"/><Default Extension=".vsixmanifest" ContentType="text/xml"/>'
             '</Types>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", types)
        z.writestr("extension.vsixmanifest", vsixmanifest)
        z.writestr("extension/package.json", json.dumps(manifest))
        z.writestr("extension/extension.js", PYTHON_IMITATION_JS)


def fake_interpreter(top, name, version):
    """A virtual environment's interpreter seam reads the version of from its
    pyvenv.cfg (never run)."""
    root = os.path.join(top, name)
    os.makedirs(os.path.join(root, "bin"))
    with open(os.path.join(root, "pyvenv.cfg"), "w") as f:
        f.write("home = /usr/bin\ninclude-system-site-packages = false\nversion = %s\n" % version)
    python = os.path.join(root, "bin", "python")
    with open(python, "w") as f:
        f.write("")
    return python


def wait_for_log(seam_log, text, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(seam_log) and text in read(seam_log):
            return True
        time.sleep(0.3)
    return False


def user_settings(trust=False):
    """The user settings of the tests' VS Code: literal typing, nothing
    that opens by itself; workspace trust off, or (trust) on with the
    folder opened in Restricted Mode without asking."""
    settings = {
        "workbench.startupEditor": "none",
        "chat.disableAIFeatures": True,
        "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoUpdate": False,
        "extensions.autoCheckUpdates": False,
        "workbench.tips.enabled": False,
        # typing is literal: no list to hide the ghost text, no indentation
        # or closing brackets added
        "editor.quickSuggestions": {"other": "off", "comments": "off", "strings": "off"},
        "editor.suggestOnTriggerCharacters": False,
        "editor.wordBasedSuggestions": "off",
        "editor.parameterHints.enabled": False,
        "editor.autoIndent": "none",
        "editor.autoClosingBrackets": "never",
        "editor.autoClosingQuotes": "never",
        "editor.autoSurround": "never",
        "editor.formatOnType": False,
        "editor.detectIndentation": False,
        "editor.insertSpaces": True,
        "editor.tabSize": 4,
        "editor.inlineSuggest.enabled": True,
        "editor.wordWrap": "off",
        "files.autoSave": "off",
    }
    if trust:
        settings.update({"security.workspace.trust.enabled": True,
                         "security.workspace.trust.startupPrompt": "never",
                         "security.workspace.trust.emptyWindow": False})
    return settings


RESTRICTED = """import os
import sys


def main():
    return os.getcwd()
"""


def restricted_mode_checks(node, entry, tools, top, env, exts, check, seam_log):
    """VS Code's Restricted Mode (workspace trust on, the folder not
    trusted): the extension runs (limited support) and tells seam the
    workspace is not trusted; the folder's .venv, whose bin/python writes a
    marker when run, is read and never run, while completions come as
    usual."""
    work = os.path.join(top, "untrusted-project")
    marker = os.path.join(top, "the-workspace-python-ran")
    venv = os.path.join(work, ".venv")
    os.makedirs(os.path.join(venv, "bin"))
    os.makedirs(os.path.join(venv, "lib", "python3.11", "site-packages"))
    with open(os.path.join(venv, "pyvenv.cfg"), "w") as f:
        f.write("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n")
    python = os.path.join(venv, "bin", "python")
    with open(python, "w") as f:
        f.write("#!/bin/sh\ntouch '%s'\nexec python3 \"$@\"\n" % marker)
    os.chmod(python, 0o755)
    path = os.path.join(work, "main.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(RESTRICTED)
    data = os.path.join(top, "user-data-restricted")
    # the embedded model: the model the first phase downloaded has random
    # weights, which complete nothing here
    write_json(os.path.join(data, "User", "settings.json"), dict(user_settings(trust=True), **{"seam.backend": "embedded"}))
    port = free_port()
    config = os.path.join(top, "code-server-restricted.yaml")
    with open(config, "w") as f:
        f.write("bind-addr: 127.0.0.1:%d\nauth: none\ncert: false\n" % port)
    server = subprocess.Popen([node, entry, "--config", config, "--user-data-dir", data, "--extensions-dir", exts,
                               "--disable-telemetry", "--disable-update-check", "--disable-getting-started-override",
                               "--reconnection-grace-time", "1", work],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                              start_new_session=True)
    server_log = []
    threading.Thread(target=lambda: server_log.extend(server.stdout), daemon=True).start()
    driver = None
    try:
        deadline = time.monotonic() + 120
        up = False
        while time.monotonic() < deadline and server.poll() is None and not up:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=2).read()
                up = True
            except OSError:
                time.sleep(0.3)
        if not check(up, "code-server answers (Restricted Mode): %s" % "".join(server_log[-20:])):
            return
        driver = Driver(node, tools, "http://127.0.0.1:%d/?folder=%s" % (port, work), env)
        r = driver.answer(120)
        if not check(r.get("ready"), "VS Code's workbench loads in Restricted Mode: %r" % r):
            return
        r = driver.do("open", file="main.py")
        check(r.get("ok"), "Quick Open opens main.py in Restricted Mode: %r" % r)
        r = driver.do("wait_status", label="seam: ready", timeout_ms=90000, timeout=120)
        check(r.get("found"), "in Restricted Mode the extension runs (limited support) and seam is ready: %r" % r)
        before, at = type_after(driver, path, "    return os.getcwd()", "    print(sys.")
        shown = driver.do("ghost", timeout_ms=15000)
        check(at >= 0 and shown.get("text"), "in Restricted Mode, ghost text after typing: %r" % shown)
        check(wait_for_log(seam_log, "the workspace is not trusted: read, never run", 30),
              "seam is told the workspace is not trusted and reads its .venv without running it: %r"
              % read(seam_log)[-1500:])
        check(not os.path.exists(marker), "the untrusted workspace's bin/python never ran")
    finally:
        if driver:
            driver.close()
        stop_group(server)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--tools", default=os.environ.get("SEAM_VSCODE_DIR"),
                    help="scripts/vscode.sh's cache folder (default: $SEAM_VSCODE_DIR)")
    ap.add_argument("--vsix", default=os.environ.get("SEAM_VSIX"), help="default: $SEAM_VSIX")
    ap.add_argument("--artifacts", required=True, help="where the screenshot goes")
    ap.add_argument("--sanitized", action="store_true",
                    help="seam runs under ASan and UBSan, several times slower: the typed lines' completions "
                         "get %d ms instead of the default budget (timeout_ms), which the embedded model's "
                         "decoding can use up there" % SANITIZED_BUDGET_MS)
    args = ap.parse_args()
    if not args.tools or not os.path.isfile(os.path.join(args.tools, ".complete")):
        raise SystemExit("SEAM_VSCODE_DIR does not name scripts/vscode.sh's cache: run scripts/test.sh "
                         "(or export SEAM_VSCODE_DIR=$(scripts/vscode.sh))")
    if not args.vsix or not os.path.isfile(args.vsix):
        raise SystemExit("SEAM_VSIX does not name the extension: run scripts/test.sh "
                         "(or export SEAM_VSIX=$(scripts/vsix.sh))")
    seam = os.path.abspath(args.seam)
    node = os.path.join(args.tools, "node", "bin", "node")
    entry = os.path.join(args.tools, "tools", "node_modules", "code-server", "out", "node", "entry.js")
    counts = Checker()
    check = counts.check
    top = tempfile.mkdtemp(prefix="seam-vscode-")
    env = isolated_env(top)
    # No seam.path and no seam on PATH or in ~/.local/bin: the extension
    # uses the seam it carries (the platform .vsix).
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and not os.path.exists(os.path.join(d, "seam")))
    local_bin = os.path.join(env["HOME"], ".local", "bin")
    os.makedirs(local_bin, exist_ok=True)
    # a local imitation of Hugging Face's hub, serving a tiny model under
    # the name of the model the extension offers
    hub = Hub()
    _, test_models = cache_dirs()
    hub.add("ggml-org/Qwen2.5-Coder-1.5B-Q8_0-GGUF", "qwen2.5-coder-1.5b-q8_0.gguf",
            os.path.join(test_models, "random-qwen2.gguf"))
    env["HF_ENDPOINT"] = hub.endpoint
    data = os.path.join(top, "user-data")
    exts = os.path.join(top, "extensions")
    work = os.path.join(top, "project")
    os.makedirs(work)
    # seam's own log, shown when a check fails
    seam_log = os.path.join(top, "seam.log")
    write_json(os.path.join(env["XDG_CONFIG_HOME"], "seam", "config.json"),
               {"log_file": seam_log, "log_level": "debug"})
    path = os.path.join(work, "sample.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(SAMPLE)
    # written before the editor starts, so that Quick Open's file search
    # knows it (a file made later waits for the file watcher)
    with open(os.path.join(work, "typing.py"), "w", encoding="utf-8") as f:
        f.write(TYPING)
    with open(os.path.join(work, "typing.js"), "w", encoding="utf-8") as f:
        f.write(TYPING_JS)
    with open(os.path.join(work, "typing.ts"), "w", encoding="utf-8") as f:
        f.write(TYPING_TS)
    with open(os.path.join(work, "typing.tsx"), "w", encoding="utf-8") as f:
        f.write(TYPING_TSX)
    settings_path = os.path.join(data, "User", "settings.json")
    settings = user_settings()
    write_json(settings_path, settings)
    port = free_port()
    config = os.path.join(top, "code-server.yaml")
    with open(config, "w") as f:
        f.write("bind-addr: 127.0.0.1:%d\nauth: none\ncert: false\n" % port)
    common = ["--config", config, "--user-data-dir", data, "--extensions-dir", exts]

    # the Python extension, imitated, selects an interpreter of its own
    interpreter_a = fake_interpreter(top, "env-313", "3.13.1")
    interpreter_b = fake_interpreter(top, "env-312", "3.12.3")
    env["SEAM_TEST_INTERPRETER"] = os.path.join(top, "selected-interpreter")
    with open(env["SEAM_TEST_INTERPRETER"], "w") as f:
        f.write(interpreter_a)
    imitation = os.path.join(top, "ms-python.python-2099.1.0.vsix")
    python_imitation_vsix(imitation)
    install = subprocess.run([node, entry] + common + ["--install-extension", imitation],
                             capture_output=True, text=True, env=env, timeout=300)
    check(install.returncode == 0, "the imitation of the Python extension installs: %s %s"
          % (install.stdout[-500:], install.stderr[-500:]))
    install = subprocess.run([node, entry] + common + ["--install-extension", os.path.abspath(args.vsix)],
                             capture_output=True, text=True, env=env, timeout=300)
    check(install.returncode == 0 and os.path.isdir(os.path.join(exts)) and
          any(d.startswith("seam.seam-") for d in os.listdir(exts)),
          "the .vsix installs: %s %s" % (install.stdout[-500:], install.stderr[-500:]))

    server = subprocess.Popen([node, entry] + common + [
        "--disable-workspace-trust", "--disable-telemetry", "--disable-update-check",
        "--disable-getting-started-override", "--reconnection-grace-time", "1", work],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    server_log = []
    threading.Thread(target=lambda: server_log.extend(server.stdout), daemon=True).start()
    driver = None
    latencies = []
    try:
        url = "http://127.0.0.1:%d/?folder=%s" % (port, work)
        deadline = time.monotonic() + 120
        up = False
        while time.monotonic() < deadline and server.poll() is None:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=2).read()
                up = True
                break
            except OSError:
                time.sleep(0.3)
        if not check(up, "code-server answers: %s" % "".join(server_log[-20:])):
            raise RuntimeError("code-server did not start")
        driver = Driver(node, args.tools, url, env)
        r = driver.answer(120)
        if not check(r.get("ready"), "VS Code's workbench loads: %r" % r):
            raise RuntimeError("no workbench")
        r = driver.do("open", file="sample.py")
        check(r.get("ok"), "Quick Open opens sample.py: %r" % r)
        r = driver.do("wait_status", label="seam: ready", timeout_ms=90000, timeout=120)
        check(r.get("found"), "with no seam.path and no seam installed, the seam in the .vsix starts, "
                              "and the status bar says it is ready: %r" % r)
        # no pyproject.toml in the folder: the interpreter the Python
        # extension selected says which Python (python_path)
        check(wait_for_log(seam_log, "Python 3.13: the interpreter %s (python_path)" % interpreter_a, 20),
              "python_path from the Python extension's interpreter: %r" % read(seam_log)[-1500:])
        bundled = seam_processes(exts)
        check(bundled and all(p.endswith("/bin/seam") for p in bundled),
              "the seam running is the extension's own: %r" % bundled)
        if bundled:
            check_portable(check, bundled[0], exts)
        offer = driver.do("notification", text="Download qwen2.5-coder-1.5b (1.65 GB)", timeout_ms=30000, timeout=40)
        check(offer.get("found") and "embedded model" in (offer.get("message") or ""),
              "with no model, one notification offers the download, with its size: %r" % offer)
        check("seam: training the model" in r.get("seen", []) and
              r["seen"].index("seam: training the model") < len(r["seen"]) - 1,
              "the status bar showed the model training before ready: %r" % r.get("seen"))

        multi_line = False
        for anchor, typed in POSITIONS:
            before, at = type_after(driver, path, anchor, typed)
            if not check(at >= 0, "anchor %r in the file" % anchor):
                continue
            shown = driver.do("ghost", timeout_ms=15000)
            text = shown.get("text")
            if not check(text, "ghost text after typing %r: %r" % (typed, shown)):
                shot = os.path.join(os.path.abspath(args.artifacts), "vscode-no-ghost-text.png")
                driver.do("screenshot", path=shot)
                print("screenshot without ghost text: %s" % shot)
                driver.do("key", key="Control+S")
                continue
            latencies.append(shown["ms"])
            if os.environ.get("SEAM_VSCODE_DEBUG"):
                print(json.dumps(driver.do("ghost_html"), indent=1))
            if "\n" in text and not multi_line:
                multi_line = True
                shot = os.path.join(os.path.abspath(args.artifacts), "vscode-ghost-text.png")
                r = driver.do("screenshot", path=shot)
                check(r.get("ok") and os.path.getsize(shot) > 10000, "a screenshot of the ghost text: %r" % r)
                print("screenshot of multi-line ghost text: %s" % shot)
            driver.do("key", key="Tab")
            driver.do("key", key="Control+S")
            expected = before[:at] + "\n" + typed + text + before[at:]
            got = None
            deadline = time.monotonic() + 10
            # (a save truncates then writes: a read between sees nothing, so
            # the file is read until it holds what is expected or time ends)
            while time.monotonic() < deadline:
                got = read(path)
                if got == expected:
                    break
                time.sleep(0.1)
            check(got == expected, "Tab inserts the ghost text where it was shown: typed %r, ghost %r, file %r"
                  % (typed, text, got))
            check(parses(got), "the file after %r + %r is valid for CPython:\n%s" % (typed, text, got))
        check(multi_line, "one suggestion spans several lines")
        if latencies:
            print("keystroke to ghost text: median %.0f ms over %d positions (%s)"
                  % (statistics.median(latencies), len(latencies), ", ".join("%d" % x for x in latencies)))

        # Inline completions off: the status bar says so, and typing shows nothing.
        driver.do("command", title="seam: Toggle Inline Completions")
        r = driver.do("wait_status", label="seam: inline completions off", timeout_ms=10000)
        check(r.get("found"), "toggled off: the status bar says so: %r" % r)
        before, at = type_after(driver, path, "    return size", "    ")
        r = driver.do("no_ghost", ms=4000)
        check(r.get("ok") and not r.get("shown"), "no ghost text while inline completions are off: %r" % r)
        driver.do("command", title="seam: Toggle Inline Completions")
        r = driver.do("wait_status", label="seam: ready", timeout_ms=10000)
        check(r.get("found"), "toggled on: ready again: %r" % r)
        driver.do("type", text="total = len(")
        shown = driver.do("ghost", timeout_ms=15000)
        check(shown.get("text"), "ghost text again once toggled on: %r" % shown)
        driver.do("key", key="Tab")
        driver.do("key", key="Control+S")
        time.sleep(0.5)
        got = read(path)
        check(got == before[:at] + "\n    total = len(" + (shown.get("text") or "") + before[at:] and parses(got),
              "what was typed while off and after, and the suggestion, are in the file: %r" % got)

        # VS Code's default quick suggestions: seam's completion does not
        # open the suggestion list (which would hide the ghost text).
        folder_settings = os.path.join(work, ".vscode", "settings.json")
        write_json(folder_settings, {"editor.quickSuggestions": {"other": "on", "comments": "off", "strings": "off"}})
        time.sleep(4)   # (the settings file is watched)
        type_after(driver, path, "    return names", "    print(names")
        shown = driver.do("ghost", timeout_ms=15000)
        r = driver.do("suggest_visible")
        driver.do("key", key="Escape")
        driver.do("key", key="Control+S")
        time.sleep(0.5)
        check(shown.get("text") and r.get("ok") and not r.get("visible"),
              "with quick suggestions on: ghost text and no suggestion list: %r %r in %r" % (shown, r, read(path)))

        # A backend that cannot be reached: the status bar names it; the
        # setting removed, seam is ready again.
        write_json(folder_settings, {"seam.backend": "llamacpp", "seam.endpoint": "http://127.0.0.1:%d" % free_port()})
        # (the settings file is watched: keep asking until they arrive)
        for _ in range(10):
            driver.do("type", text=" ")
            r = driver.do("wait_status", label="seam: backend unreachable", timeout_ms=3000)
            if r.get("found"):
                break
        check(r.get("found"), "an unreachable backend in the status bar: %r" % r)
        write_json(folder_settings, {})
        r = driver.do("wait_status", label="seam: ready", timeout_ms=30000)
        check(r.get("found"), "the settings removed: the embedded model, ready: %r" % r)

        # Restart; the log in an output channel (its end: what the new
        # server said); a binary that is not there.
        earlier = len(driver.do("status").get("seen", []))
        driver.do("command", title="seam: Restart the Language Server")
        # (the command runs after the palette closes: the status still says
        # ready until the old server stops, so wait for it to change first)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(driver.do("status").get("seen", [])) <= earlier:
            time.sleep(0.1)
        r = driver.do("wait_status", label="seam: ready", timeout_ms=60000, timeout=90)
        since = r.get("seen", [])[earlier:]
        check(r.get("found") and since[-1:] == ["seam: ready"] and
              {"seam: starting", "seam: training the model"} & set(since[:-1]),
              "restarted: starting or training (a new embedded model), then ready: %r" % since)
        driver.do("command", title="seam: Show the Log")
        # (the panel draws only the lines in view, the end: the extension's
        # own line for the state the new server reported)
        r = driver.do("panel_has", text="state: ready", timeout_ms=15000)
        check(r.get("found"), "seam's log in the output channel: %r" % r)
        write_json(folder_settings, {"seam.path": os.path.join(top, "no-such-seam")})
        r = driver.do("wait_status", label="seam: binary not found", timeout_ms=20000, timeout=30)
        check(r.get("found"), "a seam.path that names nothing: the status bar says so: %r" % r)
        # seam in ~/.local/bin (where scripts/install.sh puts it) comes
        # before the extension's own: the build under test from here on
        os.symlink(seam, os.path.join(local_bin, "seam"))
        write_json(folder_settings, {})
        r = driver.do("wait_status", label="seam: ready", timeout_ms=60000, timeout=90)
        check(r.get("found") and seam_processes(top) == [os.path.realpath(seam)],
              "seam.path removed: seam found in ~/.local/bin, ready: %r %r" % (r, seam_processes(top)))

        budget = SANITIZED_BUDGET_MS if args.sanitized else None
        typing_checks(driver, work, check, args.artifacts, budget_ms=budget)
        typing_checks(driver, work, check, args.artifacts, "typing.js", TYPED_JS, node_parses, "Node", budget)
        typing_checks(driver, work, check, args.artifacts, "typing.ts", TYPED_TS, ts_parses, "TypeScript's parser",
                      budget)
        typing_checks(driver, work, check, args.artifacts, "typing.tsx", TYPED_TSX, tsx_parses,
                      "TypeScript's parser (TSX)", budget)
        download_checks(driver, check, env, seam_log)
        # another interpreter selected in the Python extension: seam follows
        with open(env["SEAM_TEST_INTERPRETER"], "w") as f:
            f.write(interpreter_b)
        check(wait_for_log(seam_log, "Python 3.12: the interpreter %s (python_path)" % interpreter_b, 30),
              "another interpreter selected: seam told, and reads 3.12: %r" % read(seam_log)[-1500:])
        driver.close()
        driver = None
        stop_group(server)
        restricted_mode_checks(node, entry, args.tools, top, env, exts, check, seam_log)
    except RuntimeError as e:
        check(False, str(e))
    finally:
        if driver:
            driver.close()
        stop_group(server)
        leftover = subprocess.run(["pgrep", "-f", top], capture_output=True, text=True).stdout.split()
        check(not leftover, "every process the test started has stopped: %r" % leftover)
        if counts.failed and os.path.exists(seam_log):
            print("seam's log (the end):\n" + read(seam_log)[-6000:])
        hub.close()
        shutil.rmtree(top, ignore_errors=True)
    print("vscode: %d passed, %d failed" % (counts.passed, counts.failed))
    return 1 if counts.failed else 0


if __name__ == "__main__":
    sys.exit(main())
