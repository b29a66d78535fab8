/*
 * recognizer.c - the incremental recognizer: a maximal-munch lexer that
 * moves one byte at a time on the parser's terms, Python's layout layer, and
 * save points.
 *
 * The lexer keeps one run: the parser chart before the token in progress,
 * the automaton state of that token, and the longest prefix of it that some
 * lexeme accepts.  When the automaton dies the token is the longest accepted
 * prefix (maximal munch) and the bytes after it are lexed again.  Whether the
 * text is viable is answered without committing the token in progress:
 *  - it can still grow into a lexeme the parser allows here, or
 *  - it can end at its longest accepted prefix, if what follows that prefix
 *    is viable when lexed afresh: this branch is checked speculatively and
 *    rolled back (it is the guarded branch of Melcer et al. §V-A, Fig. 5,
 *    evaluated only when the growing branch has no future).
 */
#include "ep_earley.h"
#include "ep_fstring.h"
#include "ep_quotient.h"

#include <string.h>

#define EP_MAX_INDENT 100   /* CPython's MAXINDENT */
#define EP_MAX_DEPTH 200    /* CPython's MAXLEVEL */
#define EP_MAX_TEXT (256u << 20)
/* A right context whose head (the text before its first usable top-level
 * line) is at most this long gets no block path: feeding the head at
 * can_end is then about as cheap as the path would make it. */
#define EP_BLOCK_PATH_MIN 16

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
} ep_run;

typedef struct ep_snapshot {
    ep_run run;
    ep_earley_mark earley;
    uint32_t text_len;
    uint32_t indents;
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
    /* A faster way to can_end (Python): the quotient by the right context
     * from its first line at the cursor's block level, valid when the
     * program reaches that line with the indentation stack the left context
     * ended with (block_stack).  The grammar is then the union of both
     * quotients, and block_symbol is the block path's start. */
    bool block_path;
    uint32_t block_symbol;
    size_t block_split;          /* offset in the right context of that line */
    SM_ARRAY(ep_indent) block_stack;   /* bottom first */
    /* Tokenizing mode (ep_tokenize): tokens are recorded, not parsed. */
    bool capture;
    ep_tokens captured;
    ep_earley earley;
    SM_ARRAY(char) text;
    SM_ARRAY(ep_indent) indents;
    SM_ARRAY(ep_snapshot) saves;
    ep_run run;
    /* UTF-8 validation across feeds: continuation bytes still expected and
     * the range allowed for the next one. */
    uint8_t utf8_need;
    uint8_t utf8_lo, utf8_hi;
};

static bool ep__feed_byte(ep_recognizer *rec, ep_run *run, uint32_t at);
static bool ep__run_can_end(ep_recognizer *rec, ep_run *run, uint32_t end);

int ep_recognizer_new(const ep_grammar *grammar, ep_recognizer **out)
{
    ep_recognizer *rec = sm_calloc(1, sizeof *rec);
    rec->grammar = grammar;
    rec->accept_symbol = grammar->start_symbol;
    ep_earley_init(&rec->earley, grammar);
    ep_indent bottom = {0, 0, EP_NONE, 0};
    sm_array_push(&rec->indents, bottom);
    rec->run.chart = ep_earley_root(&rec->earley);
    rec->run.dfa = EP_DFA_START;
    rec->run.accept_lexeme = -1;
    rec->run.indent = 0;
    rec->run.at_line_start = true;
    rec->utf8_lo = 0x80;
    rec->utf8_hi = 0xBF;
    /* a start symbol without rules (a quotient by a right context that no
     * text completes) has an empty language */
    bool has_rules = false;
    for (uint32_t r = 0; r < grammar->rule_count && !has_rules; r++)
        has_rules = grammar->rule_lhs[r] == grammar->start_symbol;
    rec->run.dead = !has_rules;
    *out = rec;
    return SM_OK;
}

/* Whether `symbol` has a rule (a quotient that no text completes has none
 * for its start). */
static bool ep__has_rules(const ep_grammar *grammar, uint32_t symbol)
{
    for (uint32_t r = 0; r < grammar->rule_count; r++)
        if (grammar->rule_lhs[r] == symbol)
            return true;
    return false;
}

/* Where a right context with a layout can be split: the start of a line
 * (not the first) whose first byte begins a token in column 0 and that no
 * backslash joins to the line before.  From there on, in any program where
 * that line really is a top-level line, the text tokenizes the same
 * whatever precedes it.  Returns the offset, or `len` when there is none at
 * or after `from`. */
static size_t ep__next_top_level_line(const char *right, size_t len, size_t from)
{
    for (size_t i = from ? from : 1; i < len; i++) {
        char prev = right[i - 1], c = right[i];
        if (prev != '\n' && !(prev == '\r' && c != '\n'))
            continue;
        if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n' || c == '#' || c == '\\')
            continue;
        size_t brk = prev == '\n' && i >= 2 && right[i - 2] == '\r' ? i - 2 : i - 1;
        if (brk > 0 && right[brk - 1] == '\\')
            continue;
        return i;
    }
    return len;
}

/* The layout of a left context: its indentation stack (bottom first,
 * without the column-0 bottom) and bracket depth after it, found by lexing
 * it alone.  False when it does not lex. */
static bool ep__layout_after(const ep_grammar *grammar, const char *left, size_t len, ep_indent *stack,
                             uint32_t *levels, uint32_t *depth);
static int ep__tokenize_from(const ep_grammar *grammar, const char *text, size_t len, const ep_indent *stack,
                             uint32_t levels, ep_tokens *out);
static size_t ep__next_block_line(const char *right, size_t limit, uint32_t col, uint32_t altcol, uint32_t depth);

/* The right context's token sequences a layout recognizer needs: the tail
 * from the top-level split and, for the block path, the tokens from the
 * block line on.  The two usually end alike (once the block line's program
 * reaches the split it is the tail's), so they share the end of one token
 * automaton and one reverse parse. */
typedef struct ep_fim_plan {
    ep_tokens tail;          /* empty when there is no top-level split */
    bool has_tail;
    ep_tokens block;
    bool has_block;
} ep_fim_plan;

/* Builds the quotients of a plan in one automaton: the tail's chain, and
 * the block tokens' chain joining it where their ends agree.  Stores the
 * start symbols (tail first) in starts; EP_NONE for a part not in the
 * plan. */
static int ep__build_plan(const ep_grammar *grammar, const ep_fim_plan *plan, ep_grammar **out, uint32_t starts[2])
{
    const ep_tokens *tail = &plan->tail, *block = &plan->block;
    uint32_t n2 = plan->has_tail ? tail->size : 0, nb = plan->has_block ? block->size : 0;
    uint32_t shared = 0;
    if (plan->has_tail && plan->has_block)
        while (shared < n2 && shared < nb) {
            const ep_token *x = &tail->items[n2 - 1 - shared], *y = &block->items[nb - 1 - shared];
            if (x->count != y->count || x->terminals[0] != y->terminals[0] ||
                (x->count > 1 && x->terminals[1] != y->terminals[1]))
                break;
            shared++;
        }
    /* nodes: the block's own part first (0 .. own-1), then the tail's chain;
     * without a tail the block's chain is all there is */
    uint32_t own = nb - shared;
    uint32_t tail_first = own;
    uint32_t nodes = own + (plan->has_tail ? n2 : shared) + 1;
    SM_ARRAY(ep_token_edge) edges;
    sm_array_init(&edges);
    for (uint32_t i = 0; plan->has_tail && i < n2; i++) {
        ep_token t = tail->items[i];
        sm_array_push(&edges, ((ep_token_edge){tail_first + i, tail_first + i + 1, {t.terminals[0], t.terminals[1]},
                                               t.count}));
    }
    uint32_t join = plan->has_tail ? tail_first + n2 - shared : own;
    for (uint32_t i = 0; i < nb; i++) {
        ep_token t = block->items[i];
        uint32_t from = i < own ? i : join + (i - own);
        uint32_t to = i + 1 < own ? i + 1 : join + (i + 1 - own);
        if (i >= own && plan->has_tail)
            continue; /* shared with the tail's chain */
        sm_array_push(&edges, ((ep_token_edge){from, to, {t.terminals[0], t.terminals[1]}, t.count}));
    }
    uint32_t cursors[2], count = 0;
    if (plan->has_tail)
        cursors[count++] = tail_first;
    if (plan->has_block)
        cursors[count++] = own ? 0 : join;
    uint32_t found[2] = {EP_NONE, EP_NONE};
    /* without a tail, the block path's quotient joins the grammar itself */
    uint32_t extra = plan->has_tail ? EP_NONE : grammar->start_symbol;
    int rc = ep_quotient_build_multi(grammar, nodes, edges.items, edges.size, cursors, count, extra, out, found);
    sm_array_free(&edges);
    starts[0] = plan->has_tail ? found[0] : EP_NONE;
    starts[1] = plan->has_block ? found[count - 1] : EP_NONE;
    return rc;
}

/* Opens a fill-in-the-middle recognizer for a grammar with a layout: the
 * quotient stands for the right context from its first usable top-level
 * line on, and the text before that line (right_head) is fed after the
 * middle when asking can_end, so that tokens crossing the cursor, the
 * bracket depth and the indentation are those of the real file.  The block
 * path (see ep_recognizer) is planned here too, from the left context's
 * layout, and built in the same automaton. */
static int ep__new_fim_layout(const ep_grammar *grammar, const char *left, size_t left_len, const char *right,
                              size_t right_len, ep_recognizer **out)
{
    ep_indent stack[EP_MAX_INDENT + 1];
    uint32_t levels = 0, depth = 0;
    bool left_lexes = ep__layout_after(grammar, left, left_len, stack, &levels, &depth);
    ep_fim_plan plan;
    memset(&plan, 0, sizeof plan);
    ep_grammar *quotient = NULL;
    uint32_t starts[2] = {EP_NONE, EP_NONE};
    size_t split = right_len, block_split = 0;
    size_t at = 0;
    int rc = SM_OK;
    for (int tries = 0; tries <= 8 && !quotient && rc == SM_OK; tries++) {
        at = tries < 8 ? ep__next_top_level_line(right, right_len, at) : right_len;
        plan.tail.size = plan.block.size = 0;
        plan.has_tail = at < right_len;
        if (plan.has_tail && ep__tokenize_from(grammar, right + at, right_len - at, NULL, 0, &plan.tail) != SM_OK) {
            at++;
            continue;
        }
        /* the block path: when the left context ends inside a block and
         * the head is long enough to be worth it */
        size_t limit = plan.has_tail ? at : right_len;
        plan.has_block = false;
        if (left_lexes && levels > 0 && limit > EP_BLOCK_PATH_MIN) {
            block_split = ep__next_block_line(right, limit, stack[levels - 1].col, stack[levels - 1].altcol, depth);
            plan.has_block = block_split < limit &&
                             ep__tokenize_from(grammar, right + block_split, right_len - block_split, stack, levels,
                                               &plan.block) == SM_OK;
        }
        if (!plan.has_tail && !plan.has_block)
            break;
        rc = ep__build_plan(grammar, &plan, &quotient, starts);
        if (rc == SM_OK && plan.has_tail && !ep__has_rules(quotient, starts[0])) {
            ep_grammar_free(quotient);
            quotient = NULL;
            at++;
        }
    }
    sm_array_free(&plan.tail);
    sm_array_free(&plan.block);
    if (rc)
        return rc;
    if (quotient && plan.has_tail)
        split = at;
    bool tail = quotient && plan.has_tail;
    bool block = quotient && plan.has_block && ep__has_rules(quotient, starts[1]);
    if (quotient && !tail && !block) {
        ep_grammar_free(quotient);
        quotient = NULL;
    }
    rc = ep_recognizer_new(quotient ? quotient : grammar, out);
    ep_recognizer *rec = *out;
    rec->owned_grammar = quotient;
    rec->base = grammar;
    rec->tail_split = tail;
    rec->accept_symbol = tail ? starts[0] : grammar->start_symbol;
    rec->right_head = sm_malloc(right_len + 1);
    memcpy(rec->right_head, right, right_len);
    rec->right_head[right_len] = '\0';
    rec->right_head_len = split;
    rec->right_whole = rec->right_head;
    rec->right_len = right_len;
    if (block) {
        rec->block_path = true;
        rec->block_symbol = starts[1];
        rec->block_split = block_split;
        for (uint32_t i = 0; i < levels; i++)
            sm_array_push(&rec->block_stack, stack[i]);
    }
    return rc;
}

int ep_recognizer_new_fim(const ep_grammar *grammar, const char *left, size_t left_len, const char *right,
                          size_t right_len, ep_recognizer **out)
{
    *out = NULL;
    if (!sm_utf8_valid((const uint8_t *)right, right_len, false, NULL))
        return SM_EUTF8;
    int rc;
    if (grammar->layout != EP_LAYOUT_NONE) {
        rc = ep__new_fim_layout(grammar, left, left_len, right, right_len, out);
    } else {
        ep_grammar *quotient;
        rc = ep_quotient_build(grammar, right, right_len, &quotient);
        if (rc)
            return rc;
        rc = ep_recognizer_new(quotient, out);
        if (rc) {
            ep_grammar_free(quotient);
            return rc;
        }
        (*out)->owned_grammar = quotient;
    }
    if (rc)
        return rc;
    rc = ep_feed(*out, left, left_len);
    if (rc < 0) {
        ep_recognizer_free(*out);
        *out = NULL;
        return rc;
    }
    return SM_OK;
}

/* A recognizer that records tokens instead of parsing them, positioned at
 * a line start of a file whose indentation stack (bottom first, without
 * the column-0 bottom) is `stack`. */
static ep_recognizer *ep__capture_new(const ep_grammar *grammar, const ep_indent *stack, uint32_t levels)
{
    ep_recognizer *rec;
    ep_recognizer_new(grammar, &rec);
    rec->capture = true;
    rec->run.dead = false;
    for (uint32_t i = 0; i < levels; i++) {
        ep_indent level = {stack[i].col, stack[i].altcol, rec->run.indent, i + 1};
        sm_array_push(&rec->indents, level);
        rec->run.indent = rec->indents.size - 1;
    }
    return rec;
}

/* Feeds text to a capturing recognizer; false when it does not lex. */
static bool ep__capture_feed(ep_recognizer *rec, const char *text, size_t len)
{
    if (len > EP_MAX_TEXT || !sm_utf8_valid((const uint8_t *)text, len, false, NULL))
        return false;
    uint32_t at = rec->text.size;
    if (len) {
        sm_array_grow_by(&rec->text, (uint32_t)len);
        memcpy(rec->text.items + at, text, len);
    }
    bool ok = true;
    for (uint32_t i = at; i < rec->text.size && ok; i++)
        ok = ep__feed_byte(rec, &rec->run, i);
    return ok;
}

/* Tokenizes `text` as the rest of a file whose indentation stack (bottom
 * first, without the column-0 bottom) is `stack`, starting at a line start;
 * see ep_tokenize. */
static int ep__tokenize_from(const ep_grammar *grammar, const char *text, size_t len, const ep_indent *stack,
                             uint32_t levels, ep_tokens *out)
{
    ep_recognizer *rec = ep__capture_new(grammar, stack, levels);
    bool ok = ep__capture_feed(rec, text, len) && ep__run_can_end(rec, &rec->run, (uint32_t)len);
    if (ok)
        for (uint32_t i = 0; i < rec->captured.size; i++)
            sm_array_push(out, rec->captured.items[i]);
    ep_recognizer_free(rec);
    return ok ? SM_OK : SM_EINVAL;
}

int ep_tokenize(const ep_grammar *grammar, const char *text, size_t len, ep_tokens *out)
{
    return ep__tokenize_from(grammar, text, len, NULL, 0, out);
}

/* The indentation stack of a run, bottom first, without the column-0
 * bottom. */
static void ep__stack_of(const ep_recognizer *rec, const ep_run *run, ep_indent *out, uint32_t *levels)
{
    uint32_t n = rec->indents.items[run->indent].level;
    *levels = n;
    for (uint32_t at = run->indent; n > 0; at = rec->indents.items[at].parent)
        out[--n] = rec->indents.items[at];
}

static bool ep__layout_after(const ep_grammar *grammar, const char *left, size_t len, ep_indent *stack,
                             uint32_t *levels, uint32_t *depth)
{
    ep_recognizer *rec = ep__capture_new(grammar, NULL, 0);
    bool ok = ep__capture_feed(rec, left, len);
    if (ok) {
        ep__stack_of(rec, &rec->run, stack, levels);
        *depth = rec->run.depth;
    }
    ep_recognizer_free(rec);
    return ok;
}

/* Where the right context has its first line at column `col` (with
 * `altcol`): a line start (not the first) whose first byte after its
 * indentation begins a token, not joined to the line before and outside
 * brackets, before `limit`.  `depth` is the bracket depth at the cursor;
 * brackets are counted outside strings and comments by a rough scan (a
 * wrong guess only costs speed: can_end checks that the program reaches
 * the line at a line start outside brackets before it uses the path).
 * Returns `limit` if there is none. */
static size_t ep__next_block_line(const char *right, size_t limit, uint32_t col, uint32_t altcol, uint32_t depth)
{
    char quote = 0;
    bool triple = false, comment = false;
    for (size_t i = 0; i < limit; i++) {
        char ch = right[i];
        if (i > 0 && depth == 0 && !quote) {
            char prev = right[i - 1];
            if (prev == '\n' || (prev == '\r' && ch != '\n')) {
                size_t brk = prev == '\n' && i >= 2 && right[i - 2] == '\r' ? i - 2 : i - 1;
                if (!(brk > 0 && right[brk - 1] == '\\')) {
                    uint32_t c = 0, a = 0;
                    size_t j = i;
                    for (; j < limit && (right[j] == ' ' || right[j] == '\t'); j++) {
                        c = right[j] == ' ' ? c + 1 : (c / 8 + 1) * 8;
                        a++;
                    }
                    if (j < limit && right[j] != '\r' && right[j] != '\n' && right[j] != '#' && right[j] != '\\' &&
                        right[j] != '\f' && c == col && a == altcol)
                        return i;
                }
            }
        }
        if (comment) {
            comment = ch != '\n' && ch != '\r';
            continue;
        }
        if (quote) {
            if (ch == '\\') {
                i++;
            } else if (ch == quote) {
                if (!triple)
                    quote = 0;
                else if (i + 2 < limit && right[i + 1] == quote && right[i + 2] == quote) {
                    quote = 0;
                    i += 2;
                }
            } else if ((ch == '\n' || ch == '\r') && !triple) {
                quote = 0;
            }
            continue;
        }
        if (ch == '#') {
            comment = true;
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
            triple = i + 2 < limit && right[i + 1] == ch && right[i + 2] == ch;
            if (triple)
                i += 2;
        } else if (ch == '(' || ch == '[' || ch == '{') {
            depth++;
        } else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return limit;
}

void ep_recognizer_free(ep_recognizer *rec)
{
    if (!rec)
        return;
    ep_earley_free(&rec->earley);
    ep_grammar_free(rec->owned_grammar);
    sm_free(rec->right_head);
    sm_array_free(&rec->block_stack);
    sm_array_free(&rec->captured);
    sm_array_free(&rec->text);
    sm_array_free(&rec->indents);
    sm_array_free(&rec->saves);
    sm_free(rec);
}

/* ---- Layout ------------------------------------------------------------- */

/* Scans a token (one or two alternative terminals) into the run's chart;
 * false if the parser refuses.  When tokenizing, records it instead. */
static bool ep__scan_token(ep_recognizer *rec, ep_run *run, const uint32_t *terminals, uint32_t count)
{
    if (rec->capture) {
        ep_token token = {{terminals[0], count > 1 ? terminals[1] : EP_NONE}, count};
        sm_array_push(&rec->captured, token);
        return true;
    }
    uint32_t next = ep_earley_scan(&rec->earley, run->chart, terminals, count);
    if (next == EP_NONE)
        return false;
    run->chart = next;
    return true;
}

/* Scans one terminal into the run's chart; false if the parser refuses. */
static bool ep__scan(ep_recognizer *rec, ep_run *run, uint32_t terminal)
{
    return ep__scan_token(rec, run, &terminal, 1);
}

/* Measures the indentation of the logical line whose first token starts at
 * `at` as CPython 3.11's tokenizer does: spaces and tabs (tab stops of 8 for
 * `col`, of 1 for `altcol`), a form feed resetting both, and backslash
 * joins read as part of the leading whitespace.  The column at the first
 * join, if it is not 0, is the line's indentation; otherwise counting goes
 * on across the joined lines. */
static void ep__measure_indent(const ep_recognizer *rec, const ep_run *run, uint32_t at,
                               uint32_t *col, uint32_t *altcol)
{
    *col = *altcol = 0;
    uint32_t cont_line_col = 0;
    for (uint32_t i = run->line_start; i < at; i++) {
        char c = rec->text.items[i];
        if (c == ' ') {
            (*col)++;
            (*altcol)++;
        } else if (c == '\t') {
            *col = (*col / 8 + 1) * 8;
            (*altcol)++;
        } else if (c == '\f') {
            *col = *altcol = 0;
        } else if (c == '\\') {
            if (!cont_line_col)
                cont_line_col = *col;
            if (i + 1 < at && rec->text.items[i + 1] == '\r')
                i++;
            if (i + 1 < at && rec->text.items[i + 1] == '\n')
                i++;
        } else {
            break;
        }
    }
    if (cont_line_col)
        *col = *altcol = cont_line_col;
}

/* Sends INDENT or DEDENTs for the first token of a logical line, starting
 * at `at`.  False on inconsistent indentation or when the parser refuses. */
static bool ep__apply_indentation(ep_recognizer *rec, ep_run *run, uint32_t at)
{
    uint32_t col, altcol;
    ep__measure_indent(rec, run, at, &col, &altcol);
    ep_indent top = rec->indents.items[run->indent];
    if (col == top.col)
        return altcol == top.altcol;
    if (col > top.col) {
        if (altcol <= top.altcol || top.level + 1 >= EP_MAX_INDENT)
            return false;
        ep_indent pushed = {col, altcol, run->indent, top.level + 1};
        sm_array_push(&rec->indents, pushed);
        run->indent = rec->indents.size - 1;
        return ep__scan(rec, run, rec->grammar->t_indent);
    }
    while (col < rec->indents.items[run->indent].col) {
        run->indent = rec->indents.items[run->indent].parent;
        if (!ep__scan(rec, run, rec->grammar->t_dedent))
            return false;
    }
    top = rec->indents.items[run->indent];
    return col == top.col && altcol == top.altcol;
}

/* Whether a token that starts with the automaton in state `state` is a real
 * token (not whitespace, a comment, a line break or a join). */
static bool ep__starts_real_token(const ep_grammar *g, uint32_t state)
{
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, state);
    for (uint32_t w = 0; w < g->lex_words; w++) {
        uint64_t bits = reachable[w];
        for (; bits; bits &= bits - 1) {
            uint32_t lex = w * 64 + (uint32_t)__builtin_ctzll(bits);
            uint8_t kind = g->lexemes[lex].kind;
            if (kind == EP_LEX_TOKEN || kind == EP_LEX_ERROR)
                return true;
        }
    }
    return false;
}

/* ---- Tokens ------------------------------------------------------------- */

/* Hands a finished token to the layout and the parser. */
static bool ep__commit(ep_recognizer *rec, ep_run *run, int32_t lexeme, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    if (lexeme < 0)
        return false;
    const ep_lexeme *lex = &g->lexemes[lexeme];
    bool python = g->layout == EP_LAYOUT_PYTHON;
    switch (lex->kind) {
    case EP_LEX_ERROR:
        return false;
    case EP_LEX_IGNORE:
    case EP_LEX_COMMENT:
        /* a file may not end right after a backslash join, but anything
         * after the join, even a comment or spaces, is a line of its own */
        run->continued = false;
        return true;
    case EP_LEX_CONTINUATION:
        run->continued = true;
        return true;
    case EP_LEX_NEWLINE:
        run->continued = false;
        if (!python || run->depth > 0)
            return true;
        if (run->line_has_tokens && !ep__scan(rec, run, g->t_newline))
            return false;
        run->line_has_tokens = false;
        run->at_line_start = true;
        run->line_start = end;
        return true;
    default:
        break;
    }
    run->continued = false;
    /* f-string expressions are parsed with the compiled grammar, not with a
     * quotient derived from it */
    const ep_grammar *expressions = g->original ? g->original : g;
    if (lex->fstring && !ep_fstring_valid(expressions, rec->text.items + run->tok_start, end - run->tok_start))
        return false;
    uint32_t count = lex->terminals[1] == EP_NONE ? 1 : 2;
    if (!ep__scan_token(rec, run, lex->terminals, count))
        return false;
    run->line_has_tokens = true;
    run->at_line_start = false;
    if (python && lex->bracket == EP_BRACKET_OPEN) {
        if (++run->depth > EP_MAX_DEPTH)
            return false;
    } else if (python && lex->bracket == EP_BRACKET_CLOSE) {
        if (run->depth == 0)
            return false;
        run->depth--;
    }
    return true;
}

/* Ends the token in progress at its longest accepted prefix and lexes the
 * bytes after that prefix, up to `end`, again. */
static bool ep__commit_and_relex(ep_recognizer *rec, ep_run *run, uint32_t end)
{
    uint32_t relex_from = run->accept_end;
    if (relex_from == run->tok_start)
        return false; /* no lexeme accepts any prefix: a lexical error */
    if (!ep__commit(rec, run, run->accept_lexeme, relex_from))
        return false;
    run->dfa = EP_DFA_START;
    for (uint32_t i = relex_from; i < end; i++)
        if (!ep__feed_byte(rec, run, i))
            return false;
    return true;
}

/* Moves the run over the byte at text[at]. */
static bool ep__feed_byte(ep_recognizer *rec, ep_run *run, uint32_t at)
{
    const ep_grammar *g = rec->grammar;
    uint8_t byte = (uint8_t)rec->text.items[at];
    if (run->dfa == EP_DFA_START) {
        run->tok_start = at;
        run->accept_end = at;
        run->accept_lexeme = -1;
    }
    uint32_t next = ep_dfa_step(&g->dfa, run->dfa, byte);
    if (next == EP_DFA_DEAD) {
        if (run->dfa == EP_DFA_START)
            return false;
        return ep__commit_and_relex(rec, run, at + 1);
    }
    if (run->dfa == EP_DFA_START && g->layout == EP_LAYOUT_PYTHON && run->at_line_start &&
        run->depth == 0 && ep__starts_real_token(g, next)) {
        if (!ep__apply_indentation(rec, run, at))
            return false;
        run->at_line_start = false;
    }
    run->dfa = next;
    int32_t winner = g->dfa.winner[next];
    if (winner >= 0) {
        run->accept_end = at + 1;
        run->accept_lexeme = winner;
    }
    return true;
}

/* ---- Viability ---------------------------------------------------------- */

/* Whether the token in progress can still grow into a lexeme allowed here. */
static bool ep__can_grow(const ep_recognizer *rec, const ep_run *run)
{
    const ep_grammar *g = rec->grammar;
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, run->dfa);
    const uint64_t *allowed = ep_earley_allowed(&rec->earley, run->chart);
    bool newline_ok = g->layout != EP_LAYOUT_PYTHON || run->depth > 0 || !run->line_has_tokens ||
                      ep_earley_can_scan(&rec->earley, run->chart, g->t_newline);
    for (uint32_t w = 0; w < g->lex_words; w++) {
        uint64_t bits = reachable[w];
        if (bits & (allowed[w] | g->ignorable_lexemes[w]))
            return true;
        for (; bits && newline_ok; bits &= bits - 1) {
            uint32_t lex = w * 64 + (uint32_t)__builtin_ctzll(bits);
            if (g->lexemes[lex].kind == EP_LEX_NEWLINE)
                return true;
        }
    }
    return false;
}

static bool ep__run_viable(ep_recognizer *rec, const ep_run *run, uint32_t end);

/* The guarded branch: the token in progress ends at its longest accepted
 * prefix.  Checked on a copy and rolled back. */
static bool ep__shorter_token_viable(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    if (run->accept_end == run->tok_start || run->accept_end >= end)
        return false;
    ep_earley_mark mark = ep_earley_get_mark(&rec->earley);
    uint32_t indents = rec->indents.size;
    ep_run branch = *run;
    bool viable = ep__commit_and_relex(rec, &branch, end) && ep__run_viable(rec, &branch, end);
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    return viable;
}

static bool ep__run_viable(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    if (run->dead)
        return false;
    if (run->dfa == EP_DFA_START)
        return true;
    return ep__can_grow(rec, run) || ep__shorter_token_viable(rec, run, end);
}

/* Ends the text on a copy of the run: flushes the token in progress, then
 * (Python) the last NEWLINE, the DEDENTs and ENDMARKER. */
static bool ep__run_can_end(ep_recognizer *rec, ep_run *run, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    if (run->dead || rec->utf8_need)
        return false;
    while (run->dfa != EP_DFA_START) {
        if (!ep__commit_and_relex(rec, run, end))
            return false;
    }
    if (g->layout == EP_LAYOUT_PYTHON) {
        if (run->depth > 0 || run->continued)
            return false;
        if (run->line_has_tokens && !ep__scan(rec, run, g->t_newline))
            return false;
        while (rec->indents.items[run->indent].parent != EP_NONE) {
            run->indent = rec->indents.items[run->indent].parent;
            if (!ep__scan(rec, run, g->t_dedent))
                return false;
        }
        if (!ep__scan(rec, run, g->t_endmarker))
            return false;
    }
    return rec->capture || ep_earley_accepts_symbol(&rec->earley, run->chart, rec->accept_symbol);
}

/* ---- API ---------------------------------------------------------------- */

/* Checks that bytes continue valid UTF-8 and hold no NUL, advancing the
 * validation state only if they do. */
static bool ep__validate(ep_recognizer *rec, const uint8_t *bytes, size_t len)
{
    uint8_t need = rec->utf8_need, lo = rec->utf8_lo, hi = rec->utf8_hi;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = bytes[i];
        if (need) {
            if (b < lo || b > hi)
                return false;
            need--;
            lo = 0x80;
            hi = 0xBF;
            continue;
        }
        if (b == 0)
            return false;
        if (b < 0x80)
            continue;
        if (b >= 0xC2 && b <= 0xDF) {
            need = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            need = 2;
            if (b == 0xE0) lo = 0xA0;
            if (b == 0xED) hi = 0x9F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            need = 3;
            if (b == 0xF0) lo = 0x90;
            if (b == 0xF4) hi = 0x8F;
        } else {
            return false;
        }
    }
    rec->utf8_need = need;
    rec->utf8_lo = lo;
    rec->utf8_hi = hi;
    return true;
}

int ep_feed(ep_recognizer *rec, const char *bytes, size_t len)
{
    if (rec->text.size + len > EP_MAX_TEXT)
        return SM_ETOOBIG;
    if (!ep__validate(rec, (const uint8_t *)bytes, len))
        return SM_EUTF8;
    uint32_t at = rec->text.size;
    if (len == 0)
        return ep_viable(rec) ? 1 : 0;
    sm_array_grow_by(&rec->text, (uint32_t)len);
    memcpy(rec->text.items + at, bytes, len);
    for (uint32_t i = at; i < rec->text.size && !rec->run.dead; i++)
        if (!ep__feed_byte(rec, &rec->run, i))
            rec->run.dead = true;
    return ep_viable(rec) ? 1 : 0;
}

bool ep_viable(ep_recognizer *rec)
{
    return ep__run_viable(rec, &rec->run, rec->text.size);
}

/* Whether CPython would see one more line break at the end of the text:
 * its newline translation turns a final "\r\n" into "\n" and then, having
 * lost track of the last character, appends another "\n" (so a backslash
 * join may end a file only when its line break is "\r\n"). */
static bool ep__cpython_adds_newline(const ep_recognizer *rec)
{
    uint32_t n = rec->text.size;
    return rec->grammar->layout == EP_LAYOUT_PYTHON && n >= 2 && rec->text.items[n - 2] == '\r' &&
           rec->text.items[n - 1] == '\n';
}

/* The exact answer the slow way: a fresh recognizer on the base grammar
 * fed the left context, the middle and the whole right context. */
static bool ep__fim_can_end_slowly(const ep_recognizer *rec, uint32_t text_len)
{
    ep_recognizer *fresh;
    if (ep_recognizer_new(rec->base, &fresh))
        return false;
    bool ok = ep_feed(fresh, rec->text.items, text_len) >= 0 &&
              ep_feed(fresh, rec->right_whole, rec->right_len) == 1 && ep_can_end(fresh);
    ep_recognizer_free(fresh);
    return ok;
}

/* can_end of a fill-in-the-middle recognizer with a layout (see
 * ep__new_fim_layout), on a copy of the run that the caller rolls back. */
static bool ep__fim_can_end(ep_recognizer *rec, ep_run *run, uint32_t text_len)
{
    if (run->dead || rec->utf8_need)
        return false;
    for (size_t i = 0; i < rec->right_head_len; i++) {
        sm_array_push(&rec->text, rec->right_head[i]);
        if (!ep__feed_byte(rec, run, rec->text.size - 1))
            return false;
    }
    uint32_t end = rec->text.size;
    if (!rec->tail_split)
        return ep__run_can_end(rec, run, end);
    while (run->dfa != EP_DFA_START)
        if (!ep__commit_and_relex(rec, run, end))
            return ep__fim_can_end_slowly(rec, text_len);
    /* the tail was tokenized as a file of its own, starting at a top-level
     * line; if this program does not reach it at a line start outside
     * brackets, the split does not apply and the slow way decides */
    if (run->depth != 0 || run->continued || !run->at_line_start)
        return ep__fim_can_end_slowly(rec, text_len);
    run->line_start = end;
    return ep__apply_indentation(rec, run, end) && ep_earley_accepts_symbol(&rec->earley, run->chart, rec->accept_symbol);
}

/* can_end by the block path: 1 or 0 when the program reaches the block
 * path's line with the left context's indentation stack (then the answer is
 * exact), -1 when it does not and the other way must decide. */
static int ep__block_can_end(ep_recognizer *rec)
{
    const ep_recognizer *owner = rec;
    ep_earley_mark mark = ep_earley_get_mark(&rec->earley);
    uint32_t indents = rec->indents.size;
    uint32_t text_len = rec->text.size;
    ep_run run = rec->run;
    int answer = -1;
    bool fed = !run.dead && !rec->utf8_need;
    for (size_t i = 0; i < owner->block_split && fed; i++) {
        sm_array_push(&rec->text, owner->right_whole[i]);
        fed = ep__feed_byte(rec, &run, rec->text.size - 1);
    }
    uint32_t end = rec->text.size;
    while (fed && run.dfa != EP_DFA_START)
        fed = ep__commit_and_relex(rec, &run, end);
    if (fed && run.depth == 0 && !run.continued && run.at_line_start) {
        /* the line at the split is indented like the block the left context
         * ended in: levels above it close first, with their DEDENTs */
        const ep_indent *target = sm_array_back(&owner->block_stack);
        while (fed && rec->indents.items[run.indent].col > target->col) {
            run.indent = rec->indents.items[run.indent].parent;
            fed = ep__scan(rec, &run, rec->grammar->t_dedent);
        }
        ep_indent stack[EP_MAX_INDENT + 1];
        uint32_t levels = 0;
        if (fed)
            ep__stack_of(rec, &run, stack, &levels);
        bool same = fed && levels == owner->block_stack.size;
        for (uint32_t i = 0; same && i < levels; i++)
            same = stack[i].col == owner->block_stack.items[i].col &&
                   stack[i].altcol == owner->block_stack.items[i].altcol;
        if (same)
            answer = ep_earley_accepts_symbol(&rec->earley, run.chart, rec->block_symbol) ? 1 : 0;
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    rec->text.size = text_len;
    return answer;
}

bool ep_can_end(ep_recognizer *rec)
{
    if (rec->block_path) {
        int answer = ep__block_can_end(rec);
        if (answer >= 0)
            return answer == 1;
    }
    ep_earley_mark mark = ep_earley_get_mark(&rec->earley);
    uint32_t indents = rec->indents.size;
    uint32_t text_len = rec->text.size;
    ep_run run = rec->run;
    bool ok = true;
    if (rec->right_head) {
        ok = ep__fim_can_end(rec, &run, text_len);
    } else {
        if (ep__cpython_adds_newline(rec) && !run.dead) {
            sm_array_push(&rec->text, '\n');
            ok = ep__feed_byte(rec, &run, text_len);
        }
        ok = ok && ep__run_can_end(rec, &run, rec->text.size);
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    rec->text.size = text_len;
    return ok;
}

size_t ep_fed_bytes(const ep_recognizer *rec)
{
    return rec->text.size;
}

ep_savepoint ep_save(ep_recognizer *rec)
{
    ep_snapshot snap = {rec->run, ep_earley_get_mark(&rec->earley), rec->text.size,
                        rec->indents.size, rec->utf8_need, rec->utf8_lo, rec->utf8_hi};
    sm_array_push(&rec->saves, snap);
    return rec->saves.size - 1;
}

void ep_restore(ep_recognizer *rec, ep_savepoint point)
{
    if (point >= rec->saves.size)
        return;
    const ep_snapshot *snap = &rec->saves.items[point];
    rec->run = snap->run;
    ep_earley_reset_to(&rec->earley, snap->earley);
    rec->text.size = snap->text_len;
    rec->indents.size = snap->indents;
    rec->utf8_need = snap->utf8_need;
    rec->utf8_lo = snap->utf8_lo;
    rec->utf8_hi = snap->utf8_hi;
    rec->saves.size = point + 1;
}
