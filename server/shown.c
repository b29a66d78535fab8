/*
 * shown.c - typing through a suggestion.  The inline completion a document
 * last showed is kept with the text it was made for; when the person types
 * the characters it shows, the next request is answered with the rest of
 * it at once, with no model request (as llama.vim, llama.vscode, Tabby and
 * Copilot do).  The rest is exactly as valid as the whole was: left +
 * completion + right is the same text.
 */
#include "seam_server.h"

#include <string.h>

struct srv_shown {
    char *text;            /* the document when the completion was asked for (owned) */
    size_t len, offset;    /* its length, and the cursor */
    char *completion;      /* what was shown there (owned) */
    size_t completion_len;
    const void *engine;    /* the engine (settings) it was made with (borrowed, compared only) */
};

srv_shown *srv_shown_new(const char *text, size_t len, size_t offset, const char *completion, size_t completion_len,
                         const void *engine)
{
    if (offset > len || completion_len == 0)
        return NULL;
    srv_shown *s = sm_calloc(1, sizeof *s);
    s->text = sm_strndup(text, len);
    s->len = len;
    s->offset = offset;
    s->completion = sm_strndup(completion, completion_len);
    s->completion_len = completion_len;
    s->engine = engine;
    return s;
}

void srv_shown_free(srv_shown *s)
{
    if (!s)
        return;
    sm_free(s->text);
    sm_free(s->completion);
    sm_free(s);
}

const char *srv_shown_rest(const srv_shown *s, const char *text, size_t len, size_t offset, const void *engine,
                           size_t *rest_len)
{
    *rest_len = 0;
    if (!s || engine != s->engine || offset < s->offset || len < s->len)
        return NULL;
    size_t typed = offset - s->offset;
    /* (asked again with nothing typed, it asks the model again: what the
     * completion rested on, a package, a setting, may have changed) */
    if (typed == 0 || typed >= s->completion_len || len - s->len != typed)
        return NULL;
    /* the text before the cursor, what was typed, and the text after it */
    if (memcmp(text, s->text, s->offset) != 0 || memcmp(text + s->offset, s->completion, typed) != 0 ||
        memcmp(text + offset, s->text + s->offset, s->len - s->offset) != 0)
        return NULL;
    *rest_len = s->completion_len - typed;
    return s->completion + typed;
}
