/*
 * project.c - the semantic pruners' environment for a project: the Python
 * that runs its code (languages/python/environment.c finds it without
 * running it), its standard library and package folders, and the cache.
 */
#include "seam_semantic.h"
#include "seam_python.h"
#include "seam_cache.h"

#include <stdio.h>
#include <stdlib.h>

sx_env *sx_env_for_project(const cfg_config *config, const char *workspace, sm_logger *logger, char *why,
                           size_t why_size)
{
    py_env *py = sm_calloc(1, sizeof *py);
    bool venv = py_env_find(config, workspace, py);
    bool found = venv || py_env_from_path(py);
    /* the interpreter asked about compiled modules: the environment's when
     * it may be run, else the user's own python3 (the standard library's
     * compiled modules only) */
    char path_python[4096];
    const char *python = NULL;
    if (found && py->trusted)
        python = py->interpreter;
    else if (py_on_path(path_python, sizeof path_python))
        python = path_python;
    /* a virtual environment's base library; python3's unless one is named */
    char stdlib[4096];
    bool named = getenv("SEAM_PYTHON_STDLIB") && *getenv("SEAM_PYTHON_STDLIB");
    const char *library = NULL;
    if (found && py->stdlib[0] && (venv || !named))
        library = py->stdlib;
    else if (py_find_stdlib(stdlib, sizeof stdlib))
        library = stdlib;
    sx_env *env = sx_env_new(library, workspace, python);
    char said[4400];
    if (found) {
        for (unsigned i = 0; i < py->site_count; i++)
            sx_env_add_site(env, py->sites[i], py->trusted);
        snprintf(said, sizeof said, "%s: %u package folders", py->why[0] ? py->why : py->interpreter,
                 py->site_count);
    } else {
        snprintf(said, sizeof said, "no Python found: the standard library %s only", library ? library : "(none)");
    }
    char cache[4096];
    if (config->disk_cache && ca_dir(cache, sizeof cache) == SM_OK)
        sx_env_set_cache(env, cache);
    if (logger)
        sm_log(logger, SM_LOG_INFO, "the semantic pruners read %s", said);
    if (why)
        snprintf(why, why_size, "%s", said);
    sm_free(py);
    return env;
}

