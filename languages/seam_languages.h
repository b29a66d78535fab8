/*
 * seam_languages.h - the languages seam completes, one row each (lg_).
 *
 * A language is a row of the registry (registry.c) and a folder of its own
 * (languages/python/): what tells its documents apart (LSP languageIds,
 * file name endings, a script's #! line) and, as the language modules move
 * in, everything else that is its own.  The front ends ask the registry
 * which language a document is in; a document in none of them is not
 * completed (and never read with another language's grammar).
 */
#ifndef SEAM_LANGUAGES_H
#define SEAM_LANGUAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A language's check of a finished token beyond its lexeme's pattern
 * (grammar files name one with %check): whether text[0..len) is valid. */
typedef bool (*lg_token_check)(const char *text, size_t len);

/* Where a text stands lexically, for the binding of a line being typed
 * (a language's own reading; zero-initialised at the start of a text). */
#define LG_SHAPE_TEMPLATES 16
typedef struct lg_shape {
    int32_t depth;           /* brackets open */
    uint8_t in;              /* 0 in code, else the kind of string, comment or literal it is in */
    bool escaped;
    bool in_class;           /* a regular expression's class */
    uint8_t prev;            /* the last character of code, not blank */
    uint8_t templates;       /* the "${" open around */
    int32_t template_depth[LG_SHAPE_TEMPLATES];  /* the depth each opened at */
} lg_shape;

typedef struct lg_language {
    const char *name;                     /* "python": settings, seam check's "language", --json */
    const char *const *language_ids;      /* LSP languageIds, NULL-terminated */
    const char *const *extensions;        /* file name endings with their dot, NULL-terminated */
    const char *const *interpreters;      /* names a #! line runs it with ("python3"), NULL-terminated */
    /* Its grammar file (docs/GRAMMAR_FORMAT.md), NUL-terminated, compiled
     * by dialect; NULL for Python, whose file (python/python.grammar) is
     * compiled by version (ep_grammar_python_version); and its dialects, the
     * names its %dialects line gives in the same order, NULL-terminated
     * (JavaScript: "script", "module"), or NULL. */
    const char *grammar;
    const char *const *dialects;
    /* The dialect a file is read in (its number, from 1), from its path (may
     * be NULL) and text, as the language's own tools decide; NULL when the
     * language has no dialects. */
    int (*dialect_of)(const char *path, const char *text, size_t len);
    /* Folders of its code on the machine that the embedded model learns
     * from beside the workspace (NULL-terminated, or NULL; Python's
     * standard library is found by the server). */
    const char *const *corpus_dirs;
    /* For a language without seam's scope rules, the reading of a line
     * being typed (NULL: none; its completions then bind the whole text):
     * shape_scan moves a shape over text; middle_closed says whether a
     * middle typed at shape `at` closes what it opens (a comment left open
     * only when nothing follows on the line); line_enders are texts one of
     * which may follow a finished line (a statement is not left half
     * written), NULL-terminated. */
    void (*shape_scan)(lg_shape *shape, const char *text, size_t len);
    bool (*middle_closed)(const lg_shape *at, const char *middle, size_t len, bool rest_blank);
    const char *const *line_enders;
    /* Whether seam's scope rules (tree-sitter) and semantic pruners know it. */
    bool scope;
    bool semantic;
} lg_language;

/* The languages, NULL-terminated, in the registry's order. */
const lg_language *const *lg_languages(void);
/* The language named `name`; NULL when seam has none by that name. */
const lg_language *lg_by_name(const char *name);
/* The language of an LSP languageId; NULL when none. */
const lg_language *lg_by_language_id(const char *language_id);
/* The language of a file: by its name's ending, else, for a name with no
 * ending (a script), by the #! line that starts `text` (may be NULL, `len`
 * bytes); NULL when none. */
const lg_language *lg_by_file(const char *path, const char *text, size_t len);
/* The version number of dialect `name` of a language (its index + 1), or
 * 0 when it has none by that name. */
int lg_dialect(const lg_language *language, const char *name);
/* The token check a grammar names (%check NAME); NULL when none. */
lg_token_check lg_token_check_named(const char *name);
/* The file name endings of every language into out[0..size), the list
 * NULL-terminated (cut short to fit). */
void lg_all_extensions(const char **out, size_t size);
/* Writes the languages' names, ", "-separated, into out[0..size), for
 * messages. */
void lg_names(char *out, size_t size);

#endif
