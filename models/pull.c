/*
 * pull.c - downloading a GGUF model the way Hugging Face serves files.
 *
 * ENDPOINT/USER/REPO/resolve/REVISION/FILE answers a HEAD with the file's
 * SHA-256 in X-Linked-Etag and its size in X-Linked-Size, then redirects to
 * where the bytes are (a CDN).  The bytes go into FILE.<sha>.part, resumed
 * with a Range request after a failure, and become FILE only once their
 * size, SHA-256 and GGUF magic number are right.
 */
#include "seam_models.h"
#include "seam_curl.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define MD_DEFAULT_ENDPOINT "https://huggingface.co"

/* What one download knows. */
typedef struct md__pull {
    const md_pull_options *o;
    CURL *easy;
    char url[8192];
    /* From the responses' headers (the redirect's and the final one's). */
    char linked_etag[128];
    char etag[128];
    uint64_t linked_size;
    uint64_t content_length;
    bool has_content_range;
    uint64_t range_start;
    /* What is stated, after the HEAD. */
    char sha256[65];        /* empty when the server states none */
    uint64_t total;         /* 0 when unknown */
    /* The part file. */
    char part_path[4600];
    int fd;
    md_sha256 hash;
    uint64_t have;
    uint64_t resumed_from;
    bool body_started;
    bool wrong_offset;
    bool too_long;          /* more bytes came than the size stated */
    bool verified;          /* the SHA-256 was stated, and the file's is the same */
    int write_errno;
    /* Progress. */
    double started;
    double last_event;
} md__pull;

static double md__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void md__emit(md__pull *p, md_pull_stage stage, const char *message, const char *path)
{
    if (!p->o->on_event)
        return;
    double elapsed = md__now() - p->started;
    md_pull_event ev = {
        .stage = stage,
        .done = p->have,
        .total = p->total,
        .resumed_from = p->resumed_from,
        .bytes_per_second = elapsed > 0 ? (double)(p->have - p->resumed_from) / elapsed : 0,
        .message = message,
        .path = path,
        .sha256 = stage == MD_PULL_DONE ? p->sha256 : NULL,
        .verified = p->verified,
    };
    p->o->on_event(p->o->user, &ev);
}

void md_pull_options_init(md_pull_options *o)
{
    memset(o, 0, sizeof *o);
    o->retries = 5;
    o->retry_delay_ms = 1000;
    o->stall_seconds = 60;
}

/* ---- Names and the URL ------------------------------------------------- */

static bool md__repo_ok(const char *repo)
{
    const char *slash = strchr(repo, '/');
    if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
        return false;
    for (const char *c = repo; *c; c++)
        if (!(*c == '/' || *c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
              (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
            return false;
    return strstr(repo, "..") == NULL;
}

static bool md__file_ok(const char *file)
{
    size_t n = strlen(file);
    if (n < 6 || n > 255 * 4 || file[0] == '/' || strcasecmp(file + n - 5, ".gguf") != 0)
        return false;
    for (const char *seg = file; seg; seg = strchr(seg, '/') ? strchr(seg, '/') + 1 : NULL)
        if (seg[0] == '.' && (seg[1] == '/' || (seg[1] == '.' && (seg[2] == '/' || !seg[2]))))
            return false;
    /* no control characters, backslashes, nor a glob's characters: the
     * name becomes a file's name, and must mean that file alone */
    for (const char *c = file; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f || strchr("\\*?[]{}", *c))
            return false;
    return true;
}

/* Appends `text` percent-encoded; '/' kept when keep_slash. */
static bool md__encode(char *out, size_t size, size_t *len, const char *text, bool keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                     *c == '-' || *c == '_' || *c == '.' || *c == '~' || (keep_slash && *c == '/');
        if (*len + 4 >= size)
            return false;
        if (plain) {
            out[(*len)++] = (char)*c;
        } else {
            out[(*len)++] = '%';
            out[(*len)++] = hex[*c >> 4];
            out[(*len)++] = hex[*c & 15];
        }
    }
    out[*len] = '\0';
    return true;
}

static int md__build_url(md__pull *p, char *error, size_t error_size)
{
    const md_pull_options *o = p->o;
    const char *endpoint = o->endpoint && *o->endpoint ? o->endpoint : MD_DEFAULT_ENDPOINT;
    size_t n = strlen(endpoint);
    while (n > 0 && endpoint[n - 1] == '/')
        n--;
    if (n + 1 >= sizeof p->url || (strncmp(endpoint, "http://", 7) != 0 && strncmp(endpoint, "https://", 8) != 0)) {
        snprintf(error, error_size, "HF_ENDPOINT must be an http:// or https:// URL, not \"%s\"", endpoint);
        return SM_EINVAL;
    }
    memcpy(p->url, endpoint, n);
    p->url[n++] = '/';
    p->url[n] = '\0';
    bool ok = md__encode(p->url, sizeof p->url, &n, o->repo, true) &&
              md__encode(p->url, sizeof p->url, &n, "/resolve/", true) &&
              md__encode(p->url, sizeof p->url, &n, o->revision && *o->revision ? o->revision : "main", false) &&
              md__encode(p->url, sizeof p->url, &n, "/", true) &&
              md__encode(p->url, sizeof p->url, &n, o->file, true);
    if (!ok) {
        snprintf(error, error_size, "the model's address is too long");
        return SM_ETOOBIG;
    }
    return SM_OK;
}

/* ---- Headers ------------------------------------------------------------ */

/* Copies an ETag's value without W/ and quotes. */
static void md__etag_value(const char *value, size_t len, char *out, size_t out_size)
{
    if (len >= 2 && strncmp(value, "W/", 2) == 0) {
        value += 2;
        len -= 2;
    }
    while (len && (*value == '"' || *value == ' ')) {
        value++;
        len--;
    }
    while (len && (value[len - 1] == '"' || value[len - 1] == ' '))
        len--;
    if (len >= out_size)
        len = out_size - 1;
    memcpy(out, value, len);
    out[len] = '\0';
}

static bool md__header_is(const char *line, size_t len, const char *name, const char **value, size_t *value_len)
{
    size_t n = strlen(name);
    if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0)
        return false;
    const char *v = line + n + 1;
    const char *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    *value = v;
    *value_len = (size_t)(end - v);
    return true;
}

static uint64_t md__number(const char *value, size_t len)
{
    uint64_t n = 0;
    for (size_t i = 0; i < len && value[i] >= '0' && value[i] <= '9' && n < UINT64_MAX / 10; i++)
        n = n * 10 + (uint64_t)(value[i] - '0');
    return n;
}

static size_t md__on_header(char *line, size_t size, size_t count, void *user)
{
    md__pull *p = user;
    size_t len = size * count;
    const char *v;
    size_t vlen;
    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        /* A new response (after a redirect): its own headers follow. */
        p->etag[0] = '\0';
        p->content_length = 0;
        p->has_content_range = false;
    } else if (md__header_is(line, len, "X-Linked-Etag", &v, &vlen)) {
        if (!p->linked_etag[0])
            md__etag_value(v, vlen, p->linked_etag, sizeof p->linked_etag);
    } else if (md__header_is(line, len, "X-Linked-Size", &v, &vlen)) {
        if (!p->linked_size)
            p->linked_size = md__number(v, vlen);
    } else if (md__header_is(line, len, "ETag", &v, &vlen)) {
        md__etag_value(v, vlen, p->etag, sizeof p->etag);
    } else if (md__header_is(line, len, "Content-Length", &v, &vlen)) {
        p->content_length = md__number(v, vlen);
    } else if (md__header_is(line, len, "Content-Range", &v, &vlen)) {
        /* bytes START-END/TOTAL */
        if (vlen > 6 && strncasecmp(v, "bytes ", 6) == 0) {
            p->has_content_range = true;
            p->range_start = md__number(v + 6, vlen - 6);
        }
    }
    return len;
}

static bool md__is_sha256(const char *text)
{
    if (strlen(text) != 64)
        return false;
    for (const char *c = text; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

/* ---- Requests ----------------------------------------------------------- */

static void md__common_options(md__pull *p)
{
    CURL *e = p->easy;
    curl_easy_setopt(e, CURLOPT_URL, p->url);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "seam/" SEAM_VERSION);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, md__on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, p);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 30L);
    /* A connection that carries under a byte a second for stall_seconds is
     * dropped and tried again. */
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)(p->o->stall_seconds ? p->o->stall_seconds : 60));
    if (p->o->token && *p->o->token) {
        /* Sent to the endpoint's host only, not to where it redirects. */
        curl_easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, p->o->token);
    }
}

static void md__http_error(const md__pull *p, long code, char *error, size_t error_size)
{
    const md_pull_options *o = p->o;
    bool token = o->token && *o->token;
    if (code == 401)
        snprintf(error, error_size,
                 token ? "the server refused the token for %s (HF_TOKEN): is it the right one?"
                       : "%s is private, gated or missing: if it exists, set HF_TOKEN to a Hugging Face token",
                 o->repo);
    else if (code == 403)
        snprintf(error, error_size,
                 "access to %s is refused: accept its conditions on its page, or check the token (HF_TOKEN)",
                 o->repo);
    else if (code == 404)
        snprintf(error, error_size, "%s has no file %s at revision %s", o->repo, o->file,
                 o->revision && *o->revision ? o->revision : "main");
    else
        snprintf(error, error_size, "the server answered HTTP %ld for %s", code, p->url);
}

static bool md__transient(CURLcode rc, long code)
{
    if (rc == CURLE_OK)
        return code >= 500 || code == 429 || code == 408;
    return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_PARTIAL_FILE ||
           rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_OPERATION_TIMEDOUT ||
           rc == CURLE_GOT_NOTHING || rc == CURLE_HTTP2 || rc == CURLE_HTTP2_STREAM || rc == CURLE_SSL_CONNECT_ERROR;
}

static void md__wait(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* HEAD: the SHA-256 and size the server states. */
static int md__head(md__pull *p, char *error, size_t error_size)
{
    unsigned delay = p->o->retry_delay_ms;
    for (int attempt = 0;; attempt++) {
        curl_easy_reset(p->easy);
        md__common_options(p);
        curl_easy_setopt(p->easy, CURLOPT_NOBODY, 1L);
        p->linked_etag[0] = p->etag[0] = '\0';
        p->linked_size = p->content_length = 0;
        CURLcode rc = curl_easy_perform(p->easy);
        long code = 0;
        curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &code);
        if (rc == CURLE_OK && code >= 200 && code < 300)
            break;
        /* (a server down at the start is said at once, after two tries) */
        if (attempt >= (p->o->retries < 2 ? p->o->retries : 2) || !md__transient(rc, code)) {
            if (rc != CURLE_OK)
                snprintf(error, error_size, "cannot reach %s: %s", p->url, curl_easy_strerror(rc));
            else
                md__http_error(p, code, error, error_size);
            return rc != CURLE_OK ? SM_EIO : code == 404 ? SM_ENOTFOUND : SM_EINVAL;
        }
        char why[300];
        snprintf(why, sizeof why, "%s", rc != CURLE_OK ? curl_easy_strerror(rc) : "the server answered HTTP 5xx");
        md__emit(p, MD_PULL_RETRY, why, NULL);
        md__wait(delay);
        delay = delay < 15000 ? delay * 2 : 30000;
    }
    if (md__is_sha256(p->linked_etag))
        memcpy(p->sha256, p->linked_etag, 65);
    else if (md__is_sha256(p->etag))
        memcpy(p->sha256, p->etag, 65);
    p->total = p->linked_size ? p->linked_size : p->content_length;
    return SM_OK;
}

static size_t md__on_body(char *data, size_t size, size_t count, void *user)
{
    md__pull *p = user;
    size_t len = size * count;
    if (!p->body_started) {
        p->body_started = true;
        long code = 0;
        curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &code);
        if (code == 200 && p->have > 0) {
            /* The server sent the whole file instead of the rest. */
            if (ftruncate(p->fd, 0) != 0 || lseek(p->fd, 0, SEEK_SET) != 0) {
                p->write_errno = errno;
                return 0;
            }
            md_sha256_init(&p->hash);
            p->have = p->resumed_from = 0;
        } else if (code == 206 && (!p->has_content_range || p->range_start != p->have)) {
            p->wrong_offset = true;
            return 0;
        }
    }
    if (p->total && p->have + len > p->total) {
        p->too_long = true;    /* never more on disk than the size stated */
        return 0;
    }
    for (size_t off = 0; off < len;) {
        ssize_t w = write(p->fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            p->write_errno = errno;
            return 0;
        }
        off += (size_t)w;
    }
    md_sha256_update(&p->hash, data, len);
    p->have += len;
    double now = md__now();
    if (now - p->last_event >= 0.1) {
        p->last_event = now;
        md__emit(p, MD_PULL_PROGRESS, NULL, NULL);
    }
    return len;
}

/* GET from p->have on, until the file is whole or the retries are spent. */
static int md__fetch(md__pull *p, char *error, size_t error_size)
{
    unsigned delay = p->o->retry_delay_ms;
    int failures = 0;
    while (!p->total || p->have < p->total) {
        curl_easy_reset(p->easy);
        md__common_options(p);
        curl_easy_setopt(p->easy, CURLOPT_WRITEFUNCTION, md__on_body);
        curl_easy_setopt(p->easy, CURLOPT_WRITEDATA, p);
        curl_easy_setopt(p->easy, CURLOPT_FAILONERROR, 1L);
        char range[64];
        if (p->have > 0) {
            snprintf(range, sizeof range, "%llu-", (unsigned long long)p->have);
            curl_easy_setopt(p->easy, CURLOPT_RANGE, range);
        }
        p->body_started = false;
        p->wrong_offset = false;
        p->too_long = false;
        p->write_errno = 0;
        uint64_t before = p->have;
        CURLcode rc = curl_easy_perform(p->easy);
        long code = 0;
        curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &code);
        if (p->write_errno) {
            snprintf(error, error_size, "cannot write %s: %s", p->part_path, strerror(p->write_errno));
            return SM_EIO;
        }
        if (p->wrong_offset) {
            snprintf(error, error_size, "the server resumed the file at another offset than asked");
            return SM_EIO;
        }
        if (p->too_long) {
            snprintf(error, error_size, "the server sent more than the %llu bytes it stated: stopped, and deleted",
                     (unsigned long long)p->total);
            unlink(p->part_path);
            return SM_EIO;
        }
        if (rc == CURLE_OK && !p->total)
            return SM_OK;        /* no size stated: the end of the body is the end */
        if (rc == CURLE_OK && p->have > p->total) {
            snprintf(error, error_size, "the server sent more than the %llu bytes it stated",
                     (unsigned long long)p->total);
            return SM_EIO;
        }
        if (rc == CURLE_OK && p->have == p->total)
            return SM_OK;
        if (p->have > before)
            failures = 0;        /* progress: the count starts again */
        bool transient = rc == CURLE_OK || md__transient(rc, code) || (rc == CURLE_HTTP_RETURNED_ERROR && code >= 500);
        if (!transient || ++failures > p->o->retries) {
            if (rc == CURLE_HTTP_RETURNED_ERROR)
                md__http_error(p, code, error, error_size);
            else
                snprintf(error, error_size,
                         "the download stopped at %llu of %llu bytes (%s): run the same command to resume",
                         (unsigned long long)p->have, (unsigned long long)p->total,
                         rc == CURLE_OK ? "the connection closed early" : curl_easy_strerror(rc));
            return SM_EIO;
        }
        char why[300];
        snprintf(why, sizeof why, "%s after %llu bytes",
                 rc == CURLE_OK ? "the connection closed early" : curl_easy_strerror(rc),
                 (unsigned long long)p->have);
        md__emit(p, MD_PULL_RETRY, why, NULL);
        md__wait(delay);
        delay = delay < 15000 ? delay * 2 : 30000;
    }
    return SM_OK;
}

/* ---- The part file ------------------------------------------------------ */

/* Opens (and locks) the part file and hashes what an earlier attempt left
 * in it. */
static int md__open_part(md__pull *p, char *error, size_t error_size)
{
    p->fd = open(p->part_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (p->fd < 0) {
        snprintf(error, error_size, "cannot write %s: %s", p->part_path, strerror(errno));
        return SM_EIO;
    }
    if (flock(p->fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(error, error_size, "another seam is downloading %s now", p->o->file);
        return SM_EINVAL;
    }
    md_sha256_init(&p->hash);
    struct stat st;
    if (fstat(p->fd, &st) != 0)
        return SM_EIO;
    uint64_t size = (uint64_t)st.st_size;
    if (p->total && size > p->total)
        size = 0;
    if (!p->sha256[0])
        size = 0;   /* without a stated checksum, an old part cannot be trusted */
    if (ftruncate(p->fd, (off_t)size) != 0)
        return SM_EIO;
    char buffer[1 << 16];
    uint64_t read_so_far = 0;
    lseek(p->fd, 0, SEEK_SET);
    while (read_so_far < size) {
        ssize_t r = read(p->fd, buffer, sizeof buffer);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            break;
        }
        md_sha256_update(&p->hash, buffer, (size_t)r);
        read_so_far += (uint64_t)r;
    }
    if (read_so_far != size || ftruncate(p->fd, (off_t)read_so_far) != 0 ||
        lseek(p->fd, (off_t)read_so_far, SEEK_SET) < 0) {
        snprintf(error, error_size, "cannot read %s", p->part_path);
        return SM_EIO;
    }
    p->have = p->resumed_from = read_so_far;
    return SM_OK;
}

/* Whether `name` is one of the part files of `base`: BASE.<16 hex
 * digits>.part, or BASE.unchecked.part. */
static bool md__is_part_of(const char *name, const char *base)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || name[n] != '.')
        return false;
    const char *tag = name + n + 1;
    if (strcmp(tag, "unchecked.part") == 0)
        return true;
    for (int i = 0; i < 16; i++)
        if (!((tag[i] >= '0' && tag[i] <= '9') || (tag[i] >= 'a' && tag[i] <= 'f')))
            return false;
    return strcmp(tag + 16, ".part") == 0;
}

/* Parts of the same file for another checksum (an older upstream file):
 * named exactly, never matched by a pattern (a model's name may not be
 * one, but no other model's part may be taken for this one's). */
static void md__remove_stale_parts(const md__pull *p, const char *dir, const char *final_path)
{
    const char *base = strrchr(final_path, '/') ? strrchr(final_path, '/') + 1 : final_path;
    const char *own = strrchr(p->part_path, '/') ? strrchr(p->part_path, '/') + 1 : p->part_path;
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!md__is_part_of(e->d_name, base) || strcmp(e->d_name, own) == 0)
            continue;
        char path[4700];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
}

static int md__space(const md__pull *p, const char *dir, char *error, size_t error_size)
{
    struct statvfs vfs;
    if (!p->total || statvfs(dir, &vfs) != 0)
        return SM_OK;
    uint64_t free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    uint64_t needed = p->total - p->have;
    if (needed > free_bytes) {
        char need[32], have[32];
        md_format_bytes(needed, need, sizeof need);
        md_format_bytes(free_bytes, have, sizeof have);
        snprintf(error, error_size, "the model needs %s more and %s has %s free", need, dir, have);
        return SM_ETOOBIG;
    }
    return SM_OK;
}

/* Checks the whole part: size, SHA-256 against the stated one, GGUF. */
static int md__verify(md__pull *p, char *error, size_t error_size)
{
    if (p->total && p->have != p->total) {
        snprintf(error, error_size, "the file has %llu bytes, not the %llu stated",
                 (unsigned long long)p->have, (unsigned long long)p->total);
        return SM_EIO;
    }
    char actual[65];
    md_sha256_final(&p->hash, actual);
    if (p->sha256[0] && strcmp(actual, p->sha256) != 0) {
        snprintf(error, error_size,
                 "the file's SHA-256 is %s, not the %s the server stated: it was deleted, not used", actual,
                 p->sha256);
        return SM_EIO;
    }
    char magic[4] = {0};
    if (pread(p->fd, magic, 4, 0) != 4 || memcmp(magic, "GGUF", 4) != 0) {
        snprintf(error, error_size, "the file is not a GGUF model (it does not start with GGUF): deleted");
        return SM_EINVAL;
    }
    p->verified = p->sha256[0] != '\0';
    memcpy(p->sha256, actual, 65);
    return SM_OK;
}

static int md__mkdirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *c = path + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return SM_EIO;
        *c = '/';
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? SM_EIO : SM_OK;
}

/* ---- The download ------------------------------------------------------- */

static int md__pull_into(md__pull *p, const char *dir, const char *final_path, char *error, size_t error_size)
{
    int rc = md__build_url(p, error, error_size);
    if (rc != SM_OK)
        return rc;
    if (!(p->easy = curl_easy_init())) {
        snprintf(error, error_size, "could not start the HTTP client");
        return SM_ENOMEM;
    }
    if ((rc = md__head(p, error, error_size)) != SM_OK)
        return rc;
    if (!p->sha256[0] && !p->o->no_verify) {
        snprintf(error, error_size,
                 "the server states no SHA-256 for %s, so a damaged or cut download could not be told from the "
                 "model: refused (--no-verify takes it unchecked)", p->o->file);
        return SM_EINVAL;
    }
    int n = snprintf(p->part_path, sizeof p->part_path, "%s.%.16s.part", final_path,
                     p->sha256[0] ? p->sha256 : "unchecked");
    if (n < 0 || (size_t)n >= sizeof p->part_path) {
        snprintf(error, error_size, "the model's path is too long");
        return SM_ETOOBIG;
    }
    md__remove_stale_parts(p, dir, final_path);
    if ((rc = md__open_part(p, error, error_size)) != SM_OK)
        return rc;
    if ((rc = md__space(p, dir, error, error_size)) != SM_OK)
        return rc;
    p->started = md__now();
    md__emit(p, MD_PULL_START, NULL, NULL);
    if ((rc = md__fetch(p, error, error_size)) != SM_OK)
        return rc;            /* the part stays, to be resumed */
    md__emit(p, MD_PULL_VERIFY, NULL, NULL);
    if ((rc = md__verify(p, error, error_size)) != SM_OK) {
        unlink(p->part_path);
        return rc;
    }
    if (fsync(p->fd) != 0 || rename(p->part_path, final_path) != 0) {
        snprintf(error, error_size, "cannot move %s to %s: %s", p->part_path, final_path, strerror(errno));
        return SM_EIO;
    }
    return SM_OK;
}

int md_pull(const md_pull_options *o, char **path_out, char *error, size_t error_size)
{
    *path_out = NULL;
    if (!o->repo || !md__repo_ok(o->repo)) {
        snprintf(error, error_size, "\"%s\" is not a repository name (USER/REPO)", o->repo ? o->repo : "");
        return SM_EINVAL;
    }
    if (!o->file || !md__file_ok(o->file)) {
        snprintf(error, error_size, "\"%s\" is not a GGUF file's path in a repository (FILE.gguf)",
                 o->file ? o->file : "");
        return SM_EINVAL;
    }
    char dir[4096];
    if (o->dir)
        snprintf(dir, sizeof dir, "%s", o->dir);
    else if (md_models_dir(dir, sizeof dir) != SM_OK) {
        snprintf(error, error_size, "neither XDG_CACHE_HOME nor HOME is set: there is no models folder");
        return SM_ENOTFOUND;
    }
    if (md__mkdirs(dir) != SM_OK) {
        snprintf(error, error_size, "cannot make %s: %s", dir, strerror(errno));
        return SM_EIO;
    }
    const char *base = strrchr(o->file, '/') ? strrchr(o->file, '/') + 1 : o->file;
    char final_path[4400];
    snprintf(final_path, sizeof final_path, "%s/%s", dir, base);
    if (!o->force && access(final_path, F_OK) == 0) {
        *path_out = sm_strdup(final_path);
        return SM_OK;
    }
    md__pull *p = sm_calloc(1, sizeof *p);
    p->o = o;
    p->fd = -1;
    char why[256];
    int rc;
    if (!cu_available(why, sizeof why)) {
        snprintf(error, error_size, "%s", why);
        rc = SM_EINVAL;
    } else {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        rc = md__pull_into(p, dir, final_path, error, error_size);
    }
    if (rc == SM_OK) {
        *path_out = sm_strdup(final_path);
        md__emit(p, MD_PULL_DONE, NULL, final_path);
    }
    if (p->fd >= 0)
        close(p->fd);
    if (p->easy)
        curl_easy_cleanup(p->easy);
    sm_free(p);
    return rc;
}
