/*
 * settings.c - configuration from JSON: the config file at the XDG path,
 * the editor's initializationOptions and workspace/didChangeConfiguration.
 *
 * A JSON object of settings, by cfg_set's names ("backend", "max_tokens",
 * ...); it may also sit under a "seam" key.  All of an object applies or
 * none of it: a bad value leaves the configuration as it was.  Keys seam
 * does not know are skipped and named, so an editor can keep settings of
 * its own (the path to the binary) in the same section.
 */
#include "seam_server.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define SRV_MAX_CONFIG_FILE (1u << 20)

static bool srv__known_setting(const char *name)
{
    for (const char *const *n = cfg_names(); *n; n++)
        if (strcmp(*n, name) == 0)
            return true;
    return false;
}

int srv_config_apply_json(cfg_config *config, const cJSON *object, const cfg_config *base, sm_buf *ignored, char *error,
                          size_t error_size)
{
    if (cJSON_IsObject(object)) {
        const cJSON *inner = cJSON_GetObjectItemCaseSensitive(object, "seam");
        if (cJSON_IsObject(inner))
            object = inner;
    }
    if (!cJSON_IsObject(object)) {
        snprintf(error, error_size, "settings must be a JSON object");
        return SM_EINVAL;
    }
    cfg_config next;
    cfg_copy(&next, config);
    const cJSON *item;
    cJSON_ArrayForEach(item, object) {
        if (!item->string || !srv__known_setting(item->string)) {
            if (ignored) {
                if (ignored->len)
                    sm_buf_append_str(ignored, ", ");
                sm_buf_printf(ignored, "%.64s", item->string ? item->string : "?");
            }
            continue;
        }
        char value[64];
        const char *text = value;
        if (cJSON_IsString(item))
            text = item->valuestring;
        else if (cJSON_IsBool(item))
            text = cJSON_IsTrue(item) ? "true" : "false";
        else if (cJSON_IsNumber(item)) {
            double v = item->valuedouble;
            /* (a number past long long's range is written as it is, and
             * refused by the setting's own bounds) */
            if (v > -9e18 && v < 9e18 && v == (double)(long long)v)
                snprintf(value, sizeof value, "%lld", (long long)v);
            else
                snprintf(value, sizeof value, "%.17g", v);
        } else if (cJSON_IsNull(item)) {
            if (base)
                cfg_reset(&next, item->string, base);
            continue;
        } else {
            snprintf(error, error_size, "bad value for %s: expected a string, number or boolean",
                     item->string ? item->string : "?");
            cfg_free(&next);
            return SM_EINVAL;
        }
        if (cfg_set(&next, item->string ? item->string : "", text, error, error_size) != SM_OK) {
            cfg_free(&next);
            return SM_EINVAL;
        }
    }
    cfg_free(config);
    *config = next;
    return SM_OK;
}

int srv_config_load_file(cfg_config *config, const char *path, sm_buf *ignored, char *error, size_t error_size)
{
    sm_buf text;
    int read_rc = sm_read_file(path, SRV_MAX_CONFIG_FILE, &text);
    if (read_rc == SM_ETOOBIG) {
        snprintf(error, error_size, "the config file %s is larger than 1 MiB", path);
        return SM_ETOOBIG;
    }
    if (read_rc != SM_OK) {
        snprintf(error, error_size, "cannot read the config file %s%s", path,
                 read_rc == SM_EINVAL ? ": not a regular file" : "");
        return SM_EIO;
    }
    size_t n = text.len;
    char *data = sm_buf_take(&text, NULL);
    cJSON *json = cJSON_ParseWithLength(data, n);
    sm_free(data);
    if (!json) {
        snprintf(error, error_size, "the config file %s is not valid JSON", path);
        return SM_EINVAL;
    }
    char inner[400];
    int rc = srv_config_apply_json(config, json, NULL, ignored, inner, sizeof inner);
    cJSON_Delete(json);
    if (rc)
        snprintf(error, error_size, "%s: %s", path, inner);
    return rc;
}

bool srv_config_default_path(char *out, size_t size)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(out, size, "%s/seam/config.json", xdg);
    else if (home && *home)
        snprintf(out, size, "%s/.config/seam/config.json", home);
    else
        return false;
    return true;
}
