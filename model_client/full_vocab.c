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

/* Whether `admit` admits token id after the middle; buf holds the middle
 * and is extended by the token's bytes for the check. */
static bool mc__admits(const mc_logits *f, const mc_admit *admit, sm_buf *buf, int32_t id)
{
    if (!admit || !admit->filter)
        return true;
    uint32_t len = 0;
    const char *bytes = mc_vocab_token(f->vocab, (uint32_t)id, &len);
    buf->len = admit->len;
    if (sm_buf_append(buf, bytes, len) != SM_OK)
        return false;
    return admit->filter(admit->data, buf->data, buf->len, false, admit->max_lines);
}

static void mc__admit_buffer(const mc_admit *admit, sm_buf *buf)
{
    sm_buf_init(buf, (admit ? admit->len : 0) + (1u << 20));   /* the middle and one token */
    if (admit && admit->filter)
        sm_buf_append(buf, admit->middle, admit->len);
}

/* Sifts pool[i] down the max-heap of pool[0..n) by logit. */
static void mc__sift(int32_t *heap, uint32_t n, uint32_t i, const float *logits)
{
    for (;;) {
        uint32_t best = i, l = 2 * i + 1, r = l + 1;
        if (l < n && logits[heap[l]] > logits[heap[best]])
            best = l;
        if (r < n && logits[heap[r]] > logits[heap[best]])
            best = r;
        if (best == i)
            return;
        int32_t t = heap[i];
        heap[i] = heap[best];
        heap[best] = t;
        i = best;
    }
}

/* The best allowed tokens that `admit` admits, in best[0..return), at most
 * cap: the allowed tokens are taken best first from a heap until cap are
 * admitted or MC_ADMIT_CHECKS were checked. */
static uint32_t mc__best_admitted(const mc_logits *f, const uint64_t *mask, uint32_t words, const mc_admit *admit,
                                  uint32_t cap, int32_t *best)
{
    uint32_t allowed = 0;
    for (uint32_t w = 0; w < words; w++)
        allowed += (uint32_t)__builtin_popcountll(mask[w]);
    int32_t *heap = sm_malloc((allowed ? allowed : 1) * sizeof *heap);
    uint32_t n = 0;
    for (uint32_t w = 0; w < words; w++)
        for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
            uint32_t id = w * 64 + (uint32_t)__builtin_ctzll(bits);
            if (id < f->n_vocab)
                heap[n++] = (int32_t)id;
        }
    for (uint32_t i = n / 2; i-- > 0;)
        mc__sift(heap, n, i, f->logits);
    sm_buf buf;
    mc__admit_buffer(admit, &buf);
    uint32_t have = 0;
    for (uint32_t checks = 0; n && have < cap && checks < MC_ADMIT_CHECKS; checks++) {
        int32_t id = heap[0];
        heap[0] = heap[--n];
        mc__sift(heap, n, 0, f->logits);
        if (mc__admits(f, admit, &buf, id))
            best[have++] = id;
    }
    sm_buf_free(&buf);
    sm_free(heap);
    return have;
}

uint32_t mc_full_best(const mc_logits *f, ep_recognizer *rec, bool can_end, const mc_step *tried, uint32_t cap,
                      const mc_admit *admit, mc_step *out)
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
    if (admit && admit->filter) {
        have = mc__best_admitted(f, mask, words, admit, cap, best);
    } else {
        for (uint32_t w = 0; w < words; w++)
            for (uint64_t bits = mask[w]; bits; bits &= bits - 1)
                mc_logits_keep_best(f->logits, best, &have, cap, (int32_t)(w * 64 + (uint32_t)__builtin_ctzll(bits)));
    }
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

#define MC__BUCKETS 1024
#define MC__SPAN 48.0   /* logits this far below the best (over T) weigh under e^-48 */

/* Keeps in pool[0..*n) (with their weights) the nucleus: the fewest best
 * tokens whose mass reaches `target`; returns its mass.  Tokens are sorted
 * into buckets by weight and only the bucket where the mass is reached is
 * sorted, so that a flat distribution over 150k tokens costs no full sort. */
static double mc__nucleus(mc__weighted *pool, double *weight, uint32_t *n, float max, double temperature,
                          double target)
{
    double mass[MC__BUCKETS] = {0};
    uint16_t *bucket = sm_malloc(*n * sizeof *bucket);
    for (uint32_t i = 0; i < *n; i++) {
        double below = ((double)max - pool[i].logit) / temperature * (MC__BUCKETS / MC__SPAN);
        bucket[i] = below >= MC__BUCKETS - 1 ? MC__BUCKETS - 1 : (uint16_t)below;
        mass[bucket[i]] += weight[i];
    }
    double above = 0;
    uint32_t cut = 0;
    while (cut < MC__BUCKETS - 1 && above + mass[cut] < target)
        above += mass[cut++];
    /* the buckets above `cut` whole, then `cut`'s best tokens */
    uint32_t kept = 0, edge = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (bucket[i] < cut) {
            mc__weighted p = pool[i];
            double w = weight[i];
            pool[i] = pool[kept], weight[i] = weight[kept];
            pool[kept] = p, weight[kept] = w;
            bucket[i] = bucket[kept];
            kept++;
        }
    for (uint32_t i = kept; i < *n; i++)
        if (bucket[i] == cut) {
            mc__weighted p = pool[i];
            pool[i] = pool[kept + edge];
            pool[kept + edge] = p;
            bucket[i] = bucket[kept + edge];
            edge++;
        }
    sm_free(bucket);
    qsort(pool + kept, edge, sizeof *pool, mc__by_logit);
    for (uint32_t i = kept; i < kept + edge; i++) {
        weight[i] = exp(((double)pool[i].logit - max) / temperature);
        above += weight[i];
        if (above >= target) {
            *n = i + 1;
            return above;
        }
    }
    *n = kept + edge;
    return above;
}

uint32_t mc_full_sample(const mc_logits *f, ep_recognizer *rec, bool can_end, double temperature, double top_p,
                        uint64_t *rng, uint32_t draws, const mc_admit *admit, mc_step *out)
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
    for (uint32_t i = 0; i < n; i++)
        total += weight[i] = exp(((double)pool[i].logit - max) / temperature);
    if (top_p > 0 && top_p < 1)
        total = mc__nucleus(pool, weight, &n, max, temperature, top_p * total);
    /* Draws without replacement; a token the filter refuses is put aside. */
    sm_buf buf;
    mc__admit_buffer(admit, &buf);
    uint32_t drawn = 0, checks = 0;
    while (drawn < draws && total > 0) {
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
        bool admitted = pool[j].id == end || mc__admits(f, admit, &buf, pool[j].id);
        if (admitted) {
            mc__add(f, pool[j].id, pool[j].id == end, out);
            drawn++;
        }
        total -= weight[j];
        weight[j] = 0;
        if (!admitted && ++checks >= MC_ADMIT_CHECKS)
            break;
    }
    sm_buf_free(&buf);
    sm_free(weight);
    sm_free(pool);
    return drawn;
}
