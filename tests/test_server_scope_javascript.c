/*
 * JavaScript's scope rules (languages/javascript/scope.c): the shape a
 * completion takes, told by tree-sitter-javascript's tree and the lexical
 * reading, and where a middle must stay.
 */
#include "seam_server.h"
#include "test_support.h"

#include <string.h>

SEAM_SUITE(scope_javascript);

#define JS lg_by_name("javascript")
#define CURSOR "<|>"

/* The scope at CURSOR in `marked` (the marker removed), read with the
 * document's tree when `with_tree`, else with none (code being typed that
 * tree-sitter cannot read). */
static lg_scope js_scope(const char *marked, bool with_tree)
{
    const char *at = strstr(marked, CURSOR);
    cr_assert_not_null(at);
    size_t offset = (size_t)(at - marked);
    static char text[4096];
    snprintf(text, sizeof text, "%.*s%s", (int)offset, marked, at + strlen(CURSOR));
    srv_tree *tree = with_tree ? srv_tree_new(JS, text, strlen(text)) : NULL;
    if (with_tree)
        cr_assert_not_null(tree, "tree-sitter-javascript loads");
    lg_scope sc;
    srv_scope_at(JS, tree, text, strlen(text), offset, true, 6, &sc);
    srv_tree_free(tree);
    cr_assert_eq(sc.language, JS);
    return sc;
}

static bool stays(const lg_scope *sc, const char *middle)
{
    return srv_escape_filter((void *)sc, middle, strlen(middle), false, sc->max_lines);
}

/* Whether the filter lets the middle end as it is. */
static bool ends(const lg_scope *sc, const char *middle)
{
    return srv_escape_filter((void *)sc, middle, strlen(middle), true, sc->max_lines);
}

Test(scope_javascript, a_blocks_empty_line_takes_statements_on_many_lines)
{
    lg_scope sc = js_scope("function f() {\n  let a = 1;\n  " CURSOR "\n}\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 6);
    sc = js_scope("class A {\n  " CURSOR "\n}\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "a class body: %s", lg_scope_kind_name(sc.kind));
    sc = js_scope("const g = (x) => {\n" CURSOR "\n};\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "an arrow's body: %s", lg_scope_kind_name(sc.kind));
    sc = js_scope("let a = 1;\n" CURSOR "\nlet b = 2;\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_MODULE);
    cr_assert_eq(sc.max_lines, 6);
}

Test(scope_javascript, a_line_with_text_before_the_cursor_takes_its_rest)
{
    lg_scope sc = js_scope("function f() {\n  let two = " CURSOR "\n  let four = 4;\n}\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_LINE, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 1);
}

/* An object's brace is not a block's: the rest of an expression, on as
 * many lines as it runs when it opened on an earlier line. */
Test(scope_javascript, an_objects_empty_line_is_an_expression)
{
    lg_scope sc = js_scope("const o = {\n  a: 1,\n  " CURSOR "\n};\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION, "%s", lg_scope_kind_name(sc.kind));
    cr_assert_eq(sc.max_lines, 6);
    sc = js_scope("call(a, " CURSOR ");\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION);
    cr_assert_eq(sc.max_lines, 1, "the bracket opened on the cursor's line");
}

/* Where the brace's role cannot be read from the code before it (after a
 * colon: a label's block, or an object's value), the tree tells; with no
 * tree, the colon reads as an object's, but a switch clause's ("case 1:"
 * starts the line) as a block's. */
Test(scope_javascript, the_tree_tells_a_labelled_block_from_an_object)
{
    const char *marked = "function f() {\n  outer: {\n    " CURSOR "\n  }\n}\n";
    lg_scope with = js_scope(marked, true);
    cr_assert_eq(with.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(with.kind));
    lg_scope without = js_scope(marked, false);
    cr_assert_eq(without.kind, LG_SCOPE_EXPRESSION, "%s", lg_scope_kind_name(without.kind));
    const char *clause = "switch (x) {\n  case 1: {\n    " CURSOR "\n  }\n}\n";
    cr_assert_eq(js_scope(clause, true).kind, LG_SCOPE_BLOCK);
    cr_assert_eq(js_scope(clause, false).kind, LG_SCOPE_BLOCK, "a clause's block, from the code before it");
    /* at the end of a file, a line typed in a clause's block stays in it */
    lg_scope typed = js_scope("switch (x) {\n  case 1: {\n    const adj" CURSOR, true);
    cr_assert_not(srv_escape_filter((void *)&typed, "}", 1, false, typed.max_lines));
    lg_scope object = js_scope("const o = { a: {\n  " CURSOR "\n} };\n", true);
    cr_assert_eq(object.kind, LG_SCOPE_EXPRESSION, "%s", lg_scope_kind_name(object.kind));
}

/* Code being typed at the end of a file: no tree to read the brace from;
 * what precedes it tells. */
Test(scope_javascript, a_brace_being_typed_is_read_from_the_code_before_it)
{
    lg_scope sc = js_scope("if (ready) {\n" CURSOR, false);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    sc = js_scope("} else {\n" CURSOR, false);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK);
    sc = js_scope("return {\n" CURSOR, false);
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION);
    sc = js_scope("x = {\n" CURSOR, false);
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION);
    sc = js_scope("class Point extends Base {\n" CURSOR, false);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK);
}

Test(scope_javascript, a_middle_closes_only_the_brackets_the_right_context_leaves_open)
{
    lg_scope call = js_scope("call(a, " CURSOR ");\n", true);
    cr_assert(call.kept[0], "the right context closes the call");
    cr_assert(stays(&call, "b"));
    cr_assert(stays(&call, "g(b)"));
    cr_assert_not(stays(&call, "b)"), "the right context closes the call");
    lg_scope open = js_scope("call(a, " CURSOR, false);
    cr_assert_not(open.kept[0]);
    cr_assert(stays(&open, "b);"), "nothing closes the call after the cursor");
    cr_assert_not(stays(&open, "b)) + 1"));
    lg_scope field = js_scope("s = `a ${x" CURSOR "} b`;\n", true);
    cr_assert_eq(field.kind, LG_SCOPE_EXPRESSION);
    cr_assert(stays(&field, " + 1"));
    cr_assert_not(stays(&field, "} c ${y"), "the substitution closes after the cursor");
}

/* An editor closes a bracket only where it may: "push(...readdirSync(|)"
 * has one closer for the line's two brackets.  The middle closes the one it
 * is in, the closer the call's; kept the other way round, no middle could
 * ever join the right context. */
Test(scope_javascript, a_line_with_fewer_closers_than_brackets_closes_the_innermost)
{
    lg_scope sc = js_scope("function f(root) {\n  names.push(...fs.readdirSync(" CURSOR ")\n  return names;\n}\n", true);
    cr_assert_not(sc.kept[0], "the middle closes readdirSync's parenthesis");
    cr_assert(sc.kept[1], "the right context closes push's");
    cr_assert(stays(&sc, "root)"));
    cr_assert_not(stays(&sc, "root))"));
    lg_scope mixed = js_scope("x = [a, g(" CURSOR "]\n", true);
    cr_assert(mixed.kept[1], "the bracket, which the closer matches");
    cr_assert(stays(&mixed, "b)"));
    lg_scope other = js_scope("x = [g(a, h(" CURSOR ")\n", true);
    cr_assert(other.kept[0], "the closer does not match the outer bracket: it closes the innermost");
    cr_assert_not(other.kept[1]);
    lg_scope earlier = js_scope("run(\n  a,\n  g(" CURSOR "))\n", true);
    cr_assert(earlier.kept[0] && earlier.kept[1], "as many closers as brackets, and more");
}

/* A middle may close what it did not open and open another of its own:
 * an if's condition closed and its block opened ("if (x" before a body and
 * "}"), a block closed and another opened ("}\n  if (b) {"), where a
 * reading of the right context by bracket depth alone would say the right
 * context closes them: only the right context's leading closers keep. */
Test(scope_javascript, a_middle_may_close_and_open_again)
{
    lg_scope cond = js_scope("function f(x) {\n  if (Array.isArray(x)" CURSOR "\n    return 1;\n  }\n}\n", true);
    cr_assert(stays(&cond, ") {"), "the condition's parenthesis: the right context closes a brace");
    lg_scope block = js_scope("function f(a, b) {\n  if (a) {\n    x();\n  " CURSOR "\n    y();\n  }\n}\n", true);
    cr_assert_eq(block.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(block.kind));
    cr_assert(stays(&block, "}\n  if (b) {"), "a block closed and another opened");
    lg_scope args = js_scope("run(a, " CURSOR "  );\n", true);
    cr_assert_not(stays(&args, "c)"), "the call's parenthesis, which the right context closes");
    lg_scope body = js_scope("run(function () {" CURSOR "});\n", true);
    cr_assert(stays(&body, " return 1; "));
    cr_assert_not(stays(&body, "}"), "the brace the editor closed");
}

/* A hole in finished code over several lines whose right context starts
 * with the person's code, "} = {": the middle may close the block that "}"
 * seems to close when it goes on to other lines, since that "}" then closes
 * a brace of the middle's (a declaration with an object type).  On the
 * cursor's line alone it may not. */
Test(scope_javascript, a_middle_over_lines_may_close_what_the_persons_code_seems_to)
{
    lg_scope sc = js_scope("const f = (t) => {\n  return t;\n  " CURSOR "} = {\n  a: 1,\n};\n", true);
    cr_assert_eq(sc.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(sc.kind));
    cr_assert(sc.rest_is_code);
    cr_assert(sc.kept[0], "the leading \"}\" reads as the block's");
    cr_assert(stays(&sc, "}"));
    cr_assert(ends(&sc, "};\n\nconst N: {\n  [k: string]: number;\n"), "the middle goes on to other lines");
    cr_assert_not(ends(&sc, "}; const N: {"), "the cursor's line alone");
    /* the block's own "}" after the cursor is the person's code too */
    lg_scope brace = js_scope("function f(t) {\n  return t;\n" CURSOR "}\n", true);
    cr_assert(brace.kept[0]);
    cr_assert(ends(&brace, "}\n\nfunction g() {\n  return 1;\n"));
    cr_assert_not(ends(&brace, "} g();"));
    /* an expression's line (a budget of one) never closes a kept bracket */
    lg_scope call = js_scope("call(a, " CURSOR ");\n", true);
    cr_assert_eq(call.max_lines, 1);
    cr_assert_not(stays(&call, "b)"));
}

/* A line being typed at the end of a file: what the middle may close is
 * bounded by the block around the line's statement, not by the right
 * context (there is none): "});" closes an object and a call, never the
 * loop's block opened on an earlier line.  A brace opened on the line
 * itself may close. */
Test(scope_javascript, a_lines_statement_stays_in_its_block)
{
    lg_scope sc = js_scope("for (;;) {\n  push({\n    a,\n  }" CURSOR, false);
    cr_assert(stays(&sc, ");"));
    cr_assert(stays(&sc, ")"));
    cr_assert_not(stays(&sc, ")}"), "the loop's block stays open");
    lg_scope own = js_scope("for (;;) {\n  if (a) { b(); " CURSOR, false);
    cr_assert(stays(&own, "}"), "the if's own brace, opened on the line");
    cr_assert_not(stays(&own, "} }"));
    lg_scope empty = js_scope("for (;;) {\n  x();\n" CURSOR, false);
    cr_assert(stays(&empty, "}"), "an empty line may close the block");
}

Test(scope_javascript, a_middle_stays_in_its_string_comment_or_template)
{
    lg_scope str = js_scope("let s = \"ab" CURSOR "c\";\n", true);
    cr_assert_eq(str.kind, LG_SCOPE_STRING);
    cr_assert_eq(str.quote, '"');
    cr_assert_eq(str.max_lines, 1);
    cr_assert(stays(&str, "x\\\"y"), "an escaped quote stays in");
    cr_assert_not(ends(&str, "x\" + y + \""), "the right context closes the string");
    cr_assert(ends(&str, "x\";\nlet u = \""), "a hole over lines leaves it: the person's code follows");
    lg_scope closed = js_scope("let s = \"ab" CURSOR "\"\n", true);
    cr_assert_not(stays(&closed, "x\";\nlet u = \""), "only the editor's closers after the cursor: it stays");
    lg_scope other = js_scope("table([color.red('" CURSOR " color.green('Green')]);\n", true);
    cr_assert(other.literal_open, "the quote after the cursor opens another string");
    cr_assert(stays(&other, "Red'),"));
    lg_scope open = js_scope("let s = \"ab" CURSOR "\n", true);
    cr_assert(open.literal_open);
    cr_assert(stays(&open, "x\";"), "nothing closes it after the cursor");
    lg_scope tpl = js_scope("let t = `line " CURSOR "`;\n", true);
    cr_assert_eq(tpl.kind, LG_SCOPE_STRING);
    cr_assert_eq(tpl.max_lines, 6, "a template's text takes lines");
    cr_assert(stays(&tpl, "one\ntwo ${n + 1} three"));
    cr_assert_not(ends(&tpl, "x` + `y"));
    lg_scope comment = js_scope("let a = 1; // note " CURSOR "\nlet b = 2;\n", true);
    cr_assert_eq(comment.kind, LG_SCOPE_COMMENT);
    cr_assert(stays(&comment, "more words"));
    cr_assert_not(stays(&comment, "x\nlet c = 3;"), "a comment's completion stays on its line");
    lg_scope block = js_scope("/* a " CURSOR " */\n", true);
    cr_assert_eq(block.kind, LG_SCOPE_COMMENT);
    cr_assert_not(ends(&block, "b */ c /* d"));
}

/* `seam parse` and the document's tree read JavaScript with its own
 * grammar. */
Test(scope_javascript, the_document_tree_is_javascripts)
{
    srv_syntax_summary summary;
    const char *ok = "async function* g(a) { for await (const x of a) yield* x; }\nclass A { #p = 1; }\n";
    cr_assert_eq(srv_syntax_summarize(JS, ok, strlen(ok), &summary), SM_OK);
    cr_assert_str_eq(summary.root_type, "program");
    cr_assert_not(summary.has_error);
    const char *bad = "let = = 1;\n";
    cr_assert_eq(srv_syntax_summarize(JS, bad, strlen(bad), &summary), SM_OK);
    cr_assert(summary.has_error);
    cr_assert_null(srv_tree_new(NULL, ok, strlen(ok)));
}

/* What an editor closes is what the line opened before the cursor: a
 * closer after the cursor that closes what an earlier line opened is the
 * person's code, which the middle joins wherever its lines go (a loop's
 * head and body written before the block's brace). */
Test(scope_javascript, a_closer_of_an_earlier_lines_bracket_is_the_persons_code)
{
    lg_scope editor = js_scope("run(() => {\n  while (" CURSOR ")\n});\n", true);
    cr_assert_not(editor.rest_is_code, "the ')' closes the line's own '('");
    lg_scope person = js_scope("run(() => {\n  while (" CURSOR "}\n);\n", true);
    cr_assert(person.rest_is_code, "the '}' closes the brace of the line above");
    lg_scope both = js_scope("f(a, [\n  g(" CURSOR ")]);\n", true);
    cr_assert(both.rest_is_code, "the ']' closes what the line above opened");
    lg_scope nested = js_scope("x = [f(" CURSOR ")]\n", true);
    cr_assert_not(nested.rest_is_code);
    cr_assert(lg_editor_closed("  g(h(", 0, 6, 6), "nothing after the cursor");
    cr_assert(lg_editor_closed("  g(h()) ", 0, 6, 9));
    cr_assert_not(lg_editor_closed("  g(h())) ", 0, 6, 10));
    cr_assert_not(lg_editor_closed("  g(h(]", 0, 6, 7), "not the bracket the line opened last");
}

/* Blank space between the cursor and a closer is the person's text, not
 * an editor's auto-closing, unless it mirrors its opener's padding
 * ("{ a| }"): a hole in finished code ("file)|   )", the next line's
 * indentation and its closer after the cursor) binds as written.  Its
 * middle may close the bracket tree-sitter paired with that closer when it
 * goes on to other lines, once the decoder's budget takes lines. */
Test(scope_javascript, blanks_before_a_closer_are_the_persons_unless_they_pad_its_opener)
{
    cr_assert_not(lg_editor_closed("  g(h(a   )", 0, 8, 11), "blanks the opener does not have");
    cr_assert(lg_editor_closed("  g({ a }", 0, 7, 9), "the padding of '{ '");
    cr_assert(lg_editor_closed("  g(h(a) ", 0, 7, 9), "trailing blank space");
    cr_assert_not(lg_editor_closed("  g(h(a  )) ", 0, 7, 12));
    lg_scope sc = js_scope("const t = (m) =>\n  p.then(files =>\n    files.map(file => rel(m, file)" CURSOR
                           "   )\n    .then(x => x)\n",
                           true);
    cr_assert(sc.rest_is_code, "the blanks and the ')' are the person's");
    cr_assert_eq(sc.max_lines, 1, "the rest of an expression");
    cr_assert_not(srv_escape_filter((void *)&sc, ")\n ", 3, true, 1), "one line: the ')' is kept");
    cr_assert(srv_escape_filter((void *)&sc, ")", 1, false, 16), "widened: it may go on to other lines");
    cr_assert(srv_escape_filter((void *)&sc, ")\n ", 3, true, 16));
    cr_assert_not(srv_escape_filter((void *)&sc, ")", 1, true, 16), "but not end on its line");
}
