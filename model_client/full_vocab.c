/*
 * full_vocab.c - choosing from a position's whole distribution under the
 * full-vocabulary mask: the best tokens that keep the middle viable
 * (greedy), or draws from the distribution restricted to them (sampling).
 * An end of generation is among the choices only where the middle can end.
 */
#include "mc_internal.h"

#include <math.h>
#include <stdlib.h>

double mc_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

void mc_logits_keep_best(const float *logits, int32_t *best, uint32_t *have, uint32_t cap, int32_t id)
{
    float v = logits[id];
    if (*have == cap && v <= logits[best[cap - 1]])
        return;
    uint32_t i = *have < cap ? (*have)++ : cap - 1;
    while (i > 0 && logits[best[i - 1]] < v) {
        best[i] = best[i - 1];
        i--;
    }
    best[i] = id;
}

/* The mask of the tokens that keep `rec` viable (owned by the caller), of
 * `words` words, `*allowed` of them set. */
static uint64_t *mc__mask(const mc_logits *f, ep_recognizer *rec, uint32_t *words, uint32_t *allowed)
{
    *words = (f->n_vocab + 63) / 64;
    uint64_t *mask = sm_malloc((*words ? *words : 1) * sizeof *mask);
    *allowed = mc_vocab_mask(f->vocab, rec, mask, NULL);
    return mask;
}

/* The end of generation with the highest logit, or -1. */
static int32_t mc__best_end(const mc_logits *f)
{
    int32_t end = -1;
    for (uint32_t i = 0; i < f->n_eog; i++)
        if (f->eog[i] >= 0 && (uint32_t)f->eog[i] < f->n_vocab && (end < 0 || f->logits[f->eog[i]] > f->logits[end]))
            end = f->eog[i];
    return end;
}

static void mc__add(const mc_logits *f, int32_t id, bool eos, mc_step *out)
{
    uint32_t len = 0;
    const char *bytes = eos ? "" : mc_vocab_token(f->vocab, (uint32_t)id, &len);
    mc_step_add_token(out, bytes, len, f->logits[id] - f->logsum, eos, id);
}

uint32_t mc_full_best(const mc_logits *f, ep_recognizer *rec, bool can_end, const mc_step *tried, uint32_t cap,
                      mc_step *out)
{
    uint32_t words, allowed;
    uint64_t *mask = mc__mask(f, rec, &words, &allowed);
    bool has_end = false;
    for (uint32_t i = 0; tried && i < tried->count; i++) {
        int32_t id = tried->cands[i].id;
        has_end |= tried->cands[i].eos;
        if (id >= 0 && (uint32_t)id < f->n_vocab)
            mask[id / 64] &= ~(UINT64_C(1) << (id % 64));
    }
    int32_t *best = sm_malloc((cap + 1) * sizeof *best);
    uint32_t have = 0;
    for (uint32_t w = 0; w < words; w++)
        for (uint64_t bits = mask[w]; bits; bits &= bits - 1)
            mc_logits_keep_best(f->logits, best, &have, cap, (int32_t)(w * 64 + (uint32_t)__builtin_ctzll(bits)));
    sm_free(mask);
    int32_t end = !has_end && can_end ? mc__best_end(f) : -1;
    if (end >= 0)
        mc_logits_keep_best(f->logits, best, &have, cap + 1, end);
    for (uint32_t i = 0; i < have; i++)
        mc__add(f, best[i], best[i] == end, out);
    sm_free(best);
    return have;
}

typedef struct mc__weighted {
    int32_t id;
    float logit;
} mc__weighted;

static int mc__by_logit(const void *a, const void *b)
{
    float x = ((const mc__weighted *)a)->logit, y = ((const mc__weighted *)b)->logit;
    return x < y ? 1 : x > y ? -1 : 0;
}

uint32_t mc_full_sample(const mc_logits *f, ep_recognizer *rec, bool can_end, double temperature, double top_p,
                        uint64_t *rng, uint32_t draws, mc_step *out)
{
    uint32_t words, allowed;
    uint64_t *mask = mc__mask(f, rec, &words, &allowed);
    int32_t end = can_end ? mc__best_end(f) : -1;
    mc__weighted *pool = sm_malloc((allowed + 1) * sizeof *pool);
    uint32_t n = 0;
    for (uint32_t w = 0; w < words; w++)
        for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
            int32_t id = (int32_t)(w * 64 + (uint32_t)__builtin_ctzll(bits));
            pool[n++] = (mc__weighted){id, f->logits[id]};
        }
    sm_free(mask);
    if (end >= 0)
        pool[n++] = (mc__weighted){end, f->logits[end]};
    if (!n) {
        sm_free(pool);
        return 0;
    }
    /* The distribution restricted to the pool, at the temperature; then its
     * nucleus: the best tokens whose mass reaches top_p. */
    float max = pool[0].logit;
    for (uint32_t i = 1; i < n; i++)
        max = pool[i].logit > max ? pool[i].logit : max;
    double *weight = sm_malloc(n * sizeof *weight), total = 0;
    bool nucleus = top_p > 0 && top_p < 1;
    if (nucleus)
        qsort(pool, n, sizeof *pool, mc__by_logit);
    for (uint32_t i = 0; i < n; i++)
        total += weight[i] = exp(((double)pool[i].logit - max) / temperature);
    if (nucleus) {
        double mass = 0;
        for (uint32_t i = 0; i < n; i++) {
            mass += weight[i];
            if (mass >= top_p * total) {
                n = i + 1;
                total = mass;
                break;
            }
        }
    }
    /* Draws without replacement. */
    uint32_t drawn = 0;
    for (; drawn < draws && total > 0; drawn++) {
        double pick = mc_random(rng) * total;
        uint32_t j = 0;
        for (; j + 1 < n; j++) {
            if (weight[j] > 0 && (pick -= weight[j]) < 0)
                break;
        }
        while (weight[j] <= 0 && j > 0)
            j--;
        if (weight[j] <= 0)
            break;
        mc__add(f, pool[j].id, pool[j].id == end, out);
        total -= weight[j];
        weight[j] = 0;
    }
    sm_free(weight);
    sm_free(pool);
    return drawn;
}
