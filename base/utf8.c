/*
 * utf8.c - bounded UTF-8 decoding and encoding.
 */
#include "seam_base.h"

#include <string.h>

int sm_utf8_decode(const uint8_t *text, size_t len, uint32_t *code_point)
{
    if (len == 0)
        return SM_EINVAL;
    uint8_t lead = text[0];
    if (lead < 0x80) {
        *code_point = lead;
        return 1;
    }
    int need;
    uint32_t value, min;
    if ((lead & 0xE0) == 0xC0) {
        need = 2; value = lead & 0x1F; min = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        need = 3; value = lead & 0x0F; min = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        need = 4; value = lead & 0x07; min = 0x10000;
    } else {
        return SM_EUTF8;
    }
    if ((size_t)need > len)
        return SM_EUTF8;
    for (int i = 1; i < need; i++) {
        if ((text[i] & 0xC0) != 0x80)
            return SM_EUTF8;
        value = (value << 6) | (text[i] & 0x3F);
    }
    if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return SM_EUTF8;
    *code_point = value;
    return need;
}

int sm_utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        out[0] = (uint8_t)(0xF0 | (cp >> 18));
        out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (uint8_t)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

bool sm_utf8_valid(const uint8_t *text, size_t len, bool allow_nul, size_t *bad_offset)
{
    size_t at = 0;
    while (at < len) {
        if (text[at] < 0x80) {
            if (text[at] == 0 && !allow_nul)
                break;
            at++;
            continue;
        }
        uint32_t cp;
        int used = sm_utf8_decode(text + at, len - at, &cp);
        if (used < 0)
            break;
        at += (size_t)used;
    }
    if (at == len)
        return true;
    if (bad_offset)
        *bad_offset = at;
    return false;
}

size_t sm_utf8_boundary_before(const uint8_t *text, size_t len)
{
    /* Step back over at most three continuation bytes to the lead byte and
     * keep the sequence only if it is complete. */
    size_t start = len;
    int back = 0;
    while (start > 0 && back < 4 && (text[start - 1] & 0xC0) == 0x80) {
        start--;
        back++;
    }
    if (start == 0)
        return back ? 0 : len;
    uint8_t lead = text[start - 1];
    if (lead < 0x80)
        return back ? start : len;
    int need = (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
    if (need && back + 1 == need)
        return len;
    return start - 1;
}

size_t sm_utf8_scrub(char *text)
{
    size_t len = strlen(text), replaced = 0, bad;
    uint8_t *at = (uint8_t *)text;
    while (!sm_utf8_valid(at, len, false, &bad)) {
        at[bad] = '?';
        replaced++;
        at += bad + 1;
        len -= bad + 1;
    }
    return replaced;
}

bool sm_brackets_deeper_than(const char *text, size_t len, uint32_t limit)
{
    uint32_t depth = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '(' || c == '[' || c == '{') {
            if (++depth > limit)
                return true;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return false;
}

bool sm_tree_sitter_takes(const char *text, size_t len)
{
    return len <= SM_TREE_SITTER_MAX_BYTES && !sm_brackets_deeper_than(text, len, SM_TREE_SITTER_MAX_DEPTH);
}
