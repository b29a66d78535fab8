/*
 * trie.c - a vocabulary as a byte trie (ep_trie.h): built once per model,
 * laid out in preorder: node i has its byte, its depth, its parent, the
 * index just past its subtree, and the tokens that end there.  The walk
 * that masks it is trie_walk.c; the lexeme trees cached with it,
 * lextree.c.
 */
#include "ep_trie.h"

#include <string.h>

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
            t->nodes[at] = (ep_tnode){.byte = cn->byte, .depth = (uint8_t)depth, .first_token = token_at,
                                      .token_count = cn->n_toks, .parent = placed[depth]};
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
    ep_ltree_cache_init(&t->cache);
    ep__builder b = {0};
    ep__bnew(&b, 0);   /* the root */
    uint32_t in_trie = 0;
    for (uint32_t id = 0; id < count; id++) {
        if (!lens[id] || lens[id] >= EP_TRIE_MAX_BYTES)
            continue;
        uint32_t node = 0;
        uint64_t bytes = 0xcbf29ce484222325u;   /* FNV-1a of the token's bytes */
        for (uint32_t i = 0; i < lens[id]; i++) {
            node = ep__bchild(&b, node, (uint8_t)strings[id][i]);
            bytes = (bytes ^ (uint8_t)strings[id][i]) * 0x100000001b3u;
        }
        ep__badd_token(&b, node, id);
        in_trie++;
        t->fingerprint = sm_mix64(t->fingerprint ^ sm_mix64(bytes ^ lens[id]) ^ id);
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
    ep_ltree_cache_free(&t->cache);
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
    ep_ltree_cache *c = (ep_ltree_cache *)&t->cache;   /* its lock, not the trie, changes */
    pthread_mutex_lock(&c->lock);
    size_t trees = c->bytes + (size_t)c->capacity * sizeof *c->slots;
    pthread_mutex_unlock(&c->lock);
    return sizeof *t + (size_t)t->n_nodes * sizeof *t->nodes + (size_t)tokens * sizeof *t->tokens + trees;
}
