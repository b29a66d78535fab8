/*
 * The recognizer's work grows linearly with the code it reads: a left
 * context twice as long makes about twice the Earley items, whatever the
 * right context.  Counted in items, not timed, so that a loaded machine
 * cannot fail it and a quadratic form cannot pass it.
 */
#include "ep_fields.h"
#include "ep_recognizer.h"
#include "seam_languages.h"
#include "seam_parser.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Items a fill-in-the-middle recognizer holds after reading a left
 * context of `n` repetitions of `unit` (with %d for its number) between
 * `head` and `tail`; the text must stay viable. */
static uint32_t items_after(const ep_grammar *grammar, const char *head, const char *unit, const char *tail,
                            const char *right, int n)
{
    size_t cap = strlen(head) + strlen(tail) + (size_t)n * (strlen(unit) + 24) + 1, len = 0;
    char *left = malloc(cap);
    len += (size_t)snprintf(left + len, cap - len, "%s", head);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(left + len, cap - len, unit, i);
    len += (size_t)snprintf(left + len, cap - len, "%s", tail);
    ep_recognizer *rec = NULL;
    cr_assert_eq(ep_recognizer_new_fim(grammar, left, len, right, strlen(right), &rec), SM_OK);
    cr_assert(ep_viable(rec), "%s...%s|%s is not viable", head, tail, right);
    uint32_t items = rec->earley.items.size;
    ep_recognizer_free(rec);
    free(left);
    return items;
}

static ep_grammar *python_grammar(int version)
{
    ep_grammar *grammar = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), version, &grammar, error, sizeof error), SM_OK, "%s", error);
    return grammar;
}

static void assert_linear(const char *what, const char *head, const char *unit, const char *tail, const char *right)
{
    ep_grammar *grammar = python_grammar(311);
    uint32_t small = items_after(grammar, head, unit, tail, right, 500);
    uint32_t large = items_after(grammar, head, unit, tail, right, 2000);
    /* 4x the text: about 4x the items when linear, 16x when quadratic */
    cr_expect_lt((double)large / small, 4.6, "%s: %u items for 500, %u for 2000", what, small, large);
    ep_grammar_free(grammar);
}

Test(parser, statements_left_of_a_right_context_cost_linear_items)
{
    assert_linear("module", "", "x%d = f(a, b=1)\n", "y = ", "\n");
    assert_linear("function body", "def f(a, b):\n", "    x%d = f(a, b=1)\n", "    y = ", "\n    return y\n");
    assert_linear("class body", "class A:\n", "    def m%d(self):\n        pass\n", "    z = ", "\n\nw = 1\n");
}

Test(parser, long_calls_and_expressions_cost_linear_items)
{
    assert_linear("keyword arguments", "f(", "k%d=1, ", "z=", ")\n");
    assert_linear("keyword arguments, no right context", "f(", "k%d=1, ", "z=", "");
    assert_linear("positional arguments", "f(", "a%d, ", "", "z)\n");
    assert_linear("a sum", "x = ", "a%d + ", "", "b\n");
    assert_linear("a list", "x = [", "%d, ", "", "9]\n");
}

/* A field's expression that ends in a "!" or "=" (a conversion, a
 * self-documenting field, or "!=" and "==" still to come) is whole or not
 * before it, and every check of the token asks.  The answer is kept: asked
 * again at the same text, the expression is not parsed again from the
 * field's start, which would drop the states of it that a vocabulary walk
 * keeps (ep_fields_epoch counts those restarts). */
Test(parser, a_field_ending_in_a_bang_or_an_equals_is_parsed_once)
{
    static const char *const texts[] = {"x = f'{value !", "x = f'{value =", "x = f'{a[1] + b !", "x = f\"{k}{v =",
                                        "x = f'{value !r}{other !"};
    static const int versions[] = {311, 312};
    for (size_t k = 0; k < sizeof versions / sizeof *versions; k++) {
        ep_grammar *grammar = python_grammar(versions[k]);
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
            ep_recognizer *rec = NULL;
            cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
            cr_assert_eq(ep_feed(rec, texts[i], strlen(texts[i])), 1, "%d: %s", versions[k], texts[i]);
            cr_assert(ep_viable(rec), "%d: %s", versions[k], texts[i]);
            uint32_t epoch = ep_fields_epoch(rec);
            for (int again = 0; again < 3; again++)
                cr_assert(ep_run_token_so_far(rec, &rec->run, rec->text.size), "%d: %s", versions[k], texts[i]);
            cr_expect_eq(ep_fields_epoch(rec), epoch, "%d: %s: the field parsed again from its start %u times",
                         versions[k], texts[i], ep_fields_epoch(rec) - epoch);
            ep_recognizer_free(rec);
        }
        ep_grammar_free(grammar);
    }
}

/* Whether two recognizers hold the same charts: items, origins and sets. */
static void assert_same_charts(const ep_earley *a, const ep_earley *b)
{
    cr_assert_eq(a->charts.size, b->charts.size);
    cr_assert_eq(a->items.size, b->items.size);
    cr_assert_eq(a->sets.size, b->sets.size);
    for (uint32_t c = 0; c < a->charts.size; c++) {
        const ep_chart *x = &a->charts.items[c], *y = &b->charts.items[c];
        cr_assert_eq(x->parent, y->parent, "chart %u", c);
        cr_assert_eq(x->items_count, y->items_count, "chart %u", c);
        cr_assert_eq(x->items_start, y->items_start, "chart %u", c);
        cr_assert_eq(x->allowed, y->allowed, "chart %u", c);
    }
    cr_assert_eq(memcmp(a->items.items, b->items.items, a->items.size * sizeof(ep_item)), 0);
    cr_assert_eq(memcmp(a->sets.items, b->sets.items, a->sets.size * sizeof(uint64_t)), 0);
}

/* A mask tries the same tokens after the same path again and again, each
 * time after the recognizer went back: such a scan is copied from the memo,
 * and the charts are those of a recognizer that never went back, for the
 * paths tried before and for the paths that differ. */
Test(parser, a_scan_made_again_after_going_back_is_copied_and_the_same)
{
    ep_grammar *grammar = python_grammar(311);
    const char *head = "def f(a, b):\n    if a:\n        return g(a, [b, ";
    static const struct {
        const char *tail;
        unsigned copied; /* at least */
    } tails[] = {
        {"c + d * (e - 1)], key=lambda x: x.y)\n", 0},
        {"c + d * (e - 1)], key=lambda x: x.y)\n", 15},  /* the same again */
        {"z + d * (e - 1)], key=lambda x: x.y)\n", 15},  /* another name, the same terminals */
        {"c - d * (e - 1)], key=lambda x: x.y)\n", 1},   /* another operator: the rest made anew */
        {"c - d * (e - 1)], key=x.y, *r)\n", 8},
    };
    ep_recognizer *again = NULL;
    cr_assert_eq(ep_recognizer_new(grammar, &again), SM_OK);
    again->earley.memo_on = true;   /* as a mask's walk does */
    cr_assert_eq(ep_feed(again, head, strlen(head)), 1);
    ep_snapshot back = ep_snapshot_take(again);
    for (size_t k = 0; k < sizeof tails / sizeof *tails; k++) {
        ep_snapshot_apply(again, &back);
        uint64_t before = again->earley.memo_copies;
        cr_assert_eq(ep_feed(again, tails[k].tail, strlen(tails[k].tail)), 1, "%s", tails[k].tail);
        cr_expect_geq(again->earley.memo_copies - before, tails[k].copied, "%s: %llu copied", tails[k].tail,
                      (unsigned long long)(again->earley.memo_copies - before));
        ep_recognizer *fresh = NULL;
        cr_assert_eq(ep_recognizer_new(grammar, &fresh), SM_OK);
        cr_assert_eq(ep_feed(fresh, head, strlen(head)), 1);
        cr_assert_eq(ep_feed(fresh, tails[k].tail, strlen(tails[k].tail)), 1);
        assert_same_charts(&again->earley, &fresh->earley);
        ep_recognizer_free(fresh);
    }
    cr_expect_eq(again->earley.memo_copies >= 15, true);
    ep_recognizer_free(again);
    ep_grammar_free(grammar);
}
