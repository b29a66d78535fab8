/*
 * embedded.c - the model that needs no server: the backend that answers
 * from a model trained by training.c, mixed with one of the document at
 * hand.
 */
#include "mc_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
    MC__TEXT_TAIL = 1024,        /* bytes of left + generated the model looks at */
    MC__RIGHT_HEAD = 256,
};

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
