/*
 * mc_apis.h - the HTTP backends, inside model_client/: what their shared
 * part (apis.c), each API (api_llamacpp.c, api_openai.c, api_ollama.c) and
 * what seam learns from a llama.cpp server (server_info.c) tell each other.
 * Not exported.
 */
#ifndef SEAM_MC_APIS_H
#define SEAM_MC_APIS_H

#include <cjson/cJSON.h>

#include "mc_internal.h"

/* ---- What a llama.cpp server tells (server_info.c) -------------------------- */

/* A text tokenized by the server as text (special-token strings in it stay
 * text), remembered by its hash so the same context is tokenized once. */
typedef struct mc_tokens {
    bool valid;
    uint64_t hash;
    size_t len;
    SM_ARRAY(int32_t) ids;
    SM_ARRAY(uint8_t) ends_line;   /* 1 where the token's text ends with "\n" */
} mc_tokens;

void mc_tokens_init(mc_tokens *t);
void mc_tokens_free(mc_tokens *t);
uint64_t mc_text_hash(const char *text, size_t len);
/* Reads a /tokenize answer {"tokens": [{id, piece}] or [id, ...]}. */
int mc_tokens_parse(mc_tokens *t, const char *json, size_t len);

typedef enum mc_info_state {
    MC_INFO_UNKNOWN = 0,   /* not asked yet */
    MC_INFO_KNOWN,         /* /props and /tokenize answered */
    MC_INFO_NONE,          /* the server has no /props or /tokenize (not llama.cpp) */
} mc_info_state;

enum { MC_TEMPLATE_PARTS = 4 };

typedef struct mc_server_info {
    mc_info_state state;
    uint32_t n_ctx;            /* context size of a slot; 0 when unknown */
    bool add_bos;
    int32_t bos;
    char *bos_text, *eos_text; /* owned; as /props renders them */
    char *model_path;          /* owned; the model /props names */
    SM_ARRAY(int32_t) eog;     /* ids that end a completion */
    /* The template whose control strings are single tokens of the
     * vocabulary, and its parts in order: a token id, or -1 for the
     * prefix and -2 for the suffix. */
    const mc_template *tmpl;
    int32_t parts[2 * MC_TEMPLATE_PARTS + 1];
    uint32_t part_count;
    /* Every probe string that is one token: strings and ids. */
    SM_ARRAY(char *) special_text;
    SM_ARRAY(int32_t) special_id;
} mc_server_info;

void mc_server_info_init(mc_server_info *info);
void mc_server_info_free(mc_server_info *info);
/* The body of the /tokenize request that finds the control tokens of every
 * known template (and of `own`, when given) and whether BOS is added. */
char *mc_server_info_probe_body(const mc_template *own);
/* Reads /props; *changed when it names another model than before. */
int mc_server_info_props(mc_server_info *info, const char *json, size_t len, bool *changed);
/* Reads the probe's /tokenize answer and settles the template: `want`
 * (the user's) must fit the vocabulary; without it the first built-in
 * whose control strings are tokens is chosen.  SM_EINVAL with a message
 * when none fits. */
int mc_server_info_tokens(mc_server_info *info, const char *json, size_t len, const mc_template *want,
                          bool need_template, char *error, size_t error_size);
bool mc_server_info_is_eog(const mc_server_info *info, int32_t id);

/* The contexts cut to `budget` tokens in all: the left keeps its tokens
 * [from, end), the right [0, to); three quarters for the left where both
 * need room, cut after a line break where one is near. */
void mc_tokens_cut(const mc_tokens *left, const mc_tokens *right, uint32_t budget, uint32_t *from, uint32_t *to);
/* Appends t's ids [from, to) to `out` as JSON numbers. */
void mc_tokens_to_json(const mc_tokens *t, uint32_t from, uint32_t to, cJSON *out);

/* The id of a control string of the vocabulary, or -1. */
int32_t mc_server_info_special(const mc_server_info *info, const char *s);
/* Whether the template has a repository format whose control strings are
 * tokens of the vocabulary. */
bool mc_server_info_has_repo(const mc_server_info *info, const mc_template *tmpl);

/* The project's other files as token ids (mc_project_pieces): before the
 * prompt in a repository format (`repo`, its file separator's id `sep`),
 * else at the start of the prefix. */
typedef struct mc_prompt_head {
    const mc_tokens *tokens;
    bool repo;
    int32_t sep;
} mc_prompt_head;

/* The prompt as token ids: the head (may be NULL) as far as it fits after
 * the contexts, BOS where the vocabulary adds it, the template's parts
 * with the contexts cut to `budget` tokens in all (three quarters for the
 * left where both need room, cut after a line break where one is near),
 * then the generated tokens.  Appends to `out` as JSON numbers. */
void mc_server_info_prompt(const mc_server_info *info, const mc_prompt_head *head, const mc_tokens *left,
                           const mc_tokens *right, const int32_t *generated, uint32_t generated_count,
                           uint32_t budget, cJSON *out, uint32_t *prompt_len);

/* ---- The HTTP backend and its calls (apis.c) ---------------------------- */

typedef struct mc_hb {
    mc_backend base;
    mc_http *http;
    mc_http_kind kind;
    char *endpoint;               /* without a trailing "/" */
    char *root;                   /* the server's root: endpoint without "/v1" */
    char *model;
    const mc_template *tmpl;      /* the user's, or NULL */
    char *api_key;
    mc_http_options options;
    mc_server_info info;
    mc_tokens left, right, generated;   /* the last contexts tokenized */
    mc_tokens head;               /* the last project head tokenized (hash: of its pieces) */
} mc_hb;

/* What a call is doing: asking the server about itself, tokenizing a
 * text, or generating. */
typedef enum mc_hcall_stage {
    MC_STAGE_START = 0,
    MC_STAGE_PROPS,
    MC_STAGE_PROBE,
    MC_STAGE_TOKENIZE_LEFT,
    MC_STAGE_TOKENIZE_RIGHT,
    MC_STAGE_TOKENIZE_GENERATED,
    MC_STAGE_TOKENIZE_HEAD,
    MC_STAGE_GENERATE,
} mc_hcall_stage;

typedef struct mc_hcall {
    mc_call base;
    mc_hb *backend;
    mc_request request;           /* its strings copied below */
    char *left, *right, *generated;
    int32_t *generated_ids;
    mc_project *project;          /* owned: request.project points here */
    mc_hcall_stage stage;
    bool props_done;
    mc_http_req *req;
    mc_lines lines;
    sm_buf raw;                   /* a body kept whole (not streamed, or an auxiliary answer) */
    sm_buf held;                  /* text a position announced that the server has not sent yet */
    bool streamed;                /* at least one event line was seen */
    bool stopped;                 /* on_step returned false, or a cancel */
    bool ended;                   /* the model said it stopped */
    bool last_eos;                /* the last step ended in an end token */
    bool prompt_known;
    uint64_t prompt_evaluated;    /* prompt tokens the server evaluated, when it said */
    uint32_t positions;
    int error;
    sm_buf message;
    mc_step_cb on_step;
    mc_done_cb on_done;
    void *data;
} mc_hcall;

/* Whether a token's text is an end: a stop string of the template in use
 * (or of any known family when the server fills the template in). */
bool mc_hb_is_end_text(const mc_hb *b, const char *text, size_t len);
/* The call's project head, when its tokens are known (out filled): false
 * when the call has none. */
bool mc_hb_head(const mc_hcall *c, mc_prompt_head *out);
/* Reads positions in the form llama.cpp's /completion and its
 * OpenAI-compatible API share ([{id, token, bytes, logprob, top_logprobs}],
 * or the older {tok_str, probs}) and hands each to the loop; text the server
 * held back or merged is delivered at its own position.  False when the
 * request must stop. */
bool mc_hb_positions(mc_hcall *c, const cJSON *list, bool old_form);
/* A text chunk without candidates: one position with that one candidate. */
bool mc_hb_deliver_text(mc_hcall *c, const char *text, size_t len);
/* The position where the model stopped on its own: only the end. */
bool mc_hb_deliver_end(mc_hcall *c);
/* Reads "timings": {"prompt_n"} or "usage" with cached tokens. */
void mc_hb_read_prompt_stats(mc_hcall *c, const cJSON *event);

/* ---- Each API: its request body and its events ---------------------------- */

/* Builds the generation request into url and body (owned by the caller). */
int mc_llamacpp_body(mc_hcall *c, sm_buf *url, char **body);
bool mc_llamacpp_event(mc_hcall *c, const cJSON *event);
int mc_openai_body(mc_hcall *c, sm_buf *url, char **body);
bool mc_openai_event(mc_hcall *c, const cJSON *event);
int mc_ollama_body(mc_hcall *c, sm_buf *url, char **body);
bool mc_ollama_event(mc_hcall *c, const cJSON *event);

/* The prompt as token ids (llama.cpp and its OpenAI-compatible API), added
 * to `o` as "prompt": the contexts cut to the server's context size. */
void mc_hb_token_prompt(mc_hcall *c, cJSON *o);
/* Whether the call sends its prompt as token ids (a llama.cpp server whose
 * tokenizer seam can use). */
bool mc_hb_uses_tokens(const mc_hcall *c);
/* The template a text prompt is rendered with. */
const mc_template *mc_hb_template(const mc_hcall *c);
/* A copy of s[0..len) cut to whole UTF-8 characters, NUL-terminated. */
char *mc_hb_whole_utf8(const char *s, size_t len);

#endif
