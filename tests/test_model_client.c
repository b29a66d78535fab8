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
