/*
 * seam_pylex.h - Python's lexical facts, by version: which characters a
 * name may hold, which names a "\N{...}" escape accepts, the keywords, the
 * string prefixes, and the f- and t-strings of Python 3.12 and later read
 * as CPython's tokenizer reads them, with modes (PEP 701, PEP 750).
 *
 * Versions are written 100 * major + minor (311 for Python 3.11).  Texts
 * are UTF-8 bytes; offsets are byte offsets.
 */
#ifndef SEAM_PYLEX_H
#define SEAM_PYLEX_H

#include "seam_base.h"

/* The newest version seam reads: what a reader that is not told the version
 * assumes (its strings' extents agree with older versions' on code those
 * versions accept). */
#define PX_NEWEST 314

/* ---- Names and escapes (unicode.c) ------------------------------------------ */

/* Whether CPython's "\N{...}" escape accepts `name` (the text between the
 * braces).  The table is generated at build time from Python's Unicode
 * database (scripts/unicode_tables.py); names are compared by 64-bit hashes,
 * so a misspelt name passes only if its hash collides with a real one's. */
bool px_unicode_name_known(const char *name, size_t len);

/* Whether the "\N{...}" escapes of a string token are known names.  `token`
 * is the token's text from its prefix on; when `finished` is false the token
 * is still growing, and a "\N{" without its "}" yet is not judged.  Raw
 * strings and bytes have no such escapes: true.  *resume (an offset in the
 * token, 0 at first) is where an earlier call on a shorter prefix of the
 * same token left off; it is moved on, so a growing token is read once. */
bool px_escapes_valid(const char *token, size_t len, bool finished, size_t *resume);

/* Whether a token's text, if it is a name, holds only characters CPython
 * allows in one: the first XID_Start (or "_"), the others XID_Continue.
 * Text that is not name-shaped (a string with its prefix, a number, an
 * operator) is not judged: true.  A UTF-8 sequence cut at the end of the
 * text (a token still growing) is not judged either. */
bool px_name_valid(const char *token, size_t len);

/* Whether code point cp may stand in a name: first, XID_Start or "_";
 * after that, XID_Continue. */
bool px_name_char_valid(uint32_t cp, bool first);

/* Whether byte c may stand in a name as the lexer's patterns read names
 * (ASCII letters, digits, "_", and any byte of a character outside ASCII). */
static inline bool px_name_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* The generated tables (unicode_tables.c). */
extern const uint64_t px_names_folded[];
extern const uint32_t px_names_folded_count;
extern const uint64_t px_names_exact[];
extern const uint32_t px_names_exact_count;
extern const uint32_t px_cjk_ranges[][2];
extern const uint32_t px_cjk_range_count;
extern const uint32_t px_xid_start[][2];
extern const uint32_t px_xid_start_count;
extern const uint32_t px_xid_continue[][2];
extern const uint32_t px_xid_continue_count;

/* ---- Keywords (keywords.c) -------------------------------------------------- */

/* Whether text[0..len) is a hard keyword of Python `version` ("async" and
 * "await" from 3.7 on; none of the soft keywords). */
bool px_keyword(const char *text, size_t len, int version);
/* Whether some keyword, hard or soft, of that version begins with
 * text[0..len). */
bool px_keyword_has_prefix(const char *text, size_t len, int version);
/* Whether text[0..len) is a keyword that begins a compound statement or
 * one of its clauses in Python `version` (if, elif, else, while, for, try,
 * except, finally, with, def, class, async; from 3.10 the soft match and
 * case). */
bool px_compound_keyword(const char *text, size_t len, int version);
/* Whether it is a soft keyword of that version ("match", "case", "_" from
 * 3.10, "type" from 3.12). */
bool px_soft_keyword(const char *text, size_t len, int version);

/* ---- String prefixes (strings.c) -------------------------------------------- */

typedef struct px_prefix {
    uint8_t len;        /* letters before the opening quote */
    bool raw, bytes, f, t;
} px_prefix;

/* Whether text[0..len) is, as a whole, a string prefix that Python
 * `version` accepts before a quote ("", u, r, b, br, f, fr, and from 3.14
 * t and tr, in any case and order); fills *out (may be NULL). */
bool px_string_prefix(const char *text, size_t len, int version, px_prefix *out);

/* Whether a token, as far as it is typed (token[0..len)), is an f-string
 * (or a t-string) of Python `version` past its opening quote: a prefix
 * with f or t, then a quote.  *body (may be NULL) is the quote's offset. */
bool px_is_template_start(const char *token, size_t len, int version, size_t *body);

/* ---- f- and t-strings with modes (fscan.c) ----------------------------------
 *
 * From Python 3.12 an f-string is not one token for the parser but a mode
 * of the tokenizer: literal text (with "{{" and "}}"), replacement fields
 * whose expressions are ordinary Python (strings of any quote, nested
 * f-strings, comments and line breaks inside), conversions, and format
 * specifications that may hold fields themselves.  px_fscan reads one such
 * token byte by byte with a stack of modes, to tell where it ends and
 * whether its structure is sound, and lists the expressions of its
 * outermost fields, which the caller parses as Python. */

enum {
    PX_FS_MORE = 0,     /* the byte is part of the token; it goes on */
    PX_FS_CLOSED,       /* the byte closes the token (it may still go on only
                         * as an empty string's third quote: see px_fscan_done) */
    PX_FS_PAST,         /* the token ended before this byte */
    PX_FS_ERROR,        /* CPython refuses the token at this byte */
};

/* An expression of one of the outermost string's fields: token offsets. */
typedef struct px_fs_expr {
    uint32_t start, end;
} px_fs_expr;

typedef SM_ARRAY(px_fs_expr) px_fs_exprs;

typedef struct px_fs_frame px_fs_frame;

typedef struct px_fscan {
    int version;
    SM_ARRAY(px_fs_frame) frames;   /* owned */
    px_fs_exprs exprs;              /* owned: the outermost fields' expressions, in order */
    uint32_t at;                    /* token bytes read */
    uint8_t status;                 /* the last step's PX_FS_* */
    uint8_t read_status;            /* PX_FS_MORE or PX_FS_CLOSED: that of token[at - 1] */
    uint32_t outer_brackets;        /* brackets open around the token (set after px_fscan_begin) */
} px_fscan;

/* CPython's limits on what nests in f- and t-strings from 3.12 on, counted
 * across the strings: fewer than 150 strings inside one another (its
 * tokenizer's mode stack), and at most 200 brackets open, a field's "{"
 * among them and those around the outermost string too. */
enum { PX_MAX_NESTED_FSTRINGS = 150, PX_MAX_BRACKETS = 200 };

void px_fscan_init(px_fscan *scan, int version);
void px_fscan_free(px_fscan *scan);
/* Starts reading a token whose prefix (token[0..prefix)) px_string_prefix
 * read as `pfx`: the next byte given is the opening quote, token[prefix].
 * A prefix without f or t reads a plain string (no fields). */
void px_fscan_begin(px_fscan *scan, const px_prefix *pfx, uint32_t prefix);
/* Reads token[scan->at] (token[0..at) read before), returning PX_FS_*.
 * After PX_FS_PAST or PX_FS_ERROR it reads nothing more. */
int px_fscan_step(px_fscan *scan, const char *token);

/* Makes dst (initialized with px_fscan_init) a copy of src, its arrays
 * reused: a point of a scan to come back to. */
void px_fscan_copy(px_fscan *dst, const px_fscan *src);
/* Whether the scan is in the text of the outermost string or of a format
 * specification, where any byte but a backslash, a brace, a line break and
 * *quote (the string's own quote, set) is read as text and changes nothing
 * but the scan's length. */
bool px_fscan_in_text(const px_fscan *scan, uint8_t *quote);

/* Whether the scan is in the expression of an outermost field, outside
 * any string or comment in it: a byte there that is not a quote, "#", a
 * backslash, a bracket, ":", ";", "!", "=" or a line break is read as part
 * of the expression and changes nothing the scan decides by. */
bool px_fscan_in_expr(const px_fscan *scan);

/* Where the string literal that starts at text[start] (its prefix; the
 * opening quote at text[quote]) ends, as `version` reads it: PX_FS_CLOSED
 * with *end after its closing quote; PX_FS_MORE when the text runs out
 * first (*end = len); PX_FS_ERROR where *end says when it is refused.
 * f- and t-strings are read with modes from 3.12 on (earlier versions end
 * them as plain strings).  When exprs is given, the expressions of the
 * string's outermost fields (text offsets) are appended to it (owned by
 * the caller) once the string is closed. */
int px_string_end(const char *text, size_t len, size_t start, size_t quote, int version, size_t *end,
                  px_fs_exprs *exprs);

/* The expression in progress of an outermost field at the end of what was
 * read: its start, and whether the text ends in a "!" or "=" that may end
 * it (then *tentative is that character's offset, else UINT32_MAX).  False
 * when no such expression is open. */
bool px_fscan_open_expr(const px_fscan *scan, uint32_t *start, uint32_t *tentative);

#endif
