/*
 * shape.c - where a JavaScript text stands lexically, for the binding of a
 * line being typed: the brackets open, and whether it is inside a string,
 * a template's text, a regular expression or a comment (templates' "${"
 * nest).  A rough reading, never a verdict on validity: a "/" starts a
 * regular expression after an operator, an opening bracket, a comma, a
 * semicolon or nothing, else it divides.  With JSX (jsx_shape.c), a "<"
 * there starts an element's tag.
 */
#include "lg_internal.h"

#include <string.h>


bool lg_js_operand_may_start(uint8_t prev)
{
    return prev == 0 || strchr("(,=:[!&|?{};+-*%<>~^", prev) != NULL;
}

/* One byte of code. */
static void lg__code(lg_lex *s, const char *text, size_t len, size_t *at)
{
    char c = text[*at];
    char next = *at + 1 < len ? text[*at + 1] : '\0';
    if (c == '/' && next == '/') {
        s->in = LG_LINE_COMMENT;
        (*at)++;
    } else if (c == '/' && next == '*') {
        s->in = LG_BLOCK_COMMENT;
        (*at)++;
    } else if (c == '/' && lg_js_operand_may_start(s->prev)) {
        s->in = LG_REGEX;
        s->in_class = false;
    } else if (c == '<' && s->jsx && lg_jsx_tag_start(s, text, len, *at)) {
        return;   /* an element's tag (JSX) */
    } else if (c == '}' && s->jsx && lg_jsx_code_brace(s)) {
        return;   /* back in a JSX tag or text */
    } else if (c == '\'' || c == '"' || c == '`') {
        s->in = (uint8_t)c;
    } else if (c == '(' || c == '[' || c == '{') {
        s->depth++;
    } else if (c == '}' && s->templates > 0 && s->depth == s->template_depth[s->templates - 1]) {
        s->templates--;
        s->in = LG_TEMPLATE;   /* back in the template's text */
    } else if (c == ')' || c == ']' || c == '}') {
        s->depth--;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        s->prev = (uint8_t)c;
}

size_t lg_js_lex_step(lg_lex *s, const char *text, size_t len, size_t at)
{
    char c = text[at];
    if (s->escaped) {
        s->escaped = false;
        return at + 1;
    }
    if (s->in == LG_JSX_TAG || s->in == LG_JSX_STRING || s->in == LG_JSX_TEXT)
        return lg_jsx_lex_step(s, text, len, at);
    switch (s->in) {
    case LG_CODE:
        lg__code(s, text, len, &at);
        break;
    case LG_LINE_COMMENT:
        if (c == '\n' || c == '\r')
            s->in = LG_CODE;
        break;
    case LG_BLOCK_COMMENT:
        if (c == '*' && at + 1 < len && text[at + 1] == '/') {
            s->in = LG_CODE;
            at++;
        }
        break;
    case LG_REGEX:
        if (c == '\\')
            s->escaped = true;
        else if (c == '[')
            s->in_class = true;
        else if (c == ']')
            s->in_class = false;
        else if ((c == '/' && !s->in_class) || c == '\n') {
            s->in = LG_CODE;
            s->prev = 'a';   /* a regex is an operand: "/" after it divides */
        }
        break;
    case LG_TEMPLATE:
        if (c == '\\') {
            s->escaped = true;
        } else if (c == '`') {
            s->in = LG_CODE;
            s->prev = 'a';
        } else if (c == '$' && at + 1 < len && text[at + 1] == '{' && s->templates < LG_LEX_TEMPLATES) {
            s->template_depth[s->templates++] = s->depth;
            s->in = LG_CODE;
            s->prev = '{';
            at++;
        }
        break;
    default:   /* a quote's string */
        if (c == '\\') {
            s->escaped = true;
        } else if (c == (char)s->in || c == '\n') {
            s->in = LG_CODE;
            s->prev = 'a';
        }
        break;
    }
    return at + 1;
}

void lg_js_lex_scan(lg_lex *s, const char *text, size_t len)
{
    for (size_t at = 0; at < len;)
        at = lg_js_lex_step(s, text, len, at);
}

bool lg_js_middle_closed(const lg_lex *at, const char *middle, size_t len, bool rest_blank)
{
    lg_lex end = *at;
    lg_js_lex_scan(&end, middle, len);
    if (end.escaped || end.depth > at->depth || end.templates > at->templates || end.jsx_frames > at->jsx_frames)
        return false;
    if (end.in == LG_LINE_COMMENT)
        return at->in == LG_LINE_COMMENT || rest_blank;
    /* a middle that closes a JSX element opened before it is back in the
     * code or text around that element */
    return end.in == at->in ||
           (end.jsx_frames < at->jsx_frames && (end.in == LG_CODE || end.in == LG_JSX_TEXT));
}
