/*
 * position.c - LSP positions to byte offsets and back.
 */
#include "seam_protocol.h"

/* Returns the length of the line break at text[at], or 0 if there is none. */
static size_t lsp__line_break(const char *text, size_t len, size_t at)
{
    if (text[at] == '\n')
        return 1;
    if (text[at] == '\r')
        return at + 1 < len && text[at + 1] == '\n' ? 2 : 1;
    return 0;
}

/* The width of a code point in the given encoding's units. */
static uint32_t lsp__units(uint32_t code_point, int bytes, lsp_encoding encoding)
{
    if (encoding == LSP_ENCODING_UTF8)
        return (uint32_t)bytes;
    return code_point >= 0x10000 ? 2 : 1;
}

int lsp_position_to_offset(const char *text, size_t len, lsp_position position,
                           lsp_encoding encoding, size_t *offset)
{
    const uint8_t *bytes = (const uint8_t *)text;
    size_t at = 0;
    for (uint32_t line = 0; line < position.line; line++) {
        size_t brk = 0;
        while (at < len && !(brk = lsp__line_break(text, len, at)))
            at++;
        if (at >= len)
            return SM_ERANGE;
        at += brk;
    }
    uint32_t units = 0;
    while (at < len && units < position.character && !lsp__line_break(text, len, at)) {
        uint32_t cp;
        int used = sm_utf8_decode(bytes + at, len - at, &cp);
        if (used < 0)
            return SM_EUTF8;
        units += lsp__units(cp, used, encoding);
        if (units > position.character)
            return SM_ERANGE;
        at += (size_t)used;
    }
    *offset = at;
    return SM_OK;
}

int lsp_offset_to_position(const char *text, size_t len, size_t offset,
                           lsp_encoding encoding, lsp_position *position)
{
    if (offset > len)
        return SM_ERANGE;
    const uint8_t *bytes = (const uint8_t *)text;
    uint32_t line = 0, units = 0;
    size_t at = 0;
    while (at < offset) {
        size_t brk = lsp__line_break(text, len, at);
        if (brk) {
            if (at + brk > offset)
                return SM_ERANGE; /* between \r and \n */
            at += brk;
            line++;
            units = 0;
            continue;
        }
        uint32_t cp;
        int used = sm_utf8_decode(bytes + at, len - at, &cp);
        if (used < 0)
            return SM_EUTF8;
        if (at + (size_t)used > offset)
            return SM_ERANGE;
        units += lsp__units(cp, used, encoding);
        at += (size_t)used;
    }
    position->line = line;
    position->character = units;
    return SM_OK;
}
