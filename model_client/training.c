/*
 * training.c - the embedded model's training: corpora (the workspace's
 * and the standard library's files, the open buffers), trained in libuv's
 * thread pool.  The model of the files is kept in the user's cache folder
 * (cache/), keyed by the files' paths and what stat() says of them, so
 * that a second run over the same files loads it instead of training
 * again (about 2 s for the standard library); the open buffers, which
 * change from run to run, are trained on top of it, with an eighth more
 * nodes of their own.
 */
#include "mc_internal.h"

#include "seam_cache.h"

#include <dirent.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
    MC__MAX_FILE = 1 << 20,      /* files larger than this are skipped */
    MC__MAX_DEPTH = 12,
    MC__KEEP_SAVED = 4,          /* models kept in the cache folder */
    MC__KEEP_AFTER_MS = 300,     /* models trained faster than this are not kept */
};
#define MC__MAX_SAVED ((size_t)1 << 30)  /* a saved model read at most */

/* ---- Corpora ---------------------------------------------------------------- */

void mc_corpus_init(mc_corpus *corpus, size_t max_bytes)
{
    sm_array_init(&corpus->paths);
    sm_array_init(&corpus->texts);
    corpus->max_bytes = max_bytes;
    corpus->cache_dir = NULL;
    corpus->keep_after_ms = MC__KEEP_AFTER_MS;
}

void mc_corpus_add_path(mc_corpus *corpus, const char *path)
{
    sm_array_push(&corpus->paths, sm_strdup(path));
}

void mc_corpus_add_text(mc_corpus *corpus, const char *text, size_t len)
{
    sm_array_push(&corpus->texts, sm_strndup(text, len));
}

void mc_corpus_set_cache(mc_corpus *corpus, const char *dir)
{
    sm_free(corpus->cache_dir);
    corpus->cache_dir = dir ? sm_strdup(dir) : NULL;
}

void mc_corpus_free(mc_corpus *corpus)
{
    sm_free(corpus->cache_dir);
    corpus->cache_dir = NULL;
    for (uint32_t i = 0; i < corpus->paths.size; i++)
        sm_free(corpus->paths.items[i]);
    for (uint32_t i = 0; i < corpus->texts.size; i++)
        sm_free(corpus->texts.items[i]);
    sm_array_free(&corpus->paths);
    sm_array_free(&corpus->texts);
}

static bool mc__skip_dir(const char *name)
{
    return name[0] == '.' || strcmp(name, "site-packages") == 0 || strcmp(name, "__pycache__") == 0 ||
           strcmp(name, "node_modules") == 0 || strcmp(name, "dist-packages") == 0;
}

/* Whether a file's name ends with one of `endings` (with their dot). */
static bool mc__wanted(const char *name, const char *const *endings)
{
    size_t len = strlen(name);
    for (size_t i = 0; endings && endings[i]; i++) {
        size_t n = strlen(endings[i]);
        if (len > n && strcmp(name + len - n, endings[i]) == 0)
            return true;
    }
    return false;
}

static void mc__walk(mc_corpus *corpus, const char *dir, const char *const *endings, uint32_t depth, uint32_t *left)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        return;
    sm_buf path;
    sm_buf_init(&path, 4096);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        sm_buf_clear(&path);
        if (*left > 0 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
            sm_buf_printf(&path, "%s/%s", dir, name) == SM_OK) {
            struct stat st;
            if (lstat(path.data, &st) == 0) {
                if (S_ISDIR(st.st_mode) && !mc__skip_dir(name) && depth < MC__MAX_DEPTH)
                    mc__walk(corpus, path.data, endings, depth + 1, left);
                else if (S_ISREG(st.st_mode) && mc__wanted(name, endings)) {
                    mc_corpus_add_path(corpus, path.data);
                    (*left)--;
                }
            }
        }
        free(names[i]);
    }
    free(names);
    sm_buf_free(&path);
}

void mc_corpus_add_tree(mc_corpus *corpus, const char *dir, const char *const *endings, uint32_t max_files)
{
    uint32_t left = max_files;
    mc__walk(corpus, dir, endings, 0, &left);
}

/* Reads a whole file of at most MC__MAX_FILE bytes; NULL otherwise. */
static char *mc__read_file(const char *path, size_t *len)
{
    sm_buf text;
    if (sm_read_file(path, MC__MAX_FILE, &text) != SM_OK)
        return NULL;
    char *data = sm_buf_take(&text, len);
    return data ? data : sm_strdup("");
}

/* The nodes the open buffers may add past the files' max_nodes, trained
 * after them (an eighth more): the files' model is the one a corpus of
 * files alone makes, and the buffers always find room. */
static uint32_t mc__with_buffers(uint32_t max_nodes)
{
    return max_nodes + max_nodes / 8;
}

/* Trains a model of at most max_nodes on the corpus's files, until they
 * are read or *stop (NULL: never) is set, which it looks at between
 * files: NULL then. */
static mc_ngram *mc__train_files(const mc_corpus *corpus, uint32_t max_nodes, const atomic_bool *stop)
{
    mc_ngram *model = mc_ngram_new(max_nodes);
    size_t budget = corpus->max_bytes;
    for (uint32_t i = 0; i < corpus->paths.size && budget > 0; i++) {
        if (stop && atomic_load(stop)) {
            mc_ngram_free(model);
            return NULL;
        }
        size_t len;
        char *text = mc__read_file(corpus->paths.items[i], &len);
        if (!text)
            continue;
        if (len <= budget && sm_utf8_valid((const uint8_t *)text, len, false, NULL)) {
            mc_ngram_train(model, text, len);
            budget -= len;
        }
        sm_free(text);
    }
    mc_ngram_finish(model);
    return model;
}

/* What a model of the corpus's files is made from: this format, the caps,
 * and each file's path and what stat() says of it (a file edited, added
 * or removed names another model). */
static void mc__files_key(const mc_corpus *corpus, uint32_t max_nodes, ca_key *key)
{
    ca_key_init(key);
    ca_key_add_str(key, "seam embedded model 1");
    ca_key_add_u64(key, max_nodes);
    ca_key_add_u64(key, corpus->max_bytes);
    for (uint32_t i = 0; i < corpus->paths.size; i++) {
        ca_key_add_str(key, corpus->paths.items[i]);
        ca_key_add_stat(key, corpus->paths.items[i]);
    }
}

/* The model of the corpus's files: from the cache folder when it holds
 * one made from the same files, else trained (and then kept there). */
static mc_ngram *mc__files_model(const mc_corpus *corpus, uint32_t max_nodes, const atomic_bool *stop)
{
    ca_key key;
    if (corpus->cache_dir) {
        mc__files_key(corpus, max_nodes, &key);
        sm_buf saved;
        mc_ngram *kept = ca_get(corpus->cache_dir, "ngram", &key, MC__MAX_SAVED, &saved) == SM_OK
                             ? mc_ngram_load(saved.data, saved.len)
                             : NULL;
        sm_buf_free(&saved);
        if (kept)
            return kept;
    }
    uint64_t started = sm_now_ns();
    mc_ngram *model = mc__train_files(corpus, max_nodes, stop);
    /* kept only when training cost more than reading it back would: a
     * small workspace alone trains in a few milliseconds, while writing
     * tens of megabytes does not */
    bool worth = sm_now_ns() - started >= (uint64_t)corpus->keep_after_ms * 1000000u;
    if (model && corpus->cache_dir && worth) {
        sm_buf out;
        sm_buf_init(&out, MC__MAX_SAVED);
        if (mc_ngram_save(model, &out) == SM_OK)
            ca_put(corpus->cache_dir, "ngram", &key, out.data, out.len, MC__KEEP_SAVED);
        sm_buf_free(&out);
    }
    return model;
}

/* Trains on the corpus: its files first, or their model from the cache;
 * then the open buffers, three times each, since they are what the user is
 * writing now, with an eighth more nodes of their own.  NULL when *stop
 * was set. */
static mc_ngram *mc__train_until(const mc_corpus *corpus, uint32_t max_nodes, const atomic_bool *stop)
{
    mc_ngram *model = mc__files_model(corpus, max_nodes, stop);
    if (!model)
        return NULL;
    mc_ngram_set_max_nodes(model, mc__with_buffers(max_nodes));
    size_t budget = corpus->max_bytes;
    for (uint32_t i = 0; i < corpus->texts.size; i++) {
        size_t len = strlen(corpus->texts.items[i]);
        if (len > budget)
            continue;
        for (int k = 0; k < 3; k++)
            mc_ngram_train(model, corpus->texts.items[i], len);
        budget -= len;
    }
    if (corpus->texts.size)
        mc_ngram_finish(model);
    return model;
}

mc_ngram *mc_corpus_train(const mc_corpus *corpus, uint32_t max_nodes)
{
    return mc__train_until(corpus, max_nodes, NULL);
}

struct mc_train_job {
    uv_work_t work;
    mc_corpus corpus;
    uint32_t max_nodes;
    mc_ngram *model;
    mc_ngram_ready_cb on_ready;
    void *data;
    atomic_bool stop;
};

static void mc__train_work(uv_work_t *work)
{
    mc_train_job *job = work->data;
    job->model = mc__train_until(&job->corpus, job->max_nodes, &job->stop);
}

static void mc__train_after(uv_work_t *work, int status)
{
    mc_train_job *job = work->data;
    mc_corpus_free(&job->corpus);
    if (status != 0) {
        mc_ngram_free(job->model);
        job->model = NULL;
    }
    job->on_ready(job->data, job->model);
    sm_free(job);
}

int mc_corpus_train_async(uv_loop_t *loop, mc_corpus *corpus, uint32_t max_nodes, mc_ngram_ready_cb on_ready,
                          void *data, mc_train_job **out)
{
    mc_train_job *job = sm_calloc(1, sizeof *job);
    job->corpus = *corpus;
    mc_corpus_init(corpus, corpus->max_bytes);
    job->max_nodes = max_nodes;
    job->on_ready = on_ready;
    job->data = data;
    job->work.data = job;
    atomic_init(&job->stop, false);
    int rc = uv_queue_work(loop, &job->work, mc__train_work, mc__train_after);
    if (rc != 0) {
        *corpus = job->corpus;
        sm_free(job);
        return SM_EINVAL;
    }
    if (out)
        *out = job;
    return SM_OK;
}

void mc_train_cancel(mc_train_job *job)
{
    atomic_store(&job->stop, true);
    uv_cancel((uv_req_t *)&job->work);   /* not started yet: it never will */
}

