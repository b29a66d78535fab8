/*
 * jsx_shape.c - where a JSX text stands lexically (the jsx and tsx rows'
 * reading of a line being typed): JavaScript's reading (shape.c), and in
 * an element's tag (its names, its attributes' strings, which take no
 * escapes) or among its children (text, where quotes and slashes are
 * text), with "{...}" back in code.  A "<" starts a tag where a regular
 * expression could start (or after "return" and the like) and a name or
 * ">" follows.  As rough as
 * JavaScript's: never a verdict on validity.
 */
#include "lg_internal.h"

#include <string.h>

static bool lg__name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* Pushes a frame; false when the stack is full (the reading then stays
 * in code, as JavaScript's would). */
static bool lg__push(lg_lex *s, uint8_t kind)
{
    if (s->jsx_frames == LG_LEX_TEMPLATES)
        return false;
    s->jsx_kind[s->jsx_frames] = kind;
    s->jsx_depth[s->jsx_frames++] = s->depth;
    return true;
}

/* Where the reading goes once an element is whole: its parent's children,
 * or the code around it (the element is an operand there). */
static void lg__element_done(lg_lex *s)
{
    if (s->jsx_frames && s->jsx_kind[s->jsx_frames - 1] == LG_JSX_ELEMENT) {
        s->in = LG_JSX_TEXT;
    } else {
        s->in = LG_CODE;
        s->prev = 'a';
    }
}

/* Whether the word before text[at] (in this text) is a keyword an operand
 * follows: "return <p>" starts an element. */
static bool lg__after_keyword(const char *text, size_t at)
{
    static const char *const keywords[] = {"return", "case", "do", "else", "in", "of", "new", "delete", "void",
                                           "throw", "typeof", "yield", "await", "instanceof", "default", NULL};
    size_t end = at;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n'))
        end--;
    size_t start = end;
    while (start > 0 && ((text[start - 1] >= 'a' && text[start - 1] <= 'z')))
        start--;
    if (start > 0 && (lg__name_start(text[start - 1]) || (text[start - 1] >= '0' && text[start - 1] <= '9')))
        return false;
    for (size_t k = 0; keywords[k]; k++)
        if (strlen(keywords[k]) == end - start && memcmp(keywords[k], text + start, end - start) == 0)
            return true;
    return false;
}

bool lg_jsx_tag_start(lg_lex *s, const char *text, size_t len, size_t at)
{
    char next = at + 1 < len ? text[at + 1] : '\0';
    if (!s->jsx || (!lg__name_start(next) && next != '>') ||
        !(lg_js_operand_may_start(s->prev) || lg__after_keyword(text, at)))
        return false;
    s->in = LG_JSX_TAG;
    s->jsx_closing = false;
    s->prev = '<';
    return true;
}

bool lg_jsx_code_brace(lg_lex *s)
{
    if (!s->jsx_frames || s->jsx_kind[s->jsx_frames - 1] == LG_JSX_ELEMENT ||
        s->depth - 1 != s->jsx_depth[s->jsx_frames - 1])
        return false;
    s->depth--;
    s->in = s->jsx_kind[--s->jsx_frames] == LG_JSX_IN_TAG ? LG_JSX_TAG : LG_JSX_TEXT;
    s->prev = '}';
    return true;
}

/* One byte of a tag. */
static void lg__tag(lg_lex *s, const char *text, size_t at)
{
    char c = text[at];
    if (c == '"' || c == '\'') {
        s->in = LG_JSX_STRING;
        s->quote = c;
    } else if (c == '{' && lg__push(s, LG_JSX_IN_TAG)) {
        s->depth++;
        s->in = LG_CODE;
        s->prev = '{';
        return;
    } else if (c == '/' && s->prev == '<') {
        s->jsx_closing = true;
    } else if (c == ',') {
        s->in = LG_CODE;   /* "<T," is a generic arrow's type parameters (TSX), no tag */
    } else if (c == '>') {
        if (s->jsx_closing) {
            if (s->jsx_frames && s->jsx_kind[s->jsx_frames - 1] == LG_JSX_ELEMENT)
                s->jsx_frames--;
            lg__element_done(s);
        } else if (s->prev == '/') {
            lg__element_done(s);   /* self-closing */
        } else if (lg__push(s, LG_JSX_ELEMENT)) {
            s->in = LG_JSX_TEXT;
        } else {
            s->in = LG_CODE;
        }
        return;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        s->prev = (uint8_t)c;
}

size_t lg_jsx_lex_step(lg_lex *s, const char *text, size_t len, size_t at)
{
    char c = text[at];
    switch (s->in) {
    case LG_JSX_TAG:
        lg__tag(s, text, at);
        break;
    case LG_JSX_STRING:
        if (c == s->quote) {
            s->in = LG_JSX_TAG;
            s->quote = 0;
            s->prev = 'a';
        }
        break;
    default:   /* a child's text */
        if (c == '{' && lg__push(s, LG_JSX_IN_TEXT)) {
            s->depth++;
            s->in = LG_CODE;
            s->prev = '{';
        } else if (c == '<') {
            s->in = LG_JSX_TAG;
            s->jsx_closing = at + 1 < len && text[at + 1] == '/';
            s->prev = '<';
            if (s->jsx_closing)
                at++;
        }
        break;
    }
    return at + 1;
}

void lg_jsx_lex_scan(lg_lex *s, const char *text, size_t len)
{
    s->jsx = true;
    lg_js_lex_scan(s, text, len);
}

const char *const *lg_jsx_line_enders_at(const lg_lex *end)
{
    static const char *const tag[] = {">", "/>", NULL};
    return end->in == LG_JSX_TAG ? tag : lg_js_line_enders;
}
