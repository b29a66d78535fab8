/*
 * ep_quotient.h - (internal to parser/) the right quotient of a grammar.
 */
#ifndef EP_QUOTIENT_H
#define EP_QUOTIENT_H

#include "ep_grammar.h"

/* Builds G/R: a grammar of the texts x such that x R is in L(base), where R
 * is `right` lexed from its first byte.  The result borrows base's lexer
 * tables and names (base must outlive it); free it with ep_grammar_free.
 * Returns SM_EINVAL for a grammar with a layout (not modelled yet). */
int ep_quotient_build(const ep_grammar *base, const char *right, size_t right_len, ep_grammar **out);

#endif
