/*
 * recognizer.c - the incremental recognizer: its state, feeding, viability,
 * can_end and save points.  The lexer that moves the state one byte at a
 * time is lexer.c, the layouts layout.c and asi.c, and fill-in-the-middle
 * (the right context's quotients and the ways to answer can_end) fim.c.
 *
 * Whether the text is viable is answered without committing the token in
 * progress:
 *  - it can still grow into a lexeme the parser allows here, or
 *  - it can end at its longest accepted prefix, if what follows that prefix
 *    is viable when lexed afresh: this branch is checked speculatively and
 *    rolled back (it is the guarded branch of Melcer et al. §V-A, Fig. 5,
 *    evaluated only when the growing branch has no future).
 */
#include "ep_earley.h"
#include "ep_recognizer.h"
#include "ep_fields.h"
#include "ep_quotient.h"
#include "ep_trie.h"

#include <string.h>

/* Drops the text after `len` (a rollback); what was checked of a string
 * literal in the dropped part is forgotten. */
void ep_text_truncate(ep_recognizer *rec, uint32_t len)
{
    rec->text.size = len;
    rec->text_epoch++;
    if (rec->string_check.checked > len)
        rec->string_check.tok_start = UINT32_MAX;
}

int ep_recognizer_new(const ep_grammar *grammar, ep_recognizer **out)
{
    ep_recognizer *rec = sm_calloc(1, sizeof *rec);
    rec->grammar = grammar;
    rec->accept_symbol = grammar->start_symbol;
    ep_earley_init(&rec->earley, grammar);
    ep_indent bottom = {0, 0, EP_NONE, 0};
    sm_array_push(&rec->indents, bottom);
    rec->run.chart = ep_earley_root(&rec->earley);
    rec->run.dfa = EP_DFA_START;
    rec->run.accept_lexeme = -1;
    rec->run.indent = 0;
    rec->run.at_line_start = true;
    rec->run.same_line = rec->run.asi = rec->run.asi_do = rec->run.unmarked = EP_NONE;
    rec->run.scope = rec->run.names = EP_NONE;
    rec->run.tags = rec->run.tag_prev[0] = rec->run.tag_prev[1] = EP_NONE;
    rec->run.tag_prev_end = 0;
    rec->run.context = grammar->top_async ? EP_CONTEXT_AWAIT : 0;
    if (grammar->layout == EP_LAYOUT_ASI)
        ep_asi_tables_init(&rec->asi_tables, grammar);
    rec->utf8_lo = 0x80;
    rec->utf8_hi = 0xBF;
    rec->string_check.tok_start = UINT32_MAX;
    rec->modal_of = ep_fields_of(grammar);
    rec->modal = rec->modal_of ? rec->modal_of->modal_new(ep_grammar_version(grammar)) : NULL;
    /* a start symbol without rules (a quotient by a right context that no
     * text completes) has an empty language */
    bool has_rules = false;
    for (uint32_t r = 0; r < grammar->rule_count && !has_rules; r++)
        has_rules = grammar->rule_lhs[r] == grammar->start_symbol;
    rec->run.dead = !has_rules;
    *out = rec;
    return SM_OK;
}

void ep_recognizer_free(ep_recognizer *rec)
{
    if (rec && rec->fields)
        ep_recognizer_free(rec->fields);
    if (!rec)
        return;
    ep_earley_free(&rec->earley);
    ep_asi_tables_free(&rec->asi_tables);
    ep_trie_memo_free(rec->trie_memo);
    if (rec->modal)
        rec->modal_of->modal_free(rec->modal);
    ep_grammar_free(rec->owned_grammar);
    sm_free(rec->right_head);
    sm_array_free(&rec->left_stack);
    sm_array_free(&rec->captured);
    sm_array_free(&rec->text);
    sm_array_free(&rec->indents);
    sm_array_free(&rec->scoped);
    sm_array_free(&rec->saves);
    sm_free(rec);
}

static bool ep__run_viable(ep_recognizer *rec, const ep_run *run, uint32_t end);

/* The guarded branch: the token in progress ends at its longest accepted
 * prefix.  Checked on a copy and rolled back. */
static bool ep__shorter_token_viable(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    if (run->accept_end == run->tok_start || run->accept_end >= end)
        return false;
    ep_earley_mark mark = ep_earley_get_mark(&rec->earley);
    uint32_t indents = rec->indents.size, scoped = rec->scoped.size;
    ep_run branch = *run;
    bool viable = ep_lex_relex(rec, &branch, end) && ep__run_viable(rec, &branch, end);
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    rec->scoped.size = scoped;
    return viable;
}

static bool ep__run_viable(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    if (run->dead)
        return false;
    if (run->dfa == EP_DFA_START)
        return true;
    return (ep_run_can_grow(rec, run) && ep_run_token_so_far(rec, run, end)) || ep__shorter_token_viable(rec, run, end);
}

/* Whether the token in progress at the end of the text is a number the
 * language refuses there (lg_lexical's number_may_end): its NUMBER
 * lexeme takes it where something follows. */
static bool ep__number_may_not_end(const ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    if (!g->lexical || !g->lexical->number_may_end || rec->capture || run->dfa == EP_DFA_START ||
        run->accept_end != end || run->accept_lexeme < 0 ||
        g->lexemes[run->accept_lexeme].terminals[0] != g->t_number || g->t_number == EP_NONE)
        return false;
    return !g->lexical->number_may_end(rec->text.items + run->tok_start, end - run->tok_start);
}

/* Ends the text on a copy of the run: flushes the token in progress, then
 * (with %layout indent) the last NEWLINE, the DEDENTs and ENDMARKER. */
bool ep_run_can_end(ep_recognizer *rec, ep_run *run, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    if (run->dead || rec->utf8_need)
        return false;
    if (ep__number_may_not_end(rec, run, end))
        return false;
    while (run->dfa != EP_DFA_START) {
        if (!ep_lex_relex(rec, run, end))
            return false;
    }
    if (g->layout == EP_LAYOUT_INDENT) {
        if (run->depth > 0 || run->continued)
            return false;
        if (run->line_has_tokens && !ep_layout_scan(rec, run, g->t_newline))
            return false;
        while (rec->indents.items[run->indent].parent != EP_NONE) {
            run->indent = rec->indents.items[run->indent].parent;
            if (!ep_layout_scan(rec, run, g->t_dedent))
                return false;
        }
        if (!ep_layout_scan(rec, run, g->t_endmarker))
            return false;
    }
    if (g->layout == EP_LAYOUT_ASI && !rec->capture)
        return ep_asi_can_end(rec, run);
    return rec->capture || ep_earley_accepts_symbol(&rec->earley, run->chart, rec->accept_symbol);
}

/* ---- API ---------------------------------------------------------------- */

/* Checks that bytes continue valid UTF-8 and hold no NUL, advancing the
 * validation state only if they do. */
static bool ep__validate(ep_recognizer *rec, const uint8_t *bytes, size_t len)
{
    uint8_t need = rec->utf8_need, lo = rec->utf8_lo, hi = rec->utf8_hi;
    for (size_t i = 0; i < len; i++)
        if (!ep_utf8_next(&need, &lo, &hi, bytes[i]))
            return false;
    rec->utf8_need = need;
    rec->utf8_lo = lo;
    rec->utf8_hi = hi;
    return true;
}

int ep_feed(ep_recognizer *rec, const char *bytes, size_t len)
{
    if (rec->text.size + len > EP_MAX_TEXT)
        return SM_ETOOBIG;
    if (!ep__validate(rec, (const uint8_t *)bytes, len))
        return SM_EUTF8;
    uint32_t at = rec->text.size;
    if (len == 0)
        return ep_viable(rec) ? 1 : 0;
    sm_array_grow_by(&rec->text, (uint32_t)len);
    memcpy(rec->text.items + at, bytes, len);
    for (uint32_t i = at; i < rec->text.size && !rec->run.dead; i++)
        if (!ep_lex_byte(rec, &rec->run, i))
            rec->run.dead = true;
    return ep_viable(rec) ? 1 : 0;
}

bool ep_end_token(ep_recognizer *rec)
{
    ep_run *run = &rec->run;
    if (run->dead)
        return false;
    if (run->dfa != EP_DFA_START && !ep_lex_relex(rec, run, rec->text.size))
        run->dead = true;
    return !run->dead;
}

bool ep_viable(ep_recognizer *rec)
{
    return ep__run_viable(rec, &rec->run, rec->text.size);
}

/* Whether the language's reader sees one more line break at the end of
 * the text (lg_lexical's adds_line_break). */
static bool ep__reader_adds_line_break(const ep_recognizer *rec)
{
    const lg_lexical *lx = rec->grammar->lexical;
    return lx && lx->adds_line_break && lx->adds_line_break(rec->text.items, rec->text.size);
}

bool ep_can_end(ep_recognizer *rec)
{
    if (rec->cursor_path_count) {
        int answer = ep_fim_can_end_by_cursor(rec);
        if (answer >= 0) {
            rec->can_end_ways[EP_CAN_END_CURSOR]++;
            return answer == 1;
        }
    }
    if (rec->block_path) {
        int answer = ep_fim_can_end_by_block(rec);
        if (answer >= 0) {
            rec->can_end_ways[EP_CAN_END_BLOCK]++;
            return answer == 1;
        }
    }
    if (rec->right_head)
        rec->can_end_ways[EP_CAN_END_HEAD]++;
    ep_earley_mark mark = ep_earley_get_mark(&rec->earley);
    uint32_t indents = rec->indents.size, scoped = rec->scoped.size;
    uint32_t text_len = rec->text.size;
    ep_run run = rec->run;
    bool ok = true;
    if (rec->right_head) {
        ok = ep_fim_can_end_by_head(rec, &run, text_len);
    } else {
        if (ep__reader_adds_line_break(rec) && !run.dead) {
            sm_array_push(&rec->text, '\n');
            ok = ep_lex_byte(rec, &run, text_len);
        }
        ok = ok && ep_run_can_end(rec, &run, rec->text.size);
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    rec->scoped.size = scoped;
    ep_text_truncate(rec, text_len);
    return ok;
}

void ep_recognizer_can_end_ways(const ep_recognizer *rec, uint32_t out[EP_CAN_END_WAYS])
{
    memcpy(out, rec->can_end_ways, sizeof rec->can_end_ways);
}

size_t ep_fed_bytes(const ep_recognizer *rec)
{
    return rec->text.size;
}

ep_snapshot ep_snapshot_take(const ep_recognizer *rec)
{
    return (ep_snapshot){rec->run, ep_earley_get_mark(&rec->earley), rec->text.size,
                         rec->indents.size, rec->scoped.size, rec->utf8_need, rec->utf8_lo, rec->utf8_hi};
}

void ep_snapshot_apply(ep_recognizer *rec, const ep_snapshot *snap)
{
    rec->run = snap->run;
    ep_earley_reset_to(&rec->earley, snap->earley);
    ep_text_truncate(rec, snap->text_len);
    rec->indents.size = snap->indents;
    rec->scoped.size = snap->scoped;
    rec->utf8_need = snap->utf8_need;
    rec->utf8_lo = snap->utf8_lo;
    rec->utf8_hi = snap->utf8_hi;
}

ep_savepoint ep_save(ep_recognizer *rec)
{
    sm_array_push(&rec->saves, ep_snapshot_take(rec));
    return rec->saves.size - 1;
}

void ep_restore(ep_recognizer *rec, ep_savepoint point)
{
    if (point >= rec->saves.size)
        return;
    ep_snapshot_apply(rec, &rec->saves.items[point]);
    rec->saves.size = point + 1;
}
