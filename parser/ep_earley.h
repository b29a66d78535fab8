/*
 * ep_earley.h - (internal to parser/) the Earley recognizer.
 *
 * Charts are states of a transition system (Melcer et al. §IV-A): each chart
 * is scanned from a parent chart by one terminal (or a set of terminals), so
 * charts form a tree whose paths are the token sequences tried.  Charts and
 * their items live in flat append-only arrays; forgetting everything created
 * after a point is a truncation, which gives O(1) save and restore.
 *
 * A chart stores only its *explicit* items (those created by scanning and
 * completion).  The items a chart predicts are implied by its set of
 * predicted nonterminals: an item whose dot stands at an initial position of
 * a predicted nonterminal's rule is present (Aycock and Horspool's handling
 * of nullable symbols is folded into "initial").  So a chart never holds the
 * large prediction closures of an expression grammar explicitly.
 */
#ifndef EP_EARLEY_H
#define EP_EARLEY_H

#include "ep_grammar.h"

typedef struct ep_item {
    uint32_t position;
    uint32_t origin;      /* chart id */
} ep_item;

typedef struct ep_chart {
    uint32_t parent;        /* chart scanned from; EP_NONE for the root */
    uint32_t items_start;   /* explicit items: items[items_start ..+ items_count) */
    uint32_t items_count;
    uint32_t predicted;     /* offset into sets: nonterminal set (nt_words) */
    uint32_t terminals;     /* offset into sets: scannable terminals (term_words) */
    uint32_t allowed;       /* offset into sets: lexemes that may come next (lex_words) */
    uint64_t ident;         /* the path of scans that made it (see ep_earley's memo) */
} ep_chart;

/* A scan kept in the memo: its key and where its chart's items and sets
 * are (count EP_NONE: the scan made no chart). */
typedef struct ep_memo_entry {
    uint64_t key;           /* 0: empty */
    uint32_t items, count, sets;
} ep_memo_entry;

typedef struct ep_earley {
    const ep_grammar *grammar;   /* borrowed */
    SM_ARRAY(ep_chart) charts;
    SM_ARRAY(ep_item) items;
    SM_ARRAY(uint64_t) sets;
    /* scratch: open-addressing set of the items of the chart being built */
    /* Whether charts get their scannable terminals and allowed lexemes
     * (ep_earley_can_scan, ep_earley_allowed); a parse that only extracts
     * items, such as the reverse parse of a right context, turns it off. */
    bool chart_sets;
    uint64_t *seen;
    uint32_t seen_capacity;      /* a power of two */
    uint32_t seen_count;
    uint32_t *seen_slots;        /* [seen_capacity / 2]: the slots in use, to clear them alone */
    /* scratch for sorting a chart's items */
    uint64_t *sort_scratch;
    uint32_t sort_capacity;      /* bytes */
    /* Scans already made, by the `ident` of the chart they read and the
     * terminals: a chart's ident names the charts it was scanned from, and
     * their places in the array, up to a chart made otherwise (the root, a
     * merge of several edges), which gets a new one from `serial`.  Charts
     * of equal idents hold equal items, so a scan seen before copies its
     * chart instead of computing it (a mask tries the same token after the
     * same path again and again, each time after the path was forgotten).
     * Only with chart_sets, while memo_on (a mask's walk turns it on: a
     * plain feed seldom scans a path twice, and keeping costs a copy);
     * owned, made on first use. */
    bool memo_on;
    uint64_t serial;
    ep_memo_entry *memo;         /* [EP_MEMO_SLOTS], direct-mapped */
    SM_ARRAY(ep_item) memo_items;
    SM_ARRAY(uint64_t) memo_sets;
    uint64_t memo_copies;        /* scans copied from it so far */
    uint64_t scans_made;         /* and scans computed (those of one edge) */
} ep_earley;

/* Sizes of the arrays, for save and restore. */
typedef struct ep_earley_mark {
    uint32_t charts, items, sets;
} ep_earley_mark;

void ep_earley_init(ep_earley *e, const ep_grammar *grammar);
void ep_earley_free(ep_earley *e);

/* Creates the root chart (chart 0), which predicts the start symbol. */
uint32_t ep_earley_root(ep_earley *e);

/* Scans `count` terminals (alternatives for one token, at most two) from
 * chart `from`.  Returns the new chart, or EP_NONE when no item can scan any
 * of them. */
uint32_t ep_earley_scan(ep_earley *e, uint32_t from, const uint32_t *terminals, uint32_t count);

/* An edge of a symbol automaton: one or two terminals read from a chart. */
typedef struct ep_edge {
    uint32_t from;
    uint32_t terminals[2];
    uint32_t count;
} ep_edge;

/* Makes one chart from several incoming edges: Earley over an acyclic
 * automaton of symbols, where a state with several predecessors merges what
 * each edge scans (§IV-A).  Every `from` chart must be finished.  Returns
 * EP_NONE when no edge scans anything. */
uint32_t ep_earley_scan_edges(ep_earley *e, const ep_edge *edges, uint32_t count);

/* Whether chart `chart` holds S' -> start . with origin at the root. */
bool ep_earley_accepts(const ep_earley *e, uint32_t chart);

/* Whether chart `chart` holds a completed rule of `symbol` with origin at
 * the root: the text so far is a `symbol`.  Only meaningful for a symbol
 * that the start symbol derives first thing (a unit rule of the start). */
bool ep_earley_accepts_symbol(const ep_earley *e, uint32_t chart, uint32_t symbol);

static inline const uint64_t *ep_earley_allowed(const ep_earley *e, uint32_t chart)
{
    return e->sets.items + e->charts.items[chart].allowed;
}

static inline bool ep_earley_can_scan(const ep_earley *e, uint32_t chart, uint32_t terminal)
{
    return ep_set_has(e->sets.items + e->charts.items[chart].terminals, terminal);
}

ep_earley_mark ep_earley_get_mark(const ep_earley *e);
void ep_earley_reset_to(ep_earley *e, ep_earley_mark mark);

#endif
