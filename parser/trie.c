/*
 * trie.c - a vocabulary as a byte trie, and the tokens of it that keep a
 * recognizer viable, found in one walk.
 *
 * The trie is laid out in preorder: node i has its byte, its depth, the
 * index just past its subtree, and the tokens that end there.  The walk
 * keeps one recognizer state per depth (the state after the node's path),
 * so tokens that share a prefix share the work of feeding it, and a byte the
 * recognizer refuses skips the node's whole subtree: viability is closed
 * under prefixes.
 *
 * Most nodes of a real vocabulary are bytes inside a lexeme: the byte moves
 * the token in progress to another state of the lexer's automaton and the
 * parser is not involved.  Such a byte is taken without ep_feed when
 * CPython's checks of the token cannot change their verdict (ep__quiet; a
 * character outside ASCII that ends in a name is checked on the spot):
 * then the text is viable exactly when the token can still grow into a
 * lexeme the parser allows here, which depends only on the parser's chart
 * and the automaton's state, and is remembered for the walk.  Every other
 * byte (the token in progress ends, a new one starts, a backslash or a
 * brace) goes through ep_feed from its parent's state.
 */
#include "ep_recognizer.h"
#include "ep_unicode.h"

#include <string.h>

typedef struct ep__tnode {
    uint32_t skip;         /* index just past this node's subtree */
    uint32_t first_token;  /* index into tokens[] of the first token ending here */
    uint16_t token_count;
    uint8_t byte;
    uint8_t depth;         /* 0 for the root's children */
} ep__tnode;

struct ep_trie {
    uint32_t n_tokens;
    ep__tnode *nodes;
    uint32_t n_nodes;
    uint32_t *tokens;      /* token ids, grouped by the node they end at */
};

/* ---- Building ----------------------------------------------------------------- */

/* A temporary trie: children in sorted arrays, built by insertion. */
typedef struct ep__bnode {
    uint8_t byte;
    uint32_t *children;    /* node indices, sorted by byte */
    uint16_t n_children, cap_children;
    uint32_t *toks;
    uint16_t n_toks, cap_toks;
} ep__bnode;

typedef struct ep__builder {
    ep__bnode *nodes;
    uint32_t n, cap;
} ep__builder;

static uint32_t ep__bnew(ep__builder *b, uint8_t byte)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->nodes = sm_realloc(b->nodes, b->cap * sizeof *b->nodes);
    }
    memset(&b->nodes[b->n], 0, sizeof *b->nodes);
    b->nodes[b->n].byte = byte;
    return b->n++;
}

static uint32_t ep__bchild(ep__builder *b, uint32_t parent, uint8_t byte)
{
    ep__bnode *p = &b->nodes[parent];
    uint16_t lo = 0, hi = p->n_children;
    while (lo < hi) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        uint8_t mb = b->nodes[p->children[mid]].byte;
        if (mb == byte)
            return p->children[mid];
        if (mb < byte)
            lo = (uint16_t)(mid + 1);
        else
            hi = mid;
    }
    uint32_t child = ep__bnew(b, byte);
    p = &b->nodes[parent];   /* the array may have moved */
    if (p->n_children == p->cap_children) {
        p->cap_children = (uint16_t)(p->cap_children ? p->cap_children * 2 : 2);
        p->children = sm_realloc(p->children, p->cap_children * sizeof *p->children);
    }
    memmove(p->children + lo + 1, p->children + lo, (size_t)(p->n_children - lo) * sizeof *p->children);
    p->children[lo] = child;
    p->n_children++;
    return child;
}

static void ep__badd_token(ep__builder *b, uint32_t node, uint32_t token)
{
    ep__bnode *p = &b->nodes[node];
    if (p->n_toks == p->cap_toks) {
        p->cap_toks = (uint16_t)(p->cap_toks ? p->cap_toks * 2 : 1);
        p->toks = sm_realloc(p->toks, p->cap_toks * sizeof *p->toks);
    }
    p->toks[p->n_toks++] = token;
}

/* Lays the subtree of `node` out in preorder (iteratively: depth is bounded
 * by the longest token, but recursion is avoided all the same). */
static void ep__layout(ep__builder *b, ep_trie *t)
{
    uint32_t *stack = sm_malloc((EP_TRIE_MAX_BYTES + 2) * sizeof *stack);
    uint32_t *next = sm_malloc((EP_TRIE_MAX_BYTES + 2) * sizeof *next);   /* next child to visit */
    uint32_t *placed = sm_malloc((EP_TRIE_MAX_BYTES + 2) * sizeof *placed); /* index in t->nodes */
    uint32_t depth = 0, token_at = 0;
    stack[0] = 0;
    next[0] = 0;
    placed[0] = UINT32_MAX;
    while (true) {
        ep__bnode *p = &b->nodes[stack[depth]];
        if (next[depth] < p->n_children) {
            uint32_t c = p->children[next[depth]++];
            ep__bnode *cn = &b->nodes[c];
            uint32_t at = t->n_nodes++;
            t->nodes[at] = (ep__tnode){.byte = cn->byte, .depth = (uint8_t)depth, .first_token = token_at,
                                       .token_count = cn->n_toks};
            if (cn->n_toks)
                memcpy(t->tokens + token_at, cn->toks, cn->n_toks * sizeof *cn->toks);
            token_at += cn->n_toks;
            depth++;
            stack[depth] = c;
            next[depth] = 0;
            placed[depth] = at;
            continue;
        }
        if (depth == 0)
            break;
        t->nodes[placed[depth]].skip = t->n_nodes;
        depth--;
    }
    sm_free(stack);
    sm_free(next);
    sm_free(placed);
}

ep_trie *ep_trie_new(const char *const *strings, const uint32_t *lens, uint32_t count)
{
    ep_trie *t = sm_calloc(1, sizeof *t);
    t->n_tokens = count;
    ep__builder b = {0};
    ep__bnew(&b, 0);   /* the root */
    uint32_t in_trie = 0;
    for (uint32_t id = 0; id < count; id++) {
        if (!lens[id] || lens[id] >= EP_TRIE_MAX_BYTES)
            continue;
        uint32_t node = 0;
        for (uint32_t i = 0; i < lens[id]; i++)
            node = ep__bchild(&b, node, (uint8_t)strings[id][i]);
        ep__badd_token(&b, node, id);
        in_trie++;
    }
    t->nodes = sm_malloc((b.n ? b.n : 1) * sizeof *t->nodes);
    t->tokens = sm_malloc((in_trie ? in_trie : 1) * sizeof *t->tokens);
    ep__layout(&b, t);
    for (uint32_t i = 0; i < b.n; i++) {
        sm_free(b.nodes[i].children);
        sm_free(b.nodes[i].toks);
    }
    sm_free(b.nodes);
    return t;
}

void ep_trie_free(ep_trie *t)
{
    if (!t)
        return;
    sm_free(t->nodes);
    sm_free(t->tokens);
    sm_free(t);
}

uint32_t ep_trie_nodes(const ep_trie *t)
{
    return t->n_nodes;
}

size_t ep_trie_bytes(const ep_trie *t)
{
    uint32_t tokens = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        tokens += t->nodes[i].token_count;
    return sizeof *t + (size_t)t->n_nodes * sizeof *t->nodes + (size_t)tokens * sizeof *t->tokens;
}

/* ---- The walk ------------------------------------------------------------------ */

/* The state after a node's path.  A byte taken directly changes only the
 * automaton's part of the run, the text's length and the UTF-8 state, kept
 * here; the rest is in the snapshot of the nearest fed node above
 * (`full`, a depth). */
typedef struct ep__step {
    uint32_t dfa;
    uint32_t accept_end;
    int32_t accept_lexeme;
    uint32_t text_len;
    /* the charts change only at a fed byte that makes new ones, and a
     * sibling may make others under the same numbers: a new epoch then */
    uint32_t epoch;
    uint16_t full;
    uint8_t utf8_need, utf8_lo, utf8_hi;
    /* the token in progress passed CPython's checks and an ordinary byte
     * (not a backslash or a brace) that only moves it through the
     * automaton keeps them passing (ep__quiet) */
    bool direct;
    /* it is not a name (a string, a comment, a number), so the characters
     * CPython allows in names do not apply to a byte outside ASCII */
    bool wide;
} ep__step;

/* One walk's memory: the snapshots of fed nodes by depth, and whether a
 * token in progress can grow into a lexeme allowed here, by automaton state
 * for the current epoch (its chart). */
typedef struct ep__walk {
    ep_snapshot full[EP_TRIE_MAX_BYTES + 1];
    ep__step at_depth[EP_TRIE_MAX_BYTES + 1];
    uint32_t *grow_epoch;   /* [dfa state]: epoch + 1 of the answer, 0 for none */
    bool *grows;            /* [dfa state] */
    uint32_t epochs;
} ep__walk;

static bool ep__grows(ep__walk *walk, ep_recognizer *rec, const ep__step *step)
{
    if (walk->grow_epoch[step->dfa] == step->epoch + 1)
        return walk->grows[step->dfa];
    ep_run run = walk->full[step->full].run;
    run.dfa = step->dfa;
    walk->grow_epoch[step->dfa] = step->epoch + 1;
    return walk->grows[step->dfa] = ep_run_can_grow(rec, &run);
}

/* Whether CPython's checks of the token in progress (which passed them)
 * keep passing whatever ordinary bytes (ASCII, not a backslash or a brace)
 * come next: a name or a number, a bytes or raw literal, or a str literal
 * without an escape cut short and, if an f-string, without a brace.  The
 * literal's shape is read as ep_run_token_so_far reads it
 * (ep_str_literal). */
static bool ep__quiet(const char *token, size_t len)
{
    bool is_f, raw;
    if (!ep_str_literal(token, len, &is_f, &raw))
        return true;
    if (is_f && ep_has_brace(token, len))
        return false;
    if (raw)
        return true;
    size_t resume = 0;
    return ep_escapes_valid(token, len, false, &resume) && resume >= len;
}

/* Whether the state the recognizer is in may take in-lexeme bytes
 * directly (see ep__step). */
static bool ep__direct(ep_recognizer *rec)
{
    const ep_run *run = &rec->run;
    uint32_t end = rec->text.size;
    return !run->dead && run->dfa != EP_DFA_START &&
           ep__quiet(rec->text.items + run->tok_start, end - run->tok_start) &&
           ep_run_token_so_far(rec, run, end);
}

/* Whether a token is not a name whatever follows (as ep_name_valid reads
 * it): it starts with a digit or holds an ASCII byte no name holds. */
static bool ep__never_a_name(const char *token, size_t len)
{
    if (len && token[0] >= '0' && token[0] <= '9')
        return true;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)token[i];
        if (c < 0x80 && !ep_name_char_valid(c, false))
            return true;
    }
    return false;
}

/* Whether the character that `byte` ends, at text[at] (the text before it
 * holding its first bytes), may stand in a name whose token starts at
 * `tok_start`; false also when the character is not all in the token. */
static bool ep__name_char_ends(const char *text, uint32_t tok_start, uint32_t at, uint8_t byte)
{
    uint32_t lead = at;
    while (lead > tok_start && at - lead < 3 && ((uint8_t)text[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead > tok_start)
        lead--;
    uint8_t first = (uint8_t)text[lead];
    if ((first & 0xC0) != 0xC0)
        return false;   /* not seen whole here: left to ep_feed */
    uint32_t width = at - lead + 1;
    uint32_t cp = first & (width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07);
    for (uint32_t i = lead + 1; i < at; i++)
        cp = (cp << 6) | ((uint8_t)text[i] & 0x3F);
    cp = (cp << 6) | (byte & 0x3F);
    return ep_name_char_valid(cp, lead == tok_start);
}

/* Takes `byte` after `parent` into `child` without the parser, if it is a
 * byte that only moves the token in progress; false if it is not (the
 * caller then feeds it). */
static inline bool ep__step_direct(ep_recognizer *rec, ep__walk *walk, const ep__step *parent, uint8_t byte,
                                   ep__step *child)
{
    if (!parent->direct || byte == '\\' || byte == '{' || byte == '}')
        return false;
    const ep_dfa *dfa = &rec->grammar->dfa;
    uint32_t next = ep_dfa_step(dfa, parent->dfa, byte);
    if (next == EP_DFA_DEAD || parent->text_len + 1 > EP_MAX_TEXT)
        return false;
    *child = *parent;
    if ((byte >= 0x80 || child->utf8_need) &&
        (!ep_utf8_next(&child->utf8_need, &child->utf8_lo, &child->utf8_hi, byte) ||
         (!parent->wide && !child->utf8_need &&
          !ep__name_char_ends(rec->text.items, walk->full[parent->full].run.tok_start, parent->text_len, byte))))
        return false;
    child->dfa = next;
    if (dfa->winner[next] >= 0) {
        child->accept_end = parent->text_len + 1;
        child->accept_lexeme = dfa->winner[next];
    }
    if (!ep__grows(walk, rec, child))
        return false;   /* may still be viable by ending the token early: fed */
    child->text_len++;
    return true;
}

/* The whole state after `step`. */
static ep_snapshot ep__snapshot_of(const ep__walk *walk, const ep__step *step)
{
    ep_snapshot snap = walk->full[step->full];
    snap.run.dfa = step->dfa;
    snap.run.accept_end = step->accept_end;
    snap.run.accept_lexeme = step->accept_lexeme;
    snap.text_len = step->text_len;
    snap.utf8_need = step->utf8_need;
    snap.utf8_lo = step->utf8_lo;
    snap.utf8_hi = step->utf8_hi;
    return snap;
}

/* Sets `step` from the recognizer's state, whose snapshot is full[depth]. */
static void ep__step_of(ep_recognizer *rec, ep__walk *walk, uint32_t depth, ep__step *step)
{
    const ep_snapshot *snap = &walk->full[depth];
    const ep_run *run = &snap->run;
    step->dfa = run->dfa;
    step->accept_end = run->accept_end;
    step->accept_lexeme = run->accept_lexeme;
    step->text_len = snap->text_len;
    step->full = (uint16_t)depth;
    step->utf8_need = snap->utf8_need;
    step->utf8_lo = snap->utf8_lo;
    step->utf8_hi = snap->utf8_hi;
    step->direct = ep__direct(rec);
    step->wide = step->direct && ep__never_a_name(rec->text.items + run->tok_start, snap->text_len - run->tok_start);
}

/* Feeds `byte` after `parent` (at `depth`) through the recognizer; true
 * with at_depth[depth + 1] set if the text stays viable. */
static bool ep__step_fed(ep_recognizer *rec, ep__walk *walk, uint32_t depth, uint8_t byte)
{
    const ep__step *parent = &walk->at_depth[depth];
    ep_snapshot from = ep__snapshot_of(walk, parent);
    ep_snapshot_apply(rec, &from);
    char c = (char)byte;
    if (ep_feed(rec, &c, 1) != 1)
        return false;
    walk->full[depth + 1] = ep_snapshot_take(rec);
    ep__step *child = &walk->at_depth[depth + 1];
    ep__step_of(rec, walk, depth + 1, child);
    bool same_chart = walk->full[depth + 1].earley.charts == from.earley.charts &&
                      walk->full[depth + 1].run.chart == from.run.chart;
    child->epoch = same_chart ? parent->epoch : ++walk->epochs;
    return true;
}

static void ep__set(uint64_t *mask, uint32_t id)
{
    mask[id / 64] |= (uint64_t)1 << (id % 64);
}

uint32_t ep_trie_viable(const ep_trie *t, ep_recognizer *rec, uint64_t *mask, ep_trie_stats *stats)
{
    memset(mask, 0, ((t->n_tokens + 63) / 64) * sizeof *mask);
    if (stats)
        *stats = (ep_trie_stats){0};
    if (!ep_viable(rec))
        return 0;
    /* the path's bytes are written in place: room for the deepest */
    sm_array_reserve(&rec->text, rec->text.size + EP_TRIE_MAX_BYTES + 1);
    ep__walk *walk = sm_malloc(sizeof *walk);
    uint32_t states = rec->grammar->dfa.state_count;
    walk->grow_epoch = sm_calloc(states, sizeof *walk->grow_epoch);
    walk->grows = sm_malloc(states * sizeof *walk->grows);
    walk->epochs = 0;
    walk->full[0] = ep_snapshot_take(rec);
    ep__step_of(rec, walk, 0, &walk->at_depth[0]);
    walk->at_depth[0].epoch = 0;
    uint32_t allowed = 0;
    uint64_t visited = 0, parsed = 0;
    for (uint32_t i = 0; i < t->n_nodes;) {
        const ep__tnode *n = &t->nodes[i];
        const ep__step *parent = &walk->at_depth[n->depth];
        visited++;
        bool viable;
        if (ep__step_direct(rec, walk, parent, n->byte, &walk->at_depth[n->depth + 1])) {
            rec->text.items[parent->text_len] = (char)n->byte;
            viable = true;
        } else {
            parsed++;
            viable = ep__step_fed(rec, walk, n->depth, n->byte);
        }
        if (!viable) {
            i = n->skip;
            continue;
        }
        for (uint32_t k = 0; k < n->token_count; k++)
            ep__set(mask, t->tokens[n->first_token + k]);
        allowed += n->token_count;
        i++;
    }
    ep_snapshot_apply(rec, &walk->full[0]);
    sm_free(walk->grow_epoch);
    sm_free(walk->grows);
    sm_free(walk);
    if (stats) {
        stats->nodes = visited;
        stats->parsed = parsed;
    }
    return allowed;
}
