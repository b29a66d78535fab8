/* TypeScript's grammar (languages/typescript/, extending JavaScript's) on
 * seam's recognizer: what TypeScript 6.0.3's parser reads without a
 * diagnostic and what it refuses, the issue's examples among them, and
 * the grammar-file mechanics it rests on (a grammar extending another's,
 * lenient %functions, the chart kept before a function body's marker). */
#include "ep_grammar.h"
#include "seam_languages.h"
#include "seam_parser.h"
#include "test_support.h"
#include "test_grammars.h"

#include <string.h>

static ep_grammar *ts_grammar(void)
{
    ep_grammar *g = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("typescript"), 0, &g, error, sizeof error), SM_OK, "%s", error);
    return g;
}

static void judge(const ep_grammar *g, const char *const *valid, size_t nv, const char *const *invalid, size_t ni)
{
    for (size_t i = 0; i < nv; i++)
        cr_assert(test_program(g, valid[i]), "%s", valid[i]);
    for (size_t i = 0; i < ni; i++)
        cr_assert_not(test_program(g, invalid[i]), "%s", invalid[i]);
}
#define JUDGE(g, valid, invalid) judge(g, valid, sizeof valid / sizeof *valid, invalid, sizeof invalid / sizeof *invalid)

Test(typescript, the_issues_examples_at_every_byte)
{
    ep_grammar *g = ts_grammar();
    static const char *const valid[] = {
        "let x: Map<string, number[]> = new Map<string, number[]>();",
        "if (a < b && c > d) {}",
        "const f = <T,>(x: T) => x;",
    };
    bool complete;
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        cr_assert_eq(test_accepted(g, valid[i], &complete), strlen(valid[i]), "%s", valid[i]);
        cr_assert(complete, "%s", valid[i]);
    }
    cr_assert_eq(test_accepted(g, "let x: = 1;", &complete), strlen("let x: "), "refused at '='");
    ep_grammar_free(g);
}

Test(typescript, types_declarations_and_expressions)
{
    ep_grammar *g = ts_grammar();
    static const char *const valid[] = {
        "type M = { -readonly [K in keyof T as `get${K}`]-?: T[K] };",
        "type F = T extends (...a: any) => infer R ? R : never;",
        "type C<T> = T extends (infer U extends string)[] ? U : never;",
        "type Equals<X, Y> = (<V>() => V extends X ? 1 : 2) extends <V>() => V extends Y ? 1 : 2 ? true : false;",
        "type T = [a: string, b?: number, ...rest: boolean[]];",
        "type T = A<B<C<D<E>>>>;",
        "function f<T extends Array<string>>(this: X, a?: number, ...r: string[]): asserts a is string {}",
        "class A<in out T> extends B<C> implements D { constructor(private readonly x: number) { super(); } "
        "abstract m(): void; static #y?: string; [k: string]: any; declare z: number; }",
        "@dec export abstract class A { @dec() m(@p x) {} }",
        "enum E { A = 1, B, }\nconst enum F {}\ndeclare module \"x\";\nnamespace A.B { export import c = d.e; }",
        "import type { A } from \"b\";\nimport x = require(\"y\");\nexport = x;\nexport as namespace X;",
        "let x = y as unknown as Array<Z>; let v = <Array<string>>w; a!.b!!.c = d satisfies E;",
        "f<A, () => { a: number }>(true);",
        "let x: A<B>= y;",
        "function f(): void;\nfunction f(x?) {}",
        /* what the parser leaves to its checker */
        "await x; f() = 1; const y; with (a) {} return 1; /a/gg; import z from +\"y\"; let o = { a!: 1 };",
        "function f<T extends Record<string, ObservableInput<any>>>() {}",
        "type T = { [K in X]: T; a: string };",
        "let o = { #value: 3, label: \"April\" };",
        "let o = { m(a); }; let p = { m(a) }; let q = { m(a)\n, n: 1 };",
    };
    static const char *const invalid[] = {
        "let x: = 1;",
        "var x = 010;",
        "\"\\1\";",
        "<!-- comment",
        "let v: { a b };",
        "x as any = 1;",
        "a + b = 1;",
        "-a ** b;",
        "@x.y[0] class A {}",
        "class A { static @dec x; }",
        "f<T>.x;",
        "async function f() { await; }",
        "x = y as T < z;",
        "let o = { m(a), n: 1 };",
        "let o = { m(a); n: 1 };",
    };
    JUDGE(g, valid, invalid);
    ep_grammar_free(g);
}

Test(typescript, the_chart_before_a_body_marker_keeps_an_object_type)
{
    /* "() => {" is an arrow's body, and in type arguments an object type:
     * the lenient %functions keep both readings */
    ep_grammar *g = ts_grammar();
    cr_assert(test_program(g, "x = f<A, () => { a: number }>(true);"));
    cr_assert(test_program(g, "x = f < A, () => { return a }"));
    ep_grammar_free(g);
}

Test(grammar, an_extending_grammar_replaces_and_drops_the_bases_definitions)
{
    const char *base = "A: \"a\"\nB: \"b\"\nstart: A rest\n     | B\nrest: B\n";
    const char *ext = "%drop B\nstart: A A\n";
    sm_buf out;
    sm_buf_init(&out, 1024);
    char error[256];
    cr_assert_eq(ep_grammar_extend(base, strlen(base), ext, strlen(ext), &out, error, sizeof error), SM_OK, "%s",
                 error);
    cr_assert(strstr(out.data, "B: \"b\"") == NULL, "dropped");
    cr_assert(strstr(out.data, "| B") == NULL, "the replaced rule's continuation lines go too");
    cr_assert(strstr(out.data, "start: A A") != NULL);
    cr_assert(strstr(out.data, "rest: B") != NULL, "what is not named stays");
    cr_assert(strstr(out.data, "%drop") == NULL);
    sm_buf_free(&out);
}
