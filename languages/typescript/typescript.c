/*
 * typescript.c - TypeScript's row of the registry.  Its grammar
 * (typescript.grammar) extends JavaScript's, read with the Script goal's
 * lines; its scope rules and its lexical reading of a line being typed are
 * JavaScript's (languages/javascript/scope.c, on tree-sitter-typescript's
 * tree, which names JavaScript's nodes as tree-sitter-javascript does),
 * reused, not copied.  TSX is a second row on the same grammar's "tsx"
 * dialect, read on JavaScript's "script+jsx" lines.
 */
#include "lg_internal.h"

static const char *const lg__ts_ids[] = {"typescript", NULL};
static const char *const lg__ts_extensions[] = {".ts", ".mts", ".cts", NULL};
static const char *const lg__ts_interpreters[] = {"ts-node", NULL};

extern const char ep_grammar_source_typescript[];

/* Every TypeScript file is read on JavaScript's Script goal's lines (the
 * grammar adds imports and exports): the first dialect. */
static int lg__ts_base_version(int version)
{
    (void)version;
    return 1;
}

/* Its grammar file's dialects: "ts", and "tsx" for the TSX row. */
static int lg__ts_dialect(int version)
{
    (void)version;
    return 1;
}

static int lg__tsx_dialect(int version)
{
    (void)version;
    return 2;
}

/* A .tsx file is read on the Script goal's lines with JSX's ("script+jsx"). */
static int lg__tsx_base_version(int version)
{
    (void)version;
    return 3;
}

const lg_language lg_typescript = {
    .name = "typescript",
    .title = "TypeScript",
    .language_ids = lg__ts_ids,
    .extensions = lg__ts_extensions,
    .interpreters = lg__ts_interpreters,
    .grammar = ep_grammar_source_typescript,
    .base = &lg_javascript,
    .base_version = lg__ts_base_version,
    .grammar_version = lg__ts_dialect,
    .tree_sitter = tree_sitter_typescript,
    .scope_at = lg_js_scope_at,
    .escape_filter = lg_js_escape_filter,
    .lex_scan = lg_js_lex_scan,
    .middle_closed = lg_js_middle_closed,
    .line_enders = lg_js_line_enders,
    LG_JS_CONTEXT,
};

static const char *const lg__tsx_ids[] = {"typescriptreact", NULL};
static const char *const lg__tsx_extensions[] = {".tsx", NULL};

const lg_language lg_typescriptreact = {
    .name = "tsx",
    .title = "TypeScript JSX",
    .language_ids = lg__tsx_ids,
    .extensions = lg__tsx_extensions,
    .grammar = ep_grammar_source_typescript,
    .base = &lg_javascript,
    .base_version = lg__tsx_base_version,
    .grammar_version = lg__tsx_dialect,
    .tree_sitter = tree_sitter_tsx,
    .scope_at = lg_jsx_scope_at,
    .escape_filter = lg_js_escape_filter,
    .lex_scan = lg_jsx_lex_scan,
    .middle_closed = lg_js_middle_closed,
    .line_enders_at = lg_jsx_line_enders_at,
    LG_JS_CONTEXT,
};
