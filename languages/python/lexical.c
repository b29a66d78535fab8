/*
 * lexical.c - Python's lexical rules beyond its lexemes' patterns, as the
 * parser asks them (python.grammar's `%lexical python`): the characters of
 * names, string escapes, CPython's limit on integer literals, a decimal
 * integer with leading zeros at the end of a file, and the line break
 * CPython's reader adds after a final "\r\n".  The facts are pylex's (lex/).
 */
#include "lg_internal.h"

#include "seam_pylex.h"

#include <string.h>

/* CPython refuses a decimal integer literal of more than 4,300 digits
 * (sys.int_info.default_max_str_digits, 3.11 and the 3.9 and 3.10
 * security releases) when it converts it; zeros alone are exempt. */
#define LG_PY_MAX_INT_DIGITS 4300

static bool lg__py_number_valid(const char *token, size_t len)
{
    if (len <= LG_PY_MAX_INT_DIGITS)
        return true;
    size_t digits = 0;
    bool nonzero = false;
    for (size_t i = 0; i < len; i++) {
        if (token[i] == '_')
            continue;
        if (token[i] < '0' || token[i] > '9')
            return true;    /* a float, an imaginary or another base */
        digits++;
        nonzero |= token[i] != '0';
    }
    return !nonzero || digits <= LG_PY_MAX_INT_DIGITS;
}

/* A decimal integer with leading zeros ("01"): NUMBER takes it for
 * "x if 01else 2", where CPython lets it pass, and the lexeme LEADING_ZERO
 * refuses it before any other character; at the end of the file nothing
 * follows, and CPython refuses it. */
static bool lg__py_number_may_end(const char *token, size_t len)
{
    bool nonzero = false;
    for (size_t i = 0; i < len; i++) {
        if ((token[i] < '0' || token[i] > '9') && token[i] != '_')
            return true;
        nonzero |= token[i] >= '1' && token[i] <= '9';
    }
    return !(len > 1 && token[0] == '0' && nonzero);
}

/* CPython's newline translation turns a final "\r\n" into "\n" and then,
 * having lost track of the last character, appends another "\n" (so a
 * backslash join may end a file only when its line break is "\r\n"). */
static bool lg__py_adds_line_break(const char *text, size_t len)
{
    return len >= 2 && text[len - 2] == '\r' && text[len - 1] == '\n';
}

/* The head (lg_lexical's plain_head) of a name of ASCII letters, digits and
 * underscores that cannot become a string's prefix ("rb" in rb"..."): none,
 * since px_name_valid reads nothing of it but its first character, a
 * letter or "_" (a keyword's prefix is a state of the automaton of its
 * own); of a comment, its "#": nothing reads the rest; of a string while
 * it has no backslash (and, with fields, no brace), its prefix and opening
 * quotes: the checks read its escapes, the scanner of strings with fields
 * its braces, and nothing else of its text (the automaton keeps a bytes
 * literal to ASCII and a one-line string to its line). */
static int lg__py_plain_head(const char *token, size_t len)
{
    if (len == 0 || (token[0] >= '0' && token[0] <= '9'))
        return -1;
    if (token[0] == '#')
        return 1;
    size_t k = 0;
    bool prefix = true, fields = false;
    for (; k < len && token[k] != '\'' && token[k] != '"'; k++) {
        char c = token[k];
        if ((unsigned char)c >= 0x80 || !px_name_byte((unsigned char)c))
            return -1;
        prefix = prefix && k < 2 && strchr("bBfFrRtTuU", c);
        fields = fields || strchr("fFtT", c);
    }
    if (k == len)   /* a name: "f" or "rb" may still open a string */
        return prefix ? -1 : 0;
    if (!prefix)
        return -1;
    size_t head = k + 1;
    if (k + 2 < len && token[k + 1] == token[k] && token[k + 2] == token[k])
        head = k + 3;
    const char *body = token + head;
    size_t body_len = len - head;
    if (memchr(body, '\\', body_len) || (fields && (memchr(body, '{', body_len) || memchr(body, '}', body_len))))
        return -1;
    return (int)head;
}

/* A str literal as CPython's checks read it: at most two of "fFrRuU",
 * then a quote. */
static bool lg__py_string_shape(const char *token, size_t len, bool *fields, bool *raw)
{
    size_t prefix = 0;
    bool f = false, r = false;
    while (prefix < len && prefix < 2 && token[prefix] && strchr("fFrRuU", token[prefix])) {
        f |= token[prefix] == 'f' || token[prefix] == 'F';
        r |= token[prefix] == 'r' || token[prefix] == 'R';
        prefix++;
    }
    if (fields)
        *fields = f;
    if (raw)
        *raw = r;
    return prefix < len && (token[prefix] == '\'' || token[prefix] == '"');
}

static const char *const lg__py_mask_starts[] = {
    "ab", "abcd_e", " ", "\t", "#a", "12", "1.5", "0x1f", "\"a", "'a", "\"\"\"a", "'''a", "f\"a", "f'a", "r'a", "b'a",
    NULL,
};

/* Strings of every kind from their opening quote, f-strings' fields and
 * the text after them, escapes, a line join; then a t-string (3.14). */
static const char *const lg__py_mask_samples[] = {
    "x = f\"ab {cd!r:>{w}} ef {g}\" + f'h{i}j' + f\"\"\"k{l}\nm\"\"\" + 'n' + \"o\\n\" + r'p' + b'q' + \"\"\"r\n\"\"\" + "
    "'''s''' + y \\\n    + z\n",
    "x = t\"ab {cd} ef\" + t'g{h}i'\n",
    NULL,
};

const lg_lexical lg_python_lexical = {
    .name_valid = px_name_valid,
    .name_char_valid = px_name_char_valid,
    .string_shape = lg__py_string_shape,
    .escapes_valid = px_escapes_valid,
    .number_valid = lg__py_number_valid,
    .number_may_end = lg__py_number_may_end,
    .adds_line_break = lg__py_adds_line_break,
    .plain_head = lg__py_plain_head,
    .fields = &lg_python_fields,
    .fields_from = 312,
    .mask_starts = lg__py_mask_starts,
    .mask_samples = lg__py_mask_samples,
};
