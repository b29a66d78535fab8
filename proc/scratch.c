/*
 * scratch.c - the empty folder a child runs in, and its removal with
 * whatever the child left there.
 */
#define _XOPEN_SOURCE 700
#include "proc_internal.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

bool pr__scratch_make(char *out, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    int n = snprintf(out, size, "%s/seam-child-XXXXXX", tmp);
    if (n < 0 || (size_t)n >= size)
        return false;
    return mkdtemp(out) != NULL;
}

/* A child may leave a folder it took the permissions off: each folder is
 * made the owner's again before its entries are removed. */
static int pr__open_up(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (type == FTW_D || type == FTW_DNR)
        chmod(path, 0700);
    return 0;
}

static int pr__remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (type == FTW_DP || type == FTW_D || type == FTW_DNR)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void pr__scratch_remove(const char *path)
{
    if (!path || !*path)
        return;
    nftw(path, pr__open_up, 16, FTW_PHYS | FTW_MOUNT);
    nftw(path, pr__remove_one, 16, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
}
