/*
 * test_grammars.h - how the grammar tests feed a text to a recognizer.
 * Include after test_support.h.
 */
#ifndef SEAM_TEST_GRAMMARS_H
#define SEAM_TEST_GRAMMARS_H

#include "seam_parser.h"

#include <string.h>

/* How many bytes of text a recognizer of g takes, fed one at a time, each
 * prefix viable; *complete says whether all of it is a program. */
static inline size_t test_accepted(const ep_grammar *g, const char *text, bool *complete)
{
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(g, &rec), SM_OK);
    size_t i = 0;
    while (text[i] && ep_feed(rec, text + i, 1) == 1)
        i++;
    *complete = !text[i] && ep_can_end(rec);
    ep_recognizer_free(rec);
    return i;
}

/* Whether text is a program, taken at every byte. */
static inline bool test_program(const ep_grammar *g, const char *text)
{
    bool complete;
    return test_accepted(g, text, &complete) == strlen(text) && complete;
}

#endif
