/*
 * modules.c - what installed Python modules hold, for the attribute and
 * keyword pruners.
 *
 * A module with a source (the workspace's, the standard library's) is read
 * with tree-sitter, never imported: its top-level bindings are its
 * attributes, its directory's entries its submodules.  A module without
 * one (`sys`, `math`, an extension) is asked of Python once (`dir()` of
 * the imported module, isolated, from /, within 5 seconds), when the
 * environment has a Python to run.  What cannot be known
 * statically (a module-level __getattr__, exec or globals(), a star
 * import of an unknown module, a module not found) constrains nothing.
 * Summaries are cached for the environment's life, under a mutex.
 */
#include "sx_internal.h"

#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

enum { SX__MAX_MODULES = 4096, SX__MAX_SOURCE = 8 << 20, SX__MAX_STAR_DEPTH = 4 };

typedef struct sx__module {
    char *name;                 /* owned */
    bool found;                 /* its attributes are known */
    bool open;                  /* found, but anything may be an attribute */
    char *dir;                  /* a package's directory, owned; NULL otherwise */
    sx_doc doc;                 /* its top level (a source) */
    char *names;                /* a compiled module's attributes, "\n"-separated, owned */
    bool stdlib;                /* read from the standard library */
    int8_t importable;          /* not found: 1 Python finds it, -1 it does not, 0 not asked */
} sx__module;

struct sx_env {
    char *stdlib, *workspace, *python;
    pthread_mutex_t lock;
    SM_ARRAY(sx__module *) modules;
    sx__module unknown;         /* what modules past the cap are */
};

sx_env *sx_env_new(const char *stdlib, const char *workspace, const char *python)
{
    sx_env *env = sm_calloc(1, sizeof *env);
    env->stdlib = stdlib ? sm_strdup(stdlib) : NULL;
    env->workspace = workspace ? sm_strdup(workspace) : NULL;
    env->python = python ? sm_strdup(python) : NULL;
    pthread_mutex_init(&env->lock, NULL);
    sm_array_init(&env->modules);
    return env;
}

static void sx__module_free(sx__module *m)
{
    sm_free(m->name);
    sm_free(m->dir);
    sm_free(m->names);
    if (m->doc.bindings.items || m->doc.pool.data)
        sx_doc_free(&m->doc);
    sm_free(m);
}

void sx_env_free(sx_env *env)
{
    if (!env)
        return;
    for (uint32_t i = 0; i < env->modules.size; i++)
        sx__module_free(env->modules.items[i]);
    sm_array_free(&env->modules);
    pthread_mutex_destroy(&env->lock);
    sm_free(env->stdlib);
    sm_free(env->workspace);
    sm_free(env->python);
    sm_free(env);
}

static bool sx__valid_name(const char *name)
{
    if (!*name || strlen(name) > 200)
        return false;
    for (const char *p = name; *p; p++)
        if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return name[0] != '.';
}

static bool sx__is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where module `name`'s source is under `root`: *dir set for a package. */
static bool sx__find_source(const char *root, const char *name, char *path, size_t size, char **dir)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s", name);
    for (char *p = rel; *p; p++)
        if (*p == '.')
            *p = '/';
    snprintf(path, size, "%s/%s/__init__.py", root, rel);
    if (sx__is_file(path)) {
        char d[1024];
        snprintf(d, sizeof d, "%s/%s", root, rel);
        *dir = sm_strdup(d);
        return true;
    }
    snprintf(path, size, "%s/%s.py", root, rel);
    return sx__is_file(path);
}

/* Whether some file matches the glob pattern. */
static bool sx__glob_any(const char *pattern)
{
    glob_t g;
    bool found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

/* Whether a compiled module `name` is there under root (lib-dynload). */
static bool sx__find_compiled(const char *root, const char *name)
{
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/lib-dynload/%s.*so", root, name);
    return sx__glob_any(pattern);
}

static bool sx__builtin_module(const char *name)
{
    static const char *const names[] = {"_abc",    "_ast",       "_codecs",     "_collections", "_functools",
                                        "_imp",    "_io",        "_locale",     "_operator",    "_signal",
                                        "_sre",    "_stat",      "_string",     "_symtable",    "_thread",
                                        "_tokenize", "_tracemalloc", "_warnings", "_weakref",    "atexit",
                                        "builtins", "errno",     "faulthandler", "gc",           "itertools",
                                        "marshal", "posix",      "pwd",         "sys",          "time"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Asks Python for dir() of a compiled module; NULL when it cannot. */
static char *sx__ask_python(const sx_env *env, const char *name)
{
    if (!env->python || !sx__valid_name(name) || strchr(env->python, '\''))
        return NULL;
    char command[1024];
    /* Isolated (-I: no user site, no current folder), no site, no
     * bytecode written (-B), from the root folder, and within 5 seconds:
     * only a compiled module's import runs, and it may not hang the
     * summaries. */
    snprintf(command, sizeof command,
             "cd / && timeout -k 1 5 '%s' -I -S -B -c "
             "'import importlib,sys; print(chr(10).join(dir(importlib.import_module(sys.argv[1]))))' "
             "'%s' 2>/dev/null",
             env->python, name);
    FILE *p = popen(command, "r");
    if (!p)
        return NULL;
    sm_buf out;
    sm_buf_init(&out, 1 << 20);
    char chunk[4096];
    size_t n;
    bool ok = true;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        if (sm_buf_append(&out, chunk, n) != SM_OK)
            ok = false;
    int status = pclose(p);
    if (!ok || status != 0 || out.len == 0) {
        sm_buf_free(&out);
        return NULL;
    }
    sm_buf_append(&out, "\n", 1);
    return sm_buf_take(&out, NULL);
}

/* Whether Python can find the top-level module `name` at all (its spec,
 * which runs none of its code): 1 yes, -1 no, 0 it cannot tell. */
static int8_t sx__python_finds(const sx_env *env, const char *name)
{
    if (!env->python || !sx__valid_name(name) || strchr(name, '.') || strchr(env->python, '\''))
        return 0;
    char command[1024];
    snprintf(command, sizeof command,
             "cd / && timeout -k 1 5 '%s' -I -B -c "
             "'import importlib.util,sys; sys.exit(3 if importlib.util.find_spec(sys.argv[1]) is None else 4)' "
             "'%s' >/dev/null 2>&1",
             env->python, name);
    int status = system(command);
    if (status == -1 || !WIFEXITED(status))
        return 0;
    return WEXITSTATUS(status) == 3 ? -1 : WEXITSTATUS(status) == 4 ? 1 : 0;
}

/* Whether a star import of `star` in module `from` may bind any name.  A
 * module not found may (a package installed elsewhere), except in a
 * standard module when Python cannot find it at all: that import fails
 * here, and the module imports all the same, so it sits in a branch for
 * another platform (os's `from nt import *`) or a try that catches it. */
static bool sx__star_open(const sx_env *env, const sx__module *from, sx__module *star, bool load)
{
    if (star->found)
        return star->open;
    if (!from->stdlib)
        return true;
    if (star->importable == 0 && load)
        star->importable = sx__python_finds(env, star->name);
    return star->importable != -1;
}

/* Whether a module's source writes its namespace in ways its tree does
 * not show beyond what the walk notes (module_writes): through its
 * __dict__, sys.modules[__name__] or setattr on itself.  Rare enough to
 * search as text; a mention in a comment only leaves the module open. */
static bool sx__writes_namespace(const char *text, size_t len, const char *name)
{
    static const char *const marks[] = {"sys.modules[__name__]", "__dict__.update(", "__dict__[", NULL};
    for (size_t i = 0; marks[i] && text; i++)
        if (memmem(text, len, marks[i], strlen(marks[i])))
            return true;
    /* setattr on the module itself (curses sets its ACS_ names so) */
    const char *last = strrchr(name, '.');
    char mark[300];
    snprintf(mark, sizeof mark, "setattr(%s,", last ? last + 1 : name);
    return text && memmem(text, len, mark, strlen(mark)) != NULL;
}

static sx__module *sx__load(sx_env *env, const char *name)
{
    sx__module *m = sm_calloc(1, sizeof *m);
    m->name = sm_strdup(name);
    if (!sx__valid_name(name))
        return m;
    const char *roots[] = {env->workspace, env->stdlib};
    char path[1024];
    for (size_t r = 0; r < 2 && !m->found; r++) {
        if (!roots[r] || !sx__find_source(roots[r], name, path, sizeof path, &m->dir))
            continue;
        sm_buf source;
        if (sm_read_file(path, SX__MAX_SOURCE, &source) != SM_OK)
            break;
        if (sx_doc_read(&m->doc, NULL, source.data ? source.data : "", source.len, SIZE_MAX, NULL) == SM_OK) {
            m->found = true;
            m->stdlib = roots[r] == env->stdlib;
            m->open = m->doc.names_open || m->doc.getattr || m->doc.module_writes ||
                      sx__writes_namespace(source.data, source.len, name);
        }
        sm_buf_free(&source);
    }
    /* A module with a source is never imported to learn its attributes:
     * its top-level code would run (venv.__main__ builds a virtual
     * environment, tkinter.__main__ opens a window).  What its source does
     * not show (globals().update(...)) leaves it open instead. */
    if (!m->found && env->stdlib && (sx__builtin_module(name) || sx__find_compiled(env->stdlib, name))) {
        m->names = sx__ask_python(env, name);
        m->found = m->names != NULL;
    }
    return m;
}

/* The module's summary, read on first use when `load` (else a module not
 * read yet is unknown).  Call with the lock held. */
static sx__module *sx__get(sx_env *env, const char *name, bool load)
{
    for (uint32_t i = 0; i < env->modules.size; i++)
        if (strcmp(env->modules.items[i]->name, name) == 0)
            return env->modules.items[i];
    if (!load || env->modules.size >= SX__MAX_MODULES)
        return &env->unknown;  /* summaries stay while the environment does: past the cap, none is made */
    sx__module *m = sx__load(env, name);
    sm_array_push(&env->modules, m);
    return m;
}

/* Whether a "\n"-separated list of names (Python's dir()) holds `name`,
 * or with `prefix` a name beginning with it. */
static bool sx__listed(const char *names, const char *name, size_t len, bool prefix)
{
    for (const char *p = names; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = (size_t)(nl - p);
        if ((prefix ? n >= len : n == len) && memcmp(p, name, len) == 0)
            return true;
        p = nl + 1;
    }
    return false;
}

static const sx_binding *sx__binding(const sx__module *m, const char *attribute)
{
    return sx_doc_find(&m->doc, attribute, strlen(attribute), false, NULL);
}

static bool sx__submodule(const sx__module *m, const char *attribute)
{
    if (!m->dir || !sx__valid_name(attribute) || strchr(attribute, '.'))
        return false;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.py", m->dir, attribute);
    if (sx__is_file(path))
        return true;
    snprintf(path, sizeof path, "%s/%s/__init__.py", m->dir, attribute);
    if (sx__is_file(path))
        return true;
    char pattern[1200];
    snprintf(pattern, sizeof pattern, "%s/%s.*so", m->dir, attribute);
    return sx__glob_any(pattern);
}

static bool sx__has(sx_env *env, sx__module *m, const char *attribute, bool load, int depth)
{
    static const char *const always[] = {"__name__", "__doc__", "__file__", "__spec__", "__loader__", "__package__",
                                         "__path__", "__dict__", "__builtins__", "__cached__", "__all__",
                                         "__class__", "__getattribute__", "__dir__", NULL};
    for (size_t i = 0; always[i]; i++)
        if (strcmp(always[i], attribute) == 0)
            return true;
    if (m->names)
        return sx__listed(m->names, attribute, strlen(attribute), false) || sx__submodule(m, attribute);
    if (sx__binding(m, attribute) || sx__submodule(m, attribute))
        return true;
    for (size_t i = 0; i < m->doc.stars.len && depth < SX__MAX_STAR_DEPTH; i += strlen(m->doc.stars.data + i) + 1) {
        sx__module *star = sx__get(env, m->doc.stars.data + i, load);
        if (sx__star_open(env, m, star, load) || (star->found && sx__has(env, star, attribute, load, depth + 1)))
            return true;
    }
    return false;
}

/* Takes the lock; without `load`, only when it is free (a decoding loop
 * does not wait for another thread reading a module). */
static bool sx__enter(sx_env *env, bool load)
{
    if (load)
        return pthread_mutex_lock(&env->lock) == 0;
    return pthread_mutex_trylock(&env->lock) == 0;
}

static bool sx__has_prefix(sx_env *env, sx__module *m, const char *prefix, bool load, int depth);

/* Whether module `name` has `attribute` (with `prefix`: one beginning
 * with it); true when the module is not known (*found false). */
static bool sx__lookup(sx_env *env, const char *name, const char *attribute, bool prefix, bool load, bool *found)
{
    if (found)
        *found = false;
    if (!sx__enter(env, load))
        return true;
    sx__module *m = sx__get(env, name, load);
    bool known = m->found && !m->open;
    bool has = !known || !attribute ||
               (prefix ? sx__has_prefix(env, m, attribute, load, 0) : sx__has(env, m, attribute, load, 0));
    pthread_mutex_unlock(&env->lock);
    if (found)
        *found = known;
    return has;
}

bool sx__env_has_attribute(sx_env *env, const char *name, const char *attribute, bool load, bool *found)
{
    return sx__lookup(env, name, attribute, false, load, found);
}

bool sx_env_has_attribute(sx_env *env, const char *name, const char *attribute, bool *found)
{
    return sx__env_has_attribute(env, name, attribute, true, found);
}

/* Reads a module and, star import by star import, what it takes all the
 * names of (posixpath's genericpath), as deep as lookups follow them.
 * Call with the lock held. */
static sx__module *sx__warm_stars(sx_env *env, const char *name, int depth)
{
    sx__module *m = sx__get(env, name, true);
    for (size_t i = 0; m->found && i < m->doc.stars.len && depth < SX__MAX_STAR_DEPTH;
         i += strlen(m->doc.stars.data + i) + 1) {
        sx__module *star = sx__warm_stars(env, m->doc.stars.data + i, depth + 1);
        sx__star_open(env, m, star, true);
    }
    return m;
}

void sx__env_warm(sx_env *env, const char *name)
{
    pthread_mutex_lock(&env->lock);
    sx__module *m = sx__warm_stars(env, name, 0);
    /* The modules it holds under a name (os.path): one level, with what
     * they take by star imports. */
    for (uint32_t i = 0; m->found && i < m->doc.bindings.size; i++) {
        const sx_binding *b = &m->doc.bindings.items[i];
        if (b->kind == SX_BIND_IMPORT)
            sx__warm_stars(env, m->doc.pool.data + b->module, 0);
    }
    pthread_mutex_unlock(&env->lock);
}

static bool sx__submodule_prefix(const sx__module *m, const char *prefix)
{
    if (!m->dir || !sx__valid_name(prefix) || strchr(prefix, '.'))
        return false;
    char pattern[1200];
    snprintf(pattern, sizeof pattern, "%s/%s*", m->dir, prefix);
    return sx__glob_any(pattern);
}

static bool sx__has_prefix(sx_env *env, sx__module *m, const char *prefix, bool load, int depth)
{
    size_t len = strlen(prefix);
    if (len >= 2 && prefix[0] == '_' && prefix[1] == '_')
        return true;    /* the dunders every module has */
    if (sx__submodule_prefix(m, prefix))
        return true;
    if (m->names)
        return sx__listed(m->names, prefix, len, true);
    if (sx_doc_find(&m->doc, prefix, len, true, NULL))
        return true;
    for (size_t i = 0; i < m->doc.stars.len && depth < SX__MAX_STAR_DEPTH; i += strlen(m->doc.stars.data + i) + 1) {
        sx__module *star = sx__get(env, m->doc.stars.data + i, load);
        if (sx__star_open(env, m, star, load) || (star->found && sx__has_prefix(env, star, prefix, load, depth + 1)))
            return true;
    }
    return false;
}

bool sx_env_has_attribute_prefix(sx_env *env, const char *name, const char *prefix, bool load, bool *found)
{
    return sx__lookup(env, name, prefix, true, load, found);
}

bool sx_env_member_module(sx_env *env, const char *module, const char *attribute, bool load, char *out, size_t size)
{
    if (!sx__enter(env, load))
        return false;
    sx__module *m = sx__get(env, module, load);
    bool is_module = false;
    const sx_binding *b = m->found ? sx__binding(m, attribute) : NULL;
    if (b && b->kind == SX_BIND_IMPORT) {
        snprintf(out, size, "%s", m->doc.pool.data + b->module);
        is_module = true;
    } else if (!b && sx__submodule(m, attribute)) {
        snprintf(out, size, "%s.%s", module, attribute);
        is_module = true;
    }
    pthread_mutex_unlock(&env->lock);
    return is_module;
}

const char *sx__env_parameters(sx_env *env, const char *module, const char *function, bool load, bool *open)
{
    if (!sx__enter(env, load))
        return NULL;
    sx__module *m = sx__get(env, module, load);
    const char *params = NULL;
    if (m->found && !m->open && m->doc.pool.data) {
        size_t len = strlen(function);
        uint32_t defs = 0, others = 0;
        const sx_binding *def = NULL;
        for (const sx_binding *b = NULL; (b = sx_doc_find(&m->doc, function, len, false, b));) {
            if (b->kind == SX_BIND_DEF) {
                defs++;
                def = b;
            } else {
                others++;
            }
        }
        if (defs == 1 && others == 0) {
            params = m->doc.pool.data + def->params;   /* stays: summaries are kept */
            *open = def->open;
        }
    }
    pthread_mutex_unlock(&env->lock);
    return params;
}

const char *sx_env_parameters(sx_env *env, const char *module, const char *function, bool *open)
{
    return sx__env_parameters(env, module, function, true, open);
}
