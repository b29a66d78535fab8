/*
 * tags.c - elements whose closing tag names their opening tag (%tags, with
 * %layout asi): JSX's "<a.b> ... </a.b>".
 *
 * A name right after "<", or after "</", where the parser allows the tag
 * name lexeme, is a tag's name: an opening one pushes an element, a
 * closing one must be the innermost open element's name.  The tag's end
 * (its ">") says what became of the element: after "/" it closes an
 * element still in its tag ("<a/>") or a fragment ("</>"); right after
 * "<" it opens a fragment ("<>"); after a closing name it closes the
 * element; else the element's children start.  With "tight", the "<"
 * and "/" of a closing tag stand with nothing between them (TypeScript's
 * scanner reads "</" as one token).  Elements are entries of
 * the %scoped array (append-only, each state a new entry linked to the
 * one below), so a save point restores them by truncation.
 */
#include "ep_earley.h"
#include "ep_recognizer.h"

#include <string.h>

/* Pushes an element over `below` into the run's stack. */
static void ep__push(ep_recognizer *rec, ep_run *run, uint32_t start, uint32_t len, uint32_t below, uint8_t kind)
{
    ep_scoped tag = {.start = start, .len = len, .next = below, .kind = kind};
    sm_array_push(&rec->scoped, tag);
    run->tags = rec->scoped.size - 1;
}

static const ep_scoped *ep__top(const ep_recognizer *rec, const ep_run *run)
{
    return run->tags == EP_NONE ? NULL : &rec->scoped.items[run->tags];
}

/* The innermost element in `kind`, which the end of a tag then closes or
 * turns into `into` (EP_NONE: closes); false when it is not there. */
static bool ep__end_as(ep_recognizer *rec, ep_run *run, uint8_t kind, int into)
{
    const ep_scoped *top = ep__top(rec, run);
    if (!top || top->kind != kind)
        return false;
    if (into < 0)
        run->tags = top->next;
    else
        ep__push(rec, run, top->start, top->len, top->next, (uint8_t)into);
    return true;
}

/* A closing tag's name: the innermost element's, in its children. */
static bool ep__close(ep_recognizer *rec, ep_run *run, uint32_t start, uint32_t len)
{
    const ep_scoped *top = ep__top(rec, run);
    if (!top || top->kind != EP_SCOPED_CHILDREN || top->len != len ||
        memcmp(rec->text.items + top->start, rec->text.items + start, len) != 0)
        return false;
    ep__push(rec, run, start, len, top->next, EP_SCOPED_CLOSING);
    return true;
}

bool ep_tags_token(ep_recognizer *rec, ep_run *run, uint32_t terminal, bool name, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    uint32_t prev = run->tag_prev[0], before = run->tag_prev[1];
    run->tag_prev[1] = prev;
    run->tag_prev[0] = terminal;
    uint32_t gt = g->t_tags[0], lt = g->t_tags[1], slash = g->t_tags[2];
    name &= terminal != gt && terminal != slash && terminal != lt;
    if (name && prev == lt) {
        ep__push(rec, run, run->tok_start, end - run->tok_start, run->tags, EP_SCOPED_IN_TAG);
        return true;
    }
    uint32_t prev_end = run->tag_prev_end;
    run->tag_prev_end = end;
    if (terminal == slash && prev == lt && g->tags_tight && run->tok_start != prev_end)
        return false;   /* "< /" (only "/" after "<" is a closing tag's) */
    if (name && prev == slash && before == lt)
        return ep__close(rec, run, run->tok_start, end - run->tok_start);
    if (terminal != gt)
        return true;
    if (prev == slash)
        return before == lt ? ep__end_as(rec, run, EP_SCOPED_FRAGMENT, -1)
                            : ep__end_as(rec, run, EP_SCOPED_IN_TAG, -1);
    if (prev == lt) {
        ep__push(rec, run, 0, 0, run->tags, EP_SCOPED_FRAGMENT);
        return true;
    }
    const ep_scoped *top = ep__top(rec, run);
    if (top && top->kind == EP_SCOPED_CLOSING)
        return ep__end_as(rec, run, EP_SCOPED_CLOSING, -1);
    return ep__end_as(rec, run, EP_SCOPED_IN_TAG, EP_SCOPED_CHILDREN);
}
