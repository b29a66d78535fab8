"""Cut points and the tree per edit on a 5,000-line file.

    python3 bench/run_scope_bench.py --build build/release

Builds a 5,000-line file from standard-library modules, runs bench_scope on
it (setup of the fill-in-the-middle recognizer for cursors deep in the file,
with and without cut points; an incremental tree-sitter update per
one-character edit) and times CPython's ast.parse of the same file in the
same run for scale.
"""

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_lsp_bench import make_file  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--cursors", type=int, default=25)
    args = ap.parse_args()
    text = make_file(args.lines)
    path = os.path.join(tempfile.mkdtemp(prefix="seam-scope-bench-"), "big.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    t0 = time.perf_counter()
    ast.parse(text)
    ast_us = (time.perf_counter() - t0) * 1e6
    out = subprocess.run([os.path.join(args.build, "bench", "bench_scope"), path, str(args.cursors)],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    print("%d lines, %d bytes, %d cursors in the last tenth" % (text.count("\n"), r["bytes"], r["cursors"]))
    print("  ast.parse of the whole file: %.0f us" % ast_us)
    print("  recognizer set-up, whole contexts: %.0f us median (%.2fx ast.parse)"
          % (r["setup_uncut_us"], r["setup_uncut_us"] / ast_us))
    print("  recognizer set-up, cut contexts:   %.0f us median (%.3fx ast.parse; scope and cut points %.0f us)"
          % (r["setup_cut_us"], r["setup_cut_us"] / ast_us, r["scope_us"]))
    print("  tree-sitter: %.0f us per one-character edit (incremental), %.0f us for the whole file"
          % (r["tree_edit_us"], r["tree_full_us"]))


if __name__ == "__main__":
    main()
