/*
 * ep_unicode.h - (internal to parser/) what Python's lexer asks of the
 * Unicode database: which characters a name may hold and which names a
 * "\N{...}" escape accepts.
 */
#ifndef EP_UNICODE_H
#define EP_UNICODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether CPython's "\N{...}" escape accepts `name` (the text between the
 * braces).  The table is generated at build time from Python's Unicode
 * database (scripts/unicode_tables.py); names are compared by 64-bit hashes,
 * so a misspelt name passes only if its hash collides with a real one's. */
bool ep_unicode_name_known(const char *name, size_t len);

/* Whether the "\N{...}" escapes of a string token are known names.  `token`
 * is the token's text from its prefix on; when `finished` is false the token
 * is still growing, and a "\N{" without its "}" yet is not judged.  Raw
 * strings and bytes have no such escapes: true.  *resume (an offset in the
 * token, 0 at first) is where an earlier call on a shorter prefix of the
 * same token left off; it is moved on, so a growing token is read once. */
bool ep_escapes_valid(const char *token, size_t len, bool finished, size_t *resume);

/* Whether a token's text, if it is a name, holds only characters CPython
 * allows in one: the first XID_Start (or "_"), the others XID_Continue.
 * Text that is not name-shaped (a string with its prefix, a number, an
 * operator) is not judged: true.  A UTF-8 sequence cut at the end of the
 * text (a token still growing) is not judged either. */
bool ep_name_valid(const char *token, size_t len);

/* Whether code point cp may stand in a name: first, XID_Start or "_";
 * after that, XID_Continue. */
bool ep_name_char_valid(uint32_t cp, bool first);

/* The generated tables (unicode_tables.c). */
extern const uint64_t ep_names_folded[];
extern const uint32_t ep_names_folded_count;
extern const uint64_t ep_names_exact[];
extern const uint32_t ep_names_exact_count;
extern const uint32_t ep_cjk_ranges[][2];
extern const uint32_t ep_cjk_range_count;
extern const uint32_t ep_xid_start[][2];
extern const uint32_t ep_xid_start_count;
extern const uint32_t ep_xid_continue[][2];
extern const uint32_t ep_xid_continue_count;

#endif
