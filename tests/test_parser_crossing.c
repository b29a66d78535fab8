/*
 * Tests of the indices where a token started by the middle can end inside
 * the right context (parser/crossing.c), on the Python grammar.
 */
#include "ep_crossing.h"
#include "seam_languages.h"
#include "test_support.h"

#include <string.h>

/* The sorted, distinct indices at which lexeme `name` can end. */
static size_t indices_of(const ep_grammar *g, const ep_crossings *found, const char *name, uint32_t *out)
{
    size_t count = 0;
    for (uint32_t i = 0; i < found->size; i++) {
        if (strcmp(g->lexemes[found->items[i].lexeme].name, name) != 0)
            continue;
        uint32_t index = found->items[i].index;
        size_t at = 0;
        while (at < count && out[at] < index)
            at++;
        if (at < count && out[at] == index)
            continue;
        memmove(out + at + 1, out + at, (count - at) * sizeof *out);
        out[at] = index;
        count++;
    }
    return count;
}

static ep_grammar *python(void)
{
    ep_grammar *g;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, error, sizeof error), SM_OK, "%s", error);
    return g;
}

/* The right context of the paper's Fig. 6: "#'##"## and a line break.  A
 * string the middle opened can end after 1 (a double-quoted string), 3 (a
 * single-quoted one) or 6 bytes (a double-quoted one whose last middle byte
 * is a backslash escaping R's first quote), or the middle's string is
 * complete and ends at the cursor (0); a comment runs to the line break
 * (8). */
Test(parser, crossing_indices_of_the_papers_example)
{
    ep_grammar *g = python();
    const char *right = "\"#'##\"##\n";
    ep_crossings found;
    sm_array_init(&found);
    cr_assert_eq(ep_crossing_indices(g, right, strlen(right), &found), SM_OK);
    uint32_t got[16];
    size_t n = indices_of(g, &found, "STRING", got);
    cr_assert_eq(n, 4, "STRING ends at %zu indices", n);
    cr_assert_eq(got[0], 0);
    cr_assert_eq(got[1], 1);
    cr_assert_eq(got[2], 3);
    cr_assert_eq(got[3], 6);
    n = indices_of(g, &found, "COMMENT", got);
    cr_assert_eq(n, 1);
    cr_assert_eq(got[0], 8);
    n = indices_of(g, &found, "NAME", got);
    cr_assert_eq(n, 1);
    cr_assert_eq(got[0], 0, "a name can only end at the cursor here");
    for (uint32_t i = 0; i < found.size; i++)
        cr_assert_neq(g->lexemes[found.items[i].lexeme].kind, 5 /* EP_LEX_ERROR */);
    sm_array_free(&found);
    ep_grammar_free(g);
}

Test(parser, crossing_indices_inside_a_name)
{
    ep_grammar *g = python();
    const char *right = "abc = 1  # note\nx";
    ep_crossings found;
    sm_array_init(&found);
    cr_assert_eq(ep_crossing_indices(g, right, strlen(right), &found), SM_OK);
    uint32_t got[16];
    size_t n = indices_of(g, &found, "NAME", got);
    cr_assert_eq(n, 1, "R's first byte would extend any name the middle ends with");
    cr_assert_eq(got[0], 3, "so the name ends inside R, after 'abc'");
    n = indices_of(g, &found, "COMMENT", got);
    cr_assert_eq(n, 1);
    cr_assert_eq(got[0], 15, "or inside a comment that runs to the line break");
    n = indices_of(g, &found, "STRING", got);
    cr_assert_eq(n, 1, "no string can end in this right context except at the cursor");
    cr_assert_eq(got[0], 0);
    sm_array_free(&found);
    ep_grammar_free(g);
}
