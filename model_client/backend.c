/*
 * backend.c - candidate lists and the backend interface's dispatch.
 */
#include "mc_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mc_step_free(mc_step *step)
{
    for (uint32_t i = 0; i < step->count; i++)
        sm_free(step->cands[i].bytes);
    sm_free(step->cands);
    step->cands = NULL;
    step->count = 0;
    step->chosen = -1;
}

void mc_step_add_token(mc_step *step, const char *bytes, size_t len, double logprob, bool eos, int32_t id)
{
    step->cands = sm_realloc(step->cands, (step->count + 1) * sizeof *step->cands);
    mc_token *t = &step->cands[step->count++];
    t->bytes = sm_strndup(bytes, len);
    t->len = (uint32_t)len;
    t->logprob = logprob;
    t->eos = eos;
    t->id = id;
}

void mc_step_add(mc_step *step, const char *bytes, size_t len, double logprob, bool eos)
{
    mc_step_add_token(step, bytes, len, logprob, eos, -1);
}

static bool mc__same(const mc_token *a, const mc_token *b)
{
    return a->eos == b->eos && (a->eos || (a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0));
}

void mc_step_normalize(mc_step *step)
{
    /* Insertion sort: lists are short, and it is stable. */
    for (uint32_t i = 1; i < step->count; i++) {
        mc_token t = step->cands[i];
        uint32_t j = i;
        double lp = isnan(t.logprob) ? -INFINITY : t.logprob;
        while (j > 0 && step->cands[j - 1].logprob < lp) {
            step->cands[j] = step->cands[j - 1];
            if (step->chosen == (int32_t)(j - 1))
                step->chosen = (int32_t)j;
            j--;
        }
        if (step->chosen == (int32_t)i)
            step->chosen = (int32_t)j;
        step->cands[j] = t;
    }
    /* Merge duplicates into their first (best) occurrence. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < step->count; i++) {
        int32_t dup = -1;
        for (uint32_t j = 0; j < kept && dup < 0; j++)
            if (mc__same(&step->cands[j], &step->cands[i]))
                dup = (int32_t)j;
        if (dup >= 0) {
            if (step->chosen == (int32_t)i)
                step->chosen = dup;
            sm_free(step->cands[i].bytes);
            continue;
        }
        if (step->chosen == (int32_t)i)
            step->chosen = (int32_t)kept;
        step->cands[kept++] = step->cands[i];
    }
    step->count = kept;
}

int mc_backend_start(mc_backend *backend, const mc_request *request, mc_step_cb on_step,
                     mc_done_cb on_done, void *data, mc_call **out)
{
    if (request->n_ahead == 0 || request->n_candidates == 0)
        return SM_EINVAL;
    return backend->vtable->start(backend, request, on_step, on_done, data, out);
}

void mc_call_cancel(mc_call *call)
{
    call->vtable->cancel(call);
}

void mc_backend_free(mc_backend *backend)
{
    if (backend)
        backend->vtable->free(backend);
}
