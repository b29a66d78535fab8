/* Which Python a project's code is for (server/pyversion.c). */
#include "seam_server.h"
#include "seam_python.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static char *scratch(void)
{
    char *dir = strdup("/tmp/seam-pyversion-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

Test(python_version, lower_bounds_of_requires_python)
{
    cr_assert_eq(py_lower_bound(">=3.12"), 312);
    cr_assert_eq(py_lower_bound(">= 3.10, <4"), 310);
    cr_assert_eq(py_lower_bound("<4,>=3.9"), 309);
    cr_assert_eq(py_lower_bound("~=3.11"), 311);
    cr_assert_eq(py_lower_bound("==3.13.*"), 313);
    cr_assert_eq(py_lower_bound(">3.10"), 311, "3.10 itself excluded");
    cr_assert_eq(py_lower_bound(">3.10.2"), 310, "a later 3.10 still counts");
    cr_assert_eq(py_lower_bound(">=3.8,>=3.11"), 311, "the tighter bound");
    cr_assert_eq(py_lower_bound("<3.13"), -1, "no lower bound");
    cr_assert_eq(py_lower_bound(""), -1);
}

Test(python_version, the_nearest_project_file_decides)
{
    char *root = scratch();
    char path[512], sub[512];
    snprintf(sub, sizeof sub, "%s/pkg/inner", root);
    snprintf(path, sizeof path, "%s/pkg", root);
    cr_assert_eq(mkdir(path, 0755), 0);
    cr_assert_eq(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/pyproject.toml", root);
    write_text(path, "[tool.black]\nrequires-python = \">=3.9\"\n\n[project]\nname = \"x\"\n"
                     "requires-python = \">=3.12,<4\"\n");
    cfg_config config;
    cfg_init(&config);
    lg_version_choice choice;
    py_choose_version(&config, sub, &choice);
    cr_assert_eq(choice.version, 312, "[project]'s requires-python, not another table's: %s", choice.why);
    cr_assert(strstr(choice.why, "pyproject.toml"), "%s", choice.why);

    /* a .python-version nearer than a pyproject.toml without a bound */
    snprintf(path, sizeof path, "%s/pyproject.toml", root);
    write_text(path, "[project]\nname = \"x\"\n");
    snprintf(path, sizeof path, "%s/pkg/.python-version", root);
    write_text(path, "3.10.4\n");
    py_choose_version(&config, sub, &choice);
    cr_assert_eq(choice.version, 310, "%s", choice.why);
    cr_assert(strstr(choice.why, ".python-version"), "%s", choice.why);

    /* too old for seam: the oldest it knows, said */
    write_text(path, "3.7\n");
    py_choose_version(&config, sub, &choice);
    cr_assert_eq(choice.version, 309);
    cr_assert(strstr(choice.why, "nearest version seam knows"), "%s", choice.why);

    /* the setting wins over the project */
    config.python_version = 314;
    py_choose_version(&config, sub, &choice);
    cr_assert_eq(choice.version, 314);
    cr_assert(strstr(choice.why, "setting"), "%s", choice.why);
    cfg_free(&config);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
    free(root);
}

Test(python_version, the_interpreter_of_a_virtual_environment)
{
    char *root = scratch();
    char path[512];
    snprintf(path, sizeof path, "%s/bin", root);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/pyvenv.cfg", root);
    write_text(path, "home = /usr/local/bin\ninclude-system-site-packages = false\nversion = 3.13.1\n");
    snprintf(path, sizeof path, "%s/bin/python", root);
    write_text(path, "");
    cr_assert_eq(py_interpreter_version(path), 313);
    cfg_config config;
    cfg_init(&config);
    config.python_path = strdup(path);
    lg_version_choice choice;
    py_choose_version(&config, root, &choice);   /* no project file in root or above */
    cr_assert_eq(choice.version, 313, "%s", choice.why);
    cr_assert(strstr(choice.why, "python_path"), "%s", choice.why);
    cfg_free(&config);
    /* a link named python3.N, with no environment around it */
    char *other = scratch();
    char link[512];
    snprintf(path, sizeof path, "%s/a", other);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(link, sizeof link, "%s/a/py", other);
    snprintf(path, sizeof path, "%s/a/python3.10", other);
    write_text(path, "");
    cr_assert_eq(symlink(path, link), 0);
    cr_assert_eq(py_interpreter_version(link), 310);
    /* a pyenv shim (a script): the version pyenv chose */
    snprintf(path, sizeof path, "%s/shims", other);
    cr_assert_eq(mkdir(path, 0755), 0);
    char shim[512];
    snprintf(shim, sizeof shim, "%s/shims/python3", other);
    write_text(shim, "#!/usr/bin/env bash\nexec pyenv exec python3 \"$@\"\n");
    snprintf(path, sizeof path, "%s/version", other);
    write_text(path, "3.12.4\n");
    unsetenv("PYENV_VERSION");
    cr_assert_eq(py_interpreter_version(shim), 312);
    setenv("PYENV_VERSION", "3.10.2:3.12.4", 1);
    cr_assert_eq(py_interpreter_version(shim), 310);
    setenv("PYENV_VERSION", "system", 1);
    cr_assert_eq(py_interpreter_version(shim), -1, "pyenv's system Python: not told");
    unsetenv("PYENV_VERSION");
    write_text(path, "system\n");
    cr_assert_eq(py_interpreter_version(shim), -1);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, other);
    free(other);
    cr_assert_eq(system(cmd), 0);
    free(root);
}

Test(python_env, a_workspace_venv_and_its_packages)
{
    char *root = scratch();
    char path[1024], site[1024];
    snprintf(path, sizeof path, "%s/.venv/lib/python3.11/site-packages", root);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s/.venv/bin'", path, root);
    cr_assert_eq(system(cmd), 0);
    snprintf(site, sizeof site, "%s", path);
    snprintf(path, sizeof path, "%s/.venv/pyvenv.cfg", root);
    write_text(path, "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
    cfg_config config;
    cfg_init(&config);
    unsetenv("VIRTUAL_ENV");
    py_env *env = calloc(1, sizeof *env);
    cr_assert(py_env_find(&config, root, env));
    snprintf(path, sizeof path, "%s/.venv/bin/python", root);
    cr_assert_str_eq(env->interpreter, path);
    cr_assert_eq(env->site_count, 1);
    cr_assert_str_eq(env->sites[0], site);
    cr_assert(strstr(env->why, ".venv"), "%s", env->why);

    /* with the system's packages: Debian's dist-packages after its own */
    snprintf(path, sizeof path, "%s/.venv/pyvenv.cfg", root);
    write_text(path, "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.11.2\n");
    cr_assert(py_env_find(&config, root, env));
    cr_assert_str_eq(env->sites[0], site);
    bool dist = false;
    for (unsigned i = 1; i < env->site_count; i++)
        dist |= strcmp(env->sites[i], "/usr/lib/python3/dist-packages") == 0;
    struct stat st;
    cr_assert_eq(dist, stat("/usr/lib/python3/dist-packages", &st) == 0, "Debian's dist-packages when it exists");

    /* $VIRTUAL_ENV comes before the workspace's folder */
    char *other = scratch();
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/lib/python3.12/site-packages'", other);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/pyvenv.cfg", other);
    write_text(path, "home = /opt/py/bin\nversion = 3.12.1\n");
    setenv("VIRTUAL_ENV", other, 1);
    cr_assert(py_env_find(&config, root, env));
    snprintf(path, sizeof path, "%s/bin/python", other);
    cr_assert_str_eq(env->interpreter, path);
    cr_assert(strstr(env->sites[0], "python3.12/site-packages"), "%s", env->sites[0]);
    unsetenv("VIRTUAL_ENV");

    /* none: the machine's python3 serves */
    char *empty = scratch();
    cr_assert_not(py_env_find(&config, empty, env));
    free(env);
    cfg_free(&config);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", root, other, empty);
    cr_assert_eq(system(cmd), 0);
    free(root);
    free(other);
    free(empty);
}

/* Runs py_env_from_path with PATH and HOME set to the given
 * folders (restored afterwards). */
static bool env_from_path(const char *path, const char *home, py_env *env)
{
    char *saved_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("PATH", path, 1);
    setenv("HOME", home, 1);
    unsetenv("PYTHONUSERBASE");
    unsetenv("PYENV_VERSION");
    bool found = py_env_from_path(env);
    if (saved_path)
        setenv("PATH", saved_path, 1);
    if (saved_home)
        setenv("HOME", saved_home, 1);
    free(saved_path);
    free(saved_home);
    return found;
}

Test(python_env, the_python3_on_path_without_a_virtual_environment)
{
    char *root = scratch();
    char cmd[2400], path[2100], home[1024], site[1024], user[1024], lib[1024];
    /* PREFIX/bin/python3 -> python3.12, its library and site-packages, and
     * the user site folder under HOME */
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/prefix/bin' '%s/prefix/lib/python3.12/site-packages' "
             "'%s/home/.local/lib/python3.12/site-packages' '%s/empty' && "
             "printf '' > '%s/prefix/bin/python3.12' && chmod +x '%s/prefix/bin/python3.12' && "
             "ln -s python3.12 '%s/prefix/bin/python3'",
             root, root, root, root, root, root, root);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/empty:relative:%s/prefix/bin", root, root);
    snprintf(home, sizeof home, "%s/home", root);
    py_env *env = calloc(1, sizeof *env);
    cr_assert(env_from_path(path, home, env));
    char real[512];
    cr_assert_not_null(realpath(root, real));
    snprintf(site, sizeof site, "%s/prefix/lib/python3.12/site-packages", real);
    snprintf(user, sizeof user, "%s/home/.local/lib/python3.12/site-packages", root);
    snprintf(lib, sizeof lib, "%s/prefix/lib/python3.12", real);
    cr_assert(env->trusted, "the user's own interpreter");
    cr_assert_eq(env->site_count, 2, "%u", env->site_count);
    cr_assert_str_eq(env->sites[0], user, "the user site first, as Python reads it");
    cr_assert_str_eq(env->sites[1], site);
    cr_assert_str_eq(env->stdlib, lib);
    cr_assert(strstr(env->why, "on PATH"), "%s", env->why);

    /* a virtual environment's bin/ on PATH is read as that environment */
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/venv/bin' '%s/venv/lib/python3.12/site-packages' && "
             "printf 'home = /opt/none/bin\\nversion = 3.12.4\\n' > '%s/venv/pyvenv.cfg' && "
             "printf '' > '%s/venv/bin/python3' && chmod +x '%s/venv/bin/python3'",
             root, root, root, root, root);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/venv/bin:%s/prefix/bin", root, root);
    cr_assert(env_from_path(path, home, env));
    snprintf(site, sizeof site, "%s/venv/lib/python3.12/site-packages", root);
    cr_assert_eq(env->site_count, 1);
    cr_assert_str_eq(env->sites[0], site);
    cr_assert(strstr(env->why, "virtual environment"), "%s", env->why);

    /* no python3 on PATH: none */
    snprintf(path, sizeof path, "%s/empty", root);
    cr_assert_not(env_from_path(path, home, env));
    free(env);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
    free(root);
}
