/*
 * model_cmd.c - `seam model list` and `seam model pull`: the GGUF models
 * seam uses in process, and their download (models/).
 */
#include "seam_server.h"
#include "seam_models.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char srv__model_usage[] =
    "usage: seam model list [--json]\n"
    "       seam model pull NAME [--force] [--json]\n"
    "       seam model pull USER/REPO FILE.gguf [--revision REV] [--force] [--no-verify] [--json]\n"
    "\n"
    "list shows the known fill-in-the-middle models and the GGUF files in the\n"
    "models folder; seam uses the first of those by name when no backend is set.\n"
    "pull downloads a model there from Hugging Face (or HF_ENDPOINT), with the\n"
    "token in HF_TOKEN (or huggingface's token file) when one is needed; an\n"
    "interrupted download resumes when run again, and a file whose SHA-256\n"
    "differs from the server's is deleted.\n";

/* ---- list ---------------------------------------------------------------- */

/* The model a default configuration uses (server/engine.c's rule, without
 * settings): $SEAM_MODEL, else the first file in the folder. */
static char *srv__model_in_use(void)
{
    const char *env = getenv("SEAM_MODEL");
    return env && *env ? sm_strdup(env) : md_first_model();
}

static const md_present *srv__present_named(const md_present *list, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i].name, name) == 0)
            return &list[i];
    return NULL;
}

static void srv__list_json(const char *dir, const char *in_use, const md_present *present, size_t count)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dir", dir);
    if (in_use)
        cJSON_AddStringToObject(o, "in_use", in_use);
    else
        cJSON_AddNullToObject(o, "in_use");
    size_t known_count;
    const md_known *known = md_known_models(&known_count);
    cJSON *k = cJSON_AddArrayToObject(o, "known");
    for (size_t i = 0; i < known_count; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "name", known[i].name);
        cJSON_AddStringToObject(m, "repo", known[i].repo);
        cJSON_AddStringToObject(m, "file", known[i].file);
        cJSON_AddNumberToObject(m, "bytes", (double)known[i].bytes);
        cJSON_AddStringToObject(m, "about", known[i].about);
        const md_present *here = srv__present_named(present, count, known[i].file);
        cJSON_AddBoolToObject(m, "present", here != NULL);
        cJSON_AddItemToArray(k, m);
    }
    cJSON *p = cJSON_AddArrayToObject(o, "present");
    for (size_t i = 0; i < count; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "name", present[i].name);
        cJSON_AddStringToObject(m, "path", present[i].path);
        cJSON_AddNumberToObject(m, "bytes", (double)present[i].bytes);
        cJSON_AddBoolToObject(m, "in_use", in_use && strcmp(in_use, present[i].path) == 0);
        cJSON_AddItemToArray(p, m);
    }
    char *text = cJSON_PrintUnformatted(o);
    printf("%s\n", text);
    cJSON_free(text);
    cJSON_Delete(o);
}

static void srv__list_text(const char *dir, const char *in_use, const md_present *present, size_t count)
{
    size_t known_count;
    const md_known *known = md_known_models(&known_count);
    printf("known fill-in-the-middle models (seam model pull NAME):\n");
    for (size_t i = 0; i < known_count; i++) {
        char size[32];
        md_format_bytes(known[i].bytes, size, sizeof size);
        const md_present *here = srv__present_named(present, count, known[i].file);
        printf("  %-20s %9s  %s%s\n      %s/%s\n", known[i].name, size, known[i].about,
               here ? " [present]" : "", known[i].repo, known[i].file);
    }
    printf("\nin %s:\n", dir);
    if (!count)
        printf("  no model yet: seam serves its small embedded model (try: seam model pull %s)\n", known[0].name);
    for (size_t i = 0; i < count; i++) {
        char size[32];
        md_format_bytes(present[i].bytes, size, sizeof size);
        printf("  %-40s %9s%s\n", present[i].name, size,
               in_use && strcmp(in_use, present[i].path) == 0 ? "  (in use)" : "");
    }
    if (in_use && !srv__present_named(present, count, strrchr(in_use, '/') ? strrchr(in_use, '/') + 1 : in_use))
        printf("\nin use (SEAM_MODEL): %s\n", in_use);
}

static int srv__model_list(bool json)
{
    char dir[4096];
    if (md_models_dir(dir, sizeof dir) != SM_OK) {
        fprintf(stderr, "seam: neither XDG_CACHE_HOME nor HOME is set: there is no models folder\n");
        return 1;
    }
    md_present *present;
    size_t count;
    if (md_present_list(&present, &count) != SM_OK) {
        fprintf(stderr, "seam: cannot list %s\n", dir);
        return 1;
    }
    char *in_use = srv__model_in_use();
    if (json)
        srv__list_json(dir, in_use, present, count);
    else
        srv__list_text(dir, in_use, present, count);
    sm_free(in_use);
    md_present_free(present, count);
    return 0;
}

/* ---- pull ---------------------------------------------------------------- */

/* How the download is shown: a bar on a terminal, a line per tenth
 * elsewhere, JSON Lines with --json. */
typedef struct srv__puller {
    bool json;
    bool tty;
    int last_tenth;
    const char *name;
} srv__puller;

static void srv__pull_json(const md_pull_event *ev)
{
    static const char *const stages[] = {"start", "progress", "retry", "verify", "done"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "event", stages[ev->stage]);
    cJSON_AddNumberToObject(o, "done", (double)ev->done);
    cJSON_AddNumberToObject(o, "total", (double)ev->total);
    if (ev->stage == MD_PULL_START)
        cJSON_AddNumberToObject(o, "resumed_from", (double)ev->resumed_from);
    if (ev->stage == MD_PULL_PROGRESS)
        cJSON_AddNumberToObject(o, "bytes_per_second", (double)(uint64_t)ev->bytes_per_second);
    if (ev->message)
        cJSON_AddStringToObject(o, "message", ev->message);
    if (ev->path)
        cJSON_AddStringToObject(o, "path", ev->path);
    if (ev->sha256) {
        cJSON_AddStringToObject(o, "sha256", ev->sha256);
        cJSON_AddBoolToObject(o, "verified", ev->verified);
    }
    char *text = cJSON_PrintUnformatted(o);
    printf("%s\n", text);
    fflush(stdout);
    cJSON_free(text);
    cJSON_Delete(o);
}

static void srv__pull_bar(const md_pull_event *ev)
{
    char done[32], total[32], speed[32];
    md_format_bytes(ev->done, done, sizeof done);
    md_format_bytes(ev->total, total, sizeof total);
    md_format_bytes((uint64_t)ev->bytes_per_second, speed, sizeof speed);
    if (!ev->total) {
        fprintf(stderr, "\r  %s  %s/s\033[K", done, speed);
        return;
    }
    enum { WIDTH = 30 };
    int filled = (int)((double)ev->done / (double)ev->total * WIDTH);
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    double left = ev->bytes_per_second > 0 ? (double)(ev->total - ev->done) / ev->bytes_per_second : 0;
    fprintf(stderr, "\r  %3d%% [%s] %s / %s  %s/s  %d:%02d left\033[K",
            (int)(100.0 * (double)ev->done / (double)ev->total), bar, done, total, speed,
            (int)left / 60, (int)left % 60);
}

static void srv__pull_event(void *user, const md_pull_event *ev)
{
    srv__puller *s = user;
    if (s->json) {
        srv__pull_json(ev);
        return;
    }
    char total[32], from[32];
    md_format_bytes(ev->total, total, sizeof total);
    md_format_bytes(ev->resumed_from, from, sizeof from);
    switch (ev->stage) {
    case MD_PULL_START:
        if (ev->resumed_from)
            fprintf(stderr, "seam: resuming %s at %s of %s\n", s->name, from, total);
        else
            fprintf(stderr, "seam: downloading %s (%s)\n", s->name, ev->total ? total : "size not stated");
        break;
    case MD_PULL_PROGRESS:
        if (s->tty) {
            srv__pull_bar(ev);
        } else if (ev->total) {
            int tenth = (int)(10 * ev->done / ev->total);
            if (tenth > s->last_tenth) {
                s->last_tenth = tenth;
                fprintf(stderr, "seam: %d%% of %s\n", tenth * 10, total);
            }
        }
        break;
    case MD_PULL_RETRY:
        fprintf(stderr, "%sseam: %s; trying again\n", s->tty ? "\n" : "", ev->message);
        break;
    case MD_PULL_VERIFY:
        if (s->tty)
            srv__pull_bar(ev);
        fprintf(stderr, "%sseam: checking the SHA-256\n", s->tty ? "\n" : "");
        break;
    case MD_PULL_DONE:
        if (ev->verified)
            fprintf(stderr, "seam: %s is whole (SHA-256 %s)\n", ev->path, ev->sha256);
        else
            fprintf(stderr, "seam: %s is in place, unchecked: the server stated no SHA-256 (its own is %s)\n",
                    ev->path, ev->sha256);
        break;
    }
}

/* The Hugging Face token: $HF_TOKEN, else the file $HF_TOKEN_PATH, else
 * $HF_HOME/token (HF_HOME defaults to the cache's huggingface folder), as
 * Hugging Face's own tools read it.  Owned by the caller, or NULL. */
static char *srv__hf_token(void)
{
    const char *env = getenv("HF_TOKEN");
    if (env && *env)
        return sm_strdup(env);
    char path[4096];
    const char *token_path = getenv("HF_TOKEN_PATH"), *hf_home = getenv("HF_HOME");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (token_path && *token_path)
        snprintf(path, sizeof path, "%s", token_path);
    else if (hf_home && *hf_home)
        snprintf(path, sizeof path, "%s/token", hf_home);
    else if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/huggingface/token", xdg);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.cache/huggingface/token", home);
    else
        return NULL;
    sm_buf text;
    if (sm_read_file(path, 4096, &text) != SM_OK)
        return NULL;
    size_t start = 0, end = text.len;
    while (start < end && isspace((unsigned char)text.data[start]))
        start++;
    while (end > start && isspace((unsigned char)text.data[end - 1]))
        end--;
    char *token = end > start ? sm_strndup(text.data + start, end - start) : NULL;
    sm_buf_free(&text);
    return token;
}

static int srv__model_pull(int argc, char **argv)
{
    const char *names[2] = {NULL, NULL};
    int named = 0;
    md_pull_options o;
    md_pull_options_init(&o);
    srv__puller shown = {.tty = isatty(2) != 0};
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            shown.json = true;
        else if (strcmp(argv[i], "--force") == 0)
            o.force = true;
        else if (strcmp(argv[i], "--no-verify") == 0)
            o.no_verify = true;
        else if (strcmp(argv[i], "--revision") == 0 && i + 1 < argc)
            o.revision = argv[++i];
        else if (argv[i][0] != '-' && named < 2)
            names[named++] = argv[i];
        else {
            fputs(srv__model_usage, stderr);
            return 64;
        }
    }
    if (named == 1) {
        const md_known *known = md_known_find(names[0]);
        if (!known) {
            fprintf(stderr, "seam: no known model is called %s (seam model list shows them; "
                            "or give USER/REPO FILE.gguf)\n", names[0]);
            return 1;
        }
        o.repo = known->repo;
        o.file = known->file;
        shown.name = known->name;
    } else if (named == 2) {
        o.repo = names[0];
        o.file = names[1];
        shown.name = names[1];
    } else {
        fputs(srv__model_usage, stderr);
        return 64;
    }
    o.endpoint = getenv("HF_ENDPOINT");
    char *token = srv__hf_token();
    o.token = token;
    o.on_event = srv__pull_event;
    o.user = &shown;
    char error[1024] = "";
    char *path = NULL;
    int rc = md_pull(&o, &path, error, sizeof error);
    if (token) {
        memset(token, 0, strlen(token));
        sm_free(token);
    }
    if (rc != SM_OK) {
        if (shown.json) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "event", "error");
            cJSON_AddStringToObject(e, "message", error);
            char *text = cJSON_PrintUnformatted(e);
            printf("%s\n", text);
            cJSON_free(text);
            cJSON_Delete(e);
        }
        fprintf(stderr, "%sseam: %s\n", shown.tty && !shown.json ? "\n" : "", error);
        return 1;
    }
    if (!shown.json)
        printf("%s\n", path);
    sm_free(path);
    return 0;
}

int srv_cmd_model(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[2], "list") == 0) {
        bool json = argc == 4 && strcmp(argv[3], "--json") == 0;
        if (argc > 4 || (argc == 4 && !json)) {
            fputs(srv__model_usage, stderr);
            return 64;
        }
        return srv__model_list(json);
    }
    if (argc >= 3 && strcmp(argv[2], "pull") == 0)
        return srv__model_pull(argc, argv);
    fputs(srv__model_usage, argc >= 3 && strcmp(argv[2], "--help") == 0 ? stdout : stderr);
    return argc >= 3 && strcmp(argv[2], "--help") == 0 ? 0 : 64;
}
