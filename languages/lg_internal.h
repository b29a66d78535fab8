/* The registry's rows, one per language folder. */
#ifndef SEAM_LG_INTERNAL_H
#define SEAM_LG_INTERNAL_H

#include "seam_languages.h"

extern const lg_language lg_python;
extern const lg_language lg_javascript;

/* JavaScript's token checks (javascript/lexical.c, javascript/regex.c). */
bool lg_js_identifier_valid(const char *text, size_t len);
bool lg_js_string_valid(const char *text, size_t len);
bool lg_js_template_valid(const char *text, size_t len);
bool lg_js_regex_valid(const char *text, size_t len);
int lg_js_dialect_of(const char *path, const char *text, size_t len);
void lg_js_shape_scan(lg_shape *shape, const char *text, size_t len);
bool lg_js_middle_closed(const lg_shape *at, const char *middle, size_t len, bool rest_blank);

#endif
