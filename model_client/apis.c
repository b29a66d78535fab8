/*
 * apis.c - what the HTTP backends (llama.cpp server, OpenAI-compatible
 * /v1/completions, Ollama /api/generate) share: the backend object, the
 * stages of a call, streamed events, and the reading of candidate lists.
 *
 * A call to a llama.cpp server (and to an OpenAI-compatible server that
 * turns out to be one) first learns what it needs once per backend (/props,
 * then one /tokenize of every known control string: see server_info.c),
 * tokenizes the contexts it has not seen yet, and then generates with the
 * prompt as token ids.  Each generation request asks for greedy decoding of
 * n_ahead tokens with the top n_candidates of every position, streamed;
 * every event is turned into positions as it arrives, so the decoding loop
 * can stop a request at the first position where it goes another way.  A
 * server that sends no candidates still works: each chunk of text becomes a
 * position with that one candidate.
 */
#include "mc_apis.h"
#include "seam_curl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MC__MAX_EVENT = 4 << 20, MC__MAX_AUX = 64 << 20 };

/* ---- Candidates ------------------------------------------------------------ */

bool mc_hb_is_end_text(const mc_hb *b, const char *text, size_t len)
{
    const mc_template *t = b->info.tmpl ? b->info.tmpl : b->tmpl;
    if (t)
        return mc_template_is_stop(t, text, len);
    for (t = mc_templates(); t->name; t++)
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
            char ch = (char)v;
            sm_buf_append(out, &ch, 1);
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
            char ch = (char)(unsigned char)b->valueint;
            if (sm_buf_append(out, &ch, 1) != SM_OK)
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

static int32_t mc__id_of(const cJSON *obj)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "id");
    return cJSON_IsNumber(id) && id->valuedouble >= 0 && id->valuedouble <= INT32_MAX ? (int32_t)id->valuedouble : -1;
}

/* An end token: a stop string, one of the vocabulary's end tokens, or a
 * token with an id but no text (how a server without --special sends its
 * control tokens). */
static bool mc__is_end(const mc_hb *b, const char *bytes, size_t len, int32_t id)
{
    if (id >= 0 && (len == 0 || mc_server_info_is_eog(&b->info, id)))
        return true;
    return len > 0 && mc_hb_is_end_text(b, bytes, len);
}

static void mc__add(mc_hb *b, mc_step *step, const sm_buf *bytes, double logprob, int32_t id)
{
    const char *data = bytes->data ? bytes->data : "";
    mc_step_add_token(step, data, bytes->len, logprob, mc__is_end(b, data, bytes->len, id), id);
}

/* Makes the candidate with these bytes (and id, when known) the chosen one,
 * adding it when the list lacks it. */
static void mc__choose(mc_hb *b, mc_step *step, const char *bytes, size_t len, double logprob, int32_t id)
{
    for (uint32_t i = 0; i < step->count; i++)
        if (step->cands[i].len == len && memcmp(step->cands[i].bytes, bytes, len) == 0 &&
            (id < 0 || step->cands[i].id < 0 || step->cands[i].id == id)) {
            step->chosen = (int32_t)i;
            return;
        }
    mc_step_add_token(step, bytes, len, logprob, mc__is_end(b, bytes, len, id), id);
    step->chosen = (int32_t)step->count - 1;
}

/* Hands a step to the loop; false when the request must stop. */
static bool mc__deliver(mc_hcall *c, mc_step *step)
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

bool mc_hb_deliver_end(mc_hcall *c)
{
    if (c->last_eos)
        return false;
    mc_step step = {.chosen = 0};
    mc_step_add(&step, "", 0, 0.0, true);
    return mc__deliver(c, &step);
}

bool mc_hb_deliver_text(mc_hcall *c, const char *text, size_t len)
{
    if (!len)
        return true;
    mc_step step = {.chosen = 0};
    mc_step_add(&step, text, len, -INFINITY, mc_hb_is_end_text(c->backend, text, len));
    return mc__deliver(c, &step);
}

/* The candidate with this id, or NULL. */
static const mc_token *mc__cand_with_id(const mc_step *step, int32_t id)
{
    for (uint32_t i = 0; id >= 0 && i < step->count; i++)
        if (step->cands[i].id == id)
            return &step->cands[i];
    return NULL;
}

/* One position of the shared form.  The chosen token's "bytes" are the text
 * the server sent with it, which is not always the token's own: a server
 * that holds text back (a possible stop string) sends "" and later the held
 * text with the next token; a token that ends inside a UTF-8 character is
 * not sent at all, and the next one carries both.  The token's own bytes are
 * in its candidate entry, so what was held is skipped when it comes, and
 * what was merged is delivered first as a position of its own (its
 * alternatives are lost). */
static bool mc__position(mc_hcall *c, const cJSON *pos, bool old_form, sm_buf *bytes)
{
    mc_hb *b = c->backend;
    mc_step step = {.chosen = -1};
    const cJSON *tops = cJSON_GetObjectItemCaseSensitive(pos, old_form ? "probs" : "top_logprobs");
    if (!cJSON_IsArray(tops))
        tops = cJSON_GetObjectItemCaseSensitive(pos, "top_probs");
    const cJSON *t;
    cJSON_ArrayForEach(t, tops) {
        if (mc__token_bytes(t, old_form ? "tok_str" : "token", bytes))
            mc__add(b, &step, bytes, mc__logprob_of(t), mc__id_of(t));
    }
    int32_t id = mc__id_of(pos);
    double lp = mc__logprob_of(pos);
    if (!mc__token_bytes(pos, old_form ? "content" : "token", bytes) && !mc__token_bytes(pos, "tok_str", bytes)) {
        mc_step_free(&step);
        return true;
    }
    const char *sent = bytes->data ? bytes->data : "";
    size_t sent_len = bytes->len;
    if (c->held.len && sent_len >= c->held.len && memcmp(sent, c->held.data, c->held.len) == 0) {
        sent += c->held.len;
        sent_len -= c->held.len;
        sm_buf_clear(&c->held);
    }
    const mc_token *own = mc__cand_with_id(&step, id);
    if (own && own->len && sent_len == 0) {
        /* Held back: the token is real, its text comes later. */
        sm_buf_append(&c->held, own->bytes, own->len);
        mc__choose(b, &step, own->bytes, own->len, lp, id);
        return mc__deliver(c, &step);
    }
    if (own && sent_len > own->len && memcmp(sent + sent_len - own->len, own->bytes, own->len) == 0) {
        size_t merged = sent_len - own->len;
        mc_step first = {.chosen = 0};
        mc_step_add(&first, sent, merged, -INFINITY, false);
        char *rest = sm_strndup(own->bytes, own->len);
        size_t rest_len = own->len;
        bool go_on = mc__deliver(c, &first);
        if (go_on) {
            mc__choose(b, &step, rest, rest_len, lp, id);
            go_on = mc__deliver(c, &step);
        } else {
            mc_step_free(&step);
        }
        sm_free(rest);
        return go_on;
    }
    mc__choose(b, &step, sent, sent_len, lp, id);
    return mc__deliver(c, &step);
}

bool mc_hb_positions(mc_hcall *c, const cJSON *list, bool old_form)
{
    sm_buf bytes;
    sm_buf_init(&bytes, 1 << 16);
    bool go_on = true;
    const cJSON *pos;
    cJSON_ArrayForEach(pos, list) {
        go_on = mc__position(c, pos, old_form, &bytes);
        if (!go_on)
            break;
    }
    sm_buf_free(&bytes);
    return go_on;
}

void mc_hb_read_prompt_stats(mc_hcall *c, const cJSON *event)
{
    if (c->prompt_known)
        return;
    const cJSON *timings = cJSON_GetObjectItemCaseSensitive(event, "timings");
    const cJSON *n = cJSON_IsObject(timings) ? cJSON_GetObjectItemCaseSensitive(timings, "prompt_n") : NULL;
    if (cJSON_IsNumber(n) && n->valuedouble >= 0) {
        c->prompt_known = true;
        c->prompt_evaluated = (uint64_t)n->valuedouble;
        return;
    }
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(event, "usage");
    const cJSON *prompt = cJSON_IsObject(usage) ? cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens") : NULL;
    if (!cJSON_IsNumber(prompt))
        return;
    const cJSON *details = cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens_details");
    const cJSON *cached = cJSON_IsObject(details) ? cJSON_GetObjectItemCaseSensitive(details, "cached_tokens") : NULL;
    double evaluated = prompt->valuedouble - (cJSON_IsNumber(cached) ? cached->valuedouble : 0);
    c->prompt_known = true;
    c->prompt_evaluated = evaluated > 0 ? (uint64_t)evaluated : 0;
}

/* ---- Events ------------------------------------------------------------------ */

static bool mc__on_event(mc_hcall *c, const char *json, size_t len)
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
    mc_hb_read_prompt_stats(c, event);
    bool go_on;
    switch (c->backend->kind) {
    case MC_HTTP_LLAMACPP:
        go_on = mc_llamacpp_event(c, event);
        break;
    case MC_HTTP_OPENAI:
        go_on = mc_openai_event(c, event);
        break;
    default:
        go_on = mc_ollama_event(c, event);
        break;
    }
    cJSON_Delete(event);
    return go_on;
}

static bool mc__on_line(void *data, const char *line, size_t len)
{
    mc_hcall *c = data;
    if (c->backend->kind == MC_HTTP_OLLAMA) {
        if (len == 0)
            return true;
        c->streamed = true;
        return mc__on_event(c, line, len);
    }
    /* Server-sent events: only "data:" fields matter; comments and other
     * fields are skipped, "[DONE]" ends the stream.  A body that is not an
     * event stream is kept whole and read at the end. */
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
    return true;
}

/* ---- Stages -------------------------------------------------------------------- */

static void mc__continue(mc_hcall *c);

static bool mc__on_data(void *data, const char *bytes, size_t len)
{
    mc_hcall *c = data;
    if (c->stage != MC_STAGE_GENERATE) {
        if (sm_buf_append(&c->raw, bytes, len) != SM_OK) {
            c->error = SM_ETOOBIG;
            sm_buf_append_str(&c->message, "the model server's answer is larger than the cap");
            return false;
        }
        return true;
    }
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

static void mc__call_free(mc_hcall *c)
{
    mc_lines_free(&c->lines);
    sm_buf_free(&c->raw);
    sm_buf_free(&c->held);
    sm_buf_free(&c->message);
    sm_free(c->left);
    sm_free(c->right);
    sm_free(c->generated);
    sm_free(c->generated_ids);
    mc_project_free(c->project);
    sm_free(c);
}

/* Ends the call with on_done, once. */
static void mc__finish(mc_hcall *c, int status, const char *message)
{
    if (c->error) {
        status = c->error;
        message = c->message.data;
    } else if (c->stopped) {
        status = SM_ECANCELED;
    }
    if (status != SM_OK && status != SM_ECANCELED && c->backend->info.state != MC_INFO_UNKNOWN) {
        /* The server may have been restarted with another model: what it
         * told is asked again by the next call. */
        mc_hb *b = c->backend;
        b->info.state = MC_INFO_UNKNOWN;
        b->left.valid = b->right.valid = b->generated.valid = false;
    }
    if (status == SM_OK && c->stage == MC_STAGE_GENERATE) {
        mc_backend *base = &c->backend->base;
        if (c->prompt_known) {
            base->prompt_tokens += c->prompt_evaluated;
            base->prompt_reports++;
        }
    }
    c->on_done(c->data, status, message);
    mc__call_free(c);
}

static void mc__generate_done(mc_hcall *c, int status, const char *message)
{
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
    if (status == SM_ECANCELED && !c->stopped && c->ended)
        status = SM_OK;   /* "[DONE]" or a stop: the rest of the body did not matter */
    if (c->prompt_known && c->stopped) {
        /* A request the loop stopped still evaluated its prompt. */
        c->backend->base.prompt_tokens += c->prompt_evaluated;
        c->backend->base.prompt_reports++;
        c->prompt_known = false;
    }
    mc__finish(c, status, message);
}

static char *mc__head_body(const mc_hcall *c, bool *repo);

/* The answer of an auxiliary request, read by stage. */
static int mc__aux_answer(mc_hcall *c, char *error, size_t error_size)
{
    mc_hb *b = c->backend;
    const char *json = c->raw.data ? c->raw.data : "";
    int rc = SM_OK;
    switch (c->stage) {
    case MC_STAGE_PROPS: {
        bool changed;
        rc = mc_server_info_props(&b->info, json, c->raw.len, &changed);
        if (rc)
            snprintf(error, error_size, "the model server's /props answer could not be read");
        else if (changed && b->info.state == MC_INFO_KNOWN) {
            /* Another model: its vocabulary is learnt again. */
            b->info.state = MC_INFO_UNKNOWN;
            b->left.valid = b->right.valid = b->generated.valid = b->head.valid = false;
        }
        break;
    }
    case MC_STAGE_PROBE:
        rc = mc_server_info_tokens(&b->info, json, c->raw.len, b->tmpl,
                                   !(b->kind == MC_HTTP_LLAMACPP && b->options.llamacpp_mode == MC_LLAMACPP_INFILL),
                                   error, error_size);
        if (rc == SM_OK)
            b->info.state = MC_INFO_KNOWN;
        break;
    case MC_STAGE_TOKENIZE_LEFT:
    case MC_STAGE_TOKENIZE_RIGHT:
    case MC_STAGE_TOKENIZE_GENERATED: {
        mc_tokens *t = c->stage == MC_STAGE_TOKENIZE_LEFT    ? &b->left
                       : c->stage == MC_STAGE_TOKENIZE_RIGHT ? &b->right
                                                             : &b->generated;
        const char *text = c->stage == MC_STAGE_TOKENIZE_LEFT    ? c->left
                           : c->stage == MC_STAGE_TOKENIZE_RIGHT ? c->right
                                                                 : c->generated;
        size_t len = c->stage == MC_STAGE_TOKENIZE_LEFT    ? c->request.left_len
                     : c->stage == MC_STAGE_TOKENIZE_RIGHT ? c->request.right_len
                                                           : c->request.generated_len;
        rc = mc_tokens_parse(t, json, c->raw.len);
        if (rc)
            snprintf(error, error_size, "the model server's /tokenize answer could not be read");
        t->hash = mc_text_hash(text, len);
        t->len = len;
        break;
    }
    case MC_STAGE_TOKENIZE_HEAD: {
        bool repo;
        char *body = mc__head_body(c, &repo);
        rc = mc_tokens_parse(&b->head, json, c->raw.len);
        if (rc)
            snprintf(error, error_size, "the model server's /tokenize answer could not be read");
        b->head.hash = body ? mc_text_hash(body, strlen(body)) : 0;
        b->head.len = body ? strlen(body) : 0;
        cJSON_free(body);
        break;
    }
    default:
        break;
    }
    return rc;
}

static void mc__on_http_done(void *data, int status, const char *message)
{
    mc_hcall *c = data;
    c->req = NULL;
    if (c->stage == MC_STAGE_GENERATE) {
        mc__generate_done(c, status, message);
        return;
    }
    mc_hb *b = c->backend;
    if (status == SM_OK && !c->error && !c->stopped) {
        char error[512] = "";
        int rc = mc__aux_answer(c, error, sizeof error);
        if (rc) {
            mc__finish(c, rc, error);
            return;
        }
        sm_buf_clear(&c->raw);
        mc__continue(c);
        return;
    }
    if (status == SM_ENOTFOUND && (c->stage == MC_STAGE_PROPS || c->stage == MC_STAGE_PROBE) &&
        b->kind == MC_HTTP_OPENAI) {
        /* Not a llama.cpp server: text prompts from here on. */
        b->info.state = MC_INFO_NONE;
        sm_buf_clear(&c->raw);
        mc__continue(c);
        return;
    }
    if (status == SM_ENOTFOUND && (c->stage == MC_STAGE_PROPS || c->stage == MC_STAGE_PROBE)) {
        char error[512];
        snprintf(error, sizeof error,
                 "the server at %s does not answer like a llama.cpp server (no %s): use llama-server, or "
                 "the openai backend for other servers", b->endpoint, c->stage == MC_STAGE_PROPS ? "/props" : "/tokenize");
        mc__finish(c, SM_EIO, error);
        return;
    }
    mc__finish(c, status, message);
}

static int mc__send(mc_hcall *c, const char *url, const char *body, bool get)
{
    mc_hb *b = c->backend;
    mc_http_post_args args = {
        .url = url,
        .body = body ? body : "",
        .body_len = body ? strlen(body) : 0,
        .bearer = b->api_key,
        .connect_timeout_ms = b->options.connect_timeout_ms,
        .first_byte_timeout_ms = b->options.first_byte_timeout_ms,
        .total_timeout_ms = b->options.total_timeout_ms,
        .retries = b->options.retries,
        .max_response = b->options.max_response,
        .tls_verify = b->options.tls_verify,
        .get = get,
    };
    if (c->stage != MC_STAGE_GENERATE)
        b->base.aux_requests++;
    else
        b->base.round_trips++;
    return mc_http_post(b->http, &args, mc__on_data, mc__on_http_done, c, &c->req);
}

static char *mc__tokenize_body(const char *text, size_t len)
{
    char *whole = mc_hb_whole_utf8(text, len);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "content", whole);
    cJSON_AddBoolToObject(o, "add_special", false);
    cJSON_AddBoolToObject(o, "parse_special", false);
    cJSON_AddBoolToObject(o, "with_pieces", true);
    char *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    sm_free(whole);
    return body;
}

static bool mc__cached(const mc_tokens *t, const char *text, size_t len)
{
    return t->valid && t->len == len && t->hash == mc_text_hash(text, len);
}

typedef struct mc__head_json {
    const mc_server_info *info;
    cJSON *content;
} mc__head_json;

static void mc__head_piece(void *data, const char *text, size_t len, bool special)
{
    mc__head_json *h = data;
    if (special) {
        cJSON_AddItemToArray(h->content, cJSON_CreateNumber(mc_server_info_special(h->info, text)));
        return;
    }
    char *whole = mc_hb_whole_utf8(text, len);
    cJSON_AddItemToArray(h->content, cJSON_CreateString(whole));
    sm_free(whole);
}

/* The /tokenize body of the call's project head: its pieces as the server
 * tokenizes /infill's (control strings as their ids, each text alone), or
 * NULL when the call has none. */
static char *mc__head_body(const mc_hcall *c, bool *repo)
{
    const mc_hb *b = c->backend;
    const mc_template *tmpl = mc_hb_template(c);
    *repo = mc_server_info_has_repo(&b->info, tmpl);
    const mc_project *p = c->request.project;
    if (!p || !p->count || (!*repo && !p->comment))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    mc__head_json h = {&b->info, cJSON_AddArrayToObject(o, "content")};
    mc_project_pieces(*repo ? tmpl : NULL, p, p->count, mc__head_piece, &h);
    cJSON_AddBoolToObject(o, "add_special", false);
    cJSON_AddBoolToObject(o, "parse_special", false);
    cJSON_AddBoolToObject(o, "with_pieces", true);
    char *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return body;
}

bool mc_hb_head(const mc_hcall *c, mc_prompt_head *out)
{
    const mc_hb *b = c->backend;
    bool repo;
    char *body = mc__head_body(c, &repo);
    bool have = body && mc__cached(&b->head, body, strlen(body));
    cJSON_free(body);
    if (have) {
        out->tokens = &b->head;
        out->repo = repo;
        out->sep = repo ? mc_server_info_special(&b->info, mc_hb_template(c)->file_sep) : -1;
    }
    return have;
}

bool mc_hb_uses_tokens(const mc_hcall *c)
{
    const mc_hb *b = c->backend;
    return b->kind != MC_HTTP_OLLAMA && b->info.state != MC_INFO_NONE;
}

const mc_template *mc_hb_template(const mc_hcall *c)
{
    const mc_hb *b = c->backend;
    if (b->tmpl)
        return b->tmpl;
    if (b->info.tmpl)
        return b->info.tmpl;
    return b->model ? mc_template_for_model(b->model) : NULL;
}

char *mc_hb_whole_utf8(const char *s, size_t len)
{
    return sm_strndup(s, sm_utf8_boundary_before((const uint8_t *)s, len));
}

/* The stage after what the call has done: what the backend does not know
 * yet, the contexts' tokens, then the generation. */
static mc_hcall_stage mc__next_stage(const mc_hcall *c)
{
    const mc_hb *b = c->backend;
    if (!mc_hb_uses_tokens(c))
        return MC_STAGE_GENERATE;
    if (b->info.state == MC_INFO_UNKNOWN)
        return c->props_done ? MC_STAGE_PROBE : MC_STAGE_PROPS;
    if (c->request.fresh && !c->props_done)
        return MC_STAGE_PROPS;   /* still the same model? */
    if (!mc__cached(&b->left, c->left, c->request.left_len))
        return MC_STAGE_TOKENIZE_LEFT;
    if (!mc__cached(&b->right, c->right, c->request.right_len))
        return MC_STAGE_TOKENIZE_RIGHT;
    bool infill = b->kind == MC_HTTP_LLAMACPP && b->options.llamacpp_mode == MC_LLAMACPP_INFILL;
    bool repo;
    char *head = infill ? NULL : mc__head_body(c, &repo);
    bool head_known = !head || mc__cached(&b->head, head, strlen(head));
    cJSON_free(head);
    if (!head_known)
        return MC_STAGE_TOKENIZE_HEAD;
    if (!infill && !c->generated_ids && c->request.generated_len &&
        !mc__cached(&b->generated, c->generated, c->request.generated_len))
        return MC_STAGE_TOKENIZE_GENERATED;
    return MC_STAGE_GENERATE;
}

/* Sends the call's next request; an error code (with c->message) when it
 * could not be sent. */
static int mc__advance(mc_hcall *c)
{
    mc_hb *b = c->backend;
    if (c->stage == MC_STAGE_PROPS)
        c->props_done = true;
    c->stage = mc__next_stage(c);
    sm_buf url;
    sm_buf_init(&url, 8192);
    char *body = NULL;
    int rc = SM_OK;
    switch (c->stage) {
    case MC_STAGE_PROPS:
        sm_buf_printf(&url, "%s/props", b->root);
        break;
    case MC_STAGE_PROBE:
        sm_buf_printf(&url, "%s/tokenize", b->root);
        body = mc_server_info_probe_body(b->tmpl);
        break;
    case MC_STAGE_TOKENIZE_LEFT:
        sm_buf_printf(&url, "%s/tokenize", b->root);
        body = mc__tokenize_body(c->left, c->request.left_len);
        break;
    case MC_STAGE_TOKENIZE_RIGHT:
        sm_buf_printf(&url, "%s/tokenize", b->root);
        body = mc__tokenize_body(c->right, c->request.right_len);
        break;
    case MC_STAGE_TOKENIZE_HEAD: {
        bool repo;
        sm_buf_printf(&url, "%s/tokenize", b->root);
        body = mc__head_body(c, &repo);
        break;
    }
    case MC_STAGE_TOKENIZE_GENERATED:
        if (sm_utf8_boundary_before((const uint8_t *)c->generated, c->request.generated_len) !=
            c->request.generated_len) {
            sm_buf_append_str(&c->message, "the text generated so far ends inside a character whose token is unknown");
            rc = SM_EINVAL;
            break;
        }
        sm_buf_printf(&url, "%s/tokenize", b->root);
        body = mc__tokenize_body(c->generated, c->request.generated_len);
        break;
    default:
        rc = b->kind == MC_HTTP_LLAMACPP ? mc_llamacpp_body(c, &url, &body)
             : b->kind == MC_HTTP_OPENAI ? mc_openai_body(c, &url, &body)
                                         : mc_ollama_body(c, &url, &body);
        break;
    }
    if (rc == SM_OK && (!url.data || (!body && c->stage != MC_STAGE_PROPS)))
        rc = SM_ENOMEM;
    if (rc == SM_OK)
        rc = mc__send(c, url.data, body, c->stage == MC_STAGE_PROPS);
    sm_buf_free(&url);
    cJSON_free(body);
    if (rc != SM_OK && !c->message.len)
        sm_buf_append_str(&c->message, "could not send the request to the model server");
    return rc;
}

/* From the loop: the next request, or the end of the call. */
static void mc__continue(mc_hcall *c)
{
    int rc = mc__advance(c);
    if (rc != SM_OK)
        mc__finish(c, rc, c->message.data);
}

/* ---- The backend ------------------------------------------------------------------ */

static int mc__hb_start(mc_backend *base, const mc_request *r, mc_step_cb on_step, mc_done_cb on_done, void *data,
                        mc_call **out)
{
    mc_hb *b = (mc_hb *)base;
    mc_hcall *c = sm_calloc(1, sizeof *c);
    c->base.vtable = base->vtable;
    c->backend = b;
    c->request = *r;
    c->left = sm_strndup(r->left, r->left_len);
    c->right = sm_strndup(r->right, r->right_len);
    c->generated = sm_strndup(r->generated, r->generated_len);
    if (r->generated_ids && r->generated_count) {
        c->generated_ids = sm_malloc(r->generated_count * sizeof *c->generated_ids);
        memcpy(c->generated_ids, r->generated_ids, r->generated_count * sizeof *c->generated_ids);
    }
    c->request.left = c->left;
    c->request.right = c->right;
    c->request.generated = c->generated;
    c->request.generated_ids = c->generated_ids;
    c->project = mc_project_copy(r->project);
    c->request.project = c->project;
    c->on_step = on_step;
    c->on_done = on_done;
    c->data = data;
    mc_lines_init(&c->lines, MC__MAX_EVENT);
    sm_buf_init(&c->raw, b->options.max_response ? b->options.max_response : MC__MAX_AUX);
    sm_buf_init(&c->held, 1 << 16);
    sm_buf_init(&c->message, 1024);
    c->stage = MC_STAGE_START;
    /* on_done is never called from inside start: a request that cannot be
     * sent is an error returned here. */
    int rc = mc__advance(c);
    if (rc != SM_OK) {
        mc__call_free(c);
        return rc;
    }
    *out = &c->base;
    return SM_OK;
}

static void mc__hb_cancel(mc_call *call)
{
    mc_hcall *c = (mc_hcall *)call;
    c->stopped = true;
    if (c->req)
        mc_http_cancel(c->req);
}

static void mc__hb_free(mc_backend *base)
{
    mc_hb *b = (mc_hb *)base;
    mc_http_free(b->http);
    mc_server_info_free(&b->info);
    mc_tokens_free(&b->left);
    mc_tokens_free(&b->right);
    mc_tokens_free(&b->generated);
    mc_tokens_free(&b->head);
    sm_free(b->endpoint);
    sm_free(b->root);
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
    o->llamacpp_mode = MC_LLAMACPP_COMPLETION;
    o->connect_timeout_ms = 2000;
    o->first_byte_timeout_ms = 10000;
    o->total_timeout_ms = 30000;
    o->retries = 1;
    o->max_response = 16u << 20;
    o->tls_verify = true;
    o->stream = true;
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
    if (!cu_available(error, error_size))
        return SM_EINVAL;
    mc_hb *b = sm_calloc(1, sizeof *b);
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
    size_t root = n >= 3 && strncmp(b->endpoint + n - 3, "/v1", 3) == 0 ? n - 3 : n;
    b->root = sm_strndup(o->endpoint, root);
    b->model = o->model ? sm_strdup(o->model) : NULL;
    b->api_key = o->api_key && *o->api_key ? sm_strdup(o->api_key) : NULL;
    b->tmpl = o->tmpl;
    mc_server_info_init(&b->info);
    mc_tokens_init(&b->left);
    mc_tokens_init(&b->right);
    mc_tokens_init(&b->generated);
    mc_tokens_init(&b->head);
    /* llama.cpp servers give up to n_probs candidates (the request's); an
     * OpenAI-compatible server may cap logprobs lower and say so. */
    b->base.max_candidates = 100;
    *out = &b->base;
    return SM_OK;
}
