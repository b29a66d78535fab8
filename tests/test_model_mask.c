/*
 * Full-vocabulary masks: the trie walk gives exactly the tokens a check of
 * every token on its own gives, on a small vocabulary and, when libllama is
 * linked, on the real vocabularies llama.cpp ships (starcoder, qwen2,
 * deepseek-coder, llama-spm), at every position along true middles.
 */
#include "seam_model_client.h"
#include "seam_languages.h"
#include "test_support.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

#ifdef SEAM_HAVE_LLAMA
#include "seam_inproc.h"
#endif

typedef struct mask_case {
    const char *left, *middle, *right;
} mask_case;

static const mask_case cases[] = {
    {"import os\n\n\ndef read(path):\n    with open(", "path, encoding=\"utf-8\") as f:\n        return f.read()",
     "\n\n\nprint(read(os.sep))\n"},
    {"class Point:\n    def __init__(self, x, y):\n        self.x = x\n        ", "self.y = y\n",
     "\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n"},
    {"values = [1, 2, 3]\ntotal = sum(", "v * 2 for v in values if v > 1", ")\nprint(f'{total:>8}')\n"},
    {"def greet(name):\n    return f\"Hello, {", "name.title()}! Caf\xc3\xa9 \xe2\x80\x94 ok", "\"\n"},
    /* escapes, some cut where a token may end: the walk's shortcut must not
     * take bytes after a backslash */
    {"SEP = ", "\"tab\\t, dash \\N{EM DASH}, \\x41 and {braces}\" + b'\\xff'", "\n"},
    {"import re\nWORD = re.compile(", "r'\\s+(\\w+)\\b', re.I", ")\n"},
    /* names and comments outside ASCII, a docstring over lines */
    {"caf\xc3\xa9 = 1\n", "na\xc3\xafve = caf\xc3\xa9 + 1  # caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac", "\n"},
    {"def f():\n    ", "\"\"\"Sum \xce\xb1.\n\n    Returns {x}.\n    \"\"\"\n    return 1if True else 2", "\n"},
    /* a name that turns into an f-string with a character past ASCII;
     * braces in a plain literal; a name outside ASCII; a name then the
     * bytes that end it, and a keyword's prefix */
    {"def f(a, \xe4\xb8\xad):\n    ", "t = F\"\xe2\x80\x94 {a}\" + \"a{b}\" + \xe4\xb8\xad + Tr(ab(a, True))\n    return t",
     "\n"},
};

/* Python 3.12's f-strings and 3.14's t-strings, read with the tokenizer's
 * modes: the same quote inside a field, comments and line breaks in
 * fields, nested strings, conversions and nested format specs. */
static const mask_case modal_cases[] = {
    {"d = {}\n", "print(f\"{d[\"k\"]!r:>{len(d)}} {d = }\")", "\n"},
    {"x = 1\ny = ", "f'''{\n    x  # c\n}''' + f\"{f\"{x}\"}\" + f\"{{x}}\"", "\n"},
    {"def g(a):\n    return f\"{a[\"", "k\"]:{'>'}{1}}\"", "\n"},
    {"def f(p, self):\n    return ", "f\"{len(p=[], q={}):>{self.width}} {len(p[1:])}\"", "\n"},
    /* 3.14 only (the last) */
    {"s = ", "t\"{x!s:{w}}\" t'{y}' Tr\"\\{z}\"", "\n"},
};

/* A language's grammar in a version or dialect (JavaScript's 1: script). */
static ep_grammar *grammar_of(const char *language, int version)
{
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name(language), version, &g, err, sizeof err), SM_OK, "%s", err);
    return g;
}

static ep_grammar *grammar_version(int version)
{
    return grammar_of("python", version);
}

static ep_grammar *grammar(void)
{
    return grammar_version(311);
}

/* A position along a case's true middle. */
typedef struct mask_position {
    ep_recognizer *rec;     /* fed the left context and the middle up to `at` */
    size_t case_index, at;
    bool last;              /* the whole middle has been fed */
} mask_position;

typedef void (*position_check)(void *data, const mask_position *p);

/* A vocabulary of the given pieces (at most 128), each its C string. */
static mc_vocab *vocab_of(const char *const *pieces, uint32_t n)
{
    uint32_t lens[128];
    cr_assert_leq(n, 128);
    for (uint32_t i = 0; i < n; i++)
        lens[i] = (uint32_t)strlen(pieces[i]);
    return mc_vocab_new(pieces, lens, n);
}

/* Calls check at every `stride`-th byte of each case's true middle and at
 * its end, feeding the middle in between; returns how many positions. */
static uint32_t along_cases(const ep_grammar *g, const mask_case *set, size_t count, uint32_t stride,
                            position_check check, void *data)
{
    uint32_t positions = 0;
    for (size_t i = 0; i < count; i++) {
        const mask_case *c = &set[i];
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new_fim(g, c->left, strlen(c->left), c->right, strlen(c->right), &rec), SM_OK);
        size_t mlen = strlen(c->middle);
        for (size_t at = 0; at <= mlen; at++) {
            if (at % stride == 0 || at == mlen) {
                mask_position p = {rec, i, at, at == mlen};
                check(data, &p);
                positions++;
            }
            if (at < mlen)
                cr_assert_eq(ep_feed(rec, c->middle + at, 1), 1, "the true middle of case %zu at %zu", i, at);
        }
        ep_recognizer_free(rec);
    }
    return positions;
}

static uint32_t along_middles(const ep_grammar *g, uint32_t stride, position_check check, void *data)
{
    return along_cases(g, cases, sizeof cases / sizeof *cases, stride, check, data);
}

typedef struct masks_check {
    const mc_vocab *v;
    const char *what;
    uint32_t words;
    uint64_t *trie, *brute;
    uint32_t some_allowed;
} masks_check;

static void compare_masks(void *data, const mask_position *p)
{
    masks_check *m = data;
    mc_mask_stats st_trie, st_brute;
    uint32_t a = mc_vocab_mask(m->v, p->rec, m->trie, &st_trie);
    uint32_t b = mc_vocab_mask_brute(m->v, p->rec, m->brute, &st_brute);
    for (uint32_t t = 0; t < mc_vocab_size(m->v) && a != b; t++)
        if (((m->trie[t / 64] >> (t % 64)) & 1) != ((m->brute[t / 64] >> (t % 64)) & 1))
            fprintf(stderr, "%s, case %zu at %zu: token %u is %s by the trie only\n", m->what, p->case_index, p->at,
                    t, (m->trie[t / 64] >> (t % 64)) & 1 ? "allowed" : "refused");
    cr_assert_eq(a, b, "%s, case %zu at %zu: trie %u tokens, brute force %u", m->what, p->case_index, p->at, a, b);
    cr_assert(memcmp(m->trie, m->brute, m->words * sizeof *m->trie) == 0, "%s, case %zu at %zu: masks differ",
              m->what, p->case_index, p->at);
    cr_assert_leq(st_trie.bytes_fed, st_brute.bytes_fed);
    cr_assert(ep_viable(p->rec), "the walk leaves the recognizer as it was");
    m->some_allowed += a > 0;
}

/* Compares the two masks at every `stride`-th byte of each case's middle
 * (of `set`, or of `cases` when NULL). */
static void check_masks_of(const mc_vocab *v, const ep_grammar *g, const mask_case *set, size_t count,
                           uint32_t stride, const char *what)
{
    masks_check m = {.v = v, .what = what, .words = (mc_vocab_size(v) + 63) / 64};
    m.trie = sm_malloc(m.words * sizeof *m.trie);
    m.brute = sm_malloc(m.words * sizeof *m.brute);
    uint32_t positions = set ? along_cases(g, set, count, stride, compare_masks, &m)
                             : along_middles(g, stride, compare_masks, &m);
    /* Along true middles the next true byte is always allowed, so a token
     * is too, unless the vocabulary lacks a token for it. */
    cr_assert_geq(m.some_allowed * 10, positions * 9, "%s: %u of %u positions allow a token", what, m.some_allowed,
                  positions);
    sm_free(m.trie);
    sm_free(m.brute);
}

static void check_masks(const mc_vocab *v, const ep_grammar *g, uint32_t stride, const char *what)
{
    check_masks_of(v, g, NULL, 0, stride, what);
}

Test(model_mask, the_trie_equals_the_check_of_every_token_on_a_small_vocabulary)
{
    static const char *const pieces[] = {
        "x", "xy", " =", "=", "(", ")", ")(", "1", "12", "\n", "\n    ", "", "path", " path", "pa", ",", ", ",
        "\"", "\"utf", "-8\"", "for", " for", " in", ":", " :", "]", "}", "self", ".", ".y", "y", " y", "\xc3",
        "\xa9", "\xc3\xa9", "\xe2\x80", "\x94", "{", "}!",
        /* the last case's: a token that ends a name and starts a string, a
         * name character and one no name holds, braces in a literal, bytes
         * that end a name after spaces */
        "F", "F\"", "\"\xe2\x80\x94", "\xe2\x80\x94", "a{", "{b", "b}", "}\"", "\xe4", "\xe4\xb8", "\xe4\xb8\xad",
        "\xe4\xb8\xad)", "\xef\xbc\x8c", "a\xef\xbc\x8c", "ab(", "ab.", "ab,", "Tr", "Tru", "True", "True)", "Tr(",
        "  ", "   x", "  x(", " +", " + \"",
        /* Python 3.12's modes: quotes and comments inside fields */
        "[\"", "\"]", "\"]}", "#", " # c", "!r", "'''", "{\n", "t\"", "\"}\"", " {", "{{",
        /* keyword arguments of a call inside a field: "=" and brackets
         * there are the expression's, "," after them too */
        "=[],", "={},", "=[]", "len", "(p", "[1:]", "):>", "{self", ".width", "}}",
        "x", /* a duplicate */
    };
    uint32_t n = sizeof pieces / sizeof *pieces;
    mc_vocab *v = vocab_of(pieces, n);
    cr_assert_eq(mc_vocab_size(v), n);
    ep_grammar *g = grammar();
    /* the trees prepared at load serve the masks below like any other */
    cr_assert_geq(mc_vocab_prewarm(v, g), 8);
    check_masks(v, g, 1, "small vocabulary");
    /* Known answers after "x = ": a number or a name, not ")" or "=". */
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, "x = ", 4, "\n", 1, &rec), SM_OK);
    uint64_t mask[2];
    cr_assert_leq(n, 128);
    mc_vocab_mask(v, rec, mask, NULL);
    cr_assert(mask[0] & (1ull << 7), "\"1\" is allowed");
    cr_assert(mask[0] & (1ull << 0), "\"x\" is allowed");
    cr_assert(mask[(n - 1) / 64] & (1ull << ((n - 1) % 64)), "its duplicate too");
    cr_assert_not(mask[0] & (1ull << 5), "\")\" is not");
    cr_assert_not(mask[0] & (1ull << 3), "\"=\" is not");
    cr_assert_not(mask[0] & (1ull << 11), "a token without bytes never is");
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    /* f- and t-strings with modes: the walk's shortcuts through the
     * automaton must leave a string's end to its scanner */
    static const int modal_versions[] = {312, 314};
    for (size_t i = 0; i < sizeof modal_versions / sizeof *modal_versions; i++) {
        char what[64];
        snprintf(what, sizeof what, "small vocabulary, %d", modal_versions[i]);
        g = grammar_version(modal_versions[i]);
        size_t count = sizeof modal_cases / sizeof *modal_cases - (modal_versions[i] < 314);
        check_masks_of(v, g, modal_cases, count, 1, what);
        ep_grammar_free(g);
    }
    mc_vocab_free(v);
}

/* Feeds `text` to `rec` a byte at a time and, after each byte, compares
 * the mask with the check of every token on its own; returns how many of
 * those masks were the one kept inside the same name (ep_trie.h's memo). */
static uint32_t masks_along(const mc_vocab *v, ep_recognizer *rec, const char *text, uint64_t *mask, uint64_t *brute)
{
    uint32_t copied = 0, words = (mc_vocab_size(v) + 63) / 64;
    for (const char *c = text; *c; c++) {
        cr_assert_eq(ep_feed(rec, c, 1), 1, "\"%s\" at \"%s\"", text, c);
        mc_mask_stats st;
        uint32_t a = mc_vocab_mask(v, rec, mask, &st);
        uint32_t b = mc_vocab_mask_brute(v, rec, brute, NULL);
        cr_assert(a == b && memcmp(mask, brute, words * sizeof *mask) == 0,
                  "\"%s\" up to \"%s\": the mask%s differs from the check of every token (%u, %u)", text, c,
                  st.copied ? " copied" : "", a, b);
        copied += st.copied;
    }
    return copied;
}

/* Inside a plain name the mask does not depend on the name: the one made a
 * byte before is copied, equal to the check of every token.  Not after
 * other text before the name, in another automaton state (a keyword's
 * prefix), at a string's prefix, or at a tag's name, which its closing tag
 * must repeat. */
Test(model_mask, a_mask_inside_a_name_is_copied_where_the_name_makes_no_difference)
{
    static const char *const pieces[] = {
        "x", "ab", "a", "b", "c", "(", ")", "]", " )", ")]", "n", "f", " c", " else", "urn", "\"s\"", "'",
        "e", "_e", "()", ".x", " =", "\n", ":", ">", "n>", "an>", "</", "span", "v", "v>", " in", "}", "}{", "!r}",
    };
    mc_vocab *v = vocab_of(pieces, sizeof pieces / sizeof *pieces);
    uint64_t mask[1], brute[1];
    ep_grammar *g = grammar();
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, "", 0, "\n", 1, &rec), SM_OK);
    ep_savepoint start = ep_save(rec);
    /* "a" (a keyword's prefix) and "a_" are made, the rest of the name
     * copied */
    cr_assert_eq(masks_along(v, rec, "x = (a_bcabc", mask, brute), 5);
    /* the same length of text before the name, in the same state, but
     * "[" for "(": ")" closes nothing here, "]" does */
    ep_restore(rec, start);
    cr_assert_eq(ep_feed(rec, "x = [a_bca", 10), 1);
    cr_assert_eq(masks_along(v, rec, "b", mask, brute), 0);
    cr_assert(mask[0] & (1u << 7), "\"]\" is allowed");
    cr_assert_not(mask[0] & (1u << 6), "\")\" is not");
    cr_assert_eq(masks_along(v, rec, "c", mask, brute), 1);
    /* "i" and "if" are states of their own: "n" may follow the first only */
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "y = x if", mask, brute), 0);
    /* "rb" may start a string, "rbc" may not */
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "y = rbcc", mask, brute), 1);
    /* a comment, whatever it says; a string up to its first backslash,
     * but not one whose prefix is a name (accepted in part, "b" would be
     * taken as a name and the rest read again if it did not close) */
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "y = 1  # a b", mask, brute), 4);
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "y = 'ab c\\ne", mask, brute), 3);
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "y = b'ab", mask, brute), 0);
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    /* an f-string's text in 3.12 (read by its scanner, no prefix accepted
     * as a name) up to its first brace: the scanner reads a field, and the
     * rest of the string is walked */
    g = grammar_version(312);
    cr_assert_eq(ep_recognizer_new_fim(g, "", 0, "\n", 1, &rec), SM_OK);
    cr_assert_eq(masks_along(v, rec, "y = f'ab c", mask, brute), 3);
    mc_mask_stats st;
    mc_vocab_mask(v, rec, mask, &st);
    cr_assert(st.copied && st.in_fields, "a copy inside an f-string counts as one");
    cr_assert_eq(masks_along(v, rec, "{x}e", mask, brute), 0);
    /* a name in a field's expression: the scanner reads its bytes as the
     * expression's, so once the name has left "import" and its prefixes
     * (states of their own) it is copied: two masks in "import_er"; "as",
     * a keyword, is not copied from "a", which "}" may follow */
    cr_assert_eq(masks_along(v, rec, "{import_er", mask, brute), 2);
    mc_vocab_mask(v, rec, mask, &st);
    cr_assert(st.copied && st.in_fields, "a copy in a field counts as one in fields");
    cr_assert_eq(masks_along(v, rec, "}{a", mask, brute), 0);
    cr_assert(mask[0] & (1ull << 32), "\"}\" may follow \"a\"");
    cr_assert_eq(masks_along(v, rec, "s", mask, brute), 0);
    cr_assert_not(mask[0] & (1ull << 32), "\"}\" may not follow \"as\"");
    ep_recognizer_free(rec);
    /* another vocabulary of the same shape, other bytes: its masks are
     * its own */
    static const char *const same_shape[][3] = {{"x", "(", ")"}, {"y", ")", "("}};
    mc_vocab *shaped[2] = {vocab_of(same_shape[0], 3), vocab_of(same_shape[1], 3)};
    cr_assert_eq(ep_recognizer_new_fim(g, "", 0, "\n", 1, &rec), SM_OK);
    cr_assert_eq(masks_along(shaped[0], rec, "y = zap", mask, brute), 2);
    cr_assert_eq(mask[0], 3u, "\"x\" and \"(\"");
    cr_assert_eq(masks_along(shaped[1], rec, "p", mask, brute), 0);
    cr_assert_eq(mask[0], 5u, "\"y\" and \"(\"");
    mc_vocab_free(shaped[0]);
    mc_vocab_free(shaped[1]);
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    /* JavaScript: a name no reserved word starts with; a tag's name */
    g = grammar_of("jsx", 2);
    cr_assert_eq(ep_recognizer_new_fim(g, "", 0, ";\n", 2, &rec), SM_OK);
    start = ep_save(rec);
    /* "s" starts "super" and "switch"; "sp" is made, the rest copied */
    cr_assert_eq(masks_along(v, rec, "x = (spanab", mask, brute), 4);
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "x = `a b", mask, brute), 3);
    /* a comment's line break lets a semicolon be inserted after it: two
     * comments, each whole, with and without one */
    ep_restore(rec, start);
    cr_assert_eq(ep_feed(rec, "x = a ", 6), 1);
    ep_savepoint after_a = ep_save(rec);
    cr_assert_eq(masks_along(v, rec, "/*b*/", mask, brute), 0);
    cr_assert_not(mask[0] & (1ull << 12), "\" c\" is not allowed");
    ep_restore(rec, after_a);
    cr_assert_eq(ep_feed(rec, "/*\n*", 4), 1);
    cr_assert_eq(masks_along(v, rec, "/", mask, brute), 0);
    cr_assert(mask[0] & (1ull << 12), "\" c\" is, after a line break");
    ep_restore(rec, start);
    cr_assert_eq(masks_along(v, rec, "x = <span></spa", mask, brute), 0);
    cr_assert(mask[0] & (1u << 25), "\"n>\" is allowed");
    cr_assert_not(mask[0] & (1u << 26), "\"an>\" is not");
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    mc_vocab_free(v);
}

/* The parser's work on `left` (a right context of one line break) with a
 * vocabulary where each of 26 tokens is a name's letters and then `end`. */
static uint64_t fed_for_alike_endings(const char *language, const char *left, const char *end)
{
    char pieces[26][8];
    const char *strings[26];
    uint32_t lens[26];
    for (uint32_t i = 0; i < 26; i++) {
        snprintf(pieces[i], sizeof pieces[i], "q%c%s", 'a' + i, end);
        strings[i] = pieces[i];
        lens[i] = (uint32_t)strlen(pieces[i]);
    }
    mc_vocab *v = mc_vocab_new(strings, lens, 26);
    ep_grammar *g = strcmp(language, "python") ? grammar_of(language, 1) : grammar();
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, left, strlen(left), "\n", 1, &rec), SM_OK);
    uint64_t mask[1], brute[1];
    mc_mask_stats st;
    cr_assert_eq(mc_vocab_mask(v, rec, mask, &st), 26, "after %s, every token ending in %s is allowed", left, end);
    mc_vocab_mask_brute(v, rec, brute, NULL);
    cr_assert_eq(mask[0], brute[0]);
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    mc_vocab_free(v);
    return st.bytes_fed;
}

/* Tokens that end the token in progress in the same state with the same
 * byte share the parser's work: it ends the token once and feeds the byte
 * once, for a name before "(" and for a comment at the start of a line
 * before its line break (no indentation is measured there); in JavaScript
 * too, whose names have a %check (the same verdict for each of them). */
Test(model_mask, tokens_ending_alike_feed_their_byte_once)
{
    uint64_t call = fed_for_alike_endings("python", "x = f", "(");
    cr_assert_leq(call, 3, "a name then \"(\": %llu bytes fed for 26 tokens", (unsigned long long)call);
    uint64_t comment = fed_for_alike_endings("python", "x = 1\n# note", "\n");
    cr_assert_leq(comment, 3, "a comment then a line break: %llu bytes fed for 26 tokens",
                  (unsigned long long)comment);
    uint64_t js = fed_for_alike_endings("javascript", "x = f", "(");
    cr_assert_leq(js, 3, "JavaScript, a name then \"(\": %llu bytes fed for 26 tokens", (unsigned long long)js);
}

/* JavaScript: templates with fields and nested templates, a "}" that
 * starts a template's text, regular expressions and division (after ")"
 * and a line break, "/" is division, so "/>" is "/" then ">"), and a token
 * holding NUL, which no text may (a template's text is otherwise any byte). */
static const mask_case js_cases[] = {
    {"const x = 1;\nconst s = `a ${x + ", "`} c ${x}`} d`;\nconst r = /a>b/.test(s) / 2;", "\n"},
    {"function f(a) {\n  g(a)\n", "  return /a>/.test(a) / 2\n", "}\n"},
    {"let y = f(1);\n", "/>/.test(y) ? y : 0", "\n"},
    /* a regular expression's flags, valid or not, in tokens that end it:
     * its check reads the token's text, so no ending is shared */
    {"let r = /a", "b/g.test(s) && /c/i.test(s)", "\n"},
};

Test(model_mask, the_trie_equals_the_check_of_every_token_in_javascript)
{
    static const char *const pieces[] = {
        "`", "${", "}", "} c", "`}", "`} c", " `", " d`;", "a", "x", " +", " ", "\n", "\n  ", "  ", "/", "/>",
        "/a", ">/", "/.", ".test", "(", ")", "(a)", "(s)", "(y)", "/ 2", " /", "return", " a", "y", " ?", " :",
        " 0", ";", "`a", "\xe2\x80\x94", "\0", "\0`", "a\0", "const", " s", " =", " r", " />",
        "b", "/a.", "/g.", "/gg.", "/i.", "/ig.", "/c", " &&", "/i",
    };
    uint32_t n = sizeof pieces / sizeof *pieces;
    uint32_t lens[64];
    cr_assert_leq(n, 64);
    for (uint32_t i = 0; i < n; i++)
        lens[i] = (uint32_t)strlen(pieces[i]);
    lens[37] = 1;   /* "\0" */
    lens[38] = 2;   /* "\0`" */
    lens[39] = 2;   /* "a\0" */
    mc_vocab *v = mc_vocab_new(pieces, lens, n);
    for (int dialect = 1; dialect <= 2; dialect++) {
        ep_grammar *g = grammar_of("javascript", dialect);
        char what[64];
        snprintf(what, sizeof what, "small vocabulary, JavaScript dialect %d", dialect);
        check_masks_of(v, g, js_cases, sizeof js_cases / sizeof *js_cases, 1, what);
        /* Known answers: a line after "g(a)" may not start with "/>" */
        ep_recognizer *rec;
        const char *left = js_cases[1].left, *right = js_cases[1].right;
        cr_assert_eq(ep_recognizer_new_fim(g, left, strlen(left), right, strlen(right), &rec), SM_OK);
        uint64_t mask[1];
        mc_vocab_mask(v, rec, mask, NULL);
        cr_assert_not(mask[0] & (1ull << 16), "\"/>\" continues the line before as a division");
        cr_assert(mask[0] & (1ull << 17), "\"/a\" does too, and may");
        ep_recognizer_free(rec);
        ep_grammar_free(g);
    }
    mc_vocab_free(v);
}

/* Names whose text the recognizer keeps: a class's private names (a use is
 * matched with the declarations when its scope closes) and JSX tag names
 * (a closing tag's name with its opening one's).  Tokens that end such a
 * name alike ("#ab}}" and "#abc}}", "ab></ab>" and "abc></ab>") differ in
 * its length, so none of them takes another's ended name. */
static const mask_case kept_name_cases[] = {
    {"class A {\n  #ab = 1;\n  m() {\n    return this.", "#ab}}", "\n"},
    {"const e = <", "ab></ab>;", "\n"},
};

Test(model_mask, names_whose_text_is_kept_are_ended_one_by_one)
{
    static const char *const pieces[] = {"#ab}}", "#abc}}", "#a}}", "#", "ab", "}", "ab></ab>", "abc></ab>",
                                         "a></ab>", "ab>", "</", ">", ";", "\n"};
    mc_vocab *v = vocab_of(pieces, sizeof pieces / sizeof *pieces);
    ep_grammar *g = grammar_of("jsx", 1);
    check_masks_of(v, g, kept_name_cases, sizeof kept_name_cases / sizeof *kept_name_cases, 1, "kept names");
    ep_grammar_free(g);
    mc_vocab_free(v);
}

/* Masks after each of `lefts` (up to the first NULL, at most `count`)
 * build no lexeme tree: what the prewarm prepared is all they read. */
static void assert_no_tree_built(mc_vocab *v, const ep_grammar *g, const char *what, const char *const *lefts,
                                 size_t count)
{
    size_t warm = mc_vocab_bytes(v);
    for (size_t k = 0; k < count && lefts[k]; k++) {
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new_fim(g, lefts[k], strlen(lefts[k]), "\n", 1, &rec), SM_OK);
        uint64_t mask[1];
        cr_assert_gt(mc_vocab_mask(v, rec, mask, NULL), 0, "%s, after %s: nothing allowed", what, lefts[k]);
        cr_assert_eq(mc_vocab_bytes(v), warm, "%s, after %s: a tree was built (%zu bytes more)", what, lefts[k],
                     mc_vocab_bytes(v) - warm);
        ep_recognizer_free(rec);
    }
}

/* The trees prepared when a model loads are those of the language's own
 * tokens: a mask inside a JavaScript template literal or comment builds
 * nothing new after them. */
Test(model_mask, prewarm_prepares_the_language_s_own_starts)
{
    /* no token is another's prefix but "a" of "ab": the only trees the
     * masks below read are those of the token in progress */
    static const char *const pieces[] = {"a", "b", "ab", " ", "`", "${", "}", "\n", "x`", "1", ";"};
    static const char *const lefts[] = {"const s = `a", "let x = 1; // a", "let y = 2; /* a", "let z = ab"};
    for (int dialect = 1; dialect <= 2; dialect++) {
        mc_vocab *v = vocab_of(pieces, sizeof pieces / sizeof *pieces);
        ep_grammar *g = grammar_of("javascript", dialect);
        cr_assert_geq(mc_vocab_prewarm(v, g), 4);
        assert_no_tree_built(v, g, dialect == 1 ? "javascript" : "jsx", lefts, sizeof lefts / sizeof *lefts);
        ep_grammar_free(g);
        mc_vocab_free(v);
    }
}

/* The trees prepared for names: a mask inside a keyword's prefix ("re",
 * "retu", "fun": states of their own) or a name builds nothing new after
 * them, in Python and in JavaScript. */
Test(model_mask, prewarm_prepares_the_states_of_names_and_keywords_prefixes)
{
    static const char *const pieces[] = {"a", "b", "ab", " ", "(", "\n", ";", "1"};
    static const struct {
        const char *language;
        int version;
        const char *lefts[4];
    } names[] = {
        {"python", 312, {"x = re", "def f():\n    retu", "y = d", "z = ab"}},
        {"javascript", 1, {"let x = fun", "function f() { ret", "let y = ty", "let z = ab"}},
    };
    for (size_t c = 0; c < sizeof names / sizeof *names; c++) {
        mc_vocab *v = vocab_of(pieces, sizeof pieces / sizeof *pieces);
        ep_grammar *g = grammar_of(names[c].language, names[c].version);
        mc_vocab_prewarm(v, g);
        cr_assert_gt(mc_vocab_prewarm_names(v, g, NULL), 20, "%s", names[c].language);
        assert_no_tree_built(v, g, names[c].language, names[c].lefts, 4);
        ep_grammar_free(g);
        mc_vocab_free(v);
    }
}

/* The trees prepared in the background besides the names': a name in a
 * string's field, a string's opening quote, the text after a field, a
 * template's text after a substitution.  A mask there builds nothing new
 * after mc_vocab_prewarm_names and mc_vocab_prewarm_samples. */
Test(model_mask, prewarm_prepares_strings_openings_and_fields)
{
    static const char *const pieces[] = {"a", "b", "ab", " ", "(", "\n", ";", "1", "}", "\"", "'", "`"};
    static const struct {
        const char *language;
        int version;
        const char *lefts[6];
    } at[] = {
        {"python", 312,
         {"x = f\"ab {re", "x = f'{a} {imp", "x = f\"", "x = '", "x = f\"a {b} c", "x = f'{a!r:>{w}} d"}},
        {"python", 311, {"x = f\"", "x = '", "x = \"\"\"", "x = f'a", NULL}},
        {"javascript", 1, {"x = `", "x = `a ${b} c", "x = '", "x = \"", NULL}},
    };
    for (size_t c = 0; c < sizeof at / sizeof *at; c++) {
        mc_vocab *v = vocab_of(pieces, sizeof pieces / sizeof *pieces);
        ep_grammar *g = grammar_of(at[c].language, at[c].version);
        mc_vocab_prewarm(v, g);
        mc_vocab_prewarm_names(v, g, NULL);
        cr_assert_gt(mc_vocab_prewarm_samples(v, g, NULL), 0, "%s %d", at[c].language, at[c].version);
        char what[32];
        snprintf(what, sizeof what, "%s %d", at[c].language, at[c].version);
        assert_no_tree_built(v, g, what, at[c].lefts, 6);
        ep_grammar_free(g);
        mc_vocab_free(v);
    }
}

#ifdef SEAM_HAVE_LLAMA
/* A vocabulary-only GGUF file of llama.cpp's models/ folder, through libllama. */
static mc_vocab *load_vocab(const char *name)
{
    const char *dir = getenv("SEAM_LLAMA_DIR");
    cr_assert_not_null(dir, "SEAM_LLAMA_DIR names the llama.cpp build (scripts/test.sh exports it)");
    char path[4096], error[512];
    snprintf(path, sizeof path, "%s/models/ggml-vocab-%s.gguf", dir, name);
    mc_vocab *v;
    cr_assert_eq(ip_vocab_load(path, &v, error, sizeof error), SM_OK, "%s", error);
    return v;
}

Test(model_mask, the_trie_equals_the_check_of_every_token_on_real_vocabularies, .timeout = 600)
{
    static const char *const names[] = {"starcoder", "qwen2", "deepseek-coder", "llama-spm"};
    ep_grammar *g = grammar();
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        mc_vocab *v = load_vocab(names[i]);
        cr_assert_gt(mc_vocab_size(v), 30000);
        cr_assert_gt(mc_vocab_nodes(v), mc_vocab_size(v) / 2);
        check_masks(v, g, 19, names[i]);
        mc_vocab_free(v);
    }
    ep_grammar_free(g);
}

/* Strings with fields: their text, their fields' expressions (names,
 * attributes, calls, nested brackets), format specs with a field,
 * conversions and the string's end. */
static const mask_case field_cases[] = {
    {"class Z:\n    def __repr__(self, path):\n        return ",
     "f'<zipimporter object \"{self.archive}{path.upper()}\">' + f\"{len(p=[], q={}):>{self.width}} {path!r} "
     "{path[1:]=}\"",
     "\n"},
};

typedef struct fields_check {
    const mc_vocab *v;
    uint64_t *mask;
    uint64_t most_fed;      /* the most bytes fed at a position inside a string with fields */
    uint32_t inside;        /* positions inside one */
} fields_check;

static void count_fed_in_fields(void *data, const mask_position *p)
{
    fields_check *c = data;
    mc_mask_stats st;
    mc_vocab_mask(c->v, p->rec, c->mask, &st);
    if (!st.in_fields)
        return;
    c->inside++;
    c->most_fed = st.bytes_fed > c->most_fed ? st.bytes_fed : c->most_fed;
}

/* Inside a string with fields the walk takes the text's bytes and the bytes
 * of an expression's token in progress without the parser, as anywhere
 * else, instead of feeding every token one by one (which feeds about a
 * byte per trie node: over 300,000 for qwen2's vocabulary); the masks stay
 * those of the check of every token. */
Test(model_mask, inside_strings_with_fields_the_walk_feeds_few_bytes, .timeout = 600)
{
    mc_vocab *v = load_vocab("qwen2");
    static const int versions[] = {311, 312, 314};
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
        ep_grammar *g = grammar_version(versions[i]);
        char what[64];
        snprintf(what, sizeof what, "qwen2, strings with fields, %d", versions[i]);
        check_masks_of(v, g, field_cases, sizeof field_cases / sizeof *field_cases, 13, what);
        fields_check c = {.v = v};
        c.mask = sm_malloc((mc_vocab_size(v) + 63) / 64 * sizeof *c.mask);
        along_cases(g, field_cases, sizeof field_cases / sizeof *field_cases, 1, count_fed_in_fields, &c);
        fprintf(stderr, "%s: %u positions inside, at most %llu bytes fed\n", what, c.inside,
                (unsigned long long)c.most_fed);
        cr_assert_geq(c.inside, 80, "%s: %u positions inside strings with fields", what, c.inside);
        cr_assert_leq(c.most_fed, mc_vocab_size(v) / 20, "%s: at most %llu bytes fed at a position inside", what,
                      (unsigned long long)c.most_fed);
        sm_free(c.mask);
        ep_grammar_free(g);
    }
    mc_vocab_free(v);
}

/* JavaScript's names: the automaton tells a name that may still become a
 * keyword ("ret", "con", "asy") from one that may not, and steps through a
 * character outside ASCII byte by byte; each such state a mask starts in
 * has a lexeme tree of the whole vocabulary.  Those trees group the
 * vocabulary by the lexemes a state can reach, not by state: before, each
 * held an entry per byte that changed the state (about 2 MB each on qwen2,
 * 104 MiB on three of npm's files), now a few. */
static const mask_case js_name_cases[] = {
    {"function f(a) {\n  ", "return a.length > 0 ? a : null;", "\n}\n"},
    {"class A {\n  ", "constructor() { this.value = 1; }", "\n}\n"},
    {"async function g() {\n  ", "await Promise.all(x).finally(() => 1);", "\n}\n"},
    {"let ", "instanceOfValue = typeof delete_me === 'undefined';", "\n"},
    {"const ", "\xe5\x90\x8d\xe5\x89\x8d = void 0;", "\n"},
};

Test(model_mask, javascript_names_share_their_lexeme_trees, .timeout = 600)
{
    mc_vocab *v = load_vocab("qwen2");
    ep_grammar *g = grammar_of("javascript", 1);
    size_t before = mc_vocab_bytes(v);
    check_masks_of(v, g, js_name_cases, sizeof js_name_cases / sizeof *js_name_cases, 2, "qwen2, JavaScript names");
    size_t grown = mc_vocab_bytes(v) - before;
    fprintf(stderr, "qwen2, JavaScript names: the trees took %.1f MiB\n", (double)grown / (1 << 20));
    cr_assert_lt(grown, (size_t)12 << 20, "the lexeme trees of names took %zu bytes", grown);
    ep_grammar_free(g);
    mc_vocab_free(v);
}

/* Random logits, all different, from a fixed generator (the same every
 * run): a shuffled ramp from 0 to 20. */
static void random_logits(float *logits, uint32_t n, uint64_t seed)
{
    for (uint32_t t = 0; t < n; t++)
        logits[t] = (float)t * (20.0f / (float)n);
    for (uint32_t t = n - 1; t > 0; t--) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t j = (uint32_t)((seed >> 33) % (t + 1));
        float x = logits[t];
        logits[t] = logits[j];
        logits[j] = x;
    }
}

static const float *sort_logits;

static int by_logit(const void *a, const void *b)
{
    float x = sort_logits[*(const int32_t *)a], y = sort_logits[*(const int32_t *)b];
    return x < y ? 1 : x > y ? -1 : (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

/* The lazy way: tokens in logit order, each fed on its own, until one keeps
 * the middle viable (an end only where it can end). */
static int32_t first_allowed(const mc_vocab *v, ep_recognizer *rec, const float *logits, int32_t *order, int32_t eog,
                             bool *eos)
{
    uint32_t n = mc_vocab_size(v);
    for (uint32_t t = 0; t < n; t++)
        order[t] = (int32_t)t;
    sort_logits = logits;
    qsort(order, n, sizeof *order, by_logit);
    ep_savepoint at = ep_save(rec);
    for (uint32_t i = 0; i < n; i++) {
        *eos = order[i] == eog;
        if (*eos) {
            if (ep_can_end(rec))
                return eog;
            continue;
        }
        uint32_t len;
        const char *bytes = mc_vocab_token(v, (uint32_t)order[i], &len);
        bool ok = len && ep_feed(rec, bytes, len) == 1;
        ep_restore(rec, at);
        if (ok)
            return order[i];
    }
    return -1;
}

typedef struct choices_check {
    const mc_vocab *v;
    uint32_t n;
    float *logits;
    int32_t *order;
    int32_t eog;
    uint32_t ends;
} choices_check;

static int by_weight(const void *a, const void *b)
{
    return by_logit(a, b);
}

/* Drawing everything from a nucleus gives exactly it: the fewest best
 * allowed tokens (and the end where the middle can end) whose mass at
 * temperature 0.7 reaches top_p 0.05, found here by sorting them all. */
static void check_nucleus(const choices_check *c, const mc_logits *f, ep_recognizer *rec, bool can_end, size_t i,
                          size_t at)
{
    uint64_t *mask = sm_malloc((c->n + 63) / 64 * sizeof *mask);
    mc_vocab_mask(c->v, rec, mask, NULL);
    int32_t *pool = sm_malloc((c->n + 1) * sizeof *pool);
    uint32_t n = 0;
    for (uint32_t t = 0; t < c->n; t++)
        if (mask[t / 64] >> (t % 64) & 1)
            pool[n++] = (int32_t)t;
    if (can_end)
        pool[n++] = c->eog;
    sm_free(mask);
    sort_logits = c->logits;
    qsort(pool, n, sizeof *pool, by_weight);
    double total = 0, mass = 0;
    for (uint32_t k = 0; k < n; k++)
        total += exp((c->logits[pool[k]] - c->logits[pool[0]]) / 0.7);
    uint32_t size = 0;
    while (size < n && mass < 0.05 * total)
        mass += exp((c->logits[pool[size++]] - c->logits[pool[0]]) / 0.7);
    mc_step all = {0};
    uint64_t rng = 3;
    uint32_t drawn = mc_full_sample(f, rec, can_end, 0.7, 0.05, &rng, size + 10, NULL, &all);
    cr_assert_eq(drawn, size, "case %zu at %zu: the nucleus has %u tokens, %u drawn", i, at, size, drawn);
    for (uint32_t d = 0; d < drawn; d++) {
        bool in = false;
        for (uint32_t k = 0; k < size && !in; k++)
            in = pool[k] == all.cands[d].id;
        cr_assert(in, "case %zu at %zu: token %d drawn outside the nucleus", i, at, all.cands[d].id);
    }
    mc_step_free(&all);
    sm_free(pool);
}

/* A filter that refuses every token holding an 'e' (data: where the
 * token begins in the middle). */
static bool refuse_e(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    (void)max_lines;
    size_t from = *(const size_t *)data;
    return at_end || memchr(middle + from, 'e', len - from) == NULL;
}

/* With a filter, the best choices are the best allowed tokens it admits,
 * in order, and no draw is one it refuses. */
static void check_admitted(const choices_check *c, const mc_logits *f, ep_recognizer *rec, bool can_end, size_t i,
                           size_t at)
{
    size_t from = 0;
    mc_admit admit = {refuse_e, &from, "", 0, 1};
    int32_t want[4];
    uint32_t wanted = 0;
    ep_savepoint sp = ep_save(rec);
    for (uint32_t k = 0; k < c->n && wanted < 4; k++) {   /* c->order: by logit, from first_allowed */
        uint32_t len;
        const char *bytes = c->order[k] == c->eog ? NULL : mc_vocab_token(c->v, (uint32_t)c->order[k], &len);
        if (!bytes || !len || memchr(bytes, 'e', len))
            continue;
        if (ep_feed(rec, bytes, len) == 1)
            want[wanted++] = c->order[k];
        ep_restore(rec, sp);
    }
    mc_step best = {0};
    mc_full_best(f, rec, can_end, NULL, 4, &admit, &best);
    uint32_t got = 0;
    for (uint32_t k = 0; k < best.count; k++) {
        if (best.cands[k].eos)
            continue;
        cr_assert_lt(got, wanted);
        cr_assert_eq(best.cands[k].id, want[got], "case %zu at %zu: admitted choice %u is %d, not %d", i, at, got,
                     best.cands[k].id, want[got]);
        got++;
    }
    cr_assert_eq(got, wanted, "case %zu at %zu: %u admitted choices, %u expected", i, at, got, wanted);
    mc_step drawn = {0};
    uint64_t rng = 5;
    uint32_t k = mc_full_sample(f, rec, can_end, 1.0, 1.0, &rng, 8, &admit, &drawn);
    cr_assert_eq(k, drawn.count);
    for (uint32_t d = 0; d < k; d++)
        cr_assert(drawn.cands[d].eos || !memchr(drawn.cands[d].bytes, 'e', drawn.cands[d].len),
                  "case %zu at %zu: a refused token drawn", i, at);
    mc_step_free(&best);
    mc_step_free(&drawn);
}

static void compare_choices(void *data, const mask_position *p)
{
    choices_check *c = data;
    ep_recognizer *rec = p->rec;
    size_t i = p->case_index, at = p->at;
    random_logits(c->logits, c->n, i * 1000 + at);
    if (p->last)
        c->logits[c->eog] = 30.0f;   /* the end is the model's first choice where the middle ends */
    mc_logits f = {.logits = c->logits, .n_vocab = c->n, .logsum = 0, .vocab = c->v, .eog = &c->eog, .n_eog = 1};
    bool can_end = ep_can_end(rec), eos = false;
    int32_t lazy = first_allowed(c->v, rec, c->logits, c->order, c->eog, &eos);
    mc_step best = {0};
    cr_assert_geq(mc_full_best(&f, rec, can_end, NULL, 1, NULL, &best), 1);
    cr_assert_eq(best.cands[0].id, lazy, "case %zu at %zu: the mask's best %d, the lazy way's %d", i, at,
                 best.cands[0].id, lazy);
    cr_assert_eq(best.cands[0].eos, eos);
    c->ends += eos;
    /* Draws: allowed, an end only where the middle can end, the same for
     * the same seed, and the mode at a low temperature. */
    mc_step drawn = {0}, again = {0}, cold = {0};
    uint64_t rng = 9, rng2 = 9, rng3 = 4;
    uint32_t k = mc_full_sample(&f, rec, can_end, 1.0, 0.9, &rng, 8, NULL, &drawn);
    cr_assert_eq(mc_full_sample(&f, rec, can_end, 1.0, 0.9, &rng2, 8, NULL, &again), k);
    cr_assert_gt(k, 0);
    for (uint32_t d = 0; d < k; d++) {
        cr_assert_eq(drawn.cands[d].id, again.cands[d].id);
        if (drawn.cands[d].eos) {
            cr_assert(can_end, "case %zu at %zu: an end drawn where the middle cannot end", i, at);
            continue;
        }
        ep_savepoint sp = ep_save(rec);
        cr_assert_eq(ep_feed(rec, drawn.cands[d].bytes, drawn.cands[d].len), 1,
                     "case %zu at %zu: draw %u is not allowed", i, at, d);
        ep_restore(rec, sp);
    }
    mc_full_sample(&f, rec, can_end, 1e-6, 1.0, &rng3, 1, NULL, &cold);
    cr_assert_eq(cold.cands[0].id, lazy);
    check_nucleus(c, &f, rec, can_end, i, at);
    check_admitted(c, &f, rec, can_end, i, at);
    mc_step_free(&best);
    mc_step_free(&drawn);
    mc_step_free(&again);
    mc_step_free(&cold);
}

Test(model_mask, the_masked_choices_are_the_lazy_ones_and_draws_are_allowed, .timeout = 600)
{
    mc_vocab *v = load_vocab("qwen2");
    ep_grammar *g = grammar();
    choices_check c = {.v = v, .n = mc_vocab_size(v), .eog = -1};
    c.logits = sm_malloc(c.n * sizeof *c.logits);
    c.order = sm_malloc(c.n * sizeof *c.order);
    for (uint32_t t = 0; t < c.n && c.eog < 0; t++) {
        uint32_t len;
        mc_vocab_token(v, t, &len);
        if (!len)
            c.eog = (int32_t)t;   /* a control token: no bytes */
    }
    cr_assert_geq(c.eog, 0);
    uint32_t positions = along_middles(g, 11, compare_choices, &c);
    cr_assert_gt(c.ends, 0, "some position ends the middle");
    cr_assert_gt(positions, 20);
    sm_free(c.logits);
    sm_free(c.order);
    ep_grammar_free(g);
    mc_vocab_free(v);
}
#endif
