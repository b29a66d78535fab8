/*
 * lexdfa.c - lexeme automata (see ep_lexdfa.h).
 *
 * Each pattern is first parsed into a small syntax tree.  The tree knows,
 * before anything is built, whether the pattern matches the empty string and
 * how many NFA states it will need, so both errors are found without building
 * a runaway automaton.  The trees then become one NFA by Thompson's
 * construction, emitted back to front: a fragment is always built after its
 * continuation, so it can point at it directly and needs no patch lists.
 * Subset construction over byte classes gives the DFA, which Moore's
 * partition refinement minimises; the last step collects, for every state,
 * the lexemes still reachable from it.
 */
#include "ep_lexdfa.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EP_NFA_MAX 1000000u        /* NFA states of all lexemes together */
#define EP_DFA_MAX 65536u          /* DFA states before minimisation */
#define EP_REPEAT_MAX 1000u        /* the largest m or n in {m,n} */
#define EP_NEST_MAX 100u           /* nested groups plus stacked quantifiers */
#define EP_UNBOUNDED UINT32_MAX    /* the n of {m,} */
#define EP_NFA_NONE UINT32_MAX
#define EP_NO_OFFSET UINT32_MAX    /* an error that no pattern byte caused */
/* Moore's refinement gives up (and keeps the DFA as built) past this many
 * transition visits; ordinary lexeme sets need a few million at most. */
#define EP_MINIMISE_BUDGET 64000000ull

typedef SM_ARRAY(uint32_t) ep_u32s;
typedef SM_ARRAY(int32_t) ep_i32s;

/* ---- Byte sets ----------------------------------------------------------- */

typedef struct ep_byteset {
    uint64_t bits[4];
} ep_byteset;

static void ep__set_add(ep_byteset *set, unsigned byte)
{
    set->bits[(byte >> 6) & 3] |= (uint64_t)1 << (byte & 63);
}

static void ep__set_add_range(ep_byteset *set, unsigned low, unsigned high)
{
    for (unsigned byte = low; byte <= high; byte++)
        ep__set_add(set, byte);
}

static bool ep__set_has(const ep_byteset *set, unsigned byte)
{
    return (set->bits[(byte >> 6) & 3] >> (byte & 63)) & 1;
}

static void ep__set_union(ep_byteset *set, const ep_byteset *other)
{
    for (int w = 0; w < 4; w++)
        set->bits[w] |= other->bits[w];
}

static unsigned ep__set_count(const ep_byteset *set)
{
    unsigned count = 0;
    for (int w = 0; w < 4; w++)
        count += (unsigned)__builtin_popcountll(set->bits[w]);
    return count;
}

/* Returns the lowest member of a non-empty set. */
static unsigned ep__set_first(const ep_byteset *set)
{
    for (unsigned w = 0; w < 4; w++)
        if (set->bits[w])
            return w * 64 + (unsigned)__builtin_ctzll(set->bits[w]);
    return 0;
}

/* ---- The compiler's state ------------------------------------------------ */

enum { EP_NODE_BYTES, EP_NODE_SEQ, EP_NODE_ALT, EP_NODE_REPEAT };

/* A node of one pattern's syntax tree. */
typedef struct ep_node {
    uint8_t kind;
    bool nullable;             /* matches the empty string */
    uint32_t size;             /* NFA states it emits, capped at EP_NFA_MAX + 1 */
    uint32_t arg;              /* BYTES: byte set; REPEAT: the repeated node */
    uint32_t first, count;     /* SEQ, ALT: children at kids[first..first+count) */
    uint32_t min, max;         /* REPEAT; max may be EP_UNBOUNDED */
} ep_node;

enum { EP_NFA_EPSILON, EP_NFA_BYTES, EP_NFA_ACCEPT };

/* An NFA state.  EPSILON goes to out[0] and, when set, out[1]; BYTES goes to
 * out[0] on a byte of set `arg`; ACCEPT ends lexeme `arg`. */
typedef struct ep_nfa_state {
    uint8_t kind;
    uint32_t arg;
    uint32_t out[2];
} ep_nfa_state;

typedef struct ep_compiler {
    /* the pattern being parsed */
    const char *pattern;
    uint32_t len, at;
    uint32_t lexeme;
    uint32_t depth;            /* open groups */
    /* its syntax tree; reset for every lexeme */
    SM_ARRAY(ep_node) nodes;
    ep_u32s kids;              /* children of SEQ and ALT nodes */
    ep_u32s pending;           /* children of the lists being parsed */
    /* the combined NFA */
    SM_ARRAY(ep_nfa_state) nfa;
    SM_ARRAY(ep_byteset) sets;
    uint32_t singleton[256];   /* index of the set {byte}, or EP_NFA_NONE */
    /* the first error */
    int rc;
    char *error;
    size_t error_size;
} ep_compiler;

/* Records the first error only, as "lexeme L, byte B: ..." unless `offset`
 * is EP_NO_OFFSET; later failures (consequences of the first) are ignored. */
static void ep__fail(ep_compiler *c, int rc, uint32_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void ep__fail(ep_compiler *c, int rc, uint32_t offset, const char *fmt, ...)
{
    if (c->rc)
        return;
    c->rc = rc;
    if (!c->error || !c->error_size)
        return;
    int n = 0;
    if (offset != EP_NO_OFFSET)
        n = snprintf(c->error, c->error_size, "lexeme %u, byte %u: ", c->lexeme, offset);
    if (n < 0 || (size_t)n >= c->error_size)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(c->error + n, c->error_size - (size_t)n, fmt, args);
    va_end(args);
}

/* Returns the index of a byte set equal to `set`, adding it if needed;
 * single bytes share one set each so that literals add no new sets. */
static uint32_t ep__set_index(ep_compiler *c, const ep_byteset *set)
{
    bool single = ep__set_count(set) == 1;
    unsigned byte = ep__set_first(set);
    if (single && c->singleton[byte] != EP_NFA_NONE)
        return c->singleton[byte];
    sm_array_push(&c->sets, *set);
    if (single)
        c->singleton[byte] = c->sets.size - 1;
    return c->sets.size - 1;
}

/* ---- Syntax trees --------------------------------------------------------- */

static uint32_t ep__cap(uint64_t size)
{
    return size > EP_NFA_MAX ? EP_NFA_MAX + 1 : (uint32_t)size;
}

static uint32_t ep__node_add(ep_compiler *c, ep_node node)
{
    sm_array_push(&c->nodes, node);
    return c->nodes.size - 1;
}

static uint32_t ep__node_bytes(ep_compiler *c, const ep_byteset *set)
{
    ep_node node = {.kind = EP_NODE_BYTES, .size = 1, .arg = ep__set_index(c, set)};
    return ep__node_add(c, node);
}

/* Turns pending[base..] into a SEQ or ALT node (or returns the only child
 * itself) and pops them.  ALT needs one fork state per extra branch. */
static uint32_t ep__node_list(ep_compiler *c, uint8_t kind, uint32_t base)
{
    uint32_t count = c->pending.size - base;
    if (count == 1)
        return sm_array_pop(&c->pending);
    ep_node node = {.kind = kind, .nullable = kind == EP_NODE_SEQ, .first = c->kids.size, .count = count};
    uint64_t size = kind == EP_NODE_ALT ? count - 1 : 0;
    for (uint32_t i = base; i < c->pending.size; i++) {
        const ep_node *child = &c->nodes.items[c->pending.items[i]];
        node.nullable = kind == EP_NODE_SEQ ? node.nullable && child->nullable : node.nullable || child->nullable;
        size += child->size;
        sm_array_push(&c->kids, c->pending.items[i]);
    }
    node.size = ep__cap(size);
    c->pending.size = base;
    return ep__node_add(c, node);
}

/* The NFA states that repeating a fragment of `size` states min..max times
 * takes, as ep__emit_repeat builds it: one fork per optional copy, and the
 * last mandatory copy doubles as the loop of an unbounded repeat. */
static uint64_t ep__repeat_size(uint64_t size, uint32_t min, uint32_t max)
{
    if (max == EP_UNBOUNDED)
        return (min ? (uint64_t)(min - 1) * size : 0) + size + 1;
    return (uint64_t)min * size + (uint64_t)(max - min) * (size + 1);
}

/* Adds child{min,max}; a repetition that would need more NFA states than
 * the whole automaton may have is reported at `where`, its quantifier. */
static uint32_t ep__node_repeat(ep_compiler *c, uint32_t child, uint32_t min, uint32_t max, uint32_t where)
{
    const ep_node *inner = &c->nodes.items[child];
    ep_node node = {.kind = EP_NODE_REPEAT, .arg = child, .min = min, .max = max};
    node.nullable = min == 0 || inner->nullable;
    node.size = ep__cap(ep__repeat_size(inner->size, min, max));
    if (node.size > EP_NFA_MAX)
        ep__fail(c, SM_ETOOBIG, where, "the repetition needs more than %u automaton states", EP_NFA_MAX);
    return ep__node_add(c, node);
}

/* ---- Parsing ------------------------------------------------------------- */

static bool ep__is_punctuation(unsigned char ch)
{
    return (ch >= 0x21 && ch <= 0x2f) || (ch >= 0x3a && ch <= 0x40) || (ch >= 0x5b && ch <= 0x60) ||
           (ch >= 0x7b && ch <= 0x7e);
}

/* Adds the shorthand class \d, \w or \s to `set`; returns false for any other
 * letter. */
static bool ep__shorthand_class(char letter, ep_byteset *set)
{
    switch (letter) {
    case 'd':
        ep__set_add_range(set, '0', '9');
        return true;
    case 'w':
        ep__set_add_range(set, '0', '9');
        ep__set_add_range(set, 'A', 'Z');
        ep__set_add_range(set, 'a', 'z');
        ep__set_add(set, '_');
        return true;
    case 's':
        ep__set_add(set, ' ');
        ep__set_add_range(set, '\t', '\r');   /* \t \n \v \f \r */
        return true;
    default:
        return false;
    }
}

/* Reads the escape whose backslash is at c->at - 1 and adds what it stands
 * for to `set`.  Returns the byte when it stands for one byte, -1 for a
 * shorthand class, and -2 after reporting a malformed escape. */
static int ep__parse_escape(ep_compiler *c, ep_byteset *set)
{
    uint32_t where = c->at - 1;
    if (c->at >= c->len) {
        ep__fail(c, SM_EINVAL, where, "the pattern ends with a lone '\\'");
        return -2;
    }
    unsigned char ch = (unsigned char)c->pattern[c->at++];
    static const char plain[] = "nrtfv0";
    static const char bytes[] = "\n\r\t\f\v";
    const char *control = ch ? strchr(plain, ch) : NULL;
    int byte = -2;
    if (control)
        byte = ch == '0' ? 0 : (unsigned char)bytes[control - plain];
    else if (ep__shorthand_class((char)ch, set))
        return -1;
    else if (ch == 'x') {
        int high = c->at < c->len ? sm_hex_digit(c->pattern[c->at]) : -1;
        int low = high >= 0 && c->at + 1 < c->len ? sm_hex_digit(c->pattern[c->at + 1]) : -1;
        if (low < 0) {
            ep__fail(c, SM_EINVAL, where, "\\x needs two hex digits");
            return -2;
        }
        c->at += 2;
        byte = high * 16 + low;
    } else if (ep__is_punctuation(ch))
        byte = ch;
    if (byte < 0) {
        if (ch > 0x20 && ch < 0x7f)
            ep__fail(c, SM_EINVAL, where, "unknown escape \\%c", ch);
        else
            ep__fail(c, SM_EINVAL, where, "unknown escape of byte 0x%02x", ch);
        return -2;
    }
    ep__set_add(set, (unsigned)byte);
    return byte;
}

/* Reads one byte or escape inside brackets into `set`; returns as
 * ep__parse_escape does. */
static int ep__parse_class_atom(ep_compiler *c, ep_byteset *set)
{
    unsigned char ch = (unsigned char)c->pattern[c->at++];
    if (ch == '\\')
        return ep__parse_escape(c, set);
    ep__set_add(set, ch);
    return ch;
}

/* Reads one member of a bracket class (a byte, an escape, or a range
 * between two single bytes) and adds it to `set`.  A '-' just before the
 * closing ']' is a plain byte. */
static void ep__parse_class_member(ep_compiler *c, ep_byteset *set)
{
    uint32_t where = c->at;
    ep_byteset member = {{0}};
    int low = ep__parse_class_atom(c, &member);
    if (c->rc)
        return;
    if (c->at + 1 < c->len && c->pattern[c->at] == '-' && c->pattern[c->at + 1] != ']') {
        c->at++;
        ep_byteset upper = {{0}};
        int high = ep__parse_class_atom(c, &upper);
        if (c->rc)
            return;
        if (low < 0 || high < 0)
            ep__fail(c, SM_EINVAL, where, "a range in a class needs a single byte at each end");
        else if (high < low)
            ep__fail(c, SM_EINVAL, where, "reversed range in a class");
        else
            ep__set_add_range(set, (unsigned)low, (unsigned)high);
        return;
    }
    ep__set_union(set, &member);
}

/* Reads a bracket class whose '[' is at `open`; c->at is just past it. */
static uint32_t ep__parse_class(ep_compiler *c, uint32_t open)
{
    ep_byteset set = {{0}};
    bool negate = c->at < c->len && c->pattern[c->at] == '^';
    if (negate)
        c->at++;
    if (c->at < c->len && c->pattern[c->at] == ']')
        ep__fail(c, SM_EINVAL, open, "empty class (write \\] for a ']' byte)");
    while (!c->rc) {
        if (c->at >= c->len) {
            ep__fail(c, SM_EINVAL, open, "unterminated '['");
            break;
        }
        if (c->pattern[c->at] == ']') {
            c->at++;
            break;
        }
        ep__parse_class_member(c, &set);
    }
    if (negate)
        for (int w = 0; w < 4; w++)
            set.bits[w] = ~set.bits[w];
    if (ep__set_count(&set) == 0)
        ep__fail(c, SM_EINVAL, open, "the class matches no byte");
    return ep__node_bytes(c, &set);
}

/* Reads a decimal count of at most EP_REPEAT_MAX (more is reported by the
 * caller as too big); returns false when there is no digit. */
static bool ep__parse_number(ep_compiler *c, uint32_t *value)
{
    uint32_t start = c->at;
    *value = 0;
    while (c->at < c->len && c->pattern[c->at] >= '0' && c->pattern[c->at] <= '9') {
        if (*value <= EP_REPEAT_MAX)
            *value = *value * 10 + (uint32_t)(c->pattern[c->at] - '0');
        c->at++;
    }
    return c->at > start;
}

/* Reads "{m}", "{m,}" or "{m,n}" whose '{' is at c->at. */
static void ep__parse_count(ep_compiler *c, uint32_t *min, uint32_t *max)
{
    uint32_t open = c->at++;
    *min = *max = 0;
    if (!ep__parse_number(c, min)) {
        ep__fail(c, SM_EINVAL, open, "'{' must start a count {m}, {m,} or {m,n}");
        return;
    }
    *max = *min;
    if (c->at < c->len && c->pattern[c->at] == ',') {
        c->at++;
        if (!ep__parse_number(c, max))
            *max = EP_UNBOUNDED;
    }
    if (c->at >= c->len || c->pattern[c->at] != '}') {
        ep__fail(c, SM_EINVAL, open, "unterminated count: expected {m}, {m,} or {m,n}");
        return;
    }
    c->at++;
    if (*min > EP_REPEAT_MAX || (*max != EP_UNBOUNDED && *max > EP_REPEAT_MAX))
        ep__fail(c, SM_ETOOBIG, open, "repetition counts are limited to %u", EP_REPEAT_MAX);
    else if (*max < *min)
        ep__fail(c, SM_EINVAL, open, "{m,n} needs m <= n");
}

static uint32_t ep__parse_alternation(ep_compiler *c);

/* Reads a parenthesised group whose '(' is at `open`. */
static uint32_t ep__parse_group(ep_compiler *c, uint32_t open)
{
    if (c->depth >= EP_NEST_MAX) {
        ep__fail(c, SM_EINVAL, open, "groups nested more than %u deep", EP_NEST_MAX);
        return ep__node_list(c, EP_NODE_SEQ, c->pending.size);
    }
    c->depth++;
    uint32_t inner = ep__parse_alternation(c);
    c->depth--;
    if (!c->rc && (c->at >= c->len || c->pattern[c->at] != ')'))
        ep__fail(c, SM_EINVAL, open, "unbalanced '(': no ')' closes it");
    c->at++;
    return inner;
}

/* Reads one atom: a byte, an escape, '.', a class or a group.  The caller
 * has checked that c->at is not at the end, a '|' or a ')'. */
static uint32_t ep__parse_atom(ep_compiler *c)
{
    uint32_t where = c->at;
    unsigned char ch = (unsigned char)c->pattern[c->at++];
    ep_byteset set = {{0}};
    switch (ch) {
    case '(':
        return ep__parse_group(c, where);
    case '[':
        return ep__parse_class(c, where);
    case '.':
        ep__set_add_range(&set, 0, 255);
        set.bits[0] &= ~((uint64_t)1 << '\n');
        break;
    case '\\':
        ep__parse_escape(c, &set);
        break;
    case '*': case '+': case '?': case '{':
        ep__fail(c, SM_EINVAL, where, "'%c' has nothing to repeat", ch);
        break;
    case ']': case '}':
        ep__fail(c, SM_EINVAL, where, "unbalanced '%c' (write \\%c for the byte)", ch, ch);
        break;
    default:
        ep__set_add(&set, ch);
    }
    if (c->rc)
        return ep__node_list(c, EP_NODE_SEQ, c->pending.size);
    return ep__node_bytes(c, &set);
}

/* Reads an atom and the quantifiers after it (which may stack: a{2}{3} is
 * six a's). */
static uint32_t ep__parse_repeat(ep_compiler *c)
{
    uint32_t node = ep__parse_atom(c);
    uint32_t stacked = 0;
    while (!c->rc && c->at < c->len) {
        uint32_t where = c->at, min, max;
        char ch = c->pattern[c->at];
        if (ch == '*' || ch == '+' || ch == '?') {
            c->at++;
            min = ch == '+';
            max = ch == '?' ? 1 : EP_UNBOUNDED;
        } else if (ch == '{') {
            ep__parse_count(c, &min, &max);
            if (c->rc)
                break;
        } else {
            break;
        }
        if (c->depth + ++stacked > EP_NEST_MAX) {
            ep__fail(c, SM_EINVAL, where, "more than %u quantifiers stacked", EP_NEST_MAX);
            break;
        }
        node = ep__node_repeat(c, node, min, max, where);
    }
    return node;
}

/* Reads a concatenation up to the end, a '|' or a ')' (left unread). */
static uint32_t ep__parse_sequence(ep_compiler *c)
{
    uint32_t base = c->pending.size;
    while (!c->rc && c->at < c->len && c->pattern[c->at] != '|' && c->pattern[c->at] != ')') {
        uint32_t item = ep__parse_repeat(c);
        sm_array_push(&c->pending, item);
    }
    return ep__node_list(c, EP_NODE_SEQ, base);
}

/* Reads branches separated by '|' up to the end or a ')' (left unread).
 * An empty branch matches the empty string. */
static uint32_t ep__parse_alternation(ep_compiler *c)
{
    uint32_t base = c->pending.size;
    for (;;) {
        uint32_t branch = ep__parse_sequence(c);
        sm_array_push(&c->pending, branch);
        if (c->rc || c->at >= c->len || c->pattern[c->at] != '|')
            break;
        c->at++;
    }
    return ep__node_list(c, EP_NODE_ALT, base);
}

/* Parses the whole of a regex lexeme; returns its tree's root.  A stray
 * ')' is the only way parsing can stop before the end. */
static uint32_t ep__parse_pattern(ep_compiler *c)
{
    uint32_t root = ep__parse_alternation(c);
    if (!c->rc && c->at < c->len)
        ep__fail(c, SM_EINVAL, c->at, "unbalanced ')'");
    return root;
}

/* ---- Thompson's construction --------------------------------------------- */

static uint32_t ep__nfa_add(ep_compiler *c, uint8_t kind, uint32_t arg, uint32_t out0, uint32_t out1)
{
    ep_nfa_state state = {kind, arg, {out0, out1}};
    sm_array_push(&c->nfa, state);
    return c->nfa.size - 1;
}

static uint32_t ep__emit(ep_compiler *c, uint32_t node, uint32_t next);

/* Emits child* (or child+ when `at_least_once`) continuing at `next`. */
static uint32_t ep__emit_loop(ep_compiler *c, uint32_t child, uint32_t next, bool at_least_once)
{
    uint32_t hub = ep__nfa_add(c, EP_NFA_EPSILON, 0, EP_NFA_NONE, next);
    uint32_t body = ep__emit(c, child, hub);
    c->nfa.items[hub].out[0] = body;
    return at_least_once ? body : hub;
}

/* Emits child{min,max}: the optional copies nest (x{0,2} is (x(x)?)?), so
 * each one's fork can skip straight to `next`. */
static uint32_t ep__emit_repeat(ep_compiler *c, const ep_node *node, uint32_t next)
{
    uint32_t child = node->arg, entry = next, mandatory = node->min;
    if (node->max == EP_UNBOUNDED) {
        entry = ep__emit_loop(c, child, next, node->min > 0);
        mandatory = node->min ? node->min - 1 : 0;
    } else {
        for (uint32_t i = node->min; i < node->max; i++) {
            uint32_t copy = ep__emit(c, child, entry);
            entry = ep__nfa_add(c, EP_NFA_EPSILON, 0, copy, next);
        }
    }
    for (uint32_t i = 0; i < mandatory; i++)
        entry = ep__emit(c, child, entry);
    return entry;
}

/* Emits the NFA fragment of `node` so that it continues at state `next`, and
 * returns the fragment's entry state.  Adds exactly node->size states. */
static uint32_t ep__emit(ep_compiler *c, uint32_t node_index, uint32_t next)
{
    const ep_node node = c->nodes.items[node_index];
    uint32_t entry = next;
    switch (node.kind) {
    case EP_NODE_BYTES:
        return ep__nfa_add(c, EP_NFA_BYTES, node.arg, next, EP_NFA_NONE);
    case EP_NODE_SEQ:
        for (uint32_t i = node.count; i-- > 0;)
            entry = ep__emit(c, c->kids.items[node.first + i], entry);
        return entry;
    case EP_NODE_ALT:
        entry = ep__emit(c, c->kids.items[node.first + node.count - 1], next);
        for (uint32_t i = node.count - 1; i-- > 0;) {
            uint32_t branch = ep__emit(c, c->kids.items[node.first + i], next);
            entry = ep__nfa_add(c, EP_NFA_EPSILON, 0, branch, entry);
        }
        return entry;
    default:
        return ep__emit_repeat(c, &node, next);
    }
}

/* Emits a literal lexeme's bytes in front of `next`. */
static uint32_t ep__emit_literal(ep_compiler *c, const ep_lexeme_spec *spec, uint32_t next)
{
    uint32_t entry = next;
    for (uint32_t i = spec->pattern_len; i-- > 0;) {
        ep_byteset set = {{0}};
        ep__set_add(&set, (unsigned char)spec->pattern[i]);
        entry = ep__nfa_add(c, EP_NFA_BYTES, ep__set_index(c, &set), entry, EP_NFA_NONE);
    }
    return entry;
}

/* Adds lexeme `index` to the NFA, ending in its own accept state; returns
 * its entry state, or EP_NFA_NONE after reporting an error. */
static uint32_t ep__add_lexeme(ep_compiler *c, const ep_lexeme_spec *spec, uint32_t index)
{
    c->pattern = spec->pattern;
    c->len = spec->pattern_len;
    c->at = c->depth = 0;
    c->lexeme = index;
    c->nodes.size = c->kids.size = c->pending.size = 0;
    if (!spec->pattern && spec->pattern_len) {
        ep__fail(c, SM_EINVAL, 0, "the pattern has no text");
        return EP_NFA_NONE;
    }
    uint32_t root = EP_NFA_NONE, size = spec->pattern_len;
    bool nullable = spec->pattern_len == 0;
    if (!spec->literal) {
        root = ep__parse_pattern(c);
        size = c->nodes.items[root].size;
        nullable = c->nodes.items[root].nullable;
    }
    if (!c->rc && nullable)
        ep__fail(c, SM_EINVAL, 0, "the pattern matches the empty string");
    /* + 2: the accept state, and the fork that joins the lexeme to the rest */
    if (!c->rc && (uint64_t)c->nfa.size + size + 2 > EP_NFA_MAX)
        ep__fail(c, SM_ETOOBIG, 0, "the lexemes need more than %u automaton states", EP_NFA_MAX);
    if (c->rc)
        return EP_NFA_NONE;
    uint32_t accept = ep__nfa_add(c, EP_NFA_ACCEPT, index, EP_NFA_NONE, EP_NFA_NONE);
    uint32_t before = c->nfa.size;
    uint32_t entry = spec->literal ? ep__emit_literal(c, spec, accept) : ep__emit(c, root, accept);
    assert(c->nfa.size - before == size);
    (void)before;
    return entry;
}

/* Builds the NFA of all lexemes; *start is its single start state, forking
 * to every lexeme (EP_NFA_NONE when there are none). */
static void ep__build_nfa(ep_compiler *c, const ep_lexeme_spec *specs, uint32_t count, uint32_t *start)
{
    ep_u32s entries;
    sm_array_init(&entries);
    for (uint32_t i = 0; i < count && !c->rc; i++) {
        uint32_t entry = ep__add_lexeme(c, &specs[i], i);
        sm_array_push(&entries, entry);
    }
    *start = EP_NFA_NONE;
    if (!c->rc && count) {
        *start = entries.items[count - 1];
        for (uint32_t i = count - 1; i-- > 0;)
            *start = ep__nfa_add(c, EP_NFA_EPSILON, 0, entries.items[i], *start);
    }
    sm_array_free(&entries);
}

/* ---- Byte classes ---------------------------------------------------------- */

/* Splits the 256 bytes into the coarsest classes that no byte set of the NFA
 * tells apart, refining the partition by one set at a time. */
static void ep__byte_classes(const ep_compiler *c, ep_dfa *dfa)
{
    memset(dfa->byte_class, 0, sizeof dfa->byte_class);
    uint32_t classes = 1;
    for (uint32_t i = 0; i < c->sets.size; i++) {
        /* split[old class][inside the set] -> new class, or 0xffff */
        uint16_t split[256][2];
        memset(split, 0xff, sizeof split);
        classes = 0;
        for (unsigned byte = 0; byte < 256; byte++) {
            uint16_t *slot = &split[dfa->byte_class[byte]][ep__set_has(&c->sets.items[i], byte)];
            if (*slot == 0xffff)
                *slot = (uint16_t)classes++;
            dfa->byte_class[byte] = (uint8_t)*slot;
        }
    }
    dfa->class_count = classes;
}

/* For every byte set, the set of classes it contains (at most 256 classes, so
 * an ep_byteset over class numbers serves). */
static ep_byteset *ep__class_sets(const ep_compiler *c, const ep_dfa *dfa)
{
    ep_byteset *classes = sm_calloc(c->sets.size ? c->sets.size : 1, sizeof *classes);
    for (uint32_t i = 0; i < c->sets.size; i++)
        for (unsigned byte = 0; byte < 256; byte++)
            if (ep__set_has(&c->sets.items[i], byte))
                ep__set_add(&classes[i], dfa->byte_class[byte]);
    return classes;
}

/* ---- Subset construction ---------------------------------------------------- */

/* The DFA states found so far, each an NFA subset, with a hash table to find
 * a subset's state.  Subsets hold only BYTES and ACCEPT states, sorted. */
typedef struct ep_subsets {
    ep_u32s members;           /* every subset, concatenated */
    ep_u32s offsets;           /* state d is members[offsets[d]..offsets[d+1]) */
    uint32_t *table;           /* open addressing: state + 1, or 0 */
    uint32_t table_size;       /* a power of two */
} ep_subsets;

typedef struct ep_determinizer {
    const ep_compiler *c;
    ep_subsets subsets;
    ep_byteset *class_sets;    /* per byte set, see ep__class_sets */
    ep_u32s *buckets;          /* per class: the NFA states it leads to */
    ep_u32s stack;             /* closure scratch */
    uint32_t *mark;            /* per NFA state: the last closure that saw it */
    uint32_t stamp;
    ep_u32s next;              /* the DFA's transitions, state-major */
} ep_determinizer;

static uint64_t ep__subset_hash(const uint32_t *items, uint32_t count)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < count; i++)
        hash = (hash ^ items[i]) * 0x100000001b3ull;
    return hash ^ (hash >> 29);
}

/* Inserts state `state` into the hash table (which has room). */
static void ep__subset_insert(ep_subsets *s, uint32_t state)
{
    uint32_t from = s->offsets.items[state], count = s->offsets.items[state + 1] - from;
    uint32_t i = (uint32_t)ep__subset_hash(s->members.items + from, count) & (s->table_size - 1);
    while (s->table[i])
        i = (i + 1) & (s->table_size - 1);
    s->table[i] = state + 1;
}

/* Doubles the hash table when it is half full. */
static void ep__subset_grow(ep_subsets *s)
{
    uint32_t states = s->offsets.size - 1;
    if (s->table_size && (states + 1) * 2 <= s->table_size)
        return;
    sm_free(s->table);
    s->table_size = s->table_size ? s->table_size * 2 : 256;
    s->table = sm_calloc(s->table_size, sizeof *s->table);
    for (uint32_t d = 0; d < states; d++)
        if (s->offsets.items[d + 1] > s->offsets.items[d] || d == EP_DFA_START)
            ep__subset_insert(s, d);
}

/* Appends a new DFA state for `items` without looking it up. */
static uint32_t ep__subset_append(ep_subsets *s, const uint32_t *items, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        sm_array_push(&s->members, items[k]);
    sm_array_push(&s->offsets, s->members.size);
    return s->offsets.size - 2;
}

/* Returns the DFA state of the subset items[0..count), or EP_NFA_NONE when
 * it has none yet. */
static uint32_t ep__subset_find(const ep_subsets *s, const uint32_t *items, uint32_t count)
{
    uint32_t i = (uint32_t)ep__subset_hash(items, count) & (s->table_size - 1);
    for (; s->table[i]; i = (i + 1) & (s->table_size - 1)) {
        uint32_t d = s->table[i] - 1, from = s->offsets.items[d];
        if (s->offsets.items[d + 1] - from == count &&
            (count == 0 || memcmp(s->members.items + from, items, count * sizeof *items) == 0))
            return d;
    }
    return EP_NFA_NONE;
}

static int ep__compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Replaces the NFA states in `set` by the BYTES and ACCEPT states of their
 * epsilon closure, sorted and without repeats: the canonical name of a DFA
 * state (epsilon states add nothing a DFA state needs to remember). */
static void ep__closure(ep_determinizer *d, ep_u32s *set)
{
    const ep_nfa_state *nfa = d->c->nfa.items;
    uint32_t stamp = ++d->stamp;
    d->stack.size = 0;
    for (uint32_t i = 0; i < set->size; i++)
        sm_array_push(&d->stack, set->items[i]);
    set->size = 0;
    while (d->stack.size) {
        uint32_t s = sm_array_pop(&d->stack);
        if (s == EP_NFA_NONE || d->mark[s] == stamp)
            continue;
        d->mark[s] = stamp;
        if (nfa[s].kind != EP_NFA_EPSILON) {
            sm_array_push(set, s);
            continue;
        }
        sm_array_push(&d->stack, nfa[s].out[1]);
        sm_array_push(&d->stack, nfa[s].out[0]);
    }
    if (set->size > 1)
        qsort(set->items, set->size, sizeof *set->items, ep__compare_u32);
}

/* Adds a DFA state's row of transitions, all to the dead state. */
static void ep__next_row(ep_determinizer *d, uint32_t class_count)
{
    sm_array_grow_by(&d->next, class_count);
    memset(d->next.items + d->next.size - class_count, 0, class_count * sizeof *d->next.items);
}

/* Returns the DFA state for the closure of `set` (consumed as scratch),
 * creating it if new; SM_ETOOBIG past EP_DFA_MAX states. */
static int ep__target(ep_determinizer *d, ep_u32s *set, uint32_t class_count, uint32_t *state)
{
    ep__closure(d, set);
    *state = ep__subset_find(&d->subsets, set->items, set->size);
    if (*state != EP_NFA_NONE)
        return SM_OK;
    if (d->subsets.offsets.size - 1 >= EP_DFA_MAX)
        return SM_ETOOBIG;
    ep__subset_grow(&d->subsets);
    *state = ep__subset_append(&d->subsets, set->items, set->size);
    ep__subset_insert(&d->subsets, *state);
    ep__next_row(d, class_count);
    return SM_OK;
}

/* Fills in the transitions of DFA state `state`: the NFA states its members
 * reach on each class, grouped per class, then closed. */
static int ep__expand(ep_determinizer *d, uint32_t state, uint32_t class_count)
{
    const ep_nfa_state *nfa = d->c->nfa.items;
    for (uint32_t k = 0; k < class_count; k++)
        d->buckets[k].size = 0;
    for (uint32_t m = d->subsets.offsets.items[state]; m < d->subsets.offsets.items[state + 1]; m++) {
        const ep_nfa_state *member = &nfa[d->subsets.members.items[m]];
        if (member->kind != EP_NFA_BYTES)
            continue;
        const ep_byteset *classes = &d->class_sets[member->arg];
        for (unsigned w = 0; w < 4; w++)
            for (uint64_t bits = classes->bits[w]; bits; bits &= bits - 1)
                sm_array_push(&d->buckets[w * 64 + (unsigned)__builtin_ctzll(bits)], member->out[0]);
    }
    for (uint32_t k = 0; k < class_count; k++) {
        if (!d->buckets[k].size)
            continue;
        uint32_t target;
        int rc = ep__target(d, &d->buckets[k], class_count, &target);
        if (rc)
            return rc;
        d->next.items[(size_t)state * class_count + k] = target;
    }
    return SM_OK;
}

/* Whether lexeme a goes before lexeme b: higher priority, then defined
 * first. */
static bool ep__before(const ep_lexeme_spec *specs, int32_t a, int32_t b)
{
    return specs[a].priority > specs[b].priority || (specs[a].priority == specs[b].priority && a < b);
}

/* Appends DFA state `state`'s choices to the DFA's list: the lexemes that
 * ACCEPT states of its subset name, best first, up to and including the
 * first that is not excludable (so just the winner when none is). */
static void ep__subset_choices(const ep_determinizer *d, const ep_lexeme_spec *specs, uint32_t state,
                               ep_i32s *choices)
{
    uint32_t from = choices->size;
    for (uint32_t m = d->subsets.offsets.items[state]; m < d->subsets.offsets.items[state + 1]; m++) {
        const ep_nfa_state *member = &d->c->nfa.items[d->subsets.members.items[m]];
        if (member->kind != EP_NFA_ACCEPT)
            continue;
        int32_t lexeme = (int32_t)member->arg;
        bool seen = false;
        for (uint32_t i = from; i < choices->size && !seen; i++)
            seen = choices->items[i] == lexeme;
        if (seen)
            continue;
        sm_array_push(choices, lexeme);
        for (uint32_t i = choices->size - 1; i > from && ep__before(specs, choices->items[i], choices->items[i - 1]); i--) {
            int32_t t = choices->items[i];
            choices->items[i] = choices->items[i - 1];
            choices->items[i - 1] = t;
        }
    }
    for (uint32_t i = from; i < choices->size; i++)
        if (!specs[choices->items[i]].excludable) {
            choices->size = i + 1;
            break;
        }
}

static void ep__determinizer_free(ep_determinizer *d, uint32_t class_count)
{
    sm_array_free(&d->subsets.members);
    sm_array_free(&d->subsets.offsets);
    sm_free(d->subsets.table);
    sm_free(d->class_sets);
    for (uint32_t k = 0; k < class_count; k++)
        sm_array_free(&d->buckets[k]);
    sm_free(d->buckets);
    sm_array_free(&d->stack);
    sm_free(d->mark);
    sm_array_free(&d->next);
}

/* Runs the subset construction from NFA state `start` and fills dfa->next,
 * state_count and winner (byte classes must be set).  State 0 is the empty
 * subset, the dead state; state 1 is the start's closure even when that is
 * empty (no lexemes).  Returns SM_OK or SM_ETOOBIG. */
static int ep__determinize(const ep_compiler *c, const ep_lexeme_spec *specs, uint32_t start, ep_dfa *dfa)
{
    uint32_t class_count = dfa->class_count;
    ep_determinizer d;
    memset(&d, 0, sizeof d);
    d.c = c;
    d.class_sets = ep__class_sets(c, dfa);
    d.buckets = sm_calloc(class_count, sizeof *d.buckets);
    d.mark = sm_calloc(c->nfa.size ? c->nfa.size : 1, sizeof *d.mark);
    sm_array_push(&d.subsets.offsets, 0);
    ep__subset_append(&d.subsets, NULL, 0);     /* 0: dead, never looked up */
    ep__next_row(&d, class_count);
    ep_u32s *seed = &d.buckets[0];
    seed->size = 0;
    sm_array_push(seed, start);
    ep__closure(&d, seed);
    ep__subset_grow(&d.subsets);
    ep__subset_insert(&d.subsets, ep__subset_append(&d.subsets, seed->items, seed->size));
    ep__next_row(&d, class_count);
    int rc = SM_OK;
    for (uint32_t state = EP_DFA_START; state < d.subsets.offsets.size - 1 && !rc; state++)
        rc = ep__expand(&d, state, class_count);
    if (!rc) {
        dfa->state_count = d.subsets.offsets.size - 1;
        dfa->winner = sm_malloc((size_t)dfa->state_count * sizeof *dfa->winner);
        dfa->choice_first = sm_malloc(((size_t)dfa->state_count + 1) * sizeof *dfa->choice_first);
        ep_i32s choices;
        sm_array_init(&choices);
        for (uint32_t state = 0; state < dfa->state_count; state++) {
            dfa->choice_first[state] = choices.size;
            ep__subset_choices(&d, specs, state, &choices);
            dfa->winner[state] = choices.size > dfa->choice_first[state] ? choices.items[dfa->choice_first[state]] : -1;
        }
        dfa->choice_first[dfa->state_count] = choices.size;
        dfa->choices = choices.items;
        dfa->next = d.next.items;
        sm_array_init(&d.next);
    }
    ep__determinizer_free(&d, class_count);
    return rc;
}

/* ---- Minimisation ----------------------------------------------------------- */

/* One round of Moore's refinement: two states stay in one block when they
 * were in one block and go to one block on every class.  Writes the new
 * blocks to `fresh` (numbered in order of first state) and returns how many
 * there are.  `table` has a power-of-two size of at least 2 * state_count. */
static uint32_t ep__refine(const ep_dfa *dfa, const uint32_t *block, uint32_t *fresh, uint32_t *table,
                           uint32_t table_size)
{
    uint32_t k = dfa->class_count, blocks = 0;
    memset(table, 0, table_size * sizeof *table);
    for (uint32_t s = 0; s < dfa->state_count; s++) {
        const uint32_t *row = dfa->next + (size_t)s * k;
        uint64_t hash = block[s] * 0x9e3779b97f4a7c15ull;
        for (uint32_t x = 0; x < k; x++)
            hash = (hash ^ block[row[x]]) * 0x100000001b3ull;
        uint32_t i = (uint32_t)(hash ^ (hash >> 32)) & (table_size - 1);
        for (;; i = (i + 1) & (table_size - 1)) {
            if (!table[i]) {
                table[i] = s + 1;
                fresh[s] = blocks++;
                break;
            }
            uint32_t t = table[i] - 1, x = 0;
            const uint32_t *other = dfa->next + (size_t)t * k;
            if (block[t] != block[s])
                continue;
            while (x < k && block[row[x]] == block[other[x]])
                x++;
            if (x == k) {
                fresh[s] = fresh[t];
                break;
            }
        }
    }
    return blocks;
}

/* Rebuilds the DFA with one state per block, keeping the dead state 0 and
 * the start state 1 in place and the other blocks in order of first state. */
static void ep__merge_blocks(ep_dfa *dfa, const uint32_t *block, uint32_t blocks)
{
    uint32_t k = dfa->class_count;
    uint32_t *number = sm_malloc((size_t)blocks * sizeof *number);
    uint32_t *first = sm_malloc((size_t)blocks * sizeof *first);
    memset(number, 0xff, (size_t)blocks * sizeof *number);
    number[block[EP_DFA_DEAD]] = EP_DFA_DEAD;
    number[block[EP_DFA_START]] = EP_DFA_START;
    first[EP_DFA_DEAD] = EP_DFA_DEAD;
    first[EP_DFA_START] = EP_DFA_START;
    uint32_t count = 2;
    for (uint32_t s = 0; s < dfa->state_count; s++)
        if (number[block[s]] == UINT32_MAX) {
            number[block[s]] = count;
            first[count++] = s;
        }
    uint32_t *next = sm_malloc((size_t)blocks * k * sizeof *next);
    int32_t *winner = sm_malloc((size_t)blocks * sizeof *winner);
    uint32_t *choice_first = sm_malloc(((size_t)blocks + 1) * sizeof *choice_first);
    ep_i32s choices;
    sm_array_init(&choices);
    for (uint32_t b = 0; b < blocks; b++) {
        winner[b] = dfa->winner[first[b]];
        choice_first[b] = choices.size;
        for (uint32_t i = dfa->choice_first[first[b]]; i < dfa->choice_first[first[b] + 1]; i++)
            sm_array_push(&choices, dfa->choices[i]);
        for (uint32_t x = 0; x < k; x++)
            next[(size_t)b * k + x] = number[block[dfa->next[(size_t)first[b] * k + x]]];
    }
    choice_first[blocks] = choices.size;
    sm_free(dfa->next);
    sm_free(dfa->winner);
    sm_free(dfa->choice_first);
    sm_free(dfa->choices);
    dfa->next = next;
    dfa->winner = winner;
    dfa->choice_first = choice_first;
    dfa->choices = choices.items;
    dfa->state_count = blocks;
    sm_free(number);
    sm_free(first);
}

/* Whether states s and t have the same choices. */
static bool ep__same_choices(const ep_dfa *dfa, uint32_t s, uint32_t t)
{
    uint32_t n = dfa->choice_first[s + 1] - dfa->choice_first[s];
    return n == dfa->choice_first[t + 1] - dfa->choice_first[t] &&
           (n == 0 || memcmp(dfa->choices + dfa->choice_first[s], dfa->choices + dfa->choice_first[t],
                             n * sizeof *dfa->choices) == 0);
}

/* The first blocks of the refinement: one per list of choices (so one per
 * winner when no lexeme is excludable), numbered in order of first state. */
static void ep__choice_blocks(const ep_dfa *dfa, uint32_t *block, uint32_t *table, uint32_t table_size)
{
    uint32_t blocks = 0;
    memset(table, 0, table_size * sizeof *table);
    for (uint32_t s = 0; s < dfa->state_count; s++) {
        uint64_t hash = 0xcbf29ce484222325ull;
        for (uint32_t i = dfa->choice_first[s]; i < dfa->choice_first[s + 1]; i++)
            hash = (hash ^ (uint32_t)dfa->choices[i]) * 0x100000001b3ull;
        for (uint32_t i = (uint32_t)(hash ^ (hash >> 32)) & (table_size - 1);; i = (i + 1) & (table_size - 1)) {
            if (!table[i]) {
                table[i] = s + 1;
                block[s] = blocks++;
                break;
            }
            if (ep__same_choices(dfa, table[i] - 1, s)) {
                block[s] = block[table[i] - 1];
                break;
            }
        }
    }
}

/* Replaces the DFA by the minimal one accepting the same texts with the same
 * choices (Moore's algorithm, starting from one block per list of choices).  Leaves
 * it as it is when refinement would exceed EP_MINIMISE_BUDGET, or when the
 * start state cannot reach any winner (no lexemes), since the start would
 * then merge with the dead state. */
static void ep__minimise(ep_dfa *dfa)
{
    uint32_t n = dfa->state_count, table_size = 16;
    while (table_size < 2 * n)
        table_size *= 2;
    uint32_t *block = sm_malloc((size_t)n * sizeof *block);
    uint32_t *fresh = sm_malloc((size_t)n * sizeof *fresh);
    uint32_t *table = sm_malloc((size_t)table_size * sizeof *table);
    ep__choice_blocks(dfa, block, table, table_size);
    uint32_t blocks = 0;
    uint64_t work = 0;
    bool converged = false;
    while (work <= EP_MINIMISE_BUDGET) {
        uint32_t refined = ep__refine(dfa, block, fresh, table, table_size);
        memcpy(block, fresh, (size_t)n * sizeof *block);
        work += (uint64_t)n * dfa->class_count;
        if (refined == blocks) {
            converged = true;
            break;
        }
        blocks = refined;
    }
    if (converged && blocks < n && block[EP_DFA_DEAD] != block[EP_DFA_START])
        ep__merge_blocks(dfa, block, blocks);
    sm_free(block);
    sm_free(fresh);
    sm_free(table);
}

/* ---- Reachable winners ------------------------------------------------------- */

/* The DFA's edges reversed, each distinct edge once, without self-loops or
 * edges into the dead state: preds[first[t]..first[t+1]) lead to t. */
typedef struct ep_reverse {
    uint32_t *first;
    uint32_t *preds;
} ep_reverse;

/* Writes the distinct successors of state `s` other than itself and the
 * dead state into out[0..count) and returns count.  `seen` holds, per
 * state, the last state whose successors were listed. */
static uint32_t ep__successors(const ep_dfa *dfa, uint32_t s, uint32_t *seen, uint32_t *out)
{
    uint32_t count = 0, k = dfa->class_count;
    for (uint32_t x = 0; x < k; x++) {
        uint32_t t = dfa->next[(size_t)s * k + x];
        if (t == EP_DFA_DEAD || t == s || seen[t] == s)
            continue;
        seen[t] = s;
        out[count++] = t;
    }
    return count;
}

/* Fills `rev` (free its two arrays with sm_free) by counting each state's
 * predecessors, then placing them. */
static void ep__reverse_edges(const ep_dfa *dfa, ep_reverse *rev)
{
    uint32_t n = dfa->state_count;
    uint32_t *seen = sm_malloc((size_t)n * sizeof *seen);
    uint32_t *successors = sm_malloc((size_t)dfa->class_count * sizeof *successors);
    uint32_t *fill = sm_malloc((size_t)n * sizeof *fill);
    rev->first = sm_calloc((size_t)n + 1, sizeof *rev->first);
    memset(seen, 0xff, (size_t)n * sizeof *seen);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t count = ep__successors(dfa, s, seen, successors);
        for (uint32_t i = 0; i < count; i++)
            rev->first[successors[i] + 1]++;
    }
    for (uint32_t t = 0; t < n; t++) {
        rev->first[t + 1] += rev->first[t];
        fill[t] = rev->first[t];
    }
    rev->preds = sm_malloc((size_t)rev->first[n] * sizeof *rev->preds);
    memset(seen, 0xff, (size_t)n * sizeof *seen);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t count = ep__successors(dfa, s, seen, successors);
        for (uint32_t i = 0; i < count; i++)
            rev->preds[fill[successors[i]]++] = s;
    }
    sm_free(seen);
    sm_free(successors);
    sm_free(fill);
}

/* Merges `from` into `into` (set_words words); returns whether it grew. */
static bool ep__merge_words(uint64_t *into, const uint64_t *from, uint32_t words)
{
    bool grew = false;
    for (uint32_t w = 0; w < words; w++) {
        uint64_t merged = into[w] | from[w];
        grew |= merged != into[w];
        into[w] = merged;
    }
    return grew;
}

/* Fills dfa->reachable_winners.  Every state starts with its own winner;
 * a state whose set grew passes it on to its predecessors until nothing
 * grows.  Sets only grow, so this terminates even though the DFA has
 * cycles, and the result is the least fixpoint: exactly the winners of the
 * states reachable in zero or more steps. */
static void ep__reachable_winners(ep_dfa *dfa)
{
    uint32_t n = dfa->state_count, words = dfa->set_words;
    dfa->reachable_winners = sm_calloc((size_t)n * words, sizeof *dfa->reachable_winners);
    ep_reverse rev;
    ep__reverse_edges(dfa, &rev);
    bool *queued = sm_calloc(n, sizeof *queued);
    ep_u32s work;
    sm_array_init(&work);
    for (uint32_t s = 0; s < n; s++) {
        if (dfa->choice_first[s] == dfa->choice_first[s + 1])
            continue;
        for (uint32_t i = dfa->choice_first[s]; i < dfa->choice_first[s + 1]; i++) {
            uint32_t lexeme = (uint32_t)dfa->choices[i];
            dfa->reachable_winners[(size_t)s * words + lexeme / 64] |= (uint64_t)1 << (lexeme % 64);
        }
        queued[s] = true;
        sm_array_push(&work, s);
    }
    while (work.size) {
        uint32_t t = sm_array_pop(&work);
        queued[t] = false;
        for (uint32_t i = rev.first[t]; i < rev.first[t + 1]; i++) {
            uint32_t p = rev.preds[i];
            if (ep__merge_words(dfa->reachable_winners + (size_t)p * words,
                                dfa->reachable_winners + (size_t)t * words, words) &&
                !queued[p]) {
                queued[p] = true;
                sm_array_push(&work, p);
            }
        }
    }
    sm_array_free(&work);
    sm_free(queued);
    sm_free(rev.first);
    sm_free(rev.preds);
}

/* ---- Entry points --------------------------------------------------------------- */

static void ep__compiler_free(ep_compiler *c)
{
    sm_array_free(&c->nodes);
    sm_array_free(&c->kids);
    sm_array_free(&c->pending);
    sm_array_free(&c->nfa);
    sm_array_free(&c->sets);
}

/* FNV-1a over the tables that decide a walk: classes, transitions, winners. */
static uint64_t ep__fingerprint(const ep_dfa *dfa)
{
    uint64_t h = 0xcbf29ce484222325u;
    const uint8_t *parts[] = {dfa->byte_class, (const uint8_t *)dfa->next, (const uint8_t *)dfa->winner,
                              (const uint8_t *)dfa->choice_first, (const uint8_t *)dfa->choices};
    size_t sizes[] = {sizeof dfa->byte_class, (size_t)dfa->state_count * dfa->class_count * sizeof *dfa->next,
                      (size_t)dfa->state_count * sizeof *dfa->winner,
                      ((size_t)dfa->state_count + 1) * sizeof *dfa->choice_first,
                      (size_t)dfa->choice_first[dfa->state_count] * sizeof *dfa->choices};
    for (size_t p = 0; p < 5; p++)
        for (size_t i = 0; i < sizes[p]; i++)
            h = (h ^ parts[p][i]) * 0x100000001b3u;
    return h;
}

/* Parses and emits every lexeme, then determinises, minimises and collects
 * the reachable winners; on failure nothing stays allocated in `out`. */
int ep_dfa_build(const ep_lexeme_spec *specs, uint32_t count, ep_dfa *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    if (error && error_size)
        error[0] = '\0';
    ep_compiler c;
    memset(&c, 0, sizeof c);
    memset(c.singleton, 0xff, sizeof c.singleton);
    c.error = error;
    c.error_size = error_size;
    uint32_t start = EP_NFA_NONE;
    if (count > (uint32_t)INT32_MAX || (count && !specs))
        ep__fail(&c, SM_EINVAL, EP_NO_OFFSET, "%u lexemes cannot be compiled", count);
    else
        ep__build_nfa(&c, specs, count, &start);
    if (!c.rc) {
        out->lexeme_count = count;
        out->set_words = count ? (count + 63) / 64 : 1;
        ep__byte_classes(&c, out);
        if (ep__determinize(&c, specs, start, out) != SM_OK)
            ep__fail(&c, SM_ETOOBIG, EP_NO_OFFSET, "the lexemes need more than %u automaton states", EP_DFA_MAX);
    }
    if (!c.rc) {
        ep__minimise(out);
        ep__reachable_winners(out);
        out->fingerprint = ep__fingerprint(out);
    }
    ep__compiler_free(&c);
    if (c.rc)
        ep_dfa_free(out);
    return c.rc;
}

bool ep_dfa_prefix_meets(const ep_dfa *l, const ep_dfa *g)
{
    /* breadth-first over the pairs of states both reach on one text */
    uint32_t n = l->state_count * g->state_count;
    bool *seen = sm_calloc(n ? n : 1, sizeof *seen);
    ep_u32s work;
    sm_array_init(&work);
    sm_array_push(&work, EP_DFA_START * g->state_count + EP_DFA_START);
    seen[EP_DFA_START * g->state_count + EP_DFA_START] = true;
    bool meets = false;
    while (work.size && !meets) {
        uint32_t pair = sm_array_pop(&work), ls = pair / g->state_count, gs = pair % g->state_count;
        for (unsigned b = 0; b < 256 && !meets; b++) {
            uint32_t ln = ep_dfa_step(l, ls, (uint8_t)b), gn = ep_dfa_step(g, gs, (uint8_t)b);
            if (ln == EP_DFA_DEAD || gn == EP_DFA_DEAD)
                continue;
            const uint64_t *reach = ep_dfa_reachable(l, ln);
            bool l_goes_on = false;
            for (uint32_t w = 0; w < l->set_words; w++)
                l_goes_on |= reach[w] != 0;
            if (g->winner[gn] >= 0 && l_goes_on) {
                meets = true;
                break;
            }
            uint32_t next = ln * g->state_count + gn;
            if (!seen[next]) {
                seen[next] = true;
                sm_array_push(&work, next);
            }
        }
    }
    sm_array_free(&work);
    sm_free(seen);
    return meets;
}

void ep_dfa_free(ep_dfa *dfa)
{
    sm_free(dfa->next);
    sm_free(dfa->winner);
    sm_free(dfa->choice_first);
    sm_free(dfa->choices);
    sm_free(dfa->reachable_winners);
    memset(dfa, 0, sizeof *dfa);
}
