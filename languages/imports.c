/*
 * imports.c - what the languages' import readers share: a candidate path
 * checked against the file system (a regular file inside the workspace,
 * links resolved, each given once).
 */
#include "lg_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void lg_imports_begin(lg_imports *im, const char *root, lg_import_cb found, void *data)
{
    memset(im, 0, sizeof *im);
    im->found = found;
    im->data = data;
    char real[PATH_MAX];
    im->root = realpath(root, real) ? sm_strdup(real) : NULL;
}

void lg_imports_end(lg_imports *im)
{
    for (uint32_t i = 0; i < im->seen.size; i++)
        sm_free(im->seen.items[i]);
    sm_array_free(&im->seen);
    sm_free(im->root);
    im->root = NULL;
}

bool lg_imports_try(lg_imports *im, const char *path)
{
    struct stat st;
    char real[PATH_MAX];
    if (!im->root || im->seen.size >= LG_IMPORTS_MAX || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        !realpath(path, real))
        return false;
    size_t root_len = strlen(im->root);
    if (strncmp(real, im->root, root_len) != 0 || real[root_len] != '/')
        return false;   /* outside the workspace: not the project's */
    for (uint32_t i = 0; i < im->seen.size; i++)
        if (strcmp(im->seen.items[i], real) == 0)
            return true;
    sm_array_push(&im->seen, sm_strdup(real));
    im->found(im->data, real);
    return true;
}
