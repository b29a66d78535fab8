/*
 * language.c - which language a document is read in, for every front end:
 * the setting `language` when it is set, else the editor's languageId,
 * else the file's name and #! line (languages/).
 */
#include "seam_server.h"

#include "seam_languages.h"

#include <stdio.h>
#include <string.h>

const lg_language *srv_language_of(const cfg_config *config, const char *language_id, const char *path,
                                   const char *text, size_t len, char *why, size_t why_size)
{
    char names[256];
    lg_names(names, sizeof names);
    if (config->language) {
        const lg_language *named = lg_by_name(config->language);
        if (!named)
            snprintf(why, why_size, "there is no language \"%s\" (seam completes %s)", config->language, names);
        return named;
    }
    const lg_language *language = language_id ? lg_by_language_id(language_id) : NULL;
    if (!language)
        language = lg_by_file(path, text, len);
    if (!language && language_id)
        snprintf(why, why_size, "seam completes %s, not %s (%s)", names, language_id, path ? path : "a document");
    else if (!language)
        snprintf(why, why_size, "%s is not in a language seam completes (%s; --language NAME reads it as one)",
                 path ? path : "the document", names);
    return language;
}
