/*
 * seam_languages.h - the languages seam completes, one row each (lg_).
 *
 * A language is a row of the registry (registry.c) and a folder of its own
 * (languages/python/): what tells its documents apart (LSP languageIds,
 * file name endings, a script's #! line) and, as the language modules move
 * in, everything else that is its own.  The front ends ask the registry
 * which language a document is in; a document in none of them is not
 * completed (and never read with another language's grammar).
 */
#ifndef SEAM_LANGUAGES_H
#define SEAM_LANGUAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A language's check of a finished token beyond its lexeme's pattern
 * (grammar files name one with %check): whether text[0..len) is valid. */
typedef bool (*lg_token_check)(const char *text, size_t len);

/* A language's lexical rules that no lexeme pattern expresses, which the
 * parser asks of a grammar that names them (`%lexical NAME`;
 * lg_lexical_named).  Any may be NULL: the rule does not apply. */
typedef struct lg_lexical {
    /* Whether the characters of a finished token may stand in a name (a
     * token with no name character passes); and whether code point `cp`
     * may, as a name's first character when `first` (the masks' shortcut
     * for names). */
    bool (*name_valid)(const char *token, size_t len);
    bool (*name_char_valid)(uint32_t cp, bool first);
    /* Whether a token, as far as it is typed, is a string literal (the
     * kind whose escapes escapes_valid reads), and whether it has fields or
     * is raw (either may be NULL).  Without it: a token that starts with a
     * quote, neither. */
    bool (*string_shape)(const char *token, size_t len, bool *fields, bool *raw);
    /* Whether the escapes of a string token (a lexeme marked `fstring`)
     * are valid so far (finished: the token is whole); *resume: where a
     * later call may start reading again. */
    bool (*escapes_valid)(const char *token, size_t len, bool finished, size_t *resume);
    /* Whether a finished token of the grammar's NUMBER is within the
     * language's limits; and whether one may end the text. */
    bool (*number_valid)(const char *token, size_t len);
    bool (*number_may_end)(const char *token, size_t len);
    /* Whether the language's reader sees one more line break at the end of
     * text[0..len). */
    bool (*adds_line_break)(const char *text, size_t len);
    /* How much of a token in progress the checks above, every %check of
     * the language's grammars and its strings' scanner read, when they
     * read no more than its first bytes (its head): for any two tokens u
     * and v with the same head and any bytes w, u + w passes each of them
     * exactly when v + w does.  Then a vocabulary mask made inside one
     * serves inside the other, when the lexer's automaton is in the same
     * state and the text before both is the same.  Returns the head's
     * length (0 for a name, which none reads but for its first character,
     * a letter; a comment's opening; a string's prefix and quotes while it
     * has no escape nor, with fields, a brace), or -1 for a token whose
     * other bytes are read (an escape, a field, a number) or that is not
     * known to be so.  NULL: -1 for every token. */
    int (*plain_head)(const char *token, size_t len);
    /* Strings with fields (a lexeme marked `fstring`: Python's f- and
     * t-strings), read by the language's scanner (a parser extension,
     * parser/ep_fields.h; NULL: none), and with the tokenizer's modes
     * from version `fields_from` on. */
    const struct lg_fields *fields;
    int fields_from;
    /* Tokens in progress a vocabulary mask often starts from (a name, a
     * blank, a comment, a number, a string's opening), NULL-terminated:
     * their lexeme trees are built when a model loads (ep_trie_prewarm).
     * NULL: none. */
    const char *const *mask_starts;
    /* Code whose positions masks often start from where no single token
     * of mask_starts leads (a string's opening quote, the text after a
     * field, a template's substitution), NULL-terminated: a mask is made at
     * each of their positions once a model is loaded, in the background
     * (ep_trie_prewarm_samples), as far as the grammar (its version or
     * dialect) takes each.  NULL: none. */
    const char *const *mask_samples;
} lg_lexical;

/* Where a text stands lexically at a point, in its language's own reading
 * (zero-initialised at the start of a text): the brackets open, and the
 * literal or comment it is in.  A rough reading for a completion's shape
 * and binding, never a verdict on validity.  Each language reads and
 * writes the fields it needs; the rest stay zero. */
#define LG_LEX_TEMPLATES 16
typedef struct lg_lex {
    int32_t depth;           /* brackets open */
    uint8_t in;              /* 0 in code, else the kind of literal or comment it is in
                                (JavaScript: the quote, '`', '/', 'c' or 'C') */
    char quote;              /* Python: the quote of the string it is in, or 0; JSX: of
                                an attribute's string */
    bool triple;             /* Python: a triple-quoted one */
    bool raw;
    bool in_comment;         /* Python: in a comment */
    bool escaped;            /* after a backslash in a literal */
    bool continued;          /* Python: a backslash join at the end of the line */
    bool in_class;           /* a regular expression's class */
    uint8_t prev;            /* the last character of code, not blank */
    uint8_t templates;       /* JavaScript: the "${" open around */
    int32_t template_depth[LG_LEX_TEMPLATES];  /* the depth each opened at */
    /* JSX (set by the JSX rows' reading): elements whose children it is
     * in, and "{...}" in a tag or in children, innermost last (LG_JSX_*),
     * with the depth each opened at; in a tag, whether it closes one */
    bool jsx;
    uint8_t jsx_frames;
    uint8_t jsx_kind[LG_LEX_TEMPLATES];
    int32_t jsx_depth[LG_LEX_TEMPLATES];
    bool jsx_closing;
    /* Python: bytes of the string still to come, when its end was found in
     * the same text, else 0 (then a quote ends it as written). */
    uint32_t string_left;
} lg_lex;

/* The shape a completion takes at the cursor. */
typedef enum lg_scope_kind {
    LG_SCOPE_EXPRESSION = 0,  /* inside brackets: the rest of the expression */
    LG_SCOPE_LINE,            /* on a line with text: the rest of the line */
    LG_SCOPE_BLOCK,           /* an empty line in a block: statements at its indentation */
    LG_SCOPE_BODY,            /* after a block header: its body */
    LG_SCOPE_COMMENT,         /* in a comment: up to the end of it */
    LG_SCOPE_STRING,          /* in a string, a docstring or a template's text: up to its end */
    LG_SCOPE_MODULE,          /* an empty line at the top level: statements */
    LG_SCOPE_HEADER,          /* on a compound statement's header line whose body the
                                 right context does not hold: the line, to its colon */
} lg_scope_kind;

const char *lg_scope_kind_name(lg_scope_kind kind);

struct lg_language;

#define LG_SCOPE_KEPT 32

/* What a language's scope rules say of the cursor (scope_at): the
 * completion's shape, where it must stay (its escape filter reads this),
 * and how much context the recognizer needs. */
typedef struct lg_scope {
    const struct lg_language *language;   /* whose rules these are */
    lg_scope_kind kind;
    uint32_t max_lines;        /* the line budget the shape allows */
    uint32_t min_indent;       /* block scopes: lines the middle starts are indented this
                                  much (inside the enclosing def or class) */
    uint32_t body_indent;      /* body and header scopes: the first line the middle starts,
                                  the body, is indented this much */
    uint32_t bracket_depth;    /* brackets open at the cursor */
    uint32_t closable;         /* of those, the ones the right context leaves open */
    /* JavaScript: which of the innermost LG_SCOPE_KEPT brackets open at
     * the cursor (kept[0] the innermost) a middle may not close: those the
     * leading closers of the cursor line's rest close ("foo(|)": what the
     * editor closed), and, on a line with text before the cursor and none
     * of the person's after it, every one from the innermost block (or
     * interface or enum body) opened on an earlier line out (the line's
     * statement or member stays in its block).
     * Those past it may, and so may a middle in a scope of several lines
     * that joins the person's code after the cursor on its line
     * (rest_is_code) and goes on to other lines after closing one
     * (lg_left_for_lines). */
    bool kept[LG_SCOPE_KEPT];
    char quote;                /* string scope: the quote of the literal */
    bool triple;               /* string scope: line breaks may stand in it */
    bool literal_open;         /* string scope: the right context does not close it */
    size_t cut_left, cut_right; /* the recognizer's contexts: text[cut_left, cut_right) */
    size_t line_end;           /* the rest of the cursor's line is text[offset, line_end) */
    size_t next_line;          /* where the line after the cursor's starts (len: none) */
    bool at_end;               /* nothing but blank space follows the cursor's line */
    bool rest_is_code;         /* the rest of the cursor's line is the person's text, not
                                  blank space or an editor's closers: a middle joins it as
                                  written, wherever its lines go (lg_scope_lines) */
    bool colon_unwritten;      /* the cursor's statement is a compound one whose header's
                                  colon is neither before the cursor nor in the line's rest */
    bool body_below;           /* the next line with code is indented deeper than that
                                  statement: its body is written */
    lg_lex lex;                /* the lexical state at the cursor */
    const char *node_type;     /* tree-sitter's node at the cursor, for logs */
} lg_scope;

struct TSLanguage;
struct TSTree;
struct cfg_config;

/* Which version of a language a project's code is for, and why (for the
 * log, the status and --json). */
typedef struct lg_version_choice {
    int version;        /* 100 * major + minor, within the language's versions */
    char why[1024];
} lg_version_choice;

/* Called with each file a text imports: its path, existing, under the
 * workspace (a NUL-terminated string, borrowed for the call). */
typedef void (*lg_import_cb)(void *data, const char *path);
/* A language's reading of a text's imports: the files of the workspace
 * `root` that text[0..len), the file in folder `dir`, imports, each given
 * to `found` once at most, in the order the text names them.  Reads the
 * file system only with stat(); never runs anything. */
typedef void (*lg_imports_fn)(const char *text, size_t len, const char *dir, const char *root, lg_import_cb found,
                              void *data);

typedef struct lg_language {
    const char *name;                     /* "python": settings, seam check's "language", --json */
    const char *title;                    /* "Python": messages */
    const char *const *language_ids;      /* LSP languageIds, NULL-terminated */
    const char *const *extensions;        /* file name endings with their dot, NULL-terminated */
    const char *const *interpreters;      /* names a #! line runs it with ("python3"), NULL-terminated */
    /* Its grammar file (docs/GRAMMAR_FORMAT.md), NUL-terminated, compiled
     * (ep_grammar_of) by version or by dialect: its versions, as 100 *
     * major + minor (Python: 309 .. 314, default_version the one a grammar
     * is made for when no project says), which `%if version OP X.Y` lines
     * select; or its dialects, the names its %dialects line gives in the
     * same order, NULL-terminated (JavaScript: "script", "module"), which
     * `%if NAME` lines select (numbered from 1); or neither (JSON): one
     * grammar, version 0. */
    const char *grammar;
    /* A grammar may extend another language's (TypeScript's extends
     * JavaScript's): `base` is that language (NULL: none) and base_version
     * the base's version or dialect that this language's `version` builds
     * on.  The base's lines for that version come first; a rule or lexeme
     * this grammar defines again replaces the base's definition, and a
     * `%drop NAME...` line removes one (docs/GRAMMAR_FORMAT.md). */
    const struct lg_language *base;
    int (*base_version)(int version);
    /* The version or dialect of its grammar file's lines that its
     * `version` selects (NULL: the same): a row that reads a grammar file
     * with another row (JSX's is JavaScript's, with the "+jsx" dialects)
     * numbers its own dialects. */
    int (*grammar_version)(int version);
    int oldest_version, newest_version, default_version;
    /* How the version of a project's code is chosen: from the settings,
     * else what the project in `dir` (or its parents) states, else its
     * interpreter's, reading files only (NULL: default_version). */
    void (*choose_version)(const struct cfg_config *config, const char *dir, lg_version_choice *out);
    const char *const *dialects;
    /* The dialect a file is read in (its number, from 1), from its path (may
     * be NULL) and text, as the language's own tools decide; NULL when the
     * language has no dialects. */
    int (*dialect_of)(const char *path, const char *text, size_t len);
    /* Folders of its code on the machine that the embedded model learns
     * from beside the workspace (NULL-terminated, or NULL), and one found
     * at run time (NULL: none; Python's standard library), into
     * out[0..size), false when there is none. */
    const char *const *corpus_dirs;
    bool (*corpus_found)(char *out, size_t size);
    /* Its scope rules (NULL when it has none: a completion then takes the
     * rest of a line, or statements on an empty line):
     * tree_sitter is its tree-sitter grammar, the one tree each document
     * keeps (NULL: none); scope_at fills `out` for byte `offset` of
     * text[0..len) from that tree (may be NULL) and a lexical reading,
     * multi-line shapes with max_lines when `multiline` is set, else one
     * line; escape_filter says whether a middle stays where scope_at said
     * (at_end: the middle ends there; max_lines: the decoder's line budget
     * as it stands, the scope's or a widened one). */
    const struct TSLanguage *(*tree_sitter)(void);
    void (*scope_at)(const struct TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                     uint32_t max_lines, lg_scope *out);
    bool (*escape_filter)(const lg_scope *scope, const char *middle, size_t len, bool at_end, uint32_t max_lines);
    /* Its reading of a line being typed (NULL: none; its completions then
     * bind the whole text): lex_scan moves a lexical state over text (one
     * call per text: a text's first byte starts a token); middle_closed says
     * whether a middle typed at state `at` closes what it opens (a comment
     * left open only when nothing follows on the line); line_enders are
     * texts one of which may follow a finished line (a statement is not
     * left half written; NULL: the line break itself ends one), or where
     * line_enders_at is set, those it gives for the lexical state the
     * line's text leaves (JSX: in an element's tag, its end). */
    void (*lex_scan)(lg_lex *lex, const char *text, size_t len);
    bool (*middle_closed)(const lg_lex *at, const char *middle, size_t len, bool rest_blank);
    const char *const *line_enders;
    const char *const *(*line_enders_at)(const lg_lex *end);
    /* Whether its semantic pruners run (the engine's environment is
     * Python's; docs/SEMANTIC.md). */
    bool semantic;
    /* What the project's other files as the model's context need
     * (context/): how a line comment starts ("#"; NULL: the language has
     * none), the words a definition starts with and those that may stand
     * before them (NULL-terminated), and the files of the workspace a text
     * imports (NULL: none are followed). */
    const char *line_comment;
    const char *const *definers;
    const char *const *definer_modifiers;
    lg_imports_fn imports;
    /* Another row that reads this one's documents when their text needs it
     * (`variant_of` says so; NULL: none): JavaScript's .js files that hold
     * JSX, which TypeScript's reader (VS Code's) and Babel take as JSX, are
     * the jsx row's.  lg_read_as asks. */
    const struct lg_language *variant;
    bool (*variant_of)(const char *text, size_t len);
} lg_language;

/* The languages, NULL-terminated, in the registry's order. */
const lg_language *const *lg_languages(void);
/* The language's place in the table (from 0); SIZE_MAX when it is not
 * one of the registry's. */
size_t lg_index(const lg_language *language);
/* The language named `name`; NULL when seam has none by that name. */
const lg_language *lg_by_name(const char *name);
/* The language of an LSP languageId; NULL when none. */
const lg_language *lg_by_language_id(const char *language_id);
/* The language of a file: by its name's ending, else, for a name with no
 * ending (a script), by the #! line that starts `text` (may be NULL, `len`
 * bytes); NULL when none. */
const lg_language *lg_by_file(const char *path, const char *text, size_t len);
/* The row a document of `language` with text[0..len) is read with: its
 * variant when the text needs it, else the language itself. */
const lg_language *lg_read_as(const lg_language *language, const char *text, size_t len);
/* The version number of dialect `name` of a language (its index + 1), or
 * 0 when it has none by that name. */
int lg_dialect(const lg_language *language, const char *name);
/* The lexical rules a grammar names (%lexical NAME); NULL when none. */
const lg_lexical *lg_lexical_named(const char *name);
/* The token check a grammar names (%check NAME); NULL when none. */
lg_token_check lg_token_check_named(const char *name);
/* The file name endings of every language into out[0..size), the list
 * NULL-terminated (cut short to fit). */
void lg_all_extensions(const char **out, size_t size);
/* Writes the languages' names, ", "-separated, into out[0..size), for
 * messages. */
void lg_names(char *out, size_t size);

/* Whether text[from, to) is what an editor's auto-closing puts after the
 * cursor: closing brackets and quotes, and blank space. */
bool lg_editor_closers(const char *text, size_t from, size_t to);
/* The same for the rest of a line, text[offset, end), the line starting
 * at line_start: and each closing bracket in it closes one the line opened
 * before the cursor (an editor closes what is typed on the line; a
 * bracket an earlier line opened is closed by the person's own code), with
 * no blank space before it unless its opener is followed by blank space
 * (the padding "{ | }" some editors mirror). */
bool lg_editor_closed(const char *text, size_t line_start, size_t offset, size_t end);

/* Escape filters: whether a middle that leaves the comment or string the
 * cursor is in at byte `at` of middle[0..len) may do so.  Only when it
 * joins the person's code after the cursor on its line (rest_is_code) and
 * goes on to other lines after leaving, as a hole in finished code that
 * spans lines does; never on the cursor's line alone ("ab|c" completed
 * with `x" + y + "`). */
bool lg_left_for_lines(const lg_scope *sc, const char *middle, size_t len, size_t at, bool at_end);

/* The cursor's line in a scope: where its rest ends (line_end), whether
 * that rest is the person's text (rest_is_code), where the next line
 * starts (next_line) and whether only blank space follows (at_end), for
 * byte `offset` of text[0..len). */
void lg_scope_lines(const char *text, size_t len, size_t offset, lg_scope *out);

/* The state after lexing text[0..len) from `start` with the language's
 * lex_scan. */
void lg_lex_after(const lg_language *language, const lg_lex *start, const char *text, size_t len, lg_lex *end);
/* Whether a literal (a string, a template, a regular expression, a block
 * comment) or a line join is open in `lex`. */
bool lg_lex_literal_open(const lg_lex *lex);
/* Whether two states read what follows alike (string_left aside: it
 * counts bytes of the text it was found in). */
bool lg_lex_same(const lg_lex *a, const lg_lex *b);

#endif
