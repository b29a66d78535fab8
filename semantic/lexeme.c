/*
 * lexeme.c - Python's lexemes, as much of them as the pruners need.
 *
 * Names, keywords, numbers, strings (an f-string is one lexeme: the names
 * in its replacement fields are not followed), operators, and the line
 * breaks that end a logical line.  The text is valid Python so far (the
 * recognizer sees to that), so the reader can be simple; where it is not
 * sure a lexeme is whole it says so, and the caller waits for more text.
 */
#include "sx_internal.h"

static bool sx__name_byte(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

bool sx_tok_is(const char *text, const sx_tok *tok, const char *s)
{
    size_t n = strlen(s);
    return tok->end - tok->start == n && memcmp(text + tok->start, s, n) == 0;
}

static const char *const sx__keywords[] = {
    "False", "None",   "True",    "and",      "as",   "assert", "async", "await",  "break",
    "class", "continue", "def",   "del",      "elif", "else",   "except", "finally", "for",
    "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",  "while",  "with",   "yield",
    NULL,    "match",  "case",    NULL,       /* soft keywords: names to the lexer */
};

bool sx_is_keyword(const char *s, size_t len)
{
    for (size_t i = 0; sx__keywords[i]; i++)
        if (strlen(sx__keywords[i]) == len && memcmp(sx__keywords[i], s, len) == 0)
            return true;
    return false;
}

bool sx_keyword_has_prefix(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof sx__keywords / sizeof *sx__keywords; i++)
        if (sx__keywords[i] && strlen(sx__keywords[i]) >= len && memcmp(sx__keywords[i], s, len) == 0)
            return true;
    /* A string's prefix: `rb` may become `rb"..."`. */
    if (len == 0 || len > 2)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!strchr("rRbBfFuU", s[i]))
            return false;
    return true;
}

/* Whether text[start, end) is a string prefix (r, b, f, u and pairs). */
static bool sx__string_prefix(const char *text, size_t start, size_t end)
{
    size_t n = end - start;
    if (n == 0 || n > 2)
        return false;
    bool r = false, b = false, f = false, u = false;
    for (size_t i = start; i < end; i++) {
        char c = (char)(text[i] | 0x20);
        if (c == 'r' && !r)
            r = true;
        else if (c == 'b' && !b)
            b = true;
        else if (c == 'f' && !f)
            f = true;
        else if (c == 'u' && !u)
            u = true;
        else
            return false;
    }
    return !(u && n > 1) && !(b && f);
}

/* The end of the string opened at text[pos] (a quote), or 0 when the text
 * ends first. */
static size_t sx__string_end(const char *text, size_t len, size_t pos)
{
    char q = text[pos];
    bool triple = pos + 2 < len && text[pos + 1] == q && text[pos + 2] == q;
    if (!triple && pos + 1 < len && text[pos + 1] == q && (pos + 2 < len))
        return pos + 2;    /* "" followed by something that is not a third quote */
    size_t i = pos + (triple ? 3 : 1);
    while (i < len) {
        char c = text[i];
        if (c == '\\') {
            i += 2;
            continue;
        }
        if (!triple && (c == '\n' || c == '\r'))
            return i;      /* not valid: end it here */
        if (c == q) {
            if (!triple)
                return i + 1;
            if (i + 2 < len && text[i + 1] == q && text[i + 2] == q)
                return i + 3;
        }
        i++;
    }
    return 0;
}

static const char *const sx__ops3[] = {"**=", "//=", ">>=", "<<=", "...", NULL};
static const char *const sx__ops2[] = {"->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=",
                                       "-=", "*=",  "/=", "%=", "&=", "|=", "^=", "@=", NULL};

static size_t sx__match_op(const char *text, size_t len, size_t pos, bool *maybe_longer)
{
    *maybe_longer = false;
    for (int w = 3; w >= 2; w--) {
        const char *const *ops = w == 3 ? sx__ops3 : sx__ops2;
        for (size_t k = 0; ops[k]; k++) {
            size_t have = len - pos < (size_t)w ? len - pos : (size_t)w;
            if (memcmp(text + pos, ops[k], have) == 0) {
                if (have == (size_t)w)
                    return (size_t)w;
                *maybe_longer = true;
            }
        }
    }
    return 1;
}

/* The string lexeme from `start` (its prefix) whose quote is at `quote`. */
static bool sx__string_tok(const char *text, size_t len, size_t start, size_t quote, size_t *pos, bool final,
                           sx_tok *out)
{
    if (!final && quote + 2 >= len)
        return false;   /* "" may still become """ */
    size_t end = sx__string_end(text, len, quote);
    if (!end) {
        if (!final)
            return false;
        end = len;
    }
    *out = (sx_tok){.kind = SX_TOK_STRING, .start = (uint32_t)start, .end = (uint32_t)end};
    *pos = end;
    return true;
}

bool sx_lex_next(const char *text, size_t len, size_t *pos, int depth, bool final, sx_tok *out)
{
    size_t i = *pos;
    for (;;) {
        if (i >= len) {
            *pos = i;
            return false;
        }
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\f') {
            i++;
        } else if (c == '\\' && i + 1 < len && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            i += 2;
            if (text[i - 1] == '\r' && i < len && text[i] == '\n')
                i++;
        } else if (c == '\\' && i + 1 >= len && !final) {
            *pos = i;
            return false;
        } else if (c == '#') {
            size_t comment = i;
            while (i < len && text[i] != '\n' && text[i] != '\r')
                i++;
            if (i == len && !final) {
                *pos = comment;     /* the text may go on in the comment */
                return false;
            }
        } else if (c == '\n' || c == '\r') {
            size_t start = i++;
            if (c == '\r' && i < len && text[i] == '\n')
                i++;
            if (depth == 0) {
                *out = (sx_tok){.kind = SX_TOK_NEWLINE, .start = (uint32_t)start, .end = (uint32_t)i};
                *pos = i;
                return true;
            }
        } else {
            break;
        }
    }
    *pos = i;
    size_t start = i;
    unsigned char c = (unsigned char)text[i];
    if (sx__name_byte(c) && !(c >= '0' && c <= '9')) {
        while (i < len && sx__name_byte((unsigned char)text[i]))
            i++;
        if (i < len && (text[i] == '\'' || text[i] == '"') && sx__string_prefix(text, start, i))
            return sx__string_tok(text, len, start, i, pos, final, out);
        if (i == len && !final)
            return false;
        bool kw = sx_is_keyword(text + start, i - start);
        *out = (sx_tok){.kind = kw ? SX_TOK_KEYWORD : SX_TOK_NAME, .start = (uint32_t)start, .end = (uint32_t)i};
        *pos = i;
        return true;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && text[i + 1] >= '0' && text[i + 1] <= '9')) {
        while (i < len) {
            char d = text[i];
            if (sx__name_byte((unsigned char)d) || d == '.')
                i++;
            else if ((d == '+' || d == '-') && (text[i - 1] == 'e' || text[i - 1] == 'E') &&
                     !(text[start] == '0' && start + 1 < len && (text[start + 1] | 0x20) == 'x'))
                i++;
            else
                break;
        }
        if (i == len && !final)
            return false;
        *out = (sx_tok){.kind = SX_TOK_NUMBER, .start = (uint32_t)start, .end = (uint32_t)i};
        *pos = i;
        return true;
    }
    if (c == '\'' || c == '"') {
        return sx__string_tok(text, len, start, i, pos, final, out);
    }
    bool longer;
    size_t w = sx__match_op(text, len, i, &longer);
    if (w == 1 && !strchr("()[]{},;~", c)) {
        /* One character that a second may still extend: `*` into `**=`,
         * `.` into `...`, `=` into `==`. */
        bool could = longer || (i + 1 == len && strchr("+-*/%&|^@<>=!:.", c));
        if (could && !final && i + 1 >= len)
            return false;
        if (c == '.' && i + 1 < len && text[i + 1] == '.' && i + 2 >= len && !final)
            return false;
    } else if (longer && !final) {
        return false;
    }
    *out = (sx_tok){.kind = SX_TOK_OP, .start = (uint32_t)start, .end = (uint32_t)(start + w)};
    *pos = start + w;
    return true;
}

/* ---- F-strings' replacement fields ------------------------------------------------ */

bool sx_is_fstring(const char *text, const sx_tok *tok)
{
    for (uint32_t i = tok->start; i < tok->end && text[i] != '\'' && text[i] != '"'; i++)
        if (text[i] == 'f' || text[i] == 'F')
            return true;
    return false;
}

/* The end of the field whose expression starts at `i` (after its `{`),
 * before `close` (the string's closing quotes): the offset of the `}` that
 * closes it, with *expr_end where the expression ends (at a conversion
 * `!x`, a format spec `:` or a `=` at its top level).  Nested fields of the
 * format spec go to on_field.  0 when the field does not close. */
static size_t sx__field(const char *text, size_t i, size_t close, size_t *expr_end,
                        void (*on_field)(void *data, size_t start, size_t end), void *data)
{
    int depth = 0;
    char quote = 0;
    *expr_end = 0;
    for (; i < close; i++) {
        char c = text[i];
        if (quote) {
            quote = c == quote ? 0 : quote;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (c == '}') {
            if (!*expr_end)
                *expr_end = i;
            return i;
        } else if (depth == 0 && (c == ':' || (!*expr_end && ((c == '!' && i + 1 < close && text[i + 1] != '=') ||
                                                             (c == '=' && i + 1 < close && text[i + 1] != '=' &&
                                                              i > 0 && !strchr("=!<>", text[i - 1])))))) {
            if (!*expr_end)
                *expr_end = i;
            if (c == ':') {
                /* the format spec: literal text and nested fields */
                for (i++; i < close && text[i] != '}'; i++) {
                    if (text[i] != '{')
                        continue;
                    size_t inner_end, inner = sx__field(text, i + 1, close, &inner_end, on_field, data);
                    if (!inner)
                        return 0;
                    on_field(data, i + 1, inner_end);
                    i = inner;
                }
                return i < close ? i : 0;
            }
        }
    }
    return 0;
}

void sx_fstring_fields(const char *text, const sx_tok *tok, void (*on_field)(void *data, size_t start, size_t end),
                       void *data)
{
    size_t q = tok->start;
    while (q < tok->end && text[q] != '\'' && text[q] != '"')
        q++;
    if (q >= tok->end)
        return;
    bool triple = q + 2 < tok->end && text[q + 1] == text[q] && text[q + 2] == text[q];
    size_t open = q + (triple ? 3 : 1), close = tok->end - (triple ? 3 : 1);
    if (close < open || tok->end - q < (triple ? 6u : 2u) || text[tok->end - 1] != text[q] ||
        (triple && (text[tok->end - 2] != text[q] || text[tok->end - 3] != text[q])))
        return;     /* not closed */
    for (size_t i = open; i < close; i++) {
        if (text[i] == '\\') {
            i++;
            continue;
        }
        if (text[i] != '{')
            continue;
        if (i + 1 < close && text[i + 1] == '{') {
            i++;    /* {{ */
            continue;
        }
        size_t expr_end, end = sx__field(text, i + 1, close, &expr_end, on_field, data);
        if (!end)
            return;
        on_field(data, i + 1, expr_end);
        i = end;
    }
}
