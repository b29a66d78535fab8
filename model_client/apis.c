/*
 * apis.c - the HTTP backends: llama.cpp server, OpenAI-compatible
 * /v1/completions and Ollama /api/generate.
 *
 * Each request asks for greedy generation (temperature 0) of n_ahead tokens
 * with the top n_candidates of every position, streamed: llama.cpp and
 * OpenAI servers send server-sent events ("data: {...}" lines), Ollama sends
 * one JSON object per line.  Every event is turned into steps as it arrives,
 * so the decoding loop can stop a request at the first position where it
 * goes another way.  A server that sends no candidates still works: each
 * chunk of text becomes a position with that one candidate.
 */
#include "mc_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MC__MAX_EVENT = 4 << 20 };

typedef struct mc__hb {
    mc_backend base;
    mc_http *http;
    mc_http_kind kind;
    char *endpoint;
    char *model;
    const mc_template *tmpl;
    char *api_key;
    mc_http_options options;
    uint32_t max_candidates;
} mc__hb;

typedef struct mc__hcall {
    mc_call base;
    mc__hb *backend;
    mc_http_req *req;
    mc_lines lines;
    sm_buf raw;                 /* the body, kept while it may be one plain JSON document */
    bool streamed;              /* at least one event line was seen */
    bool stopped;               /* on_step returned false */
    bool ended;                 /* the model said it stopped */
    bool last_eos;              /* the last step ended in an end token */
    uint32_t positions;         /* steps delivered by this request */
    int error;
    sm_buf message;
    mc_step_cb on_step;
    mc_done_cb on_done;
    void *data;
} mc__hcall;

/* ---- Candidates from JSON --------------------------------------------------------- */

/* Whether a candidate's text is an end token: a stop string of the backend's
 * template, or of any known family when the server fills the template. */
static bool mc__is_end_text(const mc__hb *b, const char *text, size_t len)
{
    if (b->tmpl)
        return mc_template_is_stop(b->tmpl, text, len);
    for (const mc_template *t = mc_templates(); t->name; t++)
        if (mc_template_is_stop(t, text, len))
            return true;
    return false;
}

/* Decodes OpenAI-style byte tokens "bytes:\xe2\x80" into their bytes. */
static bool mc__decode_bytes_token(const char *s, sm_buf *out)
{
    if (strncmp(s, "bytes:", 6) != 0)
        return false;
    s += 6;
    while (*s) {
        unsigned v;
        if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
            char c = (char)v;
            sm_buf_append(out, &c, 1);
            s += 4;
        } else {
            sm_buf_append(out, s, 1);
            s++;
        }
    }
    return true;
}

/* The bytes of a token object: its "bytes" array when present (tokens that
 * are not whole UTF-8 sequences), else its text field. */
static bool mc__token_bytes(const cJSON *obj, const char *text_field, sm_buf *out)
{
    sm_buf_clear(out);
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(obj, "bytes");
    if (cJSON_IsArray(bytes)) {
        const cJSON *b;
        cJSON_ArrayForEach(b, bytes) {
            if (!cJSON_IsNumber(b) || b->valuedouble < 0 || b->valuedouble > 255)
                return false;
            char c = (char)(unsigned char)b->valueint;
            if (sm_buf_append(out, &c, 1) != SM_OK)
                return false;
        }
        return true;
    }
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(obj, text_field);
    if (!cJSON_IsString(text))
        return false;
    if (mc__decode_bytes_token(text->valuestring, out))
        return true;
    return sm_buf_append_str(out, text->valuestring) == SM_OK;
}

static double mc__logprob_of(const cJSON *obj)
{
    const cJSON *lp = cJSON_GetObjectItemCaseSensitive(obj, "logprob");
    if (cJSON_IsNumber(lp))
        return lp->valuedouble;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(obj, "prob");
    if (cJSON_IsNumber(p))
        return p->valuedouble > 0 ? log(p->valuedouble) : -INFINITY;
    return -INFINITY;
}

static void mc__add(mc__hb *b, mc_step *step, const sm_buf *bytes, double logprob)
{
    const char *data = bytes->data ? bytes->data : "";
    bool eos = mc__is_end_text(b, data, bytes->len);
    mc_step_add(step, data, bytes->len, logprob, eos);
}

/* Makes `chosen_bytes` the chosen candidate, adding it when the list lacks it. */
static void mc__choose(mc__hb *b, mc_step *step, const sm_buf *chosen_bytes, double logprob)
{
    const char *data = chosen_bytes->data ? chosen_bytes->data : "";
    for (uint32_t i = 0; i < step->count; i++)
        if (step->cands[i].len == chosen_bytes->len && memcmp(step->cands[i].bytes, data, chosen_bytes->len) == 0) {
            step->chosen = (int32_t)i;
            return;
        }
    mc__add(b, step, chosen_bytes, logprob);
    step->chosen = (int32_t)step->count - 1;
}

/* Hands a step to the loop; false when the request must stop. */
static bool mc__deliver(mc__hcall *c, mc_step *step)
{
    mc_step_normalize(step);
    c->positions++;
    c->last_eos = step->chosen >= 0 && step->cands[step->chosen].eos;
    bool go_on = c->on_step(c->data, step);
    mc_step_free(step);
    if (!go_on)
        c->stopped = true;
    return go_on && !c->last_eos;
}

/* The position where the model stopped on its own: only the end. */
static bool mc__deliver_end(mc__hcall *c)
{
    if (c->last_eos)
        return false;
    mc_step step = {.chosen = 0};
    mc_step_add(&step, "", 0, 0.0, true);
    return mc__deliver(c, &step);
}

/* A text chunk without candidates: one position with one candidate. */
static bool mc__deliver_text(mc__hcall *c, const char *text, size_t len)
{
    if (!len)
        return true;
    mc_step step = {.chosen = 0};
    mc_step_add(&step, text, len, -INFINITY, mc__is_end_text(c->backend, text, len));
    return mc__deliver(c, &step);
}

/* llama.cpp: "completion_probabilities": [{token|bytes, logprob,
 * top_logprobs: [...]}] (or prob / top_probs with post-sampling
 * probabilities); the older form "probs": [{tok_str, probs: [{tok_str, prob}]}]. */
static bool mc__llamacpp_positions(mc__hcall *c, const cJSON *event, bool *had)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(event, "completion_probabilities");
    bool old_form = false;
    if (!cJSON_IsArray(list)) {
        list = cJSON_GetObjectItemCaseSensitive(event, "probs");
        old_form = true;
    }
    *had = false;
    if (!cJSON_IsArray(list))
        return true;
    sm_buf bytes;
    sm_buf_init(&bytes, 4096);
    bool go_on = true;
    const cJSON *pos;
    cJSON_ArrayForEach(pos, list) {
        *had = true;
        mc_step step = {.chosen = -1};
        const cJSON *tops = cJSON_GetObjectItemCaseSensitive(pos, old_form ? "probs" : "top_logprobs");
        if (!cJSON_IsArray(tops))
            tops = cJSON_GetObjectItemCaseSensitive(pos, "top_probs");
        const cJSON *t;
        cJSON_ArrayForEach(t, tops) {
            if (mc__token_bytes(t, old_form ? "tok_str" : "token", &bytes))
                mc__add(c->backend, &step, &bytes, mc__logprob_of(t));
        }
        if (mc__token_bytes(pos, old_form ? "content" : "token", &bytes) ||
            mc__token_bytes(pos, "tok_str", &bytes))
            mc__choose(c->backend, &step, &bytes, mc__logprob_of(pos));
        go_on = mc__deliver(c, &step);
        if (!go_on)
            break;
    }
    sm_buf_free(&bytes);
    return go_on;
}

static bool mc__llamacpp_event(mc__hcall *c, const cJSON *event)
{
    bool had = false;
    /* A closing event that repeats the positions already streamed is a
     * summary: only a response that streamed nothing is read from it. */
    bool summary = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(event, "stop")) && c->positions > 0;
    if (!summary && !mc__llamacpp_positions(c, event, &had))
        return false;
    if (!had && !summary) {
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(event, "content");
        if (cJSON_IsString(content) && !mc__deliver_text(c, content->valuestring, strlen(content->valuestring)))
            return false;
    }
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(event, "stop");
    if (cJSON_IsTrue(stop)) {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(event, "stop_type");
        c->ended = true;
        if (cJSON_IsString(type) && (strcmp(type->valuestring, "eos") == 0 || strcmp(type->valuestring, "word") == 0))
            return mc__deliver_end(c);
        return false;
    }
    return true;
}

/* OpenAI: choices[0] with text, logprobs {tokens, token_logprobs,
 * top_logprobs: [{token: logprob}]} and finish_reason. */
static bool mc__openai_event(mc__hcall *c, const cJSON *event)
{
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(event, "choices");
    const cJSON *choice = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    if (!cJSON_IsObject(choice))
        return true;
    const cJSON *lp = cJSON_GetObjectItemCaseSensitive(choice, "logprobs");
    const cJSON *tokens = cJSON_IsObject(lp) ? cJSON_GetObjectItemCaseSensitive(lp, "tokens") : NULL;
    const cJSON *token_lps = cJSON_IsObject(lp) ? cJSON_GetObjectItemCaseSensitive(lp, "token_logprobs") : NULL;
    const cJSON *tops = cJSON_IsObject(lp) ? cJSON_GetObjectItemCaseSensitive(lp, "top_logprobs") : NULL;
    if (cJSON_IsArray(tokens)) {
        sm_buf bytes;
        sm_buf_init(&bytes, 4096);
        int n = cJSON_GetArraySize(tokens);
        bool go_on = true;
        for (int i = 0; i < n && go_on; i++) {
            mc_step step = {.chosen = -1};
            const cJSON *top = cJSON_IsArray(tops) ? cJSON_GetArrayItem(tops, i) : NULL;
            const cJSON *t;
            cJSON_ArrayForEach(t, top) {
                if (!t->string || !cJSON_IsNumber(t))
                    continue;
                sm_buf_clear(&bytes);
                if (!mc__decode_bytes_token(t->string, &bytes))
                    sm_buf_append_str(&bytes, t->string);
                mc__add(c->backend, &step, &bytes, t->valuedouble);
            }
            const cJSON *tok = cJSON_GetArrayItem(tokens, i);
            const cJSON *tlp = cJSON_IsArray(token_lps) ? cJSON_GetArrayItem(token_lps, i) : NULL;
            if (cJSON_IsString(tok)) {
                sm_buf_clear(&bytes);
                if (!mc__decode_bytes_token(tok->valuestring, &bytes))
                    sm_buf_append_str(&bytes, tok->valuestring);
                mc__choose(c->backend, &step, &bytes, cJSON_IsNumber(tlp) ? tlp->valuedouble : -INFINITY);
            }
            go_on = mc__deliver(c, &step);
        }
        sm_buf_free(&bytes);
        if (!go_on)
            return false;
    } else {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(choice, "text");
        if (cJSON_IsString(text) && !mc__deliver_text(c, text->valuestring, strlen(text->valuestring)))
            return false;
    }
    const cJSON *finish = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
    if (cJSON_IsString(finish)) {
        c->ended = true;
        if (strcmp(finish->valuestring, "stop") == 0)
            return mc__deliver_end(c);
        return false;
    }
    return true;
}

/* Ollama: {response, logprobs: [{token, logprob, bytes, top_logprobs}], done,
 * done_reason} or {error}. */
static bool mc__ollama_event(mc__hcall *c, const cJSON *event)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(event, "logprobs");
    if (cJSON_IsArray(list) && cJSON_GetArraySize(list) > 0) {
        sm_buf bytes;
        sm_buf_init(&bytes, 4096);
        bool go_on = true;
        const cJSON *pos;
        cJSON_ArrayForEach(pos, list) {
            mc_step step = {.chosen = -1};
            const cJSON *t;
            cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(pos, "top_logprobs")) {
                if (mc__token_bytes(t, "token", &bytes))
                    mc__add(c->backend, &step, &bytes, mc__logprob_of(t));
            }
            if (mc__token_bytes(pos, "token", &bytes))
                mc__choose(c->backend, &step, &bytes, mc__logprob_of(pos));
            go_on = mc__deliver(c, &step);
            if (!go_on)
                break;
        }
        sm_buf_free(&bytes);
        if (!go_on)
            return false;
    } else {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(event, "response");
        if (cJSON_IsString(text) && !mc__deliver_text(c, text->valuestring, strlen(text->valuestring)))
            return false;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(event, "done"))) {
        c->ended = true;
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(event, "done_reason");
        if (!cJSON_IsString(reason) || strcmp(reason->valuestring, "stop") == 0)
            return mc__deliver_end(c);
        return false;
    }
    return true;
}

/* ---- Events ------------------------------------------------------------------ */

static bool mc__on_event(mc__hcall *c, const char *json, size_t len)
{
    cJSON *event = cJSON_ParseWithLength(json, len);
    if (!event || !cJSON_IsObject(event)) {
        cJSON_Delete(event);
        c->error = SM_EINVAL;
        sm_buf_printf(&c->message, "the model server sent malformed JSON: %.*s", (int)(len < 120 ? len : 120), json);
        return false;
    }
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(event, "error");
    if (err) {
        const cJSON *msg = cJSON_IsObject(err) ? cJSON_GetObjectItemCaseSensitive(err, "message") : err;
        c->error = SM_EIO;
        sm_buf_printf(&c->message, "the model server reported an error: %s",
                      cJSON_IsString(msg) ? msg->valuestring : "(no message)");
        cJSON_Delete(event);
        return false;
    }
    bool go_on;
    switch (c->backend->kind) {
    case MC_HTTP_LLAMACPP:
        go_on = mc__llamacpp_event(c, event);
        break;
    case MC_HTTP_OPENAI:
        go_on = mc__openai_event(c, event);
        break;
    default:
        go_on = mc__ollama_event(c, event);
        break;
    }
    cJSON_Delete(event);
    return go_on;
}

static bool mc__on_line(void *data, const char *line, size_t len)
{
    mc__hcall *c = data;
    if (c->backend->kind == MC_HTTP_OLLAMA) {
        if (len == 0)
            return true;
        c->streamed = true;
        return mc__on_event(c, line, len);
    }
    /* Server-sent events: only "data:" fields matter; comments and other
     * fields are skipped, "[DONE]" ends the stream. */
    if (len >= 5 && memcmp(line, "data:", 5) == 0) {
        c->streamed = true;
        line += 5;
        len -= 5;
        if (len && *line == ' ')
            line++, len--;
        if (len == 6 && memcmp(line, "[DONE]", 6) == 0) {
            c->ended = true;
            return false;
        }
        return mc__on_event(c, line, len);
    }
    if (!c->streamed && len && line[0] == '{') {
        /* Not an event stream: keep the body as one JSON document. */
        return true;
    }
    return true;
}

static bool mc__on_data(void *data, const char *bytes, size_t len)
{
    mc__hcall *c = data;
    if (!c->streamed && c->raw.len + len <= c->raw.max)
        sm_buf_append(&c->raw, bytes, len);
    int error;
    bool go_on = mc_lines_feed(&c->lines, bytes, len, mc__on_line, c, &error);
    if (error) {
        c->error = SM_ETOOBIG;
        sm_buf_append_str(&c->message, "the model server sent a line longer than the cap");
    }
    return go_on && !c->error;
}

static void mc__hcall_done(void *data, int status, const char *message)
{
    mc__hcall *c = data;
    if (status == SM_OK && !c->error && !c->stopped && !c->ended) {
        mc_lines_finish(&c->lines, mc__on_line, c);
        if (!c->streamed && c->raw.len && !c->error) {
            /* A server that ignored "stream": one JSON document. */
            c->streamed = true;
            mc__on_event(c, c->raw.data, c->raw.len);
        }
    }
    if (status == SM_OK && !c->error && !c->streamed)
        c->error = SM_EINVAL, sm_buf_append_str(&c->message, "the model server's response was empty");
    int final = status;
    const char *text = message;
    if (c->error) {
        final = c->error;
        text = c->message.data;
    } else if (status == SM_ECANCELED && !c->stopped && c->ended) {
        final = SM_OK;   /* "[DONE]" or a stop: the rest of the body did not matter */
    }
    if (c->stopped)
        final = SM_ECANCELED;
    c->on_done(c->data, final, text);
    mc_lines_free(&c->lines);
    sm_buf_free(&c->raw);
    sm_buf_free(&c->message);
    sm_free(c);
}

/* ---- Requests ------------------------------------------------------------------- */

/* Cuts a generated text back to its last whole UTF-8 sequence: JSON strings
 * must be valid UTF-8. */
static size_t mc__whole_utf8(const char *s, size_t len)
{
    return sm_utf8_boundary_before((const uint8_t *)s, len);
}

static char *mc__build_body(mc__hb *b, const mc_request *r, sm_buf *url, char *error, size_t error_size)
{
    cJSON *o = cJSON_CreateObject();
    size_t gen_len = mc__whole_utf8(r->generated, r->generated_len);
    uint32_t n_cand = r->n_candidates < b->max_candidates ? r->n_candidates : b->max_candidates;
    sm_buf prompt;
    sm_buf_init(&prompt, (size_t)64 << 20);
    if (b->tmpl) {
        mc_template_render(b->tmpl, r->left, r->left_len, r->right, r->right_len, &prompt);
        sm_buf_append(&prompt, r->generated, gen_len);
    }
    cJSON *stops = cJSON_CreateArray();
    for (const char *const *s = b->tmpl ? b->tmpl->stops : NULL; s && *s; s++)
        cJSON_AddItemToArray(stops, cJSON_CreateString(*s));
    const char *p = prompt.data ? prompt.data : "";
    switch (b->kind) {
    case MC_HTTP_LLAMACPP:
        if (b->tmpl) {
            sm_buf_printf(url, "%s/completion", b->endpoint);
            cJSON_AddStringToObject(o, "prompt", p);
        } else {
            sm_buf_printf(url, "%s/infill", b->endpoint);
            sm_buf part;
            sm_buf_init(&part, (size_t)64 << 20);
            sm_buf_append(&part, r->left, r->left_len);
            cJSON_AddStringToObject(o, "input_prefix", part.data ? part.data : "");
            sm_buf_clear(&part);
            sm_buf_append(&part, r->right, r->right_len);
            cJSON_AddStringToObject(o, "input_suffix", part.data ? part.data : "");
            sm_buf_clear(&part);
            sm_buf_append(&part, r->generated, gen_len);
            cJSON_AddStringToObject(o, "prompt", part.data ? part.data : "");
            sm_buf_free(&part);
            cJSON_AddItemToObject(o, "input_extra", cJSON_CreateArray());
        }
        cJSON_AddNumberToObject(o, "n_predict", r->n_ahead);
        cJSON_AddNumberToObject(o, "n_probs", n_cand);
        cJSON_AddBoolToObject(o, "cache_prompt", true);
        cJSON_AddBoolToObject(o, "stream", true);
        cJSON_AddNumberToObject(o, "temperature", 0);
        cJSON_AddNumberToObject(o, "top_k", 1);
        if (b->options.total_timeout_ms)
            cJSON_AddNumberToObject(o, "t_max_predict_ms", b->options.total_timeout_ms);
        if (b->tmpl)
            cJSON_AddItemToObject(o, "stop", stops), stops = NULL;
        break;
    case MC_HTTP_OPENAI: {
        size_t n = strlen(b->endpoint);
        bool has_v1 = n >= 3 && strcmp(b->endpoint + n - 3, "/v1") == 0;
        sm_buf_printf(url, "%s%s/completions", b->endpoint, has_v1 ? "" : "/v1");
        if (b->model)
            cJSON_AddStringToObject(o, "model", b->model);
        cJSON_AddStringToObject(o, "prompt", p);
        cJSON_AddNumberToObject(o, "max_tokens", r->n_ahead);
        cJSON_AddNumberToObject(o, "logprobs", n_cand);
        cJSON_AddNumberToObject(o, "temperature", 0);
        cJSON_AddBoolToObject(o, "stream", true);
        cJSON_AddItemToObject(o, "stop", stops);
        stops = NULL;
        break;
    }
    case MC_HTTP_OLLAMA: {
        sm_buf_printf(url, "%s/api/generate", b->endpoint);
        cJSON_AddStringToObject(o, "model", b->model ? b->model : "");
        if (b->tmpl) {
            cJSON_AddStringToObject(o, "prompt", p);
            cJSON_AddBoolToObject(o, "raw", true);
        } else {
            sm_buf part;
            sm_buf_init(&part, (size_t)64 << 20);
            sm_buf_append(&part, r->left, r->left_len);
            sm_buf_append(&part, r->generated, gen_len);
            cJSON_AddStringToObject(o, "prompt", part.data ? part.data : "");
            sm_buf_clear(&part);
            sm_buf_append(&part, r->right, r->right_len);
            cJSON_AddStringToObject(o, "suffix", part.data ? part.data : "");
            sm_buf_free(&part);
        }
        cJSON_AddBoolToObject(o, "stream", true);
        cJSON_AddBoolToObject(o, "logprobs", true);
        cJSON_AddNumberToObject(o, "top_logprobs", n_cand);
        cJSON *opts = cJSON_AddObjectToObject(o, "options");
        cJSON_AddNumberToObject(opts, "temperature", 0);
        cJSON_AddNumberToObject(opts, "num_predict", r->n_ahead);
        if (b->tmpl)
            cJSON_AddItemToObject(opts, "stop", stops), stops = NULL;
        break;
    }
    }
    cJSON_Delete(stops);
    sm_buf_free(&prompt);
    char *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!body)
        snprintf(error, error_size, "could not build the request");
    return body;
}

static int mc__hb_start(mc_backend *base, const mc_request *r, mc_step_cb on_step, mc_done_cb on_done, void *data,
                        mc_call **out)
{
    mc__hb *b = (mc__hb *)base;
    sm_buf url;
    sm_buf_init(&url, 8192);
    char error[128];
    char *body = mc__build_body(b, r, &url, error, sizeof error);
    if (!body || !url.data) {
        sm_buf_free(&url);
        cJSON_free(body);
        return SM_ENOMEM;
    }
    mc__hcall *c = sm_calloc(1, sizeof *c);
    c->base.vtable = base->vtable;
    c->backend = b;
    c->on_step = on_step;
    c->on_done = on_done;
    c->data = data;
    mc_lines_init(&c->lines, MC__MAX_EVENT);
    sm_buf_init(&c->raw, b->options.max_response ? b->options.max_response : MC__MAX_EVENT);
    sm_buf_init(&c->message, 1024);
    mc_http_post_args args = {
        .url = url.data,
        .body = body,
        .body_len = strlen(body),
        .bearer = b->api_key,
        .connect_timeout_ms = b->options.connect_timeout_ms,
        .first_byte_timeout_ms = b->options.first_byte_timeout_ms,
        .total_timeout_ms = b->options.total_timeout_ms,
        .retries = b->options.retries,
        .max_response = b->options.max_response,
        .tls_verify = b->options.tls_verify,
    };
    int rc = mc_http_post(b->http, &args, mc__on_data, mc__hcall_done, c, &c->req);
    sm_buf_free(&url);
    cJSON_free(body);
    if (rc != SM_OK) {
        mc_lines_free(&c->lines);
        sm_buf_free(&c->raw);
        sm_buf_free(&c->message);
        sm_free(c);
        return rc;
    }
    base->round_trips++;
    *out = &c->base;
    return SM_OK;
}

static void mc__hb_cancel(mc_call *call)
{
    mc__hcall *c = (mc__hcall *)call;
    c->stopped = true;
    mc_http_cancel(c->req);
}

static void mc__hb_free(mc_backend *base)
{
    mc__hb *b = (mc__hb *)base;
    mc_http_free(b->http);
    sm_free(b->endpoint);
    sm_free(b->model);
    if (b->api_key) {
        memset(b->api_key, 0, strlen(b->api_key));
        sm_free(b->api_key);
    }
    sm_free(b);
}

static const mc_backend_vtable mc__vtables[] = {
    {.name = "llamacpp", .start = mc__hb_start, .cancel = mc__hb_cancel, .free = mc__hb_free},
    {.name = "openai", .start = mc__hb_start, .cancel = mc__hb_cancel, .free = mc__hb_free},
    {.name = "ollama", .start = mc__hb_start, .cancel = mc__hb_cancel, .free = mc__hb_free},
};

void mc_http_options_init(mc_http_options *o)
{
    memset(o, 0, sizeof *o);
    o->kind = MC_HTTP_LLAMACPP;
    o->connect_timeout_ms = 2000;
    o->first_byte_timeout_ms = 10000;
    o->total_timeout_ms = 30000;
    o->retries = 1;
    o->max_response = 16u << 20;
    o->tls_verify = true;
}

int mc_backend_http_new(uv_loop_t *loop, const mc_http_options *o, mc_backend **out, char *error, size_t error_size)
{
    if (!o->endpoint || (strncmp(o->endpoint, "http://", 7) != 0 && strncmp(o->endpoint, "https://", 8) != 0)) {
        snprintf(error, error_size, "the endpoint must be an http:// or https:// URL, not \"%s\"",
                 o->endpoint ? o->endpoint : "");
        return SM_EINVAL;
    }
    if ((unsigned)o->kind > MC_HTTP_OLLAMA) {
        snprintf(error, error_size, "unknown HTTP backend");
        return SM_EINVAL;
    }
    if (o->kind == MC_HTTP_OLLAMA && (!o->model || !*o->model)) {
        snprintf(error, error_size, "the ollama backend needs a model name");
        return SM_EINVAL;
    }
    const mc_template *tmpl = o->tmpl;
    if (!tmpl && o->kind == MC_HTTP_OPENAI) {
        tmpl = o->model ? mc_template_for_model(o->model) : NULL;
        if (!tmpl) {
            snprintf(error, error_size,
                     "no fill-in-the-middle template for the model \"%s\": name one with the template setting",
                     o->model ? o->model : "");
            return SM_EINVAL;
        }
    }
    mc__hb *b = sm_calloc(1, sizeof *b);
    b->http = mc_http_new(loop);
    if (!b->http) {
        sm_free(b);
        snprintf(error, error_size, "could not start the HTTP client");
        return SM_ENOMEM;
    }
    b->base.vtable = &mc__vtables[o->kind];
    b->kind = o->kind;
    b->options = *o;
    b->options.endpoint = NULL;
    b->options.model = NULL;
    b->options.api_key = NULL;
    size_t n = strlen(o->endpoint);
    while (n > 0 && o->endpoint[n - 1] == '/')
        n--;
    b->endpoint = sm_strndup(o->endpoint, n);
    b->model = o->model ? sm_strdup(o->model) : NULL;
    b->api_key = o->api_key && *o->api_key ? sm_strdup(o->api_key) : NULL;
    b->tmpl = tmpl;
    b->max_candidates = o->kind == MC_HTTP_OPENAI ? 5 : 40;
    b->base.max_candidates = b->max_candidates;
    *out = &b->base;
    return SM_OK;
}
