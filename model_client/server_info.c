/*
 * server_info.c - what seam learns from a llama.cpp server before it asks
 * for a middle, and the prompt it builds from that.
 *
 * A llama.cpp server parses special-token strings anywhere in a text prompt,
 * so a file that contains "<|endoftext|>" would put a control token into the
 * prompt.  seam therefore sends its prompt as token ids: the contexts are
 * tokenized as text (/tokenize with parse_special off), the template's
 * control strings are looked up once as tokens of the vocabulary, and the
 * tokens generated so far are the model's own ids.  The same look-up tells
 * whether a template fits the model at all, which tokens end a completion
 * (the server sends them as empty text unless it runs with --special), and
 * /props gives the context size, so the contexts are cut in tokens.
 */
#include "mc_apis.h"

#include <stdlib.h>
#include <string.h>

enum { MC__CUT_SEARCH = 256 };   /* tokens searched for a line break to cut after */

void mc_tokens_init(mc_tokens *t)
{
    memset(t, 0, sizeof *t);
    sm_array_init(&t->ids);
    sm_array_init(&t->ends_line);
}

void mc_tokens_free(mc_tokens *t)
{
    sm_array_free(&t->ids);
    sm_array_free(&t->ends_line);
    t->valid = false;
}

uint64_t mc_text_hash(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)text[i]) * 1099511628211ull;
    return h ^ len;
}

/* A piece's text: a string, or an array of bytes where it is not UTF-8. */
static bool mc__piece(const cJSON *piece, sm_buf *out)
{
    sm_buf_clear(out);
    if (cJSON_IsString(piece))
        return sm_buf_append_str(out, piece->valuestring) == SM_OK;
    if (!cJSON_IsArray(piece))
        return false;
    const cJSON *b;
    cJSON_ArrayForEach(b, piece) {
        if (!cJSON_IsNumber(b) || b->valuedouble < 0 || b->valuedouble > 255)
            return false;
        char ch = (char)(unsigned char)b->valueint;
        sm_buf_append(out, &ch, 1);
    }
    return true;
}

/* Calls fn for each token of a /tokenize answer; false when malformed. */
typedef void (*mc__token_fn)(void *data, int32_t id, const char *piece, size_t len);

static bool mc__each_token(const char *json, size_t len, mc__token_fn fn, void *data)
{
    cJSON *doc = cJSON_ParseWithLength(json, len);
    const cJSON *tokens = doc ? cJSON_GetObjectItemCaseSensitive(doc, "tokens") : NULL;
    bool ok = cJSON_IsArray(tokens);
    sm_buf piece;
    sm_buf_init(&piece, 1 << 16);
    if (!ok)
        tokens = NULL;
    const cJSON *t;
    cJSON_ArrayForEach(t, tokens) {
        const cJSON *id = cJSON_IsObject(t) ? cJSON_GetObjectItemCaseSensitive(t, "id") : t;
        if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble > INT32_MAX) {
            ok = false;
            break;
        }
        bool has_piece = cJSON_IsObject(t) && mc__piece(cJSON_GetObjectItemCaseSensitive(t, "piece"), &piece);
        fn(data, (int32_t)id->valuedouble, has_piece ? (piece.data ? piece.data : "") : NULL,
           has_piece ? piece.len : 0);
    }
    sm_buf_free(&piece);
    cJSON_Delete(doc);
    return ok;
}

static void mc__add_context_token(void *data, int32_t id, const char *piece, size_t len)
{
    mc_tokens *t = data;
    sm_array_push(&t->ids, id);
    sm_array_push(&t->ends_line, (uint8_t)(piece && len && piece[len - 1] == '\n'));
}

int mc_tokens_parse(mc_tokens *t, const char *json, size_t len)
{
    t->ids.size = 0;
    t->ends_line.size = 0;
    t->valid = false;
    if (!mc__each_token(json, len, mc__add_context_token, t))
        return SM_EINVAL;
    t->valid = true;
    return SM_OK;
}

/* ---- The probe ------------------------------------------------------------- */

void mc_server_info_init(mc_server_info *info)
{
    memset(info, 0, sizeof *info);
    info->bos = -1;
    sm_array_init(&info->eog);
    sm_array_init(&info->special_text);
    sm_array_init(&info->special_id);
}

static void mc__forget(mc_server_info *info)
{
    for (uint32_t i = 0; i < info->special_text.size; i++)
        sm_free(info->special_text.items[i]);
    info->special_text.size = 0;
    info->special_id.size = 0;
    info->eog.size = 0;
}

void mc_server_info_free(mc_server_info *info)
{
    mc__forget(info);
    sm_array_free(&info->eog);
    sm_array_free(&info->special_text);
    sm_array_free(&info->special_id);
    sm_free(info->bos_text);
    sm_free(info->eos_text);
    sm_free(info->model_path);
    info->bos_text = info->eos_text = info->model_path = NULL;
}

/* Walks a template's format: fn gets each "{prefix}" and "{suffix}" marker
 * (marker -1 and -2) and each literal part without the spaces around it
 * (marker 0). */
typedef void (*mc__part_fn)(void *data, int marker, const char *s, size_t len);

static void mc__template_parts(const mc_template *t, mc__part_fn fn, void *data)
{
    const char *f = t->format;
    while (*f) {
        if (strncmp(f, "{prefix}", 8) == 0 || strncmp(f, "{suffix}", 8) == 0) {
            fn(data, f[1] == 'p' ? -1 : -2, f, 8);
            f += 8;
            continue;
        }
        const char *end = f;
        while (*end && strncmp(end, "{prefix}", 8) != 0 && strncmp(end, "{suffix}", 8) != 0)
            end++;
        const char *a = f, *z = end;
        while (a < z && *a == ' ')
            a++;
        while (z > a && z[-1] == ' ')
            z--;
        if (z > a)
            fn(data, 0, a, (size_t)(z - a));
        f = end;
    }
}

/* Calls fn for each control string of a template: its literal parts, then
 * its stops. */
typedef void (*mc__string_fn)(void *data, const char *s, size_t len);

typedef struct mc__strings {
    mc__string_fn fn;
    void *data;
} mc__strings;

static void mc__literal_part(void *data, int marker, const char *s, size_t len)
{
    mc__strings *st = data;
    if (marker == 0)
        st->fn(st->data, s, len);
}

static void mc__template_strings(const mc_template *t, mc__string_fn fn, void *data)
{
    mc__strings st = {fn, data};
    mc__template_parts(t, mc__literal_part, &st);
    for (const char *const *s = t->stops; s && *s; s++)
        fn(data, *s, strlen(*s));
    if (mc_template_has_repo(t)) {
        fn(data, t->repo_name, strlen(t->repo_name));
        fn(data, t->file_sep, strlen(t->file_sep));
    }
}

static void mc__append_line(void *data, const char *s, size_t len)
{
    sm_buf *buf = data;
    sm_buf_append(buf, s, len);
    sm_buf_append(buf, "\n", 1);
}

char *mc_server_info_probe_body(const mc_template *own)
{
    sm_buf content;
    sm_buf_init(&content, 1 << 16);
    sm_buf_append(&content, "\n", 1);
    for (const mc_template *t = mc_templates(); t->name; t++)
        mc__template_strings(t, mc__append_line, &content);
    if (own)
        mc__template_strings(own, mc__append_line, &content);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "content", content.data);
    cJSON_AddBoolToObject(o, "add_special", true);
    cJSON_AddBoolToObject(o, "parse_special", true);
    cJSON_AddBoolToObject(o, "with_pieces", true);
    char *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    sm_buf_free(&content);
    return body;
}

static char *mc__string_field(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? sm_strdup(v->valuestring) : NULL;
}

int mc_server_info_props(mc_server_info *info, const char *json, size_t len, bool *changed)
{
    cJSON *doc = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return SM_EINVAL;
    }
    const cJSON *settings = cJSON_GetObjectItemCaseSensitive(doc, "default_generation_settings");
    const cJSON *n_ctx = cJSON_GetObjectItemCaseSensitive(settings, "n_ctx");
    if (!cJSON_IsNumber(n_ctx))
        n_ctx = cJSON_GetObjectItemCaseSensitive(doc, "n_ctx");
    info->n_ctx = cJSON_IsNumber(n_ctx) && n_ctx->valuedouble > 0 && n_ctx->valuedouble < 1e9
                      ? (uint32_t)n_ctx->valuedouble : 0;
    sm_free(info->bos_text);
    sm_free(info->eos_text);
    info->bos_text = mc__string_field(doc, "bos_token");
    info->eos_text = mc__string_field(doc, "eos_token");
    char *path = mc__string_field(doc, "model_path");
    *changed = !info->model_path || !path || strcmp(info->model_path, path) != 0;
    sm_free(info->model_path);
    info->model_path = path;
    cJSON_Delete(doc);
    return SM_OK;
}

typedef struct mc__probe {
    mc_server_info *info;
    bool first;
} mc__probe;

static int32_t mc__special(const mc_server_info *info, const char *s, size_t len)
{
    for (uint32_t i = 0; i < info->special_text.size; i++)
        if (strlen(info->special_text.items[i]) == len && memcmp(info->special_text.items[i], s, len) == 0)
            return info->special_id.items[i];
    return -1;
}

int32_t mc_server_info_special(const mc_server_info *info, const char *s)
{
    return mc__special(info, s, strlen(s));
}

bool mc_server_info_has_repo(const mc_server_info *info, const mc_template *tmpl)
{
    return mc_template_has_repo(tmpl) && mc__special(info, tmpl->repo_name, strlen(tmpl->repo_name)) >= 0 &&
           mc__special(info, tmpl->file_sep, strlen(tmpl->file_sep)) >= 0;
}

static void mc__probe_token(void *data, int32_t id, const char *piece, size_t len)
{
    mc__probe *p = data;
    mc_server_info *info = p->info;
    if (p->first) {
        /* The content starts with a line break: a first token that is
         * the vocabulary's BOS was added by the tokenizer. */
        p->first = false;
        if (piece && info->bos_text && *info->bos_text && len == strlen(info->bos_text) &&
            memcmp(piece, info->bos_text, len) == 0) {
            info->add_bos = true;
            info->bos = id;
            return;
        }
    }
    /* A control string the tokenizer kept whole is one piece. */
    if (!piece || len < 2 || memchr(piece, '\n', len) || mc__special(info, piece, len) >= 0)
        return;
    sm_array_push(&info->special_text, sm_strndup(piece, len));
    sm_array_push(&info->special_id, id);
}

typedef struct mc__fit {
    const mc_server_info *info;
    bool all;
    const char *missing;
    size_t missing_len;
} mc__fit;

static void mc__check_part(void *data, const char *s, size_t len)
{
    mc__fit *f = data;
    if (f->all && mc__special(f->info, s, len) < 0) {
        f->all = false;
        f->missing = s;
        f->missing_len = len;
    }
}

/* Whether every literal part of the template's format is one token. */
static bool mc__fits(const mc_server_info *info, const mc_template *t, mc__fit *fit)
{
    mc_template parts_only = *t;
    parts_only.stops = NULL;
    parts_only.repo_name = parts_only.file_sep = NULL;   /* optional: used where the vocabulary has them */
    *fit = (mc__fit){.info = info, .all = true};
    mc__template_strings(&parts_only, mc__check_part, fit);
    return fit->all;
}

static void mc__settle_part(void *data, int marker, const char *s, size_t len)
{
    mc_server_info *info = data;
    if (info->part_count < sizeof info->parts / sizeof *info->parts)
        info->parts[info->part_count++] = marker ? marker : mc__special(info, s, len);
}

static void mc__settle_parts(mc_server_info *info, const mc_template *t)
{
    info->tmpl = t;
    info->part_count = 0;
    mc__template_parts(t, mc__settle_part, info);
    for (const char *const *s = t->stops; s && *s; s++) {
        int32_t id = mc__special(info, *s, strlen(*s));
        if (id >= 0)
            sm_array_push(&info->eog, id);
    }
    if (info->eos_text) {
        int32_t id = mc__special(info, info->eos_text, strlen(info->eos_text));
        if (id >= 0)
            sm_array_push(&info->eog, id);
    }
}

int mc_server_info_tokens(mc_server_info *info, const char *json, size_t len, const mc_template *want,
                          bool need_template, char *error, size_t error_size)
{
    mc__forget(info);
    info->add_bos = false;
    info->bos = -1;
    mc__probe p = {.info = info, .first = true};
    if (!mc__each_token(json, len, mc__probe_token, &p)) {
        snprintf(error, error_size, "the model server's /tokenize answer could not be read");
        return SM_EINVAL;
    }
    mc__fit fit;
    if (want) {
        if (!mc__fits(info, want, &fit)) {
            const char *hint = NULL;
            mc__fit other;
            for (const mc_template *t = mc_templates(); t->name && !hint; t++)
                if (mc__fits(info, t, &other))
                    hint = t->name;
            snprintf(error, error_size,
                     "the template \"%s\" does not fit this model: its vocabulary has no %.*s token%s%s%s", want->name,
                     (int)fit.missing_len, fit.missing, hint ? " (its fill-in-the-middle tokens are those of the \"" : "",
                     hint ? hint : "", hint ? "\" template)" : "; seam needs a code model trained to fill in the middle");
            return SM_EINVAL;
        }
        mc__settle_parts(info, want);
        return SM_OK;
    }
    for (const mc_template *t = mc_templates(); t->name; t++)
        if (mc__fits(info, t, &fit)) {
            mc__settle_parts(info, t);
            return SM_OK;
        }
    if (!need_template)
        return SM_OK;
    snprintf(error, error_size,
             "the model has no fill-in-the-middle tokens that seam knows (<fim_prefix>, <|fim_prefix|>, <PRE>, "
             "...): seam needs a code model trained to fill in the middle, or a template setting that fits this one");
    return SM_EINVAL;
}

bool mc_server_info_is_eog(const mc_server_info *info, int32_t id)
{
    for (uint32_t i = 0; i < info->eog.size; i++)
        if (info->eog.items[i] == id)
            return true;
    return false;
}

/* ---- The prompt -------------------------------------------------------------- */

static void mc__push_ids(cJSON *out, const int32_t *ids, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        cJSON_AddItemToArray(out, cJSON_CreateNumber(ids[i]));
}

/* Where the kept part of the left context starts: `keep` tokens from its
 * end, moved forward to just after a line break when one is near. */
static uint32_t mc__left_start(const mc_tokens *t, uint32_t keep)
{
    uint32_t n = t->ids.size;
    if (keep >= n)
        return 0;
    uint32_t start = n - keep;
    for (uint32_t i = start; i < n && i < start + MC__CUT_SEARCH && i < start + keep / 2; i++)
        if (i > 0 && t->ends_line.items[i - 1])
            return i;
    return start;
}

/* Where the kept part of the right context ends: `keep` tokens from its
 * start, moved back to just after a line break when one is near. */
static uint32_t mc__right_end(const mc_tokens *t, uint32_t keep)
{
    uint32_t n = t->ids.size;
    if (keep >= n)
        return n;
    for (uint32_t i = keep; i > 0 && i + MC__CUT_SEARCH > keep && i > keep / 2; i--)
        if (t->ends_line.items[i - 1])
            return i;
    return keep;
}

void mc_tokens_cut(const mc_tokens *left, const mc_tokens *right, uint32_t budget, uint32_t *from, uint32_t *to)
{
    uint32_t nl = left->ids.size, nr = right->ids.size;
    uint32_t left_room = nl, right_room = nr;
    if ((uint64_t)nl + nr > budget) {
        left_room = budget - budget / 4;
        right_room = budget - left_room;
        if (nr < right_room) {
            right_room = nr;
            left_room = budget - nr;
        } else if (nl < left_room) {
            left_room = nl;
            right_room = budget - nl;
        }
    }
    *from = mc__left_start(left, left_room);
    *to = mc__right_end(right, right_room);
}

void mc_tokens_to_json(const mc_tokens *t, uint32_t from, uint32_t to, cJSON *out)
{
    mc__push_ids(out, t->ids.items, from, to);
}

void mc_server_info_prompt(const mc_server_info *info, const mc_prompt_head *head, const mc_tokens *left,
                           const mc_tokens *right, const int32_t *generated, uint32_t generated_count,
                           uint32_t budget, cJSON *out, uint32_t *prompt_len)
{
    uint32_t nl = left->ids.size, from, to;
    mc_tokens_cut(left, right, budget, &from, &to);
    /* the cursor's own contexts keep their share; the head has the rest */
    uint32_t used = nl - from + to, keep = 0, tail = 0;
    const mc_tokens *h = head ? head->tokens : NULL;
    if (h)
        mc_project_fit(h->ids.items, h->ids.size, head->repo ? head->sep : -1, budget > used ? budget - used : 0,
                       &keep, &tail);
    if (h && head->repo) {
        mc__push_ids(out, h->ids.items, 0, keep);
        mc__push_ids(out, h->ids.items, tail, h->ids.size);
    }
    if (info->add_bos && info->bos >= 0)
        cJSON_AddItemToArray(out, cJSON_CreateNumber(info->bos));
    for (uint32_t i = 0; i < info->part_count; i++) {
        if (info->parts[i] == -1 && h && !head->repo)
            mc__push_ids(out, h->ids.items, 0, keep);
        if (info->parts[i] == -1)
            mc__push_ids(out, left->ids.items, from, nl);
        else if (info->parts[i] == -2)
            mc__push_ids(out, right->ids.items, 0, to);
        else
            cJSON_AddItemToArray(out, cJSON_CreateNumber(info->parts[i]));
    }
    mc__push_ids(out, generated, 0, generated_count);
    *prompt_len = (uint32_t)cJSON_GetArraySize(out);
}
