"""What seam's backend checks share: counting checks, writing a case file
and running `seam complete --json` on it."""

import ast
import json
import os
import subprocess
import tempfile
import time


def valid(text):
    """Whether CPython accepts the program."""
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


def sound(out, left, right):
    """Whether a completion seam found keeps its promise: left + completion
    + right is a program, or, for a partial one (widened, whole lines of a
    middle that goes on), it writes something and ends at a line end."""
    text = out["completion"]
    if out.get("partial"):
        return bool(text.strip()) and not text.endswith(("\n", "\r")) and out.get("widened", False)
    return valid(left + text + right)


class Checker:
    def __init__(self, seam, prefix="seam-backends-"):
        self.seam = seam
        self.passed = 0
        self.failed = 0
        self.dir = tempfile.mkdtemp(prefix=prefix)

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL:", what)
        return ok

    def write_case(self, left, right, name="case.py"):
        """Writes left + right and returns FILE:LINE:COL of the cursor."""
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(left + right)
        line = left.count("\n") + 1
        col = len(left.rsplit("\n", 1)[-1]) + 1
        return "%s:%d:%d" % (path, line, col)

    def complete(self, where, settings, timeout=20, env=None):
        """(run, the JSON answer or None, seconds).  The answer must be UTF-8
        JSON, even where a token ends inside a character."""
        cmd = [self.seam, "complete", where, "--json"] + settings
        start = time.monotonic()
        run = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
        elapsed = time.monotonic() - start
        run.stderr = run.stderr.decode("utf-8", "replace")
        out = None
        try:
            out = json.loads(run.stdout.decode("utf-8")) if run.stdout.strip() else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            out = None
        run.stdout = run.stdout.decode("utf-8", "replace")
        return run, out, elapsed
