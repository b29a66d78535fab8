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

#endif
