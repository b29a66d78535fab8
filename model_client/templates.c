/*
 * templates.c - fill-in-the-middle prompt layouts of the model families.
 *
 * The control tokens and stop strings are those each family's tokenizer
 * defines.  Codestral puts the suffix first.
 */
#include "seam_model_client.h"

#include <ctype.h>
#include <string.h>

static const char *const mc__stops_starcoder[] = {"<|endoftext|>", "<file_sep>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", NULL};
static const char *const mc__stops_qwen[] = {"<|endoftext|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<|im_end|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", NULL};
static const char *const mc__stops_codellama[] = {"<EOT>", "</s>", NULL};
static const char *const mc__stops_deepseek[] = {"<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "<|EOT|>", NULL};
static const char *const mc__stops_codestral[] = {"</s>", "[PREFIX]", "[SUFFIX]", NULL};
static const char *const mc__stops_codegemma[] = {"<|file_separator|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<eos>", NULL};

static const mc_template mc__templates[] = {
    {.name = "starcoder", .format = "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
     .stops = mc__stops_starcoder},
    {.name = "starcoder2", .format = "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
     .stops = mc__stops_starcoder, .repo_name = "<repo_name>", .file_sep = "<file_sep>"},
    {.name = "qwen2.5-coder", .format = "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
     .stops = mc__stops_qwen, .repo_name = "<|repo_name|>", .file_sep = "<|file_sep|>", .repo_line_break = true},
    {.name = "codellama", .format = "<PRE> {prefix} <SUF>{suffix} <MID>", .stops = mc__stops_codellama},
    {.name = "deepseek-coder",
     .format = "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>{prefix}"
               "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>{suffix}"
               "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>",
     .stops = mc__stops_deepseek},
    {.name = "codestral", .format = "[SUFFIX]{suffix}[PREFIX]{prefix}", .stops = mc__stops_codestral},
    {.name = "codegemma", .format = "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
     .stops = mc__stops_codegemma},
    {.name = NULL},
};

/* Model-name fragments, most specific first, and the template each selects. */
static const struct {
    const char *fragment;
    const char *template_name;
} mc__families[] = {
    {"starcoder2", "starcoder2"}, {"starcoder", "starcoder"}, {"santacoder", "starcoder"},
    {"qwen2.5-coder", "qwen2.5-coder"}, {"qwen2.5coder", "qwen2.5-coder"}, {"qwen-coder", "qwen2.5-coder"},
    {"codellama", "codellama"}, {"code-llama", "codellama"}, {"code_llama", "codellama"},
    {"deepseek-coder", "deepseek-coder"}, {"deepseekcoder", "deepseek-coder"},
    {"codestral", "codestral"}, {"codegemma", "codegemma"},
};

const mc_template *mc_templates(void)
{
    return mc__templates;
}

const mc_template *mc_template_by_name(const char *name)
{
    for (const mc_template *t = mc__templates; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* Case-insensitive substring search. */
static bool mc__contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0)
            return true;
    return false;
}

const mc_template *mc_template_for_model(const char *model_name)
{
    for (size_t i = 0; i < sizeof mc__families / sizeof *mc__families; i++)
        if (mc__contains_nocase(model_name, mc__families[i].fragment))
            return mc_template_by_name(mc__families[i].template_name);
    return NULL;
}

int mc_template_render(const mc_template *tmpl, const char *prefix, size_t prefix_len,
                       const char *suffix, size_t suffix_len, sm_buf *out)
{
    const char *format = tmpl->format;
    if (!strstr(format, "{prefix}") || !strstr(format, "{suffix}"))
        return SM_EINVAL;
    while (*format) {
        int rc;
        if (strncmp(format, "{prefix}", 8) == 0) {
            rc = sm_buf_append(out, prefix, prefix_len);
            format += 8;
        } else if (strncmp(format, "{suffix}", 8) == 0) {
            rc = sm_buf_append(out, suffix, suffix_len);
            format += 8;
        } else {
            const char *next = strchr(format + 1, '{');
            size_t run = next ? (size_t)(next - format) : strlen(format);
            rc = sm_buf_append(out, format, run);
            format += run;
        }
        if (rc)
            return rc;
    }
    return SM_OK;
}

/* A user's template owns its strings: the name, the format and each stop. */
int mc_template_custom(const char *format, const char *stops, mc_template **out)
{
    if (!strstr(format, "{prefix}") || !strstr(format, "{suffix}"))
        return SM_EINVAL;
    size_t count = 0;
    for (const char *p = stops; p && *p; p++)
        count += *p == ',';
    count += stops && *stops ? 1 : 0;
    const char **list = sm_calloc(count + 1, sizeof *list);
    size_t n = 0;
    for (const char *p = stops; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len)
            list[n++] = sm_strndup(p, len);
        p += len + (comma ? 1 : 0);
    }
    mc_template *t = sm_calloc(1, sizeof *t);
    t->name = sm_strdup("custom");
    t->format = sm_strdup(format);
    t->stops = list;
    *out = t;
    return SM_OK;
}

void mc_template_free(mc_template *tmpl)
{
    if (!tmpl)
        return;
    for (const char *const *s = tmpl->stops; s && *s; s++)
        sm_free((void *)*s);
    sm_free((void *)tmpl->stops);
    sm_free((void *)tmpl->name);
    sm_free((void *)tmpl->format);
    sm_free(tmpl);
}

bool mc_template_is_stop(const mc_template *tmpl, const char *text, size_t len)
{
    for (const char *const *s = tmpl ? tmpl->stops : NULL; s && *s; s++)
        if (strlen(*s) == len && memcmp(*s, text, len) == 0)
            return true;
    return false;
}

/* ---- Context budget ---------------------------------------------------------- */

/* The start of the line holding offset `end` in text (after its break). */
static size_t mc__line_start(const char *text, size_t end)
{
    while (end > 0 && text[end - 1] != '\n')
        end--;
    return end;
}

void mc_context_budget(const char *left, size_t left_len, const char *right, size_t right_len,
                       size_t budget, size_t *left_start, size_t *right_end)
{
    *left_start = 0;
    *right_end = right_len;
    if (left_len + right_len <= budget)
        return;
    size_t left_room = budget - budget / 4;
    size_t right_room = budget / 4;
    /* Room one side does not need goes to the other. */
    if (right_len < right_room)
        left_room += right_room - right_len, right_room = right_len;
    if (left_len < left_room)
        right_room += left_room - left_len, left_room = left_len;

    /* Left: whole lines back from the cursor while they fit. */
    size_t start = mc__line_start(left, left_len);
    if (left_len - start > left_room) {
        start = left_len - left_room;
        while (start < left_len && ((unsigned char)left[start] & 0xc0) == 0x80)
            start++;
    } else {
        while (start > 0) {
            size_t prev = mc__line_start(left, start - 1);
            if (left_len - prev > left_room)
                break;
            start = prev;
        }
    }
    *left_start = start;

    /* Right: whole lines forward from the cursor while they fit. */
    const char *nl = memchr(right, '\n', right_len);
    size_t end = nl ? (size_t)(nl - right) + 1 : right_len;
    if (end > right_room) {
        end = sm_utf8_boundary_before((const uint8_t *)right, right_room);
    } else {
        while (end < right_len) {
            const char *next = memchr(right + end, '\n', right_len - end);
            size_t next_end = next ? (size_t)(next - right) + 1 : right_len;
            if (next_end > right_room)
                break;
            end = next_end;
        }
    }
    *right_end = end;
}
