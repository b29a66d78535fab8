/*
 * languages.c - compiling a grammar file for one version or dialect, and
 * Python's grammar by version (its file is languages/python/python.grammar,
 * embedded by the languages library).
 */
#include "ep_grammar.h"

#include <stdio.h>

extern const char ep_grammar_source_python[];
extern const size_t ep_grammar_source_python_len;

int ep_grammar_compile_version(const char *source, size_t len, int version, ep_grammar **out, char *error,
                               size_t error_size)
{
    *out = NULL;
    sm_buf selected;
    sm_buf_init(&selected, len + 1);
    int rc = ep_grammar_select(source, len, version, &selected, error, error_size);
    if (rc == SM_OK)
        rc = ep_grammar_compile(selected.data ? selected.data : "", selected.len, out, error, error_size);
    if (rc == SM_OK)
        (*out)->python_version = version;
    sm_buf_free(&selected);
    return rc;
}

int ep_grammar_python_version(int version, ep_grammar **out, char *error, size_t error_size)
{
    if (version < EP_PYTHON_OLDEST || version > EP_PYTHON_NEWEST) {
        *out = NULL;
        snprintf(error, error_size, "seam knows Python 3.%d to 3.%d, not %d.%d", EP_PYTHON_OLDEST % 100,
                 EP_PYTHON_NEWEST % 100, version / 100, version % 100);
        return SM_EINVAL;
    }
    return ep_grammar_compile_version(ep_grammar_source_python, ep_grammar_source_python_len, version, out, error,
                                      error_size);
}

int ep_grammar_python(ep_grammar **out, char *error, size_t error_size)
{
    return ep_grammar_python_version(311, out, error, error_size);
}
