/*
 * lexdfa.c - lexeme automata: every lexeme's pattern becomes part of one
 * NFA (Thompson's construction), which subset construction turns into a DFA
 * over byte classes (see ep_lexdfa.h).
 */
#include "ep_lexdfa.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EP_NFA_MAX 1000000u
#define EP_DFA_MAX 65536u
#define EP_REPEAT_MAX 1000u

enum { EP_NFA_EPSILON = 0, EP_NFA_BYTES, EP_NFA_ACCEPT };

typedef struct ep_nfa_state {
    uint8_t kind;
    uint32_t out[2];      /* EP_DFA_NONE when unused */
    uint32_t bytes;       /* EP_NFA_BYTES: index of its byte set */
    int32_t lexeme;       /* EP_NFA_ACCEPT */
} ep_nfa_state;

#define EP_NFA_NONE UINT32_MAX

typedef struct ep_byteset {
    uint64_t bits[4];
} ep_byteset;

typedef struct ep_frag {
    uint32_t start, end;  /* end: an epsilon state whose out[0] is open */
} ep_frag;

typedef struct ep_regex {
    SM_ARRAY(ep_nfa_state) states;
    SM_ARRAY(ep_byteset) sets;
    const char *pattern;
    uint32_t len, at;
    uint32_t lexeme;
    char *error;
    size_t error_size;
    int rc;
} ep_regex;

static void ep__regex_fail(ep_regex *re, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ep__regex_fail(ep_regex *re, int rc, const char *fmt, ...)
{
    if (re->rc)
        return;
    re->rc = rc;
    if (!re->error || !re->error_size)
        return;
    int n = snprintf(re->error, re->error_size, "lexeme %u, byte %u: ", re->lexeme, re->at);
    if (n < 0 || (size_t)n >= re->error_size)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(re->error + n, re->error_size - (size_t)n, fmt, args);
    va_end(args);
}

static uint32_t ep__nfa_add(ep_regex *re, uint8_t kind)
{
    if (re->states.size >= EP_NFA_MAX) {
        ep__regex_fail(re, SM_ETOOBIG, "the lexemes need more than %u automaton states", EP_NFA_MAX);
        return 0;
    }
    ep_nfa_state state = {kind, {EP_NFA_NONE, EP_NFA_NONE}, 0, -1};
    sm_array_push(&re->states, state);
    return re->states.size - 1;
}

/* A fragment matching one byte of `set`. */
static ep_frag ep__frag_bytes(ep_regex *re, const ep_byteset *set)
{
    uint32_t start = ep__nfa_add(re, EP_NFA_BYTES);
    uint32_t end = ep__nfa_add(re, EP_NFA_EPSILON);
    sm_array_push(&re->sets, *set);
    re->states.items[start].bytes = re->sets.size - 1;
    re->states.items[start].out[0] = end;
    return (ep_frag){start, end};
}

static ep_frag ep__frag_empty(ep_regex *re)
{
    uint32_t state = ep__nfa_add(re, EP_NFA_EPSILON);
    return (ep_frag){state, state};
}

static ep_frag ep__frag_concat(ep_regex *re, ep_frag a, ep_frag b)
{
    re->states.items[a.end].out[0] = b.start;
    return (ep_frag){a.start, b.end};
}

static ep_frag ep__frag_alternate(ep_regex *re, ep_frag a, ep_frag b)
{
    uint32_t start = ep__nfa_add(re, EP_NFA_EPSILON);
    uint32_t end = ep__nfa_add(re, EP_NFA_EPSILON);
    re->states.items[start].out[0] = a.start;
    re->states.items[start].out[1] = b.start;
    re->states.items[a.end].out[0] = end;
    re->states.items[b.end].out[0] = end;
    return (ep_frag){start, end};
}

/* x* (or x+ when `at_least_once`). */
static ep_frag ep__frag_loop(ep_regex *re, ep_frag x, bool at_least_once)
{
    uint32_t hub = ep__nfa_add(re, EP_NFA_EPSILON);
    uint32_t end = ep__nfa_add(re, EP_NFA_EPSILON);
    re->states.items[hub].out[0] = x.start;
    re->states.items[hub].out[1] = end;
    re->states.items[x.end].out[0] = hub;
    return (ep_frag){at_least_once ? x.start : hub, end};
}

static ep_frag ep__frag_optional(ep_regex *re, ep_frag x)
{
    return ep__frag_alternate(re, x, ep__frag_empty(re));
}

static void ep__set_add(ep_byteset *set, uint8_t byte)
{
    set->bits[byte >> 6] |= (uint64_t)1 << (byte & 63);
}

static bool ep__set_has(const ep_byteset *set, uint8_t byte)
{
    return (set->bits[byte >> 6] >> (byte & 63)) & 1;
}

static void ep__set_range(ep_byteset *set, unsigned lo, unsigned hi)
{
    for (unsigned b = lo; b <= hi; b++)
        ep__set_add(set, (uint8_t)b);
}

static int ep__hex(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads an escape after '\'; adds what it stands for to `set`. */
static void ep__read_escape(ep_regex *re, ep_byteset *set)
{
    if (re->at >= re->len) {
        ep__regex_fail(re, SM_EINVAL, "a pattern cannot end with '\\'");
        return;
    }
    char c = re->pattern[re->at++];
    switch (c) {
    case 'n': ep__set_add(set, '\n'); return;
    case 'r': ep__set_add(set, '\r'); return;
    case 't': ep__set_add(set, '\t'); return;
    case 'f': ep__set_add(set, '\f'); return;
    case 'v': ep__set_add(set, '\v'); return;
    case '0': ep__set_add(set, 0); return;
    case 'd': ep__set_range(set, '0', '9'); return;
    case 'w':
        ep__set_range(set, '0', '9');
        ep__set_range(set, 'a', 'z');
        ep__set_range(set, 'A', 'Z');
        ep__set_add(set, '_');
        return;
    case 's':
        ep__set_add(set, ' ');
        ep__set_range(set, '\t', '\r');
        return;
    case 'x': {
        int hi = re->at < re->len ? ep__hex(re->pattern[re->at]) : -1;
        int lo = re->at + 1 < re->len ? ep__hex(re->pattern[re->at + 1]) : -1;
        if (hi < 0 || lo < 0) {
            ep__regex_fail(re, SM_EINVAL, "\\x needs two hex digits");
            return;
        }
        re->at += 2;
        ep__set_add(set, (uint8_t)(hi * 16 + lo));
        return;
    }
    default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '1' && c <= '9')) {
            ep__regex_fail(re, SM_EINVAL, "unknown escape \\%c", c);
            return;
        }
        ep__set_add(set, (uint8_t)c);
    }
}

/* Reads one member of a bracket class: a byte or an escape, as a set;
 * returns the single byte it stands for, or -1 for a multi-byte class. */
static int ep__read_class_atom(ep_regex *re, ep_byteset *set)
{
    memset(set, 0, sizeof *set);
    char c = re->pattern[re->at++];
    if (c != '\\') {
        ep__set_add(set, (uint8_t)c);
        return (uint8_t)c;
    }
    ep__read_escape(re, set);
    int single = -1, count = 0;
    for (unsigned b = 0; b < 256; b++)
        if (ep__set_has(set, (uint8_t)b)) {
            single = (int)b;
            count++;
        }
    return count == 1 ? single : -1;
}

/* Reads [...] after the '['. */
static ep_frag ep__read_class(ep_regex *re)
{
    ep_byteset set;
    memset(&set, 0, sizeof set);
    bool negate = re->at < re->len && re->pattern[re->at] == '^';
    if (negate)
        re->at++;
    bool first = true;
    while (re->at < re->len && (re->pattern[re->at] != ']' || first) && !re->rc) {
        first = false;
        ep_byteset member;
        int lo = ep__read_class_atom(re, &member);
        if (re->at + 1 < re->len && re->pattern[re->at] == '-' && re->pattern[re->at + 1] != ']') {
            re->at++;
            ep_byteset upper;
            int hi = ep__read_class_atom(re, &upper);
            if (lo < 0 || hi < 0 || hi < lo) {
                ep__regex_fail(re, SM_EINVAL, "bad range in a class");
                break;
            }
            ep__set_range(&set, (unsigned)lo, (unsigned)hi);
            continue;
        }
        for (int w = 0; w < 4; w++)
            set.bits[w] |= member.bits[w];
    }
    if (re->at >= re->len) {
        ep__regex_fail(re, SM_EINVAL, "unterminated [class]");
        return ep__frag_empty(re);
    }
    re->at++; /* ']' */
    if (negate)
        for (int w = 0; w < 4; w++)
            set.bits[w] = ~set.bits[w];
    bool empty = !(set.bits[0] | set.bits[1] | set.bits[2] | set.bits[3]);
    if (empty)
        ep__regex_fail(re, SM_EINVAL, "an empty class matches nothing");
    return ep__frag_bytes(re, &set);
}

static ep_frag ep__read_alternation(ep_regex *re, uint32_t depth);

/* Reads one atom. */
static ep_frag ep__read_atom(ep_regex *re, uint32_t depth)
{
    char c = re->pattern[re->at++];
    ep_byteset set;
    memset(&set, 0, sizeof set);
    switch (c) {
    case '(': {
        ep_frag inner = ep__read_alternation(re, depth + 1);
        if (re->at >= re->len || re->pattern[re->at] != ')') {
            ep__regex_fail(re, SM_EINVAL, "missing ')'");
            return inner;
        }
        re->at++;
        return inner;
    }
    case '[':
        return ep__read_class(re);
    case '.':
        ep__set_range(&set, 0, 255);
        set.bits[0] &= ~((uint64_t)1 << '\n');
        return ep__frag_bytes(re, &set);
    case '\\':
        ep__read_escape(re, &set);
        return ep__frag_bytes(re, &set);
    case '*': case '+': case '?': case '{':
        ep__regex_fail(re, SM_EINVAL, "'%c' has nothing to repeat", c);
        return ep__frag_empty(re);
    case ')':
        ep__regex_fail(re, SM_EINVAL, "unbalanced ')'");
        return ep__frag_empty(re);
    default:
        ep__set_add(&set, (uint8_t)c);
        return ep__frag_bytes(re, &set);
    }
}

/* Reads "{m}", "{m,}" or "{m,n}" after the '{'. */
static bool ep__read_count(ep_regex *re, uint32_t *min, uint32_t *max)
{
    uint32_t values[2] = {0, 0};
    int which = 0;
    bool digits[2] = {false, false};
    bool comma = false;
    while (re->at < re->len && re->pattern[re->at] != '}') {
        char c = re->pattern[re->at++];
        if (c >= '0' && c <= '9' && values[which] <= EP_REPEAT_MAX) {
            values[which] = values[which] * 10 + (uint32_t)(c - '0');
            digits[which] = true;
        } else if (c == ',' && !comma) {
            comma = true;
            which = 1;
        } else {
            ep__regex_fail(re, SM_EINVAL, "bad {m,n}");
            return false;
        }
    }
    if (re->at >= re->len || !digits[0] || (comma && digits[1] && values[1] < values[0])) {
        ep__regex_fail(re, SM_EINVAL, "bad {m,n}");
        return false;
    }
    re->at++;
    *min = values[0];
    *max = comma ? (digits[1] ? values[1] : UINT32_MAX) : values[0];
    if (*min > EP_REPEAT_MAX || (*max != UINT32_MAX && *max > EP_REPEAT_MAX)) {
        ep__regex_fail(re, SM_ETOOBIG, "repetition counts are limited to %u", EP_REPEAT_MAX);
        return false;
    }
    return true;
}

/* Builds min..max copies of the atom that starts at `start` in the pattern. */
static ep_frag ep__repeat(ep_regex *re, uint32_t start, uint32_t depth, uint32_t min, uint32_t max)
{
    uint32_t resume = re->at;
    ep_frag result = ep__frag_empty(re);
    uint32_t copies = max == UINT32_MAX ? min + 1 : max;
    for (uint32_t i = 0; i < copies && !re->rc; i++) {
        re->at = start;
        ep_frag copy = ep__read_atom(re, depth);
        if (max == UINT32_MAX && i == min)
            copy = ep__frag_loop(re, copy, false);
        else if (i >= min)
            copy = ep__frag_optional(re, copy);
        result = ep__frag_concat(re, result, copy);
    }
    re->at = resume;
    return result;
}

/* Reads an atom and its quantifiers. */
static ep_frag ep__read_repeat(ep_regex *re, uint32_t depth)
{
    uint32_t start = re->at;
    ep_frag atom = ep__read_atom(re, depth);
    while (re->at < re->len && !re->rc) {
        char c = re->pattern[re->at];
        if (c == '*' || c == '+') {
            re->at++;
            atom = ep__frag_loop(re, atom, c == '+');
        } else if (c == '?') {
            re->at++;
            atom = ep__frag_optional(re, atom);
        } else if (c == '{') {
            re->at++;
            uint32_t min, max;
            if (!ep__read_count(re, &min, &max))
                break;
            /* counted repetition re-reads the atom's text once per copy */
            atom = ep__repeat(re, start, depth, min, max);
        } else {
            break;
        }
    }
    return atom;
}

static ep_frag ep__read_alternation(ep_regex *re, uint32_t depth)
{
    if (depth > 100) {
        ep__regex_fail(re, SM_EINVAL, "groups nested too deeply");
        return ep__frag_empty(re);
    }
    ep_frag result = ep__frag_empty(re);
    bool have_branch = false;
    ep_frag branches = {0, 0};
    while (!re->rc) {
        if (re->at >= re->len || re->pattern[re->at] == ')' || re->pattern[re->at] == '|') {
            branches = have_branch ? ep__frag_alternate(re, branches, result) : result;
            have_branch = true;
            if (re->at < re->len && re->pattern[re->at] == '|') {
                re->at++;
                result = ep__frag_empty(re);
                continue;
            }
            if (re->at < re->len && re->pattern[re->at] == ')' && depth == 0)
                ep__regex_fail(re, SM_EINVAL, "unbalanced ')'");
            return branches;
        }
        result = ep__frag_concat(re, result, ep__read_repeat(re, depth));
    }
    return result;
}

/* ---- Subset construction ------------------------------------------------ */

typedef struct ep_subsets {
    SM_ARRAY(uint32_t) members;     /* all subsets, concatenated */
    SM_ARRAY(uint32_t) offsets;     /* [dfa state] -> start in members; one extra at the end */
    uint32_t *table;                /* hash: dfa state + 1, or 0 */
    uint32_t table_size;
} ep_subsets;

static uint64_t ep__subset_hash(const uint32_t *items, uint32_t count)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < count; i++) {
        h ^= items[i];
        h *= 1099511628211ull;
    }
    return h;
}

static bool ep__subset_equal(const ep_subsets *s, uint32_t state, const uint32_t *items, uint32_t count)
{
    uint32_t start = s->offsets.items[state], end = s->offsets.items[state + 1];
    return end - start == count &&
           (count == 0 || memcmp(s->members.items + start, items, count * sizeof(uint32_t)) == 0);
}

static void ep__subset_rehash(ep_subsets *s)
{
    uint32_t states = s->offsets.size - 1;
    sm_free(s->table);
    s->table_size = s->table_size ? s->table_size * 2 : 1024;
    s->table = sm_calloc(s->table_size, sizeof(uint32_t));
    for (uint32_t d = 0; d < states; d++) {
        uint32_t start = s->offsets.items[d];
        uint64_t h = ep__subset_hash(s->members.items + start, s->offsets.items[d + 1] - start);
        uint32_t i = (uint32_t)h & (s->table_size - 1);
        while (s->table[i])
            i = (i + 1) & (s->table_size - 1);
        s->table[i] = d + 1;
    }
}

/* The DFA state of a sorted NFA subset, created if new (*created). */
static uint32_t ep__subset_state(ep_subsets *s, const uint32_t *items, uint32_t count, bool *created)
{
    uint32_t states = s->offsets.size - 1;
    if ((states + 1) * 2 > s->table_size)
        ep__subset_rehash(s);
    uint64_t h = ep__subset_hash(items, count);
    uint32_t i = (uint32_t)h & (s->table_size - 1);
    while (s->table[i]) {
        if (ep__subset_equal(s, s->table[i] - 1, items, count)) {
            *created = false;
            return s->table[i] - 1;
        }
        i = (i + 1) & (s->table_size - 1);
    }
    s->table[i] = states + 1;
    for (uint32_t k = 0; k < count; k++)
        sm_array_push(&s->members, items[k]);
    sm_array_push(&s->offsets, s->members.size);
    *created = true;
    return states;
}

static int ep__compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef SM_ARRAY(uint32_t) ep_u32s;

/* Replaces `set` with its epsilon closure, sorted.  `mark` is scratch with
 * one stamp per NFA state. */
static void ep__closure(const ep_regex *re, ep_u32s *set, uint32_t *mark, uint32_t stamp)
{
    ep_u32s stack;
    sm_array_init(&stack);
    uint32_t n = set->size;
    set->size = 0;
    for (uint32_t i = 0; i < n; i++)
        sm_array_push(&stack, set->items[i]);
    while (stack.size) {
        uint32_t s = sm_array_pop(&stack);
        if (mark[s] == stamp)
            continue;
        mark[s] = stamp;
        const ep_nfa_state *state = &re->states.items[s];
        if (state->kind == EP_NFA_EPSILON) {
            for (int k = 0; k < 2; k++)
                if (state->out[k] != EP_NFA_NONE)
                    sm_array_push(&stack, state->out[k]);
        } else {
            sm_array_push(set, s);
        }
    }
    sm_array_free(&stack);
    if (set->size > 1)
        qsort(set->items, set->size, sizeof(uint32_t), ep__compare_u32);
}

/* Splits the 256 bytes into classes that every byte set treats alike. */
static void ep__byte_classes(const ep_regex *re, ep_dfa *dfa)
{
    memset(dfa->byte_class, 0, sizeof dfa->byte_class);
    uint32_t classes = 1;
    for (uint32_t i = 0; i < re->sets.size; i++) {
        const ep_byteset *set = &re->sets.items[i];
        uint32_t remap[256][2];
        memset(remap, 0xff, sizeof remap);
        uint32_t next = 0;
        for (unsigned b = 0; b < 256; b++) {
            uint32_t old = dfa->byte_class[b];
            int in = ep__set_has(set, (uint8_t)b);
            if (remap[old][in] == UINT32_MAX)
                remap[old][in] = next++;
            dfa->byte_class[b] = (uint8_t)remap[old][in];
        }
        classes = next;
    }
    dfa->class_count = classes;
}

/* For every state, the lexemes that win somewhere reachable from it. */
static void ep__reachable_winners(ep_dfa *dfa)
{
    uint32_t words = dfa->set_words;
    dfa->reachable_winners = sm_calloc((size_t)dfa->state_count * words, sizeof(uint64_t));
    for (uint32_t s = 0; s < dfa->state_count; s++)
        if (dfa->winner[s] >= 0)
            dfa->reachable_winners[(size_t)s * words + (uint32_t)dfa->winner[s] / 64] |=
                (uint64_t)1 << ((uint32_t)dfa->winner[s] % 64);
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t s = dfa->state_count; s-- > 1;) {
            uint64_t *mine = dfa->reachable_winners + (size_t)s * words;
            for (uint32_t c = 0; c < dfa->class_count; c++) {
                uint32_t t = dfa->next[(size_t)s * dfa->class_count + c];
                if (t == EP_DFA_DEAD || t == s)
                    continue;
                const uint64_t *theirs = dfa->reachable_winners + (size_t)t * words;
                for (uint32_t w = 0; w < words; w++) {
                    uint64_t merged = mine[w] | theirs[w];
                    if (merged != mine[w]) {
                        mine[w] = merged;
                        changed = true;
                    }
                }
            }
        }
    }
}

/* Adds lexeme `index` to the NFA: start -> pattern -> accept(index). */
static uint32_t ep__add_lexeme(ep_regex *re, const ep_lexeme_spec *spec, uint32_t index)
{
    re->pattern = spec->pattern;
    re->len = spec->pattern_len;
    re->at = 0;
    re->lexeme = index;
    ep_frag frag;
    if (spec->literal) {
        frag = ep__frag_empty(re);
        for (uint32_t i = 0; i < spec->pattern_len && !re->rc; i++) {
            ep_byteset set;
            memset(&set, 0, sizeof set);
            ep__set_add(&set, (uint8_t)spec->pattern[i]);
            frag = ep__frag_concat(re, frag, ep__frag_bytes(re, &set));
        }
    } else {
        frag = ep__read_alternation(re, 0);
    }
    uint32_t accept = ep__nfa_add(re, EP_NFA_ACCEPT);
    re->states.items[accept].lexeme = (int32_t)index;
    re->states.items[frag.end].out[0] = accept;
    return frag.start;
}

/* The winner among the accept states of a subset. */
static int32_t ep__winner(const ep_regex *re, const ep_lexeme_spec *specs, const uint32_t *items, uint32_t count)
{
    int32_t best = -1;
    for (uint32_t i = 0; i < count; i++) {
        const ep_nfa_state *state = &re->states.items[items[i]];
        if (state->kind != EP_NFA_ACCEPT)
            continue;
        int32_t lex = state->lexeme;
        if (best < 0 || specs[lex].priority > specs[best].priority ||
            (specs[lex].priority == specs[best].priority && lex < best))
            best = lex;
    }
    return best;
}

/* Runs the subset construction from the combined start state. */
static int ep__determinize(ep_regex *re, const ep_lexeme_spec *specs, uint32_t start, ep_dfa *dfa)
{
    ep_subsets subsets;
    memset(&subsets, 0, sizeof subsets);
    sm_array_push(&subsets.offsets, 0);
    uint32_t *mark = sm_calloc(re->states.size, sizeof(uint32_t));
    uint32_t stamp = 0;
    ep_u32s set, next_set;
    sm_array_init(&set);
    sm_array_init(&next_set);
    bool created;
    ep__subset_state(&subsets, NULL, 0, &created);          /* 0: dead */
    sm_array_push(&set, start);
    ep__closure(re, &set, mark, ++stamp);
    ep__subset_state(&subsets, set.items, set.size, &created); /* 1: start */
    SM_ARRAY(uint32_t) next;
    sm_array_init(&next);
    sm_array_grow_by(&next, dfa->class_count * 2);
    memset(next.items, 0, next.size * sizeof(uint32_t));
    uint8_t representative[256];
    for (int b = 255; b >= 0; b--)
        representative[dfa->byte_class[b]] = (uint8_t)b;
    int rc = SM_OK;
    for (uint32_t d = 1; d < subsets.offsets.size - 1 && !rc; d++) {
        for (uint32_t c = 0; c < dfa->class_count; c++) {
            next_set.size = 0;
            for (uint32_t k = subsets.offsets.items[d]; k < subsets.offsets.items[d + 1]; k++) {
                const ep_nfa_state *state = &re->states.items[subsets.members.items[k]];
                if (state->kind == EP_NFA_BYTES && ep__set_has(&re->sets.items[state->bytes], representative[c]))
                    sm_array_push(&next_set, state->out[0]);
            }
            uint32_t target = EP_DFA_DEAD;
            if (next_set.size) {
                ep__closure(re, &next_set, mark, ++stamp);
                target = ep__subset_state(&subsets, next_set.items, next_set.size, &created);
                if (created) {
                    if (subsets.offsets.size - 1 > EP_DFA_MAX) {
                        rc = SM_ETOOBIG;
                        break;
                    }
                    sm_array_grow_by(&next, dfa->class_count);
                    memset(next.items + next.size - dfa->class_count, 0, dfa->class_count * sizeof(uint32_t));
                }
            }
            next.items[(size_t)d * dfa->class_count + c] = target;
        }
    }
    dfa->state_count = subsets.offsets.size - 1;
    dfa->next = next.items;
    dfa->winner = sm_malloc(dfa->state_count * sizeof(int32_t));
    for (uint32_t d = 0; d < dfa->state_count; d++) {
        uint32_t from = subsets.offsets.items[d];
        dfa->winner[d] = ep__winner(re, specs, subsets.members.items + from, subsets.offsets.items[d + 1] - from);
    }
    sm_free(mark);
    sm_array_free(&set);
    sm_array_free(&next_set);
    sm_array_free(&subsets.members);
    sm_array_free(&subsets.offsets);
    sm_free(subsets.table);
    return rc;
}

int ep_dfa_build(const ep_lexeme_spec *specs, uint32_t count, ep_dfa *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    ep_regex re;
    memset(&re, 0, sizeof re);
    re.error = error;
    re.error_size = error_size;
    uint32_t start = ep__nfa_add(&re, EP_NFA_EPSILON);
    uint32_t previous = start;
    for (uint32_t i = 0; i < count && !re.rc; i++) {
        uint32_t lexeme_start = ep__add_lexeme(&re, &specs[i], i);
        /* chain the lexemes' starts through epsilon states */
        uint32_t fork = ep__nfa_add(&re, EP_NFA_EPSILON);
        re.states.items[previous].out[0] = fork;
        re.states.items[fork].out[1] = lexeme_start;
        previous = fork;
    }
    if (!re.rc) {
        /* a pattern that matches the empty string is an error */
        ep_u32s set;
        sm_array_init(&set);
        sm_array_push(&set, start);
        uint32_t *mark = sm_calloc(re.states.size, sizeof(uint32_t));
        ep__closure(&re, &set, mark, 1);
        for (uint32_t i = 0; i < set.size; i++)
            if (re.states.items[set.items[i]].kind == EP_NFA_ACCEPT) {
                re.lexeme = (uint32_t)re.states.items[set.items[i]].lexeme;
                re.at = 0;
                ep__regex_fail(&re, SM_EINVAL, "the pattern matches the empty string");
            }
        sm_free(mark);
        sm_array_free(&set);
    }
    int rc = re.rc;
    if (!rc) {
        out->lexeme_count = count;
        out->set_words = count ? (count + 63) / 64 : 1;
        ep__byte_classes(&re, out);
        rc = ep__determinize(&re, specs, start, out);
        if (rc == SM_ETOOBIG && error && error_size)
            snprintf(error, error_size, "the lexemes need more than %u automaton states", EP_DFA_MAX);
        if (!rc)
            ep__reachable_winners(out);
    }
    sm_array_free(&re.states);
    sm_array_free(&re.sets);
    if (rc)
        ep_dfa_free(out);
    return rc;
}

void ep_dfa_free(ep_dfa *dfa)
{
    sm_free(dfa->next);
    sm_free(dfa->winner);
    sm_free(dfa->reachable_winners);
    memset(dfa, 0, sizeof *dfa);
}
