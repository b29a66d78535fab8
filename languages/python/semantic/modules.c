/*
 * modules.c - what installed Python modules hold, for the attribute and
 * keyword pruners.
 *
 * A module with a source (the workspace's, the standard library's) is read
 * with tree-sitter, never imported: its top-level bindings are its
 * attributes, its directory's entries its submodules.  A module without
 * one (`sys`, `math`, an extension) is asked of Python once (`dir()` of
 * the imported module, asker.c), when the environment has an interpreter
 * trusted to run; a site-packages folder's compiled modules only when
 * that folder is trusted too.  What cannot be known
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

enum { SX__MAX_MODULES = 4096, SX__MAX_SOURCE = 8 << 20, SX__MAX_STAR_DEPTH = 4, SX__FAIR_READ_MS = 250 };

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

#define SX__MAX_SITES 8

struct sx_env {
    char *stdlib, *workspace, *python;
    char *sites[SX__MAX_SITES]; /* site-packages folders of the user's environment, owned */
    bool site_trusted[SX__MAX_SITES]; /* its modules may be imported by `python` */
    uint32_t site_count;
    pthread_mutex_t asker_lock;
    sx__asker *asker;           /* owned; made on the first question */
    char *cache_dir;            /* owned; where Python's answers are kept across runs; NULL: not kept */
    sx__summaries *summaries;   /* owned; the module summaries kept there; NULL: none */
    uint64_t budget_ns;         /* a session's set-up reads modules this long at most; 0: no limit */
    pthread_mutex_t lock;
    SM_ARRAY(sx__module *) modules;
    sx__module unknown;         /* what modules past the cap are */
};

sx_env *sx_env_new(const char *stdlib, const char *workspace, const char *python)
{
    sx_env *env = sm_calloc(1, sizeof *env);
    env->stdlib = stdlib ? sm_strdup(stdlib) : NULL;
    env->workspace = workspace ? sm_strdup(workspace) : NULL;
    env->python = python && python[0] == '/' ? sm_strdup(python) : NULL;
    pthread_mutex_init(&env->lock, NULL);
    pthread_mutex_init(&env->asker_lock, NULL);
    sm_array_init(&env->modules);
    return env;
}

ca_key sx_env_fingerprint(const sx_env *env)
{
    ca_key key;
    ca_key_init(&key);
    if (env->python)
        ca_key_add_stat(&key, env->python);
    if (env->stdlib)
        ca_key_add_stat(&key, env->stdlib);
    for (uint32_t i = 0; i < env->site_count; i++)
        ca_key_add_stat(&key, env->sites[i]);
    return key;
}

bool sx_env_add_site(sx_env *env, const char *dir, bool trusted)
{
    if (env->site_count == SX__MAX_SITES || !dir || !*dir || strchr(dir, '\n'))
        return false;
    env->site_trusted[env->site_count] = trusted;
    env->sites[env->site_count++] = sm_strdup(dir);
    return true;
}

/* The asker of the environment's interpreter, made on first use with the
 * trusted site folders on its path; NULL with no interpreter. */
static sx__asker *sx__env_asker(sx_env *env)
{
    if (!env->python)
        return NULL;
    pthread_mutex_lock(&env->asker_lock);
    if (!env->asker) {
        const char *sites[SX__MAX_SITES];
        uint32_t n = 0;
        for (uint32_t i = 0; i < env->site_count; i++)
            if (env->site_trusted[i])
                sites[n++] = env->sites[i];
        env->asker = sx__asker_new(env->python, sites, n, env->cache_dir);
    }
    sx__asker *asker = env->asker;
    pthread_mutex_unlock(&env->asker_lock);
    return asker;
}

/* Where modules are looked for, in Python's order: the workspace, the
 * standard library, then the environment's site-packages.  Returns the
 * count written into roots (at least SX__MAX_SITES + 2). */
static uint32_t sx__roots(const sx_env *env, const char **roots)
{
    uint32_t n = 0;
    roots[n++] = env->workspace;
    roots[n++] = env->stdlib;
    for (uint32_t i = 0; i < env->site_count; i++)
        roots[n++] = env->sites[i];
    return n;
}

static uint32_t sx__roots(const sx_env *env, const char **roots);

void sx_env_set_cache(sx_env *env, const char *dir)
{
    sm_free(env->cache_dir);
    env->cache_dir = dir ? sm_strdup(dir) : NULL;
    sx__summaries_free(env->summaries);
    env->summaries = NULL;
    if (dir) {
        const char *roots[SX__MAX_SITES + 2];
        uint32_t count = sx__roots(env, roots);
        env->summaries = sx__summaries_new(dir, roots, count);
    }
}

void sx_env_set_budget(sx_env *env, uint32_t ms)
{
    env->budget_ns = (uint64_t)ms * 1000000u;
}

uint64_t sx__env_budget_ns(const sx_env *env)
{
    return env->budget_ns;
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
    sx__asker_free(env->asker);   /* first: ends a child being asked */
    sx__summaries_free(env->summaries);   /* writes the new summaries */
    for (uint32_t i = 0; i < env->modules.size; i++)
        sx__module_free(env->modules.items[i]);
    sm_array_free(&env->modules);
    pthread_mutex_destroy(&env->lock);
    pthread_mutex_destroy(&env->asker_lock);
    sm_free(env->stdlib);
    sm_free(env->workspace);
    sm_free(env->python);
    sm_free(env->cache_dir);
    for (uint32_t i = 0; i < env->site_count; i++)
        sm_free(env->sites[i]);
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

/* Whether a compiled module `name` (a.b: a/b.*.so) is in a site-packages
 * folder. */
static bool sx__find_compiled_site(const char *site, const char *name)
{
    char rel[512], pattern[1024];
    snprintf(rel, sizeof rel, "%s", name);
    for (char *p = rel; *p; p++)
        if (*p == '.')
            *p = '/';
    snprintf(pattern, sizeof pattern, "%s/%s.*so", site, rel);
    return sx__glob_any(pattern);
}

static bool sx__builtin_module(const char *name)
{
    static const char *const names[] = {"_abc",    "_ast",       "_codecs",     "_collections", "_functools",
                                        "_imp",    "_io",        "_locale",     "_operator",    "_signal",
                                        "_sre",    "_stat",      "_string",     "_symtable",    "_thread",
                                        "_tokenize", "_tracemalloc", "_warnings", "_weakref",    "atexit",
                                        "builtins", "errno",     "faulthandler", "gc",           "itertools",
                                        "marshal", "posix",      "pwd",         "sys",          "time",
                                        /* frozen: importlib's bootstrap under its own names */
                                        "_frozen_importlib", "_frozen_importlib_external"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Whether `deadline_ns` (0: none) has passed. */
static bool sx__past(uint64_t deadline_ns)
{
    return deadline_ns && sm_now_ns() >= deadline_ns;
}

/* Asks the environment's interpreter for dir() of names[0..count) and
 * stores each answer ("\n"-separated names, owned by the caller) in out[i],
 * NULL when that module does not import or had no answer in the child's
 * time.  Returns false when some answer is still to come at `deadline_ns`
 * (0: none): those are NULL, and asked of no other child. */
static bool sx__ask_dir(sx_env *env, const char *const *names, uint32_t count, uint64_t deadline_ns, char **out)
{
    sx__asker *asker = sx__env_asker(env);
    sx__answer *answers = sm_calloc(count ? count : 1, sizeof *answers);
    bool complete = true;
    if (asker)
        sx__asker_ask(asker, SX_ASK_DIR, names, count, deadline_ns, answers);
    for (uint32_t i = 0; i < count; i++) {
        out[i] = answers[i].names ? sm_strdup(answers[i].names) : NULL;
        complete &= !asker || answers[i].done;
    }
    sm_free(answers);
    return complete;
}

/* Whether Python can find the top-level module `name` at all (its spec,
 * which runs none of its code): 1 yes, -1 no, 0 it cannot tell (yet). */
static int8_t sx__python_finds(sx_env *env, const char *name, uint64_t deadline_ns)
{
    sx__asker *asker = sx__env_asker(env);
    if (!asker || !sx__valid_name(name) || strchr(name, '.'))
        return 0;
    sx__answer answer;
    sx__asker_ask(asker, SX_ASK_FINDS, &name, 1, deadline_ns, &answer);
    return answer.finds;
}

/* Whether a star import of `star` in module `from` may bind any name.  A
 * module not found may (a package installed elsewhere), except in a
 * standard module when Python cannot find it at all: that import fails
 * here, and the module imports all the same, so it sits in a branch for
 * another platform (os's `from nt import *`) or a try that catches it. */
static bool sx__star_open(sx_env *env, const sx__module *from, sx__module *star, bool load, uint64_t deadline_ns)
{
    if (star->found)
        return star->open;
    if (!from->stdlib || star == &env->unknown)
        return true;
    if (star->importable == 0 && load && !sx__past(deadline_ns)) {
        /* asked without the lock: other threads' lookups do not wait */
        pthread_mutex_unlock(&env->lock);
        int8_t finds = sx__python_finds(env, star->name, deadline_ns);
        pthread_mutex_lock(&env->lock);
        if (finds != 0)
            star->importable = finds;
    }
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

/* Whether module `name` is compiled into Python or in the standard
 * library's lib-dynload: only Python can tell its attributes. */
static bool sx__compiled(const sx_env *env, const char *name)
{
    if (env->stdlib && (sx__builtin_module(name) || sx__find_compiled(env->stdlib, name)))
        return true;
    for (uint32_t i = 0; i < env->site_count; i++)
        if (env->site_trusted[i] && sx__find_compiled_site(env->sites[i], name))
            return true;
    return false;
}

/* Whether module `name` has no source to read but is compiled. */
static bool sx__needs_python(const sx_env *env, const char *name)
{
    const char *roots[SX__MAX_SITES + 2];
    uint32_t root_count = sx__roots(env, roots);
    char path[1024];
    for (size_t r = 0; r < root_count; r++) {
        char *dir = NULL;
        bool found = roots[r] && sx__find_source(roots[r], name, path, sizeof path, &dir);
        sm_free(dir);
        if (found)
            return false;
    }
    return sx__valid_name(name) && sx__compiled(env, name);
}

/* Whether module m (read from `root`), whose source leaves it open (a
 * module __getattr__, star imports of what is not known, writes through
 * globals()), is an installed package's that says what it has: a module
 * __dir__ (PEP 562, as numpy's).  Its dir() is then its attributes.  Never
 * the workspace's own code, nor the standard library's. */
static bool sx__lazy_package(const sx_env *env, const sx__module *m, const char *root)
{
    bool site = false;
    for (uint32_t i = 0; i < env->site_count; i++)
        site |= root == env->sites[i] && env->site_trusted[i];
    return site && sx_doc_find(&m->doc, "__dir__", 7, false, NULL) != NULL;
}

/* Whether standard module `name` may be imported by the sandboxed
 * interpreter (asker.c) to learn a namespace its source writes at run time
 * (re's flags, signal's and socket's enums, typing's aliases): every
 * standard module but a program (`__main__`) and the few whose import
 * acts: `antigravity` opens a browser, `this` and `__hello__` print,
 * idlelib's and turtledemo's modules start programs, and the regression
 * tests (`test`) are not libraries. */
static bool sx__stdlib_importable(const char *name)
{
    static const char *const acting[] = {"antigravity", "this", "idlelib", "turtledemo", "test",
                                         "__hello__", "__phello__", "__main__", NULL};
    size_t first = strcspn(name, ".");
    for (size_t i = 0; acting[i]; i++)
        if (strlen(acting[i]) == first && memcmp(acting[i], name, first) == 0)
            return false;
    for (const char *p = name; (p = strstr(p, "__main__")); p += 8)
        if ((p == name || p[-1] == '.') && (p[8] == '\0' || p[8] == '.'))
            return false;
    return true;
}

/* Whether module m, read from `root`, whose source leaves it open, is
 * asked of Python for dir(): a trusted site-packages module with a
 * module __dir__ (sx__lazy_package), or a standard module that may be
 * imported (sx__stdlib_importable).  Never the workspace's own code. */
static bool sx__askable(const sx_env *env, const sx__module *m, const char *root)
{
    if (root == env->stdlib && root != env->workspace)
        return sx__stdlib_importable(m->name);
    return sx__lazy_package(env, m, root);
}

/* Asks the environment's Python for dir() of such a module (importing an
 * installed package, as for a compiled one): its answer, when there is
 * one, is the module's attributes, and the module is no longer open.
 * Returns whether a deadline cut the question short (ask again later). */
static bool sx__ask_lazy(sx_env *env, sx__module *m, uint64_t deadline_ns)
{
    const char *name = m->name;
    bool complete = sx__ask_dir(env, &name, 1, deadline_ns, &m->names);
    if (m->names)
        m->open = false;
    return !complete;
}

/* How modules are being read: by when, and whether Python is asked now
 * or later for many modules at once (`defer`: the compiled modules met are
 * left unread and listed in `deferred`, owned). */
typedef struct sx__reading {
    uint64_t deadline_ns;   /* 0: none */
    bool defer;
    SM_ARRAY(char *) deferred;
} sx__reading;

/* Reads module `name` (without the lock).  *unanswered: Python was not
 * asked (deferred) or did not answer in time, so that what was found is
 * not final. */
static sx__module *sx__load(sx_env *env, const char *name, const sx__reading *r, bool *unanswered)
{
    uint64_t deadline_ns = r ? r->deadline_ns : 0;
    *unanswered = false;
    sx__module *m = sm_calloc(1, sizeof *m);
    m->name = sm_strdup(name);
    if (!sx__valid_name(name))
        return m;
    const char *roots[SX__MAX_SITES + 2];
    uint32_t root_count = sx__roots(env, roots);
    char path[1024];
    for (size_t k = 0; k < root_count && !m->found; k++) {
        if (!roots[k] || !sx__find_source(roots[k], name, path, sizeof path, &m->dir))
            continue;
        bool writes = false;
        sm_buf source;
        sm_buf_init(&source, SX__MAX_SOURCE);
        /* a summary kept from an earlier run, the file unchanged since */
        bool kept = sx__summaries_take(env->summaries, name, path, &m->doc, &writes);
        if (!kept && sm_read_file(path, SX__MAX_SOURCE, &source) != SM_OK)
            break;
        uint64_t started = sm_now_ns();
        int rc = kept ? SM_OK
                      : sx_doc_read(&m->doc, NULL, source.data ? source.data : "", source.len, SIZE_MAX, NULL,
                                    deadline_ns);
        if (rc == SM_OK && !kept) {
            writes = sx__writes_namespace(source.data, source.len, name);
            sx__summaries_put(env->summaries, name, path, &m->doc, writes);
        }
        if (rc == SM_ETIMEDOUT) {
            /* A module too large to read in the set-up's time: given a fair
             * try (SX__FAIR_READ_MS), it constrains nothing from now on, and
             * is not read again by every completion; cut shorter, it is read
             * another time. */
            *unanswered = sm_now_ns() - started < (uint64_t)SX__FAIR_READ_MS * 1000000u;
            sm_buf_free(&source);
            break;
        }
        if (rc == SM_OK) {
            m->found = true;
            m->stdlib = roots[k] == env->stdlib;
            /* a module-level __getattr__ (PEP 562), defined or assigned, may
             * answer any name */
            m->open = m->doc.names_open || m->doc.getattr || m->doc.module_writes ||
                      sx_doc_find(&m->doc, "__getattr__", 11, false, NULL) != NULL || writes;
            /* deferred, it is asked with the others the pass met */
            if (m->open && sx__askable(env, m, roots[k]))
                *unanswered = (r && r->defer) || sx__ask_lazy(env, m, deadline_ns);
        }
        sm_buf_free(&source);
    }
    /* A module with a source is imported to learn its attributes only when
     * its source leaves it open and it may be (sx__askable: a standard
     * module that does not act, a trusted package with a __dir__), in the
     * bounded child; otherwise what its source does not show leaves it
     * open.  A module with no source is asked when it is compiled. */
    if (!m->found && sx__compiled(env, name)) {
        /* Python not answering within the child's 5 s is taken as final
         * (the module is then not found, and constrains nothing); an answer
         * still to come at a set-up's deadline is taken another time. */
        *unanswered = (r && r->defer) || !sx__ask_dir(env, &name, 1, deadline_ns, &m->names);
        m->found = m->names != NULL;
    }
    return m;
}

/* The module's summary, read on first use when `load` (else a module not
 * read yet is unknown).  Call with the lock held. */
static sx__module *sx__cached(const sx_env *env, const char *name)
{
    for (uint32_t i = 0; i < env->modules.size; i++)
        if (strcmp(env->modules.items[i]->name, name) == 0)
            return env->modules.items[i];
    return NULL;
}

/* Caches a module read without the lock, unless another thread cached it
 * meanwhile or the cache is full; returns the module to use. */
static sx__module *sx__keep(sx_env *env, sx__module *fresh)
{
    sx__module *m = sx__cached(env, fresh->name);
    if (m || env->modules.size >= SX__MAX_MODULES) {
        sx__module_free(fresh);
        return m ? m : &env->unknown;
    }
    sm_array_push(&env->modules, fresh);
    return fresh;
}

/* The module's summary, read on first use when `load` and time is left
 * before `deadline_ns` (0: no deadline); else a module not read yet is
 * unknown.  Call with the lock held: it is let go while the module is
 * read (files, and Python for a compiled module), so that lookups of
 * other threads do not wait on it; module summaries never move. */
static sx__module *sx__get_by(sx_env *env, const char *name, bool load, sx__reading *r)
{
    sx__module *m = sx__cached(env, name);
    if (m)
        return m;
    if (!load || env->modules.size >= SX__MAX_MODULES || (r && sx__past(r->deadline_ns)))
        return &env->unknown;  /* summaries stay while the environment does: past the cap, none is made */
    pthread_mutex_unlock(&env->lock);
    bool unanswered;
    sx__module *fresh = sx__load(env, name, r, &unanswered);
    pthread_mutex_lock(&env->lock);
    if (unanswered) {
        if (r && r->defer)
            sm_array_push(&r->deferred, sm_strdup(name));
        sx__module_free(fresh);  /* read again another time */
        return &env->unknown;
    }
    return sx__keep(env, fresh);
}

static sx__module *sx__get(sx_env *env, const char *name, bool load)
{
    return sx__get_by(env, name, load, NULL);
}

void sx__env_prefetch(sx_env *env, const char *const *names, uint32_t count, uint64_t deadline_ns)
{
    const char **ask = sm_calloc(count ? count : 1, sizeof *ask);
    uint32_t n = 0;
    pthread_mutex_lock(&env->lock);
    for (uint32_t i = 0; i < count; i++) {
        bool seen = sx__cached(env, names[i]) != NULL;
        for (uint32_t k = 0; k < n && !seen; k++)
            seen = strcmp(ask[k], names[i]) == 0;
        if (!seen && sx__valid_name(names[i]))
            ask[n++] = names[i];
    }
    pthread_mutex_unlock(&env->lock);
    uint32_t compiled = 0;
    for (uint32_t k = 0; k < n; k++)
        if (sx__needs_python(env, ask[k]))
            ask[compiled++] = ask[k];
    char **answers = sm_calloc(compiled ? compiled : 1, sizeof *answers);
    if (compiled && !sx__past(deadline_ns) && sx__ask_dir(env, ask, compiled, deadline_ns, answers)) {
        /* answers, or none in the child's 5 s: final either way */
        pthread_mutex_lock(&env->lock);
        for (uint32_t k = 0; k < compiled; k++) {
            sx__module *m = sm_calloc(1, sizeof *m);
            m->name = sm_strdup(ask[k]);
            m->names = answers[k];
            m->found = answers[k] != NULL;
            answers[k] = NULL;
            sx__keep(env, m);
        }
        pthread_mutex_unlock(&env->lock);
    }
    for (uint32_t k = 0; k < compiled; k++)
        sm_free(answers[k]);
    sm_free(answers);
    sm_free(ask);
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

/* Whether `attribute` is one of m's own: a dunder every module has, what
 * Python listed (a compiled module's dir(), or a package's own __dir__),
 * what its source binds (a __dir__ may leave out names it has: numpy's
 * omits core), a submodule. */
static bool sx__own(const sx__module *m, const char *attribute)
{
    static const char *const always[] = {"__name__", "__doc__", "__file__", "__spec__", "__loader__", "__package__",
                                         "__path__", "__dict__", "__builtins__", "__cached__", "__all__",
                                         "__class__", "__getattribute__", "__dir__", NULL};
    for (size_t i = 0; always[i]; i++)
        if (strcmp(always[i], attribute) == 0)
            return true;
    if (m->names && sx__listed(m->names, attribute, strlen(attribute), false))
        return true;
    return sx__binding(m, attribute) || sx__submodule(m, attribute);
}

static bool sx__submodule_prefix(const sx__module *m, const char *prefix);

/* Whether some attribute of m's own begins with `prefix`. */
static bool sx__own_prefix(const sx__module *m, const char *prefix)
{
    size_t len = strlen(prefix);
    if (len >= 2 && prefix[0] == '_' && prefix[1] == '_')
        return true;    /* the dunders every module has */
    if (sx__submodule_prefix(m, prefix))
        return true;
    if (m->names)
        return sx__listed(m->names, prefix, len, true);
    return sx_doc_find(&m->doc, prefix, len, true, NULL) != NULL;
}

enum { SX__MAX_STAR_MODULES = 64 };

/* Whether m or a module it takes all the names of (star imports, as deep
 * as SX__MAX_STAR_DEPTH) has `attribute` (with `prefix`: one beginning with
 * it).  Breadth first, each module once: star imports that fan out (each
 * of F modules star-importing the others) cost F modules, not F to the
 * depth, and each module is reached at its least depth.  A module whose
 * names Python listed is taken whole, without its star imports; a star
 * import that may bind anything, or more modules than are followed, make
 * the answer yes. */
static bool sx__search(sx_env *env, sx__module *m, const char *attribute, bool prefix, bool load)
{
    sx__module *queue[SX__MAX_STAR_MODULES];
    int depth[SX__MAX_STAR_MODULES];
    uint32_t size = 1;
    queue[0] = m;
    depth[0] = 0;
    for (uint32_t at = 0; at < size; at++) {
        sx__module *cur = queue[at];
        if (prefix ? sx__own_prefix(cur, attribute) : sx__own(cur, attribute))
            return true;
        if (cur->names || depth[at] >= SX__MAX_STAR_DEPTH)
            continue;
        for (size_t i = 0; i < cur->doc.stars.len; i += strlen(cur->doc.stars.data + i) + 1) {
            sx__module *star = sx__get(env, cur->doc.stars.data + i, load);
            bool seen = false;
            for (uint32_t k = 0; k < size && !seen; k++)
                seen = queue[k] == star;
            if (seen)
                continue;
            if (sx__star_open(env, cur, star, load, 0) || size == SX__MAX_STAR_MODULES)
                return true;
            if (star->found) {
                queue[size] = star;
                depth[size++] = depth[at] + 1;
            }
        }
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
               sx__search(env, m, attribute, prefix, load);
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
 * names of (posixpath's genericpath), as deep and as many as lookups
 * follow them (sx__search), each module once.  Call with the lock held. */
static void sx__warm_stars(sx_env *env, const char *name, sx__reading *r)
{
    sx__module *queue[SX__MAX_STAR_MODULES];
    int depth[SX__MAX_STAR_MODULES];
    uint32_t size = 1;
    queue[0] = sx__get_by(env, name, true, r);
    depth[0] = 0;
    for (uint32_t at = 0; at < size; at++) {
        sx__module *m = queue[at];
        for (size_t i = 0; m->found && i < m->doc.stars.len && depth[at] < SX__MAX_STAR_DEPTH;
             i += strlen(m->doc.stars.data + i) + 1) {
            sx__module *star = sx__get_by(env, m->doc.stars.data + i, true, r);
            if (!r->defer)
                sx__star_open(env, m, star, true, r->deadline_ns);
            bool seen = false;
            for (uint32_t k = 0; k < size && !seen; k++)
                seen = queue[k] == star;
            if (!seen && size < SX__MAX_STAR_MODULES) {
                queue[size] = star;
                depth[size++] = depth[at] + 1;
            }
        }
    }
}

/* Asks Python, at once, for the modules a deferring pass met: compiled
 * ones, and those whose source leaves them open but Python may list. */
static void sx__ask_deferred(sx_env *env, sx__reading *r)
{
    /* one child for all of them: the asker keeps the answers, which the
     * next, not deferring, pass takes */
    char **answers = sm_calloc(r->deferred.size ? r->deferred.size : 1, sizeof *answers);
    if (r->deferred.size && !sx__past(r->deadline_ns))
        sx__ask_dir(env, (const char *const *)r->deferred.items, r->deferred.size, r->deadline_ns, answers);
    for (uint32_t i = 0; i < r->deferred.size; i++)
        sm_free(answers[i]);
    sm_free(answers);
    sx__env_prefetch(env, (const char *const *)r->deferred.items, r->deferred.size, r->deadline_ns);
    for (uint32_t i = 0; i < r->deferred.size; i++)
        sm_free(r->deferred.items[i]);
    r->deferred.size = 0;
}

/* Warms names[0..count) (with `defer`, compiled modules only listed). */
static void sx__warm_pass(sx_env *env, const char *const *names, uint32_t count, sx__reading *r)
{
    pthread_mutex_lock(&env->lock);
    for (uint32_t k = 0; k < count && !sx__past(r->deadline_ns); k++)
        sx__warm_stars(env, names[k], r);
    pthread_mutex_unlock(&env->lock);
}

void sx__env_warm(sx_env *env, const char *const *names, uint32_t count, uint64_t deadline_ns)
{
    sx__reading r = {deadline_ns, true, {0}};
    sm_array_init(&r.deferred);
    /* the modules named, and what they take by star imports: sources first,
     * then the compiled ones met, asked of Python at once */
    sx__env_prefetch(env, names, count, deadline_ns);
    sx__warm_pass(env, names, count, &r);
    sx__ask_deferred(env, &r);
    /* The modules they hold under a name (os.path): one level.  (A
     * module's summary never changes once made: its names stay valid
     * without the lock.) */
    SM_ARRAY(const char *) held;
    sm_array_init(&held);
    pthread_mutex_lock(&env->lock);
    for (uint32_t k = 0; k < count; k++) {
        sx__module *m = sx__cached(env, names[k]);
        for (uint32_t i = 0; m && m->found && i < m->doc.bindings.size; i++)
            if (m->doc.bindings.items[i].kind == SX_BIND_IMPORT)
                sm_array_push(&held, m->doc.pool.data + m->doc.bindings.items[i].module);
    }
    pthread_mutex_unlock(&env->lock);
    sx__env_prefetch(env, held.items, held.size, deadline_ns);
    sx__warm_pass(env, names, count, &r);
    sx__warm_pass(env, held.items, held.size, &r);
    sx__ask_deferred(env, &r);
    /* last, not deferring: what is left, and whether the star imports of
     * modules not found find anything at all */
    r.defer = false;
    sx__warm_pass(env, names, count, &r);
    sx__warm_pass(env, held.items, held.size, &r);
    sm_array_free(&held);
    sm_array_free(&r.deferred);
    sx__summaries_save(env->summaries);
}

static bool sx__submodule_prefix(const sx__module *m, const char *prefix)
{
    if (!m->dir || !sx__valid_name(prefix) || strchr(prefix, '.'))
        return false;
    char pattern[1200];
    snprintf(pattern, sizeof pattern, "%s/%s*", m->dir, prefix);
    return sx__glob_any(pattern);
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
