/*
 * jsx_detect.c - whether a .js file holds JSX.  React projects often write
 * JSX in .js files (VS Code names them "javascript", and TypeScript's reader
 * and Babel take JSX there); read as plain JavaScript, such a file cannot
 * start a valid program and gets no completion.  A file holds JSX when,
 * outside strings, templates and comments, a "<" stands where an
 * expression starts (after one of ( [ { , ; : ? = ! & | > of "=>", or
 * after the word return) and opens an element: "<>" or "<" then a tag name
 * and a blank, "/" or ">".  Comparisons ("i < n", "a <b") never stand
 * there.  The reading is lexical and rough, like shape.c's; a file it
 * takes for JSX by mistake loses nothing, since JSX's grammar holds all of
 * JavaScript's but an HTML-like comment.
 */
#include "lg_internal.h"

#include <string.h>

static bool lg__tag_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool lg__tag_char(unsigned char c)
{
    return lg__tag_start(c) || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.' || c == ':' || c == '-';
}

/* Whether "<" at text[at] opens an element: "<>" or a tag name followed
 * by a blank, "/" or ">". */
static bool lg__opens_element(const char *text, size_t len, size_t at)
{
    size_t i = at + 1;
    if (i < len && text[i] == '>')
        return true;
    if (i >= len || !lg__tag_start((unsigned char)text[i]))
        return false;
    while (i < len && lg__tag_char((unsigned char)text[i]))
        i++;
    return i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == '/' ||
                       text[i] == '>');
}

/* Whether the code before text[at] (its last byte outside blanks at
 * `prev`, or none) ends where an expression may start. */
static bool lg__expression_starts(const char *text, size_t prev, bool none)
{
    if (none)
        return true;
    char c = text[prev];
    if (strchr("([{,;:?=!&|", c))
        return true;
    if (c == '>')
        return prev > 0 && text[prev - 1] == '=';   /* "=>" */
    return prev >= 5 && memcmp(text + prev - 5, "return", 6) == 0 &&
           (prev == 5 || !lg__tag_char((unsigned char)text[prev - 6]));
}

/* The end of the literal or comment that starts at text[at] (a quote, a
 * backquote, "//" or a block comment's opener), or `at` when none does. */
static size_t lg__skip(const char *text, size_t len, size_t at)
{
    char c = text[at];
    if (c == '/' && at + 1 < len && text[at + 1] == '/') {
        const char *end = memchr(text + at, '\n', len - at);
        return end ? (size_t)(end - text) : len;
    }
    if (c == '/' && at + 1 < len && text[at + 1] == '*') {
        for (size_t i = at + 2; i + 1 < len; i++)
            if (text[i] == '*' && text[i + 1] == '/')
                return i + 2;
        return len;
    }
    if (c != '"' && c != '\'' && c != '`')
        return at;
    for (size_t i = at + 1; i < len; i++) {
        if (text[i] == '\\') {
            i++;
            continue;
        }
        if (text[i] == c || (c != '`' && text[i] == '\n'))
            return i + 1;
    }
    return len;
}

bool lg_js_has_jsx(const char *text, size_t len)
{
    size_t prev = 0;
    bool none = true;   /* no code before yet */
    for (size_t at = 0; at < len;) {
        size_t past = lg__skip(text, len, at);
        if (past != at) {
            at = past;
            continue;
        }
        char c = text[at];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            at++;
            continue;
        }
        if (c == '<' && lg__expression_starts(text, prev, none) && lg__opens_element(text, len, at))
            return true;
        prev = at++;
        none = false;
    }
    return false;
}
