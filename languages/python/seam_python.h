/*
 * seam_python.h - Python's own part of the languages module (py_): which
 * Python a project's code is for, and the environment that runs it, found
 * without running anything (environment.c).  The registry's row (python.c)
 * and the semantic pruners' environment (languages/python/semantic/) use
 * it; the rest of seam asks the row.
 */
#ifndef SEAM_PYTHON_H
#define SEAM_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "seam_config.h"
#include "seam_languages.h"

/* config->python_version, or for auto what the project in `dir` (or its
 * parents) states, else the interpreter's version, else the newest: the
 * row's choose_version. */
void py_choose_version(const cfg_config *config, const char *dir, lg_version_choice *out);
/* The lower bound of a requires-python specifier set, or -1. */
int py_lower_bound(const char *spec);
/* An interpreter's version from its venv's pyvenv.cfg or its link's name,
 * without running it, or -1. */
int py_interpreter_version(const char *interpreter);

/* The Python environment that runs the user's code, for the semantic
 * pruners: python_path, else the active $VIRTUAL_ENV, else a .venv or venv
 * folder in the workspace; read from its pyvenv.cfg, nothing run. */
#define PY_ENV_SITES 4
typedef struct py_env {
    char interpreter[4200];                  /* asked for compiled modules */
    char stdlib[4200];                       /* its base's standard library, or "" */
    char sites[PY_ENV_SITES][4200];          /* its site-packages folders */
    unsigned site_count;
    char why[4200];
    /* its interpreter and packages may be run: the user named it
     * (python_path, $VIRTUAL_ENV), or it is the workspace's and the user
     * trusts the workspace (workspace_trusted) */
    bool trusted;
} py_env;
/* False when there is none (python3 and the machine's standard library
 * serve, as before).  Nothing found is run. */
bool py_env_find(const cfg_config *config, const char *workspace, py_env *out);
/* With no such environment, the one of the first python3 on PATH, also
 * found without running it: its prefix's standard library, the user site
 * folder, then its site-packages (Debian's dist-packages for /usr); a
 * virtual environment's bin/ on PATH is read as that environment.
 * Trusted: the user's own interpreter.  False when there is none. */
bool py_env_from_path(py_env *out);
/* The first python3 on PATH, in a folder named by an absolute path
 * (relative entries, "." among them, are the current folder's: skipped). */
bool py_on_path(char *out, size_t out_size);
/* Where the machine's Python standard library is ($SEAM_PYTHON_STDLIB
 * first, else the newest of the usual places); false when none is found. */
bool py_find_stdlib(char *out, size_t size);

#endif
