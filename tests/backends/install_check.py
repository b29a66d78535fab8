"""The seam scripts/install.sh installs (the portable build): its --version
names the llama backend, it completes with a GGUF model in process from
PREFIX/bin with nothing else on PATH, it links nothing a plain Debian 12
lacks (libc, libm, libcjson), it speaks HTTP through the libcurl it opens
(a model pulled from a local imitation of Hugging Face's hub), and without
libcurl it says so.

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
from hub_imitation import Hub  # noqa: E402


def check_portable(ch, seam, env, models):
    out = subprocess.run(["ldd", seam], capture_output=True, text=True).stdout
    libs = sorted(line.split()[0] for line in out.splitlines() if "=>" in line)
    ch.check(set(libs) <= {"libc.so.6", "libm.so.6", "libcjson.so.1"} and "libc.so.6" in libs,
             "ldd: libc, libm and libcjson only: %r" % libs)
    hub = Hub()
    try:
        hub.add("user/repo", "tiny.gguf", model(models, "random-starcoder.gguf"))
        pull_env = dict(env, HF_ENDPOINT=hub.endpoint)
        run = subprocess.run([seam, "model", "pull", "user/repo", "tiny.gguf"], capture_output=True, text=True,
                             env=pull_env, timeout=120)
        ch.check(run.returncode == 0 and os.path.isfile(run.stdout.strip()),
                 "seam model pull through the libcurl it opens: %r" % run.stderr[-300:])
        run = subprocess.run([seam, "model", "pull", "user/repo", "tiny.gguf", "--force"], capture_output=True,
                             text=True, env=dict(pull_env, SEAM_LIBCURL="libcurl-missing.so.4"), timeout=60)
        ch.check(run.returncode == 1 and "libcurl is not installed" in run.stderr and "apt install" in run.stderr,
                 "without libcurl, pull says what to install: %r" % run.stderr)
    finally:
        hub.close()


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
    check_portable(ch, args.seam, env, models)
    where = ch.write_case("def f(x):\n    return ", "\n")
    run = subprocess.run([args.seam, "complete", where, "--backend", "llamacpp", "--endpoint", "http://127.0.0.1:9"],
                         capture_output=True, text=True, env=dict(env, SEAM_LIBCURL="libcurl-missing.so.4"),
                         timeout=60)
    ch.check(run.returncode == 1 and "libcurl is not installed" in run.stderr,
             "without libcurl, an HTTP backend says so: %r" % run.stderr)
    print("install: %d passed, %d failed" % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == "__main__":
    sys.exit(main())
