/*
 * lex.c - what every language's lexical reading shares: the state's
 * tests, and the scope kinds' names.
 */
#include "lg_internal.h"

#include <string.h>

const char *lg_scope_kind_name(lg_scope_kind kind)
{
    static const char *const names[] = {"expression", "line", "block", "body", "comment", "string", "module",
                                        "header"};
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : "?";
}

bool lg_editor_closers(const char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (!strchr(")]}\"'` \t\f", text[i]) || text[i] == '\0')
            return false;
    return true;
}

bool lg_left_for_lines(const lg_scope *sc, const char *middle, size_t len, size_t at, bool at_end)
{
    if (!sc->rest_is_code)
        return false;
    if (!at_end)
        return true;
    for (size_t i = at; i < len; i++)
        if (middle[i] == '\n' || middle[i] == '\r')
            return true;
    return false;
}

static bool lg__blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

bool lg_editor_closed(const char *text, size_t line_start, size_t offset, size_t end)
{
    if (!lg_editor_closers(text, offset, end))
        return false;
    /* the brackets opened on the line before the cursor, innermost last,
     * and where */
    char open[64];
    size_t open_at[64];
    size_t depth = 0;
    for (size_t i = line_start; i < offset; i++) {
        char c = text[i];
        if ((c == '(' || c == '[' || c == '{') && depth < sizeof open) {
            open_at[depth] = i;
            open[depth++] = c;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    for (size_t i = offset; i < end; i++) {
        char c = text[i];
        if (c != ')' && c != ']' && c != '}')
            continue;
        char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (depth == 0 || open[depth - 1] != want)
            return false;   /* it closes what an earlier line opened: the person's */
        /* blank space before it is the editor's only as the padding of its
         * opener ("{ a| }"): "f(a|   )" was written so */
        if (i > offset && lg__blank(text[i - 1]) && !(open_at[depth - 1] + 1 < offset &&
                                                       lg__blank(text[open_at[depth - 1] + 1])))
            return false;
        depth--;
    }
    return true;
}

void lg_scope_lines(const char *text, size_t len, size_t offset, lg_scope *out)
{
    size_t e = offset;
    while (e < len && text[e] != '\n' && text[e] != '\r')
        e++;
    out->line_end = e;
    size_t line_start = offset;
    while (line_start > 0 && text[line_start - 1] != '\n' && text[line_start - 1] != '\r')
        line_start--;
    out->rest_is_code = !lg_editor_closed(text, line_start, offset, e);
    if (e < len && text[e] == '\r' && e + 1 < len && text[e + 1] == '\n')
        e++;
    out->next_line = e < len ? e + 1 : len;
    out->at_end = true;
    for (size_t i = out->next_line; i < len && out->at_end; i++)
        out->at_end = text[i] == ' ' || text[i] == '\t' || text[i] == '\f' || text[i] == '\v' || text[i] == '\n' ||
                      text[i] == '\r';
}

void lg_lex_after(const lg_language *language, const lg_lex *start, const char *text, size_t len, lg_lex *end)
{
    *end = *start;
    language->lex_scan(end, text, len);
}

bool lg_lex_literal_open(const lg_lex *lex)
{
    return lex->quote || lex->continued || lex->in || lex->templates;
}

bool lg_lex_same(const lg_lex *a, const lg_lex *b)
{
    if (a->depth != b->depth || a->in != b->in || a->quote != b->quote || a->triple != b->triple ||
        a->raw != b->raw || a->in_comment != b->in_comment || a->escaped != b->escaped ||
        a->continued != b->continued || a->in_class != b->in_class || a->prev != b->prev ||
        a->templates != b->templates)
        return false;
    for (uint8_t i = 0; i < a->templates && i < LG_LEX_TEMPLATES; i++)
        if (a->template_depth[i] != b->template_depth[i])
            return false;
    return true;
}
