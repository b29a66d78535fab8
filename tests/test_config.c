#include "seam_config.h"
#include "test_support.h"

SEAM_SUITE(config);

Test(config, defaults_need_no_file)
{
    cfg_config config;
    cfg_init(&config);
    cr_assert_eq(config.backend, CFG_BACKEND_EMBEDDED);
    cr_assert_null(config.endpoint);
    cr_assert_gt(config.max_tokens, 0);
    cr_assert_gt(config.timeout_ms, 0);
    cfg_free(&config);
}

Test(config, bad_values_leave_the_configuration_unchanged)
{
    cfg_config config;
    cfg_init(&config);
    char error[128];
    cr_assert_eq(cfg_set(&config, "max_tokens", "128", error, sizeof error), SM_OK);
    cr_assert_eq(config.max_tokens, 128);
    cr_assert_eq(cfg_set(&config, "max_tokens", "-5", error, sizeof error), SM_EINVAL);
    cr_assert_eq(config.max_tokens, 128);
    cr_assert_not_null(strstr(error, "max_tokens"));
    cr_assert_eq(cfg_set(&config, "max_tokens", "12abc", error, sizeof error), SM_EINVAL);
    cr_assert_eq(cfg_set(&config, "backend", "ollama", error, sizeof error), SM_OK);
    cr_assert_eq(config.backend, CFG_BACKEND_OLLAMA);
    cr_assert_eq(cfg_set(&config, "backend", "gpt", error, sizeof error), SM_EINVAL);
    cr_assert_eq(config.backend, CFG_BACKEND_OLLAMA);
    cr_assert_eq(cfg_set(&config, "endpoint", "http://127.0.0.1:8080", error, sizeof error), SM_OK);
    cr_assert_str_eq(config.endpoint, "http://127.0.0.1:8080");
    cr_assert_eq(cfg_set(&config, "multiline", "maybe", error, sizeof error), SM_EINVAL);
    cr_assert_eq(cfg_set(&config, "log_level", "trace", error, sizeof error), SM_OK);
    cr_assert_eq(config.log_level, SM_LOG_TRACE);
    cr_assert_eq(cfg_set(&config, "colour", "blue", error, sizeof error), SM_EINVAL);
    cr_assert_not_null(strstr(error, "unknown setting"));
    cfg_free(&config);
}

Test(config, how_to_ask_llama_cpp_and_whether_to_stream)
{
    cfg_config config;
    cfg_init(&config);
    char error[128];
    cr_assert_eq(config.llamacpp_mode, CFG_LLAMACPP_COMPLETION);
    cr_assert(config.stream);
    cr_assert_eq(cfg_set(&config, "llamacpp_mode", "infill", error, sizeof error), SM_OK);
    cr_assert_eq(config.llamacpp_mode, CFG_LLAMACPP_INFILL);
    cr_assert_eq(cfg_set(&config, "llamacpp_mode", "chat", error, sizeof error), SM_EINVAL);
    cr_assert_not_null(strstr(error, "completion or infill"));
    cr_assert_eq(config.llamacpp_mode, CFG_LLAMACPP_INFILL);
    cr_assert_eq(cfg_set(&config, "stream", "false", error, sizeof error), SM_OK);
    cr_assert_not(config.stream);
    cr_assert_eq(cfg_set(&config, "stream", "sometimes", error, sizeof error), SM_EINVAL);
    cr_assert_not(config.stream);
    cfg_free(&config);
}
