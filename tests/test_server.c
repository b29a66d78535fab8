#include "seam_server.h"
#include "test_support.h"
#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

SEAM_SUITE(server);

#define PY lg_by_name("python")

Test(server, tree_sitter_parses_valid_python)
{
    const char *source = "import os\n\ndef f(x):\n    return x + 1\n\nclass A:\n    pass\n";
    srv_syntax_summary summary;
    cr_assert_eq(srv_syntax_summarize(PY, source, strlen(source), &summary), SM_OK);
    cr_assert_str_eq(summary.root_type, "module");
    cr_assert_eq(summary.top_level_count, 3);
    cr_assert_not(summary.has_error);
    cr_assert_gt(summary.node_count, 10);
}

Test(server, tree_sitter_locates_a_syntax_error)
{
    const char *source = "x = 1\ndef f(:\n    pass\n";
    srv_syntax_summary summary;
    cr_assert_eq(srv_syntax_summarize(PY, source, strlen(source), &summary), SM_OK);
    cr_assert(summary.has_error);
    cr_assert_eq(summary.error_row, 1);
}

/* Runs `seam check` on `input` and returns what it wrote (free with free). */
static char *run_check(const char *input)
{
    FILE *in = fmemopen((void *)input, strlen(input), "r");
    char *output = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&output, &size);
    char *argv[] = {"seam", "check", "--python-version", "3.11", NULL};
    cr_assert_eq(srv_cmd_check(4, argv, in, out), 0);
    fclose(in);
    fclose(out);
    return output;
}

Test(server, check_answers_each_case_on_its_own_line)
{
    char *output = run_check(
        "{\"id\": 1, \"left\": \"x = \", \"middle\": \"foo(1)\\n\"}\n"
        "{\"id\": \"two\", \"left\": \"x = \", \"middle\": \"foo(1))\\n\"}\n"
        "{\"id\": 3, \"left\": \"\", \"middle\": \"y = 1\\n\", \"right\": \"z\"}\n"
        "this is not JSON\n"
        "{\"id\": 5, \"left\": \"\", \"middle\": \"\xff\"}\n"
        "{\"id\": 6, \"left\": 7, \"middle\": \"\"}\n");
    char *lines[8] = {0};
    size_t count = 0;
    for (char *line = strtok(output, "\n"); line && count < 8; line = strtok(NULL, "\n"))
        lines[count++] = line;
    cr_assert_eq(count, 6, "one line per case");
    cr_assert_not_null(strstr(lines[0], "\"id\":1,\"accepted\":7,\"complete\":true"), "%s", lines[0]);
    cr_assert_not_null(strstr(lines[1], "\"id\":\"two\",\"accepted\":6,\"complete\":false"), "%s", lines[1]);
    cr_assert_not_null(strstr(lines[2], "\"id\":3,\"accepted\":6,\"complete\":true"), "%s", lines[2]);
    cr_assert_not_null(strstr(lines[3], "\"id\":null,\"error\":\"bad JSON\""), "%s", lines[3]);
    cr_assert_not_null(strstr(lines[4], "\"id\":5,\"error\""), "%s", lines[4]);
    cr_assert_not_null(strstr(lines[5], "\"id\":6,\"error\""), "%s", lines[5]);
    free(output);
}

Test(server, settings_numbers_out_of_any_range_are_refused_whole)
{
    cfg_config base, config;
    cfg_init(&base);
    cfg_init(&config);
    char error[256];
    const char *texts[] = {"{\"parse_bytes\": 4e96}", "{\"max_tokens\": -1e300}", "{\"seed\": 1e19}"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        cJSON *json = cJSON_Parse(texts[i]);
        cr_assert_not_null(json);
        cr_expect_neq(srv_config_apply_json(&config, json, &base, NULL, error, sizeof error), SM_OK, "%s", texts[i]);
        cJSON_Delete(json);
    }
    cr_expect_eq(config.parse_bytes, base.parse_bytes);
    cr_expect_eq(config.max_tokens, base.max_tokens);
    cfg_free(&config);
    cfg_free(&base);
}

Test(server, a_shown_completion_is_typed_through_only_as_it_was_shown)
{
    const char *text = "path = \nprint(path)\n";
    int engine = 1, other = 2;
    srv_shown *s = srv_shown_new(text, strlen(text), 7, "os.sep", 6, &engine);
    cr_assert_not_null(s);
    size_t n;
    const char *rest = srv_shown_rest(s, "path = os\nprint(path)\n", strlen(text) + 2, 9, &engine, &n);
    cr_assert(rest && n == 4 && memcmp(rest, ".sep", 4) == 0, "typed 'os': the rest");
    cr_assert_null(srv_shown_rest(s, "path = os\nprint(path)\n", strlen(text) + 2, 9, &other, &n),
                   "another engine (other settings)");
    cr_assert_null(srv_shown_rest(s, text, strlen(text), 7, &engine, &n), "nothing typed: the model is asked");
    cr_assert_null(srv_shown_rest(s, "path = ox\nprint(path)\n", strlen(text) + 2, 9, &engine, &n),
                   "a character it does not show");
    cr_assert_null(srv_shown_rest(s, "path = os\nprint(paths)\n", strlen(text) + 3, 9, &engine, &n),
                   "the text after the cursor changed");
    cr_assert_null(srv_shown_rest(s, "path = os.sep\nprint(path)\n", strlen(text) + 6, 13, &engine, &n),
                   "all of it typed: nothing left");
    cr_assert_eq(n, 0);
    srv_shown_free(s);
    cr_assert_null(srv_shown_new(text, strlen(text), 7, "", 0, &engine), "an empty completion is not kept");
}
