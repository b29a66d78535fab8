/*
 * language.c - which language a document is read in, for every front end:
 * the setting `language` when it is set, else the editor's languageId,
 * else the file's name and #! line (languages/), then the row its text
 * needs (a .js file holding JSX: JSX).
 */
#include "seam_server.h"

#include "seam_languages.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

const lg_language *srv_language_named(const char *name, char *why, size_t why_size)
{
    const lg_language *language = lg_by_name(name);
    if (!language) {
        char names[256];
        lg_names(names, sizeof names);
        snprintf(why, why_size, "there is no language \"%.40s\" (seam completes %s)", name, names);
    }
    return language;
}

const lg_language *srv_language_of(const cfg_config *config, const char *language_id, const char *path,
                                   const char *text, size_t len, char *why, size_t why_size)
{
    if (config->language)
        return srv_language_named(config->language, why, why_size);
    char names[256];
    lg_names(names, sizeof names);
    const lg_language *language = language_id ? lg_by_language_id(language_id) : NULL;
    if (!language)
        language = lg_by_file(path, text, len);
    language = lg_read_as(language, text, len);   /* a .js file holding JSX: the jsx row's */
    if (!language && language_id)
        snprintf(why, why_size, "seam completes %s, not %s (%s)", names, language_id, path ? path : "a document");
    else if (!language)
        snprintf(why, why_size, "%s is not in a language seam completes (%s; --language NAME reads it as one)",
                 path ? path : "the document", names);
    return language;
}

const char *srv_dialect_of(const cfg_config *config, const lg_language *language, const char *path, const char *text,
                           size_t len)
{
    if (!language->dialects)
        return NULL;
    if (config->source_type && lg_dialect(language, config->source_type))
        return language->dialects[lg_dialect(language, config->source_type) - 1];
    int number = language->dialect_of ? language->dialect_of(path, text, len) : 1;
    return language->dialects[number > 0 ? number - 1 : 0];
}

void srv_add_version(struct cJSON *object, const lg_language *language, const lg_version_choice *version)
{
    if (!version)
        return;
    char key[64], text[16], why_key[80];
    snprintf(key, sizeof key, "%s_version", language->name);
    snprintf(why_key, sizeof why_key, "%s_version_why", language->name);
    snprintf(text, sizeof text, "%d.%d", version->version / 100, version->version % 100);
    cJSON_AddStringToObject(object, key, text);
    cJSON_AddStringToObject(object, why_key, version->why);
}
