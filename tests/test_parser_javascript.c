/* JavaScript's grammar (languages/javascript/) on seam's recognizer, with
 * automatic semicolon insertion (parser/asi.c) and the lexical goals:
 * what acorn 8.19 accepts and refuses, the blog's example among them. */
#include "seam_languages.h"
#include "seam_parser.h"
#include "test_support.h"

#include <string.h>

static ep_grammar *js_grammar(const char *dialect)
{
    const lg_language *js = lg_by_name("javascript");
    ep_grammar *g = NULL;
    char error[256];
    int rc = ep_grammar_compile_version(js->grammar, strlen(js->grammar), lg_dialect(js, dialect), &g, error,
                                        sizeof error);
    cr_assert_eq(rc, SM_OK, "%s", error);
    return g;
}

/* Whether left + middle + right is a complete program (the middle fed as
 * a completion's is, byte by byte, each prefix viable). */
static bool fim_complete(const ep_grammar *g, const char *left, const char *middle, const char *right)
{
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, left, strlen(left), right, strlen(right), &rec), SM_OK);
    bool ok = ep_viable(rec);
    for (size_t i = 0; ok && middle[i]; i++)
        ok = ep_feed(rec, middle + i, 1) == 1;
    ok = ok && ep_can_end(rec);
    ep_recognizer_free(rec);
    return ok;
}

static bool program(const ep_grammar *g, const char *text)
{
    return fim_complete(g, "", text, "");
}

/* Each of valid[0..nv) is a program, each of invalid[0..ni) is not. */
static void judge(const ep_grammar *g, const char *const *valid, size_t nv, const char *const *invalid, size_t ni)
{
    for (size_t i = 0; i < nv; i++)
        cr_assert(program(g, valid[i]), "%s", valid[i]);
    for (size_t i = 0; i < ni; i++)
        cr_assert_not(program(g, invalid[i]), "%s", invalid[i]);
}
#define JUDGE(g, valid, invalid) judge(g, valid, sizeof valid / sizeof *valid, invalid, sizeof invalid / sizeof *invalid)

Test(javascript, the_blogs_example)
{
    ep_grammar *g = js_grammar("script");
    const char *left = "function foo() {\nlet one = 1;\nlet two = ";
    const char *right = "\nlet four = 4;\n}\n";
    cr_assert(fim_complete(g, left, "2;", right));
    cr_assert(fim_complete(g, left, "2; let three = 3;", right));
    cr_assert(fim_complete(g, left, "2", right), "a semicolon inserted at the line break");
    cr_assert_not(fim_complete(g, left, "2; }", right));
    /* the offending-token rule is a condition on the left: "y(z) => 1" */
    cr_assert_not(fim_complete(g, "x = y", "", "\n(z) => 1"));
    cr_assert(fim_complete(g, "x = y", ";", "\n(z) => 1"));
    ep_grammar_free(g);
}

Test(javascript, automatic_semicolon_insertion)
{
    ep_grammar *g = js_grammar("script");
    static const char *const valid[] = {
        "a = 1\nb = 2", "{ a }", "{ a \n}", "function f() { return }", "function f() { return\n1 }",
        "a\n++b", "do x(); while (y) z()", "do {} while (false)", "x = y\n(z)", "var a = b\n[c].d",
        "if (a) b\nelse c", "a = b\n/re/g.test(c)", "let x\nx = 1", "throw e", "for (;;) {}",
        "label: for (;;) { break label\ncontinue }", "a = async\nfunction f() {}",
    };
    static const char *const invalid[] = {
        "a = 1 b = 2", "x = y\n(z) => 1", "f = (x)\n=> 1", "throw\ne", "for (a\nb) {}", "for (;\n) {}",
        "if (a) else b", "a\n++", "{ a b }", "a ++\nb ++ c", "var x = async\n(y) => 1",
    };
    JUDGE(g, valid, invalid);
    ep_grammar_free(g);
}

Test(javascript, lexical_goals_and_tokens)
{
    ep_grammar *g = js_grammar("script");
    static const char *const valid[] = {
        "a = b / c / d", "x = /ab+c/gi.test(s)", "x = a /= 2", "f(/[/]/)", "t = `a${b + `c${d}`}e`",
        "f`\\unicode`", "x = { a: `}` }", "x = 1_000n + 0x1Fn + .5e-3 + 0b1_0", "x = a?.b?.[c]?.(d)",
        "x = a ?.5 : 1", "x = a?.5:.5", "x = a ?.5e3 + b : c", "x = a?.\nb", "class A { #x = 1; static { this.y = 2 } get z() { return this.#x } }",
        "#!/usr/bin/env node\nx", "x = '\\u{1F600}\\x41'", "caf\xc3\xa9 = 1", "x = a ?? (b || c)",
        "x = (-a) ** b", "x = 010 + 08", "<!-- comment\nx", "with (a) {}",
    };
    static const char *const invalid[] = {
        "t = `\\unicode`", "x = /a/gg", "x = /(a/", "x = 1__0", "x = 0_1", "x = 1.5n", "x = 3in y",
        "x = a ?? b || c", "x = -a ** b", "x = '\\u{110000}'", "x = '\\u{41}\\\\\\u{110000}'", "x = 'a\nb'", "x = \\u0069f",
        "y\n#!/usr/bin/env node", "const a", "{a: 1, b: 2}", "x = a?.b`t`", "[1] = x", "x = a ? . b", "x = a ?. 5",
    };
    JUDGE(g, valid, invalid);
    ep_grammar_free(g);
}

Test(javascript, modules_and_scripts)
{
    ep_grammar *module = js_grammar("module");
    ep_grammar *script = js_grammar("script");
    static const char *const module_only[] = {
        "import x from 'y'", "export default function () {}", "export { a as b } from 'c' with { type: 'json' }",
        "x = import.meta.url",
    };
    for (size_t i = 0; i < sizeof module_only / sizeof *module_only; i++) {
        cr_assert(program(module, module_only[i]), "%s", module_only[i]);
        cr_assert_not(program(script, module_only[i]), "%s", module_only[i]);
    }
    static const char *const script_only[] = {"with (a) {}", "x = 010", "var let = 1", "<!-- c\nx", "yield = 1"};
    for (size_t i = 0; i < sizeof script_only / sizeof *script_only; i++) {
        cr_assert(program(script, script_only[i]), "%s", script_only[i]);
        cr_assert_not(program(module, script_only[i]), "%s", script_only[i]);
    }
    cr_assert(program(module, "await f()"), "top-level await");
    ep_grammar_free(module);
    ep_grammar_free(script);
}

Test(javascript, private_names_need_a_class_that_declares_them)
{
    ep_grammar *g = js_grammar("module");
    static const char *const valid[] = {
        "class A { m() { return this.#x } #x = 1 }", "class A { #x; static f(o) { return #x in o } }",
        "class A { #x; m() { return class { n() { return this.#x } } } }",
        "class A { get #v() { return 1 } set #v(x) {} m() { this.#v = 2 } }",
        "class A { static #s() {} static { A.#s() } }", "class A { #a\n#b = this.#a }",
    };
    static const char *const invalid[] = {
        "class A { m() { this.#y } }", "this.#x", "function f() { this.#x }", "{ class A { #x } this.#x }",
        "class A { m() { return class { #y } } n() { this.#y } }", "class A { #x } class B { m() { this.#x } }",
    };
    JUDGE(g, valid, invalid);
    /* refused once the class's closing brace is a token, not before */
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(g, &rec), SM_OK);
    const char *text = "class A { m() { this.#y } }";
    size_t fed = 0;
    while (text[fed] && ep_feed(rec, text + fed, 1) == 1)
        fed++;
    cr_assert_eq(fed, strlen(text), "every prefix viable: %zu", fed);
    cr_assert_not(ep_can_end(rec));
    cr_assert_eq(ep_feed(rec, "\n", 1), 0, "the brace, ended, closes the class with #y undeclared");
    ep_recognizer_free(rec);
    ep_grammar_free(g);
}

/* A name's characters past ASCII are ID_Start then ID_Continue (acorn):
 * a private name's first one too, and a character no name may hold is
 * refused where it is typed, not when the name ends. */
Test(javascript, names_hold_only_the_characters_names_may)
{
    ep_grammar *g = js_grammar("module");
    static const char *const valid[] = {
        "class A { #caf\xc3\xa9 = 1 }", "let a\xc2\xb7" "b = 1", "let \xe4\xb8\xad = 1",
        "let x = '\xef\xbc\x8c'", "x = 1;\xef\xbb\xbf", "let k\xe0\xa5\x8d = 1",
    };
    static const char *const invalid[] = {
        "class A { #\xcc\x80" "abc = 1 }", "let \xcc\x80" "abc = 1", "let a\xef\xbc\x8c" "b = 1",
        "x = \xe0\xa5\x8d",
    };
    JUDGE(g, valid, invalid);
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(g, &rec), SM_OK);
    cr_assert_eq(ep_feed(rec, "x = a", 5), 1);
    cr_assert_eq(ep_feed(rec, "\xef\xbc\x8c", 3), 0, "a full-width comma in a name, refused where typed");
    ep_recognizer_free(rec);
    ep_grammar_free(g);
}

Test(javascript, await_and_yield_by_the_function_around_them)
{
    ep_grammar *script = js_grammar("script");
    static const char *const valid[] = {
        "async function f() { await g() }", "function* g() { yield 1; yield* h() }",
        "var await = 1; await + 1", "function f() { var yield = 2; return yield }",
        "async function f() { function g() { var await = 3 } await g() }",
        "const f = async () => { await g() }", "const f = async x => await x",
        "class A { async m() { await 1 } *n() { yield 2 } static async *o() { yield await 3 } }",
        "async function f() { for await (const x of y) {} }", "x = { async m() { await 1 } }",
    };
    static const char *const invalid[] = {
        "function f() { await g() }", "await g()", "async function f() { var await = 1 }",
        "function* g() { var yield = 1 }", "function f() { yield 1 }",
        "async function f() { function g() { await h() } }", "const f = () => { await g() }",
        "async function f() { await , x }", "async function f() { await * x }",
        "class A { m() { await 1 } }", "class A { x = await 1 }",
    };
    JUDGE(script, valid, invalid);
    ep_grammar *module = js_grammar("module");
    static const char *const module_valid[] = {"await f()", "export const x = await y", "async function f() { await g() }"};
    static const char *const module_invalid[] = {"var await = 1", "function f() { await g() }", "yield = 1"};
    JUDGE(module, module_valid, module_invalid);
    ep_grammar_free(script);
    ep_grammar_free(module);
}
