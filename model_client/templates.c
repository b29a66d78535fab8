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
    {"starcoder", "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>", mc__stops_starcoder},
    {"starcoder2", "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>", mc__stops_starcoder},
    {"qwen2.5-coder", "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>", mc__stops_qwen},
    {"codellama", "<PRE> {prefix} <SUF>{suffix} <MID>", mc__stops_codellama},
    {"deepseek-coder",
     "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>{prefix}"
     "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>{suffix}"
     "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>",
     mc__stops_deepseek},
    {"codestral", "[SUFFIX]{suffix}[PREFIX]{prefix}", mc__stops_codestral},
    {"codegemma", "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>", mc__stops_codegemma},
    {NULL, NULL, NULL},
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
