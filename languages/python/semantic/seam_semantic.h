/*
 * seam_semantic.h - semantic pruners: constraints past the grammar.
 *
 * After ChopChop (docs/SEMANTIC.md): the middle written so far stands for
 * every program it can still become; a pruner refuses it only when no
 * program in that space keeps its property.  seam's pruners check Python
 * names: a name the middle reads must resolve (to a binding outside the
 * middle, one before the read inside it, or a builtin), an attribute of an
 * imported module must exist, and a keyword argument of a known function
 * must be one of its parameters.
 *
 * The pieces:
 *   sx_env      what the installed modules hold (read from their sources;
 *               cached, shared by sessions, safe across threads);
 *   sx_session  one completion: the document around the cursor, and the
 *               analysis of the middle lexeme by lexeme;
 *   sx_pruner   one property, judging the facts the analysis decides.
 */
#ifndef SEAM_SEMANTIC_H
#define SEAM_SEMANTIC_H

#include "seam_base.h"
#include "seam_cache.h"

/* ---- The Python environment ------------------------------------------------ */

typedef struct sx_env sx_env;

/* Modules are looked for in `workspace` (may be NULL), then in `stdlib`
 * (may be NULL: then only the workspace's modules are known).  Module
 * sources are read and summarised on first use and kept, never run;
 * `python` (an absolute path, or NULL: compiled modules are then unknown)
 * is an interpreter the user trusts to run, asked once per module for the
 * attributes of a module that has no source.  Free with sx_env_free. */
sx_env *sx_env_new(const char *stdlib, const char *workspace, const char *python);

/* Adds a site-packages folder of the user's environment, looked in after the
 * standard library (in the order added, at most 8): its sources are read
 * as the standard library's are; when `trusted`, its compiled modules (and
 * packages that list their names with a module __dir__) are imported by
 * `python` with the folder on its path, else they constrain nothing.
 * False when it is not taken (too many, or a line break in the path).
 * Call before the first lookup. */
bool sx_env_add_site(sx_env *env, const char *dir, bool trusted);
/* A session's set-up reads the modules its document imports for at most
 * `ms` milliseconds (0, the default: no limit but 5 s a Python child);
 * modules not read by then constrain nothing in that completion, and are
 * read by a later one.  Set before the environment is shared. */
void sx_env_set_budget(sx_env *env, uint32_t ms);
/* Keeps what Python answers about modules, and what module sources say,
 * in `dir` (a cache folder, ca_dir), for later runs with the same
 * interpreter and folders (a source by its stat()); NULL: kept for the
 * environment's life only.  After sx_env_add_site, before the first
 * question. */
void sx_env_set_cache(sx_env *env, const char *dir);
void sx_env_free(sx_env *env);
/* What stat() says of the interpreter, the standard library and the
 * package folders the environment reads, hashed: it changes when a
 * package is installed, removed or upgraded there (then its modules are
 * to be read again, in a new environment). */
ca_key sx_env_fingerprint(const sx_env *env);

struct cfg_config;
/* The environment of a project's Python (project.c): the interpreter the
 * user set (python_path), the active or the workspace's virtual
 * environment (run only when trusted), else python3 on PATH; its standard
 * library and package folders, and the cache folder when the disk cache is
 * on.  Owned by the caller; `logger` may be NULL; what it reads is said in
 * why[0..why_size) when `why` is not NULL. */
sx_env *sx_env_for_project(const struct cfg_config *config, const char *workspace, sm_logger *logger, char *why,
                           size_t why_size);

/* What the environment knows of module `name` ("os.path"): whether it was
 * found (false: it constrains nothing), and whether `attribute` (NULL: none)
 * is one of its attributes or submodules. */
bool sx_env_has_attribute(sx_env *env, const char *name, const char *attribute, bool *found);

/* ---- Facts and pruners --------------------------------------------------------
 *
 * A fact is something the middle does that no continuation can change any
 * more: it reads a name, takes an attribute of a name, passes a keyword.
 * A prefix fact is a lexeme still being written (`os.pa`): the pruner
 * refuses it when nothing it can grow into would do. */
typedef enum sx_fact_kind {
    SX_FACT_READ = 0,       /* the middle reads `name` */
    SX_FACT_ATTRIBUTE,      /* `base.name`, base a name of the document or middle */
    SX_FACT_KEYWORD,        /* `callee(..., name=`, callee a name or `module.name` */
} sx_fact_kind;

typedef struct sx_fact {
    sx_fact_kind kind;
    bool prefix;            /* name is a prefix of what will be written */
    const char *name;       /* borrowed, name_len bytes */
    size_t name_len;
    const char *base;       /* ATTRIBUTE: the name before the dot; KEYWORD: the callee's
                               first name; borrowed */
    size_t base_len;
    const char *member;     /* KEYWORD with `module.function(`: the function; else NULL */
    size_t member_len;
    size_t at;              /* the name's offset in the middle (may be past its start
                               when the cursor was inside it) */
} sx_fact;

typedef struct sx_session sx_session;

typedef struct sx_refusal {
    int pruner;             /* index in sx_pruners, -1 none */
    size_t at;              /* offset in the middle of the lexeme refused */
    char why[192];
} sx_refusal;

/* A pruner: judges the facts of its kind.  Returns true when some program
 * the middle can still become keeps its property; otherwise fills
 * why->why.  It may ask the session what the document binds. */
typedef struct sx_pruner {
    const char *name;       /* "names", "attributes", "keywords" */
    bool (*judge)(sx_session *session, const sx_fact *fact, sx_refusal *why);
} sx_pruner;

enum { SX_NAMES = 0, SX_ATTRIBUTES, SX_KEYWORDS, SX_PRUNER_COUNT };

/* The pruners seam has, indexed by the enum above. */
extern const sx_pruner sx_pruners[SX_PRUNER_COUNT];

/* ---- A completion --------------------------------------------------------- */

/* Opens the analysis of a completion of text[0..len), whose middle replaces
 * text[left_len, right_start) (the cursor, or a selection).  `pruners` is a
 * mask of (1 << SX_NAMES) ...  `env` (borrowed; may be NULL) knows the
 * modules.  The document is read here: its bindings, imports and
 * functions, the lexemes before the cursor.  Free with sx_session_free. */
int sx_session_new(sx_env *env, unsigned pruners, const char *text, size_t len, size_t left_len, size_t right_start,
                   sx_session **out);
/* The same with text's tree-sitter tree already made (a language server
 * keeps one per document): `tree` is taken (deleted here, whatever the
 * answer), and used only when the middle replaces nothing (left_len ==
 * right_start: the text is the document the middle sees); NULL: parsed. */
struct TSTree;
int sx_session_new_tree(sx_env *env, unsigned pruners, const char *text, size_t len, size_t left_len,
                        size_t right_start, struct TSTree *tree, sx_session **out);
void sx_session_free(sx_session *session);

/* From now on the session takes what the environment has read already:
 * the modules the document imports (read by sx_session_new), and what
 * they hold under a name.  A module not read yet, or being read by another
 * thread, constrains nothing.  For a decoding loop, which must not wait on
 * files, Python or another thread. */
void sx_session_cached_only(sx_session *session);

/* Whether middle[0..len) may still become a completion with the pruners'
 * properties (at_end: whether it is one, followed by the right context).
 * The analysis is kept lexeme by lexeme: a middle that shares a prefix
 * with the last one checked resumes from the last lexeme both hold, so a
 * decoder that restores its recognizer and tries another token pays only
 * for the new lexemes.  On refusal, fills *why when given. */
bool sx_check(sx_session *session, const char *middle, size_t len, bool at_end, sx_refusal *why);

/* sx_check as a decoding filter (data: the session); counts refusals. */
bool sx_filter(void *data, const char *middle, size_t len, bool at_end);

/* Candidates each pruner refused through sx_filter; the last refusal. */
uint32_t sx_session_refused(const sx_session *session, int pruner);
const sx_refusal *sx_session_last_refusal(const sx_session *session);

/* For pruners: whether the name may be bound where the middle reads it (in
 * the document's scopes around the cursor, as a builtin, or earlier in the
 * middle); whether the names are unconstrained (a star import of an
 * unknown module, exec, globals()). */
bool sx_session_binds(const sx_session *session, const char *name, size_t len);
bool sx_session_names_open(const sx_session *session);
/* The module a name is bound to when every binding of it the middle can
 * see (in the document and in the middle) is an import of that module
 * ("os.path"), else NULL (borrowed, until the next call). */
const char *sx_session_module_of(sx_session *session, const char *name, size_t len);
/* The parameters of the function the document defines as `name` (NULL
 * when it defines none, several with other parameters, or something else
 * under that name): keyword names, space-separated; *open when it takes
 * **kwargs. */
const char *sx_session_parameters(const sx_session *session, const char *name, size_t len, bool *open);
/* The parameters of module-level function `function` of `module`, or NULL. */
const char *sx_env_parameters(sx_env *env, const char *module, const char *function, bool *open);

#endif
