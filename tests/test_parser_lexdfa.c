/*
 * Tests of the lexeme automaton (parser/lexdfa.c), part of the parser's test
 * executable (the suite is declared in test_parser.c).
 *
 * Expected results are written by hand or computed by code in this file that
 * shares nothing with lexdfa.c: a backtracking matcher for random patterns,
 * and a plain graph search for the reachable winners.
 */
#include "ep_lexdfa.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGEX(p, prio) {p, sizeof(p) - 1, false, prio, false}
#define LITERAL(p, prio) {p, sizeof(p) - 1, true, prio, false}
#define COUNT(a) (uint32_t)(sizeof(a) / sizeof *(a))

static void build(ep_dfa *dfa, const ep_lexeme_spec *specs, uint32_t count)
{
    char error[256] = "";
    int rc = ep_dfa_build(specs, count, dfa, error, sizeof error);
    cr_assert_eq(rc, SM_OK, "build failed (%d): %s", rc, error);
}

/* The state reached from the start on text[0..len) (dead stays dead). */
static uint32_t walk(const ep_dfa *dfa, const char *text, size_t len)
{
    uint32_t state = EP_DFA_START;
    for (size_t i = 0; i < len; i++)
        state = ep_dfa_step(dfa, state, (uint8_t)text[i]);
    return state;
}

/* The lexeme that accepts the whole of `text`, or -1. */
static int32_t accepts(const ep_dfa *dfa, const char *text)
{
    return dfa->winner[walk(dfa, text, strlen(text))];
}

/* Maximal munch: the longest prefix of text[0..len) some lexeme accepts.
 * Returns its length (0 for none) and stores the winner there. */
static size_t longest_match(const ep_dfa *dfa, const char *text, size_t len, int32_t *winner)
{
    uint32_t state = EP_DFA_START;
    size_t longest = 0;
    *winner = -1;
    for (size_t i = 0; i < len && state != EP_DFA_DEAD; i++) {
        state = ep_dfa_step(dfa, state, (uint8_t)text[i]);
        if (dfa->winner[state] >= 0) {
            longest = i + 1;
            *winner = dfa->winner[state];
        }
    }
    return longest;
}

/* Splits text by maximal munch into "lexeme:length" words separated by
 * spaces; an untokenizable byte becomes "?". */
static void tokenize(const ep_dfa *dfa, const char *text, char *out, size_t size)
{
    size_t at = 0, len = strlen(text), used = 0;
    out[0] = '\0';
    while (at < len && used < size) {
        int32_t winner;
        size_t n = longest_match(dfa, text + at, len - at, &winner);
        int w = n ? snprintf(out + used, size - used, "%s%d:%zu", used ? " " : "", winner, n)
                  : snprintf(out + used, size - used, "%s?", used ? " " : "");
        used += (size_t)w;
        at += n ? n : 1;
    }
}

static bool has_lexeme(const ep_dfa *dfa, uint32_t state, uint32_t lexeme)
{
    return (ep_dfa_reachable(dfa, state)[lexeme / 64] >> (lexeme % 64)) & 1;
}

Test(parser, dfa_dead_and_start_states)
{
    ep_lexeme_spec specs[] = {REGEX("[a-z]+", 0), LITERAL("=", 0)};
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    cr_assert_geq(dfa.state_count, 2u);
    cr_assert_eq(dfa.lexeme_count, 2u);
    cr_assert_eq(dfa.set_words, 1u);
    for (unsigned byte = 0; byte < 256; byte++)
        cr_assert_eq(ep_dfa_step(&dfa, EP_DFA_DEAD, (uint8_t)byte), EP_DFA_DEAD);
    cr_assert_eq(dfa.winner[EP_DFA_DEAD], -1);
    cr_assert_eq(ep_dfa_reachable(&dfa, EP_DFA_DEAD)[0], 0u);
    cr_assert_eq(dfa.winner[EP_DFA_START], -1, "no lexeme accepts the empty text");
    cr_assert_eq(ep_dfa_step(&dfa, EP_DFA_START, '1'), EP_DFA_DEAD);
    cr_assert_neq(ep_dfa_step(&dfa, EP_DFA_START, 'q'), EP_DFA_DEAD);
    cr_assert_eq(ep_dfa_reachable(&dfa, EP_DFA_START)[0], 3u);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_no_lexemes_gives_a_dead_automaton)
{
    ep_dfa dfa;
    char error[64];
    cr_assert_eq(ep_dfa_build(NULL, 0, &dfa, error, sizeof error), SM_OK, "%s", error);
    cr_assert_eq(dfa.state_count, 2u);
    cr_assert_eq(ep_dfa_step(&dfa, EP_DFA_START, 'a'), EP_DFA_DEAD);
    cr_assert_eq(dfa.winner[EP_DFA_START], -1);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_keyword_literal_outranks_name)
{
    ep_lexeme_spec specs[] = {
        REGEX("[A-Za-z_][A-Za-z0-9_]*", 0),   /* 0: NAME */
        LITERAL("if", 1),                      /* 1: keyword */
        LITERAL("import", 1),                  /* 2: keyword */
    };
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    cr_assert_eq(accepts(&dfa, "if"), 1);
    cr_assert_eq(accepts(&dfa, "import"), 2);
    cr_assert_eq(accepts(&dfa, "i"), 0);
    cr_assert_eq(accepts(&dfa, "iff"), 0, "a longer name is a NAME");
    cr_assert_eq(accepts(&dfa, "impor"), 0);
    cr_assert_eq(accepts(&dfa, "imports"), 0);
    cr_assert_eq(accepts(&dfa, "If"), 0);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_priority_ties_go_to_the_first_defined)
{
    ep_lexeme_spec specs[] = {
        LITERAL("in", 0),                      /* 0: defined before NAME */
        REGEX("[a-z]+", 0),                    /* 1: NAME */
        LITERAL("is", 0),                      /* 2: defined after NAME, same priority */
        REGEX("[a-z]+!", -1),                  /* 3 */
        REGEX("[a-z]*z!", -2),                 /* 4: always outranked by 3 */
    };
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    cr_assert_eq(accepts(&dfa, "in"), 0);
    cr_assert_eq(accepts(&dfa, "is"), 1, "NAME was defined first");
    cr_assert_eq(accepts(&dfa, "it"), 1);
    cr_assert_eq(accepts(&dfa, "abz!"), 3);
    uint32_t after_z = walk(&dfa, "z", 1);
    cr_assert(!has_lexeme(&dfa, after_z, 4), "lexeme 4 never wins, so it is reachable nowhere");
    cr_assert(!has_lexeme(&dfa, after_z, 2));
    cr_assert(has_lexeme(&dfa, EP_DFA_START, 0) && has_lexeme(&dfa, EP_DFA_START, 1));
    ep_dfa_free(&dfa);
}

Test(parser, dfa_maximal_munch)
{
    ep_lexeme_spec specs[] = {
        REGEX("[a-z_][a-z0-9_]*", 0),          /* 0 NAME */
        LITERAL("if", 1),                      /* 1 */
        REGEX("[0-9]+", 0),                    /* 2 */
        REGEX("[0-9]+\\.[0-9]*", 0),           /* 3 */
        LITERAL(">", 0),                       /* 4 */
        LITERAL(">=", 0),                      /* 5 */
        LITERAL(">>=", 0),                     /* 6 */
        REGEX("[ ]+", 0),                      /* 7 */
        LITERAL("...", 0),                     /* 8 */
        LITERAL(".", 0),                       /* 9 */
    };
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    char out[256];
    tokenize(&dfa, "if iffy>=10", out, sizeof out);
    cr_assert_str_eq(out, "1:2 7:1 0:4 5:2 2:2");
    tokenize(&dfa, ">>>=1.5..x", out, sizeof out);
    cr_assert_str_eq(out, "4:1 6:3 3:3 9:1 9:1 0:1");
    tokenize(&dfa, "....#", out, sizeof out);
    cr_assert_str_eq(out, "8:3 9:1 ?");
    ep_dfa_free(&dfa);
}

Test(parser, dfa_classes_and_negated_classes)
{
    ep_lexeme_spec specs[] = {
        REGEX("[abc]", 0),                     /* 0 */
        REGEX("[d-f][d-f]", 0),                /* 1 */
        REGEX("[-x]y", 0),                     /* 2: '-' first is a byte */
        REGEX("[x-]z", 0),                     /* 3: '-' last is a byte */
        REGEX("\"[^\"\\n]*\"", 0),             /* 4: a double-quoted line */
        REGEX("[\\d_]+%", 0),                  /* 5 */
        REGEX("#.*", 0),                       /* 6 */
        REGEX("[\\x80-\\xff]+", 0),            /* 7: UTF-8 bytes */
        REGEX("[]\\]]", 0),                    /* never reached: see below */
    };
    ep_dfa dfa;
    char error[256];
    cr_assert_eq(ep_dfa_build(specs, COUNT(specs), &dfa, error, sizeof error), SM_EINVAL,
                 "[] is an empty class, not a ']'");
    build(&dfa, specs, COUNT(specs) - 1);
    cr_assert_eq(accepts(&dfa, "b"), 0);
    cr_assert_eq(accepts(&dfa, "d"), -1);
    cr_assert_eq(accepts(&dfa, "ef"), 1);
    cr_assert_eq(accepts(&dfa, "eg"), -1);
    cr_assert_eq(accepts(&dfa, "-y"), 2);
    cr_assert_eq(accepts(&dfa, "xy"), 2);
    cr_assert_eq(accepts(&dfa, "wy"), -1, "[-x] is not a range");
    cr_assert_eq(accepts(&dfa, "-z"), 3);
    cr_assert_eq(accepts(&dfa, "\"it's \xc3\xa9t\xc3\xa9\""), 4, "a negated class matches UTF-8 bytes");
    cr_assert_eq(accepts(&dfa, "\"a\nb\""), -1);
    cr_assert_eq(accepts(&dfa, "\"\""), 4);
    cr_assert_eq(accepts(&dfa, "1_2%"), 5);
    cr_assert_eq(accepts(&dfa, "1a%"), -1);
    cr_assert_eq(accepts(&dfa, "# any \x01\xff bytes"), 6);
    cr_assert_eq(accepts(&dfa, "# not\nthis"), -1, "'.' stops at a newline");
    cr_assert_eq(accepts(&dfa, "\xe2\x82\xac"), 7);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_escapes)
{
    static const char *const patterns[] = {
        "\\n", "\\r", "\\t", "\\f", "\\v", "\\0", "\\\\", "\\/", "\\\"", "\\'", "\\.", "\\[", "\\]", "\\(",
        "\\)", "\\{", "\\}", "\\|", "\\*", "\\+", "\\?", "\\^", "\\$", "\\-", "\\x41", "\\x7e", "\\xfF",
        "\\#", "\\@", "^", "$", "[\\n]", "[\\]]", "[\\^]", "[\\-]", "[\\x00]",
    };
    static const char expected[] = "\n\r\t\f\v\0\\/\"'.[](){}|*+?^$-A~\xff#@^$\n]^-\0";
    cr_assert_eq(sizeof expected - 1, COUNT(patterns));
    for (uint32_t i = 0; i < COUNT(patterns); i++) {
        ep_lexeme_spec spec = {patterns[i], (uint32_t)strlen(patterns[i]), false, 0, false};
        ep_dfa dfa;
        build(&dfa, &spec, 1);
        for (unsigned byte = 0; byte < 256; byte++) {
            uint32_t state = ep_dfa_step(&dfa, EP_DFA_START, (uint8_t)byte);
            bool accepted = dfa.winner[state] == 0;
            cr_assert_eq(accepted, byte == (uint8_t)expected[i], "pattern %s, byte 0x%02x", patterns[i], byte);
        }
        ep_dfa_free(&dfa);
    }
    ep_lexeme_spec shorthands[] = {REGEX("\\d", 0), REGEX("\\w", 0), REGEX("\\s", 0), REGEX("[\\s\\d]", 0)};
    for (unsigned byte = 0; byte < 256; byte++) {
        bool digit = byte >= '0' && byte <= '9';
        bool word = digit || byte == '_' || (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z');
        bool space = byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r' || byte == '\f' || byte == '\v';
        bool want[] = {digit, word, space, space || digit};
        for (uint32_t i = 0; i < COUNT(shorthands); i++) {
            ep_dfa dfa;
            build(&dfa, &shorthands[i], 1);
            bool accepted = dfa.winner[ep_dfa_step(&dfa, EP_DFA_START, (uint8_t)byte)] == 0;
            cr_assert_eq(accepted, want[i], "%s on byte 0x%02x", shorthands[i].pattern, byte);
            ep_dfa_free(&dfa);
        }
    }
}

Test(parser, dfa_literals_have_no_pattern_syntax)
{
    ep_lexeme_spec specs[] = {LITERAL("a*[b](", 0), LITERAL("\\n", 0)};
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    cr_assert_eq(accepts(&dfa, "a*[b]("), 0);
    cr_assert_eq(accepts(&dfa, "aa[b]("), -1);
    cr_assert_eq(accepts(&dfa, "\\n"), 1);
    cr_assert_eq(accepts(&dfa, "\n"), -1);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_counted_repetition)
{
    ep_lexeme_spec specs[] = {
        REGEX("a{3}", 0),                      /* 0 */
        REGEX("b{2,4}", 0),                    /* 1 */
        REGEX("c{2,}", 0),                     /* 2 */
        REGEX("(de){2}", 0),                   /* 3 */
        REGEX("f{2}{3}", 0),                   /* 4: stacked: six f's */
        REGEX("g{0,2}h", 0),                   /* 5 */
        REGEX("x[0-9a-f]{2}", 0),              /* 6 */
        REGEX("k{0}m", 0),                     /* 7 */
        REGEX("(n|pp){1,2}q", 0),              /* 8 */
    };
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    static const struct { const char *text; int32_t want; } cases[] = {
        {"aa", -1}, {"aaa", 0}, {"aaaa", -1},
        {"b", -1}, {"bb", 1}, {"bbb", 1}, {"bbbb", 1}, {"bbbbb", -1},
        {"c", -1}, {"cc", 2}, {"cccccccccccccccccccc", 2},
        {"de", -1}, {"dede", 3}, {"deded", -1},
        {"fff", -1}, {"ffffff", 4}, {"fffffff", -1},
        {"h", 5}, {"gh", 5}, {"ggh", 5}, {"gggh", -1},
        {"x0f", 6}, {"x0", -1}, {"x0fa", -1},
        {"m", 7}, {"km", -1},
        {"nq", 8}, {"ppnq", 8}, {"pq", -1}, {"nnnq", -1},
    };
    for (uint32_t i = 0; i < COUNT(cases); i++)
        cr_assert_eq(accepts(&dfa, cases[i].text), cases[i].want, "text %s", cases[i].text);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_alternation_in_groups)
{
    ep_lexeme_spec specs[] = {
        REGEX("(ab|cd|e)+f", 0),               /* 0 */
        REGEX("x(|y)z", 0),                    /* 1: an empty branch */
        REGEX("1|23|(4(5|6))7", 0),            /* 2: '|' binds loosest */
        REGEX("((u))", 0),                     /* 3 */
    };
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    static const struct { const char *text; int32_t want; } cases[] = {
        {"abf", 0}, {"cdeabf", 0}, {"ef", 0}, {"f", -1}, {"acf", -1},
        {"xz", 1}, {"xyz", 1}, {"xyyz", -1},
        {"1", 2}, {"23", 2}, {"457", 2}, {"467", 2}, {"47", -1}, {"17", -1}, {"3", -1},
        {"u", 3},
    };
    for (uint32_t i = 0; i < COUNT(cases); i++)
        cr_assert_eq(accepts(&dfa, cases[i].text), cases[i].want, "text %s", cases[i].text);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_reachable_winners_by_hand)
{
    ep_lexeme_spec specs[] = {
        REGEX("[A-Za-z_][A-Za-z0-9_]*", 0),    /* 0 NAME */
        LITERAL("if", 1),                      /* 1 */
        LITERAL("in", 1),                      /* 2 */
        REGEX("0[oO][0-7](_?[0-7])*", 0),      /* 3 octal */
        REGEX("[0-9]+", 0),                    /* 4 decimal */
        LITERAL("else", 1),                    /* 5 */
    };
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    uint32_t state = walk(&dfa, "i", 1);
    cr_assert_eq(ep_dfa_reachable(&dfa, state)[0], (1u << 0) | (1u << 1) | (1u << 2),
                 "after 'i': NAME, 'if' and 'in'");
    state = walk(&dfa, "if", 2);
    cr_assert_eq(ep_dfa_reachable(&dfa, state)[0], (1u << 0) | (1u << 1), "after 'if': itself and NAME");
    state = walk(&dfa, "0", 1);
    cr_assert_eq(ep_dfa_reachable(&dfa, state)[0], (1u << 3) | (1u << 4));
    state = walk(&dfa, "0o", 2);
    cr_assert_eq(dfa.winner[state], -1);
    cr_assert_eq(ep_dfa_reachable(&dfa, state)[0], 1u << 3, "after '0o' only the octal number");
    state = walk(&dfa, "0o1_", 4);
    cr_assert_eq(ep_dfa_reachable(&dfa, state)[0], 1u << 3);
    cr_assert_eq(walk(&dfa, "0o8", 3), EP_DFA_DEAD);
    cr_assert_eq(ep_dfa_reachable(&dfa, EP_DFA_START)[0], 0x3fu);
    ep_dfa_free(&dfa);
}

/* Whether lexeme `lexeme` wins at some state reachable from `from`, by a
 * depth-first search over the automaton. */
static bool search_reachable(const ep_dfa *dfa, uint32_t from, uint32_t lexeme, uint8_t *seen)
{
    memset(seen, 0, dfa->state_count);
    uint32_t *stack = malloc(sizeof *stack * dfa->state_count);
    size_t top = 0;
    bool found = false;
    stack[top++] = from;
    seen[from] = 1;
    while (top && !found) {
        uint32_t s = stack[--top];
        found = dfa->winner[s] == (int32_t)lexeme;
        for (uint32_t c = 0; c < dfa->class_count; c++) {
            uint32_t t = dfa->next[(size_t)s * dfa->class_count + c];
            if (!seen[t]) {
                seen[t] = 1;
                stack[top++] = t;
            }
        }
    }
    free(stack);
    return found;
}

Test(parser, dfa_reachable_winners_agree_with_a_search)
{
    /* 70 lexemes so that the sets take two words; cycles through strings */
    static char texts[70][8];
    ep_lexeme_spec specs[70];
    specs[0] = (ep_lexeme_spec)REGEX("[a-z]+", 0);
    specs[1] = (ep_lexeme_spec)REGEX("'([^'\\\\]|\\\\.)*'", 0);
    specs[2] = (ep_lexeme_spec)REGEX("(ab)+c(d|e)*", 0);
    specs[3] = (ep_lexeme_spec)REGEX("[0-9]+(\\.[0-9]+)?", 0);
    for (uint32_t i = 4; i < 70; i++) {
        snprintf(texts[i], sizeof texts[i], "k%c%c", 'a' + i % 26, 'a' + i / 26);
        specs[i] = (ep_lexeme_spec){texts[i], 3, true, 1, false};
    }
    ep_dfa dfa;
    build(&dfa, specs, 70);
    cr_assert_eq(dfa.set_words, 2u);
    uint8_t *seen = malloc(dfa.state_count);
    for (uint32_t s = 0; s < dfa.state_count; s++)
        for (uint32_t lexeme = 0; lexeme < 70; lexeme++)
            cr_assert_eq(has_lexeme(&dfa, s, lexeme), search_reachable(&dfa, s, lexeme, seen),
                         "state %u, lexeme %u", s, lexeme);
    free(seen);
    uint32_t after_kb = walk(&dfa, "kb", 2);
    cr_assert(has_lexeme(&dfa, after_kb, 53) && has_lexeme(&dfa, after_kb, 27), "'kbc' and 'kbb'");
    cr_assert(!has_lexeme(&dfa, after_kb, 54) && !has_lexeme(&dfa, after_kb, 1), "not 'kcc' nor a string");
    ep_dfa_free(&dfa);
}

Test(parser, dfa_byte_classes_group_bytes_treated_alike)
{
    ep_lexeme_spec specs[] = {REGEX("[a-c]x", 0), LITERAL("b", 0)};
    ep_dfa dfa;
    build(&dfa, specs, COUNT(specs));
    /* {a, c}, {b}, {x} and everything else */
    cr_assert_eq(dfa.class_count, 4u);
    cr_assert_eq(dfa.byte_class['a'], dfa.byte_class['c']);
    cr_assert_neq(dfa.byte_class['a'], dfa.byte_class['b']);
    cr_assert_neq(dfa.byte_class['a'], dfa.byte_class['x']);
    cr_assert_eq(dfa.byte_class['d'], dfa.byte_class[0xff]);
    cr_assert_neq(dfa.byte_class['d'], dfa.byte_class['x']);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_is_minimal)
{
    /* dead, start, after a or c, after ab or cb */
    ep_lexeme_spec two_paths = REGEX("ab|cb", 0);
    ep_dfa dfa;
    build(&dfa, &two_paths, 1);
    cr_assert_eq(dfa.state_count, 4u);
    cr_assert_eq(walk(&dfa, "a", 1), walk(&dfa, "c", 1));
    ep_dfa_free(&dfa);
    /* dead, start, and one state per winner: a+ and b+ loop on themselves */
    ep_lexeme_spec loops[] = {REGEX("(a|aa)+", 0), REGEX("b(b*|bb)", 0)};
    build(&dfa, loops, 2);
    cr_assert_eq(dfa.state_count, 4u);
    ep_dfa_free(&dfa);
}

/* Builds `pattern` as lexeme 2 after two good lexemes and checks the result
 * code and that the message starts with "lexeme 2, byte <offset>: " and
 * mentions `words`. */
static void expect_error(const char *pattern, int rc, uint32_t offset, const char *words)
{
    ep_lexeme_spec specs[] = {REGEX("[a-z]+", 0), LITERAL("+", 0), {pattern, (uint32_t)strlen(pattern), false, 0, false}};
    ep_dfa dfa;
    char error[256] = "", prefix[64];
    int got = ep_dfa_build(specs, 3, &dfa, error, sizeof error);
    cr_assert_eq(got, rc, "pattern %s: rc %d, message: %s", pattern, got, error);
    snprintf(prefix, sizeof prefix, "lexeme 2, byte %u: ", offset);
    cr_assert_eq(strncmp(error, prefix, strlen(prefix)), 0, "pattern %s: message '%s', wanted '%s...'", pattern,
                 error, prefix);
    cr_assert_not_null(strstr(error, words), "pattern %s: message '%s' lacks '%s'", pattern, error, words);
    cr_assert_null(dfa.next);
    cr_assert_eq(dfa.state_count, 0u);
}

Test(parser, dfa_rejects_malformed_patterns)
{
    expect_error("(ab", SM_EINVAL, 0, "unbalanced '('");
    expect_error("a(b(c)", SM_EINVAL, 1, "unbalanced '('");
    expect_error("ab)", SM_EINVAL, 2, "unbalanced ')'");
    expect_error("a|b)c", SM_EINVAL, 3, "unbalanced ')'");
    expect_error("a]", SM_EINVAL, 1, "unbalanced ']'");
    expect_error("a}", SM_EINVAL, 1, "unbalanced '}'");
    expect_error("[ab", SM_EINVAL, 0, "unterminated '['");
    expect_error("x[^a\\]", SM_EINVAL, 1, "unterminated '['");
    expect_error("*a", SM_EINVAL, 0, "nothing to repeat");
    expect_error("a|+b", SM_EINVAL, 2, "nothing to repeat");
    expect_error("(?:a)", SM_EINVAL, 1, "nothing to repeat");
    expect_error("a({2})", SM_EINVAL, 2, "nothing to repeat");
    expect_error("a{2", SM_EINVAL, 1, "count");
    expect_error("a{,2}", SM_EINVAL, 1, "count");
    expect_error("a{2,x}", SM_EINVAL, 1, "count");
    expect_error("a{ 2}", SM_EINVAL, 1, "count");
    expect_error("ab{3,2}", SM_EINVAL, 2, "m <= n");
    expect_error("a{1001}", SM_ETOOBIG, 1, "limited to 1000");
    expect_error("a{2,99999999999}", SM_ETOOBIG, 1, "limited to 1000");
    expect_error("\\x4", SM_EINVAL, 0, "two hex digits");
    expect_error("ab\\x4g", SM_EINVAL, 2, "two hex digits");
    expect_error("\\xg1", SM_EINVAL, 0, "two hex digits");
    expect_error("a\\", SM_EINVAL, 1, "lone");
    expect_error("\\q", SM_EINVAL, 0, "unknown escape \\q");
    expect_error("a\\1", SM_EINVAL, 1, "unknown escape \\1");
    expect_error("\\ ", SM_EINVAL, 0, "unknown escape");
    expect_error("[a\\k]", SM_EINVAL, 2, "unknown escape \\k");
    expect_error("[]", SM_EINVAL, 0, "empty class");
    expect_error("x[^]", SM_EINVAL, 1, "empty class");
    expect_error("[^\\x00-\\xff]", SM_EINVAL, 0, "matches no byte");
    expect_error("[z-a]", SM_EINVAL, 1, "reversed range");
    expect_error("[ab-\\d]", SM_EINVAL, 2, "single byte");
    char deep[512];
    memset(deep, '(', 101);
    deep[101] = 'a';
    memset(deep + 102, ')', 101);
    deep[203] = '\0';
    expect_error(deep, SM_EINVAL, 100, "nested");
    char stacked[256];
    stacked[0] = 'a';
    memset(stacked + 1, '?', 150);
    stacked[151] = 'b';
    stacked[152] = '\0';
    expect_error(stacked, SM_EINVAL, 101, "stacked");
}

Test(parser, dfa_accepts_deep_but_legal_nesting)
{
    char deep[256];
    memset(deep, '(', 100);
    deep[100] = 'a';
    memset(deep + 101, ')', 100);
    deep[201] = '\0';
    ep_lexeme_spec spec = {deep, 201, false, 0, false};
    ep_dfa dfa;
    build(&dfa, &spec, 1);
    cr_assert_eq(accepts(&dfa, "a"), 0);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_rejects_patterns_matching_the_empty_string)
{
    static const char *const nullable[] = {"a*", "b?", "(a|)", "()", "(a*|b)c?", "a{0}", "x{0,3}", "(|)", ""};
    for (uint32_t i = 0; i < COUNT(nullable); i++)
        expect_error(nullable[i], SM_EINVAL, 0, "empty string");
    ep_lexeme_spec empty_literal[] = {LITERAL("x", 0), LITERAL("", 0)};
    ep_dfa dfa;
    char error[256];
    cr_assert_eq(ep_dfa_build(empty_literal, 2, &dfa, error, sizeof error), SM_EINVAL);
    cr_assert_str_eq(error, "lexeme 1, byte 0: the pattern matches the empty string");
    /* nearly empty is fine */
    ep_lexeme_spec fine[] = {REGEX("a*b", 0), REGEX("(x|)y", 0), REGEX("k{0}m", 0), REGEX("(p?q?)+r", 0)};
    build(&dfa, fine, COUNT(fine));
    cr_assert_eq(accepts(&dfa, "r"), 3);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_enforces_size_limits)
{
    ep_dfa dfa;
    char error[256];
    ep_lexeme_spec huge = REGEX("((a{1000}){1000}){1000}", 0);
    cr_assert_eq(ep_dfa_build(&huge, 1, &dfa, error, sizeof error), SM_ETOOBIG);
    cr_assert_not_null(strstr(error, "lexeme 0, byte "), "%s", error);
    ep_lexeme_spec large[] = {REGEX("(a{1000}){600}", 0), REGEX("(b{1000}){600}", 0)};
    cr_assert_eq(ep_dfa_build(large, 2, &dfa, error, sizeof error), SM_ETOOBIG);
    cr_assert_not_null(strstr(error, "lexeme 1, byte 0"), "%s", error);
    /* the sixteenth-to-last byte is an 'a': 2^17 subsets */
    ep_lexeme_spec blowup = REGEX("(a|b)*a(a|b){16}", 0);
    cr_assert_eq(ep_dfa_build(&blowup, 1, &dfa, error, sizeof error), SM_ETOOBIG);
    cr_assert_not_null(strstr(error, "65536"), "%s", error);
    cr_assert_null(dfa.next);
    /* the largest legal counts work */
    ep_lexeme_spec counted = REGEX("[ab]{1000}c{2,1000}", 0);
    build(&dfa, &counted, 1);
    char text[1300];
    memset(text, 'b', 1000);
    memset(text + 1000, 'c', 299);
    text[1299] = '\0';
    cr_assert_eq(accepts(&dfa, text), 0);
    text[999] = 'c';
    cr_assert_eq(accepts(&dfa, text), -1);
    ep_dfa_free(&dfa);
}

Test(parser, dfa_survives_garbage_patterns)
{
    static const char alphabet[] = "ab()[]{}|*+?^$-.\\x09f,dwsn\n\xff";
    unsigned seed = 7;
    for (int round = 0; round < 20000; round++) {
        char pattern[16];
        uint32_t len = (uint32_t)(rand_r(&seed) % sizeof pattern);
        for (uint32_t i = 0; i < len; i++)
            pattern[i] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        ep_lexeme_spec spec = {pattern, len, false, 0, false};
        ep_dfa dfa;
        char error[128] = "";
        int rc = ep_dfa_build(&spec, 1, &dfa, error, sizeof error);
        if (rc == SM_OK) {
            cr_assert_geq(dfa.state_count, 3u);
            ep_dfa_free(&dfa);
            continue;
        }
        cr_assert(rc == SM_EINVAL || rc == SM_ETOOBIG, "rc %d for %.*s", rc, (int)len, pattern);
        if (rc == SM_ETOOBIG && strncmp(error, "lexeme", 6) != 0)
            continue;   /* too many DFA states: no one pattern is to blame */
        unsigned offset = 99;
        cr_assert_eq(sscanf(error, "lexeme 0, byte %u: ", &offset), 1, "message: %s", error);
        cr_assert_leq(offset, len, "message: %s", error);
    }
    /* a one-byte error buffer and no buffer at all */
    ep_lexeme_spec bad = REGEX("(", 0);
    ep_dfa dfa;
    char tiny[1] = {'x'};
    cr_assert_eq(ep_dfa_build(&bad, 1, &dfa, tiny, 1), SM_EINVAL);
    cr_assert_eq(tiny[0], '\0');
    cr_assert_eq(ep_dfa_build(&bad, 1, &dfa, NULL, 0), SM_EINVAL);
}

/* ---- Random patterns against a backtracking matcher ------------------------- */

enum { R_BYTE, R_CLASS, R_ANY, R_SEQ, R_ALT, R_REPEAT };

typedef struct rnode {
    int kind;
    char byte;                 /* R_BYTE */
    char members[4];           /* R_CLASS, NUL-terminated */
    bool negate;
    int left, right;           /* R_SEQ, R_ALT; R_REPEAT: left */
    int min, max;              /* R_REPEAT; max -1: unbounded */
} rnode;

typedef struct rtree {
    rnode nodes[64];
    int count;
} rtree;

static const char r_alphabet[] = "abc\n";

static int r_add(rtree *t, rnode node)
{
    t->nodes[t->count] = node;
    return t->count++;
}

/* A random pattern tree of at most `depth` levels. */
static int r_random(rtree *t, unsigned *seed, int depth)
{
    int pick = depth > 0 && t->count < 48 ? (int)(rand_r(seed) % 9) : (int)(rand_r(seed) % 3);
    rnode node = {0};
    switch (pick) {
    case 0:
    case 1:
        node.kind = R_BYTE;
        node.byte = r_alphabet[rand_r(seed) % 3 + (rand_r(seed) % 8 == 0)];
        return r_add(t, node);
    case 2:
        node.kind = rand_r(seed) % 4 ? R_CLASS : R_ANY;
        node.negate = rand_r(seed) % 2;
        node.members[0] = r_alphabet[rand_r(seed) % 4];
        node.members[1] = r_alphabet[rand_r(seed) % 3];
        return r_add(t, node);
    case 3:
    case 4:
    case 5:
        node.kind = R_SEQ;
        node.left = r_random(t, seed, depth - 1);
        node.right = r_random(t, seed, depth - 1);
        return r_add(t, node);
    case 6:
        node.kind = R_ALT;
        node.left = r_random(t, seed, depth - 1);
        node.right = rand_r(seed) % 6 ? r_random(t, seed, depth - 1) : -1;   /* -1: empty branch */
        return r_add(t, node);
    default:
        node.kind = R_REPEAT;
        node.left = r_random(t, seed, depth - 1);
        node.min = (int)(rand_r(seed) % 3);
        node.max = rand_r(seed) % 3 ? node.min + (int)(rand_r(seed) % 3) : -1;
        return r_add(t, node);
    }
}

static void r_emit(char *out, size_t *at, const char *text)
{
    size_t n = strlen(text);
    memcpy(out + *at, text, n);
    *at += n;
}

static void r_emit_byte(char *out, size_t *at, char byte)
{
    if (byte == '\n')
        r_emit(out, at, "\\n");
    else
        out[(*at)++] = byte;
}

/* Writes node `index` as pattern text; `atom` asks for something a
 * quantifier can follow. */
static void r_render(const rtree *t, int index, bool atom, char *out, size_t *at)
{
    const rnode *node = &t->nodes[index];
    char count[32];
    switch (node->kind) {
    case R_BYTE:
        r_emit_byte(out, at, node->byte);
        return;
    case R_ANY:
        r_emit(out, at, ".");
        return;
    case R_CLASS:
        r_emit(out, at, node->negate ? "[^" : "[");
        for (const char *m = node->members; *m; m++)
            r_emit_byte(out, at, *m);
        r_emit(out, at, "]");
        return;
    case R_SEQ:
        r_emit(out, at, atom ? "(" : "");
        r_render(t, node->left, false, out, at);
        r_render(t, node->right, false, out, at);
        r_emit(out, at, atom ? ")" : "");
        return;
    case R_ALT:
        r_emit(out, at, "(");
        r_render(t, node->left, false, out, at);
        r_emit(out, at, "|");
        if (node->right >= 0)
            r_render(t, node->right, false, out, at);
        r_emit(out, at, ")");
        return;
    default:
        /* a repeat of a repeat is written stacked, as in a{2}{3} */
        r_render(t, node->left, t->nodes[node->left].kind != R_REPEAT, out, at);
        if (node->min == 0 && node->max == -1)
            snprintf(count, sizeof count, "*");
        else if (node->min == 1 && node->max == -1)
            snprintf(count, sizeof count, "+");
        else if (node->min == 0 && node->max == 1)
            snprintf(count, sizeof count, "?");
        else if (node->max == -1)
            snprintf(count, sizeof count, "{%d,}", node->min);
        else if (node->max == node->min)
            snprintf(count, sizeof count, "{%d}", node->min);
        else
            snprintf(count, sizeof count, "{%d,%d}", node->min, node->max);
        r_emit(out, at, count);
    }
}

/* What is left to match after the current node: a linked stack of nodes.
 * For a repeat, `done` copies have matched, the last one starting at
 * `start`. */
typedef struct rcont {
    int node;
    int done;
    size_t start;
    const struct rcont *next;
} rcont;

static bool r_in_class(const rnode *node, char byte)
{
    if (node->kind == R_ANY)
        return byte != '\n';
    return (strchr(node->members, byte) != NULL) != node->negate;
}

/* Backtracking: whether text[pos..len) matches the continuation `k`. */
static bool r_match(const rtree *t, const rcont *k, const char *text, size_t pos, size_t len)
{
    if (!k)
        return pos == len;
    const rnode *node = &t->nodes[k->node];
    switch (node->kind) {
    case R_BYTE:
        return pos < len && text[pos] == node->byte && r_match(t, k->next, text, pos + 1, len);
    case R_CLASS:
    case R_ANY:
        return pos < len && r_in_class(node, text[pos]) && r_match(t, k->next, text, pos + 1, len);
    case R_SEQ: {
        rcont right = {node->right, 0, 0, k->next};
        rcont left = {node->left, 0, 0, &right};
        return r_match(t, &left, text, pos, len);
    }
    case R_ALT: {
        rcont left = {node->left, 0, 0, k->next};
        if (r_match(t, &left, text, pos, len))
            return true;
        if (node->right < 0)
            return r_match(t, k->next, text, pos, len);
        rcont right = {node->right, 0, 0, k->next};
        return r_match(t, &right, text, pos, len);
    }
    default:
        /* a copy beyond the minimum that matched nothing adds nothing */
        if (k->done > node->min && pos == k->start)
            return false;
        if (k->done >= node->min && r_match(t, k->next, text, pos, len))
            return true;
        if (node->max >= 0 && k->done >= node->max)
            return false;
        rcont again = {k->node, k->done + 1, pos, k->next};
        rcont copy = {node->left, 0, 0, &again};
        return r_match(t, &copy, text, pos, len);
    }
}

static bool r_matches(const rtree *t, int root, const char *text, size_t len)
{
    rcont k = {root, 0, 0, NULL};
    return r_match(t, &k, text, 0, len);
}

Test(parser, dfa_agrees_with_a_backtracking_matcher)
{
    unsigned seed = 20240611;
    int built = 0, refused = 0;
    for (int round = 0; round < 400; round++) {
        enum { LEXEMES = 3 };
        static rtree trees[LEXEMES];
        int roots[LEXEMES];
        char patterns[LEXEMES][512];
        ep_lexeme_spec specs[LEXEMES];
        int first_nullable = -1;
        for (int i = 0; i < LEXEMES; i++) {
            trees[i].count = 0;
            roots[i] = r_random(&trees[i], &seed, 4);
            size_t at = 0;
            r_render(&trees[i], roots[i], false, patterns[i], &at);
            patterns[i][at] = '\0';
            specs[i] = (ep_lexeme_spec){patterns[i], (uint32_t)at, false, (int32_t)(rand_r(&seed) % 2), false};
            if (first_nullable < 0 && r_matches(&trees[i], roots[i], "", 0))
                first_nullable = i;
        }
        ep_dfa dfa;
        char error[256] = "";
        int rc = ep_dfa_build(specs, LEXEMES, &dfa, error, sizeof error);
        if (first_nullable >= 0) {
            char prefix[64];
            snprintf(prefix, sizeof prefix, "lexeme %d, byte 0: the pattern matches the empty string",
                     first_nullable);
            cr_assert_eq(rc, SM_EINVAL, "'%s' matches the empty string", patterns[first_nullable]);
            cr_assert_str_eq(error, prefix);
            refused++;
            continue;
        }
        cr_assert_eq(rc, SM_OK, "'%s' '%s' '%s': %s", patterns[0], patterns[1], patterns[2], error);
        built++;
        /* every text of up to 5 bytes over a, b, c, \n */
        for (size_t len = 0, total = 1; len <= 5; len++, total *= 4)
        for (size_t code = 0; code < total; code++) {
            char text[8];
            for (size_t n = 0, digits = code; n < len; n++, digits /= 4)
                text[n] = r_alphabet[digits % 4];
            int32_t want = -1;
            for (int i = 0; i < LEXEMES; i++)
                if (r_matches(&trees[i], roots[i], text, len) &&
                    (want < 0 || specs[i].priority > specs[want].priority))
                    want = i;
            uint32_t state = EP_DFA_START;
            for (size_t n = 0; n <= len; n++) {
                if (want >= 0)
                    cr_assert(has_lexeme(&dfa, state, (uint32_t)want), "'%s' '%s' '%s': lexeme %d unreachable",
                              patterns[0], patterns[1], patterns[2], want);
                if (n < len)
                    state = ep_dfa_step(&dfa, state, (uint8_t)text[n]);
            }
            cr_assert_eq(dfa.winner[state], want, "patterns '%s' '%s' '%s' (priorities %d %d %d), text '%.*s'",
                         patterns[0], patterns[1], patterns[2], specs[0].priority, specs[1].priority,
                         specs[2].priority, (int)len, text);
        }
        ep_dfa_free(&dfa);
    }
    cr_assert_gt(built, 100, "too few random lexeme sets were usable (%d)", built);
    cr_assert_gt(refused, 10);
}

/* ---- A Python-sized lexeme set ----------------------------------------------------- */

typedef struct lexset {
    ep_lexeme_spec specs[256];
    char *names[256];
    uint32_t count;
} lexset;

static void lexset_add(lexset *set, const char *name, const char *pattern, bool literal, int32_t priority)
{
    cr_assert_lt(set->count, 256u);
    set->names[set->count] = strdup(name);
    char *copy = strdup(pattern);
    set->specs[set->count++] = (ep_lexeme_spec){copy, (uint32_t)strlen(copy), literal, priority, false};
}

static void lexset_free(lexset *set)
{
    for (uint32_t i = 0; i < set->count; i++) {
        free(set->names[i]);
        free((char *)set->specs[i].pattern);
    }
}

/* Every spelling of a string prefix in upper and lower case ("rb": rb rB Rb
 * RB), each with each quote, as its own lexeme. */
static void add_strings(lexset *set, const char *prefix, bool raw, bool bytes)
{
    static const char *const quotes[] = {"'", "\"", "'''", "\"\"\""};
    size_t n = strlen(prefix);
    for (unsigned cases = 0; cases < (1u << n); cases++) {
        char spelled[4];
        for (size_t i = 0; i < n; i++)
            spelled[i] = (char)((cases >> i) & 1 ? prefix[i] - 'a' + 'A' : prefix[i]);
        spelled[n] = '\0';
        for (int q = 0; q < 4; q++) {
            char quote = quotes[q][0];
            const char *escape = raw ? "\\\\[\\x00-\\xff]" : "\\\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|N\\{[A-Z ]+\\}|[^xuN])";
            char plain[32], pattern[512], name[32];
            snprintf(plain, sizeof plain, "[^%c\\\\%s%s]", quote, q < 2 ? "\\n" : "", bytes ? "\\x80-\\xff" : "");
            if (q < 2)
                snprintf(pattern, sizeof pattern, "%s%c(%s|%s)*%c", spelled, quote, plain, escape, quote);
            else
                snprintf(pattern, sizeof pattern, "%s%s((%c%c?)?(%s|%s))*%s", spelled, quotes[q], quote, quote, plain,
                         escape, quotes[q]);
            snprintf(name, sizeof name, "%s%s", spelled, quotes[q]);
            lexset_add(set, name, pattern, false, 0);
        }
    }
}

static void python_lexemes(lexset *set)
{
    static const char *const keywords[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
        "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    };
    static const char *const operators[] = {
        "+", "-", "*", "**", "/", "//", "%", "@", "<<", ">>", "&", "|", "^", "~", ":=", "<", ">", "<=", ">=",
        "==", "!=", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", "->", "+=", "-=", "*=", "/=",
        "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=", "**=", "...", "!",
    };
    lexset_add(set, "NAME", "[A-Za-z_\\x80-\\xff][A-Za-z0-9_\\x80-\\xff]*", false, 0);
    for (uint32_t i = 0; i < COUNT(keywords); i++)
        lexset_add(set, keywords[i], keywords[i], true, 1);
    for (uint32_t i = 0; i < COUNT(operators); i++)
        lexset_add(set, operators[i], operators[i], true, 0);
    lexset_add(set, "DECIMAL", "[1-9](_?[0-9])*|0(_?0)*", false, 0);
    lexset_add(set, "HEX", "0[xX](_?[0-9a-fA-F])+", false, 0);
    lexset_add(set, "OCTAL", "0[oO](_?[0-7])+", false, 0);
    lexset_add(set, "BINARY", "0[bB](_?[01])+", false, 0);
    lexset_add(set, "FLOAT",
               "(([0-9](_?[0-9])*)?\\.[0-9](_?[0-9])*|[0-9](_?[0-9])*\\.)([eE][+-]?[0-9](_?[0-9])*)?"
               "|[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*",
               false, 0);
    lexset_add(set, "IMAGINARY", "([0-9](_?[0-9])*(\\.([0-9](_?[0-9])*)?)?|\\.[0-9](_?[0-9])*)([eE][+-]?[0-9]+)?[jJ]",
               false, 0);
    lexset_add(set, "BASE_PREFIX", "0[xXoObB]_?", false, -1);
    lexset_add(set, "WS", "[ \\t\\f]+", false, 0);
    lexset_add(set, "COMMENT", "#[^\\r\\n]*", false, 0);
    lexset_add(set, "NEWLINE", "\\r\\n|\\r|\\n", false, 0);
    lexset_add(set, "JOIN", "\\\\(\\r\\n|\\r|\\n)", false, 0);
    static const struct { const char *prefix; bool raw, bytes; } prefixes[] = {
        {"", false, false}, {"u", false, false}, {"f", false, false}, {"r", true, false}, {"b", false, true},
        {"rb", true, true}, {"br", true, true}, {"fr", true, false}, {"rf", true, false},
    };
    for (uint32_t i = 0; i < COUNT(prefixes); i++)
        add_strings(set, prefixes[i].prefix, prefixes[i].raw, prefixes[i].bytes);
}

/* The name of the lexeme that maximal munch finds first in `text`. */
static const char *first_token(const ep_dfa *dfa, const lexset *set, const char *text, size_t *len)
{
    int32_t winner;
    *len = longest_match(dfa, text, strlen(text), &winner);
    return winner >= 0 ? set->names[winner] : "(none)";
}

Test(parser, dfa_python_sized_lexeme_set)
{
    static lexset set;
    python_lexemes(&set);
    cr_assert_gt(set.count, 150u);
    ep_dfa dfa;
    build(&dfa, set.specs, set.count);
    cr_assert_lt(dfa.state_count, 4000u, "%u states", dfa.state_count);
    static const struct { const char *text; const char *want; size_t len; } cases[] = {
        {"if x", "if", 2},
        {"iffy", "NAME", 4},
        {"\xc3\xa9t\xc3\xa9 = 1", "NAME", 5},
        {"0o17)", "OCTAL", 4},
        {"0o)", "BASE_PREFIX", 2},
        {"0x_1f", "HEX", 5},
        {"1_000.5e-3j+", "IMAGINARY", 11},
        {"1.5e+", "FLOAT", 3},
        {">>= 2", ">>=", 3},
        {"...", "...", 3},
        {"'a\\'b' + c", "'", 6},
        {"rB'''x''y\\'''' ", "rB'''", 14},
        {"Rb\"\\\"\"", "Rb\"", 6},
        {"b'\xc3\xa9'", "NAME", 1},
        {"f\"\"\"{x}\n\"\"\"", "f\"\"\"", 11},
        {"u'\\N{BULLET}'", "u'", 13},
        {"u'\\N{bullet}'", "NAME", 1},
        {"\"\\x4\"", "\"", 0},
        {"# note\n", "COMMENT", 6},
        {"\\\r\nx", "JOIN", 3},
    };
    for (uint32_t i = 0; i < COUNT(cases); i++) {
        size_t len;
        const char *got = first_token(&dfa, &set, cases[i].text, &len);
        if (cases[i].len == 0)
            cr_assert_eq(len, 0u, "%s: got %s of length %zu", cases[i].text, got, len);
        else
            cr_assert(strcmp(got, cases[i].want) == 0 && len == cases[i].len,
                      "%s: got %s of length %zu, wanted %s of length %zu", cases[i].text, got, len, cases[i].want,
                      cases[i].len);
    }
    ep_dfa_free(&dfa);
    lexset_free(&set);
}
