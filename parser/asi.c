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

/* Whether a chart (EP_NONE: none) allows lexeme `lex`. */
static bool ep__allows(const ep_recognizer *rec, uint32_t chart, uint32_t lex)
{
    return chart != EP_NONE && ep_set_has(ep_earley_allowed(&rec->earley, chart), lex);
}

/* The goal lexemes the parser expects for a token scanned from the run's
 * charts: where neither a goal lexeme nor a rival of it may come directly,
 * the token is offending and the charts after an inserted semicolon
 * decide. */
static uint8_t ep__goals(const ep_recognizer *rec, const ep_run *run)
{
    const ep_grammar *g = rec->grammar;
    uint8_t goals = 0;
    for (uint32_t s = 0; s < g->goal_count; s++) {
        uint32_t lex = g->goal_lexemes[s];
        uint8_t bit = (uint8_t)(1u << s);
        if (ep__allows(rec, run->chart, lex) || ep__allows(rec, run->same_line, lex)) {
            goals |= bit;
            continue;
        }
        bool rival_direct = false;
        for (uint32_t r = 0; r < g->lexeme_count && !rival_direct; r++)
            if (g->lexemes[r].rival_of & bit)
                rival_direct = ep__allows(rec, run->chart, r) || ep__allows(rec, run->same_line, r);
        if (!rival_direct && (ep__allows(rec, run->asi, lex) || ep__allows(rec, run->asi_do, lex)))
            goals |= bit;
    }
    return goals;
}

void ep_asi_token_start(ep_recognizer *rec, ep_run *run, uint8_t first)
{
    const ep_grammar *g = rec->grammar;
    run->same_line = run->line_break ? EP_NONE : ep__scan_one(rec, run->chart, g->t_same_line);
    run->asi = run->line_break || first == '}' ? ep__scan_one(rec, run->chart, g->t_asi) : EP_NONE;
    run->asi_do = ep__scan_one(rec, run->chart, g->t_asi_do);
    run->goals = g->goal_count ? ep__goals(rec, run) : 0;
}

bool ep_asi_excluded(const ep_grammar *g, const ep_run *run, int32_t lexeme)
{
    const ep_lexeme *lex = &g->lexemes[lexeme];
    if (lex->goal_bit && !(run->goals & lex->goal_bit))
        return true;
    return (lex->rival_of & run->goals) != 0;
}

/* Scans a token from `chart` and, when given, from `also` (the same point
 * after SL), merging what both make. */
static uint32_t ep__scan_pair(ep_recognizer *rec, uint32_t chart, uint32_t also, const uint32_t *terminals,
                              uint32_t count)
{
    ep_edge edges[2];
    uint32_t n = 0;
    uint32_t from[2] = {chart, also};
    for (int i = 0; i < 2; i++) {
        if (from[i] == EP_NONE)
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

bool ep_asi_scan(ep_recognizer *rec, ep_run *run, const uint32_t *terminals, uint32_t count)
{
    const ep_grammar *g = rec->grammar;
    uint32_t next = ep__scan_pair(rec, run->chart, run->same_line, terminals, count);
    if (next == EP_NONE) {
        /* the offending token: a semicolon before it after a line break or
         * before "}", or the do-while's */
        bool brace = g->t_rbrace != EP_NONE && terminals[0] == g->t_rbrace;
        uint32_t asi = run->asi;
        if (asi == EP_NONE && brace)
            asi = ep__scan_one(rec, run->chart, g->t_asi);
        next = ep__scan_pair(rec, run->line_break || brace ? asi : EP_NONE, run->asi_do, terminals, count);
    }
    run->line_break = false;
    run->same_line = run->asi = run->asi_do = EP_NONE;
    run->goals = 0;
    if (next == EP_NONE)
        return false;
    run->chart = next;
    return true;
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

void ep_asi_allowed(const ep_recognizer *rec, const ep_run *run, uint64_t *out)
{
    const ep_grammar *g = rec->grammar;
    const uint32_t charts[4] = {run->chart, run->same_line, run->asi, run->asi_do};
    memset(out, 0, g->lex_words * sizeof *out);
    for (int i = 0; i < 4; i++) {
        if (charts[i] == EP_NONE)
            continue;
        const uint64_t *allowed = ep_earley_allowed(&rec->earley, charts[i]);
        for (uint32_t w = 0; w < g->lex_words; w++)
            out[w] |= allowed[w];
    }
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
