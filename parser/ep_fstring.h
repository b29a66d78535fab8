/*
 * ep_fstring.h - (internal to parser/) checking f-string replacement fields.
 */
#ifndef EP_FSTRING_H
#define EP_FSTRING_H

#include "seam_parser.h"

/* Whether a finished string token (prefix, quotes and all) is acceptable:
 * true for anything but an f-string; for an f-string, whether its literal
 * braces and replacement fields are valid as CPython 3.11 checks them.  The
 * expressions are parsed by `fields`, a recognizer on the Python grammar
 * (borrowed) with a save point 0 taken before anything was fed: it is put
 * back there after each expression. */
bool ep_fstring_valid(ep_recognizer *fields, const char *token, size_t len);

/* Whether an unfinished string token (prefix and opening quotes, no closing
 * quotes yet) can still become an acceptable one: true for anything but an
 * f-string; for an f-string, whether the body so far is the beginning of a
 * valid one (each finished field valid, the field in progress a prefix of
 * one).  *resume (an offset in the token, 0 at first) says where an earlier
 * call on a shorter prefix of the same token left off with everything before
 * it checked; on success it is moved on, so that feeding a long f-string
 * checks each field once. */
bool ep_fstring_prefix_valid(ep_recognizer *fields, const char *token, size_t len, size_t *resume);

/* ---- Python 3.12 and later: f- and t-strings with modes (fstring_modes.c) ---- */

typedef struct ep_modal ep_modal;

void ep_modal_init(ep_modal *modal, int version);
void ep_modal_free(ep_modal *modal);

/* Whether the token in progress, text[tok_start..at), is an f- or t-string
 * past its opening quote, for a grammar that reads them with modes. */
bool ep_modal_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at);
/* Reads text[at], a byte of the modal token that starts at tok_start, and
 * returns what the scanner says of it (PX_FS_*). */
int ep_modal_step(ep_recognizer *rec, uint32_t tok_start, uint32_t at);
/* Whether the modal token text[tok_start..end) passes CPython's checks as
 * far as it is typed: the scanner's, and each field's expression parsed
 * (a field in progress as a prefix) by `fields`, a recognizer on the
 * compiled grammar with its save point 0 at the start (borrowed; put back
 * there after each expression).  With `finished`, the token must be whole. */
bool ep_modal_valid(ep_recognizer *rec, ep_recognizer *fields, uint32_t tok_start, uint32_t end, bool finished);

#endif
