/*
 * imports.c - the workspace modules a Python text imports: `import a.b`,
 * `from .c import d` (d may itself be a module), resolved as the import
 * system would find them in the project: a package's folder or a module's
 * file, from the workspace's root or its src/ folder, relative imports from
 * the file's own folder.
 */
#include "lg_internal.h"

#include <stdio.h>
#include <string.h>

/* Tries the file of module name[0..len) (dots inside, none leading) under
 * folder `base`: base/a/b.py, base/a/b/__init__.py, base/a/b.pyi. */
static void lg__py_module(lg_imports *im, const char *base, const char *name, size_t len)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/", base);
    if (n < 0 || (size_t)n + len + 16 >= sizeof path)
        return;
    for (size_t i = 0; i < len; i++)
        path[n++] = name[i] == '.' ? '/' : name[i];
    path[n] = '\0';
    static const char *const endings[] = {".py", "/__init__.py", ".pyi", NULL};
    for (const char *const *e = endings; *e; e++) {
        snprintf(path + n, sizeof path - (size_t)n, "%s", *e);
        if (lg_imports_try(im, path))
            return;
    }
}

/* Resolves a module as written (`dots` leading dots, then name[0..len),
 * which may be empty after dots). */
static void lg__py_resolve(lg_imports *im, const char *dir, int dots, const char *name, size_t len)
{
    if (dots == 0) {
        char src[4096];
        lg__py_module(im, im->root, name, len);
        snprintf(src, sizeof src, "%s/src", im->root);
        lg__py_module(im, src, name, len);
        return;
    }
    char base[4096];
    snprintf(base, sizeof base, "%s", dir);
    for (int up = 1; up < dots; up++) {
        char *slash = strrchr(base, '/');
        if (!slash || slash == base)
            return;
        *slash = '\0';
    }
    if (len)
        lg__py_module(im, base, name, len);
}

static bool lg__py_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

static size_t lg__py_blank(const char *t, size_t i, size_t end)
{
    while (i < end && (t[i] == ' ' || t[i] == '\t'))
        i++;
    return i;
}

/* A dotted name at t[i]: its end. */
static size_t lg__py_dotted(const char *t, size_t i, size_t end)
{
    while (i < end && (lg__py_name_char(t[i]) || t[i] == '.'))
        i++;
    return i;
}

/* `import a.b as c, d`: each module named. */
static void lg__py_import_line(lg_imports *im, const char *dir, const char *t, size_t i, size_t end)
{
    while (i < end) {
        i = lg__py_blank(t, i, end);
        size_t name_end = lg__py_dotted(t, i, end);
        if (name_end == i)
            return;
        lg__py_resolve(im, dir, 0, t + i, name_end - i);
        const char *comma = memchr(t + name_end, ',', end - name_end);
        if (!comma)
            return;
        i = (size_t)(comma - t) + 1;
    }
}

/* `from .m import x, y`: the module, and x and y as its submodules. */
static void lg__py_from_line(lg_imports *im, const char *dir, const char *t, size_t i, size_t end)
{
    int dots = 0;
    for (; i < end && t[i] == '.'; i++)
        dots++;
    size_t name_end = lg__py_dotted(t, i, end);
    char module[1024];
    size_t mlen = name_end - i < sizeof module - 1 ? name_end - i : sizeof module - 1;
    memcpy(module, t + i, mlen);
    lg__py_resolve(im, dir, dots, module, mlen);
    size_t at = lg__py_blank(t, name_end, end);
    if (end - at < 6 || memcmp(t + at, "import", 6) != 0)
        return;
    for (at += 6; at < end;) {
        at = lg__py_blank(t, at, end);
        while (at < end && (t[at] == '(' || t[at] == ',' || t[at] == ' '))
            at++;
        size_t w = lg__py_dotted(t, at, end);
        if (w == at || w - at + mlen + 2 >= sizeof module)
            return;
        char sub[1024];
        int n = snprintf(sub, sizeof sub, "%.*s%s%.*s", (int)mlen, module, mlen ? "." : "", (int)(w - at), t + at);
        if (n > 0 && (size_t)n < sizeof sub)
            lg__py_resolve(im, dir, dots, sub, (size_t)n);
        const char *comma = memchr(t + w, ',', end - w);
        if (!comma)
            return;
        at = (size_t)(comma - t) + 1;
    }
}

void lg_py_imports(const char *text, size_t len, const char *dir, const char *root, lg_import_cb found, void *data)
{
    lg_imports im;
    lg_imports_begin(&im, root, found, data);
    for (size_t start = 0; start < len && im.root;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t i = lg__py_blank(text, start, end);
        if (end - i > 7 && memcmp(text + i, "import ", 7) == 0)
            lg__py_import_line(&im, dir, text, i + 7, end);
        else if (end - i > 5 && memcmp(text + i, "from ", 5) == 0)
            lg__py_from_line(&im, dir, text, lg__py_blank(text, i + 5, end), end);
        start = end + 1;
    }
    lg_imports_end(&im);
}
