"""Emacs from Debian as a real LSP client of seam, through eglot and through
lsp-mode (batch mode).

    python3 tests/editors/emacs_check.py --seam build/debug/seam

For each client and each case, Emacs opens a copy of the file, starts seam,
asks for a completion at the cursor with completion-at-point, inserts the
first candidate, and saves; the saved file must be the original with text
inserted at the cursor (replacing the word before it), and the language's
parser (CPython; Node for the JavaScript cases, in js-mode) must accept it.  HOME and the XDG folders point into a temporary folder, where
seam's configuration gives it a long latency budget (the first request
waits for the embedded model) and no standard library to train on.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from editor_env import Checker, isolated_env, judges  # noqa: E402

CASES = [
    # (file name, file text, 1-based line, 0-based column): the cursor
    ("case.py", "import os\n\n\ndef main():\n    for name in os.listdir('.'):\n        print(name)\n    return os.pa\n",
     7, 16),
    ("case.py", "values = [1, 2, 3]\ntotal = sum(\nprint(total)\n", 2, 12),
    ("case.py", "def area(r):\n    return 3.14 * r\n\n\nx = ar\n", 5, 6),
    ("case.js", "const fs = require('fs');\n\nfunction main(dir) {\n  for (const name of fs.readdirSync(dir)) {\n"
     "    console.log(name);\n  }\n  return fs.rea\n}\n", 7, 15),
    ("case.js", "const values = [1, 2, 3];\nconst total = values.reduce(\nconsole.log(total);\n", 2, 28),
]


def offset(text, line, col):
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + col


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    args = ap.parse_args()
    seam = os.path.abspath(args.seam)
    counts = Checker()
    check = counts.check
    top = tempfile.mkdtemp(prefix="seam-emacs-")
    env = isolated_env(top)
    home = env["HOME"]
    os.makedirs(os.path.join(env["XDG_CONFIG_HOME"], "seam"))
    with open(os.path.join(env["XDG_CONFIG_HOME"], "seam", "config.json"), "w") as f:
        json.dump({"timeout_ms": 20000, "train_stdlib": False}, f)
    for client in ("eglot", "lsp-mode"):
        for i, (name, text, line, col) in enumerate(CASES):
            parses = judges(name)[0]
            work = os.path.join(home, "%s-%d" % (client, i))
            os.makedirs(work)
            path = os.path.join(work, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            run = subprocess.run(["emacs", "--batch", "-Q", "-l", os.path.join(HERE, "emacs_complete.el"), client,
                                  seam, path, str(line), str(col)],
                                 capture_output=True, text=True, env=env, timeout=120)
            with open(path, encoding="utf-8") as f:
                saved = f.read()
            what = "%s case %d" % (client, i)
            if not check(run.returncode == 0, "%s: emacs exited %d: %s" % (what, run.returncode,
                                                                        run.stderr[:1200] + " ... " + run.stderr[-400:])):
                continue
            at = offset(text, line, col)
            word = re.search(r"\w*$", text[:at]).start()
            inserted = saved[word:len(saved) - (len(text) - at)]
            check(saved.startswith(text[:word]) and saved.endswith(text[at:]) and len(saved) > len(text),
                  "%s: the saved file is the original with text inserted at the cursor: %r" % (what, saved))
            check(inserted.startswith(text[word:at]), "%s: the completion continues the word typed: %r"
                  % (what, inserted))
            check(parses(saved), "%s: the language's parser accepts the saved file: %r" % (what, saved))
    print("emacs: %d passed, %d failed" % (counts.passed, counts.failed))
    return 1 if counts.failed else 0


if __name__ == "__main__":
    sys.exit(main())
