/*
 * seam_protocol.h - the edge between seam and editors.
 *
 * Inside seam every position is a byte offset into UTF-8 text.  Editors speak
 * LSP positions: a zero-based line and a character offset counted in the
 * negotiated encoding (UTF-16 code units by default, or UTF-8 bytes).  This
 * module is the only place that converts between the two.
 */
#ifndef SEAM_PROTOCOL_H
#define SEAM_PROTOCOL_H

#include "seam_base.h"

typedef enum lsp_encoding {
    LSP_ENCODING_UTF16 = 0,
    LSP_ENCODING_UTF8,
} lsp_encoding;

typedef struct lsp_position {
    uint32_t line;
    uint32_t character;
} lsp_position;

/* Converts an LSP position in text[0..len) to a byte offset.  Line breaks
 * are "\n", "\r\n" and "\r", as LSP defines them.  A character offset past
 * the end of its line clamps to the line's end, as LSP asks; a line past the
 * end of the text, or an offset that falls inside a code point (half a
 * surrogate pair, the middle of a UTF-8 sequence), gives SM_ERANGE.  Invalid
 * UTF-8 gives SM_EUTF8. */
int lsp_position_to_offset(const char *text, size_t len, lsp_position position,
                           lsp_encoding encoding, size_t *offset);

/* Converts a byte offset (which must fall on a code point boundary and be at
 * most len) to an LSP position; SM_ERANGE otherwise. */
int lsp_offset_to_position(const char *text, size_t len, size_t offset,
                           lsp_encoding encoding, lsp_position *position);

/* ---- Framing (framing.c) -------------------------------------------------------
 *
 * JSON-RPC messages over a byte stream: header lines ending in "\r\n" (a
 * bare "\n" is accepted), a blank line, then Content-Length bytes of body.
 * The framer holds at most one body (capped at max_body) and the headers
 * (capped at 8 KiB).  What it cannot frame it reports and skips: a header
 * block without a valid Content-Length is dropped up to the next blank
 * line; a body over the cap is discarded as it arrives, never buffered.
 */
typedef enum lsp_frame_error {
    LSP_FRAME_BAD_HEADER = 1,   /* no or bad Content-Length, or headers too long */
    LSP_FRAME_TOO_BIG,          /* Content-Length over the cap */
} lsp_frame_error;

typedef struct lsp_framer_callbacks {
    /* A complete body (not NUL-terminated in general; body[len] is NUL). */
    void (*on_message)(void *data, const char *body, size_t len);
    void (*on_error)(void *data, lsp_frame_error error, size_t length);
} lsp_framer_callbacks;

typedef struct lsp_framer {
    sm_buf header;
    sm_buf body;
    size_t expected;        /* body bytes expected */
    size_t discard;         /* body bytes still to skip */
    size_t discard_match;   /* of "Content-Length:", the bytes seen last while skipping */
    bool in_body;
    bool bad_header;        /* the current header block is being skipped */
    bool skip_line;         /* a header line longer than the cap: dropped to its end */
    size_t max_body;
} lsp_framer;

void lsp_framer_init(lsp_framer *framer, size_t max_body);
void lsp_framer_free(lsp_framer *framer);
/* Feeds bytes; calls back for each message or framing error, in order. */
void lsp_framer_feed(lsp_framer *framer, const char *bytes, size_t len, const lsp_framer_callbacks *callbacks,
                     void *data);
/* Whether a message was cut off (bytes of it are held). */
bool lsp_framer_pending(const lsp_framer *framer);

/* Appends "Content-Length: N\r\n\r\n" and the body. */
int lsp_frame(sm_buf *out, const char *body, size_t len);

/* Rewrites, in place, each \\uXXXX escape of a JSON text that is half of
 * a surrogate pair without its other half (an editor's buffer may hold
 * one) as \\ufffd, the replacement character, so that the message parses
 * instead of being dropped whole.  Returns how many. */
size_t lsp_json_repair_surrogates(char *json, size_t len);

/* Whether a JSON text holds the escape of a NUL character (\\u0000),
 * which a parsed string would silently end at. */
bool lsp_json_has_nul(const char *json, size_t len);

/* ---- Documents (document.c) -----------------------------------------------------
 *
 * The text of an open document, UTF-8, edited by LSP content changes whose
 * ranges are converted with the document's position encoding.
 */
typedef struct lsp_document {
    char *uri;             /* owned */
    char *language;        /* owned; may be NULL */
    int64_t version;
    sm_buf text;           /* capped at the size given to lsp_document_new */
} lsp_document;

/* SM_EUTF8 when the text is not valid UTF-8 (or holds NUL), SM_ETOOBIG
 * over the cap; no document is made then. */
int lsp_document_new(const char *uri, const char *language, int64_t version, const char *text, size_t len,
                     size_t max_len, lsp_document **out);
void lsp_document_free(lsp_document *doc);

/* Replaces the text between two positions (a range change).  SM_ERANGE for
 * a range outside the document or with its end before its start, SM_EUTF8
 * for new text that is not UTF-8, SM_ETOOBIG over the cap; the document is
 * unchanged on error. */
int lsp_document_edit(lsp_document *doc, lsp_position start, lsp_position end, lsp_encoding encoding,
                      const char *text, size_t len);
/* Replaces the whole text. */
int lsp_document_replace(lsp_document *doc, const char *text, size_t len);

#endif
