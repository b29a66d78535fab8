/* The registry of languages (languages/): which language a document is in. */
#include "seam_languages.h"
#include "test_support.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

Test(languages, by_name_and_language_id)
{
    const lg_language *python = lg_by_name("python");
    cr_assert_not_null(python);
    cr_assert_str_eq(python->name, "python");
    cr_assert_eq(lg_by_language_id("python"), python);
    const lg_language *js = lg_by_name("javascript");
    cr_assert_not_null(js);
    cr_assert_eq(lg_by_language_id("javascript"), js);
    cr_assert_null(lg_by_name("rust"));
    cr_assert_null(lg_by_language_id("plaintext"));
    cr_assert_null(lg_by_name(NULL));
    cr_assert_null(lg_by_language_id(NULL));
    size_t count = 0;
    for (const lg_language *const *l = lg_languages(); *l; l++)
        count++;
    cr_assert_eq(count, 6);
    char names[64];
    lg_names(names, sizeof names);
    cr_assert_str_eq(names, "python, javascript, json, typescript, jsx, tsx");
    const lg_language *json = lg_by_name("json");
    cr_assert_not_null(json);
    cr_assert_eq(lg_by_language_id("json"), json);
    cr_assert_null(lg_by_language_id("jsonc"), "JSON with comments is not JSON");
    cr_assert_eq(lg_index(python), 0);
    cr_assert_eq(lg_index(json), 2);
    const lg_language *ts = lg_by_name("typescript");
    cr_assert_not_null(ts);
    cr_assert_eq(lg_by_language_id("typescript"), ts);
    cr_assert_eq(ts->base, lg_by_name("javascript"), "its grammar extends JavaScript's");
    const lg_language *jsx = lg_by_language_id("javascriptreact"), *tsx = lg_by_language_id("typescriptreact");
    cr_assert_eq(jsx, lg_by_name("jsx"));
    cr_assert_eq(tsx, lg_by_name("tsx"));
    cr_assert_eq(jsx->grammar, js->grammar, "JSX reads JavaScript's grammar file");
    cr_assert_eq(tsx->grammar, ts->grammar, "TSX reads TypeScript's grammar file");
    cr_assert_eq(lg_index(NULL), SIZE_MAX);
}

Test(languages, by_the_files_name)
{
    const lg_language *python = lg_by_name("python");
    cr_assert_eq(lg_by_file("/src/app.py", NULL, 0), python);
    cr_assert_eq(lg_by_file("stubs/os.pyi", NULL, 0), python);
    cr_assert_eq(lg_by_file("gui.pyw", "", 0), python);
    const lg_language *js = lg_by_name("javascript");
    cr_assert_eq(lg_by_file("blog.js", NULL, 0), js);
    cr_assert_eq(lg_by_file("lib/index.mjs", NULL, 0), js);
    cr_assert_eq(lg_by_file("lib/index.cjs", NULL, 0), js);
    const lg_language *ts = lg_by_name("typescript");
    cr_assert_eq(lg_by_file("types.ts", NULL, 0), ts);
    cr_assert_eq(lg_by_file("lib.dom.d.ts", NULL, 0), ts);
    cr_assert_eq(lg_by_file("index.mts", NULL, 0), ts);
    cr_assert_eq(lg_by_file("index.cts", NULL, 0), ts);
    cr_assert_eq(lg_by_file("src/App.jsx", NULL, 0), lg_by_name("jsx"));
    cr_assert_eq(lg_by_file("src/App.tsx", NULL, 0), lg_by_name("tsx"));
    cr_assert_eq(lg_by_file("pkg/package.json", NULL, 0), lg_by_name("json"));
    cr_assert_null(lg_by_file("tsconfig.jsonc", NULL, 0));
    cr_assert_null(lg_by_file("/a.py/Makefile", NULL, 0), "a dot in a folder's name is not the file's");
    cr_assert_null(lg_by_file(".py", NULL, 0), "a hidden file named .py has no ending");
    cr_assert_null(lg_by_file("notes.txt", NULL, 0));
    cr_assert_null(lg_by_file(NULL, NULL, 0));
}

Test(languages, by_the_hashbang_line)
{
    const lg_language *python = lg_by_name("python");
    static const char *const yes[] = {
        "#!/usr/bin/python3\nprint(1)\n", "#!/usr/bin/env python3\n", "#! /usr/bin/env python\n",
        "#!/usr/bin/env -S python3 -u\n", "#!/usr/local/bin/python3.12 -E\n", "#!/opt/pypy3/bin/pypy3",
        "#!/usr/bin/python3\r\nx = 1\r\n",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        cr_assert_eq(lg_by_file("tool", yes[i], strlen(yes[i])), python, "%s", yes[i]);
    static const char *const no[] = {
        "#!/bin/sh\nexec python3 \"$@\"\n", "# python3\n", "#!\n", "", "#!/usr/bin/env -S\n",
        "#!/usr/bin/pythonista\n",
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        cr_assert_null(lg_by_file("tool", no[i], strlen(no[i])), "%s", no[i]);
    cr_assert_eq(lg_by_file("tool", "#!/usr/bin/env node\n", 20), lg_by_name("javascript"));
    /* a #! line tells only for a name with no ending */
    cr_assert_eq(lg_by_file("x.js", "#!/usr/bin/python3\n", 19), lg_by_name("javascript"));
    cr_assert_null(lg_by_file("x.txt", "#!/usr/bin/python3\n", 19));
    cr_assert_eq(lg_by_file("/home/a.b/tool", "#!/usr/bin/python3\n", 19), python);
}

Test(languages, dialects_and_token_checks)
{
    const lg_language *js = lg_by_name("javascript");
    cr_assert_eq(lg_dialect(js, "script"), 1);
    cr_assert_eq(lg_dialect(js, "module"), 2);
    cr_assert_eq(lg_dialect(js, "commonjs"), 0);
    cr_assert_eq(lg_dialect(lg_by_name("python"), "module"), 0);
    cr_assert_null(lg_token_check_named("no_such_check"));

    lg_token_check id = lg_token_check_named("js_identifier");
    cr_assert(id("caf\xc3\xa9", 5));
    cr_assert(id("\\u0061b", 7), "an escaped letter");
    cr_assert(id("#priv", 5));
    cr_assert_not(id("\\u0069f", 7), "an escaped keyword is no identifier");
    cr_assert_not(id("\\u0031a", 7), "a digit may not start one");
    cr_assert_not(id("a\xe2\x82\xac", 4), "U+20AC is no identifier character");

    lg_token_check tpl = lg_token_check_named("js_template");
    cr_assert(tpl("`a\\n\\x41\\u{1F600}`", 19));
    cr_assert_not(tpl("`\\unicode`", 10), "an untagged template needs valid escapes");
    cr_assert_not(tpl("`\\01`", 6), "no octal escape in a template");
    cr_assert(tpl("`\\0`", 5));

    lg_token_check re = lg_token_check_named("js_regex");
    static const char *const good[] = {"/a+b*/gi", "/(?<y>\\d{4})-(?:x|y)/d", "/[a-z]{2,3}/v", "/(?i:ab)c/",
                                       "/a{/", "/(?=a)*/", "/[\\d-z]/", "/[\\x00-\\x2f]/", "/[\\cA-\\cZ]/",
                                       "/(?<y>a)\\k<y>/", "/\\k/", "/\\k<x>/"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        cr_assert(re(good[i], strlen(good[i])), "%s", good[i]);
    static const char *const bad[] = {"/a/gg", "/a/uv", "/a/x", "/(a/", "/a)/", "/a|*b/", "/a**/",
                                      "/a{3,2}/", "/[z-a]/", "/[a-\\x40]/", "/[\\u0062-a]/", "/(?<=a)+/", "/a{/u", "/(?x:a)/",
                                      "/(?<y>a)\\k<z>/", "/(?<y>a)\\k/", "/\\k<x>/u"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_not(re(bad[i], strlen(bad[i])), "%s", bad[i]);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

Test(languages, javascript_goal_as_node_decides)
{
    const lg_language *js = lg_by_name("javascript");
    char dir[64];
    seam_test_scratch(dir, "goal");
    char path[256], sub[256];
    snprintf(sub, sizeof sub, "%s/pkg", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    /* no package.json: module syntax decides */
    snprintf(path, sizeof path, "%s/pkg/a.js", dir);
    cr_assert_eq(js->dialect_of(path, "const x = require('y')\n", 23), 1);
    cr_assert_eq(js->dialect_of(path, "// tool\nimport x from 'y'\n", 26), 2);
    cr_assert_eq(js->dialect_of(path, "x = import('y')\n", 16), 1, "a dynamic import is no module syntax");
    cr_assert_eq(js->dialect_of(NULL, "export {}\n", 10), 2);
    /* the endings, whatever the text */
    snprintf(path, sizeof path, "%s/pkg/a.mjs", dir);
    cr_assert_eq(js->dialect_of(path, "x\n", 2), 2);
    snprintf(path, sizeof path, "%s/pkg/a.cjs", dir);
    cr_assert_eq(js->dialect_of(path, "import x from 'y'\n", 18), 1);
    /* the nearest package.json, above the file */
    snprintf(path, sizeof path, "%s/package.json", dir);
    write_file(path, "{\"name\": \"outer\", \"type\": \"module\"}");
    snprintf(path, sizeof path, "%s/pkg/a.js", dir);
    cr_assert_eq(js->dialect_of(path, "x\n", 2), 2);
    snprintf(path, sizeof path, "%s/pkg/package.json", dir);
    write_file(path, "{\"name\": \"inner\", \"exports\": {\"type\": \"module\"}}");
    snprintf(path, sizeof path, "%s/pkg/a.js", dir);
    /* the nearest one has no "type" (Node 20.19 on): the syntax decides,
     * whatever the outer one says */
    cr_assert_eq(js->dialect_of(path, "import x from 'y'\n", 18), 2, "module syntax in an untyped package");
    cr_assert_eq(js->dialect_of(path, "x\n", 2), 1, "no module syntax in an untyped package");
    snprintf(path, sizeof path, "%s/pkg/package.json", dir);
    write_file(path, "{\"name\": \"inner\", \"type\": \"commonjs\"}");
    snprintf(path, sizeof path, "%s/pkg/a.js", dir);
    cr_assert_eq(js->dialect_of(path, "import x from 'y'\n", 18), 1, "the nearest one types it commonjs");
    /* a FIFO named package.json is read as none, without waiting for a writer */
    snprintf(path, sizeof path, "%s/pkg/package.json", dir);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/pkg/a.js", dir);
    cr_assert_eq(js->dialect_of(path, "x\n", 2), 2, "past the FIFO, the outer package.json types it");
    seam_test_remove_tree(dir);
}

/* A .js file that holds JSX is read as JSX, as TypeScript's reader (VS
 * Code's) and Babel read it; comparisons, strings and comments with "<"
 * leave it JavaScript. */
Test(languages, a_js_file_holding_jsx_is_read_as_jsx)
{
    const lg_language *js = lg_by_name("javascript"), *jsx = lg_by_name("jsx");
    static const char *const with_jsx[] = {
        "export function App() {\n  return <div className=\"a\">{n}</div>;\n}\n",
        "const x = (\n  <Foo.Bar />\n);\n", "render(<App/>, root)\n", "const f = () => <>x</>;\n",
        "const a = ok && <p>don't</p>;\n",
    };
    static const char *const without[] = {
        "for (let i = 0; i < n; i++) {}\n", "if (a <b) f()\n", "const s = '<div>';\n",
        "// return <div>\nx = 1\n", "/* (<App/>) */ y\n", "const t = `<p>${x}</p>`;\n", "x = a<b>c\n",
        "f(a, b) <c\n",
    };
    for (size_t i = 0; i < sizeof with_jsx / sizeof *with_jsx; i++)
        cr_assert_eq(lg_read_as(js, with_jsx[i], strlen(with_jsx[i])), jsx, "%s", with_jsx[i]);
    for (size_t i = 0; i < sizeof without / sizeof *without; i++)
        cr_assert_eq(lg_read_as(js, without[i], strlen(without[i])), js, "%s", without[i]);
    cr_assert_eq(lg_read_as(lg_by_name("typescript"), with_jsx[0], strlen(with_jsx[0])), lg_by_name("typescript"),
                 "a .ts file never holds JSX");
    cr_assert_eq(lg_read_as(jsx, without[0], strlen(without[0])), jsx);
}

Test(languages, javascript_lines_being_typed)
{
    const lg_language *js = lg_by_name("javascript");
    cr_assert_not_null(js->lex_scan);
    static const struct {
        const char *before, *middle;
        bool closed;
    } cases[] = {
        {"x = f(", "a, b", true},            {"x = ", "f(", false},
        {"x = ", "'a", false},               {"x = 'it", "s", true},
        {"x = `a${", "b}`", true},           {"x = `a${", "{", false},
        {"x = a / 2; y = ", "/[(]/.test(s)", true},   /* a regular expression's "(" opens nothing */
        {"/* note ( */ x = ", "1", true},    {"x = 1 ", "// (", true},
        {"s = \"a\\\"(\"; y = ", "g(", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_lex at = {0};
        js->lex_scan(&at, cases[i].before, strlen(cases[i].before));
        cr_assert_eq(js->middle_closed(&at, cases[i].middle, strlen(cases[i].middle), true), cases[i].closed,
                     "%s|%s", cases[i].before, cases[i].middle);
    }
    lg_lex at = {0};
    js->lex_scan(&at, "x = 1 ", 6);
    cr_assert_not(js->middle_closed(&at, "// (", 4, false), "a comment that eats the rest of the line");
}

Test(languages, jsx_lines_being_typed)
{
    static const struct {
        const char *language, *before, *middle;
        bool closed;
    } cases[] = {
        {"jsx", "x = <p>", "Don't stop</p>;", true},        /* a quote in text opens nothing */
        {"tsx", "x = <p className=\"a\">", "a / b</p>", true},  /* nor a slash */
        {"jsx", "x = <p title='", "it\\'", false},           /* no escape in an attribute's string */
        {"jsx", "x = <ul>", "<li>", false},                   /* an element left open */
        {"jsx", "x = <ul>{items.map((i) => ", "<li key={i}>{i}</li>)}", true},
        {"jsx", "x = <a b={", "f(1)", true},                  /* code in a tag's braces */
        {"tsx", "const f = <T,>(x: T) => ", "x / 2", true},   /* a generic arrow, no tag */
        {"javascript", "x = a <", "b / 2", true},
        {"tsx", "function A() {\n  return <p className=\"x\">", "Don't stop</p>;", true},
        {"tsx", "x = a <", "b / 2", true},                    /* a comparison, no tag */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const lg_language *l = lg_by_name(cases[i].language);
        lg_lex at = {0};
        l->lex_scan(&at, cases[i].before, strlen(cases[i].before));
        cr_assert_eq(l->middle_closed(&at, cases[i].middle, strlen(cases[i].middle), true), cases[i].closed,
                     "%s: %s|%s", cases[i].language, cases[i].before, cases[i].middle);
    }
    /* in a tag the line may end with the tag's end; in code, as JavaScript's */
    const lg_language *tsx = lg_by_name("tsx");
    lg_lex tag = {0}, code = {0};
    static const char in_tag[] = "x = <p title=\"a\"", in_code[] = "x = m<string, number";
    tsx->lex_scan(&tag, in_tag, strlen(in_tag));
    tsx->lex_scan(&code, in_code, strlen(in_code));
    cr_assert_str_eq(tsx->line_enders_at(&tag)[0], ">");
    for (const char *const *e = tsx->line_enders_at(&code); *e; e++)
        cr_assert_str_neq(*e, ">", "a type argument list's \">\" is the person's to type");
    /* JavaScript's own reading takes the quote for a string's */
    const lg_language *js = lg_by_name("javascript");
    lg_lex at = {0};
    js->lex_scan(&at, "x = <p>", 7);
    cr_assert_not(js->middle_closed(&at, "Don't stop</p>;", 15, true));
    /* an attribute's string, once ended, leaves no literal open after the
     * element: the next line's bracket is code */
    const lg_language *jsx = lg_by_name("jsx");
    static const char after_string[] = "const c = <span className=\"x\"/>;\nif (a) {";
    lg_lex after = {0};
    jsx->lex_scan(&after, after_string, strlen(after_string));
    cr_assert_not(lg_lex_literal_open(&after), "no literal open after <span className=\"x\"/>");
    cr_assert_eq(after.depth, 1, "the if's brace is open");
}

/* ---- Imports: the workspace files a text names ---------------------------------- */

typedef struct found_files {
    char names[16][512];
    int count;
} found_files;

static void on_found(void *data, const char *path)
{
    found_files *f = data;
    if (f->count < 16)
        snprintf(f->names[f->count++], sizeof f->names[0], "%s", path);
}

static void write_tree_file(const char *root, const char *rel, const char *text)
{
    char path[1024], cmd[1200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Whether a found path ends with `rel`. */
static bool found_rel(const found_files *f, const char *rel)
{
    for (int i = 0; i < f->count; i++) {
        size_t n = strlen(f->names[i]), m = strlen(rel);
        if (n > m && strcmp(f->names[i] + n - m, rel) == 0 && f->names[i][n - m - 1] == '/')
            return true;
    }
    return false;
}

Test(languages, python_imports_are_the_workspaces_modules)
{
    char tmpl[] = "/tmp/seam-imports-XXXXXX";
    char *root = mkdtemp(tmpl);
    cr_assert_not_null(root);
    char ws[600], outside[600];
    snprintf(ws, sizeof ws, "%s/ws", root);
    snprintf(outside, sizeof outside, "%s/secret.py", root);
    write_tree_file(root, "secret.py", "x = 1\n");
    write_tree_file(ws, "pkg/__init__.py", "");
    write_tree_file(ws, "pkg/config.py", "def load(): pass\n");
    write_tree_file(ws, "pkg/sub/deep.py", "def deep(): pass\n");
    write_tree_file(ws, "src/lib2/mod.py", "def m(): pass\n");
    write_tree_file(ws, "app/helpers.py", "def h(): pass\n");
    write_tree_file(ws, "app/main.py", "");
    const char *text = "import os, pkg.config as c\n"
                       "from pkg.sub import deep\n"
                       "from lib2 import mod\n"
                       "    from . import helpers\n"
                       "from ... import secret\n"
                       "from numpy import array\n"
                       "x = 'import pkg'\n";
    const lg_language *py = lg_by_name("python");
    cr_assert_not_null(py->imports);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/app", ws);
    found_files f = {0};
    py->imports(text, strlen(text), dir, ws, on_found, &f);
    cr_assert(found_rel(&f, "pkg/config.py"));
    cr_assert(found_rel(&f, "pkg/sub/deep.py"));
    cr_assert(found_rel(&f, "src/lib2/mod.py"));
    cr_assert(found_rel(&f, "app/helpers.py"));
    cr_assert_not(found_rel(&f, "secret.py"), "a file outside the workspace is not the project's");
    for (int i = 0; i < f.count; i++)
        for (int k = i + 1; k < f.count; k++)
            cr_assert_str_neq(f.names[i], f.names[k], "each file once");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
    seam_test_check_leaks();
}

Test(languages, javascript_imports_resolve_as_node_and_typescript_do)
{
    char tmpl[] = "/tmp/seam-imports-XXXXXX";
    char *root = mkdtemp(tmpl);
    cr_assert_not_null(root);
    char ws[600];
    snprintf(ws, sizeof ws, "%s/ws", root);
    write_tree_file(root, "outside.js", "export const o = 1;\n");
    write_tree_file(ws, "src/util.ts", "export function f() {}\n");
    write_tree_file(ws, "src/view.tsx", "export const V = 1;\n");
    write_tree_file(ws, "src/plain.js", "module.exports = {};\n");
    write_tree_file(ws, "lib/index.js", "export default 1;\n");
    const char *text = "import { f } from './util.js';\n"
                       "import V from \"./view\";\n"
                       "const plain = require('./plain');\n"
                       "export * from '../lib';\n"
                       "const lazy = import('../../outside.js');\n"
                       "import React from 'react';\n";
    char dir[700];
    snprintf(dir, sizeof dir, "%s/src", ws);
    const char *rows[] = {"javascript", "typescript", "tsx", "jsx"};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const lg_language *lang = lg_by_name(rows[r]);
        cr_assert_not_null(lang, "%s", rows[r]);
        cr_assert_not_null(lang->imports, "%s", rows[r]);
        cr_assert_str_eq(lang->line_comment, "//");
        found_files f = {0};
        lang->imports(text, strlen(text), dir, ws, on_found, &f);
        cr_assert(found_rel(&f, "src/util.ts"), "%s: a TypeScript source imported by its output's name", rows[r]);
        cr_assert(found_rel(&f, "src/view.tsx"));
        cr_assert(found_rel(&f, "src/plain.js"));
        cr_assert(found_rel(&f, "lib/index.js"));
        cr_assert_eq(f.count, 4, "%s: %d files (nothing outside the workspace, no package)", rows[r], f.count);
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
    seam_test_check_leaks();
}
