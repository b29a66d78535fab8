/*
 * buf.c - the capped byte buffer.
 */
#include "seam_base.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <string.h>

void sm_buf_init(sm_buf *buf, size_t max)
{
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->max = max;
}

/* Grows the allocation to hold `need` bytes plus the trailing NUL. */
static int sm__buf_reserve(sm_buf *buf, size_t need)
{
    if (need > buf->max)
        return SM_ETOOBIG;
    if (need + 1 <= buf->cap)
        return SM_OK;
    size_t cap = buf->cap ? buf->cap : 64;
    while (cap < need + 1)
        cap = cap > SIZE_MAX / 2 ? need + 1 : cap * 2;
    if (cap > buf->max + 1)
        cap = buf->max + 1;
    char *grown = sm_try_realloc(buf->data, cap);
    if (!grown)
        return SM_ENOMEM;
    buf->data = grown;
    buf->cap = cap;
    return SM_OK;
}

int sm_buf_append(sm_buf *buf, const void *bytes, size_t len)
{
    if (len > SIZE_MAX - buf->len - 1)
        return SM_ETOOBIG;
    int rc = sm__buf_reserve(buf, buf->len + len);
    if (rc)
        return rc;
    if (len)
        memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
    return SM_OK;
}

int sm_buf_append_str(sm_buf *buf, const char *text)
{
    return sm_buf_append(buf, text, strlen(text));
}

int sm_buf_printf(sm_buf *buf, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int needed = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (needed < 0)
        return SM_EINVAL;
    int rc = sm__buf_reserve(buf, buf->len + (size_t)needed);
    if (rc)
        return rc;
    va_start(args, fmt);
    vsnprintf(buf->data + buf->len, (size_t)needed + 1, fmt, args);
    va_end(args);
    buf->len += (size_t)needed;
    return SM_OK;
}

void sm_buf_consume(sm_buf *buf, size_t count)
{
    if (count >= buf->len) {
        sm_buf_clear(buf);
        return;
    }
    memmove(buf->data, buf->data + count, buf->len - count);
    buf->len -= count;
    buf->data[buf->len] = '\0';
}

void sm_buf_clear(sm_buf *buf)
{
    buf->len = 0;
    if (buf->data)
        buf->data[0] = '\0';
}

char *sm_buf_take(sm_buf *buf, size_t *len_out)
{
    char *data = buf->data;
    if (len_out)
        *len_out = buf->len;
    if (!data)
        data = sm_strdup("");
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    return data;
}

void sm_buf_free(sm_buf *buf)
{
    sm_free(buf->data);
    sm_buf_init(buf, buf->max);
}

int sm_buf_append_u32(sm_buf *buf, uint32_t value)
{
    return sm_buf_append(buf, &value, sizeof value);
}

int sm_buf_append_u64(sm_buf *buf, uint64_t value)
{
    return sm_buf_append(buf, &value, sizeof value);
}

void sm_reader_init(sm_reader *reader, const void *data, size_t len)
{
    reader->at = data;
    reader->end = reader->at + (data ? len : 0);
    reader->ok = true;
}

const void *sm_read_bytes(sm_reader *reader, size_t len)
{
    if (!reader->ok || (size_t)(reader->end - reader->at) < len) {
        reader->ok = false;
        return NULL;
    }
    const uint8_t *at = reader->at;
    reader->at += len;
    return at;
}

void sm_read_into(sm_reader *reader, void *to, size_t len)
{
    if (len == 0)
        return;
    const void *from = sm_read_bytes(reader, len);
    if (from)
        memcpy(to, from, len);
    else
        memset(to, 0, len);
}

uint32_t sm_read_u32(sm_reader *reader)
{
    uint32_t value;
    sm_read_into(reader, &value, sizeof value);
    return value;
}

uint64_t sm_read_u64(sm_reader *reader)
{
    uint64_t value;
    sm_read_into(reader, &value, sizeof value);
    return value;
}

/* read(2) again when a signal cut it short. */
static ssize_t sm__read_some(int fd, char *into, size_t len)
{
    ssize_t got;
    do
        got = read(fd, into, len);
    while (got < 0 && errno == EINTR);
    return got;
}

int sm_read_file(const char *path, size_t max, sm_buf *out)
{
    sm_buf_init(out, max);
    /* opened without waiting (a FIFO with no writer, a device), then kept
     * only if it is a regular file: a project's file may be anything */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return SM_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return SM_EINVAL;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return SM_ETOOBIG;
    }
    /* room for the size stat() gives, read straight into the buffer (a
     * large file is neither copied chunk by chunk nor moved as it grows);
     * a file that grows meanwhile goes on in chunks, up to the cap */
    int rc = st.st_size > 0 ? sm__buf_reserve(out, (size_t)st.st_size) : SM_OK;
    ssize_t got = 1;
    while (rc == SM_OK && got > 0 && out->len < (size_t)st.st_size) {
        got = sm__read_some(fd, out->data + out->len, (size_t)st.st_size - out->len);
        if (got > 0) {
            out->len += (size_t)got;
            out->data[out->len] = '\0';
        }
    }
    char chunk[65536];
    while (rc == SM_OK && got > 0 && (got = sm__read_some(fd, chunk, sizeof chunk)) > 0)
        rc = sm_buf_append(out, chunk, (size_t)got);
    if (got < 0 && rc == SM_OK)
        rc = SM_EIO;
    close(fd);
    if (rc)
        sm_buf_free(out);
    return rc;
}
