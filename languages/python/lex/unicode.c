/*
 * unicode.c - the checks of Python's lexer that need the Unicode database.
 * The lexer's patterns take any non-ASCII byte as part of a name and any
 * "\N{...}" of the right shape as an escape; CPython then checks the name's
 * characters (XID_Start, XID_Continue) and looks the escape's name up, and
 * refuses the program if either fails.  seam does the same against tables
 * generated at build time from Python's own database.
 */
#include "seam_pylex.h"

#include <string.h>

#define PX_NAME_MAX 128 /* longer than any name or alias */

static uint64_t px__fnv1a(const char *s, size_t len, bool upper)
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

static bool px__sorted_has(const uint64_t *items, uint32_t count, uint64_t key)
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
static bool px__cjk_name(const char *name, size_t len, bool *known)
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
    for (uint32_t i = 0; i < px_cjk_range_count; i++)
        if (cp >= px_cjk_ranges[i][0] && cp <= px_cjk_ranges[i][1])
            *known = true;
    return true;
}

bool px_unicode_name_known(const char *name, size_t len)
{
    if (len == 0 || len > PX_NAME_MAX)
        return false;
    bool known;
    if (px__cjk_name(name, len, &known))
        return known;
    return px__sorted_has(px_names_exact, px_names_exact_count, px__fnv1a(name, len, false)) ||
           px__sorted_has(px_names_folded, px_names_folded_count, px__fnv1a(name, len, true));
}

bool px_escapes_valid(const char *token, size_t len, bool finished, size_t *resume)
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
            if (!px_unicode_name_known(token + start, end - start))
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

static bool px__in_ranges(const uint32_t (*ranges)[2], uint32_t count, uint32_t cp)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ranges[mid][1] < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && ranges[lo][0] <= cp;
}

static bool px__ascii_name_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool px_name_char_valid(uint32_t cp, bool first)
{
    if (cp < 0x80)
        return px__ascii_name_byte((unsigned char)cp) && !(first && cp >= '0' && cp <= '9');
    return first ? px__in_ranges(px_xid_start, px_xid_start_count, cp)
                 : px__in_ranges(px_xid_continue, px_xid_continue_count, cp);
}

bool px_name_valid(const char *token, size_t len)
{
    const unsigned char *s = (const unsigned char *)token;
    bool wide = false;
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return true;
    for (size_t i = 0; i < len; i++) {
        if (s[i] >= 0x80)
            wide = true;
        else if (!px__ascii_name_byte(s[i]))
            return true; /* not a name */
    }
    if (!wide)
        return true;
    size_t at = 0;
    while (at < len) {
        uint32_t cp = s[at];
        size_t width = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
        if (at + width > len)
            return true; /* cut: the rest comes later */
        if (width > 1) {
            cp &= width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07;
            for (size_t k = 1; k < width; k++)
                cp = (cp << 6) | (s[at + k] & 0x3F);
            const uint32_t (*ranges)[2] = at == 0 ? px_xid_start : px_xid_continue;
            uint32_t count = at == 0 ? px_xid_start_count : px_xid_continue_count;
            if (!px__in_ranges(ranges, count, cp))
                return false;
        }
        at += width;
    }
    return true;
}
