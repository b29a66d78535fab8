/*
 * seam_inproc.h - a language model in seam's own process, through libllama.
 *
 *  - ip_model: a GGUF model loaded once (weights, vocabulary, its
 *    fill-in-the-middle tokens, and the vocabulary's bytes in a trie for
 *    full-vocabulary masks);
 *  - the `llama` backend over it: the fill-in-the-middle prompt as token ids
 *    (the user's text always tokenized as text), generation in libuv's
 *    thread pool, cancellable between tokens, the KV cache kept between
 *    requests so that only new tokens are evaluated, and every position's
 *    whole distribution handed to the decoding loop (mc_step.full).
 *
 * Built only when libllama is found (meson option `llama`).
 */
#ifndef SEAM_INPROC_H
#define SEAM_INPROC_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "seam_model_client.h"

typedef struct ip_model ip_model;

typedef struct ip_model_info {
    uint32_t n_vocab;
    uint32_t n_ctx_train;      /* the context the model was trained with */
    uint64_t weight_bytes;     /* the weights' size in memory */
    char desc[128];            /* libllama's description: architecture, size, type */
    bool has_fim;              /* the vocabulary names its FIM tokens */
} ip_model_info;

/* Loads the GGUF file at `path` (CPU).  A file that is missing, not GGUF,
 * or that libllama cannot load (truncated, an unknown architecture) gives
 * SM_EIO or SM_EINVAL with a message naming the file and the reason;
 * libllama's own log goes to `logger` at debug level (may be NULL). */
int ip_model_load(const char *path, sm_logger *logger, ip_model **out, char *error, size_t error_size);
/* Releases the loader's hold: the model goes when no backend uses it. */
void ip_model_free(ip_model *model);
void ip_model_get_info(const ip_model *model, ip_model_info *info);
/* The vocabulary's bytes in a trie (owned by the model). */
const mc_vocab *ip_model_vocab(const ip_model *model);

typedef struct ip_backend_options {
    uint32_t n_ctx;            /* context in tokens; 0: min(model's, 4096) */
    uint32_t n_threads;        /* 0: the machine's cores */
    const mc_template *tmpl;   /* NULL: the vocabulary's FIM tokens */
} ip_backend_options;

/* A backend over `model` (which it holds until freed), with its
 * own context and KV cache.  SM_EINVAL with a message when the model has no
 * FIM tokens and no template is given, or a template's control strings are
 * not tokens of the vocabulary. */
int ip_backend_new(uv_loop_t *loop, ip_model *model, const ip_backend_options *options, mc_backend **out,
                   char *error, size_t error_size);
/* Bytes of the backend's context (KV cache and compute buffers). */
size_t ip_backend_memory(const mc_backend *backend);
/* Tokens evaluated by the backend since it was created (prompt and
 * generated), and those the KV cache spared. */
void ip_backend_counts(const mc_backend *backend, uint64_t *evaluated, uint64_t *reused);

#endif
