/*
 * framing.c - Content-Length framing of JSON-RPC messages.
 */
#include "seam_protocol.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { LSP__MAX_HEADER = 8192 };

void lsp_framer_init(lsp_framer *f, size_t max_body)
{
    memset(f, 0, sizeof *f);
    sm_buf_init(&f->header, LSP__MAX_HEADER);
    sm_buf_init(&f->body, max_body);
    f->max_body = max_body;
}

void lsp_framer_free(lsp_framer *f)
{
    sm_buf_free(&f->header);
    sm_buf_free(&f->body);
}

bool lsp_framer_pending(const lsp_framer *f)
{
    return f->in_body || f->header.len > 0 || f->discard > 0 || f->skip_line;
}

static const char lsp__length_header[] = "content-length:";

/* Where a Content-Length header's name starts in bytes[0..len), or len. */
static size_t lsp__find_length_header(const char *bytes, size_t len)
{
    const size_t want = sizeof lsp__length_header - 1;
    for (size_t i = 0; i + want <= len; i++)
        if (strncasecmp(bytes + i, lsp__length_header, want) == 0)
            return i;
    return len;
}

/* Skips up to f->discard bytes of an oversized body, but stops where a
 * Content-Length header begins in them: a length that lies (or a client
 * that gave up on the message) must not swallow the messages after it.
 * A raw "Content-Length:" cannot stand inside a JSON body outside a
 * string, so an honest body is skipped whole.  Returns the bytes used;
 * on a header found, the header buffer holds its name. */
static size_t lsp__skip_body(lsp_framer *f, const char *bytes, size_t len)
{
    size_t n = len < f->discard ? len : f->discard;
    const size_t want = sizeof lsp__length_header - 1;
    for (size_t i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)bytes[i]);
        if (c == lsp__length_header[f->discard_match])
            f->discard_match++;
        else
            f->discard_match = c == lsp__length_header[0] ? 1 : 0;
        if (f->discard_match == want) {
            f->discard = 0;
            f->discard_match = 0;
            sm_buf_clear(&f->header);
            sm_buf_append(&f->header, "Content-Length:", want);
            return i + 1;
        }
    }
    f->discard -= n;
    if (f->discard == 0)
        f->discard_match = 0;
    return n;
}

/* Reads Content-Length from a complete header block; false when absent or
 * malformed (or given twice with different values). */
static bool lsp__content_length(const char *headers, size_t len, size_t *out)
{
    bool found = false;
    size_t value = 0;
    const char *p = headers, *end = headers + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = eol ? eol : end;
        size_t n = (size_t)(line_end - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n >= 15 && strncasecmp(p, "Content-Length:", 15) == 0) {
            const char *v = p + 15;
            const char *ve = p + n;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            if (v == ve || ve - v > 12)
                return false;
            size_t parsed = 0;
            for (const char *d = v; d < ve; d++) {
                if (!isdigit((unsigned char)*d))
                    return false;
                parsed = parsed * 10 + (size_t)(*d - '0');
            }
            if (found && parsed != value)
                return false;
            found = true;
            value = parsed;
        } else if (n > 0 && !memchr(p, ':', n)) {
            return false;   /* not a header line at all */
        }
        p = eol ? eol + 1 : end;
    }
    *out = value;
    return found;
}

/* The end of the header block in buf (just past the blank line), or 0. */
static size_t lsp__header_end(const sm_buf *b)
{
    const char *d = b->data;
    for (size_t i = 0; i + 1 < b->len; i++) {
        if (d[i] != '\n')
            continue;
        if (d[i + 1] == '\n')
            return i + 2;
        if (d[i + 1] == '\r' && i + 2 < b->len && d[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

void lsp_framer_feed(lsp_framer *f, const char *bytes, size_t len, const lsp_framer_callbacks *cb, void *data)
{
    while (len > 0) {
        if (f->discard > 0) {
            size_t n = lsp__skip_body(f, bytes, len);
            bytes += n;
            len -= n;
            continue;
        }
        if (f->skip_line) {
            /* To the line's end, or to a header that resynchronises. */
            const char *eol = memchr(bytes, '\n', len);
            size_t n = eol ? (size_t)(eol - bytes) + 1 : len;
            size_t header = lsp__find_length_header(bytes, n);
            f->skip_line = eol == NULL && header == n;
            bytes += header < n ? header : n;
            len -= header < n ? header : n;
            continue;
        }
        if (f->in_body) {
            size_t need = f->expected - f->body.len;
            size_t n = len < need ? len : need;
            sm_buf_append(&f->body, bytes, n);
            bytes += n;
            len -= n;
            if (f->body.len == f->expected) {
                f->in_body = false;
                cb->on_message(data, f->body.data ? f->body.data : "", f->body.len);
                sm_buf_clear(&f->body);
            }
            continue;
        }
        /* Headers: take bytes one line at a time until the blank line. */
        const char *nl = memchr(bytes, '\n', len);
        size_t n = nl ? (size_t)(nl - bytes) + 1 : len;
        if (sm_buf_append(&f->header, bytes, n) != SM_OK) {
            size_t partial = f->header.len;   /* where the line held so far starts */
            while (partial > 0 && f->header.data[partial - 1] != '\n')
                partial--;
            cb->on_error(data, LSP_FRAME_BAD_HEADER, 0);
            if (f->header.len - partial + n > f->header.max) {
                /* One line longer than the cap by itself: junk, dropped to
                 * its end (which may come in a later read) like any line
                 * that is not a header. */
                bool held = f->header.len > partial;
                f->header.len = partial;
                if (f->header.data)
                    f->header.data[partial] = '\0';
                /* A header in these bytes resynchronises; else the line is
                 * skipped from its next byte on (at least one is used). */
                size_t header = held ? lsp__find_length_header(bytes, n) : n;
                size_t used = header < n ? header : 1;
                f->skip_line = header == n;
                bytes += used;
                len -= used;
                continue;
            }
            /* The header block is too long: it is skipped to its end. */
            f->bad_header = true;
            sm_buf_clear(&f->header);
            sm_buf_append(&f->header, bytes, n);
        }
        bytes += n;
        len -= n;
        /* The line these bytes belong to (it may have begun in an earlier
         * read). */
        size_t line_start = f->header.len - n;
        while (line_start > 0 && f->header.data[line_start - 1] != '\n')
            line_start--;
        const char *line = f->header.data + line_start;
        size_t line_len = f->header.len - line_start;
        /* Resynchronise after junk: a Content-Length header that does not
         * start its line drops what came before it. */
        for (size_t i = 1; i + 15 <= line_len; i++) {
            if (strncasecmp(line + i, "Content-Length:", 15) == 0) {
                cb->on_error(data, LSP_FRAME_BAD_HEADER, 0);
                sm_buf_consume(&f->header, line_start + i);
                f->bad_header = false;
                line_start = 0;
                line = f->header.data;
                line_len = f->header.len;
                break;
            }
        }
        /* A complete line that is not a header is junk: dropped at once. */
        if (line_len && line[line_len - 1] == '\n') {
            size_t content = line_len - 1;
            if (content && line[content - 1] == '\r')
                content--;
            if (content > 0 && !memchr(line, ':', content)) {
                cb->on_error(data, LSP_FRAME_BAD_HEADER, 0);
                f->header.len = line_start;
                f->header.data[line_start] = '\0';
                continue;
            }
        }
        /* A leading blank line between messages is tolerated. */
        if (f->header.len <= 2 && (strcmp(f->header.data, "\r\n") == 0 || strcmp(f->header.data, "\n") == 0)) {
            sm_buf_clear(&f->header);
            continue;
        }
        size_t end = lsp__header_end(&f->header);
        if (!end)
            continue;
        size_t length;
        bool ok = lsp__content_length(f->header.data, end, &length) && !f->bad_header;
        sm_buf_clear(&f->header);
        f->bad_header = false;
        if (!ok) {
            cb->on_error(data, LSP_FRAME_BAD_HEADER, 0);
            continue;
        }
        if (length > f->max_body) {
            cb->on_error(data, LSP_FRAME_TOO_BIG, length);
            f->discard = length;
            continue;
        }
        f->expected = length;
        f->in_body = true;
        if (length == 0) {
            f->in_body = false;
            cb->on_message(data, "", 0);
        }
    }
}

int lsp_frame(sm_buf *out, const char *body, size_t len)
{
    int rc = sm_buf_printf(out, "Content-Length: %zu\r\n\r\n", len);
    if (rc)
        return rc;
    return sm_buf_append(out, body, len);
}

/* The value of the 4 hex digits at json[i..i+4), or -1. */
static long lsp__hex4(const char *json, size_t len, size_t i)
{
    if (i + 4 > len)
        return -1;
    long v = 0;
    for (size_t k = i; k < i + 4; k++) {
        int c = (unsigned char)json[k], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v * 16 + d;
    }
    return v;
}

size_t lsp_json_repair_surrogates(char *json, size_t len)
{
    size_t repaired = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (json[i] != '\\')
            continue;
        if (json[i + 1] != 'u') {
            i++;   /* an escaped character (a backslash escaped is no escape's start) */
            continue;
        }
        long v = lsp__hex4(json, len, i + 2);
        if (v < 0xD800 || v > 0xDFFF) {
            i += 5;
            continue;
        }
        long next = i + 7 < len && json[i + 6] == '\\' && json[i + 7] == 'u' ? lsp__hex4(json, len, i + 8) : -1;
        if (v <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) {
            i += 11;   /* a whole pair */
            continue;
        }
        memcpy(json + i + 2, "fffd", 4);
        repaired++;
        i += 5;
    }
    return repaired;
}

bool lsp_json_has_nul(const char *json, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (json[i] != '\\')
            continue;
        if (json[i + 1] == 'u' && lsp__hex4(json, len, i + 2) == 0)
            return true;
        i++;
    }
    return false;
}
