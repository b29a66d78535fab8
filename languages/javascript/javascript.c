/*
 * javascript.c - JavaScript's row of the registry: how its documents are
 * told.  Its grammar (javascript.grammar, both goal symbols), its token
 * checks (lexical.c, regex.c), its goal symbol's choice (goal.c), its
 * lexical reading (shape.c) and its scope rules (scope.c) are in this
 * folder.  JSX (React's "javascriptreact") is a second row on the same
 * grammar's "+jsx" dialects.
 */
#include "lg_internal.h"

static const char *const lg__js_ids[] = {"javascript", NULL};
static const char *const lg__js_extensions[] = {".js", ".mjs", ".cjs", NULL};
static const char *const lg__js_interpreters[] = {"node", "nodejs", NULL};
static const char *const lg__js_dialects[] = {"script", "module", NULL};
/* a finished line's statement, property, argument or element may be
 * followed by one of these */
const char *const lg_js_line_enders[] = {";", "}", ",", ")", "]", NULL};
/* npm's own sources, where Node's installation has them */
static const char *const lg__js_corpus[] = {"/usr/lib/node_modules/npm/lib", "/usr/local/lib/node_modules/npm/lib",
                                            NULL};

/* what a definition starts with (TypeScript's own words too: a .js file
 * has none of them at a line's start), for the project's other files as
 * context */
const char *const lg_js_definers[] = {"function", "class", "const", "let", "var", "interface", "type", "enum",
                                      "namespace", NULL};
const char *const lg_js_definer_modifiers[] = {"export", "default", "async", "declare", "abstract", NULL};

extern const char ep_grammar_source_javascript[];

const lg_language lg_javascript = {
    .name = "javascript",
    .title = "JavaScript",
    .language_ids = lg__js_ids,
    .extensions = lg__js_extensions,
    .interpreters = lg__js_interpreters,
    .grammar = ep_grammar_source_javascript,
    .dialects = lg__js_dialects,
    .dialect_of = lg_js_dialect_of,
    .corpus_dirs = lg__js_corpus,
    .tree_sitter = tree_sitter_javascript,
    .scope_at = lg_js_scope_at,
    .escape_filter = lg_js_escape_filter,
    .lex_scan = lg_js_lex_scan,
    .middle_closed = lg_js_middle_closed,
    .line_enders = lg_js_line_enders,
    LG_JS_CONTEXT,
    .variant = &lg_javascriptreact,
    .variant_of = lg_js_has_jsx,
};

static const char *const lg__jsx_ids[] = {"javascriptreact", NULL};
static const char *const lg__jsx_extensions[] = {".jsx", NULL};

/* The "+jsx" dialects come after the plain ones in javascript.grammar. */
static int lg__jsx_grammar_version(int version)
{
    return version + 2;
}

const lg_language lg_javascriptreact = {
    .name = "jsx",
    .title = "JavaScript JSX",
    .language_ids = lg__jsx_ids,
    .extensions = lg__jsx_extensions,
    .grammar = ep_grammar_source_javascript,
    .grammar_version = lg__jsx_grammar_version,
    .dialects = lg__js_dialects,
    .dialect_of = lg_js_dialect_of,
    .tree_sitter = tree_sitter_javascript,
    .scope_at = lg_jsx_scope_at,
    .escape_filter = lg_js_escape_filter,
    .lex_scan = lg_jsx_lex_scan,
    .middle_closed = lg_js_middle_closed,
    .line_enders_at = lg_jsx_line_enders_at,
    LG_JS_CONTEXT,
};
