"""Tests of the benchmarks' imitation model: its noise breaks the syntax
where it stands, as the reference parser says, and only there.

    python3 bench/test_imitation.py [-v]

JavaScript cases run when the reference parsers' cache is set up
(SEAM_JAVASCRIPT_DIR, as scripts/test.sh exports it); Python's need
nothing but CPython.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_quality_bench as quality  # noqa: E402


def imitation(middle, noise=1.0):
    """A model that puts noise first at every position it may."""
    return quality.Imitation(middle, "", noise, False, 1)


def first_choices(model):
    """{generated text: the model's first candidate there} along the true
    middle."""
    out, acc = {}, ""
    for token in model.tokens:
        out[acc] = model.candidates(acc)[0][0]
        acc += token
    return out


class PythonNoise(unittest.TestCase):
    def setUp(self):
        quality.LANGUAGE.update(name="python", reference=None, goals={})

    def settled(self, left, middle):
        model = imitation(middle)
        quality.settle_noise([model], [left], ["case.py"])
        return model

    def test_noise_that_would_close_a_bracket_is_not_kept_as_noise(self):
        # after "f(" a ")" is a call's end, not a break: the noise there is
        # another token that breaks it
        model = self.settled("x = 1\n", "f(a, b)")
        first = first_choices(model)
        self.assertNotEqual(first["f("], ")")
        self.assertIn(first["f("], quality.NOISE)
        for generated, bad in model.noise_at.items():
            error = quality.python_error("x = 1\n" + generated + bad)
            self.assertIsNotNone(error, generated + bad)
            self.assertNotEqual(error[1], "incomplete input", generated + bad)

    def test_no_noise_inside_a_string_where_anything_goes(self):
        model = self.settled("", "s = 'a b c d'")
        inside = [g for g in model.noise_at if g.count("'") == 1]
        self.assertEqual(inside, [])
        self.assertTrue(model.noise_at, "noise outside the string")

    def test_no_noise_after_an_escape_at_the_end(self):
        # "if '\\" is unfinished input for CPython; "]]" after it is the
        # string's text
        model = self.settled("x = 1\n", "if '\\]' in s: pass")
        self.assertNotIn("if '\\", model.noise_at)
        self.assertIn("if", model.noise_at)

    def test_an_annotation_colon_is_no_noise(self):
        model = self.settled("", "def f(a: int): pass")
        self.assertNotEqual(model.noise_at.get("def f(a"), ":")
        self.assertIn("def f(a", model.noise_at)

    def test_unchecked_noise_is_the_hashed_token_as_before(self):
        model = imitation("f(a, b)")
        h = model.hashed("f(")
        self.assertEqual(model.candidates("f(")[0][0], quality.NOISE[h % len(quality.NOISE)])

    def test_errors_at_the_end_of_unfinished_text_are_not_breaks(self):
        self.assertEqual(quality.python_error("f(g(a)"), (6, "incomplete input"))
        self.assertEqual(quality.python_error("f(a:")[0], 3)
        self.assertIsNone(quality.python_error("x = {}"))


@unittest.skipUnless(os.environ.get("SEAM_JAVASCRIPT_DIR"), "no JavaScript reference (SEAM_JAVASCRIPT_DIR)")
class JavaScriptNoise(unittest.TestCase):
    def setUp(self):
        quality.LANGUAGE.update(name="javascript", reference=quality.js_check.Acorn(
            quality.js_check.reference_dir()), goals={"case.mjs": "module"})

    def test_noise_breaks_the_syntax_for_acorn(self):
        left = "const x = 1;\n"
        model = imitation("call(a, `t ${b}`);")
        quality.settle_noise([model], [left], ["case.mjs"])
        self.assertNotEqual(first_choices(model)["call("], ")")
        self.assertTrue(model.noise_at)
        texts = [left + g + bad for g, bad in model.noise_at.items()]
        for text, (ok, pos, _) in zip(texts, quality.LANGUAGE["reference"].errors([(t, "module") for t in texts])):
            self.assertFalse(ok, text)
            self.assertLess(pos, len(text), "acorn stops before the end of %r" % text)
        for g in model.noise_at:
            self.assertFalse(g.count("`") == 1 and "${" not in g, "noise inside a template's text: %r" % g)


if __name__ == "__main__":
    unittest.main()
