/*
 * scope.c - the tree each document keeps, in its language's tree-sitter
 * grammar, and the scope at a cursor, from the language's scope rules.
 *
 * tree-sitter is used only for the scope (languages/<name>/scope.c): what
 * shape a completion takes, where it must stay, and how much context the
 * recognizer needs.  Validity never comes from it: the recognizer decides.
 * A language without scope rules gets the rest of a line, or statements on
 * an empty line.
 */
#include "seam_server.h"
#include "seam_languages.h"

#include <string.h>

#include <tree_sitter/api.h>

struct srv_tree {
    TSParser *parser;
    TSTree *tree;
    bool stale;     /* edited since the last parse: srv_tree_refresh parses */
};

srv_tree *srv_tree_new(const lg_language *language, const char *text, size_t len)
{
    if (!language || !language->tree_sitter)
        return NULL;
    srv_tree *t = sm_calloc(1, sizeof *t);
    t->parser = ts_parser_new();
    if (!t->parser || !ts_parser_set_language(t->parser, language->tree_sitter())) {
        if (t->parser)
            ts_parser_delete(t->parser);
        sm_free(t);
        return NULL;
    }
    if (sm_tree_sitter_takes(text, len))
        t->tree = ts_parser_parse_string(t->parser, NULL, text, (uint32_t)len);
    return t;
}

/* The tree to read: none while edits wait for a parse. */
static const TSTree *srv__fresh(const srv_tree *t)
{
    return t && !t->stale ? t->tree : NULL;
}

struct TSTree *srv_tree_copy(const srv_tree *t)
{
    return srv__fresh(t) ? ts_tree_copy(srv__fresh(t)) : NULL;
}

void srv_tree_free(srv_tree *t)
{
    if (!t)
        return;
    if (t->tree)
        ts_tree_delete(t->tree);
    ts_parser_delete(t->parser);
    sm_free(t);
}

/* The row and byte column of `offset` in text. */
static TSPoint srv__point(const char *text, size_t offset)
{
    TSPoint p = {0, 0};
    size_t line_start = 0;
    for (size_t i = 0; i < offset; i++)
        if (text[i] == '\n') {
            p.row++;
            line_start = i + 1;
        }
    p.column = (uint32_t)(offset - line_start);
    return p;
}

void srv_tree_edit(srv_tree *t, const char *old_text, size_t start, size_t old_end, const char *inserted,
                   size_t inserted_len)
{
    if (!t)
        return;
    t->stale = true;
    if (!t->tree)
        return;
    TSInputEdit e;
    e.start_byte = (uint32_t)start;
    e.old_end_byte = (uint32_t)old_end;
    e.new_end_byte = (uint32_t)(start + inserted_len);
    e.start_point = srv__point(old_text, start);
    e.old_end_point = srv__point(old_text, old_end);
    TSPoint end = e.start_point;
    for (size_t i = 0; i < inserted_len; i++) {
        if (inserted[i] == '\n') {
            end.row++;
            end.column = 0;
        } else {
            end.column++;
        }
    }
    e.new_end_point = end;
    ts_tree_edit(t->tree, &e);
}

void srv_tree_reparse(srv_tree *t, const char *text, size_t len)
{
    if (!t)
        return;
    /* Too deep or too large for tree-sitter: the document has no tree
     * (the scope then comes from the lexical scan alone) until it is
     * shallower and smaller. */
    TSTree *next = sm_tree_sitter_takes(text, len) ? ts_parser_parse_string(t->parser, t->tree, text, (uint32_t)len)
                                                   : NULL;
    if (t->tree)
        ts_tree_delete(t->tree);
    t->tree = next;
    t->stale = false;
}

void srv_tree_refresh(srv_tree *t, const char *text, size_t len)
{
    if (t && t->stale)
        srv_tree_reparse(t, text, len);
}

bool srv_tree_has_error(const srv_tree *t)
{
    return srv__fresh(t) && ts_node_has_error(ts_tree_root_node(srv__fresh(t)));
}

/* ---- The scope ----------------------------------------------------------------------- */

static bool srv__blank_text(const char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\f' && text[i] != '\n' && text[i] != '\r')
            return false;
    return true;
}

/* The scope of a language without scope rules: the rest of the line when
 * the line has text before the cursor, statements on an empty line (as
 * Python's rules have them), the whole text as context. */
static void srv__scope_by_lines(const lg_language *language, const char *text, size_t len, size_t offset,
                                bool multiline, uint32_t max_lines, lg_scope *out)
{
    memset(out, 0, sizeof *out);
    out->language = language;
    size_t start = offset;
    while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r')
        start--;
    bool text_before = !srv__blank_text(text, start, offset);
    out->kind = text_before ? LG_SCOPE_LINE : start == offset ? LG_SCOPE_MODULE : LG_SCOPE_BLOCK;
    out->max_lines = multiline && !text_before && max_lines ? max_lines : 1;
    out->node_type = "";
    out->cut_right = len;
    lg_scope_lines(text, len, offset, out);
    if (language->lex_scan)
        language->lex_scan(&out->lex, text, offset);
}

void srv_scope_at(const lg_language *language, const srv_tree *tree, const char *text, size_t len, size_t offset,
                  bool multiline, uint32_t max_lines, lg_scope *out)
{
    if (language->scope_at) {
        language->scope_at(srv__fresh(tree), text, len, offset, multiline, max_lines, out);
        out->language = language;   /* (rules another language's row shares) */
    } else
        srv__scope_by_lines(language, text, len, offset, multiline, max_lines, out);
    if (out->max_lines == 0)
        out->max_lines = 1;
}

bool srv_escape_filter(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    const lg_scope *scope = data;
    return !scope->language->escape_filter || scope->language->escape_filter(scope, middle, len, at_end, max_lines);
}
