#!/usr/bin/env bash
# Installs JavaScript's reference parser, acorn 8.19.0, and real ES modules
# to check against (lodash-es, rxjs) once per machine into a cache outside
# the clone, keyed by tests/javascript/package-lock.json (which pins every
# package's checksum), and prints the cache's path.  Under 5 MB to fetch.
# tests/javascript/parse.mjs runs acorn with Node.
#
#   scripts/javascript.sh        # install if missing, print the cache path
set -euo pipefail
exec "$(dirname "$0")/npm_reference.sh" javascript "acorn, lodash-es and rxjs (under 5 MB)" \
  node_modules/acorn/dist/acorn.mjs node_modules/lodash-es/lodash.js node_modules/rxjs/package.json
