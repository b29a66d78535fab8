/*
 * api_openai.c - OpenAI-compatible /v1/completions (llama.cpp's server,
 * vLLM, and others).
 *
 * The prompt is the template rendered around the contexts; against a
 * llama.cpp server (it answers /props and /tokenize) it is sent as token
 * ids, so special-token text in the user's file stays text.  Candidates
 * come as choices[0].logprobs.content [{id, token, bytes, logprob,
 * top_logprobs}] (llama.cpp, newer servers) or in the legacy form {tokens,
 * token_logprobs, top_logprobs: [{text: logprob}]} (vLLM).
 */
#include "mc_apis.h"

#include <string.h>


int mc_openai_body(mc_hcall *c, sm_buf *url, char **body)
{
    mc_hb *b = c->backend;
    const mc_request *r = &c->request;
    const mc_template *tmpl = mc_hb_template(c);
    if (!tmpl) {
        sm_buf_printf(&c->message,
                      "no fill-in-the-middle template for the model \"%s\": name one with the template setting",
                      b->model ? b->model : "");
        return SM_EINVAL;
    }
    sm_buf_printf(url, "%s%s/completions", b->root, "/v1");
    cJSON *o = cJSON_CreateObject();
    if (b->model)
        cJSON_AddStringToObject(o, "model", b->model);
    if (mc_hb_uses_tokens(c)) {
        mc_hb_token_prompt(c, o);
    } else {
        sm_buf prompt;
        sm_buf_init(&prompt, (size_t)64 << 20);
        mc_template_render_project(tmpl, r->project, r->left, r->left_len, r->right, r->right_len, &prompt);
        sm_buf_append(&prompt, r->generated, r->generated_len);
        char *whole = mc_hb_whole_utf8(prompt.data ? prompt.data : "", prompt.len);
        cJSON_AddStringToObject(o, "prompt", whole);
        sm_free(whole);
        sm_buf_free(&prompt);
        cJSON *stops = cJSON_AddArrayToObject(o, "stop");
        for (const char *const *s = tmpl->stops; s && *s; s++)
            cJSON_AddItemToArray(stops, cJSON_CreateString(*s));
    }
    cJSON_AddNumberToObject(o, "max_tokens", r->n_ahead);
    cJSON_AddNumberToObject(o, "logprobs", r->n_candidates);
    cJSON_AddNumberToObject(o, "temperature", 0);
    cJSON_AddBoolToObject(o, "stream", c->backend->options.stream);
    cJSON_AddBoolToObject(o, "timings_per_token", true);
    *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *body ? SM_OK : SM_ENOMEM;
}

/* The legacy form: parallel arrays of token texts, their logprobs and
 * {text: logprob} maps of the top candidates. */
static bool mc__legacy_positions(mc_hcall *c, const cJSON *lp)
{
    const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(lp, "tokens");
    const cJSON *token_lps = cJSON_GetObjectItemCaseSensitive(lp, "token_logprobs");
    const cJSON *tops = cJSON_GetObjectItemCaseSensitive(lp, "top_logprobs");
    cJSON *list = cJSON_CreateArray();
    int n = cJSON_GetArraySize(tokens);
    for (int i = 0; i < n; i++) {
        const cJSON *tok = cJSON_GetArrayItem(tokens, i);
        if (!cJSON_IsString(tok))
            continue;
        cJSON *pos = cJSON_CreateObject();
        cJSON_AddStringToObject(pos, "token", tok->valuestring);
        const cJSON *tlp = cJSON_IsArray(token_lps) ? cJSON_GetArrayItem(token_lps, i) : NULL;
        if (cJSON_IsNumber(tlp))
            cJSON_AddNumberToObject(pos, "logprob", tlp->valuedouble);
        cJSON *cands = cJSON_AddArrayToObject(pos, "top_logprobs");
        const cJSON *top = cJSON_IsArray(tops) ? cJSON_GetArrayItem(tops, i) : NULL;
        const cJSON *t;
        cJSON_ArrayForEach(t, top) {
            if (!t->string || !cJSON_IsNumber(t))
                continue;
            cJSON *cand = cJSON_CreateObject();
            cJSON_AddStringToObject(cand, "token", t->string);
            cJSON_AddNumberToObject(cand, "logprob", t->valuedouble);
            cJSON_AddItemToArray(cands, cand);
        }
        cJSON_AddItemToArray(list, pos);
    }
    bool go_on = mc_hb_positions(c, list, false);
    cJSON_Delete(list);
    return go_on;
}

bool mc_openai_event(mc_hcall *c, const cJSON *event)
{
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(event, "choices");
    const cJSON *choice = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    if (!cJSON_IsObject(choice))
        return true;
    const cJSON *lp = cJSON_GetObjectItemCaseSensitive(choice, "logprobs");
    const cJSON *content = cJSON_IsObject(lp) ? cJSON_GetObjectItemCaseSensitive(lp, "content") : NULL;
    const cJSON *tokens = cJSON_IsObject(lp) ? cJSON_GetObjectItemCaseSensitive(lp, "tokens") : NULL;
    bool go_on;
    if (cJSON_IsArray(content) && cJSON_GetArraySize(content) > 0) {
        go_on = mc_hb_positions(c, content, false);
    } else if (cJSON_IsArray(tokens) && cJSON_GetArraySize(tokens) > 0) {
        go_on = mc__legacy_positions(c, lp);
    } else {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(choice, "text");
        go_on = !cJSON_IsString(text) || mc_hb_deliver_text(c, text->valuestring, strlen(text->valuestring));
    }
    if (!go_on)
        return false;
    const cJSON *finish = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
    if (cJSON_IsString(finish)) {
        c->ended = true;
        if (strcmp(finish->valuestring, "stop") == 0)
            return mc_hb_deliver_end(c);
        return false;
    }
    return true;
}
