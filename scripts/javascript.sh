#!/usr/bin/env bash
# Installs JavaScript's reference parsers, acorn 8.19.0 and acorn-jsx 5.3.2,
# and real ES modules and JSX sources to check against (lodash-es, rxjs,
# reactstrap's src/) once per machine into a cache outside the clone, keyed
# by tests/javascript/package-lock.json (which pins every package's
# checksum), and prints the cache's path (about 17 MB installed).
# tests/javascript/parse.mjs runs acorn with Node.
#
#   scripts/javascript.sh        # install if missing, print the cache path
set -euo pipefail
exec "$(dirname "$0")/npm_reference.sh" javascript "acorn, acorn-jsx, lodash-es, rxjs and reactstrap (about 17 MB)" \
  node_modules/acorn/dist/acorn.mjs node_modules/acorn-jsx/index.js node_modules/lodash-es/lodash.js \
  node_modules/rxjs/package.json node_modules/reactstrap/src/index.js
