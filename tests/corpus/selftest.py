#!/usr/bin/env python3
"""Self-test of the corpus harness (cases.py, run.py) with fake_check.py.

usage: python3 tests/corpus/selftest.py [-v]

Needs no seam build: the checker is fake_check.py, which answers with
CPython's verdict.  Checks that case files are deterministic and consistent
with the files they come from (CRLF and non-ASCII text included), that the
fake checker passes with 100% completeness and soundness, and that run.py
fails, with the right figures, on a checker that accepts everything, rejects
too much, stops one byte short, writes garbage, crashes, hangs, or refuses
right contexts.  Takes a few seconds.
"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cases  # noqa: E402

FAKE = f"{sys.executable} {HERE / 'fake_check.py'}"


def run_harness(case_file: str, *args: str) -> tuple[int, dict]:
    """Runs run.py with --json; returns its exit status and summary."""
    proc = subprocess.run([sys.executable, str(HERE / "run.py"), "--json", "--no-timing",
                           case_file, *args], capture_output=True, text=True, timeout=300)
    return proc.returncode, json.loads(proc.stdout)


class HarnessTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sources = cases.select_sources(12, seed=3, max_bytes=12000, crlf_share=0.3)
        # a hand-made file with non-ASCII text and CRLF line ends
        extra = cases.Source("selftest/é.py", "s = 'héllo → wörld'  # ü\r\nif s:\r\n\tt = (1,\r\n  2)\r\n", "crlf")
        cls.sources.append(extra)
        cls.files = {}
        for mode in cases.MODES:
            path = str(Path(cls.tmp.name) / f"{mode}.jsonl")
            with open(path, "wb") as out:
                cases.write_cases(cases.generate(mode, per_file=6, seed=3, sources=cls.sources), out)
            cls.files[mode] = path
        cls.all = str(Path(cls.tmp.name) / "all.jsonl")
        with open(cls.all, "wb") as out:
            for mode in cases.MODES:
                out.write(Path(cls.files[mode]).read_bytes())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_deterministic(self):
        again = list(cases.generate("mutant", per_file=6, seed=3, sources=self.sources))
        self.assertEqual(again, cases.read_cases(self.files["mutant"]))
        other = list(cases.generate("mutant", per_file=6, seed=4, sources=self.sources))
        self.assertNotEqual(again, other)

    def test_cases_consistent(self):
        texts = {s.rel: s.text for s in self.sources}
        for case in cases.read_cases(self.all):
            text = texts[case["file"]]
            full = case["left"] + case["middle"] + case["right"]
            if "edit" not in case:
                self.assertEqual(full, text, case["id"])
                self.assertTrue(case["expected_complete"])
                self.assertEqual(case["byte_offset"], len(case["left"].encode()))
            else:
                at = case["edit"]["at"]
                self.assertEqual(full[:at], text[:at], case["id"])
                self.assertGreaterEqual(at, len(case["left"]))
                self.assertEqual(case["expected_complete"], cases.cpython_accepts(full))
            if case["mode"] in ("prefix", "mutant"):
                self.assertEqual(case["right"], "")

    def test_modes_present(self):
        kinds = {c["kind"] for c in cases.read_cases(self.all)}
        self.assertTrue({"whole", "split", "boundary", "randspan", "insert", "delete", "swap"} <= kinds)
        ids = [c["id"] for c in cases.read_cases(self.all)]
        self.assertEqual(len(ids), len(set(ids)))

    def test_fake_passes(self):
        status, summary = run_harness(self.all, "--seam", FAKE)
        self.assertEqual(status, 0)
        self.assertEqual(summary["completeness"]["percent"], 100.0)
        self.assertEqual(summary["soundness"]["percent"], 100.0)
        self.assertEqual(summary["errors"], 0)

    def test_timing_reported(self):
        proc = subprocess.run([sys.executable, str(HERE / "run.py"), "--json", self.files["randspan"],
                               "--seam", FAKE], capture_output=True, text=True, timeout=300)
        timing = json.loads(proc.stdout)["timing"]["all"]
        self.assertGreater(timing["ast_us_median"], 0)
        self.assertIsNotNone(timing["setup_over_ast_median"])

    def test_unsound_checker_fails(self):
        status, summary = run_harness(self.all, "--seam", FAKE + " --fault accept-all")
        self.assertEqual(status, 1)
        self.assertEqual(summary["soundness"]["passed"], 0)
        self.assertEqual(summary["completeness"]["percent"], 100.0)

    def test_incomplete_checker_fails(self):
        for fault in ("reject-all", "short"):
            status, summary = run_harness(self.files["prefix"], "--seam", FAKE + " --fault " + fault)
            self.assertEqual(status, 1, fault)
            self.assertEqual(summary["completeness"]["passed"], 0, fault)
            self.assertTrue(summary["failures"]["incomplete"][0]["excerpt"])

    def test_min_soundness(self):
        status, _ = run_harness(self.all, "--seam", FAKE + " --fault accept-all --fault-id :1",
                                "--min-soundness", "0")
        self.assertEqual(status, 0)

    def test_crash_hang_garbage(self):
        target = cases.read_cases(self.files["prefix"])[2]["id"]
        for fault, timeout in (("crash", "60"), ("hang", "1"), ("garbage", "60")):
            status, summary = run_harness(self.files["prefix"], "--seam",
                                          FAKE + f" --fault {fault} --fault-id {target}", "--timeout", timeout)
            self.assertEqual(status, 1, fault)
            self.assertEqual([f["id"] for f in summary["failures"]["errors"]], [target], fault)
            # the checker is restarted after the case; every other case is answered
            self.assertEqual(summary["answered"], summary["cases"] - 1, fault)
            self.assertEqual(summary["checker"]["restarts"], 0 if fault == "garbage" else 1, fault)

    def test_right_context_unsupported(self):
        status, summary = run_harness(self.files["boundary"], "--seam", FAKE + " --no-right")
        self.assertEqual(status, 1)
        self.assertEqual(summary["errors"], summary["cases"])
        status, summary = run_harness(self.all, "--seam", FAKE + " --no-right",
                                      "--skip-unsupported-right")
        self.assertEqual(status, 0)
        self.assertGreater(summary["skipped_right"], 0)
        self.assertGreater(summary["completeness"]["total"], 0)

    def test_fake_contract(self):
        lines = [json.dumps({"id": 1, "left": "x = (", "middle": "1,\r\n 2", "right": ")\n"}).encode(),
                 json.dumps({"id": "é", "left": "", "middle": "s = 'é'\n"}, ensure_ascii=False).encode(),
                 json.dumps({"id": 3, "left": "", "middle": "x = (\n"}).encode(),
                 b"not json", b'{"id": 4, "left": "\xff", "middle": ""}']
        out = subprocess.run([sys.executable, str(HERE / "fake_check.py"), "check"],
                             input=b"\n".join(lines) + b"\n", capture_output=True, timeout=60).stdout
        rows = [json.loads(line) for line in out.decode().splitlines()]
        self.assertEqual([r.get("accepted") for r in rows[:3]], [6, 9, 0])
        self.assertEqual([r.get("complete") for r in rows[:3]], [True, True, False])
        self.assertIn("error", rows[3])
        self.assertIn("error", rows[4])


if __name__ == "__main__":
    unittest.main()
