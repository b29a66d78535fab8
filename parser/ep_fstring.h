/*
 * ep_fstring.h - (internal to parser/) f- and t-strings for the lexer.
 */
#ifndef EP_FSTRING_H
#define EP_FSTRING_H

#include "seam_parser.h"

/* ---- f- and t-strings (fstring.c) ---------------------------------------- */

typedef struct ep_modal ep_modal;

void ep_modal_init(ep_modal *modal, int version);
void ep_modal_free(ep_modal *modal);

/* Whether the token in progress, text[tok_start..at), is an f-string (or,
 * from 3.14, a t-string) past its opening quote, for a Python grammar. */
bool ep_fstring_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at);
/* The same, for a grammar that reads them with modes (3.12 on): the
 * scanner, not the lexeme's pattern, says where the token ends. */
bool ep_modal_token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at);
/* Reads text[at], a byte of the modal token that starts at tok_start with
 * `depth` brackets open around it, and returns what the scanner says of it
 * (PX_FS_*). */
int ep_modal_step(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t at);
/* A recognizer that parses f-string fields' expressions, on the compiled
 * `grammar` (borrowed), its save points set for ep_fstring_valid; NULL if it
 * cannot be made.  Free with ep_recognizer_free. */
ep_recognizer *ep_fstring_fields_new(const ep_grammar *grammar);
/* Whether the f-string token text[tok_start..end), `depth` brackets open
 * around it, passes CPython's checks as far as it is typed: the scanner's, and each field's expression parsed
 * (a field in progress as a prefix) by `fields` (ep_fstring_fields_new;
 * borrowed, and left as it was).  With `finished`, the token must be whole. */
bool ep_fstring_valid(ep_recognizer *rec, ep_recognizer *fields, uint32_t tok_start, uint32_t depth, uint32_t end,
                      bool finished);

#endif
