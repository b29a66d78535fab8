/*
 * quotient.c - the right quotient of a grammar by a right context
 * (Melcer et al. §IV-B).
 *
 * Given the right context R as tokens r1..rn, the quotient G/R generates the
 * texts x for which x R is in L(G).  It is built in three steps:
 *
 * 1. Earley runs over R backwards with the reversed grammar (every rule
 *    body reversed), from the end of the text to the cursor.  Reverse chart
 *    o stands for the position n - o of R.
 * 2. An item [A -> g . d, o] of the last chart (the cursor) says that A
 *    began, in the reversed parse, at chart o, that the reversed part g
 *    covers R up to that point, and that the reversed part d must come from
 *    the text left of the cursor.  It gives the rule  <A,o> -> fwd(d)  where
 *    fwd() restores the forward order.
 * 3. <A,o> is completed, right of R's part, by whatever predicted A in
 *    chart o: every item [B -> g' . A d', o'] of chart o gives
 *    <B,o'> -> fwd(d') <A,o>.  Following these links from the cursor reaches
 *    <S',0>, the quotient's start.  <A,cursor> is A itself (it lies wholly
 *    left of the cursor).
 *
 * Every item of an Earley chart is reachable from the start and consistent
 * with the text read, so every rule made here is used by some derivation of
 * x R; conversely every derivation of x R passes through the cursor with a
 * set of open constituents, which are exactly items of the last chart and
 * their prediction chains.  docs/RECOGNIZER.md has the argument at length.
 */
#include "ep_earley.h"
#include "ep_quotient.h"

#include <string.h>

typedef struct ep_rule_list {
    SM_ARRAY(uint32_t) lhs;
    SM_ARRAY(uint32_t) start;
    SM_ARRAY(uint32_t) symbols;
} ep_rule_list;

/* Builds a derived grammar: `base`'s symbols plus `extra_nts` new
 * nonterminals, `base`'s rules (bodies reversed if `reverse`) plus `extra`,
 * and `start` as the start symbol.  Lexer tables and names are borrowed. */
static ep_grammar *ep__derive(const ep_grammar *base, bool reverse, const uint32_t *rev_kind, uint32_t extra_nts,
                              const ep_rule_list *extra, uint32_t start)
{
    ep_grammar *g = sm_calloc(1, sizeof *g);
    *g = *base;
    g->derived = true;
    g->original = base->original ? base->original : base;
    g->reversed = NULL;
    g->symbol_count = base->symbol_count + extra_nts;
    g->symbol_names = sm_calloc(g->symbol_count, sizeof(char *));
    memcpy(g->symbol_names, base->symbol_names, base->symbol_count * sizeof(char *));
    g->start_symbol = start;
    uint32_t extra_rules = extra ? extra->lhs.size : 0;
    uint32_t extra_symbols = extra ? extra->symbols.size : 0;
    g->rule_count = base->rule_count + extra_rules;
    /* a rewritten nonterminal's rules gain its helper in front */
    g->position_count = base->position_count + base->rule_count + extra_symbols + extra_rules;
    g->rule_lhs = sm_malloc(g->rule_count * sizeof(uint32_t));
    g->rule_start = sm_malloc(g->rule_count * sizeof(uint32_t));
    g->body = sm_malloc(g->position_count * sizeof(uint32_t));
    g->position_rule = sm_malloc(g->position_count * sizeof(uint32_t));
    uint32_t at = 0, r = 0;
    for (uint32_t b = 0; b < base->rule_count; b++) {
        uint32_t from = base->rule_start[b], len = 0;
        while (base->body[from + len] != EP_END)
            len++;
        uint32_t lhs = base->rule_lhs[b];
        uint32_t kind = reverse && rev_kind ? rev_kind[lhs] : EP_NONE;
        uint32_t keep = 0; /* leading symbols kept in place */
        if (kind == EP_REV_HELPER && len > 0) {
            keep = 1; /* M -> M a  reads  M -> M rev(a) */
        } else if (kind != EP_NONE && kind != EP_REV_HELPER) {
            if (len > 0 && base->body[from] == lhs)
                continue; /* N -> N a: carried by the helper */
        }
        g->rule_lhs[r] = lhs;
        g->rule_start[r] = at;
        if (kind != EP_NONE && kind != EP_REV_HELPER) {
            g->position_rule[at] = r;
            g->body[at++] = kind; /* N -> M rev(b) */
        }
        for (uint32_t k = 0; k < keep; k++) {
            g->position_rule[at] = r;
            g->body[at++] = base->body[from + k];
        }
        for (uint32_t k = keep; k < len; k++) {
            g->position_rule[at] = r;
            g->body[at++] = base->body[reverse ? from + len - 1 - (k - keep) : from + k];
        }
        g->position_rule[at] = r;
        g->body[at++] = EP_END;
        r++;
    }
    g->rule_count = r + extra_rules;
    for (uint32_t i = 0; i < extra_rules; i++) {
        uint32_t rule = g->rule_count - extra_rules + i;
        uint32_t from = extra->start.items[i];
        uint32_t to = i + 1 < extra_rules ? extra->start.items[i + 1] : extra->symbols.size;
        g->rule_lhs[rule] = extra->lhs.items[i];
        g->rule_start[rule] = at;
        for (uint32_t k = from; k < to; k++) {
            g->position_rule[at] = rule;
            g->body[at++] = extra->symbols.items[k];
        }
        g->position_rule[at] = rule;
        g->body[at++] = EP_END;
    }
    g->position_count = at;
    /* a quotient keeps base's rules as they are and adds rules only for new
     * nonterminals: base's tables hold for base's symbols */
    bool extends = !reverse && g->rule_count == base->rule_count + extra_rules;
    for (uint32_t i = 0; extends && i < extra_rules; i++)
        extends = extra->lhs.items[i] >= base->symbol_count;
    ep_grammar_compute_nullable(g, extends ? base : NULL);
    ep_grammar_compute_initial(g, extends ? base : NULL);
    return g;
}

ep_grammar *ep_grammar_build_reversed(const ep_grammar *g, const uint32_t *rev_kind)
{
    return ep__derive(g, true, rev_kind, 0, NULL, g->start_symbol);
}

/* ---- Extraction ------------------------------------------------------------ */

typedef struct ep_extract {
    const ep_grammar *reversed;
    const ep_earley *earley;
    uint32_t cursor;                 /* the cursor's reverse chart */
    uint32_t first_nt;               /* id of this cursor's first new nonterminal */
    uint32_t total_nts;              /* new nonterminals of the cursors done */
    SM_ARRAY(uint64_t) keys;         /* (symbol << 32 | chart) of each new nonterminal */
    SM_ARRAY(uint32_t) pending;      /* indices into keys still to link */
    ep_rule_list rules;
} ep_extract;

/* The quotient nonterminal <symbol, chart>: the symbol itself at the
 * cursor, else a new nonterminal (created, and queued, on first use). */
static uint32_t ep__quotient_symbol(ep_extract *x, uint32_t symbol, uint32_t chart)
{
    if (chart == x->cursor)
        return symbol;
    uint64_t key = ((uint64_t)symbol << 32) | chart;
    for (uint32_t i = 0; i < x->keys.size; i++)
        if (x->keys.items[i] == key)
            return x->first_nt + i;
    sm_array_push(&x->keys, key);
    sm_array_push(&x->pending, x->keys.size - 1);
    return x->first_nt + x->keys.size - 1;
}

/* Adds  lhs -> fwd(reversed body from `position` to its end) [last]. */
static void ep__quotient_rule(ep_extract *x, uint32_t lhs, uint32_t position, uint32_t last)
{
    const ep_grammar *g = x->reversed;
    sm_array_push(&x->rules.lhs, lhs);
    sm_array_push(&x->rules.start, x->rules.symbols.size);
    uint32_t end = position;
    while (g->body[end] != EP_END)
        end++;
    for (uint32_t p = end; p > position; p--)
        sm_array_push(&x->rules.symbols, g->body[p - 1]);
    if (last != EP_NONE)
        sm_array_push(&x->rules.symbols, last);
}

/* Links <symbol, chart> to every item of `chart` that expects `symbol`. */
static void ep__quotient_link(ep_extract *x, uint32_t symbol, uint32_t chart_id)
{
    const ep_grammar *g = x->reversed;
    const ep_chart *chart = &x->earley->charts.items[chart_id];
    uint32_t self = ep__quotient_symbol(x, symbol, chart_id);
    for (uint32_t i = chart->items_start; i < chart->items_start + chart->items_count; i++) {
        ep_item item = x->earley->items.items[i];
        if (g->body[item.position] != symbol)
            continue;
        uint32_t parent = ep__quotient_symbol(x, g->rule_lhs[g->position_rule[item.position]], item.origin);
        ep__quotient_rule(x, parent, item.position + 1, self);
    }
    const uint64_t *predicted = x->earley->sets.items + chart->predicted;
    for (uint32_t k = g->initial_by_symbol_start[symbol]; k < g->initial_by_symbol_start[symbol + 1]; k++) {
        uint32_t position = g->initial_by_symbol[k];
        uint32_t lhs = g->initial_by_symbol_lhs[k] + g->terminal_count;
        if (ep_set_has(predicted, lhs - g->terminal_count))
            ep__quotient_rule(x, ep__quotient_symbol(x, lhs, chart_id), position + 1, self);
    }
}

/* Runs the reversed grammar over the token automaton backwards, from its
 * last node to node 0.  Stores in chart_of[node] the reverse chart of each
 * node: the root (0) for the last node, EP_NONE for a node from which no
 * path can be a suffix of a program. */
static void ep__reverse_parse(ep_earley *earley, uint32_t nodes, const ep_token_edge *edges, uint32_t edge_count,
                              uint32_t *chart_of)
{
    /* edges grouped by the node they leave (a counting sort) */
    uint32_t *first = sm_calloc(nodes + 1, sizeof(uint32_t));
    uint32_t *order = sm_malloc((edge_count ? edge_count : 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < edge_count; k++)
        first[edges[k].from_node + 1]++;
    for (uint32_t n = 0; n < nodes; n++)
        first[n + 1] += first[n];
    uint32_t *fill = sm_malloc((nodes + 1) * sizeof(uint32_t));
    memcpy(fill, first, (nodes + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < edge_count; k++)
        order[fill[edges[k].from_node]++] = k;
    sm_free(fill);

    for (uint32_t n = 0; n < nodes; n++)
        chart_of[n] = EP_NONE;
    chart_of[nodes - 1] = ep_earley_root(earley);
    SM_ARRAY(ep_edge) incoming;
    sm_array_init(&incoming);
    for (uint32_t node = nodes - 1; node-- > 0;) {
        incoming.size = 0;
        for (uint32_t i = first[node]; i < first[node + 1]; i++) {
            const ep_token_edge *edge = &edges[order[i]];
            if (chart_of[edge->to_node] == EP_NONE)
                continue;
            ep_edge scan = {chart_of[edge->to_node], {edge->terminals[0], edge->terminals[1]}, edge->count};
            sm_array_push(&incoming, scan);
        }
        if (incoming.size)
            chart_of[node] = ep_earley_scan_edges(earley, incoming.items, incoming.size);
    }
    sm_array_free(&incoming);
    sm_free(first);
    sm_free(order);
}

/* Extracts the quotient rules for the cursor whose reverse chart is `chart`
 * into `x` (whose keys must be empty) and returns its start symbol; its new
 * nonterminals are numbered from x->first_nt. */
static uint32_t ep__extract_cursor(ep_extract *x, uint32_t chart, const ep_grammar *base)
{
    const ep_earley *earley = x->earley;
    const ep_grammar *reversed = x->reversed;
    x->cursor = chart;
    if (chart == EP_NONE) {
        sm_array_push(&x->keys, UINT64_MAX); /* a start without rules: nothing joins R */
        return x->first_nt + x->keys.size - 1;
    }
    if (chart == 0)
        return base->start_symbol; /* an empty right context */
    const ep_chart *last = &earley->charts.items[chart];
    for (uint32_t i = last->items_start; i < last->items_start + last->items_count; i++) {
        ep_item item = earley->items.items[i];
        uint32_t lhs = reversed->rule_lhs[reversed->position_rule[item.position]];
        ep__quotient_rule(x, ep__quotient_symbol(x, lhs, item.origin), item.position, EP_NONE);
    }
    for (uint32_t next = 0; next < x->pending.size; next++) {
        uint64_t key = x->keys.items[x->pending.items[next]];
        ep__quotient_link(x, (uint32_t)(key >> 32), (uint32_t)key);
    }
    return ep__quotient_symbol(x, base->start_symbol, 0);
}

/* ---- Right recursion ------------------------------------------------------- */

/* A left-recursive rule of the reversed grammar (a helper M -> M rev(a),
 * predicted by itself) links <M,o> to itself in chart o and gives the
 * quotient  <M,o> -> a <M,o>:  right recursion, which costs an Earley
 * recognizer one item per repetition in every chart (a module of n
 * statements left of the cursor: O(n^2) time and memory).  Rewrites every
 * new nonterminal Q with rules  Q -> a_i Q  and  Q -> b_j  as
 *     Q -> H b_j,   H -> H a_i,   H -> empty
 * with a helper H of its own: the same language, (a_1|...|a_k)* (b_1|...),
 * read left-recursively, in constant space per chart.  A rule Q -> Q is
 * dropped (it adds nothing).  Returns the helpers added; they are numbered
 * from `next_nt`. */
static uint32_t ep__rules_end(const ep_rule_list *rules, uint32_t i)
{
    return i + 1 < rules->lhs.size ? rules->start.items[i + 1] : rules->symbols.size;
}

static bool ep__right_recursive(const ep_rule_list *rules, uint32_t i)
{
    uint32_t from = rules->start.items[i], to = ep__rules_end(rules, i);
    return to > from && rules->symbols.items[to - 1] == rules->lhs.items[i];
}

static void ep__push_rule(ep_rule_list *out, uint32_t lhs, uint32_t head, const uint32_t *body, uint32_t len)
{
    sm_array_push(&out->lhs, lhs);
    sm_array_push(&out->start, out->symbols.size);
    if (head != EP_NONE)
        sm_array_push(&out->symbols, head);
    for (uint32_t k = 0; k < len; k++)
        sm_array_push(&out->symbols, body[k]);
}

static uint32_t ep__unright(ep_rule_list *rules, uint32_t first_new, uint32_t next_nt)
{
    uint32_t symbols = next_nt;
    uint32_t *helper = sm_malloc((symbols - first_new + 1) * sizeof(uint32_t));
    for (uint32_t q = 0; q < symbols - first_new; q++)
        helper[q] = EP_NONE;
    uint32_t added = 0;
    for (uint32_t i = 0; i < rules->lhs.size; i++) {
        uint32_t lhs = rules->lhs.items[i];
        if (lhs >= first_new && lhs < symbols && helper[lhs - first_new] == EP_NONE && ep__right_recursive(rules, i))
            helper[lhs - first_new] = next_nt + added++;
    }
    if (added == 0) {
        sm_free(helper);
        return 0;
    }
    ep_rule_list out;
    memset(&out, 0, sizeof out);
    for (uint32_t i = 0; i < rules->lhs.size; i++) {
        uint32_t lhs = rules->lhs.items[i];
        uint32_t from = rules->start.items[i], len = ep__rules_end(rules, i) - from;
        const uint32_t *body = rules->symbols.items + from;
        uint32_t h = lhs >= first_new && lhs < symbols ? helper[lhs - first_new] : EP_NONE;
        if (h == EP_NONE)
            ep__push_rule(&out, lhs, EP_NONE, body, len);
        else if (!ep__right_recursive(rules, i))
            ep__push_rule(&out, lhs, h, body, len);         /* Q -> H b */
        else if (len > 1)
            ep__push_rule(&out, h, h, body, len - 1);       /* H -> H a */
    }
    for (uint32_t q = 0; q < symbols - first_new; q++)
        if (helper[q] != EP_NONE)
            ep__push_rule(&out, helper[q], EP_NONE, NULL, 0); /* H -> empty */
    sm_free(helper);
    sm_array_free(&rules->lhs);
    sm_array_free(&rules->start);
    sm_array_free(&rules->symbols);
    *rules = out;
    return added;
}

int ep_quotient_build_multi(const ep_grammar *base, uint32_t nodes, const ep_token_edge *edges, uint32_t edge_count,
                            const uint32_t *cursors, uint32_t cursor_count, uint32_t union_extra, ep_grammar **out,
                            uint32_t *starts)
{
    *out = NULL;
    for (uint32_t k = 0; k < edge_count; k++)
        if (edges[k].from_node >= edges[k].to_node || edges[k].to_node >= nodes || edges[k].count == 0 ||
            edges[k].count > 2)
            return SM_EINVAL;
    if (nodes == 0 || cursor_count == 0)
        return SM_EINVAL;
    for (uint32_t c = 0; c < cursor_count; c++)
        if (cursors[c] >= nodes)
            return SM_EINVAL;
    /* a compiled grammar carries its reversed form; build one otherwise */
    ep_grammar *built = base->reversed ? NULL : ep_grammar_build_reversed(base, NULL);
    const ep_grammar *reversed = base->reversed ? base->reversed : built;
    ep_earley earley;
    ep_earley_init(&earley, reversed);
    earley.chart_sets = false; /* only items are read off the reverse charts */
    uint32_t *chart_of = sm_malloc(nodes * sizeof(uint32_t));
    ep__reverse_parse(&earley, nodes, edges, edge_count, chart_of);

    /* each cursor has nonterminals of its own: <A,o> stands for what must
     * come left of that cursor */
    ep_extract x;
    memset(&x, 0, sizeof x);
    x.reversed = reversed;
    x.earley = &earley;
    x.first_nt = reversed->symbol_count;
    for (uint32_t c = 0; c < cursor_count; c++) {
        starts[c] = ep__extract_cursor(&x, chart_of[cursors[c]], base);
        x.first_nt += x.keys.size;
        x.total_nts += x.keys.size;
        x.keys.size = 0;
        x.pending.size = 0;
    }
    uint32_t start = starts[0];
    if (cursor_count > 1 || union_extra != EP_NONE) {
        /* U -> start_c for every cursor (and union_extra) */
        start = x.first_nt;
        x.total_nts++;
        for (uint32_t c = 0; c <= cursor_count; c++) {
            uint32_t symbol = c < cursor_count ? starts[c] : union_extra;
            if (symbol == EP_NONE)
                continue;
            sm_array_push(&x.rules.lhs, start);
            sm_array_push(&x.rules.start, x.rules.symbols.size);
            sm_array_push(&x.rules.symbols, symbol);
        }
    }
    uint32_t first_new = reversed->symbol_count;
    x.total_nts += ep__unright(&x.rules, first_new, first_new + x.total_nts);
    *out = ep__derive(base, false, NULL, x.total_nts, &x.rules, start);
    ep_earley_free(&earley);
    ep_grammar_free(built);
    sm_free(chart_of);
    sm_array_free(&x.keys);
    sm_array_free(&x.pending);
    sm_array_free(&x.rules.lhs);
    sm_array_free(&x.rules.start);
    sm_array_free(&x.rules.symbols);
    return SM_OK;
}

int ep_quotient_build_dag(const ep_grammar *base, uint32_t nodes, const ep_token_edge *edges, uint32_t edge_count,
                          ep_grammar **out)
{
    uint32_t cursor = 0, start;
    return ep_quotient_build_multi(base, nodes, edges, edge_count, &cursor, 1, EP_NONE, out, &start);
}

int ep_quotient_build_tokens(const ep_grammar *base, const ep_tokens *tokens, ep_grammar **out)
{
    /* a chain automaton: node i is before token i */
    ep_token_edge *edges = sm_calloc(tokens->size ? tokens->size : 1, sizeof *edges);
    for (uint32_t i = 0; i < tokens->size; i++)
        edges[i] = (ep_token_edge){i, i + 1, {tokens->items[i].terminals[0], tokens->items[i].terminals[1]},
                                   tokens->items[i].count};
    int rc = ep_quotient_build_dag(base, tokens->size + 1, edges, tokens->size, out);
    sm_free(edges);
    return rc;
}

int ep_quotient_build(const ep_grammar *base, const char *right, size_t right_len, ep_grammar **out)
{
    *out = NULL;
    ep_tokens tokens;
    sm_array_init(&tokens);
    int rc;
    if (ep_tokenize(base, right, right_len, &tokens) != SM_OK) {
        *out = ep__derive(base, false, NULL, 1, NULL, base->symbol_count); /* no rules: empty */
        rc = SM_OK;
    } else {
        rc = ep_quotient_build_tokens(base, &tokens, out);
    }
    sm_array_free(&tokens);
    return rc;
}
