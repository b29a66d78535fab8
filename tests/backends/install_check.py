"""The seam scripts/install.sh installs: its --version names the llama
backend, and it completes with a GGUF model in process, from PREFIX/bin
with nothing else on PATH.

    python3 tests/backends/install_check.py --seam PREFIX/bin/seam
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Checker  # noqa: E402
from llama_check import COMPARE, model  # noqa: E402
from llama_server import cache_dirs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    args = ap.parse_args()
    _, models = cache_dirs()
    ch = Checker(args.seam, "seam-install-")
    env = {"PATH": "/usr/bin:/bin", "HOME": ch.dir, "XDG_CACHE_HOME": os.path.join(ch.dir, "cache")}
    run = subprocess.run([args.seam, "--version"], capture_output=True, text=True, env=env, timeout=30)
    ch.check(run.returncode == 0 and "llama (GGUF models in process" in run.stdout,
             "--version names the llama backend: %r" % run.stdout)
    with tempfile.NamedTemporaryFile("w", suffix=".py", dir=ch.dir, delete=False) as f:
        f.write(COMPARE[0] + COMPARE[1])
    line = COMPARE[0].count("\n") + 1
    col = len(COMPARE[0].rsplit("\n", 1)[-1]) + 1
    run = subprocess.run([args.seam, "complete", "%s:%d:%d" % (f.name, line, col), "--backend", "llama",
                          "--model-path", model(models, "scripted-compare-qwen2.gguf"), "--timeout-ms", "30000"],
                         capture_output=True, text=True, env=env, timeout=120)
    ch.check(run.returncode == 0 and run.stdout == " a < b\n",
             "the installed seam completes with a GGUF model: %r %r" % (run.stdout, run.stderr[-300:]))
    print("install: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
