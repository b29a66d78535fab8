/*
 * seam_context.h - the rest of the project as the model's context (cx_).
 *
 * A fill-in-the-middle model can only write a name it has seen.  This
 * module picks, from the other files of the project a request offers (the
 * modules the document imports, the other open documents, recently edited
 * ones), the chunks most likely to hold what the cursor needs: the
 * definitions of the names the document uses and does not define itself
 * first (those near the cursor above all), then text like the text around
 * the cursor.  It reads no file and knows no language: the caller passes
 * the texts, and the words a definition starts with.
 *
 * The chunks keep their order from one request to the next while they stay
 * picked (cx_memory), so that a model server's prompt cache, or the
 * in-process backend's cached sequence, reuses the prompt up to the first
 * chunk that changed; new chunks come after the kept ones.
 */
#ifndef SEAM_CONTEXT_H
#define SEAM_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seam_base.h"

/* Where a source comes from; the order is the order of preference when
 * scores tie. */
typedef enum cx_origin {
    CX_IMPORTED = 0,   /* a module the document imports */
    CX_OPEN,           /* another open document */
    CX_EDITED,         /* a document edited recently, now closed */
} cx_origin;

const char *cx_origin_name(cx_origin origin);

/* A file offered as context.  Borrowed for the duration of cx_pick. */
typedef struct cx_source {
    const char *path;      /* relative to the workspace: the name the model sees */
    const char *text;
    size_t len;
    cx_origin origin;
    uint32_t age;          /* 0: the most recently edited of its origin; higher, older */
} cx_source;

/* What differs by language: the words a definition starts with ("def",
 * "function", "interface") and those that may stand before them
 * ("export", "async"), both NULL-terminated.  A line at the file's top
 * level of the form `NAME =` (or `NAME:`) defines NAME too. */
typedef struct cx_rules {
    const char *const *definers;
    const char *const *modifiers;
} cx_rules;

/* One chunk picked: a run of a source's lines. */
typedef struct cx_chunk {
    char *path;            /* owned */
    char *text;            /* owned; ends with a line break */
    size_t len;
    uint32_t line;         /* its first line in the file, from 0 */
    double score;
    cx_origin origin;
    bool outline;          /* an imported module's outline: its definition lines only */
} cx_chunk;

/* The chunks picked, in the order the prompt gives them. */
typedef struct cx_picked {
    SM_ARRAY(cx_chunk) chunks;
    size_t bytes;          /* of their texts */
} cx_picked;

void cx_picked_init(cx_picked *picked);
void cx_picked_free(cx_picked *picked);

/* The chunks of the last request, in their order: their keys (path, first
 * line and a hash of the text).  Owned by whoever sends the prompts (one
 * per model server: its cache holds the last prompt whatever the
 * document); zero-initialise, free with cx_memory_free. */
typedef struct cx_memory {
    SM_ARRAY(uint64_t) keys;
} cx_memory;

void cx_memory_free(cx_memory *memory);

/* A request: the document, the cursor, and the room for chunks. */
typedef struct cx_query {
    const char *text;      /* the document, borrowed */
    size_t len;
    size_t offset;         /* the cursor, a byte offset into text */
    const char *path;      /* the document's own path (relative); its chunks are never picked */
    size_t budget;         /* bytes of chunk text at most */
    uint32_t chunk_lines;  /* lines in a chunk at most (0: 64) */
} cx_query;

/* Cuts each source into chunks (a definition at its top level with what
 * follows it up to the next, at most chunk_lines lines; and for a module
 * the document imports, its outline: the lines that define a name at its
 * top level or one level in, a quarter of the budget at most), scores them
 * against the text around the cursor, and fills `out` (initialised by the
 * caller, emptied here) with the best that fit the budget.  Chunks of the
 * document itself, chunks with no line of text, and chunks whose text
 * another picked chunk already holds are left out, and so is a chunk whose
 * text holds one of `banned` (NULL-terminated, may be NULL: the model's
 * control strings, which a prompt must not carry as text).  Chunks picked
 * last time (in `memory`, may be NULL) keep their order and stand first;
 * `memory` then holds this request's order. */
void cx_pick(const cx_rules *rules, const cx_query *query, const cx_source *sources, size_t n_sources,
             const char *const *banned, cx_memory *memory, cx_picked *out);

/* Whether chunk text[0..len) defines `name` (name_len bytes) under
 * `rules`: for tests and the benchmark. */
bool cx_defines(const cx_rules *rules, const char *text, size_t len, const char *name, size_t name_len);

#endif
