/* The project's other files as the model's context (context/): which
 * chunks are picked for a cursor, within the budget, in an order that
 * stays put from one request to the next. */
#include "seam_context.h"
#include "test_support.h"

#include <string.h>

static const char *const py_definers[] = {"def", "class", NULL};
static const char *const py_modifiers[] = {"async", NULL};
static const cx_rules py_rules = {py_definers, py_modifiers};
static const char *const js_definers[] = {"function", "class", "const", "let", "var", "interface", "type", NULL};
static const char *const js_modifiers[] = {"export", "default", "async", NULL};
static const cx_rules js_rules = {js_definers, js_modifiers};

static const char *helpers_py =
    "import os\n"
    "\n"
    "\n"
    "def load_settings(path, strict=False):\n"
    "    with open(path) as f:\n"
    "        return f.read()\n"
    "\n"
    "\n"
    "def unrelated(x):\n"
    "    return x + 1\n"
    "\n"
    "\n"
    "class Store:\n"
    "    def __init__(self, root):\n"
    "        self.root = root\n";

static const char *main_py =
    "from helpers import load_settings, Store\n"
    "\n"
    "\n"
    "def run(path):\n"
    "    s = load_settings(";

static cx_query query_of(const char *text, size_t budget)
{
    cx_query q = {.text = text, .len = strlen(text), .offset = strlen(text), .path = "main.py", .budget = budget};
    return q;
}

/* The picked chunk whose text holds `needle`, or -1. */
static int find_chunk(const cx_picked *p, const char *needle)
{
    for (uint32_t i = 0; i < p->chunks.size; i++)
        if (strstr(p->chunks.items[i].text, needle))
            return (int)i;
    return -1;
}

Test(context, the_definition_of_a_name_used_at_the_cursor_is_picked_first)
{
    cx_source s = {"helpers.py", helpers_py, strlen(helpers_py), CX_IMPORTED, 0};
    /* room for one definition only */
    cx_query q = query_of(main_py, 90);
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    cr_assert_eq(p.chunks.size, 1);
    cr_assert(strstr(p.chunks.items[0].text, "def load_settings(path, strict=False):"), "%s", p.chunks.items[0].text);
    cr_assert_str_eq(p.chunks.items[0].path, "helpers.py");
    cr_assert_eq(p.chunks.items[0].line, 3);
    cr_assert_leq(p.bytes, 90);
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, the_budget_bounds_the_chunks_and_the_document_itself_is_never_picked)
{
    cx_source s[] = {
        {"helpers.py", helpers_py, strlen(helpers_py), CX_IMPORTED, 0},
        {"main.py", main_py, strlen(main_py), CX_OPEN, 0},
    };
    for (size_t budget = 0; budget < 400; budget += 37) {
        cx_query q = query_of(main_py, budget);
        cx_picked p;
        cx_picked_init(&p);
        cx_pick(&py_rules, &q, s, 2, NULL, NULL, &p);
        size_t sum = 0;
        for (uint32_t i = 0; i < p.chunks.size; i++) {
            cr_assert_str_neq(p.chunks.items[i].path, "main.py");
            cr_assert_eq(p.chunks.items[i].text[p.chunks.items[i].len - 1], '\n');
            sum += p.chunks.items[i].len;
        }
        cr_assert_eq(sum, p.bytes);
        cr_assert_leq(p.bytes, budget, "budget %zu: %zu bytes", budget, p.bytes);
        cx_picked_free(&p);
    }
    seam_test_check_leaks();
}

Test(context, a_chunk_with_nothing_in_common_with_the_cursor_is_left_out)
{
    const char *far = "def zebra_quux(a):\n    return a\n";
    cx_source s = {"far.py", far, strlen(far), CX_OPEN, 0};
    cx_query q = query_of(main_py, 4096);
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    cr_assert_eq(p.chunks.size, 0);
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, the_same_text_twice_is_given_once)
{
    cx_source s[] = {
        {"helpers.py", helpers_py, strlen(helpers_py), CX_IMPORTED, 0},
        {"copy/helpers.py", helpers_py, strlen(helpers_py), CX_OPEN, 0},
    };
    cx_query q = query_of(main_py, 1 << 16);
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&py_rules, &q, s, 2, NULL, NULL, &p);
    int found = 0;
    for (uint32_t i = 0; i < p.chunks.size; i++) {
        if (p.chunks.items[i].outline)
            continue;
        const char *t = p.chunks.items[i].text;
        for (const char *at = strstr(t, "def load_settings"); at; at = strstr(at + 1, "def load_settings"))
            found++;
    }
    cr_assert_eq(found, 1);
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, a_chunk_holding_a_control_string_is_left_out)
{
    const char *tricky = "def load_settings(path):\n    return '<|file_sep|>'\n";
    cx_source s = {"tricky.py", tricky, strlen(tricky), CX_OPEN, 0};
    const char *const banned[] = {"<|file_sep|>", NULL};
    cx_query q = query_of(main_py, 4096);
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&py_rules, &q, &s, 1, banned, NULL, &p);
    cr_assert_eq(p.chunks.size, 0);
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    cr_assert_eq(p.chunks.size, 1);
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, chunks_kept_from_the_last_request_keep_their_places)
{
    const char *more = "def load_cache(path):\n    return path\n\n\ndef load_index(path):\n    return path\n";
    cx_source s[] = {
        {"helpers.py", helpers_py, strlen(helpers_py), CX_IMPORTED, 0},
        {"more.py", more, strlen(more), CX_OPEN, 0},
    };
    cx_memory memory = {0};
    cx_picked first, second;
    cx_picked_init(&first);
    cx_picked_init(&second);
    cx_query q = query_of(main_py, 4096);
    cx_pick(&py_rules, &q, s, 2, NULL, &memory, &first);
    cr_assert_geq(first.chunks.size, 2);
    /* the person types on: the word at the cursor now names more.py's
     * definitions, which rank higher, but what the prompt held stays first
     * and in its order */
    const char *typed = "from helpers import load_settings, Store\n\n\ndef run(path):\n    s = load_settings(path)\n"
                        "    c = load_";
    cx_query q2 = query_of(typed, 4096);
    cx_pick(&py_rules, &q2, s, 2, NULL, &memory, &second);
    cr_assert_geq(second.chunks.size, first.chunks.size);
    for (uint32_t i = 0; i < first.chunks.size; i++) {
        cr_assert_str_eq(second.chunks.items[i].path, first.chunks.items[i].path);
        cr_assert_eq(second.chunks.items[i].line, first.chunks.items[i].line);
    }
    cr_assert(find_chunk(&second, "def load_cache") >= 0, "the new definitions come after the kept ones");
    cx_picked_free(&first);
    cx_picked_free(&second);
    cx_memory_free(&memory);
    seam_test_check_leaks();
}

Test(context, a_better_chunk_takes_the_room_of_the_last_kept_ones)
{
    /* three small open files picked first, then the person types a name
     * another file defines: its chunk needs room, and the kept chunk at the
     * end of the prompt's order gives it up, not the first */
    const char *a = "def alpha_one(path):\n    return path\n";
    const char *b = "def beta_two(path):\n    return path\n";
    const char *c = "def gamma_three(path):\n    return path\n";
    const char *d = "def delta_four(path, mode):\n    return path\n";
    cx_source s[] = {
        {"a.py", a, strlen(a), CX_OPEN, 0}, {"b.py", b, strlen(b), CX_OPEN, 1}, {"c.py", c, strlen(c), CX_OPEN, 2},
        {"d.py", d, strlen(d), CX_OPEN, 3},
    };
    const char *doc = "x = alpha_one(path)\ny = beta_two(path)\nz = gamma_three(path)\nw = ";
    cx_memory memory = {0};
    cx_picked first, second;
    cx_picked_init(&first);
    cx_picked_init(&second);
    /* room for three of the four */
    cx_query q = {.text = doc, .len = strlen(doc), .offset = strlen(doc), .path = "main.py", .budget = 125};
    cx_pick(&py_rules, &q, s, 4, NULL, &memory, &first);
    cr_assert_eq(first.chunks.size, 3);
    cr_assert_eq(find_chunk(&first, "delta_four"), -1);
    /* further down, the person calls delta_four: the others are no longer near */
    const char *typed = "x = alpha_one(path)\ny = beta_two(path)\nz = gamma_three(path)\n"
                        "#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n"
                        "v = delta_four(path, 1)\nw = delta_";
    cx_query q2 = {.text = typed, .len = strlen(typed), .offset = strlen(typed), .path = "main.py", .budget = 125};
    cx_pick(&py_rules, &q2, s, 4, NULL, &memory, &second);
    cr_assert_eq(second.chunks.size, 3);
    cr_assert_eq(find_chunk(&second, "delta_four"), 2, "the new chunk last");
    /* the first two entries as they were: the cached prefix holds */
    cr_assert_str_eq(second.chunks.items[0].text, first.chunks.items[0].text);
    cr_assert_str_eq(second.chunks.items[1].text, first.chunks.items[1].text);
    cx_picked_free(&first);
    cx_picked_free(&second);
    cx_memory_free(&memory);
    seam_test_check_leaks();
}

Test(context, adjacent_chunks_of_a_file_are_one_entry_in_file_order)
{
    const char *two = "def load_settings(path):\n    return path\n\n\nclass Store:\n    pass\n";
    cx_source s = {"helpers.py", two, strlen(two), CX_OPEN, 0};
    cx_query q = query_of(main_py, 4096);
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    cr_assert_eq(p.chunks.size, 1, "one entry for the file's adjacent chunks");
    /* the blank lines between them are one */
    cr_assert_str_eq(p.chunks.items[0].text, "def load_settings(path):\n    return path\n\nclass Store:\n    pass\n");
    cr_assert_eq(p.bytes, p.chunks.items[0].len);
    /* with a chunk between them not picked, two entries, in file order */
    cx_source h = {"helpers.py", helpers_py, strlen(helpers_py), CX_OPEN, 0};
    cx_pick(&py_rules, &q, &h, 1, NULL, NULL, &p);
    int settings = find_chunk(&p, "def load_settings"), store = find_chunk(&p, "class Store");
    cr_assert(settings >= 0 && store >= 0);
    cr_assert_eq(find_chunk(&p, "def unrelated"), -1);
    cr_assert_eq(store, settings + 1);
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, an_imported_module_has_an_outline_of_its_definitions)
{
    /* a module larger than the budget */
    char module[4096];
    int n = snprintf(module, sizeof module, "%s\n\ndef big(x):\n", helpers_py);
    for (int i = 0; i < 40; i++)
        n += snprintf(module + n, sizeof module - (size_t)n, "    x += %d\n", i);
    snprintf(module + n, sizeof module - (size_t)n, "    return x\n");
    cx_source s = {"helpers.py", module, strlen(module), CX_IMPORTED, 0};
    /* `helpers.` before the cursor: the module's definitions are wanted,
     * and no name says which; its outline holds every signature */
    const char *typing = "import helpers\n\n\ndef run(path):\n    s = helpers.";
    cx_query q = {.text = typing, .len = strlen(typing), .offset = strlen(typing), .path = "main.py", .budget = 480};
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    int at = -1;
    for (uint32_t i = 0; i < p.chunks.size; i++)
        if (p.chunks.items[i].outline)
            at = (int)i;
    cr_assert_geq(at, 0);
    cr_assert_str_eq(p.chunks.items[at].text, "def load_settings(path, strict=False):\ndef unrelated(x):\n"
                                              "class Store:\n    def __init__(self, root):\ndef big(x):\n");
    cr_assert_leq(p.bytes, 480);
    cr_assert_str_eq(p.chunks.items[at].path, "helpers.py");
    /* with room for the whole module, the outline would tell nothing new */
    q.budget = 4096;
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    for (uint32_t i = 0; i < p.chunks.size; i++)
        cr_assert_not(p.chunks.items[i].outline);
    /* an open document that is not imported has none */
    s.origin = CX_OPEN;
    cx_pick(&py_rules, &q, &s, 1, NULL, NULL, &p);
    for (uint32_t i = 0; i < p.chunks.size; i++)
        cr_assert_not(p.chunks.items[i].outline);
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, javascript_definitions_behind_export_are_read)
{
    const char *util = "export function formatDate(d) {\n  return d.toISOString();\n}\n\n"
                       "export const MAX_ITEMS = 20;\n\nexport default class Cart {\n}\n";
    cr_assert(cx_defines(&js_rules, util, strlen(util), "formatDate", 10));
    cr_assert(cx_defines(&js_rules, util, strlen(util), "MAX_ITEMS", 9));
    cr_assert(cx_defines(&js_rules, util, strlen(util), "Cart", 4));
    cr_assert_not(cx_defines(&js_rules, util, strlen(util), "toISOString", 11));
    const char *main_js = "import { formatDate } from './util.js';\n\nconst label = formatDate(";
    cx_source s = {"util.js", util, strlen(util), CX_IMPORTED, 0};
    cx_query q = {.text = main_js, .len = strlen(main_js), .offset = strlen(main_js), .path = "main.js", .budget = 80};
    cx_picked p;
    cx_picked_init(&p);
    cx_pick(&js_rules, &q, &s, 1, NULL, NULL, &p);
    cr_assert_eq(p.chunks.size, 1);
    cr_assert(strstr(p.chunks.items[0].text, "export function formatDate(d)"));
    cx_picked_free(&p);
    seam_test_check_leaks();
}

Test(context, python_definitions_and_top_level_assignments_are_read)
{
    const char *t = "async def fetch(url):\n    pass\n\nTIMEOUT = 3\nlimit: int = 4\nif x == 1:\n    pass\n"
                    "else:\n    pass\n";
    cr_assert(cx_defines(&py_rules, t, strlen(t), "fetch", 5));
    cr_assert(cx_defines(&py_rules, t, strlen(t), "TIMEOUT", 7));
    cr_assert(cx_defines(&py_rules, t, strlen(t), "limit", 5));
    cr_assert_not(cx_defines(&py_rules, t, strlen(t), "x", 1));
    cr_assert_not(cx_defines(&py_rules, t, strlen(t), "else", 4));
    seam_test_check_leaks();
}
