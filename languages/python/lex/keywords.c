/*
 * keywords.c - Python's keywords, by version.
 */
#include "seam_pylex.h"

#include <string.h>

static bool px__one_of(const char *const *words, const char *text, size_t len, bool prefix)
{
    for (; *words; words++)
        if ((prefix ? strlen(*words) >= len : strlen(*words) == len) && memcmp(*words, text, len) == 0)
            return true;
    return false;
}

static const char *const px__hard[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", NULL};
static const char *const px__soft_310[] = {"match", "case", "_", NULL};
static const char *const px__soft_312[] = {"type", NULL};

bool px_keyword(const char *text, size_t len, int version)
{
    (void)version; /* the same list from 3.7 to 3.14 */
    return px__one_of(px__hard, text, len, false);
}

bool px_soft_keyword(const char *text, size_t len, int version)
{
    return (version >= 310 && px__one_of(px__soft_310, text, len, false)) ||
           (version >= 312 && px__one_of(px__soft_312, text, len, false));
}

bool px_keyword_has_prefix(const char *text, size_t len, int version)
{
    return px__one_of(px__hard, text, len, true) || (version >= 310 && px__one_of(px__soft_310, text, len, true)) ||
           (version >= 312 && px__one_of(px__soft_312, text, len, true));
}

bool px_compound_keyword(const char *text, size_t len, int version)
{
    static const char *const hard[] = {"if",  "elif", "else", "while", "for",   "try",   "except",
                                       "finally", "with", "def", "class", "async", NULL};
    static const char *const soft[] = {"match", "case", NULL};
    return px__one_of(hard, text, len, false) || (version >= 310 && px__one_of(soft, text, len, false));
}
