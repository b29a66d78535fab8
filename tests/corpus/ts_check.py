#!/usr/bin/env python3
"""Checks seam's TypeScript recognizer against TypeScript 6.0.3's parser on
real TypeScript, or with --kind tsx its TSX recognizer on real TSX.

Files are sampled from packages that ship their TypeScript sources, fetched
pinned into the cache (scripts/typescript.sh: rxjs, zod, @tanstack's
query-core and table-core, react-day-picker's .ts files, and its .tsx
files for --kind tsx) and from TypeScript's own declaration files
(lib.*.d.ts); a file the parser does not read without a diagnostic is not
used.  Cases, all through `seam check --language typescript` (or tsx), as
tests/corpus/js_check.py makes them: whole files
fed byte by byte, single-character mutants judged as the parser judges
them, fill-in-the-middle cuts and mutants of their middles.

usage: ts_check.py --seam BUILD/seam [--files N] [--mutants K] [--cuts K] [--seed S]
       [--packages NAME,...] [--kind ts|tsx]
Prints a report and a closing line "typescript: N passed, N failed" (or
"tsx: ...");
exits 1 when a true middle or file is refused or soundness is under
--min-soundness percent.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import js_check  # noqa: E402  (the cases and their judging, shared)

PACKAGES = ["rxjs", "zod", "@tanstack/query-core", "@tanstack/table-core", "react-day-picker", "typescript"]
TSX_PACKAGES = ["react-day-picker"]

# What TypeScript's parser refuses that seam's context-free grammar does not
# express (docs/TYPESCRIPT_DIFFERENCES.md): a mutant refused for one of these
# and accepted by seam is reported, not counted as a failure.
KNOWN_DIFFERENCES = [re.compile(p) for p in (
    r"^Invalid 'reference' directive syntax",
)]


class TypeScript(js_check.NodeParser):
    """TypeScript's parser; each case's kind is "ts" or "tsx" (None: `kind`)."""

    def __init__(self, cache: Path, kind: str = "ts"):
        super().__init__(["node", str(ROOT / "tests" / "typescript" / "parse.mjs"), "--typescript",
                          str(cache / "node_modules" / "typescript" / "lib" / "typescript.js")], "kind")
        self.kind = kind

    def goal(self, goal):
        return goal or self.kind


def has_code(path: Path) -> bool:
    """Whether a file has a line of code beside comments."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(encoding="utf-8", errors="replace"), flags=re.S)
    return bool(text.strip())


def candidate_paths(cache: Path, packages, suffix: str = ".ts") -> list[Path]:
    paths = []
    for package in packages:
        root = cache / "node_modules" / package
        if package == "typescript":
            # its declarations, not the files that only list others with
            # "/// <reference lib=...>" comments (their syntax is a comment's)
            paths += sorted(p for p in (root / "lib").glob("lib.*.d.ts") if has_code(p))
            continue
        paths += sorted(p for p in root.rglob("*" + suffix) if p.is_file() and not p.name.endswith(".d.ts")
                        and not {"dist", "build", "node_modules"} & set(p.relative_to(root).parts))
    return paths


def pick_files(reference: TypeScript, paths, count: int, seed: int, max_bytes: int, kind: str = "ts"):
    texts = js_check.read_sample(paths, count, seed, max_bytes)
    verdicts = reference.verdicts([(t, kind) for _, t in texts])
    return [(path, text, None) for (path, text), (ok, _) in zip(texts, verdicts) if ok][:count]


def main() -> int:
    parser = js_check.arguments(__doc__.splitlines()[0])
    parser.add_argument("--packages", help="the packages to sample from (typescript: its lib.*.d.ts)")
    parser.add_argument("--kind", choices=("ts", "tsx"), default="ts",
                        help="TypeScript (.ts files) or TSX (.tsx files, the tsx language)")
    parser.add_argument("--dump", help="a folder to write each refused case's whole text into")
    args = parser.parse_args()

    tsx = args.kind == "tsx"
    packages = args.packages.split(",") if args.packages else TSX_PACKAGES if tsx else PACKAGES
    cache = js_check.reference_dir("typescript")
    reference = TypeScript(cache, args.kind)
    files = pick_files(reference, candidate_paths(cache, packages, "." + args.kind), args.files, args.seed,
                       args.max_bytes, args.kind)
    return js_check.judge(args.seam, "tsx" if tsx else "typescript", files, reference, args,
                          lambda case, message: any(p.search(message) for p in KNOWN_DIFFERENCES),
                          name="TypeScript's parser", label="tsx" if tsx else "typescript")


if __name__ == "__main__":
    sys.exit(main())
