/*
 * grammar_select.c - a grammar file's lines for one language version.
 *
 *     %if version >= 3.12
 *     type_alias: "type" NAME [type_params] "=" expression
 *     %else
 *     ...
 *     %endif
 *
 * Lines a condition leaves out, and the directives themselves, become empty
 * lines, so that the compiler's messages keep their line numbers.
 * Conditions compare the version with ==, !=, <, <=, > or >=; blocks nest.
 * A grammar with dialects instead (JavaScript's script and module) names
 * them on a "%dialects script module" line; "%if module" then holds when
 * the version is that name's place in the list (from 1).  A dialect's name
 * may join parts with "+" ("module+jsx"): "%if jsx" holds for every
 * dialect that has the part.
 */
#include "ep_grammar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EP_SELECT_DEPTH 16
#define EP_SELECT_DIALECTS 8

/* "3.12" -> 312; -1 when malformed. */
static int ep__version_number(const char *text, const char **end)
{
    char *after;
    long major = strtol(text, &after, 10);
    if (after == text || *after != '.' || major < 1 || major > 9)
        return -1;
    const char *minor_at = after + 1;
    long minor = strtol(minor_at, &after, 10);
    if (after == minor_at || minor < 0 || minor > 99)
        return -1;
    *end = after;
    return (int)(major * 100 + minor);
}

/* The dialects a %dialects line names: the selected version is the index
 * of one of them plus 1. */
typedef struct ep_dialects {
    const char *names[EP_SELECT_DIALECTS];
    size_t lens[EP_SELECT_DIALECTS];
    int count;
} ep_dialects;

static const char *ep__skip_blank(const char *text, const char *end)
{
    while (text < end && (*text == ' ' || *text == '\t' || *text == '\r'))
        text++;
    return text;
}

/* Reads the names of a %dialects line; false when there are too many. */
static bool ep__read_dialects(const char *text, const char *end, ep_dialects *out)
{
    out->count = 0;
    for (text = ep__skip_blank(text, end); text < end; text = ep__skip_blank(text, end)) {
        const char *word = text;
        while (text < end && *text != ' ' && *text != '\t' && *text != '\r')
            text++;
        if (out->count == EP_SELECT_DIALECTS)
            return false;
        out->names[out->count] = word;
        out->lens[out->count++] = (size_t)(text - word);
    }
    return out->count > 0;
}

/* Whether a dialect's name, or one of its "+"-separated parts, is
 * text[0..len). */
static bool ep__dialect_has(const char *name, size_t name_len, const char *text, size_t len)
{
    for (const char *part = name, *end = name + name_len; part < end;) {
        const char *plus = memchr(part, '+', (size_t)(end - part));
        const char *stop = plus ? plus : end;
        if ((size_t)(stop - part) == len && strncmp(part, text, len) == 0)
            return true;
        part = stop + 1;
    }
    return name_len == len && strncmp(name, text, len) == 0;
}

/* "%if NAME" with a dialect's name or a part of one ("jsx" of
 * "module+jsx"): whether the selected dialect is or has it; -1 when no
 * dialect does. */
static int ep__dialect_condition(const char *text, const char *line_end, int version, const ep_dialects *d)
{
    text = ep__skip_blank(text, line_end);
    const char *end = text;
    while (end < line_end && *end != ' ' && *end != '\t' && *end != '\r')
        end++;
    if (ep__skip_blank(end, line_end) != line_end)
        return -1;
    int holds = -1;
    for (int i = 0; i < d->count; i++)
        if (ep__dialect_has(d->names[i], d->lens[i], text, (size_t)(end - text)))
            holds = holds == 1 || version == i + 1;
    return holds;
}

/* Whether "version OP X.Y" holds for `version`; -1 when malformed. */
static int ep__condition(const char *text, const char *line_end, int version)
{
    while (text < line_end && (*text == ' ' || *text == '\t'))
        text++;
    if (line_end - text < 7 || strncmp(text, "version", 7) != 0)
        return -1;
    text += 7;
    while (text < line_end && (*text == ' ' || *text == '\t'))
        text++;
    static const char *const ops[] = {">=", "<=", "==", "!=", ">", "<"};
    int op = -1;
    for (int i = 0; i < 6 && op < 0; i++)
        if (strncmp(text, ops[i], strlen(ops[i])) == 0)
            op = i;
    if (op < 0)
        return -1;
    text += strlen(ops[op]);
    while (text < line_end && (*text == ' ' || *text == '\t'))
        text++;
    const char *end;
    int wanted = ep__version_number(text, &end);
    if (wanted < 0)
        return -1;
    while (end < line_end && (*end == ' ' || *end == '\t' || *end == '\r'))
        end++;
    if (end != line_end)
        return -1;
    switch (op) {
    case 0: return version >= wanted;
    case 1: return version <= wanted;
    case 2: return version == wanted;
    case 3: return version != wanted;
    case 4: return version > wanted;
    default: return version < wanted;
    }
}

static bool ep__directive(const char *line, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - line) >= n && strncmp(line, word, n) == 0 &&
           ((size_t)(end - line) == n || line[n] == ' ' || line[n] == '\t' || line[n] == '\r');
}

int ep_grammar_select(const char *source, size_t len, int version, sm_buf *out, char *error, size_t error_size)
{
    ep_dialects dialects = {.count = 0};
    bool keep[EP_SELECT_DEPTH + 1] = {true};
    bool taken[EP_SELECT_DEPTH + 1] = {true};
    int depth = 0;
    unsigned line_no = 0;
    for (size_t at = 0; at < len;) {
        const char *line = source + at;
        const char *nl = memchr(line, '\n', len - at);
        const char *end = nl ? nl : source + len;
        line_no++;
        at = (size_t)(end - source) + (nl ? 1 : 0);
        bool directive = true;
        if (ep__directive(line, end, "%dialects")) {
            if (!ep__read_dialects(line + 9, end, &dialects)) {
                snprintf(error, error_size, "line %u: %%dialects takes 1 to %d names", line_no, EP_SELECT_DIALECTS);
                return SM_EINVAL;
            }
        } else if (ep__directive(line, end, "%if")) {
            int holds = dialects.count ? ep__dialect_condition(line + 3, end, version, &dialects)
                                       : ep__condition(line + 3, end, version);
            if (holds < 0 || depth == EP_SELECT_DEPTH) {
                snprintf(error, error_size, "line %u: %s", line_no,
                         holds < 0 ? dialects.count ? "%if takes a name from %dialects" : "%if takes \"version OP X.Y\" (OP: == != < <= > >=)" : "%if nests too deep");
                return SM_EINVAL;
            }
            depth++;
            taken[depth] = holds;
            keep[depth] = keep[depth - 1] && holds;
        } else if (ep__directive(line, end, "%else")) {
            if (depth == 0) {
                snprintf(error, error_size, "line %u: %%else without %%if", line_no);
                return SM_EINVAL;
            }
            keep[depth] = keep[depth - 1] && !taken[depth];
        } else if (ep__directive(line, end, "%endif")) {
            if (depth == 0) {
                snprintf(error, error_size, "line %u: %%endif without %%if", line_no);
                return SM_EINVAL;
            }
            depth--;
        } else {
            directive = false;
        }
        if (!directive && keep[depth] && sm_buf_append(out, line, (size_t)(end - line)) != SM_OK)
            return SM_ETOOBIG;
        if (nl && sm_buf_append(out, "\n", 1) != SM_OK)
            return SM_ETOOBIG;
    }
    if (depth != 0) {
        snprintf(error, error_size, "an %%if is not closed by %%endif");
        return SM_EINVAL;
    }
    return SM_OK;
}

/* ---- Extending a grammar ---------------------------------------------------------- */

#define EP_EXTEND_NAMES 512

typedef struct ep_names {
    const char *names[EP_EXTEND_NAMES];
    size_t lens[EP_EXTEND_NAMES];
    size_t count;
} ep_names;

static bool ep__name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The name a column-0 definition "name:" starts with; 0 when the line is
 * no definition. */
static size_t ep__defined_name(const char *line, const char *end)
{
    size_t n = 0;
    while (line + n < end && ep__name_char(line[n]))
        n++;
    const char *after = ep__skip_blank(line + n, end);
    return n && after < end && *after == ':' ? n : 0;
}

static bool ep__names_add(ep_names *names, const char *name, size_t len)
{
    if (names->count == EP_EXTEND_NAMES)
        return false;
    names->names[names->count] = name;
    names->lens[names->count++] = len;
    return true;
}

static bool ep__names_have(const ep_names *names, const char *name, size_t len)
{
    for (size_t i = 0; i < names->count; i++)
        if (names->lens[i] == len && memcmp(names->names[i], name, len) == 0)
            return true;
    return false;
}

/* What ext defines and drops. */
static bool ep__replaced_names(const char *ext, size_t len, ep_names *out)
{
    out->count = 0;
    for (size_t at = 0; at < len;) {
        const char *line = ext + at;
        const char *nl = memchr(line, '\n', len - at);
        const char *end = nl ? nl : ext + len;
        at = (size_t)(end - ext) + (nl ? 1 : 0);
        size_t n = ep__defined_name(line, end);
        if (n && !ep__names_add(out, line, n))
            return false;
        if (ep__directive(line, end, "%drop")) {
            for (const char *w = ep__skip_blank(line + 5, end); w < end; w = ep__skip_blank(w, end)) {
                const char *word = w;
                while (w < end && ep__name_char(*w))
                    w++;
                if (w == word || !ep__names_add(out, word, (size_t)(w - word)))
                    return false;
            }
        }
    }
    return true;
}

int ep_grammar_extend(const char *base, size_t base_len, const char *ext, size_t ext_len, sm_buf *out,
                      char *error, size_t error_size)
{
    ep_names *replaced = sm_malloc(sizeof *replaced);
    if (!ep__replaced_names(ext, ext_len, replaced)) {
        snprintf(error, error_size, "the extending grammar replaces more than %d names, or a %%drop line is "
                 "not a list of names", EP_EXTEND_NAMES);
        sm_free(replaced);
        return SM_EINVAL;
    }
    int rc = SM_OK;
    bool skipping = false;
    for (size_t at = 0; at < base_len && rc == SM_OK;) {
        const char *line = base + at;
        const char *nl = memchr(line, '\n', base_len - at);
        const char *end = nl ? nl : base + base_len;
        at = (size_t)(end - base) + (nl ? 1 : 0);
        bool continues = line == end || *line == ' ' || *line == '\t' || *line == '\r';
        if (!continues) {
            size_t n = ep__defined_name(line, end);
            skipping = n && ep__names_have(replaced, line, n);
        }
        if (!skipping)
            rc = sm_buf_append(out, line, (size_t)(end - line));
        if (rc == SM_OK)
            rc = sm_buf_append(out, "\n", 1);
    }
    for (size_t at = 0; at < ext_len && rc == SM_OK;) {
        const char *line = ext + at;
        const char *nl = memchr(line, '\n', ext_len - at);
        const char *end = nl ? nl : ext + ext_len;
        at = (size_t)(end - ext) + (nl ? 1 : 0);
        if (!ep__directive(line, end, "%drop"))
            rc = sm_buf_append(out, line, (size_t)(end - line));
        if (rc == SM_OK && nl)
            rc = sm_buf_append(out, "\n", 1);
    }
    sm_free(replaced);
    return rc == SM_OK ? SM_OK : SM_ETOOBIG;
}
