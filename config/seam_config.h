/*
 * seam_config.h - seam's settings and their defaults.
 *
 * seam works with no configuration at all: cfg_init gives the defaults (the
 * embedded model, single-line completions within modest budgets).  Later
 * layers (the config file, the editor's initializationOptions) overwrite
 * fields through cfg_set, which validates each value and leaves the
 * configuration unchanged when a value is bad.
 */
#ifndef SEAM_CONFIG_H
#define SEAM_CONFIG_H

#include "seam_base.h"

typedef enum cfg_backend {
    CFG_BACKEND_EMBEDDED = 0,
    CFG_BACKEND_LLAMACPP,
    CFG_BACKEND_OPENAI,
    CFG_BACKEND_OLLAMA,
    CFG_BACKEND_LLAMA,       /* a GGUF model in seam's process (libllama) */
} cfg_backend;

/* How the llamacpp backend asks for a middle: /completion with the
 * model's fill-in-the-middle tokens around the contexts and the generated
 * tokens after them, or /infill. */
typedef enum cfg_llamacpp_mode {
    CFG_LLAMACPP_COMPLETION = 0,
    CFG_LLAMACPP_INFILL,
} cfg_llamacpp_mode;

typedef struct cfg_config {
    cfg_backend backend;
    /* backend was set (not the default): no local model is looked for */
    bool backend_chosen;
    cfg_llamacpp_mode llamacpp_mode;
    char *endpoint;          /* owned; NULL for the embedded model */
    char *model;             /* owned; may be NULL */
    char *template_name;     /* owned; NULL: chosen from the model's name */
    char *template_format;   /* owned; a user's own "{prefix}...{suffix}..." */
    char *template_stops;    /* owned; comma-separated stops of that format */
    char *api_key_env;       /* owned; the environment variable holding the key */
    char *log_file;          /* owned; NULL for stderr only */
    char *model_path;        /* owned; the GGUF file of the llama backend */
    uint32_t max_tokens;     /* token budget of one completion */
    uint32_t max_lines;      /* line budget where the scope allows several lines */
    uint32_t widen_lines;    /* multiline: the budgets when no middle within the */
    uint32_t widen_tokens;   /* scope's lines can end (mc_decode_options) */
    uint32_t timeout_ms;     /* latency budget of one completion */
    bool multiline;          /* false: every completion is one line */
    bool decode_ahead;       /* the language server decodes the completion after
                                the one shown while the person reads it */
    sm_log_level log_level;
    uint32_t candidates;     /* candidates asked for per position */
    uint32_t run_ahead;      /* tokens per model request */
    double temperature;      /* 0: greedy */
    double top_p;
    uint32_t seed;
    uint32_t connect_timeout_ms;
    uint32_t first_byte_timeout_ms;
    uint32_t request_timeout_ms;
    uint32_t retries;
    uint32_t context_bytes;  /* context sent to the model around the cursor */
    bool context_files;      /* the project's other files go into the prompt too */
    uint32_t context_files_bytes; /* ... at most this many bytes of them */
    uint32_t cached_documents; /* llama backend: documents whose KV cache is kept */
    bool tls_verify;
    bool stream;             /* model servers stream their answers */
    bool escape_guard;       /* completions may not leave their scope */
    bool cut_contexts;       /* the recognizer sees only the statements around the cursor */
    bool train_stdlib;       /* the embedded model also learns the standard library */
    bool disk_cache;         /* the embedded model and Python's answers are kept in the user's cache folder */
    bool mask_every_step;    /* greedy with a whole distribution: mask the vocabulary at every position */
    bool semantic;           /* the semantic pruners constrain completions (docs/SEMANTIC.md) */
    bool semantic_names;     /* each pruner, when semantic is on */
    bool semantic_attributes;
    bool semantic_keywords;
    uint32_t corpus_bytes;   /* cap on the embedded model's training text */
    uint32_t debounce_ms;    /* delay of automatic inline completions */
    uint32_t max_message_bytes; /* cap on one LSP message */
    uint32_t parse_bytes;       /* cap on the code one request's recognizer reads */
    uint32_t python_version;    /* 100 * major + minor (309 .. 314), or 0: auto, from the project */
    char *python_path;          /* owned; the interpreter that runs the user's code, or NULL */
    char *language;             /* owned; the language every document is read as (a registry name), NULL: auto */
    char *source_type;          /* owned; JavaScript's goal, "module" or "script", NULL: auto (as Node decides) */
    /* the user trusts the workspace: its virtual environment's interpreter
     * may be run (docs/SECURITY.md); false by default */
    bool workspace_trusted;
} cfg_config;

/* "3.9" .. "3.14" -> 309 .. 314; "auto" -> 0; anything else -> -1. */
int cfg_python_version_parse(const char *text);

/* Fills `config` with the defaults.  Free with cfg_free. */
void cfg_init(cfg_config *config);
void cfg_free(cfg_config *config);

/* Sets one setting from its textual form, e.g. ("max_tokens", "64").
 * Returns SM_OK, or SM_EINVAL (with a message in `error`, if given) when the
 * name is unknown or the value is bad; the configuration is then unchanged. */
int cfg_set(cfg_config *config, const char *name, const char *value, char *error, size_t error_size);

/* Gives one setting, by name, the value it has in `from` (an editor's
 * "unset" returns a setting to the value it had before the editor's
 * layers).  Returns SM_OK, or SM_EINVAL when the name is unknown. */
int cfg_reset(cfg_config *config, const char *name, const cfg_config *from);

const char *cfg_backend_name(cfg_backend backend);

/* Deep copy (the strings are duplicated).  Free the copy with cfg_free. */
void cfg_copy(cfg_config *dst, const cfg_config *src);

/* Whether every setting of a and b is the same. */
bool cfg_equal(const cfg_config *a, const cfg_config *b);

/* The names cfg_set knows, NULL-terminated. */
const char *const *cfg_names(void);

#endif
