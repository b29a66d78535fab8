#!/usr/bin/env python3
"""A stand-in for `seam check` built on CPython, to test the corpus harness.

usage: fake_check.py [--no-right] [--fault KIND [--fault-id TEXT]] check

Reads JSON Lines on stdin, `{"id": ..., "left": ..., "middle": ...,
"right": ...}`, and writes one line a case, flushed at once:
`{"id": ..., "accepted": A, "complete": C, "setup_us": S, "feed_us": F}`.
C is whether ast.parse accepts left + middle + right; A is the middle's
length in UTF-8 bytes when it does and 0 when it does not (no viability is
computed); S is the time to decode the case and build the program text, F
the time ast.parse took.  A line that is not JSON, not UTF-8, or not a case
gets `{"id": ..., "error": "..."}` (id null when it cannot be read).

--no-right answers a case with a non-empty right context with an error, as
`seam check` did before right contexts were supported.

--fault makes it misbehave on purpose, to check that run.py notices; with
--fault-id only on cases whose id contains TEXT:
    accept-all    complete = true and the whole middle accepted, always
    reject-all    complete = false and accepted = 0, always
    short         accepted one byte short of the middle on accepted programs
    crash         exit with status 3 instead of answering
    hang          sleep for an hour instead of answering
    garbage       answer with a line that is not JSON
"""
import argparse
import ast
import json
import sys
import time
import warnings

FAULTS = ("accept-all", "reject-all", "short", "crash", "hang", "garbage")


def parses(text: str) -> bool:
    """True when CPython's parser accepts the program (warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
            return True
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return False


def answer(raw: bytes, args: argparse.Namespace) -> str:
    """The output line (without its newline) for one input line."""
    start = time.perf_counter()
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return json.dumps({"id": None, "error": "invalid UTF-8"})
    try:
        case = json.loads(line)
    except json.JSONDecodeError:
        return json.dumps({"id": None, "error": "bad JSON"})
    if not isinstance(case, dict):
        return json.dumps({"id": None, "error": "a case must be a JSON object"})
    cid = case.get("id")
    left, middle, right = case.get("left", ""), case.get("middle"), case.get("right", "")
    if not all(isinstance(x, str) for x in (left, middle, right)):
        return json.dumps({"id": cid, "error": "left, middle and right must be strings"})
    if right and args.no_right:
        return json.dumps({"id": cid, "error": "a right context is not supported yet"})
    fault = args.fault if args.fault and (args.fault_id is None or args.fault_id in str(cid)) else None
    if fault == "crash":
        sys.exit(3)
    if fault == "hang":
        time.sleep(3600)
    if fault == "garbage":
        return "this is not JSON"
    text = left + middle + right
    nbytes = len(middle.encode("utf-8"))
    fed = time.perf_counter()
    ok = parses(text)
    done = time.perf_counter()
    accepted = nbytes if ok else 0
    if fault == "accept-all":
        ok, accepted = True, nbytes
    elif fault == "reject-all":
        ok, accepted = False, 0
    elif fault == "short" and ok and nbytes:
        accepted = nbytes - 1
    return json.dumps({"id": cid, "accepted": accepted, "complete": ok,
                       "setup_us": round((fed - start) * 1e6, 3),
                       "feed_us": round((done - fed) * 1e6, 3)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("check",))
    parser.add_argument("--no-right", action="store_true", help="refuse non-empty right contexts")
    parser.add_argument("--fault", choices=FAULTS, help="misbehave on purpose")
    parser.add_argument("--fault-id", help="only on cases whose id contains this text")
    args = parser.parse_args()
    out = sys.stdout
    for raw in sys.stdin.buffer:
        raw = raw.rstrip(b"\n")
        if not raw.strip():
            continue
        out.write(answer(raw, args) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
