/*
 * ep_quotient.h - (internal to parser/) the right quotient of a grammar.
 */
#ifndef EP_QUOTIENT_H
#define EP_QUOTIENT_H

#include "ep_grammar.h"

/* A token: the terminals it may be scanned as (two for a soft keyword). */
typedef struct ep_token {
    uint32_t terminals[2];
    uint32_t count;
} ep_token;

typedef SM_ARRAY(ep_token) ep_tokens;

/* Lexes `text` as a whole file of `grammar` (with its layout: for Python the
 * NEWLINE, INDENT, DEDENT and ENDMARKER tokens too) and appends the tokens
 * to `out`.  Returns SM_EINVAL when the text does not lex (a lexical or
 * indentation error).  Implemented in recognizer.c. */
int ep_tokenize(const ep_grammar *grammar, const char *text, size_t len, ep_tokens *out);

/* Builds G/R: a grammar of the texts x such that x R is in L(base), where R
 * is `right` tokenized as a whole file from its first byte (ep_tokenize).
 * The result borrows base's lexer tables and names (base must outlive it);
 * free it with ep_grammar_free.  A right context that does not tokenize gives
 * a grammar with an empty language. */
int ep_quotient_build(const ep_grammar *base, const char *right, size_t right_len, ep_grammar **out);

/* The same for a right context already tokenized. */
int ep_quotient_build_tokens(const ep_grammar *base, const ep_tokens *tokens, ep_grammar **out);

/* An edge of an acyclic automaton of tokens: one token (one or two
 * alternative terminals) read between two nodes. */
typedef struct ep_token_edge {
    uint32_t from_node, to_node;   /* from_node < to_node */
    uint32_t terminals[2];
    uint32_t count;
} ep_token_edge;

/* Builds L(base) / R for a regular language R of token sequences given as
 * an acyclic automaton: nodes 0 (the cursor) to nodes-1 (the end of the
 * text), every path from 0 to nodes-1 one member of R.  This is how the
 * right context's unknowns (how many DEDENTs a line break makes) become
 * one quotient.  Returns SM_EINVAL for a malformed automaton. */
int ep_quotient_build_dag(const ep_grammar *base, uint32_t nodes, const ep_token_edge *edges, uint32_t edge_count,
                          ep_grammar **out);

/* The same for several cursors at once: cursors[c] is a node of the
 * automaton, and the quotient for it is by the paths from that node to the
 * last one.  The reverse parse is shared; each cursor gets nonterminals of
 * its own and a start symbol, stored in starts[c].  With one cursor and no
 * `union_extra` (EP_NONE) the result's start symbol is starts[0];
 * otherwise it is a new symbol U with the rules U -> starts[c] for every
 * cursor and U -> union_extra (a symbol of base), so that one recognizer
 * runs all of them and ep_earley_accepts_symbol tells them apart. */
int ep_quotient_build_multi(const ep_grammar *base, uint32_t nodes, const ep_token_edge *edges, uint32_t edge_count,
                            const uint32_t *cursors, uint32_t cursor_count, uint32_t union_extra, ep_grammar **out,
                            uint32_t *starts);

/* How a fill-in-the-middle recognizer with a layout answered can_end so
 * far, by way: a cursor path, the block path, feeding the right context's
 * head (all of it without a top-level split), or the whole text afresh.
 * Implemented in recognizer.c; for tests and diagnostics. */
enum { EP_CAN_END_CURSOR = 0, EP_CAN_END_BLOCK, EP_CAN_END_HEAD, EP_CAN_END_WHOLE, EP_CAN_END_WAYS };
void ep_recognizer_can_end_ways(const ep_recognizer *rec, uint32_t out[EP_CAN_END_WAYS]);

#endif
