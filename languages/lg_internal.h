/* The registry's rows, one per language folder. */
#ifndef SEAM_LG_INTERNAL_H
#define SEAM_LG_INTERNAL_H

#include "seam_base.h"
#include "seam_languages.h"

#include <tree_sitter/api.h>

extern const lg_language lg_python;
extern const lg_language lg_javascript;
extern const lg_language lg_json;
extern const lg_language lg_typescript;
extern const lg_language lg_javascriptreact;
extern const lg_language lg_typescriptreact;
extern const lg_lexical lg_python_lexical;
/* Python's scanner of f- and t-strings (python/fields.c, compiled into the
 * parser: parser/ep_fields.h). */
extern const struct lg_fields lg_python_fields;
extern const lg_lexical lg_javascript_lexical;

/* What a JavaScript lexical state is in (lg_lex.in); a quote's string is
 * its quote. */
enum { LG_CODE = 0, LG_LINE_COMMENT = 'c', LG_BLOCK_COMMENT = 'C', LG_REGEX = '/', LG_TEMPLATE = '`' };
/* ... and with JSX: in a tag, an attribute's string (its quote then is
 * jsx_quote), a child's text; the frames of lg_lex's JSX stack. */
enum { LG_JSX_TAG = 't', LG_JSX_STRING = 's', LG_JSX_TEXT = 'x' };
enum { LG_JSX_ELEMENT = 1, LG_JSX_IN_TAG, LG_JSX_IN_TEXT };

/* JavaScript's token checks (javascript/lexical.c, javascript/regex.c). */
bool lg_js_identifier_valid(const char *text, size_t len);
bool lg_js_string_valid(const char *text, size_t len);
/* A string's escapes as strict code has them (TypeScript's, in any file). */
bool lg_js_string_strict_valid(const char *text, size_t len);
bool lg_js_template_valid(const char *text, size_t len);
bool lg_js_regex_valid(const char *text, size_t len);
int lg_js_dialect_of(const char *path, const char *text, size_t len);
bool lg_js_has_jsx(const char *text, size_t len);
void lg_js_lex_scan(lg_lex *lex, const char *text, size_t len);
/* One step of that scan from text[at]; returns where the next starts. */
size_t lg_js_lex_step(lg_lex *lex, const char *text, size_t len, size_t at);
bool lg_js_middle_closed(const lg_lex *at, const char *middle, size_t len, bool rest_blank);
/* What may follow a finished line's statement, property, argument or
 * element (javascript/javascript.c; TypeScript's too). */
extern const char *const lg_js_line_enders[];
/* The JavaScript rows' reading for the project's other files as context
 * (TypeScript's rows share it). */
extern const char *const lg_js_definers[];
extern const char *const lg_js_definer_modifiers[];
#define LG_JS_CONTEXT                                                                                      \
    .line_comment = "//", .definers = lg_js_definers, .definer_modifiers = lg_js_definer_modifiers,       \
    .imports = lg_js_imports
/* JSX's lexical reading (javascript/jsx_shape.c): JavaScript's, with
 * elements' tags and text. */
void lg_jsx_lex_scan(lg_lex *lex, const char *text, size_t len);
/* What may follow a finished line: JavaScript's line enders, and in an
 * element's tag its end. */
const char *const *lg_jsx_line_enders_at(const lg_lex *end);
/* Whether an operand may start after code whose last character is prev
 * (javascript/shape.c: a "/" there starts a regular expression). */
bool lg_js_operand_may_start(uint8_t prev);
bool lg_jsx_tag_start(lg_lex *s, const char *text, size_t len, size_t at);
size_t lg_jsx_lex_step(lg_lex *s, const char *text, size_t len, size_t at);
bool lg_jsx_code_brace(lg_lex *s);
void lg_js_scope_at(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                    uint32_t max_lines, lg_scope *out);
/* ... and with JSX's lexical reading (elements' tags and text). */
void lg_jsx_scope_at(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                     uint32_t max_lines, lg_scope *out);
bool lg_js_escape_filter(const lg_scope *scope, const char *middle, size_t len, bool at_end, uint32_t max_lines);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);

/* Python's scope rules and lexical reading (python/scope.c). */
void lg_py_lex_scan(lg_lex *lex, const char *text, size_t len);
bool lg_py_middle_closed(const lg_lex *at, const char *middle, size_t len, bool rest_blank);
void lg_py_scope_at(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                    uint32_t max_lines, lg_scope *out);
bool lg_py_escape_filter(const lg_scope *scope, const char *middle, size_t len, bool at_end, uint32_t max_lines);
const TSLanguage *tree_sitter_python(void);

/* The import readers' shared part (imports.c): a reading of one text's
 * imports.  lg_imports_try gives `path` to `found` when it is a regular
 * file inside the workspace not given before (true then, or when given
 * before); at most LG_IMPORTS_MAX files a text. */
#define LG_IMPORTS_MAX 64
typedef struct lg_imports {
    char *root;                 /* owned: the workspace, links resolved; NULL: none */
    lg_import_cb found;
    void *data;
    SM_ARRAY(char *) seen;      /* owned strings */
} lg_imports;
void lg_imports_begin(lg_imports *im, const char *root, lg_import_cb found, void *data);
bool lg_imports_try(lg_imports *im, const char *path);
void lg_imports_end(lg_imports *im);
/* The languages' readers: Python's (python/imports.c) and JavaScript's,
 * TypeScript's too (javascript/imports.c). */
void lg_py_imports(const char *text, size_t len, const char *dir, const char *root, lg_import_cb found, void *data);
void lg_js_imports(const char *text, size_t len, const char *dir, const char *root, lg_import_cb found, void *data);

#endif
