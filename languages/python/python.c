/*
 * python.c - Python's row of the registry: how its documents are told, and
 * its scope rules (scope.c).  Its grammar is python.grammar, compiled by
 * version.
 */
#include "lg_internal.h"

static const char *const lg__python_ids[] = {"python", NULL};
static const char *const lg__python_extensions[] = {".py", ".pyi", ".pyw", NULL};
static const char *const lg__python_interpreters[] = {"python", "python3", "pypy", "pypy3", NULL};

const lg_language lg_python = {
    .name = "python",
    .language_ids = lg__python_ids,
    .extensions = lg__python_extensions,
    .interpreters = lg__python_interpreters,
    .tree_sitter = tree_sitter_python,
    .scope_at = lg_py_scope_at,
    .escape_filter = lg_py_escape_filter,
    .lex_scan = lg_py_lex_scan,
    .middle_closed = lg_py_middle_closed,
    .semantic = true,
};
