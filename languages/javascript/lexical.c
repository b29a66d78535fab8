/*
 * lexical.c - JavaScript's checks of a finished token beyond its lexeme's
 * pattern, as acorn 8.19 makes them: the characters of an identifier or a
 * private name (ID_Start and ID_Continue, \u escapes included, no escaped
 * reserved word), a string's escapes in strict code, a template's escapes
 * (an untagged template needs valid ones), and a regular expression's flags
 * and pattern.  The grammar names them with %check (javascript.grammar).
 */
#include "lg_internal.h"
#include "seam_base.h"
#include "seam_pylex.h"

#include <stdint.h>
#include <string.h>

/* Reads the code point of the \u escape at text[*at] ("\uXXXX" or
 * "\u{X...}"), moving *at past it; UINT32_MAX when malformed or past
 * U+10FFFF. */
static uint32_t lg__unicode_escape(const char *text, size_t len, size_t *at)
{
    size_t i = *at + 2;
    uint32_t cp = 0;
    if (i < len && text[i] == '{') {
        size_t digits = 0;
        for (i++; i < len && text[i] != '}'; i++, digits++) {
            int h = sm_hex_digit(text[i]);
            if (h < 0)
                return UINT32_MAX;
            cp = cp * 16 + (uint32_t)h;
            if (cp > 0x10FFFF)
                return UINT32_MAX;
        }
        if (i >= len || digits == 0)
            return UINT32_MAX;
        *at = i + 1;
        return cp;
    }
    for (int k = 0; k < 4; k++, i++) {
        int h = i < len ? sm_hex_digit(text[i]) : -1;
        if (h < 0)
            return UINT32_MAX;
        cp = cp * 16 + (uint32_t)h;
    }
    *at = i;
    return cp;
}

/* Decodes the UTF-8 sequence at text[*at] (the text is valid UTF-8). */
static uint32_t lg__utf8(const char *text, size_t len, size_t *at)
{
    const unsigned char *s = (const unsigned char *)text + *at;
    size_t n = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
    if (*at + n > len)
        return UINT32_MAX;
    uint32_t cp = s[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < n; k++)
        cp = (cp << 6) | (s[k] & 0x3F);
    *at += n;
    return cp;
}

static bool lg__id_char(uint32_t cp, bool first)
{
    if (cp == '$' || cp == '_')
        return true;
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (!first && cp >= '0' && cp <= '9');
    if (!first && (cp == 0x200C || cp == 0x200D))
        return true;   /* ZWNJ and ZWJ continue an identifier */
    return px_name_char_valid(cp, first);
}

/* The rules beyond the patterns that the parser asks of every token
 * (javascript.grammar's %lexical): which characters a name may hold, for
 * the masks' shortcut through names, and where masks often start; the rest
 * are %check token checks. */
static const char *const lg__js_mask_starts[] = {
    "ab", "abcd_e", " ", "\t", "//a", "/*a", "12", "1.5", "0x1f", "\"a", "'a", "`a", NULL,
};

/* Strings and templates from their opening quote, substitutions and the
 * text after them, escapes, a regular expression; then JSX (its dialects). */
static const char *const lg__js_mask_samples[] = {
    "x = `ab ${cd} ef ${`g${h}`}\\n` + 'i\\'' + \"j\\n\" + /k[l]\\//g + (m) // n\n/* o */ y\n",
    "x = <a b=\"c\" d={e}>f{g}</a>\n",
    NULL,
};

static int lg__js_plain_head(const char *token, size_t len);

const lg_lexical lg_javascript_lexical = {
    .name_char_valid = lg__id_char,
    .plain_head = lg__js_plain_head,
    .mask_starts = lg__js_mask_starts,
    .mask_samples = lg__js_mask_samples,
};

static const char *const lg__reserved[] = {
    "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
    "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
    "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var",
    "void", "while", "with", "yield", "let", "static", NULL,
};

/* The head (lg_lexical's plain_head) of a name of ASCII letters, digits,
 * "_" and "$" that no reserved word starts with: none, since js_identifier
 * reads nothing of it but its first character (no escape after it can
 * spell a reserved word with it; a keyword's prefix is a state of the
 * automaton of its own); of a comment, its first two characters; of a
 * string or a template while it has no backslash, its quote: their checks
 * read escapes. */
static int lg__js_plain_head(const char *token, size_t len)
{
    if (len == 0 || (token[0] >= '0' && token[0] <= '9'))
        return -1;
    if (token[0] == '/')
        return len >= 2 && (token[1] == '/' || token[1] == '*') ? 2 : -1;
    if (token[0] == '\'' || token[0] == '"' || token[0] == '`')
        return memchr(token, '\\', len) ? -1 : 1;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)token[i] >= 0x80 || !lg__id_char((unsigned char)token[i], false))
            return -1;
    for (size_t i = 0; lg__reserved[i]; i++)
        if (strncmp(lg__reserved[i], token, len) == 0)
            return -1;
    return 0;
}

bool lg_js_identifier_valid(const char *text, size_t len)
{
    size_t at = text[0] == '#' ? 1 : 0;
    bool escaped = false, first = true;
    char word[16];
    size_t word_len = 0;
    while (at < len) {
        uint32_t cp;
        if (text[at] == '\\') {
            cp = lg__unicode_escape(text, len, &at);
            escaped = true;
        } else if ((unsigned char)text[at] >= 0x80) {
            cp = lg__utf8(text, len, &at);
        } else {
            cp = (unsigned char)text[at++];
        }
        if (cp == UINT32_MAX || !lg__id_char(cp, first))
            return false;
        if (word_len < sizeof word - 1 && cp < 0x80)
            word[word_len] = (char)cp;
        word_len += cp < 0x80 ? 1 : sizeof word;
        first = false;
    }
    if (!escaped || word_len >= sizeof word || text[0] == '#')
        return true;
    word[word_len] = '\0';
    for (size_t i = 0; lg__reserved[i]; i++)
        if (strcmp(word, lg__reserved[i]) == 0)
            return false;   /* "\u0069f" is not the keyword and no identifier either */
    return true;
}

/* Whether the escape at text[at] ("\..." inside a literal) is valid in a
 * template or in strict code: no legacy octal ("\1" .. "\7", "\0" before a
 * digit) nor "\8", "\9"; \x with two hex digits; \u complete. */
static bool lg__escape_strict(const char *text, size_t len, size_t *at)
{
    size_t i = *at + 1;
    if (i >= len)
        return false;
    char c = text[i];
    if (c >= '1' && c <= '9')
        return false;
    if (c == '0') {
        *at = i + 1;
        return !(i + 1 < len && text[i + 1] >= '0' && text[i + 1] <= '9');
    }
    if (c == 'x') {
        if (i + 2 >= len || sm_hex_digit(text[i + 1]) < 0 || sm_hex_digit(text[i + 2]) < 0)
            return false;
        *at = i + 3;
        return true;
    }
    if (c == 'u')
        return lg__unicode_escape(text, len, at) != UINT32_MAX;
    *at = i + 1;
    if (c == '\r' && *at < len && text[*at] == '\n')
        (*at)++;
    return true;
}

bool lg_js_template_valid(const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        if (text[at] != '\\') {
            at++;
            continue;
        }
        if (!lg__escape_strict(text, len, &at))
            return false;
    }
    return true;
}

bool lg_js_string_valid(const char *text, size_t len)
{
    /* sloppy code: the pattern has said all but the bound of "\u{...}" */
    for (size_t at = 0; at < len;) {
        if (text[at] != '\\') {
            at++;
        } else if (at + 2 < len && text[at + 1] == 'u' && text[at + 2] == '{') {
            if (lg__unicode_escape(text, len, &at) == UINT32_MAX)
                return false;
        } else {
            at += 2;   /* the backslash and the character it escapes */
        }
    }
    return true;
}

bool lg_js_string_strict_valid(const char *text, size_t len)
{
    /* strict code (TypeScript's parser refuses legacy octal escapes in
     * every file): each escape as a template's, the quotes aside */
    for (size_t at = 1; at + 1 < len;) {
        if (text[at] != '\\') {
            at++;
            continue;
        }
        if (!lg__escape_strict(text, len - 1, &at))
            return false;
    }
    return true;
}
