/*
 * ep_fields.h - (internal to parser/) strings with fields: string literals
 * whose text holds expressions.  A language whose %lexical rules read them
 * supplies their scanner (lg_lexical's `fields`, a struct lg_fields of
 * functions; Python's f- and t-strings: languages/python/fields.c).  The
 * scanner reads the recognizer's state, so it is compiled into the parser,
 * as tree-sitter compiles a grammar's external scanner with it; the lexer
 * and the vocabulary walk reach it only through the functions below.
 */
#ifndef EP_FIELDS_H
#define EP_FIELDS_H

#include "ep_recognizer.h"

/* What the scanner of a string with fields says of a byte. */
enum {
    EP_MODAL_MORE = 0,   /* in the string; it goes on */
    EP_MODAL_CLOSED,     /* the string's last byte */
    EP_MODAL_PAST,       /* past the string's end: not the string's */
    EP_MODAL_ERROR,      /* a byte no such string may hold there */
};

/* The scanner's state, owned by the recognizer; and its state with an
 * open field's, saved at one point of the vocabulary walk so that a byte
 * fed after it goes on from there instead of reading the string again
 * from its quote (owned by the walk).  Both are the language's. */
typedef struct ep_modal ep_modal;
typedef struct ep_modal_mark ep_modal_mark;

/* A language's scanner of strings with fields.  `version` is the
 * grammar's (ep_grammar_version); `depth` the brackets open around the
 * token; a token is text[tok_start..end) of `rec`. */
struct lg_fields {
    ep_modal *(*modal_new)(int version);
    void (*modal_free)(ep_modal *modal);
    /* Whether the token in progress is a string with fields past its
     * opening quote. */
    bool (*token)(const ep_recognizer *rec, uint32_t tok_start, uint32_t at);
    /* For a grammar that reads them with modes (ep_grammar_modal_strings):
     * reads text[at], a byte of such a token, and returns what the scanner
     * says of it (EP_MODAL_*). */
    int (*modal_step)(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t at);
    /* A recognizer that parses fields' expressions, on the compiled
     * `grammar` (borrowed); NULL if it cannot be made.  Free with
     * ep_recognizer_free. */
    ep_recognizer *(*fields_new)(const ep_grammar *grammar);
    /* Whether the token passes the language's checks as far as it is
     * typed: the scanner's, and each field's expression parsed (a field in
     * progress as a prefix) by `fields` (fields_new; borrowed, and left as
     * it was).  With `finished`, the token must be whole. */
    bool (*valid)(ep_recognizer *rec, ep_recognizer *fields, uint32_t tok_start, uint32_t depth, uint32_t end,
                  bool finished);
    /* Whether the token, whose checks passed there, is in its own text or
     * a format specification's, where any byte but a backslash, a brace, a
     * line break and *stop (set: the quote that would end it) keeps its
     * checks passing: the vocabulary walk may take such bytes without the
     * parser. */
    bool (*in_text)(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end, uint8_t *stop);
    /* The bytes the string reads as part of a field's expression whatever
     * its scanner's state there. */
    bool (*expr_byte)(uint8_t byte);
    /* Whether the token, whose checks passed there, is in the expression
     * of an open field, outside any string or comment in it, where a byte
     * expr_byte allows keeps the string's checks passing exactly when the
     * expression, fed that byte, stays viable: then the recognizer that
     * parses the expression, fed it so far (its token in progress is the
     * expression's), and *offset, the text offset in `rec` of the byte at
     * offset 0 of that recognizer's text; else NULL. */
    ep_recognizer *(*field)(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end, int64_t *offset);
    /* Counts the times the recognizer of fields' expressions was taken
     * back to an expression's start: its states since an earlier count
     * are gone. */
    uint32_t (*field_epoch)(const ep_recognizer *rec);
    ep_modal_mark *(*mark_new)(int version);
    void (*mark_free)(ep_modal_mark *mark);
    /* Takes, and puts back, the scanner's state with the recognizer's text
     * as it was at that point; with `field` (may be NULL), a state of the
     * recognizer of fields' expressions after the mark's, where the open
     * field's expression, fed further by the walk, is still viable: the
     * walk goes on from there. */
    void (*mark_take)(ep_recognizer *rec, ep_modal_mark *mark);
    void (*mark_apply)(ep_recognizer *rec, const ep_modal_mark *mark, const ep_snapshot *field);
};

/* The scanner of g's strings with fields, or NULL: it has none. */
static inline const struct lg_fields *ep_fields_of(const ep_grammar *g)
{
    return g->lexical ? g->lexical->fields : NULL;
}

/* Whether the token in progress, text[tok_start..at), is a string with
 * fields past its opening quote. */
static inline bool ep_fields_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at)
{
    const struct lg_fields *f = ep_fields_of(rec->grammar);
    return f && f->token(rec, tok_start, at);
}

/* The same, for a grammar that reads them with modes: the scanner, not
 * the lexeme's pattern, says where the token ends. */
static inline bool ep_fields_modal_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at)
{
    return ep_grammar_modal_strings(rec->grammar) && ep_fields_token(rec, tok_start, at);
}

/* Whether a field's expression reads `byte` as its own (g has fields). */
static inline bool ep_fields_expr_byte(const ep_grammar *g, uint8_t byte)
{
    return ep_fields_of(g)->expr_byte(byte);
}

/* The epoch of the recognizer of fields' expressions (field_epoch); 0 for
 * a grammar without fields. */
static inline uint32_t ep_fields_epoch(const ep_recognizer *rec)
{
    const struct lg_fields *f = ep_fields_of(rec->grammar);
    return f ? f->field_epoch(rec) : 0;
}

#endif
