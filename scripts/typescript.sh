#!/usr/bin/env bash
# Installs TypeScript's reference parser, typescript 6.0.3 (the last one
# written in TypeScript, with ts.createSourceFile's parseDiagnostics), and
# real TypeScript and TSX sources to check against (rxjs, zod,
# @tanstack/query-core and table-core, react-day-picker: packages that ship
# their .ts and .tsx sources) once per machine into a cache outside the
# clone, keyed by tests/typescript/package-lock.json (which pins every
# package's checksum), and prints the cache's path.  About 12 MB to fetch.
# tests/typescript/parse.mjs runs the parser with Node.
#
#   scripts/typescript.sh        # install if missing, print the cache path
set -euo pipefail
exec "$(dirname "$0")/npm_reference.sh" typescript "typescript and TypeScript sources (about 12 MB)" \
  node_modules/typescript/lib/typescript.js node_modules/zod/package.json node_modules/rxjs/src/index.ts \
  node_modules/react-day-picker/package.json
