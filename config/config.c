/*
 * config.c - defaults and validated updates of seam's settings.
 */
#include "seam_config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cfg__backend_names[] = {"embedded", "llamacpp", "openai", "ollama", "llama"};
static const char *const cfg__llamacpp_modes[] = {"completion", "infill"};

void cfg_init(cfg_config *config)
{
    memset(config, 0, sizeof *config);
    config->backend = CFG_BACKEND_EMBEDDED;
    config->max_tokens = 64;
    config->max_lines = 6;
    config->widen_lines = 16;
    config->widen_tokens = 256;
    config->timeout_ms = 1500;
    config->multiline = true;
    config->decode_ahead = true;
    config->log_level = SM_LOG_INFO;
    config->candidates = 10;
    config->run_ahead = 16;
    config->temperature = 0;
    config->top_p = 1.0;
    config->seed = 1;
    config->connect_timeout_ms = 2000;
    config->first_byte_timeout_ms = 10000;
    config->request_timeout_ms = 30000;
    config->retries = 1;
    config->context_bytes = 8192;
    config->context_files = true;
    config->context_files_bytes = 6144;
    config->cached_documents = 4;
    config->tls_verify = true;
    config->stream = true;
    config->escape_guard = true;
    config->cut_contexts = true;
    config->semantic = true;
    config->semantic_names = true;
    config->semantic_attributes = true;
    config->semantic_keywords = true;
    config->train_stdlib = true;
    config->disk_cache = true;
    config->corpus_bytes = 8u << 20;
    config->debounce_ms = 75;
    config->max_message_bytes = 64u << 20;
    config->parse_bytes = 1u << 20;
}

/* A setting by name and the offset of its field in cfg_config. */
typedef struct cfg__field {
    const char *name;
    size_t offset;
} cfg__field;

/* The string settings (their fields owned, NULL when unset). */
static const cfg__field cfg__strings[] = {
    {"endpoint", offsetof(cfg_config, endpoint)},
    {"model", offsetof(cfg_config, model)},
    {"template", offsetof(cfg_config, template_name)},
    {"template_format", offsetof(cfg_config, template_format)},
    {"template_stops", offsetof(cfg_config, template_stops)},
    {"api_key_env", offsetof(cfg_config, api_key_env)},
    {"log_file", offsetof(cfg_config, log_file)},
    {"model_path", offsetof(cfg_config, model_path)},
    {"python_path", offsetof(cfg_config, python_path)},
    {"language", offsetof(cfg_config, language)},
    {"source_type", offsetof(cfg_config, source_type)},
};

enum { CFG__STRING_COUNT = sizeof cfg__strings / sizeof *cfg__strings };

static char **cfg__string_at(cfg_config *config, size_t i)
{
    return (char **)((char *)config + cfg__strings[i].offset);
}

static char **cfg__string_slot(cfg_config *config, const char *name)
{
    for (size_t i = 0; i < CFG__STRING_COUNT; i++)
        if (strcmp(name, cfg__strings[i].name) == 0)
            return cfg__string_at(config, i);
    return NULL;
}

void cfg_free(cfg_config *config)
{
    for (size_t i = 0; i < CFG__STRING_COUNT; i++) {
        char **slot = cfg__string_at(config, i);
        sm_free(*slot);
        *slot = NULL;
    }
}

void cfg_copy(cfg_config *dst, const cfg_config *src)
{
    *dst = *src;
    for (size_t i = 0; i < CFG__STRING_COUNT; i++) {
        char **slot = cfg__string_at(dst, i);
        if (*slot)
            *slot = sm_strdup(*slot);
    }
}

/* The numeric settings: name, field, range. */
typedef struct cfg__number {
    const char *name;
    size_t offset;
    uint32_t min, max;
} cfg__number;

#define CFG__N(field, lo, hi) {#field, offsetof(cfg_config, field), lo, hi}
static const cfg__number cfg__numbers[] = {
    CFG__N(max_tokens, 1, 4096),
    CFG__N(max_lines, 1, 1000),
    CFG__N(widen_lines, 1, 1000),
    CFG__N(widen_tokens, 1, 4096),
    CFG__N(timeout_ms, 1, 600000),
    CFG__N(candidates, 1, 100),
    CFG__N(run_ahead, 1, 256),
    CFG__N(seed, 0, UINT32_MAX),
    CFG__N(connect_timeout_ms, 1, 600000),
    CFG__N(first_byte_timeout_ms, 1, 600000),
    CFG__N(request_timeout_ms, 1, 600000),
    CFG__N(retries, 0, 5),
    CFG__N(context_bytes, 256, 1u << 24),
    CFG__N(context_files_bytes, 0, 1u << 20),
    CFG__N(cached_documents, 1, 16),
    CFG__N(corpus_bytes, 0, 1u << 30),
    CFG__N(debounce_ms, 0, 10000),
    CFG__N(max_message_bytes, 4096, 1u << 30),
    CFG__N(parse_bytes, 4096, 1u << 30),
};

/* The true-or-false settings. */
static const cfg__field cfg__flags[] = {
    {"multiline", offsetof(cfg_config, multiline)},
    {"decode_ahead", offsetof(cfg_config, decode_ahead)},
    {"context_files", offsetof(cfg_config, context_files)},
    {"tls_verify", offsetof(cfg_config, tls_verify)},
    {"stream", offsetof(cfg_config, stream)},
    {"escape_guard", offsetof(cfg_config, escape_guard)},
    {"cut_contexts", offsetof(cfg_config, cut_contexts)},
    {"train_stdlib", offsetof(cfg_config, train_stdlib)},
    {"disk_cache", offsetof(cfg_config, disk_cache)},
    {"mask_every_step", offsetof(cfg_config, mask_every_step)},
    {"semantic", offsetof(cfg_config, semantic)},
    {"semantic_names", offsetof(cfg_config, semantic_names)},
    {"semantic_attributes", offsetof(cfg_config, semantic_attributes)},
    {"semantic_keywords", offsetof(cfg_config, semantic_keywords)},
    {"workspace_trusted", offsetof(cfg_config, workspace_trusted)},
};

static bool cfg__same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool cfg_equal(const cfg_config *a, const cfg_config *b)
{
    for (size_t i = 0; i < CFG__STRING_COUNT; i++)
        if (!cfg__same_string(*cfg__string_at((cfg_config *)a, i), *cfg__string_at((cfg_config *)b, i)))
            return false;
    for (size_t i = 0; i < sizeof cfg__numbers / sizeof *cfg__numbers; i++)
        if (memcmp((const char *)a + cfg__numbers[i].offset, (const char *)b + cfg__numbers[i].offset,
                   sizeof(uint32_t)) != 0)
            return false;
    for (size_t i = 0; i < sizeof cfg__flags / sizeof *cfg__flags; i++)
        if (memcmp((const char *)a + cfg__flags[i].offset, (const char *)b + cfg__flags[i].offset, sizeof(bool)) != 0)
            return false;
    return a->backend == b->backend && a->backend_chosen == b->backend_chosen &&
           a->llamacpp_mode == b->llamacpp_mode && a->log_level == b->log_level && a->temperature == b->temperature &&
           a->top_p == b->top_p && a->python_version == b->python_version;
}

const char *const *cfg_names(void)
{
    static const char *const names[] = {
        "backend", "endpoint", "model", "template", "template_format", "template_stops", "api_key_env",
        "log_file", "log_level", "temperature", "top_p", "max_tokens", "max_lines", "widen_lines", "widen_tokens", "timeout_ms", "candidates",
        "run_ahead", "seed", "connect_timeout_ms", "first_byte_timeout_ms", "request_timeout_ms", "retries",
        "context_bytes", "context_files", "context_files_bytes", "corpus_bytes", "debounce_ms", "max_message_bytes", "parse_bytes", "multiline", "decode_ahead", "tls_verify",
        "escape_guard", "cut_contexts", "train_stdlib", "llamacpp_mode", "stream", "model_path", "mask_every_step",
        "cached_documents", "semantic", "semantic_names", "semantic_attributes", "semantic_keywords",
        "python_version", "python_path", "workspace_trusted", "disk_cache", "language", "source_type", NULL,
    };
    return names;
}

int cfg_python_version_parse(const char *text)
{
    if (strcmp(text, "auto") == 0)
        return 0;
    if (text[0] != '3' || text[1] != '.' || !text[2])
        return -1;
    char *end;
    errno = 0;
    long minor = strtol(text + 2, &end, 10);
    if (errno || *end || text[2] == '-' || text[2] == '+' || minor < 9 || minor > 14)
        return -1;
    return (int)(300 + minor);
}

const char *cfg_backend_name(cfg_backend backend)
{
    if ((unsigned)backend >= sizeof cfg__backend_names / sizeof *cfg__backend_names)
        return "?";
    return cfg__backend_names[backend];
}

/* Parses a decimal integer in [min, max]; the whole string must be a number. */
static bool cfg__parse_u32(const char *value, uint32_t min, uint32_t max, uint32_t *out)
{
    if (!*value || *value == '-' || *value == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long parsed = strtoull(value, &end, 10);
    if (errno || *end || parsed < min || parsed > max)
        return false;
    *out = (uint32_t)parsed;
    return true;
}

static bool cfg__parse_bool(const char *value, bool *out)
{
    if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
        *out = true;
        return true;
    }
    if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
        *out = false;
        return true;
    }
    return false;
}

static int cfg__fail(char *error, size_t error_size, const char *name, const char *value, const char *expected)
{
    if (error && error_size)
        snprintf(error, error_size, "bad value '%s' for %s: expected %s", value, name, expected);
    return SM_EINVAL;
}

/* The index of `value` in names[0..count), or -1. */
static int cfg__name_index(const char *value, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return (int)i;
    return -1;
}

int cfg_set(cfg_config *config, const char *name, const char *value, char *error, size_t error_size)
{
    uint32_t number;
    bool flag;
    if (strcmp(name, "backend") == 0) {
        int i = cfg__name_index(value, cfg__backend_names, sizeof cfg__backend_names / sizeof *cfg__backend_names);
        if (i < 0)
            return cfg__fail(error, error_size, name, value, "embedded, llamacpp, openai, ollama or llama");
        config->backend = (cfg_backend)i;
        config->backend_chosen = true;
        return SM_OK;
    }
    if (strcmp(name, "python_version") == 0) {
        int version = cfg_python_version_parse(value);
        if (version < 0)
            return cfg__fail(error, error_size, name, value, "auto, or a version from 3.9 to 3.14");
        config->python_version = (uint32_t)version;
        return SM_OK;
    }
    if (strcmp(name, "llamacpp_mode") == 0) {
        int i = cfg__name_index(value, cfg__llamacpp_modes, sizeof cfg__llamacpp_modes / sizeof *cfg__llamacpp_modes);
        if (i < 0)
            return cfg__fail(error, error_size, name, value, "completion or infill");
        config->llamacpp_mode = (cfg_llamacpp_mode)i;
        return SM_OK;
    }
    if (strcmp(name, "source_type") == 0) {
        if (strcmp(value, "auto") != 0 && strcmp(value, "module") != 0 && strcmp(value, "script") != 0)
            return cfg__fail(error, error_size, name, value, "auto, module or script");
        sm_free(config->source_type);
        config->source_type = strcmp(value, "auto") == 0 ? NULL : sm_strdup(value);
        return SM_OK;
    }
    if (strcmp(name, "language") == 0 && strcmp(value, "auto") == 0) {
        sm_free(config->language);
        config->language = NULL;   /* each document's own */
        return SM_OK;
    }
    if (strcmp(name, "language") == 0 && (strlen(value) > 32 || strspn(value, "abcdefghijklmnopqrstuvwxyz") != strlen(value)))
        return cfg__fail(error, error_size, name, value, "auto or a language's name (python, javascript)");
    char **slot = cfg__string_slot(config, name);
    if (slot) {
        if (!*value)
            return cfg__fail(error, error_size, name, value, "a non-empty string");
        if (strlen(value) > 4096)
            return cfg__fail(error, error_size, name, "...", "at most 4096 bytes");
        if (strcmp(name, "endpoint") == 0 && strncmp(value, "http://", 7) != 0 && strncmp(value, "https://", 8) != 0)
            return cfg__fail(error, error_size, name, value, "an http:// or https:// URL");
        if (strcmp(name, "template_format") == 0 && (!strstr(value, "{prefix}") || !strstr(value, "{suffix}")))
            return cfg__fail(error, error_size, name, value, "a format with {prefix} and {suffix}");
        sm_free(*slot);
        *slot = sm_strdup(value);
        return SM_OK;
    }
    for (size_t i = 0; i < sizeof cfg__numbers / sizeof *cfg__numbers; i++) {
        const cfg__number *n = &cfg__numbers[i];
        if (strcmp(name, n->name) != 0)
            continue;
        if (!cfg__parse_u32(value, n->min, n->max, &number)) {
            char expected[64];
            snprintf(expected, sizeof expected, "an integer from %u to %u", n->min, n->max);
            return cfg__fail(error, error_size, name, value, expected);
        }
        memcpy((char *)config + n->offset, &number, sizeof number);
        return SM_OK;
    }
    for (size_t i = 0; i < sizeof cfg__flags / sizeof *cfg__flags; i++) {
        if (strcmp(name, cfg__flags[i].name) != 0)
            continue;
        if (!cfg__parse_bool(value, &flag))
            return cfg__fail(error, error_size, name, value, "true or false");
        memcpy((char *)config + cfg__flags[i].offset, &flag, sizeof flag);
        return SM_OK;
    }
    if (strcmp(name, "temperature") == 0 || strcmp(name, "top_p") == 0) {
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        bool temp = name[1] == 'e';
        if (errno || end == value || *end || !(v >= 0) || v > (temp ? 2.0 : 1.0))
            return cfg__fail(error, error_size, name, value, temp ? "a number from 0 to 2" : "a number from 0 to 1");
        *(temp ? &config->temperature : &config->top_p) = v;
        return SM_OK;
    }
    if (strcmp(name, "log_level") == 0) {
        sm_log_level level;
        if (sm_log_level_parse(value, &level))
            return cfg__fail(error, error_size, name, value, "error, warn, info, debug or trace");
        config->log_level = level;
        return SM_OK;
    }
    if (error && error_size)
        snprintf(error, error_size, "unknown setting '%s'", name);
    return SM_EINVAL;
}

int cfg_reset(cfg_config *config, const char *name, const cfg_config *from)
{
    char **slot = cfg__string_slot(config, name);
    if (slot) {
        const char *value = *cfg__string_slot((cfg_config *)from, name);
        sm_free(*slot);
        *slot = value ? sm_strdup(value) : NULL;
        return SM_OK;
    }
    for (size_t i = 0; i < sizeof cfg__numbers / sizeof *cfg__numbers; i++)
        if (strcmp(name, cfg__numbers[i].name) == 0) {
            memcpy((char *)config + cfg__numbers[i].offset, (const char *)from + cfg__numbers[i].offset,
                   sizeof(uint32_t));
            return SM_OK;
        }
    for (size_t i = 0; i < sizeof cfg__flags / sizeof *cfg__flags; i++)
        if (strcmp(name, cfg__flags[i].name) == 0) {
            memcpy((char *)config + cfg__flags[i].offset, (const char *)from + cfg__flags[i].offset, sizeof(bool));
            return SM_OK;
        }
    if (strcmp(name, "backend") == 0) {
        config->backend = from->backend;
        config->backend_chosen = from->backend_chosen;
    }
    else if (strcmp(name, "llamacpp_mode") == 0)
        config->llamacpp_mode = from->llamacpp_mode;
    else if (strcmp(name, "log_level") == 0)
        config->log_level = from->log_level;
    else if (strcmp(name, "python_version") == 0)
        config->python_version = from->python_version;
    else if (strcmp(name, "temperature") == 0)
        config->temperature = from->temperature;
    else if (strcmp(name, "top_p") == 0)
        config->top_p = from->top_p;
    else
        return SM_EINVAL;
    return SM_OK;
}
