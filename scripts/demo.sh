#!/usr/bin/env bash
# seam's main job on a fresh machine: install, build (release), and run seam
# on the sample file.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh release
build/release/seam --version
build/release/seam parse examples/sample.py
