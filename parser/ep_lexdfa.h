/*
 * ep_lexdfa.h - (internal to parser/) lexeme automata.
 *
 * All lexemes of a grammar are compiled together into one deterministic
 * automaton over bytes.  Text is UTF-8 but patterns work on bytes: a negated
 * class such as [^"\n] matches every byte of a multi-byte character it does
 * not list.
 *
 * Pattern syntax (a subset of POSIX ERE with C escapes):
 *   literal bytes; "." (any byte except \n); [abc], [a-z], [^...] with
 *   escapes inside; ( ) grouping; | alternation; * + ? {m} {m,} {m,n};
 *   escapes \n \r \t \f \v \0 \\ \/ \" \' \. \[ \] \( \) \{ \} \| \* \+ \?
 *   \^ \$ \- \xHH, and any other escaped punctuation stands for itself.
 *   The classes \d (digits), \w ([A-Za-z0-9_]) and \s ([ \t\n\r\f\v]) may
 *   appear inside or outside brackets.  There are no anchors; "^" only
 *   negates at the start of a bracket, "$" is literal.
 * A literal lexeme is matched byte for byte, with no pattern syntax.
 *
 * When several lexemes accept the same text, the winner is the one with the
 * highest priority; among equal priorities, the one defined first.
 */
#ifndef EP_LEXDFA_H
#define EP_LEXDFA_H

#include "seam_base.h"

typedef struct ep_lexeme_spec {
    const char *pattern;   /* regular expression, or the literal text */
    uint32_t pattern_len;
    bool literal;          /* match `pattern` byte for byte */
    int32_t priority;
    /* the lexer may leave it out where it stands (a %goal lexeme or a
     * rival of one): the next best lexeme accepting the text is then
     * chosen (ep_dfa's choices) */
    bool excludable;
} ep_lexeme_spec;

/* State 0 is the dead state (no lexeme can match any extension); state 1 is
 * the start state.  Transitions go through byte classes: bytes that every
 * pattern treats alike share a class. */
#define EP_DFA_DEAD 0u
#define EP_DFA_START 1u

typedef struct ep_dfa {
    uint32_t state_count;
    uint32_t lexeme_count;
    uint32_t set_words;        /* uint64_t words in one lexeme set */
    uint32_t class_count;
    uint8_t byte_class[256];   /* byte -> class */
    uint32_t *next;            /* [state * class_count + class] -> state */
    int32_t *winner;           /* [state]: lexeme accepted here, or -1 */
    /* [choice_first[state] .. choice_first[state + 1]): the lexemes the
     * state's text may be taken as, best first: the winner, and after an
     * excludable one the next best, up to the first that is not
     * excludable (so only the winner when no lexeme is excludable) */
    uint32_t *choice_first;
    int32_t *choices;
    /* [state * set_words ...]: the lexemes that are a choice of some state
     * reachable from this one in zero or more steps (so include
     * winner[state]). */
    uint64_t *reachable_winners;
    uint64_t fingerprint;      /* of the tables above: equal automata, equal prints */
} ep_dfa;

/* Builds the automaton for specs[0..count).  Returns SM_OK, or SM_EINVAL with
 * a message (naming the lexeme index and the byte offset in its pattern) for
 * a malformed pattern, or for a pattern that matches the empty string.
 * Free with ep_dfa_free. */
int ep_dfa_build(const ep_lexeme_spec *specs, uint32_t count, ep_dfa *out,
                 char *error, size_t error_size);
void ep_dfa_free(ep_dfa *dfa);

/* Whether some text that automaton l accepts, or can go on to accept,
 * begins with a non-empty text that automaton g accepts (each built for
 * one lexeme): where g's lexeme is taken, l's would take text of it. */
bool ep_dfa_prefix_meets(const ep_dfa *l, const ep_dfa *g);

static inline uint32_t ep_dfa_step(const ep_dfa *dfa, uint32_t state, uint8_t byte)
{
    return dfa->next[(size_t)state * dfa->class_count + dfa->byte_class[byte]];
}

static inline const uint64_t *ep_dfa_reachable(const ep_dfa *dfa, uint32_t state)
{
    return dfa->reachable_winners + (size_t)state * dfa->set_words;
}

/* Whether `state` accepts a lexeme and can reach no other: the token in
 * progress is that lexeme whatever follows. */
static inline bool ep_dfa_only_winner(const ep_dfa *dfa, uint32_t state)
{
    int32_t winner = dfa->winner[state];
    if (winner < 0)
        return false;
    const uint64_t *reach = ep_dfa_reachable(dfa, state);
    for (uint32_t w = 0; w < dfa->set_words; w++)
        if (reach[w] != (w == (uint32_t)winner / 64 ? (uint64_t)1 << (winner % 64) : 0))
            return false;
    return true;
}

#endif
