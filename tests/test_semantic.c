/*
 * The semantic pruners: what a middle may read, take of a module and pass
 * to a function, decided lexeme by lexeme and at the end.
 */
#include "seam_semantic.h"
#include "test_support.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

SEAM_SUITE(semantic);

/* What a middle gets: how many bytes are accepted one by one, whether the
 * whole middle ends a program with the property, and the last refusal. */
typedef struct outcome {
    size_t accepted;
    bool complete;
    sx_refusal why;
} outcome;

static outcome check_with(sx_env *env, unsigned pruners, const char *left, const char *middle, const char *right)
{
    char text[8192];
    size_t left_len = strlen(left), middle_len = strlen(middle);
    snprintf(text, sizeof text, "%s%s", left, right);
    sx_session *s = NULL;
    cr_assert_eq(sx_session_new(env, pruners, text, strlen(text), left_len, left_len, &s), SM_OK);
    outcome o = {.why.pruner = -1};
    while (o.accepted < middle_len && sx_check(s, middle, o.accepted + 1, false, &o.why))
        o.accepted++;
    o.complete = o.accepted == middle_len && sx_check(s, middle, middle_len, true, &o.why);
    sx_session_free(s);
    return o;
}

static outcome check(const char *left, const char *middle, const char *right)
{
    return check_with(NULL, (1u << SX_PRUNER_COUNT) - 1, left, middle, right);
}

#define assert_true_middle(left, middle, right)                                                      \
    do {                                                                                             \
        outcome o_ = check(left, middle, right);                                                     \
        cr_assert(o_.complete, "refused a true middle %s at byte %zu: %s", #middle, o_.accepted,     \
                  o_.why.why);                                                                       \
    } while (0)

Test(semantic, reads_of_bound_names_are_accepted)
{
    assert_true_middle("import os\nlimit = 3\n", "print(os.sep, limit, len([]))", "\n");
    assert_true_middle("def f(a, b):\n", "    c = a + b\n    return c * a", "\n");
    /* A name bound later in the module is read from a function at call time. */
    assert_true_middle("def f():\n", "    return later", "\n\nlater = 1\n");
    /* A comprehension binds its targets for its element. */
    assert_true_middle("data = []\n", "squares = [item * item for item in data if item]", "\n");
    assert_true_middle("", "total = sum(v for v in range(3))", "\n");
    assert_true_middle("", "first, second = 1, 2", "\n");
    assert_true_middle("", "if (n := 3) > 2:\n    print(n)", "\n");
}

/* The middle leaves the method it starts in and reads a name of the class
 * body: tree-sitter's scopes at the cursor are the method's, so a name
 * being written must be looked up among every name the document writes,
 * as the whole name is. */
Test(semantic, a_name_being_written_is_looked_up_as_the_whole_name_is)
{
    assert_true_middle("class A:\n    size_limit = 3\n    def m(self):\n        y = 1\n",
                       "        y += 1\n    other = 1 + size_limit\n    def n(self):\n", "        return y\n");
}

Test(semantic, unbound_reads_are_refused_as_soon_as_nothing_can_bind_them)
{
    outcome o = check("def f():\n", "    return sizz", "\n");
    cr_assert_not(o.complete);
    cr_assert_eq(o.why.pruner, SX_NAMES);
    cr_assert_eq(o.accepted, strlen("    return s"), "refused at %zu", o.accepted);

    /* `(x` may still become `(x for x in y)`: refused only at the end. */
    o = check("", "v = (undefined_thing", "\n");
    cr_assert_eq(o.accepted, strlen("v = (undefined_thing"));
    cr_assert_not(o.complete);
    cr_assert_eq(o.why.pruner, SX_NAMES);

    /* `a` at a statement's start may still be assigned. */
    o = check("", "a", "\n");
    cr_assert_eq(o.accepted, 1);
    cr_assert_not(o.complete);
    assert_true_middle("", "a", " = 1\n");
}

Test(semantic, a_read_before_its_binding_in_the_middle_is_refused)
{
    outcome o = check("", "print(late)\nlate = 1", "\n");
    cr_assert_not(o.complete);
    cr_assert_eq(o.why.pruner, SX_NAMES);
    cr_assert_lt(o.accepted, strlen("print(late)\n"));
}

Test(semantic, names_are_open_where_they_cannot_be_known)
{
    assert_true_middle("from somewhere_unknown import *\n", "print(anything_at_all)", "\n");
    assert_true_middle("exec('zz = 1')\n", "print(zz)", "\n");
}

Test(semantic, keyword_arguments_of_functions_the_document_defines)
{
    const char *left = "def move(x, y, *, speed=1):\n    pass\ndef any_args(a, **rest):\n    pass\n";
    assert_true_middle(left, "move(1, 2, speed=3)", "\n");
    assert_true_middle(left, "any_args(1, whatever=2)", "\n");
    outcome o = check(left, "move(1, 2, sped=3)", "\n");
    cr_assert_not(o.complete);
    cr_assert_eq(o.why.pruner, SX_KEYWORDS);
    cr_assert_lt(o.accepted, strlen("move(1, 2, sped=3)"));
    /* Switched off, the keywords pruner refuses nothing. */
    o = check_with(NULL, (1u << SX_NAMES) | (1u << SX_ATTRIBUTES), left, "move(1, 2, sped=3)", "\n");
    cr_assert(o.complete);
}

/* A workspace with a module of its own; its path is kept in dir. */
static void make_workspace(char dir[64])
{
    snprintf(dir, 64, "/tmp/seam-semantic-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/shapes.py", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("import math\nimport helpers\n\nUNIT = 1\n\ndef area(width, height=1):\n    return width * height\n\n"
          "class Square:\n    pass\n",
          f);
    fclose(f);
    static const char *const more[][2] = {{"helpers.py", "import deep\nHELP = 1\n"}, {"deep.py", "DEEP = 1\n"}};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, more[i][0]);
        f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(more[i][1], f);
        fclose(f);
    }
}

static void remove_workspace(const char *dir)
{
    static const char *const files[] = {"shapes.py", "helpers.py", "deep.py"};
    char path[128];
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Whether the middle, whole, ends a program with the property, with the
 * session taking only modules read already when `cached_only`. */
static bool complete_in(sx_env *env, const char *left, const char *middle, bool cached_only)
{
    char text[512];
    snprintf(text, sizeof text, "%s\n", left);
    sx_session *s = NULL;
    cr_assert_eq(sx_session_new(env, (1u << SX_PRUNER_COUNT) - 1, text, strlen(text), strlen(left), strlen(left), &s),
                 SM_OK);
    if (cached_only)
        sx_session_cached_only(s);
    bool ok = sx_check(s, middle, strlen(middle), true, NULL);
    sx_session_free(s);
    return ok;
}

/* Where a read is decided: as soon as no continuation can bind the name.
 * Each middle is refused when the byte after the `|` is added (the bar is
 * removed). */
Test(semantic, reads_are_decided_as_early_as_they_can_be)
{
    static const char *const cases[] = {
        "x = [1]\nx[zz +| 1]",              /* a subscript is never a comprehension */
        "x = [1]\nprint(zz.real|, x)",      /* after a comma, no comprehension */
        "x = [1]\nzz|.",                    /* `name.`: only an attribute can follow */
        "x = [1]\nprint(1, x[0] + z|z",     /* an operand in brackets past a comma: by prefix */
        "a: iint =| 3",                     /* an annotation's name before `=` */
        "def f(a: iint =| 3): pass",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char middle[128];
        const char *bar = strchr(cases[i], '|');
        size_t at = (size_t)(bar - cases[i]);
        snprintf(middle, sizeof middle, "%.*s%s", (int)at, cases[i], bar + 1);
        outcome o = check("", middle, "\n");
        cr_assert_not(o.complete, "%s", cases[i]);
        cr_assert_eq(o.accepted, at, "%s: refused after %zu bytes", cases[i], o.accepted);
    }
    /* still open: a comprehension, a keyword argument, a `:=` target */
    assert_true_middle("", "y = [zz for zz in range(2)]", "\n");
    assert_true_middle("def f(**k):\n    pass\n", "f(1, zz=2)", "\n");
    assert_true_middle("x = [0]\n", "print(x[zz := 0])", "\n");
    /* `match` and `case` at a statement's start are names before a dot */
    outcome o = check("def f(self):\n", "    case.run()", "\n");
    cr_assert_not(o.complete);
    cr_assert_eq(o.accepted, strlen("    case"));
    assert_true_middle("def f(x):\n", "    match x:\n        case 1:\n            pass", "\n");
}

/* The names an f-string's replacement fields read are checked when the
 * string closes: conversions, format specs (and their nested fields),
 * `=`, `{{` and names a comprehension binds are told apart. */
Test(semantic, f_string_fields)
{
    static const struct {
        const char *left, *middle, *right;
        bool complete;
    } cases[] = {
        {"name = 1\n", "print(f\"{namex}\")", "\n", false},
        {"name = 1\n", "print(f\"{name}\")", "\n", true},
        {"name = 1\n", "print(f\"{name!r:>{widthx}}\")", "\n", false},
        {"name = width = 1\n", "print(f\"{name!r:>{width}}\")", "\n", true},
        {"name = 1\n", "print(f\"{name=}\")", "\n", true},
        {"name = 1\n", "print(f\"{{namex}}\")", "\n", true},
        {"", "x = [f\"{v}\" for v in range(3)]", "\n", true},
        {"", "x = [f\"{vx}\" for v in range(3)]", "\n", false},
        {"", "print(f\"{[q for q in range(2)]}\")", "\n", true},
        {"name = 1\n", "print(f\"{name.real} {name:{name}} {name!=2}\")", "\n", true},
        {"name = 1\n", "print(F'''{name}\n{zzz}''')", "\n", false},
        {"name = 1\n", "print(rf\"{name}\\d {max(name, key=abs)}\")", "\n", true},
        {"name = 1\nprint(f'{na", "me}', {name}", "')\n", true},
        {"name = 1\nprint(f'{na", "mex}', {name}", "')\n", false},
        {"name = 1\n", "print('{namex}')", "\n", true},    /* not an f-string */
        /* Python 3.12's f-strings (PEP 701): the same quote nested, comments
         * and line breaks in fields, nested f-strings; 3.14's t-strings */
        {"d = {}\n", "print(f\"{d[\"name\"]} {dx}\")", "\n", false},
        {"d = {}\n", "print(f\"{d[\"name\"]!r:>{len(d)}}\")", "\n", true},
        {"d = {}\n", "print(f\"{f\"{d}\"}\" + f'{\n  d  # the dict\n}')", "\n", true},
        {"d = {}\n", "print(f\"{f\"{dz}\"}\")", "\n", false},
        {"d = {}\n", "print(f\"{d[\"}\"]}\", dx)", "\n", false},
        {"d = {}\n", "print(t\"{d[\"a\"]}\")", "\n", true},
        {"d = {}\n", "print(t\"{dq}\")", "\n", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        outcome o = check(cases[i].left, cases[i].middle, cases[i].right);
        cr_assert_eq(o.complete, cases[i].complete, "%s|%s: %s", cases[i].left, cases[i].middle, o.why.why);
        if (!o.complete)
            cr_assert_eq(o.why.pruner, SX_NAMES);
    }
}

/* A module the middle imports constrains its attributes as one the
 * document imports does, also when the import began before the cursor. */
Test(semantic, imports_in_the_middle)
{
    char dir[64];
    make_workspace(dir);
    sx_env *env = sx_env_new(NULL, dir, NULL);
    unsigned all = (1u << SX_PRUNER_COUNT) - 1;
    static const struct {
        const char *left, *middle;
        bool complete;
    } cases[] = {
        {"", "import shapes\nshapes.UNIT", true},
        {"", "import shapes\nshapes.volume", false},
        {"", "import shapes as sh\nsh.volume", false},
        {"", "import shapes.helpers as h\nh.HELP", true},
        {"", "import shapes.helpers as h\nh.nothere", false},
        {"", "from shapes import helpers\nhelpers.nothere", false},
        {"", "from shapes import area\narea.anything", true},   /* a function: not a module */
        {"import sh", "apes\nshapes.volume", false},
        {"import sh", "apes\nshapes.area(1, height=2)", true},
        {"", "import shapes\nshapes.area(1, depth=2)", false},
        {"", "import deep as shapes\nshapes.UNIT", false},       /* shapes is deep here */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        outcome o = check_with(env, all, cases[i].left, cases[i].middle, "\n");
        cr_assert_eq(o.complete, cases[i].complete, "%s|%s: %s", cases[i].left, cases[i].middle, o.why.why);
    }
    sx_env_free(env);
    remove_workspace(dir);
}

/* A decoding loop's session reads no module: what the document imports
 * (and what those hold under a name) is read when the session opens, and
 * a module past that constrains nothing. */
Test(semantic, cached_only_sessions_read_no_module)
{
    char dir[64];
    make_workspace(dir);
    sx_env *env = sx_env_new(NULL, dir, NULL);
    const char *left = "import shapes\n";
    cr_assert_not(complete_in(env, left, "shapes.helpers.nothere", true));
    cr_assert(complete_in(env, left, "shapes.helpers.HELP", true));
    cr_assert(complete_in(env, left, "shapes.helpers.deep.nothere", true));
    cr_assert_not(complete_in(env, left, "shapes.helpers.deep.nothere", false));
    /* read now: known to the cached-only session too */
    cr_assert_not(complete_in(env, left, "shapes.helpers.deep.nothere", true));
    sx_env_free(env);
    remove_workspace(dir);
}

Test(semantic, attributes_and_keywords_of_workspace_modules)
{
    char dir[64];
    make_workspace(dir);
    sx_env *env = sx_env_new(NULL, dir, NULL);
    cr_assert_not_null(env);
    unsigned all = (1u << SX_PRUNER_COUNT) - 1;

    outcome o = check_with(env, all, "import shapes\n", "print(shapes.area(2, height=3), shapes.UNIT)", "\n");
    cr_assert(o.complete, "%s", o.why.why);
    o = check_with(env, all, "import shapes as sh\n", "sh.Square()", "\n");
    cr_assert(o.complete, "%s", o.why.why);

    o = check_with(env, all, "import shapes\n", "print(shapes.volume)", "\n");
    cr_assert_not(o.complete);
    cr_assert_eq(o.why.pruner, SX_ATTRIBUTES);
    cr_assert_eq(o.accepted, strlen("print(shapes."), "refused at %zu", o.accepted);

    o = check_with(env, all, "import shapes\n", "shapes.area(1, depth=2)", "\n");
    cr_assert_not(o.complete);
    cr_assert_eq(o.why.pruner, SX_KEYWORDS);

    /* A module that cannot be found constrains nothing. */
    o = check_with(env, all, "import nowhere_to_be_found\n", "nowhere_to_be_found.thing", "\n");
    cr_assert(o.complete, "%s", o.why.why);
    bool found = true;
    cr_assert(sx_env_has_attribute(env, "nowhere_to_be_found", "thing", &found));
    cr_assert_not(found);
    cr_assert(sx_env_has_attribute(env, "shapes", "math", &found));
    cr_assert(found);

    sx_env_free(env);
    remove_workspace(dir);
}

/* A decoder tries tokens and takes them back: the answers of one session
 * driven through many middles are those of a fresh session for each. */
Test(semantic, resumed_answers_equal_fresh_ones)
{
    const char *left = "import os\ndef f(alpha, beta):\n";
    const char *right = "\n";
    static const char *middles[] = {
        "    return alpha", "    return alp", "    return alpx", "    return os.pa", "    return os.px",
        "    return [b for b in beta]", "    return [b for c in beta]", "    x = beta\n    return x",
        "    x = beta\n    return y", "    return alpha",
    };
    char text[256];
    snprintf(text, sizeof text, "%s%s", left, right);
    sx_session *s = NULL;
    cr_assert_eq(sx_session_new(NULL, (1u << SX_PRUNER_COUNT) - 1, text, strlen(text), strlen(left), strlen(left), &s),
                 SM_OK);
    for (size_t i = 0; i < sizeof middles / sizeof *middles; i++) {
        for (size_t n = 1; n <= strlen(middles[i]); n++) {
            for (int end = 0; end < 2; end++) {
                sx_session *fresh = NULL;
                cr_assert_eq(sx_session_new(NULL, (1u << SX_PRUNER_COUNT) - 1, text, strlen(text), strlen(left),
                                            strlen(left), &fresh),
                             SM_OK);
                bool want = sx_check(fresh, middles[i], n, end, NULL);
                sx_session_free(fresh);
                cr_assert_eq(sx_check(s, middles[i], n, end, NULL), want, "%.*s (end %d)", (int)n, middles[i], end);
            }
        }
    }
    sx_session_free(s);
}

Test(semantic, the_filter_counts_refusals_by_pruner)
{
    const char *text = "import os\n\n";
    sx_session *s = NULL;
    cr_assert_eq(sx_session_new(NULL, (1u << SX_PRUNER_COUNT) - 1, text, strlen(text), 10, 10, &s), SM_OK);
    cr_assert_null(sx_session_last_refusal(s));
    cr_assert(sx_filter(s, "y = 1 + ", 8, false));
    cr_assert_not(sx_filter(s, "y = 1 + zq", 10, false));
    cr_assert_not(sx_filter(s, "y = 1 + zq", 10, false));
    cr_assert_eq(sx_session_refused(s, SX_NAMES), 2);
    cr_assert_eq(sx_session_refused(s, SX_ATTRIBUTES), 0);
    const sx_refusal *last = sx_session_last_refusal(s);
    cr_assert_not_null(last);
    cr_assert_eq(last->pruner, SX_NAMES);
    cr_assert_eq(sx_session_refused(s, 99), 0);
    sx_session_free(s);
}

/* A session may take the document's tree instead of parsing it: the same
 * answers; a tree of another text is not trusted. */
Test(semantic, a_session_takes_the_documents_tree)
{
    const char *text = "import os\nlimit = 3\n\n";
    const char *other = "import os\nlimit = 3\nsomething_much_longer = [1, 2, 3]\nmore_names_here = 4\n\n";
    size_t at = strlen("import os\nlimit = 3\n");
    TSParser *parser = ts_parser_new();
    cr_assert(ts_parser_set_language(parser, tree_sitter_python()));
    for (int round = 0; round < 3; round++) {
        TSTree *tree = NULL;
        if (round == 1)
            tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
        if (round == 2)
            tree = ts_parser_parse_string(parser, NULL, other, (uint32_t)strlen(other));
        sx_session *s = NULL;
        cr_assert_eq(sx_session_new_tree(NULL, (1u << SX_PRUNER_COUNT) - 1, text, strlen(text), at, at, tree, &s),
                     SM_OK);
        cr_assert(sx_check(s, "print(limit, os.sep)", 20, true, NULL), "round %d", round);
        cr_assert_not(sx_check(s, "print(more_names_here)", 22, true, NULL), "round %d", round);
        sx_session_free(s);
    }
    /* a tree with a selection in the text is not the document's: deleted, not used */
    sx_session *s = NULL;
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
    cr_assert_eq(sx_session_new_tree(NULL, 1, text, strlen(text), 2, 5, tree, &s), SM_OK);
    sx_session_free(s);
    ts_parser_delete(parser);
}

Test(semantic, bad_arguments_are_refused)
{
    sx_session *s = NULL;
    cr_assert_eq(sx_session_new(NULL, 1, "abc", 3, 2, 1, &s), SM_EINVAL);
    cr_assert_eq(sx_session_new(NULL, 1, "abc", 3, 1, 4, &s), SM_EINVAL);
    cr_assert_null(s);
}

Test(semantic, a_deeply_nested_document_is_read_without_exhausting_the_stack)
{
    /* An attribute chain 50,000 long nests as deep in the tree (a
     * recursive walk overflowed its stack at some 8,000 levels): the names
     * after it are still known or, where the walk stopped, left open,
     * never refused. */
    size_t links = 50000;
    const char *head = "x = value", *tail = "\nvalue = 1\n";
    size_t len = strlen(head) + links * 2 + strlen(tail);
    char *text = sm_malloc(len + 1);
    memcpy(text, head, strlen(head));
    for (size_t k = 0; k < links; k++)
        memcpy(text + strlen(head) + 2 * k, ".a", 2);
    memcpy(text + strlen(head) + 2 * links, tail, strlen(tail) + 1);
    sx_session *s = NULL;
    cr_assert_eq(sx_session_new(NULL, (1u << SX_PRUNER_COUNT) - 1, text, len, len, len, &s), SM_OK);
    sx_refusal why = {.pruner = -1};
    cr_assert(sx_check(s, "print(value)", 12, true, &why), "refused: %s", why.why);
    sx_session_free(s);
    sm_free(text);
}

Test(semantic, a_document_too_deep_for_tree_sitter_is_not_given_to_it)
{
    size_t len;
    char *text = seam_test_open_brackets(70000, &len);
    sx_session *s = NULL;
    int rc = sx_session_new(NULL, (1u << SX_PRUNER_COUNT) - 1, text, len, len, len, &s);
    /* Not read: no session, and so nothing refused. */
    cr_assert_neq(rc, SM_OK);
    cr_assert_null(s);
    sm_free(text);
}

/* Modules that write their own namespace in ways their tree does not show
 * constrain nothing; one that only reads globals() still does. */
Test(semantic, modules_that_write_their_namespace_are_open)
{
    static const char *const modules[][2] = {
        {"exec_globals.py", "def _make():\n    exec('def made(): pass', globals())\n\n_make()\n"},
        {"set_self.py", "import set_self\n\ndef _init():\n    setattr(set_self, 'LINES', 24)\n"},
        {"converted.py", "import enum\n\nenum.IntEnum._convert_('Signals', __name__, lambda n: True)\n"},
        {"updated.py", "globals().update({'made': 1})\n"},
        {"assigned.py", "for _n in ('made',):\n    globals()[_n] = 1\n"},
        {"global_enum.py", "import enum\n\n@enum.global_enum\nclass F(enum.IntFlag):\n    A = 1\n"},
        {"reads.py", "_g = globals()\nKNOWN = _g.get('x')\n"},
    };
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/seam-semantic-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    size_t count = sizeof modules / sizeof *modules;
    char path[160];
    for (size_t i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, modules[i][0]);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(modules[i][1], f);
        fclose(f);
    }
    sx_env *env = sx_env_new(NULL, dir, NULL);
    unsigned all = (1u << SX_PRUNER_COUNT) - 1;
    for (size_t i = 0; i + 1 < count; i++) {
        char name[64], left[96], middle[96];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(modules[i][0]) - 3), modules[i][0]);
        snprintf(left, sizeof left, "import %s\n", name);
        snprintf(middle, sizeof middle, "%s.made_or_whatever", name);
        outcome o = check_with(env, all, left, middle, "\n");
        cr_assert(o.complete, "%s: refused: %s", name, o.why.why);
    }
    outcome o = check_with(env, all, "import reads\n", "reads.made", "\n");
    cr_assert_not(o.complete, "a module that only reads globals() is open");
    cr_assert_eq(o.why.pruner, SX_ATTRIBUTES);
    sx_env_free(env);
    for (size_t i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, modules[i][0]);
        unlink(path);
    }
    rmdir(dir);
}

/* A standard library with two compiled modules (slowmod, slowtwo) and a "Python"
 * that never answers: it sleeps past any time limit. */
static void make_slow_python(char dir[64], char python[128])
{
    snprintf(dir, 64, "/tmp/seam-slow-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char path[160];
    snprintf(path, sizeof path, "%s/lib-dynload", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    FILE *f;
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/lib-dynload/%s.cpython-311-x86_64-linux-gnu.so", dir, k ? "slowtwo" : "slowmod");
        f = fopen(path, "w");
        cr_assert_not_null(f);
        fclose(f);
    }
    snprintf(python, 128, "%s/python", dir);
    f = fopen(python, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\nexec sleep 60\n", f);
    fclose(f);
    cr_assert_eq(chmod(python, 0700), 0);
}

static void remove_slow_python(const char *dir, const char *python)
{
    char path[160];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/lib-dynload/%s.cpython-311-x86_64-linux-gnu.so", dir, k ? "slowtwo" : "slowmod");
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/lib-dynload", dir);
    rmdir(path);
    unlink(python);
    rmdir(dir);
}

typedef struct slow_session {
    sx_env *env;
    volatile int done;
} slow_session;

static void *open_slow_session(void *data)
{
    slow_session *s = data;
    const char *text = "import slowmod\nslowmod.\n";
    sx_session *session = NULL;
    sx_session_new(s->env, (1u << SX_PRUNER_COUNT) - 1, text, strlen(text), 23, 23, &session);
    sx_session_free(session);
    s->done = 1;
    return NULL;
}

/* While Python is asked about a module and does not answer, other
 * sessions' lookups of modules read already do not wait for it (the
 * environment's lock is not held across the child), and a session's
 * set-up ends within the environment's budget. */
Test(semantic, a_python_that_never_answers_holds_up_nothing)
{
    char dir[64], python[128], workspace[64];
    make_slow_python(dir, python);
    make_workspace(workspace);
    sx_env *env = sx_env_new(dir, workspace, python);
    cr_assert_not(complete_in(env, "import shapes\n", "shapes.nothere", false)); /* read now */
    slow_session slow = {env, 0};
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, open_slow_session, &slow), 0);
    usleep(300 * 1000);    /* the session is asking Python (5 s at most) */
    cr_assert_not(slow.done);
    bool found;
    cr_assert_not(sx_env_has_attribute(env, "shapes", "nothere", &found));
    cr_assert(found);
    cr_assert_not(slow.done, "a lookup of a module read already waited for Python");
    cr_assert_not(complete_in(env, "import shapes\n", "shapes.nothere", true));
    cr_assert_not(slow.done, "a decoding loop's lookup waited for Python");
    pthread_join(thread, NULL);
    /* with a budget, the set-up gives up on Python in time: slowtwo is
     * then unknown, and constrains nothing */
    sx_env_set_budget(env, 200);
    uint64_t t0 = sm_now_ns();
    cr_assert(complete_in(env, "import slowtwo\n", "slowtwo.anything", true));
    cr_assert_lt(sm_now_ns() - t0, 4000000000ull, "the set-up waited past its budget for Python");
    sx_env_free(env);
    remove_workspace(workspace);
    remove_slow_python(dir, python);
}

/* A fresh folder for a test's modules, and its removal with them. */
static void scratch_dir(char dir[64])
{
    seam_test_scratch(dir, "semantic");
}

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Star imports that fan out: each of 40 packages takes all the names of
 * every other.  A lookup follows each module once (it took F to the depth
 * module visits, minutes, before), and still finds what any of them binds
 * and refuses what none does.  The timeout guards against that hang. */
Test(semantic, star_imports_that_fan_out_cost_each_module_once, .timeout = 30)
{
    char dir[64];
    scratch_dir(dir);
    enum { F = 40 };
    for (int k = 0; k < F; k++) {
        char name[128], text[2048];
        int n = snprintf(text, sizeof text, "V%d = %d\n", k, k);
        for (int j = 0; j < F; j++)
            if (j != k)
                n += snprintf(text + n, sizeof text - (size_t)n, "from fan%d import *\n", j);
        /* packages: each visit of one looks for submodules on disk */
        snprintf(name, sizeof name, "%s/fan%d", dir, k);
        cr_assert_eq(mkdir(name, 0700), 0);
        snprintf(name, sizeof name, "fan%d/__init__.py", k);
        put_file(dir, name, text);
    }
    sx_env *env = sx_env_new(NULL, dir, NULL);
    cr_assert(complete_in(env, "import fan0\n", "fan0.V5", false));
    cr_assert_not(complete_in(env, "import fan0\n", "fan0.missing", false));
    cr_assert_not(complete_in(env, "import fan0\n", "fan0.missing", true));
    cr_assert(complete_in(env, "import fan0\n", "fan0.V39", true));
    sx_env_free(env);
    seam_test_remove_tree(dir);
}

/* A module-level __getattr__ (PEP 562), defined or assigned, answers any
 * name at run time: such a module constrains nothing; one without keeps
 * constraining. */
Test(semantic, a_module_getattr_leaves_the_module_open)
{
    char dir[64];
    scratch_dir(dir);
    put_file(dir, "lazydef.py", "KNOWN = 1\n\ndef __getattr__(name):\n    return name\n");
    put_file(dir, "lazyset.py", "KNOWN = 1\n__getattr__ = lambda name: name\n");
    put_file(dir, "plain.py", "KNOWN = 1\n\ndef helper(name):\n    return name\n");
    sx_env *env = sx_env_new(NULL, dir, NULL);
    cr_assert(complete_in(env, "import lazydef\n", "lazydef.anything", false));
    cr_assert(complete_in(env, "import lazyset\n", "lazyset.anything", false));
    cr_assert_not(complete_in(env, "import plain\n", "plain.anything", false));
    cr_assert(complete_in(env, "import plain\n", "plain.KNOWN", false));
    sx_env_free(env);
    seam_test_remove_tree(dir);
}

/* A workspace module too large to read in the set-up's budget: the set-up
 * stops reading it at the budget (tree-sitter's own time limit) and it
 * constrains nothing then; without a budget it is read and constrains. */
Test(semantic, a_module_too_large_for_the_budget_is_not_waited_for)
{
    char dir[64];
    scratch_dir(dir);
    char path[128];
    snprintf(path, sizeof path, "%s/huge.py", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 70000; i++)   /* about 6 MB, under the 8 MB a module may have */
        fprintf(f, "def function_number_%d(first, second=%d):\n    return [first, second, {'k': %d}]\n", i, i, i);
    fclose(f);
    sx_env *budgeted = sx_env_new(NULL, dir, NULL);
    sx_env_set_budget(budgeted, 5);
    cr_assert(complete_in(budgeted, "import huge\n", "huge.nothere", true), "a module not read in time constrains");
    sx_env_free(budgeted);
    sx_env *unlimited = sx_env_new(NULL, dir, NULL);
    cr_assert_not(complete_in(unlimited, "import huge\n", "huge.nothere", false));
    cr_assert(complete_in(unlimited, "import huge\n", "huge.function_number_69999", false));
    sx_env_free(unlimited);
    seam_test_remove_tree(dir);
}

/* A standard library whose modules write their namespaces at run time
 * (re's flags, signal's enums) is closed again by asking the interpreter
 * for dir() (here a script that answers KNOWN for every module and logs
 * what it was asked), all at once; programs (__main__) and the modules
 * whose import acts (this, antigravity) are never asked and stay open, and
 * neither is the workspace's code. */
Test(semantic, standard_modules_that_write_their_namespace_are_asked_of_python)
{
    char lib[64], workspace[64];
    scratch_dir(lib);
    scratch_dir(workspace);
    static const char *const open_source = "globals().update({'made': 1})\n";
    put_file(lib, "flags.py", open_source);
    put_file(lib, "enums.py", "import enum\n\n@enum.global_enum\nclass F(enum.IntFlag):\n    A = 1\n");
    put_file(lib, "this.py", open_source);
    put_file(lib, "antigravity.py", open_source);
    char path[256];
    snprintf(path, sizeof path, "%s/tool", lib);
    cr_assert_eq(mkdir(path, 0700), 0);
    put_file(lib, "tool/__init__.py", "");
    put_file(lib, "tool/__main__.py", open_source);
    put_file(workspace, "own.py", open_source);
    char script[512];
    snprintf(script, sizeof script,
             "#!/bin/sh\necho child >> %s/asked.log\nshift 6\nfor n; do echo \"$n\" >> %s/asked.log; printf '+%%s\\nKNOWN\\n' \"$n\"; done\n", lib, lib);
    put_file(lib, "python", script);
    char python[128];
    snprintf(python, sizeof python, "%s/python", lib);
    cr_assert_eq(chmod(python, 0700), 0);
    sx_env *env = sx_env_new(lib, workspace, python);
    unsigned all = (1u << SX_PRUNER_COUNT) - 1;
    static const char *const text =
        "import flags, enums, this, antigravity, own\nimport tool.__main__ as m\nx = ";
    sx_session *session = NULL;
    cr_assert_eq(sx_session_new(env, all, text, strlen(text), strlen(text), strlen(text), &session), SM_OK);
    sx_session_free(session);
    static const char *const closed[] = {"flags", "enums"};
    for (size_t i = 0; i < 2; i++) {
        char middle[64];
        snprintf(middle, sizeof middle, "%s.KNOWN", closed[i]);
        cr_assert(check_with(env, all, text, middle, "\n").complete, "%s", middle);
        snprintf(middle, sizeof middle, "%s.made_or_not", closed[i]);
        outcome o = check_with(env, all, text, middle, "\n");
        cr_assert_not(o.complete, "%s: Python's answer closes the module", middle);
        cr_assert_eq(o.why.pruner, SX_ATTRIBUTES);
    }
    static const char *const open[] = {"this.anything", "antigravity.anything", "m.anything", "own.anything"};
    for (size_t i = 0; i < 4; i++)
        cr_assert(check_with(env, all, text, open[i], "\n").complete, "%s stays open", open[i]);
    sx_env_free(env);
    sm_buf asked;
    snprintf(path, sizeof path, "%s/asked.log", lib);
    cr_assert_eq(sm_read_file(path, 1 << 20, &asked), SM_OK);
    cr_assert(strcmp(asked.data, "child\nflags\nenums\n") == 0 || strcmp(asked.data, "child\nenums\nflags\n") == 0,
              "asked at once, and nothing else: %s", asked.data);
    sm_buf_free(&asked);
    seam_test_remove_tree(lib);
    seam_test_remove_tree(workspace);
}

/* With a cache folder, what Python answered is kept for the next run with
 * the same interpreter: a second environment asks no child; an
 * interpreter changed since is asked again. */
Test(semantic, python_answers_are_kept_for_the_next_run)
{
    char lib[64], cache[96];
    scratch_dir(lib);
    snprintf(cache, sizeof cache, "%s/cache", lib);
    cr_assert_eq(mkdir(cache, 0700), 0);
    put_file(lib, "flags.py", "globals().update({'made': 1})\n");
    char script[512];
    snprintf(script, sizeof script,
             "#!/bin/sh\necho child >> %s/asked.log\nshift 6\nfor n; do printf '+%%s\\nKNOWN\\n' \"$n\"; done\n", lib);
    put_file(lib, "python", script);
    char python[128], path[160];
    snprintf(python, sizeof python, "%s/python", lib);
    cr_assert_eq(chmod(python, 0700), 0);
    snprintf(path, sizeof path, "%s/asked.log", lib);
    unsigned all = (1u << SX_PRUNER_COUNT) - 1;
    static const char *const text = "import flags\nx = ";
    for (int run = 0; run < 3; run++) {
        if (run == 2) {
            usleep(20000);
            put_file(lib, "python", script);   /* the interpreter changed */
        }
        sx_env *env = sx_env_new(lib, NULL, python);
        sx_env_set_cache(env, cache);
        cr_assert(check_with(env, all, text, "flags.KNOWN", "\n").complete, "run %d", run);
        outcome o = check_with(env, all, text, "flags.unknown", "\n");
        cr_assert_not(o.complete, "run %d: the answer, asked or kept, closes the module", run);
        sx_env_free(env);
        sm_buf asked;
        cr_assert_eq(sm_read_file(path, 1 << 20, &asked), SM_OK);
        size_t children = 0;
        for (const char *p = asked.data; p && (p = strstr(p, "child")); p++)
            children++;
        sm_buf_free(&asked);
        cr_assert_eq(children, run == 2 ? 2 : 1, "run %d: %zu children asked", run, children);
    }
    seam_test_remove_tree(lib);
}

/* Module summaries are kept in the cache folder with the stat() of the
 * file they were read from: a later environment takes the summary while
 * the file's stat() is the same (here a file rewritten with the same size
 * and its old times put back: the kept summary is the one used), and
 * reads the file again once it changes. */
Test(semantic, module_summaries_are_kept_while_their_file_is_unchanged)
{
    char work[64], cache[96], path[160];
    scratch_dir(work);
    snprintf(cache, sizeof cache, "%s/cache", work);
    cr_assert_eq(mkdir(cache, 0700), 0);
    put_file(work, "shapes.py", "def circle(r): pass\nSQUARE = 1\n");
    snprintf(path, sizeof path, "%s/shapes.py", work);
    unsigned all = (1u << SX_PRUNER_COUNT) - 1;
    static const char *const text = "import shapes\nx = ";
    sx_env *env = sx_env_new(NULL, work, NULL);
    sx_env_set_cache(env, cache);
    cr_assert(check_with(env, all, text, "shapes.SQUARE", "\n").complete);
    cr_assert_not(check_with(env, all, text, "shapes.SQUARF", "\n").complete);
    sx_env_free(env);   /* writes the summaries */

    struct stat before;
    cr_assert_eq(stat(path, &before), 0);
    put_file(work, "shapes.py", "def circle(r): pass\nSQUARF = 1\n");
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    env = sx_env_new(NULL, work, NULL);
    sx_env_set_cache(env, cache);
    cr_assert(check_with(env, all, text, "shapes.SQUARE", "\n").complete, "the kept summary, the file not read");
    sx_env_free(env);

    usleep(20000);
    put_file(work, "shapes.py", "def circle(r): pass\nSQUARF = 1\n");   /* a new modification time */
    env = sx_env_new(NULL, work, NULL);
    sx_env_set_cache(env, cache);
    cr_assert(check_with(env, all, text, "shapes.SQUARF", "\n").complete, "the file changed: read again");
    cr_assert_not(check_with(env, all, text, "shapes.SQUARE", "\n").complete);
    sx_env_free(env);
    seam_test_remove_tree(work);
}
