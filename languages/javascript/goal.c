/*
 * goal.c - which goal symbol a JavaScript file is read with, as Node
 * decides it (20.19 and later): a .mjs file is a module, a .cjs file a
 * script, and any other follows the "type" of the nearest package.json
 * ("module", or "commonjs" and any other value); a file that no
 * package.json types (none, or the nearest has no "type") is a module when
 * it has module syntax (an import or export declaration at the start of a
 * line), as Node's syntax detection finds, else a script.  Reads at most a
 * few small regular files, without waiting on any, and runs nothing.
 */
#include "lg_internal.h"
#include "seam_base.h"

#include <cJSON.h>
#include <string.h>

#define LG_JS_SCRIPT 1
#define LG_JS_MODULE 2
#define LG_JS_UNTYPED 3   /* a package.json without "type": the syntax decides */
#define LG_PACKAGE_MAX (1u << 20)
#define LG_PACKAGE_DEPTH 64

static bool lg__ends_with(const char *path, const char *ending)
{
    size_t n = strlen(path), m = strlen(ending);
    return n >= m && strcmp(path + n - m, ending) == 0;
}

/* The "type" of the package.json at `path`: LG_JS_MODULE for "module",
 * LG_JS_SCRIPT for any other value, LG_JS_UNTYPED in a regular file without
 * one (or that is no JSON object), 0 when there is none.  Read without
 * waiting and only when it is a regular file (a FIFO or a device named
 * package.json is no package.json), at most 1 MiB. */
static int lg__package_type(const char *path)
{
    sm_buf json;
    int rc = sm_read_file(path, LG_PACKAGE_MAX, &json);
    if (rc != SM_OK && rc != SM_ETOOBIG) {
        sm_buf_free(&json);
        return 0;
    }
    int type = LG_JS_UNTYPED;
    cJSON *root = rc == SM_OK && json.data ? cJSON_ParseWithLength(json.data, json.len) : NULL;
    const cJSON *field = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (cJSON_IsString(field))
        type = strcmp(field->valuestring, "module") == 0 ? LG_JS_MODULE : LG_JS_SCRIPT;
    cJSON_Delete(root);
    sm_buf_free(&json);
    return type;
}

/* The type the nearest package.json above `path` gives (LG_JS_UNTYPED: it
 * has none), or 0 without one. */
static int lg__nearest_package(const char *path)
{
    size_t len = strlen(path);
    char *dir = sm_malloc(len + sizeof "/package.json");
    memcpy(dir, path, len + 1);
    int type = 0;
    for (int depth = 0; depth < LG_PACKAGE_DEPTH && !type; depth++) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        strcpy(slash, "/package.json");
        type = lg__package_type(dir);
        *slash = '\0';
    }
    sm_free(dir);
    return type;
}

/* Whether a line of text starts (after blanks) an import or export
 * declaration: "import" or "export" and then a blank, "{", "*" or a quote
 * ("import(" and "import." are expressions a script may hold). */
static bool lg__module_syntax(const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t i = at;
        while (i < end && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (end - i > 6 && (memcmp(text + i, "import", 6) == 0 || memcmp(text + i, "export", 6) == 0) &&
            strchr(" \t{*'\"", text[i + 6]) && text[i + 6])
            return true;
        at = end + 1;
    }
    return false;
}

int lg_js_dialect_of(const char *path, const char *text, size_t len)
{
    if (path && lg__ends_with(path, ".mjs"))
        return LG_JS_MODULE;
    if (path && lg__ends_with(path, ".cjs"))
        return LG_JS_SCRIPT;
    int type = path && path[0] == '/' ? lg__nearest_package(path) : 0;
    if (type == LG_JS_MODULE || type == LG_JS_SCRIPT)
        return type;
    return text && lg__module_syntax(text, len) ? LG_JS_MODULE : LG_JS_SCRIPT;
}
