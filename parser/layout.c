/*
 * layout.c - the offside layout (%layout indent) for the recognizer:
 * NEWLINE, INDENT and DEDENT
 * made from line breaks, indentation and brackets, as CPython's tokenizer
 * makes them, and the indentation stack that fill-in-the-middle compares.
 */
#include "ep_earley.h"
#include "ep_recognizer.h"

#include <string.h>

/* The indentation stack of a run, bottom first, without the column-0
 * bottom. */
void ep_layout_stack(const ep_recognizer *rec, const ep_run *run, ep_indent *out, uint32_t *levels)
{
    uint32_t n = rec->indents.items[run->indent].level;
    *levels = n;
    for (uint32_t at = run->indent; n > 0; at = rec->indents.items[at].parent)
        out[--n] = rec->indents.items[at];
}

/* Scans a token (one or two alternative terminals) into the run's chart;
 * false if the parser refuses.  When tokenizing, records it instead. */
bool ep_layout_scan_token(ep_recognizer *rec, ep_run *run, const uint32_t *terminals, uint32_t count)
{
    if (rec->capture) {
        ep_token token = {{terminals[0], count > 1 ? terminals[1] : EP_NONE}, count};
        sm_array_push(&rec->captured, token);
        return true;
    }
    uint32_t next = ep_earley_scan(&rec->earley, run->chart, terminals, count);
    if (next == EP_NONE)
        return false;
    run->chart = next;
    return true;
}

/* Scans one terminal into the run's chart; false if the parser refuses. */
bool ep_layout_scan(ep_recognizer *rec, ep_run *run, uint32_t terminal)
{
    return ep_layout_scan_token(rec, run, &terminal, 1);
}

/* Measures the indentation of the logical line whose first token starts at
 * `at` as CPython 3.11's tokenizer does: spaces and tabs (tab stops of 8 for
 * `col`, of 1 for `altcol`), a form feed resetting both, and backslash
 * joins read as part of the leading whitespace.  The column at the first
 * join, if it is not 0, is the line's indentation; otherwise counting goes
 * on across the joined lines. */
static void ep__measure_indent(const ep_recognizer *rec, const ep_run *run, uint32_t at,
                               uint32_t *col, uint32_t *altcol)
{
    *col = *altcol = 0;
    uint32_t cont_line_col = 0;
    for (uint32_t i = run->line_start; i < at; i++) {
        char c = rec->text.items[i];
        if (c == ' ') {
            (*col)++;
            (*altcol)++;
        } else if (c == '\t') {
            *col = (*col / 8 + 1) * 8;
            (*altcol)++;
        } else if (c == '\f') {
            *col = *altcol = 0;
        } else if (c == '\\') {
            if (!cont_line_col)
                cont_line_col = *col;
            if (i + 1 < at && rec->text.items[i + 1] == '\r')
                i++;
            if (i + 1 < at && rec->text.items[i + 1] == '\n')
                i++;
        } else {
            break;
        }
    }
    if (cont_line_col)
        *col = *altcol = cont_line_col;
}

/* Sends INDENT or DEDENTs for the first token of a logical line, starting
 * at `at`.  False on inconsistent indentation or when the parser refuses. */
bool ep_layout_indent(ep_recognizer *rec, ep_run *run, uint32_t at)
{
    uint32_t col, altcol;
    ep__measure_indent(rec, run, at, &col, &altcol);
    ep_indent top = rec->indents.items[run->indent];
    if (col == top.col)
        return altcol == top.altcol;
    if (col > top.col) {
        if (altcol <= top.altcol || top.level + 1 >= EP_MAX_INDENT)
            return false;
        ep_indent pushed = {col, altcol, run->indent, top.level + 1};
        sm_array_push(&rec->indents, pushed);
        run->indent = rec->indents.size - 1;
        return ep_layout_scan(rec, run, rec->grammar->t_indent);
    }
    while (col < rec->indents.items[run->indent].col) {
        run->indent = rec->indents.items[run->indent].parent;
        if (!ep_layout_scan(rec, run, rec->grammar->t_dedent))
            return false;
    }
    top = rec->indents.items[run->indent];
    return col == top.col && altcol == top.altcol;
}

/* Whether a token that starts with the automaton in state `state` is a real
 * token (not whitespace, a comment, a line break or a join). */
bool ep_layout_real_token(const ep_grammar *g, uint32_t state)
{
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, state);
    for (uint32_t w = 0; w < g->lex_words; w++) {
        uint64_t bits = reachable[w];
        for (; bits; bits &= bits - 1) {
            uint32_t lex = w * 64 + (uint32_t)__builtin_ctzll(bits);
            uint8_t kind = g->lexemes[lex].kind;
            if (kind == EP_LEX_TOKEN || kind == EP_LEX_ERROR)
                return true;
        }
    }
    return false;
}

/* Whether a run's indentation stack is the one the left context ended
 * with. */
bool ep_layout_stack_is_left(const ep_recognizer *rec, const ep_run *run)
{
    ep_indent stack[EP_MAX_INDENT + 1];
    uint32_t levels;
    ep_layout_stack(rec, run, stack, &levels);
    if (levels != rec->left_stack.size)
        return false;
    for (uint32_t i = 0; i < levels; i++)
        if (stack[i].col != rec->left_stack.items[i].col || stack[i].altcol != rec->left_stack.items[i].altcol)
            return false;
    return true;
}
