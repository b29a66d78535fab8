/*
 * lsp.c - the language server: JSON-RPC over a byte stream, documents, and
 * completions as LSP 3.18 inline completions and as completion items.
 *
 * The server is a state machine fed bytes (srv_lsp_feed) that writes framed
 * messages through a callback, so the same code serves stdio, a TCP client
 * and the tests.  Completions run as engine jobs: the recognizer's set-up in
 * libuv's thread pool, the decoding on the loop, so reading goes on while a
 * completion is computed.  A newer completion request for a document, or
 * $/cancelRequest, cancels the older one with RequestCancelled.
 */
#include "seam_server.h"

#include "seam_languages.h"

#include <tree_sitter/api.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum {
    SRV__PARSE_ERROR = -32700,
    SRV__INVALID_REQUEST = -32600,
    SRV__METHOD_NOT_FOUND = -32601,
    SRV__INVALID_PARAMS = -32602,
    SRV__INTERNAL_ERROR = -32603,
    SRV__SERVER_NOT_INITIALIZED = -32002,
    SRV__REQUEST_CANCELLED = -32800,
};

enum { SRV__MAX_DOCS = 1024, SRV__CLOSED_KEPT = 8 };

typedef enum srv__state { SRV__UNINITIALIZED, SRV__RUNNING, SRV__SHUT_DOWN, SRV__EXITED } srv__state;

typedef struct srv__doc {
    lsp_document *doc;
    srv_tree *tree;                /* tree-sitter's view, kept up to date (NULL until the
                                      first completion tells its language) */
    const lg_language *tree_language;  /* the language `tree` is in */
    srv_rec_cache *cache;          /* the recognizer of the last completion */
    srv_shown *shown;              /* the inline completion last shown, for typing through it */
    srv_shown *next;               /* the one after it, decoded ahead (decode_ahead) */
    struct srv__pending *active;   /* the completion in flight */
    struct srv__pending *ahead;    /* the job decoding `next`, no reply */
    bool language_told;            /* the log said its language is not one seam completes */
    uint64_t touched;              /* the lsp's edit_clock when last opened or edited */
    /* the dialect it is read in, and the language and source_type setting
     * it was decided for */
    const char *dialect;
    const lg_language *dialect_language;
    const char *dialect_config;
} srv__doc;

typedef struct srv__pending {
    srv_lsp *lsp;
    cJSON *id;                     /* owned */
    char *uri;
    bool inline_kind;              /* inlineCompletion, else completion */
    bool automatic;
    uv_timer_t debounce;
    bool timer_open;
    srv_job *job;
    bool replied;
    size_t offset;                 /* the cursor, in bytes */
    size_t replace_from;           /* start of the text the item replaces */
    char *prefix;                  /* text the item repeats before the completion */
    char *text;                    /* the document as it was (owned), for ranges */
    size_t text_len;
    char *job_text;                /* the text the job completes (owned) */
    size_t job_len, job_offset;
    srv_request request;           /* the completion's scope and options */
    const srv_engine *engine;      /* the engine the job runs on (alive until it ends) */
    struct TSTree *tree;           /* owned until the job takes it: job_text's tree, or NULL */
    uint64_t received_ns;
    bool ahead;                    /* decoding ahead: no request of the editor's, no reply */
    cJSON *waiter_id, *waiter_params;  /* owned: the request waiting for this one ahead */
} srv__pending;

struct srv_lsp {
    uv_loop_t *loop;
    srv_lsp_write_cb write;
    void *write_data;
    sm_logger *logger;
    lsp_framer framer;
    cfg_config config;
    cfg_config base_config;        /* before the editor's settings: a null resets to it */
    lsp_encoding encoding;
    srv__state state;
    int exit_code;
    srv_engine *engine;
    srv_engine *next_engine;       /* loading its model; the engine in use serves until it has */
    char *workspace;
    SM_ARRAY(srv__doc *) docs;
    SM_ARRAY(srv__pending *) pending;
    uint64_t edit_clock;           /* counts openings and edits, to order documents by recency */
    SM_ARRAY(char *) closed;       /* owned: files of documents closed lately, the latest last */
    uint32_t completions_served;
    bool pull_configuration;       /* the client answers workspace/configuration */
    uint32_t config_request;       /* id of our last workspace/configuration, 0: none */
    uint32_t next_request;
    /* Progress while the embedded model trains (window/workDoneProgress). */
    bool progress_supported;       /* the client creates progress tokens */
    uint32_t progress_request;     /* id of our last workDoneProgress/create, 0: none */
    uint32_t progress_token;       /* the number in the token "seam/training/N" */
    bool progress_begun;
    bool training;
    bool told_docs_limit;          /* the cap on open documents was shown once */
    bool message_has_nul;          /* the message being handled escapes a NUL character */
    bool initialized;              /* the client sent "initialized": we may send requests */
    /* seam/status notifications, for clients that ask for them
     * (capabilities.experimental.seamStatus): an editor extension's
     * status bar. */
    bool status_supported;
    char status_sent[1024];        /* state, backend, model and message last sent */
    /* the language and dialect (static) of the document last completed, for
     * the status; NULL before any */
    const char *status_language, *status_dialect;
};

/* ---- Output -------------------------------------------------------------------- */

static void srv__send(srv_lsp *lsp, cJSON *message)
{
    char *body = cJSON_PrintUnformatted(message);
    cJSON_Delete(message);
    if (!body)
        return;
    sm_buf out;
    sm_buf_init(&out, (size_t)1 << 30);
    if (lsp_frame(&out, body, strlen(body)) == SM_OK)
        lsp->write(lsp->write_data, out.data, out.len);
    sm_buf_free(&out);
    cJSON_free(body);
}

static cJSON *srv__message(void)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    return m;
}

static void srv__reply(srv_lsp *lsp, const cJSON *id, cJSON *result)
{
    cJSON *m = srv__message();
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON_AddItemToObject(m, "result", result ? result : cJSON_CreateNull());
    srv__send(lsp, m);
}

static void srv__reply_error(srv_lsp *lsp, const cJSON *id, int code, const char *message)
{
    cJSON *m = srv__message();
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    srv__send(lsp, m);
}

static void srv__notify(srv_lsp *lsp, const char *method, cJSON *params)
{
    cJSON *m = srv__message();
    cJSON_AddStringToObject(m, "method", method);
    cJSON_AddItemToObject(m, "params", params);
    srv__send(lsp, m);
}

/* Whether a downloaded model would serve: no backend was chosen, the
 * embedded model serves because no GGUF file was found, and this seam can
 * run one in process.  Editors offer `seam model pull` then. */
static bool srv__offers_model(const srv_lsp *lsp, const cfg_config *used)
{
#ifdef SEAM_HAVE_INPROC
    return !lsp->config.backend_chosen && used->backend == CFG_BACKEND_EMBEDDED;
#else
    (void)lsp;
    (void)used;
    return false;
#endif
}

/* seam/status: "training" (the embedded model), "loading" (a local model;
 * the message is its path), "ready", "unreachable"
 * (the model backend failed; the message says how) or "slow" (the last
 * completion's time ran out before the model gave anything), sent when it
 * changes to clients that asked for it. */
static void srv__status(srv_lsp *lsp, const char *state, const char *message)
{
    if (!lsp->status_supported || !lsp->initialized)
        return;
    /* The engine's own configuration: a model found on the machine makes
     * it the llama backend where the settings said nothing. */
    const cfg_config *used = lsp->engine ? srv_engine_config(lsp->engine) : &lsp->config;
    const char *model = used->backend == CFG_BACKEND_LLAMA ? used->model_path : NULL;
    bool offer = srv__offers_model(lsp, used);
    /* the versions chosen so far (each once its language is first read) */
    char versions[128] = "";
    for (const lg_language *const *l = lg_languages(); lsp->engine && *l; l++) {
        const lg_version_choice *v = srv_engine_version(lsp->engine, *l);
        size_t used_len = strlen(versions);
        if (v && used_len < sizeof versions)
            snprintf(versions + used_len, sizeof versions - used_len, "%s %d;", (*l)->name, v->version);
    }
    char key[sizeof lsp->status_sent];
    snprintf(key, sizeof key, "%s\n%s\n%s\n%s\n%d\n%s\n%s\n%s", state, cfg_backend_name(used->backend),
             message ? message : "", model ? model : "", offer, lsp->status_language ? lsp->status_language : "",
             lsp->status_dialect ? lsp->status_dialect : "", versions);
    if (strcmp(key, lsp->status_sent) == 0)
        return;
    memcpy(lsp->status_sent, key, sizeof key);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "state", state);
    cJSON_AddStringToObject(p, "backend", cfg_backend_name(used->backend));
    if (model)
        cJSON_AddStringToObject(p, "model", model);
    if (offer)
        cJSON_AddBoolToObject(p, "offer_model", true);
    if (lsp->status_language)
        cJSON_AddStringToObject(p, "language", lsp->status_language);
    if (lsp->status_dialect)
        cJSON_AddStringToObject(p, "source_type", lsp->status_dialect);
    /* the version of each language with versions the project is read in */
    for (const lg_language *const *l = lg_languages(); lsp->engine && *l; l++)
        srv_add_version(p, *l, srv_engine_version(lsp->engine, *l));
    if (message) {
        /* (a model server's words: not always UTF-8) */
        char text[sizeof lsp->status_sent];
        snprintf(text, sizeof text, "%s", message);
        sm_utf8_scrub(text);
        cJSON_AddStringToObject(p, "message", text);
    }
    srv__notify(lsp, "seam/status", p);
}

/* window/showMessage (show) or window/logMessage; type 1 error .. 4 log. */
static void srv__tell(srv_lsp *lsp, bool show, int type, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void srv__tell(srv_lsp *lsp, bool show, int type, const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    sm_utf8_scrub(text);   /* (what a model server said, or a cut in a character) */
    sm_log(lsp->logger, type == 1 ? SM_LOG_ERROR : type == 2 ? SM_LOG_WARN : SM_LOG_INFO, "%s", text);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "type", type);
    cJSON_AddStringToObject(p, "message", text);
    srv__notify(lsp, show ? "window/showMessage" : "window/logMessage", p);
}

/* ---- Documents --------------------------------------------------------------------- */

static srv__doc *srv__find_doc(srv_lsp *lsp, const char *uri, uint32_t *index)
{
    for (uint32_t i = 0; i < lsp->docs.size; i++) {
        if (strcmp(lsp->docs.items[i]->doc->uri, uri) == 0) {
            if (index)
                *index = i;
            return lsp->docs.items[i];
        }
    }
    return NULL;
}

static const char *srv__string(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool srv__position(const cJSON *obj, lsp_position *out)
{
    const cJSON *line = cJSON_GetObjectItemCaseSensitive(obj, "line");
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(obj, "character");
    if (!cJSON_IsNumber(line) || !cJSON_IsNumber(ch) || line->valuedouble < 0 || ch->valuedouble < 0 ||
        line->valuedouble > 4e9 || ch->valuedouble > 4e9)
        return false;
    out->line = (uint32_t)line->valuedouble;
    out->character = (uint32_t)ch->valuedouble;
    return true;
}

static void srv__cancel_pending(srv_lsp *lsp, srv__pending *p, const char *why);
static char *srv__uri_to_path(const char *uri);

/* Stops tracking docs[index]: its completion in flight ends. */
/* Frees a document and what it keeps (its completion in flight is the
 * caller's to cancel first). */
static void srv__doc_free(srv__doc *d)
{
    lsp_document_free(d->doc);
    srv_rec_cache_free(d->cache);
    srv_shown_free(d->shown);
    srv_shown_free(d->next);
    srv_tree_free(d->tree);
    sm_free(d);
}

static void srv__forget_doc(srv_lsp *lsp, uint32_t index)
{
    srv__doc *d = lsp->docs.items[index];
    if (d->active)
        srv__cancel_pending(lsp, d->active, "the document was closed");
    if (d->ahead)
        srv__cancel_pending(lsp, d->ahead, "the document was closed");
    srv__doc_free(d);
    lsp->docs.items[index] = lsp->docs.items[--lsp->docs.size];
}

static void srv__did_open(srv_lsp *lsp, const cJSON *params)
{
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
    const char *uri = srv__string(td, "uri");
    const char *text = srv__string(td, "text");
    if (!uri || !text) {
        srv__tell(lsp, false, 2, "didOpen without a uri or text: ignored");
        return;
    }
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(td, "version");
    uint32_t index;
    srv__doc *old = srv__find_doc(lsp, uri, &index);
    if (!old && lsp->docs.size >= SRV__MAX_DOCS) {
        /* Shown once; past that, logged (an editor opening thousands of
         * files would otherwise get a pop-up for each). */
        srv__tell(lsp, !lsp->told_docs_limit, 1, "seam keeps at most %d open documents: %s is not tracked",
                  SRV__MAX_DOCS, uri);
        lsp->told_docs_limit = true;
        return;
    }
    if (lsp->message_has_nul) {
        /* cJSON's string would end at the NUL: the copy would be cut
         * short without a word.  CPython refuses such source anyway. */
        srv__tell(lsp, true, 1, "seam cannot track %s: its text holds a NUL character", uri);
        if (old)
            srv__forget_doc(lsp, index);
        return;
    }
    lsp_document *doc;
    int rc = lsp_document_new(uri, srv__string(td, "languageId"), cJSON_IsNumber(version) ? (int64_t)version->valuedouble : 0,
                              text, strlen(text), lsp->config.max_message_bytes, &doc);
    if (rc) {
        srv__tell(lsp, true, 1, "seam cannot track %s: %s", uri,
                  rc == SM_EUTF8 ? "its text is not valid UTF-8" : "it is too large");
        return;
    }
    if (old) {
        if (old->active)
            srv__cancel_pending(lsp, old->active, "the document was reopened");
        lsp_document_free(old->doc);
        srv_rec_cache_free(old->cache);
        srv_tree_free(old->tree);
        old->cache = NULL;
        old->doc = doc;
        old->tree = srv_tree_new(old->tree_language, doc->text.data, doc->text.len);
        return;
    }
    srv__doc *d = sm_calloc(1, sizeof *d);
    d->doc = doc;
    d->touched = ++lsp->edit_clock;
    sm_array_push(&lsp->docs, d);
}

static void srv__did_change(srv_lsp *lsp, const cJSON *params)
{
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
    const char *uri = srv__string(td, "uri");
    uint32_t index;
    srv__doc *d = uri ? srv__find_doc(lsp, uri, &index) : NULL;
    if (!d) {
        srv__tell(lsp, false, 2, "didChange for a document that is not open: %s", uri ? uri : "(no uri)");
        return;
    }
    if (lsp->message_has_nul) {
        srv__tell(lsp, true, 1, "seam stops tracking %s: an edit brings a NUL character into it", uri);
        srv__forget_doc(lsp, index);
        return;
    }
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(params, "contentChanges");
    const cJSON *change;
    cJSON_ArrayForEach(change, changes) {
        const char *text = srv__string(change, "text");
        const cJSON *range = cJSON_GetObjectItemCaseSensitive(change, "range");
        int rc;
        if (!text) {
            rc = SM_EINVAL;
        } else if (!range) {
            rc = lsp_document_replace(d->doc, text, strlen(text));
            if (rc == SM_OK) {
                srv_tree_free(d->tree);
                d->tree = srv_tree_new(d->tree_language, d->doc->text.data, d->doc->text.len);
            }
        } else {
            lsp_position start, end;
            size_t from, to;
            if (!srv__position(cJSON_GetObjectItemCaseSensitive(range, "start"), &start) ||
                !srv__position(cJSON_GetObjectItemCaseSensitive(range, "end"), &end)) {
                rc = SM_EINVAL;
            } else if (lsp_position_to_offset(d->doc->text.data, d->doc->text.len, start, lsp->encoding, &from) ||
                       lsp_position_to_offset(d->doc->text.data, d->doc->text.len, end, lsp->encoding, &to)) {
                rc = SM_ERANGE;
            } else {
                /* The tree learns the edit against the text before it. */
                char *before = sm_strndup(d->doc->text.data, d->doc->text.len);
                rc = lsp_document_edit(d->doc, start, end, lsp->encoding, text, strlen(text));
                if (rc == SM_OK)
                    srv_tree_edit(d->tree, before, from, to, text, strlen(text));
                sm_free(before);
            }
        }
        if (rc) {
            /* The editor's copy and ours now differ: say so, and keep ours
             * as it was before this change. */
            srv_tree_reparse(d->tree, d->doc->text.data, d->doc->text.len);
            srv__tell(lsp, true, 1, "seam could not apply an edit to %s (%s); reopen the file to resynchronise",
                      uri, rc == SM_ERANGE ? "a range outside the document" : rc == SM_EUTF8 ? "invalid UTF-8"
                                                                           : "a malformed change");
            return;
        }
    }
    /* parsed when a request needs it (srv_tree_refresh) */
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(td, "version");
    if (cJSON_IsNumber(version))
        d->doc->version = (int64_t)version->valuedouble;
    d->touched = ++lsp->edit_clock;
}

/* Removes entry i of the documents closed lately, keeping the others' order. */
static void srv__forget_closed(srv_lsp *lsp, uint32_t i)
{
    sm_free(lsp->closed.items[i]);
    memmove(lsp->closed.items + i, lsp->closed.items + i + 1, (lsp->closed.size - i - 1) * sizeof(char *));
    lsp->closed.size--;
}

static void srv__did_close(srv_lsp *lsp, const cJSON *params)
{
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
    const char *uri = srv__string(td, "uri");
    uint32_t index;
    if (!uri || !srv__find_doc(lsp, uri, &index))
        return;
    srv__forget_doc(lsp, index);
    /* a document closed lately is still of use to the prompt: its file is
     * read when a completion offers it */
    char *path = srv__uri_to_path(uri);
    if (!path)
        return;
    for (uint32_t i = 0; i < lsp->closed.size; i++) {
        if (strcmp(lsp->closed.items[i], path) == 0) {
            srv__forget_closed(lsp, i);
            break;
        }
    }
    if (lsp->closed.size >= SRV__CLOSED_KEPT)
        srv__forget_closed(lsp, 0);   /* the oldest */
    sm_array_push(&lsp->closed, path);
}

/* ---- Completions -------------------------------------------------------------------- */

static void srv__pending_closed(uv_handle_t *handle)
{
    srv__pending *p = handle->data;
    cJSON_Delete(p->id);
    cJSON_Delete(p->waiter_id);
    cJSON_Delete(p->waiter_params);
    sm_free(p->uri);
    sm_free(p->prefix);
    sm_free(p->text);
    sm_free(p->job_text);
    if (p->tree)
        ts_tree_delete(p->tree);
    sm_free(p);
}

/* Forgets a request whose reply is sent and whose job is over. */
static void srv__pending_release(srv_lsp *lsp, srv__pending *p)
{
    for (uint32_t i = 0; i < lsp->pending.size; i++) {
        if (lsp->pending.items[i] == p) {
            lsp->pending.items[i] = lsp->pending.items[--lsp->pending.size];
            break;
        }
    }
    srv__doc *d = srv__find_doc(lsp, p->uri, NULL);
    if (d && d->active == p)
        d->active = NULL;
    if (d && d->ahead == p)
        d->ahead = NULL;
    uv_close((uv_handle_t *)&p->debounce, srv__pending_closed);
}

static void srv__cancel_pending(srv_lsp *lsp, srv__pending *p, const char *why)
{
    if (!p->replied) {
        p->replied = true;
        srv__reply_error(lsp, p->id, SRV__REQUEST_CANCELLED, why);
    }
    if (p->waiter_id) {
        srv__reply_error(lsp, p->waiter_id, SRV__REQUEST_CANCELLED, why);
        cJSON_Delete(p->waiter_id);
        p->waiter_id = NULL;
    }
    srv__doc *d = srv__find_doc(lsp, p->uri, NULL);
    if (d && d->active == p)
        d->active = NULL;
    if (d && d->ahead == p)
        d->ahead = NULL;
    if (p->job)
        srv_job_cancel(p->job);   /* its callback releases p */
    else
        srv__pending_release(lsp, p);
}

/* The LSP range [from, to) of the document text as it was. */
static cJSON *srv__range(srv_lsp *lsp, const char *text, size_t len, size_t from, size_t to)
{
    lsp_position a = {0}, b = {0};
    lsp_offset_to_position(text, len, from, lsp->encoding, &a);
    lsp_offset_to_position(text, len, to, lsp->encoding, &b);
    cJSON *r = cJSON_CreateObject();
    cJSON *s = cJSON_AddObjectToObject(r, "start");
    cJSON_AddNumberToObject(s, "line", a.line);
    cJSON_AddNumberToObject(s, "character", a.character);
    cJSON *e = cJSON_AddObjectToObject(r, "end");
    cJSON_AddNumberToObject(e, "line", b.line);
    cJSON_AddNumberToObject(e, "character", b.character);
    return r;
}

/* An inline completion's answer: one item inserting `insert` over
 * text[from, to), or none when insert is NULL. */
static cJSON *srv__inline_items(srv_lsp *lsp, const char *text, size_t len, size_t from, size_t to,
                                const char *insert)
{
    cJSON *result = cJSON_CreateObject();
    cJSON *items = cJSON_AddArrayToObject(result, "items");
    if (insert) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "insertText", insert);
        cJSON_AddItemToObject(item, "range", srv__range(lsp, text, len, from, to));
        cJSON_AddItemToArray(items, item);
    }
    return result;
}

static cJSON *srv__result(srv_lsp *lsp, srv__pending *p, const mc_completion *c)
{
    bool have = c && c->found && c->len > 0;
    size_t n = p->prefix ? strlen(p->prefix) : 0;
    sm_buf insert;
    sm_buf_init(&insert, (size_t)1 << 30);
    sm_buf_append(&insert, p->prefix ? p->prefix : "", n);
    if (have)
        sm_buf_append(&insert, c->text, c->len);
    cJSON *result;
    if (p->inline_kind) {
        result = srv__inline_items(lsp, p->text, p->text_len, p->replace_from, p->offset, have ? insert.data : NULL);
    } else {
        result = cJSON_CreateObject();
        cJSON_AddBoolToObject(result, "isIncomplete", true);
        cJSON *items = cJSON_AddArrayToObject(result, "items");
        if (have) {
            cJSON *item = cJSON_CreateObject();
            /* The label is the first line; the edit inserts all of it. */
            size_t first = strcspn(insert.data, "\r\n");
            char *label = sm_strndup(insert.data, first);
            cJSON_AddStringToObject(item, "label", label);
            cJSON_AddStringToObject(item, "filterText", label);
            sm_free(label);
            cJSON_AddNumberToObject(item, "kind", 1);
            cJSON_AddStringToObject(item, "detail", "seam");
            cJSON_AddNumberToObject(item, "insertTextFormat", 1);
            cJSON_AddStringToObject(item, "sortText", "0");
            cJSON_AddBoolToObject(item, "preselect", true);
            cJSON *edit = cJSON_AddObjectToObject(item, "textEdit");
            cJSON_AddItemToObject(edit, "range", srv__range(lsp, p->text, p->text_len, p->replace_from, p->offset));
            cJSON_AddStringToObject(edit, "newText", insert.data);
            cJSON_AddItemToArray(items, item);
        }
    }
    sm_buf_free(&insert);
    return result;
}

/* A request for the document `uri`, tracked (lsp->pending) with its
 * timer ready; the caller fills in its text and options. */
static srv__pending *srv__pending_new(srv_lsp *lsp, const char *uri, bool inline_kind)
{
    srv__pending *p = sm_calloc(1, sizeof *p);
    p->lsp = lsp;
    p->uri = sm_strdup(uri);
    p->inline_kind = inline_kind;
    p->received_ns = uv_hrtime();
    uv_timer_init(lsp->loop, &p->debounce);
    p->debounce.data = p;
    sm_array_push(&lsp->pending, p);
    return p;
}

static void srv__start(srv__pending *p);
static void srv__completion(srv_lsp *lsp, const cJSON *id, const cJSON *params, bool inline_kind);
static const lg_language *srv__document_language(srv_lsp *lsp, srv__doc *d, const char *uri, const char **dialect);

/* ---- Decoding ahead ------------------------------------------------------------------ */

/* Starts decoding the completion after the one d shows, for the text with
 * it accepted (srv_ahead_text), while the person reads it; no reply.  A
 * request for that text, or for it with the next line's indentation
 * typed, is answered from it (srv__from_ahead). */
static void srv__decode_ahead(srv_lsp *lsp, srv__doc *d, const char *uri)
{
    if (!lsp->config.decode_ahead || !d->shown || d->ahead)
        return;
    sm_buf text;
    sm_buf_init(&text, (size_t)1 << 31);
    size_t cursor;
    const char *dialect;
    const lg_language *language = srv__document_language(lsp, d, uri, &dialect);
    if (!language || !srv_ahead_text(d->shown, &text, &cursor)) {
        sm_buf_free(&text);
        return;
    }
    srv__pending *p = srv__pending_new(lsp, uri, true);
    p->automatic = true;
    p->ahead = true;
    p->replied = true;   /* no request of the editor's to answer */
    p->job_text = sm_buf_take(&text, &p->job_len);
    p->job_offset = p->offset = p->replace_from = cursor;
    p->text = sm_strndup(p->job_text, p->job_len);
    p->text_len = p->job_len;
    srv_request_prepare(&p->request, &lsp->config, language, dialect, NULL, p->job_text, p->job_len, cursor, false);
    d->ahead = p;
    srv__start(p);
}

/* Stops every job decoding ahead: a request of the editor's needs the
 * model. */
static void srv__stop_ahead(srv_lsp *lsp)
{
    for (uint32_t i = 0; i < lsp->docs.size; i++)
        if (lsp->docs.items[i]->ahead)
            srv__cancel_pending(lsp, lsp->docs.items[i]->ahead, "a newer completion request replaced this one");
}

/* Keeps the completion a job decoded ahead, for the request that comes
 * once the shown one is accepted; into *waiter the request that waited
 * for it (the caller's), if any. */
static void srv__keep_ahead(srv_lsp *lsp, srv__doc *d, srv__pending *p, const mc_completion *c, cJSON **waiter_id,
                            cJSON **waiter_params)
{
    *waiter_id = p->waiter_id;
    *waiter_params = p->waiter_params;
    p->waiter_id = p->waiter_params = NULL;
    if (!d)
        return;
    srv_shown_free(d->next);
    d->next = NULL;
    if (c && c->found && c->len > 0 && p->engine == lsp->engine) {
        d->next = srv_shown_new(p->text, p->text_len, p->offset, c->text, c->len, p->engine);
        srv_shown_set_ahead(d->next, true);
    }
}

/* What decoding ahead does for a request (srv__from_ahead). */
typedef enum srv__ahead_use {
    SRV__AHEAD_ANSWERED,   /* answered from the completion decoded ahead */
    SRV__AHEAD_WAITS,      /* the request waits for the job decoding ahead */
    SRV__AHEAD_BEFORE,     /* the shown completion accepted, the line not yet
                              broken: the request needs the model, the
                              completion ahead stays for the next line */
    SRV__AHEAD_NONE,       /* the text left it: the request needs the model */
} srv__ahead_use;

static srv__ahead_use srv__from_ahead(srv_lsp *lsp, srv__doc *d, const char *uri, const cJSON *id,
                                      const cJSON *params, const char *text, size_t len, size_t offset);

/* Keeps an inline completion shown as it is (no item selected in a popup
 * before it), for typing through it, and decodes the one after it. */
static void srv__keep_shown(srv_lsp *lsp, srv__doc *d, const srv__pending *p, const mc_completion *c)
{
    if (!d || !p->inline_kind || p->prefix || !c || !c->found || c->len == 0)
        return;
    srv_shown_free(d->shown);
    d->shown = srv_shown_new(p->text, p->text_len, p->offset, c->text, c->len, p->engine);
    srv_shown_free(d->next);
    d->next = NULL;
    srv__decode_ahead(lsp, d, p->uri);
}

/* The project's chunks a completion's prompt carried, in the debug log. */
static void srv__log_project(srv_lsp *lsp, const srv_project *project)
{
    if (!project || !lsp->logger || lsp->logger->level < SM_LOG_DEBUG)
        return;
    sm_buf list;
    sm_buf_init(&list, 4096);
    for (uint32_t i = 0; i < project->picked.chunks.size; i++) {
        const cx_chunk *c = &project->picked.chunks.items[i];
        sm_buf_printf(&list, "%s%s:%u (%s%s, %zu bytes)", i ? ", " : "", c->path, c->line + 1, cx_origin_name(c->origin), c->outline ? " outline" : "",
                      c->len);
    }
    sm_log(lsp->logger, SM_LOG_DEBUG, "context: %u chunks, %zu bytes, of %u files (%u read) in %.2f ms: %s",
           project->picked.chunks.size, project->picked.bytes, project->files_offered, project->files_read,
           project->gather_ns / 1e6, list.data ? list.data : "");
    sm_buf_free(&list);
}

static void srv__on_job_done(void *data, mc_completion *c, const srv_completion_info *info)
{
    srv__pending *p = data;
    srv_lsp *lsp = p->lsp;
    p->job = NULL;
    srv__doc *d = srv__find_doc(lsp, p->uri, NULL);
    if (info->cache) {
        /* A recognizer of another engine's grammar is not kept: the
         * configuration changed while the job ran.  (One decoding ahead
         * built its own; the document's stays.) */
        if (d && !d->cache && p->engine == lsp->engine)
            d->cache = info->cache;
        else
            srv_rec_cache_free(info->cache);
    }
    if (!p->replied) {
        p->replied = true;
        /* What the user must know comes before the (empty) answer. */
        if (c && c->reason == MC_STOP_ERROR && c->error) {
            srv__tell(lsp, true, 2, "seam: the model backend failed: %s", c->error);
            srv__status(lsp, "unreachable", c->error);
        } else if (c && c->silent) {
            char why[160];
            snprintf(why, sizeof why, "the model gave nothing within timeout_ms (%u ms): busy, or hung",
                     lsp->config.timeout_ms);
            srv__status(lsp, "slow", why);
        } else if (c && !lsp->training) {
            srv__status(lsp, "ready", NULL);
        }
        if (!c && info->error && strcmp(info->error, "canceled") != 0) {
            srv__reply_error(lsp, p->id, SRV__INTERNAL_ERROR, info->error);
        } else {
            srv__reply(lsp, p->id, srv__result(lsp, p, c));
            lsp->completions_served++;
            srv__keep_shown(lsp, d, p, c);
        }
    }
    cJSON *waiter_id = NULL, *waiter_params = NULL;
    if (p->ahead)
        srv__keep_ahead(lsp, d, p, c, &waiter_id, &waiter_params);
    char evaluated[48] = "";
    if (c && c->prompt_tokens_known)
        snprintf(evaluated, sizeof evaluated, ", %llu prompt tokens evaluated", (unsigned long long)c->prompt_tokens);
    srv__log_project(lsp, info->project);
    sm_log(lsp->logger, SM_LOG_DEBUG,
           "completion %s: %s, %zu bytes, stop %s, setup %.2f ms%s, total %.2f ms, %u round trips%s, %u rejected, "
           "scope %s, binding %s (%s)",
           p->ahead ? "decoded ahead" : p->inline_kind ? "inline" : "item", c && c->found ? "found" : "none",
           c ? c->len : 0,
           c ? mc_stop_reason_name(c->reason) : "error", info->setup_ns / 1e6, info->reused ? " (cached)" : "",
           info->total_ns / 1e6, c ? c->round_trips : 0, evaluated, c ? c->rejected : 0,
           lg_scope_kind_name(p->request.scope.kind), srv_binding_name(info->binding),
           info->binding_why ? info->binding_why : "");
    mc_completion_free(c);
    srv__pending_release(lsp, p);
    if (waiter_id) {
        srv__completion(lsp, waiter_id, waiter_params, true);
        cJSON_Delete(waiter_id);
        cJSON_Delete(waiter_params);
    }
}

static void srv__on_wait_expired(uv_timer_t *timer)
{
    srv__pending *p = timer->data;
    if (p->job && !p->replied) {
        sm_log(p->lsp->logger, SM_LOG_DEBUG, "a completion waited its whole budget for the embedded model");
        srv_job_cancel(p->job);   /* replies with no completion */
    }
}

/* Whether two languages read each other's files as context (JavaScript's
 * rows and TypeScript's share their reading). */
static bool srv__same_family(const lg_language *a, const lg_language *b)
{
    return a && b && a->definers && a->definers == b->definers;
}

/* The other documents the completion's prompt may draw on: the open ones
 * in the language's family, the latest edited first, then those closed
 * lately.  NULL when there are none. */
static srv_peers *srv__peers_for(srv_lsp *lsp, const srv__doc *self, const lg_language *language)
{
    srv_peers *peers = sm_calloc(1, sizeof *peers);
    SM_ARRAY(const srv__doc *) order = {0};
    for (uint32_t i = 0; i < lsp->docs.size; i++)
        if (lsp->docs.items[i] != self)
            sm_array_push(&order, lsp->docs.items[i]);
    for (uint32_t i = 1; i < order.size; i++)   /* few documents: insertion by recency */
        for (uint32_t k = i; k > 0 && order.items[k]->touched > order.items[k - 1]->touched; k--) {
            const srv__doc *t = order.items[k];
            order.items[k] = order.items[k - 1];
            order.items[k - 1] = t;
        }
    uint32_t age = 0;
    for (uint32_t i = 0; i < order.size && peers->items.size < SRV_PEERS_MAX; i++) {
        const lsp_document *doc = order.items[i]->doc;
        char *path = srv__uri_to_path(doc->uri);
        char why[256];
        if (path && srv__same_family(srv_language_of(&lsp->config, doc->language, path, doc->text.data,
                                                     doc->text.len, why, sizeof why), language))
            srv_peers_add(peers, path, doc->text.data ? doc->text.data : "", doc->text.len, age++, true);
        sm_free(path);
    }
    for (uint32_t i = lsp->closed.size; i > 0; i--)
        if (srv__same_family(lg_by_file(lsp->closed.items[i - 1], NULL, 0), language))
            srv_peers_add(peers, lsp->closed.items[i - 1], NULL, 0, lsp->closed.size - i, false);
    sm_array_free(&order);
    if (!peers->items.size) {
        sm_free(peers);
        return NULL;
    }
    return peers;
}

static void srv__start(srv__pending *p)
{
    srv_lsp *lsp = p->lsp;
    srv__doc *d = srv__find_doc(lsp, p->uri, NULL);
    if (!d) {
        srv__cancel_pending(lsp, p, "the document was closed");
        return;
    }
    srv_job_options o = p->request.options;
    if (!p->ahead) {
        o.cache = d->cache;
        d->cache = NULL;
    }
    o.tree = p->tree;
    p->tree = NULL;
    p->engine = lsp->engine;
    char *path = srv__uri_to_path(p->uri);
    o.path = path;
    if (path && lsp->config.context_files)
        o.peers = srv__peers_for(lsp, d, o.language);
    int rc = srv_engine_complete(lsp->engine, p->job_text, p->job_len, p->job_offset, &o, srv__on_job_done, p,
                                 &p->job);
    sm_free(path);
    if (rc) {
        p->job = NULL;
        if (!p->replied)
            srv__reply_error(lsp, p->id, SRV__INTERNAL_ERROR, sm_strerror(rc));
        p->replied = true;
        srv__pending_release(lsp, p);
        return;
    }
    if (!srv_engine_ready(lsp->engine) && lsp->config.timeout_ms) {
        /* The embedded model is still being trained, or the local model
         * loaded: the request waits for it within its latency budget, and
         * gets nothing after that. */
        uv_timer_start(&p->debounce, srv__on_wait_expired, lsp->config.timeout_ms, 0);
    }
}

static void srv__on_debounce(uv_timer_t *timer)
{
    srv__start(timer->data);
}

static bool srv__word_byte(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* The language document d is read in (its languageId, else its name and
 * #! line); NULL when seam completes none, said once in the log. */
/* The document's language, and its dialect into *dialect (decided when the
 * document is first completed: the package.json that types a JavaScript
 * file is read once). */
static const lg_language *srv__document_language(srv_lsp *lsp, srv__doc *d, const char *uri, const char **dialect)
{
    char why[512];
    char *path = srv__uri_to_path(uri);
    const lg_language *language = srv_language_of(&lsp->config, d->doc->language, path ? path : uri,
                                                  d->doc->text.data, d->doc->text.len, why, sizeof why);
    if (!language && !d->language_told) {
        sm_log(lsp->logger, SM_LOG_INFO, "%s: no completions there", why);
        d->language_told = true;
    }
    if (language && (d->dialect_language != language || d->dialect_config != lsp->config.source_type)) {
        d->dialect = srv_dialect_of(&lsp->config, language, path, d->doc->text.data, d->doc->text.len);
        d->dialect_language = language;
        d->dialect_config = lsp->config.source_type;
        if (d->dialect)
            sm_log(lsp->logger, SM_LOG_INFO, "%s: %s, read as a %s", path ? path : uri, language->name, d->dialect);
    }
    sm_free(path);
    *dialect = language ? d->dialect : NULL;
    return language;
}

/* Answers an inline request with rest[0..rest_len), a completion kept
 * (`how`: typed through, decoded ahead), with no model request. */
static void srv__reply_kept(srv_lsp *lsp, const cJSON *id, const char *text, size_t len, size_t offset,
                            const char *rest, size_t rest_len, const char *how)
{
    char *insert = sm_strndup(rest, rest_len);
    srv__reply(lsp, id, srv__inline_items(lsp, text, len, offset, offset, insert));
    sm_free(insert);
    lsp->completions_served++;
    sm_log(lsp->logger, SM_LOG_DEBUG, "completion inline: %s, %zu bytes, no model request", how, rest_len);
}

/* Whether the person typed the start of the inline completion last shown
 * (no item selected in a popup): then the rest answers at once, with no
 * model request.  Otherwise the shown completion is forgotten when the
 * text has left it. */
static bool srv__typed_through(srv_lsp *lsp, srv__doc *d, const cJSON *id, const cJSON *params, const char *text,
                               size_t len, size_t offset)
{
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(params, "context");
    if (!d->shown || cJSON_GetObjectItemCaseSensitive(ctx, "selectedCompletionInfo"))
        return false;
    size_t rest_len;
    const char *rest = srv_shown_rest(d->shown, text, len, offset, lsp->engine, &rest_len);
    if (!rest) {
        srv_shown_free(d->shown);
        d->shown = NULL;
        return false;
    }
    srv__reply_kept(lsp, id, text, len, offset, rest, rest_len, "typed through the one shown");
    return true;
}

/* Answers an inline request from the completion decoded ahead when the
 * text is the one it was decoded for (the shown completion accepted, the
 * line broken) with the start of it typed (the next line's indentation),
 * makes it the one shown and decodes the one after it; a request on the
 * text of a job still decoding ahead waits for it. */
static srv__ahead_use srv__from_ahead(srv_lsp *lsp, srv__doc *d, const char *uri, const cJSON *id,
                                      const cJSON *params, const char *text, size_t len, size_t offset)
{
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(params, "context");
    if (cJSON_GetObjectItemCaseSensitive(ctx, "selectedCompletionInfo"))
        return SRV__AHEAD_NONE;
    srv__pending *a = d->ahead;
    if (a && srv_text_extends(a->job_text, a->job_len, a->job_offset, text, len, offset)) {
        if (a->waiter_id)
            srv__reply_error(lsp, a->waiter_id, SRV__REQUEST_CANCELLED, "a newer completion request replaced this one");
        cJSON_Delete(a->waiter_id);
        cJSON_Delete(a->waiter_params);
        a->waiter_id = cJSON_Duplicate(id, true);
        a->waiter_params = cJSON_Duplicate(params, true);
        sm_log(lsp->logger, SM_LOG_DEBUG, "completion inline: waits for the one decoded ahead");
        return SRV__AHEAD_WAITS;
    }
    if (a && srv_text_extends(text, len, offset, a->job_text, a->job_len, a->job_offset))
        return SRV__AHEAD_BEFORE;   /* (its text with the line break still to come) */
    size_t rest_len;
    const char *rest = srv_shown_rest(d->next, text, len, offset, lsp->engine, &rest_len);
    if (!rest) {
        if (d->next && srv_shown_extended_by(d->next, text, len, offset))
            return SRV__AHEAD_BEFORE;
        srv_shown_free(d->next);
        d->next = NULL;
        return SRV__AHEAD_NONE;
    }
    srv__reply_kept(lsp, id, text, len, offset, rest, rest_len, "decoded ahead");
    srv_shown_free(d->shown);
    d->shown = d->next;
    d->next = NULL;
    srv_shown_set_ahead(d->shown, false);
    srv__decode_ahead(lsp, d, uri);
    return SRV__AHEAD_ANSWERED;
}

static void srv__completion(srv_lsp *lsp, const cJSON *id, const cJSON *params, bool inline_kind)
{
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
    const char *uri = srv__string(td, "uri");
    lsp_position pos;
    if (!uri || !srv__position(cJSON_GetObjectItemCaseSensitive(params, "position"), &pos)) {
        srv__reply_error(lsp, id, SRV__INVALID_PARAMS, "expected textDocument.uri and position");
        return;
    }
    srv__doc *d = srv__find_doc(lsp, uri, NULL);
    if (!d) {
        srv__reply_error(lsp, id, SRV__INVALID_PARAMS, "the document is not open");
        return;
    }
    const char *text = d->doc->text.data;
    size_t len = d->doc->text.len;
    size_t offset;
    int rc = lsp_position_to_offset(text, len, pos, lsp->encoding, &offset);
    if (rc) {
        srv__reply_error(lsp, id, SRV__INVALID_PARAMS, "the position is outside the document");
        return;
    }
    const char *dialect;
    const lg_language *language = srv__document_language(lsp, d, uri, &dialect);
    if (!language) {
        /* never read with another language's grammar: no completion */
        cJSON *result = cJSON_CreateObject();
        if (!inline_kind)
            cJSON_AddBoolToObject(result, "isIncomplete", false);
        cJSON_AddArrayToObject(result, "items");
        srv__reply(lsp, id, result);
        return;
    }
    if (!srv_engine_usable(lsp->engine) && lsp->config.backend != CFG_BACKEND_EMBEDDED) {
        const char *why = srv_engine_load_error(lsp->engine);
        srv__reply_error(lsp, id, SRV__INTERNAL_ERROR, why ? why : "the model backend is not configured");
        return;
    }
    if (d->active)
        srv__cancel_pending(lsp, d->active, "a newer completion request replaced this one");
    if (inline_kind && srv__typed_through(lsp, d, id, params, text, len, offset))
        return;
    srv__ahead_use ahead = inline_kind ? srv__from_ahead(lsp, d, uri, id, params, text, len, offset) : SRV__AHEAD_NONE;
    if (ahead == SRV__AHEAD_ANSWERED || ahead == SRV__AHEAD_WAITS)
        return;
    if (ahead == SRV__AHEAD_NONE)
        srv__stop_ahead(lsp);

    srv__pending *p = srv__pending_new(lsp, uri, inline_kind);
    p->id = cJSON_Duplicate(id, true);
    p->offset = offset;
    p->replace_from = offset;
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(params, "context");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(ctx, "triggerKind");
    /* Inline: 1 invoked, 2 automatic.  Completion: 1 invoked, 2 trigger
     * character, 3 re-trigger while incomplete: treated as automatic. */
    p->automatic = cJSON_IsNumber(kind) && kind->valueint != 1;

    const cJSON *selected = inline_kind ? cJSON_GetObjectItemCaseSensitive(ctx, "selectedCompletionInfo") : NULL;
    const cJSON *sel_range = cJSON_GetObjectItemCaseSensitive(selected, "range");
    const char *sel_text = srv__string(selected, "text");
    lsp_position s_start, s_end;
    size_t from, to;
    bool edited = false;
    if (selected && sel_text && srv__position(cJSON_GetObjectItemCaseSensitive(sel_range, "start"), &s_start) &&
        srv__position(cJSON_GetObjectItemCaseSensitive(sel_range, "end"), &s_end) &&
        lsp_position_to_offset(text, len, s_start, lsp->encoding, &from) == SM_OK &&
        lsp_position_to_offset(text, len, s_end, lsp->encoding, &to) == SM_OK && from <= offset && offset <= to &&
        sm_utf8_valid((const uint8_t *)sel_text, strlen(sel_text), false, NULL)) {
        /* The editor's popup has an item selected: complete as if it were
         * accepted, and replace its range with the item plus the completion. */
        sm_buf with_item;
        sm_buf_init(&with_item, (size_t)1 << 31);
        sm_buf_append(&with_item, text, from);
        sm_buf_append_str(&with_item, sel_text);
        p->job_offset = with_item.len;
        sm_buf_append(&with_item, text + to, len - to);
        p->job_text = sm_buf_take(&with_item, &p->job_len);
        p->prefix = sm_strdup(sel_text);
        p->replace_from = from;
        p->offset = to;
        edited = true;
    } else {
        if (!inline_kind) {
            /* Completion items replace the word before the cursor, so that
             * editors filtering by that word keep the item. */
            size_t w = offset;
            while (w > 0 && srv__word_byte((unsigned char)text[w - 1]))
                w--;
            p->replace_from = w;
            p->prefix = sm_strndup(text + w, offset - w);
        }
        p->job_text = sm_strndup(text, len);
        p->job_len = len;
        p->job_offset = offset;
    }
    p->text = sm_strndup(text, len);
    p->text_len = len;
    /* The tree matches the document, not a text with a selected item in
     * it, in the document's language (made when the first completion
     * tells it, or the setting `language` changes it). */
    if (d->tree_language != language) {
        srv_tree_free(d->tree);
        d->tree = srv_tree_new(language, d->doc->text.data, d->doc->text.len);
        d->tree_language = language;
    }
    srv_tree_refresh(d->tree, d->doc->text.data, d->doc->text.len);
    srv_request_prepare(&p->request, &lsp->config, language, dialect, edited ? NULL : d->tree, p->job_text, p->job_len,
                        p->job_offset, !p->automatic);
    lsp->status_language = language->name;
    lsp->status_dialect = dialect;
    /* for the semantic pruners, taken now: the document may change before the job starts */
    p->tree = edited ? NULL : srv_tree_copy(d->tree);
    d->active = p;
    if (p->automatic && lsp->config.debounce_ms > 0)
        uv_timer_start(&p->debounce, srv__on_debounce, lsp->config.debounce_ms, 0);
    else
        srv__start(p);
}

/* ---- Lifecycle and configuration --------------------------------------------------- */

static void srv__training_started(srv_lsp *lsp);
static void srv__training_done(void *data);
static void srv__model_loaded(void *data);
static void srv__progress(srv_lsp *lsp, const char *kind, const char *message);

static void srv__install_engine(srv_lsp *lsp, srv_engine *e, bool cancel_pending);
static void srv__next_loaded(void *data);

/* Builds an engine for the configuration; on failure tells the user and
 * keeps the one there is.  An engine whose local model loads (off the
 * loop) takes over when the model has loaded: until then, the engine in
 * use serves, and if the model does not load it stays. */
static bool srv__make_engine(srv_lsp *lsp, const cfg_config *config)
{
    char error[512];
    srv_engine *e;
    if (srv_engine_new(lsp->loop, config, lsp->workspace, lsp->engine, lsp->logger, &e, error, sizeof error) != SM_OK) {
        srv__tell(lsp, true, 1, "seam: %s; the previous settings stay in force", error);
        return false;
    }
    srv_engine_set_workspace(e, lsp->workspace);
    srv_engine_free(lsp->next_engine);   /* a newer configuration replaces one still loading */
    lsp->next_engine = NULL;
    if (lsp->engine && srv_engine_loading(e)) {
        lsp->next_engine = e;
        srv_engine_on_ready(e, srv__next_loaded, lsp);
        srv__status(lsp, "loading", srv_engine_config(e)->model_path);
        return true;
    }
    srv__install_engine(lsp, e, true);
    return true;
}

/* The next engine's model has loaded, or has not. */
static void srv__next_loaded(void *data)
{
    srv_lsp *lsp = data;
    srv_engine *e = lsp->next_engine;
    lsp->next_engine = NULL;
    const char *why = srv_engine_load_error(e);
    if (why) {
        srv__tell(lsp, true, 1, "seam: %s; the previous settings stay in force", why);
        srv_engine_free(e);
        srv__status(lsp, lsp->training ? "training" : "ready", NULL);
        return;
    }
    /* requests asked while it loaded finish on the engine they began on */
    srv__install_engine(lsp, e, false);
}

/* Makes `e` the engine in use (taking the caller's reference); requests
 * in flight are canceled when `cancel_pending` (they asked with other
 * settings), else they finish on their engine. */
static void srv__install_engine(srv_lsp *lsp, srv_engine *e, bool cancel_pending)
{
    const cfg_config *config = srv_engine_config(e);   /* with the model found on the machine, if one is used */
    if (lsp->engine) {
        for (uint32_t i = lsp->pending.size; cancel_pending && i-- > 0;)
            srv__cancel_pending(lsp, lsp->pending.items[i], "the configuration changed");
        for (uint32_t i = 0; i < lsp->docs.size; i++) {
            srv_rec_cache_free(lsp->docs.items[i]->cache);
            lsp->docs.items[i]->cache = NULL;
        }
    }
    if (lsp->training) {
        /* The engine that was training goes: so does its progress. */
        srv__progress(lsp, "end", "the settings changed");
        lsp->training = false;
        lsp->progress_request = 0;
    }
    srv_engine *old = lsp->engine;
    lsp->engine = e;
    bool same_corpus = old && lsp->config.backend == CFG_BACKEND_EMBEDDED &&
                       lsp->config.train_stdlib == config->train_stdlib &&
                       lsp->config.corpus_bytes == config->corpus_bytes;
    if (config->backend == CFG_BACKEND_EMBEDDED && same_corpus && srv_engine_share_model(old, e)) {
        /* The embedded model is kept: it depends only on the corpus. */
    } else if (config->backend == CFG_BACKEND_EMBEDDED) {
        mc_corpus corpus;
        srv_engine_corpus(e, &corpus, lsp->workspace);
        for (uint32_t i = 0; i < lsp->docs.size; i++) {
            /* the open buffers in a language seam completes */
            const lsp_document *doc = lsp->docs.items[i]->doc;
            char why[512];
            if (srv_language_of(config, doc->language, NULL, doc->text.data, doc->text.len, why, sizeof why))
                mc_corpus_add_text(&corpus, doc->text.data, doc->text.len);
        }
        if (srv_engine_train_async(e, &corpus) != SM_OK) {
            mc_corpus_free(&corpus);
            srv__tell(lsp, true, 1, "seam could not start training its embedded model");
        } else {
            srv_engine_on_ready(e, srv__training_done, lsp);
            lsp->training = true;
        }
    }
    srv_engine_free(old);
    cfg_free(&lsp->config);
    cfg_copy(&lsp->config, config);
    if (lsp->training)
        srv__training_started(lsp);
    lsp->framer.max_body = config->max_message_bytes;
    lsp->framer.body.max = config->max_message_bytes;
    lsp->logger->level = config->log_level;
    if (config->log_file && !lsp->logger->file && sm_logger_open_file(lsp->logger, config->log_file) != SM_OK)
        srv__tell(lsp, false, 2, "seam cannot open the log file %s", config->log_file);
    if (srv_engine_loading(e)) {
        srv_engine_on_ready(e, srv__model_loaded, lsp);
        srv__status(lsp, "loading", config->model_path);
    } else if (!lsp->training) {
        srv__status(lsp, "ready", NULL);
    }
}

static char *srv__uri_to_path(const char *uri)
{
    if (!uri || strncmp(uri, "file://", 7) != 0)
        return NULL;
    const char *p = uri + 7;
    sm_buf out;
    sm_buf_init(&out, 4096);
    for (; *p; p++) {
        unsigned v;
        if (*p == '%' && p[1] && p[2] && sscanf(p + 1, "%2x", &v) == 1) {
            char c = (char)v;
            sm_buf_append(&out, &c, 1);
            p += 2;
        } else {
            sm_buf_append(&out, p, 1);
        }
    }
    return sm_buf_take(&out, NULL);
}

static void srv__initialize(srv_lsp *lsp, const cJSON *id, const cJSON *params)
{
    if (lsp->state != SRV__UNINITIALIZED) {
        srv__reply_error(lsp, id, SRV__INVALID_REQUEST, "initialize was already received");
        return;
    }
    /* Position encoding: UTF-8 when the client offers it. */
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
    const cJSON *general = cJSON_GetObjectItemCaseSensitive(caps, "general");
    const cJSON *encodings = cJSON_GetObjectItemCaseSensitive(general, "positionEncodings");
    const cJSON *enc;
    lsp->encoding = LSP_ENCODING_UTF16;
    cJSON_ArrayForEach(enc, encodings)
        if (cJSON_IsString(enc) && strcmp(enc->valuestring, "utf-8") == 0)
            lsp->encoding = LSP_ENCODING_UTF8;

    const cJSON *ws_caps = cJSON_GetObjectItemCaseSensitive(caps, "workspace");
    lsp->pull_configuration = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ws_caps, "configuration"));
    const cJSON *win_caps = cJSON_GetObjectItemCaseSensitive(caps, "window");
    lsp->progress_supported = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(win_caps, "workDoneProgress"));
    const cJSON *experimental = cJSON_GetObjectItemCaseSensitive(caps, "experimental");
    lsp->status_supported = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(experimental, "seamStatus"));

    const cJSON *folders = cJSON_GetObjectItemCaseSensitive(params, "workspaceFolders");
    const char *root = NULL;
    if (cJSON_IsArray(folders) && cJSON_GetArraySize(folders) > 0)
        root = srv__string(cJSON_GetArrayItem(folders, 0), "uri");
    if (!root)
        root = srv__string(params, "rootUri");
    sm_free(lsp->workspace);
    lsp->workspace = srv__uri_to_path(root);

    cfg_config config;
    cfg_copy(&config, &lsp->config);
    const cJSON *options = cJSON_GetObjectItemCaseSensitive(params, "initializationOptions");
    if (cJSON_IsObject(options)) {
        char error[512];
        sm_buf ignored;
        sm_buf_init(&ignored, 4096);
        if (srv_config_apply_json(&config, options, &lsp->base_config, &ignored, error, sizeof error) != SM_OK)
            srv__tell(lsp, true, 1, "seam: bad initializationOptions: %s; using the other settings", error);
        else if (ignored.len)
            srv__tell(lsp, false, 2, "seam: ignored settings it does not know: %s", ignored.data);
        sm_buf_free(&ignored);
    }
    lsp->state = SRV__RUNNING;
    if (!srv__make_engine(lsp, &config)) {
        /* Fall back to the defaults, which always work. */
        cfg_config defaults;
        cfg_init(&defaults);
        srv__make_engine(lsp, &defaults);
        cfg_free(&defaults);
    }
    cfg_free(&config);

    cJSON *result = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(result, "capabilities");
    cJSON_AddStringToObject(c, "positionEncoding", lsp->encoding == LSP_ENCODING_UTF8 ? "utf-8" : "utf-16");
    cJSON *sync = cJSON_AddObjectToObject(c, "textDocumentSync");
    cJSON_AddBoolToObject(sync, "openClose", true);
    cJSON_AddNumberToObject(sync, "change", 2);
    cJSON *save = cJSON_AddObjectToObject(sync, "save");
    cJSON_AddBoolToObject(save, "includeText", false);
    cJSON_AddBoolToObject(c, "inlineCompletionProvider", true);
    cJSON *cp = cJSON_AddObjectToObject(c, "completionProvider");
    cJSON_AddBoolToObject(cp, "resolveProvider", false);
    cJSON *triggers = cJSON_AddArrayToObject(cp, "triggerCharacters");
    const char *chars[] = {".", "(", "[", ",", " ", "=", ":"};
    for (size_t i = 0; i < sizeof chars / sizeof *chars; i++)
        cJSON_AddItemToArray(triggers, cJSON_CreateString(chars[i]));
    cJSON *ws = cJSON_AddObjectToObject(c, "workspace");
    cJSON *wf = cJSON_AddObjectToObject(ws, "workspaceFolders");
    cJSON_AddBoolToObject(wf, "supported", true);
    cJSON *info = cJSON_AddObjectToObject(result, "serverInfo");
    cJSON_AddStringToObject(info, "name", "seam");
    cJSON_AddStringToObject(info, "version", SEAM_VERSION);
    srv__reply(lsp, id, result);
}

/* $/progress for the training token: "begin" or "end". */
static void srv__progress(srv_lsp *lsp, const char *kind, const char *message)
{
    bool begin = strcmp(kind, "begin") == 0;
    if (begin == lsp->progress_begun)
        return;
    lsp->progress_begun = begin;
    char token[64];
    snprintf(token, sizeof token, "seam/training/%u", lsp->progress_token);
    cJSON *m = srv__message();
    cJSON_AddStringToObject(m, "method", "$/progress");
    cJSON *params = cJSON_AddObjectToObject(m, "params");
    cJSON_AddStringToObject(params, "token", token);
    cJSON *value = cJSON_AddObjectToObject(params, "value");
    cJSON_AddStringToObject(value, "kind", kind);
    if (begin) {
        cJSON_AddStringToObject(value, "title", "seam");
        cJSON_AddBoolToObject(value, "cancellable", false);
    }
    cJSON_AddStringToObject(value, "message", message);
    srv__send(lsp, m);
}

/* The embedded model starts training: a progress token is asked for
 * (clients that support it, once they sent "initialized": no request may
 * precede the answer to initialize); the progress begins when the client
 * answers. */
static void srv__training_started(srv_lsp *lsp)
{
    lsp->training = true;
    srv__status(lsp, "training", "training the embedded model");
    if (!lsp->progress_supported || !lsp->initialized || lsp->progress_request || lsp->progress_begun)
        return;
    lsp->progress_token++;
    lsp->progress_request = ++lsp->next_request;
    char token[64];
    snprintf(token, sizeof token, "seam/training/%u", lsp->progress_token);
    cJSON *m = srv__message();
    cJSON_AddNumberToObject(m, "id", lsp->progress_request);
    cJSON_AddStringToObject(m, "method", "window/workDoneProgress/create");
    cJSON *params = cJSON_AddObjectToObject(m, "params");
    cJSON_AddStringToObject(params, "token", token);
    srv__send(lsp, m);
}

/* The local model has loaded, or failed to. */
static void srv__model_loaded(void *data)
{
    srv_lsp *lsp = data;
    const char *why = srv_engine_load_error(lsp->engine);
    if (why) {
        srv__tell(lsp, true, 1, "seam: %s", why);
        srv__status(lsp, "unreachable", why);
    } else if (srv_engine_ready(lsp->engine)) {
        srv__status(lsp, "ready", NULL);
    }
}

static void srv__training_done(void *data)
{
    srv_lsp *lsp = data;
    lsp->training = false;
    lsp->progress_request = 0;   /* a late answer begins nothing */
    srv__progress(lsp, "end", "the embedded model is ready");
    srv__status(lsp, "ready", NULL);
}

/* Asks the client for the "seam" section of its settings (LSP's pull
 * model); the answer arrives as a response to this request. */
static void srv__pull_configuration(srv_lsp *lsp)
{
    if (!lsp->pull_configuration)
        return;
    lsp->config_request = ++lsp->next_request;
    cJSON *m = srv__message();
    cJSON_AddNumberToObject(m, "id", lsp->config_request);
    cJSON_AddStringToObject(m, "method", "workspace/configuration");
    cJSON *params = cJSON_AddObjectToObject(m, "params");
    cJSON *items = cJSON_AddArrayToObject(params, "items");
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "section", "seam");
    cJSON_AddItemToArray(items, item);
    srv__send(lsp, m);
}

static void srv__apply_settings(srv_lsp *lsp, const cJSON *settings);

/* A response from the client: to our configuration request, or to the
 * creation of a progress token (then the progress may begin). */
static void srv__on_response(srv_lsp *lsp, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (cJSON_IsNumber(id) && lsp->progress_request && (uint32_t)id->valuedouble == lsp->progress_request) {
        lsp->progress_request = 0;
        if (lsp->training && !cJSON_GetObjectItemCaseSensitive(msg, "error"))
            srv__progress(lsp, "begin", "training the embedded model");
        return;
    }
    if (!cJSON_IsNumber(id) || lsp->config_request == 0 || (uint32_t)id->valuedouble != lsp->config_request)
        return;
    lsp->config_request = 0;
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
    const cJSON *first = cJSON_IsArray(result) ? cJSON_GetArrayItem(result, 0) : NULL;
    if (cJSON_IsObject(first))
        srv__apply_settings(lsp, first);
}

static void srv__did_change_configuration(srv_lsp *lsp, const cJSON *params)
{
    const cJSON *settings = cJSON_GetObjectItemCaseSensitive(params, "settings");
    const cJSON *section = cJSON_IsObject(settings) ? cJSON_GetObjectItemCaseSensitive(settings, "seam") : NULL;
    /* Clients of the pull model send no settings (or others' sections)
     * and expect the server to ask. */
    if (lsp->pull_configuration && !cJSON_IsObject(section)) {
        srv__pull_configuration(lsp);
        return;
    }
    if (cJSON_IsObject(settings))
        srv__apply_settings(lsp, settings);
}

static void srv__apply_settings(srv_lsp *lsp, const cJSON *settings)
{
    cfg_config config;
    cfg_copy(&config, &lsp->config);
    char error[512];
    sm_buf ignored;
    sm_buf_init(&ignored, 4096);
    if (srv_config_apply_json(&config, settings, &lsp->base_config, &ignored, error, sizeof error) != SM_OK) {
        srv__tell(lsp, true, 1, "seam: %s; the previous settings stay in force", error);
        cfg_free(&config);
        sm_buf_free(&ignored);
        return;
    }
    if (ignored.len)
        srv__tell(lsp, false, 2, "seam: ignored settings it does not know: %s", ignored.data);
    sm_buf_free(&ignored);
    if (cfg_equal(&config, &lsp->config) && !lsp->next_engine) {
        /* the same settings again (clients send them at start and on any
         * change of their own): completions in flight go on */
        cfg_free(&config);
        sm_log(lsp->logger, SM_LOG_DEBUG, "settings unchanged");
        return;
    }
    srv__make_engine(lsp, &config);
    cfg_free(&config);
    srv__tell(lsp, false, 3, "seam: settings updated (backend %s)", cfg_backend_name(lsp->config.backend));
}

static void srv__cancel_request(srv_lsp *lsp, const cJSON *params)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "id");
    if (!id)
        return;
    for (uint32_t i = 0; i < lsp->pending.size; i++) {
        srv__pending *p = lsp->pending.items[i];
        if (!p->replied && cJSON_Compare(p->id, id, true)) {
            srv__cancel_pending(lsp, p, "canceled by the client");
            return;
        }
    }
}

static void srv__shutdown(srv_lsp *lsp, const cJSON *id)
{
    for (uint32_t i = lsp->pending.size; i-- > 0;)
        srv__cancel_pending(lsp, lsp->pending.items[i], "the server is shutting down");
    lsp->state = SRV__SHUT_DOWN;
    srv__reply(lsp, id, NULL);
}

/* ---- Dispatch --------------------------------------------------------------------- */

static void srv__dispatch(srv_lsp *lsp, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method_item = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    bool is_request = id != NULL;
    if (id && !cJSON_IsNumber(id) && !cJSON_IsString(id)) {
        srv__reply_error(lsp, NULL, SRV__INVALID_REQUEST, "the id must be a number or a string");
        return;
    }
    if (!cJSON_IsString(method_item)) {
        /* A response to something we sent, or garbage. */
        if (cJSON_GetObjectItemCaseSensitive(msg, "result") || cJSON_GetObjectItemCaseSensitive(msg, "error"))
            srv__on_response(lsp, msg);
        else if (is_request)
            srv__reply_error(lsp, id, SRV__INVALID_REQUEST, "a request needs a method");
        return;
    }
    const char *method = method_item->valuestring;
    if (strcmp(method, "exit") == 0) {
        lsp->exit_code = lsp->state == SRV__SHUT_DOWN ? 0 : 1;
        lsp->state = SRV__EXITED;
        return;
    }
    if (lsp->state == SRV__UNINITIALIZED && strcmp(method, "initialize") != 0) {
        if (is_request)
            srv__reply_error(lsp, id, SRV__SERVER_NOT_INITIALIZED, "the server is not initialized");
        return;
    }
    if (lsp->state == SRV__SHUT_DOWN) {
        if (is_request)
            srv__reply_error(lsp, id, SRV__INVALID_REQUEST, "the server is shut down");
        return;
    }
    if (is_request) {
        if (strcmp(method, "initialize") == 0)
            srv__initialize(lsp, id, params);
        else if (strcmp(method, "shutdown") == 0)
            srv__shutdown(lsp, id);
        else if (strcmp(method, "textDocument/inlineCompletion") == 0)
            srv__completion(lsp, id, params, true);
        else if (strcmp(method, "textDocument/completion") == 0)
            srv__completion(lsp, id, params, false);
        else
            srv__reply_error(lsp, id, SRV__METHOD_NOT_FOUND, "unknown method");
        return;
    }
    if (strcmp(method, "initialized") == 0) {
        srv__tell(lsp, false, 3, "seam %s ready (backend %s, positions in %s)", SEAM_VERSION,
                  cfg_backend_name(lsp->config.backend), lsp->encoding == LSP_ENCODING_UTF8 ? "utf-8" : "utf-16");
        lsp->initialized = true;
        srv__pull_configuration(lsp);
        if (lsp->training)
            srv__training_started(lsp);   /* its progress token could not be asked for before */
        else if (srv_engine_loading(lsp->engine))
            srv__status(lsp, "loading", lsp->config.model_path);
        else
            srv__status(lsp, "ready", NULL);
    }
    else if (strcmp(method, "textDocument/didOpen") == 0)
        srv__did_open(lsp, params);
    else if (strcmp(method, "textDocument/didChange") == 0)
        srv__did_change(lsp, params);
    else if (strcmp(method, "textDocument/didClose") == 0)
        srv__did_close(lsp, params);
    else if (strcmp(method, "textDocument/didSave") == 0)
        ;   /* the text comes with didChange */
    else if (strcmp(method, "workspace/didChangeConfiguration") == 0)
        srv__did_change_configuration(lsp, params);
    else if (strcmp(method, "$/cancelRequest") == 0)
        srv__cancel_request(lsp, params);
    /* Other notifications, $/ ones included, are dropped. */
}

/* Whether body holds the escape of a surrogate (\uD800-\uDFFF). */
static bool srv__has_surrogate_escape(const char *body, size_t len)
{
    for (const char *p = body; (p = memchr(p, '\\', (size_t)(body + len - p))) && p + 2 < body + len; p++)
        if (p[1] == 'u' && (p[2] == 'd' || p[2] == 'D'))
            return true;
    return false;
}

static void srv__on_message(void *data, const char *body, size_t len)
{
    srv_lsp *lsp = data;
    if (lsp->state == SRV__EXITED)
        return;
    /* Half a surrogate pair escaped (an editor's buffer may hold one, and
     * JSON.stringify writes it so) would make the whole message unreadable:
     * it becomes the replacement character, on a copy of the message. */
    char *repaired = NULL;
    if (srv__has_surrogate_escape(body, len)) {
        repaired = sm_strndup(body, len);
        lsp_json_repair_surrogates(repaired, len);
        body = repaired;
    }
    lsp->message_has_nul = lsp_json_has_nul(body, len);
    cJSON *msg = cJSON_ParseWithLength(body, len);
    sm_free(repaired);
    if (!msg) {
        srv__reply_error(lsp, NULL, SRV__PARSE_ERROR, "the message is not valid JSON");
        return;
    }
    if (!cJSON_IsObject(msg)) {
        srv__reply_error(lsp, NULL, SRV__INVALID_REQUEST, cJSON_IsArray(msg) ? "batches are not supported"
                                                                              : "a message must be an object");
        cJSON_Delete(msg);
        return;
    }
    srv__dispatch(lsp, msg);
    cJSON_Delete(msg);
}

static void srv__on_frame_error(void *data, lsp_frame_error error, size_t length)
{
    srv_lsp *lsp = data;
    if (error == LSP_FRAME_TOO_BIG) {
        char text[160];
        snprintf(text, sizeof text, "a message of %zu bytes is over the cap of %u bytes (max_message_bytes)", length,
                 lsp->config.max_message_bytes);
        srv__reply_error(lsp, NULL, SRV__INVALID_REQUEST, text);
        sm_log(lsp->logger, SM_LOG_WARN, "%s", text);
    } else {
        srv__reply_error(lsp, NULL, SRV__PARSE_ERROR, "a message header without a valid Content-Length");
        sm_log(lsp->logger, SM_LOG_WARN, "dropped a message header without a valid Content-Length");
    }
}

static const lsp_framer_callbacks srv__framer_callbacks = {srv__on_message, srv__on_frame_error};

void srv_lsp_feed(srv_lsp *lsp, const char *bytes, size_t len)
{
    if (lsp->state != SRV__EXITED)
        lsp_framer_feed(&lsp->framer, bytes, len, &srv__framer_callbacks, lsp);
}

bool srv_lsp_exited(const srv_lsp *lsp, int *code)
{
    if (code)
        *code = lsp->exit_code;
    return lsp->state == SRV__EXITED;
}

srv_lsp *srv_lsp_new(uv_loop_t *loop, const cfg_config *config, sm_logger *logger, srv_lsp_write_cb write,
                     void *write_data)
{
    srv_lsp *lsp = sm_calloc(1, sizeof *lsp);
    lsp->loop = loop;
    lsp->logger = logger;
    lsp->write = write;
    lsp->write_data = write_data;
    cfg_copy(&lsp->config, config);
    cfg_copy(&lsp->base_config, config);
    lsp_framer_init(&lsp->framer, config->max_message_bytes);
    return lsp;
}

void srv_lsp_stop(srv_lsp *lsp)
{
    for (uint32_t i = lsp->pending.size; i-- > 0;)
        srv__cancel_pending(lsp, lsp->pending.items[i], "the server is stopping");
}

bool srv_lsp_busy(const srv_lsp *lsp)
{
    return lsp->pending.size > 0;
}

void srv_lsp_free(srv_lsp *lsp)
{
    if (!lsp)
        return;
    srv_engine_free(lsp->engine);
    srv_engine_free(lsp->next_engine);
    for (uint32_t i = 0; i < lsp->docs.size; i++)
        srv__doc_free(lsp->docs.items[i]);
    sm_array_free(&lsp->docs);
    sm_array_free(&lsp->pending);
    lsp_framer_free(&lsp->framer);
    cfg_free(&lsp->config);
    cfg_free(&lsp->base_config);
    for (uint32_t i = 0; i < lsp->closed.size; i++)
        sm_free(lsp->closed.items[i]);
    sm_array_free(&lsp->closed);
    sm_free(lsp->workspace);
    sm_free(lsp);
}
