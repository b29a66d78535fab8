/*
 * Completion scope, cut points and context escape.
 */
#include "seam_server.h"
#include "test_support.h"

#include <string.h>
#include <tree_sitter/api.h>

SEAM_SUITE(scope);

#define PY lg_by_name("python")

/* The context escape's verdict within the scope's own line budget. */
static bool escape_ok(const lg_scope *sc, const char *middle, size_t len, bool at_end)
{
    return srv_escape_filter((void *)sc, middle, len, at_end, sc->max_lines);
}

/* Whether Python's lexical reading, from `start`, ends with nothing open
 * after text[0..len). */
static bool py_clean_after(const lg_lex *start, const char *text, size_t len)
{
    lg_lex end;
    lg_lex_after(PY, start, text, len, &end);
    return end.depth == 0 && !lg_lex_literal_open(&end);
}

/* The scope at the "|" of `marked` (the bar is removed). */
static lg_scope scope_of(const char *marked, srv_tree **tree_out)
{
    const char *bar = strchr(marked, '|');
    cr_assert_not_null(bar);
    size_t offset = (size_t)(bar - marked);
    static char text[4096];
    snprintf(text, sizeof text, "%.*s%s", (int)offset, marked, bar + 1);
    srv_tree *tree = srv_tree_new(PY, text, strlen(text));
    cr_assert_not_null(tree);
    lg_scope sc;
    srv_scope_at(PY, tree, text, strlen(text), offset, true, 6, &sc);
    if (tree_out)
        *tree_out = tree;
    else
        srv_tree_free(tree);
    return sc;
}

Test(scope, shapes_by_construct)
{
    static const struct {
        const char *marked;
        lg_scope_kind kind;
        uint32_t max_lines;
    } cases[] = {
        {"foo(a, |)\n", LG_SCOPE_EXPRESSION, 1},
        {"x = [1, 2, |]\n", LG_SCOPE_EXPRESSION, 1},
        {"d = {'a': |}\n", LG_SCOPE_EXPRESSION, 1},
        {"s = {1, |}\n", LG_SCOPE_EXPRESSION, 1},
        {"y = x[1:|]\n", LG_SCOPE_EXPRESSION, 1},
        {"s = 'abc|'\n", LG_SCOPE_STRING, 1},
        {"def f():\n    \"\"\"Doc|\n    \"\"\"\n", LG_SCOPE_STRING, 6},
        {"f = f'{x + |}'\n", LG_SCOPE_EXPRESSION, 1},
        {"x = 1  # note |\n", LG_SCOPE_COMMENT, 1},
        {"@|\ndef f():\n    pass\n", LG_SCOPE_LINE, 1},
        {"def f(x):|\n", LG_SCOPE_BODY, 6},
        {"if x:|\n    pass\n", LG_SCOPE_BODY, 6},
        {"class A:\n    def f(self):\n        |\n", LG_SCOPE_BLOCK, 6},
        {"def f():\n    x = 1\n    |\n", LG_SCOPE_BLOCK, 6},
        {"x = 1\n|", LG_SCOPE_MODULE, 6},
        {"x = |\n", LG_SCOPE_LINE, 1},
        {"return_value = compute(|", LG_SCOPE_EXPRESSION, 1},
        /* a string ends where Python 3.12 ends it (PEP 701: the same
         * quotes inside a field) */
        {"x = f\"{d[\"k\"]}\" + g(|)\n", LG_SCOPE_EXPRESSION, 1},
        {"y = [f\"{a[\"b\"]:>{w}}\", |]\n", LG_SCOPE_EXPRESSION, 1},
        {"s = f'''{\"'''\"}''' + '|'\n", LG_SCOPE_STRING, 1},
        {"x = f\"{'\"'}\" + g(|)\n", LG_SCOPE_EXPRESSION, 1},
        {"x = f\"{'\"'}\" + '|'\n", LG_SCOPE_STRING, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_scope sc = scope_of(cases[i].marked, NULL);
        cr_assert_eq(sc.kind, cases[i].kind, "case %zu (%s): got %s", i, cases[i].marked, lg_scope_kind_name(sc.kind));
        cr_assert_eq(sc.max_lines, cases[i].max_lines, "case %zu: %u lines", i, sc.max_lines);
    }
    /* Lines the middle starts stay inside the enclosing def or class: a
     * block there may dedent to just inside it, else not at all. */
    lg_scope block = scope_of("class A:\n    def f(self):\n        |\n", NULL);
    cr_assert_eq(block.min_indent, 5);
    lg_scope nested = scope_of("def f(x):\n    if x:\n        y = 1\n        |\n", NULL);
    cr_assert_eq(nested.min_indent, 1);
    lg_scope top = scope_of("if x:\n    y = 1\n    |\n", NULL);
    cr_assert_eq(top.min_indent, 4);
    lg_scope body = scope_of("    if x:|\n", NULL);
    cr_assert_eq(body.body_indent, 5);
    cr_assert_eq(body.min_indent, 5);
    lg_scope def_body = scope_of("def f(x):\n    if x:|\n", NULL);
    cr_assert_eq(def_body.body_indent, 5);
    cr_assert_eq(def_body.min_indent, 1);
}

Test(scope, cut_points_are_the_statements_around_the_cursor)
{
    const char *text = "import os\n"
                       "\n"
                       "@decorator(\n"
                       "    1)\n"
                       "def f():\n"
                       "    return 1\n"
                       "\n"
                       "x = (1,\n"
                       "2)\n"
                       "y = 3\n"
                       "else_ = 4\n"
                       "s = '''\n"
                       "z = 5\n"
                       "'''\n"
                       "w = 6\n"
                       "v = 7\n";
    size_t len = strlen(text);
#define AT(s) ((size_t)(strstr(text, s) - text))
    lg_scope sc;
    /* In f's body: from "import os" (the decorator stays with its def, and
     * the statement before a cursor line that is not a statement start
     * counts); to the second statement start after the cursor's line
     * ("x = (1,\n2)" is whole in R', "2)" is no statement). */
    srv_scope_at(PY, NULL, text, len, AT("return") + 3, true, 6, &sc);
    cr_assert_eq(sc.cut_left, AT("import"), "left %zu", sc.cut_left);
    cr_assert_eq(sc.cut_right, AT("y = 3"), "right %zu", sc.cut_right);
    /* In "y = 3": from its line; "else_" is a name, not "else". */
    srv_scope_at(PY, NULL, text, len, AT("y = 3") + 4, true, 6, &sc);
    cr_assert_eq(sc.cut_left, AT("y = 3"));
    cr_assert_eq(sc.cut_right, AT("s = "));
    /* At column 0 of "w = 6": the statement before counts too; "z = 5" is
     * inside a string and never a cut. */
    srv_scope_at(PY, NULL, text, len, AT("w = 6"), true, 6, &sc);
    cr_assert_eq(sc.cut_left, AT("s = "));
    cr_assert_eq(sc.cut_right, len);
    /* A right part that does not lex on its own is not cut off: the stray
     * bracket stays in the recognizer's right context. */
    const char *broken = "a = 1\nb = 2\nc = 3\n)\nd = 4\n";
    srv_scope_at(PY, NULL, broken, strlen(broken), 2, true, 6, &sc);
    cr_assert_eq(sc.cut_right, (size_t)(strstr(broken, "d = 4") - broken));
#undef AT
}

Test(scope, escape_filter_keeps_the_middle_in_its_scope)
{
    lg_scope call = scope_of("foo(a, |)\n", NULL);
    cr_assert(escape_ok(&call, "b", 1, false));
    cr_assert(escape_ok(&call, "g(b)", 4, false));
    cr_assert_not(escape_ok(&call, "b)", 2, false));
    cr_assert_not(escape_ok(&call, "b)\nbar(c", 8, false));
    cr_assert(escape_ok(&call, "')'", 3, false));   /* a bracket in a string is no bracket */
    /* A bracket the right context leaves open is the middle's to close. */
    lg_scope open_call = scope_of("x = sum(|\nprint(x)\n", NULL);
    cr_assert_eq(open_call.closable, 1);
    cr_assert(escape_ok(&open_call, "values)", 7, false));
    cr_assert_not(escape_ok(&open_call, "values))", 8, false));

    lg_scope body = scope_of("def f():\n    if x:|\n", NULL);
    const char *ok = "\n        return 1";
    const char *escape = "\n        return 1\ndef g():\n    pass";
    cr_assert(escape_ok(&body, ok, strlen(ok), false));
    cr_assert_not(escape_ok(&body, escape, strlen(escape), false));
    cr_assert(escape_ok(&body, "\n", 1, false));   /* the next line's indentation is not known yet */

    lg_scope block = scope_of("class A:\n    def f(self):\n        |\n", NULL);
    const char *stay = "x = 1\n        y = 2";
    const char *leave = "x = 1\n    def g(self):";
    cr_assert(escape_ok(&block, stay, strlen(stay), false));
    cr_assert_not(escape_ok(&block, leave, strlen(leave), false));

    lg_scope str = scope_of("s = 'ab|'\n", NULL);
    cr_assert(escape_ok(&str, "cd", 2, false));
    cr_assert(escape_ok(&str, "c\\'d", 4, false));
    cr_assert_not(escape_ok(&str, "c' + t + '", 10, false));
    cr_assert_not(escape_ok(&str, "c'\nt = '", 8, false), "the editor's closer after the cursor");

    lg_scope comment = scope_of("x = 1  # note |\n", NULL);
    cr_assert(escape_ok(&comment, "more words", 10, false));
    cr_assert_not(escape_ok(&comment, "words\ny = 2", 11, false));

    lg_scope line = scope_of("x = |\n", NULL);
    cr_assert(escape_ok(&line, "f(1,\n  2)", 9, false));   /* a line broken inside brackets */
    cr_assert(escape_ok(&line, "1\ny = 2", 7, false), "the line budget, not the scope, keeps it to a line");

    /* With the person's code after the cursor on its line, a hole in
     * finished code: the middle joins that code wherever its lines go. */
    lg_scope mid_string = scope_of("s = 'ab|cd' + t\n", NULL);
    cr_assert(mid_string.rest_is_code);
    cr_assert_not(escape_ok(&mid_string, "x' + u + 'y", 11, true), "out of the string on its line: no");
    cr_assert(escape_ok(&mid_string, "x'\nv = 'y", 10, true), "out of it for other lines");
    lg_scope mid_comment = scope_of("x = 1  # note |y = 2\n", NULL);
    cr_assert(escape_ok(&mid_comment, "words\n", 7, true));
    lg_scope before_code = scope_of("class A:\n    def f(self):\n        |return 1\n", NULL);
    cr_assert_eq(before_code.kind, LG_SCOPE_BLOCK, "%s", lg_scope_kind_name(before_code.kind));
    const char *out_of_def = "x = 1\n    def g(self):\n        ";
    cr_assert(escape_ok(&before_code, out_of_def, strlen(out_of_def), false));
    /* A bracket the person's code closes after the cursor: the middle may
     * close it for other lines (and reopen one for that code), not on its
     * own line. */
    lg_scope header = scope_of("for i in range(0, |ascii(s))\n", NULL);
    cr_assert(header.rest_is_code);
    const char *header_lines = "len(s)):\n    x = (b";
    cr_assert(escape_ok(&header, header_lines, strlen(header_lines), true));
    cr_assert_not(escape_ok(&header, "len(s)) + (b", 12, true), "out of the call on its line: no");
}

Test(scope, the_tree_follows_edits)
{
    const char *before = "x = 1\ny = 2\n";
    srv_tree *tree = srv_tree_new(PY, before, strlen(before));
    cr_assert_not_null(tree);
    cr_assert_not(srv_tree_has_error(tree));
    /* Replace "2" with "(": the tree now has an error. */
    srv_tree_edit(tree, before, 10, 11, "(", 1);
    const char *after = "x = 1\ny = (\n";
    srv_tree_reparse(tree, after, strlen(after));
    cr_assert(srv_tree_has_error(tree));
    /* And back. */
    srv_tree_edit(tree, after, 10, 11, "3", 1);
    const char *fixed = "x = 1\ny = 3\n";
    srv_tree_reparse(tree, fixed, strlen(fixed));
    cr_assert_not(srv_tree_has_error(tree));
    srv_tree_free(tree);
}

Test(scope, edits_are_parsed_once_when_a_request_needs_the_tree)
{
    const char *before = "x = 1\ny = 2\n";
    srv_tree *tree = srv_tree_new(PY, before, strlen(before));
    cr_assert_not_null(tree);
    /* two keystrokes: "2" becomes "(", then "((" */
    srv_tree_edit(tree, before, 10, 11, "(", 1);
    const char *one = "x = 1\ny = (\n";
    srv_tree_edit(tree, one, 11, 11, "(", 1);
    const char *two = "x = 1\ny = ((\n";
    /* stale: not read, not copied, until refreshed */
    cr_assert_null(srv_tree_copy(tree));
    cr_assert_not(srv_tree_has_error(tree));
    lg_scope sc;
    srv_scope_at(PY, tree, two, strlen(two), strlen(two) - 1, true, 6, &sc);
    cr_assert_str_eq(sc.node_type, "");
    srv_tree_refresh(tree, two, strlen(two));
    cr_assert(srv_tree_has_error(tree));
    TSTree *copy = srv_tree_copy(tree);
    cr_assert_not_null(copy);
    cr_assert_eq(ts_node_end_byte(ts_tree_root_node(copy)), strlen(two));
    ts_tree_delete(copy);
    /* a fresh tree is not parsed again */
    srv_tree_refresh(tree, "", 0);
    copy = srv_tree_copy(tree);
    cr_assert_eq(ts_node_end_byte(ts_tree_root_node(copy)), strlen(two));
    ts_tree_delete(copy);
    srv_tree_free(tree);
}

Test(scope, a_header_line_whose_body_is_missing_ends_at_its_colon)
{
    /* The right context does not hold the body: the header's line only;
     * the body belongs to the lines the person writes next. */
    static const char *open[] = {
        "def area(r):\n    total = 0\n    for i in ra|\n\n\nx = 1\n",
        "if read|\n",
        "while x < |\nprint(x)\n",
        "    with open(p) as |\n",
    };
    for (size_t i = 0; i < sizeof open / sizeof *open; i++) {
        lg_scope sc = scope_of(open[i], NULL);
        cr_assert_eq(sc.kind, LG_SCOPE_HEADER, "%s: got %s", open[i], lg_scope_kind_name(sc.kind));
        cr_assert_eq(sc.max_lines, 1);
    }
    /* The body is there, the colon is written, or it is no header. */
    static const char *line[] = {
        "def f():\n    for i in ra|\n        x = i\n",
        "if x|:\n    pass\n",
        "x = ra|\n",
        "    for_each = ra|\n",
    };
    for (size_t i = 0; i < sizeof line / sizeof *line; i++) {
        lg_scope sc = scope_of(line[i], NULL);
        cr_assert_eq(sc.kind, LG_SCOPE_LINE, "%s: got %s", line[i], lg_scope_kind_name(sc.kind));
        cr_assert_eq(sc.max_lines, 1);
    }
    lg_scope sc = scope_of("def area(r):\n    for i in ra|\n\nx = 1\n", NULL);
    const char *body = "nge(10):\n        total += i";
    cr_assert(escape_ok(&sc, body, strlen(body), true));
    const char *shallow = "nge(10):\n    total += i";
    cr_assert(!escape_ok(&sc, shallow, strlen(shallow), true));
}

Test(scope, the_string_guard_lets_the_middle_close_a_literal_the_right_context_leaves_open)
{
    /* The right context closes the literal: the middle may not. */
    lg_scope closed = scope_of("A = {Not('x'): {Not('a|')}}\n", NULL);
    cr_assert_eq(closed.kind, LG_SCOPE_STRING);
    cr_assert(!closed.literal_open);
    const char *m = "'), Not('b";
    cr_assert(!escape_ok(&closed, m, strlen(m), false));
    /* It does not: every valid completion closes it. */
    lg_scope open = scope_of("A = {Not('x'): {Not('a|)}}\n", NULL);
    cr_assert_eq(open.kind, LG_SCOPE_STRING);
    cr_assert(open.literal_open);
    const char *middle = "'), Not('b'";
    cr_assert(escape_ok(&open, middle, strlen(middle), true));
    lg_scope triple = scope_of("def f():\n    \"\"\"Doc|\n", NULL);
    cr_assert(triple.literal_open);
    lg_scope triple_closed = scope_of("def f():\n    \"\"\"Doc|\n    \"\"\"\n", NULL);
    cr_assert(!triple_closed.literal_open);
}

Test(scope, lines_the_middle_starts_in_a_block_are_indented_and_have_no_trailing_blanks)
{
    lg_scope sc = scope_of("def f():\n    x = 1\n    |\n", NULL);
    const char *comment_out = "y = 2\n# note";
    cr_assert(!escape_ok(&sc, comment_out, strlen(comment_out), false));
    const char *comment_in = "y = 2\n    # note";
    cr_assert(escape_ok(&sc, comment_in, strlen(comment_in), false));
    const char *blank = "y = 2\n    \n    z = 3";
    cr_assert(!escape_ok(&sc, blank, strlen(blank), false));
    const char *empty = "y = 2\n\n    z = 3";
    cr_assert(escape_ok(&sc, empty, strlen(empty), false));
}

/* The offset of the mark in `marked`, and the text without it in `text`. */
static size_t unmark(const char *marked, char *text, size_t size)
{
    const char *bar = strchr(marked, '|');
    cr_assert_not_null(bar);
    size_t offset = (size_t)(bar - marked);
    snprintf(text, size, "%.*s%s", (int)offset, marked, bar + 1);
    return offset;
}

Test(scope, the_cursor_line_and_what_follows_it)
{
    static const struct {
        const char *marked;
        const char *rest;          /* the line's rest */
        bool at_end, colon_unwritten, body_below;
    } cases[] = {
        {"def main():\n    for name in os.listdir(|)\n", ")", true, true, false},
        {"def main():\n    for name in os.listdir(|)\n\n  \n", ")", true, true, false},
        {"def main():\n    for name in os.listdir(|):\n", "):", true, false, false},
        {"def main():\n    for name in os.listdir(|)\n        print(name)\n", ")", false, true, true},
        {"def main():\n    for name in os.listdir(|)\n    print(1)\n", ")", false, true, false},
        {"def f(a,\n      |)\n    return a\n", ")", false, true, true},
        {"x = [\n    1, |]\ny = 2\n", "]", false, false, false},
        {"if x := f(|)\r\n    pass\r\n", ")", false, true, true},
        {"y = {a: |}\n", "}", true, false, false},
        {"with open(p) as f: |\n", "", true, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        size_t offset = unmark(cases[i].marked, text, sizeof text);
        lg_scope sc;
        srv_scope_at(PY, NULL, text, strlen(text), offset, true, 6, &sc);
        cr_assert_eq(sc.line_end - offset, strlen(cases[i].rest), "%s", cases[i].marked);
        cr_assert(memcmp(text + offset, cases[i].rest, strlen(cases[i].rest)) == 0);
        cr_assert_eq(sc.at_end, cases[i].at_end, "%s: at_end", cases[i].marked);
        cr_assert_eq(sc.colon_unwritten, cases[i].colon_unwritten, "%s: colon", cases[i].marked);
        cr_assert_eq(sc.body_below, cases[i].body_below, "%s: body", cases[i].marked);
    }
}

Test(scope, a_clause_keyword_begun_on_the_cursor_line_keeps_its_statement_in_the_cut)
{
    static const char *begun[] = {
        "x = 0\nif x:\n    pass\nel|\n",
        "x = 0\ntry:\n    pass\nexc|\n",
        "x = 0\ntry:\n    pass\nfin|\ny = 1\nz = 2\nw = 3\n",
    };
    for (size_t i = 0; i < sizeof begun / sizeof *begun; i++) {
        char text[512];
        size_t offset = unmark(begun[i], text, sizeof text);
        lg_scope sc;
        srv_scope_at(PY, NULL, text, strlen(text), offset, true, 1, &sc);
        size_t compound = (size_t)(strchr(text, '\n') - text) + 1;   /* the if or try */
        cr_assert_leq(sc.cut_left, compound, "%s: cut at %zu", begun[i], sc.cut_left);
    }
    /* A word that cannot become a clause keyword starts a statement. */
    char text[512];
    size_t offset = unmark("x = 0\nif x:\n    pass\nprin|\n", text, sizeof text);
    lg_scope sc;
    srv_scope_at(PY, NULL, text, strlen(text), offset, true, 1, &sc);
    cr_assert_eq(sc.cut_left, (size_t)(strstr(text, "prin") - text));
}

/* The bound of a request at the marked cursor (its cache in *cache, for
 * srv_rec_cache_free), `middle` fed. */
static srv_bound open_bound_in(const lg_language *language, const ep_grammar *g, const char *marked,
                               const char *middle, char *text, size_t size, srv_rec_cache **cache)
{
    size_t offset = unmark(marked, text, size);
    lg_scope sc;
    srv_scope_at(language, NULL, text, strlen(text), offset, true, 6, &sc);
    srv_contexts contexts;
    srv_contexts_of(&sc, text, strlen(text), offset, true, false, &contexts);
    *cache = sm_calloc(1, sizeof **cache);
    srv_bound b;
    cr_assert_eq(srv_bound_open(g, text, strlen(text), offset, &contexts, *cache, &b), SM_OK);
    cr_assert(ep_feed(b.rec, middle, strlen(middle)) == 1, "%s: %s refused", marked, middle);
    return b;
}

static srv_bound open_bound(const ep_grammar *g, const char *marked, const char *middle, char *text, size_t size,
                            srv_rec_cache **cache)
{
    return open_bound_in(PY, g, marked, middle, text, size, cache);
}

/* The binding a request's recognizer gets in `language`, and whether
 * `middle` may end there. */
static srv_binding bound_in(const lg_language *language, const ep_grammar *g, const char *marked, const char *middle,
                            bool *can_end)
{
    char text[1024];
    srv_rec_cache *cache;
    srv_bound b = open_bound_in(language, g, marked, middle, text, sizeof text, &cache);
    *can_end = srv_bound_can_end(&b, middle, strlen(middle), NULL);
    srv_binding binding = b.binding;
    srv_rec_cache_free(cache);
    return binding;
}

static srv_binding bound_of(const ep_grammar *g, const char *marked, const char *middle, bool *can_end)
{
    return bound_in(PY, g, marked, middle, can_end);
}

Test(scope, a_javascript_line_goes_on_past_the_editors_closers)
{
    ep_grammar *g;
    char err[256];
    const lg_language *js = lg_by_name("javascript");
    cr_assert_eq(ep_grammar_of(js, 2, &g, err, sizeof err), SM_OK, "%s", err);   /* module */
    bool end;
    /* The person types ` = props;` after the editor's `}`, `) {` after its
     * `)`: the middle ends before the closers though no `;` may follow
     * them. */
    cr_assert_eq(bound_in(js, g, "function f(props) {\n  const { a, b|}\n", ", c ", &end), SRV_BINDING_END);
    cr_assert(end, "a destructuring pattern's names end before the editor's }");
    cr_assert_eq(bound_in(js, g, "function foo(a|)\n", ", b", &end), SRV_BINDING_END);
    cr_assert(end, "a parameter list ends before the editor's )");
    cr_assert_eq(bound_in(js, g, "function f(props) {\n  foo(a, b|)\n", ", c +", &end), SRV_BINDING_END);
    cr_assert_not(end, "an operator with no operand before the closer");
    /* Nothing after the cursor: the line ends with the middle, so one of
     * the line enders must be able to follow. */
    cr_assert_eq(bound_in(js, g, "function f(props) {\n  const { a, b } = props|\n", ".x", &end),
                 SRV_BINDING_END);
    cr_assert(end);
    cr_assert_eq(bound_in(js, g, "function f(props) {\n  const { a, b }|\n", "", &end), SRV_BINDING_END);
    cr_assert_not(end, "a pattern with no initializer ends no line");
    ep_grammar_free(g);
}

Test(scope, the_code_after_the_cursor_binds_as_far_as_it_is_written)
{
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    bool end;
    /* Finished code binds whole. */
    cr_assert_eq(bound_of(g, "x = foo(|)\nprint(x)\n", "a, b", &end), SRV_BINDING_WHOLE);
    cr_assert(end);
    cr_assert_eq(bound_of(g, "x = foo(|)\nprint(x)\n", "a, (b", &end), SRV_BINDING_WHOLE);
    cr_assert_not(end);
    /* The end of the file is never the end of the program. */
    cr_assert_eq(bound_of(g, "def main():\n    for name in os.listdir(|)\n", "path", &end), SRV_BINDING_END);
    cr_assert(end);
    cr_assert_eq(bound_of(g, "def main():\n    labels = {|}\n", "", &end), SRV_BINDING_END);
    cr_assert(end);
    /* The line's rest binds: its closer is never written again. */
    cr_assert_eq(bound_of(g, "def main():\n    for name in os.listdir(|)\n", "path)", &end), SRV_BINDING_END);
    cr_assert_not(end);
    /* A middle ends only where it closes what it opened: its own bracket,
     * string or backslash join; a comment may not take in the line's rest. */
    const char *own = "with closing(_iterdir|) as it:\n";
    cr_assert_eq(bound_of(g, own, "(dirname, dir_fd", &end), SRV_BINDING_END);
    cr_assert_not(end);
    cr_assert_eq(bound_of(g, own, "(dirname, \"a", &end), SRV_BINDING_END);
    cr_assert_not(end);
    cr_assert_eq(bound_of(g, own, "(dirname, dir_fd)", &end), SRV_BINDING_END);
    cr_assert(end);
    cr_assert_eq(bound_of(g, own, "x  # the folder", &end), SRV_BINDING_END);
    cr_assert_not(end);
    cr_assert_eq(bound_of(g, "x = 1|\n", "  # one", &end), SRV_BINDING_END);
    cr_assert(end);
    /* With nothing after the cursor on its line, the middle ends the
     * line: no statement half written, a header with its colon. */
    cr_assert_eq(bound_of(g, "def f(self):\n    self|\n", ":", &end), SRV_BINDING_END);
    cr_assert_not(end);
    cr_assert_eq(bound_of(g, "def f(self):\n    self|\n", ".enable()", &end), SRV_BINDING_END);
    cr_assert(end);
    cr_assert_eq(bound_of(g, "def f(self):\n    time|\n", " \\", &end), SRV_BINDING_END);
    cr_assert_not(end);
    cr_assert_eq(bound_of(g, "def f(self):\n    self|  \n", ".enable()", &end), SRV_BINDING_END);
    cr_assert(end);
    cr_assert_eq(bound_of(g, "def main():\n    for name in |\n", "os.listdir(path)", &end), SRV_BINDING_END);
    cr_assert_not(end);
    cr_assert_eq(bound_of(g, "def main():\n    for name in |\n", "os.listdir(path):", &end), SRV_BINDING_END);
    cr_assert(end);
    cr_assert_eq(bound_of(g, "def main():\n    labels = {|\n", "", &end), SRV_BINDING_END);
    cr_assert(end);
    /* A header whose colon follows the editor's closer: the line binds,
     * and the code after it may follow once the line is finished. */
    const char *typing = "def main():\n    for name in os.listdir(|)\n        print(name)\n    return 0\n";
    cr_assert_eq(bound_of(g, typing, "path", &end), SRV_BINDING_LINE);
    cr_assert(end);
    cr_assert_eq(bound_of(g, typing, "path)", &end), SRV_BINDING_LINE);
    cr_assert_not(end);
    /* Other text after the cursor is the person's, not an editor's closers:
     * it binds as written ("s" would leave the comment's words an open
     * string; the true middle runs over lines into the comment). */
    const char *comment = "def f(mapped_origin):\n    if mapped_origin i|'t hit this branch, it is a bug\n"
                          "        return 1\n    return 0\n";
    cr_assert_neq(bound_of(g, comment, "s", &end), SRV_BINDING_LINE);
    cr_assert_not(end);
    /* The same with code after the cursor on a header's line: the colon and
     * the body are the middle's to write, not a later line's. */
    const char *header = "def f(s):\n    for i in range(0, |ascii(s))\n    return 0\n";
    cr_assert_eq(bound_of(g, header, "len(s)", &end), SRV_BINDING_WHOLE);
    cr_assert_not(end, "the header without its colon");
    cr_assert_eq(bound_of(g, header, "len(s)):\n        x = (b", &end), SRV_BINDING_WHOLE);
    cr_assert(end);
    ep_grammar_free(g);
}

/* Whether `middle` may end as a line that opens a construct there. */
static bool line_opens(const ep_grammar *g, const char *marked, const char *middle)
{
    char text[1024];
    srv_rec_cache *cache;
    srv_bound b = open_bound(g, marked, middle, text, sizeof text, &cache);
    bool opens = srv_bound_line_opens(&b, middle, strlen(middle));
    srv_rec_cache_free(cache);
    return opens;
}

/* At the end of a file the line being typed may end with the bracket it
 * opens (its construct's lines to come), never elsewhere. */
Test(scope, a_line_typed_at_the_end_may_end_with_the_bracket_it_opens)
{
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    cr_assert(line_opens(g, "def main():\n    labels =|\n", " {"));
    cr_assert(line_opens(g, "from prompt_toolkit.styles import|\n", " ("));
    cr_assert(line_opens(g, "x = 1\nself|", ".write(  "));
    cr_assert_not(line_opens(g, "def main():\n    labels =|\n", " {1: 2}"), "nothing left open");
    cr_assert_not(line_opens(g, "def main():\n    labels =|\n", " '{"), "a bracket in a string");
    cr_assert_not(line_opens(g, "def main():\n    labels =|\n", " {  # the labels"), "a comment after it");
    cr_assert_not(line_opens(g, "x = f(|)\n", "a, ("), "an editor's closer after the cursor");
    cr_assert_not(line_opens(g, "labels =|\nprint(labels)\n", " {"), "the code after it binds whole");
    ep_grammar_free(g);
}

Test(scope, a_byte_order_mark_starts_the_file_not_the_program)
{
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    cfg_config config;
    cfg_init(&config);
    static const char *marked[] = {"\xEF\xBB\xBFx = foo(|)\nprint(x)\n", "\xEF\xBB\xBFx = foo(|)\n"};
    for (size_t i = 0; i < sizeof marked / sizeof *marked; i++) {
        char text[256];
        size_t offset = unmark(marked[i], text, sizeof text);
        srv_request request;
        srv_request_prepare(&request, &config, PY, NULL, NULL, text, strlen(text), offset, true);
        srv_rec_cache *cache = sm_calloc(1, sizeof *cache);
        srv_bound b;
        cr_assert_eq(srv_bound_open(g, text, strlen(text), offset, &request.options.contexts, cache, &b), SM_OK);
        cr_assert(ep_viable(b.rec), "%zu: the first statement is refused", i);
        cr_assert_eq(ep_feed(b.rec, "1", 1), 1);
        cr_assert(srv_bound_can_end(&b, "1", 1, NULL), "%zu", i);
        srv_rec_cache_free(cache);
    }
    cfg_free(&config);
    ep_grammar_free(g);
}

Test(scope, text_too_deep_for_tree_sitter_gets_no_tree)
{
    /* Debian's libtree-sitter corrupts its heap on some 65,000 open
     * brackets: such a text is scoped by the lexical scan alone. */
    size_t depth = 70000, len;
    char *text = seam_test_open_brackets(depth, &len);
    srv_tree *tree = srv_tree_new(PY, text, len);
    cr_assert_not_null(tree);
    cr_assert_null(srv_tree_copy(tree));
    lg_scope sc;
    srv_scope_at(PY, tree, text, len, len, true, 6, &sc);
    cr_assert_eq(sc.kind, LG_SCOPE_EXPRESSION);
    cr_assert_eq(sc.bracket_depth, depth);
    /* An edit that makes it shallow gives it a tree again. */
    srv_tree_edit(tree, text, 4, len, "1\n", 2);
    srv_tree_reparse(tree, "x = 1\n", 6);
    TSTree *copy = srv_tree_copy(tree);
    cr_assert_not_null(copy);
    ts_tree_delete(copy);
    srv_tree_free(tree);
    srv_syntax_summary summary;
    cr_assert_eq(srv_syntax_summarize(PY, text, len, &summary), SM_ETOOBIG);
    sm_free(text);
}

/* The lexical state at the cursor lexes a middle on its own terms: where
 * the string the cursor is in ends in the document says nothing of where
 * it ends after the middle. */
Test(scope, the_state_at_the_cursor_lexes_another_text_afresh)
{
    lg_scope sc = scope_of("s = 'ab|cdef'\n", NULL);
    cr_assert_eq(sc.kind, LG_SCOPE_STRING);
    cr_assert(py_clean_after(&sc.lex, "x'", 2), "the middle closes the string");
    cr_assert_not(py_clean_after(&sc.lex, "xyzw", 4), "the middle leaves it open");
    lg_scope field = scope_of("s = f\"{d[\"k\"]} |\" + t\n", NULL);
    cr_assert_eq(field.kind, LG_SCOPE_STRING);
    cr_assert(py_clean_after(&field.lex, "\"", 1));
}
