/*
 * The decoding loop against a scripted backend: the candidates of each
 * position are a function of the text generated so far, so a per-token
 * reference loop and run-ahead must agree exactly.
 */
#include "seam_model_client.h"
#include "seam_languages.h"
#include "test_support.h"

#include <math.h>
#include <string.h>

/* A script: for a generated prefix, its candidates best first ("" = end). */
typedef struct script_entry {
    const char *prefix;
    const char *cands[8];
} script_entry;

typedef struct scripted {
    mc_backend base;
    uv_loop_t *loop;
    const script_entry *script;
    double gap;          /* logprob of candidate k: -0.5 - k * gap */
    uint32_t calls;
    uint32_t steps_sent;
} scripted;

typedef struct scall {
    const mc_backend_vtable *vtable;   /* the layout every mc_call starts with */
    scripted *b;
    uv_timer_t timer;
    char text[512];
    uint32_t n_ahead, n_cand;
    bool canceled;
    mc_step_cb on_step;
    mc_done_cb on_done;
    void *data;
} scall;

static const script_entry *lookup(const script_entry *script, const char *prefix)
{
    for (; script->prefix; script++)
        if (strcmp(script->prefix, prefix) == 0)
            return script;
    return NULL;
}

static void scall_closed(uv_handle_t *h)
{
    sm_free(h->data);
}

static void scall_run(uv_timer_t *t)
{
    scall *c = t->data;
    int status = SM_OK;
    for (uint32_t i = 0; i < c->n_ahead && !c->canceled; i++) {
        const script_entry *e = lookup(c->b->script, c->text);
        mc_step step = {.chosen = 0};
        if (!e) {
            mc_step_add(&step, "", 0, 0, true);
        } else {
            for (uint32_t k = 0; k < 8 && k < c->n_cand && e->cands[k]; k++)
                mc_step_add(&step, e->cands[k], strlen(e->cands[k]), -(double)k * c->b->gap - 0.5,
                            e->cands[k][0] == '\0');
        }
        c->b->steps_sent++;
        bool go = c->on_step(c->data, &step);
        bool end = step.cands[0].eos;
        if (go && !end)
            strncat(c->text, step.cands[0].bytes, sizeof c->text - strlen(c->text) - 1);
        mc_step_free(&step);
        if (!go) {
            status = SM_ECANCELED;
            break;
        }
        if (end)
            break;
    }
    if (c->canceled)
        status = SM_ECANCELED;
    c->on_done(c->data, status, NULL);
    uv_close((uv_handle_t *)&c->timer, scall_closed);
}

static int scripted_start(mc_backend *base, const mc_request *r, mc_step_cb on_step, mc_done_cb on_done, void *data,
                          mc_call **out)
{
    scripted *b = (scripted *)base;
    scall *c = sm_calloc(1, sizeof *c);
    c->vtable = base->vtable;
    c->b = b;
    snprintf(c->text, sizeof c->text, "%.*s", (int)r->generated_len, r->generated);
    c->n_ahead = r->n_ahead;
    c->n_cand = r->n_candidates;
    c->on_step = on_step;
    c->on_done = on_done;
    c->data = data;
    uv_timer_init(b->loop, &c->timer);
    c->timer.data = c;
    uv_timer_start(&c->timer, scall_run, 0, 0);
    base->round_trips++;
    b->calls++;
    *out = (mc_call *)c;
    return SM_OK;
}

static void scripted_cancel(mc_call *call)
{
    ((scall *)call)->canceled = true;
}

static void scripted_free(mc_backend *b)
{
    (void)b;
}

static const mc_backend_vtable scripted_vtable = {"scripted", scripted_start, scripted_cancel, scripted_free};

typedef struct run_result {
    mc_completion *c;
    bool done;
} run_result;

static void on_done(void *data, mc_completion *c)
{
    run_result *r = data;
    r->c = c;
    r->done = true;
}

/* Decodes with the options `o` (those the scripted backend needs set). */
static mc_completion *decode_opts(const script_entry *script, double gap, const char *left, const char *right,
                                  const mc_decode_options *o, mc_filter_cb filter, uint32_t *calls)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    scripted b = {.base = {.vtable = &scripted_vtable}, .loop = &loop, .script = script, .gap = gap};
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, left, strlen(left), right, strlen(right), &rec), SM_OK);
    run_result r = {0};
    mc_decode *d;
    cr_assert_eq(mc_decode_start(&loop, &b.base, rec, left, strlen(left), right, strlen(right), o, filter, NULL,
                                 on_done, &r, &d), SM_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    cr_assert(r.done);
    /* The recognizer is left where the completion ends (a partial one:
     * where the middle can still go on). */
    if (r.c->found && !r.c->partial)
        cr_assert(ep_can_end(rec) || (o->line_opens && o->line_opens(NULL, rec, r.c->text, r.c->len)));
    if (r.c->partial)
        cr_assert(ep_viable(rec));
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    uv_loop_close(&loop);
    if (calls)
        *calls = b.calls;
    return r.c;
}

/* The tests' options: `run_ahead` candidates, `max_lines` lines, 32
 * tokens and no time limit; the rest as mc_decode_options_init sets them. */
static mc_decode_options test_options(uint32_t run_ahead, uint32_t max_lines)
{
    mc_decode_options o;
    mc_decode_options_init(&o);
    o.run_ahead = run_ahead;
    o.max_lines = max_lines;
    o.max_tokens = 32;
    o.timeout_ms = 0;
    return o;
}

static mc_completion *decode_with(const script_entry *script, double gap, const char *left, const char *right,
                                  uint32_t run_ahead, uint32_t max_lines, bool prefer_nonempty, mc_filter_cb filter,
                                  uint32_t *calls)
{
    mc_decode_options o = test_options(run_ahead, max_lines);
    o.prefer_nonempty = prefer_nonempty;
    return decode_opts(script, gap, left, right, &o, filter, calls);
}

static mc_completion *decode(const script_entry *script, const char *left, const char *right, uint32_t run_ahead,
                             uint32_t max_lines, uint32_t *calls)
{
    return decode_with(script, 1.0, left, right, run_ahead, max_lines, false, NULL, calls);
}

/* Invalid candidates are skipped; the end is taken where the program is complete. */
static const script_entry call_script[] = {
    {"", {")", "x", NULL}},          /* ")" makes "f()" then "x)" ... both fine; ")" first */
    {")", {")", "", NULL}},          /* a second ")" is invalid: the end is next */
    {NULL, {NULL}},
};

Test(model_decode, invalid_candidates_are_skipped_and_the_end_needs_can_end)
{
    /* left "f(", right "\n": ")" then end gives "f()\n". */
    mc_completion *c = decode(call_script, "f(", "\n", 1, 1, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, ")");
    cr_assert_eq(c->reason, MC_STOP_EOS);
    cr_assert_eq(c->rejected, 1);
    mc_completion_free(c);
}

static const script_entry duplicate_bracket[] = {
    /* The model repeats the bracket that follows the cursor.  "f(x)" can
     * still go on ("f(x)+()"), so ")" is viable, but the end after it is
     * not: the completion falls back to "x", where the program is whole. */
    {"", {"x", NULL}},
    {"x", {")", "", NULL}},
    {"x)", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_completion_never_duplicates_the_closing_bracket)
{
    mc_completion *c = decode(duplicate_bracket, "f(", ")\n", 1, 1, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "x");
    mc_completion_free(c);
}

static const script_entry long_script[] = {
    {"", {"a", "b", NULL}},
    {"a", {" +", ")", NULL}},
    {"a +", {" ", "1", NULL}},
    {"a + ", {"(", "1", NULL}},
    {"a + (", {"(", "1", NULL}},
    {"a + ((", {"1", NULL}},
    {"a + ((1", {")", ")", NULL}},
    {"a + ((1)", {")", NULL}},
    {"a + ((1))", {"]", "", NULL}},   /* "]" is invalid */
    {NULL, {NULL}},
};

Test(model_decode, run_ahead_gives_the_per_token_result_with_fewer_round_trips)
{
    uint32_t calls1, calls8;
    mc_completion *one = decode(long_script, "y = ", "\n", 1, 1, &calls1);
    mc_completion *many = decode(long_script, "y = ", "\n", 8, 1, &calls8);
    cr_assert(one->found);
    cr_assert_str_eq(one->text, "a + ((1))");
    cr_assert_str_eq(many->text, one->text);
    cr_assert_eq(many->token_ends.size, one->token_ends.size);
    cr_assert_eq(calls1, 9);
    cr_assert_lt(calls8, calls1, "run-ahead %u vs per-token %u round trips", calls8, calls1);
    mc_completion_free(one);
    mc_completion_free(many);
}

static const script_entry never_ends[] = {
    {"", {"1", NULL}},
    {"1", {" +", NULL}},
    {"1 +", {" 2", NULL}},
    {"1 + 2", {" +", NULL}},
    {"1 + 2 +", {" 3", NULL}},
    {"1 + 2 + 3", {" +", NULL}},
    {"1 + 2 + 3 +", {" (", NULL}},
    {"1 + 2 + 3 + (", {"4", NULL}},
    {"1 + 2 + 3 + (4", {" +", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_model_that_never_ends_gives_its_last_complete_point)
{
    /* After "1 + 2 + 3 + (4 +" the script has nothing but the end, which
     * cannot be taken: the loop falls back to a complete point. */
    mc_completion *c = decode(never_ends, "x = ", "\n", 4, 1, NULL);
    cr_assert(c->found);
    cr_assert_neq(c->reason, MC_STOP_EOS);
    cr_assert(strcmp(c->text, "1") == 0 || strcmp(c->text, "1 + 2") == 0 || strcmp(c->text, "1 + 2 + 3") == 0,
              "got '%s'", c->text);
    mc_completion_free(c);
}

static const script_entry all_invalid[] = {
    {"", {")", "]", "}", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, all_candidates_invalid_gives_no_completion)
{
    mc_completion *c = decode(all_invalid, "x = ", "\n", 4, 1, NULL);
    cr_assert_not(c->found);
    cr_assert_str_eq(c->text, "");
    cr_assert_eq(c->reason, MC_STOP_DEAD_END);
    cr_assert_eq(c->rejected, 3);
    mc_completion_free(c);
}

static const script_entry multi_line[] = {
    {"", {"\n    return 1", NULL}},
    {"\n    return 1", {"\n", NULL}},
    {"\n    return 1\n", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, the_line_budget_cuts_before_a_new_line)
{
    /* One line allowed: the block body cannot start, nothing complete. */
    mc_completion *single = decode(multi_line, "def f():", "\n", 1, 1, NULL);
    cr_assert_not(single->found);
    mc_completion *multi = decode(multi_line, "def f():", "\n", 1, 3, NULL);
    cr_assert(multi->found);
    /* The model's last line break is the right context's own: not written twice. */
    cr_assert_str_eq(multi->text, "\n    return 1");
    mc_completion_free(single);
    mc_completion_free(multi);
}

static const script_entry split_utf8[] = {
    /* "é" arrives as two tokens of one byte each. */
    {"", {"\"", NULL}},
    {"\"", {"\xc3", NULL}},
    {"\"\xc3", {"\xa9", NULL}},
    {"\"\xc3\xa9", {"\"", NULL}},
    {"\"\xc3\xa9\"", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, tokens_are_checked_as_bytes)
{
    mc_completion *c = decode(split_utf8, "s = ", "\n", 2, 1, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "\"\xc3\xa9\"");
    cr_assert_eq(c->token_ends.size, 4);
    mc_completion_free(c);
}

Test(model_decode, steps_are_sorted_and_merged)
{
    mc_step s = {.chosen = 2};
    mc_step_add(&s, "a", 1, -3, false);
    mc_step_add(&s, "b", 1, -1, false);
    mc_step_add(&s, "a", 1, -0.5, false);
    mc_step_add(&s, "", 0, -2, true);
    mc_step_normalize(&s);
    cr_assert_eq(s.count, 3);
    cr_assert_str_eq(s.cands[0].bytes, "a");
    cr_assert_eq(s.chosen, 0);
    cr_assert_str_eq(s.cands[1].bytes, "b");
    cr_assert(s.cands[2].eos);
    mc_step_free(&s);
}

Test(model_decode, context_budget_keeps_lines_near_the_cursor)
{
    const char *left = "line1\nline2\nline3\ncur";
    const char *right = "sor\nnext1\nnext2\n";
    size_t ls, re;
    mc_context_budget(left, strlen(left), right, strlen(right), 1000, &ls, &re);
    cr_assert_eq(ls, 0);
    cr_assert_eq(re, strlen(right));
    mc_context_budget(left, strlen(left), right, strlen(right), 20, &ls, &re);
    /* 15 bytes to the left: whole lines "line3\ncur" fit, "line2\n" too. */
    cr_assert_str_eq(left + ls, "line2\nline3\ncur");
    cr_assert_eq(re, 4);   /* "sor\n" */
    /* A cut inside a line never splits a UTF-8 sequence. */
    const char *wide = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    mc_context_budget(wide, strlen(wide), "", 0, 5, &ls, &re);
    cr_assert_eq(ls % 2, 0);
    cr_assert_leq(strlen(wide) - ls, 5);
}

static const script_entry choices[] = {
    {"", {"a", "b", "c", "d", NULL}},
    {"a", {" +", " *", " -", NULL}},
    {"b", {" +", " *", " -", NULL}},
    {"c", {" +", " *", " -", NULL}},
    {"d", {" +", " *", " -", NULL}},
    {NULL, {NULL}},
};

static mc_completion *decode_sampled(double temperature, uint64_t seed)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    scripted b = {.base = {.vtable = &scripted_vtable}, .loop = &loop, .script = choices, .gap = 1.0};
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    const char *left = "x = ", *right = " 1\n";
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, left, strlen(left), right, strlen(right), &rec), SM_OK);
    mc_decode_options o;
    mc_decode_options_init(&o);
    o.timeout_ms = 0;
    o.temperature = temperature;
    o.seed = seed;
    o.run_ahead = 4;
    run_result r = {0};
    cr_assert_eq(mc_decode_start(&loop, &b.base, rec, left, strlen(left), right, strlen(right), &o, NULL, NULL,
                                 on_done, &r, NULL), SM_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    cr_assert(r.done);
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    uv_loop_close(&loop);
    return r.c;
}

Test(model_decode, sampling_is_reproducible_by_seed_and_stays_valid)
{
    mc_completion *first = decode_sampled(1.5, 42);
    mc_completion *again = decode_sampled(1.5, 42);
    cr_assert_str_eq(first->text, again->text);
    /* Valid whatever is drawn: "x = a +" joins " 1". */
    bool seen_other = false;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        mc_completion *c = decode_sampled(1.5, seed);
        cr_assert(c->found, "seed %lu", (unsigned long)seed);
        cr_assert_eq(strlen(c->text), 3, "seed %lu: '%s'", (unsigned long)seed, c->text);
        cr_assert(strchr("abcd", c->text[0]) && strchr("+*-", c->text[2]), "seed %lu: '%s'", (unsigned long)seed,
                  c->text);
        if (strcmp(c->text, "a +") != 0)
            seen_other = true;
        mc_completion_free(c);
    }
    cr_assert(seen_other, "sampling never left the greedy path");
    mc_completion *greedy = decode_sampled(0, 42);
    cr_assert_str_eq(greedy->text, "a +");
    mc_completion_free(first);
    mc_completion_free(again);
    mc_completion_free(greedy);
}

/* A backend that never answers: the loop ends by its budget or a cancel. */
static int silent_start(mc_backend *base, const mc_request *r, mc_step_cb on_step, mc_done_cb on_done_cb,
                        void *data, mc_call **out)
{
    scall *c = sm_calloc(1, sizeof *c);
    c->vtable = base->vtable;
    c->on_done = on_done_cb;
    c->data = data;
    base->round_trips++;
    *out = (mc_call *)c;
    (void)r;
    (void)on_step;
    return SM_OK;
}

static void silent_closed(uv_handle_t *h)
{
    sm_free(h->data);
}

static void silent_finish(uv_timer_t *t)
{
    scall *c = t->data;
    c->on_done(c->data, SM_ECANCELED, "canceled");
    uv_close((uv_handle_t *)&c->timer, silent_closed);
}

static void silent_cancel(mc_call *call)
{
    scall *c = (scall *)call;
    uv_loop_t *loop = c->b ? c->b->loop : NULL;
    (void)loop;
    uv_timer_init(uv_default_loop(), &c->timer);
    c->timer.data = c;
    uv_timer_start(&c->timer, silent_finish, 0, 0);
}

static const mc_backend_vtable silent_vtable = {"silent", silent_start, silent_cancel, scripted_free};

typedef struct cancel_ctx {
    mc_decode *decode;
    uv_timer_t timer;
} cancel_ctx;

static void cancel_now(uv_timer_t *t)
{
    cancel_ctx *ctx = t->data;
    mc_decode_cancel(ctx->decode);
    uv_close((uv_handle_t *)t, NULL);
}

static mc_completion *decode_silent(uint32_t timeout_ms, bool cancel)
{
    uv_loop_t *loop = uv_default_loop();
    scripted b = {.base = {.vtable = &silent_vtable}, .loop = loop};
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, "x = ", 4, "\n", 1, &rec), SM_OK);
    mc_decode_options o;
    mc_decode_options_init(&o);
    o.timeout_ms = timeout_ms;
    run_result r = {0};
    cancel_ctx ctx = {0};
    cr_assert_eq(mc_decode_start(loop, &b.base, rec, "x = ", 4, "\n", 1, &o, NULL, NULL, on_done, &r, &ctx.decode),
                 SM_OK);
    if (cancel) {
        uv_timer_init(loop, &ctx.timer);
        ctx.timer.data = &ctx;
        uv_timer_start(&ctx.timer, cancel_now, 20, 0);
    }
    uv_run(loop, UV_RUN_DEFAULT);
    cr_assert(r.done);
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    return r.c;
}

Test(model_decode, a_silent_backend_ends_by_the_time_budget_or_a_cancel)
{
    mc_completion *timed = decode_silent(50, false);
    cr_assert_eq(timed->reason, MC_STOP_TIME);
    cr_assert_not(timed->found);
    cr_assert_geq(timed->total_ns, 45000000u);
    mc_completion_free(timed);
    mc_completion *canceled = decode_silent(0, true);
    cr_assert_eq(canceled->reason, MC_STOP_CANCELED);
    cr_assert_not(canceled->found);
    mc_completion_free(canceled);
}

/* ---- Where a completion ends ------------------------------------------------ */

static const script_entry run_on_script[] = {
    /* The true middle is a statement; the model then writes the statement
     * after the cursor again (valid: a duplicate), its end only second. */
    {"", {"w", NULL}},
    {"w", {" = 0", NULL}},
    {"w = 0", {"\n", NULL}},
    {"w = 0\n", {"y", "", NULL}},
    {"w = 0\ny", {" = 2", NULL}},
    {"w = 0\ny = 2", {"\n", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_run_on_into_the_right_context_ends_where_the_copy_starts)
{
    mc_completion *c = decode(run_on_script, "x = 1\n", "y = 2\nz = 3\n", 4, 6, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "w = 0\n");
    cr_assert_eq(c->reason, MC_STOP_REPEAT, "stopped by %s", mc_stop_reason_name(c->reason));
    mc_completion_free(c);
}

static const script_entry next_line_script[] = {
    /* The true middle's second line is the right context's first; the
     * model then writes a line of its own: no run-on. */
    {"", {"w", NULL}},
    {"w", {" = 0", NULL}},
    {"w = 0", {"\n", NULL}},
    {"w = 0\n", {"y", "", NULL}},
    {"w = 0\ny", {" = 2", NULL}},
    {"w = 0\ny = 2", {"\n", NULL}},
    {"w = 0\ny = 2\n", {"q", NULL}},
    {"w = 0\ny = 2\nq", {" = 4", NULL}},
    {"w = 0\ny = 2\nq = 4", {"\n", NULL}},
    {"w = 0\ny = 2\nq = 4\n", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_middle_whose_next_line_is_the_codes_first_is_no_run_on)
{
    mc_completion *c = decode(next_line_script, "x = 1\n", "y = 2\nz = 3\n", 4, 6, NULL);
    cr_assert_str_eq(c->text, "w = 0\ny = 2\nq = 4\n", "%s", mc_stop_reason_name(c->reason));
    cr_assert_eq(c->reason, MC_STOP_EOS, "stopped by %s", mc_stop_reason_name(c->reason));
    mc_completion_free(c);
}

static const script_entry short_copy_script[] = {
    /* Text that only begins like the right context is no run-on. */
    {"", {"w", NULL}},
    {"w", {" = 0", NULL}},
    {"w = 0", {"\n", NULL}},
    {"w = 0\n", {"y", "", NULL}},
    {"w = 0\ny", {" = 3", NULL}},
    {"w = 0\ny = 3", {"\n", NULL}},
    {"w = 0\ny = 3\n", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_middle_that_only_begins_like_the_right_context_is_kept)
{
    mc_completion *c = decode(short_copy_script, "x = 1\n", "y = 2\nz = 3\n", 4, 6, NULL);
    cr_assert_str_eq(c->text, "w = 0\ny = 3\n");
    cr_assert_eq(c->reason, MC_STOP_EOS);
    mc_completion_free(c);
}

static const script_entry line_score_script[] = {
    /* "a" can end (the end second); the model runs on to a line break,
     * where it lists no end: the end there is less likely than at "a". */
    {"", {"a", NULL}},
    {"a", {" +", "", NULL}},
    {"a +", {" b", NULL}},
    {"a + b", {"\n", "c", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_line_budget_stop_is_scored_by_the_end_not_by_the_line_break)
{
    mc_completion *c = decode(line_score_script, "f(", ")\n", 1, 1, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "a");
    mc_completion_free(c);
}

static const script_entry empty_first[] = {
    {"", {"", "Exception", NULL}},
    {"Exception", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, an_explicit_request_gets_a_non_empty_completion_however_likely_the_end)
{
    const char *left = "class E(", *right = "):\n    pass\n";
    mc_completion *automatic = decode_with(empty_first, 1.0, left, right, 4, 1, false, NULL, NULL);
    cr_assert(automatic->found);
    cr_assert_str_eq(automatic->text, "");
    cr_assert(!automatic->empty_refused);
    mc_completion *invoked = decode_with(empty_first, 1.0, left, right, 4, 1, true, NULL, NULL);
    cr_assert(invoked->found);
    cr_assert_str_eq(invoked->text, "Exception");
    cr_assert(invoked->empty_refused);
    /* Candidates 5 nats apart: the end is e^5 times as likely, and still
     * the valid non-empty candidate is given. */
    mc_completion *likely_end = decode_with(empty_first, 5.0, left, right, 4, 1, true, NULL, NULL);
    cr_assert(likely_end->found);
    cr_assert_str_eq(likely_end->text, "Exception");
    cr_assert(likely_end->empty_refused);
    mc_completion_free(automatic);
    mc_completion_free(invoked);
    mc_completion_free(likely_end);
}

static const script_entry blank_first[] = {
    /* blank space, then the end, is the model's first choice; a name second */
    {"", {"  ", "os", NULL}},
    {"  ", {"", NULL}},
    {"os", {".path", "", NULL}},
    {"os.path", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, blank_space_alone_is_no_completion)
{
    /* "os.listdir(|)": "  " joins the editor's closer, and an editor would
     * show it as nothing, while Tab inserted it */
    const char *left = "import os\nnames = os.listdir(", *right = ")\n";
    mc_completion *automatic = decode_with(blank_first, 1.0, left, right, 4, 1, false, NULL, NULL);
    cr_assert_str_eq(automatic->text, "", "an automatic request gets the empty middle, not %s", automatic->text);
    mc_completion *invoked = decode_with(blank_first, 1.0, left, right, 4, 1, true, NULL, NULL);
    cr_assert(invoked->found);
    cr_assert_str_eq(invoked->text, "os.path", "an explicit request goes on past the blank space");
    mc_completion_free(automatic);
    mc_completion_free(invoked);
}

/* The model writes the right context's start again at the cursor: the
 * closer an editor typed, say. */
static const script_entry run_on_first[] = {
    {"", {"))", "path", NULL}},
    {"path", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_run_on_at_the_cursor_is_refused_not_taken_for_the_empty_middle)
{
    const char *left = "x = sorted(listdir(", *right = "))\nprint(x)\n";
    mc_completion *automatic = decode_with(run_on_first, 1.0, left, right, 4, 1, false, NULL, NULL);
    cr_assert(automatic->found);
    cr_assert_str_eq(automatic->text, "path");
    cr_assert_neq(automatic->reason, MC_STOP_REPEAT);
    mc_completion *invoked = decode_with(run_on_first, 1.0, left, right, 4, 1, true, NULL, NULL);
    cr_assert_str_eq(invoked->text, "path");
    mc_completion_free(automatic);
    mc_completion_free(invoked);
}

/* The person's code after the cursor on its line ("return 0" on a line
 * of a block) may be how a true middle starts: one that writes it, then an
 * "else:" and its body, is no run-on, since it does not repeat the right
 * context to its second line.  Where that rest is not the person's code
 * (an editor's closers) its first line is enough to refuse it. */
static const script_entry persons_code_first[] = {
    {"", {"return 0", NULL}},
    {"return 0", {"\n", NULL}},
    {"return 0\n", {"    else:", NULL}},
    {"return 0\n    else:", {"\n        ", NULL}},
    {"return 0\n    else:\n        ", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_middle_may_begin_with_the_persons_code_after_the_cursor)
{
    const char *left = "def f(a):\n    if a:\n        ", *right = "return 0\n    return 1\n";
    mc_decode_options o = test_options(4, 4);
    o.right_is_code = true;
    mc_completion *c = decode_opts(persons_code_first, 1.0, left, right, &o, NULL, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "return 0\n    else:\n        ");
    mc_completion_free(c);
    o.right_is_code = false;
    c = decode_opts(persons_code_first, 1.0, left, right, &o, NULL, NULL);
    cr_assert_str_neq(c->text, "return 0\n    else:\n        ", "refused as a run-on at the cursor");
    mc_completion_free(c);
}

static const script_entry only_empty[] = {
    {"", {"", "]", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, an_explicit_request_falls_back_to_the_empty_completion)
{
    mc_completion *c = decode_with(only_empty, 1.0, "class E(", "):\n    pass\n", 1, 1, true, NULL, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "");
    mc_completion_free(c);
}

static const script_entry dead_end_first[] = {
    /* "(" is viable but leads nowhere: every candidate after it is invalid. */
    {"", {"(", "1", NULL}},
    {"(", {"]", ":", NULL}},
    {"1", {"", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_dead_end_goes_back_to_the_last_position_with_another_way)
{
    mc_completion *c = decode(dead_end_first, "x = ", "\n", 4, 1, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "1");
    cr_assert_eq(c->reason, MC_STOP_EOS);
    mc_completion_free(c);
}

static const script_entry closing_quotes[] = {
    /* The docstring's text, then the model writes the closing quotes the
     * right context already has: it has ended. */
    {"", {" text.", NULL}},
    {" text.", {"\n    ", "", NULL}},
    {" text.\n    ", {"\"\"\"", NULL}},
    {NULL, {NULL}},
};

static const script_entry copies_then_refused[] = {
    /* The path's first part, then the model writes the right context again
     * from its start; its closing quote, short of a whole run-on, is
     * refused (it cannot stand there): the copy has ended the completion. */
    {"", {"my", NULL}},
    {"my", {"data/file", NULL}},
    {"mydata/file", {".txt", NULL}},
    {"mydata/file.txt", {"'", NULL}},
    {NULL, {NULL}},
};

/* A string guard: the middle stays in the string it starts in. */
static bool in_the_string(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    (void)data;
    (void)at_end;
    (void)max_lines;
    return !memchr(middle, '\'', len);
}

Test(model_decode, a_refused_candidate_that_goes_on_copying_the_right_context_ends_it)
{
    mc_completion *c = decode_with(copies_then_refused, 1.0, "x = open('", "data/file.txt')\n", 4, 1, false,
                                   in_the_string, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "my", "stopped by %s", mc_stop_reason_name(c->reason));
    cr_assert_eq(c->reason, MC_STOP_REPEAT, "stopped by %s", mc_stop_reason_name(c->reason));
    mc_completion_free(c);
}

Test(model_decode, a_run_on_is_seen_in_a_candidate_the_loop_refuses)
{
    /* The quotes are checked for a run-on before they are tried (the
     * string guard would refuse them: the right context closes the string). */
    mc_completion *c = decode(closing_quotes, "def f():\n    \"\"\"Doc", "\n    \"\"\"\n", 4, 6, NULL);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, " text.");
    cr_assert_eq(c->reason, MC_STOP_REPEAT, "stopped by %s", mc_stop_reason_name(c->reason));
    mc_completion_free(c);
}

/* ---- Widening the line budget ---------------------------------------------------- */

/* Decodes with a one-line budget widened to `widen` lines (0: never), the
 * model followed past the budget when `past_end` is set. */
static mc_completion *decode_widened(const script_entry *script, const char *left, const char *right,
                                     uint32_t widen, bool past_end)
{
    mc_decode_options o = test_options(4, 1);
    o.widen_lines = widen;
    o.widen_tokens = 64;
    o.widen_past_end = past_end;
    return decode_opts(script, 1.0, left, right, &o, NULL, NULL);
}

/* No middle on one line joins the right context: the model's way over two
 * lines is taken once the budget widens, where it used to be nothing. */
static const script_entry two_lines[] = {
    {"", {"(", NULL}},
    {"(", {"1,", NULL}},
    {"(1,", {"\n     2)", " pass", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, no_middle_on_one_line_widens_the_budget)
{
    mc_completion *c = decode_widened(two_lines, "x = ", "\n", 0, false);
    cr_assert_not(c->found, "without widening, nothing: got '%s'", c->text);
    mc_completion_free(c);
    c = decode_widened(two_lines, "x = ", "\n", 4, false);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "(1,\n     2)");
    cr_assert(c->widened);
    cr_assert_not(c->partial);
    cr_assert_eq(c->reason, MC_STOP_EOS);
    mc_completion_free(c);
}

/* A middle longer than the widened budget: the whole lines written before
 * it ran out, which keep the middle viable, marked partial. */
static const script_entry four_lines[] = {
    {"", {"(1,", NULL}},
    {"(1,", {"\n 2,", NULL}},
    {"(1,\n 2,", {"\n 3,", NULL}},
    {"(1,\n 2,\n 3,", {"\n 4)", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_middle_past_the_widened_budget_gives_its_whole_lines)
{
    mc_completion *c = decode_widened(four_lines, "x = ", "\n", 3, false);
    cr_assert(c->found);
    cr_assert(c->partial);
    cr_assert_str_eq(c->text, "(1,\n 2,", "the lines before the last one, which goes on");
    cr_assert_eq(c->token_ends.items[c->token_ends.size - 1], c->len);
    mc_completion_free(c);
    c = decode_widened(four_lines, "x = ", "\n", 4, false);
    cr_assert_str_eq(c->text, "(1,\n 2,\n 3,\n 4)");
    cr_assert_not(c->partial);
    mc_completion_free(c);
}

/* A model that writes one line over and over loops: no partial middle. */
static const script_entry same_line[] = {
    {"", {"(1,", NULL}},
    {"(1,", {"\n 1,", NULL}},
    {"(1,\n 1,", {"\n 1,", NULL}},
    {"(1,\n 1,\n 1,", {"\n 1,", NULL}},
    {"(1,\n 1,\n 1,\n 1,", {"\n 1,", NULL}},
    {"(1,\n 1,\n 1,\n 1,\n 1,", {"\n 1,", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_widened_middle_that_repeats_its_lines_is_dropped)
{
    mc_completion *c = decode_widened(same_line, "x = ", "\n", 5, false);
    cr_assert_not(c->found, "got '%s'", c->text);
    cr_assert_eq(c->reason, MC_STOP_LOOP, "stopped by %s", mc_stop_reason_name(c->reason));
    mc_completion_free(c);
    c = decode_widened(same_line, "x = ", "\n", 4, false);
    cr_assert(c->partial, "two repeats are no loop yet");
    cr_assert_str_eq(c->text, "(1,\n 1,\n 1,");
    mc_completion_free(c);
}

/* ... or the same text again and again on one line. */
static const script_entry same_text[] = {
    {"", {"(", NULL}},
    {"(", {"\n 12,", NULL}},
    {"(\n 12,", {" 12,", NULL}},
    {"(\n 12, 12,", {" 12,", NULL}},
    {"(\n 12, 12, 12,", {" 12,", NULL}},
    {"(\n 12, 12, 12, 12,", {" 12,", NULL}},
    {"(\n 12, 12, 12, 12, 12,", {" 12,", NULL}},
    {NULL, {NULL}},
};

Test(model_decode, a_widened_middle_that_repeats_a_text_is_dropped)
{
    mc_completion *c = decode_widened(same_text, "x = ", "\n", 4, false);
    cr_assert(c->widened);
    cr_assert_not(c->found, "got '%s'", c->text);
    cr_assert_eq(c->reason, MC_STOP_LOOP, "stopped by %s", mc_stop_reason_name(c->reason));
    mc_completion_free(c);
}

/* The middle on one line joins the right context, but the model goes on
 * past it: with the person's code after the cursor (past_end) the model is
 * followed, the one-line middle kept as the fallback. */
static const script_entry goes_on[] = {
    {"", {"1,", NULL}},
    {"1,", {"\n     2,", "", NULL}},
    {"1,\n     2,", {"", NULL}},
    {NULL, {NULL}},
};

static const script_entry goes_on_lost[] = {
    {"", {"1,", NULL}},
    {"1,", {"\n     2", "", NULL}},
    {"1,\n     2", {" 3", NULL}},    /* "2 3": invalid, then nothing */
    {NULL, {NULL}},
};

Test(model_decode, the_model_going_past_the_budget_is_followed_before_the_persons_code)
{
    mc_completion *c = decode_widened(goes_on, "x = [", "3]\n", 4, false);
    cr_assert_str_eq(c->text, "1,", "the line budget ends it");
    cr_assert_eq(c->reason, MC_STOP_LINES);
    mc_completion_free(c);
    c = decode_widened(goes_on, "x = [", "3]\n", 4, true);
    cr_assert_str_eq(c->text, "1,\n     2,");
    cr_assert_eq(c->reason, MC_STOP_EOS);
    mc_completion_free(c);
    c = decode_widened(goes_on_lost, "x = [", "3]\n", 4, true);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "1,\n     2", "the latest complete point");
    mc_completion_free(c);
}

/* A stand-in for the context escape's rule for a bracket the right
 * context closes: the middle may close it only when the budget takes
 * lines and it ends on another line than that bracket's. */
static bool closes_for_lines(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    (void)data;
    const char *close = memchr(middle, ')', len);
    if (!close)
        return true;
    return max_lines > 1 && (!at_end || memchr(close, '\n', len - (size_t)(close - middle)));
}

static const script_entry closes_then_breaks[] = {
    {"", {")", NULL}},
    {")", {"\n", "", NULL}},
    {")\n", {"", NULL}},
    {NULL, {NULL}},
};

/* The only middle the model writes is one the filter refuses within one
 * line and takes with more: that refusal widens the budget as a token past
 * it does, and the filter is asked with the widened budget. */
Test(model_decode, a_token_the_filter_refuses_for_the_line_budget_widens_it)
{
    mc_decode_options o = test_options(4, 1);
    o.widen_tokens = 64;
    mc_completion *c = decode_opts(closes_then_breaks, 1.0, "x = g(f(a", "   )\n", &o, closes_for_lines, NULL);
    cr_assert_not(c->found, "never widened: nothing, got '%s'", c->text);
    mc_completion_free(c);
    o.widen_lines = 4;
    c = decode_opts(closes_then_breaks, 1.0, "x = g(f(a", "   )\n", &o, closes_for_lines, NULL);
    cr_assert(c->found, "stopped by %s", mc_stop_reason_name(c->reason));
    cr_assert_str_eq(c->text, ")\n");
    cr_assert(c->widened);
    cr_assert_geq(c->past_lines, 1);
    mc_completion_free(c);
}

/* ---- Lines that open a construct --------------------------------------------------- */

/* A stand-in for the server's rule: a middle ending with "(" opens a line. */
static bool ends_with_paren(void *data, ep_recognizer *rec, const char *middle, size_t len)
{
    (void)data;
    (void)rec;
    return len > 0 && middle[len - 1] == '(';
}

static mc_completion *decode_opening(const script_entry *script)
{
    mc_decode_options o = test_options(4, 1);
    o.line_opens = ends_with_paren;
    return decode_opts(script, 1.0, "x = ", "\n", &o, NULL, NULL);
}

static const script_entry opens_then_breaks[] = {
    {"", {"f", NULL}},
    {"f", {"(", NULL}},
    {"f(", {"\n    1,", "", NULL}},
    {NULL, {NULL}},
};

static const script_entry opens_then_ends[] = {
    {"", {"f", NULL}},
    {"f", {"(", NULL}},
    {"f(", {"", NULL}},
    {NULL, {NULL}},
};

static const script_entry opens_then_lost[] = {
    {"", {"f", NULL}},
    {"f", {"(", NULL}},
    {"f(", {"1", NULL}},
    {"f(1", {"]", NULL}},      /* invalid, and nothing else: a dead end */
    {NULL, {NULL}},
};

Test(model_decode, a_line_ends_after_the_bracket_it_opens_only_where_the_model_ends_it)
{
    mc_completion *c = decode_opening(opens_then_breaks);
    cr_assert_str_eq(c->text, "f(", "the model breaks the line after the opener");
    cr_assert_eq(c->reason, MC_STOP_LINES);
    mc_completion_free(c);
    c = decode_opening(opens_then_ends);
    cr_assert_str_eq(c->text, "f(", "the model ends after the opener");
    cr_assert_eq(c->reason, MC_STOP_EOS);
    mc_completion_free(c);
    c = decode_opening(opens_then_lost);
    cr_assert_str_eq(c->text, "f", "a dead end falls back to a complete point, never to the opener");
    mc_completion_free(c);
}
