/*
 * context.c - chunks of the project's other files, picked for a request.
 *
 * Relevance is read off names, as the tools that do this well read it:
 * a chunk that defines a name the document uses but does not define is what
 * a completion most often needs (a fill-in-the-middle model cannot invent
 * a signature it has not seen), above all a name used near the cursor or
 * one the word being typed starts; then chunks whose names are those
 * around the cursor (Jaccard similarity of the two sets of names, as
 * Copilot ranks windows of open tabs); the imported modules before the
 * open documents, the recently edited before the rest.
 */
#include "seam_context.h"

#include <stdlib.h>
#include <string.h>

enum {
    CX__NEAR_BEFORE = 12,    /* lines above the cursor whose names are "near" */
    CX__NEAR_AFTER = 3,
    CX__WINDOW_BEFORE = 40,  /* lines around the cursor that chunks are compared to */
    CX__WINDOW_AFTER = 10,
    CX__DEFAULT_LINES = 64,
    CX__DISPLACES = 2,       /* the score (a wanted definition) that may take a kept chunk's room */
    CX__OUTLINE_MAX = 1536,  /* bytes of a module's outline at most (a quarter of the budget at most) */
};

/* The end of the line that starts at text[start] (its line break, or `len`). */
static size_t cx__line_end(const char *text, size_t start, size_t len)
{
    const char *nl = memchr(text + start, '\n', len - start);
    return nl ? (size_t)(nl - text) : len;
}

/* ---- Names -------------------------------------------------------------------------- */

static bool cx__name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static bool cx__name_char(unsigned char c)
{
    return cx__name_start(c) || (c >= '0' && c <= '9');
}

static uint64_t cx__hash(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    return h ? h : 1;
}

/* A set of name hashes: open addressing, 0 is the empty slot. */
typedef struct cx__set {
    uint64_t *slots;
    uint32_t mask;
    uint32_t count;
} cx__set;

static void cx__set_init(cx__set *s)
{
    s->mask = 63;
    s->count = 0;
    s->slots = sm_calloc(s->mask + 1, sizeof *s->slots);
}

static void cx__set_free(cx__set *s)
{
    sm_free(s->slots);
    s->slots = NULL;
}

static bool cx__set_has(const cx__set *s, uint64_t h)
{
    for (uint32_t i = (uint32_t)h & s->mask;; i = (i + 1) & s->mask) {
        if (s->slots[i] == h)
            return true;
        if (s->slots[i] == 0)
            return false;
    }
}

static void cx__set_add(cx__set *s, uint64_t h);

static void cx__set_grow(cx__set *s)
{
    cx__set bigger = {sm_calloc((size_t)(s->mask + 1) * 2, sizeof *s->slots), s->mask * 2 + 1, 0};
    for (uint32_t i = 0; i <= s->mask; i++)
        if (s->slots[i])
            cx__set_add(&bigger, s->slots[i]);
    sm_free(s->slots);
    *s = bigger;
}

static void cx__set_add(cx__set *s, uint64_t h)
{
    if ((s->count + 1) * 2 > s->mask)
        cx__set_grow(s);
    uint32_t i = (uint32_t)h & s->mask;
    while (s->slots[i] && s->slots[i] != h)
        i = (i + 1) & s->mask;
    if (!s->slots[i]) {
        s->slots[i] = h;
        s->count++;
    }
}

static bool cx__word_in(const char *const *words, const char *w, size_t len);

/* Adds the hash of every name in text[from, to) to `s`, but the words a
 * definition starts with (every file has them). */
static void cx__names(const cx_rules *rules, const char *text, size_t from, size_t to, cx__set *s)
{
    for (size_t i = from; i < to;) {
        unsigned char c = (unsigned char)text[i];
        if (c >= '0' && c <= '9') {
            while (i < to && cx__name_char((unsigned char)text[i]))
                i++;
        } else if (cx__name_start(c)) {
            size_t start = i;
            while (i < to && cx__name_char((unsigned char)text[i]))
                i++;
            if (!cx__word_in(rules->definers, text + start, i - start) &&
                !cx__word_in(rules->modifiers, text + start, i - start))
                cx__set_add(s, cx__hash(text + start, i - start));
        } else {
            i++;
        }
    }
}

/* A name in lower case without underscores: `query` and `Query`,
 * `load_config` and `LoadConfig` are one (a value is often named after
 * its type or its maker). */
static uint64_t cx__folded_hash(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '_')
            continue;
        h = (h ^ (c >= 'A' && c <= 'Z' ? c + 32 : c)) * 1099511628211ull;
    }
    return h ? h : 1;
}

static void cx__folded_names(const char *text, size_t from, size_t to, cx__set *s)
{
    for (size_t i = from; i < to;) {
        if (cx__name_start((unsigned char)text[i]) && !(i > from && cx__name_char((unsigned char)text[i - 1]))) {
            size_t start = i;
            while (i < to && cx__name_char((unsigned char)text[i]))
                i++;
            if (i - start >= 3)
                cx__set_add(s, cx__folded_hash(text + start, i - start));
        } else {
            i++;
        }
    }
}

/* ---- Definitions ---------------------------------------------------------------------- */

static bool cx__word_in(const char *const *words, const char *w, size_t len)
{
    for (; words && *words; words++)
        if (strlen(*words) == len && memcmp(*words, w, len) == 0)
            return true;
    return false;
}

static size_t cx__skip_blank(const char *text, size_t i, size_t end)
{
    while (i < end && (text[i] == ' ' || text[i] == '\t'))
        i++;
    return i;
}

static size_t cx__word_end(const char *text, size_t i, size_t end)
{
    while (i < end && cx__name_char((unsigned char)text[i]))
        i++;
    return i;
}

/* The name line text[start, end) defines: *name and *name_len, false when
 * none.  A definer word (after modifiers) followed by a name, at any
 * indentation; or, at the top level, `NAME =` (not `==`) or `NAME: ` with
 * something after the colon (an annotated assignment, not a block). */
static bool cx__line_defines(const cx_rules *rules, const char *text, size_t start, size_t end, const char **name,
                             size_t *name_len)
{
    size_t i = cx__skip_blank(text, start, end);
    bool top = i == start;
    for (int words = 0; words < 6 && i < end && cx__name_start((unsigned char)text[i]); words++) {
        size_t w = cx__word_end(text, i, end);
        if (cx__word_in(rules->modifiers, text + i, w - i)) {
            i = cx__skip_blank(text, w, end);
            continue;
        }
        if (cx__word_in(rules->definers, text + i, w - i)) {
            size_t n = cx__skip_blank(text, w, end);
            while (n < end && text[n] == '*')   /* function* gen() */
                n = cx__skip_blank(text, n + 1, end);
            if (n >= end || !cx__name_start((unsigned char)text[n]))
                return false;
            *name = text + n;
            *name_len = cx__word_end(text, n, end) - n;
            return true;
        }
        if (!top || words > 0)
            return false;
        size_t after = cx__skip_blank(text, w, end);
        bool assigns = after + 1 < end && text[after] == '=' && text[after + 1] != '=';
        bool annotated = after + 1 < end && text[after] == ':' && cx__skip_blank(text, after + 1, end) < end &&
                         text[cx__skip_blank(text, after + 1, end)] != '#';
        if (assigns || annotated) {
            *name = text + i;
            *name_len = w - i;
            return true;
        }
        return false;
    }
    return false;
}

/* Calls add(name) for every name text[0..len) defines. */
static void cx__definitions(const cx_rules *rules, const char *text, size_t len, cx__set *out)
{
    for (size_t start = 0; start < len;) {
        size_t end = cx__line_end(text, start, len);
        const char *name;
        size_t name_len;
        if (cx__line_defines(rules, text, start, end, &name, &name_len))
            cx__set_add(out, cx__hash(name, name_len));
        start = end + 1;
    }
}

bool cx_defines(const cx_rules *rules, const char *text, size_t len, const char *name, size_t name_len)
{
    cx__set s;
    cx__set_init(&s);
    cx__definitions(rules, text, len, &s);
    bool has = cx__set_has(&s, cx__hash(name, name_len));
    cx__set_free(&s);
    return has;
}

/* ---- The document ------------------------------------------------------------------- */

/* What the text around the cursor asks for. */
typedef struct cx__want {
    cx__set near;      /* names used near the cursor */
    cx__set used;      /* names used anywhere in the document */
    cx__set own;       /* names the document defines */
    cx__set window;    /* names around the cursor, to compare chunks with */
    cx__set imported;  /* names on the document's import lines */
    cx__set near_folded; /* the names near the cursor in lower case, without underscores */
    const char *partial;   /* the name being typed at the cursor */
    size_t partial_len;
    const char *qualifier; /* the name before a dot before it (`json.lo`: json), or NULL */
    size_t qualifier_len;
} cx__want;

/* The start of the line `lines` lines above the cursor's (lines < 0), or
 * the end of the line `lines` lines below it (lines >= 0). */
static size_t cx__lines_from(const char *text, size_t len, size_t offset, int lines)
{
    size_t at = offset;
    if (lines < 0) {
        while (at > 0 && text[at - 1] != '\n')
            at--;
        for (int n = 0; n < -lines && at > 0; n++) {
            at--;
            while (at > 0 && text[at - 1] != '\n')
                at--;
        }
        return at;
    }
    for (int n = 0; at < len; at++)
        if (text[at] == '\n' && n++ == lines)
            return at;
    return len;
}

/* The names on the lines that import (a line that starts with `import` or
 * `from`, or an `export ... from`): what the document takes from other
 * files by name. */
static void cx__import_names(const cx_rules *rules, const char *text, size_t len, cx__set *out)
{
    for (size_t start = 0; start < len;) {
        size_t end = cx__line_end(text, start, len);
        size_t i = cx__skip_blank(text, start, end);
        size_t w = cx__word_end(text, i, end);
        bool imports = (w - i == 6 && memcmp(text + i, "import", 6) == 0) ||
                       (w - i == 4 && memcmp(text + i, "from", 4) == 0);
        if (imports) {
            /* a Python `from x import (` or a JavaScript `import {` goes on
             * to the closing bracket */
            size_t stop = end;
            for (size_t k = i; k < end; k++) {
                if (text[k] == '(' || text[k] == '{') {
                    const char *close = memchr(text + k, text[k] == '(' ? ')' : '}', len - k);
                    stop = close ? (size_t)(close - text) : end;
                    break;
                }
            }
            cx__names(rules, text, i, stop, out);
            end = stop > end ? stop : end;
        }
        start = end + 1;
    }
}

/* Whether a source is the module `name` names: its file's name without
 * the ending, or its folder's for an __init__ or index file. */
static bool cx__source_is(const cx_source *s, const char *name, size_t len)
{
    const char *path = s->path, *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strchr(base, '.');
    size_t base_len = dot ? (size_t)(dot - base) : strlen(base);
    if ((base_len == 8 && memcmp(base, "__init__", 8) == 0) || (base_len == 5 && memcmp(base, "index", 5) == 0)) {
        if (!slash)
            return false;
        const char *dir = slash;
        while (dir > path && dir[-1] != '/')
            dir--;
        base = dir;
        base_len = (size_t)(slash - dir);
    }
    return base_len == len && memcmp(base, name, len) == 0;
}

static void cx__want_init(const cx_rules *rules, const cx_query *q, cx__want *w)
{
    cx__set_init(&w->near);
    cx__set_init(&w->used);
    cx__set_init(&w->own);
    cx__set_init(&w->window);
    cx__names(rules, q->text, 0, q->len, &w->used);
    cx__definitions(rules, q->text, q->len, &w->own);
    cx__names(rules, q->text, cx__lines_from(q->text, q->len, q->offset, -CX__NEAR_BEFORE),
              cx__lines_from(q->text, q->len, q->offset, CX__NEAR_AFTER), &w->near);
    cx__names(rules, q->text, cx__lines_from(q->text, q->len, q->offset, -CX__WINDOW_BEFORE),
              cx__lines_from(q->text, q->len, q->offset, CX__WINDOW_AFTER), &w->window);
    cx__set_init(&w->imported);
    cx__import_names(rules, q->text, q->len, &w->imported);
    cx__set_init(&w->near_folded);
    cx__folded_names(q->text, cx__lines_from(q->text, q->len, q->offset, -CX__NEAR_BEFORE),
                     cx__lines_from(q->text, q->len, q->offset, CX__NEAR_AFTER), &w->near_folded);
    size_t start = q->offset;
    while (start > 0 && cx__name_char((unsigned char)q->text[start - 1]))
        start--;
    w->partial = q->text + start;
    w->partial_len = q->offset - start;
    w->qualifier = NULL;
    w->qualifier_len = 0;
    if (start > 1 && q->text[start - 1] == '.') {
        size_t from = start - 1;
        while (from > 0 && cx__name_char((unsigned char)q->text[from - 1]))
            from--;
        if (from < start - 1) {
            w->qualifier = q->text + from;
            w->qualifier_len = start - 1 - from;
        }
    }
}

static void cx__want_free(cx__want *w)
{
    cx__set_free(&w->near);
    cx__set_free(&w->used);
    cx__set_free(&w->own);
    cx__set_free(&w->window);
    cx__set_free(&w->imported);
    cx__set_free(&w->near_folded);
}

/* ---- Chunks -------------------------------------------------------------------------- */

typedef struct cx__cand {
    const cx_source *source;
    size_t from, to;       /* the chunk is source->text[from, to) */
    uint32_t line;
    double score;
    uint64_t key;
    uint64_t text_hash;
    bool kept;             /* in memory: picked last time */
    uint32_t kept_at;      /* its place there */
    double file_best;      /* the best score of its file's picked chunks */
    bool outline;          /* a module's outline, not a run of its lines */
} cx__cand;

typedef SM_ARRAY(cx__cand) cx__cands;

static bool cx__blank(const char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
            return false;
    return true;
}

/* A line that starts a chunk: a definition at the top level, or the first
 * of the decorators above one. */
static bool cx__starts_chunk(const cx_rules *rules, const char *text, size_t start, size_t end, bool after_decorator)
{
    if (start >= end || text[start] == ' ' || text[start] == '\t')
        return false;
    if (text[start] == '@')
        return !after_decorator;
    const char *name;
    size_t name_len;
    return !after_decorator && cx__line_defines(rules, text, start, end, &name, &name_len);
}

static void cx__add_cand(const cx_source *s, size_t from, size_t to, uint32_t line, cx__cands *out)
{
    if (to <= from || cx__blank(s->text, from, to))
        return;
    /* without the blank lines at its end: bytes the model needs not */
    size_t end = to;
    while (end > from && strchr(" \t\r\n", s->text[end - 1]))
        end--;
    const char *nl = memchr(s->text + end, '\n', to - end);
    to = nl ? (size_t)(nl - s->text) + 1 : to;
    cx__cand c = {.source = s, .from = from, .to = to, .line = line};
    c.text_hash = cx__hash(s->text + from, to - from);
    c.key = cx__hash(s->path, strlen(s->path)) * 31 + line;
    c.key = c.key * 1099511628211ull ^ c.text_hash;
    sm_array_push(out, c);
}

/* Cuts a source into chunks: a new one at each top-level definition, none
 * longer than max_lines lines. */
static void cx__chunks(const cx_rules *rules, const cx_source *s, uint32_t max_lines, cx__cands *out)
{
    size_t from = 0;
    uint32_t from_line = 0, line = 0;
    bool decorated = false;
    for (size_t start = 0; start < s->len; line++) {
        size_t end = cx__line_end(s->text, start, s->len);
        bool starts = cx__starts_chunk(rules, s->text, start, end, decorated);
        decorated = start < end && s->text[start] == '@';
        if ((starts && start > from) || line - from_line >= max_lines) {
            cx__add_cand(s, from, start, from_line, out);
            from = start;
            from_line = line;
        }
        start = end + 1;
    }
    cx__add_cand(s, from, s->len, from_line, out);
}

/* The chunk's score: the names it defines that the document wants, its
 * likeness to the text around the cursor, and where it comes from; 0 when
 * it neither defines a name wanted nor is like enough the text around the
 * cursor (less alike will do for a chunk the prompt holds already: what
 * the model server has cached stays while it is still of some use). */
static double cx__score(const cx_rules *rules, const cx__want *w, const cx__cand *c)
{
    const char *text = c->source->text;
    double wanted = 0;
    /* `json.` before the cursor: what json's file defines */
    bool qualified = w->qualifier && cx__source_is(c->source, w->qualifier, w->qualifier_len);
    for (size_t start = c->from; start < c->to;) {
        size_t end = cx__line_end(text, start, c->to);
        const char *name;
        size_t len;
        if (cx__line_defines(rules, text, start, end, &name, &len)) {
            uint64_t h = cx__hash(name, len);
            if (!cx__set_has(&w->own, h)) {
                if (cx__set_has(&w->near, h))
                    wanted += 3;
                else if (cx__set_has(&w->near_folded, cx__folded_hash(name, len)))
                    wanted += 2.5;
                else if (cx__set_has(&w->imported, h))
                    wanted += 2;
                else if (cx__set_has(&w->used, h))
                    wanted += 1;
            }
            if (qualified)
                wanted += 1.5;
            if (w->partial_len >= 2 && len >= w->partial_len && memcmp(name, w->partial, w->partial_len) == 0)
                wanted += 2;
        }
        start = end + 1;
    }
    if (wanted > 6)
        wanted = 6;
    cx__set names;
    cx__set_init(&names);
    cx__names(rules, text, c->from, c->to, &names);
    uint32_t shared = 0;
    for (uint32_t i = 0; i <= names.mask; i++)
        shared += names.slots[i] && cx__set_has(&w->window, names.slots[i]);
    uint32_t all = names.count + w->window.count - shared;
    double like = all ? (double)shared / all : 0;
    cx__set_free(&names);
    if (wanted == 0 && like < (c->kept ? 0.05 : 0.1))
        return 0;
    /* of two chunks as wanted, the smaller leaves room for more */
    if (wanted > 0)
        wanted -= 0.5 * (double)(c->to - c->from) / 4096;
    double origin = c->source->origin == CX_IMPORTED ? 0.3 : c->source->origin == CX_OPEN ? 0.2 : 0.1;
    origin -= 0.02 * (c->source->age < 5 ? c->source->age : 5);
    return wanted + like + origin;
}

static int cx__by_score(const void *a, const void *b)
{
    const cx__cand *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    if (x->source->origin != y->source->origin)
        return (int)x->source->origin - (int)y->source->origin;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The prompt's order: the chunks kept from last time in their old order,
 * then the new ones a file at a time, in the file's order, the file with
 * the best chunk last (nearest the document). */
static int cx__by_order(const void *a, const void *b)
{
    const cx__cand *x = a, *y = b;
    if (x->kept != y->kept)
        return x->kept ? -1 : 1;
    if (x->kept)
        return x->kept_at < y->kept_at ? -1 : 1;
    if (x->file_best != y->file_best)
        return x->file_best < y->file_best ? -1 : 1;
    int path = strcmp(x->source->path, y->source->path);
    if (path)
        return path;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void cx__file_best(cx__cands *taken)
{
    for (uint32_t i = 0; i < taken->size; i++) {
        cx__cand *c = &taken->items[i];
        c->file_best = 0;
        for (uint32_t k = 0; k < taken->size; k++)
            if (taken->items[k].source == c->source && taken->items[k].score > c->file_best)
                c->file_best = taken->items[k].score;
    }
}

static bool cx__holds_banned(const char *const *banned, const char *text, size_t len)
{
    for (; banned && *banned; banned++) {
        size_t n = strlen(*banned);
        for (size_t i = 0; n && i + n <= len; i++)
            if (text[i] == (*banned)[0] && memcmp(text + i, *banned, n) == 0)
                return true;
    }
    return false;
}

static void cx__mark_kept(const cx_memory *memory, cx__cand *c)
{
    for (uint32_t i = 0; memory && i < memory->keys.size; i++) {
        if (memory->keys.items[i] == c->key) {
            c->kept = true;
            c->kept_at = i;
            return;
        }
    }
}

static bool cx__taken(const cx__cands *taken, uint64_t text_hash)
{
    for (uint32_t i = 0; i < taken->size; i++)
        if (taken->items[i].text_hash == text_hash)
            return true;
    return false;
}

/* Whether taken[i] follows taken[i - 1] in its file with nothing between
 * (a definition cut in two, or a function and the next): then it is
 * appended to the chunk emitted last, one file entry in the prompt. */
static bool cx__joins(const cx__cands *taken, uint32_t i, cx_picked *out)
{
    if (i == 0 || !out->chunks.size)
        return false;
    const cx__cand *c = &taken->items[i], *prev = &taken->items[i - 1];
    if (prev->source != c->source || prev->to > c->from || c->source->text[prev->to - 1] != '\n' ||
        !cx__blank(c->source->text, prev->to, c->from))
        return false;
    cx_chunk *last = sm_array_back(&out->chunks);
    size_t len = c->to - c->from;
    bool closed = c->source->text[c->to - 1] == '\n';
    last->text = sm_realloc(last->text, last->len + len + 3);
    if (c->from > prev->to) {   /* the blank lines between: one */
        last->text[last->len++] = '\n';
        out->bytes++;
    }
    memcpy(last->text + last->len, c->source->text + c->from, len);
    if (!closed)
        last->text[last->len + len++] = '\n';
    last->len += len;
    last->text[last->len] = '\0';
    if (c->score > last->score)
        last->score = c->score;
    out->bytes += len;
    return true;
}

static void cx__emit(const cx__cands *taken, cx_memory *memory, cx_picked *out)
{
    if (memory)
        sm_array_clear(&memory->keys);
    for (uint32_t i = 0; i < taken->size; i++) {
        const cx__cand *c = &taken->items[i];
        if (memory)
            sm_array_push(&memory->keys, c->key);
        if (cx__joins(taken, i, out)) {
            continue;
        }
        size_t len = c->to - c->from;
        bool closed = c->source->text[c->to - 1] == '\n';
        cx_chunk chunk = {.path = sm_strdup(c->source->path), .len = len + !closed, .line = c->line,
                          .score = c->score, .origin = c->source->origin, .outline = c->outline};
        chunk.text = sm_malloc(chunk.len + 1);
        memcpy(chunk.text, c->source->text + c->from, len);
        if (!closed)
            chunk.text[len] = '\n';
        chunk.text[chunk.len] = '\0';
        out->bytes += chunk.len;
        sm_array_push(&out->chunks, chunk);
    }
}

/* The outline of a module the document imports: its definition lines at
 * the top level and one level in (a class's methods), in file order, at
 * most `max` bytes; as a source of its own (its text owned by the caller),
 * one chunk.  A model that sees a module's signatures can call what it
 * does not see whole, as a declaration file tells a compiler. */
static bool cx__outline(const cx_rules *rules, const cx_source *s, size_t max, cx_source *out)
{
    sm_buf buf;
    sm_buf_init(&buf, max);
    for (size_t start = 0; start < s->len;) {
        size_t end = cx__line_end(s->text, start, s->len);
        const char *name;
        size_t name_len;
        size_t indent = cx__skip_blank(s->text, start, end) - start;
        if (indent <= 4 && cx__line_defines(rules, s->text, start, end, &name, &name_len)) {
            size_t stop = end;
            while (stop > start && (s->text[stop - 1] == ' ' || s->text[stop - 1] == '\r'))
                stop--;
            if (sm_buf_append(&buf, s->text + start, stop - start) != SM_OK || sm_buf_append(&buf, "\n", 1) != SM_OK)
                break;
        }
        start = end + 1;
    }
    if (!buf.len) {
        sm_buf_free(&buf);
        return false;
    }
    *out = *s;
    out->len = buf.len;
    out->text = sm_buf_take(&buf, NULL);
    return true;
}

static size_t cx__cost(const cx__cand *c)
{
    return c->to - c->from + 1;
}

static bool cx__usable(const cx__cand *c, const char *const *banned, const cx__cands *taken)
{
    return c->score > 0 && !cx__taken(taken, c->text_hash) &&
           !cx__holds_banned(banned, c->source->text + c->from, c->to - c->from);
}

static int cx__by_kept_at(const void *a, const void *b)
{
    const cx__cand *x = a, *y = b;
    return x->kept_at < y->kept_at ? -1 : x->kept_at > y->kept_at;
}

/* Fills `taken` within the budget.  The chunks the prompt held last time
 * come first, in their order (the model server has them cached); then new
 * ones, best first, where there is room.  A new chunk that defines a name
 * the document wants may take the room of kept ones it outranks, from the
 * end of the prompt's order back, so that the cached prefix stays as long
 * as it can.  cands is sorted best first. */
static void cx__select(const cx__cands *cands, size_t budget, const char *const *banned, cx__cands *taken)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < cands->size; i++) {
        const cx__cand *c = &cands->items[i];
        if (c->kept && cx__usable(c, banned, taken) && bytes + cx__cost(c) <= budget) {
            bytes += cx__cost(c);
            sm_array_push(taken, *c);
        }
    }
    if (taken->size)
        qsort(taken->items, taken->size, sizeof *taken->items, cx__by_kept_at);
    for (uint32_t i = 0; i < cands->size; i++) {
        const cx__cand *c = &cands->items[i];
        if (c->kept || !cx__usable(c, banned, taken) || cx__cost(c) > budget)
            continue;
        size_t need = bytes + cx__cost(c);
        uint32_t keep = taken->size;
        while (need > budget && c->score >= CX__DISPLACES && keep > 0 && taken->items[keep - 1].kept &&
               taken->items[keep - 1].score + 1 < c->score)
            need -= cx__cost(&taken->items[--keep]);
        if (need > budget)
            continue;
        taken->size = keep;
        bytes = need;
        sm_array_push(taken, *c);
    }
}

/* Whether every line of outline `o` stands in a chunk of its file that is
 * taken whole: then it tells the model nothing new. */
static bool cx__outline_covered(const cx__cands *taken, const cx__cand *o)
{
    const char *text = o->source->text;
    for (size_t start = o->from; start < o->to;) {
        size_t end = cx__line_end(text, start, o->to);
        bool found = false;
        for (uint32_t i = 0; i < taken->size && !found; i++) {
            const cx__cand *c = &taken->items[i];
            if (c->outline || strcmp(c->source->path, o->source->path) != 0)
                continue;
            found = memmem(c->source->text + c->from, c->to - c->from, text + start, end - start) != NULL;
        }
        if (!found)
            return false;
        start = end + 1;
    }
    return true;
}

static void cx__drop_covered_outlines(cx__cands *taken)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < taken->size; i++)
        if (!taken->items[i].outline || !cx__outline_covered(taken, &taken->items[i]))
            taken->items[kept++] = taken->items[i];
    taken->size = kept;
}

void cx_pick(const cx_rules *rules, const cx_query *query, const cx_source *sources, size_t n_sources,
             const char *const *banned, cx_memory *memory, cx_picked *out)
{
    cx_picked_free(out);
    uint32_t max_lines = query->chunk_lines ? query->chunk_lines : CX__DEFAULT_LINES;
    cx__cands cands = {0}, taken = {0};
    cx_source *outlines = n_sources ? sm_calloc(n_sources, sizeof *outlines) : NULL;
    size_t n_outlines = 0;
    size_t outline_max = query->budget / 4 < CX__OUTLINE_MAX ? query->budget / 4 : CX__OUTLINE_MAX;
    cx__want want;
    cx__want_init(rules, query, &want);
    for (size_t i = 0; i < n_sources; i++) {
        if (!sources[i].path || !sources[i].text || (query->path && strcmp(sources[i].path, query->path) == 0))
            continue;
        cx__chunks(rules, &sources[i], max_lines, &cands);
        if (sources[i].origin == CX_IMPORTED && outline_max &&
            cx__outline(rules, &sources[i], outline_max, &outlines[n_outlines])) {
            size_t before = cands.size;
            cx__add_cand(&outlines[n_outlines], 0, outlines[n_outlines].len, 0, &cands);
            for (size_t k = before; k < cands.size; k++)
                cands.items[k].outline = true;
            n_outlines++;
        }
    }
    for (uint32_t i = 0; i < cands.size; i++) {
        cx__cand *c = &cands.items[i];
        cx__mark_kept(memory, c);
        c->score = cx__score(rules, &want, c);
        /* What the prompt holds stays until better chunks need its room:
         * dropped, it would take every chunk after it out of the model
         * server's cache.  Where the person works on, chunks that define
         * the names used there outrank it. */
        if (c->kept)
            c->score = (c->score > 0.05 ? c->score : 0.05) + 1.0;
    }
    cx__want_free(&want);
    if (cands.size)
        qsort(cands.items, cands.size, sizeof *cands.items, cx__by_score);
    cx__select(&cands, query->budget, banned, &taken);
    cx__drop_covered_outlines(&taken);
    cx__file_best(&taken);
    if (taken.size)
        qsort(taken.items, taken.size, sizeof *taken.items, cx__by_order);
    cx__emit(&taken, memory, out);
    sm_array_free(&cands);
    sm_array_free(&taken);
    for (size_t i = 0; i < n_outlines; i++)
        sm_free((char *)outlines[i].text);
    sm_free(outlines);
}

/* ---- Ownership ------------------------------------------------------------------------ */

void cx_picked_init(cx_picked *picked)
{
    sm_array_init(&picked->chunks);
    picked->bytes = 0;
}

void cx_picked_free(cx_picked *picked)
{
    for (uint32_t i = 0; i < picked->chunks.size; i++) {
        sm_free(picked->chunks.items[i].path);
        sm_free(picked->chunks.items[i].text);
    }
    sm_array_free(&picked->chunks);
    picked->bytes = 0;
}

void cx_memory_free(cx_memory *memory)
{
    sm_array_free(&memory->keys);
}

const char *cx_origin_name(cx_origin origin)
{
    switch (origin) {
    case CX_IMPORTED: return "imported";
    case CX_OPEN: return "open";
    case CX_EDITED: return "edited";
    }
    return "?";
}
