/*
 * imports.c - the workspace files a JavaScript or TypeScript text imports:
 * the relative specifiers of `import ... from "./x"`, `export ... from`,
 * `import("./x")` and `require("./x")`, resolved as Node and TypeScript's
 * bundler resolution find them (the file, the file with an extension, a
 * TypeScript source written with its output's .js extension, a folder's
 * index).  Bare specifiers name packages, not the project's own files.
 */
#include "lg_internal.h"

#include <stdio.h>
#include <string.h>

static bool lg__js_try(lg_imports *im, const char *dir, const char *spec, size_t len, size_t cut, const char *ending)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%.*s%s", dir, (int)(len - cut), spec, ending);
    return n > 0 && (size_t)n < sizeof path && lg_imports_try(im, path);
}

static bool lg__js_ends(const char *spec, size_t len, const char *ending)
{
    size_t n = strlen(ending);
    return len >= n && memcmp(spec + len - n, ending, n) == 0;
}

/* Resolves spec[0..len), relative to `dir`. */
static void lg__js_resolve(lg_imports *im, const char *dir, const char *spec, size_t len)
{
    static const char *const endings[] = {".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", NULL};
    static const char *const index[] = {"/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs", NULL};
    /* TypeScript's sources are imported by their output's name */
    static const char *const written[][2] = {{".js", ".ts"}, {".js", ".tsx"}, {".jsx", ".tsx"}, {".mjs", ".mts"},
                                             {".cjs", ".cts"}};
    if (lg__js_try(im, dir, spec, len, 0, ""))
        return;
    for (size_t i = 0; i < sizeof written / sizeof *written; i++)
        if (lg__js_ends(spec, len, written[i][0]) &&
            lg__js_try(im, dir, spec, len, strlen(written[i][0]), written[i][1]))
            return;
    for (const char *const *e = endings; *e; e++)
        if (lg__js_try(im, dir, spec, len, 0, *e))
            return;
    for (const char *const *e = index; *e; e++)
        if (lg__js_try(im, dir, spec, len, 0, *e))
            return;
}

static size_t lg__js_blank(const char *t, size_t i, size_t len)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* The string literal at t[i] (a quote): its contents' end, or 0. */
static size_t lg__js_string(const char *t, size_t i, size_t len)
{
    if (i >= len || (t[i] != '"' && t[i] != '\''))
        return 0;
    char q = t[i];
    for (size_t j = i + 1; j < len && j < i + 1024; j++) {
        if (t[j] == q)
            return j;
        if (t[j] == '\n' || t[j] == '\\')
            return 0;
    }
    return 0;
}

static bool lg__js_word_at(const char *t, size_t i, size_t len, const char *word)
{
    size_t n = strlen(word);
    if (i + n > len || memcmp(t + i, word, n) != 0)
        return false;
    bool before = i == 0 || !(t[i - 1] == '_' || t[i - 1] == '$' || t[i - 1] == '.' ||
                              (t[i - 1] >= 'a' && t[i - 1] <= 'z') || (t[i - 1] >= 'A' && t[i - 1] <= 'Z') ||
                              (t[i - 1] >= '0' && t[i - 1] <= '9'));
    return before;
}

void lg_js_imports(const char *text, size_t len, const char *dir, const char *root, lg_import_cb found, void *data)
{
    lg_imports im;
    lg_imports_begin(&im, root, found, data);
    for (size_t i = 0; i < len && im.root; i++) {
        size_t at;
        if (lg__js_word_at(text, i, len, "from"))
            at = lg__js_blank(text, i + 4, len);
        else if (lg__js_word_at(text, i, len, "import"))
            at = lg__js_blank(text, i + 6, len);
        else if (lg__js_word_at(text, i, len, "require"))
            at = lg__js_blank(text, i + 7, len);
        else
            continue;
        if (at < len && text[at] == '(')
            at = lg__js_blank(text, at + 1, len);
        size_t end = lg__js_string(text, at, len);
        if (!end)
            continue;
        const char *spec = text + at + 1;
        size_t spec_len = end - at - 1;
        if ((spec_len > 2 && memcmp(spec, "./", 2) == 0) || (spec_len > 3 && memcmp(spec, "../", 3) == 0))
            lg__js_resolve(&im, dir, spec, spec_len);
        i = end;
    }
    lg_imports_end(&im);
}
