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
