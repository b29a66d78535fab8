/*
 * vocab_mask.c - a model's vocabulary: each token's bytes, and the tokens
 * that keep the middle viable, found together over the parser's byte trie
 * (ep_trie_viable) or, as the reference, one token at a time.
 */
#include "seam_model_client.h"

#include <stdlib.h>
#include <string.h>

struct mc_vocab {
    uint32_t n_tokens;
    ep_trie *trie;
    char **bytes;          /* each token's bytes (owned) */
    uint16_t *lens;
};

mc_vocab *mc_vocab_new(const char *const *pieces, const uint32_t *lens, uint32_t count)
{
    mc_vocab *v = sm_calloc(1, sizeof *v);
    v->n_tokens = count;
    v->bytes = sm_calloc(count ? count : 1, sizeof *v->bytes);
    v->lens = sm_calloc(count ? count : 1, sizeof *v->lens);
    for (uint32_t t = 0; t < count; t++) {
        uint32_t len = lens[t] < EP_TRIE_MAX_BYTES ? lens[t] : 0;   /* longer: never allowed */
        v->bytes[t] = sm_strndup(len ? pieces[t] : "", len);
        v->lens[t] = (uint16_t)len;
    }
    v->trie = ep_trie_new(pieces, lens, count);
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
    ep_trie_free(v->trie);
    sm_free(v);
}

uint32_t mc_vocab_size(const mc_vocab *v)
{
    return v->n_tokens;
}

uint32_t mc_vocab_nodes(const mc_vocab *v)
{
    return ep_trie_nodes(v->trie);
}

size_t mc_vocab_bytes(const mc_vocab *v)
{
    size_t bytes = sizeof *v + ep_trie_bytes(v->trie) + (size_t)v->n_tokens * (sizeof *v->bytes + sizeof *v->lens);
    for (uint32_t t = 0; t < v->n_tokens; t++)
        bytes += v->lens[t] + 1;
    return bytes;
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
    ep_trie_stats st;
    uint32_t allowed = ep_trie_viable(v->trie, rec, mask, &st);
    if (stats)
        *stats = (mc_mask_stats){.bytes_fed = st.parsed, .bytes_lexed = st.nodes - st.parsed,
                                 .scans_made = st.scans_made, .scans_copied = st.scans_copied,
                                 .copied = st.copied, .in_fields = st.in_fields};
    return allowed;
}

uint32_t mc_vocab_prewarm(const mc_vocab *v, const ep_grammar *grammar)
{
    return ep_trie_prewarm(v->trie, grammar);
}

uint32_t mc_vocab_prewarm_names(const mc_vocab *v, const ep_grammar *grammar, const atomic_bool *stop)
{
    return ep_trie_prewarm_names(v->trie, grammar, stop);
}

uint32_t mc_vocab_prewarm_samples(const mc_vocab *v, const ep_grammar *grammar, const atomic_bool *stop)
{
    return ep_trie_prewarm_samples(v->trie, grammar, stop);
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
        *stats = (mc_mask_stats){.bytes_fed = fed};
    return allowed;
}
