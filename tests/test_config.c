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

/* Every setting can be returned to another configuration's value: a
 * configuration where each one was changed, reset name by name, ends equal
 * to the base. */
Test(config, every_setting_resets_to_the_base_value)
{
    cfg_config base, config;
    cfg_init(&base);
    char error[128];
    cr_assert_eq(cfg_set(&base, "model", "base-model", error, sizeof error), SM_OK);
    cfg_copy(&config, &base);
    const char *changes[][2] = {
        {"backend", "openai"}, {"endpoint", "http://127.0.0.1:9"}, {"model", "other"}, {"template", "starcoder"},
        {"template_format", "{prefix}<m>{suffix}"}, {"template_stops", "<m>"}, {"api_key_env", "KEY"},
        {"log_file", "/tmp/seam.log"}, {"log_level", "debug"}, {"temperature", "0.5"}, {"top_p", "0.5"},
        {"max_tokens", "7"}, {"max_lines", "2"}, {"widen_lines", "3"}, {"widen_tokens", "30"}, {"timeout_ms", "9"}, {"candidates", "3"}, {"run_ahead", "2"},
        {"seed", "5"}, {"connect_timeout_ms", "7"}, {"first_byte_timeout_ms", "7"}, {"request_timeout_ms", "7"},
        {"retries", "0"}, {"context_bytes", "300"}, {"context_files", "false"}, {"context_files_bytes", "100"}, {"corpus_bytes", "9"}, {"debounce_ms", "1"},
        {"max_message_bytes", "5000"}, {"parse_bytes", "4096"}, {"multiline", "false"}, {"decode_ahead", "false"}, {"tls_verify", "false"}, {"escape_guard", "false"},
        {"cut_contexts", "false"}, {"train_stdlib", "false"}, {"disk_cache", "false"}, {"language", "python"}, {"llamacpp_mode", "infill"}, {"stream", "false"}, {"model_path", "/tmp/m.gguf"}, {"mask_every_step", "true"}, {"cached_documents", "2"},
        {"semantic", "false"}, {"semantic_names", "false"}, {"semantic_attributes", "false"}, {"semantic_keywords", "false"},
        {"python_version", "3.12"}, {"python_path", "/tmp/venv/bin/python"}, {"workspace_trusted", "true"},
        {"source_type", "module"},
    };
    size_t n = sizeof changes / sizeof *changes;
    size_t names = 0;
    for (const char *const *name = cfg_names(); *name; name++)
        names++;
    cr_assert_eq(n, names, "each known setting is changed once");
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(cfg_set(&config, changes[i][0], changes[i][1], error, sizeof error), SM_OK, "%s", error);
    cr_assert_not(cfg_equal(&config, &base));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(cfg_reset(&config, changes[i][0], &base), SM_OK, "%s", changes[i][0]);
    cr_assert(cfg_equal(&config, &base), "every setting back: equal to the base");
    for (size_t i = 0; i < n; i++) {
        cfg_config one;
        cfg_copy(&one, &base);
        cr_assert_eq(cfg_set(&one, changes[i][0], changes[i][1], error, sizeof error), SM_OK, "%s", error);
        cr_assert_not(cfg_equal(&one, &base), "a change of %s is seen", changes[i][0]);
        cfg_free(&one);
    }
    cr_assert_str_eq(config.model, "base-model");
    cr_assert_null(config.endpoint);
    cr_assert_null(config.log_file);
    cr_assert_null(config.model_path);
    cr_assert_null(config.python_path);
    cfg_config defaults;
    cfg_init(&defaults);
    cr_assert_eq(config.python_version, 0, "back to auto");
    cr_assert_eq(config.backend, defaults.backend);
    cr_assert_eq(config.max_tokens, defaults.max_tokens);
    cr_assert_eq(config.max_message_bytes, defaults.max_message_bytes);
    cr_assert_eq(config.temperature, defaults.temperature);
    cr_assert_eq(config.multiline, defaults.multiline);
    cr_assert_eq(config.stream, defaults.stream);
    cr_assert_eq(config.llamacpp_mode, defaults.llamacpp_mode);
    cr_assert_eq(config.log_level, defaults.log_level);
    cr_assert_eq(cfg_reset(&config, "colour", &base), SM_EINVAL);
    cfg_free(&config);
    cfg_free(&base);
}

Test(config, python_version_is_auto_or_a_known_version)
{
    cr_assert_eq(cfg_python_version_parse("auto"), 0);
    cr_assert_eq(cfg_python_version_parse("3.9"), 309);
    cr_assert_eq(cfg_python_version_parse("3.14"), 314);
    const char *bad[] = {"3.8", "3.15", "3", "3.", "3.x", "4.0", "3.12.1", "3.-1", "", "Auto"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(cfg_python_version_parse(bad[i]), -1, "%s", bad[i]);
    cfg_config config;
    cfg_init(&config);
    char error[256];
    cr_assert_eq(config.python_version, 0, "auto by default");
    cr_assert_eq(cfg_set(&config, "python_version", "3.15", error, sizeof error), SM_EINVAL);
    cr_assert(strstr(error, "3.9 to 3.14"), "%s", error);
    cr_assert_eq(config.python_version, 0);
    cfg_free(&config);
}
