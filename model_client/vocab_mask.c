/*
 * vocab_mask.c - the tokens of a whole vocabulary that keep the middle
 * viable, found together.
 *
 * The tokens' bytes are kept in a byte trie laid out in preorder: node i has
 * its byte, its depth, the index just past its subtree, and the tokens that
 * end there.  One walk over the array feeds each node's byte to the
 * recognizer from the state of its parent (a savepoint per depth: restoring
 * is a truncation), so tokens that share a prefix share the work of feeding
 * it, and a byte the recognizer refuses skips the node's whole subtree:
 * viability is closed under prefixes (a middle that cannot be completed
 * stays so whatever follows).
 */
#include "seam_model_client.h"

#include <stdlib.h>
#include <string.h>

enum { MC__MAX_TOKEN_BYTES = 256 };

typedef struct mc__tnode {
    uint32_t skip;         /* index just past this node's subtree */
    uint32_t first_token;  /* index into tokens[] of the first token ending here */
    uint16_t token_count;
    uint8_t byte;
    uint8_t depth;         /* 0 for the root's children */
} mc__tnode;

struct mc_vocab {
    uint32_t n_tokens;
    mc__tnode *nodes;
    uint32_t n_nodes;
    uint32_t *tokens;      /* token ids, grouped by the node they end at */
    char **bytes;          /* each token's bytes (owned), for the brute-force check */
    uint16_t *lens;
};

/* ---- Building ----------------------------------------------------------------- */

/* A temporary trie: children in sorted arrays, built by insertion. */
typedef struct mc__bnode {
    uint8_t byte;
    uint32_t *children;    /* node indices, sorted by byte */
    uint16_t n_children, cap_children;
    uint32_t *toks;
    uint16_t n_toks, cap_toks;
} mc__bnode;

typedef struct mc__builder {
    mc__bnode *nodes;
    uint32_t n, cap;
} mc__builder;

static uint32_t mc__bnew(mc__builder *b, uint8_t byte)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->nodes = sm_realloc(b->nodes, b->cap * sizeof *b->nodes);
    }
    memset(&b->nodes[b->n], 0, sizeof *b->nodes);
    b->nodes[b->n].byte = byte;
    return b->n++;
}

static uint32_t mc__bchild(mc__builder *b, uint32_t parent, uint8_t byte)
{
    mc__bnode *p = &b->nodes[parent];
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
    uint32_t child = mc__bnew(b, byte);
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

static void mc__badd_token(mc__builder *b, uint32_t node, uint32_t token)
{
    mc__bnode *p = &b->nodes[node];
    if (p->n_toks == p->cap_toks) {
        p->cap_toks = (uint16_t)(p->cap_toks ? p->cap_toks * 2 : 1);
        p->toks = sm_realloc(p->toks, p->cap_toks * sizeof *p->toks);
    }
    p->toks[p->n_toks++] = token;
}

/* Lays the subtree of `node` out in preorder (iteratively: depth is bounded
 * by the longest token, but recursion is avoided all the same). */
static void mc__layout(mc__builder *b, mc_vocab *v)
{
    uint32_t *stack = sm_malloc((MC__MAX_TOKEN_BYTES + 2) * sizeof *stack);
    uint32_t *next = sm_malloc((MC__MAX_TOKEN_BYTES + 2) * sizeof *next);   /* next child to visit */
    uint32_t *placed = sm_malloc((MC__MAX_TOKEN_BYTES + 2) * sizeof *placed); /* index in v->nodes */
    uint32_t depth = 0, token_at = 0;
    stack[0] = 0;
    next[0] = 0;
    placed[0] = UINT32_MAX;
    while (true) {
        mc__bnode *p = &b->nodes[stack[depth]];
        if (next[depth] < p->n_children) {
            uint32_t c = p->children[next[depth]++];
            mc__bnode *cn = &b->nodes[c];
            uint32_t at = v->n_nodes++;
            v->nodes[at] = (mc__tnode){.byte = cn->byte, .depth = (uint8_t)depth, .first_token = token_at,
                                       .token_count = cn->n_toks};
            if (cn->n_toks)
                memcpy(v->tokens + token_at, cn->toks, cn->n_toks * sizeof *cn->toks);
            token_at += cn->n_toks;
            depth++;
            stack[depth] = c;
            next[depth] = 0;
            placed[depth] = at;
            continue;
        }
        if (depth == 0)
            break;
        v->nodes[placed[depth]].skip = v->n_nodes;
        depth--;
    }
    sm_free(stack);
    sm_free(next);
    sm_free(placed);
}

mc_vocab *mc_vocab_new(const char *const *pieces, const uint32_t *lens, uint32_t count)
{
    mc_vocab *v = sm_calloc(1, sizeof *v);
    v->n_tokens = count;
    v->bytes = sm_calloc(count ? count : 1, sizeof *v->bytes);
    v->lens = sm_calloc(count ? count : 1, sizeof *v->lens);
    mc__builder b = {0};
    mc__bnew(&b, 0);   /* the root */
    uint32_t in_trie = 0;
    for (uint32_t t = 0; t < count; t++) {
        uint32_t len = lens[t] < MC__MAX_TOKEN_BYTES ? lens[t] : 0;   /* longer: never allowed */
        v->bytes[t] = sm_strndup(len ? pieces[t] : "", len);
        v->lens[t] = (uint16_t)len;
        if (!len)
            continue;
        uint32_t node = 0;
        for (uint32_t i = 0; i < len; i++)
            node = mc__bchild(&b, node, (uint8_t)pieces[t][i]);
        mc__badd_token(&b, node, t);
        in_trie++;
    }
    v->nodes = sm_malloc((b.n ? b.n : 1) * sizeof *v->nodes);
    v->tokens = sm_malloc((in_trie ? in_trie : 1) * sizeof *v->tokens);
    mc__layout(&b, v);
    for (uint32_t i = 0; i < b.n; i++) {
        sm_free(b.nodes[i].children);
        sm_free(b.nodes[i].toks);
    }
    sm_free(b.nodes);
    return v;
}

void mc_vocab_free(mc_vocab *v)
{
    if (!v)
        return;
    for (uint32_t t = 0; t < v->n_tokens; t++)
        sm_free(v->bytes[t]);
    sm_free(v->bytes);
    sm_free(v->lens);
    sm_free(v->nodes);
    sm_free(v->tokens);
    sm_free(v);
}

uint32_t mc_vocab_size(const mc_vocab *v)
{
    return v->n_tokens;
}

uint32_t mc_vocab_nodes(const mc_vocab *v)
{
    return v->n_nodes;
}

const char *mc_vocab_token(const mc_vocab *v, uint32_t t, uint32_t *len)
{
    if (t >= v->n_tokens) {
        *len = 0;
        return "";
    }
    *len = v->lens[t];
    return v->bytes[t];
}

/* ---- Masks ------------------------------------------------------------------------ */

static void mc__set(uint64_t *mask, uint32_t t)
{
    mask[t / 64] |= (uint64_t)1 << (t % 64);
}

uint32_t mc_vocab_mask(const mc_vocab *v, ep_recognizer *rec, uint64_t *mask, mc_mask_stats *stats)
{
    memset(mask, 0, ((v->n_tokens + 63) / 64) * sizeof *mask);
    ep_savepoint at_depth[MC__MAX_TOKEN_BYTES + 1];
    at_depth[0] = ep_save(rec);
    uint32_t allowed = 0, fed = 0;
    for (uint32_t i = 0; i < v->n_nodes;) {
        const mc__tnode *n = &v->nodes[i];
        ep_restore(rec, at_depth[n->depth]);
        char byte = (char)n->byte;
        fed++;
        if (ep_feed(rec, &byte, 1) != 1) {
            i = n->skip;
            continue;
        }
        for (uint32_t k = 0; k < n->token_count; k++)
            mc__set(mask, v->tokens[n->first_token + k]);
        allowed += n->token_count;
        at_depth[n->depth + 1] = ep_save(rec);
        i++;
    }
    ep_restore(rec, at_depth[0]);
    if (stats)
        stats->bytes_fed = fed;
    return allowed;
}

uint32_t mc_vocab_mask_brute(const mc_vocab *v, ep_recognizer *rec, uint64_t *mask, mc_mask_stats *stats)
{
    memset(mask, 0, ((v->n_tokens + 63) / 64) * sizeof *mask);
    ep_savepoint start = ep_save(rec);
    uint32_t allowed = 0;
    uint64_t fed = 0;
    for (uint32_t t = 0; t < v->n_tokens; t++) {
        if (!v->lens[t])
            continue;
        fed += v->lens[t];
        if (ep_feed(rec, v->bytes[t], v->lens[t]) == 1) {
            mc__set(mask, t);
            allowed++;
        }
        ep_restore(rec, start);
    }
    if (stats)
        stats->bytes_fed = fed;
    return allowed;
}
