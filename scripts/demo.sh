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
# seam's main job: completions with the embedded model (trained on the
# file's folder and the machine's standard library) at holes cut into a
# copy of the sample, each valid exactly where it is inserted.  --json shows
# the tokens, the scope, the timings and the candidates the recognizer
# refused.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/sample.py "$work/"
python3 - "$work" > "$work/holes.tsv" <<'PY'
import sys
text = open("examples/sample.py", encoding="utf-8").read()
holes = [
    ("for word in line.split():", "split()", "the rest of an expression"),
    ("return sorted(self.counts.items(),", "self.counts.items()", "a call's first argument"),
    ("self.counts[word] = self.counts.get(word, 0) + 1", "self.counts.get(word, 0) + 1", "the value of an assignment"),
]
for i, (line, cut, what) in enumerate(holes):
    at = text.index(line) + line.index(cut)
    holed = text[:at] + text[at + len(cut):]
    path = "%s/hole%d.py" % (sys.argv[1], i)
    open(path, "w", encoding="utf-8").write(holed)
    row = holed[:at].count("\n") + 1
    col = len(holed[:at].rsplit("\n", 1)[-1]) + 1
    print("%s:%d:%d\t%s\t%s" % (path, row, col, what, holed.split("\n")[row - 1].strip()))
PY
while IFS=$'\t' read -r where what line; do
  echo "== $what, at the hole in: $line"
  build/release/seam complete "$where" --json
done < "$work/holes.tsv"
