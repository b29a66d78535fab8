/*
 * fuzz_settings.c - libFuzzer target for settings: the input is a JSON
 * document applied as an editor's settings (initializationOptions,
 * didChangeConfiguration, a config file), then the same bytes as NAME=VALUE
 * lines given to cfg_set (the command line's --SETTING VALUE).  Whatever
 * the bytes: no crash, no leak, and a refused JSON object changes nothing.
 */
#include "seam_config.h"
#include "seam_server.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void fuzz__lines(cfg_config *config, const char *text, size_t len)
{
    char error[256];
    size_t at = 0;
    while (at < len) {
        const char *end = memchr(text + at, '\n', len - at);
        size_t n = end ? (size_t)(end - (text + at)) : len - at;
        char *line = strndup(text + at, n);
        char *eq = strchr(line, '=');
        if (eq) {
            *eq = '\0';
            (void)cfg_set(config, line, eq + 1, error, sizeof error);
        }
        free(line);
        at += n + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cfg_config base, config;
    cfg_init(&base);
    cfg_init(&config);
    cJSON *json = cJSON_ParseWithLength((const char *)data, size);
    if (json) {
        sm_buf ignored;
        sm_buf_init(&ignored, 1 << 16);
        char error[512];
        cfg_config before;
        cfg_init(&before);
        cfg_copy(&before, &config);
        if (srv_config_apply_json(&config, json, &base, &ignored, error, sizeof error) != SM_OK &&
            (config.max_tokens != before.max_tokens || config.backend != before.backend ||
             config.context_bytes != before.context_bytes))
            abort(); /* all or nothing */
        cfg_free(&before);
        sm_buf_free(&ignored);
        cJSON_Delete(json);
    }
    fuzz__lines(&config, (const char *)data, size);
    cfg_free(&config);
    cfg_free(&base);
    return 0;
}
