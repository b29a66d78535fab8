/*
 * Python 3.11 cases for the recognizer: each text with CPython 3.11's
 * verdict (ast.parse accepts it or raises SyntaxError), recorded from
 * CPython on the reference machine.  The recognizer must agree on every
 * one, and must keep every prefix of an accepted text viable.
 */
#include "ep_quotient.h"
#include "seam_languages.h"
#include "seam_parser.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *text;
    bool valid;
} python_cases[] = {
    {"x = 1\n", true},
    {"x = 1", true},
    {"if x:\n    y\n", true},
    {"if x:\ny\n", false},
    {"if x:\n    y\n  z\n", false},
    {"if x:\n\ty\n        z\n", false},
    {"if x:\n        y\n\tz\n", false},
    {"if x:\n    y\n\n    z\n", true},
    {"if x:\n    y\n# c\n    z\n", true},
    {"if x:\n    y\n    # c\n  \n", true},
    {"x = (1,\n2)\n", true},
    {"x = [1,\n  2,\n]\n", true},
    {"x = 1 + \\\n 2\n", true},
    {"x = 1 \\\n", false},
    {"  x = 1\n", false},
    {"\n\n# only\n", true},
    {"def f():\n    pass\n\nclass A:\n    def g(self):\n        return 1\n", true},
    {"x = 1\r\ny = 2\r\n", true},
    {"x = 1\ry = 2\r", true},
    {"if x:\n    pass\nelse:\n    pass\n", true},
    {"if x:\n    pass\n else:\n    pass\n", false},
    {"\fx = 1\n", true},
    {"if x:\n  \f  y\n", true},
    {"0or 1\n", false},
    {"0 or 1\n", true},
    {"1if x else y\n", true},
    {"0x1for x in y\n", true},
    {"1_000j\n", true},
    {"1.e5\n", true},
    {"1__0\n", false},
    {"1_\n", false},
    {"0777\n", false},
    {"00\n", true},
    {"0_0\n", true},
    {"0x\n", false},
    {"0o8\n", false},
    {"0b102\n", false},
    {"1e\n", false},
    {"1e+\n", false},
    {"1.5e-3j\n", true},
    {".5\n", true},
    {"1..real\n", true},
    {"1.0.real\n", true},
    {"1 .real\n", true},
    {"0xfor x in y\n", true},
    {"1jif x else y\n", true},
    {"s = 'a'\n", true},
    {"s = 'a\n", false},
    {"s = '''a\nb'''\n", true},
    {"s = \"\"\"a\n", false},
    {"s = r'\\'\n", false},
    {"s = r'\\''\n", true},
    {"s = b'\\xff'\n", true},
    {"s = b'\xc3""\x83""\xc2""\xa9""'\n", false},
    {"s = '\\x4'\n", false},
    {"s = '\\x41'\n", true},
    {"s = '\\u12'\n", false},
    {"s = '\\N{EM DASH}'\n", true}, /* unknown names: see docs/PYTHON_DIFFERENCES.md */
    {"s = rb'x' Rb'y' BR'z' bR'w'\n", true},
    {"s = ub'x'\n", false},
    {"s = f'{x!r:>{w}}'\n", true},
    {"s = f'{}'\n", false},
    {"s = f'{x!z}'\n", false},
    {"s = f'{{}}'\n", true},
    {"s = 'a' 'b' f'c'\n", true},
    {"s = u'x' U'y'\n", true},
    {"s = fr'{x}\\d'\n", true},
    {"s = 'a\\\nb'\n", true},
    {"match x:\n    case 1:\n        pass\n    case _:\n        pass\n", true},
    {"match = 1\n", true},
    {"case = match\n", true},
    {"_ = 1\n", true},
    {"@dec\ndef f(): pass\n", true},
    {"@dec.x(1)\nclass A: pass\n", true},
    {"async def f():\n    await x\n    async for a in b: pass\n    async with c as d: pass\n", true},
    {"(y := 3)\n", true},
    {"y := 3\n", false},
    {"f(*a, **k)\n", true},
    {"f(**k, *a)\n", false},
    {"f(a=1, b)\n", false},
    {"f(x for x in y)\n", true},
    {"f(x for x in y, 1)\n", false},
    {"def f(a=1, b): pass\n", false},
    {"def f(a, /, b, *, c, **d): pass\n", true},
    {"lambda x, *y, **z: x\n", true},
    {"x: int = 1\n", true},
    {"x, y: int\n", false},
    {"f() = 1\n", false},
    {"a + 1 = 2\n", false},
    {"None = 1\n", false},
    {"del f()\n", false},
    {"del a, b[1], c.d\n", true},
    {"global a, b\n", true},
    {"nonlocal a\n", true},
    {"x = yield\n", true},
    {"(a, b) += 1\n", false},
    {"a.b += 1\n", true},
    {"try:\n    pass\nexcept* E:\n    pass\n", true},
    {"try:\n    pass\nfinally:\n    pass\n", true},
    {"try:\n    pass\n", false},
    {"with (a as b, c as d):\n    pass\n", true},
    {"x = a if b else c\n", true},
    {"x = not a in b is not c\n", true},
    {"x = [i for i in y if i]\n", true},
    {"x = {k: v for k, v in y}\n", true},
    {"x = a[1:2, ::3]\n", true},
    {"print 'x'\n", false},
    {"x = *a, *b\n", true},
    {"*a = 1\n", true},
    {"*a, b = c\n", true},
    {"return\n", true},
    {"break\n", true},
    {"for x in y:\n    break\nelse:\n    pass\n", true},
    {"while x: continue\n", true},
    {"import a.b as c\n", true},
    {"from . import (a, b,)\n", true},
    {"from .. a import *\n", true},
    {"assert x, 'm'\n", true},
    {"raise E from e\n", true},
    {"x = a @ b\n", true},
    {"x @= 1\n", true},
    {"x = ...\n", true},
    {"class A(B, metaclass=M): pass\n", true},
    {"def f() -> int: ...\n", true},
    {"x = (yield)\n", true},
    {"x = await y\n", true},
    {"if x: pass; y\n", true},
    {"x = 1;\n", true},
    {";\n", false},
    {"x = lambda: (yield)\n", true},
    {"s = f'{x=  }'\n", true},
    {"s = f'{x = !r:>3}'\n", true},
    {"s = \"\"\"a\"\"+\"\nx = 1\n", false},
    {"s = '''a'''\n", true},
    {"s = \"\"\"\"\n", false},
    {"if 1:\n  x\n  \\\n  y\n", true},
    {"if 1:\n  x\n\\\n  y\n", true},
    {"if 1:\n  x\n\\\ny\n", true},
    {"if 1:\n  x\n   \\\n  y\n", false},
    {"x = 1 \\\r\n", true},
    {"x = 1 \\\n", false},
    {"x\n\\\r\n", true},
    {"x\r\n", true},
    {"if 1:\n  x\n\\\n  y\n", true},
    {"if 1:\n      x\n\\\n      y\n      z\n", true},
    {"if 1:\n  x\n \\\n \\\n  y\n", false},
    {"if 1:\n  x\n\\\n\\\n  y\n", true},
    {"x\n\\\n# note", true},
    {"x = 1 \\\n  ", true},
    {"x\n\\\n\\\n", false},
    {"x\n  \\\n# c", true},
    {"s = f'{x!r:>\\{y}}'\n", true},
    {"s = f'a\\{x}'\n", true},
    {"s = f'a\\}'\n", false},
    {"s = f'\\\\{x}'\n", true},
    {"s = f'\\N{EM DASH}{x}'\n", true},
    {"s = f'\\Nx{x}'\n", false},
    /* f-strings whose prefixes look unfinished in other ways: each byte of
     * a valid one must stay viable */
    {"s = f'{a if b != c else d}'\n", true},
    {"s = f'{x==y}{x!=y}{x<=y}{x>=y}'\n", true},
    {"s = f'{x=}{x = !r:>4}'\n", true},
    {"s = f'{x!r}{x!s}{x!a}'\n", true},
    {"s = f'{x:{w}.{p}}'\n", true},
    {"s = f'{\"a\" \"b\"}{d[\"k\"]}'\n", true},
    {"s = f'''{x\n  + y}\n{{}}'''\n", true},
    {"x\xc2\xb7y = \xc3\xa9 + \xf0\x9d\x94\x98\n", true},
    /* a pattern may bind any name but "_" */
    {"match x:\n case y as _: pass\n", false},
    {"match x:\n case {**_}: pass\n", false},
    {"match x:\n case (1 as _) | 2: pass\n", false},
    {"match x:\n case y as case: pass\n", true},
    {"match x:\n case {'k': v, **match}: pass\n", true},
    {"match x:\n case [*_, _] | C(_=1) | _: pass\n", true},
    {"x\xc3\x97 = 1\n", false},
    {"s = '\xc3\x97' # \xc3\x97\n", true},
    {"s = rf'\\\\d{x}\\\\'\n", true},
    {"s = f'{x[1:2]}{(lambda: 1)()}'\n", true},
    {"s = f\"{'''a'''}\"\n", true},
    {"s = f'{x[}'\n", false},
    {"s = f'{x!r)}'\n", false},
};

static ep_grammar *python_grammar(void)
{
    ep_grammar *grammar = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &grammar, error, sizeof error), SM_OK, "%s", error);
    return grammar;
}

Test(parser, python_cases_agree_with_cpython)
{
    ep_grammar *grammar = python_grammar();
    for (size_t i = 0; i < sizeof python_cases / sizeof *python_cases; i++) {
        const char *text = python_cases[i].text;
        size_t len = strlen(text);
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        size_t viable = 0;
        while (viable < len && ep_feed(rec, text + viable, 1) == 1)
            viable++;
        bool complete = viable == len && ep_can_end(rec);
        ep_recognizer_free(rec);
        cr_expect_eq(complete, python_cases[i].valid, "case %zu: seam says %s, CPython says %s: %s", i,
                     complete ? "valid" : "invalid", python_cases[i].valid ? "valid" : "invalid", text);
        if (python_cases[i].valid)
            cr_expect_eq(viable, len, "case %zu: prefix of a valid text rejected at byte %zu: %s", i, viable, text);
    }
    ep_grammar_free(grammar);
}

Test(parser, python_rejects_early)
{
    ep_grammar *grammar = python_grammar();
    static const struct { const char *text; size_t viable; } cases[] = {
        {"x = )", 4},           /* the ")" */
        {"def (", 4},
        {"if x:\n    y\n  z", 14}, /* the dedent to a column that was never used */
        {"0or", 2},             /* CPython commits to an octal literal */
        {"x = 'abc\n", 8},      /* single-quoted strings end on their line */
        {"f(**k, *a)", 8},      /* "*" could still grow into "**" */
        /* f-string fields are checked as far as they go */
        {"s = f'{x[}'", 9},      /* the "}" while "[" is open */
        {"s = f'{x!z}'", 9},     /* no conversion "z" */
        {"s = f'{a + }'", 11},   /* an unfinished expression */
        {"s = f'{x!r)}'", 10},   /* only ":" or "}" after a conversion */
        {"s = f'{}'", 7},        /* an empty expression */
        {"s = f'{x}}'", 10},     /* a single "}" (the quote after it decides) */
        {"s = f'''{x\n  +}'''", 14},
        {"s = f'{x:{y:{z}}}'", 12},  /* fields nested too deeply */
        /* names hold XID characters only, checked as each one is complete */
        {"x\xc3\x97 = 1", 2},     /* U+00D7 MULTIPLICATION SIGN */
        {"\xc2\xb7x = 1", 1},     /* U+00B7 MIDDLE DOT: XID_Continue, not XID_Start */
        {"s = '\\N{EM DAXH}'", 15}, /* an unknown character name, at its brace */
        /* a comment where the logical line cannot end: refused at its "#" */
        {"x = #note", 4},
        {"lambda: #c", 8},
        {"x = \\\n#c", 6},
        {"x = (1 #c\n)", 11},     /* in brackets the line goes on: all viable */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        size_t len = strlen(cases[i].text), viable = 0;
        while (viable < len && ep_feed(rec, cases[i].text + viable, 1) == 1)
            viable++;
        ep_recognizer_free(rec);
        cr_expect_eq(viable, cases[i].viable, "%s: viable for %zu bytes, expected %zu", cases[i].text, viable,
                     cases[i].viable);
    }
    ep_grammar_free(grammar);
}

/* Random feeds, saves and restores must leave the recognizer exactly where
 * a fresh recognizer fed the same text in one go would be. */
Test(parser, python_save_restore_matches_a_fresh_parse)
{
    ep_grammar *grammar = python_grammar();
    static const char source[] =
        "import os\nt = f'{a}-{b[1]}\\N{EM DASH}{c:{d}}{e=}' + '\\N{BULLET}'\n\n@dec(1)\ndef f(a, /, b=2, *c, d, **e) -> int:\n    \"\"\"Doc.\"\"\"\n"
        "    if a and (b or\n        c):\n\treturn [x for x in c if x]  # done\n"
        "    s = f'{a!r:>{b}}' 'tail' \\\n        + r'\\d'\n    return 0x1f + 1_000j\n\n"
        "class K(object):\n    x: int = 1\n";
    static const char noise[] = "()[]{}:,=.'\"\n\t\\#x1 \xc3\xa9\xff";
    unsigned seed = 2024;
    for (int round = 0; round < 40; round++) {
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        char text[1024];
        size_t len = 0;
        struct { ep_savepoint point; size_t len; } saves[64];
        int depth = 0;
        for (int step = 0; step < 60; step++) {
            int op = (int)(rand_r(&seed) % 10);
            if (op < 2 && depth < 64) {
                saves[depth].point = ep_save(rec);
                saves[depth].len = len;
                depth++;
            } else if (op < 4 && depth > 0) {
                int back = (int)(rand_r(&seed) % (unsigned)depth);
                ep_restore(rec, saves[back].point);
                len = saves[back].len;
                depth = back + 1;
            } else {
                char chunk[16];
                size_t n = 1 + rand_r(&seed) % 8;
                for (size_t k = 0; k < n; k++) {
                    bool from_source = rand_r(&seed) % 40 != 0;
                    size_t at = (len + k) % (sizeof source - 1);
                    chunk[k] = from_source ? source[at] : noise[rand_r(&seed) % (sizeof noise - 1)];
                }
                if (len + n >= sizeof text)
                    break;
                int rc = ep_feed(rec, chunk, n);
                if (rc == SM_EUTF8)
                    continue; /* refused whole: the recognizer is unchanged */
                memcpy(text + len, chunk, n);
                len += n;
            }
            ep_recognizer *fresh;
            cr_assert_eq(ep_recognizer_new(grammar, &fresh), SM_OK);
            int fresh_rc = ep_feed(fresh, text, len);
            cr_assert_geq(fresh_rc, 0, "the text accepted piecewise must be accepted whole");
            cr_assert_eq(ep_viable(rec), fresh_rc == 1, "viability after %d steps of round %d: %.*s", step,
                         round, (int)len, text);
            cr_assert_eq(ep_can_end(rec), ep_can_end(fresh), "can_end after %d steps of round %d: %.*s", step,
                         round, (int)len, text);
            cr_assert_eq(ep_fed_bytes(rec), len);
            ep_recognizer_free(fresh);
        }
        ep_recognizer_free(rec);
    }
    ep_grammar_free(grammar);
}

/* A str literal is checked as it grows, resuming where the last check left
 * off; a restore into the literal must not leave that place behind. */
Test(parser, python_string_checks_follow_restores)
{
    ep_grammar *grammar = python_grammar();
    static const struct { const char *first, *then; bool viable; } cases[] = {
        {"{x}{y}b", "{x[}bcdefghijklmnop", false},
        {"{x}{y}b", "{x[1]}bcdefghijklmnop", true},
        {"\\N{EM DASH}xyz", "\\N{EM DAXH}bcdefghijklmnop", false},
        {"\\N{EM DASH}xyz", "\\N{BULLET}bcdefghijklmnop", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        cr_assert_eq(ep_feed(rec, "s = f'a", 7), 1);
        ep_savepoint point = ep_save(rec);
        for (const char *c = cases[i].first; *c; c++)
            cr_assert_eq(ep_feed(rec, c, 1), 1, "case %zu: %s", i, cases[i].first);
        ep_restore(rec, point);
        /* in one piece: the check runs once, past where the last one ended */
        bool viable = ep_feed(rec, cases[i].then, strlen(cases[i].then)) == 1;
        cr_expect_eq(viable, cases[i].viable, "case %zu: s = f'a%s", i, cases[i].then);
        ep_recognizer_free(rec);
    }
    ep_grammar_free(grammar);
}

/* Fill-in-the-middle cases: (left, middle, right) with CPython's verdict on
 * left + middle + right.  A valid middle must stay viable byte by byte and
 * complete; an invalid one must not complete. */
static const struct {
    const char *left, *middle, *right;
    bool valid;
} fim_cases[] = {
    {"x = ", "foo(1)", "\ny = 2\n", true},
    {"x = foo(", "1, 2", ")\n", true},
    {"x = foo(", "1, 2)", ")\n", false},
    {"", "import os\n", "", true},
    {"def f():\n    ", "return 1", "\n", true},
    {"def f():\n", "    return 1\n", "def g():\n    pass\n", true},
    {"def f():\n", "    return 1\n", "    pass\n", true},
    /* the paper's Fig. 9: the same right context after different middles */
    {"if foo:\n  if bar:\n", "    pass\n", "  pass\n", true},
    {"if foo:\n  if bar:\n", "    pass\n  pass\n", "", true},
    {"if foo:\n", "  if bar:\n    pass\n", "pass\n", true},
    {"if foo:\n", "  try:\n    if baz:\n      pass\n", "  except e:\n    pass\n", true},
    {"x = 1  # a com", "ment", "\ny = 2\n", true},
    {"s = 'ab", "cd", "ef'\n", true},
    {"s = \"\"\"ab", "c\nd", "ef\"\"\"\n", true},
    {"x = fo", "o", "bar + 1\n", true},
    {"x = 1 + \\\n", "    2", "\n", true},
    {"x = (1 +\n", "2", "\n+ 3)\n", true},
    {"x = 1", "", "", true},
    {"x = 1\r\n", "y = 2\r\n", "z = 3\r\n", true},
    {"if x:\n\t", "y = 1", "\n\tz = 2\n", true},
    {"x = '''\n", "abc", "\n'''\n", true},
    {"class A:\n    def f(self):\n        ", "return self.x", "\n\n    def g(self):\n        pass\n", true},
    {"x = [1,\n", "2,\n", "3]\n", true},
    {"x = ", "1)", "\n", false},
    {"print(", "'a'", ", end='')\n", true},
    {"f(", "a=1, b", ")\n", false},
    {"for i in range(", "10):\n    pass", "\n", true},
    {"x = ", "\"#'##\"", "\"#'##\"##\n", true},
    {"x = \"", "a", "\"#'##\"##\n", true},
    {"x = 1 ", "#", "\"#'##\"##\n", true},
    {"if foo:\n  if bar:\n", "    pass\n", "   pass\n", false},
    {"if foo:\n", "  try:\n    pass\n", " except e:\n    pass\n", false},
    /* the paper's Fig. 10, where its right-context lexing accepts invalid
     * programs: an INDENT that is not taken, and an "except" lined up with
     * the "if" of the middle instead of the "try" */
    {"if foo:\n  if foo:", "", "\n  pass\n", false},
    {"if foo:\n  if foo:", " x", "\n  pass\n", true},
    {"if foo:\n  try:\n", "    if baz:\n      pass\n", "    except e:\n      pass\n", false},
    {"if foo:\n  try:\n", "    if baz:\n      pass\n", "  except e:\n    pass\n", true},
    {"if foo:\n", "  if bar:\n", "pass\n", false},
    {"x = (", "1", "\n", false},
    {"x = 1 \\\n", "", "", false},
    {"x = 1", " + 2", " \\\n+ 3\n", true},
    {"x = (1", " + 2", "\n\n   )\n", true},
    {"def f():\n    x = 1\n", "", "    return x\n", true},
    /* nothing to the right: the quotient is the grammar itself, and a
     * backslash join at the end of the text is the plain recognizer's */
    {"x = 1\n", "\\\r\n", "", true},
    {"x = 1\n", "\\\n", "", false},
};

Test(parser, python_fill_in_the_middle_cases_agree_with_cpython)
{
    ep_grammar *grammar = python_grammar();
    for (size_t i = 0; i < sizeof fim_cases / sizeof *fim_cases; i++) {
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new_fim(grammar, fim_cases[i].left, strlen(fim_cases[i].left), fim_cases[i].right,
                                           strlen(fim_cases[i].right), &rec),
                     SM_OK);
        bool viable = ep_viable(rec);
        const char *middle = fim_cases[i].middle;
        size_t len = strlen(middle), fed = 0;
        while (viable && fed < len && ep_feed(rec, middle + fed, 1) == 1)
            fed++;
        bool complete = viable && fed == len && ep_can_end(rec);
        cr_expect_eq(complete, fim_cases[i].valid, "case %zu: seam says %s, CPython %s: %s|%s|%s", i,
                     complete ? "valid" : "invalid", fim_cases[i].valid ? "valid" : "invalid", fim_cases[i].left,
                     middle, fim_cases[i].right);
        if (fim_cases[i].valid)
            cr_expect(viable && fed == len, "case %zu: true middle refused after %zu bytes", i, fed);
        ep_recognizer_free(rec);
    }
    ep_grammar_free(grammar);
}

/* A middle that duplicates the closing bracket after the cursor cannot end,
 * and one that cannot connect to the right context is refused early. */
Test(parser, python_fill_in_the_middle_rejects_early)
{
    ep_grammar *grammar = python_grammar();
    ep_recognizer *rec;
    const char *right = ")\nprint(x)\n";
    cr_assert_eq(ep_recognizer_new_fim(grammar, "x = foo(1, ", 11, right, strlen(right), &rec), SM_OK);
    cr_assert(ep_viable(rec));
    ep_savepoint point = ep_save(rec);
    cr_assert_eq(ep_feed(rec, "2", 1), 1);
    cr_assert(ep_can_end(rec));
    cr_assert_eq(ep_feed(rec, ")", 1), 1, "')' may still be followed by more, e.g. '(' ...");
    cr_assert_not(ep_can_end(rec), "but it cannot end: the right context closes the call");
    ep_restore(rec, point);
    cr_assert(ep_can_end(rec), "a trailing comma is fine in a call: foo(1, )");
    cr_assert_eq(ep_feed(rec, "\n", 1), 1, "a line break inside the call's brackets is fine");
    cr_assert_eq(ep_feed(rec, "def", 3), 1, "\"def\" may still grow into a name such as \"default\"");
    cr_assert_eq(ep_feed(rec, " ", 1), 0, "but the keyword def cannot stand inside the call");
    ep_recognizer_free(rec);
    ep_grammar_free(grammar);
}

/* For random cuts of Python texts (valid ones and mutated ones), the
 * fill-in-the-middle recognizer's can_end must equal the plain recognizer's
 * verdict on left + middle + right, and a middle that completes must have
 * stayed viable. */
Test(parser, python_fill_in_the_middle_matches_the_plain_recognizer)
{
    ep_grammar *grammar = python_grammar();
    static const char *const sources[] = {
        "import os\n\ndef f(a, b=1):\n    if a:\n        return [x for x in b]\n    else:\n"
        "        s = f'{a!r}' \\\n            'tail'\n    return (a,\n            b)\n\nclass K:\n"
        "    x = 1\n\n    def g(self):\n        '''doc\n        string'''\n        return self.x\n\ny = K()\n",
        "x = 1\nif x:\n\ty = 2\n\tz = (3 +\n4)\nelse:\n\tpass\n# end\nw = 0x1f\n",
        "try:\n    a = b[1:2]\nexcept (E, F) as e:\n    raise\nfinally:\n    c = 'x'  # c\n",
    };
    static const char noise[] = "()[]{}:,=.'\"\n\t\\#x1 ";
    unsigned seed = 77;
    for (int round = 0; round < 150; round++) {
        const char *source = sources[round % 3];
        size_t n = strlen(source);
        char text[512];
        memcpy(text, source, n + 1);
        if (round % 2) {
            /* a single-character mutation somewhere */
            size_t at = rand_r(&seed) % n;
            text[at] = noise[rand_r(&seed) % (sizeof noise - 1)];
        }
        size_t cut1 = rand_r(&seed) % (n + 1);
        size_t cut2 = cut1 + rand_r(&seed) % (n - cut1 + 1);
        char left[512], middle[512];
        memcpy(left, text, cut1);
        left[cut1] = '\0';
        memcpy(middle, text + cut1, cut2 - cut1);
        middle[cut2 - cut1] = '\0';
        const char *right = text + cut2;

        ep_recognizer *plain;
        cr_assert_eq(ep_recognizer_new(grammar, &plain), SM_OK);
        bool valid = ep_feed(plain, text, n) == 1 && ep_can_end(plain);
        ep_recognizer_free(plain);

        ep_recognizer *fim;
        cr_assert_eq(ep_recognizer_new_fim(grammar, left, cut1, right, strlen(right), &fim), SM_OK);
        bool viable = ep_viable(fim);
        size_t fed = 0;
        while (viable && fed < cut2 - cut1 && ep_feed(fim, middle + fed, 1) == 1)
            fed++;
        viable = viable && fed == cut2 - cut1;
        bool complete = viable && ep_can_end(fim);
        ep_recognizer_free(fim);
        cr_assert_eq(complete, valid, "round %d: fill-in-the-middle says %s, the whole text is %s: [%s|%s|%s]",
                     round, complete ? "valid" : "invalid", valid ? "valid" : "invalid", left, middle, right);
        if (valid)
            cr_assert(viable, "round %d: a true middle was refused: [%s|%s|%s]", round, left, middle, right);
    }
    ep_grammar_free(grammar);
}

/* can_end after every byte of the middle, against the plain recognizer on
 * left + middle-so-far + right: every way can_end has (a cursor path, the
 * block path, feeding the right context's head, the whole text afresh)
 * must give the exact answer, also when the middle leaves the layout those
 * ways assume (other bracket depths, indentation, lines). */
Test(parser, python_can_end_is_exact_after_every_byte)
{
    ep_grammar *grammar = python_grammar();
    static const char *const sources[] = {
        "class K:\n    def f(self, a):\n        x = self.g(a, [1, 2],\n                   b=3)\n"
        "        if x:\n            return x + 1\n        return {'k': (a,\n                      b)}\n\n"
        "    def g(self, *args, **kw):\n        s = '''one\n        two'''  # note\n        return s\n\n"
        "z = K().f(1)\n",
        "values = {\n    'a': [1, 2, 3],\n    'b': (4,\n          5),\n}\nprint(values['a'][0] +\n"
        "      values['b'][1])\nif values:\n\tfor k in values:\n\t\tprint(k, end=' ')\n",
        "def h(x):\n    try:\n        y = x \\\n            + 1\n    except (ValueError, TypeError) as e:\n"
        "        raise RuntimeError(f\"{e!r}\") from e\n    else:\n        return y\n\nh(2)\n",
    };
    static const char noise[] = "()[]{}:,=.'\"\n\t\\#x1 ";
    unsigned seed = 2026;
    uint32_t ways[EP_CAN_END_WAYS] = {0};
    for (int round = 0; round < 120; round++) {
        const char *source = sources[round % 3];
        size_t n = strlen(source);
        char text[1024];
        memcpy(text, source, n + 1);
        if (round % 3 == 2) {
            size_t at = rand_r(&seed) % n;
            text[at] = noise[rand_r(&seed) % (sizeof noise - 1)];
        }
        size_t cut1 = rand_r(&seed) % n;
        size_t cut2 = cut1 + rand_r(&seed) % 48;
        if (cut2 > n)
            cut2 = n;
        const char *right = text + cut2;
        size_t right_len = n - cut2;
        ep_recognizer *fim;
        cr_assert_eq(ep_recognizer_new_fim(grammar, text, cut1, right, right_len, &fim), SM_OK);
        for (size_t k = cut1; k <= cut2; k++) {
            if (k > cut1 && ep_feed(fim, text + k - 1, 1) != 1)
                break;
            char whole[1024];
            memcpy(whole, text, k);
            memcpy(whole + k, right, right_len);
            ep_recognizer *plain;
            cr_assert_eq(ep_recognizer_new(grammar, &plain), SM_OK);
            bool valid = ep_feed(plain, whole, k + right_len) == 1 && ep_can_end(plain);
            ep_recognizer_free(plain);
            cr_assert_eq(ep_can_end(fim), valid, "round %d, middle of %zu bytes: can_end says %s: [%.*s|%.*s|%s]",
                         round, k - cut1, valid ? "invalid" : "valid", (int)cut1, text, (int)(k - cut1), text + cut1,
                         right);
        }
        uint32_t used[EP_CAN_END_WAYS];
        ep_recognizer_can_end_ways(fim, used);
        for (int w = 0; w < EP_CAN_END_WAYS; w++)
            ways[w] += used[w];
        ep_recognizer_free(fim);
    }
    cr_expect_gt(ways[EP_CAN_END_CURSOR], 0, "no can_end was answered by a cursor path");
    cr_expect_gt(ways[EP_CAN_END_BLOCK], 0, "no can_end was answered by the block path");
    cr_expect_gt(ways[EP_CAN_END_HEAD], 0, "no can_end was answered by feeding the head");
    cr_log_info("can_end ways: cursor %u, block %u, head %u, whole %u", ways[0], ways[1], ways[2], ways[3]);
    ep_grammar_free(grammar);
}

Test(python_versions, grammar_lines_selected_by_version)
{
    static const char source[] =
        "start: item\n"
        "%if version >= 3.12\n"
        "item: \"new\"\n"
        "%if version >= 3.13\n"
        "   | \"newer\"\n"
        "%endif\n"
        "%else\n"
        "item: \"old\"\n"
        "%endif\n";
    char error[256];
    sm_buf out;
    sm_buf_init(&out, 1 << 16);
    cr_assert_eq(ep_grammar_select(source, sizeof source - 1, 313, &out, error, sizeof error), SM_OK, "%s", error);
    cr_assert_str_eq(out.data, "start: item\n\nitem: \"new\"\n\n   | \"newer\"\n\n\n\n\n");
    sm_buf_clear(&out);
    cr_assert_eq(ep_grammar_select(source, sizeof source - 1, 311, &out, error, sizeof error), SM_OK, "%s", error);
    cr_assert_str_eq(out.data, "start: item\n\n\n\n\n\n\nitem: \"old\"\n\n");
    sm_buf_free(&out);
    const char *bad[] = {"%if version >= 3\n%endif\n", "%if py >= 3.1\n%endif\n", "%endif\n", "%else\n",
                         "%if version >= 3.12\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sm_buf_init(&out, 1 << 16);
        cr_assert_eq(ep_grammar_select(bad[i], strlen(bad[i]), 312, &out, error, sizeof error), SM_EINVAL, "%s", bad[i]);
        sm_buf_free(&out);
    }
    ep_grammar *g;
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 308, &g, error, sizeof error), SM_EINVAL);
    cr_assert(strstr(error, "3.9 to 3.14"), "%s", error);
}

Test(python, the_bracket_past_cpythons_nesting_limit_is_refused_where_it_is_typed)
{
    char error[256];
    ep_grammar *grammar;
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &grammar, error, sizeof error), SM_OK, "%s", error);
    const char opens[] = "([{";
    for (int k = 0; k < 3; k++) {
        char text[256];
        memset(text, opens[k], 201);
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        size_t viable = 0;
        while (viable < 201 && ep_feed(rec, text + viable, 1) == 1)
            viable++;
        /* CPython 3.11 parses 200 nested brackets and refuses the 201st */
        cr_expect_eq(viable, 200, "%c: %zu brackets viable", opens[k], viable);
        ep_recognizer_free(rec);
    }
    ep_grammar_free(grammar);
}

Test(python, decimal_integers_past_cpythons_digit_limit_are_refused_where_they_end)
{
    char error[256];
    ep_grammar *grammar;
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &grammar, error, sizeof error), SM_OK, "%s", error);
    static char text[10000];
    struct {
        size_t ones;        /* "x = " and this many digits */
        const char *tail;
        bool complete;
    } cases[] = {
        {4300, "\n", true},   /* CPython 3.11: at the limit */
        {4301, "\n", false},  /* past it: refused where the literal ends */
        {4301, ".5\n", true}, /* a float has no limit */
        {4301, "j\n", true},
        {4301, " + 1\n", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memcpy(text, "x = ", 4);
        memset(text + 4, '7', cases[i].ones);
        strcpy(text + 4 + cases[i].ones, cases[i].tail);
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        size_t len = strlen(text), fed = 0;
        while (fed < len && ep_feed(rec, text + fed, 1) == 1)
            fed++;
        bool complete = fed == len && ep_can_end(rec);
        cr_expect_eq(complete, cases[i].complete, "%zu digits then %s", cases[i].ones, cases[i].tail);
        if (!cases[i].complete)
            cr_expect_eq(fed, 4 + cases[i].ones, "refused right after the digits: %zu", fed);
        ep_recognizer_free(rec);
    }
    ep_grammar_free(grammar);
}
