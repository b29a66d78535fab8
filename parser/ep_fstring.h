/*
 * ep_fstring.h - (internal to parser/) strings with fields for the lexer:
 * what the lexer asks of a language's extension that reads them (for a
 * grammar whose %lexical rules have `fields`: Python's f- and t-strings,
 * languages/python/fields.c).
 */
#ifndef EP_FSTRING_H
#define EP_FSTRING_H

#include "seam_parser.h"

/* ---- f- and t-strings (languages/python/fields.c) ---------------------------------------- */

/* What the scanner of a string with fields says of a byte. */
enum {
    EP_MODAL_MORE = 0,   /* in the string; it goes on */
    EP_MODAL_CLOSED,     /* the string's last byte */
    EP_MODAL_PAST,       /* past the string's end: not the string's */
    EP_MODAL_ERROR,      /* a byte no such string may hold there */
};

/* The scanner's state, owned by the recognizer. */
typedef struct ep_modal ep_modal;
ep_modal *ep_modal_new(int version);
void ep_modal_free(ep_modal *modal);

/* Whether the token in progress, text[tok_start..at), is an f-string (or,
 * from 3.14, a t-string) past its opening quote, for a grammar whose
 * %lexical rules have fields. */
bool ep_fstring_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at);
/* The same, for a grammar that reads them with modes (3.12 on): the
 * scanner, not the lexeme's pattern, says where the token ends. */
bool ep_modal_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at);
/* Reads text[at], a byte of the modal token that starts at tok_start with
 * `depth` brackets open around it, and returns what the scanner says of it
 * (EP_MODAL_*). */
int ep_modal_step(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t at);
/* A recognizer that parses f-string fields' expressions, on the compiled
 * `grammar` (borrowed), its save points set for ep_fstring_valid; NULL if it
 * cannot be made.  Free with ep_recognizer_free. */
ep_recognizer *ep_fstring_fields_new(const ep_grammar *grammar);
/* Whether the f-string token text[tok_start..end), `depth` brackets open
 * around it, passes the language's checks as far as it is typed: the scanner's, and each field's expression parsed
 * (a field in progress as a prefix) by `fields` (ep_fstring_fields_new;
 * borrowed, and left as it was).  With `finished`, the token must be whole. */
bool ep_fstring_valid(ep_recognizer *rec, ep_recognizer *fields, uint32_t tok_start, uint32_t depth, uint32_t end,
                      bool finished);

/* Whether the f- or t-string token text[tok_start..end), `depth` brackets
 * open around it, whose checks passed there, is in its own text or a
 * format specification's, where any byte but a backslash, a brace, a line
 * break and *stop (set: the quote that would end it) keeps its checks
 * passing: the vocabulary walk may take such bytes without the parser. */
bool ep_fstring_in_text(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end, uint8_t *stop);

/* The bytes a string with fields reads as part of a field's expression
 * whatever its scanner's state there (px_fscan_in_expr): not a quote, "#",
 * a backslash, a bracket, ":", ";", "!", "=", a line break or NUL. */
bool ep_fstring_expr_byte(uint8_t byte);
/* Whether the f- or t-string token text[tok_start..end), `depth` brackets
 * open around it, whose checks passed there, is in the expression of an
 * open field, outside any string or comment in it, where a byte
 * ep_fstring_expr_byte allows keeps the string's checks passing exactly
 * when the expression, fed that byte, stays viable: then the recognizer
 * that parses the expression, fed it so far (its token in progress is the
 * expression's), and *offset, the text offset in `rec` of the byte at
 * offset 0 of that recognizer's text; else NULL. */
ep_recognizer *ep_fstring_field(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end,
                                int64_t *offset);

/* Counts the times the recognizer of fields' expressions was taken back
 * to an expression's start: its states since an earlier count are gone. */
uint32_t ep_fstring_field_epoch(const ep_recognizer *rec);

/* The scanner's state and the open field's, saved at one point of the
 * vocabulary walk so that a byte fed after it goes on from there instead
 * of reading the string again from its quote (and its open field from the
 * field's start).  Owned by the walk; taken and applied with the
 * recognizer's text as it was at that point. */
typedef struct ep_modal_mark ep_modal_mark;
struct ep_snapshot;
ep_modal_mark *ep_modal_mark_new(int version);
void ep_modal_mark_free(ep_modal_mark *mark);
void ep_modal_mark_take(ep_recognizer *rec, ep_modal_mark *mark);
/* With `field` (may be NULL), a state of the recognizer of fields'
 * expressions after the mark's, where the open field's expression, fed
 * further by the walk (ep_fstring_field), is still viable: the walk goes
 * on from there. */
void ep_modal_mark_apply(ep_recognizer *rec, const ep_modal_mark *mark, const struct ep_snapshot *field);

#endif
