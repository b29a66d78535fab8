/*
 * sx_internal.h - what the semantic module's files share.
 */
#ifndef SX_INTERNAL_H
#define SX_INTERNAL_H

#include "seam_semantic.h"

#include <tree_sitter/api.h>

#include <string.h>

/* ---- Lexemes (lexeme.c) ---------------------------------------------------- */

typedef enum sx_tok_kind {
    SX_TOK_NAME = 0,
    SX_TOK_KEYWORD,
    SX_TOK_NUMBER,
    SX_TOK_STRING,
    SX_TOK_OP,
    SX_TOK_NEWLINE,     /* a line break that ends a logical line */
} sx_tok_kind;

typedef struct sx_tok {
    uint8_t kind;
    uint32_t start, end;    /* in the analysed text */
} sx_tok;

/* Reads the lexeme at text[*pos..len): skips blanks, comments and line
 * joins (a line break inside brackets is a blank: `depth` > 0).  Returns
 * false when no whole lexeme is there yet (more text could change it:
 * the end of the text is in a blank that may still hold a line break, or
 * in a lexeme that may grow), with *pos at the first byte not consumed.
 * With `final`, the text ends there and the last lexeme is whole. */
bool sx_lex_next(const char *text, size_t len, size_t *pos, int depth, bool final, sx_tok *out);

bool sx_tok_is(const char *text, const sx_tok *tok, const char *s);
/* Whether string lexeme tok is an f-string; its replacement fields'
 * expressions, each as text[start, end) to on_field (nested fields of a
 * format spec too).  A field's conversion, format spec and `=` are left out. */
bool sx_is_fstring(const char *text, const sx_tok *tok);
void sx_fstring_fields(const char *text, const sx_tok *tok, void (*on_field)(void *data, size_t start, size_t end),
                       void *data);
bool sx_is_keyword(const char *s, size_t len);
/* Whether some keyword (soft ones too) or a string's prefix begins with s. */
bool sx_keyword_has_prefix(const char *s, size_t len);

/* ---- The analysis of the middle (analysis.c) ------------------------------- */

enum { SX_MAX_DEPTH = 48 };

typedef enum sx_bracket_role {
    SX_BR_STATEMENT = 0,    /* the statement level, below every bracket */
    SX_BR_DISPLAY,          /* a tuple, a list or a grouping: may hold targets */
    SX_BR_CALL,             /* a call's arguments */
    SX_BR_OTHER,            /* a dict or set display */
    SX_BR_PARAMS,           /* a def's parameters */
    SX_BR_SUBSCRIPT,        /* `a[...]`: never a comprehension (Python wants `a[(x for x in y)]`) */
} sx_bracket_role;

typedef enum sx_region {
    SX_REGION_NONE = 0,
    SX_REGION_FOR_TARGET,   /* after `for`, before its `in` */
    SX_REGION_LAMBDA,       /* after `lambda`, before its `:` */
} sx_region;

typedef struct sx_level {
    uint8_t role;
    uint8_t region;
    uint8_t lambdas;        /* lambdas whose `:` is still to come at this level */
    bool display_only;      /* this and every level below are statement or display */
    bool comma;             /* a `,` at this level: no comprehension here */
    uint32_t callee;        /* CALL: the token of the callee's first name, or UINT32_MAX */
    uint32_t member;        /* CALL on `name.member(`: the member's token, else UINT32_MAX */
} sx_level;

typedef enum sx_stmt_kind {
    SX_STMT_PLAIN = 0,      /* an expression, an assignment, return ... */
    SX_STMT_COMPOUND,       /* if, while, for, def, class ... up to its `:` */
    SX_STMT_IMPORT,         /* import, from ... import */
    SX_STMT_DECLARE,        /* global, nonlocal */
    SX_STMT_DEL,
    SX_STMT_WITH,
    SX_STMT_CASE,           /* a case pattern, up to its guard or `:` */
    SX_STMT_RAISE,
} sx_stmt_kind;

/* Everything the analysis holds that is not an append-only array: copied
 * whole at every lexeme, which is what saving is. */
typedef struct sx_state {
    size_t pos;             /* next byte of the analysed text to read */
    uint32_t pend_from;     /* reads before this one are decided */
    uint32_t undec_from;
    uint32_t stmt_start;    /* the statement's first token */
    uint32_t stmt_eqs;      /* `=` at its level so far */
    uint8_t stmt;           /* sx_stmt_kind */
    bool stmt_first_name;   /* its first token is a name (`match`, `case` ...) */
    bool annotated;         /* a plain statement past its annotation's `:` */
    bool after_guard;       /* a case pattern past its `if` */
    bool dead;              /* too deep to follow: no more facts */
    uint32_t depth;         /* levels - 1 */
    sx_level levels[SX_MAX_DEPTH];
} sx_state;

/* A read waiting for its brackets: a name lexeme, or a name inside an
 * f-string's replacement field (tok SX_NO_TOK, text[start, end)). */
#define SX_NO_TOK UINT32_MAX
typedef struct sx_pending {
    uint32_t tok;
    uint32_t start, end;
} sx_pending;

typedef struct sx_undecided {
    uint32_t tok;
    uint32_t eqs;           /* stmt_eqs when it was read */
    bool display_only;
} sx_undecided;

/* The analysis: the document before the cursor and the middle as one text,
 * read lexeme by lexeme.  Facts go to on_fact as they are decided; one it
 * refuses stops the analysis (the state records the refusal). */
typedef struct sx_analysis {
    sm_buf text;
    size_t middle_start;
    SM_ARRAY(sx_tok) toks;
    SM_ARRAY(sx_pending) pend;        /* reads waiting for their brackets */
    SM_ARRAY(sx_undecided) undec;     /* names waiting for their statement */
    SM_ARRAY(uint32_t) binds;         /* names the middle may bind (tokens) */
    sx_state st;
    bool refused;
    sx_refusal refusal;
    uint32_t first_middle_tok;        /* the first token that reaches the middle */
    size_t middle_end;                /* facts are of tokens that reach [middle_start, middle_end) */
    bool (*on_fact)(void *data, const sx_fact *fact, sx_refusal *why);
    void *data;
    char chain[512];                  /* the base of the last attribute fact */
    uint32_t reading;                 /* the token of the read being judged */
} sx_analysis;

void sx_analysis_init(sx_analysis *a, const char *left, size_t left_len,
                      bool (*on_fact)(void *data, const sx_fact *fact, sx_refusal *why), void *data);
void sx_analysis_free(sx_analysis *a);
/* Reads the next complete lexeme of text[pos..) (final: the text ends
 * there); false when there is none yet, or the analysis refused. */
bool sx_analysis_step(sx_analysis *a, bool final);
/* Facts about the lexeme being written at the end of the text. */
void sx_analysis_prefix(sx_analysis *a);
/* Decides what waits for brackets or statements (the program ends). */
void sx_analysis_flush(sx_analysis *a);
/* Whether a name the middle binds, or may still bind, is `name`. */
bool sx_analysis_binds(const sx_analysis *a, const char *name, size_t len);
/* Whether every binding of `name` in the middle is the same import:
 * `import os`, `import os.path as p` (module "os", "os.path"; member "")
 * or `from os import path` (module "os", member "path"). */
bool sx_analysis_import_of(const sx_analysis *a, const char *name, size_t len, char *module, char *member,
                           size_t size);

/* ---- The document (document.c) --------------------------------------------- */

typedef struct sx_binding {
    uint32_t name;          /* offset in the names pool */
    uint32_t len;
    uint8_t kind;           /* sx_bind_kind */
    uint32_t module;        /* IMPORT: offset of the module's name in the pool */
    uint32_t params;        /* DEF: offset of its keyword names in the pool */
    bool open;              /* DEF: takes **kwargs, or is decorated */
} sx_binding;

typedef enum sx_bind_kind {
    SX_BIND_OTHER = 0,
    SX_BIND_IMPORT,         /* of a module */
    SX_BIND_DEF,
    SX_BIND_CLASS,
} sx_bind_kind;

typedef struct sx_doc {
    sm_buf pool;            /* names, NUL-terminated */
    SM_ARRAY(sx_binding) bindings;   /* of the scopes around the cursor, by name */
    sm_buf stars;           /* modules imported with `*`, each NUL-terminated */
    bool names_open;        /* exec, globals(), a star import of an unknown module */
    bool getattr;           /* a module-level __getattr__ */
    bool dynamic;           /* exec or globals is named: names may be bound unseen */
    bool module_writes;     /* at the module level: exec, globals() or vars() named, or an
                               enum converted into the module (_convert_) */
} sx_doc;

/* Reads the bindings of text (the document without the middle) that code
 * at the cursor `at` can see (SIZE_MAX: the module level only, a module's
 * attributes); env may be NULL.  `tree` (taken: deleted here; NULL: text
 * is parsed, by `deadline_ns` when not 0, else SM_ETIMEDOUT) is text's
 * tree-sitter tree. */
int sx_doc_read(sx_doc *doc, sx_env *env, const char *text, size_t len, size_t at, TSTree *tree,
                uint64_t deadline_ns);
void sx_doc_free(sx_doc *doc);
/* The first binding of `name` (with `prefix`: whose name begins with it),
 * or with `after` (one it returned) the next; NULL when there is none.
 * The bindings are sorted by name: a binary search, then neighbours. */
const sx_binding *sx_doc_find(const sx_doc *doc, const char *name, size_t len, bool prefix, const sx_binding *after);

/* ---- Modules (modules.c) --------------------------------------------------- */

/* Each lookup reads a module it meets for the first time when `load`;
 * without it, a module not read yet, or one another thread is reading, is
 * unknown (it constrains nothing), so that a decoding loop never waits on
 * files, Python or the lock. */

/* The module `name`'s member `attribute` refers to, when it is a submodule
 * or a module imported there (`os.path` is posixpath): its name, in `out`. */
bool sx_env_member_module(sx_env *env, const char *module, const char *attribute, bool load, char *out, size_t size);
bool sx__env_has_attribute(sx_env *env, const char *name, const char *attribute, bool load, bool *found);
/* Whether some attribute or submodule of module `name` begins with
 * `prefix` (true when the module is not known: *found false). */
bool sx_env_has_attribute_prefix(sx_env *env, const char *name, const char *prefix, bool load, bool *found);
const char *sx__env_parameters(sx_env *env, const char *module, const char *function, bool load, bool *open);
/* Reads module `name`, the modules it holds under a name and those it
 * star-imports, ahead of lookups that will not load. */
void sx__env_warm(sx_env *env, const char *const *names, uint32_t count, uint64_t deadline_ns);
/* Asks Python at once for the compiled modules among names[0..count)
 * that are not read yet (one child, not one each), within `deadline_ns`
 * (0: 5 s); the others are left to sx__env_warm. */
void sx__env_prefetch(sx_env *env, const char *const *names, uint32_t count, uint64_t deadline_ns);
/* The set-up's budget for reading modules, in ns (0: none). */
uint64_t sx__env_budget_ns(const sx_env *env);

/* ---- Questions to Python (asker.c) ------------------------------------------ */

typedef struct sx__asker sx__asker;

typedef enum sx__ask_kind {
    SX_ASK_DIR = 0,     /* dir() of the imported module */
    SX_ASK_FINDS,       /* whether Python finds the module (its spec; none of its code runs) */
} sx__ask_kind;

typedef struct sx__answer {
    bool done;          /* asked and answered, or given up: final */
    const char *names;  /* DIR: "\n"-separated dir(), borrowed for the asker's life; NULL: none */
    int8_t finds;       /* FINDS: 1 found, -1 not, 0 no answer */
} sx__answer;

/* Asks `python` (an absolute path, trusted to run) with sites[0..count)
 * on its path; with `cache_dir` (ca_dir; NULL: none), takes the answers
 * kept there for that interpreter and folders, and keeps new ones.  Free
 * with sx__asker_free, which ends a child being run at once. */
sx__asker *sx__asker_new(const char *python, const char *const *sites, uint32_t count, const char *cache_dir);
void sx__asker_free(sx__asker *asker);
/* Asks about names[0..count) what has not been asked yet, in one child,
 * and waits for the answers until `deadline_ns` (0: until they come, 5 s
 * at most); out[i] tells each (done false: still being asked). */
void sx__asker_ask(sx__asker *asker, sx__ask_kind kind, const char *const *names, uint32_t count,
                   uint64_t deadline_ns, sx__answer *out);

/* ---- Module summaries kept across runs (summaries.c) ------------------------ */

typedef struct sx__summaries sx__summaries;

/* The summaries kept in cache folder `dir` for an environment whose
 * module folders are roots[0..count) (NULL entries allowed).  Free with
 * sx__summaries_free, which writes new ones first. */
sx__summaries *sx__summaries_new(const char *dir, const char *const *roots, uint32_t count);
void sx__summaries_free(sx__summaries *summaries);
/* Fills doc (free with sx_doc_free) and *writes with the summary of module
 * `name` read from `path`, when one is kept and the file's stat() is the
 * same; false otherwise (summaries may be NULL).  Any thread. */
bool sx__summaries_take(sx__summaries *summaries, const char *name, const char *path, sx_doc *doc, bool *writes);
/* Keeps the summary of module `name`, just read from `path`. */
void sx__summaries_put(sx__summaries *summaries, const char *name, const char *path, const sx_doc *doc, bool writes);
/* Writes the summaries to the cache folder when new ones were made. */
void sx__summaries_save(sx__summaries *summaries);

/* Builtins of Python 3.11 (builtins.c). */
bool sx_is_builtin(const char *name, size_t len);
bool sx_builtin_has_prefix(const char *prefix, size_t len);

#endif
