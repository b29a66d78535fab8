/*
 * test_pylex.c - Python's lexical facts: prefixes and keywords by version,
 * and f- and t-strings read with the 3.12 tokenizer's modes.  The verdicts
 * below are CPython 3.12's, 3.13's and 3.14's (ast.parse in pyodide) on
 * the same strings; tests/corpus/version_check.py checks whole programs.
 */
#include "seam_pylex.h"
#include "test_support.h"

#include <string.h>

/* Reads `text` (prefix, quotes and what follows) with the scanner of
 * `version`: the offset where the string ends (the byte after its closing
 * quote), or -1 if it is refused, or -2 if the text runs out first.  The
 * outermost fields' expressions are copied to exprs (joined by '|'). */
static long scan_string(const char *text, int version, char *exprs, size_t exprs_size)
{
    size_t quote = 0;
    px_prefix pfx;
    if (!px_is_template_start(text, strlen(text), version, &quote))
        return -3;
    px_string_prefix(text, quote, version, &pfx);
    px_fscan scan;
    px_fscan_init(&scan, version);
    px_fscan_begin(&scan, &pfx, (uint32_t)quote);
    long result = -2;
    size_t len = strlen(text);
    while (scan.at < len) {
        int status = px_fscan_step(&scan, text);
        if (status == PX_FS_ERROR) {
            result = -1;
            break;
        }
        if (status == PX_FS_PAST) {
            result = scan.at;
            break;
        }
    }
    if (result == -2 && scan.frames.size == 0)
        result = (long)scan.at;
    if (exprs) {
        exprs[0] = '\0';
        for (uint32_t i = 0; i < scan.exprs.size; i++) {
            px_fs_expr e = scan.exprs.items[i];
            size_t used = strlen(exprs);
            snprintf(exprs + used, exprs_size - used, "%s%.*s", i ? "|" : "", (int)(e.end - e.start),
                     text + e.start);
        }
    }
    px_fscan_free(&scan);
    return result;
}

Test(pylex, string_prefixes_by_version)
{
    px_prefix p;
    cr_assert(px_string_prefix("rb", 2, 311, &p) && p.raw && p.bytes);
    cr_assert(px_string_prefix("Rf", 2, 312, &p) && p.raw && p.f);
    cr_assert(px_string_prefix("", 0, 312, &p) && !p.f);
    cr_assert(!px_string_prefix("t", 1, 313, &p), "t-strings came in 3.14");
    cr_assert(px_string_prefix("t", 1, 314, &p) && p.t);
    cr_assert(px_string_prefix("rT", 2, 314, &p) && p.t && p.raw);
    cr_assert(!px_string_prefix("ft", 2, 314, NULL));
    cr_assert(!px_string_prefix("bt", 2, 314, NULL));
    cr_assert(!px_string_prefix("ur", 2, 314, NULL));
    cr_assert(!px_string_prefix("ff", 2, 314, NULL));
    cr_assert(!px_string_prefix("x", 1, 314, NULL));
    cr_assert(px_is_template_start("f'", 2, 312, NULL));
    cr_assert(!px_is_template_start("f", 1, 312, NULL));
    cr_assert(!px_is_template_start("rb'", 3, 312, NULL));
    cr_assert(!px_is_template_start("t'", 2, 313, NULL));
}

Test(pylex, keywords_by_version)
{
    cr_assert(px_keyword("await", 5, 309));
    cr_assert(px_keyword("nonlocal", 8, 314));
    cr_assert(!px_keyword("match", 5, 314));
    cr_assert(!px_soft_keyword("match", 5, 309));
    cr_assert(px_soft_keyword("match", 5, 310));
    cr_assert(!px_soft_keyword("type", 4, 311));
    cr_assert(px_soft_keyword("type", 4, 312));
    /* the words that begin a compound statement or a clause */
    cr_assert(px_compound_keyword("async", 5, 311));
    cr_assert(px_compound_keyword("with", 4, 311));
    cr_assert(px_compound_keyword("finally", 7, 309));
    cr_assert(!px_compound_keyword("match", 5, 309));
    cr_assert(px_compound_keyword("match", 5, 310));
    cr_assert(!px_compound_keyword("lambda", 6, 314));
    cr_assert(!px_compound_keyword("iff", 3, 314));
    cr_assert(px_keyword_has_prefix("nonl", 4, 311));
    cr_assert(px_keyword_has_prefix("typ", 3, 312));
    cr_assert(!px_keyword_has_prefix("typ", 3, 311));
}

Test(pylex, where_an_fstring_ends_with_modes)
{
    char exprs[256];
    /* the same quote inside a field (PEP 701) */
    cr_assert_eq(scan_string("f\"{d[\"name\"]}\")", 312, exprs, sizeof exprs), 14);
    cr_assert_str_eq(exprs, "d[\"name\"]");
    /* nested f-strings with the same quotes */
    cr_assert_eq(scan_string("f\"{f\"{f\"{1}\"}\"}\" + x", 312, exprs, sizeof exprs), 16);
    cr_assert_str_eq(exprs, "f\"{f\"{1}\"}\"");
    /* a comment and line breaks in a field of a single-quoted string */
    cr_assert_eq(scan_string("f'{x # }'\n}'.", 312, exprs, sizeof exprs), 12);
    cr_assert_str_eq(exprs, "x # }'\n");
    /* conversions, "=" and nested format specs */
    cr_assert_eq(scan_string("f'{a!r:>{w}} {b = } {c!=d}'", 312, exprs, sizeof exprs), 27);
    cr_assert_str_eq(exprs, "a|w|b |c!=d");
    /* "{{" and "}}" are text; the empty string and the triple quote */
    cr_assert_eq(scan_string("f'{{x}}'y", 312, exprs, sizeof exprs), 8);
    cr_assert_str_eq(exprs, "");
    cr_assert_eq(scan_string("f''+", 312, NULL, 0), 3);
    cr_assert_eq(scan_string("f'''a''{x}'''.", 312, NULL, 0), 13);
    /* a backslash before a brace leaves the brace a field's */
    cr_assert_eq(scan_string("f'\\{x}'", 312, exprs, sizeof exprs), 7);
    cr_assert_str_eq(exprs, "x");
    cr_assert_eq(scan_string("t'{x}'", 314, exprs, sizeof exprs), 6);
    /* unfinished: the text runs out */
    cr_assert_eq(scan_string("f'{x", 312, NULL, 0), -2);
    cr_assert_eq(scan_string("f'{x!", 312, NULL, 0), -2);
}

Test(pylex, what_the_modes_refuse)
{
    const char *refused[] = {
        "f'}'",          /* a single "}" */
        "f'{x}}'",
        "f'a\n'",        /* a line break in a single-quoted string's text */
        "f'{x! r}'",     /* the conversion right after the "!" */
        "f'{x!rr}'",
        "f'{x!R}'",
        "f'{x!}'",
        "f'{x:{y:{z:{w}}}}'",  /* fields nested four deep */
        "f'{x:abc'",     /* the string's quote inside a format spec */
        "f'{x:{y}\n}'",  /* a line break in a spec after a field in it */
        "f'{a; b}'",     /* no statements in a field */
        "f'\\x4g'",      /* escapes in the text */
        "f'\\N{NO SUCH CHARACTER}'",
        "f'{x!r=}'",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        cr_assert_eq(scan_string(refused[i], 312, NULL, 0), -1, "%s", refused[i]);
}

Test(pylex, format_spec_line_breaks_by_version)
{
    /* 3.12 and 3.13 end a single-quoted string's spec at a line break; 3.14
     * refuses the line break */
    cr_assert_eq(scan_string("f'{x:\n}'", 312, NULL, 0), 8);
    cr_assert_eq(scan_string("f'{x:a\n # c\n}'", 313, NULL, 0), 14);
    cr_assert_eq(scan_string("f'{x:\n}'", 314, NULL, 0), -1);
    cr_assert_eq(scan_string("f'''{x:\n}'''", 314, NULL, 0), 12);
    cr_assert_eq(scan_string("f'{x:a\nb}'", 312, NULL, 0), -1);
    /* back in the regular mode after such a line break, "{" opens a field */
    cr_assert_eq(scan_string("f'{x:\n{y}\n{z}}'", 313, NULL, 0), 15);
    cr_assert_eq(scan_string("f'{x:\n{y}a}'", 312, NULL, 0), -1);
}

/* Up to 3.11 an f-string is one token its first closing quote ends; the
 * scan checks what 3.11 checks in it (CPython 3.11's verdicts). */
Test(pylex, what_311_refuses_in_fields)
{
    const char *refused[] = {
        "f'{x #}'",            /* no comment in an expression */
        "f'{\"\\n\"}'",        /* no backslash in one, even in a string */
        "f'{x:{y:{z}}}'",      /* fields two deep at most */
        "f'{x!r }'",           /* nothing between the conversion and "}" */
        "f'{x= #}'",
        "f'{x:\\N{NO SUCH NAME}}'",  /* \N{...} is an escape in a spec too */
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        cr_assert_eq(scan_string(refused[i], 311, NULL, 0), -1, "%s", refused[i]);
    char exprs[128];
    cr_assert_eq(scan_string("f'{\"#\"!r:{y}} {x = }'", 311, exprs, sizeof exprs), 21);
    cr_assert_str_eq(exprs, "\"#\"|y|x ");
    cr_assert_eq(scan_string("f'{x:\\N{EM DASH}}'", 311, NULL, 0), 18);
    cr_assert_eq(scan_string("f'{x:{y}}'", 310, NULL, 0), 10);
    /* the same strings, read as 3.12 does */
    cr_assert_eq(scan_string("f'{x!r }'", 312, NULL, 0), 9);
    cr_assert_eq(scan_string("f'{x:{y:{z}}}'", 312, NULL, 0), 14);
}

#define OPENS "((((((((((((((((((((((((((((((((((((((((((((((((((" \
    "((((((((((((((((((((((((((((((((((((((((((((((((((" \
    "((((((((((((((((((((((((((((((((((((((((((((((((((" \
    "(((((((((((((((((((((((((((((((((((((((((((((((((("
#define CLOSES "))))))))))))))))))))))))))))))))))))))))))))))))))" \
    "))))))))))))))))))))))))))))))))))))))))))))))))))" \
    "))))))))))))))))))))))))))))))))))))))))))))))))))" \
    "))))))))))))))))))))))))))))))))))))))))))))))))))"

/* "f'{" * n + "1" + "}'" * n. */
static char *nested_fstrings(int n)
{
    char *text = sm_malloc((size_t)n * 5 + 2);
    char *p = text;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "f'{");
    *p++ = '1';
    for (int i = 0; i < n; i++)
        p += sprintf(p, "}'");
    *p = '\0';
    return text;
}

/* CPython's limits from 3.12 on: a 150th f-string inside the others is
 * refused where it opens (so that 4,800 of them cost no more than 150),
 * and brackets count across fields and strings, from those around the
 * token on (200 open at most). */
Test(pylex, nesting_limits_of_fstrings)
{
    char *ok = nested_fstrings(149);
    cr_assert_eq(scan_string(ok, 312, NULL, 0), (long)strlen(ok));
    sm_free(ok);
    char *deep = nested_fstrings(4800);
    px_fscan scan;
    px_fscan_init(&scan, 314);
    px_prefix pfx;
    px_string_prefix(deep, 1, 314, &pfx);
    px_fscan_begin(&scan, &pfx, 1);
    int status = PX_FS_MORE;
    while (status == PX_FS_MORE)
        status = px_fscan_step(&scan, deep);
    cr_assert_eq(status, PX_FS_ERROR);
    cr_assert_eq(scan.at, 149 * 3 + 1, "refused at the 150th string's quote, not at %u", scan.at);
    px_fscan_free(&scan);
    sm_free(deep);
    /* one field's brace and 199 parentheses: 200 open; one more is refused */
    char text[512];
    snprintf(text, sizeof text, "f'{%.*s1%.*s}'", 199, OPENS, 199, CLOSES);
    cr_assert_eq(scan_string(text, 313, NULL, 0), (long)strlen(text));
    snprintf(text, sizeof text, "f'{%.*s1%.*s}'", 200, OPENS, 200, CLOSES);
    cr_assert_eq(scan_string(text, 313, NULL, 0), -1);
    /* with brackets open around the string */
    px_fscan_init(&scan, 312);
    px_string_prefix("f", 1, 312, &pfx);
    px_fscan_begin(&scan, &pfx, 1);
    scan.outer_brackets = 200;
    const char *field = "f'{1}'";
    status = PX_FS_MORE;
    while (status == PX_FS_MORE)
        status = px_fscan_step(&scan, field);
    cr_assert_eq(status, PX_FS_ERROR, "the field's brace is the 201st");
    px_fscan_free(&scan);
}

/* A format spec's escapes and braces, from 3.12 on (CPython's verdicts in
 * the comment above the file). */
Test(pylex, format_spec_escapes_and_braces)
{
    cr_assert_gt(scan_string("f'{a:\\N{BULLET}}'", 312, NULL, 0), 0, "\\N{...} is an escape in a spec");
    cr_assert_eq(scan_string("f'{a:\\N{NOT A NAME}}'", 312, NULL, 0), -1);
    cr_assert_eq(scan_string("rf'{a:\\N{BULLET}}'", 312, NULL, 0), -1, "3.12 decodes a raw spec");
    cr_assert_eq(scan_string("rf'{a:\\x4}'", 313, NULL, 0), -1, "3.13 decodes a raw spec");
    cr_assert_gt(scan_string("rf'{a:\\N{BULLET}}'", 314, NULL, 0), 0, "3.14 does not");
    cr_assert_gt(scan_string("rf'{a:\\x4}'", 314, NULL, 0), 0);
    cr_assert_gt(scan_string("f'{a:{b}{{}'", 312, NULL, 0), 0, "after a field, {{ is text");
    cr_assert_lt(scan_string("f'{a:{{}'", 312, NULL, 0), 0, "before one, { opens a field");
    cr_assert_eq(scan_string("F\"{y:{{}}{{}} }\"", 313, NULL, 0), -1);
}
