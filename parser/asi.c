/*
 * asi.c - automatic semicolon insertion (%layout asi), as ECMAScript
 * specifies it (§12.10), between the lexer and the Earley parser:
 *
 *  - a token that no production allows (the offending token) gets the
 *    declared terminal ASI in front of it when a line break precedes it or
 *    it is "}", and the parser takes ASI there; at the end of the input
 *    ASI comes when the program is not complete without it;
 *  - ASI_DO, the semicolon that ends a do-while statement, comes before an
 *    offending token whatever precedes it;
 *  - the grammar writes SL where no line break may stand ("return" SL
 *    expression, a postfix "++", "=>"): a token with no line break in front
 *    is scanned both as it comes and after SL, so a restricted production
 *    never reads a token from the next line, which is then offending.
 *
 * The grammar puts ASI and ASI_DO only where a statement's own ";" may
 * stand, so an inserted semicolon is never an empty statement nor one of a
 * for head's.  The charts the token in progress may be scanned from (after
 * SL, ASI or ASI_DO) are made when it starts; viability asks all of them.
 * The lexical goal (a regular expression or "/", a template's continuation
 * or "}") is what the parser expects there: %goal lexemes.
 */
#include "ep_earley.h"
#include "ep_recognizer.h"

#include <string.h>

/* Scans terminal t from chart `from` into a new chart, or EP_NONE. */
static uint32_t ep__scan_one(ep_recognizer *rec, uint32_t from, uint32_t t)
{
    if (from == EP_NONE || t == EP_NONE || !ep_earley_can_scan(&rec->earley, from, t))
        return EP_NONE;
    return ep_earley_scan(&rec->earley, from, &t, 1);
}

/* Adds the lexemes that may begin `symbol` to a lexeme set. */
static void ep__add_first(const ep_grammar *g, uint32_t symbol, uint64_t *lexemes)
{
    if (ep_is_terminal(g, symbol)) {
        const uint64_t *lex = g->terminal_lexemes + (size_t)symbol * g->lex_words;
        for (uint32_t k = 0; k < g->lex_words; k++)
            lexemes[k] |= lex[k];
        return;
    }
    const uint64_t *closure = g->predict_closure + (size_t)(symbol - g->terminal_count) * g->nt_words;
    for (uint32_t w = 0; w < g->nt_words; w++) {
        for (uint64_t bits = closure[w]; bits; bits &= bits - 1) {
            uint32_t nt = w * 64 + (uint32_t)__builtin_ctzll(bits);
            const uint64_t *initial = g->initial_terminals + (size_t)nt * g->term_words;
            for (uint32_t tw = 0; tw < g->term_words; tw++)
                for (uint64_t tb = initial[tw]; tb; tb &= tb - 1)
                    ep__add_first(g, tw * 64 + (uint32_t)__builtin_ctzll(tb), lexemes);
        }
    }
}

void ep_asi_tables_init(ep_asi_tables *t, const ep_grammar *g)
{
    uint32_t combos = 1u << g->goal_count;
    t->sets = sm_calloc((size_t)(2 + EP_MAX_GOALS + combos) * g->lex_words, sizeof(uint64_t));
    t->after_same_line = t->sets;
    t->scratch = t->sets + g->lex_words;
    t->excluded = t->sets + (size_t)(2 + EP_MAX_GOALS) * g->lex_words;
    for (uint32_t s = 0; s < g->goal_count; s++) {
        uint64_t *rivals = t->sets + (size_t)(2 + s) * g->lex_words;
        for (uint32_t r = 0; r < g->lexeme_count; r++)
            if (g->lexemes[r].rival_of & (1u << s))
                ep_set_add(rivals, r);
    }
    for (uint32_t goals = 0; goals < combos; goals++) {
        for (uint32_t r = 0; r < g->lexeme_count; r++)
            if (ep_lex_excluded(g, (uint8_t)goals, (int32_t)r))
                ep_set_add(t->excluded + (size_t)goals * g->lex_words, r);
    }
    /* what may follow SL anywhere: the first lexemes of what comes after
     * it, past nullable symbols */
    for (uint32_t p = 0; g->t_same_line != EP_NONE && p < g->position_count; p++) {
        if (g->body[p] != g->t_same_line)
            continue;
        for (uint32_t q = p + 1; g->body[q] != EP_END; q++) {
            ep__add_first(g, g->body[q], t->after_same_line);
            if (!g->nullable[g->body[q]])
                break;
        }
    }
}

void ep_asi_tables_free(ep_asi_tables *t)
{
    sm_free(t->sets);
    t->sets = NULL;
}

bool ep_asi_can_grow(const ep_recognizer *rec, const ep_run *run, uint32_t state)
{
    const ep_grammar *g = rec->grammar;
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, state);
    const uint64_t *excluded = rec->asi_tables.excluded + (size_t)run->goals * g->lex_words;
    for (uint32_t w = 0; w < g->lex_words; w++)
        if (reachable[w] & ~excluded[w])
            return true;
    return false;
}

/* Whether a chart (EP_NONE: none) allows a lexeme of `set`. */
static bool ep__allows_any(const ep_recognizer *rec, uint32_t chart, const uint64_t *set)
{
    if (chart == EP_NONE)
        return false;
    const uint64_t *allowed = ep_earley_allowed(&rec->earley, chart);
    for (uint32_t w = 0; w < rec->grammar->lex_words; w++)
        if (allowed[w] & set[w])
            return true;
    return false;
}

static bool ep__allows(const ep_recognizer *rec, uint32_t chart, uint32_t lex)
{
    return chart != EP_NONE && ep_set_has(ep_earley_allowed(&rec->earley, chart), lex);
}

/* The chart after SL for the token in progress, made on first need. */
static uint32_t ep__same_line(ep_recognizer *rec, ep_run *run)
{
    if (run->same_line == EP_NONE && run->same_line_possible) {
        run->same_line = ep__scan_one(rec, run->chart, rec->grammar->t_same_line);
        run->same_line_possible = false;
    }
    return run->same_line;
}

/* The goal lexemes the parser expects for a token scanned from the run's
 * charts: where neither a goal lexeme nor a rival of it may come directly,
 * the token is offending and the charts after an inserted semicolon
 * decide. */
static uint8_t ep__goals(ep_recognizer *rec, ep_run *run, uint8_t relevant)
{
    const ep_grammar *g = rec->grammar;
    uint32_t same_line = ep__same_line(rec, run);
    uint8_t goals = 0;
    for (uint32_t s = 0; s < g->goal_count; s++) {
        uint32_t lex = g->goal_lexemes[s];
        uint8_t bit = (uint8_t)(1u << s);
        if (!(relevant & bit))
            continue;
        if (ep__allows(rec, run->chart, lex) || ep__allows(rec, same_line, lex)) {
            goals |= bit;
            continue;
        }
        const uint64_t *rivals = rec->asi_tables.sets + (size_t)(2 + s) * g->lex_words;
        bool rival_direct = ep__allows_any(rec, run->chart, rivals) || ep__allows_any(rec, same_line, rivals);
        if (!rival_direct && (ep__allows(rec, run->asi, lex) || ep__allows(rec, run->asi_do, lex)))
            goals |= bit;
    }
    return goals;
}

bool ep_asi_real_token(ep_recognizer *rec, const ep_run *run, uint32_t state)
{
    const ep_grammar *g = rec->grammar;
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, state);
    const uint64_t *allowed = ep_earley_allowed(&rec->earley, run->chart);
    for (uint32_t w = 0; w < g->lex_words; w++) {
        for (uint64_t bits = reachable[w]; bits; bits &= bits - 1) {
            uint32_t lex = w * 64 + (uint32_t)__builtin_ctzll(bits);
            uint8_t kind = g->lexemes[lex].kind;
            if (kind != EP_LEX_TOKEN && kind != EP_LEX_ERROR)
                continue;
            /* a goal lexeme is a token here only where the parser may take it */
            if (!g->lexemes[lex].goal_bit || ep_set_has(allowed, lex) ||
                ep_set_has(rec->asi_tables.after_same_line, lex))
                return true;
        }
    }
    return false;
}

void ep_asi_token_start(ep_recognizer *rec, ep_run *run, uint8_t first)
{
    const ep_grammar *g = rec->grammar;
    if (g->has_functions)
        ep_functions_token_start(rec, run, first);
    run->same_line = EP_NONE;
    run->same_line_possible = !run->line_break && g->t_same_line != EP_NONE &&
                              ep_earley_can_scan(&rec->earley, run->chart, g->t_same_line);
    run->asi = run->line_break || first == '}' ? ep__scan_one(rec, run->chart, g->t_asi) : EP_NONE;
    run->asi_do = ep__scan_one(rec, run->chart, g->t_asi_do);
    /* the goal matters only for the first bytes of goal lexemes and rivals */
    uint8_t relevant = 0;
    for (uint32_t s = 0; s < g->goal_count; s++)
        if (g->goal_first[s][first / 64] & (uint64_t)1 << (first % 64))
            relevant |= (uint8_t)(1u << s);
    run->goals = relevant ? ep__goals(rec, run, relevant) : 0;
}



/* Scans a token from `chart` and, when given, from `also` (the same point
 * after SL) and `unmarked` (before a function body's marker), merging what
 * they make. */
static uint32_t ep__scan_pair(ep_recognizer *rec, uint32_t chart, uint32_t also, uint32_t unmarked,
                              const uint32_t *terminals, uint32_t count)
{
    ep_edge edges[3];
    uint32_t n = 0;
    uint32_t from[3] = {chart, also, unmarked};
    for (int i = 0; i < 3; i++) {
        bool scans = false;
        for (uint32_t k = 0; from[i] != EP_NONE && k < count; k++)
            scans |= ep_earley_can_scan(&rec->earley, from[i], terminals[k]);
        if (!scans)
            continue;
        edges[n].from = from[i];
        edges[n].count = count;
        for (uint32_t k = 0; k < count; k++)
            edges[n].terminals[k] = terminals[k];
        n++;
    }
    if (n == 0)
        return EP_NONE;
    if (n == 1)
        return ep_earley_scan(&rec->earley, edges[0].from, terminals, count);
    return ep_earley_scan_edges(&rec->earley, edges, n);
}

/* The charts the token in progress may be scanned from (EP_NONE where
 * there is none): as it comes, after SL, after ASI, after ASI_DO, before a
 * function body's marker. */
#define EP_RUN_CHARTS 5
static void ep__run_charts(const ep_run *run, uint32_t out[EP_RUN_CHARTS])
{
    out[0] = run->chart;
    out[1] = run->same_line;
    out[2] = run->asi;
    out[3] = run->asi_do;
    out[4] = run->unmarked;
}

/* Whether the scoped names' declared terminal may be scanned from one of
 * the run's charts. */
static bool ep__declaration(const ep_recognizer *rec, const ep_run *run)
{
    uint32_t t = rec->grammar->t_scoped_decl;
    uint32_t charts[EP_RUN_CHARTS];
    ep__run_charts(run, charts);
    for (int i = 0; i < EP_RUN_CHARTS; i++)
        if (charts[i] != EP_NONE && ep_earley_can_scan(&rec->earley, charts[i], t))
            return true;
    return false;
}

bool ep_asi_scan(ep_recognizer *rec, ep_run *run, const uint32_t *given, uint32_t count, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    uint32_t terminals[2] = {given[0], count > 1 ? given[1] : EP_NONE};
    if (g->has_functions) {
        ep_functions_filter(rec, run, terminals, &count);
        if (count == 0)
            return false;   /* "await" or "yield" where it is neither operator nor name */
    }
    uint32_t same_line = ep__same_line(rec, run);
    bool declaration = g->t_scoped_decl != EP_NONE && terminals[0] == g->t_scoped_use && ep__declaration(rec, run);
    bool tag_name = g->has_tags && (ep__allows(rec, run->chart, g->tag_lexeme) ||
                                    ep__allows(rec, same_line, g->tag_lexeme));
    uint32_t next = ep__scan_pair(rec, run->chart, same_line, run->unmarked, terminals, count);
    if (next == EP_NONE) {
        /* the offending token: a semicolon before it after a line break or
         * before "}", or the do-while's */
        bool brace = g->t_rbrace != EP_NONE && terminals[0] == g->t_rbrace;
        next = ep__scan_pair(rec, run->line_break || brace ? run->asi : EP_NONE, run->asi_do, EP_NONE, terminals,
                             count);
    }
    run->line_break = false;
    run->same_line_possible = false;
    run->same_line = run->asi = run->asi_do = run->unmarked = EP_NONE;
    run->goals = 0;
    if (next == EP_NONE)
        return false;
    run->chart = next;
    if (g->has_tags && !ep_tags_token(rec, run, terminals[0], tag_name, end))
        return false;
    return (g->t_scoped_use == EP_NONE && !g->has_functions) ||
           ep_scoped_token(rec, run, terminals[0], declaration, end);
}

bool ep_asi_can_end(ep_recognizer *rec, ep_run *run)
{
    const ep_grammar *g = rec->grammar;
    if (ep_earley_accepts_symbol(&rec->earley, run->chart, rec->accept_symbol))
        return true;
    uint32_t ends[2] = {g->t_asi, g->t_asi_do};
    for (int i = 0; i < 2; i++) {
        uint32_t after = ep__scan_one(rec, run->chart, ends[i]);
        if (after != EP_NONE && ep_earley_accepts_symbol(&rec->earley, after, rec->accept_symbol))
            return true;
    }
    return false;
}

const uint64_t *ep_asi_allowed(const ep_recognizer *rec, const ep_run *run)
{
    const ep_grammar *g = rec->grammar;
    uint64_t *out = rec->asi_tables.scratch;
    uint32_t charts[EP_RUN_CHARTS];
    ep__run_charts(run, charts);
    memset(out, 0, g->lex_words * sizeof *out);
    for (int i = 0; i < EP_RUN_CHARTS; i++) {
        if (charts[i] == EP_NONE)
            continue;
        const uint64_t *allowed = ep_earley_allowed(&rec->earley, charts[i]);
        for (uint32_t w = 0; w < g->lex_words; w++)
            out[w] |= allowed[w];
    }
    if (run->same_line_possible)
        for (uint32_t w = 0; w < g->lex_words; w++)
            out[w] |= rec->asi_tables.after_same_line[w];
    return out;
}

bool ep_asi_line_terminator(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n' || text[i] == '\r')
            return true;
        if ((unsigned char)text[i] == 0xE2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
            ((unsigned char)text[i + 2] == 0xA8 || (unsigned char)text[i + 2] == 0xA9))
            return true;
    }
    return false;
}
