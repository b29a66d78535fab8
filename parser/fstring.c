/*
 * fstring.c - CPython 3.11 tokenizes an f-string as one STRING token and
 * checks its replacement fields while parsing.  This file does the same
 * check for a finished f-string token: literal braces, fields with an
 * optional "=", a "!s", "!r" or "!a" conversion and a format spec (which may
 * hold fields itself, two levels deep at most), and each field's expression
 * parsed as "(" expression ")", as CPython does it, by a nested recognizer
 * that the caller keeps for the purpose.
 */
#include "ep_fstring.h"

#include <string.h>

#define EP_FSTRING_MAX_NEST 200

typedef struct ep_fscan {
    ep_recognizer *fields;   /* parses each field's expression; back at its save point 0 after each */
    const char *s;     /* the body between the quotes */
    size_t n;
    size_t at;
    bool raw;
    bool partial;      /* the body is a prefix: running out of text is fine */
    bool ended;        /* a partial scan ran out of text: the prefix is fine */
    size_t resume;     /* the last place in the top-level literal text reached */
} ep_fscan;

static bool ep__fstring_literal(ep_fscan *f, int depth, bool in_spec);

/* In a partial scan, whether the text ran out at f->at + ahead (then the
 * scan stops with the prefix accepted). */
static bool ep__out_of_text(ep_fscan *f, size_t ahead)
{
    if (!f->partial || f->at + ahead < f->n)
        return false;
    f->ended = true;
    return true;
}

/* Whether "(" expr ")" is a valid Python expression. */
static bool ep__expression_valid(ep_recognizer *fields, const char *expr, size_t len)
{
    bool ok = ep_feed(fields, "(", 1) == 1 && ep_feed(fields, expr, len) == 1 && ep_feed(fields, ")", 1) == 1 &&
              ep_can_end(fields);
    ep_restore(fields, 0);
    return ok;
}

/* Whether "(" expr is a prefix of a valid Python expression. */
static bool ep__expression_viable(ep_recognizer *fields, const char *expr, size_t len)
{
    bool ok = ep_feed(fields, "(", 1) == 1 && ep_feed(fields, expr, len) == 1;
    ep_restore(fields, 0);
    return ok;
}

static bool ep__blank(const char *s, size_t start, size_t end)
{
    for (size_t i = start; i < end; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\f')
            return false;
    return true;
}

/* A partial scan ran out of text inside the expression that starts at
 * `start`: it is fine if the expression can go on, or, when the text ends
 * in "!" or "=" (a conversion or "=" may follow a finished expression as
 * well as "!=" or "==" an unfinished one), if it is finished before it. */
static bool ep__expression_prefix_ok(const ep_fscan *f, size_t start)
{
    if (ep__expression_viable(f->fields, f->s + start, f->n - start))
        return true;
    size_t last = f->n - 1;
    return f->n > start && (f->s[last] == '!' || f->s[last] == '=') && !ep__blank(f->s, start, last) &&
           ep__expression_valid(f->fields, f->s + start, last - start);
}

/* Skips a string literal inside a field's expression, starting at its
 * opening quote.  False if it does not end inside the body. */
static bool ep__skip_quoted(ep_fscan *f)
{
    char quote = f->s[f->at];
    bool triple = f->at + 2 < f->n && f->s[f->at + 1] == quote && f->s[f->at + 2] == quote;
    f->at += triple ? 3 : 1;
    while (f->at < f->n) {
        char c = f->s[f->at];
        if (c == '\\')
            return false; /* no backslash anywhere in an expression part */
        if (c == quote && (!triple || (f->at + 2 < f->n && f->s[f->at + 1] == quote && f->s[f->at + 2] == quote))) {
            f->at += triple ? 3 : 1;
            return true;
        }
        f->at++;
    }
    return ep__out_of_text(f, 0);
}

/* Scans a field's expression up to the "}", "!", ":" or "=" that ends it. */
static bool ep__fstring_expression(ep_fscan *f)
{
    char nest[EP_FSTRING_MAX_NEST];
    int depth = 0;
    while (f->at < f->n) {
        char c = f->s[f->at];
        char next = f->at + 1 < f->n ? f->s[f->at + 1] : '\0';
        if (c == '\\' || c == '#')
            return false;
        if (c == '\'' || c == '"') {
            if (!ep__skip_quoted(f))
                return false;
            if (f->ended)
                return true;
            continue;
        }
        if ((c == '!' || c == '=') && ep__out_of_text(f, 1))
            return true; /* the next character decides */
        if (c == '(' || c == '[' || c == '{') {
            if (depth >= EP_FSTRING_MAX_NEST)
                return false;
            nest[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                return c == '}';
            if (nest[--depth] != c)
                return false;
        } else if (depth == 0) {
            if (c == ':' || (c == '!' && next != '='))
                return true;
            if (c == '=' && next != '=') {
                char prev = f->at > 0 ? f->s[f->at - 1] : '\0';
                if (prev != '=' && prev != '!' && prev != '<' && prev != '>')
                    return true;
            }
            if ((c == '!' || c == '=' || c == '<' || c == '>') && next == '=') {
                f->at += 2;
                continue;
            }
        }
        f->at++;
    }
    return ep__out_of_text(f, 0);
}

/* Checks one replacement field; f->at is just after its "{". */
static bool ep__fstring_field(ep_fscan *f, int depth)
{
    if (depth >= 2)
        return false; /* expressions nested too deeply */
    size_t start = f->at;
    if (!ep__fstring_expression(f))
        return false;
    if (f->ended)
        return ep__expression_prefix_ok(f, start);
    size_t end = f->at;
    if (ep__blank(f->s, start, end) || !ep__expression_valid(f->fields, f->s + start, end - start))
        return false;
    if (f->at < f->n && f->s[f->at] == '=') {
        /* "{x = }" keeps the spaces around "=" in its text */
        f->at++;
        while (f->at < f->n && (f->s[f->at] == ' ' || f->s[f->at] == '\t' || f->s[f->at] == '\n'))
            f->at++;
    }
    if (f->at < f->n && f->s[f->at] == '!') {
        f->at++;
        if (ep__out_of_text(f, 0))
            return true;
        if (f->at >= f->n || !strchr("sra", f->s[f->at]))
            return false;
        f->at++;
    }
    if (f->at < f->n && f->s[f->at] == ':') {
        f->at++;
        if (!ep__fstring_literal(f, depth + 1, true))
            return false;
        if (f->ended)
            return true;
    }
    if (ep__out_of_text(f, 0))
        return true;
    if (f->at >= f->n || f->s[f->at] != '}')
        return false;
    f->at++;
    return true;
}

/* Scans literal text and the fields in it, to the end of the body or, in a
 * format spec, to the "}" that closes the field (left unconsumed). */
static bool ep__fstring_literal(ep_fscan *f, int depth, bool in_spec)
{
    while (f->at < f->n) {
        if (depth == 0 && !in_spec)
            f->resume = f->at; /* everything before is checked */
        char c = f->s[f->at];
        char next = f->at + 1 < f->n ? f->s[f->at + 1] : '\0';
        if (c == '\\' && !f->raw) {
            /* As CPython 3.11 scans a literal part: the escaped character is
             * consumed with its backslash, except a brace, which still opens
             * or closes a field; "\N{...}" is skipped whole. */
            if (ep__out_of_text(f, 1))
                return true;
            if (next == 'N' && f->at + 2 < f->n && f->s[f->at + 2] == '{') {
                const char *close = memchr(f->s + f->at, '}', f->n - f->at);
                if (!close)
                    return ep__out_of_text(f, f->n - f->at);
                f->at = (size_t)(close - f->s) + 1;
            } else if (next == '{' || next == '}') {
                f->at += 1;
            } else {
                f->at += 2;
            }
            continue;
        }
        if (c == '{') {
            if (!in_spec && next == '{') {
                f->at += 2;
                continue;
            }
            if (!in_spec && ep__out_of_text(f, 1))
                return true; /* "{{" or a field */
            f->at++;
            if (!ep__fstring_field(f, depth))
                return false;
            if (f->ended)
                return true;
            continue;
        }
        if (c == '}') {
            if (in_spec)
                return true;
            if (ep__out_of_text(f, 1))
                return true; /* "}}" may follow */
            if (next != '}')
                return false; /* a single '}' */
            f->at += 2;
            continue;
        }
        f->at++;
    }
    return !in_spec || ep__out_of_text(f, 0);
}

bool ep_fstring_valid(ep_recognizer *fields, const char *token, size_t len)
{
    size_t prefix = 0;
    bool is_f = false, raw = false;
    while (prefix < len && token[prefix] != '\'' && token[prefix] != '"') {
        char c = token[prefix++];
        is_f |= c == 'f' || c == 'F';
        raw |= c == 'r' || c == 'R';
    }
    if (!is_f)
        return true;
    size_t quote = prefix + 2 < len && token[prefix + 1] == token[prefix] && token[prefix + 2] == token[prefix] &&
                   len - prefix >= 6 ? 3 : 1;
    if (len < prefix + 2 * quote)
        return false;
    ep_fscan f = {fields, token + prefix + quote, len - prefix - 2 * quote, 0, raw, false, false, 0};
    return ep__fstring_literal(&f, 0, false);
}

bool ep_fstring_prefix_valid(ep_recognizer *fields, const char *token, size_t len, size_t *resume)
{
    size_t prefix = 0;
    bool is_f = false, raw = false;
    while (prefix < len && prefix < 2 && strchr("fFrR", token[prefix]) && token[prefix]) {
        char c = token[prefix++];
        is_f |= c == 'f' || c == 'F';
        raw |= c == 'r' || c == 'R';
    }
    if (!is_f || prefix == len || (token[prefix] != '\'' && token[prefix] != '"'))
        return true; /* not an f-string */
    size_t quote = 1;
    if (prefix + 1 < len && token[prefix + 1] == token[prefix]) {
        if (prefix + 2 >= len)
            return true; /* the empty string or a triple quote to come */
        quote = token[prefix + 2] == token[prefix] ? 3 : 1;
        if (quote == 1)
            return true; /* past the empty string: not this token any more */
    }
    size_t body = prefix + quote;
    size_t from = *resume > body && *resume <= len ? *resume - body : 0;
    ep_fscan f = {fields, token + body, len - body, from, raw, true, false, from};
    if (!ep__fstring_literal(&f, 0, false))
        return false;
    *resume = body + f.resume;
    return true;
}
