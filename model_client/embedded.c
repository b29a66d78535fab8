/*
 * embedded.c - the model that needs no server: training corpora, training in
 * libuv's thread pool, and the backend that answers from a trained model.
 */
#include "mc_internal.h"

#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
    MC__MAX_FILE = 1 << 20,      /* files larger than this are skipped */
    MC__TEXT_TAIL = 1024,        /* bytes of left + generated the model looks at */
    MC__RIGHT_HEAD = 256,
    MC__MAX_DEPTH = 12,
};

/* ---- Corpora ---------------------------------------------------------------- */

void mc_corpus_init(mc_corpus *corpus, size_t max_bytes)
{
    sm_array_init(&corpus->paths);
    sm_array_init(&corpus->texts);
    corpus->max_bytes = max_bytes;
}

void mc_corpus_add_path(mc_corpus *corpus, const char *path)
{
    sm_array_push(&corpus->paths, sm_strdup(path));
}

void mc_corpus_add_text(mc_corpus *corpus, const char *text, size_t len)
{
    sm_array_push(&corpus->texts, sm_strndup(text, len));
}

void mc_corpus_free(mc_corpus *corpus)
{
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

static void mc__walk(mc_corpus *corpus, const char *dir, uint32_t depth, uint32_t *left)
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
                size_t len = strlen(name);
                if (S_ISDIR(st.st_mode) && !mc__skip_dir(name) && depth < MC__MAX_DEPTH)
                    mc__walk(corpus, path.data, depth + 1, left);
                else if (S_ISREG(st.st_mode) && len > 3 && strcmp(name + len - 3, ".py") == 0) {
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

void mc_corpus_add_tree(mc_corpus *corpus, const char *dir, uint32_t max_files)
{
    uint32_t left = max_files;
    mc__walk(corpus, dir, 0, &left);
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

/* Trains on the corpus until it is read or *stop (NULL: never) is set,
 * which it looks at between files: NULL then. */
static mc_ngram *mc__train_until(const mc_corpus *corpus, uint32_t max_nodes, const atomic_bool *stop)
{
    mc_ngram *model = mc_ngram_new(max_nodes);
    size_t budget = corpus->max_bytes;
    for (uint32_t i = 0; i < corpus->texts.size; i++) {
        size_t len = strlen(corpus->texts.items[i]);
        if (len > budget)
            continue;
        /* Open buffers weigh more than the rest: they are what the user
         * is writing now. */
        for (int k = 0; k < 3; k++)
            mc_ngram_train(model, corpus->texts.items[i], len);
        budget -= len;
    }
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

/* ---- The backend ------------------------------------------------------------------- */

enum {
    MC__LOCAL_LEFT = 32 << 10,     /* bytes before the cursor the local model learns */
    MC__LOCAL_RIGHT = 16 << 10,    /* and after it */
    MC__LOCAL_NODES = 1 << 17,
};

static const double MC__LOCAL_WEIGHT = 0.4;

typedef struct mc__embedded {
    mc_backend base;
    uv_loop_t *loop;
    const mc_ngram *model;
    mc_ngram *local;               /* the document at hand, or NULL */
    uint64_t local_key;            /* hash of the text it learnt */
} mc__embedded;

static uint64_t mc__hash(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The local model for a request's contexts: re-used while they are the
 * same (the requests of one completion), retrained otherwise. */
static const mc_ngram *mc__local_model(mc__embedded *b, const char *left, size_t l, const char *right, size_t rr)
{
    uint64_t key = mc__hash(mc__hash(1469598103934665603ull, left, l), right, rr) ^ ((uint64_t)l << 32 | rr);
    if (b->local && b->local_key == key)
        return b->local;
    mc_ngram_free(b->local);
    b->local = mc_ngram_new(MC__LOCAL_NODES);
    mc_ngram_train(b->local, left, l);
    mc_ngram_train(b->local, right, rr);
    mc_ngram_finish(b->local);
    b->local_key = key;
    return b->local;
}

typedef struct mc__ecall {
    mc_call base;
    mc__embedded *backend;
    uv_timer_t timer;
    sm_buf text;                       /* tail of left + generated */
    char *win_left, *win_right;        /* what the document's own model learns */
    size_t win_left_len, win_right_len;
    char *right;
    size_t right_len;
    uint32_t n_ahead, n_candidates;
    bool canceled;
    mc_step_cb on_step;
    mc_done_cb on_done;
    void *data;
} mc__ecall;

static void mc__call_closed(uv_handle_t *handle)
{
    mc__ecall *call = handle->data;
    sm_buf_free(&call->text);
    sm_free(call->win_left);
    sm_free(call->win_right);
    sm_free(call->right);
    sm_free(call);
}

static void mc__embedded_run(uv_timer_t *timer)
{
    mc__ecall *call = timer->data;
    int status = SM_OK;
    /* Runs one at a time on the loop: the shared local model cannot change
     * under a run. */
    const mc_ngram *local = call->canceled ? NULL
                            : mc__local_model(call->backend, call->win_left, call->win_left_len, call->win_right,
                                              call->win_right_len);
    for (uint32_t i = 0; i < call->n_ahead && !call->canceled; i++) {
        mc_step step = {0};
        mc_ngram_predict_mixed(call->backend->model, local, MC__LOCAL_WEIGHT,
                               call->text.data ? call->text.data : "", call->text.len, call->right, call->right_len,
                               call->n_candidates, &step);
        bool go_on = call->on_step(call->data, &step);
        bool ended = step.chosen < 0 || step.cands[step.chosen].eos;
        if (go_on && !ended)
            sm_buf_append(&call->text, step.cands[step.chosen].bytes, step.cands[step.chosen].len);
        mc_step_free(&step);
        if (!go_on) {
            status = SM_ECANCELED;
            break;
        }
        if (ended)
            break;
    }
    if (call->canceled)
        status = SM_ECANCELED;
    call->on_done(call->data, status, status == SM_ECANCELED ? "canceled" : NULL);
    uv_close((uv_handle_t *)&call->timer, mc__call_closed);
}

static int mc__embedded_start(mc_backend *base, const mc_request *req, mc_step_cb on_step, mc_done_cb on_done,
                              void *data, mc_call **out)
{
    mc__embedded *b = (mc__embedded *)base;
    mc__ecall *call = sm_calloc(1, sizeof *call);
    call->base.vtable = base->vtable;
    call->backend = b;
    sm_buf_init(&call->text, 2 * MC__TEXT_TAIL + (1 << 20));
    size_t total = req->left_len + req->generated_len;
    if (total > MC__TEXT_TAIL) {
        size_t skip = total - MC__TEXT_TAIL;
        if (skip < req->left_len) {
            sm_buf_append(&call->text, req->left + skip, req->left_len - skip);
            sm_buf_append(&call->text, req->generated, req->generated_len);
        } else {
            sm_buf_append(&call->text, req->generated + (skip - req->left_len), total - skip);
        }
    } else {
        sm_buf_append(&call->text, req->left, req->left_len);
        sm_buf_append(&call->text, req->generated, req->generated_len);
    }
    call->win_left_len = req->left_len < MC__LOCAL_LEFT ? req->left_len : MC__LOCAL_LEFT;
    call->win_left = sm_strndup(req->left + (req->left_len - call->win_left_len), call->win_left_len);
    call->win_right_len = req->right_len < MC__LOCAL_RIGHT ? req->right_len : MC__LOCAL_RIGHT;
    call->win_right = sm_strndup(req->right, call->win_right_len);
    call->right_len = req->right_len < MC__RIGHT_HEAD ? req->right_len : MC__RIGHT_HEAD;
    call->right = sm_strndup(req->right, call->right_len);
    call->n_ahead = req->n_ahead;
    call->n_candidates = req->n_candidates;
    call->on_step = on_step;
    call->on_done = on_done;
    call->data = data;
    uv_timer_init(b->loop, &call->timer);
    call->timer.data = call;
    uv_timer_start(&call->timer, mc__embedded_run, 0, 0);
    base->round_trips++;
    *out = &call->base;
    return SM_OK;
}

static void mc__embedded_cancel(mc_call *call)
{
    ((mc__ecall *)call)->canceled = true;
}

static void mc__embedded_free(mc_backend *base)
{
    mc_ngram_free(((mc__embedded *)base)->local);
    sm_free(base);
}

static const mc_backend_vtable mc__embedded_vtable = {
    .name = "embedded",
    .start = mc__embedded_start,
    .cancel = mc__embedded_cancel,
    .free = mc__embedded_free,
};

int mc_backend_embedded_new(uv_loop_t *loop, const mc_ngram *model, mc_backend **out)
{
    mc__embedded *b = sm_calloc(1, sizeof *b);
    b->base.vtable = &mc__embedded_vtable;
    b->base.max_candidates = 64;
    b->loop = loop;
    b->model = model;
    *out = &b->base;
    return SM_OK;
}
