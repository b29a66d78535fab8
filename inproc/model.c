/*
 * model.c - a GGUF model loaded through libllama, with what the decoding
 * loop needs of its vocabulary: every token's bytes in a trie, the tokens
 * that end generation, and the fill-in-the-middle tokens.
 */
#include "ip_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

/* libllama's log is process-wide; seam keeps it quiet (its errors are
 * reported as seam's own messages). */
static void ip__quiet(enum ggml_log_level level, const char *text, void *data)
{
    (void)level;
    (void)text;
    (void)data;
}

/* A clear reason for a file libllama would refuse, before it tries. */
static int ip__check_file(const char *path, char *error, size_t error_size)
{
    /* Only a regular file: opening a FIFO blocks until something writes
     * to it, and a directory is no model at all. */
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(error, error_size, "cannot open the model file %s: %s", path, strerror(errno));
        return SM_EIO;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(error, error_size, "the model path %s is a directory, not a GGUF file", path);
        return SM_EINVAL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(error, error_size, "the model path %s is not a regular file (a pipe or a device)", path);
        return SM_EINVAL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(error, error_size, "cannot open the model file %s: %s", path, strerror(errno));
        return SM_EIO;
    }
    char magic[4] = {0};
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    if (got < sizeof magic || memcmp(magic, "GGUF", 4) != 0) {
        snprintf(error, error_size, "%s is not a GGUF model file", path);
        return SM_EINVAL;
    }
    return SM_OK;
}

/* Every token's bytes in a trie.  Control tokens have no text here: a
 * mask never allows them (the ends of generation are handled on their
 * own). */
static mc_vocab *ip__vocab_of(const struct llama_vocab *lv)
{
    uint32_t n = (uint32_t)llama_vocab_n_tokens(lv);
    char **pieces = sm_calloc(n ? n : 1, sizeof *pieces);
    uint32_t *lens = sm_calloc(n ? n : 1, sizeof *lens);
    char buf[512];
    for (uint32_t t = 0; t < n; t++) {
        int k = llama_token_to_piece(lv, (llama_token)t, buf, sizeof buf, 0, false);
        if (k > 0) {
            pieces[t] = sm_strndup(buf, (size_t)k);
            lens[t] = (uint32_t)k;
        }
    }
    mc_vocab *v = mc_vocab_new((const char *const *)pieces, lens, n);
    for (uint32_t t = 0; t < n; t++)
        sm_free(pieces[t]);
    sm_free(pieces);
    sm_free(lens);
    return v;
}

static void ip__load_vocab(ip_model *m)
{
    const struct llama_vocab *lv = llama_model_get_vocab(m->model);
    m->n_vocab = (uint32_t)llama_vocab_n_tokens(lv);
    m->vocab = ip__vocab_of(lv);
    for (uint32_t t = 0; t < m->n_vocab; t++)
        if (llama_vocab_is_eog(lv, (llama_token)t))
            sm_array_push(&m->eog, (int32_t)t);
    m->fim_pre = llama_vocab_fim_pre(lv);
    m->fim_suf = llama_vocab_fim_suf(lv);
    m->fim_mid = llama_vocab_fim_mid(lv);
}

/* What tells a file from its replacement: device, inode, size, change time. */
static void ip__file_id(const struct stat *st, uint64_t id[4])
{
    id[0] = (uint64_t)st->st_dev;
    id[1] = (uint64_t)st->st_ino;
    id[2] = (uint64_t)st->st_size;
    id[3] = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
}

/* libllama's model of the file, or an error with a message naming it. */
/* libllama's progress: the load goes on while the caller wants it. */
static bool ip__go_on(float progress, void *data)
{
    (void)progress;
    return !atomic_load((const atomic_bool *)data);
}

static int ip__load(const char *path, bool vocab_only, const atomic_bool *cancel, struct llama_model **out,
                    char *error, size_t error_size)
{
    int rc = ip__check_file(path, error, error_size);
    if (rc)
        return rc;
    llama_log_set(ip__quiet, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.vocab_only = vocab_only;
    if (cancel) {
        mp.progress_callback = ip__go_on;
        mp.progress_callback_user_data = (void *)cancel;
    }
    *out = llama_model_load_from_file(path, mp);
    if (!*out && cancel && atomic_load(cancel)) {
        snprintf(error, error_size, "the load of %s was canceled", path);
        return SM_ECANCELED;
    }
    if (!*out) {
        snprintf(error, error_size, "%s could not be loaded as a model (truncated, or an architecture this "
                 "libllama does not know)", path);
        return SM_EINVAL;
    }
    return SM_OK;
}

int ip_vocab_load(const char *path, mc_vocab **out, char *error, size_t error_size)
{
    *out = NULL;
    struct llama_model *model;
    int rc = ip__load(path, true, NULL, &model, error, error_size);
    if (rc)
        return rc;
    *out = ip__vocab_of(llama_model_get_vocab(model));
    llama_model_free(model);
    return SM_OK;
}

int ip_model_check(const char *path, char *error, size_t error_size)
{
    return ip__check_file(path, error, error_size);
}

int ip_model_load(const char *path, sm_logger *logger, const atomic_bool *cancel, ip_model **out, char *error,
                  size_t error_size)
{
    *out = NULL;
    struct llama_model *model;
    int rc = ip__load(path, false, cancel, &model, error, error_size);
    if (rc)
        return rc;
    ip_model *m = sm_calloc(1, sizeof *m);
    m->model = model;
    m->refs = 1;
    m->path = sm_strdup(path);
    struct stat st;
    if (stat(path, &st) == 0)
        ip__file_id(&st, m->file_id);
    ip__load_vocab(m);
    sm_log(logger, SM_LOG_DEBUG, "model %s: %u tokens, %u ends of generation, FIM tokens %d %d %d", path,
           m->n_vocab, m->eog.size, m->fim_pre, m->fim_suf, m->fim_mid);
    *out = m;
    return SM_OK;
}

void ip_model_retain(ip_model *m)
{
    m->refs++;
}

const mc_vocab *ip_model_vocab(const ip_model *m)
{
    return m->vocab;
}

bool ip_model_same_file(const ip_model *m, const char *path)
{
    struct stat st;
    uint64_t id[4];
    if (!m || !path || strcmp(m->path, path) != 0 || stat(path, &st) != 0)
        return false;
    ip__file_id(&st, id);
    return memcmp(id, m->file_id, sizeof id) == 0;
}

void ip_model_free(ip_model *m)
{
    if (!m || --m->refs > 0)
        return;
    mc_vocab_free(m->vocab);
    sm_array_free(&m->eog);
    llama_model_free(m->model);
    sm_free(m->path);
    sm_free(m);
}

bool ip_model_is_eog(const ip_model *m, int32_t id)
{
    return llama_vocab_is_eog(llama_model_get_vocab(m->model), id);
}

/* Tokenizes text; control-token strings are tokens only with `special`. */
void ip_tokenize(const ip_model *m, const char *text, size_t len, bool special, ip_ids *out)
{
    const struct llama_vocab *lv = llama_model_get_vocab(m->model);
    out->size = 0;
    if (len == 0)
        return;
    size_t cap = len + 16;
    sm_array_reserve(out, (uint32_t)cap);
    int32_t n = llama_tokenize(lv, text, (int32_t)len, out->items, (int32_t)cap, false, special);
    if (n < 0) {
        sm_array_reserve(out, (uint32_t)-n);
        n = llama_tokenize(lv, text, (int32_t)len, out->items, -n, false, special);
    }
    out->size = n > 0 ? (uint32_t)n : 0;
}
