/*
 * ep_crossing.h - (internal to parser/) tokens that cross the cursor.
 */
#ifndef EP_CROSSING_H
#define EP_CROSSING_H

#include "ep_grammar.h"

typedef struct ep_crossing {
    uint32_t index;    /* the token ends after R[0..index) */
    uint32_t lexeme;   /* and is of this lexeme */
} ep_crossing;

typedef SM_ARRAY(ep_crossing) ep_crossings;

/* Appends to `out` every (index, lexeme) such that some non-empty text t
 * makes t + right[0..index) one token of that lexeme by maximal munch
 * (right[index] does not extend it).  Lexemes with %error are left out.
 * The caller owns `out` (free with sm_array_free). */
int ep_crossing_indices(const ep_grammar *grammar, const char *right, size_t len, ep_crossings *out);

#endif
