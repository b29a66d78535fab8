/*
 * registry.c - the table of languages, and which one a document is in.
 */
#include "lg_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The one table: a new language is a row here and a folder beside this
 * file. */
static const lg_language *const lg__languages[] = {&lg_python, &lg_javascript, &lg_json, &lg_typescript,
                                                             &lg_javascriptreact, &lg_typescriptreact, NULL};

/* The token checks grammar files may name. */
static const struct {
    const char *name;
    lg_token_check check;
} lg__checks[] = {
    {"js_identifier", lg_js_identifier_valid},
    {"js_string", lg_js_string_valid},
    {"js_string_strict", lg_js_string_strict_valid},
    {"js_template", lg_js_template_valid},
    {"js_regex", lg_js_regex_valid},
};

/* The lexical rules grammar files may name. */
static const struct {
    const char *name;
    const lg_lexical *rules;
} lg__lexicals[] = {
    {"python", &lg_python_lexical},
    {"javascript", &lg_javascript_lexical},
};

const lg_lexical *lg_lexical_named(const char *name)
{
    for (size_t i = 0; name && i < sizeof lg__lexicals / sizeof lg__lexicals[0]; i++)
        if (strcmp(lg__lexicals[i].name, name) == 0)
            return lg__lexicals[i].rules;
    return NULL;
}

void lg_all_extensions(const char **out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; lg__languages[i]; i++)
        for (size_t k = 0; lg__languages[i]->extensions[k] && n + 1 < size; k++)
            out[n++] = lg__languages[i]->extensions[k];
    if (size)
        out[n] = NULL;
}

int lg_dialect(const lg_language *language, const char *name)
{
    for (size_t i = 0; name && language->dialects && language->dialects[i]; i++)
        if (strcmp(language->dialects[i], name) == 0)
            return (int)i + 1;
    return 0;
}

lg_token_check lg_token_check_named(const char *name)
{
    for (size_t i = 0; name && i < sizeof lg__checks / sizeof lg__checks[0]; i++)
        if (strcmp(lg__checks[i].name, name) == 0)
            return lg__checks[i].check;
    return NULL;
}

const lg_language *const *lg_languages(void)
{
    return lg__languages;
}

static bool lg__listed(const char *const *list, const char *item, size_t len)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strlen(list[i]) == len && memcmp(list[i], item, len) == 0)
            return true;
    return false;
}

size_t lg_index(const lg_language *language)
{
    for (size_t i = 0; lg__languages[i]; i++)
        if (lg__languages[i] == language)
            return i;
    return SIZE_MAX;
}

const lg_language *lg_by_name(const char *name)
{
    for (size_t i = 0; name && lg__languages[i]; i++)
        if (strcmp(lg__languages[i]->name, name) == 0)
            return lg__languages[i];
    return NULL;
}

const lg_language *lg_by_language_id(const char *language_id)
{
    for (size_t i = 0; language_id && lg__languages[i]; i++)
        if (lg__listed(lg__languages[i]->language_ids, language_id, strlen(language_id)))
            return lg__languages[i];
    return NULL;
}

/* The program a #! line runs: its last path component, or with
 * `/usr/bin/env` the first argument after env's options ("python3" in
 * "#!/usr/bin/env -S python3 -u"); a version after it ("python3.12") is
 * dropped. */
static const lg_language *lg__by_hashbang(const char *text, size_t len)
{
    if (!text || len < 3 || text[0] != '#' || text[1] != '!')
        return NULL;
    const char *end = memchr(text, '\n', len);
    size_t line = end ? (size_t)(end - text) : len;
    char words[4][64];
    size_t count = 0;
    for (size_t i = 2; i < line && count < 4;) {
        while (i < line && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
            i++;
        size_t start = i;
        while (i < line && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
            i++;
        if (i > start && i - start < sizeof words[0]) {
            memcpy(words[count], text + start, i - start);
            words[count++][i - start] = '\0';
        }
    }
    size_t at = 0;
    const char *base = count ? strrchr(words[0], '/') : NULL;
    if (base && strcmp(base + 1, "env") == 0)
        for (at = 1; at < count && words[at][0] == '-'; at++)
            ;
    if (at >= count)
        return NULL;
    const char *program = strrchr(words[at], '/') ? strrchr(words[at], '/') + 1 : words[at];
    size_t n = strcspn(program, ".");   /* python3.12: python3 */
    for (size_t i = 0; lg__languages[i]; i++)
        if (lg__listed(lg__languages[i]->interpreters, program, n))
            return lg__languages[i];
    return NULL;
}

const lg_language *lg_by_file(const char *path, const char *text, size_t len)
{
    const char *name = path ? strrchr(path, '/') : NULL;
    name = name ? name + 1 : path;
    const char *dot = name ? strrchr(name, '.') : NULL;
    bool has_ending = dot && dot != name;
    for (size_t i = 0; has_ending && lg__languages[i]; i++)
        if (lg__listed(lg__languages[i]->extensions, dot, strlen(dot)))
            return lg__languages[i];
    /* a #! line tells only for a name with no ending (a script, "tool"):
     * blog.js is never Python, whatever its first line */
    return has_ending ? NULL : lg__by_hashbang(text, len);
}

const lg_language *lg_read_as(const lg_language *language, const char *text, size_t len)
{
    if (language && language->variant && text && language->variant_of(text, len))
        return language->variant;
    return language;
}

void lg_names(char *out, size_t size)
{
    size_t used = 0;
    if (size)
        out[0] = '\0';
    for (size_t i = 0; lg__languages[i] && used < size; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", lg__languages[i]->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
