/*
 * regex.c - JavaScript's check of a regular expression literal: its flags
 * (each of "dgimsuyv" at most once, not both "u" and "v") and the shape of
 * its pattern as acorn 8.19 reads it: groups opened and closed, group
 * kinds ("(?:", lookarounds, "(?<name>", modifiers "(?ims-ims:"), a
 * quantifier only after something it repeats, "{n,m}" in order, a class's
 * ranges in order.  What it does not read yet (Unicode property names,
 * the "v" flag's class set operations, duplicate group names) is listed in
 * docs/JAVASCRIPT_DIFFERENCES.md.  A named reference "\k<name>" must name
 * a group where the pattern has named groups or the u or v flag.
 */
#include "lg_internal.h"
#include "seam_base.h"

#include <stdint.h>
#include <string.h>

#define LG_REGEX_MAX_DEPTH 256

/* Adds flag c of the set `flags` to *seen; false when c is none of them
 * or is there already. */
static bool lg__add_flag(const char *flags, char c, unsigned *seen)
{
    const char *at = c ? strchr(flags, c) : NULL;
    if (!at)
        return false;
    unsigned bit = 1u << (at - flags);
    if (*seen & bit)
        return false;
    *seen |= bit;
    return true;
}

static bool lg__flags_valid(const char *flags, size_t len)
{
    unsigned seen = 0;
    for (size_t i = 0; i < len; i++)
        if (!lg__add_flag("dgimsuyv", flags[i], &seen))
            return false;
    unsigned u = 1u << 5, v = 1u << 7;
    return (seen & (u | v)) != (u | v);
}

static bool lg__digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads "{n}", "{n,}" or "{n,m}" at p[*at]; true with *at past it when it
 * is one (then n <= m is required of it by the caller). */
static bool lg__braces(const char *p, size_t len, size_t *at, bool *ordered)
{
    size_t i = *at + 1;
    uint64_t n = 0, m = 0;
    size_t start = i;
    while (i < len && lg__digit(p[i]) && n < UINT32_MAX)
        n = n * 10 + (uint64_t)(p[i++] - '0');
    if (i == start)
        return false;
    m = n;
    if (i < len && p[i] == ',') {
        i++;
        size_t mstart = i;
        m = UINT64_MAX;
        if (i < len && lg__digit(p[i])) {
            m = 0;
            while (i < len && lg__digit(p[i]) && m < UINT32_MAX)
                m = m * 10 + (uint64_t)(p[i++] - '0');
        }
        (void)mstart;
    }
    if (i >= len || p[i] != '}')
        return false;
    *at = i + 1;
    *ordered = n <= m;
    return true;
}

/* The code point a class atom at p[*at] stands for (a single character,
 * or an escape of one), moving past it; UINT32_MAX for a class escape
 * such as \d (no range may use it). */
static uint32_t lg__class_atom(const char *p, size_t len, size_t *at)
{
    unsigned char c = (unsigned char)p[*at];
    if (c != '\\') {
        size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        uint32_t cp = n == 1 ? c : c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
        for (size_t k = 1; k < n && *at + k < len; k++)
            cp = (cp << 6) | ((unsigned char)p[*at + k] & 0x3F);
        *at += n;
        return cp;
    }
    if (*at + 1 >= len) {
        *at = len;
        return UINT32_MAX;
    }
    char e = p[*at + 1];
    *at += 2;
    switch (e) {
    case 'd': case 'D': case 'w': case 'W': case 's': case 'S': case 'p': case 'P':
        if ((e == 'p' || e == 'P') && *at < len && p[*at] == '{') {
            const char *close = memchr(p + *at, '}', len - *at);
            *at = close ? (size_t)(close - p) + 1 : len;
        }
        return UINT32_MAX;
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    case 'f': return '\f';
    case 'b': return '\b';
    case 'x':
        if (*at + 2 <= len && sm_hex_digit(p[*at]) >= 0 && sm_hex_digit(p[*at + 1]) >= 0) {
            *at += 2;
            return (uint32_t)(sm_hex_digit(p[*at - 2]) * 16 + sm_hex_digit(p[*at - 1]));
        }
        return 'x';
    case 'u': {
        uint32_t cp = 0;
        size_t i = *at;
        if (i < len && p[i] == '{') {
            for (i++; i < len && sm_hex_digit(p[i]) >= 0 && cp <= 0x10FFFF; i++)
                cp = cp * 16 + (uint32_t)sm_hex_digit(p[i]);
            if (i < len && p[i] == '}') {
                *at = i + 1;
                return cp;
            }
            return 'u';
        }
        for (int k = 0; k < 4; k++, i++) {
            if (i >= len || sm_hex_digit(p[i]) < 0)
                return 'u';
            cp = cp * 16 + (uint32_t)sm_hex_digit(p[i]);
        }
        *at = i;
        return cp;
    }
    case 'c':
        if (*at < len && ((p[*at] >= 'a' && p[*at] <= 'z') || (p[*at] >= 'A' && p[*at] <= 'Z')))
            return (uint32_t)(p[(*at)++] % 32);
        return '\\';   /* Annex B: "\\c" stands for itself */
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        /* Annex B: a legacy octal escape in a class */
        uint32_t cp = (uint32_t)(e - '0');
        for (int k = 0; k < 2 && *at < len && p[*at] >= '0' && p[*at] <= '7' && cp * 8 + (uint32_t)(p[*at] - '0') <= 0377; k++)
            cp = cp * 8 + (uint32_t)(p[(*at)++] - '0');
        return cp;
    }
    default: return (unsigned char)e;
    }
}

/* Skips a character class at p[*at] ('['); false when a range is out of
 * order or it never closes. */
static bool lg__class(const char *p, size_t len, size_t *at)
{
    size_t i = *at + 1;
    if (i < len && p[i] == '^')
        i++;
    while (i < len && p[i] != ']') {
        uint32_t lo = lg__class_atom(p, len, &i);
        if (i + 1 < len && p[i] == '-' && p[i + 1] != ']') {
            i++;
            uint32_t hi = lg__class_atom(p, len, &i);
            if (lo != UINT32_MAX && hi != UINT32_MAX && lo > hi)
                return false;
        }
    }
    if (i >= len)
        return false;
    *at = i + 1;
    return true;
}

/* Reads "(?" at p[at - 2]: the kind of group; sets *lookbehind, *quantifiable.
 * Moves *at past the group's opening. */
static bool lg__group_open(const char *p, size_t len, size_t *at, bool *lookbehind)
{
    size_t i = *at;
    *lookbehind = false;
    if (i >= len)
        return false;
    if (p[i] == ':' || p[i] == '=' || p[i] == '!') {
        *at = i + 1;
        return true;
    }
    if (p[i] == '<' && i + 1 < len && (p[i + 1] == '=' || p[i + 1] == '!')) {
        *lookbehind = true;
        *at = i + 2;
        return true;
    }
    if (p[i] == '<') {
        const char *close = memchr(p + i, '>', len - i);
        if (!close || close == p + i + 1)
            return false;
        *at = (size_t)(close - p) + 1;
        return true;
    }
    /* modifiers: (?ims-ims:...) with no flag twice and something named */
    unsigned seen = 0;
    size_t named = 0;
    bool minus = false;
    for (; i < len && p[i] != ':'; i++) {
        if (p[i] == '-' && !minus) {
            minus = true;
            continue;
        }
        if (!lg__add_flag("ims", p[i], &seen))
            return false;
        named++;
    }
    if (i >= len || named == 0)
        return false;
    *at = i + 1;
    return true;
}

/* Whether the pattern p[0..len) has a named group "(?<name>". */
static bool lg__has_named_group(const char *p, size_t len)
{
    for (size_t i = 0; i + 3 < len; i++) {
        if (p[i] == '\\') {
            i++;
        } else if (p[i] == '(' && p[i + 1] == '?' && p[i + 2] == '<' && p[i + 3] != '=' && p[i + 3] != '!') {
            return true;
        }
    }
    return false;
}

/* Whether "(?<name>" with exactly this name is in the pattern. */
static bool lg__group_named(const char *p, size_t len, const char *name, size_t name_len)
{
    for (size_t i = 0; i + 3 + name_len < len; i++) {
        if (p[i] == '\\') {
            i++;
        } else if (p[i] == '(' && p[i + 1] == '?' && p[i + 2] == '<' && memcmp(p + i + 3, name, name_len) == 0 &&
                   p[i + 3 + name_len] == '>') {
            return true;
        }
    }
    return false;
}

/* "\k<name>" at p[at]: with named groups in the pattern, or the u or v
 * flag, it must name one of them (else "\k" stands for "k"). */
static bool lg__backreference_valid(const char *p, size_t len, size_t at, bool named, bool unicode)
{
    if (!named && !unicode)
        return true;
    if (at + 2 >= len || p[at + 2] != '<')
        return false;
    const char *close = memchr(p + at + 3, '>', len - at - 3);
    if (!close || close == p + at + 3)
        return false;
    return lg__group_named(p, len, p + at + 3, (size_t)(close - (p + at + 3)));
}

bool lg_js_regex_valid(const char *text, size_t len)
{
    const char *end = memrchr(text, '/', len);
    if (!end || end == text)
        return false;
    if (!lg__flags_valid(end + 1, len - (size_t)(end - text) - 1))
        return false;
    const char *p = text + 1;
    size_t plen = (size_t)(end - p);
    bool unicode = memchr(end + 1, 'u', len - (size_t)(end - text) - 1) ||
                   memchr(end + 1, 'v', len - (size_t)(end - text) - 1);
    bool named = lg__has_named_group(p, plen);
    bool lookbehind_stack[LG_REGEX_MAX_DEPTH];
    int depth = 0;
    bool can_repeat = false;   /* an atom stands just before */
    for (size_t i = 0; i < plen;) {
        char c = p[i];
        switch (c) {
        case '\\':
            if (i + 1 < plen && p[i + 1] == 'k' && !lg__backreference_valid(p, plen, i, named, unicode))
                return false;
            i += 2;
            can_repeat = true;
            break;
        case '[':
            if (!lg__class(p, plen, &i))
                return false;
            can_repeat = true;
            break;
        case '(': {
            bool behind = false;
            i++;
            if (i < plen && p[i] == '?') {
                i++;
                if (!lg__group_open(p, plen, &i, &behind))
                    return false;
            }
            if (depth == LG_REGEX_MAX_DEPTH)
                return false;
            lookbehind_stack[depth++] = behind;
            can_repeat = false;
            break;
        }
        case ')':
            if (depth == 0)
                return false;
            depth--;
            i++;
            /* a lookbehind is never quantified; lookaheads only without u */
            can_repeat = !lookbehind_stack[depth];
            break;
        case '|':
            i++;
            can_repeat = false;
            break;
        case '^': case '$':
            i++;
            can_repeat = false;
            break;
        case '*': case '+': case '?':
            if (!can_repeat)
                return false;
            i++;
            if (i < plen && p[i] == '?')
                i++;
            can_repeat = false;
            break;
        case '{': {
            bool ordered = true;
            size_t at = i;
            if (lg__braces(p, plen, &at, &ordered)) {
                if (!can_repeat || !ordered)
                    return false;
                i = at;
                if (i < plen && p[i] == '?')
                    i++;
                can_repeat = false;
            } else {
                if (unicode)
                    return false;   /* a lone brace needs Annex B */
                i++;
                can_repeat = true;
            }
            break;
        }
        case '}': case ']':
            if (unicode)
                return false;
            i++;
            can_repeat = true;
            break;
        default:
            i++;
            can_repeat = true;
            break;
        }
    }
    return depth == 0;
}
