#!/usr/bin/env python3
"""Checks seam's JSX recognizer (JavaScript with React's JSX, the "jsx"
language) against acorn 8.19 with acorn-jsx 5.3.2 on real JSX.

Files are sampled from packages that ship their JSX sources, fetched pinned
into the cache (scripts/javascript.sh: reactstrap's src/, ES modules whose
.js files hold JSX); a file acorn-jsx does not read as a module is not
used.  Cases, all through `seam check --language jsx`, as
tests/corpus/js_check.py makes them: whole files fed byte by byte,
single-character mutants judged as acorn-jsx judges them, fill-in-the-middle
cuts and mutants of their middles.

usage: jsx_check.py --seam BUILD/seam [--files N] [--mutants K] [--cuts K] [--seed S]
       [--packages NAME,...]
Prints a report and a closing line "jsx: N passed, N failed"; exits 1 when
a true middle or file is refused or soundness is under --min-soundness
percent.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import js_check  # noqa: E402  (the cases and their judging, shared)

PACKAGES = ["reactstrap/src"]

# What acorn-jsx refuses that seam's context-free grammar does not express
# (docs/JAVASCRIPT_DIFFERENCES.md), beside JavaScript's own: reported, not
# counted as failures.
KNOWN_DIFFERENCES = [re.compile(p) for p in (
    r"^Adjacent JSX elements must be wrapped in an enclosing tag",
)]


def known_difference(case, message: str) -> bool:
    return js_check.known_difference(case, message) or any(p.search(message) for p in KNOWN_DIFFERENCES)


class AcornJsx(js_check.NodeParser):
    """acorn with acorn-jsx, each case's source_type (None: "module")."""

    def __init__(self, cache: Path):
        modules = cache / "node_modules"
        super().__init__(["node", str(ROOT / "tests" / "javascript" / "parse.mjs"),
                          "--acorn", str(modules / "acorn" / "dist" / "acorn.mjs"),
                          "--acorn-jsx", str(modules / "acorn-jsx" / "index.js")], "source_type")

    def goal(self, goal):
        return goal or "module"


def candidate_paths(cache: Path, packages) -> list[Path]:
    paths = []
    for package in packages:
        root = cache / "node_modules" / package
        paths += sorted(p for p in root.rglob("*") if p.suffix in (".js", ".jsx") and p.is_file())
    return paths


def pick_files(reference: AcornJsx, paths, count: int, seed: int, max_bytes: int):
    texts = js_check.read_sample(paths, count, seed, max_bytes)
    verdicts = reference.verdicts([(t, "module") for _, t in texts])
    return [(path, text, "module") for (path, text), (ok, _) in zip(texts, verdicts) if ok][:count]


def main() -> int:
    parser = js_check.arguments(__doc__.splitlines()[0])
    parser.add_argument("--packages", default=",".join(PACKAGES),
                        help="the folders under the cache's node_modules to sample from")
    args = parser.parse_args()

    cache = js_check.reference_dir("javascript")
    reference = AcornJsx(cache)
    files = pick_files(reference, candidate_paths(cache, args.packages.split(",")), args.files, args.seed,
                       args.max_bytes)
    return js_check.judge(args.seam, "jsx", files, reference, args, known_difference, name="acorn-jsx",
                          label="jsx")


if __name__ == "__main__":
    sys.exit(main())
