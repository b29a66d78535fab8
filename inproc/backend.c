/*
 * backend.c - the `llama` backend: a model in seam's process answers the
 * decoding loop's requests.
 *
 * A request runs in libuv's thread pool: its prompt (the fill-in-the-middle
 * tokens around the left and right contexts, then the middle so far) is
 * compared with what the KV cache holds, only the tokens after the common
 * prefix are evaluated, and the next position is given: one per request,
 * whatever n_ahead asks, so that the loop decides each token before the
 * next forward pass is paid for (a server's run-ahead saves round trips,
 * and wastes what the loop refuses).  The position keeps the model's whole
 * distribution (a copy of its logits), which the loop receives with the top
 * candidates (mc_step.full).
 * A cancel is seen between tokens, and inside a long evaluation through
 * libllama's abort callback.  One context per backend: requests that
 * overlap take turns.
 *
 * The context has a sequence (a slot) per document whose KV cache is kept:
 * a request goes to the slot that shares the most of its prompt, or, when
 * none shares half of it (another document, or a far place in one), to the
 * slot used least recently.  Each slot has the whole context in tokens.
 */
#include "ip_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* A sequence of the KV cache: the tokens it holds, in order. */
typedef struct ip__slot {
    ip_ids cached;
    uint64_t used;                   /* the backend's `uses` when it last served; 0: never */
} ip__slot;

typedef struct ip__backend {
    mc_backend base;
    uv_loop_t *loop;
    ip_model *model;                 /* held (ip_model_retain) */
    struct llama_context *ctx;
    uint32_t n_ctx;
    uv_mutex_t lock;                 /* the context, one request at a time */
    ip__slot *slots;                 /* owned: n_slots sequences of the KV cache */
    uint32_t n_slots;
    uint64_t uses;                   /* requests evaluated, to order the slots by use */
    ip_ids pre, mid, suf;            /* the prompt's control parts */
    bool suffix_first;               /* a template that puts the suffix first */
    uint32_t in_flight;              /* requests not yet done */
    bool closing;                    /* freed: the last request frees it */
} ip__backend;


typedef struct ip__call {
    mc_call base;
    ip__backend *b;
    uv_work_t work;
    atomic_bool canceled;
    mc_step_cb on_step;
    mc_done_cb on_done;
    void *data;
    /* the request, copied */
    char *left, *right, *generated;
    size_t left_len, right_len, generated_len;
    int32_t *generated_ids;
    uint32_t generated_count;
    mc_project *project;             /* owned; NULL: none */
    uint32_t max_new, n_candidates;
    /* the answer: one position */
    bool have_step;
    mc_step step;
    float *logits;                   /* owned: the position's distribution */
    mc_logits full;
    uint32_t prompt_evaluated;       /* prompt tokens evaluated (not in the cache) */
    uint32_t slot;                   /* the sequence that serves it */
    int status;
    char message[256];
} ip__call;

/* ---- The prompt ------------------------------------------------------------------ */

/* Tokens of the contexts that fit in `budget`: the left context keeps its
 * end, the right context its start, three quarters of the room to the left
 * (what one side does not use goes to the other). */
static void ip__cut(uint32_t left, uint32_t right, uint32_t budget, uint32_t *keep_left, uint32_t *keep_right)
{
    if (left + right <= budget) {
        *keep_left = left;
        *keep_right = right;
        return;
    }
    uint32_t room_left = budget - budget / 4;
    uint32_t room_right = budget - room_left;
    if (left < room_left) {
        room_right += room_left - left;
        room_left = left;
    } else if (right < room_right) {
        room_left += room_right - right;
        room_right = right;
    }
    *keep_left = room_left < left ? room_left : left;
    *keep_right = room_right < right ? room_right : right;
}

static void ip__append(ip_ids *to, const int32_t *ids, uint32_t n)
{
    if (n == 0)
        return;   /* (ids may be NULL then: memcpy may not be given it) */
    sm_array_reserve(to, to->size + n);
    memcpy(to->items + to->size, ids, n * sizeof *ids);
    to->size += n;
}

/* The project head's pieces as ids: the vocabulary's repository tokens
 * for the control strings, each text tokenized alone (as llama.cpp's
 * server does for /infill). */
typedef struct ip__head {
    const ip_model *model;
    const mc_template *marks;
    int32_t rep, sep;
    ip_ids *out;
} ip__head;

static void ip__head_piece(void *data, const char *text, size_t len, bool special)
{
    ip__head *h = data;
    if (special) {
        sm_array_push(h->out, text == h->marks->repo_name ? h->rep : h->sep);
        return;
    }
    ip_ids ids = {0};
    ip_tokenize(h->model, text, len, false, &ids);
    ip__append(h->out, ids.items, ids.size);
    sm_array_free(&ids);
}

/* The project's chunks as ids into *out; *sep the file separator's id in
 * a repository format, else -1 (then the head goes at the prefix's start,
 * as comments). */
static void ip__project_head(const ip__call *c, ip_ids *out, int32_t *sep)
{
    const struct llama_vocab *lv = llama_model_get_vocab(c->b->model->model);
    int32_t rep = llama_vocab_fim_rep(lv);
    *sep = llama_vocab_fim_sep(lv);
    bool repo = rep != LLAMA_TOKEN_NULL && *sep != LLAMA_TOKEN_NULL;
    if (!repo)
        *sep = -1;
    /* the vocabulary's own marks; the strings only tell the pieces apart */
    static const mc_template marks = {.repo_name = "rep", .file_sep = "sep", .repo_line_break = true};
    ip__head h = {c->b->model, &marks, rep, *sep, out};
    mc_project_pieces(repo ? &marks : NULL, c->project, c->project ? c->project->count : 0, ip__head_piece, &h);
}

/* The whole prompt of a request: [project head] [BOS] PRE left SUF right
 * MID generated, or a template's order; without a repository format the
 * head starts the prefix. */
static void ip__prompt(ip__call *c, ip_ids *out)
{
    ip__backend *b = c->b;
    const ip_model *m = b->model;
    ip_ids left = {0}, right = {0}, gen = {0};
    ip_tokenize(m, c->left, c->left_len, false, &left);
    ip_tokenize(m, c->right, c->right_len, false, &right);
    if (c->generated_ids)
        ip__append(&gen, c->generated_ids, c->generated_count);
    else
        ip_tokenize(m, c->generated, c->generated_len, false, &gen);
    uint32_t fixed = b->pre.size + b->suf.size + b->mid.size + gen.size + 1;
    uint32_t room = c->max_new ? c->max_new : 1;
    uint32_t budget = b->n_ctx > fixed + room ? b->n_ctx - fixed - room : 0;
    uint32_t kl, kr;
    ip__cut(left.size, right.size, budget, &kl, &kr);
    /* the cursor's contexts keep their share; the project has the rest */
    ip_ids head = {0};
    int32_t sep;
    ip__project_head(c, &head, &sep);
    uint32_t keep, tail;
    mc_project_fit(head.items, head.size, sep, budget > kl + kr ? budget - kl - kr : 0, &keep, &tail);
    out->size = 0;
    if (sep >= 0) {
        ip__append(out, head.items, keep);
        ip__append(out, head.items + tail, head.size - tail);
    }
    const struct llama_vocab *lv = llama_model_get_vocab(m->model);
    if (llama_vocab_get_add_bos(lv) && llama_vocab_bos(lv) >= 0)
        sm_array_push(out, llama_vocab_bos(lv));
    ip__append(out, b->pre.items, b->pre.size);
    if (b->suffix_first) {
        ip__append(out, right.items, kr);
        ip__append(out, b->suf.items, b->suf.size);
        if (sep < 0)
            ip__append(out, head.items, keep);
        ip__append(out, left.items + (left.size - kl), kl);
    } else {
        if (sep < 0)
            ip__append(out, head.items, keep);
        ip__append(out, left.items + (left.size - kl), kl);
        ip__append(out, b->suf.items, b->suf.size);
        ip__append(out, right.items, kr);
    }
    ip__append(out, b->mid.items, b->mid.size);
    ip__append(out, gen.items, gen.size);
    sm_array_free(&left);
    sm_array_free(&right);
    sm_array_free(&gen);
    sm_array_free(&head);
}

/* ---- Evaluation ------------------------------------------------------------------- */

static bool ip__abort(void *data)
{
    ip__call *c = data;
    return atomic_load(&c->canceled);
}

/* Evaluates ids[from..n) after the slot's first `from` tokens; the logits
 * of the last one are kept.  False when libllama fails or is aborted (the
 * slot then holds only what was evaluated). */
static bool ip__eval(ip__call *c, const int32_t *ids, uint32_t from, uint32_t n)
{
    ip__backend *b = c->b;
    ip__slot *slot = &b->slots[c->slot];
    llama_seq_id seq = (llama_seq_id)c->slot;
    llama_memory_t mem = llama_get_memory(b->ctx);
    llama_memory_seq_rm(mem, seq, (llama_pos)from, -1);
    slot->cached.size = from;
    uint32_t n_batch = llama_n_batch(b->ctx);
    struct llama_batch batch = llama_batch_init((int32_t)n_batch, 0, 1);
    bool ok = true;
    for (uint32_t at = from; at < n && ok;) {
        uint32_t k = n - at < n_batch ? n - at : n_batch;
        batch.n_tokens = (int32_t)k;
        for (uint32_t i = 0; i < k; i++) {
            batch.token[i] = ids[at + i];
            batch.pos[i] = (llama_pos)(at + i);
            batch.n_seq_id[i] = 1;
            batch.seq_id[i][0] = seq;
            batch.logits[i] = at + i == n - 1;
        }
        if (llama_decode(b->ctx, batch) != 0) {
            ok = false;
            break;
        }
        ip__append(&slot->cached, ids + at, k);
        at += k;
    }
    llama_batch_free(batch);
    if (!ok)
        llama_memory_seq_rm(mem, seq, (llama_pos)slot->cached.size, -1);
    return ok;
}

static uint32_t ip__common(const ip_ids *a, const ip_ids *b)
{
    uint32_t n = 0;
    while (n < a->size && n < b->size && a->items[n] == b->items[n])
        n++;
    return n;
}

/* The slot for `prompt`: the one sharing the longest prefix with it, unless
 * that is less than half of it; then the least recently used. */
static uint32_t ip__choose_slot(const ip__backend *b, const ip_ids *prompt)
{
    uint32_t best = 0, best_common = 0, oldest = 0;
    for (uint32_t i = 0; i < b->n_slots; i++) {
        uint32_t k = ip__common(&b->slots[i].cached, prompt);
        if (k > best_common)
            best = i, best_common = k;
        if (b->slots[i].used < b->slots[oldest].used)
            oldest = i;
    }
    return best_common * 2 >= prompt->size ? best : oldest;
}

/* The position's candidates: the n best tokens by logit, an end of
 * generation as an empty token marked eos; the logits kept whole. */
static void ip__position(ip__call *c)
{
    const ip_model *m = c->b->model;
    uint32_t n = m->n_vocab;
    const float *logits = llama_get_logits_ith(c->b->ctx, -1);
    c->logits = sm_malloc((n ? n : 1) * sizeof *c->logits);
    memcpy(c->logits, logits, n * sizeof *logits);
    float top = -INFINITY;
    for (uint32_t t = 0; t < n; t++)
        if (c->logits[t] > top)
            top = c->logits[t];
    double sum = 0;
    for (uint32_t t = 0; t < n; t++)
        sum += exp((double)c->logits[t] - top);
    double logsum = top + log(sum);
    uint32_t k = c->n_candidates < n ? c->n_candidates : n;
    int32_t *best = sm_malloc((k ? k : 1) * sizeof *best);
    uint32_t have = 0;
    for (uint32_t t = 0; t < n; t++)
        mc_logits_keep_best(c->logits, best, &have, k, (int32_t)t);
    c->step = (mc_step){.chosen = have ? 0 : -1};
    for (uint32_t i = 0; i < have; i++) {
        uint32_t len;
        const char *bytes = mc_vocab_token(m->vocab, (uint32_t)best[i], &len);
        bool eos = ip_model_is_eog(m, best[i]);
        mc_step_add_token(&c->step, eos ? "" : bytes, eos ? 0 : len, c->logits[best[i]] - logsum, eos, best[i]);
    }
    sm_free(best);
    c->full = (mc_logits){.logits = c->logits, .n_vocab = n, .logsum = logsum, .vocab = m->vocab,
                          .eog = m->eog.items, .n_eog = m->eog.size};
}

static void ip__work(uv_work_t *work)
{
    ip__call *c = work->data;
    ip__backend *b = c->b;
    uv_mutex_lock(&b->lock);
    ip_ids prompt = {0};
    if (atomic_load(&c->canceled)) {
        c->status = SM_ECANCELED;
        uv_mutex_unlock(&b->lock);
        return;
    }
    llama_set_abort_callback(b->ctx, ip__abort, c);
    ip__prompt(c, &prompt);
    if (prompt.size + 1 >= b->n_ctx) {
        c->status = SM_ETOOBIG;
        snprintf(c->message, sizeof c->message, "the prompt (%u tokens) does not fit the context (%u)",
                 prompt.size, b->n_ctx);
        goto out;
    }
    c->slot = ip__choose_slot(b, &prompt);
    b->slots[c->slot].used = ++b->uses;
    uint32_t common = ip__common(&b->slots[c->slot].cached, &prompt);
    if (common == prompt.size)
        common--;   /* its logits are needed again */
    c->prompt_evaluated = prompt.size - common;
    if (!ip__eval(c, prompt.items, common, prompt.size)) {
        c->status = atomic_load(&c->canceled) ? SM_ECANCELED : SM_EIO;
        snprintf(c->message, sizeof c->message, "%s", c->status == SM_ECANCELED ? "canceled" : "the model failed");
        goto out;
    }
    ip__position(c);
    c->have_step = true;
out:
    llama_set_abort_callback(b->ctx, NULL, NULL);
    sm_array_free(&prompt);
    uv_mutex_unlock(&b->lock);
}

static void ip__backend_destroy(ip__backend *b);

static void ip__call_free(ip__call *c)
{
    mc_step_free(&c->step);
    sm_free(c->logits);
    mc_project_free(c->project);
    sm_free(c->left);
    sm_free(c->right);
    sm_free(c->generated);
    sm_free(c->generated_ids);
    sm_free(c);
}

static void ip__after(uv_work_t *work, int status)
{
    ip__call *c = work->data;
    ip__backend *b = c->b;
    int rc = status == UV_ECANCELED ? SM_ECANCELED : c->status;
    b->base.prompt_tokens += c->prompt_evaluated;
    b->base.prompt_reports++;
    if (rc == SM_OK && c->have_step) {
        c->step.full = &c->full;
        if (atomic_load(&c->canceled) || !c->on_step(c->data, &c->step))
            rc = SM_ECANCELED;
    }
    if (rc == SM_OK && atomic_load(&c->canceled))
        rc = SM_ECANCELED;
    c->on_done(c->data, rc, rc == SM_OK ? NULL : c->message[0] ? c->message : "canceled");
    ip__call_free(c);
    b->in_flight--;
    if (b->closing && b->in_flight == 0)
        ip__backend_destroy(b);
}

/* ---- The backend's vtable -------------------------------------------------------- */

static char *ip__dup(const char *s, size_t len)
{
    return sm_strndup(s ? s : "", s ? len : 0);
}

static int ip__start(mc_backend *base, const mc_request *r, mc_step_cb on_step, mc_done_cb on_done, void *data,
                     mc_call **out)
{
    ip__backend *b = (ip__backend *)base;
    ip__call *c = sm_calloc(1, sizeof *c);
    c->base.vtable = base->vtable;
    c->b = b;
    c->on_step = on_step;
    c->on_done = on_done;
    c->data = data;
    c->left = ip__dup(r->left, r->left_len);
    c->left_len = r->left ? r->left_len : 0;
    c->right = ip__dup(r->right, r->right_len);
    c->right_len = r->right ? r->right_len : 0;
    c->generated = ip__dup(r->generated, r->generated_len);
    c->generated_len = r->generated ? r->generated_len : 0;
    if (r->generated_ids && r->generated_count) {
        c->generated_ids = sm_malloc(r->generated_count * sizeof *c->generated_ids);
        memcpy(c->generated_ids, r->generated_ids, r->generated_count * sizeof *c->generated_ids);
        c->generated_count = r->generated_count;
    }
    c->project = mc_project_copy(r->project);
    c->max_new = r->max_new_tokens;
    c->n_candidates = r->n_candidates ? r->n_candidates : 1;
    c->work.data = c;
    atomic_init(&c->canceled, false);
    int rc = uv_queue_work(b->loop, &c->work, ip__work, ip__after);
    if (rc) {
        ip__call_free(c);
        return SM_EIO;
    }
    b->in_flight++;
    base->round_trips++;
    *out = &c->base;
    return SM_OK;
}

static void ip__cancel(mc_call *call)
{
    ip__call *c = (ip__call *)call;
    atomic_store(&c->canceled, true);
    uv_cancel((uv_req_t *)&c->work);   /* not yet running: after_work says UV_ECANCELED */
}

static void ip__backend_destroy(ip__backend *b)
{
    llama_free(b->ctx);
    ip_model_free(b->model);
    uv_mutex_destroy(&b->lock);
    for (uint32_t i = 0; i < b->n_slots; i++)
        sm_array_free(&b->slots[i].cached);
    sm_free(b->slots);
    sm_array_free(&b->pre);
    sm_array_free(&b->mid);
    sm_array_free(&b->suf);
    sm_free(b);
}

static void ip__free(mc_backend *base)
{
    ip__backend *b = (ip__backend *)base;
    if (b->in_flight) {
        b->closing = true;   /* the last request's after_work frees it */
        return;
    }
    ip__backend_destroy(b);
}

static const mc_backend_vtable ip__vtable = {
    .name = "llama",
    .start = ip__start,
    .cancel = ip__cancel,
    .free = ip__free,
};

/* ---- Creation --------------------------------------------------------------------- */

/* The prompt's control parts from a template's format: the literal text
 * around {prefix} and {suffix}, each of which must tokenize to control
 * tokens only. */
static int ip__template_parts(ip__backend *b, const mc_template *t, char *error, size_t error_size)
{
    const char *p = strstr(t->format, "{prefix}"), *s = strstr(t->format, "{suffix}");
    if (!p || !s) {
        snprintf(error, error_size, "the template %s lacks {prefix} or {suffix}", t->name);
        return SM_EINVAL;
    }
    b->suffix_first = s < p;
    const char *first = b->suffix_first ? s : p, *second = b->suffix_first ? p : s;
    const char *end = second + 8;
    ip_tokenize(b->model, t->format, (size_t)(first - t->format), true, &b->pre);
    ip_tokenize(b->model, first + 8, (size_t)(second - first - 8), true, &b->suf);
    ip_tokenize(b->model, end, strlen(end), true, &b->mid);
    const struct llama_vocab *lv = llama_model_get_vocab(b->model->model);
    ip_ids *parts[] = {&b->pre, &b->suf, &b->mid};
    for (size_t i = 0; i < 3; i++)
        for (uint32_t k = 0; k < parts[i]->size; k++)
            if (!(llama_vocab_get_attr(lv, parts[i]->items[k]) & (LLAMA_TOKEN_ATTR_CONTROL |
                                                                   LLAMA_TOKEN_ATTR_USER_DEFINED))) {
                snprintf(error, error_size, "the template %s does not fit this model: its markers are not "
                         "control tokens of its vocabulary", t->name);
                return SM_EINVAL;
            }
    return SM_OK;
}

int ip_backend_new(uv_loop_t *loop, ip_model *model, const ip_backend_options *options, mc_backend **out,
                   char *error, size_t error_size)
{
    *out = NULL;
    ip__backend *b = sm_calloc(1, sizeof *b);
    b->loop = loop;
    b->model = model;
    if (options->tmpl) {
        if (ip__template_parts(b, options->tmpl, error, error_size) != SM_OK) {
            sm_array_free(&b->pre);
            sm_array_free(&b->suf);
            sm_array_free(&b->mid);
            sm_free(b);
            return SM_EINVAL;
        }
    } else if (model->fim_pre >= 0 && model->fim_suf >= 0 && model->fim_mid >= 0) {
        sm_array_push(&b->pre, model->fim_pre);
        sm_array_push(&b->suf, model->fim_suf);
        sm_array_push(&b->mid, model->fim_mid);
    } else {
        snprintf(error, error_size, "the model %s has no fill-in-the-middle tokens in its vocabulary; name a "
                 "template that fits it", model->path);
        sm_free(b);
        return SM_EINVAL;
    }
    struct llama_context_params cp = llama_context_default_params();
    uint32_t train = (uint32_t)llama_model_n_ctx_train(model->model);
    uint32_t n_ctx = options->n_ctx ? options->n_ctx : 4096;
    if (train && n_ctx > train)
        n_ctx = train;
    uint32_t n_slots = options->n_slots ? options->n_slots : 4;
    cp.n_ctx = n_ctx * n_slots;
    cp.n_batch = 512;
    cp.n_ubatch = 512;
    cp.n_seq_max = n_slots;
    cp.kv_unified = false;   /* a stream per slot: attention sees only its own document */
    int threads = options->n_threads ? (int)options->n_threads : (int)uv_available_parallelism();
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = true;
    b->ctx = llama_init_from_model(model->model, cp);
    if (!b->ctx) {
        snprintf(error, error_size, "libllama could not make a context of %u tokens for %s", n_ctx, model->path);
        sm_array_free(&b->pre);
        sm_array_free(&b->suf);
        sm_array_free(&b->mid);
        sm_free(b);
        return SM_ENOMEM;
    }
    b->n_ctx = llama_n_ctx_seq(b->ctx);
    b->n_slots = llama_n_seq_max(b->ctx);
    b->slots = sm_calloc(b->n_slots, sizeof *b->slots);
    uv_mutex_init(&b->lock);
    b->base.vtable = &ip__vtable;
    ip_memory mem;
    ip_backend_memory(&b->base, &mem);
    sm_log(options->logger, SM_LOG_INFO, "model %s: weights %.1f MiB, KV cache %.1f MiB (%u documents of %u "
           "tokens), vocabulary %.1f MiB", model->path, mem.weights / 1048576.0, mem.kv_cache / 1048576.0,
           mem.n_slots, mem.n_ctx, mem.vocabulary / 1048576.0);
    ip_model_retain(model);
    b->base.max_candidates = 100;
    *out = &b->base;
    return SM_OK;
}

void ip_backend_memory(const mc_backend *backend, ip_memory *out)
{
    const ip__backend *b = (const ip__backend *)backend;
    const struct llama_model *m = b->model->model;
    uint64_t heads = (uint64_t)llama_model_n_head(m), kv_heads = (uint64_t)llama_model_n_head_kv(m);
    uint64_t kv_width = heads ? (uint64_t)llama_model_n_embd(m) / heads * kv_heads : 0;
    out->weights = llama_model_size(m);
    out->kv_cache = (uint64_t)b->n_ctx * b->n_slots * (uint64_t)llama_model_n_layer(m) * kv_width * 2 * 2;
    out->vocabulary = mc_vocab_bytes(b->model->vocab);
    out->n_ctx = b->n_ctx;
    out->n_slots = b->n_slots;
}
