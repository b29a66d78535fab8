/*
 * seam_inproc.h - a language model in seam's own process, through libllama.
 *
 *  - ip_model: a GGUF model loaded once (weights, vocabulary, its
 *    fill-in-the-middle tokens, and the vocabulary's bytes in a trie for
 *    full-vocabulary masks); ip_vocab_load: the vocabulary alone;
 *  - the `llama` backend over it: the fill-in-the-middle prompt as token ids
 *    (the user's text always tokenized as text), generation in libuv's
 *    thread pool, cancellable between tokens, the KV cache kept per
 *    document so that only new tokens are evaluated, and every position's
 *    whole distribution handed to the decoding loop (mc_step.full).
 *
 * Built only when libllama is found (meson option `llama`).
 */
#ifndef SEAM_INPROC_H
#define SEAM_INPROC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "seam_model_client.h"

typedef struct ip_model ip_model;

/* Loads the GGUF file at `path` (CPU).  A file that is missing, not GGUF,
 * or that libllama cannot load (truncated, an unknown architecture) gives
 * SM_EIO or SM_EINVAL with a message naming the file and the reason;
 * libllama's own log goes to `logger` at debug level (may be NULL).
 * Setting *cancel (may be NULL) from another thread stops the load
 * (SM_ECANCELED). */
int ip_model_load(const char *path, sm_logger *logger, const atomic_bool *cancel, ip_model **out, char *error,
                  size_t error_size);
/* What ip_model_load checks before libllama reads the file, quickly (a
 * regular file that begins as GGUF does): for a caller that loads the
 * model later, off its loop. */
int ip_model_check(const char *path, char *error, size_t error_size);
/* Releases the loader's hold: the model goes when no backend uses it. */
void ip_model_free(ip_model *model);
/* Another holder of the model (a configuration that shares it): each
 * retain is released by an ip_model_free.  On the loop's thread only. */
void ip_model_retain(ip_model *model);
/* The model's vocabulary (owned by the model). */
const mc_vocab *ip_model_vocab(const ip_model *model);
/* True when `path` names the file the model was loaded from, unchanged
 * since (same inode, size and modification time). */
bool ip_model_same_file(const ip_model *model, const char *path);

/* Only the vocabulary of a GGUF file (llama.cpp's vocabulary-only files
 * will do): every token's bytes in a trie, control tokens without bytes.
 * Free with mc_vocab_free.  SM_EIO or SM_EINVAL with a message, as
 * ip_model_load. */
int ip_vocab_load(const char *path, mc_vocab **out, char *error, size_t error_size);

typedef struct ip_backend_options {
    uint32_t n_ctx;            /* context of a document in tokens; 0: min(model's, 4096) */
    uint32_t n_slots;          /* documents whose KV cache is kept; 0: 4 */
    uint32_t n_threads;        /* 0: the machine's cores */
    const mc_template *tmpl;   /* NULL: the vocabulary's FIM tokens */
    sm_logger *logger;         /* borrowed; may be NULL */
} ip_backend_options;

/* A backend over `model` (which it holds until freed), with its
 * own context and KV cache.  SM_EINVAL with a message when the model has no
 * FIM tokens and no template is given, or a template's control strings are
 * not tokens of the vocabulary. */
int ip_backend_new(uv_loop_t *loop, ip_model *model, const ip_backend_options *options, mc_backend **out,
                   char *error, size_t error_size);

/* What a llama backend holds in memory, in bytes. */
typedef struct ip_memory {
    uint64_t weights;        /* the model's tensors */
    uint64_t kv_cache;       /* the context's KV cache (16-bit keys and values) */
    uint64_t vocabulary;     /* each token's bytes and their trie */
    uint32_t n_ctx;          /* a document's context, in tokens */
    uint32_t n_slots;        /* documents whose KV cache is kept */
} ip_memory;

/* Fills *out for a backend made by ip_backend_new. */
void ip_backend_memory(const mc_backend *backend, ip_memory *out);

#endif
