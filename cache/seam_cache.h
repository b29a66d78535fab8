/*
 * seam_cache.h - files that make a second run quick, kept in the user's
 * cache folder (ca_).
 *
 * An entry is bytes under a kind ("model", "answers") and a key: a hash
 * of everything it was made from, so that a changed input names another
 * entry and a stale one is never read.  Each entry is one file, written
 * whole under a temporary name and renamed into place, so that two seam
 * processes writing the same entry at once each leave a whole file (the
 * last rename wins) and a reader sees an old whole file or a new one.
 * Its header holds a magic, the format, the payload's length and its
 * hash: a file cut short or damaged is removed and reported as missing,
 * so that the caller makes the entry again rather than trusting it.  Only
 * the newest few entries of a kind are kept.  No global state; any thread.
 */
#ifndef SEAM_CACHE_H
#define SEAM_CACHE_H

#include "seam_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A running hash of what an entry is made from (64-bit FNV-1a twice,
 * seeded apart: 128 bits, enough that unrelated inputs never meet). */
typedef struct ca_key {
    uint64_t a, b;
} ca_key;

void ca_key_init(ca_key *key);
void ca_key_add(ca_key *key, const void *bytes, size_t len);
void ca_key_add_str(ca_key *key, const char *s);   /* with its terminating NUL, so "ab","c" != "a","bc" */
void ca_key_add_u64(ca_key *key, uint64_t value);
/* Adds what stat() says of a file or folder that changes when it does:
 * device, inode, size and modification time; a path that cannot be
 * stat'ed adds a mark of its own.  Returns whether it could be. */
bool ca_key_add_stat(ca_key *key, const char *path);

/* The cache folder: $SEAM_CACHE_DIR, else $XDG_CACHE_HOME/seam/runs, else
 * $HOME/.cache/seam/runs (absolute paths only; beside the models folder),
 * made (mode 0700) if missing.
 * Writes it into out[0..size); SM_ENOTFOUND when there is none to use. */
int ca_dir(char *out, size_t size);

/* Reads the entry `kind` (a short name of [a-z_]) and `key` in folder
 * `dir` into *out (initialised here; free with sm_buf_free), at most
 * `max` bytes of payload.  SM_ENOTFOUND when there is none, or it was
 * damaged or cut short (then removed). */
int ca_get(const char *dir, const char *kind, const ca_key *key, size_t max, sm_buf *out);

/* Writes data[0..len) as the entry `kind`, `key` in `dir`, then removes
 * the entries of that kind past the `keep` most recently written or read. */
int ca_put(const char *dir, const char *kind, const ca_key *key, const void *data, size_t len, uint32_t keep);

#endif
