/*
 * syntax.c - the tree-sitter view of a buffer, in its language's grammar.
 *
 * tree-sitter only decides a completion's shape and scope; whether text is
 * valid is always decided by seam's own recognizer (parser/).
 */
#include "seam_server.h"

#include <string.h>
#include <tree_sitter/api.h>

/* Walks the tree once, counting nodes and finding the first error. */
static void srv__walk(TSTreeCursor *cursor, srv_syntax_summary *summary)
{
    for (;;) {
        TSNode node = ts_tree_cursor_current_node(cursor);
        summary->node_count++;
        if (!summary->has_error && (strcmp(ts_node_type(node), "ERROR") == 0 || ts_node_is_missing(node))) {
            TSPoint point = ts_node_start_point(node);
            summary->has_error = true;
            summary->error_row = point.row;
            summary->error_column = point.column;
        }
        if (ts_tree_cursor_goto_first_child(cursor))
            continue;
        while (!ts_tree_cursor_goto_next_sibling(cursor)) {
            if (!ts_tree_cursor_goto_parent(cursor))
                return;
        }
    }
}

int srv_syntax_summarize(const lg_language *language, const char *text, size_t len, srv_syntax_summary *summary)
{
    memset(summary, 0, sizeof *summary);
    if (!language->tree_sitter)
        return SM_EINVAL;
    if (len > UINT32_MAX)
        return SM_ETOOBIG;
    if (sm_brackets_deeper_than(text, len, SM_TREE_SITTER_MAX_DEPTH))
        return SM_ETOOBIG;   /* brackets nested deeper than tree-sitter can take */
    TSParser *parser = ts_parser_new();
    if (!parser)
        return SM_ENOMEM;
    if (!ts_parser_set_language(parser, language->tree_sitter())) {
        ts_parser_delete(parser);
        return SM_EINVAL;
    }
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    if (!tree) {
        ts_parser_delete(parser);
        return SM_ENOMEM;
    }
    TSNode root = ts_tree_root_node(tree);
    snprintf(summary->root_type, sizeof summary->root_type, "%s", ts_node_type(root));
    summary->top_level_count = ts_node_named_child_count(root);
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    srv__walk(&cursor, summary);
    ts_tree_cursor_delete(&cursor);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    return SM_OK;
}
