/*
 * environment.c - which Python the user's code is for, and the environment
 * that runs it (for the semantic pruners), found without running anything.
 *
 * The setting python_version names it; "auto" (the default) takes the
 * project's own word first: the lower bound of requires-python in the
 * nearest pyproject.toml, else the nearest .python-version, else the
 * interpreter that runs the code (python_path; its version read from a
 * virtual environment's pyvenv.cfg, from the name its link resolves to, or
 * for a pyenv shim from pyenv's choice, without running it), else python3
 * on PATH, else the newest seam knows.
 */
#include "seam_python.h"
#include "lg_internal.h"

#include <glob.h>
#include <stdio.h>

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PY_FILE_BYTES (256u << 10)

static void py__set(lg_version_choice *out, int version, const char *fmt, const char *detail)
{
    bool clamped = false;
    if (version < lg_python.oldest_version) {
        version = lg_python.oldest_version;
        clamped = true;
    } else if (version > lg_python.newest_version) {
        version = lg_python.newest_version;
        clamped = true;
    }
    out->version = version;
    int n = snprintf(out->why, sizeof out->why, fmt, detail);
    if (clamped && n >= 0 && (size_t)n < sizeof out->why)
        snprintf(out->why + n, sizeof out->why - (size_t)n, " (the nearest version seam knows)");
}

/* "3.12", "3.12.1", ">=3.12": the first X.Y in text as 100 * X + Y. */
static int py__first_version(const char *text, const char **after)
{
    for (const char *c = text; *c; c++) {
        if (*c != '3' || c[1] != '.' || !isdigit((unsigned char)c[2]) || (c > text && isdigit((unsigned char)c[-1])))
            continue;
        char *end;
        long minor = strtol(c + 2, &end, 10);
        if (minor > 99)
            continue;
        if (after)
            *after = end;
        return (int)(300 + minor);
    }
    return -1;
}

/* The lower bound of a requires-python specifier set (">=3.10,<4",
 * "~=3.11", "==3.12.*", ">3.10"), or -1 when it has none. */
int py_lower_bound(const char *spec)
{
    int best = -1;
    const char *at = spec;
    while (*at) {
        while (*at == ' ' || *at == ',' || *at == '\t')
            at++;
        if (!*at)
            break;
        const char *clause = at;
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), clause);
        const char *after = NULL;
        int v = py__first_version(one, &after);
        int bound = -1;
        if (v > 0) {
            if (strncmp(one, ">=", 2) == 0 || strncmp(one, "~=", 2) == 0 || strncmp(one, "==", 2) == 0)
                bound = v;
            else if (one[0] == '>')
                /* >3.10 excludes 3.10.0 only: 3.10.1 still counts */
                bound = after && *after == '.' ? v : v + 1;
        }
        if (bound > best)
            best = bound;
        at = clause + len;
    }
    return best;
}

/* requires-python's value in a pyproject.toml's [project] table. */
static bool py__requires(const char *text, char *out, size_t out_size)
{
    bool in_project = false;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line == '[') {
            in_project = strncmp(line, "[project]", 9) == 0;
            continue;
        }
        if (!in_project || strncmp(line, "requires-python", 15) != 0)
            continue;
        const char *v = line + 15;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != '=')
            continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        char quote = *v;
        if (quote != '"' && quote != '\'')
            continue;
        const char *end = strchr(v + 1, quote);
        const char *nl = strchr(v + 1, '\n');
        if (!end || (nl && nl < end))
            continue;
        snprintf(out, out_size, "%.*s", (int)(end - v - 1), v + 1);
        return true;
    }
    return false;
}

static bool py__read(const char *dir, const char *name, sm_buf *text, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s", dir, name);
    return sm_read_file(path, PY_FILE_BYTES, text) == SM_OK;
}

/* The project's files, from `dir` up to the root. */
static bool py__project(const char *dir, lg_version_choice *out)
{
    char at[PATH_MAX], path[PATH_MAX + 32];
    snprintf(at, sizeof at, "%s", dir && *dir ? dir : ".");
    bool have_dot_version = false;
    int dot_version = -1;
    char dot_path[PATH_MAX + 32] = "";
    for (;;) {
        sm_buf text;
        if (py__read(at, "pyproject.toml", &text, path, sizeof path)) {
            char spec[256];
            bool found = text.data && py__requires(text.data, spec, sizeof spec);
            sm_buf_free(&text);
            int bound = found ? py_lower_bound(spec) : -1;
            if (bound > 0) {
                char detail[PATH_MAX + 600];
                snprintf(detail, sizeof detail, "%s requires-python \"%s\"", path, spec);
                py__set(out, bound, "%s", detail);
                return true;
            }
        }
        if (!have_dot_version && py__read(at, ".python-version", &text, path, sizeof path)) {
            dot_version = text.data ? py__first_version(text.data, NULL) : -1;
            sm_buf_free(&text);
            if (dot_version > 0) {
                have_dot_version = true;
                snprintf(dot_path, sizeof dot_path, "%s", path);
            }
        }
        char *slash = strrchr(at, '/');
        if (!slash || slash == at)
            break;
        *slash = '\0';
    }
    if (have_dot_version) {
        py__set(out, dot_version, "%s", dot_path);
        return true;
    }
    return false;
}

/* The version a pyenv shim (ROOT/shims/python3, a script) runs, without
 * running it: $PYENV_VERSION's first entry, else ROOT/version, pyenv's
 * global choice, its name (3.12.1) in name[0..size) and pyenv's root in
 * root[0..PATH_MAX).  "system" and names that are not versions say
 * nothing.  A project's .python-version is read before (py__project). */
static bool py__shim_choice(const char *real, char *root, char *name, size_t size)
{
    snprintf(root, PATH_MAX, "%s", real);
    char *slash = strrchr(root, '/');
    if (!slash || slash - root < 6 || strncmp(slash - 6, "/shims", 6) != 0)
        return false;
    slash[-6] = '\0';
    const char *env = getenv("PYENV_VERSION");
    if (env && *env) {
        snprintf(name, size, "%.*s", (int)strcspn(env, ":"), env);
    } else {
        char file[PATH_MAX + 16];
        snprintf(file, sizeof file, "%s/version", root);
        sm_buf text;
        if (sm_read_file(file, PY_FILE_BYTES, &text) != SM_OK)
            return false;
        snprintf(name, size, "%.*s", text.data ? (int)strcspn(text.data, " \t\r\n") : 0,
                 text.data ? text.data : "");
        sm_buf_free(&text);
    }
    return strncmp(name, "3.", 2) == 0 && !strchr(name, '/');
}

static int py__shim_version(const char *real)
{
    char root[PATH_MAX], name[64];
    return py__shim_choice(real, root, name, sizeof name) ? py__first_version(name, NULL) : -1;
}

/* An interpreter's version without running it: pyvenv.cfg beside a
 * virtual environment's bin/, else the name its links resolve to
 * (python3.12), else, for a pyenv shim, the version pyenv chose. */
int py_interpreter_version(const char *interpreter)
{
    char cfg[PATH_MAX + 32];
    snprintf(cfg, sizeof cfg, "%s", interpreter);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(cfg, '/');
        if (!slash)
            break;
        *slash = '\0';
        char file[PATH_MAX + 48];
        snprintf(file, sizeof file, "%s/pyvenv.cfg", cfg);
        sm_buf text;
        if (sm_read_file(file, PY_FILE_BYTES, &text) == SM_OK) {
            const char *line = text.data ? strstr(text.data, "version") : NULL;
            int v = line ? py__first_version(line, NULL) : -1;
            sm_buf_free(&text);
            if (v > 0)
                return v;
        }
    }
    char real[PATH_MAX];
    if (!realpath(interpreter, real))
        return -1;
    const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
    if (strncmp(base, "python3.", 8) == 0)
        return py__first_version(base + 6, NULL);
    return py__shim_version(real);
}

bool py_on_path(char *out, size_t out_size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(out, out_size, "%.*s/python3", (int)len, path);
        if (len && path[0] == '/' && access(out, X_OK) == 0)
            return true;
        path = colon ? colon + 1 : NULL;
    }
    return false;
}

void py_choose_version(const cfg_config *config, const char *dir, lg_version_choice *out)
{
    if (config->python_version) {
        py__set(out, (int)config->python_version, "%s", "the setting python_version");
        return;
    }
    if (py__project(dir, out))
        return;
    int v;
    if (config->python_path && (v = py_interpreter_version(config->python_path)) > 0) {
        py__set(out, v, "the interpreter %s (python_path)", config->python_path);
        return;
    }
    char python[PATH_MAX];
    if (py_on_path(python, sizeof python) && (v = py_interpreter_version(python)) > 0) {
        py__set(out, v, "%s on PATH", python);
        return;
    }
    py__set(out, lg_python.newest_version, "%s", "no project file or interpreter says: the newest seam knows");
}

/* ---- The environment that runs the code --------------------------------- */

/* A virtual environment's root: `dir` holding pyvenv.cfg. */
static bool py__is_venv(const char *dir)
{
    char cfg[PATH_MAX + 16];
    snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", dir);
    return access(cfg, R_OK) == 0;
}

/* pyvenv.cfg's value of `key` ("home", "include-system-site-packages",
 * "version"), trimmed. */
static bool py__cfg_value(const char *root, const char *key, char *out, size_t out_size)
{
    char cfg[PATH_MAX + 16];
    snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", root);
    sm_buf text;
    if (sm_read_file(cfg, PY_FILE_BYTES, &text) != SM_OK)
        return false;
    bool found = false;
    size_t klen = strlen(key);
    for (const char *line = text.data; line && *line && !found;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > klen && strncmp(line, key, klen) == 0) {
            const char *v = line + klen;
            while (v < line + len && (*v == ' ' || *v == '\t'))
                v++;
            if (v < line + len && *v == '=') {
                v++;
                while (v < line + len && (*v == ' ' || *v == '\t'))
                    v++;
                size_t vlen = (size_t)(line + len - v);
                while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == ' '))
                    vlen--;
                snprintf(out, out_size, "%.*s", (int)vlen, v);
                found = true;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    sm_buf_free(&text);
    return found;
}

static void py__add_site(py_env *out, const char *dir)
{
    struct stat st;
    if (out->site_count < PY_ENV_SITES && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(out->sites[out->site_count++], sizeof out->sites[0], "%s", dir);
}

/* Cuts the last `levels` components off path (PREFIX/bin/python3: PREFIX). */
static void py__up(char *path, int levels)
{
    for (int i = 0; i < levels; i++) {
        char *slash = strrchr(path, '/');
        if (slash)
            *slash = '\0';
    }
}

/* An interpreter's folders under its prefix (/usr for /usr/bin/python3):
 * its standard library PREFIX/lib/python3.N, and with `sites` its
 * site-packages (Debian's /usr: pip's dist-packages, then the
 * distribution's). */
static void py__prefix_folders(const char *prefix, int version, bool sites, py_env *out)
{
    char dir[PATH_MAX + 64];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/lib/python3.%d", prefix, version % 100);
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(out->stdlib, sizeof out->stdlib, "%s", dir);
    if (!sites)
        return;
    if (strcmp(prefix, "/usr") == 0) {
        snprintf(dir, sizeof dir, "/usr/local/lib/python3.%d/dist-packages", version % 100);
        py__add_site(out, dir);
        py__add_site(out, "/usr/lib/python3/dist-packages");
        snprintf(dir, sizeof dir, "/usr/lib/python3.%d/dist-packages", version % 100);
        py__add_site(out, dir);
    } else {
        snprintf(dir, sizeof dir, "%s/lib/python3.%d/site-packages", prefix, version % 100);
        py__add_site(out, dir);
    }
}

/* The folders a venv's interpreter reads packages from: its own
 * site-packages and, with include-system-site-packages, its base
 * interpreter's (Debian's dist-packages for /usr/bin). */
static void py__venv_sites(const char *root, int version, py_env *out)
{
    char dir[PATH_MAX + 64], home[PATH_MAX], flag[32];
    snprintf(dir, sizeof dir, "%s/lib/python3.%d/site-packages", root, version % 100);
    py__add_site(out, dir);
    bool system = py__cfg_value(root, "include-system-site-packages", flag, sizeof flag) &&
                  strcmp(flag, "true") == 0;
    if (!py__cfg_value(root, "home", home, sizeof home))
        return;
    /* the base interpreter's prefix: HOME/.. */
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s", home);
    py__up(base, 1);
    py__prefix_folders(base, version, system, out);
}

bool py_env_find(const cfg_config *config, const char *workspace, py_env *out)
{
    memset(out, 0, sizeof *out);
    char root[PATH_MAX] = "";
    const char *why = NULL;
    if (config->python_path) {
        /* ROOT/bin/python */
        char up[PATH_MAX];
        snprintf(up, sizeof up, "%s", config->python_path);
        py__up(up, 2);
        if (py__is_venv(up)) {
            snprintf(root, sizeof root, "%s", up);
            why = "python_path";
        }
        snprintf(out->interpreter, sizeof out->interpreter, "%s", config->python_path);
        out->trusted = true;   /* the user named it */
    }
    const char *active = getenv("VIRTUAL_ENV");
    if (!*root && !config->python_path && active && *active && py__is_venv(active)) {
        snprintf(root, sizeof root, "%s", active);
        why = "VIRTUAL_ENV";
        out->trusted = true;   /* the user's shell activated it */
    }
    static const char *const names[] = {".venv", "venv"};
    for (size_t i = 0; !*root && !config->python_path && workspace && i < 2; i++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", workspace, names[i]);
        if (py__is_venv(dir)) {
            snprintf(root, sizeof root, "%s", dir);
            why = names[i];
            out->trusted = config->workspace_trusted;   /* the project's own: run only when trusted */
        }
    }
    if (!*root)
        return config->python_path != NULL;
    if (!*out->interpreter)
        snprintf(out->interpreter, sizeof out->interpreter, "%s/bin/python", root);
    char version[64];
    int v = py__cfg_value(root, "version", version, sizeof version) ? py__first_version(version, NULL)
                                                                      : py_interpreter_version(out->interpreter);
    if (v > 0)
        py__venv_sites(root, v, out);
    snprintf(out->why, sizeof out->why, "the virtual environment %s (%s%s)", root, why,
             out->trusted ? "" : "; the workspace is not trusted: read, never run");
    return true;
}

/* The user site folder of Python 3.N: $PYTHONUSERBASE, else ~/.local, then
 * lib/python3.N/site-packages, as site.py makes it on POSIX. */
static void py__user_site(int version, py_env *out)
{
    const char *base = getenv("PYTHONUSERBASE");
    const char *home = getenv("HOME");
    char dir[PATH_MAX + 64];
    if (base && *base == '/')
        snprintf(dir, sizeof dir, "%s/lib/python3.%d/site-packages", base, version % 100);
    else if (home && *home == '/')
        snprintf(dir, sizeof dir, "%s/.local/lib/python3.%d/site-packages", home, version % 100);
    else
        return;
    py__add_site(out, dir);
}

bool py_env_from_path(py_env *out)
{
    memset(out, 0, sizeof *out);
    char python[PATH_MAX], real[PATH_MAX];
    int v;
    if (!py_on_path(python, sizeof python) || (v = py_interpreter_version(python)) <= 0)
        return false;
    snprintf(out->interpreter, sizeof out->interpreter, "%s", python);
    out->trusted = true;   /* the user's own, on the user's PATH */
    /* PREFIX/bin/python3 of a virtual environment put on PATH */
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", python);
    py__up(root, 2);
    if (py__is_venv(root)) {
        py__venv_sites(root, v, out);
        snprintf(out->why, sizeof out->why, "%.2000s on PATH (the virtual environment %.2000s)", python, root);
        return true;
    }
    /* else the prefix the real file sits in, PREFIX/bin/python3.N, or the
     * one a pyenv shim runs, ROOT/versions/NAME */
    if (!realpath(python, real))
        return false;
    char prefix[PATH_MAX], pyenv[PATH_MAX], name[64];
    if (py__shim_choice(real, pyenv, name, sizeof name)) {
        snprintf(prefix, sizeof prefix, "%.3000s/versions/%s", pyenv, name);
        /* the interpreter it runs, not the shell script (asker.c's child
         * has no PATH to find pyenv with) */
        char bin[PATH_MAX + 32];
        snprintf(bin, sizeof bin, "%s/bin/python3", prefix);
        if (access(bin, X_OK) != 0 || !realpath(bin, real))
            return false;
        snprintf(out->interpreter, sizeof out->interpreter, "%s", real);
    } else {
        snprintf(prefix, sizeof prefix, "%s", real);
        py__up(prefix, 2);
    }
    py__user_site(v, out);   /* before the system's, as Python reads them */
    py__prefix_folders(prefix, v, true, out);
    snprintf(out->why, sizeof out->why, "%.2000s on PATH (%.2000s)", python, real);
    return true;
}

/* ---- The standard library ------------------------------------------------ */

/* The standard library of the machine's Python 3, found without running it:
 * $SEAM_PYTHON_STDLIB, else the newest of the usual places. */
bool py_find_stdlib(char *out, size_t size)
{
    const char *env = getenv("SEAM_PYTHON_STDLIB");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return true;
    }
    const char *home = getenv("HOME");
    char pyenv[1024];
    snprintf(pyenv, sizeof pyenv, "%s/.pyenv/versions/*/lib/python3.*/os.py", home ? home : "/root");
    const char *patterns[] = {pyenv, "/usr/lib/python3.*/os.py", "/usr/local/lib/python3.*/os.py"};
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
        glob_t g;
        if (glob(patterns[i], 0, NULL, &g) != 0)
            continue;
        bool found = g.gl_pathc > 0;
        if (found) {
            /* the newest by version, not by name (3.13 after 3.9) */
            const char *best = NULL;
            long best_minor = -1;
            for (size_t k = 0; k < g.gl_pathc; k++) {
                const char *v = strstr(g.gl_pathv[k], "/python3.");
                long minor = v ? strtol(v + 9, NULL, 10) : -1;
                if (minor > best_minor) {
                    best_minor = minor;
                    best = g.gl_pathv[k];
                }
            }
            best = best ? best : g.gl_pathv[g.gl_pathc - 1];
            snprintf(out, size, "%.*s", (int)(strlen(best) - 6), best);
        }
        globfree(&g);
        if (found)
            return true;
    }
    return false;
}
