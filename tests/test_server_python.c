/* Which Python a project's code is for (server/pyversion.c). */
#include "seam_server.h"
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
    cr_assert_eq(srv_python_lower_bound(">=3.12"), 312);
    cr_assert_eq(srv_python_lower_bound(">= 3.10, <4"), 310);
    cr_assert_eq(srv_python_lower_bound("<4,>=3.9"), 309);
    cr_assert_eq(srv_python_lower_bound("~=3.11"), 311);
    cr_assert_eq(srv_python_lower_bound("==3.13.*"), 313);
    cr_assert_eq(srv_python_lower_bound(">3.10"), 311, "3.10 itself excluded");
    cr_assert_eq(srv_python_lower_bound(">3.10.2"), 310, "a later 3.10 still counts");
    cr_assert_eq(srv_python_lower_bound(">=3.8,>=3.11"), 311, "the tighter bound");
    cr_assert_eq(srv_python_lower_bound("<3.13"), -1, "no lower bound");
    cr_assert_eq(srv_python_lower_bound(""), -1);
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
    srv_python_choice choice;
    srv_python_choose(&config, sub, &choice);
    cr_assert_eq(choice.version, 312, "[project]'s requires-python, not another table's: %s", choice.why);
    cr_assert(strstr(choice.why, "pyproject.toml"), "%s", choice.why);

    /* a .python-version nearer than a pyproject.toml without a bound */
    snprintf(path, sizeof path, "%s/pyproject.toml", root);
    write_text(path, "[project]\nname = \"x\"\n");
    snprintf(path, sizeof path, "%s/pkg/.python-version", root);
    write_text(path, "3.10.4\n");
    srv_python_choose(&config, sub, &choice);
    cr_assert_eq(choice.version, 310, "%s", choice.why);
    cr_assert(strstr(choice.why, ".python-version"), "%s", choice.why);

    /* too old for seam: the oldest it knows, said */
    write_text(path, "3.7\n");
    srv_python_choose(&config, sub, &choice);
    cr_assert_eq(choice.version, 309);
    cr_assert(strstr(choice.why, "nearest version seam knows"), "%s", choice.why);

    /* the setting wins over the project */
    config.python_version = 314;
    srv_python_choose(&config, sub, &choice);
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
    cr_assert_eq(srv_python_interpreter_version(path), 313);
    cfg_config config;
    cfg_init(&config);
    config.python_path = strdup(path);
    srv_python_choice choice;
    srv_python_choose(&config, root, &choice);   /* no project file in root or above */
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
    cr_assert_eq(srv_python_interpreter_version(link), 310);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, other);
    free(other);
    cr_assert_eq(system(cmd), 0);
    free(root);
}
