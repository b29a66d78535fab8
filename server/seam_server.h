/*
 * seam_server.h - the seam program: its commands and, later, the daemon.
 */
#ifndef SEAM_SERVER_H
#define SEAM_SERVER_H

#include <uv.h>

#include "seam_base.h"
#include "seam_config.h"
#include "seam_model_client.h"
#include "seam_parser.h"
#include "seam_languages.h"
#include "seam_protocol.h"
#include "seam_semantic.h"
#include "seam_context.h"

struct lg_language;
/* The language named `name` (a setting's or a case's); NULL, and why, when
 * seam has none by that name. */
const struct lg_language *srv_language_named(const char *name, char *why, size_t why_size);
/* The language a document is read in (language.c): the setting `language`
 * when set, else its LSP languageId (NULL: none), else the file's name and
 * #! line (path and text may be NULL), read as its variant when the text
 * needs it (lg_read_as: a .js file holding JSX is JSX).  NULL when seam
 * completes none of them: why[0..why_size) says so, in a line for the log
 * or stderr. */
const struct lg_language *srv_language_of(const cfg_config *config, const char *language_id, const char *path,
                                          const char *text, size_t len, char *why, size_t why_size);
/* The dialect a document of `language` is read in: the setting
 * `source_type` when set (and one of the language's), else as the
 * language's own tools decide from the path (may be NULL) and text; NULL
 * for a language without dialects.  Static text. */
const char *srv_dialect_of(const cfg_config *config, const struct lg_language *language, const char *path,
                           const char *text, size_t len);
/* Adds "NAME_version" ("3.12") and "NAME_version_why" to a JSON object
 * (--json, the status) for a language read in `version` (NULL: nothing). */
struct cJSON;
void srv_add_version(struct cJSON *object, const struct lg_language *language, const lg_version_choice *version);




/* What a tree-sitter parse of a Python text found. */
typedef struct srv_syntax_summary {
    char root_type[32];        /* the root node's type, "module" for Python */
    uint32_t node_count;       /* named and anonymous nodes */
    uint32_t top_level_count;  /* named children of the root */
    bool has_error;            /* an ERROR or MISSING node exists */
    uint32_t error_row;        /* zero-based row of the first error, if any */
    uint32_t error_column;     /* its byte column */
} srv_syntax_summary;

/* Parses text[0..len) with the language's tree-sitter grammar and
 * summarises the tree.  Returns SM_OK, SM_EINVAL if the language has none
 * or the parser cannot be set up, SM_ETOOBIG, or SM_ENOMEM. */
int srv_syntax_summarize(const struct lg_language *language, const char *text, size_t len,
                         srv_syntax_summary *summary);

/* Reads a whole file into `out` (initialised here; capped at 64 MiB).
 * SM_EIO (errno tells why) or SM_ETOOBIG; `out` is freed on error. */
int srv_read_file(const char *path, sm_buf *out);

#define SRV_MAX_LANGUAGES 8
#define SRV_MAX_VARIANTS 8

/* The languages' grammars, by version or dialect, compiled when first
 * asked for and kept (check.c), and seam check's defaults.
 * Zero-initialise; free with srv_grammars_free. */
typedef struct srv_grammars {
    /* by the language's place in the registry, and its version's place
     * among its versions (or its dialect's, from 0) */
    ep_grammar *by_variant[SRV_MAX_LANGUAGES][SRV_MAX_VARIANTS];
    int version;        /* the cases' default version: 0 for auto, else 100 * major + minor */
    lg_version_choice auto_versions[SRV_MAX_LANGUAGES];  /* what auto chose for the working folder, by
                                                            language; version 0 until asked */
    const char *python_path;   /* the interpreter of the semantic cases' packages, or NULL */
    const char *language;      /* the cases' default language (a registry name), or NULL: the registry's first */
    const char *dialect;       /* the cases' default dialect ("module", "script"), or NULL: the language's first */
} srv_grammars;
/* The grammar of `language` in `version` (one of its versions, or a
 * dialect's number from 1), compiled when first asked for and kept. */
const ep_grammar *srv_grammars_of(srv_grammars *grammars, const struct lg_language *language, int version,
                                  char *error, size_t error_size);
/* The grammar of `language` in `dialect` (a name from the language's
 * dialects, or NULL: its first). */
const ep_grammar *srv_grammars_dialect(srv_grammars *grammars, const struct lg_language *language,
                                       const char *dialect, char *error, size_t error_size);
void srv_grammars_free(srv_grammars *grammars);

/* `seam check [--python-version V] [--python-path P]`: reads JSON Lines cases from `in` and
 * writes one result line per case to `out` (see check.c).  Returns the exit
 * status. */
int srv_cmd_check(int argc, char **argv, FILE *in, FILE *out);
/* The same with the grammars given (borrowed; compiled into as cases need
 * them) and the semantic pruners' environment kept in *env (opened here
 * when a case first needs it; the caller frees it), for callers that check
 * many inputs. */
struct sx_env;
void srv_check_cases(srv_grammars *grammars, struct sx_env **env, FILE *in, FILE *out);

/* ---- Scope and context escape (scope.c) -----------------------------------------------
 *
 * tree-sitter is used only here, to choose a completion's shape and where
 * it must stay; validity comes from the recognizer.
 */
typedef struct srv_tree srv_tree;

/* A tree of a text in its language's tree-sitter grammar; NULL when the
 * language has none or the parser cannot start. */
srv_tree *srv_tree_new(const struct lg_language *language, const char *text, size_t len);
void srv_tree_free(srv_tree *tree);
/* Records an edit of old_text: [start, old_end) replaced by `inserted`.
 * The tree is then stale (not used) until srv_tree_reparse, or
 * srv_tree_refresh, is given the new text. */
void srv_tree_edit(srv_tree *tree, const char *old_text, size_t start, size_t old_end, const char *inserted,
                   size_t inserted_len);
void srv_tree_reparse(srv_tree *tree, const char *text, size_t len);
/* Reparses a stale tree, and only a stale one: edits arrive with every
 * keystroke and an incremental parse of a long module costs nearly a full
 * one, so a document's tree is brought up to date when a request needs
 * it, once for all the edits since. */
void srv_tree_refresh(srv_tree *tree, const char *text, size_t len);
/* A copy of the tree for another thread (the caller owns it: a job takes
 * it); NULL when there is none. */
struct TSTree *srv_tree_copy(const srv_tree *tree);
bool srv_tree_has_error(const srv_tree *tree);

/* The scope at byte `offset` of text (tree may be NULL), from the
 * language's scope rules (languages/<name>/scope.c).  Multi-line shapes
 * get max_lines when `multiline` is set, one line otherwise. */
void srv_scope_at(const struct lg_language *language, const srv_tree *tree, const char *text, size_t len,
                  size_t offset, bool multiline, uint32_t max_lines, lg_scope *out);

/* The context-escape constraint as a decoding filter (data: an lg_scope),
 * the scope's language's: the middle may not close a bracket it did not
 * open (unless the right context leaves that bracket open) or the literal
 * it is in (unless the right context does not close it), a comment
 * completion stays on its line, and (Python) in block scopes no line of
 * the middle is indented less than the block. */
bool srv_escape_filter(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines);


/* ---- The project's other files (project.c) ----------------------------------------
 *
 * What a completion's prompt takes from the rest of the project
 * (context/ picks the chunks): the front end offers its other documents,
 * the job reads the modules the document imports, in the thread pool.
 */
#define SRV_PEERS_MAX 16
/* Another document, copied for the job. */
typedef struct srv_peer {
    char *path;            /* owned; absolute */
    char *text;            /* owned; NULL: read from the file (a closed document) */
    size_t len;
    uint32_t age;          /* 0: the most recently edited */
    bool open;             /* open in the editor, else closed recently */
} srv_peer;

typedef struct srv_peers {
    SM_ARRAY(srv_peer) items;
} srv_peers;

/* Adds a copy (text may be NULL: the file is read when needed); at most
 * SRV_PEERS_MAX, none over the size read from files. */
void srv_peers_add(srv_peers *peers, const char *path, const char *text, size_t len, uint32_t age, bool open);
void srv_peers_free(srv_peers *peers);

/* The chunks a completion's prompt carries, and how they were found. */
typedef struct srv_project {
    cx_picked picked;
    mc_file_chunk *chunks;     /* owned array; its strings borrowed from picked */
    char *repo, *path;         /* owned */
    mc_project project;        /* the prompt's view; count 0 when nothing was picked */
    uint64_t gather_ns;
    uint32_t files_read, files_offered;
} srv_project;

/* Gathers for the document at `path` (absolute; text[0..len), the cursor
 * at offset): the files it imports under `workspace` (NULL: its folder)
 * and the peers (may be NULL), picked to `budget` bytes.  `memory` keeps
 * the chunks' order between requests, under `memory_lock` (may be NULL).
 * Reads files; in the thread pool.  Free with srv_project_free. */
void srv_project_gather(srv_project *out, const struct lg_language *language, const char *workspace,
                        const char *path, const char *text, size_t len, size_t offset, size_t budget,
                        const srv_peers *peers, cx_memory *memory, uv_mutex_t *memory_lock);
void srv_project_free(srv_project *project);
/* The chunks, their bytes and the time taken, for --json (the caller
 * deletes it); project may be NULL (nothing picked). */
struct cJSON *srv_project_json(const srv_project *project);
/* The project a file belongs to, for a front end with no workspace (seam
 * complete): the nearest folder above it holding .git, pyproject.toml,
 * setup.py, setup.cfg, package.json or tsconfig.json, else its own folder.
 * Free with sm_free. */
char *srv_project_root(const char *path);

/* ---- One request's set-up (request.c) ---------------------------------------------
 *
 * Every front end (the language server, `seam complete`, `seam check`) sets
 * a completion up here: the scope at the cursor, how much of the code after
 * the cursor binds the middle, the job's options, and the recognizer.
 *
 * Finished code binds a completion whole: left + middle + right must be a
 * program.  Code being typed does not: the rest of the cursor's line is
 * often only what the editor closed for the person, and at the end of a
 * file nothing follows at all.  docs/RECOGNIZER.md has the argument.
 */
typedef enum srv_binding {
    SRV_BINDING_WHOLE = 0,  /* left + middle + right is a program */
    SRV_BINDING_LINE,       /* left + middle + the line's rest + c + the code after the line
                               is a program for some c */
    SRV_BINDING_END,        /* left + middle + the line's rest can still become a program */
} srv_binding;

const char *srv_binding_name(srv_binding binding);

/* What a request's recognizer reads, and the bindings to try, strictest
 * first. */
typedef struct srv_contexts {
    size_t text_start;          /* the program starts here: past a file's byte-order mark */
    size_t cut_left, cut_right; /* the recognizer reads text[cut_left, cut_right) */
    lg_lex lex;                 /* the lexical state at the cursor */
    size_t line_end;            /* the cursor line's rest is text[offset, line_end) */
    size_t next_line;           /* the code after the cursor's line starts here */
    bool at_end;                /* nothing but blank space follows the cursor's line */
    bool whole_only;            /* the whole right context, whatever it is */
    bool whole_first;           /* the whole right context is tried first */
    bool rest_is_code;          /* the cursor line's rest is the person's text, not
                                   blank space or an editor's closers */
    const char *why;            /* static text: why it is not, or NULL */
    const struct lg_language *language;  /* whose lexical reading `lex` is */
} srv_contexts;

/* The contexts of a request at `offset` of text[0..len) from its scope:
 * cut to the scope's cut points when `cut` is set, the whole text
 * otherwise; bound whole, whatever follows, when `whole_only` is set. */
void srv_contexts_of(const lg_scope *scope, const char *text, size_t len, size_t offset, bool cut, bool whole_only,
                     srv_contexts *out);


/* A recognizer kept between completions of one document: fed the left
 * context `left`, with the right context `right`.  A completion whose left
 * context extends `left` and whose right context is the same re-uses it,
 * feeding only the new bytes.  Owned by whoever holds it. */
typedef struct srv_rec_cache {
    ep_recognizer *rec;
    const ep_grammar *grammar;  /* the one rec was made with (borrowed: the engine's) */
    ep_savepoint point;     /* the state right after `left` */
    char *left;
    size_t left_len;
    char *right;
    size_t right_len;
    /* The last contexts no middle could join: a left context that extends
     * refused_left cannot be joined to refused_right either (viability
     * holds for every prefix of a viable text). */
    char *refused_left;
    size_t refused_left_len;
    char *refused_right;
    size_t refused_right_len;
} srv_rec_cache;

void srv_rec_cache_free(srv_rec_cache *cache);

/* The inline completion a document last showed, with the text it was made
 * for (shown.c): when the person types the characters it shows, what is
 * left of it answers the next request at once, with no model request
 * (typing through a suggestion).  Owned by the document. */
typedef struct srv_shown srv_shown;
/* A copy of text[0..len), the cursor `offset` and the completion; `engine`
 * (borrowed, only compared) is the one that made it.  NULL when there is
 * nothing to keep (an empty completion). */
srv_shown *srv_shown_new(const char *text, size_t len, size_t offset, const char *completion, size_t completion_len,
                         const void *engine);
void srv_shown_free(srv_shown *shown);
/* The rest of the shown completion when text[0..len) is the text it was
 * made for with its first k bytes typed at its cursor, the cursor now
 * after them (offset = its cursor + k, 0 < k < its length; k = 0 too when
 * it was decoded ahead and not shown yet), on the same engine; NULL (and
 * *rest_len 0) otherwise.  Points into `shown`. */
const char *srv_shown_rest(const srv_shown *shown, const char *text, size_t len, size_t offset, const void *engine,
                           size_t *rest_len);

/* Decoding ahead (shown.c): once a completion is shown, the one after it
 * is decoded while the person reads, for the text with the completion
 * accepted and, where that leaves the cursor at the end of a line, a line
 * break after it (the next line's completion starts with its indentation,
 * which the person's Enter and the editor's indenting type through).
 * Into *out (the caller's, freed with sm_buf_free) the text, into
 * *cursor where the completion ahead starts; false when there is no next
 * line to decode (the completion ends before code on its line). */
bool srv_ahead_text(const srv_shown *shown, sm_buf *out, size_t *cursor);
/* Marks a completion decoded ahead: asked at its own text with nothing
 * typed, it answers whole (srv_shown_rest). */
void srv_shown_set_ahead(srv_shown *shown, bool ahead);
/* Whether text[0..len) with the cursor at `offset` is the text `shown`
 * was made for with some bytes typed at its cursor (none too): a request
 * the completion may answer once it is known. */
bool srv_shown_extends(const srv_shown *shown, const char *text, size_t len, size_t offset);
/* Whether the text `shown` was made for is text[0..len) with some bytes
 * typed at `offset` (none too): a request on the way to it. */
bool srv_shown_extended_by(const srv_shown *shown, const char *text, size_t len, size_t offset);
/* The same as srv_shown_extends for a text `was` with its cursor at was_offset. */
bool srv_text_extends(const char *was, size_t was_len, size_t was_offset, const char *text, size_t len, size_t offset);

/* Lexical states at the right cut, remembered by the state the middle
 * leaves: most middles leave one of a handful. */
#define SRV_LEX_MEMO 8
typedef struct srv_lex_memo {
    lg_lex from[SRV_LEX_MEMO], to[SRV_LEX_MEMO];
    uint32_t count, next;
} srv_lex_memo;

/* can_end on cut contexts: the recognizer's answer when the middle leaves
 * nothing open at the right cut (then the text outside is separate), else
 * a check of the whole text.  `whole` is the full text with the cursor at
 * `offset`, `at_cursor` the state there in the language's lexical reading;
 * returns the same answer as a recognizer on the whole text. */
bool srv_cut_can_end(ep_recognizer *rec, const ep_grammar *grammar, const struct lg_language *language,
                     const char *whole, size_t len, size_t offset, size_t cut_right, const lg_lex *at_cursor,
                     const char *middle, size_t middle_len, srv_lex_memo *memo, bool *fell_back);


/* A request's recognizer with the binding chosen: the strictest one that
 * some middle can still satisfy.  Everything is borrowed for the bound's
 * life; the recognizer belongs to the cache. */
typedef struct srv_bound {
    const ep_grammar *grammar;
    const char *text;
    size_t len, offset;
    srv_contexts contexts;
    srv_binding binding;
    const char *why;            /* static text: why this binding */
    ep_recognizer *rec;         /* the cache's, left right after the left context */
    bool reused;                /* the cache's recognizer served, fed only new bytes */
    srv_lex_memo memo;          /* lexical states at the right cut */
} srv_bound;

/* Opens the recognizer for text[0..len) at `offset` into `cache` (kept,
 * or rebuilt when it does not serve these contexts).  SM_EUTF8 for text
 * that is not UTF-8. */
int srv_bound_open(const ep_grammar *grammar, const char *text, size_t len, size_t offset, const srv_contexts *contexts,
                   srv_rec_cache *cache, srv_bound *out);

/* Whether the middle fed to bound->rec may end the completion under the
 * binding chosen.  `fell_back` (may be NULL): the whole text was read. */
bool srv_bound_can_end(srv_bound *bound, const char *middle, size_t middle_len, bool *fell_back);
/* Whether a whole binding may give way to the line binding: code follows
 * the cursor's line, and the rest of the line is an editor's closers (not
 * blank), which the person goes on past.  The engine binds so when the
 * whole binding took no middle the model wrote. */
bool srv_bound_line_possible(const srv_bound *bound);
/* Whether the middle fed to bound->rec may end as a line that opens a
 * construct: nothing but blank space after the cursor on its line, the
 * binding not whole (the code after the line, if any, follows once the
 * construct is written), the middle one line ending with an opening
 * bracket it opens, outside any literal, and a line break may follow it. */
bool srv_bound_line_opens(srv_bound *bound, const char *middle, size_t middle_len);

typedef struct srv_job_options {
    uint32_t max_tokens;       /* 0: the configuration's */
    uint32_t max_lines;        /* 0: the configuration's (1 unless multiline) */
    uint32_t run_ahead;        /* 0: the configuration's */
    mc_filter_cb filter;       /* an extra constraint, or NULL */
    void *filter_data;
    srv_rec_cache *cache;      /* moved into the job; may be NULL */
    struct TSTree *tree;       /* moved into the job: the text's tree (srv_tree_copy), for the
                                  semantic pruners; may be NULL (then parsed in the job) */
    bool have_contexts;        /* false: the whole text, bound whole */
    srv_contexts contexts;
    bool explicit_request;     /* asked for by the user, not an automatic trigger:
                                  a non-empty completion is preferred */
    const struct lg_language *language;  /* the text's language */
    const char *dialect;       /* its dialect (a name of language->dialects, static), or NULL */
    const char *path;          /* the document's file (absolute; borrowed, copied by the job), or
                                  NULL: no project context */
    srv_peers *peers;          /* moved into the job: other documents for the prompt; may be NULL */
} srv_job_options;

/* One request, set up as every front end sets it up: the scope at the
 * cursor and the job's options.  The escape filter points at the scope:
 * the request stays in place while its job runs. */
typedef struct srv_request {
    lg_scope scope;
    srv_job_options options;
} srv_request;

/* `language` (the document's, from srv_language_of) and `dialect` (from
 * srv_dialect_of) choose the grammar and the scope rules; a language with
 * no reading of lines being typed is bound whole. */
void srv_request_prepare(srv_request *request, const cfg_config *config, const struct lg_language *language,
                         const char *dialect, const srv_tree *tree, const char *text, size_t len, size_t offset,
                         bool explicit_request);
/* The same with the contexts chosen: cut to the scope's cut points
 * (`cut`, else the setting cut_contexts), bound whole (`whole_only`, else
 * as far as the code is written): seam check's set-up. */
void srv_request_setup(srv_request *request, const cfg_config *config, const struct lg_language *language,
                       const char *dialect, const srv_tree *tree, const char *text, size_t len, size_t offset,
                       bool explicit_request, bool cut, bool whole_only);


/* ---- The completion engine (engine.c) ----------------------------------------------
 *
 * Holds the Python grammar, the configured backend and, for the embedded
 * backend, the trained model.  One job is one completion: the recognizer for
 * the text around the cursor is set up in libuv's thread pool, then the
 * decoding loop runs on the loop.
 */
typedef struct srv_engine srv_engine;
typedef struct srv_job srv_job;

typedef struct srv_completion_info {
    uint64_t setup_ns;         /* building the recognizer for both contexts */
    uint64_t total_ns;
    const char *backend;
    const char *error;         /* why there is no completion, or NULL */
    bool reused;               /* the recognizer came from the cache */
    bool semantic;             /* the semantic pruners checked the candidates */
    srv_binding binding;       /* how much of the code after the cursor bound the middle */
    const char *binding_why;   /* static text */
    uint32_t semantic_refused[SX_PRUNER_COUNT]; /* candidates each pruner refused */
    srv_rec_cache *cache;      /* moved to the callee (free or keep); may be NULL */
    const srv_project *project; /* the project's chunks in the prompt (borrowed for the call); NULL: none */
} srv_completion_info;

/* `completion` is NULL on error (info->error says why); the callee owns it. */
typedef void (*srv_job_cb)(void *data, mc_completion *completion, const srv_completion_info *info);

/* Copies `config`.  For the embedded backend, jobs wait until a model is
 * trained (srv_engine_train or srv_engine_train_async).  A model in process
 * that `previous` (borrowed, may be NULL) loaded from the same unchanged
 * file is shared instead of loaded again. */
int srv_engine_new(uv_loop_t *loop, const cfg_config *config, const char *project_dir, const srv_engine *previous,
                   sm_logger *logger,
                   srv_engine **out, char *error,
                   size_t error_size);
/* Lets the engine go: jobs still waiting for the model get their on_done
 * with an error; the engine itself lives on while jobs it runs (or a
 * training run) still use it, and is freed by the last of them. */
void srv_engine_free(srv_engine *engine);
const cfg_config *srv_engine_config(const srv_engine *engine);
/* The Python version the engine's grammar is for, and why (pyversion.c). */
/* The version the engine reads `language` in, and why; NULL for a
 * language without versions. */
const lg_version_choice *srv_engine_version(const srv_engine *engine, const struct lg_language *language);
/* What the semantic pruners read (the environment and its package
 * folders), said; "" before the first completion made it.  Borrowed. */
const char *srv_engine_packages(const srv_engine *engine);

/* What a model in seam's process holds in memory, in bytes. */
typedef struct srv_memory {
    uint64_t weights, kv_cache, vocabulary;
    uint32_t n_ctx;           /* a document's context in the KV cache, in tokens */
    uint32_t documents;       /* documents whose KV cache is kept */
} srv_memory;

/* Fills *out and returns true when the engine runs a model in process. */
bool srv_engine_memory(const srv_engine *engine, srv_memory *out);
bool srv_engine_ready(const srv_engine *engine);
/* Ready, or soon: its embedded model training or its local model loading
 * (jobs wait for it). */
bool srv_engine_usable(const srv_engine *engine);
/* The local model (the llama backend) is being loaded, off the loop. */
bool srv_engine_loading(const srv_engine *engine);
/* Why the local model did not load (jobs then fail with it), or NULL. */
const char *srv_engine_load_error(const srv_engine *engine);
/* Calls on_ready(data) on the loop when the embedded model has been
 * trained or the local model has loaded or failed to (not for an engine
 * freed before that). */
void srv_engine_on_ready(srv_engine *engine, void (*on_ready)(void *data), void *data);

/* The embedded model's corpus: the workspace's Python files, then the
 * machine's standard library when the configuration allows. */
void srv_engine_corpus(const srv_engine *engine, mc_corpus *corpus, const char *workspace);
/* The workspace whose modules the semantic pruners know (NULL: none), as
 * well as the standard library.  Takes effect before the first completion
 * only: the modules read are kept for the engine's life. */
void srv_engine_set_workspace(srv_engine *engine, const char *workspace);
void srv_engine_train(srv_engine *engine, const mc_corpus *corpus);
/* Shares a trained embedded model of one engine with another (a new
 * configuration on the same corpus); false when `from` has none ready. */
bool srv_engine_share_model(srv_engine *from, srv_engine *to);
/* Takes ownership of the corpus's contents. */
int srv_engine_train_async(srv_engine *engine, mc_corpus *corpus);

/* Completes text[0..len) at byte `offset` (text is copied).  on_done is
 * called once, from the loop, or from inside srv_job_cancel for a job that
 * was still waiting for the model. */
int srv_engine_complete(srv_engine *engine, const char *text, size_t len, size_t offset,
                        const srv_job_options *options, srv_job_cb on_done, void *data, srv_job **out);
/* Cancels a job whose on_done has not run; on_done follows. */
void srv_job_cancel(srv_job *job);


/* ---- The language server (lsp.c, daemon.c) -------------------------------------------
 *
 * srv_lsp is the protocol's state machine: fed the bytes a client sends, it
 * writes framed messages through `write`.  The daemon connects it to stdio
 * or a TCP client.
 */
typedef struct srv_lsp srv_lsp;
typedef void (*srv_lsp_write_cb)(void *data, const char *bytes, size_t len);

srv_lsp *srv_lsp_new(uv_loop_t *loop, const cfg_config *config, sm_logger *logger, srv_lsp_write_cb write,
                     void *write_data);
void srv_lsp_feed(srv_lsp *lsp, const char *bytes, size_t len);
/* Whether "exit" was received, and the exit code it asks for. */
bool srv_lsp_exited(const srv_lsp *lsp, int *code);
/* Cancels every completion in flight; run the loop until srv_lsp_busy is
 * false before srv_lsp_free. */
void srv_lsp_stop(srv_lsp *lsp);
bool srv_lsp_busy(const srv_lsp *lsp);
void srv_lsp_free(srv_lsp *lsp);

/* `seam`, `seam lsp [--stdio]`, `seam lsp --listen HOST:PORT`. */
int srv_cmd_lsp(int argc, char **argv);

/* ---- Settings from JSON (settings.c) ---------------------------------------------- */

struct cJSON;
/* Applies a JSON object of settings (or one under "seam"): all or nothing
 * for the settings seam knows.  Keys it does not know (an editor
 * extension's own, say) are skipped and their names appended to `ignored`
 * (comma-separated; may be NULL).  A null value returns the setting to
 * its value in `base` (the settings before the editor's layers); with
 * `base` NULL it is skipped. */
int srv_config_apply_json(cfg_config *config, const struct cJSON *object, const cfg_config *base, sm_buf *ignored,
                          char *error, size_t error_size);
int srv_config_load_file(cfg_config *config, const char *path, sm_buf *ignored, char *error, size_t error_size);
/* $XDG_CONFIG_HOME/seam/config.json, or ~/.config/seam/config.json. */
bool srv_config_default_path(char *out, size_t size);

/* `seam complete FILE:LINE:COL [options]` (see complete.c). */
int srv_cmd_complete(int argc, char **argv);

/* `seam model list|pull ...` (see model_cmd.c). */
int srv_cmd_model(int argc, char **argv);

/* Runs the seam command line (argv as main receives it) and returns the
 * process's exit status. */
int srv_main(int argc, char **argv);

#endif
