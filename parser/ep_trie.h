/*
 * ep_trie.h - (internal to parser/) the vocabulary's byte trie as the walk
 * (trie.c) and the lexeme trees (lextree.c) read it.
 *
 * A lexeme tree is what a trie node's subtree looks like to the lexer's
 * automaton alone, from a given state: the nodes whose bytes all stay
 * inside the token in progress ("direct" bytes: not a backslash or a brace,
 * valid UTF-8, and a character a name may hold when the token may be a
 * name), their tokens grouped by the automaton state they end in, and the
 * nodes where that stops (the frontier), each with the state of its parent;
 * bytes no text can take there (broken UTF-8, a character no name holds in
 * a name) end their path with nothing to feed.
 * It depends on the trie, the automaton, the node, the state and whether the
 * token can be a name at all, not on the parser: one built for a node and a
 * state serves every mask that reaches them, whatever the parser's charts.
 */
#ifndef EP_TRIE_H
#define EP_TRIE_H

#include <pthread.h>

#include "ep_fields.h"
#include "ep_grammar.h"
#include "ep_lexdfa.h"
#include "ep_recognizer.h"
#include "seam_parser.h"

typedef struct ep_tnode {
    uint32_t skip;         /* index just past this node's subtree */
    uint32_t first_token;  /* index into tokens[] of the first token ending here */
    uint32_t parent;       /* UINT32_MAX for the root's children */
    uint16_t token_count;
    uint8_t byte;
    uint8_t depth;         /* 0 for the root's children */
} ep_tnode;

/* The root of a lexeme tree that stands for the whole trie. */
#define EP_TRIE_ROOT UINT32_MAX

/* The automaton's part of the state after a node's path inside a lexeme
 * tree, relative to the tree's node: the state, the longest accepted prefix
 * (accept_depth 0: the one the tree's node had) and the UTF-8 state. */
typedef struct ep_lstate {
    uint32_t dfa;
    int32_t accept_lexeme;
    uint8_t accept_depth;  /* bytes after the tree's node */
    uint8_t depth;         /* bytes after the tree's node (its children: 1) */
    uint8_t utf8_need, utf8_lo, utf8_hi;
} ep_lstate;

/* A node whose byte is fed from its parent's state. */
typedef struct ep_lentry {
    uint32_t node;
    ep_lstate parent;
} ep_lentry;

/* The direct nodes that end in automaton states reaching the same lexemes
 * (`dfa` stands for them: whether a token grows depends on nothing else):
 * their tokens, and the ones whose parent's state reaches others (the
 * entries: where the token might stop growing).  A group whose tokens fill few words of a mask
 * keeps them as those words (n_words > 0: words[first_word ..], their
 * tokens not listed), so that a mask sets them a word at a time. */
typedef struct ep_lgroup {
    uint32_t dfa;
    uint32_t first_token, n_tokens;
    uint32_t first_entry, n_entries;
    uint32_t first_word, n_words;
} ep_lgroup;

/* One word of a mask: word `index` (tokens 64 * index ..), its bits. */
typedef struct ep_lword {
    uint64_t bits;
    uint32_t index;
} ep_lword;

/* What a lexeme tree is built for: the node (EP_TRIE_ROOT: the whole trie)
 * and the state after it: the automaton's, whether the token can be a name
 * at all (wide: it cannot), whether it is a str literal past its quote that
 * is not an f-string, and a character cut short at the node (its
 * first bytes are the node's path), with whether it is the token's first. */
typedef struct ep_ltree_key {
    uint32_t node, dfa;
    bool wide;
    bool braces;           /* a str literal, not an f-string: braces are text */
    bool first_char;
    uint8_t goals;         /* the goal lexemes the parser expects (ep_lex_winner) */
    uint8_t stop;          /* in a string with fields' text: its quote, which with
                            * line breaks is not taken directly (0: none) */
    bool field;            /* in a field's expression: only bytes a field's
                            * expression reads as such (ep_fields_expr_byte) are taken */
    uint8_t utf8_need, utf8_lo, utf8_hi;
} ep_ltree_key;

typedef struct ep_ltree {
    ep_ltree_key key;
    uint32_t n_groups, n_frontier, n_nodes;
    ep_lgroup *groups;
    uint32_t *tokens;      /* by group */
    ep_lword *words;       /* by group */
    ep_lentry *entries;    /* by group */
    ep_lentry *frontier;   /* by the parent's state, then by byte */
    size_t bytes;
} ep_ltree;

/* How lexeme trees read names' characters: the grammar's test of a code
 * point in a name (lg_lexical's name_char_valid; NULL: none, and such a
 * character is fed), and whether a character no name may hold ends a
 * name-only token for good (`refuse`). */
typedef struct ep_names {
    bool (*name_char)(uint32_t cp, bool first);
    bool refuse;
    bool goals;            /* a token its goals leave no lexeme to grow into
                            * ends (ep_lex_goals_can_grow; not while capturing) */
} ep_names;

/* Where a token in progress stands, for the rule both the walk and its
 * lexeme trees take bytes directly by (ep_direct_next). */
typedef struct ep_direct_at {
    uint32_t dfa;          /* the automaton's state */
    bool braces;           /* braces are text (a str literal, not an f-string) */
    uint8_t stop;          /* a string's quote, which with line breaks is left
                            * to the parser (0: none) */
    bool field;            /* in a field's expression: only the bytes it reads
                            * as its own (ep_fields_expr_byte) */
    bool goals;            /* the lexer's goal rule applies (not while capturing) */
    uint8_t goal_bits;     /* the goal lexemes the parser expects */
} ep_direct_at;

enum { EP_DIRECT_REFUSED = -1, EP_DIRECT_PARSER = 0, EP_DIRECT_TAKEN = 1 };

/* What `byte` does to the token in progress at `at`, by the lexer's rules
 * alone: EP_DIRECT_REFUSED when no text may hold it (NUL, as ep_utf8_next
 * says), EP_DIRECT_PARSER when the parser must decide (a backslash, a brace
 * that is not text, the string's quote or a line break, a byte a field's
 * expression does not read as its own, a byte that ends the token: the
 * automaton's dead state, or a state only lexemes the goals leave out can
 * grow from, where ep_lex_byte ends the token), else EP_DIRECT_TAKEN with
 * *next the automaton's state after it.  The caller adds UTF-8's and
 * names' rules. */
static inline int ep_direct_next(const ep_grammar *g, const ep_direct_at *at, uint8_t byte, uint32_t *next)
{
    if (!byte)
        return EP_DIRECT_REFUSED;
    if (byte == '\\' || (!at->braces && (byte == '{' || byte == '}')))
        return EP_DIRECT_PARSER;
    if (at->stop && (byte == at->stop || byte == '\n' || byte == '\r'))
        return EP_DIRECT_PARSER;
    if (at->field && !ep_fields_expr_byte(g, byte))
        return EP_DIRECT_PARSER;
    *next = ep_dfa_step(&g->dfa, at->dfa, byte);
    if (*next == EP_DFA_DEAD)
        return EP_DIRECT_PARSER;
    if (at->goals && at->dfa != EP_DFA_START && !ep_lex_goals_can_grow(g, at->goal_bits, *next))
        return EP_DIRECT_PARSER;
    return EP_DIRECT_TAKEN;
}

/* Whether the grammar's names may hold ASCII byte c (its lexical rules'
 * name_char_valid; else letters, digits, "_" and "$"). */
static inline bool ep_trie_ascii_name_byte(const ep_grammar *g, unsigned char c)
{
    if (g->lexical && g->lexical->name_char_valid)
        return g->lexical->name_char_valid(c, false);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Whether a token is not a name whatever follows: it starts with a digit
 * or holds an ASCII byte no name holds. */
static inline bool ep_trie_never_a_name(const ep_grammar *g, const char *token, size_t len)
{
    if (len && token[0] >= '0' && token[0] <= '9')
        return true;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)token[i];
        if (c < 0x80 && !ep_trie_ascii_name_byte(g, c))
            return true;
    }
    return false;
}

/* How the grammar's lexeme trees read names (ep_names); `refuse` and
 * `goals` unless the recognizer captures a right context's tokens. */
static inline ep_names ep_trie_names(const ep_grammar *g, bool capture)
{
    ep_names names = {.name_char = g->lexical ? g->lexical->name_char_valid : NULL};
    names.refuse = names.name_char && !capture;
    names.goals = !capture;
    return names;
}

/* The key of the lexeme tree below `node` for a token in progress (its
 * text token[0..len), whole characters) in automaton state `dfa`; `wide`
 * when it cannot be a name (ep_trie_never_a_name). */
static inline ep_ltree_key ep_trie_tree_key(const ep_grammar *g, uint32_t node, uint32_t dfa, bool wide,
                                            const char *token, size_t len)
{
    bool is_f;
    bool str = ep_str_literal(g, token, len, &is_f, NULL);
    return (ep_ltree_key){.node = node, .dfa = dfa, .wide = wide, .braces = str && !is_f, .utf8_lo = 0x80,
                          .utf8_hi = 0xBF};
}

/* Lexeme trees built so far, shared by the walks of every thread. */
typedef struct ep_ltree_cache {
    pthread_mutex_t lock;
    uint64_t dfa_fingerprint;  /* the automaton they were built for */
    ep_names names;            /* and how names' characters were read */
    ep_ltree **slots;          /* open addressing; NULL: empty */
    uint32_t capacity, count;
    size_t bytes;
} ep_ltree_cache;

/* Cached trees use at most this much memory; past it trees are built for
 * one use. */
#define EP_LTREE_CACHE_BYTES ((size_t)256 << 20)

struct ep_trie {
    uint64_t fingerprint;  /* of its tokens' bytes and ids (trie_memo.c) */
    uint32_t n_tokens;
    ep_tnode *nodes;
    uint32_t n_nodes;
    uint32_t *tokens;      /* token ids, grouped by the node they end at */
    ep_ltree_cache cache;
};

/* Whether committing the token in progress, a `lexeme`, after `run` keeps
 * where its text is (an entry of the recognizer's scoped array): a class's
 * private name (%scoped), or a name after a tag's "<" or "</" (%tags).  Its
 * text is read again after it ends. */
static inline bool ep_trie_keeps_extent(const ep_grammar *g, const ep_run *run, int32_t lexeme)
{
    if (g->t_scoped_use != EP_NONE && g->lexemes[lexeme].terminals[0] == g->t_scoped_use)
        return true;
    return g->has_tags && (run->tag_prev[0] == g->t_tags[1] || run->tag_prev[0] == g->t_tags[2]);
}

/* ---- The memo of a mask inside a plain token (trie_memo.c) ---------------------
 *
 * Inside a name, a comment or a string with no escape the mask does not
 * depend on the token's text past its head (lg_lexical's plain_head):
 * the parser's state is the one before the token, the lexer's the
 * automaton's state.  A recognizer keeps the last such mask, with the text
 * before the token, so that the mask one byte further into the token, or
 * at another token with the same head in the same state after the same
 * text, is copied. */

/* The mask kept for `rec`'s position, copied into `mask` with *allowed set;
 * false when none serves here. */
bool ep_trie_memo_find(ep_recognizer *rec, const ep_trie *trie, uint64_t *mask, uint32_t *allowed);
/* Keeps `mask` (`allowed` tokens) as made at `rec`'s position, when that is
 * inside a plain token. */
void ep_trie_memo_keep(ep_recognizer *rec, const ep_trie *trie, const uint64_t *mask, uint32_t allowed);
void ep_trie_memo_free(struct ep_trie_memo *memo);

/* The lexeme tree of `key`; with names.refuse, a character no name may
 * hold ends a name-only token for good and its subtree is left out.  From
 * the cache, or built and cached; when the cache is full, built for the
 * caller, who frees it (*owned set).  A character cut short at the node
 * must have all its first bytes on the node's path. */
const ep_ltree *ep_ltree_get(ep_trie *trie, const ep_grammar *g, ep_names names, const ep_ltree_key *key,
                             ep_ltree **owned);
void ep_ltree_free(ep_ltree *tree);

void ep_ltree_cache_init(ep_ltree_cache *cache);
void ep_ltree_cache_free(ep_ltree_cache *cache);

#endif
