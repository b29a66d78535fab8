/*
 * Tests of the grammar compiler, the Earley recognizer and the lexer on
 * small grammars.  The lexeme automaton has its own file
 * (test_parser_lexdfa.c) in the same executable.
 */
#include "ep_quotient.h"
#include "seam_parser.h"
#include "seam_languages.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

SEAM_SUITE(parser);

static ep_grammar *compile(const char *source)
{
    ep_grammar *grammar = NULL;
    char error[256];
    int rc = ep_grammar_compile(source, strlen(source), &grammar, error, sizeof error);
    cr_assert_eq(rc, SM_OK, "grammar failed to compile: %s", error);
    return grammar;
}

/* Feeds text one byte at a time; returns how many bytes stayed viable. */
static size_t viable_prefix(const ep_grammar *grammar, const char *text)
{
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
    size_t n = strlen(text), i;
    for (i = 0; i < n; i++)
        if (ep_feed(rec, text + i, 1) != 1)
            break;
    ep_recognizer_free(rec);
    return i;
}

static bool accepts(const ep_grammar *grammar, const char *text)
{
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
    int viable = ep_feed(rec, text, strlen(text));
    bool complete = ep_can_end(rec);
    ep_recognizer_free(rec);
    cr_assert(!complete || viable == 1, "complete text %s reported as not viable", text);
    return complete;
}

/* The balanced language S -> 0 S 1 | empty of the fill-in-the-middle blog post. */
static const char balanced[] =
    "ZERO: \"0\"\n"
    "ONE: \"1\"\n"
    "s: ZERO s ONE\n"
    "  | %empty\n";

/* A reference for the balanced language: n zeros then n ones. */
static bool balanced_reference(const char *text, bool *prefix)
{
    size_t n = strlen(text), zeros = 0, ones = 0, i = 0;
    while (i < n && text[i] == '0') { zeros++; i++; }
    while (i < n && text[i] == '1') { ones++; i++; }
    *prefix = i == n && ones <= zeros;
    return i == n && ones == zeros;
}

Test(parser, balanced_language_matches_its_definition)
{
    ep_grammar *grammar = compile(balanced);
    /* every word over {0,1} up to length 8 */
    for (unsigned len = 0; len <= 8; len++) {
        for (unsigned bits = 0; bits < (1u << len); bits++) {
            char word[9];
            for (unsigned k = 0; k < len; k++)
                word[k] = (bits >> k) & 1 ? '1' : '0';
            word[len] = '\0';
            bool prefix;
            bool member = balanced_reference(word, &prefix);
            cr_assert_eq(accepts(grammar, word), member, "membership of '%s'", word);
            cr_assert_eq(viable_prefix(grammar, word) == len, prefix, "viability of '%s'", word);
        }
    }
    cr_assert_eq(viable_prefix(grammar, "0012"), 3, "a byte outside the alphabet is not viable");
    ep_grammar_free(grammar);
}

/* Ambiguous and left-recursive: E -> E + E | E * E | ( E ) | NUM. */
static const char arithmetic[] =
    "NUM: /[0-9]+/\n"
    "WS: /[ ]+/ %ignore\n"
    "e: e \"+\" e | e \"*\" e | \"(\" e \")\" | NUM\n";

Test(parser, ambiguous_left_recursive_grammar)
{
    ep_grammar *grammar = compile(arithmetic);
    cr_assert(accepts(grammar, "1+2*3"));
    cr_assert(accepts(grammar, "1 + 2 * (3 + 45) * 6"));
    cr_assert(accepts(grammar, "((7))"));
    cr_assert_not(accepts(grammar, "1+"));
    cr_assert_not(accepts(grammar, "(1"));
    cr_assert_not(accepts(grammar, ""));
    cr_assert_eq(viable_prefix(grammar, "1+*2"), 2);
    cr_assert_eq(viable_prefix(grammar, "(1))"), 3);
    cr_assert_eq(viable_prefix(grammar, "12 34"), 3, "two numbers in a row are not viable");
    ep_grammar_free(grammar);
}

/* Nullable symbols in every position, EBNF sugar, and a rule used before it
 * is defined. */
static const char nullable[] =
    "A: \"a\"\n"
    "B: \"b\"\n"
    "C: \"c\"\n"
    "s: x y x C?\n"
    "x: A* | %empty\n"
    "y: [B] (x | C)+\n";

/* s matches a* b? (a*|c)+ a* c? ; the reference is a regular expression. */
Test(parser, nullable_symbols_and_ebnf)
{
    ep_grammar *grammar = compile(nullable);
    static const struct { const char *text; bool member; } cases[] = {
        {"", true}, {"a", true}, {"b", true}, {"c", true}, {"bc", true}, {"aabacc", true},
        {"abab", false}, {"cb", false}, {"bb", false}, {"aaaa", true}, {"cac", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(accepts(grammar, cases[i].text), cases[i].member, "'%s'", cases[i].text);
    ep_grammar_free(grammar);
}

Test(parser, separated_lists_and_priorities)
{
    ep_grammar *grammar = compile(
        "NAME: /[a-z]+/\n"
        "WS: / +/ %ignore\n"
        "s: \"let\" \",\".NAME+ \";\"\n");
    cr_assert(accepts(grammar, "let a, bc, d;"));
    cr_assert_not(accepts(grammar, "let let;"), "the literal \"let\" wins over NAME");
    cr_assert_not(accepts(grammar, "let a b;"));
    cr_assert_eq(viable_prefix(grammar, "let a,,"), 6);
    ep_grammar_free(grammar);
}

Test(parser, compile_errors_name_the_line)
{
    static const char *const bad[] = {
        "s: t\n",                       /* undefined rule */
        "s: X\n",                       /* undefined terminal */
        "s: \"a\" (\"b\"\n",            /* unbalanced group */
        "X: /a(/\ns: X\n",              /* bad pattern */
        "X /a/\n",                      /* missing colon */
        "%layout haskell\ns: \"a\"\n",  /* unknown layout */
        "X: /a/ %also Y\ns: X\n",       /* %also of an unknown terminal */
        "X: /a/\nY: /b/ %also X\ns: X Y\n", /* %also of a terminal with a pattern */
        "%declare T\nX: /a/ %also T %ignore\ns: X T\n", /* %also on a token that is never scanned */
        "",                             /* no rules */
        "s: ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((\"a\""
        "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))\n", /* too deep */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ep_grammar *grammar = (ep_grammar *)1;
        char error[256] = "";
        cr_assert_eq(ep_grammar_compile(bad[i], strlen(bad[i]), &grammar, error, sizeof error), SM_EINVAL,
                     "grammar %zu compiled", i);
        cr_assert_null(grammar);
        cr_assert_not_null(strstr(error, "line"), "message '%s' names no line", error);
    }
}

/* %also: every name is also a BOUND, except the soft keyword "_". */
Test(parser, also_scans_a_token_as_a_second_terminal)
{
    ep_grammar *grammar = compile("%declare BOUND\n"
                                  "%soft NAME \"_\"\n"
                                  "NAME: /[a-z_]+/ %also BOUND\n"
                                  "WS: / +/ %ignore\n"
                                  "s: NAME \"=\" BOUND | \"_\"\n");
    cr_expect(accepts(grammar, "a = b"));
    cr_expect(accepts(grammar, "_ = b"));
    cr_expect(accepts(grammar, "_"));
    cr_expect_not(accepts(grammar, "a = _"));
    cr_expect_eq(viable_prefix(grammar, "a = _"), 5); /* "_" may still grow into "_b" */
    cr_expect_eq(viable_prefix(grammar, "a = _ "), 5);
    ep_grammar_free(grammar);
}

Test(parser, save_and_restore_return_to_the_same_state)
{
    ep_grammar *grammar = compile(arithmetic);
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
    cr_assert_eq(ep_feed(rec, "1 + (2", 6), 1);
    ep_savepoint point = ep_save(rec);
    cr_assert_eq(ep_feed(rec, "))", 2), 0);
    ep_restore(rec, point);
    cr_assert(ep_viable(rec));
    cr_assert_eq(ep_fed_bytes(rec), 6);
    cr_assert_eq(ep_feed(rec, "*3", 2), 1);
    cr_assert_not(ep_can_end(rec));
    ep_restore(rec, point);
    cr_assert_eq(ep_feed(rec, ")", 1), 1);
    cr_assert(ep_can_end(rec));
    ep_restore(rec, point);
    cr_assert_not(ep_can_end(rec));
    ep_recognizer_free(rec);
    ep_grammar_free(grammar);
}

Test(parser, invalid_utf8_and_nul_are_errors)
{
    ep_grammar *grammar = compile("X: /[^\\n]+/\ns: X\n");
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
    cr_assert_eq(ep_feed(rec, "ab", 2), 1);
    cr_assert_eq(ep_feed(rec, "\xc3", 1), 1, "half a code point is fine");
    cr_assert_not(ep_can_end(rec), "but the text cannot end inside it");
    cr_assert_eq(ep_feed(rec, "(", 1), SM_EUTF8);
    cr_assert_eq(ep_feed(rec, "\xa9", 1), 1);
    cr_assert(ep_can_end(rec));
    cr_assert_eq(ep_feed(rec, "a\0b", 3), SM_EUTF8);
    cr_assert_eq(ep_feed(rec, "\xed\xa0\x80", 3), SM_EUTF8, "surrogates are not UTF-8");
    cr_assert_eq(ep_fed_bytes(rec), 4, "errors leave the recognizer unchanged");
    ep_recognizer_free(rec);
    ep_grammar_free(grammar);
}

/* ---- The right quotient ---------------------------------------------------- */

static ep_recognizer *open_fim(const ep_grammar *grammar, const char *left, const char *right)
{
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(grammar, left, strlen(left), right, strlen(right), &rec), SM_OK);
    return rec;
}

/* The example of the fill-in-the-middle post: with prefix 0 and suffix 111,
 * the middle 001 must be refused although 0001 is a valid prefix of the
 * balanced language. */
Test(parser, quotient_balanced_language_example)
{
    ep_grammar *grammar = compile(balanced);
    ep_recognizer *rec = open_fim(grammar, "0", "111");
    cr_assert(ep_viable(rec));
    cr_assert_eq(ep_feed(rec, "0", 1), 1);
    cr_assert_eq(ep_feed(rec, "0", 1), 1, "000 can still be completed to 000111");
    cr_assert(ep_can_end(rec), "0 + 00 + 111 is balanced");
    cr_assert_eq(ep_feed(rec, "1", 1), 0, "0 + 001 + 111 cannot be completed");
    ep_recognizer_free(rec);
    ep_grammar_free(grammar);
}

/* Every (left, middle, right) over {0,1} up to small lengths: can_end must
 * match membership of left+middle+right, and viability the closed form
 * (some c makes left+middle+c+right = 0^n 1^n). */
Test(parser, quotient_balanced_language_exhaustive)
{
    ep_grammar *grammar = compile(balanced);
    char words[64][8];
    size_t count = 0;
    for (unsigned len = 0; len <= 4; len++)
        for (unsigned bits = 0; bits < (1u << len); bits++, count++) {
            for (unsigned k = 0; k < len; k++)
                words[count][k] = (bits >> k) & 1 ? '1' : '0';
            words[count][len] = '\0';
        }
    for (size_t l = 0; l < count; l += 3) {
        for (size_t r = 0; r < count; r++) {
            for (size_t m = 0; m < count; m += 2) {
                char whole[32], lm[32];
                snprintf(whole, sizeof whole, "%s%s%s", words[l], words[m], words[r]);
                snprintf(lm, sizeof lm, "%s%s", words[l], words[m]);
                bool prefix;
                bool member = balanced_reference(whole, &prefix);
                /* viable: lm is 0^a 1^b and the right is 1^c (possibly after
                 * 0s when lm has no 1s) such that a continuation balances */
                bool viable = false;
                for (unsigned extra_zeros = 0; extra_zeros <= 8 && !viable; extra_zeros++)
                    for (unsigned extra_ones = 0; extra_ones <= 8 && !viable; extra_ones++) {
                        char trial[48];
                        int n = snprintf(trial, sizeof trial, "%s", lm);
                        for (unsigned z = 0; z < extra_zeros; z++) trial[n++] = '0';
                        for (unsigned o = 0; o < extra_ones; o++) trial[n++] = '1';
                        snprintf(trial + n, sizeof trial - (size_t)n, "%s", words[r]);
                        bool unused;
                        viable = balanced_reference(trial, &unused);
                    }
                ep_recognizer *rec = open_fim(grammar, words[l], words[r]);
                int fed = ep_feed(rec, words[m], strlen(words[m]));
                cr_assert_eq(fed == 1, viable, "viability of '%s|%s|%s'", words[l], words[m], words[r]);
                cr_assert_eq(ep_can_end(rec), member, "can_end of '%s|%s|%s'", words[l], words[m], words[r]);
                ep_recognizer_free(rec);
            }
        }
    }
    ep_grammar_free(grammar);
}

/* The arithmetic grammar: can_end must agree with the plain recognizer on
 * left+middle+right, and a middle that a short completion makes valid must
 * be viable. */
Test(parser, quotient_arithmetic_agrees_with_plain_recognizer)
{
    ep_grammar *grammar = compile(arithmetic);
    static const char *const lefts[] = {"", "1+", "(", "((2*", "3"};
    static const char *const rights[] = {"", ")", "*4", ")+5", "))"};
    static const char *const middles[] = {"", "1", "(", ")", "1)", "+", "2*3", "(1+", "1))", "7)*(8"};
    static const char *const fills[] = {"", "1", ")", "1)", "))", "+1", "(1", "1))"};
    for (size_t l = 0; l < 5; l++)
        for (size_t r = 0; r < 5; r++)
            for (size_t m = 0; m < 10; m++) {
                char whole[64];
                snprintf(whole, sizeof whole, "%s%s%s", lefts[l], middles[m], rights[r]);
                ep_recognizer *rec = open_fim(grammar, lefts[l], rights[r]);
                int fed = ep_feed(rec, middles[m], strlen(middles[m]));
                cr_assert_eq(fed == 1 && ep_can_end(rec), accepts(grammar, whole),
                             "can_end of '%s|%s|%s'", lefts[l], middles[m], rights[r]);
                bool completable = false;
                for (size_t f = 0; f < 8 && !completable; f++) {
                    char trial[96];
                    snprintf(trial, sizeof trial, "%s%s%s%s", lefts[l], middles[m], fills[f], rights[r]);
                    completable = accepts(grammar, trial);
                }
                if (completable)
                    cr_assert_eq(fed, 1, "'%s|%s|%s' has a completion but was refused", lefts[l], middles[m],
                                 rights[r]);
                ep_recognizer_free(rec);
            }
    ep_grammar_free(grammar);
}

Test(parser, quotient_of_a_right_context_nothing_completes)
{
    ep_grammar *grammar = compile(arithmetic);
    ep_recognizer *rec = open_fim(grammar, "", "+ 2 2");
    cr_assert_not(ep_viable(rec));
    cr_assert_not(ep_can_end(rec));
    ep_recognizer_free(rec);
    /* a number the middle starts may run into the right context's "1":
     * fed whole at can_end, which no middle satisfies */
    rec = open_fim(grammar, "", "1 2");
    cr_assert_not(ep_can_end(rec));
    cr_assert_eq(ep_feed(rec, "3", 1), 1);
    cr_assert_not(ep_can_end(rec));
    ep_recognizer_free(rec);
    rec = open_fim(grammar, "", "$");
    cr_assert_not(ep_viable(rec), "a right context that does not lex");
    ep_recognizer_free(rec);
    ep_grammar_free(grammar);
}

/* A token the middle starts may end inside the right context: with no
 * layout, "1 + " and "2" take the middle "3" ("1 + 32"), which a quotient of
 * the right context's own tokens ("2" a number of its own) refused. */
Test(parser, quotient_with_a_token_crossing_the_cursor)
{
    ep_grammar *grammar = compile(arithmetic);
    ep_recognizer *rec = open_fim(grammar, "1 + ", "2");
    cr_assert(ep_can_end(rec), "1 + 2");
    cr_assert_eq(ep_feed(rec, "3", 1), 1);
    cr_assert(ep_can_end(rec), "1 + 32: the number crosses the cursor");
    cr_assert_eq(ep_feed(rec, " ", 1), 1);
    cr_assert_not(ep_can_end(rec), "1 + 3 2");
    ep_recognizer_free(rec);
    ep_grammar *json = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("json"), 0, &json, error, sizeof error), SM_OK, "%s", error);
    rec = open_fim(json, "{\"a\": \"ab", "d\"}");
    cr_assert(ep_viable(rec));
    cr_assert_eq(ep_feed(rec, "c", 1), 1);
    cr_assert(ep_can_end(rec), "a middle inside the string the right context closes");
    cr_assert_eq(ep_feed(rec, "\"", 1), 1);
    cr_assert_not(ep_can_end(rec), "closing it early");
    ep_recognizer_free(rec);
    ep_grammar_free(json);
    ep_grammar_free(grammar);
}

/* Random grammar texts built from the format's own pieces: the compiler
 * must either compile them or report an error, never crash or leak (the
 * sanitizer build checks the latter), and whatever compiles must run. */
Test(parser, random_grammar_texts_never_crash)
{
    static const char *const pieces[] = {
        "s", "t", "X", "Y", ":", "|", "(", ")", "[", "]", "?", "*", "+", ".", "\"a\"", "\"b\"",
        "/[a-z]+/", "/(/", "/a*/", "%empty", "%ignore", "%error", "%priority 2", "%start s",
        "%declare Y", "%soft X \"a\"", "%layout indent", "\n", "\n  ", " ", "#c\n", "\"\\x4\"",
    };
    unsigned seed = 99;
    for (int round = 0; round < 3000; round++) {
        char text[512];
        size_t len = 0;
        int count = 1 + (int)(rand_r(&seed) % 24);
        for (int i = 0; i < count; i++) {
            const char *piece = pieces[rand_r(&seed) % (sizeof pieces / sizeof *pieces)];
            size_t n = strlen(piece);
            memcpy(text + len, piece, n);
            len += n;
        }
        ep_grammar *grammar = NULL;
        char error[256];
        if (ep_grammar_compile(text, len, &grammar, error, sizeof error) != SM_OK) {
            cr_assert_null(grammar);
            cr_assert_gt(strlen(error), 0, "an error without a message for: %.*s", (int)len, text);
            continue;
        }
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        ep_feed(rec, "ab a", 4);
        ep_can_end(rec);
        ep_recognizer_free(rec);
        ep_grammar_free(grammar);
    }
}

/* The quotient by a regular language of right contexts given as an acyclic
 * token automaton: the balanced language by {11, 111}.  x is in it when x 11
 * or x 111 is balanced; checked against that definition for every x up to
 * length 8. */
Test(parser, quotient_by_an_acyclic_token_automaton)
{
    ep_grammar *grammar = compile(balanced);
    uint32_t one = 1; /* terminal ids follow definition order: ZERO 0, ONE 1 */
    cr_assert_str_eq(grammar->symbol_names[one], "ONE");
    /* nodes 0 -1-> 1 -1-> 2 -1-> 3, and 1 -1-> 3 */
    ep_token_edge edges[] = {
        {0, 1, {one, EP_NONE}, 1}, {1, 2, {one, EP_NONE}, 1}, {2, 3, {one, EP_NONE}, 1}, {1, 3, {one, EP_NONE}, 1},
    };
    ep_grammar *quotient;
    cr_assert_eq(ep_quotient_build_dag(grammar, 4, edges, 4, &quotient), SM_OK);
    for (unsigned len = 0; len <= 8; len++) {
        for (unsigned bits = 0; bits < (1u << len); bits++) {
            char word[16];
            for (unsigned k = 0; k < len; k++)
                word[k] = (bits >> k) & 1 ? '1' : '0';
            word[len] = '\0';
            char two[24], three[24];
            snprintf(two, sizeof two, "%s11", word);
            snprintf(three, sizeof three, "%s111", word);
            bool prefix;
            bool member = balanced_reference(two, &prefix) || balanced_reference(three, &prefix);
            /* viable: some continuation c makes word c 11 or word c 111 balanced */
            size_t zeros = 0, ones = 0, i = 0;
            while (i < len && word[i] == '0') { zeros++; i++; }
            while (i < len && word[i] == '1') { ones++; i++; }
            bool viable = i == len && (ones == 0 || ones + 2 <= zeros);
            ep_recognizer *rec;
            cr_assert_eq(ep_recognizer_new(quotient, &rec), SM_OK);
            int fed = ep_feed(rec, word, len);
            cr_assert_eq(fed == 1, viable, "viability of '%s'", word);
            cr_assert_eq(ep_can_end(rec), member, "membership of '%s'", word);
            ep_recognizer_free(rec);
        }
    }
    ep_grammar_free(quotient);
    ep_token_edge backwards = {2, 1, {one, EP_NONE}, 1};
    cr_assert_eq(ep_quotient_build_dag(grammar, 3, &backwards, 1, &quotient), SM_EINVAL);
    ep_grammar_free(grammar);
}

/* A grammar names its language's lexical rules (%lexical): with Python's,
 * an integer of more than 4,300 digits is refused and a name holds only
 * the characters CPython allows; the same grammar without them takes both
 * as its patterns do. */
Test(parser, lexical_rules_are_the_ones_a_grammar_names)
{
    static const char base[] = "NUMBER: /[0-9]+/\n"
                               "NAME: /[a-z\\x80-\\xff]+/\n"
                               "WS: / +/ %ignore\n"
                               "start: (NUMBER | NAME)+\n";
    char with[512];
    snprintf(with, sizeof with, "%%lexical python\n%s", base);
    ep_grammar *plain = compile(base), *python = compile(with);
    char digits[4400];
    memset(digits, '7', 4301);
    digits[4301] = '\0';
    cr_assert(accepts(plain, digits));
    cr_assert_not(accepts(python, digits), "CPython's limit on integer literals");
    digits[4300] = '\0';
    cr_assert(accepts(python, digits));
    /* U+00B7 (middle dot) continues a name but cannot start one */
    cr_assert(accepts(plain, "\xc2\xb7x"));
    cr_assert_not(accepts(python, "\xc2\xb7x"), "not a name's first character");
    cr_assert(accepts(python, "x\xc2\xb7"));
    ep_grammar_free(plain);
    ep_grammar_free(python);
    ep_grammar *none = NULL;
    char error[256];
    const char unknown[] = "%lexical cobol\nstart: \"a\"\n";
    cr_assert_eq(ep_grammar_compile(unknown, strlen(unknown), &none, error, sizeof error), SM_EINVAL);
    cr_assert(strstr(error, "%lexical"), "%s", error);
}

/* Every language of the registry compiles in each of its versions or
 * dialects through the one entry point, and one outside them is refused
 * with why. */
Test(parser, every_language_compiles_by_its_versions_or_dialects)
{
    char error[256];
    size_t languages = 0;
    for (const lg_language *const *l = lg_languages(); *l; l++, languages++) {
        int count = 0;
        while ((*l)->dialects && (*l)->dialects[count])
            count++;
        /* dialects from 1, versions, or one grammar: version 0 */
        int first = count ? 1 : (*l)->oldest_version, last = count ? count : (*l)->newest_version;
        for (int v = first; v <= last; v++) {
            if (!count && v % 100 > 20)
                continue;
            ep_grammar *g = NULL;
            cr_assert_eq(ep_grammar_of(*l, v, &g, error, sizeof error), SM_OK, "%s %d: %s", (*l)->name, v, error);
            ep_grammar_free(g);
        }
        ep_grammar *g = NULL;
        cr_assert_eq(ep_grammar_of(*l, last + 1, &g, error, sizeof error), SM_EINVAL);
        cr_assert_null(g);
        cr_assert(strstr(error, (*l)->name), "%s", error);
    }
    cr_assert_geq(languages, 3);
}

/* JSON, the registry's third language: strict RFC 8259. */
Test(parser, json_is_strict)
{
    ep_grammar *g = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("json"), 0, &g, error, sizeof error), SM_OK, "%s", error);
    static const char *const valid[] = {
        "{}", "[]", " {\"a\": [1, -2.5e+3, 0, true, false, null, \"\\u00e9\\n\"]}\n", "\"text\"", "-0.0E-1",
        "{\"a\":{\"b\":[[]]}}", "\"caf\xc3\xa9\"",
    };
    static const char *const invalid[] = {
        "{\"a\": 1,}", "[1, 2,]", "01", "NaN", "Infinity", "[.5]", "[1.]", "{'a': 1}", "{a: 1}", "[1 2]",
        "\"tab\there\"", "\"\\x41\"", "// note\n{}", "[true1]", "", "+1", "\xef\xbb\xbf{}",
    };
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++)
        cr_assert(accepts(g, valid[i]), "JSON: %s", valid[i]);
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++)
        cr_assert_not(accepts(g, invalid[i]), "not JSON: %s", invalid[i]);
    ep_grammar_free(g);
}
