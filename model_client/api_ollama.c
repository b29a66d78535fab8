/*
 * api_ollama.c - Ollama's /api/generate: a raw prompt rendered from a
 * template, or the prompt and suffix for Ollama to fill in with the model's
 * own template; newline-delimited JSON events {response, logprobs: [{token,
 * logprob, bytes, top_logprobs}], done, done_reason} or {error}.
 */
#include "mc_apis.h"

#include <string.h>

static void mc__add_text(cJSON *o, const char *name, const char *a, size_t a_len, const char *b, size_t b_len)
{
    sm_buf text;
    sm_buf_init(&text, (size_t)64 << 20);
    sm_buf_append(&text, a, a_len);
    sm_buf_append(&text, b, b_len);
    char *whole = mc_hb_whole_utf8(text.data ? text.data : "", text.len);
    cJSON_AddStringToObject(o, name, whole);
    sm_free(whole);
    sm_buf_free(&text);
}

int mc_ollama_body(mc_hcall *c, sm_buf *url, char **body)
{
    mc_hb *b = c->backend;
    const mc_request *r = &c->request;
    sm_buf_printf(url, "%s/api/generate", b->endpoint);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", b->model ? b->model : "");
    cJSON *opts = cJSON_CreateObject();
    if (b->tmpl) {
        sm_buf prompt;
        sm_buf_init(&prompt, (size_t)64 << 20);
        mc_template_render_project(b->tmpl, r->project, r->left, r->left_len, r->right, r->right_len, &prompt);
        mc__add_text(o, "prompt", prompt.data ? prompt.data : "", prompt.len, r->generated, r->generated_len);
        sm_buf_free(&prompt);
        cJSON_AddBoolToObject(o, "raw", true);
        cJSON *stops = cJSON_AddArrayToObject(opts, "stop");
        for (const char *const *s = b->tmpl->stops; s && *s; s++)
            cJSON_AddItemToArray(stops, cJSON_CreateString(*s));
    } else {
        /* the server lays the prompt out: the chunks go at the prefix's start,
         * each under a comment with its path */
        sm_buf prefix;
        sm_buf_init(&prefix, (size_t)64 << 20);
        mc_project_head(NULL, r->project, r->project ? r->project->count : 0, &prefix);
        sm_buf_append(&prefix, r->left, r->left_len);
        mc__add_text(o, "prompt", prefix.data ? prefix.data : "", prefix.len, r->generated, r->generated_len);
        sm_buf_free(&prefix);
        mc__add_text(o, "suffix", r->right, r->right_len, "", 0);
    }
    cJSON_AddBoolToObject(o, "stream", c->backend->options.stream);
    cJSON_AddBoolToObject(o, "logprobs", true);
    cJSON_AddNumberToObject(o, "top_logprobs", r->n_candidates);
    cJSON_AddNumberToObject(opts, "temperature", 0);
    cJSON_AddNumberToObject(opts, "num_predict", r->n_ahead);
    cJSON_AddItemToObject(o, "options", opts);
    *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *body ? SM_OK : SM_ENOMEM;
}

bool mc_ollama_event(mc_hcall *c, const cJSON *event)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(event, "logprobs");
    bool go_on;
    if (cJSON_IsArray(list) && cJSON_GetArraySize(list) > 0) {
        go_on = mc_hb_positions(c, list, false);
    } else {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(event, "response");
        go_on = !cJSON_IsString(text) || mc_hb_deliver_text(c, text->valuestring, strlen(text->valuestring));
    }
    if (!go_on)
        return false;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(event, "done"))) {
        c->ended = true;
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(event, "done_reason");
        if (!cJSON_IsString(reason) || strcmp(reason->valuestring, "stop") == 0)
            return mc_hb_deliver_end(c);
        return false;
    }
    return true;
}
