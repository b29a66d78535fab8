/*
 * earley.c - the Earley recognizer over charts that form a tree
 * (see ep_earley.h).
 */
#include "ep_earley.h"

#include <string.h>

void ep_earley_init(ep_earley *e, const ep_grammar *grammar)
{
    memset(e, 0, sizeof *e);
    e->grammar = grammar;
    e->chart_sets = true;
    e->seen_capacity = 256;
    e->seen = sm_malloc(e->seen_capacity * sizeof(uint64_t));
    memset(e->seen, 0xff, e->seen_capacity * sizeof(uint64_t));
    e->seen_slots = sm_malloc(e->seen_capacity / 2 * sizeof(uint32_t));
}

void ep_earley_free(ep_earley *e)
{
    sm_array_free(&e->charts);
    sm_array_free(&e->items);
    sm_array_free(&e->sets);
    sm_free(e->seen);
    e->seen = NULL;
    sm_free(e->seen_slots);
    e->seen_slots = NULL;
    sm_free(e->sort_scratch);
    e->sort_scratch = NULL;
}

ep_earley_mark ep_earley_get_mark(const ep_earley *e)
{
    return (ep_earley_mark){e->charts.size, e->items.size, e->sets.size};
}

void ep_earley_reset_to(ep_earley *e, ep_earley_mark mark)
{
    e->charts.size = mark.charts;
    e->items.size = mark.items;
    e->sets.size = mark.sets;
}

/* Empties the set: slot by slot when few are used (the table keeps the
 * size of the largest chart ever built, most charts are far smaller). */
static void ep__seen_clear(ep_earley *e)
{
    if (e->seen_count * 8 < e->seen_capacity) {
        for (uint32_t k = 0; k < e->seen_count; k++)
            e->seen[e->seen_slots[k]] = UINT64_MAX;
    } else if (e->seen_count) {
        memset(e->seen, 0xff, e->seen_capacity * sizeof(uint64_t));
    }
    e->seen_count = 0;
}

static uint32_t ep__hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (uint32_t)key;
}

/* Inserts a key; returns false if it was already there. */
static bool ep__seen_insert(ep_earley *e, uint64_t key);

static void ep__seen_grow(ep_earley *e)
{
    uint64_t *old = e->seen;
    uint32_t old_capacity = e->seen_capacity;
    e->seen_capacity *= 2;
    e->seen = sm_malloc(e->seen_capacity * sizeof(uint64_t));
    memset(e->seen, 0xff, e->seen_capacity * sizeof(uint64_t));
    sm_free(e->seen_slots);
    e->seen_slots = sm_malloc(e->seen_capacity / 2 * sizeof(uint32_t));
    e->seen_count = 0;
    for (uint32_t i = 0; i < old_capacity; i++)
        if (old[i] != UINT64_MAX)
            ep__seen_insert(e, old[i]);
    sm_free(old);
}

static bool ep__seen_insert(ep_earley *e, uint64_t key)
{
    if ((e->seen_count + 1) * 2 > e->seen_capacity)
        ep__seen_grow(e);
    uint32_t mask = e->seen_capacity - 1;
    for (uint32_t i = ep__hash(key) & mask;; i = (i + 1) & mask) {
        if (e->seen[i] == key)
            return false;
        if (e->seen[i] == UINT64_MAX) {
            e->seen[i] = key;
            e->seen_slots[e->seen_count++] = i;
            return true;
        }
    }
}

/* Adds an explicit item to the chart being built, once, and (Aycock and
 * Horspool) the item with the dot moved over a nullable next symbol. */
static void ep__add(ep_earley *e, uint32_t position, uint32_t origin)
{
    const ep_grammar *g = e->grammar;
    for (;;) {
        if (!ep__seen_insert(e, ((uint64_t)position << 32) | origin))
            return;
        sm_array_push(&e->items, ((ep_item){position, origin}));
        uint32_t next = g->body[position];
        if (next == EP_END || !g->nullable[next])
            return;
        position++;
    }
}

static uint32_t ep__lhs(const ep_grammar *g, uint32_t position)
{
    return g->rule_lhs[g->position_rule[position]];
}

/* The symbol after an item's dot; EP_END sorts last. */
static uint32_t ep__next_symbol(const ep_grammar *g, ep_item item)
{
    return g->body[item.position];
}

/* The first explicit item of a finished chart whose next symbol is at
 * least `symbol` (a finished chart's items are sorted by next symbol). */
static uint32_t ep__lower_bound(const ep_earley *e, const ep_chart *chart, uint32_t symbol)
{
    uint32_t lo = chart->items_start, hi = chart->items_start + chart->items_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ep__next_symbol(e->grammar, e->items.items[mid]) < symbol)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Advances, into the chart being built, every item of the finished chart
 * `from` that expects `symbol`: its explicit items (found by binary search,
 * never by a scan of the chart), then the initial positions of the
 * nonterminals it predicts. */
static void ep__advance_over(ep_earley *e, uint32_t from, uint32_t symbol)
{
    const ep_grammar *g = e->grammar;
    const ep_chart *chart = &e->charts.items[from];
    uint32_t end = chart->items_start + chart->items_count;
    for (uint32_t i = ep__lower_bound(e, chart, symbol); i < end; i++) {
        ep_item item = e->items.items[i];
        if (ep__next_symbol(g, item) != symbol)
            break;
        ep__add(e, item.position + 1, item.origin);
    }
    const uint64_t *predicted = e->sets.items + e->charts.items[from].predicted;
    for (uint32_t k = g->initial_by_symbol_start[symbol]; k < g->initial_by_symbol_start[symbol + 1]; k++)
        if (ep_set_has(predicted, g->initial_by_symbol_lhs[k]))
            ep__add(e, g->initial_by_symbol[k] + 1, from);
}

/* Computes a finished chart's predicted nonterminals, scannable terminals
 * and allowed lexemes. */
static void ep__finish_chart(ep_earley *e, uint32_t id)
{
    const ep_grammar *g = e->grammar;
    uint32_t predicted = e->sets.size;
    uint32_t words = g->nt_words + (e->chart_sets ? g->term_words + g->lex_words : 0);
    sm_array_grow_by(&e->sets, words);
    uint64_t *sets = e->sets.items + predicted;
    memset(sets, 0, words * sizeof(uint64_t));
    uint64_t *nts = sets, *terms = sets + g->nt_words, *lexemes = terms + g->term_words;
    ep_chart *chart = &e->charts.items[id];
    chart->predicted = predicted;
    chart->terminals = e->chart_sets ? predicted + g->nt_words : EP_NONE;
    chart->allowed = e->chart_sets ? chart->terminals + g->term_words : EP_NONE;
    if (id == 0) {
        const uint64_t *closure = g->predict_closure + (size_t)(g->start_symbol - g->terminal_count) * g->nt_words;
        memcpy(nts, closure, g->nt_words * sizeof(uint64_t));
    }
    /* items are sorted by the symbol after the dot: each symbol once */
    uint32_t last = EP_END;
    for (uint32_t i = chart->items_start; i < chart->items_start + chart->items_count; i++) {
        uint32_t next = g->body[e->items.items[i].position];
        if (next == EP_END || next == last)
            continue;
        last = next;
        if (ep_is_terminal(g, next)) {
            if (e->chart_sets)
                ep_set_add(terms, next);
            continue;
        }
        const uint64_t *closure = g->predict_closure + (size_t)(next - g->terminal_count) * g->nt_words;
        for (uint32_t w = 0; w < g->nt_words; w++)
            nts[w] |= closure[w];
    }
    if (!e->chart_sets)
        return;
    for (uint32_t w = 0; w < g->nt_words; w++) {
        for (uint64_t bits = nts[w]; bits; bits &= bits - 1) {
            uint32_t nt = w * 64 + (uint32_t)__builtin_ctzll(bits);
            const uint64_t *initial = g->initial_terminals + (size_t)nt * g->term_words;
            for (uint32_t k = 0; k < g->term_words; k++)
                terms[k] |= initial[k];
        }
    }
    for (uint32_t w = 0; w < g->term_words; w++) {
        for (uint64_t bits = terms[w]; bits; bits &= bits - 1) {
            uint32_t t = w * 64 + (uint32_t)__builtin_ctzll(bits);
            const uint64_t *lex = g->terminal_lexemes + (size_t)t * g->lex_words;
            for (uint32_t k = 0; k < g->lex_words; k++)
                lexemes[k] |= lex[k];
        }
    }
}

/* Sorts items[start..end) by the symbol after the dot, stably, on
 * (symbol, item) pairs, the symbols looked up once. */
static void ep__sort_by_next_symbol(ep_earley *e, uint32_t start, uint32_t end)
{
    const ep_grammar *g = e->grammar;
    uint32_t n = end - start;
    if (n < 2)
        return;
    if (n > e->sort_capacity) {
        sm_free(e->sort_scratch);
        e->sort_capacity = n * 2;
        /* keys, then as many items */
        e->sort_scratch = sm_malloc(e->sort_capacity * (sizeof(uint64_t) + sizeof(ep_item)));
    }
    /* key: next symbol (EP_END sorts last) above the item's index */
    uint64_t *keys = e->sort_scratch;
    ep_item *sorted_items = (ep_item *)(keys + e->sort_capacity);
    ep_item *items = e->items.items + start;
    bool sorted = true;
    for (uint32_t i = 0; i < n; i++) {
        keys[i] = ((uint64_t)g->body[items[i].position] << 32) | i;
        sorted = sorted && (i == 0 || keys[i] > keys[i - 1]);
    }
    if (sorted)
        return;
    /* Shell sort (Ciura's gaps): the keys are distinct, so the order is the
     * stable one; charts in a reverse parse hold a few hundred items in
     * no particular order, where an insertion sort alone is quadratic */
    static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t k = 0; k < sizeof gaps / sizeof *gaps; k++) {
        uint32_t gap = gaps[k];
        for (uint32_t i = gap; i < n; i++) {
            uint64_t key = keys[i];
            uint32_t j = i;
            while (j >= gap && keys[j - gap] > key) {
                keys[j] = keys[j - gap];
                j -= gap;
            }
            keys[j] = key;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        sorted_items[i] = items[(uint32_t)keys[i]];
    memcpy(items, sorted_items, n * sizeof *items);
}

uint32_t ep_earley_root(ep_earley *e)
{
    ep_earley_reset_to(e, (ep_earley_mark){0, 0, 0});
    ep_chart root = {EP_NONE, 0, 0, 0, 0, 0};
    sm_array_push(&e->charts, root);
    ep__finish_chart(e, 0);
    return 0;
}

uint32_t ep_earley_scan_edges(ep_earley *e, const ep_edge *edges, uint32_t count)
{
    const ep_grammar *g = e->grammar;
    uint32_t id = e->charts.size;
    uint32_t items_start = e->items.size;
    ep__seen_clear(e);
    for (uint32_t k = 0; k < count; k++)
        for (uint32_t t = 0; t < edges[k].count; t++)
            if (!e->chart_sets || ep_earley_can_scan(e, edges[k].from, edges[k].terminals[t]))
                ep__advance_over(e, edges[k].from, edges[k].terminals[t]);
    if (e->items.size == items_start)
        return EP_NONE;
    ep_chart chart = {count ? edges[0].from : EP_NONE, items_start, 0, 0, 0, 0};
    sm_array_push(&e->charts, chart);
    /* complete: every finished item advances the items that expected its
     * left-hand side in its origin chart (always an earlier, finished one) */
    for (uint32_t i = items_start; i < e->items.size; i++) {
        ep_item item = e->items.items[i];
        if (g->body[item.position] == EP_END)
            ep__advance_over(e, item.origin, ep__lhs(g, item.position));
    }
    e->charts.items[id].items_count = e->items.size - items_start;
    ep__sort_by_next_symbol(e, items_start, e->items.size);
    ep__finish_chart(e, id);
    return id;
}

uint32_t ep_earley_scan(ep_earley *e, uint32_t from, const uint32_t *terminals, uint32_t count)
{
    ep_edge edge = {from, {EP_NONE, EP_NONE}, 0};
    for (uint32_t t = 0; t < count && t < 2; t++)
        edge.terminals[edge.count++] = terminals[t];
    return ep_earley_scan_edges(e, &edge, 1);
}

bool ep_earley_accepts_symbol(const ep_earley *e, uint32_t chart_id, uint32_t symbol)
{
    const ep_grammar *g = e->grammar;
    /* at the root, a nullable symbol's completion is implied */
    if (chart_id == 0 && g->nullable[symbol])
        return true;
    const ep_chart *chart = &e->charts.items[chart_id];
    for (uint32_t i = chart->items_start; i < chart->items_start + chart->items_count; i++) {
        ep_item item = e->items.items[i];
        if (item.origin == 0 && g->body[item.position] == EP_END && ep__lhs(g, item.position) == symbol)
            return true;
    }
    return false;
}

bool ep_earley_accepts(const ep_earley *e, uint32_t chart_id)
{
    return ep_earley_accepts_symbol(e, chart_id, e->grammar->start_symbol);
}
