#!/usr/bin/env bash
# Installs CPython 3.10, 3.12, 3.13 and 3.14 compiled to WebAssembly (npm's
# pyodide 0.22.1, 0.27.7, 0.29.5 and 314.0.7) once per machine into a cache outside
# the clone, keyed by tests/pyodide/package-lock.json (which pins every
# package's checksum; `npm ci` checks them), and prints the cache's path.
# About 55 MB to fetch, seconds after the first run.  They are the reference
# parsers of the per-version checks (tests/corpus/version_check.py), run
# with Node by tests/pyodide/parse.mjs.
#
#   scripts/pyodide.sh           # install if missing, print the cache path
#
# In the cache: node_modules/pyodide-3NN/ (pyodide.mjs; python_stdlib.zip
# from 3.12 on, the standard library inside pyodide.asm.data before).
set -euo pipefail
exec "$(dirname "$0")/npm_reference.sh" pyodide \
  "pyodide for CPython 3.10, 3.12, 3.13 and 3.14 (about 55 MB)" \
  node_modules/pyodide-310/pyodide.mjs node_modules/pyodide-312/pyodide.mjs \
  node_modules/pyodide-313/pyodide.mjs node_modules/pyodide-314/pyodide.mjs
