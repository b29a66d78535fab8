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

#endif
