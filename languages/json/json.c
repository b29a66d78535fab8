/*
 * json.c - JSON's row of the registry: one grammar (json.grammar), no
 * versions or dialects, no scope rules of its own (a completion takes the
 * rest of a line, or members and elements on an empty line).  Its lexical
 * reading of a line being typed is JavaScript's (strings and brackets: a
 * JSON text lexes as a JavaScript one does), reused, not copied.
 */
#include "lg_internal.h"

static const char *const lg__json_ids[] = {"json", NULL};
static const char *const lg__json_extensions[] = {".json", NULL};
static const char *const lg__json_interpreters[] = {NULL};
/* a finished line's member or element may be followed by one of these */
static const char *const lg__json_line_enders[] = {",", "}", "]", NULL};

extern const char ep_grammar_source_json[];

const lg_language lg_json = {
    .name = "json",
    .title = "JSON",
    .language_ids = lg__json_ids,
    .extensions = lg__json_extensions,
    .interpreters = lg__json_interpreters,
    .grammar = ep_grammar_source_json,
    .lex_scan = lg_js_lex_scan,
    .middle_closed = lg_js_middle_closed,
    .line_enders = lg__json_line_enders,
};
