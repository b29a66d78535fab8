/*
 * ep_fstring.h - (internal to parser/) checking f-string replacement fields.
 */
#ifndef EP_FSTRING_H
#define EP_FSTRING_H

#include "ep_grammar.h"

/* Whether a finished string token (prefix, quotes and all) is acceptable:
 * true for anything but an f-string; for an f-string, whether its literal
 * braces and replacement fields are valid as CPython 3.11 checks them.  The
 * expressions are parsed with `grammar` (the Python grammar). */
bool ep_fstring_valid(const ep_grammar *grammar, const char *token, size_t len);

#endif
