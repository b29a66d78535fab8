/*
 * config.c - defaults and validated updates of seam's settings.
 */
#include "seam_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const cfg__backend_names[] = {"embedded", "llamacpp", "openai", "ollama"};

void cfg_init(cfg_config *config)
{
    memset(config, 0, sizeof *config);
    config->backend = CFG_BACKEND_EMBEDDED;
    config->max_tokens = 64;
    config->max_lines = 1;
    config->timeout_ms = 1500;
    config->multiline = false;
    config->log_level = SM_LOG_INFO;
}

void cfg_free(cfg_config *config)
{
    sm_free(config->endpoint);
    sm_free(config->model);
    config->endpoint = NULL;
    config->model = NULL;
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

int cfg_set(cfg_config *config, const char *name, const char *value, char *error, size_t error_size)
{
    uint32_t number;
    bool flag;
    if (strcmp(name, "backend") == 0) {
        for (size_t i = 0; i < sizeof cfg__backend_names / sizeof *cfg__backend_names; i++) {
            if (strcmp(value, cfg__backend_names[i]) == 0) {
                config->backend = (cfg_backend)i;
                return SM_OK;
            }
        }
        return cfg__fail(error, error_size, name, value, "embedded, llamacpp, openai or ollama");
    }
    if (strcmp(name, "endpoint") == 0 || strcmp(name, "model") == 0) {
        char **slot = name[0] == 'e' ? &config->endpoint : &config->model;
        if (!*value)
            return cfg__fail(error, error_size, name, value, "a non-empty string");
        sm_free(*slot);
        *slot = sm_strdup(value);
        return SM_OK;
    }
    if (strcmp(name, "max_tokens") == 0) {
        if (!cfg__parse_u32(value, 1, 4096, &number))
            return cfg__fail(error, error_size, name, value, "an integer from 1 to 4096");
        config->max_tokens = number;
        return SM_OK;
    }
    if (strcmp(name, "max_lines") == 0) {
        if (!cfg__parse_u32(value, 1, 1000, &number))
            return cfg__fail(error, error_size, name, value, "an integer from 1 to 1000");
        config->max_lines = number;
        return SM_OK;
    }
    if (strcmp(name, "timeout_ms") == 0) {
        if (!cfg__parse_u32(value, 1, 600000, &number))
            return cfg__fail(error, error_size, name, value, "an integer from 1 to 600000");
        config->timeout_ms = number;
        return SM_OK;
    }
    if (strcmp(name, "multiline") == 0) {
        if (!cfg__parse_bool(value, &flag))
            return cfg__fail(error, error_size, name, value, "true or false");
        config->multiline = flag;
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
