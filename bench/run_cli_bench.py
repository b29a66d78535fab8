#!/usr/bin/env python3
"""`seam complete` run again on a small file, against CPython's own parser
started the same way, in one run.

A script or a CI smoke test calls `seam complete` once per completion, so
each call pays for starting: the embedded model and Python's answers about
modules are taken from the cache folder (the first run fills it).  Printed:
the median wall time of the first run, of the later runs, of
`python3 -c 'import ast; ast.parse(...)'` on the same file (python3 as
PATH finds it, which may be a wrapper such as pyenv's shim) and of the
interpreter it runs called directly, and the ratios.  Target: a later run
within 10 times `python3 -c ...`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SMALL = ("import os\nimport re\n\n\ndef parts(path):\n    head, tail = os.path.split(path)\n"
         "    words = re.findall(r'\\w+', tail)\n    return \n")


def wall(argv, env=None):
    start = time.perf_counter()
    run = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    took = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit("%s failed: %s" % (argv[0], run.stderr[-400:]))
    return took, run.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", default="build/release/seam")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="seam-cli-bench-")
    path = os.path.join(work, "small.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(SMALL)
    line = SMALL.count("\n")
    where = "%s:%d:12" % (path, line)
    env = dict(os.environ, SEAM_CACHE_DIR=os.path.join(work, "cache"))
    seam = [os.path.abspath(args.seam), "complete", where, "--json"]
    first, out = wall(seam, env)
    completion = json.loads(out)["completion"]
    later = [wall(seam, env)[0] for _ in range(args.runs)]
    parse = "import ast; ast.parse(open(%r).read())" % path
    on_path = [wall(["python3", "-c", parse])[0] for _ in range(args.runs)]
    real = wall(["python3", "-c", "import sys; print(sys.executable)"])[1].strip()
    direct = [wall([real, "-c", parse])[0] for _ in range(args.runs)]
    m_later, m_path, m_direct = (statistics.median(x) for x in (later, on_path, direct))
    print(json.dumps({
        "completion": completion,
        "first_run_s": round(first, 3),
        "later_run_s_median": round(m_later, 3),
        "python3_ast_parse_s_median": round(m_path, 3),
        "interpreter": real,
        "interpreter_ast_parse_s_median": round(m_direct, 3),
        "later_over_python3": round(m_later / m_path, 2),
        "later_over_interpreter": round(m_later / m_direct, 2),
        "target_later_over_python3": 10,
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
