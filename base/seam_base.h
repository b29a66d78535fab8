/*
 * seam_base.h - the basics every seam module shares.
 *
 * Error codes, allocation with one out-of-memory policy, a typed growable
 * array, a byte buffer with a size cap, bounded UTF-8 decoding and a levelled
 * logger.  Nothing here keeps global mutable state except the allocation
 * fault-injection counter, which exists for tests only (see sm_alloc_fail_after).
 */
#ifndef SEAM_BASE_H
#define SEAM_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Errors ------------------------------------------------------------ */

/* Every fallible seam function returns 0 or one of these negative codes. */
enum {
    SM_OK = 0,
    SM_ENOMEM = -1,   /* an allocation failed */
    SM_ETOOBIG = -2,  /* a capped buffer or a limit would be exceeded */
    SM_EINVAL = -3,   /* an argument or input is malformed */
    SM_EUTF8 = -4,    /* text is not valid UTF-8 (or holds a NUL byte) */
    SM_EIO = -5,      /* a read or write failed */
    SM_ERANGE = -6,   /* a position or index lies outside its text */
    SM_ENOTFOUND = -7,
    SM_ECANCELED = -8,
    SM_ETIMEDOUT = -9,
};

/* A short, static English description of an SM_* code. */
const char *sm_strerror(int code);

/* ---- Allocation ---------------------------------------------------------
 *
 * The out-of-memory policy, written once:
 *  - sm_malloc, sm_calloc, sm_realloc and sm_strdup are for seam's own
 *    bounded structures.  When they fail, the process prints a message to
 *    stderr and aborts: every buffer whose size comes from outside is capped,
 *    so running out here means the machine itself is out of memory.
 *  - sm_try_malloc and sm_try_realloc return NULL instead.  They are used
 *    where the size comes from outside (a document, a message, an HTTP body),
 *    and the caller answers with SM_ENOMEM rather than dying.
 * Memory from either family is released with sm_free.
 */
void *sm_malloc(size_t size);
void *sm_calloc(size_t count, size_t size);
void *sm_realloc(void *ptr, size_t size);
char *sm_strdup(const char *text);
char *sm_strndup(const char *text, size_t len);
void *sm_try_malloc(size_t size);
void *sm_try_realloc(void *ptr, size_t size);
/* Asks the kernel to back ptr[0..size), a block about to be filled whole
 * (a model read from a file), with huge pages where it can: one fault per
 * 2 MiB instead of per 4 KiB.  A hint only; nothing changes if refused. */
void sm_advise_filled(void *ptr, size_t size);
void sm_free(void *ptr);

/* Tests only: after `count` more successful allocations, every allocation
 * fails (the aborting family aborts, the try family returns NULL).  A
 * negative count turns injection off.  Not thread-safe by design. */
void sm_alloc_fail_after(long count);

/* ---- Typed growable array ----------------------------------------------
 *
 * SM_ARRAY(T) declares a struct { T *items; uint32_t size, capacity; }.
 * The array owns `items`; release it with sm_array_free.  Growth goes through
 * sm_malloc's policy.  Elements move when the array grows: never keep a
 * pointer into it across a push.
 */
#define SM_ARRAY(T) struct { T *items; uint32_t size; uint32_t capacity; }

#define sm_array_init(a) ((a)->items = NULL, (a)->size = 0, (a)->capacity = 0)
#define sm_array_free(a) (sm_free((a)->items), sm_array_init(a))
#define sm_array_clear(a) ((a)->size = 0)
#define sm_array_reserve(a, n) \
    sm__array_reserve((void **)&(a)->items, &(a)->capacity, sizeof(*(a)->items), (n))
#define sm_array_grow_by(a, n) \
    (sm_array_reserve((a), (a)->size + (n)), (a)->size += (n))
#define sm_array_push(a, value) \
    (sm_array_reserve((a), (a)->size + 1), (a)->items[(a)->size++] = (value))
#define sm_array_pop(a) ((a)->items[--(a)->size])
#define sm_array_back(a) (&(a)->items[(a)->size - 1])
#define sm_array_get(a, i) (&(a)->items[(i)])

/* Makes room for at least `need` elements; aborts per the allocation policy
 * on failure or when `need` does not fit in 32 bits. */
void sm__array_reserve(void **items, uint32_t *capacity, size_t elem_size, uint64_t need);

/* ---- Capped byte buffer --------------------------------------------------
 *
 * For everything filled from outside.  The buffer never grows past `max`
 * bytes; appends that would return SM_ETOOBIG and leave it unchanged.  The
 * data is always followed by a NUL byte (not counted in len) so that text
 * can be handed to C string functions.
 */
typedef struct sm_buf {
    char *data;   /* owned; NULL until the first append */
    size_t len;
    size_t cap;
    size_t max;   /* hard cap on len */
} sm_buf;

void sm_buf_init(sm_buf *buf, size_t max);
int sm_buf_append(sm_buf *buf, const void *bytes, size_t len);
int sm_buf_append_str(sm_buf *buf, const char *text);
int sm_buf_printf(sm_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Removes the first `count` bytes (a consumed message, say). */
void sm_buf_consume(sm_buf *buf, size_t count);
void sm_buf_clear(sm_buf *buf);
/* Hands the data to the caller (free with sm_free) and empties the buffer. */
char *sm_buf_take(sm_buf *buf, size_t *len_out);
void sm_buf_free(sm_buf *buf);
/* Fixed-width numbers appended in the machine's byte order, for files
 * only this build reads back (the cache folder's entries). */
int sm_buf_append_u32(sm_buf *buf, uint32_t value);
int sm_buf_append_u64(sm_buf *buf, uint64_t value);

/* A cursor over bytes laid out with those appends: each read past the end
 * clears `ok` and yields NULL or 0, and so do all reads after it, so that
 * a reader checks `ok` once at the end. */
typedef struct sm_reader {
    const uint8_t *at, *end;
    bool ok;
} sm_reader;
void sm_reader_init(sm_reader *reader, const void *data, size_t len);
/* The next `len` bytes (borrowed from the data), or NULL past the end. */
const void *sm_read_bytes(sm_reader *reader, size_t len);
/* Copies the next `len` bytes into `to` (zeros past the end; `to` may be
 * NULL when len is 0). */
void sm_read_into(sm_reader *reader, void *to, size_t len);
uint32_t sm_read_u32(sm_reader *reader);
uint64_t sm_read_u64(sm_reader *reader);

/* Reads the file at path into out (initialised here, capped at `max`
 * bytes), never waiting to open it.  SM_EIO (errno set) when it cannot be
 * read, SM_EINVAL when it is not a regular file (a FIFO, a device, a
 * folder), SM_ETOOBIG when it is larger; out is empty on error. */
int sm_read_file(const char *path, size_t max, sm_buf *out);

/* ---- UTF-8 ----------------------------------------------------------------
 *
 * Decoding never reads past `len`.  Overlong forms, surrogates and code
 * points above U+10FFFF are invalid.
 */

/* Decodes one code point from text[0..len).  Returns the number of bytes it
 * used (1 to 4) and stores the code point, or returns SM_EUTF8 when the
 * bytes are not a complete valid sequence (and SM_EINVAL when len is 0). */
int sm_utf8_decode(const uint8_t *text, size_t len, uint32_t *code_point);

/* Mixes the bits of a 64-bit key (MurmurHash3's finalizer), for hash
 * tables and keys made of several parts. */
static inline uint64_t sm_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* The value of a hexadecimal digit, or -1 when c is none. */
static inline int sm_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Writes the UTF-8 form of code_point into out (4 bytes of room); returns
 * its length, or 0 for a value that is not a Unicode scalar value. */
int sm_utf8_encode(uint32_t code_point, uint8_t out[4]);

/* Whether text[0..len) is valid UTF-8.  If allow_nul is false a NUL byte
 * makes it invalid.  On failure *bad_offset (if given) is the first bad byte. */
bool sm_utf8_valid(const uint8_t *text, size_t len, bool allow_nul, size_t *bad_offset);

/* The length of the longest prefix of text[0..len) that ends on a code point
 * boundary (so that truncating there never splits a sequence). */
size_t sm_utf8_boundary_before(const uint8_t *text, size_t len);

/* Replaces, in place, every byte of the NUL-terminated `text` that is not
 * part of valid UTF-8 with '?', so that text from outside (a model
 * server's error body, say) can go into JSON.  Returns how many. */
size_t sm_utf8_scrub(char *text);

/* Whether brackets ( [ { nest deeper than `limit` anywhere in text[0..len)
 * (counted roughly: brackets inside strings and comments count too).
 * Debian's libtree-sitter corrupts its heap on some 65,000 open brackets:
 * a text this deep is not given to it (CPython refuses 200). */
#define SM_TREE_SITTER_MAX_DEPTH 4096
bool sm_brackets_deeper_than(const char *text, size_t len, uint32_t limit);

/* Whether tree-sitter is given text[0..len): not too deep (above), and no
 * larger than SM_TREE_SITTER_MAX_BYTES, since its tree costs some 40 bytes
 * a byte of text and a full parse some 90 ms a MiB.  A larger document
 * has no tree: its scope comes from the lexical scan alone, and the
 * semantic pruners do not read it. */
#define SM_TREE_SITTER_MAX_BYTES ((size_t)8 << 20)
bool sm_tree_sitter_takes(const char *text, size_t len);

/* ---- Logging ------------------------------------------------------------ */

typedef enum sm_log_level {
    SM_LOG_ERROR = 0,
    SM_LOG_WARN,
    SM_LOG_INFO,
    SM_LOG_DEBUG,
    SM_LOG_TRACE,
} sm_log_level;

/* A logger writes lines "seam LEVEL: message" to stderr and, optionally, to
 * a file.  It never writes to stdout, which in server mode carries the
 * protocol.  The caller owns the struct; sm_logger_close closes the file. */
typedef struct sm_logger {
    sm_log_level level;
    FILE *file;          /* owned when not NULL */
    bool to_stderr;
} sm_logger;

void sm_logger_init(sm_logger *log, sm_log_level level);
/* Also appends to `path`; returns SM_EIO if it cannot be opened. */
int sm_logger_open_file(sm_logger *log, const char *path);
void sm_logger_close(sm_logger *log);
/* Parses "error", "warn", "info", "debug" or "trace"; returns SM_EINVAL otherwise. */
int sm_log_level_parse(const char *name, sm_log_level *level);
const char *sm_log_level_name(sm_log_level level);
void sm_log(sm_logger *log, sm_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sm_logv(sm_logger *log, sm_log_level level, const char *fmt, va_list args);

/* ---- Time ----------------------------------------------------------------*/

/* Monotonic time in nanoseconds. */
uint64_t sm_now_ns(void);

#endif
