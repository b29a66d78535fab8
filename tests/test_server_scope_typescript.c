/*
 * TypeScript's scope rules: JavaScript's (languages/javascript/scope.c) on
 * tree-sitter-typescript's tree, whose type literals, interfaces and enums
 * hold members, not statements.
 */
#include "seam_server.h"
#include "test_support.h"

#include <string.h>

SEAM_SUITE(scope_typescript);

#define TS lg_by_name("typescript")
#define CURSOR "<|>"

/* The context escape's verdict within the scope's own line budget. */
static bool escape_ok(const lg_scope *sc, const char *middle, size_t len, bool at_end)
{
    return srv_escape_filter((void *)sc, middle, len, at_end, sc->max_lines);
}

/* The scope at the cursor mark in `marked`, read as `language`. */
static lg_scope scope_of(const lg_language *language, const char *marked)
{
    const char *at = strstr(marked, CURSOR);
    cr_assert_not_null(at);
    size_t offset = (size_t)(at - marked);
    static char text[4096];
    snprintf(text, sizeof text, "%.*s%s", (int)offset, marked, at + strlen(CURSOR));
    srv_tree *tree = srv_tree_new(language, text, strlen(text));
    cr_assert_not_null(tree, "%s's tree-sitter grammar loads", language->name);
    lg_scope sc;
    srv_scope_at(language, tree, text, strlen(text), offset, true, 6, &sc);
    srv_tree_free(tree);
    cr_assert_eq(sc.language, language);
    return sc;
}

static lg_scope ts_scope(const char *marked)
{
    return scope_of(TS, marked);
}

Test(scope_typescript, a_function_body_takes_statements_and_an_interface_members)
{
    lg_scope sc = ts_scope("function f(x: number): string {\n  let a: number = 1;\n  " CURSOR "\n}\n");
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 6);
    sc = ts_scope("interface Point {\n  x: number;\n  " CURSOR "\n}\n");
    cr_assert_neq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    /* the tree's word: after "=>" the lexical reading takes the brace for
     * an arrow's body, not a function type's object type */
    sc = ts_scope("let f: (x: number) => {\n  a: number;\n  " CURSOR "\n};\n");
    cr_assert_neq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    sc = ts_scope("enum Color {\n  Red,\n  " CURSOR "\n}\n");
    cr_assert_neq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    sc = ts_scope("class A {\n  private x: number;\n  " CURSOR "\n}\n");
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "a class body: %s", lg_scope_kind_name(sc.kind));
}

Test(scope_typescript, a_line_being_typed_takes_its_rest)
{
    lg_scope sc = ts_scope("function f(): void {\n  const m: Map<string, number> = " CURSOR "\n  g();\n}\n");
    cr_assert_eq(sc.kind, LG_SCOPE_LINE, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 1);
}

Test(scope_typescript, a_line_being_typed_does_not_close_its_block)
{
    lg_scope sc = ts_scope("function f(issue: Issue): string {\n  if (issue.ok) {\n    const adj" CURSOR);
    cr_assert_not(escape_ok(&sc, "}", 1, false), "the block the line's statement is in");
    cr_assert(escape_ok(&sc, " = 1;", 5, false));
    sc = ts_scope("export default function () {\n  return (issue) => {\n    switch (issue.code) {\n"
                  "      case \"invalid_type\":\n        return `${issue.expected}, ${parsedType(issue.input)}`;\n"
                  "      case \"too_big\": {\n        const adj" CURSOR);
    cr_assert_not(escape_ok(&sc, "}", 1, false), "the case's block");
    /* a member typed in an interface or an enum stays in its body (a type
     * literal's may close it: "{ a: string }" on the line is usual) */
    sc = ts_scope("interface Request {\n  timeout: number;\n  user?:" CURSOR);
    cr_assert_not(escape_ok(&sc, " string}", 8, false), "the interface's body");
    cr_assert(escape_ok(&sc, " string;", 8, false));
    sc = ts_scope("enum Color {\n  Red,\n  Gre" CURSOR);
    cr_assert_not(escape_ok(&sc, "en }", 4, false), "the enum's body");
    /* A type literal or an object written a member to a line closes on a
     * line of its own; one that opens on its first member's line may close
     * on its last. */
    sc = ts_scope("let p: {\n  a: string;\n  b:" CURSOR);
    cr_assert_not(escape_ok(&sc, " number }", 9, false), "a type literal's lines");
    cr_assert(escape_ok(&sc, " number;", 8, false));
    sc = ts_scope("const options = {\n  mode: \"range\",\n  mo" CURSOR);
    cr_assert_not(escape_ok(&sc, "de }", 4, false), "an object's lines");
    sc = ts_scope("let p: { a: string;\n  b:" CURSOR);
    cr_assert(escape_ok(&sc, " number }", 9, false), "a type literal opened on a member's line");
}

/* TSX (the tsx row): tree-sitter-typescript's tsx grammar, and JSX's
 * lexical reading: among an element's children the rest of the element,
 * on an empty line as many lines as it takes; in a tag, the rest of it. */
static lg_scope tsx_scope(const char *marked)
{
    return scope_of(lg_by_name("tsx"), marked);
}

Test(scope_typescript, tsx_children_and_tags)
{
    lg_scope sc = tsx_scope("export function A() {\n  return (\n    <ul>\n      " CURSOR "\n    </ul>\n  );\n}\n");
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 6, "an empty line among the children");
    cr_assert(sc.lex.jsx);
    sc = tsx_scope("export function A() {\n  return <p className=\"x\" " CURSOR "/>;\n}\n");
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 1);
    sc = tsx_scope("export function A() {\n  return (\n    <p\n      className=\"x\"\n      " CURSOR "\n    />\n  );\n}\n");
    cr_assert_eq(sc.max_lines, 6, "an empty line among a tag's attributes");
    /* a quote in a child's text is text: the line's statement is code again */
    sc = tsx_scope("export function A() {\n  const a = <p>Don't</p>;\n  " CURSOR "\n}\n");
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    /* TypeScript's own row reads no JSX */
    cr_assert_not(ts_scope("let a = 1;\n" CURSOR "\n").lex.jsx);
}
