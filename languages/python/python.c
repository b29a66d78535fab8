/*
 * python.c - Python's row of the registry: how its documents are told.
 * Its folder holds the rest: its grammar (python.grammar, compiled by
 * version), its lexical facts (lex/) and rules (lexical.c), its strings'
 * fields (fields.c, compiled into the parser), its scope rules (scope.c),
 * which version a project is for and the environment that runs it
 * (environment.c), and its semantic pruners (semantic/).
 */
#include "lg_internal.h"
#include "seam_python.h"

static const char *const lg__python_ids[] = {"python", NULL};
static const char *const lg__python_extensions[] = {".py", ".pyi", ".pyw", NULL};
static const char *const lg__python_interpreters[] = {"python", "python3", "pypy", "pypy3", NULL};

extern const char ep_grammar_source_python[];

/* what a definition starts with, for the project's other files as context */
static const char *const lg__py_definers[] = {"def", "class", NULL};
static const char *const lg__py_definer_modifiers[] = {"async", NULL};

const lg_language lg_python = {
    .name = "python",
    .title = "Python",
    .language_ids = lg__python_ids,
    .extensions = lg__python_extensions,
    .interpreters = lg__python_interpreters,
    .grammar = ep_grammar_source_python,
    .oldest_version = 309,
    .newest_version = 314,
    .default_version = 311,   /* CPython 3.11: the corpus checks' reference */
    .choose_version = py_choose_version,
    .corpus_found = py_find_stdlib,
    .tree_sitter = tree_sitter_python,
    .scope_at = lg_py_scope_at,
    .escape_filter = lg_py_escape_filter,
    .lex_scan = lg_py_lex_scan,
    .middle_closed = lg_py_middle_closed,
    .semantic = true,
    .line_comment = "#",
    .definers = lg__py_definers,
    .definer_modifiers = lg__py_definer_modifiers,
    .imports = lg_py_imports,
};
