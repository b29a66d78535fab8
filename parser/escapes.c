/*
 * escapes.c - "\N{name}" escapes in str literals.  The lexer's pattern only
 * knows a name's shape; CPython looks the name up in its Unicode database
 * when it decodes the literal and refuses the program if it is unknown.
 * seam does the same lookup against a table generated from that database.
 */
#include "ep_escapes.h"

#include <string.h>

#define EP_NAME_MAX 128 /* longer than any name or alias */

static uint64_t ep__fnv1a(const char *s, size_t len, bool upper)
{
    uint64_t h = 0xCBF29CE484222325u;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 'a' + 'A');
        h = (h ^ c) * 0x100000001B3u;
    }
    return h;
}

static bool ep__sorted_has(const uint64_t *items, uint32_t count, uint64_t key)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (items[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && items[lo] == key;
}

/* "CJK UNIFIED IDEOGRAPH-" and 4 or 5 upper-case hex digits, as CPython
 * reads it (case matters here, unlike for stored names). */
static bool ep__cjk_name(const char *name, size_t len, bool *known)
{
    static const char prefix[] = "CJK UNIFIED IDEOGRAPH-";
    size_t plen = sizeof prefix - 1;
    if (len < plen || memcmp(name, prefix, plen) != 0)
        return false;
    *known = false;
    size_t digits = len - plen;
    if (digits != 4 && digits != 5)
        return true;
    uint32_t cp = 0;
    for (size_t i = plen; i < len; i++) {
        char c = name[i];
        uint32_t v;
        if (c >= '0' && c <= '9')
            v = (uint32_t)(c - '0');
        else if (c >= 'A' && c <= 'F')
            v = (uint32_t)(c - 'A' + 10);
        else
            return true;
        cp = cp * 16 + v;
    }
    for (uint32_t i = 0; i < ep_cjk_range_count; i++)
        if (cp >= ep_cjk_ranges[i][0] && cp <= ep_cjk_ranges[i][1])
            *known = true;
    return true;
}

bool ep_unicode_name_known(const char *name, size_t len)
{
    if (len == 0 || len > EP_NAME_MAX)
        return false;
    bool known;
    if (ep__cjk_name(name, len, &known))
        return known;
    return ep__sorted_has(ep_names_exact, ep_names_exact_count, ep__fnv1a(name, len, false)) ||
           ep__sorted_has(ep_names_folded, ep_names_folded_count, ep__fnv1a(name, len, true));
}

bool ep_escapes_valid(const char *token, size_t len, bool finished, size_t *resume)
{
    size_t at = 0;
    while (at < len && token[at] != '\'' && token[at] != '"') {
        char c = token[at++];
        if (c == 'r' || c == 'R' || c == 'b' || c == 'B')
            return true;
    }
    if (*resume > at && *resume <= len)
        at = *resume;
    while (at < len) {
        *resume = at; /* no escape is cut here */
        if (token[at] != '\\') {
            at++;
            continue;
        }
        if (at + 2 < len && token[at + 1] == 'N' && token[at + 2] == '{') {
            const char *close = memchr(token + at + 3, '}', len - at - 3);
            if (!close)
                return !finished; /* resumed from the backslash */
            size_t start = at + 3, end = (size_t)(close - token);
            if (!ep_unicode_name_known(token + start, end - start))
                return false;
            at = end + 1;
            continue;
        }
        if (at + 2 >= len && (at + 1 >= len || token[at + 1] == 'N'))
            return true; /* the "{" of a "\N{" may be next: resume here */
        at += 2; /* the escaped character, whatever it is */
    }
    if (at <= len)
        *resume = at;
    return true;
}
