/*
 * languages.c - seam's built-in grammars, compiled from the grammar files
 * that the build embeds (parser/grammars/).
 */
#include "ep_grammar.h"

extern const char ep_grammar_source_python[];
extern const size_t ep_grammar_source_python_len;

int ep_grammar_python(ep_grammar **out, char *error, size_t error_size)
{
    return ep_grammar_compile(ep_grammar_source_python, ep_grammar_source_python_len, out, error, error_size);
}
