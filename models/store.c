/*
 * store.c - the models folder and the GGUF files in it.
 */
#include "seam_models.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int md_models_dir(char *out, size_t out_size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg)
        n = snprintf(out, out_size, "%s/seam/models", xdg);
    else if (home && *home)
        n = snprintf(out, out_size, "%s/.cache/seam/models", home);
    else
        return SM_ENOTFOUND;
    return n < 0 || (size_t)n >= out_size ? SM_ETOOBIG : SM_OK;
}

/* The folder's *.gguf paths, sorted (glob sorts). */
static int md__glob(glob_t *found)
{
    char dir[4096], pattern[4200];
    int rc = md_models_dir(dir, sizeof dir);
    if (rc != SM_OK)
        return rc;
    snprintf(pattern, sizeof pattern, "%s/*.gguf", dir);
    int g = glob(pattern, 0, NULL, found);
    if (g == GLOB_NOMATCH) {
        found->gl_pathc = 0;
        return SM_OK;
    }
    return g == 0 ? SM_OK : SM_EIO;
}

char *md_first_model(void)
{
    glob_t found = {0};
    char *path = NULL;
    if (md__glob(&found) == SM_OK && found.gl_pathc > 0)
        path = sm_strdup(found.gl_pathv[0]);
    globfree(&found);
    return path;
}

int md_present_list(md_present **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    glob_t found = {0};
    int rc = md__glob(&found);
    if (rc != SM_OK) {
        globfree(&found);
        return rc == SM_ENOTFOUND ? SM_OK : rc;
    }
    md_present *list = found.gl_pathc ? sm_calloc(found.gl_pathc, sizeof *list) : NULL;
    size_t n = 0;
    for (size_t i = 0; i < found.gl_pathc; i++) {
        struct stat st;
        if (stat(found.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        const char *slash = strrchr(found.gl_pathv[i], '/');
        list[n].path = sm_strdup(found.gl_pathv[i]);
        list[n].name = sm_strdup(slash ? slash + 1 : found.gl_pathv[i]);
        list[n].bytes = (uint64_t)st.st_size;
        n++;
    }
    globfree(&found);
    *out = list;
    *count = n;
    return SM_OK;
}

void md_present_free(md_present *list, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        sm_free(list[i].name);
        sm_free(list[i].path);
    }
    sm_free(list);
}
