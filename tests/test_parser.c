/*
 * Tests of the grammar compiler, the Earley recognizer and the lexer on
 * small grammars.  The lexeme automaton has its own file
 * (test_parser_lexdfa.c) in the same executable.
 */
#include "seam_parser.h"
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
        "",                             /* no rules */
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
