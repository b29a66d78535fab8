/*
 * earley.c - the Earley recognizer over charts that form a tree
 * (see ep_earley.h).
 */
#include "ep_earley.h"

#include <string.h>

enum {
    EP_MEMO_SLOTS = 4096,               /* a power of two */
    EP_MEMO_MAX_ITEMS = 1u << 18,       /* kept items (8 bytes each) and */
    EP_MEMO_MAX_WORDS = 1u << 18,       /* words of sets: 4 MiB, then the memo is emptied */
};

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
    sm_free(e->memo);
    e->memo = NULL;
    sm_array_free(&e->memo_items);
    sm_array_free(&e->memo_sets);
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

/* The words of sets each chart holds in e->sets: its predicted
 * nonterminals and, with chart sets, its scannable terminals and allowed
 * lexemes after them. */
static uint32_t ep__chart_words(const ep_earley *e)
{
    const ep_grammar *g = e->grammar;
    return g->nt_words + (e->chart_sets ? g->term_words + g->lex_words : 0);
}

/* Points a chart's sets at e->sets from `predicted` on. */
static void ep__place_sets(const ep_earley *e, ep_chart *chart, uint32_t predicted)
{
    chart->predicted = predicted;
    chart->terminals = e->chart_sets ? predicted + e->grammar->nt_words : EP_NONE;
    chart->allowed = e->chart_sets ? chart->terminals + e->grammar->term_words : EP_NONE;
}

/* Computes a finished chart's predicted nonterminals, scannable terminals
 * and allowed lexemes. */
static void ep__finish_chart(ep_earley *e, uint32_t id)
{
    const ep_grammar *g = e->grammar;
    uint32_t predicted = e->sets.size;
    uint32_t words = ep__chart_words(e);
    sm_array_grow_by(&e->sets, words);
    uint64_t *sets = e->sets.items + predicted;
    memset(sets, 0, words * sizeof(uint64_t));
    uint64_t *nts = sets, *terms = sets + g->nt_words, *lexemes = terms + g->term_words;
    ep_chart *chart = &e->charts.items[id];
    ep__place_sets(e, chart, predicted);
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

/* Shell sort (Ciura's gaps) of distinct keys. */
static void ep__shell_sort(uint64_t *keys, uint32_t n)
{
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
}

/* Sorts items[start..end) by the symbol after the dot, stably (EP_END
 * last).  A chart holds many items per symbol (32 to 255 items, in no
 * particular order, are common in a reverse parse), so the items are
 * grouped: each distinct symbol is counted in a small hash table, the
 * distinct symbols are sorted, and the items are placed by the counts. */
static void ep__sort_by_next_symbol(ep_earley *e, uint32_t start, uint32_t end)
{
    const ep_grammar *g = e->grammar;
    uint32_t n = end - start;
    if (n < 2)
        return;
    uint32_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    /* scratch: symbols and slots per item, the table's keys and counts, the
     * distinct symbols (symbol << 32 | slot), the items in order */
    size_t bytes = (size_t)n * (2 * sizeof(uint32_t) + sizeof(uint64_t) + sizeof(ep_item)) +
                   (size_t)cap * (sizeof(uint64_t) + sizeof(uint32_t));
    if (bytes > e->sort_capacity) {
        sm_free(e->sort_scratch);
        e->sort_capacity = (uint32_t)(bytes * 2);
        e->sort_scratch = sm_malloc(e->sort_capacity);
    }
    uint64_t *table = e->sort_scratch;                 /* [cap] symbols, UINT64_MAX: empty */
    uint64_t *distinct = table + cap;                  /* [n] */
    ep_item *sorted_items = (ep_item *)(distinct + n); /* [n] */
    uint32_t *count = (uint32_t *)(sorted_items + n);  /* [cap] */
    uint32_t *symbol = count + cap;                    /* [n] */
    uint32_t *slot_of = symbol + n;                    /* [n] */
    ep_item *items = e->items.items + start;
    bool sorted = true;
    for (uint32_t i = 0; i < n; i++) {
        symbol[i] = g->body[items[i].position];
        sorted = sorted && (i == 0 || symbol[i] >= symbol[i - 1]);
    }
    if (sorted)
        return;
    memset(table, 0xff, cap * sizeof *table);
    uint32_t d = 0, mask = cap - 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t slot = (symbol[i] * 0x9E3779B1u) & mask;
        while (table[slot] != UINT64_MAX && table[slot] != symbol[i])
            slot = (slot + 1) & mask;
        if (table[slot] == UINT64_MAX) {
            table[slot] = symbol[i];
            count[slot] = 0;
            distinct[d++] = ((uint64_t)symbol[i] << 32) | slot;
        }
        count[slot]++;
        slot_of[i] = slot;
    }
    ep__shell_sort(distinct, d);
    uint32_t at = 0;
    for (uint32_t k = 0; k < d; k++) {
        uint32_t slot = (uint32_t)distinct[k], c = count[slot];
        count[slot] = at;
        at += c;
    }
    for (uint32_t i = 0; i < n; i++)
        sorted_items[count[slot_of[i]]++] = items[i];
    memcpy(items, sorted_items, n * sizeof *items);
}

/* ---- The memo of scans ------------------------------------------------------ */

/* An ident no path of scans has: odd, where a path's are even. */
static uint64_t ep__fresh_ident(ep_earley *e)
{
    return (++e->serial << 1) | 1;
}

/* The ident of the chart `id` made by the scan of `key`: the place is part
 * of it, since later charts' items name charts by their place. */
static uint64_t ep__ident_of(uint64_t key, uint32_t id)
{
    return sm_mix64(key ^ ((uint64_t)id * 0x9E3779B97F4A7C15ull)) & ~(uint64_t)1;
}

/* The key of a scan of one edge: the ident of the chart it reads and its
 * terminals; never 0. */
static uint64_t ep__memo_key(const ep_earley *e, const ep_edge *edge)
{
    uint64_t key = e->charts.items[edge->from].ident;
    for (uint32_t t = 0; t < edge->count && t < 2; t++)
        key = sm_mix64(key ^ ((uint64_t)edge->terminals[t] + 1) * (t ? 0xD6E8FEB86659FD93ull : 0x9E3779B97F4A7C15ull));
    key = sm_mix64(key + edge->count);
    return key ? key : 1;
}

static ep_memo_entry *ep__memo_find(ep_earley *e, uint64_t key)
{
    if (!e->memo)
        return NULL;
    ep_memo_entry *slot = &e->memo[key & (EP_MEMO_SLOTS - 1)];
    return slot->key == key ? slot : NULL;
}

/* Appends the chart kept in `hit`, scanned from `from`; its id, or EP_NONE. */
static uint32_t ep__memo_copy(ep_earley *e, const ep_memo_entry *hit, uint32_t from)
{
    if (hit->count == EP_NONE)
        return EP_NONE;
    uint32_t id = e->charts.size, words = ep__chart_words(e);
    ep_chart chart = {from, e->items.size, hit->count, 0, 0, 0, 0};
    ep__place_sets(e, &chart, e->sets.size);
    sm_array_grow_by(&e->items, hit->count);
    memcpy(e->items.items + chart.items_start, e->memo_items.items + hit->items, hit->count * sizeof(ep_item));
    sm_array_grow_by(&e->sets, words);
    memcpy(e->sets.items + chart.predicted, e->memo_sets.items + hit->sets, words * sizeof(uint64_t));
    sm_array_push(&e->charts, chart);
    e->memo_copies++;
    return id;
}

/* Keeps the chart `id` (EP_NONE: none) that the scan of `key` made; the
 * memo is emptied when it would hold more than 4 MiB. */
static void ep__memo_keep(ep_earley *e, uint64_t key, uint32_t id)
{
    uint32_t count = id == EP_NONE ? 0 : e->charts.items[id].items_count;
    uint32_t words = ep__chart_words(e);
    if (!e->memo)
        e->memo = sm_calloc(EP_MEMO_SLOTS, sizeof *e->memo);
    if (e->memo_items.size + count > EP_MEMO_MAX_ITEMS || e->memo_sets.size + words > EP_MEMO_MAX_WORDS) {
        memset(e->memo, 0, EP_MEMO_SLOTS * sizeof *e->memo);
        e->memo_items.size = 0;
        e->memo_sets.size = 0;
    }
    ep_memo_entry *slot = &e->memo[key & (EP_MEMO_SLOTS - 1)];
    *slot = (ep_memo_entry){key, e->memo_items.size, EP_NONE, e->memo_sets.size};
    if (id == EP_NONE)
        return;
    const ep_chart *chart = &e->charts.items[id];
    slot->count = count;
    sm_array_grow_by(&e->memo_items, count);
    memcpy(e->memo_items.items + slot->items, e->items.items + chart->items_start, count * sizeof(ep_item));
    sm_array_grow_by(&e->memo_sets, words);
    memcpy(e->memo_sets.items + slot->sets, e->sets.items + chart->predicted, words * sizeof(uint64_t));
}

uint32_t ep_earley_root(ep_earley *e)
{
    ep_earley_reset_to(e, (ep_earley_mark){0, 0, 0});
    ep_chart root = {EP_NONE, 0, 0, 0, 0, 0, ep__fresh_ident(e)};
    sm_array_push(&e->charts, root);
    ep__finish_chart(e, 0);
    return 0;
}

static uint32_t ep__scan(ep_earley *e, const ep_edge *edges, uint32_t count);

/* The chart made by `edges` as ep__scan makes it: copied from the memo when
 * one edge is scanned from a chart whose path was scanned before. */
uint32_t ep_earley_scan_edges(ep_earley *e, const ep_edge *edges, uint32_t count)
{
    uint64_t key = count == 1 && e->chart_sets ? ep__memo_key(e, &edges[0]) : 0;
    ep_memo_entry *hit = key && e->memo_on ? ep__memo_find(e, key) : NULL;
    uint32_t id = hit ? ep__memo_copy(e, hit, edges[0].from) : ep__scan(e, edges, count);
    e->scans_made += key && !hit;
    if (key && e->memo_on && !hit)
        ep__memo_keep(e, key, id);
    if (id != EP_NONE)
        e->charts.items[id].ident = key ? ep__ident_of(key, id) : ep__fresh_ident(e);
    return id;
}

static uint32_t ep__scan(ep_earley *e, const ep_edge *edges, uint32_t count)
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
    ep_chart chart = {count ? edges[0].from : EP_NONE, items_start, 0, 0, 0, 0, 0};
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
