/*
 * prewarm.c - the lexeme trees a vocabulary's masks often need, built
 * before the first masks that would pay for them (a tree of the whole trie
 * is a walk of it, a few milliseconds on a 150k vocabulary).
 *
 * Three sets, from the cheapest: the trees of the tokens in progress the
 * language names as its mask starts (ep_trie_prewarm, when a model loads);
 * those of every automaton state a name's first bytes reach, in code and
 * in a field of a string with fields (ep_trie_prewarm_names); and those the
 * masks along the language's samples read (ep_trie_prewarm_samples): a
 * string's opening, the text after a field, a line join, the states no
 * list of single tokens reaches.  The last two run in the background.
 */
#include "ep_fields.h"
#include "ep_recognizer.h"
#include "ep_trie.h"

#include <string.h>

/* Builds the lexeme tree a mask starting inside `token` (its automaton
 * state `state`) reads, in a field's expression when `field`; true if the
 * trie keeps it. */
static bool ep__prewarm_one(const ep_trie *t, const ep_grammar *g, ep_names names, const char *token, size_t len,
                            uint32_t state, bool field)
{
    /* the key the walk makes for a mask that starts there */
    ep_ltree_key key = ep_trie_tree_key(g, EP_TRIE_ROOT, state, ep_trie_never_a_name(g, token, len), token, len);
    key.field = field;
    ep_ltree *owned;
    ep_ltree_get((ep_trie *)t, g, names, &key, &owned);
    ep_ltree_free(owned);
    return !owned;
}

/* The longest name whose automaton states are prewarmed: a keyword's
 * prefixes ("instanceof" is 10 bytes). */
#define EP__PREWARM_NAME 12

/* A state a name's first bytes reach, with a text that reaches it. */
typedef struct ep__reached {
    uint32_t state;
    char text[EP__PREWARM_NAME + 1];
} ep__reached;
typedef SM_ARRAY(ep__reached) ep__reached_array;

/* Whether every byte of a name may stand in a field's expression as its
 * own (ep_fields_expr_byte), as the walk's field mode takes them. */
static bool ep__field_name(const ep_grammar *g, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!ep_fields_expr_byte(g, (uint8_t)text[i]))
            return false;
    return true;
}

/* Builds the trees of every automaton state a name's first bytes reach:
 * the states of keywords' prefixes ("re", "ret", "retu" ...) and the
 * name's own, in code and, where the grammar reads strings with fields,
 * in a field's expression (`f"{re`).  A mask inside a name typed so far
 * starts in one of them. */
static uint32_t ep__prewarm_names(const ep_trie *t, const ep_grammar *g, ep_names names, const atomic_bool *stop)
{
    uint32_t count = g->dfa.state_count, trees = 0;
    bool fields = ep_grammar_modal_strings(g);
    bool *seen = sm_calloc(count, sizeof *seen);
    /* breadth first: the states at depth d */
    ep__reached_array level = {0}, next = {0};
    sm_array_push(&level, ((ep__reached){.state = EP_DFA_START}));
    for (uint32_t depth = 0; depth < EP__PREWARM_NAME && level.size; depth++) {
        next.size = 0;
        for (size_t i = 0; i < level.size && !(stop && atomic_load(stop)); i++) {
            for (uint32_t b = 0; b < 128; b++) {
                if (!ep_trie_ascii_name_byte(g, (unsigned char)b) || (depth == 0 && b >= '0' && b <= '9'))
                    continue;
                uint32_t s = ep_dfa_step(&g->dfa, level.items[i].state, (uint8_t)b);
                if (s == EP_DFA_DEAD || s >= count || seen[s])
                    continue;
                seen[s] = true;
                ep__reached r = level.items[i];
                r.state = s;
                r.text[depth] = (char)b;
                r.text[depth + 1] = '\0';
                sm_array_push(&next, r);
                trees += ep__prewarm_one(t, g, names, r.text, depth + 1, s, false);
                if (fields && ep__field_name(g, r.text, depth + 1))
                    trees += ep__prewarm_one(t, g, names, r.text, depth + 1, s, true);
            }
        }
        ep__reached_array swap = level;
        level = next;
        next = swap;
    }
    sm_array_free(&level);
    sm_array_free(&next);
    sm_free(seen);
    return trees;
}

uint32_t ep_trie_prewarm(const ep_trie *t, const ep_grammar *g)
{
    const char *const *starts = g->lexical ? g->lexical->mask_starts : NULL;
    ep_names names = ep_trie_names(g, false);
    uint32_t trees = 0;
    for (size_t i = 0; starts && starts[i]; i++) {
        const char *token = starts[i];
        size_t len = strlen(token);
        uint32_t state = EP_DFA_START;
        for (size_t k = 0; k < len && state != EP_DFA_DEAD; k++)
            state = ep_dfa_step(&g->dfa, state, (uint8_t)token[k]);
        if (state != EP_DFA_DEAD)
            trees += ep__prewarm_one(t, g, names, token, len, state, false);
    }
    return trees;
}

uint32_t ep_trie_prewarm_names(const ep_trie *t, const ep_grammar *g, const atomic_bool *stop)
{
    return ep__prewarm_names(t, g, ep_trie_names(g, false), stop);
}

/* How many trees the trie keeps. */
static uint32_t ep__trees_kept(const ep_trie *t)
{
    ep_ltree_cache *c = (ep_ltree_cache *)&t->cache;
    pthread_mutex_lock(&c->lock);
    uint32_t count = c->count;
    pthread_mutex_unlock(&c->lock);
    return count;
}

/* A mask at every position of `sample` after its first byte, up to where
 * the grammar refuses it (a sample may be of a dialect or a version the
 * grammar is not). */
static void ep__prewarm_sample(const ep_trie *t, const ep_grammar *g, const char *sample, uint64_t *mask,
                               const atomic_bool *stop)
{
    ep_recognizer *rec;
    if (ep_recognizer_new(g, &rec) != SM_OK)
        return;
    size_t len = strlen(sample);
    for (size_t i = 0; i < len && !(stop && atomic_load(stop)); i++) {
        if (ep_feed(rec, sample + i, 1) != 1)
            break;
        ep_trie_viable(t, rec, mask, NULL);
    }
    ep_recognizer_free(rec);
}

uint32_t ep_trie_prewarm_samples(const ep_trie *t, const ep_grammar *g, const atomic_bool *stop)
{
    const char *const *samples = g->lexical ? g->lexical->mask_samples : NULL;
    if (!samples)
        return 0;
    uint32_t before = ep__trees_kept(t);
    uint64_t *mask = sm_malloc(((t->n_tokens + 63) / 64 + 1) * sizeof *mask);
    for (size_t i = 0; samples[i] && !(stop && atomic_load(stop)); i++)
        ep__prewarm_sample(t, g, samples[i], mask, stop);
    sm_free(mask);
    uint32_t after = ep__trees_kept(t);
    return after > before ? after - before : 0;
}
