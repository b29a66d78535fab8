/*
 * proc_internal.h - what run.c asks of scratch.c.
 */
#ifndef PROC_INTERNAL_H
#define PROC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* Makes a fresh, empty folder only the caller's user may enter (0700),
 * under $TMPDIR or /tmp, and writes its path into out.  Returns false when
 * none could be made. */
bool pr__scratch_make(char *out, size_t size);

/* Removes the folder at `path` with everything in it, following no
 * symbolic link and crossing no mount point. */
void pr__scratch_remove(const char *path);

#endif
