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
    bool ahead;            /* decoded ahead, not shown yet: it answers its own text whole */
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
    if (!s || engine != s->engine || !srv_shown_extends(s, text, len, offset))
        return NULL;
    size_t typed = offset - s->offset;
    /* (asked again with nothing typed, a completion shown asks the model
     * again: what it rested on, a package, a setting, may have changed) */
    if ((typed == 0 && !s->ahead) || typed >= s->completion_len || memcmp(text + s->offset, s->completion, typed) != 0)
        return NULL;
    *rest_len = s->completion_len - typed;
    return s->completion + typed;
}

bool srv_text_extends(const char *was, size_t was_len, size_t was_offset, const char *text, size_t len, size_t offset)
{
    if (offset < was_offset || len < was_len || len - was_len != offset - was_offset)
        return false;
    /* the text before the cursor and the text after what was typed */
    return memcmp(text, was, was_offset) == 0 && memcmp(text + offset, was + was_offset, was_len - was_offset) == 0;
}

bool srv_shown_extends(const srv_shown *s, const char *text, size_t len, size_t offset)
{
    return s && srv_text_extends(s->text, s->len, s->offset, text, len, offset);
}

bool srv_shown_extended_by(const srv_shown *s, const char *text, size_t len, size_t offset)
{
    return s && srv_text_extends(text, len, offset, s->text, s->len, s->offset);
}

void srv_shown_set_ahead(srv_shown *s, bool ahead)
{
    if (s)
        s->ahead = ahead;
}

static bool srv__blank_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

bool srv_ahead_text(const srv_shown *s, sm_buf *out, size_t *cursor)
{
    if (!s)
        return false;
    size_t at = s->offset + s->completion_len;   /* the cursor once it is accepted */
    sm_buf_append(out, s->text, s->offset);
    sm_buf_append(out, s->completion, s->completion_len);
    /* Already at a line's indentation (a completion of whole lines): the
     * next line starts there. */
    size_t b = at;
    while (b > 0 && srv__blank_byte(out->data[b - 1]))
        b--;
    bool line_start = b == 0 || out->data[b - 1] == '\n' || out->data[b - 1] == '\r';
    if (!line_start) {
        /* The end of a line: the person's Enter comes next. */
        if (s->offset < s->len && s->text[s->offset] != '\n' && s->text[s->offset] != '\r')
            return false;
        bool crlf = s->offset + 1 < s->len && s->text[s->offset] == '\r' && s->text[s->offset + 1] == '\n';
        sm_buf_append_str(out, crlf ? "\r\n" : "\n");
    }
    *cursor = out->len;
    sm_buf_append(out, s->text + s->offset, s->len - s->offset);
    return true;
}
