/*
 * api_llamacpp.c - llama.cpp's server: /completion with the prompt as token
 * ids (the default), or /infill where the server builds the prompt.
 *
 * Requests ask for greedy decoding (temperature 0) and n_probs candidates
 * per position, streamed, with the prompt's timings in every event (how
 * many prompt tokens the server evaluated rather than took from its cache).
 * No stop strings are sent: the end of a completion is the vocabulary's end
 * tokens, which the server sends as empty text (or their own text with
 * --special), and a stop string would make the server hold text back.
 */
#include "mc_apis.h"

#include <string.h>

/* Prompt room for control tokens and BOS, and for what /infill adds (a
 * repository name and a file name). */
enum { MC__RESERVED = 24 };

/* The context budget in tokens: the server's context, less what the
 * completion may still generate and the control tokens. */
static uint32_t mc__token_budget(const mc_hcall *c)
{
    uint32_t n_ctx = c->backend->info.n_ctx;
    if (!n_ctx)
        return UINT32_MAX;
    uint32_t ahead = c->request.max_new_tokens > c->request.n_ahead ? c->request.max_new_tokens : c->request.n_ahead;
    uint64_t used = (uint64_t)ahead + MC__RESERVED + 1 + c->request.generated_count;
    return used >= n_ctx ? 0 : (uint32_t)(n_ctx - used);
}

void mc_hb_token_prompt(mc_hcall *c, cJSON *o)
{
    mc_hb *b = c->backend;
    cJSON *prompt = cJSON_AddArrayToObject(o, "prompt");
    const int32_t *gen = c->generated_ids ? c->generated_ids : b->generated.ids.items;
    uint32_t gen_count = c->generated_ids ? c->request.generated_count
                         : c->request.generated_len ? b->generated.ids.size
                                                    : 0;
    uint32_t len;
    mc_prompt_head head;
    bool have_head = mc_hb_head(c, &head);
    mc_server_info_prompt(&b->info, have_head ? &head : NULL, &b->left, &b->right, gen, gen_count, mc__token_budget(c),
                          prompt, &len);
}

static void mc__add_text(cJSON *o, const char *name, const char *text, size_t len)
{
    char *whole = mc_hb_whole_utf8(text, len);
    cJSON_AddStringToObject(o, name, whole);
    sm_free(whole);
}

int mc_llamacpp_body(mc_hcall *c, sm_buf *url, char **body)
{
    mc_hb *b = c->backend;
    const mc_request *r = &c->request;
    cJSON *o = cJSON_CreateObject();
    if (b->options.llamacpp_mode == MC_LLAMACPP_INFILL) {
        /* The contexts as token ids too, cut to the server's context: the
         * server itself cuts them only to its batch size. */
        sm_buf_printf(url, "%s/infill", b->endpoint);
        uint32_t from, to;
        mc_tokens_cut(&b->left, &b->right, mc__token_budget(c), &from, &to);
        mc_tokens_to_json(&b->left, from, b->left.ids.size, cJSON_AddArrayToObject(o, "input_prefix"));
        mc_tokens_to_json(&b->right, 0, to, cJSON_AddArrayToObject(o, "input_suffix"));
        mc__add_text(o, "prompt", r->generated, r->generated_len);
        cJSON *extra = cJSON_AddArrayToObject(o, "input_extra");
        for (uint32_t i = 0; r->project && i < r->project->count; i++) {
            cJSON *chunk = cJSON_CreateObject();
            cJSON_AddStringToObject(chunk, "filename", r->project->chunks[i].path);
            mc__add_text(chunk, "text", r->project->chunks[i].text, r->project->chunks[i].len);
            cJSON_AddItemToArray(extra, chunk);
        }
    } else {
        sm_buf_printf(url, "%s/completion", b->endpoint);
        mc_hb_token_prompt(c, o);
    }
    cJSON_AddNumberToObject(o, "n_predict", r->n_ahead);
    cJSON_AddNumberToObject(o, "n_probs", r->n_candidates);
    cJSON_AddBoolToObject(o, "cache_prompt", true);
    cJSON_AddBoolToObject(o, "stream", c->backend->options.stream);
    cJSON_AddBoolToObject(o, "timings_per_token", true);
    cJSON_AddNumberToObject(o, "temperature", 0);
    *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *body ? SM_OK : SM_ENOMEM;
}

/* "completion_probabilities": [{id, token, bytes, logprob, top_logprobs}]
 * (or prob / top_probs with post-sampling probabilities); the older form
 * "probs": [{tok_str, probs: [{tok_str, prob}]}]; a closing event that
 * repeats the positions already streamed is a summary. */
bool mc_llamacpp_event(mc_hcall *c, const cJSON *event)
{
    bool stop = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(event, "stop"));
    bool summary = stop && c->positions > 0;
    if (!summary) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(event, "completion_probabilities");
        bool old_form = false;
        if (!cJSON_IsArray(list)) {
            list = cJSON_GetObjectItemCaseSensitive(event, "probs");
            old_form = true;
        }
        if (cJSON_IsArray(list) && cJSON_GetArraySize(list) > 0) {
            if (!mc_hb_positions(c, list, old_form))
                return false;
        } else {
            const cJSON *content = cJSON_GetObjectItemCaseSensitive(event, "content");
            if (cJSON_IsString(content) && !mc_hb_deliver_text(c, content->valuestring, strlen(content->valuestring)))
                return false;
        }
    }
    if (!stop)
        return true;
    c->ended = true;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(event, "stop_type");
    if (cJSON_IsString(type) && (strcmp(type->valuestring, "eos") == 0 || strcmp(type->valuestring, "word") == 0))
        return mc_hb_deliver_end(c);
    return false;
}
