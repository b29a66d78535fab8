/*
 * lextree.c - lexeme trees (ep_trie.h): a subtree of the vocabulary's trie
 * as the lexer's automaton sees it from one state, built once and shared.
 *
 * Building one is a walk of the subtree that takes a byte when it stays
 * inside the token in progress, exactly as the mask's walk takes a byte
 * directly (trie.c, ep__step_direct) but for braces in a str literal that is
 * not an f-string (text there, for the lexer and for CPython's checks, where
 * the walk feeds them), and except for the parser's part: whether
 * the token can still grow into a lexeme the parser allows depends on the
 * charts, so it is left to the mask, state by state.  Since that answer can
 * only turn from yes to no along a path (a state reaches no more than its
 * parent reaches), a token is allowed exactly when its own state grows, and
 * the nodes the mask must feed are the frontier under a growing parent and
 * the entries of a state that does not grow under one that does.
 */
#include "ep_trie.h"
#include "ep_recognizer.h"
#include "ep_fields.h"

#include <stdlib.h>
#include <string.h>

/* ---- Building ------------------------------------------------------------- */

typedef struct ep__lbuild {
    SM_ARRAY(uint32_t) tokens;
    SM_ARRAY(ep_lentry) entries;
    uint32_t dfa;
} ep__lbuild;

typedef SM_ARRAY(ep__lbuild) ep__lbuilds;

/* Offset in a build's path of the byte after the tree's node: the bytes
 * before it hold the first bytes of a character cut short there. */
#define EP__PATH 4

/* Whether the code point whose last byte is path[at] may stand in a name:
 * as its first character when its first byte is at `first_lead`. */
static bool ep__name_char(ep_names names, const uint8_t *path, uint32_t at, uint32_t first_lead)
{
    if (!names.name_char)
        return false;
    uint32_t lead = at;
    while (lead > 0 && (path[lead] & 0xC0) == 0x80)
        lead--;
    uint8_t first = path[lead];
    uint32_t width = at - lead + 1;
    uint32_t cp = first & (width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07);
    for (uint32_t i = lead + 1; i <= at; i++)
        cp = (cp << 6) | (path[i] & 0x3F);
    return names.name_char(cp, lead == first_lead);
}

enum { EP__REFUSED = -1, EP__FRONTIER = 0, EP__DIRECT = 1 };

/* What `byte` after `parent` does, as trie.c's ep__step_direct says it
 * (without whether the token can still grow): EP__DIRECT with *child set,
 * EP__REFUSED (broken UTF-8, or with names.refuse a character no name may hold
 * in a token that can only be a name from here), or EP__FRONTIER. */
static int ep__direct_byte(const ep_grammar *g, ep_names names, const ep_ltree_key *key, const ep_lstate *parent,
                           uint8_t *path, uint8_t byte, uint32_t first_lead, ep_lstate *child)
{
    ep_direct_at at = {.dfa = parent->dfa, .braces = key->braces, .stop = key->stop, .field = key->field,
                       .goals = names.goals, .goal_bits = key->goals};
    uint32_t next;
    int direct = ep_direct_next(g, &at, byte, &next);
    if (direct != EP_DIRECT_TAKEN)
        return direct == EP_DIRECT_REFUSED ? EP__REFUSED : EP__FRONTIER;
    *child = *parent;
    child->depth = (uint8_t)(parent->depth + 1);
    path[EP__PATH + child->depth] = byte;
    if (byte >= 0x80 || child->utf8_need) {
        if (!ep_utf8_next(&child->utf8_need, &child->utf8_lo, &child->utf8_hi, byte))
            return EP__REFUSED;
        if (!key->wide && !child->utf8_need && !ep__name_char(names, path, EP__PATH + child->depth, first_lead))
            return names.refuse && ep_lex_only_name(g, next) ? EP__REFUSED : EP__FRONTIER;
    }
    child->dfa = next;
    int32_t winner = ep_lex_winner(g, key->goals, next);
    if (winner >= 0) {
        child->accept_lexeme = winner;
        child->accept_depth = child->depth;
    }
    return EP__DIRECT;
}

static ep__lbuild *ep__group_of(ep__lbuilds *groups, int32_t *group_of, uint32_t state)
{
    if (group_of[state] < 0) {
        group_of[state] = (int32_t)groups->size;
        sm_array_push(groups, ((ep__lbuild){.dfa = state}));
    }
    return &groups->items[group_of[state]];
}

/* The automaton states a tree tells apart.  Whether a token in progress
 * grows depends on its state only through the lexemes the state can reach
 * (ep_run_can_grow_by), so the states that reach the same ones make one
 * group, under the first of them met (a name's bytes inside a character
 * outside ASCII pass through states that differ in nothing else), and a
 * byte between two of them is no entry: the walk feeds an entry only where
 * its parent grows and its own state does not.  met[]: state << 32 | the
 * state standing for it, for the few states a tree's bytes change to. */
typedef struct ep__classes {
    const ep_dfa *dfa;
    SM_ARRAY(uint64_t) met;
} ep__classes;

static uint32_t ep__class_of(ep__classes *c, uint32_t state)
{
    for (uint32_t i = 0; i < c->met.size; i++)
        if ((uint32_t)(c->met.items[i] >> 32) == state)
            return (uint32_t)c->met.items[i];
    const uint64_t *reach = ep_dfa_reachable(c->dfa, state);
    size_t bytes = c->dfa->set_words * sizeof *reach;
    uint32_t rep = state;
    for (uint32_t i = 0; i < c->met.size && rep == state; i++) {
        uint32_t other = (uint32_t)c->met.items[i];
        if (memcmp(ep_dfa_reachable(c->dfa, other), reach, bytes) == 0)
            rep = other;
    }
    sm_array_push(&c->met, (uint64_t)state << 32 | rep);
    return rep;
}

/* A frontier entry's place: by its parent's state, then by its byte, then
 * in preorder. */
typedef struct ep__place {
    uint32_t dfa, byte, node, index;
} ep__place;

static int ep__by_place(const void *a, const void *b)
{
    const ep__place *x = a, *y = b;
    if (x->dfa != y->dfa)
        return x->dfa < y->dfa ? -1 : 1;
    if (x->byte != y->byte)
        return x->byte < y->byte ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Orders the frontier by its parent's state, so that the walk commits the
 * token once for the bytes that end it in the same state, and then by
 * byte, so that it feeds each such byte once (trie_walk.c, ep__ended). */
static void ep__order_frontier(const ep_trie *t, ep_lentry *frontier, uint32_t count)
{
    ep__place *places = sm_malloc(count * sizeof *places);
    ep_lentry *copy = sm_malloc(count * sizeof *copy);
    for (uint32_t k = 0; k < count; k++) {
        copy[k] = frontier[k];
        places[k] = (ep__place){frontier[k].parent.dfa, t->nodes[frontier[k].node].byte, frontier[k].node, k};
    }
    qsort(places, count, sizeof *places, ep__by_place);
    for (uint32_t k = 0; k < count; k++)
        frontier[k] = copy[places[k].index];
    sm_free(copy);
    sm_free(places);
}

/* Whether a group's tokens are kept as words: when that takes a third of
 * the memory of their list or less (and so far fewer writes). */
static bool ep__packed(uint32_t tokens, uint32_t words)
{
    return tokens >= 16 && (size_t)words * sizeof(ep_lword) * 3 <= (size_t)tokens * sizeof(uint32_t) * 2;
}

/* The words of a mask that a group's tokens fill, into words[] (their
 * indices; in no order) with their bits in scratch[] (zero before, and
 * left so: the caller clears the words it read). */
static uint32_t ep__fill(const ep__lbuild *b, uint64_t *scratch, uint32_t *words)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->tokens.size; i++) {
        uint32_t id = b->tokens.items[i];
        if (!scratch[id / 64])
            words[n++] = id / 64;
        scratch[id / 64] |= (uint64_t)1 << (id % 64);
    }
    return n;
}

/* Lays the groups out in the tree's arrays (their tokens or words, then
 * their entries, group by group) and frees their own; counts the tree's
 * bytes so far.  `vocab` is the number of tokens. */
static void ep__flatten(ep_ltree *tree, ep__lbuilds *groups, uint32_t vocab)
{
    uint64_t *scratch = sm_calloc(vocab / 64 + 1, sizeof *scratch);
    uint32_t *touched = sm_malloc((vocab / 64 + 1) * sizeof *touched);
    uint32_t n_tokens = 0, n_entries = 0, n_words = 0;
    uint32_t *packed_words = sm_malloc((groups->size ? groups->size : 1) * sizeof *packed_words);
    for (uint32_t g = 0; g < groups->size; g++) {
        ep__lbuild *b = &groups->items[g];
        uint32_t words = ep__fill(b, scratch, touched);
        for (uint32_t i = 0; i < words; i++)
            scratch[touched[i]] = 0;
        packed_words[g] = ep__packed(b->tokens.size, words) ? words : 0;
        n_words += packed_words[g];
        n_tokens += packed_words[g] ? 0 : b->tokens.size;
        n_entries += b->entries.size;
    }
    tree->n_groups = groups->size;
    tree->groups = sm_malloc((groups->size ? groups->size : 1) * sizeof *tree->groups);
    tree->tokens = sm_malloc((n_tokens ? n_tokens : 1) * sizeof *tree->tokens);
    tree->words = sm_malloc((n_words ? n_words : 1) * sizeof *tree->words);
    tree->entries = sm_malloc((n_entries ? n_entries : 1) * sizeof *tree->entries);
    uint32_t tok = 0, ent = 0, word = 0;
    for (uint32_t g = 0; g < groups->size; g++) {
        ep__lbuild *b = &groups->items[g];
        ep_lgroup *group = &tree->groups[g];
        *group = (ep_lgroup){.dfa = b->dfa, .first_token = tok, .n_tokens = b->tokens.size, .first_entry = ent,
                             .n_entries = b->entries.size, .first_word = word, .n_words = packed_words[g]};
        if (group->n_words) {
            uint32_t words = ep__fill(b, scratch, touched);
            for (uint32_t i = 0; i < words; i++) {
                tree->words[word++] = (ep_lword){.bits = scratch[touched[i]], .index = touched[i]};
                scratch[touched[i]] = 0;
            }
        } else if (b->tokens.size) {
            memcpy(tree->tokens + tok, b->tokens.items, b->tokens.size * sizeof *tree->tokens);
            tok += b->tokens.size;
        }
        if (b->entries.size)
            memcpy(tree->entries + ent, b->entries.items, b->entries.size * sizeof *tree->entries);
        ent += b->entries.size;
        sm_array_free(&b->tokens);
        sm_array_free(&b->entries);
    }
    sm_free(packed_words);
    sm_free(touched);
    sm_free(scratch);
    tree->bytes = sizeof *tree + groups->size * sizeof *tree->groups + n_tokens * sizeof *tree->tokens +
                  n_words * sizeof *tree->words + n_entries * sizeof *tree->entries;
}

static ep_ltree *ep__build(const ep_trie *t, const ep_grammar *g, ep_names names, const ep_ltree_key *key)
{
    const ep_dfa *dfa = &g->dfa;
    uint32_t node = key->node;
    uint32_t lo = node == EP_TRIE_ROOT ? 0 : node + 1;
    uint32_t hi = node == EP_TRIE_ROOT ? t->n_nodes : t->nodes[node].skip;
    int base = node == EP_TRIE_ROOT ? -1 : (int)t->nodes[node].depth;
    ep_lstate at[EP_TRIE_MAX_BYTES + 2];
    uint8_t path[EP__PATH + EP_TRIE_MAX_BYTES + 2];
    at[0] = (ep_lstate){.dfa = key->dfa, .accept_lexeme = -1, .utf8_need = key->utf8_need,
                        .utf8_lo = key->utf8_lo, .utf8_hi = key->utf8_hi};
    /* the first bytes of a character cut short, from the node up */
    uint32_t first_lead = UINT32_MAX, p = EP__PATH;
    if (key->utf8_need && node != EP_TRIE_ROOT) {
        for (uint32_t up = node; up != UINT32_MAX && p > 0; up = t->nodes[up].parent) {
            path[p] = t->nodes[up].byte;
            if ((path[p] & 0xC0) != 0x80)
                break;
            p--;
        }
        if (key->first_char)
            first_lead = p;
    }
    int32_t *group_of = sm_malloc(dfa->state_count * sizeof *group_of);
    memset(group_of, 0xff, dfa->state_count * sizeof *group_of);
    ep__classes classes = {.dfa = dfa};
    sm_array_init(&classes.met);
    uint32_t class_at[EP_TRIE_MAX_BYTES + 2];   /* the class of at[r]'s state */
    class_at[0] = ep__class_of(&classes, key->dfa);
    ep__lbuilds groups = {0};
    SM_ARRAY(ep_lentry) frontier = {0};
    ep_ltree *tree = sm_calloc(1, sizeof *tree);
    tree->key = *key;
    for (uint32_t i = lo; i < hi;) {
        const ep_tnode *n = &t->nodes[i];
        uint32_t r = (uint32_t)((int)n->depth - base);
        const ep_lstate *parent = &at[r - 1];
        int direct = ep__direct_byte(g, names, key, parent, path, n->byte, first_lead, &at[r]);
        if (direct != EP__DIRECT) {
            if (direct == EP__FRONTIER)
                sm_array_push(&frontier, ((ep_lentry){.node = i, .parent = *parent}));
            i = n->skip;
            continue;
        }
        tree->n_nodes++;
        uint32_t class = at[r].dfa == parent->dfa ? class_at[r - 1] : ep__class_of(&classes, at[r].dfa);
        class_at[r] = class;
        ep__lbuild *group = ep__group_of(&groups, group_of, class);
        for (uint32_t k = 0; k < n->token_count; k++)
            sm_array_push(&group->tokens, t->tokens[n->first_token + k]);
        if (class != class_at[r - 1])
            sm_array_push(&group->entries, ((ep_lentry){.node = i, .parent = *parent}));
        i++;
    }
    ep__flatten(tree, &groups, t->n_tokens);
    if (frontier.size)
        ep__order_frontier(t, frontier.items, (uint32_t)frontier.size);
    tree->n_frontier = frontier.size;
    tree->frontier = frontier.items;   /* taken */
    tree->bytes += frontier.capacity * sizeof *tree->frontier;
    sm_array_free(&groups);
    sm_free(group_of);
    sm_array_free(&classes.met);
    return tree;
}

void ep_ltree_free(ep_ltree *tree)
{
    if (!tree)
        return;
    sm_free(tree->groups);
    sm_free(tree->tokens);
    sm_free(tree->words);
    sm_free(tree->entries);
    sm_free(tree->frontier);
    sm_free(tree);
}

/* ---- The cache -------------------------------------------------------------- */

void ep_ltree_cache_init(ep_ltree_cache *cache)
{
    memset(cache, 0, sizeof *cache);
    pthread_mutex_init(&cache->lock, NULL);
}

void ep_ltree_cache_free(ep_ltree_cache *cache)
{
    for (uint32_t i = 0; i < cache->capacity; i++)
        ep_ltree_free(cache->slots[i]);
    sm_free(cache->slots);
    pthread_mutex_destroy(&cache->lock);
}

static bool ep__same_key(const ep_ltree_key *a, const ep_ltree_key *b)
{
    return a->node == b->node && a->dfa == b->dfa && a->wide == b->wide && a->braces == b->braces &&
           a->first_char == b->first_char && a->goals == b->goals && a->stop == b->stop &&
           a->field == b->field &&
           a->utf8_need == b->utf8_need && a->utf8_lo == b->utf8_lo && a->utf8_hi == b->utf8_hi;
}

static uint32_t ep__slot(const ep_ltree_key *k, uint32_t capacity)
{
    uint64_t h = ((uint64_t)k->node << 32 | k->dfa) * 0x9E3779B97F4A7C15u ^
                 ((uint64_t)k->wide | (uint64_t)k->first_char << 1 | (uint64_t)k->braces << 2 |
                  (uint64_t)k->goals << 3 | (uint64_t)k->utf8_need << 8 |
                  (uint64_t)k->utf8_lo << 16 | (uint64_t)k->utf8_hi << 24 | (uint64_t)k->stop << 32 | (uint64_t)k->field << 40) *
                     0xC2B2AE3D27D4EB4Fu;
    return (uint32_t)(h >> 32) & (capacity - 1);
}

/* The cached tree for the key, or NULL; with the lock held. */
static ep_ltree *ep__find(const ep_ltree_cache *c, const ep_ltree_key *key)
{
    if (!c->capacity)
        return NULL;
    for (uint32_t i = ep__slot(key, c->capacity);; i = (i + 1) & (c->capacity - 1)) {
        ep_ltree *tree = c->slots[i];
        if (!tree)
            return NULL;
        if (ep__same_key(&tree->key, key))
            return tree;
    }
}

static void ep__insert(ep_ltree_cache *c, ep_ltree *tree)
{
    if (c->count + 1 > c->capacity / 2) {
        uint32_t capacity = c->capacity ? c->capacity * 2 : 1024;
        ep_ltree **slots = sm_calloc(capacity, sizeof *slots);
        for (uint32_t i = 0; i < c->capacity; i++) {
            ep_ltree *old = c->slots[i];
            if (!old)
                continue;
            uint32_t j = ep__slot(&old->key, capacity);
            while (slots[j])
                j = (j + 1) & (capacity - 1);
            slots[j] = old;
        }
        sm_free(c->slots);
        c->slots = slots;
        c->capacity = capacity;
    }
    uint32_t j = ep__slot(&tree->key, c->capacity);
    while (c->slots[j])
        j = (j + 1) & (c->capacity - 1);
    c->slots[j] = tree;
    c->count++;
    c->bytes += tree->bytes;
}

const ep_ltree *ep_ltree_get(ep_trie *t, const ep_grammar *g, ep_names names, const ep_ltree_key *key,
                             ep_ltree **owned)
{
    const ep_dfa *dfa = &g->dfa;
    ep_ltree_cache *c = &t->cache;
    *owned = NULL;
    pthread_mutex_lock(&c->lock);
    if (!c->count) {
        c->dfa_fingerprint = dfa->fingerprint;
        c->names = names;
    }
    /* Trees of another automaton are kept for it: this one's are not cached. */
    bool cacheable = c->dfa_fingerprint == dfa->fingerprint && c->names.name_char == names.name_char &&
                     c->names.refuse == names.refuse && c->names.goals == names.goals;
    ep_ltree *found = cacheable ? ep__find(c, key) : NULL;
    pthread_mutex_unlock(&c->lock);
    if (found)
        return found;
    ep_ltree *tree = ep__build(t, g, names, key);
    if (!cacheable) {
        *owned = tree;
        return tree;
    }
    pthread_mutex_lock(&c->lock);
    found = ep__find(c, key);   /* another thread may have built it meanwhile */
    if (!found && c->bytes + tree->bytes <= EP_LTREE_CACHE_BYTES) {
        ep__insert(c, tree);
        found = tree;
        tree = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (found) {
        ep_ltree_free(tree);
        return found;
    }
    *owned = tree;
    return tree;
}
