/*
 * summaries.c - module summaries kept across runs.
 *
 * What a module's source says (its top-level bindings, star imports and
 * the ways it leaves its namespace open) is kept in the cache folder
 * (cache/) under a key of the environment's folders, each summary with
 * what stat() says of the file it was read from: a later run takes it
 * instead of reading and parsing the file again, as long as the file's
 * device, inode, size and modification time are the same.  One entry
 * holds every summary of an environment; it is written when new summaries
 * were made (after a set-up, and when the environment is freed).  A
 * summary that does not read back whole (an index outside its names) is
 * dropped and the file read again.
 */
#include "sx_internal.h"

#include "seam_cache.h"

#include <pthread.h>
#include <string.h>

enum { SX__MAX_KEPT_BYTES = 256 << 20, SX__MAX_KEPT_SUMMARIES = 4096, SX__KEEP_ENTRIES = 8 };
#define SX__KEPT_MAGIC "SXSUMS02"

typedef struct sx__kept {
    char *name;          /* owned: the module's name */
    char *path;          /* owned: the file it was read from */
    ca_key file;         /* what stat() said of the file (ca_key_add_stat) */
    bool writes;         /* its text writes its namespace (sx__writes_namespace) */
    char *doc;           /* owned: the summary, serialized */
    size_t doc_len;
} sx__kept;

struct sx__summaries {
    char *dir;                       /* owned */
    ca_key key;
    pthread_mutex_t lock;
    SM_ARRAY(sx__kept *) kept;       /* owned */
    bool dirty;                      /* summaries made since the entry was read or written */
};

/* ---- Bytes in, bytes out ---------------------------------------------------- */

static void sx__put_bytes(sm_buf *out, const char *bytes, size_t len)
{
    sm_buf_append_u32(out, (uint32_t)len);
    sm_buf_append(out, bytes, len);
}

/* A length-prefixed byte string: its bytes (borrowed) and length. */
static const char *sx__get_bytes(sm_reader *in, size_t *len)
{
    *len = sm_read_u32(in);
    return sm_read_bytes(in, *len);
}

/* ---- A summary ---------------------------------------------------------------- */

static void sx__doc_write(const sx_doc *doc, sm_buf *out)
{
    sx__put_bytes(out, doc->pool.data, doc->pool.len);
    sx__put_bytes(out, doc->stars.data, doc->stars.len);
    uint8_t flags = (uint8_t)(doc->names_open | doc->getattr << 1 | doc->dynamic << 2 | doc->module_writes << 3);
    sm_buf_append(out, &flags, 1);
    sm_buf_append_u32(out, doc->bindings.size);
    for (uint32_t i = 0; i < doc->bindings.size; i++) {
        const sx_binding *b = &doc->bindings.items[i];
        uint8_t small[2] = {b->kind, b->open};
        sm_buf_append_u32(out, b->name);
        sm_buf_append_u32(out, b->len);
        sm_buf_append_u32(out, b->module);
        sm_buf_append_u32(out, b->params);
        sm_buf_append(out, small, 2);
    }
}

/* Whether `text` of `len` bytes ends in a NUL (or is empty), so that every
 * offset before its end starts a terminated string. */
static bool sx__terminated(const char *text, size_t len)
{
    return len == 0 || text[len - 1] == '\0';
}

/* Reads a summary back into doc (initialised here); false, with doc empty,
 * when any offset lies outside its names. */
static bool sx__doc_read_back(const char *bytes, size_t len, sx_doc *doc)
{
    memset(doc, 0, sizeof *doc);
    sm_buf_init(&doc->pool, (size_t)1 << 30);
    sm_buf_init(&doc->stars, 1 << 20);
    sm_array_init(&doc->bindings);
    sm_reader in;
    sm_reader_init(&in, bytes, len);
    size_t pool_len, stars_len;
    const char *pool = sx__get_bytes(&in, &pool_len);
    const char *stars = sx__get_bytes(&in, &stars_len);
    const uint8_t *flags = sm_read_bytes(&in, 1);
    uint32_t count = sm_read_u32(&in);
    bool ok = in.ok && sx__terminated(pool, pool_len) && sx__terminated(stars, stars_len) &&
              (size_t)(in.end - in.at) == (size_t)count * 18 && pool_len < UINT32_MAX;
    if (ok) {
        sm_buf_append(&doc->pool, pool, pool_len);
        sm_buf_append(&doc->stars, stars, stars_len);
        doc->names_open = *flags & 1;
        doc->getattr = *flags & 2;
        doc->dynamic = *flags & 4;
        doc->module_writes = *flags & 8;
    }
    for (uint32_t i = 0; ok && i < count; i++) {
        sx_binding b = {0};
        b.name = sm_read_u32(&in);
        b.len = sm_read_u32(&in);
        b.module = sm_read_u32(&in);
        b.params = sm_read_u32(&in);
        const uint8_t *small = sm_read_bytes(&in, 2);
        ok = in.ok && (uint64_t)b.name + b.len < pool_len && b.module < pool_len + (pool_len == 0) &&
             b.params < pool_len + (pool_len == 0) && small[0] <= SX_BIND_CLASS;
        if (ok) {
            b.kind = small[0];
            b.open = small[1] != 0;
            sm_array_push(&doc->bindings, b);
        }
    }
    if (!ok)
        sx_doc_free(doc);
    return ok;
}

/* ---- The entry ------------------------------------------------------------------ */

static void sx__kept_free(sx__kept *k)
{
    sm_free(k->name);
    sm_free(k->path);
    sm_free(k->doc);
    sm_free(k);
}

/* Takes the entry's summaries; one that does not read as a summary ends
 * the reading (the ones before it are kept). */
static void sx__load(sx__summaries *s)
{
    sm_buf entry;
    if (ca_get(s->dir, "modules", &s->key, SX__MAX_KEPT_BYTES, &entry) != SM_OK || entry.len < 12 ||
        memcmp(entry.data, SX__KEPT_MAGIC, 8) != 0) {
        sm_buf_free(&entry);
        return;
    }
    sm_reader in;
    sm_reader_init(&in, entry.data + 8, entry.len - 8);
    uint32_t count = sm_read_u32(&in);
    for (uint32_t i = 0; in.ok && i < count && s->kept.size < SX__MAX_KEPT_SUMMARIES; i++) {
        size_t name_len, path_len, doc_len;
        const char *name = sx__get_bytes(&in, &name_len);
        const char *path = sx__get_bytes(&in, &path_len);
        ca_key file;
        file.a = sm_read_u64(&in);
        file.b = sm_read_u64(&in);
        const uint8_t *writes = sm_read_bytes(&in, 1);
        const char *doc = sx__get_bytes(&in, &doc_len);
        if (!in.ok)
            break;
        sx__kept *k = sm_calloc(1, sizeof *k);
        k->name = sm_strndup(name, name_len);
        k->path = sm_strndup(path, path_len);
        k->file = file;
        k->writes = *writes != 0;
        k->doc = sm_malloc(doc_len ? doc_len : 1);
        memcpy(k->doc, doc, doc_len);
        k->doc_len = doc_len;
        sm_array_push(&s->kept, k);
    }
    sm_buf_free(&entry);
}

sx__summaries *sx__summaries_new(const char *dir, const char *const *roots, uint32_t count)
{
    sx__summaries *s = sm_calloc(1, sizeof *s);
    s->dir = sm_strdup(dir);
    ca_key_init(&s->key);
    ca_key_add_str(&s->key, "seam module summaries 1");
    for (uint32_t i = 0; i < count; i++)
        ca_key_add_str(&s->key, roots[i] ? roots[i] : "(none)");
    pthread_mutex_init(&s->lock, NULL);
    sm_array_init(&s->kept);
    sx__load(s);
    return s;
}

void sx__summaries_free(sx__summaries *s)
{
    if (!s)
        return;
    sx__summaries_save(s);
    for (uint32_t i = 0; i < s->kept.size; i++)
        sx__kept_free(s->kept.items[i]);
    sm_array_free(&s->kept);
    pthread_mutex_destroy(&s->lock);
    sm_free(s->dir);
    sm_free(s);
}

/* What stat() says of path now (device, inode, size, modification time),
 * as kept; false when it cannot be stat'ed. */
static bool sx__file_key(const char *path, ca_key *out)
{
    ca_key_init(out);
    return ca_key_add_stat(out, path);
}

static bool sx__same_file(const ca_key *a, const ca_key *b)
{
    return a->a == b->a && a->b == b->b;
}

static sx__kept *sx__find_kept(sx__summaries *s, const char *name, const char *path)
{
    for (uint32_t i = 0; i < s->kept.size; i++)
        if (strcmp(s->kept.items[i]->name, name) == 0 && strcmp(s->kept.items[i]->path, path) == 0)
            return s->kept.items[i];
    return NULL;
}

bool sx__summaries_take(sx__summaries *s, const char *name, const char *path, sx_doc *doc, bool *writes)
{
    ca_key now;
    if (!s || !sx__file_key(path, &now))
        return false;
    pthread_mutex_lock(&s->lock);
    sx__kept *k = sx__find_kept(s, name, path);
    bool taken = k && sx__same_file(&k->file, &now) && sx__doc_read_back(k->doc, k->doc_len, doc);
    if (taken)
        *writes = k->writes;
    pthread_mutex_unlock(&s->lock);
    return taken;
}

void sx__summaries_put(sx__summaries *s, const char *name, const char *path, const sx_doc *doc, bool writes)
{
    ca_key now;
    if (!s || !sx__file_key(path, &now))
        return;
    sm_buf bytes;
    sm_buf_init(&bytes, SX__MAX_KEPT_BYTES);
    sx__doc_write(doc, &bytes);
    pthread_mutex_lock(&s->lock);
    sx__kept *k = sx__find_kept(s, name, path);
    if (!k && s->kept.size < SX__MAX_KEPT_SUMMARIES) {
        k = sm_calloc(1, sizeof *k);
        k->name = sm_strdup(name);
        k->path = sm_strdup(path);
        sm_array_push(&s->kept, k);
    }
    if (k) {
        sm_free(k->doc);
        k->file = now;
        k->writes = writes;
        k->doc_len = bytes.len;
        k->doc = sm_buf_take(&bytes, NULL);
        if (!k->doc)
            k->doc = sm_calloc(1, 1);
        s->dirty = true;
    }
    pthread_mutex_unlock(&s->lock);
    sm_buf_free(&bytes);
}

void sx__summaries_save(sx__summaries *s)
{
    if (!s)
        return;
    sm_buf out;
    sm_buf_init(&out, SX__MAX_KEPT_BYTES);
    pthread_mutex_lock(&s->lock);
    bool dirty = s->dirty;
    if (dirty) {
        sm_buf_append(&out, SX__KEPT_MAGIC, 8);
        sm_buf_append_u32(&out, s->kept.size);
        for (uint32_t i = 0; i < s->kept.size; i++) {
            const sx__kept *k = s->kept.items[i];
            sx__put_bytes(&out, k->name, strlen(k->name));
            sx__put_bytes(&out, k->path, strlen(k->path));
            sm_buf_append_u64(&out, k->file.a);
            sm_buf_append_u64(&out, k->file.b);
            uint8_t writes = k->writes;
            sm_buf_append(&out, &writes, 1);
            sx__put_bytes(&out, k->doc, k->doc_len);
        }
        s->dirty = false;
    }
    pthread_mutex_unlock(&s->lock);
    if (dirty && out.len)
        ca_put(s->dir, "modules", &s->key, out.data, out.len, SX__KEEP_ENTRIES);
    sm_buf_free(&out);
}
