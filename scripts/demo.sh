#!/usr/bin/env bash
# seam's main job on a fresh machine: install, build (release), and run seam
# on the sample file.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh release
build/release/seam --version
build/release/seam parse examples/sample.py
# The recognizer on the sample: the whole file, then a middle that breaks it.
python3 - <<'PY' | build/release/seam check
import json
text = open("examples/sample.py", encoding="utf-8").read()
cut = text.index("class Counter")
print(json.dumps({"id": "whole file", "left": text[:cut], "middle": text[cut:]}))
print(json.dumps({"id": "broken middle", "left": text[:cut], "middle": "class Counter(:\n    pass\n"}))
# Fill in the middle: the cursor is inside a call whose closing bracket is
# already in the right context; a middle that closes it again cannot end.
cursor = text.index("read_lines(os") + len("read_lines(")
closing = text.index("):", cursor)
left, right = text[:cursor], text[closing:]
middle = text[cursor:closing]
print(json.dumps({"id": "middle joins the right context", "left": left, "middle": middle, "right": right}))
print(json.dumps({"id": "middle repeats the closing bracket", "left": left, "middle": middle + ")", "right": right}))
PY
