/*
 * python.c - Python's row of the registry: how its documents are told.
 * (Its grammar, lexical rules and scope still live in parser/, pylex/ and
 * server/; they move here as the registry grows.)
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
    .scope = true,
    .semantic = true,
};
