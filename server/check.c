/*
 * check.c - `seam check`: the recognizer as a command-line oracle.
 *
 * Reads JSON Lines on stdin, one case a line:
 *   {"id": ..., "left": "...", "right": "...", "middle": "..."}
 * and writes one line a case:
 *   {"id": ..., "accepted": A, "complete": C, "setup_us": S, "feed_us": F}
 * A is the number of UTF-8 bytes of the middle that stayed viable when fed
 * one code point at a time; C whether left+middle+right is a valid program;
 * S the microseconds to open the recognizer on the left context; F the
 * microseconds spent feeding the middle and asking can_end.  With a right
 * context, viable and complete are relative to it (some continuation c
 * makes left+middle+c+right valid; left+middle+right is valid) and S covers
 * building the recognizer for both contexts.  "can_end_us" is the part of F
 * spent in the final can_end.  A case that cannot be checked
 * gets {"id": ..., "error": "..."} and the next line is read.
 *
 * With "semantic": true (and optionally "pruners": ["names", ...]), the
 * result also holds "semantic": {"accepted": A, "complete": C, "pruner":
 * P, "why": W, "at": O}: the pruners' answer on the same middle, fed the
 * same way (A bytes before the first refusal; C whether the whole middle
 * is accepted at its end; P and W the pruner that refused and why, O the
 * offset in the middle of the lexeme it refused).
 *
 * With "typing": true the code after the cursor binds the middle only as
 * far as it is written, as in a completion (request.c): the result adds
 * "binding" ("whole", "line" or "end") and "binding_why", and "complete"
 * is that binding's end.
 */
#include "seam_parser.h"
#include "seam_semantic.h"
#include "seam_server.h"
#include "seam_languages.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#define SRV_MAX_CASE_BYTES (64u << 20)

/* Prints one result object (built with cJSON) as a line. */
static void srv__emit(FILE *out, cJSON *result)
{
    char *line = cJSON_PrintUnformatted(result);
    if (line) {
        fputs(line, out);
        fputc('\n', out);
        cJSON_free(line);
    }
    fflush(out);
}

static void srv__emit_error(FILE *out, const cJSON *id, const char *message)
{
    cJSON *result = cJSON_CreateObject();
    cJSON_AddItemToObject(result, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON_AddStringToObject(result, "error", message);
    srv__emit(out, result);
    cJSON_Delete(result);
}

/* A string field's text: "" when the field is absent, NULL when it is not a
 * string.  (cJSON ends strings at a NUL, so text holding "\u0000" arrives
 * cut short there.) */
static const char *srv__field(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    if (!item)
        return "";
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The mask of pruners a case names ("pruners": [...]), all by default. */
static unsigned srv__pruner_mask(const cJSON *request)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(request, "pruners");
    if (!cJSON_IsArray(list))
        return (1u << SX_PRUNER_COUNT) - 1;
    unsigned mask = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
        for (int p = 0; p < SX_PRUNER_COUNT; p++)
            if (cJSON_IsString(item) && strcmp(item->valuestring, sx_pruners[p].name) == 0)
                mask |= 1u << p;
    return mask;
}

/* The semantic pruners on left + middle + right, fed code point by code
 * point as the recognizer is. */
static cJSON *srv__check_semantic(sx_env *env, unsigned pruners, const char *left, const char *middle, const char *right)
{
    size_t left_len = strlen(left), middle_len = strlen(middle), right_len = strlen(right);
    char *text = sm_malloc(left_len + right_len + 1);
    memcpy(text, left, left_len);
    memcpy(text + left_len, right, right_len + 1);
    cJSON *out = cJSON_CreateObject();
    sx_session *session;
    if (sx_session_new(env, pruners, text, left_len + right_len, left_len, left_len, &session) != SM_OK) {
        cJSON_AddStringToObject(out, "error", "the document cannot be read");
        sm_free(text);
        return out;
    }
    sx_refusal why = {.pruner = -1};
    size_t accepted = 0;
    bool refused = false;
    while (accepted < middle_len) {
        uint32_t code_point;
        int width = sm_utf8_decode((const uint8_t *)middle + accepted, middle_len - accepted, &code_point);
        if (width < 0)
            break;
        if (!sx_check(session, middle, accepted + (size_t)width, false, &why)) {
            refused = true;
            break;
        }
        accepted += (size_t)width;
    }
    bool complete = !refused && accepted == middle_len && sx_check(session, middle, middle_len, true, &why);
    cJSON_AddNumberToObject(out, "accepted", (double)accepted);
    cJSON_AddBoolToObject(out, "complete", complete);
    if (why.pruner >= 0) {
        cJSON_AddStringToObject(out, "pruner", sx_pruners[why.pruner].name);
        cJSON_AddStringToObject(out, "why", why.why);
        cJSON_AddNumberToObject(out, "at", (double)why.at);
    }
    sx_session_free(session);
    sm_free(text);
    return out;
}

/* Runs one case and writes its result line.  With `cut`, the recognizer
 * gets only the statements around the cursor (srv_scope_at's cut points);
 * with `typing`, the code after the cursor binds as far as the request
 * pipeline finds it written (srv_contexts_of), else it binds whole. */
static void srv__check_case(FILE *out, const lg_language *language, const ep_grammar *grammar, const cJSON *id,
                            const char *left, const char *middle, const char *right, bool cut, bool typing,
                            cJSON *semantic)
{
    size_t left_len = strlen(left), middle_len = strlen(middle), right_len = strlen(right);
    if (!sm_utf8_valid((const uint8_t *)left, left_len, false, NULL) ||
        !sm_utf8_valid((const uint8_t *)middle, middle_len, false, NULL) ||
        !sm_utf8_valid((const uint8_t *)right, right_len, false, NULL)) {
        srv__emit_error(out, id, "invalid UTF-8");
        cJSON_Delete(semantic);
        return;
    }
    size_t len = left_len + right_len;
    char *whole = sm_malloc(len + 1);
    memcpy(whole, left, left_len);
    memcpy(whole + left_len, right, right_len + 1);
    /* the set-up every front end makes, with the case's cut and binding */
    cfg_config config;
    cfg_init(&config);
    srv_request request;
    srv_request_setup(&request, &config, language, NULL, NULL, whole, len, left_len, true, cut, !typing);
    cfg_free(&config);
    const srv_contexts contexts = request.options.contexts;

    uint64_t start = sm_now_ns();
    srv_rec_cache *cache = sm_calloc(1, sizeof *cache);
    srv_bound bound;
    int rc = srv_bound_open(grammar, whole, len, left_len, &contexts, cache, &bound);
    if (rc) {
        srv__emit_error(out, id, sm_strerror(rc));
        cJSON_Delete(semantic);
        srv_rec_cache_free(cache);
        sm_free(whole);
        return;
    }
    ep_recognizer *rec = bound.rec;
    bool viable = ep_viable(rec);
    uint64_t setup_done = sm_now_ns();
    size_t accepted = 0;
    while (viable && accepted < middle_len) {
        uint32_t code_point;
        int width = sm_utf8_decode((const uint8_t *)middle + accepted, middle_len - accepted, &code_point);
        if (width < 0 || ep_feed(rec, middle + accepted, (size_t)width) != 1)
            break;
        accepted += (size_t)width;
    }
    uint64_t end_start = sm_now_ns();
    bool fell_back = false;
    bool complete = viable && accepted == middle_len && srv_bound_can_end(&bound, middle, middle_len, &fell_back);
    uint64_t feed_done = sm_now_ns();

    cJSON *result = cJSON_CreateObject();
    cJSON_AddItemToObject(result, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON_AddNumberToObject(result, "accepted", viable ? (double)accepted : 0);
    cJSON_AddBoolToObject(result, "complete", complete);
    cJSON_AddNumberToObject(result, "setup_us", (double)(setup_done - start) / 1000.0);
    cJSON_AddNumberToObject(result, "feed_us", (double)(feed_done - setup_done) / 1000.0);
    cJSON_AddNumberToObject(result, "can_end_us", (double)(feed_done - end_start) / 1000.0);
    if (semantic)
        cJSON_AddItemToObject(result, "semantic", semantic);
    if (cut) {
        cJSON_AddNumberToObject(result, "cut_left", (double)contexts.cut_left);
        cJSON_AddNumberToObject(result, "cut_right", (double)contexts.cut_right);
        cJSON_AddBoolToObject(result, "cut_fell_back", fell_back);
    }
    if (typing) {
        cJSON_AddStringToObject(result, "binding", srv_binding_name(bound.binding));
        cJSON_AddStringToObject(result, "binding_why", bound.why ? bound.why : "");
    }
    srv_rec_cache_free(cache);
    sm_free(whole);
    srv__emit(out, result);
    cJSON_Delete(result);
}

/* Reads one line into `line` (capped); returns false at end of input.  A
 * line over the cap is consumed and reported as too long. */
static bool srv__read_line(FILE *in, sm_buf *line, bool *too_long)
{
    sm_buf_clear(line);
    *too_long = false;
    int c;
    bool any = false;
    while ((c = fgetc(in)) != EOF) {
        any = true;
        if (c == '\n')
            return true;
        char byte = (char)c;
        if (!*too_long && sm_buf_append(line, &byte, 1) != SM_OK)
            *too_long = true;
    }
    return any;
}

const ep_grammar *srv_grammars_of(srv_grammars *grammars, const lg_language *language, int version, char *error,
                                  size_t error_size)
{
    size_t index = lg_index(language);
    int variant = language->dialects ? version - 1 : version - language->oldest_version;   /* 0: one grammar */
    if (index >= SRV_MAX_LANGUAGES || variant < 0 || variant >= SRV_MAX_VARIANTS) {
        /* ep_grammar_of says why */
        ep_grammar *none = NULL;
        if (ep_grammar_of(language, version, &none, error, error_size) == SM_OK) {
            ep_grammar_free(none);
            snprintf(error, error_size, "%s has more versions than seam keeps grammars for", language->name);
        }
        return NULL;
    }
    ep_grammar **slot = &grammars->by_variant[index][variant];
    if (!*slot && ep_grammar_of(language, version, slot, error, error_size) != SM_OK)
        return NULL;
    return *slot;
}

const ep_grammar *srv_grammars_dialect(srv_grammars *grammars, const lg_language *language, const char *dialect,
                                       char *error, size_t error_size)
{
    if (!language->dialects)
        return srv_grammars_of(grammars, language, language->oldest_version ? language->default_version : 0, error,
                               error_size);
    int number = dialect ? lg_dialect(language, dialect) : 1;
    if (number <= 0) {
        snprintf(error, error_size, "%s has no dialect \"%.40s\"", language->name, dialect ? dialect : "");
        return NULL;
    }
    return srv_grammars_of(grammars, language, number, error, error_size);
}

void srv_grammars_free(srv_grammars *grammars)
{
    for (size_t i = 0; i < SRV_MAX_LANGUAGES; i++)
        for (size_t v = 0; v < SRV_MAX_VARIANTS; v++) {
            ep_grammar_free(grammars->by_variant[i][v]);
            grammars->by_variant[i][v] = NULL;
        }
}

int srv_cmd_check(int argc, char **argv, FILE *in, FILE *out)
{
    srv_grammars grammars = {0};
    for (int i = 2; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--python-path") == 0) {
            grammars.python_path = argv[++i];
            continue;
        }
        if (i + 1 < argc && strcmp(argv[i], "--language") == 0) {
            grammars.language = argv[++i];
            continue;
        }
        if (i + 1 < argc && strcmp(argv[i], "--source-type") == 0) {
            grammars.dialect = argv[++i];
            continue;
        }
        int v = i + 1 < argc && strcmp(argv[i], "--python-version") == 0 ? cfg_python_version_parse(argv[++i]) : -2;
        if (v < 0) {
            fprintf(stderr, "seam: check takes --language NAME, --source-type module|script, --python-version auto|3.9 .. 3.14 and --python-path P%s\n",
                    v == -1 ? " (bad version)" : "");
            return 64;
        }
        grammars.version = v;
    }
    char error[256];
    const lg_language *first = lg_languages()[0];
    if (!srv_grammars_of(&grammars, first, first->default_version ? first->default_version : 1, error,
                         sizeof error)) {
        fprintf(stderr, "seam: the built-in %s grammar does not compile: %s\n", first->name, error);
        return 1;
    }
    sx_env *env = NULL;
    srv_check_cases(&grammars, &env, in, out);
    sx_env_free(env);
    srv_grammars_free(&grammars);
    return 0;
}

/* A version as a case or a flag gives it ("3.12", "auto": 0) for a
 * language with versions; -1 when it is none of them. */
static int srv__version_parse(const lg_language *language, const char *text)
{
    if (strcmp(text, "auto") == 0)
        return 0;
    char *end;
    long major = strtol(text, &end, 10);
    if (end == text || *end != '.' || end[1] < '0' || end[1] > '9')
        return -1;
    long minor = strtol(end + 1, &end, 10);
    long version = major * 100 + minor;
    if (*end || minor > 99 || version < language->oldest_version || version > language->newest_version)
        return -1;
    return (int)version;
}

/* The grammar of a case: its "language", else the command's, else the
 * registry's first (a language seam does not know is an error of the
 * case); in its "source_type" (else the command's) for a language with
 * dialects; in its "NAME_version" ("python_version"), else the command's,
 * for a language with versions, where auto is what the project of the
 * working folder says. */
static const ep_grammar *srv__case_grammar(srv_grammars *grammars, const cJSON *request,
                                           const lg_language **language_out, char *error, size_t error_size)
{
    const cJSON *named = cJSON_GetObjectItemCaseSensitive(request, "language");
    if (named && !cJSON_IsString(named)) {
        snprintf(error, error_size, "language must be a string");
        return NULL;
    }
    const char *language = named              ? named->valuestring
                           : grammars->language ? grammars->language
                                                : lg_languages()[0]->name;
    const lg_language *found = srv_language_named(language, error, error_size);
    *language_out = found;
    if (!found)
        return NULL;
    if (found->dialects) {
        const cJSON *source_type = cJSON_GetObjectItemCaseSensitive(request, "source_type");
        if (source_type && !cJSON_IsString(source_type)) {
            snprintf(error, error_size, "source_type must be a string");
            return NULL;
        }
        return srv_grammars_dialect(grammars, found, source_type ? source_type->valuestring : grammars->dialect,
                                    error, error_size);
    }
    if (!found->oldest_version)
        return srv_grammars_of(grammars, found, 0, error, error_size);   /* one grammar */
    char key[64];
    snprintf(key, sizeof key, "%s_version", found->name);
    const cJSON *asked = cJSON_GetObjectItemCaseSensitive(request, key);
    int version = grammars->version;
    if (asked) {
        version = cJSON_IsString(asked) ? srv__version_parse(found, asked->valuestring) : -1;
        if (version < 0) {
            snprintf(error, error_size, "%s must be \"auto\" or \"%d.%d\" .. \"%d.%d\"", key,
                     found->oldest_version / 100, found->oldest_version % 100, found->newest_version / 100,
                     found->newest_version % 100);
            return NULL;
        }
    }
    size_t slot = lg_index(found);
    if (version == 0 && slot < SRV_MAX_LANGUAGES) {
        /* the working folder's project, looked up once for the run */
        lg_version_choice *choice = &grammars->auto_versions[slot];
        if (!choice->version) {
            choice->version = found->default_version;
            if (found->choose_version) {
                cfg_config defaults;
                cfg_init(&defaults);
                found->choose_version(&defaults, ".", choice);
                cfg_free(&defaults);
            }
        }
        version = choice->version;
    }
    return srv_grammars_of(grammars, found, version, error, error_size);
}

void srv_check_cases(srv_grammars *grammars, struct sx_env **env_io, FILE *in, FILE *out)
{
    sx_env *env = *env_io;
    sm_buf line;
    sm_buf_init(&line, SRV_MAX_CASE_BYTES);
    bool too_long;
    while (srv__read_line(in, &line, &too_long)) {
        if (too_long) {
            srv__emit_error(out, NULL, "case too long");
            continue;
        }
        if (line.len == 0)
            continue;
        cJSON *request = cJSON_ParseWithLength(line.data, line.len);
        if (!request || !cJSON_IsObject(request)) {
            srv__emit_error(out, NULL, "bad JSON");
            cJSON_Delete(request);
            continue;
        }
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(request, "id");
        const char *left = srv__field(request, "left");
        const char *middle = srv__field(request, "middle");
        const char *right = srv__field(request, "right");
        char why[256];
        const ep_grammar *grammar = NULL;
        const lg_language *language = NULL;
        if (!left || !middle || !right)
            srv__emit_error(out, id, "left, middle and right must be strings");
        else if (!(grammar = srv__case_grammar(grammars, request, &language, why, sizeof why)))
            srv__emit_error(out, id, why);
        else {
            cJSON *semantic = NULL;
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(request, "semantic"))) {
                if (!env) {
                    cfg_config config;
                    cfg_init(&config);
                    config.python_path = grammars->python_path ? sm_strdup(grammars->python_path) : NULL;
                    env = sx_env_for_project(&config, NULL, NULL, NULL, 0);
                    cfg_free(&config);
                }
                semantic = srv__check_semantic(env, srv__pruner_mask(request), left, middle, right);
            }
            srv__check_case(out, language, grammar, id, left, middle, right,
                            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(request, "cut")),
                            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(request, "typing")), semantic);
        }
        cJSON_Delete(request);
    }
    sm_buf_free(&line);
    *env_io = env;
}
