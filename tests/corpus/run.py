#!/usr/bin/env python3
"""Runs corpus cases through `seam check` and compares with CPython.

usage: run.py [--seam CMD] [--timeout S] [--min-soundness P] [--json]
              [--strict-prefix] [--skip-unsupported-right] CASES.jsonl ...

CASES are files written by cases.py ("-" for stdin).  CMD is a program and
its arguments, split as a shell would ("python3 tests/corpus/fake_check.py"),
run as `CMD check`; cases are streamed to it, only id, left, middle and
right are sent, and the answers are read as they come.  A case that gets no
answer within --timeout seconds, or on which the checker exits, is marked
as an error and a fresh checker goes on with the next case.

Figures (see tests/corpus/README.md):
  completeness    cases CPython accepts (true middles and accepted mutants)
                  whose middle was accepted whole (accepted == its UTF-8
                  length) with complete == true; 100% required;
  soundness       cases CPython rejects with a SyntaxError or ValueError
                  that got complete == false; at least --min-soundness %;
  resource        cases CPython rejects for want of memory or stack, shown
                  apart (not counted in soundness);
  early rejection share of the CPython-rejected cases whose middle was
                  rejected before its end (accepted < its length), and how
                  many bytes past the edit the recognizer went;
  unchanged prefix  mutants whose text before the edit stayed viable
                  (accepted >= min_accepted); required with --strict-prefix;
  timing          medians of setup_us / ast_us (ast.parse of left + middle
                  + right, best of --ast-repeat, timed in this run),
                  feed_us per middle character, feed_us / ast_us, and
                  can_end_us when the checker reports it.
Exit status: 0 when completeness is 100%, soundness reaches --min-soundness,
no case ended in an error (or was skipped with --skip-unsupported-right) and,
with --strict-prefix, every unchanged prefix stayed viable; 1 otherwise;
2 when the checker cannot be run or a case file cannot be read.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import queue
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import ast
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import RESOURCE_ERRORS, read_cases  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SEAM = str(REPO / "build" / "release" / "seam")
SENT_FIELDS = ("id", "left", "middle", "right")


# ---------------------------------------------------------------- checker


class CheckerError(Exception):
    """The checker could not be started at all."""


def _feed(proc: subprocess.Popen, lines: list[bytes]) -> None:
    """Writes the request lines to the checker's stdin, then closes it."""
    try:
        for line in lines:
            proc.stdin.write(line)
        proc.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the checker exited or was killed; the reader notices


def _drain(proc: subprocess.Popen, answers: queue.Queue) -> None:
    """Puts each answer line on the queue, then None at end of output."""
    try:
        for line in proc.stdout:
            answers.put(line)
    except (OSError, ValueError):
        pass
    answers.put(None)


def run_checker(command: list[str], cases: list[dict], timeout: float,
                max_restarts: int = 20, log=sys.stderr) -> tuple[list[dict], dict]:
    """Runs `command + ["check"]` on the cases; returns one answer per case
    (in case order) and facts about the run.

    Answers are read as they come; when none comes within `timeout` seconds
    the checker is killed, the case it was on gets {"error": "timeout ..."}
    and a new checker starts with the next case; likewise when it exits
    early.  An answer whose id is not the case's id, or that is not JSON,
    is kept as an error for that case.  Errors made here have "harness": true."""
    requests = [(json.dumps({k: case.get(k, "") for k in SENT_FIELDS}, ensure_ascii=False)
                 + "\n").encode("utf-8") for case in cases]
    results: list[dict | None] = [None] * len(cases)
    facts = {"command": shlex.join(command + ["check"]), "restarts": 0, "timeouts": 0,
             "crashes": 0, "exit_status": None, "stderr_tail": ""}
    start_time = time.perf_counter()
    first = 0
    while first < len(cases):
        if facts["restarts"] > max_restarts:
            for i in range(first, len(cases)):
                results[i] = {"id": cases[i]["id"], "error": "not run: too many checker restarts",
                              "harness": True}
            break
        stderr = tempfile.TemporaryFile()
        try:
            # its own process group, so that a wrapper's children die with it
            proc = subprocess.Popen(command + ["check"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=stderr,
                                    start_new_session=True)
        except OSError as exc:
            raise CheckerError(f"cannot run {facts['command']}: {exc}") from None
        answers: queue.Queue = queue.Queue()
        threading.Thread(target=_feed, args=(proc, requests[first:]), daemon=True).start()
        threading.Thread(target=_drain, args=(proc, answers), daemon=True).start()
        i, broken = first, None
        while i < len(cases):
            try:
                line = answers.get(timeout=timeout)
            except queue.Empty:
                broken = f"timeout: no answer within {timeout:g} s"
                facts["timeouts"] += 1
                kill(proc)
                break
            if line is None:
                status = proc.wait()
                broken = f"checker exited with status {status} before answering"
                facts["crashes"] += 1
                break
            results[i] = parse_answer(line, cases[i]["id"])
            i += 1
        if broken is None:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                kill(proc)
                proc.wait()
            facts["exit_status"] = proc.returncode
        else:
            proc.wait()
            results[i] = {"id": cases[i]["id"], "error": broken, "harness": True}
            facts["restarts"] += 1
            print(f"run.py: {broken} on case {cases[i]['id']}; restarting the checker", file=log)
            i += 1
        stderr.seek(0)
        tail = stderr.read()[-2000:].decode("utf-8", "replace")
        if tail.strip():
            facts["stderr_tail"] = tail
        stderr.close()
        first = i
    facts["wall_s"] = round(time.perf_counter() - start_time, 3)
    return results, facts


def kill(proc: subprocess.Popen) -> None:
    """Kills the checker's process group (the checker and its children)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def parse_answer(line: bytes, expected_id) -> dict:
    """Decodes one answer line and checks that it answers case `expected_id`."""
    try:
        row = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {"id": expected_id, "error": f"answer is not JSON: {line[:80]!r}", "harness": True}
    if not isinstance(row, dict):
        return {"id": expected_id, "error": f"answer is not an object: {line[:80]!r}", "harness": True}
    if row.get("id") != expected_id:
        return {"id": expected_id, "harness": True,
                "error": f"answer for id {row.get('id')!r} where {expected_id!r} was expected"
                         + (f" ({row['error']})" if "error" in row else "")}
    if "error" not in row and not (isinstance(row.get("accepted"), int)
                                   and isinstance(row.get("complete"), bool)):
        return {"id": expected_id, "error": f"answer lacks accepted/complete: {line[:80]!r}",
                "harness": True}
    return row


# ---------------------------------------------------------------- CPython timing


def ast_time_us(text: str, repeat: int) -> float:
    """Best of `repeat` timings of ast.parse(text) in microseconds (garbage
    collection off, warnings silenced, rejections timed as well)."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(max(1, repeat)):
                start = time.perf_counter()
                try:
                    ast.parse(text)
                except (SyntaxError, ValueError, MemoryError, RecursionError):
                    pass
                best = min(best, time.perf_counter() - start)
    finally:
        if enabled:
            gc.enable()
    return best * 1e6


def time_cpython(cases: list[dict], repeat: int) -> list[float]:
    """ast.parse time of each case's left + middle + right; a text shared by
    several cases (the splits and cuts of one file) is timed once."""
    cache: dict[str, float] = {}
    times = []
    for case in cases:
        text = case["left"] + case["middle"] + case["right"]
        if text not in cache:
            cache[text] = ast_time_us(text, repeat)
        times.append(cache[text])
    return times


# ---------------------------------------------------------------- report


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def percent(part: int, whole: int) -> float:
    """part / whole in percent; 100 when there is nothing to count."""
    return 100.0 * part / whole if whole else 100.0


def where(case: dict, middle_bytes: int) -> tuple[int, int, int, str]:
    """For a point `middle_bytes` UTF-8 bytes into the middle: its code point
    offset in left + middle + right, its line and column (1-based, column in
    code points), and an excerpt around it with the point marked by ‸."""
    middle = case["middle"]
    cut = len(middle.encode("utf-8")[:max(0, middle_bytes)].decode("utf-8", "ignore"))
    text = case["left"] + middle + case["right"]
    at = len(case["left"]) + cut
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    excerpt = repr(text[max(0, at - 40):at])[1:-1] + "‸" + repr(text[at:at + 25])[1:-1]
    return at, line, col, excerpt


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def p90(values: list[float]) -> float | None:
    return round(sorted(values)[int(0.9 * (len(values) - 1))], 3) if values else None


def timing_stats(rows: list[tuple[dict, dict, float]]) -> dict:
    """Timing medians over (case, answer, ast_us) triples with no error."""
    setup = [r["setup_us"] for _, r, _ in rows if isinstance(r.get("setup_us"), (int, float))]
    ast_us = [a for _, _, a in rows]
    ratio = [r["setup_us"] / a for _, r, a in rows
             if isinstance(r.get("setup_us"), (int, float)) and a > 0]
    per_char = [r["feed_us"] / max(1, len(c["middle"])) for c, r, _ in rows
                if isinstance(r.get("feed_us"), (int, float))]
    feed_ratio = [r["feed_us"] / a for _, r, a in rows
                  if isinstance(r.get("feed_us"), (int, float)) and a > 0]
    can_end = [r["can_end_us"] for _, r, _ in rows if isinstance(r.get("can_end_us"), (int, float))]
    return {
        "cases": len(rows),
        "setup_us_median": median(setup),
        "ast_us_median": median(ast_us),
        "setup_over_ast_median": median(ratio),
        "setup_over_ast_p90": p90(ratio),
        "feed_us_per_char_median": median(per_char),
        "feed_over_ast_median": median(feed_ratio),
        "can_end_us_median": median(can_end),
        "can_end_us_p90": p90(can_end),
        "middle_chars_median": median([len(c["middle"]) for c, _, _ in rows]),
        "context_chars_median": median([len(c["left"]) + len(c["right"]) for c, _, _ in rows]),
    }


def analyse(cases: list[dict], results: list[dict], ast_times: list[float] | None,
            args: argparse.Namespace, facts: dict) -> dict:
    """Compares the answers with the expectations; returns the summary."""
    complete_total = complete_pass = 0
    sound_total = sound_pass = 0
    resource_total = resource_rejected = 0
    early = 0
    lags: list[int] = []
    prefix_total = prefix_pass = 0
    errors, skipped = [], []
    incomplete, unsound, premature, resource_accepted = [], [], [], []
    timed: dict[str, list] = {}
    for n, (case, row) in enumerate(zip(cases, results)):
        nbytes = utf8_len(case["middle"])
        expected = case.get("expected_complete", True)
        error = row.get("error")
        if error and case["right"] and args.skip_unsupported_right and not row.get("harness"):
            skipped.append((case, row))
            continue
        if error:
            errors.append((case, row))
        accepted = row.get("accepted") if not error else None
        complete = row.get("complete") if not error else None
        if expected:
            complete_total += 1
            if accepted == nbytes and complete is True:
                complete_pass += 1
            elif not error:
                incomplete.append((case, row))
        elif case.get("cpython_error") in RESOURCE_ERRORS:
            resource_total += 1
            if complete is False:
                resource_rejected += 1
            elif not error:
                resource_accepted.append((case, row))
        else:
            sound_total += 1
            if complete is False:
                sound_pass += 1
            elif not error:
                unsound.append((case, row))
            if accepted is not None and accepted < nbytes:
                early += 1
                if accepted >= case.get("min_accepted", nbytes + 1):
                    lags.append(accepted - case["min_accepted"])
        if "edit" in case and "min_accepted" in case and not error:
            prefix_total += 1
            if accepted >= case["min_accepted"]:
                prefix_pass += 1
            else:
                premature.append((case, row))
        if not error and ast_times is not None:
            group = case.get("kind", "?") if "edit" not in case else f"{case.get('mode', '?')} mutants"
            timed.setdefault(group, []).append((case, row, ast_times[n]))

    completeness = percent(complete_pass, complete_total)
    soundness = percent(sound_pass, sound_total)
    ok = (complete_pass == complete_total and soundness >= args.min_soundness and not errors
          and (not args.strict_prefix or prefix_pass == prefix_total))
    every = [t for rows in timed.values() for t in rows]
    return {
        "ok": ok,
        "cases": len(cases),
        "answered": len(cases) - len(errors) - len(skipped),
        "errors": len(errors),
        "failed": len({id(c) for c, _ in incomplete + unsound + errors
                       + (premature if args.strict_prefix else [])}),
        "skipped_right": len(skipped),
        "completeness": {"passed": complete_pass, "total": complete_total,
                         "percent": round(completeness, 3) if complete_total else None},
        "soundness": {"passed": sound_pass, "total": sound_total,
                      "percent": round(soundness, 3) if sound_total else None,
                      "min_percent": args.min_soundness},
        "resource": {"rejected": resource_rejected, "total": resource_total},
        "early_rejection": {"early": early, "total": sound_total,
                            "percent": round(percent(early, sound_total), 3) if sound_total else None,
                            "bytes_past_edit_median": median(lags)},
        "unchanged_prefix": {"passed": prefix_pass, "total": prefix_total,
                             "percent": round(percent(prefix_pass, prefix_total), 3),
                             "strict": args.strict_prefix},
        "timing": None if ast_times is None else {
            "all": timing_stats(every),
            "by_group": {g: timing_stats(rows) for g, rows in sorted(timed.items())},
        },
        "checker": facts,
        "failures": {
            "incomplete": [failure(c, r) for c, r in incomplete],
            "unsound": [failure(c, r) for c, r in unsound],
            "premature": [failure(c, r) for c, r in premature],
            "resource_accepted": [failure(c, r) for c, r in resource_accepted],
            "errors": [failure(c, r) for c, r in errors],
        },
    }


def failure(case: dict, row: dict) -> dict:
    """A failure's description: id, file, offsets, the answer, an excerpt."""
    nbytes = utf8_len(case["middle"])
    out = {"id": case["id"], "file": case.get("file"), "newline": case.get("newline"),
           "offset": case.get("offset"), "byte_offset": case.get("byte_offset"),
           "middle_bytes": nbytes}
    if "error" in row:
        out["error"] = row["error"]
    else:
        out["accepted"] = row.get("accepted")
        out["complete"] = row.get("complete")
    if "edit" in case:
        out["edit"] = case["edit"]
        out["cpython"] = case.get("cpython_message")
    # where to look: the edit for an error or an accepted mutant CPython
    # rejects, else the point where the recognizer stopped accepting
    edit_point = 0
    if "edit" in case:
        edit_point = utf8_len(case["middle"][:max(0, case["edit"]["at"] - len(case["left"]))])
    if "error" in row or (not case.get("expected_complete", True) and row.get("complete") is not False):
        point = edit_point
    else:
        point = min(nbytes, max(0, row.get("accepted") or 0))
    at, line, col, excerpt = where(case, point)
    out.update({"at": at, "line": line, "column": col, "excerpt": excerpt})
    return out


def print_report(summary: dict, case_files: list[str], limit: int) -> None:
    """Prints the summary as text."""
    c, s = summary["completeness"], summary["soundness"]
    e, p, r = summary["early_rejection"], summary["unchanged_prefix"], summary["resource"]
    f, k = summary["failures"], summary["checker"]
    print(f"seam corpus: {summary['cases']} cases from {', '.join(case_files)}")
    print(f"checker: {k['command']} ({k['wall_s']} s, {k['restarts']} restarts, "
          f"{k['timeouts']} timeouts, {k['crashes']} early exits, exit status {k['exit_status']})")
    def pct(value):
        return "n/a" if value is None else f"{value:.2f}%"

    print(f"completeness     {c['passed']}/{c['total']} programs CPython accepts were accepted "
          f"whole with complete=true: {pct(c['percent'])} (required 100%)")
    print(f"soundness        {s['passed']}/{s['total']} programs CPython rejects got complete=false: "
          f"{pct(s['percent'])} (required {s['min_percent']}%)")
    if r["total"]:
        print(f"resource limits  {r['rejected']}/{r['total']} programs CPython gave up on "
              f"(MemoryError/RecursionError) got complete=false (not counted)")
    if e["total"]:
        lag = e["bytes_past_edit_median"]
        print(f"early rejection  {e['early']}/{e['total']} rejected before the end of the middle: "
              f"{e['percent']:.1f}%" + (f"; median {lag:g} bytes accepted past the edit"
                                        if lag is not None else ""))
    if p["total"]:
        print(f"unchanged prefix {p['passed']}/{p['total']} mutants kept the text before the edit "
              f"viable: {p['percent']:.2f}%" + (" (required 100%)" if p["strict"] else " (informative)"))
    if summary["errors"] or summary["skipped_right"]:
        print(f"errors           {summary['errors']} cases answered with an error; "
              f"{summary['skipped_right']} with a right context skipped")
    timing = summary["timing"]
    if timing:
        print("timing (medians)   cases  setup_us    ast_us  setup/ast  feed_us/char  feed/ast  can_end_us")
        rows = list(timing["by_group"].items()) + [("all", timing["all"])]
        for group, t in rows:
            def num(key, fmt):
                return format(t[key], fmt) if t[key] is not None else "-"
            print(f"  {group:17} {t['cases']:6} {num('setup_us_median', '9.1f')} "
                  f"{num('ast_us_median', '9.1f')} {num('setup_over_ast_median', '10.3f')} "
                  f"{num('feed_us_per_char_median', '13.3f')} {num('feed_over_ast_median', '9.2f')} "
                  f"{num('can_end_us_median', '11.1f')}")
    sections = (("incomplete", "NOT ACCEPTED (CPython accepts)"), ("unsound", "NOT REJECTED (CPython rejects)"),
                ("premature", "REJECTED BEFORE THE EDIT"), ("errors", "ERROR"),
                ("resource_accepted", "accepted, CPython gave up (informative)"))
    for key, title in sections:
        items = f[key]
        if not items or (key == "premature" and not p["strict"]):
            continue
        print(f"{title}: {len(items)}" + (f" (first {limit} shown)" if len(items) > limit else ""))
        for item in items[:limit]:
            what = item.get("error") or f"accepted {item['accepted']}/{item['middle_bytes']} bytes, " \
                                         f"complete={str(item['complete']).lower()}"
            edit = item.get("edit")
            edit_text = f" {edit['op']} {edit['char']!r} at {edit['at']}" if edit else ""
            print(f"  {item['id']} [{item.get('newline')}]{edit_text}: {what}; "
                  f"line {item['line']} col {item['column']}: {item['excerpt']}")
            if item.get("cpython"):
                print(f"      CPython: {item['cpython']}")
    verdict = "PASS" if summary["ok"] else "FAIL"
    failed = summary["failed"]
    print(f"corpus: {summary['cases'] - failed - summary['skipped_right']} passed, {failed} failed, "
          f"{summary['skipped_right']} skipped: {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="See tests/corpus/README.md.")
    parser.add_argument("cases", nargs="+", help="case files from cases.py ('-' for stdin)")
    parser.add_argument("--seam", default=DEFAULT_SEAM,
                        help="checker command, run as 'CMD check' (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds to wait for one answer (default %(default)s)")
    parser.add_argument("--min-soundness", type=float, default=99.9,
                        help="soundness percent required (default %(default)s)")
    parser.add_argument("--strict-prefix", action="store_true",
                        help="fail when a mutant's unchanged prefix was rejected")
    parser.add_argument("--skip-unsupported-right", action="store_true",
                        help="skip, rather than fail, cases with a right context the checker refuses")
    parser.add_argument("--ast-repeat", type=int, default=3,
                        help="ast.parse timings per program, the best kept (default %(default)s)")
    parser.add_argument("--no-timing", action="store_true", help="do not time ast.parse")
    parser.add_argument("--max-failures", type=int, default=20, help="failures listed per kind")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON instead of text")
    parser.add_argument("--json-out", metavar="FILE", help="also write the JSON summary to FILE")
    args = parser.parse_args(argv)

    cases: list[dict] = []
    for path in args.cases:
        try:
            cases += read_cases(path)
        except (OSError, ValueError) as exc:
            print(f"run.py: {exc}", file=sys.stderr)
            return 2
    ids = [c.get("id") for c in cases]
    if len(set(map(json.dumps, ids))) != len(ids):
        print("run.py: case ids are not unique", file=sys.stderr)
        return 2
    command = shlex.split(args.seam)
    if len(command) == 1 and os.sep not in command[0] and Path(command[0]).exists():
        command[0] = str(Path(command[0]).resolve())
    try:
        results, facts = run_checker(command, cases, args.timeout)
    except CheckerError as exc:
        print(f"run.py: {exc}", file=sys.stderr)
        return 2
    ast_times = None if args.no_timing else time_cpython(cases, args.ast_repeat)
    summary = analyse(cases, results, ast_times, args, facts)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print_report(summary, args.cases, args.max_failures)
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
