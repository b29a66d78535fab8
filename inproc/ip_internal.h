/*
 * ip_internal.h - what the files of inproc/ share, not exported.
 */
#ifndef SEAM_IP_INTERNAL_H
#define SEAM_IP_INTERNAL_H

#include <llama.h>

#include "seam_inproc.h"

typedef SM_ARRAY(int32_t) ip_ids;

struct ip_model {
    struct llama_model *model;
    char *path;
    mc_vocab *vocab;          /* every token's bytes (control tokens: none) */
    uint32_t n_vocab;
    ip_ids eog;               /* the ids that end generation */
    int32_t fim_pre, fim_suf, fim_mid;   /* -1 when the vocabulary has none */
    uint32_t refs;            /* the loader's and each backend's */
    uint64_t file_id[4];      /* the file as loaded (ip_model_same_file) */
};

bool ip_model_is_eog(const ip_model *model, int32_t id);
/* Tokenizes text into out (cleared first); control-token strings become
 * control tokens only with `special`. */
void ip_tokenize(const ip_model *model, const char *text, size_t len, bool special, ip_ids *out);

#endif
