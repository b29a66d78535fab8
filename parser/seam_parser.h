/*
 * seam_parser.h - seam's incremental recognizer of (quotient) languages.
 *
 * A grammar (lexemes as regular expressions with priorities, context-free
 * rules with EBNF sugar, and an optional layout such as Python's
 * indentation) is compiled once into an immutable ep_grammar.  A recognizer
 * is then opened on it, fed bytes, and asked after each feed whether the text
 * so far is still viable (some continuation makes it a valid program) and
 * whether it can end (it is a valid program as it stands).
 *
 * Method: Earley parsing over a branching, maximal-munch lexer with guards,
 * after Melcer et al., "Constrained Decoding for Fill-in-the-Middle Code
 * Language Models via Efficient Left and Right Quotienting of
 * Context-Sensitive Grammars" (docs/RECOGNIZER.md).
 */
#ifndef SEAM_PARSER_H
#define SEAM_PARSER_H

#include "seam_base.h"

#include <stdatomic.h>

/* A compiled grammar.  Immutable once built; one grammar may back any number
 * of recognizers on any threads. */
typedef struct ep_grammar ep_grammar;

/* Compiles grammar source text (the format is described in
 * docs/GRAMMAR_FORMAT.md).  On success stores a new grammar in *out (free
 * with ep_grammar_free) and returns SM_OK.  On failure returns SM_EINVAL and,
 * if `error` is given, writes a message naming the line at fault. */
int ep_grammar_compile(const char *source, size_t len, ep_grammar **out, char *error, size_t error_size);

/* Compiles grammar source whose lines may hold `%if version OP X.Y` (or,
 * with %dialects, `%if NAME`), `%else` and `%endif` for `version` (100 *
 * major + minor, or a dialect's number from 1). */
int ep_grammar_compile_version(const char *source, size_t len, int version, ep_grammar **out, char *error,
                               size_t error_size);

struct lg_language;
/* Compiles a language's grammar (languages/) for one of its versions
 * (language->oldest_version .. newest_version) or dialects (1 ..), or, for
 * a language with neither, version 0.  Free with ep_grammar_free. */
int ep_grammar_of(const struct lg_language *language, int version, ep_grammar **out, char *error,
                  size_t error_size);

void ep_grammar_free(ep_grammar *grammar);

/* Counts for diagnostics and benchmarks. */
typedef struct ep_grammar_stats {
    uint32_t terminals;
    uint32_t nonterminals;
    uint32_t rules;
    uint32_t lexemes;
    uint32_t dfa_states;
} ep_grammar_stats;

void ep_grammar_get_stats(const ep_grammar *grammar, ep_grammar_stats *stats);

/* An incremental recognizer.  Not thread-safe; one per request. */
typedef struct ep_recognizer ep_recognizer;

/* Opens a recognizer on `grammar` (borrowed: it must outlive the
 * recognizer's use) positioned at the start of the text.  Free with
 * ep_recognizer_free, which reads nothing of the grammar: a cached
 * recognizer may be freed after it (the language server frees its
 * documents' recognizers after its grammars when it exits). */
int ep_recognizer_new(const ep_grammar *grammar, ep_recognizer **out);
void ep_recognizer_free(ep_recognizer *rec);

/* Opens a fill-in-the-middle recognizer on a left and a right context, fed
 * the left context already (a left context that is not viable gives a
 * recognizer that is not).  Fed the middle, it answers can_end exactly when left + middle + right is valid,
 * and viable whenever some continuation c could make left + middle + c +
 * right valid (never refusing a true middle; see docs/RECOGNIZER.md for
 * where it may accept more).  It builds the right quotient of `grammar` by
 * `right` (the grammar is borrowed and must outlive the recognizer).  For a
 * grammar without a layout the right context must begin on a token
 * boundary; for Python it may begin anywhere.  Returns SM_EUTF8 for a
 * context that is not UTF-8. */
int ep_recognizer_new_fim(const ep_grammar *grammar, const char *left, size_t left_len, const char *right,
                          size_t right_len, ep_recognizer **out);

/* Feeds bytes.  Returns 1 if the text fed so far is still viable, 0 if it is
 * not (the recognizer then stays dead until restored), or SM_EUTF8 when the
 * bytes hold a NUL or do not continue valid UTF-8 (a code point may be split
 * across feeds; the recognizer is unchanged on error). */
int ep_feed(ep_recognizer *rec, const char *bytes, size_t len);

/* Whether the text fed so far is viable. */
bool ep_viable(ep_recognizer *rec);

/* Whether the text fed so far is, as it stands, a complete valid program.
 * Does not change the recognizer. */
bool ep_can_end(ep_recognizer *rec);

/* Bytes fed so far. */
size_t ep_fed_bytes(const ep_recognizer *rec);

/* A save point: restoring it returns the recognizer to exactly the state it
 * had when the point was taken.  Save points nest like a stack: restoring a
 * point discards every point taken after it but keeps the point itself, so a
 * caller can save once and try many candidates, restoring after each.  Both
 * are O(1) in the length of the text. */
typedef uint32_t ep_savepoint;

ep_savepoint ep_save(ep_recognizer *rec);
void ep_restore(ep_recognizer *rec, ep_savepoint point);

/* ---- Vocabularies -----------------------------------------------------------
 *
 * A language model's vocabulary as a byte trie, so that the tokens a
 * recognizer may take next are found together: tokens that share a prefix
 * share the work of feeding it, and a refused prefix rules out every token
 * that starts with it. */
typedef struct ep_trie ep_trie;

/* Tokens of this many bytes or more are left out of the trie (never
 * allowed). */
#define EP_TRIE_MAX_BYTES 256

/* Builds the trie of strings[0..count): token t has the lens[t] bytes at
 * strings[t] (borrowed; copied into the trie's own layout).  Tokens without
 * bytes are left out.  Free with ep_trie_free. */
ep_trie *ep_trie_new(const char *const *strings, const uint32_t *lens, uint32_t count);
void ep_trie_free(ep_trie *trie);
/* Trie nodes: the distinct non-empty prefixes of the tokens. */
uint32_t ep_trie_nodes(const ep_trie *trie);
/* The memory the trie holds, in bytes. */
size_t ep_trie_bytes(const ep_trie *trie);

typedef struct ep_trie_stats {
    uint64_t nodes;        /* trie nodes visited */
    uint64_t parsed;       /* of those, where the parser was consulted (not
                            * the ones that took a state it gave already) */
    uint64_t trees;        /* subtrees read from their lexeme trees */
    uint64_t scans_made;   /* the recognizer's Earley scans computed */
    uint64_t scans_copied; /* and copied from its memo of scans */
    bool copied;           /* the mask was the one kept inside a plain token
                            * (ep_trie.h's memo): nothing was walked */
    bool in_fields;        /* the text ends inside a string with fields (an
                            * f- or t-string past its quote) */
} ep_trie_stats;

/* Sets bit t of mask (ceil(count / 64) words, cleared first) for every
 * token t whose bytes, fed after the text so far, leave `rec` viable;
 * returns how many.  Bytes that only move the token in progress through the
 * lexer's automaton are taken without the parser; the rest go through
 * ep_feed.  `rec` is left as it was; stats may be NULL. */
uint32_t ep_trie_viable(const ep_trie *trie, ep_recognizer *rec, uint64_t *mask, ep_trie_stats *stats);
/* Drops the mask `rec` kept inside a token (ep_trie_stats' copied), so that
 * the next ep_trie_viable walks: for benchmarks and profiles of the walk. */
void ep_trie_forget(ep_recognizer *rec);

/* Builds the lexeme trees that masks starting inside common tokens of
 * `grammar` need (its language's mask_starts, lg_lexical: a name, spaces,
 * a comment, a number, a string's body), so that the first masks there do
 * not pay for them; a mask beside it in another thread is safe.  Returns
 * how many of those trees the trie holds. */
uint32_t ep_trie_prewarm(const ep_trie *trie, const ep_grammar *grammar);
/* The same for masks that start inside a name: the trees of every
 * automaton state a name's first bytes reach (a keyword's prefixes, "re",
 * "ret" ..., are states of their own), in code and, where the grammar
 * reads strings with fields, in a field ("f\"{re").  About a hundred and
 * fifty trees for Python's grammar, a third of a second on one core, and
 * twice that with fields (3.12 on): the language server builds them in the
 * background once the model is loaded.  Stops between two trees once
 * *stop (may be NULL) is set. */
uint32_t ep_trie_prewarm_names(const ep_trie *trie, const ep_grammar *grammar, const atomic_bool *stop);
/* The same for the trees that masks along the language's samples read
 * (lg_lexical's mask_samples: a string's opening, the text after a field,
 * a line join): a mask at each of their positions, as far as the grammar
 * takes each.  Returns how many trees the trie gained meanwhile; stops
 * between two masks once *stop is set. */
uint32_t ep_trie_prewarm_samples(const ep_trie *trie, const ep_grammar *grammar, const atomic_bool *stop);

#endif
