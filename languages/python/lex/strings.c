/*
 * strings.c - Python's string prefixes, by version.
 */
#include "seam_pylex.h"

bool px_string_prefix(const char *text, size_t len, int version, px_prefix *out)
{
    px_prefix p = {.len = (uint8_t)len};
    bool u = false;
    if (len > 2)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        bool *flag = c == 'r' || c == 'R' ? &p.raw
                   : c == 'b' || c == 'B' ? &p.bytes
                   : c == 'f' || c == 'F' ? &p.f
                   : (c == 't' || c == 'T') && version >= 314 ? &p.t
                   : c == 'u' || c == 'U' ? &u
                   : NULL;
        if (!flag || *flag)
            return false;
        *flag = true;
    }
    /* u stands alone; b, f and t exclude each other */
    if ((u && len > 1) || p.bytes + p.f + p.t > 1)
        return false;
    if (out)
        *out = p;
    return true;
}

bool px_is_template_start(const char *token, size_t len, int version, size_t *body)
{
    size_t q = 0;
    while (q < len && q < 3 && token[q] != '\'' && token[q] != '"')
        q++;
    px_prefix p;
    if (q >= len || (token[q] != '\'' && token[q] != '"') || !px_string_prefix(token, q, version, &p) ||
        !(p.f || p.t))
        return false;
    if (body)
        *body = q;
    return true;
}
