"""bench_mask reads its options wherever they stand among the files.

    SEAM_LLAMA_DIR=... python3 bench/bench_mask_check.py BENCH_MASK

Runs bench_mask on one Python file of this repository with the starcoder
vocabulary of the llama.cpp build, with --holes and --no-brute after the
file and before it: both give the same positions, and --holes 1 fewer than
--holes 3 (options after the files once applied only to later files).
"""

import os
import re
import subprocess
import sys


def positions(bench, vocab, args):
    out = subprocess.run([bench, vocab] + args, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit("bench_mask %s failed (%d): %s" % (" ".join(args), out.returncode, out.stderr[-400:]))
    found = re.search(r"(\d+) positions,", out.stdout)
    if not found:
        sys.exit("bench_mask %s printed no positions:\n%s" % (" ".join(args), out.stdout[-400:]))
    return int(found.group(1)), "masks that differ" in out.stdout


def main():
    bench = sys.argv[1]
    llama = os.environ.get("SEAM_LLAMA_DIR")
    if not llama:
        sys.exit("SEAM_LLAMA_DIR names the llama.cpp build (scripts/test.sh exports it)")
    vocab = os.path.join(llama, "models", "ggml-vocab-starcoder.gguf")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stdlib_files.py")
    common = ["--version", "311"]
    after, after_brute = positions(bench, vocab, common + [source, "--holes", "1", "--no-brute"])
    before, before_brute = positions(bench, vocab, common + ["--holes", "1", "--no-brute", source])
    more, _ = positions(bench, vocab, common + [source, "--holes", "3", "--no-brute"])
    failures = []
    if after != before:
        failures.append("--holes 1 after the file gave %d positions, before it %d" % (after, before))
    if not after < more:
        failures.append("--holes 1 gave %d positions, --holes 3 %d" % (after, more))
    if after_brute or before_brute:
        failures.append("--no-brute still checked every token")
    print("bench_mask options: %d positions with --holes 1 (after and before the file: %d), %d with --holes 3"
          % (after, before, more))
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
