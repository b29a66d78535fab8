#!/usr/bin/env python3
"""seam's semantic pruners on the packages of the user's environment: a
virtual environment the test makes (with Debian's system site-packages,
where python3-numpy is), holding a pure-Python package and a compiled
extension module the test builds with gcc.

Every true middle (an attribute of one of those modules or of numpy, a
keyword of one of their functions) must be accepted by `seam check
--python-path VENV/bin/python` with "semantic": true, and every mutant of
the test's packages (a misspelt attribute or keyword) refused by its end;
which are which is decided by the environment's own interpreter (hasattr,
inspect.signature), not written here.  numpy's sources leave it open (a
module __getattr__, star imports, globals()), but it says what it has with
a module __dir__ (PEP 562), which seam asks of the environment's
interpreter: its mutants are refused too, and what its __dir__ leaves out
but it has (np.core, a subpackage) is kept.  Without the environment the
test's mutants are let through, since nothing is known of the packages:
that is counted and reported.

usage: venv_check.py --seam BUILD/seam [--python /usr/bin/python3]
Prints "venv: N passed, N failed".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

PURE = {
    "seamdemo/__init__.py": "CONSTANT = 3\n\n\ndef helper(x, scale=1):\n    return x * scale\n\n\n"
                            "class Widget:\n    size = 2\n\n    def grow(self, by=1):\n        return self.size + by\n",
    "seamdemo/tools.py": "def tool(a, *, flag=False):\n    return a if flag else -a\n",
}
EXTENSION = r"""
#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(42); }
static PyObject *twice(PyObject *self, PyObject *arg) { return PyNumber_Add(arg, arg); }
static PyMethodDef methods[] = {
    {"answer", answer, METH_NOARGS, "42"},
    {"twice", twice, METH_O, "x + x"},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "seamext", NULL, -1, methods};
PyMODINIT_FUNC PyInit_seamext(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m)
        PyModule_AddIntConstant(m, "LIMIT", 7);
    return m;
}
"""
LEFT = "import seamdemo\nimport seamext\nimport numpy as np\nfrom seamdemo import tools\n\nvalue = "
# (expression, what it takes: ("attr", module expression, name) or
# ("kw", function expression, keyword))
MIDDLES = [
    ("seamdemo.helper(1, scale=2)", [("attr", "seamdemo", "helper"), ("kw", "seamdemo.helper", "scale")]),
    ("seamdemo.CONSTANT", [("attr", "seamdemo", "CONSTANT")]),
    ("seamdemo.Widget()", [("attr", "seamdemo", "Widget")]),
    ("tools.tool(1, flag=True)", [("attr", "tools", "tool"), ("kw", "tools.tool", "flag")]),
    ("seamext.answer()", [("attr", "seamext", "answer")]),
    ("seamext.twice(2)", [("attr", "seamext", "twice")]),
    ("seamext.LIMIT", [("attr", "seamext", "LIMIT")]),
    ("np.zeros(3)", [("attr", "np", "zeros")]),
    ("np.pi", [("attr", "np", "pi")]),
    ("np.linalg", [("attr", "np", "linalg")]),
    ("np.core", [("attr", "np", "core")]),
    ("np.testing", [("attr", "np", "testing")]),
    ("np.float64(1.5)", [("attr", "np", "float64")]),
    ("np.ndarray", [("attr", "np", "ndarray")]),
    ("np.float(2)", [("attr", "np", "float")]),
    ("np.flaot64(1.5)", [("attr", "np", "flaot64")]),
    ("np.testng", [("attr", "np", "testng")]),
    ("seamdemo.helpr(1)", [("attr", "seamdemo", "helpr")]),
    ("seamdemo.CONSTANTS", [("attr", "seamdemo", "CONSTANTS")]),
    ("seamdemo.helper(1, scal=2)", [("attr", "seamdemo", "helper"), ("kw", "seamdemo.helper", "scal")]),
    ("tools.tol(1)", [("attr", "tools", "tol")]),
    ("tools.tool(1, flg=True)", [("attr", "tools", "tool"), ("kw", "tools.tool", "flg")]),
    ("seamext.answr()", [("attr", "seamext", "answr")]),
    ("seamext.LIMITS", [("attr", "seamext", "LIMITS")]),
    ("np.zeroz(3)", [("attr", "np", "zeroz")]),
    ("np.pie", [("attr", "np", "pie")]),
]
ORACLE = r"""
import inspect, json, sys
import seamdemo, seamext
import numpy as np
from seamdemo import tools
out = []
for expr, takes in json.loads(sys.stdin.read()):
    ok = True
    for kind, base, name in takes:
        target = eval(base)
        if kind == "attr":
            ok = ok and hasattr(target, name)
        else:
            try:
                params = inspect.signature(target).parameters
                ok = ok and (name in params or any(p.kind == p.VAR_KEYWORD for p in params.values()))
            except (TypeError, ValueError):
                pass
    out.append(ok)
print(json.dumps(out))
"""


def build(python, top):
    venv = os.path.join(top, "venv")
    subprocess.run([python, "-m", "venv", "--system-site-packages", "--without-pip", venv], check=True,
                   capture_output=True)
    vpy = os.path.join(venv, "bin", "python")
    paths = json.loads(subprocess.run([vpy, "-c", "import json, sysconfig; print(json.dumps("
                                       "[sysconfig.get_paths()['purelib'], sysconfig.get_paths()['include'], "
                                       "sysconfig.get_config_var('EXT_SUFFIX')]))"],
                                      check=True, capture_output=True, text=True).stdout)
    site, include, suffix = paths
    for rel, text in PURE.items():
        os.makedirs(os.path.dirname(os.path.join(site, rel)), exist_ok=True)
        with open(os.path.join(site, rel), "w") as f:
            f.write(text)
    src = os.path.join(top, "seamext.c")
    with open(src, "w") as f:
        f.write(EXTENSION)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-I" + include, src, "-o", os.path.join(site, "seamext" + suffix)],
                   check=True, capture_output=True)
    return vpy


def seam_check(seam, cases, extra):
    lines = "".join(json.dumps(c) + "\n" for c in cases)
    run = subprocess.run([seam, "check"] + extra, input=lines, capture_output=True, text=True, timeout=600, cwd="/")
    return [json.loads(line) for line in run.stdout.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seam", required=True)
    ap.add_argument("--python", default="/usr/bin/python3", help="the base of the virtual environment")
    args = ap.parse_args()
    seam = os.path.abspath(args.seam)
    top = tempfile.mkdtemp(prefix="seam-venv-")
    passed = failed = 0
    try:
        vpy = build(args.python, top)
        oracle = subprocess.run([vpy, "-c", ORACLE], input=json.dumps([[m, t] for m, t in MIDDLES]),
                                capture_output=True, text=True, cwd=top)
        if oracle.returncode != 0:
            raise SystemExit("the environment's interpreter cannot import the test's packages: " + oracle.stderr)
        truth = json.loads(oracle.stdout)
        cases = [{"id": i, "left": LEFT, "middle": m, "right": "\n", "semantic": True}
                 for i, (m, _) in enumerate(MIDDLES)]
        answers = seam_check(seam, cases, ["--python-path", vpy])
        without = seam_check(seam, cases, [])
        let_through = 0
        for (middle, _), ok, a, b in zip(MIDDLES, truth, answers, without):
            sem = a.get("semantic") or {}
            whole = a.get("complete") is True
            if ok:
                good = whole and sem.get("complete") is True and sem.get("accepted") == len(middle)
                what = "kept"
            else:
                good = whole and sem.get("complete") is False
                what = "refused"
                let_through += (b.get("semantic") or {}).get("complete") is True
            if good:
                passed += 1
            else:
                failed += 1
                print("FAIL: %r should be %s with the environment: %r" % (middle, what, a))
        mutants = sum(1 for ok in truth if not ok)
        print("venv: %d true middles kept, %d of %d mutants refused with the environment "
              "(without it, %d let through)" % (sum(truth), mutants - sum(1 for (m, _), ok, a in zip(MIDDLES, truth, answers)
                                                  if not ok and (a.get("semantic") or {}).get("complete") is not False),
                                                 mutants, let_through))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("venv: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
