/*
 * crossing.c - where a token that the middle starts can end inside the
 * right context (Melcer et al. §V-B, Figs. 6 to 8).
 *
 * The right context R may begin inside a token that the middle has to
 * finish: the rest of a name, a number, a string or a comment.  For every
 * automaton state q that some non-empty text can reach, R is run from q; by
 * maximal munch the token ends at the last position where the automaton
 * accepted before it died (or before R ended).  The pairs (index, lexeme)
 * over all q are the branches a fill-in-the-middle recognizer needs: index
 * 0 is a clean boundary, and a larger index means that R[0..index) is the
 * tail of a token of that lexeme.
 *
 * All runs are simulated together, one set of live states per position:
 * runs that meet in one state share their future, so each step costs at
 * most one transition per automaton state, and the live set shrinks fast
 * (most states die within a few bytes of R).
 */
#include "ep_crossing.h"

#include <string.h>

typedef struct ep_pending {
    uint32_t index;
    int32_t lexeme;
} ep_pending;

/* For each live automaton state, the candidate token ends of the runs now
 * in it (their last accepts so far). */
typedef SM_ARRAY(ep_pending) ep_pendings;
typedef SM_ARRAY(uint32_t) ep_states;

static void ep__pending_add(ep_pendings *set, uint32_t index, int32_t lexeme)
{
    for (uint32_t i = 0; i < set->size; i++)
        if (set->items[i].index == index && set->items[i].lexeme == lexeme)
            return;
    sm_array_push(set, ((ep_pending){index, lexeme}));
}

static void ep__result_add(ep_crossings *out, const ep_grammar *g, ep_pending p)
{
    if (p.lexeme < 0 || g->lexemes[p.lexeme].kind == EP_LEX_ERROR)
        return;
    for (uint32_t i = 0; i < out->size; i++)
        if (out->items[i].index == p.index && out->items[i].lexeme == (uint32_t)p.lexeme)
            return;
    sm_array_push(out, ((ep_crossing){p.index, (uint32_t)p.lexeme}));
}

int ep_crossing_indices(const ep_grammar *g, const char *right, size_t len, ep_crossings *out)
{
    const ep_dfa *dfa = &g->dfa;
    uint32_t states = dfa->state_count;
    ep_pendings *pending = sm_calloc(states, sizeof *pending);
    ep_pendings *next_pending = sm_calloc(states, sizeof *next_pending);
    uint32_t *seen = sm_calloc(states, sizeof(uint32_t));
    ep_states live, next_live;
    sm_array_init(&live);
    sm_array_init(&next_live);
    /* the states some non-empty text reaches: everything reachable from
     * the start in one or more steps */
    ep_states stack;
    sm_array_init(&stack);
    sm_array_push(&stack, EP_DFA_START);
    uint8_t *reached = sm_calloc(states, 1);
    while (stack.size) {
        uint32_t s = sm_array_pop(&stack);
        for (uint32_t c = 0; c < dfa->class_count; c++) {
            uint32_t t = dfa->next[(size_t)s * dfa->class_count + c];
            if (t != EP_DFA_DEAD && !reached[t]) {
                reached[t] = 1;
                sm_array_push(&stack, t);
            }
        }
    }
    sm_array_free(&stack);
    for (uint32_t s = 0; s < states; s++) {
        if (!reached[s])
            continue;
        sm_array_push(&live, s);
        if (dfa->winner[s] >= 0)
            ep__pending_add(&pending[s], 0, dfa->winner[s]);
    }
    sm_free(reached);
    for (size_t i = 0; i < len && live.size; i++) {
        uint8_t byte = (uint8_t)right[i];
        next_live.size = 0;
        for (uint32_t k = 0; k < live.size; k++) {
            uint32_t s = live.items[k];
            uint32_t t = ep_dfa_step(dfa, s, byte);
            if (t == EP_DFA_DEAD) {
                for (uint32_t p = 0; p < pending[s].size; p++)
                    ep__result_add(out, g, pending[s].items[p]);
            } else {
                if (seen[t] != i + 1) {
                    seen[t] = (uint32_t)i + 1;
                    next_pending[t].size = 0;
                    sm_array_push(&next_live, t);
                }
                if (dfa->winner[t] >= 0)
                    ep__pending_add(&next_pending[t], (uint32_t)i + 1, dfa->winner[t]);
                else
                    for (uint32_t p = 0; p < pending[s].size; p++)
                        ep__pending_add(&next_pending[t], pending[s].items[p].index, pending[s].items[p].lexeme);
            }
            pending[s].size = 0;
        }
        ep_pendings *swap = pending;
        pending = next_pending;
        next_pending = swap;
        ep_states tmp = live;
        live = next_live;
        next_live = tmp;
    }
    /* runs still live at the end of R end their token at their last accept */
    for (uint32_t k = 0; k < live.size; k++) {
        uint32_t s = live.items[k];
        for (uint32_t p = 0; p < pending[s].size; p++)
            ep__result_add(out, g, pending[s].items[p]);
    }
    for (uint32_t s = 0; s < states; s++) {
        sm_array_free(&pending[s]);
        sm_array_free(&next_pending[s]);
    }
    sm_free(pending);
    sm_free(next_pending);
    sm_free(seen);
    sm_array_free(&live);
    sm_array_free(&next_live);
    return SM_OK;
}
