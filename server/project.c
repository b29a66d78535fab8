/*
 * project.c - the project's other files for a completion's prompt: what
 * the language server and `seam complete` offer (the other open documents,
 * recently closed ones), the modules the document imports read from the
 * workspace, and context/'s pick of their chunks.  Runs in libuv's thread
 * pool, in the job's set-up, bounded in time: files are read until
 * SRV_PROJECT_BUDGET_MS has passed, and no file over SRV_PROJECT_FILE_MAX
 * is read.
 */
#include "seam_server.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

enum {
    SRV_PROJECT_BUDGET_MS = 20,
    SRV_PROJECT_FILE_MAX = 512 * 1024,
    SRV_PROJECT_FILES = 48,
};

void srv_peers_add(srv_peers *peers, const char *path, const char *text, size_t len, uint32_t age, bool open)
{
    if (!path || peers->items.size >= SRV_PEERS_MAX || (text && len > SRV_PROJECT_FILE_MAX))
        return;
    srv_peer p = {.path = sm_strdup(path), .text = text ? sm_strndup(text, len) : NULL, .len = text ? len : 0,
                  .age = age, .open = open};
    sm_array_push(&peers->items, p);
}

void srv_peers_free(srv_peers *peers)
{
    if (!peers)
        return;
    for (uint32_t i = 0; i < peers->items.size; i++) {
        sm_free(peers->items.items[i].path);
        sm_free(peers->items.items[i].text);
    }
    sm_array_free(&peers->items);
}

/* The path the model sees: relative to the workspace when inside it, else
 * the file's name. */
static char *srv__relative(const char *workspace, const char *path)
{
    size_t n = workspace ? strlen(workspace) : 0;
    while (n > 1 && workspace[n - 1] == '/')
        n--;
    if (n && strncmp(path, workspace, n) == 0 && path[n] == '/')
        return sm_strdup(path + n + 1);
    const char *slash = strrchr(path, '/');
    return sm_strdup(slash ? slash + 1 : path);
}

/* A source the gathering read or was given: its texts owned here. */
typedef struct srv__gather {
    const srv_peers *peers;
    const char *workspace;
    const struct lg_language *language;
    SM_ARRAY(cx_source) sources;
    SM_ARRAY(char *) owned;        /* paths and texts to free */
    uint64_t deadline_ns;
    uint32_t files_read;
} srv__gather;

static char *srv__own(srv__gather *g, char *s)
{
    sm_array_push(&g->owned, s);
    return s;
}

static bool srv__have(const srv__gather *g, const char *relative)
{
    for (uint32_t i = 0; i < g->sources.size; i++)
        if (strcmp(g->sources.items[i].path, relative) == 0)
            return true;
    return false;
}

/* The source at `path` (absolute): an open document's text, else the file
 * read now, within the time budget. */
static void srv__add_source(srv__gather *g, const char *path, const char *text, size_t len, cx_origin origin,
                            uint32_t age)
{
    if (g->sources.size >= SRV_PROJECT_FILES)
        return;
    char *relative = srv__relative(g->workspace, path);
    if (srv__have(g, relative)) {
        sm_free(relative);
        return;
    }
    srv__own(g, relative);
    if (!text) {
        if (uv_hrtime() > g->deadline_ns)
            return;
        sm_buf buf;
        if (sm_read_file(path, SRV_PROJECT_FILE_MAX, &buf) != SM_OK)
            return;
        g->files_read++;
        len = buf.len;
        text = srv__own(g, sm_buf_take(&buf, NULL));
        if (!text)
            return;
    }
    cx_source s = {.path = relative, .text = text, .len = len, .origin = origin, .age = age};
    sm_array_push(&g->sources, s);
}

/* An import the language found: an open document's text when it is one. */
static void srv__on_import(void *data, const char *path)
{
    srv__gather *g = data;
    for (uint32_t i = 0; g->peers && i < g->peers->items.size; i++) {
        const srv_peer *p = &g->peers->items.items[i];
        if (p->text && strcmp(p->path, path) == 0) {
            srv__add_source(g, path, p->text, p->len, CX_IMPORTED, 0);
            return;
        }
    }
    srv__add_source(g, path, NULL, 0, CX_IMPORTED, 0);
}

/* The control strings of every template: a chunk holding one is left out
 * (the prompt would carry a token the model reads as structure). */
static void srv__banned(const char **out, size_t cap)
{
    size_t n = 0;
    for (const mc_template *t = mc_templates(); t->name; t++) {
        for (const char *const *s = t->stops; s && *s && n + 3 < cap; s++)
            out[n++] = *s;
        if (mc_template_has_repo(t) && n + 3 < cap) {
            out[n++] = t->repo_name;
            out[n++] = t->file_sep;
        }
    }
    out[n] = NULL;
}

void srv_project_gather(srv_project *out, const struct lg_language *language, const char *workspace,
                        const char *path, const char *text, size_t len, size_t offset, size_t budget,
                        const srv_peers *peers, cx_memory *memory, uv_mutex_t *memory_lock)
{
    uint64_t t0 = uv_hrtime();
    memset(out, 0, sizeof *out);
    cx_picked_init(&out->picked);
    if (!language || !language->definers || !path || !budget)
        return;
    char *dir_copy = sm_strdup(path);
    const char *dir = dirname(dir_copy);
    const char *root = workspace ? workspace : dir;
    srv__gather g = {.peers = peers, .workspace = root, .language = language,
                     .deadline_ns = t0 + (uint64_t)SRV_PROJECT_BUDGET_MS * 1000000u};
    if (language->imports)
        language->imports(text, len, dir, root, srv__on_import, &g);
    for (uint32_t i = 0; peers && i < peers->items.size; i++) {
        const srv_peer *p = &peers->items.items[i];
        srv__add_source(&g, p->path, p->text, p->len, p->open ? CX_OPEN : CX_EDITED, p->age);
    }
    char *relative = srv__relative(root, path);
    cx_rules rules = {language->definers, language->definer_modifiers};
    cx_query q = {.text = text, .len = len, .offset = offset, .path = relative, .budget = budget};
    const char *banned[64];
    srv__banned(banned, sizeof banned / sizeof *banned);
    if (memory_lock)
        uv_mutex_lock(memory_lock);
    cx_pick(&rules, &q, g.sources.items, g.sources.size, banned, memory, &out->picked);
    if (memory_lock)
        uv_mutex_unlock(memory_lock);
    out->files_read = g.files_read;
    out->files_offered = g.sources.size;
    /* the prompt's view of them (mc_project), borrowing the picked texts */
    if (out->picked.chunks.size) {
        out->chunks = sm_calloc(out->picked.chunks.size, sizeof *out->chunks);
        for (uint32_t i = 0; i < out->picked.chunks.size; i++) {
            const cx_chunk *c = &out->picked.chunks.items[i];
            out->chunks[i] = (mc_file_chunk){c->path, c->text, c->len};
        }
        const char *slash = strrchr(root, '/');
        out->repo = sm_strdup(slash && slash[1] ? slash + 1 : root);
        out->path = relative;
        relative = NULL;
        out->project = (mc_project){.repo = out->repo, .path = out->path, .comment = language->line_comment,
                                    .chunks = out->chunks, .count = out->picked.chunks.size};
    }
    sm_free(relative);
    for (uint32_t i = 0; i < g.owned.size; i++)
        sm_free(g.owned.items[i]);
    sm_array_free(&g.owned);
    sm_array_free(&g.sources);
    sm_free(dir_copy);
    out->gather_ns = uv_hrtime() - t0;
}

cJSON *srv_project_json(const srv_project *project)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *chunks = cJSON_AddArrayToObject(o, "chunks");
    for (uint32_t i = 0; project && i < project->picked.chunks.size; i++) {
        const cx_chunk *c = &project->picked.chunks.items[i];
        cJSON *chunk = cJSON_CreateObject();
        cJSON_AddStringToObject(chunk, "path", c->path);
        cJSON_AddNumberToObject(chunk, "line", c->line + 1);
        cJSON_AddNumberToObject(chunk, "bytes", (double)c->len);
        cJSON_AddStringToObject(chunk, "origin", cx_origin_name(c->origin));
        cJSON_AddBoolToObject(chunk, "outline", c->outline);
        cJSON_AddNumberToObject(chunk, "score", c->score);
        cJSON_AddItemToArray(chunks, chunk);
    }
    cJSON_AddNumberToObject(o, "bytes", project ? (double)project->picked.bytes : 0);
    cJSON_AddNumberToObject(o, "files_offered", project ? project->files_offered : 0);
    cJSON_AddNumberToObject(o, "files_read", project ? project->files_read : 0);
    cJSON_AddNumberToObject(o, "gather_ms", project ? project->gather_ns / 1e6 : 0);
    return o;
}

char *srv_project_root(const char *path)
{
    static const char *const markers[] = {".git", "pyproject.toml", "setup.py", "setup.cfg", "package.json",
                                          "tsconfig.json", NULL};
    char *dir = sm_strdup(path);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        sm_free(dir);
        return sm_strdup(".");
    }
    *slash = '\0';
    char *first = sm_strdup(*dir ? dir : "/");
    for (int depth = 0; depth < 32 && *dir; depth++) {
        for (const char *const *m = markers; *m; m++) {
            char probe[4096];
            struct stat st;
            if ((size_t)snprintf(probe, sizeof probe, "%s/%s", dir, *m) < sizeof probe && stat(probe, &st) == 0) {
                sm_free(first);
                return dir;
            }
        }
        slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    sm_free(dir);
    return first;
}

void srv_project_free(srv_project *project)
{
    cx_picked_free(&project->picked);
    sm_free(project->chunks);
    sm_free(project->repo);
    sm_free(project->path);
    memset(project, 0, sizeof *project);
}
