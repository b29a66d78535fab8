/*
 * decode.c - the constrained decoding loop.
 *
 * The loop asks the backend for positions (one per request, or several with
 * run-ahead) and decides each position locally: the candidates are tried in
 * order (greedy) or in a seeded random order weighted by their
 * probabilities (sampling); a token is taken when the recognizer stays
 * viable after it and the optional filter agrees; the end is taken only
 * where the recognizer can end.  When the loop takes a token other than the
 * one the model went on with, the rest of that request was generated after
 * the wrong text: the request is stopped and a new one starts from the text
 * the loop has.  So run-ahead gives exactly the per-token result.
 *
 * Every position where the middle is complete is remembered with the
 * probability the model gave the end there; when a budget stops the loop,
 * the best of them is the completion.
 */
#include "mc_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    MC__MAX_MIDDLE = 1 << 20,
    MC__MAX_ENDS = 64,        /* complete points kept for the run-on check */
    MC__REPEAT_MAX = 16,      /* bytes of the right context a run-on must repeat, at most */
    MC__REPEAT_REFUSED = 8,   /* bytes a refused candidate's run-on must reach */
    MC__REPEAT_LINES = 2,     /* lines of the right context a run-on writes before it is one for sure */
    MC__REPEAT_SURE = 256,    /* ... or bytes */
    MC__MAX_BACKTRACKS = 16,  /* positions gone back to, in one completion */
    MC__LOOP_LINES = 3,       /* a widened middle holding a line this often loops */
    MC__LOOP_RUNS = 4,        /* ... or ending with a text of MC__LOOP_MIN..MAX bytes this often */
    MC__LOOP_MIN = 4,
    MC__LOOP_MAX = 64,
};

/* A point where the middle could end. */
typedef struct mc__end {
    size_t len;
    uint32_t tokens;
    ep_savepoint point;
} mc__end;

/* A position the loop took a token at, to come back to when it finds no
 * way on and has no complete point yet. */
typedef struct mc__pos {
    mc_step step;           /* owned copy */
    uint32_t *order;        /* owned */
    uint32_t k;             /* the index in order of the candidate taken */
    ep_savepoint before;
    size_t middle_len;
    uint32_t tokens, lines;
} mc__pos;

static void mc__pos_free(mc__pos *p)
{
    mc_step_free(&p->step);
    sm_free(p->order);
}

struct mc_decode {
    uv_loop_t *loop;
    mc_backend *backend;
    ep_recognizer *rec;
    const char *left, *right;
    size_t left_len, right_len;
    size_t left_start, right_end;      /* the part sent to the model */
    mc_decode_options options;
    mc_filter_cb filter;
    void *filter_data;
    mc_decode_cb on_done;
    void *data;

    sm_buf middle;
    SM_ARRAY(uint32_t) token_ends;
    SM_ARRAY(int32_t) token_ids;       /* the model's id of each token, -1 unknown */
    uint32_t lines;                    /* line breaks in the middle */
    ep_savepoint start_point;

    mc_call *call;                     /* the request in flight, or NULL */
    bool diverged;                     /* this request's tokens are no longer ours */
    uint32_t steps_in_call;
    uint32_t steps_seen;         /* positions the backend gave, in all calls */

    bool pending_complete;             /* the middle as it stands is complete */
    SM_ARRAY(mc__end) ends;            /* the latest complete points, oldest first */
    SM_ARRAY(mc__pos) trail;          /* positions taken, for backtracking */
    uint32_t backtracks;
    size_t repeat_min;                 /* bytes a run-on repeats; 0: no check */
    size_t repeat_sure;                /* bytes of the right context a run-on is sure at */
    bool run_on_open;                  /* the middle since run_on_from repeats the right
                                          context: a run-on if the model ends or goes on
                                          to repeat_sure, not one if it writes otherwise */
    mc__end run_on_from;
    bool empty_possible;               /* prefer_nonempty: the empty middle is complete */
    bool empty_refused;
    bool have_best;
    bool widened;                      /* started again with the widened budgets */
    sm_buf partial;                    /* widened: the longest middle cut at a line end */
    SM_ARRAY(uint32_t) partial_ends;   /* its token ends */
    double best_score;
    size_t best_len;
    uint32_t best_tokens;
    ep_savepoint best_point;

    bool finished;                     /* a result is decided */
    bool delivered;
    mc_stop_reason reason;
    char *error;
    uint32_t tokens_generated;
    uint32_t rejected;
    uint32_t past_lines;          /* of those, tokens that would go past the line budget */
    uint32_t extended;                 /* positions decided past the candidates */
    uint32_t round_trips_at_start;
    uint32_t aux_at_start;
    uint32_t prompt_reports_at_start;
    uint64_t prompt_tokens_at_start;
    uint64_t filter_ns;
    uint64_t start_ns;
    uint64_t rng;

    uv_timer_t budget_timer;
    uv_timer_t defer_timer;
    int open_handles;
};

static uint64_t mc__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *mc_stop_reason_name(mc_stop_reason reason)
{
    static const char *const names[] = {"eos", "tokens", "lines", "time", "dead_end", "error", "canceled", "repeat", "loop"};
    return (unsigned)reason < sizeof names / sizeof *names ? names[reason] : "?";
}

void mc_decode_options_init(mc_decode_options *options)
{
    memset(options, 0, sizeof *options);
    options->max_tokens = 64;
    options->max_lines = 1;
    options->timeout_ms = 2000;
    options->n_candidates = 10;
    options->run_ahead = 16;
    options->temperature = 0;
    options->top_p = 1.0;
    options->seed = 1;
    options->context_budget = 8192;
}

void mc_completion_free(mc_completion *completion)
{
    if (!completion)
        return;
    sm_free(completion->text);
    sm_free(completion->error);
    sm_array_free(&completion->token_ends);
    sm_free(completion);
}

/* ---- Completion and delivery --------------------------------------------- */

static void mc__handle_closed(uv_handle_t *handle)
{
    mc_decode *d = handle->data;
    if (--d->open_handles == 0) {
        sm_buf_free(&d->middle);
        sm_array_free(&d->token_ends);
        sm_array_free(&d->token_ids);
        sm_array_free(&d->ends);
        for (uint32_t i = 0; i < d->trail.size; i++)
            mc__pos_free(&d->trail.items[i]);
        sm_array_free(&d->trail);
        sm_buf_free(&d->partial);
        sm_array_free(&d->partial_ends);
        sm_free(d->error);
        sm_free(d);
    }
}

static const mc__end *mc__overlap_end(const mc_decode *d, size_t len);

/* Whether bytes[0..len) is only blank space: a middle that writes nothing
 * an editor could show (ghost text of blanks shows as nothing, and Tab
 * would insert them), which counts as the empty middle. */
static bool mc__blank(const char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (bytes[i] != ' ' && bytes[i] != '\t' && bytes[i] != '\n' && bytes[i] != '\r' && bytes[i] != '\f')
            return false;
    return true;
}

/* Whether the middle so far writes nothing (empty or blank). */
static bool mc__nothing_written(const mc_decode *d)
{
    return mc__blank(d->middle.data, d->middle.len);
}

/* Makes the partial middle the middle, the recognizer where it ends. */
static void mc__take_partial(mc_decode *d)
{
    ep_restore(d->rec, d->start_point);
    d->middle.len = 0;
    sm_buf_append(&d->middle, d->partial.data, d->partial.len);
    d->token_ends.size = 0;
    for (uint32_t i = 0; i < d->partial_ends.size; i++)
        sm_array_push(&d->token_ends, d->partial_ends.items[i]);
    ep_feed(d->rec, d->partial.data, d->partial.len);   /* viable: a prefix of a viable middle */
}

static mc_completion *mc__build_result(mc_decode *d)
{
    mc_completion *c = sm_calloc(1, sizeof *c);
    size_t len = 0;
    uint32_t tokens = 0;
    bool failed = d->reason == MC_STOP_ERROR || d->reason == MC_STOP_CANCELED;
    c->widened = d->widened;
    if (d->reason != MC_STOP_EOS && !d->have_best && !failed && d->partial.len > 0) {
        mc__take_partial(d);
        c->found = true;
        c->partial = true;
        len = d->middle.len;
        tokens = d->token_ends.size;
    } else if (d->reason == MC_STOP_EOS) {
        c->found = true;
        len = d->middle.len;
        tokens = d->token_ends.size;
    } else if (d->have_best && d->reason != MC_STOP_ERROR && d->reason != MC_STOP_CANCELED) {
        c->found = true;
        len = d->best_len;
        tokens = d->best_tokens;
        ep_restore(d->rec, d->best_point);
    } else {
        /* The empty middle, when it was complete and only set aside. */
        c->found = d->empty_possible && d->reason != MC_STOP_ERROR && d->reason != MC_STOP_CANCELED;
        ep_restore(d->rec, d->start_point);
    }
    const mc__end *e = c->found && !c->partial ? mc__overlap_end(d, len) : NULL;
    if (e) {
        len = e->len;
        tokens = e->tokens;
        ep_restore(d->rec, e->point);
    }
    if (len > 0 && mc__blank(d->middle.data, len)) {
        /* blank space alone is no completion: the empty middle's place */
        len = 0;
        tokens = 0;
        ep_restore(d->rec, d->start_point);
    }
    c->empty_refused = d->empty_refused && len > 0;
    c->text = sm_strndup(d->middle.data ? d->middle.data : "", len);
    c->len = len;
    c->reason = d->reason;
    sm_array_init(&c->token_ends);
    for (uint32_t i = 0; i < tokens; i++)
        sm_array_push(&c->token_ends, d->token_ends.items[i] < len ? d->token_ends.items[i] : (uint32_t)len);
    c->tokens_generated = d->tokens_generated;
    c->round_trips = d->backend->round_trips - d->round_trips_at_start;
    c->aux_requests = d->backend->aux_requests - d->aux_at_start;
    c->prompt_tokens = d->backend->prompt_tokens - d->prompt_tokens_at_start;
    c->prompt_tokens_known =
        c->round_trips > 0 && d->backend->prompt_reports - d->prompt_reports_at_start == c->round_trips;
    c->rejected = d->rejected;
    c->past_lines = d->past_lines;
    c->extended = d->extended;
    c->filter_ns = d->filter_ns;
    c->total_ns = mc__now_ns() - d->start_ns;
    c->error = d->error;
    d->error = NULL;
    c->silent = d->reason == MC_STOP_TIME && d->steps_seen == 0;
    return c;
}

static void mc__deliver(mc_decode *d)
{
    if (d->delivered)
        return;
    d->delivered = true;
    mc_completion *c = mc__build_result(d);
    uv_timer_stop(&d->budget_timer);
    uv_close((uv_handle_t *)&d->budget_timer, mc__handle_closed);
    uv_close((uv_handle_t *)&d->defer_timer, mc__handle_closed);
    d->on_done(d->data, c);
}

static void mc__on_defer(uv_timer_t *timer)
{
    mc__deliver(timer->data);
}

/* Decides the result.  Delivery waits for the request in flight to end. */
static void mc__finish(mc_decode *d, mc_stop_reason reason, const char *error)
{
    if (d->finished)
        return;
    d->finished = true;
    d->reason = reason;
    if (error && !d->error)
        d->error = sm_strdup(error);
    if (!d->call)
        uv_timer_start(&d->defer_timer, mc__on_defer, 0, 0);
}

/* ---- One position ------------------------------------------------------------ */

/* The order in which a position's candidates are tried: as given when
 * greedy; when sampling, the nucleus (top_p) drawn without replacement with
 * weights exp(logprob / temperature), then the rest in the model's order. */
static void mc__order(mc_decode *d, const mc_step *step, uint32_t *order)
{
    uint32_t n = step->count;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    if (d->options.temperature <= 0 || n < 2)
        return;
    double *weights = sm_malloc(n * sizeof *weights);
    double max_lp = -INFINITY, total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (step->cands[i].logprob > max_lp)
            max_lp = step->cands[i].logprob;
    if (!isfinite(max_lp)) {
        sm_free(weights);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        double lp = step->cands[i].logprob;
        weights[i] = isfinite(lp) ? exp((lp - max_lp) / d->options.temperature) : 0;
        total += weights[i];
    }
    /* The nucleus: the best candidates whose mass reaches top_p. */
    uint32_t nucleus = n;
    if (d->options.top_p > 0 && d->options.top_p < 1) {
        double mass = 0;
        for (uint32_t i = 0; i < n; i++) {
            mass += weights[i] / total;
            if (mass >= d->options.top_p) {
                nucleus = i + 1;
                break;
            }
        }
    }
    for (uint32_t k = 0; k < nucleus; k++) {
        double sum = 0;
        for (uint32_t i = k; i < nucleus; i++)
            sum += weights[order[i]];
        if (sum <= 0)
            break;
        double pick = mc_random(&d->rng) * sum;
        uint32_t j = k;
        for (; j + 1 < nucleus; j++) {
            pick -= weights[order[j]];
            if (pick < 0)
                break;
        }
        uint32_t t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    sm_free(weights);
}

/* The filter's verdict on the middle with a line budget of max_lines. */
static bool mc__filter_with(mc_decode *d, bool at_end, uint32_t max_lines)
{
    if (!d->filter)
        return true;
    return d->filter(d->filter_data, d->middle.data ? d->middle.data : "", d->middle.len, at_end, max_lines);
}

static bool mc__filter_ok(mc_decode *d, bool at_end)
{
    return mc__filter_with(d, at_end, d->options.max_lines);
}

/* Whether the filter, refusing the middle within the line budget, takes
 * it with the widened one (a middle that leaves a bracket for other lines):
 * refused for the budget, so decoding may widen (mc__widen). */
static bool mc__filter_wants_lines(mc_decode *d)
{
    return !d->widened && d->options.widen_lines > d->options.max_lines &&
           mc__filter_with(d, false, d->options.widen_lines);
}

static bool mc__can_end(mc_decode *d)
{
    bool end = d->options.can_end
                   ? d->options.can_end(d->options.can_end_data, d->rec, d->middle.data ? d->middle.data : "",
                                        d->middle.len)
                   : ep_can_end(d->rec);
    return end && mc__filter_ok(d, true);
}

/* Whether the middle, not complete, may end as a line that opens a
 * construct (options.line_opens), the filter agreeing. */
static bool mc__line_opens(mc_decode *d)
{
    return d->options.line_opens &&
           d->options.line_opens(d->options.can_end_data, d->rec, d->middle.data ? d->middle.data : "",
                                 d->middle.len) &&
           mc__filter_ok(d, true);
}

/* The end probability at this position: the end candidate's, or, when the
 * model did not list it, a value below every listed candidate. */
static double mc__end_score(const mc_step *step)
{
    double lowest = 0;
    for (uint32_t i = 0; i < step->count; i++) {
        if (step->cands[i].eos)
            return step->cands[i].logprob;
        if (step->cands[i].logprob < lowest)
            lowest = step->cands[i].logprob;
    }
    return isfinite(lowest) ? lowest - 1.0 : -INFINITY;
}

/* The completion, should the loop stop without its end: middle[0..len),
 * `tokens` tokens, the recognizer at `point`. */
static void mc__set_best(mc_decode *d, size_t len, uint32_t tokens, ep_savepoint point)
{
    d->have_best = true;
    d->best_len = len;
    d->best_tokens = tokens;
    d->best_point = point;
}

static void mc__remember_complete(mc_decode *d, double score)
{
    if (d->run_on_open)
        return;   /* the middle writes the right context again: no end of its own */
    if (d->options.prefer_nonempty && mc__nothing_written(d)) {
        /* The empty middle (or blank space) is the last resort of an
         * explicit request. */
        d->empty_possible = true;
        return;
    }
    if (!d->have_best || score >= d->best_score) {
        d->best_score = score;
        mc__set_best(d, d->middle.len, d->token_ends.size, ep_save(d->rec));
    }
}

static uint32_t mc__count_breaks(const char *bytes, size_t len)
{
    uint32_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (bytes[i] == '\n' || (bytes[i] == '\r' && (i + 1 == len || bytes[i + 1] != '\n')))
            n++;
    return n;
}

/* The length of the part of `bytes` before the line break that would go
 * over the line budget, or len when there is none. */
static size_t mc__within_lines(const mc_decode *d, const char *bytes, size_t len)
{
    uint32_t allowed = d->options.max_lines ? d->options.max_lines - 1 : 0;
    uint32_t lines = d->lines;
    for (size_t i = 0; i < len; i++) {
        bool br = bytes[i] == '\n' || (bytes[i] == '\r' && (i + 1 == len || bytes[i + 1] != '\n'));
        if (br && ++lines > allowed) {
            if (bytes[i] == '\n' && i > 0 && bytes[i - 1] == '\r')
                return i - 1;
            return i;
        }
    }
    return len;
}

/* Tries a token: feeds it and keeps it when viable and the filter agrees. */
static bool mc__try_token(mc_decode *d, const char *bytes, size_t len, int32_t id)
{
    ep_savepoint point = ep_save(d->rec);
    int rc = ep_feed(d->rec, bytes, len);
    if (rc == 1) {
        size_t old = d->middle.len;
        if (sm_buf_append(&d->middle, bytes, len) == SM_OK) {
            if (mc__filter_ok(d, false)) {
                d->lines += mc__count_breaks(bytes, len);
                sm_array_push(&d->token_ends, (uint32_t)d->middle.len);
                sm_array_push(&d->token_ids, id);
                return true;
            }
            if (mc__filter_wants_lines(d))
                d->past_lines++;
            d->middle.len = old;
            d->middle.data[old] = '\0';
        }
    }
    ep_restore(d->rec, point);
    return false;
}

/* Back to a shorter middle on the same way (the recognizer at `before`). */
static void mc__cut_back(mc_decode *d, ep_savepoint before, size_t len, uint32_t tokens, uint32_t lines)
{
    ep_restore(d->rec, before);
    d->middle.len = len;
    if (d->middle.data)
        d->middle.data[len] = '\0';
    d->token_ends.size = tokens;
    d->token_ids.size = tokens;
    d->lines = lines;
    if (d->run_on_open && len <= d->run_on_from.len)
        d->run_on_open = false;
}

/* Back to the empty middle. */
static void mc__undo_to_start(mc_decode *d)
{
    mc__cut_back(d, d->start_point, 0, 0, 0);
}

/* Remembers the middle as it stands as a complete point. */
static void mc__add_end(mc_decode *d)
{
    if (d->ends.size == MC__MAX_ENDS) {
        memmove(d->ends.items, d->ends.items + 1, (MC__MAX_ENDS - 1) * sizeof *d->ends.items);
        d->ends.size--;
    }
    mc__end e = {.len = d->middle.len, .tokens = d->token_ends.size, .point = ep_save(d->rec)};
    sm_array_push(&d->ends, e);
}

/* The earliest complete point after which the middle, followed by the
 * candidate bytes[0..len), repeats the right context's start for
 * repeat_min bytes or more, or NULL.  Whether the candidate is valid does not
 * matter: a model writing the code after the cursor again has ended. */
static const mc__end *mc__run_on(const mc_decode *d, const char *bytes, size_t len)
{
    if (!d->repeat_min)
        return NULL;
    for (uint32_t i = 0; i < d->ends.size; i++) {
        const mc__end *e = &d->ends.items[i];
        size_t k = d->middle.len - e->len;
        if (k >= d->repeat_min) {
            /* (all of it, and the candidate on: a run-on dismissed, the
             * model having written otherwise, does not open again) */
            if (k + len <= d->right_len && memcmp(d->middle.data + e->len, d->right, k) == 0 &&
                memcmp(bytes, d->right + k, len) == 0)
                return e;
        } else if (k + len >= d->repeat_min && (k == 0 || memcmp(d->middle.data + e->len, d->right, k) == 0) &&
                   memcmp(bytes, d->right + k, d->repeat_min - k) == 0) {
            return e;
        }
    }
    return NULL;
}

/* A run-on the candidate bytes[0..len) cannot finish because it is
 * refused (a closing quote the string guard keeps out, say): from a
 * complete point with a non-empty middle, the middle and the candidate
 * repeat the right context's start for MC__REPEAT_REFUSED bytes (or all
 * that repeat_min asks, if less), byte for byte.  NULL otherwise. */
static const mc__end *mc__run_on_refused(const mc_decode *d, const char *bytes, size_t len)
{
    size_t need = d->repeat_min < MC__REPEAT_REFUSED ? d->repeat_min : MC__REPEAT_REFUSED;
    if (!need)
        return NULL;
    for (uint32_t i = 0; i < d->ends.size; i++) {
        const mc__end *e = &d->ends.items[i];
        size_t k = d->middle.len - e->len;
        if (e->len > 0 && k + len >= need && k + len <= d->right_len &&
            memcmp(d->middle.data + e->len, d->right, k) == 0 && memcmp(bytes, d->right + k, len) == 0)
            return e;
    }
    return NULL;
}

/* The first byte of text[i..len) that is not a blank or a line break. */
static size_t mc__past_blanks(const char *text, size_t len, size_t i)
{
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == '\f'))
        i++;
    return i;
}

/* Whether the candidate goes on writing the right context again from the
 * open run-on's complete point. */
static bool mc__still_repeats(const mc_decode *d, const mc_token *tok)
{
    size_t k = d->middle.len - d->run_on_from.len;
    return k + tok->len <= d->right_len && memcmp(tok->bytes, d->right + k, tok->len) == 0;
}

/* Where a run-on is sure: the end of the right context's MC__REPEAT_LINES-th
 * line that is not blank, at most MC__REPEAT_SURE bytes, at least
 * repeat_min. */
static size_t mc__repeat_sure(const char *right, size_t len, size_t repeat_min)
{
    size_t i = 0;
    for (uint32_t lines = 0; i < len && i < MC__REPEAT_SURE && lines < MC__REPEAT_LINES;) {
        i = mc__past_blanks(right, len, i);
        while (i < len && right[i] != '\n' && right[i] != '\r')
            i++;
        lines++;
    }
    if (i > MC__REPEAT_SURE)
        i = MC__REPEAT_SURE;
    return i > repeat_min ? i : repeat_min;
}

/* What a run-on must repeat: the right context's leading blanks and line
 * breaks, then its first non-blank line to its end or for MC__REPEAT_MAX
 * bytes; 0 when it is blank. */
static size_t mc__repeat_min(const char *right, size_t len)
{
    size_t i = mc__past_blanks(right, len, 0);
    if (i == len)
        return 0;
    size_t content = i;
    while (i < len && right[i] != '\n' && right[i] != '\r' && i - content < MC__REPEAT_MAX)
        i++;
    return i;
}

/* Where a finished middle of `len` bytes ends without the right context's
 * start it wrote again: the earliest complete point after which it holds
 * only a prefix of the right context (a closing bracket, a line break the
 * right context begins with), else len. */
static const mc__end *mc__overlap_end(const mc_decode *d, size_t len)
{
    for (uint32_t i = 0; i < d->ends.size; i++) {
        const mc__end *e = &d->ends.items[i];
        if (d->options.prefer_nonempty && mc__blank(d->middle.data, e->len))
            continue;   /* an explicit request keeps what the model wrote */
        if (e->len < len && len - e->len <= d->right_len &&
            memcmp(d->middle.data + e->len, d->right, len - e->len) == 0)
            return e;
    }
    return NULL;
}

/* ---- Backtracking ------------------------------------------------------------ */

static void mc__copy_step(mc_step *to, const mc_step *from)
{
    *to = (mc_step){.chosen = from->chosen};
    for (uint32_t i = 0; i < from->count; i++) {
        const mc_token *t = &from->cands[i];
        mc_step_add_token(to, t->bytes, t->len, t->logprob, t->eos, t->id);
    }
}

/* ---- Widening -------------------------------------------------------------------- */

static void mc__widen_budgets(mc_decode *d)
{
    d->widened = true;
    d->options.max_lines = d->options.widen_lines;
    if (d->options.widen_tokens > d->options.max_tokens)
        d->options.max_tokens = d->options.widen_tokens;
}

/* widen_past_end: the model goes on past the line budget with `tok`, whose
 * first `keep` bytes stay within it.  The budgets widen where they stand.
 * When the token is valid, its part before the break is taken as a token
 * of its own (*from = keep) and, where the middle can end there, kept as a
 * complete point: the fallback should the way on not end.  Returns whether
 * it widened. */
static bool mc__widen_here(mc_decode *d, const mc_step *step, const mc_token *tok, size_t keep, size_t *from)
{
    *from = 0;
    if (d->widened || d->options.widen_lines <= d->options.max_lines)
        return false;
    mc__widen_budgets(d);
    if (keep == 0)
        return true;   /* the middle as it stands was a complete point already, if it is one */
    ep_savepoint before = ep_save(d->rec);
    size_t len = d->middle.len;
    uint32_t tokens = d->token_ends.size, lines = d->lines;
    if (!mc__try_token(d, tok->bytes, tok->len, tok->id))
        return true;   /* refused as it would have been */
    mc__cut_back(d, before, len, tokens, lines);
    if (!mc__try_token(d, tok->bytes, keep, -1))
        return true;
    if (mc__can_end(d)) {
        mc__remember_complete(d, mc__end_score(step));
        mc__add_end(d);
    }
    *from = keep;
    return true;
}

/* Widened, after a token is taken: the middle up to its last line break
 * becomes the partial middle when it is longer and writes something. */
static void mc__note_partial(mc_decode *d)
{
    if (!d->widened || !d->lines)
        return;
    size_t cut = d->middle.len;
    while (cut > 0 && d->middle.data[cut - 1] != '\n' && d->middle.data[cut - 1] != '\r')
        cut--;
    if (cut == 0)
        return;
    while (cut > 0 && strchr(" \t\f\r\n", d->middle.data[cut - 1]))
        cut--;   /* the line break, blank lines and trailing blanks */
    if (cut <= d->partial.len || mc__blank(d->middle.data, cut))
        return;
    d->partial.len = 0;
    sm_buf_append(&d->partial, d->middle.data, cut);
    d->partial_ends.size = 0;
    for (uint32_t i = 0; i < d->token_ends.size && d->token_ends.items[i] <= cut; i++)
        sm_array_push(&d->partial_ends, d->token_ends.items[i]);
    if (!d->partial_ends.size || d->partial_ends.items[d->partial_ends.size - 1] < cut)
        sm_array_push(&d->partial_ends, (uint32_t)cut);
}

/* Whether the middle ends with one text of MC__LOOP_MIN to MC__LOOP_MAX
 * bytes, not all blank, written MC__LOOP_RUNS times in a row
 * ("x=None, x=None, x=None, x=None, "). */
static bool mc__runs_over(const mc_decode *d)
{
    const char *m = d->middle.data;
    size_t len = d->middle.len;
    for (size_t p = MC__LOOP_MIN; p <= MC__LOOP_MAX && p * MC__LOOP_RUNS <= len; p++) {
        const char *last = m + len - p;
        uint32_t k = 1;
        while (k < MC__LOOP_RUNS && memcmp(last - k * p, last, p) == 0)
            k++;
        if (k == MC__LOOP_RUNS && !mc__blank(last, p))
            return true;
    }
    return false;
}

/* Widened, after a token: whether the model loops.  The middle's last whole
 * line, not blank, stands in it MC__LOOP_LINES times, or its end repeats
 * one text (mc__runs_over).  A model that writes the same over and over (a
 * small or lost one) has nothing more to say; editor plugins drop such
 * completions too. */
static bool mc__looping(const mc_decode *d)
{
    if (mc__runs_over(d))
        return true;
    if (!d->lines)
        return false;
    const char *m = d->middle.data;
    size_t end = d->middle.len;
    while (end > 0 && m[end - 1] != '\n')
        end--;
    if (end == 0)
        return false;
    end--;                                   /* the last whole line ends here */
    size_t start = end;
    while (start > 0 && m[start - 1] != '\n')
        start--;
    if (mc__blank(m + start, end - start))
        return false;
    uint32_t seen = 0;
    for (size_t from = 0; from <= start;) {
        size_t to = from;
        while (to < d->middle.len && m[to] != '\n')
            to++;
        if (to - from == end - start && memcmp(m + from, m + start, end - start) == 0)
            seen++;
        from = to + 1;
    }
    return seen >= MC__LOOP_LINES;
}

/* When no complete middle was found within the line budget and a token was
 * refused for going past it, starts again from the empty middle with the
 * widened budgets; the request in flight is then stopped (diverged) and a
 * new one made.  Returns whether it did. */
static bool mc__widen(mc_decode *d)
{
    if (d->widened || d->have_best || !d->past_lines || d->options.widen_lines <= d->options.max_lines)
        return false;
    mc__undo_to_start(d);
    for (uint32_t i = 0; i < d->trail.size; i++)
        mc__pos_free(&d->trail.items[i]);
    d->trail.size = 0;
    d->ends.size = 0;
    d->backtracks = 0;
    mc__widen_budgets(d);
    d->pending_complete = mc__can_end(d);
    if (d->pending_complete)
        mc__add_end(d);
    d->diverged = true;
    return true;
}

/* ---- One position ---------------------------------------------------------------- */

typedef enum mc__verdict {
    MC__TOOK = 0,     /* a token was taken */
    MC__ENDED,        /* the end was taken: the loop is finished */
    MC__LINE_STOP,    /* the line budget ends the completion */
    MC__NONE,         /* no candidate from here on keeps the middle valid */
    MC__REPEATED,     /* a candidate writes the right context again: the loop is finished */
} mc__verdict;

/* Ends the completion at the complete point before a run-on. */
static mc__verdict mc__end_at_run_on(mc_decode *d, const mc__end *run_on)
{
    mc__set_best(d, run_on->len, run_on->tokens, run_on->point);
    mc__finish(d, MC_STOP_REPEAT, NULL);
    return MC__REPEATED;
}

/* Tries the candidates order[*k..] of a position; *k is left at the one
 * taken. */
static mc__verdict mc__decide(mc_decode *d, const mc_step *step, const uint32_t *order, uint32_t *k)
{
    for (; *k < step->count; (*k)++) {
        const mc_token *tok = &step->cands[order[*k]];
        if (tok->eos && d->run_on_open)
            return mc__end_at_run_on(d, &d->run_on_from);   /* it ends writing the code after the cursor */
        if (tok->eos) {
            if (mc__can_end(d) || mc__line_opens(d)) {
                if (d->options.prefer_nonempty && mc__nothing_written(d)) {
                    /* Set aside: the next valid candidate may do. */
                    mc__remember_complete(d, tok->logprob);
                    continue;
                }
                mc__finish(d, MC_STOP_EOS, NULL);
                return MC__ENDED;
            }
            d->rejected++;
            continue;
        }
        if (tok->len == 0) {
            d->rejected++;
            continue;
        }
        /* A run-on (the model writing the code after the cursor again)
         * opens where the middle and the candidate repeat the right
         * context's start from a complete point; it is one once the model
         * ends or goes on repeating to repeat_sure, and not one where it
         * writes otherwise before (a true middle whose next line is the
         * code's first).  The cut-at-repeat of editor plugins decides the
         * same: the rest of what the model wrote is the code's start. */
        bool repeats = d->run_on_open && mc__still_repeats(d, tok);
        if (repeats && d->middle.len - d->run_on_from.len + tok->len >= d->repeat_sure)
            return mc__end_at_run_on(d, &d->run_on_from);
        const mc__end *run_on = d->run_on_open ? NULL : mc__run_on(d, tok->bytes, tok->len);
        if (run_on && run_on->len == 0 && d->options.right_is_code && d->middle.len + tok->len < d->repeat_sure)
            run_on = NULL;   /* the person's code, which a true middle may begin as: not sure yet */
        if (run_on && run_on->len == 0) {
            /* Writing the right context again from the cursor on is not the
             * model's word that nothing goes there: it ignored the code
             * after the cursor (the closers an editor typed, say).  The
             * candidate is refused; an explicit request keeps the empty
             * middle as its last resort. */
            if (d->options.prefer_nonempty)
                d->empty_possible = true;
            d->rejected++;
            continue;
        }
        if (run_on && d->middle.len - run_on->len + tok->len >= d->repeat_sure)
            return mc__end_at_run_on(d, run_on);
        size_t keep = mc__within_lines(d, tok->bytes, tok->len);
        if (keep < tok->len && (run_on || repeats))
            return mc__end_at_run_on(d, run_on ? run_on : &d->run_on_from);   /* repeating past the budget */
        size_t from = 0;
        if (keep < tok->len && d->options.widen_past_end && mc__widen_here(d, step, tok, keep, &from))
            keep = mc__within_lines(d, tok->bytes + from, tok->len - from) + from;
        if (keep < tok->len) {
            /* The token would start a line past the budget.  Its part before
             * the break ends the completion when the recognizer can end
             * there; a complete point found earlier ends it too; otherwise
             * the token is refused like an invalid one and the loop looks
             * for a way to finish within the lines it has. */
            ep_savepoint before = ep_save(d->rec);
            size_t old_len = d->middle.len;
            uint32_t old_tokens = d->token_ends.size, old_lines = d->lines;
            if (keep == 0 || mc__try_token(d, tok->bytes, keep, -1)) {
                if (mc__can_end(d)) {
                    /* Scored by the end's probability here, as any other
                     * complete point: not by the line break's.  An
                     * explicit request's empty middle is only set aside. */
                    mc__remember_complete(d, mc__end_score(step));
                    if (!(d->options.prefer_nonempty && mc__nothing_written(d))) {
                        if (keep)
                            d->tokens_generated++;
                        return MC__LINE_STOP;
                    }
                } else if (mc__line_opens(d)) {
                    /* The model ends the line after the bracket it opens:
                     * the line is the completion, whatever was found
                     * before (never a fallback). */
                    mc__set_best(d, d->middle.len, d->token_ends.size, ep_save(d->rec));
                    if (keep)
                        d->tokens_generated++;
                    return MC__LINE_STOP;
                }
                mc__cut_back(d, before, old_len, old_tokens, old_lines);
            }
            if (d->have_best)
                return MC__LINE_STOP;
            d->rejected++;
            d->past_lines++;
            continue;
        }
        if (mc__try_token(d, tok->bytes + from, tok->len - from, from ? -1 : tok->id)) {
            d->tokens_generated++;
            if (run_on) {
                d->run_on_open = true;
                d->run_on_from = *run_on;
                mc__set_best(d, run_on->len, run_on->tokens, run_on->point);   /* should nothing else end */
            } else if (d->run_on_open && !repeats) {
                d->run_on_open = false;   /* it writes otherwise: no run-on */
            }
            return MC__TOOK;
        }
        if (run_on)
            return mc__end_at_run_on(d, run_on);   /* a run-on the recognizer refuses */
        d->rejected++;
        run_on = mc__run_on_refused(d, tok->bytes, tok->len);
        if (run_on) {
            return mc__end_at_run_on(d, run_on);
        }
    }
    return MC__NONE;
}

/* ---- Past the candidates: the whole vocabulary ------------------------------------ */

enum { MC__EXTEND = 16, MC__DRAWS = 8 };

/* Whether a position is chosen from its whole distribution rather than
 * from its candidates first: when sampling (the masked distribution is
 * drawn from) and when the options ask for the mask at every step. */
static bool mc__from_full(const mc_decode *d, const mc_step *step)
{
    return step->full && (d->options.temperature > 0 || d->options.mask_every_step);
}

/* The decoder's filter as a constraint on the whole vocabulary's
 * choices, in *admit; NULL without a filter. */
static const mc_admit *mc__admit(const mc_decode *d, mc_admit *admit)
{
    if (!d->filter)
        return NULL;
    *admit = (mc_admit){d->filter, d->filter_data, d->middle.data ? d->middle.data : "", d->middle.len,
                        d->options.max_lines};
    return admit;
}

/* The choices of such a position, in `out` (empty). */
static uint32_t mc__full_choices(mc_decode *d, const mc_step *step, mc_step *out)
{
    d->extended++;
    bool end = mc__can_end(d);
    mc_admit admit;
    if (d->options.temperature > 0)
        return mc_full_sample(step->full, d->rec, end, d->options.temperature, d->options.top_p, &d->rng, MC__DRAWS,
                              mc__admit(d, &admit), out);
    return mc_full_best(step->full, d->rec, end, NULL, MC__EXTEND, mc__admit(d, &admit), out);
}

/* Back to the position before the last token taken, to try the next
 * candidate there; MC__NONE when none is left within the backtracking
 * budget.  Not to before the complete point to fall back on, if there is
 * one (a token the model put first that led nowhere, after the middle was
 * complete, is tried again with the next). */
static mc__verdict mc__backtrack(mc_decode *d)
{
    while (d->backtracks < MC__MAX_BACKTRACKS && d->trail.size &&
           (!d->have_best || d->trail.items[d->trail.size - 1].middle_len >= d->best_len)) {
        mc__pos p = d->trail.items[--d->trail.size];
        d->backtracks++;
        mc__cut_back(d, p.before, p.middle_len, p.tokens, p.lines);
        while (d->ends.size && d->ends.items[d->ends.size - 1].len > p.middle_len)
            d->ends.size--;
        p.k++;
        mc__verdict v = mc__decide(d, &p.step, p.order, &p.k);
        if (v == MC__TOOK) {
            sm_array_push(&d->trail, p);
            return v;
        }
        mc__pos_free(&p);
        if (v != MC__NONE)
            return v;
    }
    return MC__NONE;
}

/* Acts on a position's verdict.  A token taken: the middle is ready for
 * the next position (true), unless it was the first of an explicit request
 * and the empty middle set aside is overwhelmingly the model's choice.
 * Otherwise the loop is finished (false), with `none` as the reason when
 * no way on was found and no empty middle was set aside. */
static bool mc__conclude(mc_decode *d, mc__verdict v, mc_stop_reason none)
{
    switch (v) {
    case MC__TOOK:
        if (d->empty_possible && d->token_ends.size == 1)
            d->empty_refused = true;
        d->pending_complete = mc__can_end(d);
        if (d->widened && mc__looping(d)) {
            /* no partial middle either: it would end in the loop */
            d->partial.len = 0;
            mc__finish(d, MC_STOP_LOOP, NULL);
            return false;
        }
        if (d->pending_complete)
            mc__add_end(d);
        else
            mc__note_partial(d);
        return true;
    case MC__LINE_STOP:
        mc__finish(d, MC_STOP_LINES, NULL);
        return false;
    case MC__NONE: {
        if (mc__widen(d))
            return false;
        /* An explicit request whose only valid way was the empty middle. */
        bool empty = d->empty_possible && !d->have_best && !d->partial.len;
        if (empty)
            mc__undo_to_start(d);
        mc__finish(d, empty ? MC_STOP_EOS : none, NULL);
        return false;
    }
    default:
        return false;   /* the end, or a run-on: finished already */
    }
}

/* Decides one position; returns whether the request in flight may go on. */
static bool mc__on_step(void *data, const mc_step *step)
{
    mc_decode *d = data;
    if (d->finished)
        return false;
    d->steps_in_call++;
    d->steps_seen++;
    if (d->options.timeout_ms && mc__now_ns() - d->start_ns > (uint64_t)d->options.timeout_ms * 1000000u) {
        if (d->pending_complete)
            mc__remember_complete(d, mc__end_score(step));
        mc__finish(d, MC_STOP_TIME, NULL);
        return false;
    }
    uint64_t t0 = mc__now_ns();
    if (d->pending_complete) {
        mc__remember_complete(d, mc__end_score(step));
        d->pending_complete = false;
    }
    mc__pos pos = {.before = ep_save(d->rec),
                   .middle_len = d->middle.len,
                   .tokens = d->token_ends.size,
                   .lines = d->lines};
    mc__verdict v = MC__NONE;
    bool from_full = mc__from_full(d, step);
    if (from_full) {
        mc__full_choices(d, step, &pos.step);
        pos.order = sm_malloc((pos.step.count ? pos.step.count : 1) * sizeof *pos.order);
        for (uint32_t i = 0; i < pos.step.count; i++)
            pos.order[i] = i;
        v = mc__decide(d, &pos.step, pos.order, &pos.k);
    } else {
        pos.order = sm_malloc((step->count ? step->count : 1) * sizeof *pos.order);
        mc__order(d, step, pos.order);
        v = mc__decide(d, step, pos.order, &pos.k);
        mc__copy_step(&pos.step, step);
    }
    bool backtracked = false;
    if (v == MC__NONE && step->full && !from_full) {
        /* Past the candidates, in the order of the whole distribution. */
        uint32_t before = pos.step.count;
        d->extended++;
        mc_admit admit;
        uint32_t added = mc_full_best(step->full, d->rec, mc__can_end(d), step, MC__EXTEND, mc__admit(d, &admit),
                                      &pos.step);
        if (added) {
            pos.order = sm_realloc(pos.order, pos.step.count * sizeof *pos.order);
            for (uint32_t i = before; i < pos.step.count; i++)
                pos.order[i] = i;
            pos.k = before;
            v = mc__decide(d, &pos.step, pos.order, &pos.k);
        }
    }
    if (v == MC__TOOK) {
        sm_array_push(&d->trail, pos);
    } else {
        mc_step_free(&pos.step);
        sm_free(pos.order);
        if (v == MC__NONE) {
            v = mc__backtrack(d);
            backtracked = v == MC__TOOK;
        }
    }
    int32_t taken = v == MC__TOOK ? (int32_t)d->trail.items[d->trail.size - 1].order[d->trail.items[d->trail.size - 1].k] : -1;
    bool go_on = mc__conclude(d, v, MC_STOP_DEAD_END);
    d->filter_ns += mc__now_ns() - t0;
    if (!go_on)
        return false;
    if (d->middle.len >= MC__MAX_MIDDLE || d->token_ends.size >= d->options.max_tokens) {
        if (d->pending_complete) {
            /* No next position: the end's probability here is unknown. */
            mc__remember_complete(d, d->have_best ? d->best_score : -INFINITY);
        }
        if (!d->have_best && d->trail.size > 0 && !d->partial.len) {
            /* This way never completed: try the next candidate at the
             * first position (and widen when none is left). */
            while (d->trail.size > 1)
                mc__pos_free(&d->trail.items[--d->trail.size]);
            if (mc__conclude(d, mc__backtrack(d), MC_STOP_TOKENS))
                d->diverged = true;
            return false;
        }
        if (!d->have_best && mc__widen(d))
            return false;
        mc__finish(d, MC_STOP_TOKENS, NULL);
        return false;
    }
    if (backtracked || taken != step->chosen) {
        d->diverged = true;
        return false;
    }
    return true;
}

static void mc__request(mc_decode *d);

static void mc__on_call_done(void *data, int status, const char *message)
{
    mc_decode *d = data;
    d->call = NULL;
    if (d->finished) {
        mc__deliver(d);
        return;
    }
    if (status == SM_OK || (status == SM_ECANCELED && d->diverged)) {
        if (d->steps_in_call == 0) {
            mc__finish(d, MC_STOP_DEAD_END, NULL);
            return;
        }
        mc__request(d);
        return;
    }
    mc__finish(d, MC_STOP_ERROR, message ? message : sm_strerror(status));
}

static void mc__request(mc_decode *d)
{
    bool ids_known = true;
    for (uint32_t i = 0; i < d->token_ids.size && ids_known; i++)
        ids_known = d->token_ids.items[i] >= 0;
    mc_request req = {
        .left = d->left + d->left_start,
        .left_len = d->left_len - d->left_start,
        .right = d->right,
        .right_len = d->right_end,
        .generated = d->middle.data ? d->middle.data : "",
        .generated_len = d->middle.len,
        .generated_ids = ids_known ? d->token_ids.items : NULL,
        .fresh = d->backend->round_trips == d->round_trips_at_start,
        .project = d->options.project,
        .generated_count = d->token_ids.size,
        .max_new_tokens = d->options.max_tokens - d->token_ends.size,
        .n_ahead = d->options.run_ahead ? d->options.run_ahead : 1,
        .n_candidates = d->options.n_candidates ? d->options.n_candidates : 1,
    };
    uint32_t left_tokens = d->options.max_tokens - d->token_ends.size;
    if (req.n_ahead > left_tokens)
        req.n_ahead = left_tokens ? left_tokens : 1;
    d->diverged = false;
    d->steps_in_call = 0;
    int rc = mc_backend_start(d->backend, &req, mc__on_step, mc__on_call_done, d, &d->call);
    if (rc != SM_OK) {
        d->call = NULL;
        mc__finish(d, MC_STOP_ERROR, sm_strerror(rc));
    }
}

static void mc__on_budget(uv_timer_t *timer)
{
    mc_decode *d = timer->data;
    if (d->finished)
        return;
    mc__finish(d, MC_STOP_TIME, NULL);
    if (d->call)
        mc_call_cancel(d->call);
}

int mc_decode_start(uv_loop_t *loop, mc_backend *backend, ep_recognizer *rec, const char *left,
                    size_t left_len, const char *right, size_t right_len,
                    const mc_decode_options *options, mc_filter_cb filter, void *filter_data,
                    mc_decode_cb on_done, void *data, mc_decode **out)
{
    mc_decode *d = sm_calloc(1, sizeof *d);
    d->loop = loop;
    d->backend = backend;
    d->rec = rec;
    d->left = left;
    d->left_len = left_len;
    d->right = right;
    d->right_len = right_len;
    d->options = *options;
    if (d->options.max_tokens == 0)
        d->options.max_tokens = 1;
    d->filter = filter;
    d->filter_data = filter_data;
    d->on_done = on_done;
    d->data = data;
    d->rng = options->seed;
    sm_buf_init(&d->middle, MC__MAX_MIDDLE + 4096);
    sm_array_init(&d->token_ends);
    sm_array_init(&d->token_ids);
    sm_array_init(&d->ends);
    sm_array_init(&d->trail);
    sm_buf_init(&d->partial, MC__MAX_MIDDLE + 4096);
    sm_array_init(&d->partial_ends);
    d->repeat_min = mc__repeat_min(right, right_len);
    d->repeat_sure = mc__repeat_sure(right, right_len, d->repeat_min);
    mc_context_budget(left, left_len, right, right_len, options->context_budget ? options->context_budget : SIZE_MAX,
                      &d->left_start, &d->right_end);
    d->start_point = ep_save(rec);
    d->start_ns = mc__now_ns();
    d->round_trips_at_start = backend->round_trips;
    d->aux_at_start = backend->aux_requests;
    d->prompt_reports_at_start = backend->prompt_reports;
    d->prompt_tokens_at_start = backend->prompt_tokens;
    uv_timer_init(loop, &d->budget_timer);
    uv_timer_init(loop, &d->defer_timer);
    d->budget_timer.data = d;
    d->defer_timer.data = d;
    d->open_handles = 2;
    if (out)
        *out = d;
    if (!ep_viable(rec)) {
        mc__finish(d, MC_STOP_DEAD_END, "the text before the cursor cannot start a valid program");
        return SM_OK;
    }
    d->pending_complete = mc__can_end(d);
    if (d->pending_complete)
        mc__add_end(d);
    if (d->options.timeout_ms) {
        uv_update_time(loop);   /* the loop's clock may be stale */
        uv_timer_start(&d->budget_timer, mc__on_budget, d->options.timeout_ms, 0);
    }
    mc__request(d);
    return SM_OK;
}

void mc_decode_cancel(mc_decode *d)
{
    if (d->finished)
        return;
    mc__finish(d, MC_STOP_CANCELED, NULL);
    if (d->call)
        mc_call_cancel(d->call);
}
