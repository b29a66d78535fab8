#include "seam_model_client.h"
#include "test_support.h"

#include <string.h>

SEAM_SUITE(model_client);

static char *render(const char *name, const char *prefix, const char *suffix)
{
    const mc_template *tmpl = mc_template_by_name(name);
    cr_assert_not_null(tmpl, "no template %s", name);
    sm_buf out;
    sm_buf_init(&out, 1 << 16);
    cr_assert_eq(mc_template_render(tmpl, prefix, strlen(prefix), suffix, strlen(suffix), &out), SM_OK);
    return sm_buf_take(&out, NULL);
}

Test(model_client, templates_lay_out_each_family)
{
    static const struct { const char *name, *expected; } cases[] = {
        {"starcoder", "<fim_prefix>def f(<fim_suffix>):\n<fim_middle>"},
        {"qwen2.5-coder", "<|fim_prefix|>def f(<|fim_suffix|>):\n<|fim_middle|>"},
        {"codellama", "<PRE> def f( <SUF>):\n <MID>"},
        {"codestral", "[SUFFIX]):\n[PREFIX]def f("},
        {"codegemma", "<|fim_prefix|>def f(<|fim_suffix|>):\n<|fim_middle|>"},
        {"deepseek-coder", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>def f("
                           "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>):\n"
                           "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *prompt = render(cases[i].name, "def f(", "):\n");
        cr_assert_str_eq(prompt, cases[i].expected, "%s", cases[i].name);
        sm_free(prompt);
    }
}

static char *render_project(const char *name, const mc_project *project, const char *prefix, const char *suffix)
{
    const mc_template *tmpl = mc_template_by_name(name);
    cr_assert_not_null(tmpl, "no template %s", name);
    sm_buf out;
    sm_buf_init(&out, 1 << 16);
    cr_assert_eq(mc_template_render_project(tmpl, project, prefix, strlen(prefix), suffix, strlen(suffix), &out),
                 SM_OK);
    return sm_buf_take(&out, NULL);
}

Test(model_client, the_projects_files_take_each_familys_repository_format)
{
    const mc_file_chunk chunks[] = {
        {"pkg/config.py", "def load(path):\n    return path\n", 32},
        {"pkg/store.py", "class Store:\n    pass\n", 22},
    };
    const mc_project project = {.repo = "demo", .path = "app/main.py", .comment = "#", .chunks = chunks, .count = 2};
    /* Qwen2.5-Coder's repository-level layout, as its model card gives it */
    char *qwen = render_project("qwen2.5-coder", &project, "x = lo", "\n");
    cr_assert_str_eq(qwen, "<|repo_name|>demo\n"
                           "<|file_sep|>pkg/config.py\ndef load(path):\n    return path\n"
                           "<|file_sep|>pkg/store.py\nclass Store:\n    pass\n"
                           "<|file_sep|>app/main.py\n"
                           "<|fim_prefix|>x = lo<|fim_suffix|>\n<|fim_middle|>");
    /* StarCoder2's: no line break after the repository's name */
    char *star = render_project("starcoder2", &project, "x = lo", "\n");
    cr_assert_str_eq(star, "<repo_name>demo"
                           "<file_sep>pkg/config.py\ndef load(path):\n    return path\n"
                           "<file_sep>pkg/store.py\nclass Store:\n    pass\n"
                           "<file_sep>app/main.py\n"
                           "<fim_prefix>x = lo<fim_suffix>\n<fim_middle>");
    /* a family without one: comments with the paths, at the prefix's start */
    char *llama = render_project("codellama", &project, "x = lo", "\n");
    cr_assert_str_eq(llama, "<PRE> # pkg/config.py\ndef load(path):\n    return path\n"
                            "# pkg/store.py\nclass Store:\n    pass\n"
                            "# app/main.py\nx = lo <SUF>\n <MID>");
    /* and none at all: the plain prompt */
    char *plain = render_project("qwen2.5-coder", NULL, "x = lo", "\n");
    cr_assert_str_eq(plain, "<|fim_prefix|>x = lo<|fim_suffix|>\n<|fim_middle|>");
    sm_free(qwen);
    sm_free(star);
    sm_free(llama);
    sm_free(plain);
    /* a copy owns its strings */
    mc_project *copy = mc_project_copy(&project);
    cr_assert_str_eq(copy->chunks[1].text, chunks[1].text);
    cr_assert_neq(copy->chunks[1].text, chunks[1].text);
    mc_project_free(copy);
    cr_assert_null(mc_project_copy(NULL));
}

Test(model_client, a_head_too_long_keeps_whole_files_and_the_documents_path)
{
    /* R r | S a a a | S b b | S d : the repository, two files, the document's path */
    const int32_t S = 9;
    const int32_t ids[] = {1, 2, S, 3, 3, 3, S, 4, 4, S, 5};
    uint32_t keep, tail;
    mc_project_fit(ids, 11, S, 11, &keep, &tail);
    cr_assert(keep == 11 && tail == 11, "all of it fits");
    mc_project_fit(ids, 11, S, 8, &keep, &tail);
    cr_assert(keep == 6 && tail == 9, "the first file and the path: %u %u", keep, tail);
    mc_project_fit(ids, 11, S, 4, &keep, &tail);
    cr_assert(keep == 2 && tail == 9, "the repository and the path: %u %u", keep, tail);
    mc_project_fit(ids, 11, S, 3, &keep, &tail);
    cr_assert(keep == 0 && tail == 11, "nothing: %u %u", keep, tail);
    mc_project_fit(ids, 11, -1, 10, &keep, &tail);
    cr_assert(keep == 0 && tail == 11, "without a repository format, all or nothing");
}

Test(model_client, model_names_pick_their_family)
{
    cr_assert_str_eq(mc_template_for_model("Qwen/Qwen2.5-Coder-7B")->name, "qwen2.5-coder");
    cr_assert_str_eq(mc_template_for_model("bigcode/starcoder2-3b")->name, "starcoder2");
    cr_assert_str_eq(mc_template_for_model("codellama:7b-code")->name, "codellama");
    cr_assert_str_eq(mc_template_for_model("deepseek-coder-1.3b-base")->name, "deepseek-coder");
    cr_assert_null(mc_template_for_model("llama3"));
    for (const mc_template *t = mc_templates(); t->name; t++)
        cr_assert_not_null(t->stops[0], "%s has no stop string", t->name);
}
