/*
 * complete.c - `seam complete FILE:LINE:COL`: one completion from the
 * command line, on the configured backend (the embedded model by default).
 *
 * LINE and COL are 1-based, COL counted in characters.  Options are the
 * configuration's settings as --name value (dashes or underscores), plus
 * --json and --config FILE.
 */
#include "seam_server.h"

#include "seam_languages.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

typedef struct srv__cli_result {
    mc_completion *completion;
    srv_completion_info info;
    char *error;
    bool done;
    cJSON *context;   /* owned: the project's chunks the prompt carried */
} srv__cli_result;

static void srv__cli_done(void *data, mc_completion *c, const srv_completion_info *info)
{
    srv__cli_result *r = data;
    r->completion = c;
    r->info = *info;
    r->error = info->error ? sm_strdup(info->error) : NULL;
    r->context = srv_project_json(info->project);
    r->done = true;
}

/* The byte offset of 1-based (line, column in characters), or SIZE_MAX. */
static size_t srv__offset_of(const char *text, size_t len, unsigned long line, unsigned long col)
{
    size_t i = 0;
    for (unsigned long l = 1; l < line; l++) {
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            return SIZE_MAX;
        i = (size_t)(nl - text) + 1;
    }
    for (unsigned long c = 1; c < col; c++) {
        if (i >= len || text[i] == '\n' || text[i] == '\r')
            return SIZE_MAX;
        uint32_t cp;
        int n = sm_utf8_decode((const uint8_t *)text + i, len - i, &cp);
        if (n < 0)
            return SIZE_MAX;
        i += (size_t)n;
    }
    return i;
}

/* A token as JSON: its text, or the list of its bytes when it is not whole
 * UTF-8 (a token that ends inside a character): JSON strings hold only
 * UTF-8. */
static cJSON *srv__token_json(const char *bytes, size_t len)
{
    if (sm_utf8_valid((const uint8_t *)bytes, len, false, NULL)) {
        char *t = sm_strndup(bytes, len);
        cJSON *s = cJSON_CreateString(t);
        sm_free(t);
        return s;
    }
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < len; i++)
        cJSON_AddItemToArray(list, cJSON_CreateNumber((uint8_t)bytes[i]));
    return list;
}

static void srv__print_json(const srv__cli_result *r, const srv_engine *e, size_t offset, const srv_request *request,
                            const lg_language *language, const char *dialect)
{
    const lg_scope *scope = &request->scope;
    cJSON *o = cJSON_CreateObject();
    const mc_completion *c = r->completion;
    cJSON_AddStringToObject(o, "language", language->name);
    if (dialect)
        cJSON_AddStringToObject(o, "source_type", dialect);
    srv_add_version(o, language, srv_engine_version(e, language));
    if (language->semantic)
        cJSON_AddStringToObject(o, "packages", srv_engine_packages(e));
    if (r->context)
        cJSON_AddItemReferenceToObject(o, "context", r->context);
    if (c) {
        cJSON_AddStringToObject(o, "completion", c->text);
        cJSON_AddBoolToObject(o, "found", c->found);
        cJSON_AddStringToObject(o, "stop", mc_stop_reason_name(c->reason));
        cJSON *tokens = cJSON_AddArrayToObject(o, "tokens");
        uint32_t start = 0;
        for (uint32_t i = 0; i < c->token_ends.size; i++) {
            uint32_t end = c->token_ends.items[i];
            cJSON_AddItemToArray(tokens, srv__token_json(c->text + start, end - start));
            start = end;
        }
        cJSON_AddNumberToObject(o, "tokens_generated", c->tokens_generated);
        cJSON_AddNumberToObject(o, "round_trips", c->round_trips);
        cJSON_AddNumberToObject(o, "aux_requests", c->aux_requests);
        if (c->prompt_tokens_known) {
            cJSON_AddNumberToObject(o, "prompt_tokens_evaluated", (double)c->prompt_tokens);
            cJSON_AddNumberToObject(o, "prompt_tokens_per_round_trip",
                                    c->round_trips ? (double)c->prompt_tokens / c->round_trips : 0);
        }
        cJSON_AddNumberToObject(o, "rejected", c->rejected);
        cJSON_AddNumberToObject(o, "rejected_past_lines", c->past_lines);
        cJSON_AddNumberToObject(o, "vocabulary_masks", c->extended);
        cJSON_AddBoolToObject(o, "empty_refused", c->empty_refused);
        cJSON_AddBoolToObject(o, "widened", c->widened);
        cJSON_AddBoolToObject(o, "partial", c->partial);
        if (r->info.semantic) {
            /* Candidates each semantic pruner refused. */
            cJSON *refused = cJSON_AddObjectToObject(o, "semantic_refused");
            for (int p = 0; p < SX_PRUNER_COUNT; p++)
                cJSON_AddNumberToObject(refused, sx_pruners[p].name, r->info.semantic_refused[p]);
        }
        cJSON *t = cJSON_AddObjectToObject(o, "timings_us");
        cJSON_AddNumberToObject(t, "setup", (double)(r->info.setup_ns / 1000));
        cJSON_AddNumberToObject(t, "filter", (double)(c->filter_ns / 1000));
        cJSON_AddNumberToObject(t, "decode", (double)(c->total_ns / 1000));
        cJSON_AddNumberToObject(t, "total", (double)(r->info.total_ns / 1000));
        if (c->error) {
            sm_utf8_scrub(c->error);   /* a model server's words */
            cJSON_AddStringToObject(o, "error", c->error);
        }
    } else {
        cJSON_AddStringToObject(o, "completion", "");
        cJSON_AddBoolToObject(o, "found", false);
        cJSON_AddStringToObject(o, "error", r->error ? r->error : "no completion");
    }
    cJSON_AddStringToObject(o, "backend", cfg_backend_name(srv_engine_config(e)->backend));
    srv_memory mem;
    if (srv_engine_memory(e, &mem)) {
        cJSON *m = cJSON_AddObjectToObject(o, "memory_bytes");
        cJSON_AddNumberToObject(m, "weights", (double)mem.weights);
        cJSON_AddNumberToObject(m, "kv_cache", (double)mem.kv_cache);
        cJSON_AddNumberToObject(m, "vocabulary", (double)mem.vocabulary);
        cJSON_AddNumberToObject(m, "context_tokens", mem.n_ctx);
        cJSON_AddNumberToObject(m, "cached_documents", mem.documents);
    }
    cJSON_AddNumberToObject(o, "offset", (double)offset);
    cJSON *sc = cJSON_AddObjectToObject(o, "scope");
    cJSON_AddStringToObject(sc, "kind", lg_scope_kind_name(scope->kind));
    cJSON_AddNumberToObject(sc, "max_lines", scope->max_lines);
    cJSON_AddNumberToObject(sc, "cut_left", (double)request->options.contexts.cut_left);
    cJSON_AddNumberToObject(sc, "cut_right", (double)request->options.contexts.cut_right);
    cJSON_AddStringToObject(sc, "node", scope->node_type ? scope->node_type : "");
    if (r->completion || r->info.binding_why) {
        /* How much of the code after the cursor bound the completion. */
        cJSON *b = cJSON_AddObjectToObject(o, "binding");
        cJSON_AddStringToObject(b, "kind", srv_binding_name(r->info.binding));
        cJSON_AddStringToObject(b, "why", r->info.binding_why ? r->info.binding_why : "");
    }
    char *s = cJSON_PrintUnformatted(o);
    puts(s);
    cJSON_free(s);
    cJSON_Delete(o);
}

static void srv__walk_close(uv_handle_t *handle, void *arg)
{
    if (!uv_is_closing(handle))
        uv_close(handle, NULL);
}

int srv_cmd_complete(int argc, char **argv)
{
    const char *where = NULL;
    bool json = false;
    cfg_config config;
    cfg_init(&config);
    char error[512];
    int status = 0;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--json") == 0) {
            json = true;
        } else if (strncmp(arg, "--", 2) == 0 && i + 1 < argc) {
            char name[64];
            snprintf(name, sizeof name, "%s", arg + 2);
            for (char *p = name; *p; p++)
                if (*p == '-')
                    *p = '_';
            if (strcmp(name, "config") == 0) {
                if (srv_config_load_file(&config, argv[++i], NULL, error, sizeof error) != SM_OK) {
                    fprintf(stderr, "seam: %s\n", error);
                    cfg_free(&config);
                    return 2;
                }
                continue;
            }
            if (cfg_set(&config, name, argv[++i], error, sizeof error) != SM_OK) {
                fprintf(stderr, "seam: %s\n", error);
                cfg_free(&config);
                return 2;
            }
        } else if (!where && arg[0] != '-') {
            where = arg;
        } else {
            fprintf(stderr, "seam: unexpected argument '%s'\n", arg);
            cfg_free(&config);
            return 64;
        }
    }
    if (!where) {
        fprintf(stderr, "usage: seam complete FILE:LINE:COL [--json] [--backend NAME] [--SETTING VALUE]...\n");
        cfg_free(&config);
        return 64;
    }
    /* FILE:LINE:COL, where FILE may itself hold colons. */
    char *spec = sm_strdup(where);
    char *c2 = strrchr(spec, ':');
    char *c1 = NULL;
    if (c2) {
        *c2 = '\0';
        c1 = strrchr(spec, ':');
    }
    char *end1 = NULL, *end2 = NULL;
    /* (strtoul takes "-1" for ULONG_MAX: only digits are a number here) */
    bool digits = c1 && c2 && c1[1] >= '0' && c1[1] <= '9' && c2[1] >= '0' && c2[1] <= '9';
    unsigned long line = digits ? strtoul(c1 + 1, &end1, 10) : 0;
    unsigned long col = digits ? strtoul(c2 + 1, &end2, 10) : 0;
    if (!digits || !end1 || *end1 || !end2 || *end2 || line == 0 || col == 0) {
        fprintf(stderr, "seam: expected FILE:LINE:COL with LINE and COL from 1, not '%s'\n", where);
        sm_free(spec);
        cfg_free(&config);
        return 64;
    }
    *c1 = '\0';
    sm_buf text;
    int rc = srv_read_file(spec, &text);
    if (rc) {
        fprintf(stderr, "seam: cannot read %s: %s\n", spec, rc == SM_EIO ? strerror(errno) : sm_strerror(rc));
        sm_buf_free(&text);
        sm_free(spec);
        cfg_free(&config);
        return 1;
    }
    /* a file in no language seam completes is not read as Python */
    const lg_language *language = srv_language_of(&config, NULL, spec, text.data, text.len, error, sizeof error);
    if (!language) {
        fprintf(stderr, "seam: %s\n", error);
        sm_buf_free(&text);
        sm_free(spec);
        cfg_free(&config);
        return 1;
    }
    size_t offset = srv__offset_of(text.data ? text.data : "", text.len, line, col);
    if (offset == SIZE_MAX) {
        fprintf(stderr, "seam: %lu:%lu is outside %s\n", line, col, spec);
        sm_buf_free(&text);
        sm_free(spec);
        cfg_free(&config);
        return 1;
    }

    uv_loop_t loop;
    uv_loop_init(&loop);
    sm_logger logger;
    sm_logger_init(&logger, config.log_level);
    srv_engine *engine;
    char *folder = sm_strdup(spec);
    char *real = NULL;   /* malloc'd by realpath */
    const char *dir = dirname(folder);                    /* the file's folder is the workspace */
    rc = srv_engine_new(&loop, &config, dir, NULL, &logger, &engine, error, sizeof error);
    if (rc) {
        fprintf(stderr, "seam: %s\n", error);
        sm_free(folder);
        status = 1;
        goto out;
    }
    /* the project the file is in: where its imports are looked for */
    real = realpath(spec, NULL);
    char *root = srv_project_root(real ? real : spec);
    srv_engine_set_workspace(engine, root);
    sm_free(root);
    sm_free(folder);
    /* A local model loads off the loop; one completion waits for it, and
     * a model that does not load is an error of the settings, as any. */
    while (srv_engine_loading(engine) && uv_run(&loop, UV_RUN_ONCE))
        ;
    if (srv_engine_load_error(engine)) {
        fprintf(stderr, "seam: %s\n", srv_engine_load_error(engine));
        srv_engine_free(engine);
        status = 1;
        goto out;
    }
    if (srv_engine_config(engine)->backend == CFG_BACKEND_EMBEDDED && !srv_engine_usable(engine)) {
        /* The file's folder is the workspace; the file itself comes first. */
        mc_corpus corpus;
        char *dir_copy = sm_strdup(spec);
        srv_engine_corpus(engine, &corpus, dirname(dir_copy));
        sm_free(dir_copy);
        mc_corpus_add_text(&corpus, text.data ? text.data : "", text.len);
        srv_engine_train(engine, &corpus);
        mc_corpus_free(&corpus);
    }
    /* The completion's shape, where it must stay, and the contexts the
     * recognizer needs. */
    const char *body = text.data ? text.data : "";
    srv_tree *tree = srv_tree_new(language, body, text.len);
    srv_request request;
    const char *dialect = srv_dialect_of(srv_engine_config(engine), language, spec, body, text.len);
    srv_request_prepare(&request, srv_engine_config(engine), language, dialect, tree, body, text.len, offset, true);
    request.options.tree = srv_tree_copy(tree);
    request.options.path = real ? real : spec;
    const lg_scope *scope = &request.scope;
    sm_log(&logger, SM_LOG_DEBUG, "scope %s at %s, %u lines, recognizer contexts [%zu, %zu)",
           lg_scope_kind_name(scope->kind), scope->node_type, scope->max_lines, request.options.contexts.cut_left,
           request.options.contexts.cut_right);
    srv__cli_result result = {0};
    rc = srv_engine_complete(engine, body, text.len, offset, &request.options, srv__cli_done, &result, NULL);
    if (rc == SM_OK)
        while (!result.done && uv_run(&loop, UV_RUN_ONCE))
            ;
    if (!result.done) {
        fprintf(stderr, "seam: the completion did not finish\n");
        status = 1;
    } else if (json) {
        srv__print_json(&result, engine, offset, &request, language, dialect);
    } else if (result.completion) {
        fwrite(result.completion->text, 1, result.completion->len, stdout);
        putchar('\n');
    }
    if (result.done && (!result.completion || result.completion->reason == MC_STOP_ERROR)) {
        const char *msg = result.error ? result.error
                          : result.completion && result.completion->error ? result.completion->error
                                                                          : "no completion";
        fprintf(stderr, "seam: %s\n", msg);
        status = 1;
    }
    mc_completion_free(result.completion);
    cJSON_Delete(result.context);
    sm_free(result.error);
    srv_rec_cache_free(result.info.cache);
    srv_tree_free(tree);
    srv_engine_free(engine);
out:
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_walk(&loop, srv__walk_close, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    sm_logger_close(&logger);
    free(real);
    sm_buf_free(&text);
    sm_free(spec);
    cfg_free(&config);
    return status;
}
