"""Neovim from Debian as a real LSP client of seam (headless).

    python3 tests/editors/nvim_check.py --seam build/debug/seam

Neovim starts seam with vim.lsp.start_client and asks for a completion
through textDocument/completion, in Python and JavaScript files; the item's
edit, applied to the file, must make a program the language's parser
accepts (CPython; Node), or (code being typed) leave the cursor's line one
that it finds only unfinished.  Skipped (reported, not failed) only when
nvim is not installed; scripts/setup.sh installs it.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from editor_env import judges  # noqa: E402

CASES = [
    # (file name, file text, 0-based line, 0-based UTF-16 column)
    ("case.py", "import os\n\n\ndef main(path):\n    for name in os.listdir(\n    print(name)\n", 4, 27),
    ("case.py", "values = [1, 2, 3]\ntotal = sum(\nprint(total)\n", 1, 12),
    ("case.py", "def area(r):\n    return 3.14 * r\n\n\nx = area(\n", 4, 9),
    # JavaScript, told by the file's name (no filetype: -u NONE)
    ("case.js", "const fs = require('fs');\n\nfunction list(dir) {\n  return fs.readdirSync(dir);\n}\n\n"
     "const names = list(\nconsole.log(names);\n", 6, 19),
    ("case.js", "function area(r) {\n  return 3.14 * r;\n}\n\nconst x = area(\n", 4, 15),
]


def utf16_offset(text, line, col):
    lines = text.split("\n")
    before = sum(len(l) + 1 for l in lines[:line])
    units = 0
    for i, ch in enumerate(lines[line]):
        if units >= col:
            return before + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return before + len(lines[line])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    args = ap.parse_args()
    nvim = shutil.which("nvim")
    if not nvim:
        print("neovim: not installed (scripts/setup.sh installs it)")
        print("neovim: 0 passed, 1 failed")
        return 1
    here = os.path.dirname(os.path.abspath(__file__))
    passed = failed = 0
    for i, (name, text, line, col) in enumerate(CASES):
        parses, needs_more = judges(name)
        work = tempfile.mkdtemp(prefix="seam-nvim-")
        path = os.path.join(work, "%d-%s" % (i, name))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out = os.path.join(work, "out.json")
        env = dict(os.environ, SEAM_BIN=os.path.abspath(args.seam), SEAM_OUT=out, SEAM_LINE=str(line),
                   SEAM_COL=str(col), HOME=work, XDG_CONFIG_HOME=work, XDG_DATA_HOME=work, XDG_STATE_HOME=work)
        run = subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c",
                              "luafile " + os.path.join(here, "nvim_check.lua"), path],
                             cwd=work, env=env, capture_output=True, text=True, timeout=120)
        try:
            with open(out, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, json.JSONDecodeError):
            data = {"error": "no output: " + run.stderr[-500:]}
        responses = data.get("responses") or []
        items = [it for r in responses for it in ((r.get("result") or {}).get("items") or [])]
        ok = bool(responses) and all("error" not in r or not r["error"] for r in responses)
        for item in items:
            edit = item["textEdit"]
            a = utf16_offset(text, edit["range"]["start"]["line"], edit["range"]["start"]["character"])
            b = utf16_offset(text, edit["range"]["end"]["line"], edit["range"]["end"]["character"])
            new = text[:a] + edit["newText"] + text[b:]
            # Code being typed binds only as far as it is written: the
            # file parses, or up to the cursor's line it only stops too soon.
            end = new.find("\n", a + len(edit["newText"]))
            if not parses(new) and not needs_more(new if end < 0 else new[:end]):
                ok = False
                print("FAIL: case %d: the completion %r leaves a line that cannot be finished" % (i, edit["newText"]))
        if not items:
            ok = False
            print("FAIL: case %d: no completion item: %r" % (i, data))
        passed += ok
        failed += not ok
        if ok:
            print("case %d: %r" % (i, items[0]["textEdit"]["newText"]))
    print("neovim: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
