/*
 * languages.c - compiling a grammar file for one version or dialect, and a
 * language's grammar (languages/NAME/NAME.grammar, embedded by the
 * languages library) by version or dialect.
 */
#include "ep_grammar.h"
#include "seam_languages.h"

#include <stdio.h>
#include <string.h>

int ep_grammar_compile_version(const char *source, size_t len, int version, ep_grammar **out, char *error,
                               size_t error_size)
{
    *out = NULL;
    sm_buf selected;
    sm_buf_init(&selected, len + 1);
    int rc = ep_grammar_select(source, len, version, &selected, error, error_size);
    if (rc == SM_OK)
        rc = ep_grammar_compile(selected.data ? selected.data : "", selected.len, out, error, error_size);
    if (rc == SM_OK)
        (*out)->version = version;
    sm_buf_free(&selected);
    return rc;
}

/* A grammar that extends its base language's: the base's lines for the
 * base version, what this grammar replaces left out, then its own lines
 * for `version`. */
static int ep__compile_extended(const lg_language *language, int version, ep_grammar **out, char *error,
                                size_t error_size)
{
    const lg_language *base = language->base;
    int base_version = language->base_version ? language->base_version(version) : 0;
    int own_version = language->grammar_version ? language->grammar_version(version) : version;
    size_t base_len = strlen(base->grammar), own_len = strlen(language->grammar);
    sm_buf base_text, own_text, whole;
    sm_buf_init(&base_text, base_len + 1);
    sm_buf_init(&own_text, own_len + 1);
    sm_buf_init(&whole, base_len + own_len + 1);
    int rc = ep_grammar_select(base->grammar, base_len, base_version, &base_text, error, error_size);
    if (rc == SM_OK)
        rc = ep_grammar_select(language->grammar, own_len, own_version, &own_text, error, error_size);
    if (rc == SM_OK)
        rc = ep_grammar_extend(base_text.data ? base_text.data : "", base_text.len,
                               own_text.data ? own_text.data : "", own_text.len, &whole, error, error_size);
    if (rc == SM_OK)
        rc = ep_grammar_compile(whole.data ? whole.data : "", whole.len, out, error, error_size);
    if (rc == SM_OK)
        (*out)->version = version;
    sm_buf_free(&base_text);
    sm_buf_free(&own_text);
    sm_buf_free(&whole);
    return rc;
}

int ep_grammar_of(const lg_language *language, int version, ep_grammar **out, char *error, size_t error_size)
{
    *out = NULL;
    int dialects = 0;
    while (language->dialects && language->dialects[dialects])
        dialects++;
    bool known = dialects                   ? version >= 1 && version <= dialects
                 : language->oldest_version ? version >= language->oldest_version && version <= language->newest_version
                                            : version == 0;
    if (!language->grammar || !known) {
        if (dialects)
            snprintf(error, error_size, "%s has no dialect %d", language->name, version);
        else if (!language->oldest_version)
            snprintf(error, error_size, "%s has one grammar, version 0, not %d", language->name, version);
        else
            snprintf(error, error_size, "seam knows %s %d.%d to %d.%d, not %d.%d", language->name,
                     language->oldest_version / 100, language->oldest_version % 100, language->newest_version / 100,
                     language->newest_version % 100, version / 100, version % 100);
        return SM_EINVAL;
    }
    if (!language->base) {
        int rc = ep_grammar_compile_version(language->grammar, strlen(language->grammar),
                                            language->grammar_version ? language->grammar_version(version) : version,
                                            out, error, error_size);
        if (rc == SM_OK)
            (*out)->version = version;
        return rc;
    }
    return ep__compile_extended(language, version, out, error, error_size);
}
