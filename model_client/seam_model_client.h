/*
 * seam_model_client.h - talking to language models, and the constrained
 * decoding loop that turns their candidates into valid completions.
 *
 * Pieces, from the bottom up:
 *  - fill-in-the-middle prompt templates of the model families seam knows,
 *    and the truncation of both contexts to a budget around the cursor;
 *  - an HTTP client on libcurl's multi-socket interface driven by libuv;
 *  - backends (llama.cpp server, OpenAI-compatible, Ollama, and the embedded
 *    n-gram model) behind one asynchronous interface that yields, for each
 *    generated position, the model's candidate tokens best first;
 *  - the decoding loop, which runs every candidate through the parser's
 *    fill-in-the-middle recognizer and returns only completions it accepts.
 *
 * Everything asynchronous runs on one uv_loop_t and never blocks it.
 */
#ifndef SEAM_MODEL_CLIENT_H
#define SEAM_MODEL_CLIENT_H

#include <uv.h>

#include "seam_base.h"
#include "seam_parser.h"

typedef struct mc_template {
    const char *name;          /* "starcoder", "qwen2.5-coder", ... */
    const char *format;        /* "{prefix}" and "{suffix}" mark the contexts */
    const char *const *stops;  /* NULL-terminated list of stop strings */
    /* The repository format the family was trained on (NULL: none):
     * repo_name and the repository's name, then for each
     * file file_sep, its path, a line break and its text, then file_sep
     * and the current file's path and a line break before the prompt. */
    const char *repo_name;
    const char *file_sep;
    bool repo_line_break;      /* a line break after the repository's name (Qwen2.5-Coder's; not
                                  StarCoder2's) */
} mc_template;

/* The template with this exact name, or NULL. */
const mc_template *mc_template_by_name(const char *name);

/* The template whose family a model name belongs to ("qwen2.5-coder:7b",
 * "bigcode/starcoder2-3b", ...), matched case-insensitively; NULL when the
 * family is not recognised. */
const mc_template *mc_template_for_model(const char *model_name);

/* The built-in templates, terminated by an entry whose name is NULL. */
const mc_template *mc_templates(void);

/* Appends the prompt for (prefix, suffix) to `out`.  Returns SM_OK, or
 * SM_ETOOBIG/SM_ENOMEM from the buffer, or SM_EINVAL when the format lacks a
 * "{prefix}" or "{suffix}" marker. */
int mc_template_render(const mc_template *tmpl, const char *prefix, size_t prefix_len,
                       const char *suffix, size_t suffix_len, sm_buf *out);

/* The template described by a user's format string: "{prefix}" and
 * "{suffix}" mark the contexts, `stops` is a comma-separated list (may be
 * empty).  Free with mc_template_free.  SM_EINVAL when a marker is missing. */
int mc_template_custom(const char *format, const char *stops, mc_template **out);
void mc_template_free(mc_template *tmpl);

/* Whether `text` (of `len` bytes) is one of the template's stop strings. */
bool mc_template_is_stop(const mc_template *tmpl, const char *text, size_t len);

/* ---- The project's other files (project.c) ---------------------------------
 *
 * Chunks of other files of the project placed before the document in the
 * prompt (context/ picks them).  For a template with a repository format,
 * its layout; for one without, each chunk under a comment with its path
 * (in the document's language), and the document's path last, at the
 * start of the prefix.
 */
typedef struct mc_file_chunk {
    const char *path;   /* relative to the workspace */
    const char *text;   /* ends with a line break */
    size_t len;
} mc_file_chunk;

typedef struct mc_project {
    const char *repo;          /* the repository's name (the workspace folder's) */
    const char *path;          /* the document's path, relative */
    const char *comment;       /* the language's line comment; NULL: no chunks without a repository format */
    const mc_file_chunk *chunks;
    uint32_t count;
} mc_project;

/* A copy that owns its strings (free with mc_project_free); NULL for NULL
 * or no chunks. */
mc_project *mc_project_copy(const mc_project *project);
void mc_project_free(mc_project *project);
/* Whether the template has a repository format. */
bool mc_template_has_repo(const mc_template *tmpl);
/* The text that goes before the prompt (a template with a repository
 * format), or at the start of the prefix (one without), for the first
 * `count` chunks of `project`; appends to `out`. */
int mc_project_head(const mc_template *tmpl, const mc_project *project, uint32_t count, sm_buf *out);
/* mc_template_render with the project's chunks (may be NULL). */
int mc_template_render_project(const mc_template *tmpl, const mc_project *project, const char *prefix,
                               size_t prefix_len, const char *suffix, size_t suffix_len, sm_buf *out);
/* Visits the head's pieces in order, as llama.cpp's server tokenizes them
 * for /infill (each text piece alone): a control string of the template
 * (special, to be read as its token) or a text.  For the first `count`
 * chunks. */
typedef void (*mc_piece_cb)(void *data, const char *text, size_t len, bool special);
/* How much of a head of `n` token ids fits in `room` tokens: all of it;
 * else, in a repository format (sep, the file separator's id, >= 0), the
 * repository's name and whole files from the start with the last file
 * separator and the document's path; else nothing.  The head is then
 * ids[0, *keep) followed by ids[*tail, n). */
void mc_project_fit(const int32_t *ids, uint32_t n, int32_t sep, uint32_t room, uint32_t *keep, uint32_t *tail);
void mc_project_pieces(const mc_template *tmpl, const mc_project *project, uint32_t count, mc_piece_cb piece,
                       void *data);

/* ---- Context budget -------------------------------------------------------
 *
 * Cuts left[0..left_len) and right[0..right_len) to at most `budget` bytes in
 * all around the cursor: whole lines nearest the cursor first, three
 * quarters of the room to the left (room one side does not use goes to the
 * other); the line the cursor is on is cut inside only when its part alone
 * exceeds its side's room.  Never cuts inside a UTF-8 sequence.  The kept left context
 * is left[*left_start..left_len), the kept right context right[0..*right_end).
 */
void mc_context_budget(const char *left, size_t left_len, const char *right, size_t right_len,
                       size_t budget, size_t *left_start, size_t *right_end);

/* ---- Candidates ---------------------------------------------------------- */

typedef struct mc_token {
    char *bytes;      /* owned; may be an incomplete UTF-8 sequence; NUL-terminated */
    uint32_t len;
    double logprob;   /* natural log; -INFINITY when unknown */
    bool eos;         /* the end of the completion (a stop token or string) */
    int32_t id;       /* the model's token id; -1 when unknown */
} mc_token;

typedef struct mc_vocab mc_vocab;

/* A position's whole distribution, from a backend that has one (a model in
 * seam's own process): the logit of every token of `vocab`.  Borrowed: valid
 * during the on_step call that carries it. */
typedef struct mc_logits {
    const float *logits;       /* n_vocab of them */
    uint32_t n_vocab;
    double logsum;             /* log of the sum of exp(logit): logprob = logit - logsum */
    const mc_vocab *vocab;     /* each token's bytes, in a trie */
    const int32_t *eog;        /* the ids that end generation */
    uint32_t n_eog;
} mc_logits;

/* Keeps in best[0..*have), best first, the `cap` ids with the highest
 * logits seen so far: inserts id where it belongs (or not at all). */
void mc_logits_keep_best(const float *logits, int32_t *best, uint32_t *have, uint32_t cap, int32_t id);

/* One generated position: the model's candidates there, best first, and the
 * one it went on with (an index into cands, or -1 when it stopped there
 * without saying which token it chose).  With `full`, the loop can look
 * past the candidates: when none of them keeps the middle viable, the best
 * tokens of the whole vocabulary that do are tried next. */
typedef struct mc_step {
    mc_token *cands;  /* owned */
    uint32_t count;
    int32_t chosen;
    const mc_logits *full;   /* borrowed; NULL for backends with candidates only */
} mc_step;

void mc_step_free(mc_step *step);
/* Appends a copy of (bytes, len, logprob, eos) to step->cands, id unknown. */
void mc_step_add(mc_step *step, const char *bytes, size_t len, double logprob, bool eos);
/* The same with the model's token id (-1 when unknown). */
void mc_step_add_token(mc_step *step, const char *bytes, size_t len, double logprob, bool eos, int32_t id);
/* Sorts the candidates best first (stable) and merges duplicate byte strings,
 * keeping `chosen` pointing at the same token. */
void mc_step_normalize(mc_step *step);

/* ---- Backends --------------------------------------------------------------
 *
 * A backend answers requests: "with this left and right context, after this
 * text generated so far, generate up to n_ahead tokens and give each
 * position's top n_candidates".  Each position arrives through on_step as
 * soon as it is known (streamed); on_step returns false to stop the request
 * early (the loop saw a position where it goes another way).  on_done is
 * called exactly once per started request, from the loop, never from inside
 * mc_backend_start or mc_call_cancel: SM_OK when the model stopped or the
 * n_ahead tokens came, SM_ECANCELED after a cancel or an on_step that
 * returned false, another SM_* code with a message otherwise.
 */
typedef struct mc_request {
    const char *left;       /* borrowed for the duration of mc_backend_start */
    size_t left_len;
    const char *right;
    size_t right_len;
    const char *generated;  /* the middle so far */
    size_t generated_len;
    const int32_t *generated_ids; /* the model's ids of its tokens, in order, or
                                     NULL when some are unknown */
    uint32_t generated_count;     /* how many tokens generated_ids holds */
    uint32_t max_new_tokens;      /* what the completion may still add, for the
                                     context budget in tokens (0: n_ahead) */
    bool fresh;             /* the first request of a completion: a backend may
                               check that what it learnt of its server holds */
    const mc_project *project; /* the project's other files; NULL: none */
    uint32_t n_ahead;       /* tokens to generate, at least 1 */
    uint32_t n_candidates;  /* candidates wanted per position, at least 1 */
} mc_request;

typedef bool (*mc_step_cb)(void *data, const mc_step *step);
typedef void (*mc_done_cb)(void *data, int status, const char *message);

typedef struct mc_call mc_call;
typedef struct mc_backend mc_backend;

/* Every backend's request starts with this, so that mc_call_cancel can find
 * its backend's vtable (a backend outside model_client/ embeds it too). */
struct mc_call {
    const struct mc_backend_vtable *vtable;
};

typedef struct mc_backend_vtable {
    const char *name;
    int (*start)(mc_backend *backend, const mc_request *request, mc_step_cb on_step,
                 mc_done_cb on_done, void *data, mc_call **out);
    void (*cancel)(mc_call *call);
    void (*free)(mc_backend *backend);
} mc_backend_vtable;

struct mc_backend {
    const mc_backend_vtable *vtable;
    uint32_t round_trips;   /* requests sent to the model since creation */
    uint32_t max_candidates; /* the most candidates per position it can give */
    uint64_t prompt_tokens; /* prompt tokens the model evaluated (not cached),
                               as far as the server reports them */
    uint32_t prompt_reports; /* round trips whose evaluated prompt tokens are known */
    uint32_t aux_requests;  /* other requests: a server's properties, tokenizing */
};

int mc_backend_start(mc_backend *backend, const mc_request *request, mc_step_cb on_step,
                     mc_done_cb on_done, void *data, mc_call **out);
/* Stops a started request; on_done follows with SM_ECANCELED unless the
 * request had already finished (then it follows with that status). */
void mc_call_cancel(mc_call *call);
void mc_backend_free(mc_backend *backend);

/* ---- HTTP backends -------------------------------------------------------- */

typedef enum mc_http_kind {
    MC_HTTP_LLAMACPP = 0,   /* llama.cpp server: /completion with a template, or /infill */
    MC_HTTP_OPENAI,         /* /v1/completions with a template-built prompt */
    MC_HTTP_OLLAMA,         /* /api/generate, raw prompt from a template or suffix */
} mc_http_kind;

/* How seam asks a llama.cpp server for a middle. */
typedef enum mc_llamacpp_mode {
    /* /completion with the prompt as token ids: the fill-in-the-middle
     * tokens of the model's vocabulary around the contexts tokenized as text
     * (/tokenize), then the tokens generated so far, so the server's cache
     * holds everything but the new tokens after a divergence.  The contexts
     * are cut to the server's context size in tokens (/props). */
    MC_LLAMACPP_COMPLETION = 0,
    /* /infill: the server builds the prompt, and puts the text generated so
     * far at the end of the prefix (before the suffix). */
    MC_LLAMACPP_INFILL,
} mc_llamacpp_mode;

typedef struct mc_http_options {
    mc_http_kind kind;
    mc_llamacpp_mode llamacpp_mode;
    const char *endpoint;         /* base URL, e.g. "http://127.0.0.1:8080" */
    const char *model;            /* may be NULL for llama.cpp */
    const mc_template *tmpl;      /* NULL: chosen from the model's vocabulary (a
                                     llama.cpp server) or its name; Ollama uses suffix */
    const char *api_key;          /* borrowed; sent as a bearer token; never logged */
    uint32_t connect_timeout_ms;
    uint32_t first_byte_timeout_ms;
    uint32_t total_timeout_ms;
    uint32_t retries;             /* extra attempts after a refused connection */
    size_t max_response;          /* cap on one response body, bytes */
    bool tls_verify;              /* on unless the user turns it off */
    bool stream;                  /* ask for streamed answers (on by default); off, each
                                     answer is read whole */
    sm_logger *logger;            /* borrowed; may be NULL */
} mc_http_options;

void mc_http_options_init(mc_http_options *options);

/* Creates an HTTP backend on `loop`.  The strings in `options` are copied.
 * SM_EINVAL (with a message) for an endpoint that is not http(s)://. */
int mc_backend_http_new(uv_loop_t *loop, const mc_http_options *options, mc_backend **out,
                        char *error, size_t error_size);

/* ---- The embedded model ----------------------------------------------------
 *
 * A token n-gram model (order 4, interpolated Kneser-Ney) over pieces of
 * source text: a newline with the next line's indentation, or spaces followed
 * by a name, number, operator or bracket.  Deterministic for a given corpus
 * and order of documents; its memory is capped by max_nodes.
 */
typedef struct mc_ngram mc_ngram;

mc_ngram *mc_ngram_new(uint32_t max_nodes);
void mc_ngram_free(mc_ngram *model);
/* Adds a document's text.  Not thread-safe with queries on the same model. */
void mc_ngram_train(mc_ngram *model, const char *text, size_t len);
/* Prepares the model for queries after training (sorts the vocabulary). */
void mc_ngram_finish(mc_ngram *model);

/* Appends the trained model to *out, to be read back by mc_ngram_load
 * (same build of seam: the layout is the machine's). */
int mc_ngram_save(const mc_ngram *model, sm_buf *out);
/* A model saved by mc_ngram_save, finished and ready for queries and more
 * training; NULL when data[0..len) is not one (any index out of place). */
mc_ngram *mc_ngram_load(const void *data, size_t len);
/* Lets the model grow to max_nodes (a loaded model, trained on further). */
void mc_ngram_set_max_nodes(mc_ngram *model, uint32_t max_nodes);

typedef struct mc_ngram_stats {
    uint32_t vocabulary;
    uint32_t nodes;
    uint64_t pieces;       /* pieces trained on */
    size_t bytes;          /* memory held */
    bool full;             /* max_nodes was reached */
    bool loaded;           /* read by mc_ngram_load (from a cache), not trained from nothing */
} mc_ngram_stats;
void mc_ngram_get_stats(const mc_ngram *model, mc_ngram_stats *stats);

/* The model's next-piece candidates after left + generated, best first, at
 * most `count` of them, plus an end-of-completion candidate whose
 * probability is that of the right context's first pieces following here. */
void mc_ngram_predict(const mc_ngram *model, const char *text, size_t len, const char *right,
                      size_t right_len, uint32_t count, mc_step *out);

/* The same from two models mixed: local_weight of a model of the document
 * at hand and the rest of the trained one (candidates one of them does not
 * list count at half that model's lowest listed probability). */
void mc_ngram_predict_mixed(const mc_ngram *global, const mc_ngram *local, double local_weight, const char *text,
                            size_t len, const char *right, size_t right_len, uint32_t count, mc_step *out);

/* Trains a model in libuv's thread pool on the files and texts given and
 * calls on_ready on the loop.  The corpus is read in the order given, capped
 * at max_bytes in all. */
typedef struct mc_corpus {
    SM_ARRAY(char *) paths;   /* owned strings; files read in order */
    SM_ARRAY(char *) texts;   /* owned strings (open buffers) */
    size_t max_bytes;         /* of the files, and of the texts */
    char *cache_dir;          /* owned; the files' model is kept there (training.c); NULL: not kept */
    uint32_t keep_after_ms;   /* a files' model trained faster than this is not kept (300 by default) */
} mc_corpus;

void mc_corpus_init(mc_corpus *corpus, size_t max_bytes);
void mc_corpus_add_path(mc_corpus *corpus, const char *path);
void mc_corpus_add_text(mc_corpus *corpus, const char *text, size_t len);
/* Adds the files under dir whose names end with one of `endings`
 * (NULL-terminated, ".py"), sorted, depth first, skipping hidden folders,
 * site-packages, dist-packages, node_modules and __pycache__; at most
 * max_files. */
void mc_corpus_add_tree(mc_corpus *corpus, const char *dir, const char *const *endings, uint32_t max_files);
/* Keeps the model of the corpus's files in `dir` (a cache folder, ca_dir),
 * and takes it from there when the files have not changed; NULL: never. */
void mc_corpus_set_cache(mc_corpus *corpus, const char *dir);
void mc_corpus_free(mc_corpus *corpus);
/* Reads and trains synchronously. */
mc_ngram *mc_corpus_train(const mc_corpus *corpus, uint32_t max_nodes);

typedef void (*mc_ngram_ready_cb)(void *data, mc_ngram *model);
typedef struct mc_train_job mc_train_job;
/* Trains in the thread pool; on_ready gets the model (NULL when canceled)
 * on the loop.  Takes ownership of `corpus`.  *out (may be NULL) is the
 * job, valid until on_ready is called.  SM_OK or an error from libuv. */
int mc_corpus_train_async(uv_loop_t *loop, mc_corpus *corpus, uint32_t max_nodes,
                          mc_ngram_ready_cb on_ready, void *data, mc_train_job **out);
/* The training is not wanted any more: one not started never starts, one
 * running stops at its next file; on_ready is still called (NULL). */
void mc_train_cancel(mc_train_job *job);

/* A backend over a trained model, which it borrows (it must outlive the
 * backend).  Each request's own contexts (32 KiB before the cursor, 16 KiB
 * after it) train a small model of the document at hand, kept while the
 * contexts stay the same, mixed in with weight 0.4: names and idioms of
 * the file being edited come first.  Answers on the next turn of the loop. */
int mc_backend_embedded_new(uv_loop_t *loop, const mc_ngram *model, mc_backend **out);

/* ---- Full-vocabulary masks -------------------------------------------------
 *
 * A model's whole vocabulary as bytes, kept in a byte trie, so that the
 * tokens a recognizer state allows are found together: tokens sharing a
 * prefix share the work of feeding it, and a refused byte rules out every
 * token below it.  Tokens without bytes (control tokens) and tokens longer
 * than 255 bytes are never allowed by a mask.
 */
/* Copies count tokens' bytes (pieces[t] of lens[t] bytes; borrowed). */
mc_vocab *mc_vocab_new(const char *const *pieces, const uint32_t *lens, uint32_t count);
void mc_vocab_free(mc_vocab *vocab);
uint32_t mc_vocab_size(const mc_vocab *vocab);
uint32_t mc_vocab_nodes(const mc_vocab *vocab);   /* trie nodes: distinct token prefixes */
size_t mc_vocab_bytes(const mc_vocab *vocab);     /* the memory it holds */
/* Token t's bytes (*len of them; borrowed), "" for a token without bytes. */
const char *mc_vocab_token(const mc_vocab *vocab, uint32_t t, uint32_t *len);

typedef struct mc_mask_stats {
    uint64_t bytes_fed;    /* bytes fed to the recognizer for this mask */
    uint64_t bytes_lexed;  /* bytes only the lexer moved over (trie) */
    uint64_t scans_made;   /* Earley scans computed (trie; not a field's own) */
    uint64_t scans_copied; /* and copied from the memo of scans (trie) */
    bool copied;           /* the mask kept inside a plain token served (trie) */
    bool in_fields;        /* the middle ends inside a string with fields (trie) */
} mc_mask_stats;

/* Sets bit t of mask (ceil(size / 64) words, cleared first) for every token
 * whose bytes keep `rec` viable; returns how many.  `rec` is left as it
 * was.  stats may be NULL. */
uint32_t mc_vocab_mask(const mc_vocab *vocab, ep_recognizer *rec, uint64_t *mask, mc_mask_stats *stats);
/* Prepares what masks inside common tokens of `grammar` need
 * (ep_trie_prewarm); returns how many lexeme trees that is. */
uint32_t mc_vocab_prewarm(const mc_vocab *vocab, const ep_grammar *grammar);
/* The same for masks inside names (ep_trie_prewarm_names): longer, for a
 * thread of its own, stopped once *stop (may be NULL) is set; a mask
 * beside it in another thread is safe. */
uint32_t mc_vocab_prewarm_names(const mc_vocab *vocab, const ep_grammar *grammar, const atomic_bool *stop);
/* The same for masks along the language's samples (ep_trie_prewarm_samples:
 * a string's opening, the text after a field), likewise; returns how many
 * trees the vocabulary gained meanwhile. */
uint32_t mc_vocab_prewarm_samples(const mc_vocab *vocab, const ep_grammar *grammar, const atomic_bool *stop);
/* The same by feeding every token on its own: the reference the trie is
 * checked and measured against. */
uint32_t mc_vocab_mask_brute(const mc_vocab *vocab, ep_recognizer *rec, uint64_t *mask, mc_mask_stats *stats);

/* A constraint past the grammar that the choices from a whole distribution
 * meet as well (the decoder's filter: the semantic pruners, the context
 * escape): a token is a choice only when filter(data, middle + token,
 * at_end false, max_lines) accepts it.  max_lines is the decoder's line
 * budget as it stands (it grows when decoding widens). */
typedef bool (*mc_filter_cb)(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines);
typedef struct mc_admit {
    mc_filter_cb filter;
    void *data;
    const char *middle;     /* the middle so far; borrowed */
    size_t len;
    uint32_t max_lines;
} mc_admit;

/* ---- Choosing from a whole distribution --------------------------------------
 *
 * For a position whose backend gave every token's logit (mc_step.full),
 * under the full-vocabulary mask of `rec` as it stands; an end of
 * generation is added only when `can_end`.  Both append to `out` and return
 * how many they appended. */

/* The `cap` best tokens that keep the middle viable and that `admit`
 * (NULL: none) admits, best first, leaving out those `tried` lists (NULL:
 * none), and the best end if `tried` has no end.  With `admit`, at most
 * MC_ADMIT_CHECKS tokens are put to its filter. */
#define MC_ADMIT_CHECKS 2048
uint32_t mc_full_best(const mc_logits *f, ep_recognizer *rec, bool can_end, const mc_step *tried, uint32_t cap,
                      const mc_admit *admit, mc_step *out);

/* Up to `draws` tokens drawn without replacement from the distribution
 * restricted to the tokens that keep the middle viable, at `temperature`
 * (> 0), within its nucleus `top_p` (0 or 1: all of it).  A token `admit`
 * refuses is put aside and drawn again (the draws are from the nucleus
 * restricted to the tokens it admits), within MC_ADMIT_CHECKS checks. */
uint32_t mc_full_sample(const mc_logits *f, ep_recognizer *rec, bool can_end, double temperature, double top_p,
                        uint64_t *rng, uint32_t draws, const mc_admit *admit, mc_step *out);

/* ---- The decoding loop ------------------------------------------------------
 *
 * Greedy by default: at each position the candidates are tried in order
 * against the recognizer (save, feed, restore) and the first viable one is
 * taken; the end of the completion is taken only where ep_can_end holds.
 * With run_ahead > 1 the backend generates several positions per request and
 * the loop checks them as they arrive; at the first position where the loop
 * takes another token than the model did, the request is stopped and a new
 * one starts from there, so the result is that of per-token decoding.  When
 * a budget runs out first, the completion is the complete stopping point
 * with the highest end probability; when there is none, it is empty.
 *
 * A model that does not stop where the middle ends often goes on to write
 * the code after the cursor again.  When the text since a complete point
 * repeats the right context's start, to the end of its first non-blank line
 * or for 16 bytes, the completion ends at that point (MC_STOP_REPEAT).
 */
typedef struct mc_decode_options {
    uint32_t max_tokens;
    uint32_t max_lines;       /* line breaks allowed in the middle + 1 */
    /* When decoding finds no complete middle within max_lines and refused
     * a token for going past them, it starts again with these budgets
     * (0: never): a middle the model writes over more lines.  Stopped by
     * them before it can end, such a decode gives its longest middle that
     * ends at a line end (mc_completion.partial). */
    uint32_t widen_lines;
    uint32_t widen_tokens;
    /* Widens where the model goes on past max_lines even when a complete
     * middle was found (the complete points found stay its fallback): set
     * when the code after the cursor on its line is the person's, which a
     * middle ending on the cursor's line seldom joins as the model meant. */
    bool widen_past_end;
    /* The code after the cursor on its line is the person's (not blank,
     * not an editor's closers): a model writing it again from the cursor
     * is a run-on only once it repeats to where a run-on is sure (the
     * right context's second line), since a true middle may begin as that
     * line does ("}" on an empty line before a block's "}": a method
     * closed, another written).  Else its first line is enough and the
     * candidate is refused there. */
    bool right_is_code;
    uint32_t timeout_ms;      /* latency budget; 0 for none */
    uint32_t n_candidates;
    uint32_t run_ahead;       /* tokens per request; 1 for per-token requests */
    double temperature;       /* 0: greedy */
    double top_p;
    uint64_t seed;
    size_t context_budget;    /* bytes of context sent to the model */
    const mc_project *project; /* the project's other files for the prompt (borrowed until
                                  on_done; NULL: none) */
    /* An explicit request (not an automatic trigger): the empty completion
     * is given only when no non-empty one is found, whether the model ends
     * at the cursor or writes the code after it again from there. */
    bool prefer_nonempty;
    /* With a backend that gives the whole distribution (mc_step.full):
     * greedy takes the best token of the full-vocabulary mask at every
     * position instead of trying the candidates first and masking only when
     * none keeps the middle viable (the same token either way).  Sampling
     * always draws from the masked distribution. */
    bool mask_every_step;
    /* Replaces ep_can_end(rec) when set (a recognizer on cut contexts that
     * must sometimes ask about the whole text). */
    bool (*can_end)(void *data, ep_recognizer *rec, const char *middle, size_t len);
    /* When set: whether the middle may end as a line that opens a
     * construct the next lines go on with (it ends with an opening bracket
     * it wrote, the lines after it still to be written).  Taken only where
     * the model itself ends the line there (its end, or a line break next),
     * never as a fallback.  Shares can_end_data. */
    bool (*line_opens)(void *data, ep_recognizer *rec, const char *middle, size_t len);
    void *can_end_data;
} mc_decode_options;

void mc_decode_options_init(mc_decode_options *options);

/* An extra constraint on the middle (context escape, say): an mc_filter_cb
 * answers whether middle[0..len) may still be extended into an accepted
 * completion (at_end: whether it is one). */

typedef enum mc_stop_reason {
    MC_STOP_EOS = 0,      /* the model ended where the recognizer can end */
    MC_STOP_TOKENS,       /* token budget */
    MC_STOP_LINES,        /* line budget */
    MC_STOP_TIME,         /* latency budget */
    MC_STOP_DEAD_END,     /* no candidate of a position was viable */
    MC_STOP_ERROR,        /* the backend failed */
    MC_STOP_CANCELED,
    MC_STOP_REPEAT,       /* ended where the model began to write the right context again */
    MC_STOP_LOOP,         /* widened, the model wrote the same again and again: it loops */
} mc_stop_reason;

const char *mc_stop_reason_name(mc_stop_reason reason);

typedef struct mc_completion {
    char *text;                   /* owned; NUL-terminated; empty when none */
    size_t len;
    bool found;                   /* a completion the recognizer accepts */
    mc_stop_reason reason;
    SM_ARRAY(uint32_t) token_ends; /* end offset of each token of text */
    uint32_t tokens_generated;    /* tokens taken, including any cut off */
    uint32_t round_trips;
    uint32_t aux_requests;        /* requests that were not for tokens (tokenizing, ...) */
    uint64_t prompt_tokens;       /* prompt tokens the server evaluated in all */
    bool prompt_tokens_known;     /* every round trip reported them */
    uint32_t rejected;            /* candidates the recognizer or filter refused */
    uint32_t past_lines;          /* of those, tokens that would go past the line budget,
                                     or the filter refused only for it (the widened
                                     budget's filter accepts them) */
    uint32_t extended;            /* positions where no candidate would do and the
                                     whole vocabulary was masked (mc_step.full) */
    bool empty_refused;           /* an empty completion was valid, and a non-empty
                                     one was chosen (prefer_nonempty) */
    bool partial;                 /* widened, the budget ran out before the middle
                                     could end: whole lines that keep it viable, for
                                     the person to accept and ask again */
    bool widened;                 /* decoding started again with widen_lines */
    uint64_t filter_ns;           /* time spent checking candidates */
    uint64_t total_ns;
    char *error;                  /* owned; the backend's message, or NULL */
    bool silent;                  /* MC_STOP_TIME before the backend gave any
                                     position: a server busy or hung */
} mc_completion;

void mc_completion_free(mc_completion *completion);

typedef void (*mc_decode_cb)(void *data, mc_completion *completion);

typedef struct mc_decode mc_decode;

/* Starts decoding.  `rec` is a fill-in-the-middle recognizer for (left,
 * right) with nothing fed yet beyond the left context; the decoder borrows it
 * and leaves it where the completion ends.  left/right are the full contexts
 * (the budget cuts what is sent).  on_done gets the completion (the callee
 * owns it) exactly once, from the loop.  Everything borrowed must outlive the
 * decode. */
int mc_decode_start(uv_loop_t *loop, mc_backend *backend, ep_recognizer *rec, const char *left,
                    size_t left_len, const char *right, size_t right_len,
                    const mc_decode_options *options, mc_filter_cb filter, void *filter_data,
                    mc_decode_cb on_done, void *data, mc_decode **out);
/* Stops a decode; on_done follows with reason MC_STOP_CANCELED. */
void mc_decode_cancel(mc_decode *decode);

#endif
