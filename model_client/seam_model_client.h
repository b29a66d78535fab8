/*
 * seam_model_client.h - talking to language models.
 *
 * This part holds the fill-in-the-middle prompt templates of the model
 * families seam knows: how a prefix and a suffix are laid out around the
 * family's control tokens, and which strings end a completion.
 */
#ifndef SEAM_MODEL_CLIENT_H
#define SEAM_MODEL_CLIENT_H

#include "seam_base.h"

typedef struct mc_template {
    const char *name;          /* "starcoder", "qwen2.5-coder", ... */
    const char *format;        /* "{prefix}" and "{suffix}" mark the contexts */
    const char *const *stops;  /* NULL-terminated list of stop strings */
} mc_template;

/* The template with this exact name, or NULL. */
const mc_template *mc_template_by_name(const char *name);

/* The template whose family a model name belongs to ("qwen2.5-coder:7b",
 * "bigcode/starcoder2-3b", ...), matched case-insensitively; NULL when the
 * family is not recognised. */
const mc_template *mc_template_for_model(const char *model_name);

/* The built-in templates, terminated by an entry whose name is NULL. */
const mc_template *mc_templates(void);

/* Appends the prompt for (prefix, suffix) to `out`.  Returns SM_OK, or
 * SM_ETOOBIG/SM_ENOMEM from the buffer, or SM_EINVAL when the format lacks a
 * "{prefix}" or "{suffix}" marker. */
int mc_template_render(const mc_template *tmpl, const char *prefix, size_t prefix_len,
                       const char *suffix, size_t suffix_len, sm_buf *out);

#endif
