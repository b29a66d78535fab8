/*
 * fstring.c - CPython 3.11 tokenizes an f-string as one STRING token and
 * checks its replacement fields while parsing.  This file does the same
 * check for a finished f-string token: literal braces, fields with an
 * optional "=", a "!s", "!r" or "!a" conversion and a format spec (which may
 * hold fields itself, two levels deep at most), and each field's expression
 * parsed by a nested recognizer as "(" expression ")", as CPython does it.
 */
#include "ep_fstring.h"

#include <string.h>

#define EP_FSTRING_MAX_NEST 200

typedef struct ep_fscan {
    const ep_grammar *grammar;
    const char *s;     /* the body between the quotes */
    size_t n;
    size_t at;
    bool raw;
} ep_fscan;

static bool ep__fstring_literal(ep_fscan *f, int depth, bool in_spec);

/* Whether "(" expr ")" is a valid Python expression. */
static bool ep__expression_valid(const ep_grammar *grammar, const char *expr, size_t len)
{
    ep_recognizer *rec;
    if (ep_recognizer_new(grammar, &rec))
        return false;
    bool ok = ep_feed(rec, "(", 1) == 1 && ep_feed(rec, expr, len) == 1 && ep_feed(rec, ")", 1) == 1 &&
              ep_can_end(rec);
    ep_recognizer_free(rec);
    return ok;
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
    return false;
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
            continue;
        }
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
    return false;
}

/* Checks one replacement field; f->at is just after its "{". */
static bool ep__fstring_field(ep_fscan *f, int depth)
{
    if (depth >= 2)
        return false; /* expressions nested too deeply */
    size_t start = f->at;
    if (!ep__fstring_expression(f))
        return false;
    size_t end = f->at;
    bool blank = true;
    for (size_t i = start; i < end; i++)
        if (f->s[i] != ' ' && f->s[i] != '\t' && f->s[i] != '\n' && f->s[i] != '\r' && f->s[i] != '\f')
            blank = false;
    if (blank || !ep__expression_valid(f->grammar, f->s + start, end - start))
        return false;
    if (f->at < f->n && f->s[f->at] == '=') {
        /* "{x = }" keeps the spaces around "=" in its text */
        f->at++;
        while (f->at < f->n && (f->s[f->at] == ' ' || f->s[f->at] == '\t' || f->s[f->at] == '\n'))
            f->at++;
    }
    if (f->at < f->n && f->s[f->at] == '!') {
        f->at++;
        if (f->at >= f->n || !strchr("sra", f->s[f->at]))
            return false;
        f->at++;
    }
    if (f->at < f->n && f->s[f->at] == ':') {
        f->at++;
        if (!ep__fstring_literal(f, depth + 1, true))
            return false;
    }
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
        char c = f->s[f->at];
        char next = f->at + 1 < f->n ? f->s[f->at + 1] : '\0';
        if (c == '\\' && !f->raw) {
            /* As CPython 3.11 scans a literal part: the escaped character is
             * consumed with its backslash, except a brace, which still opens
             * or closes a field; "\N{...}" is skipped whole. */
            if (next == 'N' && f->at + 2 < f->n && f->s[f->at + 2] == '{') {
                const char *close = memchr(f->s + f->at, '}', f->n - f->at);
                if (!close)
                    return false;
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
            f->at++;
            if (!ep__fstring_field(f, depth))
                return false;
            continue;
        }
        if (c == '}') {
            if (in_spec)
                return true;
            if (next != '}')
                return false; /* a single '}' */
            f->at += 2;
            continue;
        }
        f->at++;
    }
    return !in_spec;
}

bool ep_fstring_valid(const ep_grammar *grammar, const char *token, size_t len)
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
    ep_fscan f = {grammar, token + prefix + quote, len - prefix - 2 * quote, 0, raw};
    return ep__fstring_literal(&f, 0, false);
}
