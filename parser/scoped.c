/*
 * scoped.c - names declared by the innermost braces around them and used
 * anywhere inside those braces (%scoped, with %layout asi): JavaScript's
 * private names, declared as a class's element names and used as "#x"
 * anywhere in the class, before or after the declaration.
 *
 * Each "{" opens a scope and each "}" closes it.  A name is a declaration
 * where the parser can take the declared terminal, else a use.  When a
 * scope closes, each of its uses that none of its declarations names moves
 * out to the enclosing scope; a use that reaches the outside of every
 * brace is refused there (no text after it can declare it).  Scopes and
 * names are entries of one append-only array with links to the entry
 * before, so a save point restores them by truncation, as the charts.
 */
#include "ep_earley.h"
#include "ep_recognizer.h"

#include <string.h>

static uint32_t ep__push(ep_recognizer *rec, ep_scoped entry)
{
    sm_array_push(&rec->scoped, entry);
    return rec->scoped.size - 1;
}

/* Adds a name to the run's current scope; false for a use outside every
 * scope. */
static bool ep__add_name(ep_recognizer *rec, ep_run *run, uint32_t start, uint32_t len, bool decl)
{
    if (!decl && run->scope == EP_NONE)
        return false;
    ep_scoped name = {.start = start, .len = len, .next = run->names, .kind = decl ? EP_SCOPED_DECL : EP_SCOPED_USE};
    run->names = ep__push(rec, name);
    return true;
}

static bool ep__declared(const ep_recognizer *rec, uint32_t names, const ep_scoped *use)
{
    for (uint32_t at = names; at != EP_NONE; at = rec->scoped.items[at].next) {
        const ep_scoped *d = &rec->scoped.items[at];
        if (d->kind == EP_SCOPED_DECL && d->len == use->len &&
            memcmp(rec->text.items + d->start, rec->text.items + use->start, use->len) == 0)
            return true;
    }
    return false;
}

/* Closes the run's current scope: its undeclared uses move out. */
static bool ep__close(ep_recognizer *rec, ep_run *run)
{
    if (run->scope == EP_NONE)
        return true;   /* the parser refuses an unmatched "}" itself */
    ep_scoped scope = rec->scoped.items[run->scope];
    uint32_t inner = run->names;
    run->scope = scope.next;
    run->names = scope.names;
    for (uint32_t at = inner; at != EP_NONE; at = rec->scoped.items[at].next) {
        ep_scoped use = rec->scoped.items[at];
        if (use.kind == EP_SCOPED_USE && !ep__declared(rec, inner, &use) &&
            !ep__add_name(rec, run, use.start, use.len, false))
            return false;
    }
    return true;
}

bool ep_scoped_token(ep_recognizer *rec, ep_run *run, uint32_t terminal, bool declaration, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    if (terminal == g->t_lbrace) {
        ep_scoped scope = {.next = run->scope, .names = run->names, .kind = EP_SCOPED_SCOPE,
                           .context = run->context};
        run->scope = ep__push(rec, scope);
        run->names = EP_NONE;
        if (run->pending & EP_CONTEXT_SET)
            run->context = run->pending & (EP_CONTEXT_AWAIT | EP_CONTEXT_YIELD);
        run->pending = 0;
        return true;
    }
    if (terminal == g->t_rbrace) {
        if (run->scope != EP_NONE)
            run->context = rec->scoped.items[run->scope].context;
        return ep__close(rec, run);
    }
    if (terminal == g->t_scoped_use && g->t_scoped_use != EP_NONE)
        return ep__add_name(rec, run, run->tok_start, end - run->tok_start, declaration);
    return true;
}

/* ---- %functions ---------------------------------------------------------------------- */

static const uint8_t ep__marker_context[] = {
    [EP_FN_PLAIN] = 0,
    [EP_FN_ASYNC] = EP_CONTEXT_AWAIT,
    [EP_FN_GEN] = EP_CONTEXT_YIELD,
    [EP_FN_ASYNC_GEN] = EP_CONTEXT_AWAIT | EP_CONTEXT_YIELD,
};

void ep_functions_token_start(ep_recognizer *rec, ep_run *run, uint8_t first)
{
    const ep_grammar *g = rec->grammar;
    /* a body's "{", or an async arrow's expression body */
    int from = first == '{' ? EP_FN_PLAIN : EP_FN_ASYNC_EXPR;
    int to = first == '{' ? EP_FN_ASYNC_GEN : EP_FN_ASYNC_EXPR;
    for (int k = from; k <= to; k++) {
        uint32_t t = g->t_function[k];
        if (!ep_earley_can_scan(&rec->earley, run->chart, t))
            continue;
        uint32_t next = ep_earley_scan(&rec->earley, run->chart, &t, 1);
        if (next == EP_NONE)
            continue;
        if (g->functions_lenient)
            run->unmarked = run->chart;
        run->chart = next;
        if (k == EP_FN_ASYNC_EXPR)
            run->context |= EP_CONTEXT_EITHER;
        else
            run->pending = (uint8_t)(ep__marker_context[k] | EP_CONTEXT_SET);
        return;
    }
}

void ep_functions_filter(const ep_recognizer *rec, const ep_run *run, uint32_t *terminals, uint32_t *count)
{
    const ep_grammar *g = rec->grammar;
    uint32_t keyword = terminals[0];
    if (keyword != g->t_await && keyword != g->t_yield)
        return;
    bool operator_here = keyword == g->t_await ? (run->context & (EP_CONTEXT_AWAIT | EP_CONTEXT_EITHER)) != 0
                                               : (run->context & EP_CONTEXT_YIELD) != 0;
    operator_here |= g->functions_lenient;
    bool name_here = keyword == g->t_await ? !(run->context & EP_CONTEXT_AWAIT) || (run->context & EP_CONTEXT_EITHER)
                                           : !(run->context & EP_CONTEXT_YIELD);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < *count; i++) {
        bool is_keyword = terminals[i] == keyword;
        if (is_keyword ? operator_here : name_here)
            terminals[kept++] = terminals[i];
    }
    *count = kept;
}
