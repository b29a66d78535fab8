/*
 * ep_recognizer.h - (internal to parser/) the recognizer's state, shared by
 * the lexer and layout (recognizer.c) and the vocabulary walk (trie.c).
 */
#ifndef EP_RECOGNIZER_H
#define EP_RECOGNIZER_H

#include "ep_grammar.h"
#include "ep_earley.h"
#include "ep_quotient.h"

/* The limits of %layout indent (those of CPython's tokenizer: MAXINDENT
 * and MAXLEVEL). */
#define EP_MAX_INDENT 100
#define EP_MAX_DEPTH 200
#define EP_MAX_TEXT (256u << 20)
/* A right context whose head (the text before its first usable top-level
 * line) is at most this long gets no block path: feeding the head at
 * can_end is then about as cheap as the path would make it. */
#define EP_BLOCK_PATH_MIN 16
/* At most this many cursor paths, for places on the right context's first
 * line at most EP_CURSOR_REACH bytes from the cursor. */
#define EP_CURSOR_PATHS 8
#define EP_CURSOR_REACH 256

typedef struct ep_indent {
    uint32_t col, altcol;
    uint32_t parent;      /* EP_NONE at the bottom (column 0) */
    uint32_t level;       /* number of entries below this one */
} ep_indent;

typedef struct ep_run {
    uint32_t chart;          /* parser state before the token in progress */
    uint32_t dfa;            /* automaton state of the token in progress */
    uint32_t tok_start;      /* offset where the token in progress starts */
    uint32_t accept_end;     /* end of its longest accepted prefix (tok_start if none) */
    int32_t accept_lexeme;   /* the lexeme that wins on that prefix, or -1 */
    uint32_t indent;         /* top of the indentation stack (index into indents) */
    uint32_t line_start;     /* offset of the current physical line */
    uint32_t depth;          /* bracket depth */
    bool at_line_start;      /* no token of the logical line yet */
    bool line_has_tokens;
    bool continued;          /* the last token was a backslash join */
    bool dead;
    /* %layout asi (asi.c): a line terminator since the last token; the
     * charts the token in progress may also be scanned from (after SL,
     * after an inserted ASI or ASI_DO; EP_NONE when not); the %goal
     * lexemes the parser expects for it. */
    bool line_break;
    bool same_line_possible;  /* SL may be scanned; its chart is made when needed */
    /* %scoped (scoped.c): the innermost open scope and the last name of
     * it (indices into the recognizer's scoped entries; EP_NONE: none) */
    uint32_t scope, names;
    /* %functions (scoped.c): what "await" and "yield" are here
     * (EP_CONTEXT_*), and what the next "{" makes them (0: as they are) */
    uint8_t context, pending;
    /* %tags (tags.c): the innermost element (an index into the scoped
     * entries; EP_NONE: none) and the last two terminals scanned */
    uint32_t tags;
    uint32_t tag_prev[2];
    uint32_t tag_prev_end;   /* where the last of them ended */
    uint8_t goals;
    uint32_t same_line, asi, asi_do;
    /* lenient %functions: the chart before a function body's marker, from
     * which the "{" may also be scanned (TypeScript's "() => {" is an
     * arrow's body or, in a type, an object type); EP_NONE when none */
    uint32_t unmarked;
} ep_run;

/* What automatic semicolon insertion reads of a grammar (asi.c): the
 * lexemes that may follow SL anywhere (viability's bound while the chart
 * after SL is not made), each goal lexeme's rivals, and scratch; lex_words
 * words each, in one allocation. */
typedef struct ep_asi_tables {
    uint64_t *sets;              /* owned */
    uint64_t *after_same_line;
    uint64_t *scratch;
    uint64_t *excluded;          /* [goals]: the lexemes ep_lex_excluded leaves out */
} ep_asi_tables;

typedef struct ep_cursor_path {
    uint32_t offset;         /* where, in the right context, the lexeme starts */
    uint32_t depth;          /* the bracket depth there */
    uint32_t symbol;         /* the quotient's start for the rest from there */
} ep_cursor_path;

/* How far the str literal in progress has had its escapes checked, so
 * that a long literal fed a few bytes at a time is read once.  Valid while
 * the text up to `checked` is unchanged. */
typedef struct ep_string_check {
    uint32_t tok_start;
    uint32_t checked;   /* text offset */
} ep_string_check;


/* An entry of %scoped's array (scoped.c): a scope, or a name in one. */
enum { EP_SCOPED_SCOPE = 0, EP_SCOPED_DECL, EP_SCOPED_USE };
/* ... or an element of %tags (tags.c): in its opening tag, in its
 * children, a fragment (in its children), in its closing tag */
enum { EP_SCOPED_IN_TAG = 8, EP_SCOPED_CHILDREN, EP_SCOPED_FRAGMENT, EP_SCOPED_CLOSING };
typedef struct ep_scoped {
    uint32_t start, len;   /* a name: where its text is */
    uint32_t next;         /* a name: the name before it in its scope; a scope: the one around it */
    uint32_t names;        /* a scope: the last name of the one around it when it opened */
    uint8_t kind;
    uint8_t context;       /* a scope: the context around it */
} ep_scoped;

/* %functions: "await" is the operator, "yield" is, and "await" may be
 * either (an async arrow's expression body was met in these braces);
 * EP_CONTEXT_SET marks a pending context as set. */
enum { EP_CONTEXT_AWAIT = 1, EP_CONTEXT_YIELD = 2, EP_CONTEXT_EITHER = 4, EP_CONTEXT_SET = 0x80 };

typedef struct ep_snapshot {
    ep_run run;
    ep_earley_mark earley;
    uint32_t text_len;
    uint32_t indents;
    uint32_t scoped;
    uint8_t utf8_need;
    uint8_t utf8_lo, utf8_hi;
} ep_snapshot;

struct ep_recognizer {
    const ep_grammar *grammar;
    ep_grammar *owned_grammar;   /* a quotient built for this recognizer, or NULL */
    /* Fill-in-the-middle with a layout: the right context is split at a
     * top-level line into right_head (fed after the middle when asking
     * can_end) and a tail that the quotient grammar stands for.  base is the
     * grammar the quotient was built from (borrowed). */
    const ep_grammar *base;
    char *right_head;            /* owned; NULL when not in that mode */
    size_t right_head_len;
    const char *right_whole;     /* owned with right_head (one allocation) */
    size_t right_len;
    bool tail_split;             /* the quotient stands for a tail after right_head */
    /* The symbol whose completion means "valid with the right context"
     * (the start symbol, unless the grammar is a union of quotients). */
    uint32_t accept_symbol;
    /* Faster ways to can_end (%layout indent), quotients in the same grammar (then
     * a union, each told apart by its start symbol), each exact when the
     * program meets its assumption:
     *  - the block path: the quotient by the right context from its first
     *    line at the cursor's block level, when the program reaches that
     *    line with the indentation stack the left context ended with;
     *  - the cursor paths: the quotient by the right context from where the
     *    first lexeme after the cursor starts (one path per place it may
     *    start), when the program is there mid-line with the left context's
     *    indentation stack and the bracket depth that the right context
     *    closes. */
    bool block_path;
    uint32_t block_symbol;
    size_t block_split;          /* offset in the right context of that line */
    SM_ARRAY(ep_indent) left_stack;    /* bottom first, without column 0 */
    ep_cursor_path cursor_paths[EP_CURSOR_PATHS];
    uint32_t cursor_path_count;
    uint32_t cursor_reach;       /* bytes of the right context the paths look at */
    uint32_t can_end_ways[EP_CAN_END_WAYS];   /* how can_end was answered, for tests */
    ep_string_check string_check;
    struct ep_modal *modal;      /* owned: strings with fields' scanner state (ep_fields.h) */
    const struct lg_fields *modal_of;  /* the scanner it is of, which frees it (the
                                          grammar may be gone by then) */
    /* Counts the times the text was cut back or its length set (a restore):
     * between two, the text only grows at its end. */
    uint32_t text_epoch;
    /* Parses the expressions of strings' fields (lg_fields's `valid`): made
     * on first use, on the compiled grammar (lg_fields's `fields_new`). */
    ep_recognizer *fields;
    /* The last vocabulary mask made inside a plain token (trie_memo.c);
     * owned, NULL until one is. */
    struct ep_trie_memo *trie_memo;
    /* Tokenizing mode (ep_tokenize): tokens are recorded, not parsed. */
    bool capture;
    ep_tokens captured;
    uint32_t min_depth;          /* the least bracket depth met while tokenizing */
    ep_earley earley;
    ep_asi_tables asi_tables;    /* %layout asi */
    SM_ARRAY(char) text;
    SM_ARRAY(ep_indent) indents;
    SM_ARRAY(ep_scoped) scoped;  /* %scoped, append-only */
    SM_ARRAY(ep_snapshot) saves;
    ep_run run;
    /* UTF-8 validation across feeds: continuation bytes still expected and
     * the range allowed for the next one. */
    uint8_t utf8_need;
    uint8_t utf8_lo, utf8_hi;
};

/* The state a save point holds. */
ep_snapshot ep_snapshot_take(const ep_recognizer *rec);
/* Returns the recognizer to `snap` (the save points are left alone). */
void ep_snapshot_apply(ep_recognizer *rec, const ep_snapshot *snap);

/* Moves UTF-8 validation over byte b: continuation bytes still expected and
 * the range allowed for the next one.  False (state unchanged) if b does
 * not continue valid UTF-8 or is NUL. */
static inline bool ep_utf8_next(uint8_t *need, uint8_t *lo, uint8_t *hi, uint8_t b)
{
    if (*need) {
        if (b < *lo || b > *hi)
            return false;
        (*need)--;
        *lo = 0x80;
        *hi = 0xBF;
        return true;
    }
    if (b == 0)
        return false;
    if (b < 0x80)
        return true;
    if (b >= 0xC2 && b <= 0xDF) {
        *need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
        *need = 2;
        if (b == 0xE0) *lo = 0xA0;
        if (b == 0xED) *hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        *need = 3;
        if (b == 0xF0) *lo = 0x90;
        if (b == 0xF4) *hi = 0x8F;
    } else {
        return false;
    }
    return true;
}

/* Whether a token, as far as it is typed, is a string literal as the
 * grammar's lexical rules read it (string_shape; else one that starts with
 * a quote).  *is_f and *raw (may be NULL): it has fields, it is raw. */
bool ep_str_literal(const ep_grammar *g, const char *token, size_t len, bool *is_f, bool *raw);
/* Whether a token holds a brace: without one an f-string has no field to
 * check (and no stray "}"). */
bool ep_has_brace(const char *token, size_t len);

/* ---- Inside the recognizer: lexer.c, layout.c, fim.c ---------------------- */

/* Moves a run over the byte at rec->text[at] (lexer.c); false, the run not
 * to be used again, when the text is refused there. */
bool ep_lex_byte(ep_recognizer *rec, ep_run *run, uint32_t at);
/* Ends the token in progress at its longest accepted prefix and lexes the
 * bytes after that prefix, up to `end`, again. */
bool ep_lex_relex(ep_recognizer *rec, ep_run *run, uint32_t end);

/* Scans one terminal into the run's chart (layout.c); false if the parser
 * refuses. */
bool ep_layout_scan(ep_recognizer *rec, ep_run *run, uint32_t terminal);
/* Scans a token (one or two alternative terminals). */
bool ep_layout_scan_token(ep_recognizer *rec, ep_run *run, const uint32_t *terminals, uint32_t count);
/* Sends INDENT or DEDENTs for the first token of a logical line, starting
 * at text[at]. */
bool ep_layout_indent(ep_recognizer *rec, ep_run *run, uint32_t at);
/* Whether a token that starts with the automaton in state `state` is a real
 * token (not whitespace, a comment, a line break or a join). */
bool ep_layout_real_token(const ep_grammar *g, uint32_t state);
/* The indentation stack of a run, bottom first, without the column-0
 * bottom, into out[0..*levels). */
void ep_layout_stack(const ep_recognizer *rec, const ep_run *run, ep_indent *out, uint32_t *levels);
/* Whether a run's indentation stack is the one the left context ended with. */
bool ep_layout_stack_is_left(const ep_recognizer *rec, const ep_run *run);

/* Whether a token whose first byte took the automaton to `state` may be
 * one the parser is sent (not only blank space or a comment): a goal
 * lexeme counts only where the parser may take it. */
bool ep_asi_real_token(ep_recognizer *rec, const ep_run *run, uint32_t state);

/* Automatic semicolon insertion (asi.c).  At the start of a real token:
 * the charts it may also be scanned from and the goal lexemes expected
 * (`first` is its first byte: a "}" may have ASI before it). */
void ep_asi_token_start(ep_recognizer *rec, ep_run *run, uint8_t first);
/* Whether a lexeme is not to be taken for the token in progress (a %goal
 * lexeme not expected, or a rival of one that is). */
/* Whether automaton state `state` of the token in progress can still
 * reach a lexeme that is not excluded for it (else the token ends). */
bool ep_asi_can_grow(const ep_recognizer *rec, const ep_run *run, uint32_t state);
/* Scans a token, with SL, ASI or ASI_DO in front where the rules call for
 * it; false if the parser refuses it every way. */
bool ep_asi_scan(ep_recognizer *rec, ep_run *run, const uint32_t *terminals, uint32_t count, uint32_t end);
/* At the end of the input: whether the program is complete, with an
 * inserted semicolon if it needs one. */
bool ep_asi_can_end(ep_recognizer *rec, ep_run *run);
/* The lexemes allowed for the token in progress, from every chart it may
 * be scanned from (the recognizer's scratch, valid until the next call). */
const uint64_t *ep_asi_allowed(const ep_recognizer *rec, const ep_run *run);
void ep_asi_tables_init(ep_asi_tables *tables, const ep_grammar *g);
void ep_asi_tables_free(ep_asi_tables *tables);
/* %scoped (scoped.c): a token scanned, `terminal` its first terminal,
 * `declaration` whether it was taken where a declaration stands, its text
 * text[tok_start, end).  False when it is a use no enclosing scope can
 * declare any more. */
bool ep_scoped_token(ep_recognizer *rec, ep_run *run, uint32_t terminal, bool declaration, uint32_t end);
/* %tags (tags.c): a token scanned, `terminal` its first terminal, `name`
 * when it stands where a tag's name may; false when it breaks the
 * elements' nesting. */
bool ep_tags_token(ep_recognizer *rec, ep_run *run, uint32_t terminal, bool name, uint32_t end);
/* %functions: at the start of a token whose first byte is `first`, scans
 * the function marker the parser expects there, if any, into the run. */
void ep_functions_token_start(ep_recognizer *rec, ep_run *run, uint8_t first);
/* %functions: terminals[0..*count) without the readings "await" and
 * "yield" do not have in the run's context (in place). */
void ep_functions_filter(const ep_recognizer *rec, const ep_run *run, uint32_t *terminals, uint32_t *count);
/* Whether text holds a line terminator (LF, CR, U+2028, U+2029). */
bool ep_asi_line_terminator(const char *text, size_t len);

/* Drops the text after `len` (a rollback, recognizer.c). */
void ep_text_truncate(ep_recognizer *rec, uint32_t len);
/* Ends the text on a copy of the run: flushes the token in progress, then
 * (%layout indent) the last NEWLINE, the DEDENTs and ENDMARKER; whether the start
 * symbol is then accepted. */
bool ep_run_can_end(ep_recognizer *rec, ep_run *run, uint32_t end);

/* can_end of a fill-in-the-middle recognizer (fim.c): with the right
 * context's head fed on a copy of the run that the caller rolls back; by
 * the block path; by a cursor path.  The last two give 1 or 0 when their
 * assumption holds (the answer is then exact), -1 when another way must
 * decide. */
bool ep_fim_can_end_by_head(ep_recognizer *rec, ep_run *run, uint32_t text_len);
int ep_fim_can_end_by_block(ep_recognizer *rec);
int ep_fim_can_end_by_cursor(ep_recognizer *rec);

/* Ends the token in progress as a byte that no lexeme continues would
 * (before lexing that byte): its longest accepted prefix is committed and
 * the rest lexed again.  False, the run dead, when that is refused. */
bool ep_end_token(ep_recognizer *rec);

/* Whether the token in progress can still grow into a lexeme allowed here
 * (by the automaton and the parser alone). */
bool ep_run_can_grow(const ep_recognizer *rec, const ep_run *run);
/* Its parts: the lexemes the parser allows for the token in progress (valid
 * until the charts change), whether a line break may end the logical line
 * there, and whether a token in automaton state `dfa` can grow into an
 * allowed lexeme given those two. */
const uint64_t *ep_run_allowed(const ep_recognizer *rec, const ep_run *run);
bool ep_run_newline_ok(const ep_recognizer *rec, const ep_run *run);
bool ep_run_can_grow_by(const ep_grammar *g, uint32_t dfa, const uint64_t *allowed, bool newline_ok);
/* Whether the token in progress passes the language's checks beyond the lexer's
 * patterns as far as it has been typed (names' characters, escapes,
 * f-string fields). */
bool ep_run_token_so_far(ep_recognizer *rec, const ep_run *run, uint32_t end);
/* Whether the token in progress, a string with fields whose checks passed
 * up to `end`, is in its text, where any byte but a backslash, a brace, a
 * line break and *stop (set) keeps them passing (lg_fields's `in_text`). */
bool ep_run_in_text(ep_recognizer *rec, const ep_run *run, uint32_t end, uint8_t *stop);
/* The recognizer of the open field's expression when the token in
 * progress, a string with fields whose checks passed up to `end`, is in
 * one (lg_fields's `field`), with *offset; else NULL. */
ep_recognizer *ep_run_field(ep_recognizer *rec, const ep_run *run, uint32_t end, int64_t *offset);

#endif
