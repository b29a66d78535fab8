/*
 * cache.c - entries of the user's cache folder: written whole and renamed
 * into place, checked whole when read (seam_cache.h).
 */
#include "seam_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CA__MAGIC "SEAMCACH"
enum { CA__FORMAT = 1, CA__HEADER = 32, CA__MAX_ENTRIES = 256 };

static const uint64_t CA__PRIME = 1099511628211ull;

void ca_key_init(ca_key *key)
{
    key->a = 14695981039346656037ull;
    key->b = 0x9e3779b97f4a7c15ull;
}

void ca_key_add(ca_key *key, const void *bytes, size_t len)
{
    const uint8_t *p = bytes;
    for (size_t i = 0; i < len; i++) {
        key->a = (key->a ^ p[i]) * CA__PRIME;
        key->b = (key->b ^ (uint8_t)(p[i] + 0x5b)) * CA__PRIME;
    }
}

void ca_key_add_str(ca_key *key, const char *s)
{
    ca_key_add(key, s ? s : "", s ? strlen(s) + 1 : 1);
}

void ca_key_add_u64(ca_key *key, uint64_t value)
{
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (uint8_t)(value >> (8 * i));
    ca_key_add(key, bytes, sizeof bytes);
}

bool ca_key_add_stat(ca_key *key, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        ca_key_add_str(key, "(none)");
        return false;
    }
    ca_key_add_u64(key, (uint64_t)st.st_dev);
    ca_key_add_u64(key, (uint64_t)st.st_ino);
    ca_key_add_u64(key, (uint64_t)st.st_size);
    ca_key_add_u64(key, (uint64_t)st.st_mtim.tv_sec);
    ca_key_add_u64(key, (uint64_t)st.st_mtim.tv_nsec);
    return true;
}

/* The payload's hash, as stored in an entry's header: eight bytes at a
 * time, since a saved model is tens of megabytes (a damaged byte changes
 * it; it does not have to resist anyone). */
static uint64_t ca__checksum(const void *data, size_t len)
{
    const uint8_t *p = data;
    /* four lanes, so that the multiplications overlap */
    uint64_t lane[4] = {0x84222325cbf29ce4ull ^ len, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                        0x165667b19e3779f9ull};
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * k, 8);
            lane[k] = (lane[k] ^ w) * 0x9fb21c651e98df25ull;
            lane[k] ^= lane[k] >> 31;
        }
    }
    uint64_t h = lane[0] ^ (lane[1] * 3) ^ (lane[2] * 5) ^ (lane[3] * 7);
    for (; i < len; i++)
        h = (h ^ p[i]) * CA__PRIME;
    return h ^ (h >> 29);
}

/* Makes `path` a folder of the user's (mode 0700) when it is missing. */
static bool ca__make_dir(const char *path)
{
    char partial[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof partial || path[0] != '/')
        return false;
    memcpy(partial, path, len + 1);
    for (char *p = partial + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(partial, 0700) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    if (mkdir(partial, 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return stat(partial, &st) == 0 && S_ISDIR(st.st_mode);
}

int ca_dir(char *out, size_t size)
{
    const char *own = getenv("SEAM_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (own && own[0] == '/')
        n = snprintf(out, size, "%s", own);
    else if (xdg && xdg[0] == '/')
        n = snprintf(out, size, "%s/seam/runs", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, size, "%s/.cache/seam/runs", home);
    else
        return SM_ENOTFOUND;
    if (n < 0 || (size_t)n >= size || !ca__make_dir(out))
        return SM_ENOTFOUND;
    return SM_OK;
}

/* The entry's file name: KIND-KEY, KEY in 32 hex digits. */
static bool ca__path(const char *dir, const char *kind, const ca_key *key, char *out, size_t size)
{
    for (const char *c = kind; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || *c == '_'))
            return false;
    int n = snprintf(out, size, "%s/%s-%016llx%016llx", dir, kind, (unsigned long long)key->a,
                     (unsigned long long)key->b);
    return n > 0 && (size_t)n < size && kind[0];
}

/* Reads all of bytes[0..len) from fd, or with `writing` writes them to it,
 * again after a signal cuts it short; false at an error or the file's end. */
static bool ca__whole(int fd, void *bytes, size_t len, bool writing)
{
    char *p = bytes;
    while (len > 0) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Reads an entry's file: its header into header[], its payload (at most
 * `max` bytes) straight into *out.  False when it is not a regular file
 * of that shape. */
static bool ca__read(const char *path, size_t max, uint8_t header[CA__HEADER], sm_buf *out)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= CA__HEADER &&
              (uint64_t)st.st_size - CA__HEADER <= max;
    size_t len = ok ? (size_t)st.st_size - CA__HEADER : 0;
    char *data = ok ? sm_try_malloc(len + 1) : NULL;
    ok = data != NULL;
    sm_advise_filled(data, len + 1);
    ok = ok && ca__whole(fd, header, CA__HEADER, false) && ca__whole(fd, data, len, false);
    close(fd);
    if (!ok) {
        sm_free(data);
        return false;
    }
    data[len] = '\0';
    out->data = data;
    out->len = len;
    out->cap = len + 1;
    out->max = max;
    return true;
}

int ca_get(const char *dir, const char *kind, const ca_key *key, size_t max, sm_buf *out)
{
    sm_buf_init(out, max);
    char path[4200];
    if (!dir || !ca__path(dir, kind, key, path, sizeof path))
        return SM_ENOTFOUND;
    uint8_t header[CA__HEADER];
    sm_buf payload;
    sm_buf_init(&payload, max);
    if (access(path, F_OK) != 0)
        return SM_ENOTFOUND;
    bool whole = ca__read(path, max, header, &payload);
    sm_reader fields;
    sm_reader_init(&fields, header, sizeof header);
    const void *magic = sm_read_bytes(&fields, 8);
    whole = whole && memcmp(magic, CA__MAGIC, 8) == 0 && sm_read_u64(&fields) == CA__FORMAT &&
            sm_read_u64(&fields) == payload.len && sm_read_u64(&fields) == ca__checksum(payload.data, payload.len);
    if (!whole) {
        sm_buf_free(&payload);
        unlink(path);       /* damaged, cut short or not ours: made again by the caller */
        return SM_ENOTFOUND;
    }
    *out = payload;
    /* used now: the newest are the ones kept (ca__prune) */
    utimensat(AT_FDCWD, path, NULL, 0);
    return SM_OK;
}

typedef struct ca__entry {
    char name[256];
    struct timespec written;
} ca__entry;

static int ca__newer_first(const void *x, const void *y)
{
    const ca__entry *a = x, *b = y;
    if (a->written.tv_sec != b->written.tv_sec)
        return a->written.tv_sec < b->written.tv_sec ? 1 : -1;
    if (a->written.tv_nsec != b->written.tv_nsec)
        return a->written.tv_nsec < b->written.tv_nsec ? 1 : -1;
    return strcmp(a->name, b->name);
}

/* Removes the entries of `kind` past the `keep` newest, and temporary
 * files of that kind left by a process that died writing them (an hour
 * old). */
static void ca__prune(const char *dir, const char *kind, uint32_t keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    ca__entry *entries = sm_calloc(CA__MAX_ENTRIES, sizeof *entries);
    size_t count = 0, kind_len = strlen(kind);
    char path[4600];
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, kind, kind_len) != 0 || e->d_name[kind_len] != '-' || strlen(e->d_name) >= 256)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (strstr(e->d_name, ".tmp.")) {
            if (now - st.st_mtim.tv_sec > 3600)
                unlink(path);
            continue;
        }
        if (count < CA__MAX_ENTRIES) {
            snprintf(entries[count].name, sizeof entries[count].name, "%s", e->d_name);
            entries[count++].written = st.st_mtim;
        }
    }
    closedir(d);
    qsort(entries, count, sizeof *entries, ca__newer_first);
    for (size_t i = keep; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, entries[i].name);
        unlink(path);
    }
    sm_free(entries);
}

int ca_put(const char *dir, const char *kind, const ca_key *key, const void *data, size_t len, uint32_t keep)
{
    char path[4200], temp[4300];
    if (!dir || !ca__path(dir, kind, key, path, sizeof path))
        return SM_EINVAL;
    /* a name no other writer uses: this process, this moment */
    snprintf(temp, sizeof temp, "%s.tmp.%ld.%llx", path, (long)getpid(), (unsigned long long)sm_now_ns());
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return SM_EIO;
    sm_buf header;
    sm_buf_init(&header, CA__HEADER);
    sm_buf_append(&header, CA__MAGIC, 8);
    sm_buf_append_u64(&header, CA__FORMAT);
    sm_buf_append_u64(&header, len);
    sm_buf_append_u64(&header, ca__checksum(data, len));
    bool ok = header.len == CA__HEADER && ca__whole(fd, header.data, header.len, true) &&
              ca__whole(fd, (void *)data, len, true);
    sm_buf_free(&header);
    ok &= close(fd) == 0;
    if (!ok || rename(temp, path) != 0) {
        unlink(temp);
        return SM_EIO;
    }
    ca__prune(dir, kind, keep ? keep : 1);
    return SM_OK;
}
