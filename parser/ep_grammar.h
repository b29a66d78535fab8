/*
 * ep_grammar.h - (internal to parser/) the compiled form of a grammar.
 *
 * Symbols: terminals have ids 0 .. terminal_count-1, nonterminals
 * terminal_count .. symbol_count-1.  Rule bodies are stored in one flat
 * array, each body followed by EP_END; a *position* is an index into that
 * array, so an LR(0) item (a rule with a dot) is one integer.  An Earley item
 * is then a (position, origin chart) pair.
 */
#ifndef EP_GRAMMAR_H
#define EP_GRAMMAR_H

#include "ep_lexdfa.h"
#include "seam_parser.h"
#include "seam_languages.h"

#define EP_END UINT32_MAX
#define EP_NONE UINT32_MAX

/* What the lexer does with a lexeme that wins. */
enum {
    EP_LEX_TOKEN = 0,        /* sent to the parser as its terminals */
    EP_LEX_IGNORE,           /* whitespace: skipped */
    EP_LEX_COMMENT,          /* skipped; a comment-only line is blank */
    EP_LEX_NEWLINE,          /* a line break */
    EP_LEX_CONTINUATION,     /* a backslash line join */
    EP_LEX_ERROR,            /* the text is invalid */
};

enum { EP_LAYOUT_NONE = 0, EP_LAYOUT_INDENT, EP_LAYOUT_ASI };

/* %functions' markers, in the directive's order. */
enum { EP_FN_PLAIN = 0, EP_FN_ASYNC, EP_FN_GEN, EP_FN_ASYNC_GEN, EP_FN_ASYNC_EXPR };

/* At most this many %goal lexemes in a grammar. */
#define EP_MAX_GOALS 8

/* Bracket roles of lexemes, for the indent layout. */
enum { EP_BRACKET_NONE = 0, EP_BRACKET_OPEN, EP_BRACKET_CLOSE };

typedef struct ep_lexeme {
    char *name;               /* owned */
    uint8_t kind;             /* EP_LEX_* */
    uint8_t bracket;          /* EP_BRACKET_* */
    bool fstring;             /* a string with escapes and fields (%lexical's rules) */
    bool first;               /* %first: only at the start of the text */
    bool is_name;             /* %name: a name (ep_lex_only_name) */
    uint8_t keep;             /* %keep: only the first `keep` bytes are the token, the rest is read
                                 again (trailing context; 0: the whole text) */
    /* %goal: this lexeme's bit, taken only where the parser expects it; a
     * rival is not taken where a goal lexeme it yields to is expected
     * (named by the goal, or with "%goal all" every lexeme but the goal
     * lexemes with a text that begins with one of the goal lexeme's). */
    uint8_t goal_bit;
    uint8_t rival_of;
    /* %check: the language's check of a finished token (a token it fails
     * is scanned only as its %also terminal, or refused without one or
     * with %strict). */
    lg_token_check check;
    bool check_strict;
    uint32_t terminals[2];    /* terminals it may be scanned as; EP_NONE if unused */
} ep_lexeme;

struct ep_grammar {
    uint32_t terminal_count;
    uint32_t symbol_count;
    char **symbol_names;          /* [symbol], owned */
    uint32_t start_symbol;        /* the augmented start S' -> start */

    uint32_t lexeme_count;
    ep_lexeme *lexemes;           /* [lexeme] */
    ep_dfa dfa;
    uint32_t lex_words;           /* uint64_t words in a lexeme set */
    uint64_t *ignorable_lexemes;  /* set: IGNORE, COMMENT, CONTINUATION */
    uint64_t *terminal_lexemes;   /* [terminal * lex_words]: lexemes scanned as it */

    uint32_t rule_count;
    uint32_t *rule_lhs;           /* [rule] */
    uint32_t *rule_start;         /* [rule] -> first position */
    uint32_t position_count;
    uint32_t *body;               /* [position] -> symbol, or EP_END */
    uint32_t *position_rule;      /* [position] -> rule */

    uint32_t nt_words;            /* uint64_t words in a nonterminal set */
    uint32_t term_words;          /* uint64_t words in a terminal set */
    bool *nullable;               /* [symbol] */
    /* [nt * nt_words]: nonterminals predicted, transitively, by predicting nt
     * (nt itself included). */
    uint64_t *predict_closure;
    /* [nt * term_words]: terminals at the initial positions of nt's rules. */
    uint64_t *initial_terminals;
    /* Initial positions by the symbol after them: a position is initial
     * when every symbol before it in its rule is nullable, so it is present
     * in any chart that predicts the rule's left-hand side. */
    uint32_t *initial_by_symbol_start;   /* [symbol_count + 1] */
    uint32_t *initial_by_symbol;         /* positions */
    uint32_t *initial_by_symbol_lhs;     /* their rules' left-hand sides, as nonterminal indices */

    uint8_t layout;               /* EP_LAYOUT_* */
    const lg_lexical *lexical;    /* %lexical: the language's rules beyond the patterns, or NULL */
    /* A derived grammar (reversed, or a quotient) borrows the lexer tables
     * and symbol names of the grammar it was derived from, which must
     * outlive it; it owns only its rule tables and its names array. */
    bool derived;
    const ep_grammar *original;   /* for a derived grammar, the compiled one it comes from */
    /* For a compiled grammar, the same grammar with every rule body
     * reversed (owned; built once, for right quotients). */
    struct ep_grammar *reversed;
    uint32_t t_newline, t_indent, t_dedent, t_endmarker;  /* EP_NONE if absent */
    uint32_t t_number;    /* NUMBER (the %lexical rules' limits on numbers), or EP_NONE */
    /* %layout asi: the inserted semicolons, "no line break here" and "}" */
    uint32_t t_asi, t_asi_do, t_same_line, t_rbrace, t_lbrace;
    /* %scoped: a name's terminal, and the one it is scanned as where it is
     * declared (between "{" and "}"); EP_NONE without */
    uint32_t t_scoped_use, t_scoped_decl;
    /* %functions: the keywords "await" and "yield", the markers said
     * before a function body's "{" (EP_FN_*), and whether "await" is the
     * operator at the top level (a module) */
    bool has_functions;
    uint32_t t_await, t_yield;
    uint32_t t_function[5];
    bool top_async;
    bool functions_lenient;    /* the operator reading outside its functions too (TypeScript's) */
    /* %tags (tags.c): names matched by tag, the lexeme a tag's name may be
     * (where the parser allows it, a name after "<" or "</" is a tag's),
     * and the terminals of a tag's end, "<" and "/"; with "tight" a
     * closing tag's "<" and "/" touch */
    bool has_tags;
    bool tags_tight;           /* a closing tag's "<" and "/" touch */
    uint32_t tag_lexeme;
    uint32_t t_tags[3];
    uint32_t goal_count;
    uint32_t goal_lexemes[EP_MAX_GOALS];
    /* [slot]: the first bytes of the goal lexeme and its rivals (256 bits):
     * the goal matters only for a token that starts with one of them */
    uint64_t goal_first[EP_MAX_GOALS][4];
    /* The version (100 * major + minor) or dialect number a language's
     * grammar was compiled for (ep_grammar_compile_version), 0 for any
     * other grammar. */
    int version;
};

/* Whether the lexer leaves `lexeme` out where the parser expects the goal
 * lexemes of `goals` (bits of their slots): a goal lexeme not expected
 * there, or a rival of one that is. */
static inline bool ep_lex_excluded(const ep_grammar *g, uint8_t goals, int32_t lexeme)
{
    const ep_lexeme *lex = &g->lexemes[lexeme];
    if (lex->goal_bit && !(goals & lex->goal_bit))
        return true;
    return (lex->rival_of & goals) != 0;
}

/* Whether a token that the automaton has brought to `state` can still
 * become a lexeme that `goals` does not leave out; when it cannot, the
 * lexer ends the token before the byte that led there (ep_lex_byte: after
 * a ")" and a line break, "/>" is "/" then ">", not a regular expression).
 * The recognizer asks its table (ep_asi_can_grow); the vocabulary walk and
 * its lexeme trees ask this. */
static inline bool ep_lex_goals_can_grow(const ep_grammar *g, uint8_t goals, uint32_t state)
{
    if (!g->goal_count)
        return true;
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, state);
    for (uint32_t w = 0; w < g->lex_words; w++)
        for (uint64_t bits = reachable[w]; bits; bits &= bits - 1)
            if (!ep_lex_excluded(g, goals, (int32_t)(w * 64 + (uint32_t)__builtin_ctzll(bits))))
                return true;
    return false;
}

/* Whether the token that brought the automaton to `state` can only become
 * one lexeme, a name (%name): then a character past ASCII that no name may
 * hold (lg_lexical's name_char_valid) refuses it whatever follows (the
 * walk's names.refuse, and the recognizer for a language without a
 * whole-token name test). */
static inline bool ep_lex_only_name(const ep_grammar *g, uint32_t state)
{
    const uint64_t *reach = ep_dfa_reachable(&g->dfa, state);
    int32_t only = -1;
    for (uint32_t w = 0; w < g->dfa.set_words; w++) {
        if (!reach[w])
            continue;
        if (only >= 0 || (reach[w] & (reach[w] - 1)))
            return false;
        only = (int32_t)(w * 64 + (uint32_t)__builtin_ctzll(reach[w]));
    }
    return only >= 0 && g->lexemes[only].is_name;
}

/* The lexeme the text that brought the automaton to `state` is taken as
 * where the parser expects the goal lexemes of `goals`: the best of the
 * state's choices not left out there, or -1. */
static inline int32_t ep_lex_winner(const ep_grammar *g, uint8_t goals, uint32_t state)
{
    const ep_dfa *dfa = &g->dfa;
    if (!g->goal_count)
        return dfa->winner[state];
    for (uint32_t i = dfa->choice_first[state]; i < dfa->choice_first[state + 1]; i++)
        if (!ep_lex_excluded(g, goals, dfa->choices[i]))
            return dfa->choices[i];
    return -1;
}

/* The bits of `goals` that can change how a token the automaton has
 * brought to `state` is lexed from here on: those of the goal lexemes it
 * can still become and of their rivals.  ep_lex_excluded, ep_lex_winner and
 * ep_lex_goals_can_grow give the same answers for `state` and every state
 * after it with goals and with goals & ep_lex_goals_that_matter. */
static inline uint8_t ep_lex_goals_that_matter(const ep_grammar *g, uint8_t goals, uint32_t state)
{
    if (!goals)
        return 0;
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, state);
    uint8_t matter = 0;
    for (uint32_t w = 0; w < g->lex_words; w++)
        for (uint64_t bits = reachable[w]; bits; bits &= bits - 1) {
            const ep_lexeme *lex = &g->lexemes[w * 64 + (uint32_t)__builtin_ctzll(bits)];
            matter |= lex->goal_bit | lex->rival_of;
        }
    return goals & matter;
}

/* The version of g (or dialect number), or of the compiled grammar it
 * derives from. */
static inline int ep_grammar_version(const ep_grammar *g)
{
    return g->original ? g->original->version : g->version;
}

/* Whether g reads strings with fields with the tokenizer's modes (its
 * lexical rules say from which version: Python's f- and t-strings from
 * 3.12). */
static inline bool ep_grammar_modal_strings(const ep_grammar *g)
{
    return g->lexical && g->lexical->fields && ep_grammar_version(g) >= g->lexical->fields_from;
}

/* Compute the nullable set and the initial-position tables of a grammar
 * whose symbols and rules are filled in.  `known`, when given, is a grammar
 * whose symbols and rules are the first ones of g, unchanged, and to whose
 * symbols g adds no rules (a quotient of it): its results are copied, not
 * recomputed. */
/* The lines of a grammar file that hold for `version` (100 * major +
 * minor), %if/%else/%endif resolved (grammar_select.c), appended to out;
 * the lines left out stay as empty lines. */
int ep_grammar_select(const char *source, size_t len, int version, sm_buf *out, char *error, size_t error_size);
/* A grammar that extends another (selected) one: `base` with the
 * definitions `ext` makes again or names on a `%drop NAME...` line left
 * out, then `ext` (its %drop lines emptied), into out.  Left-out lines stay
 * as empty lines; ext's lines are numbered after the base's. */
int ep_grammar_extend(const char *base, size_t base_len, const char *ext, size_t ext_len, sm_buf *out,
                      char *error, size_t error_size);

void ep_grammar_compute_nullable(ep_grammar *g, const ep_grammar *known);
void ep_grammar_compute_initial(ep_grammar *g, const ep_grammar *known);

/* Builds the reversed grammar of `g` (see ep_grammar.reversed); it borrows
 * g's lexer tables and names.  `rev_kind` (or NULL: every body reversed)
 * says, for each symbol, how its rules are reversed: EP_NONE, body
 * reversed; EP_REV_HELPER, a helper M -> M a | empty read as M -> M rev(a);
 * a helper's symbol M, a left-recursive N read as N -> M rev(b) for its
 * rules N -> b, its rules N -> N a left out (see grammar.c).  Implemented
 * in quotient.c. */
#define EP_REV_HELPER (UINT32_MAX - 1)
ep_grammar *ep_grammar_build_reversed(const ep_grammar *g, const uint32_t *rev_kind);

static inline bool ep_is_terminal(const ep_grammar *g, uint32_t symbol)
{
    return symbol < g->terminal_count;
}

static inline bool ep_set_has(const uint64_t *set, uint32_t i)
{
    return (set[i >> 6] >> (i & 63)) & 1u;
}

static inline void ep_set_add(uint64_t *set, uint32_t i)
{
    set[i >> 6] |= (uint64_t)1 << (i & 63);
}

#endif
