/*
 * Tests of the lexeme automaton (parser/lexdfa.c), in the parser's test
 * executable.
 */
#include "ep_lexdfa.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static void build(ep_dfa *dfa, const ep_lexeme_spec *specs, uint32_t count)
{
    char error[256] = "";
    cr_assert_eq(ep_dfa_build(specs, count, dfa, error, sizeof error), SM_OK, "%s", error);
}

#define REGEX(p, prio) {p, sizeof(p) - 1, false, prio}
#define LITERAL(p, prio) {p, sizeof(p) - 1, true, prio}

/* Runs the automaton over text; returns the winner of the whole text (or -1)
 * and stores the length of the longest accepted prefix. */
static int32_t run(const ep_dfa *dfa, const char *text, size_t *longest)
{
    uint32_t state = EP_DFA_START;
    *longest = 0;
    int32_t winner = -1;
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        state = ep_dfa_step(dfa, state, (uint8_t)text[i]);
        if (state == EP_DFA_DEAD)
            return -1;
        winner = dfa->winner[state];
        if (winner >= 0)
            *longest = i + 1;
    }
    return winner;
}

Test(parser, dfa_priorities_and_ties)
{
    ep_lexeme_spec specs[] = {
        REGEX("[a-z]+", 0),  /* 0: NAME */
        LITERAL("if", 1),    /* 1: keyword */
        LITERAL("in", 0),    /* 2: same priority as NAME, defined later */
    };
    ep_dfa dfa;
    build(&dfa, specs, 3);
    size_t longest;
    cr_assert_eq(run(&dfa, "if", &longest), 1, "the keyword outranks NAME");
    cr_assert_eq(run(&dfa, "iff", &longest), 0, "a longer name is a NAME");
    cr_assert_eq(run(&dfa, "in", &longest), 0, "a tie goes to the lexeme defined first");
    cr_assert_eq(run(&dfa, "i", &longest), 0);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_reachable_winners)
{
    ep_lexeme_spec specs[] = {
        REGEX("[a-z]+", 0),            /* 0 */
        LITERAL("if", 1),              /* 1 */
        REGEX("0[oO][0-7]+", 0),       /* 2 */
        REGEX("0[oO]", 0),             /* 3: an error lexeme in Python */
        REGEX("[0-9]+", 0),            /* 4 */
    };
    ep_dfa dfa;
    build(&dfa, specs, 5);
    uint32_t after_i = ep_dfa_step(&dfa, EP_DFA_START, 'i');
    const uint64_t *reach = ep_dfa_reachable(&dfa, after_i);
    cr_assert_eq(reach[0], (1u << 0) | (1u << 1), "after 'i': NAME and 'if' (got %llx)",
                 (unsigned long long)reach[0]);
    uint32_t after_0o = ep_dfa_step(&dfa, ep_dfa_step(&dfa, EP_DFA_START, '0'), 'o');
    reach = ep_dfa_reachable(&dfa, after_0o);
    cr_assert_eq(reach[0], (1u << 2) | (1u << 3), "after '0o': the octal number and the error lexeme");
    cr_assert_eq(dfa.winner[after_0o], 3);
    cr_assert_eq(ep_dfa_step(&dfa, after_0o, 'r'), EP_DFA_DEAD);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_classes_escapes_and_counts)
{
    ep_lexeme_spec specs[] = {
        REGEX("[^'\\\\\\n]*'", 0),       /* 0: anything but quote, backslash, newline, then a quote */
        REGEX("\\x41\\d{2,3}", 0),       /* 1: 'A' then 2 or 3 digits */
        REGEX("(ab|c)+\\.", 0),          /* 2 */
        REGEX("x{3}", 0),                /* 3 */
        REGEX("[\\w-]+!", 0),            /* 4 */
    };
    ep_dfa dfa;
    build(&dfa, specs, 5);
    size_t longest;
    cr_assert_eq(run(&dfa, "hello world'", &longest), 0);
    cr_assert_eq(run(&dfa, "a\nb'", &longest), -1);
    cr_assert_eq(run(&dfa, "A12", &longest), 1);
    cr_assert_eq(run(&dfa, "A123", &longest), 1);
    cr_assert_eq(run(&dfa, "A1234", &longest), -1);
    cr_assert_eq(run(&dfa, "A1", &longest), -1);
    cr_assert_eq(run(&dfa, "abcab.", &longest), 2);
    cr_assert_eq(run(&dfa, "xxx", &longest), 3);
    cr_assert_eq(run(&dfa, "xx", &longest), -1);
    cr_assert_eq(run(&dfa, "a-b_9!", &longest), 4);
    cr_assert_lt(dfa.class_count, 256u, "bytes that all patterns treat alike share a class");
    ep_dfa_free(&dfa);
}

Test(parser, dfa_rejects_malformed_patterns)
{
    static const char *const bad[] = {
        "(ab", "ab)", "[ab", "*a", "a{2", "a{3,2}", "\\x4", "[]", "a{2000}", "\\q", "[z-a]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ep_lexeme_spec spec = {bad[i], (uint32_t)strlen(bad[i]), false, 0};
        ep_dfa dfa;
        char error[256] = "";
        int rc = ep_dfa_build(&spec, 1, &dfa, error, sizeof error);
        cr_assert(rc == SM_EINVAL || rc == SM_ETOOBIG, "pattern '%s' was accepted", bad[i]);
        cr_assert_not_null(strstr(error, "lexeme 0"), "message for '%s' names no lexeme: %s", bad[i], error);
    }
    ep_lexeme_spec empty = REGEX("a*", 0);
    ep_dfa dfa;
    char error[256] = "";
    cr_assert_eq(ep_dfa_build(&empty, 1, &dfa, error, sizeof error), SM_EINVAL);
    cr_assert_not_null(strstr(error, "empty string"), "%s", error);
}

/* A small backtracking matcher for patterns over {a, b} with ( ) | * ? as
 * the reference for random patterns. */
static bool ref_match(const char *re, size_t re_len, const char *text, size_t text_len);

static size_t ref_alt_end(const char *re, size_t len, size_t start)
{
    int depth = 0;
    for (size_t i = start; i < len; i++) {
        if (re[i] == '(') depth++;
        else if (re[i] == ')') depth--;
        else if (re[i] == '|' && depth == 0) return i;
    }
    return len;
}

static size_t ref_atom_end(const char *re, size_t len, size_t start)
{
    if (re[start] != '(')
        return start + 1;
    int depth = 0;
    for (size_t i = start; i < len; i++) {
        if (re[i] == '(') depth++;
        else if (re[i] == ')' && --depth == 0) return i + 1;
    }
    return len;
}

static bool ref_seq(const char *re, size_t len, const char *text, size_t text_len)
{
    if (len == 0)
        return text_len == 0;
    size_t end = ref_atom_end(re, len, 0);
    char op = end < len ? re[end] : '\0';
    bool group = re[0] == '(';
    const char *atom = group ? re + 1 : re;
    size_t atom_len = group ? end - 2 : 1;
    size_t rest = (op == '*' || op == '?') ? end + 1 : end;
    if (op == '?' && ref_seq(re + rest, len - rest, text, text_len))
        return true;
    if (op == '*' && ref_seq(re + rest, len - rest, text, text_len))
        return true;
    /* a group may match the empty string, except as one more round of a star */
    size_t first = group && op != '*' ? 0 : 1;
    for (size_t k = first; k <= text_len; k++) {
        bool atom_matches = group ? ref_match(atom, atom_len, text, k) : k == 1 && text[0] == atom[0];
        if (!atom_matches)
            continue;
        if (op == '*') {
            if (ref_seq(re, len, text + k, text_len - k))
                return true;
        } else if (ref_seq(re + rest, len - rest, text + k, text_len - k)) {
            return true;
        }
    }
    return false;
}

static bool ref_match(const char *re, size_t re_len, const char *text, size_t text_len)
{
    size_t start = 0;
    for (;;) {
        size_t end = ref_alt_end(re, re_len, start);
        if (ref_seq(re + start, end - start, text, text_len))
            return true;
        if (end >= re_len)
            return false;
        start = end + 1;
    }
}

/* Writes a random pattern of nesting at most `depth` into out. */
static void random_pattern(unsigned *seed, int depth, char *out, size_t *at)
{
    int items = 1 + (int)(rand_r(seed) % 3);
    for (int i = 0; i < items; i++) {
        if (depth > 0 && rand_r(seed) % 4 == 0) {
            out[(*at)++] = '(';
            random_pattern(seed, depth - 1, out, at);
            out[(*at)++] = '|';
            random_pattern(seed, depth - 1, out, at);
            out[(*at)++] = ')';
        } else {
            out[(*at)++] = rand_r(seed) % 2 ? 'a' : 'b';
        }
        int op = (int)(rand_r(seed) % 4);
        if (op == 0) out[(*at)++] = '*';
        else if (op == 1) out[(*at)++] = '?';
    }
}

Test(parser, dfa_agrees_with_a_backtracking_matcher)
{
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        char pattern[256];
        size_t len = 0;
        random_pattern(&seed, 2, pattern, &len);
        pattern[len] = '\0';
        ep_lexeme_spec spec = {pattern, (uint32_t)len, false, 0};
        ep_dfa dfa;
        char error[256];
        if (ep_dfa_build(&spec, 1, &dfa, error, sizeof error) != SM_OK) {
            /* only patterns that match the empty string may be refused */
            cr_assert(ref_match(pattern, len, "", 0), "'%s' refused: %s", pattern, error);
            continue;
        }
        for (unsigned word = 0; word < 64; word++) {
            char text[8];
            size_t n = word % 6 + 1, longest;
            for (size_t k = 0; k < n; k++)
                text[k] = (word >> k) & 1 ? 'b' : 'a';
            text[n] = '\0';
            bool expected = ref_match(pattern, len, text, n);
            cr_assert_eq(run(&dfa, text, &longest) == 0, expected, "pattern '%s' on '%s'", pattern, text);
        }
        ep_dfa_free(&dfa);
    }
}
