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
#include "ep_crossing.h"
#include "ep_earley.h"
#include "ep_recognizer.h"
#include "seam_pylex.h"
#include "ep_fstring.h"
#include "ep_quotient.h"

#include <string.h>

static bool ep__feed_byte(ep_recognizer *rec, ep_run *run, uint32_t at);

/* Drops the text after `len` (a rollback); what was checked of a string
 * literal in the dropped part is forgotten. */
static void ep__truncate_text(ep_recognizer *rec, uint32_t len)
{
    rec->text.size = len;
    if (rec->string_check.checked > len)
        rec->string_check.tok_start = UINT32_MAX;
}

static bool ep__run_can_end(ep_recognizer *rec, ep_run *run, uint32_t end);
static bool ep__commit_and_relex(ep_recognizer *rec, ep_run *run, uint32_t end);
static bool ep__scan(ep_recognizer *rec, ep_run *run, uint32_t terminal);
static bool ep__stack_is_left(const ep_recognizer *rec, const ep_run *run);

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
    rec->string_check.tok_start = UINT32_MAX;
    ep_modal_init(&rec->modal, ep_grammar_version(grammar));
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

/* The layout state a token sequence of the right context is read in: the
 * indentation stack (bottom first, without the column-0 bottom), the
 * bracket depth, and whether the text is at a line start. */
typedef struct ep_layout_state {
    ep_indent stack[EP_MAX_INDENT + 1];
    uint32_t levels;
    uint32_t depth;
    bool at_line_start;
} ep_layout_state;

static bool ep__layout_after(const ep_grammar *grammar, const char *left, size_t len, ep_layout_state *out);
static int ep__tokenize_from(const ep_grammar *grammar, const char *text, size_t len, const ep_indent *stack,
                             uint32_t levels, ep_tokens *out);
static bool ep__tokenize_path(const ep_grammar *grammar, const char *right, size_t from, size_t stop, size_t len,
                              const ep_layout_state *state, const ep_tokens *tail, ep_tokens *out);
static size_t ep__next_block_line(const char *right, size_t limit, uint32_t col, uint32_t altcol, uint32_t depth);
static ep_recognizer *ep__capture_new(const ep_grammar *grammar, const ep_layout_state *state);
static bool ep__capture_feed(ep_recognizer *rec, const char *text, size_t len);

/* ---- Planning the right context's quotients ------------------------------ */

/* The token sequences a layout recognizer builds quotients for: the tail
 * from the top-level split, the block path from the block line, and the
 * cursor paths from each place where the first lexeme after the cursor may
 * start.  They end alike (the others reach the tail's line and go on with
 * its tokens), so they are laid out as a trie of their reversed tokens:
 * one automaton whose last node is the end of the text, every shared end
 * parsed once. */
typedef struct ep_sequence {
    ep_tokens tokens;
    uint32_t start;          /* out: the quotient's start for this sequence */
} ep_sequence;

typedef struct ep_trie_node {
    uint32_t parent;         /* towards the end of the text; EP_NONE at the root */
    uint32_t first_child, next_sibling;
    ep_token token;          /* read from this node to its parent */
} ep_trie_node;

static bool ep__same_token(const ep_token *x, const ep_token *y)
{
    return x->count == y->count && x->terminals[0] == y->terminals[0] &&
           (x->count < 2 || x->terminals[1] == y->terminals[1]);
}

/* Builds one quotient for all sequences (a union, see
 * ep_quotient_build_multi; `union_extra` joins it too) and stores each
 * sequence's start symbol. */
static int ep__build_sequences(const ep_grammar *grammar, ep_sequence *seqs, uint32_t count, uint32_t union_extra,
                               ep_grammar **out)
{
    SM_ARRAY(ep_trie_node) trie;
    sm_array_init(&trie);
    sm_array_push(&trie, ((ep_trie_node){EP_NONE, EP_NONE, EP_NONE, {{0, 0}, 0}}));
    uint32_t *cursor_of = sm_malloc(count * sizeof(uint32_t));
    for (uint32_t q = 0; q < count; q++) {
        uint32_t node = 0;
        for (uint32_t k = seqs[q].tokens.size; k-- > 0;) {
            const ep_token *t = &seqs[q].tokens.items[k];
            uint32_t child = trie.items[node].first_child;
            while (child != EP_NONE && !ep__same_token(&trie.items[child].token, t))
                child = trie.items[child].next_sibling;
            if (child == EP_NONE) {
                child = trie.size;
                sm_array_push(&trie, ((ep_trie_node){node, EP_NONE, trie.items[node].first_child, *t}));
                trie.items[node].first_child = child;
            }
            node = child;
        }
        cursor_of[q] = node;
    }
    /* ids by breadth-first order from the root, decreasing, so that every
     * edge goes from a lower id to a higher one */
    uint32_t nodes = trie.size;
    uint32_t *order = sm_malloc(nodes * sizeof(uint32_t));
    uint32_t *id = sm_malloc(nodes * sizeof(uint32_t));
    uint32_t head = 0, tail = 0;
    order[tail++] = 0;
    while (head < tail) {
        uint32_t n = order[head++];
        id[n] = nodes - head;
        for (uint32_t c = trie.items[n].first_child; c != EP_NONE; c = trie.items[c].next_sibling)
            order[tail++] = c;
    }
    ep_token_edge *edges = sm_malloc((nodes > 1 ? nodes - 1 : 1) * sizeof *edges);
    for (uint32_t n = 1; n < nodes; n++) {
        const ep_token *t = &trie.items[n].token;
        edges[n - 1] = (ep_token_edge){id[n], id[trie.items[n].parent], {t->terminals[0], t->terminals[1]}, t->count};
    }
    uint32_t *cursors = sm_malloc(count * sizeof(uint32_t));
    uint32_t *starts = sm_malloc(count * sizeof(uint32_t));
    for (uint32_t q = 0; q < count; q++)
        cursors[q] = id[cursor_of[q]];
    int rc = ep_quotient_build_multi(grammar, nodes, edges, nodes - 1, cursors, count, union_extra, out, starts);
    for (uint32_t q = 0; q < count; q++)
        seqs[q].start = rc == SM_OK ? starts[q] : EP_NONE;
    sm_free(starts);
    sm_free(cursors);
    sm_free(edges);
    sm_free(id);
    sm_free(order);
    sm_free(cursor_of);
    sm_array_free(&trie);
    return rc;
}

/* The offsets in the right context where the first lexeme after the
 * cursor may start: 0, and every place where a lexeme that the middle
 * starts can end on the right context's first line (ep_crossing_indices),
 * nearest first, at most EP_CURSOR_PATHS. */
static uint32_t ep__cursor_offsets(const ep_grammar *g, const char *right, size_t len, uint32_t *out)
{
    size_t line = 0;
    while (line < len && line < EP_CURSOR_REACH && right[line] != '\n' && right[line] != '\r')
        line++;
    uint32_t count = 0;
    out[count++] = 0;
    ep_crossings found;
    sm_array_init(&found);
    ep_crossing_indices(g, right, line, &found);
    for (uint32_t k = 0; k < found.size; k++) {
        uint32_t index = found.items[k].index;
        bool known = false;
        for (uint32_t i = 0; i < count && !known; i++)
            known = out[i] == index;
        if (known || index >= len)
            continue;
        /* keep the nearest */
        if (count == EP_CURSOR_PATHS) {
            uint32_t far = 1;
            for (uint32_t i = 2; i < count; i++)
                if (out[i] > out[far])
                    far = i;
            if (out[far] <= index)
                continue;
            out[far] = index;
        } else {
            out[count++] = index;
        }
    }
    sm_array_free(&found);
    return count;
}

/* The bracket depth that right[from..stop) needs at its start: the most
 * closing brackets it has beyond its opening ones, lexed from `from`.
 * EP_NONE when it does not lex. */
static uint32_t ep__depth_needed(const ep_grammar *grammar, const char *right, size_t from, size_t stop)
{
    ep_layout_state *state = sm_calloc(1, sizeof *state);
    state->depth = EP_MAX_DEPTH / 2;
    ep_recognizer *rec = ep__capture_new(grammar, state);
    sm_free(state);
    rec->min_depth = EP_MAX_DEPTH / 2;
    bool ok = ep__capture_feed(rec, right + from, stop - from);
    ep_run run = rec->run;
    while (ok && run.dfa != EP_DFA_START)
        ok = ep__commit_and_relex(rec, &run, rec->text.size);
    uint32_t needed = EP_MAX_DEPTH / 2 - rec->min_depth;
    ep_recognizer_free(rec);
    return ok ? needed : EP_NONE;
}

/* Opens a fill-in-the-middle recognizer for a grammar with a layout.  The
 * quotient stands for the right context from its first usable top-level
 * line on (the tail), and the text before that line (right_head) is fed
 * after the middle when asking can_end, so that tokens crossing the cursor,
 * the bracket depth and the indentation are those of the real file.  Two
 * kinds of faster ways to can_end are built in the same automaton, from the
 * left context's layout: the block path and the cursor paths (see
 * ep_recognizer). */
static int ep__new_fim_layout(const ep_grammar *grammar, const char *left, size_t left_len, const char *right,
                              size_t right_len, ep_recognizer **out)
{
    ep_layout_state *left_state = sm_malloc(sizeof *left_state);
    bool left_lexes = ep__layout_after(grammar, left, left_len, left_state);
    uint32_t offsets[EP_CURSOR_PATHS], depths[EP_CURSOR_PATHS];
    uint32_t offset_count = left_lexes ? ep__cursor_offsets(grammar, right, right_len, offsets) : 0;
    /* sequences: [0] the tail, [1] the block path, [2..] the cursor paths */
    ep_sequence seqs[2 + EP_CURSOR_PATHS];
    bool used[2 + EP_CURSOR_PATHS];
    memset(seqs, 0, sizeof seqs);
    ep_grammar *quotient = NULL;
    size_t split = right_len, block_split = 0, at = 0;
    int rc = SM_OK;
    for (int tries = 0; tries <= 8 && !quotient && rc == SM_OK; tries++) {
        at = tries < 8 ? ep__next_top_level_line(right, right_len, at) : right_len;
        for (uint32_t q = 0; q < 2 + EP_CURSOR_PATHS; q++)
            seqs[q].tokens.size = 0;
        memset(used, 0, sizeof used);
        used[0] = at < right_len;
        if (used[0] && ep__tokenize_from(grammar, right + at, right_len - at, NULL, 0, &seqs[0].tokens) != SM_OK) {
            at++;
            continue;
        }
        const ep_tokens *tail = used[0] ? &seqs[0].tokens : NULL;
        size_t stop = used[0] ? at : right_len;
        /* the block path: when the left context ends inside a block and
         * the head is long enough to be worth it */
        if (left_lexes && left_state->levels > 0 && stop > EP_BLOCK_PATH_MIN) {
            const ep_indent *top = &left_state->stack[left_state->levels - 1];
            block_split = ep__next_block_line(right, stop, top->col, top->altcol, left_state->depth);
            ep_layout_state *line = sm_malloc(sizeof *line);
            *line = *left_state;
            line->depth = 0;
            line->at_line_start = true;
            used[1] = block_split < stop && ep__tokenize_path(grammar, right, block_split, stop, right_len, line,
                                                               tail, &seqs[1].tokens);
            sm_free(line);
        }
        /* the cursor paths: the left context's indentation, mid-line, at the
         * bracket depth the right context closes down to zero */
        ep_layout_state *mid = sm_malloc(sizeof *mid);
        *mid = *left_state;
        mid->at_line_start = false;
        for (uint32_t k = 0; k < offset_count; k++) {
            depths[k] = offsets[k] < stop ? ep__depth_needed(grammar, right, offsets[k], stop) : EP_NONE;
            mid->depth = depths[k];
            used[2 + k] = depths[k] != EP_NONE && ep__tokenize_path(grammar, right, offsets[k], stop, right_len,
                                                                     mid, tail, &seqs[2 + k].tokens);
        }
        sm_free(mid);
        ep_sequence chosen[2 + EP_CURSOR_PATHS];
        uint32_t count = 0;
        for (uint32_t q = 0; q < 2 + EP_CURSOR_PATHS; q++)
            if (used[q])
                chosen[count++] = seqs[q];
        if (count == 0)
            break;
        /* without a tail, the quotients join the grammar itself */
        rc = ep__build_sequences(grammar, chosen, count, used[0] ? EP_NONE : grammar->start_symbol, &quotient);
        for (uint32_t q = 0, c = 0; q < 2 + EP_CURSOR_PATHS; q++)
            seqs[q].start = used[q] ? chosen[c++].start : EP_NONE;
        if (rc == SM_OK && used[0] && !ep__has_rules(quotient, seqs[0].start)) {
            ep_grammar_free(quotient);
            quotient = NULL;
            at++;
        }
    }
    for (uint32_t q = 0; q < 2 + EP_CURSOR_PATHS; q++)
        sm_array_free(&seqs[q].tokens);
    if (rc) {
        sm_free(left_state);
        return rc;
    }
    bool tail = quotient && used[0];
    if (tail)
        split = at;
    bool block = quotient && used[1] && ep__has_rules(quotient, seqs[1].start);
    uint32_t paths = 0;
    for (uint32_t k = 0; quotient && k < offset_count; k++)
        paths += used[2 + k] && ep__has_rules(quotient, seqs[2 + k].start);
    if (quotient && !tail && !block && !paths) {
        ep_grammar_free(quotient);
        quotient = NULL;
    }
    rc = ep_recognizer_new(quotient ? quotient : grammar, out);
    ep_recognizer *rec = *out;
    rec->owned_grammar = quotient;
    rec->base = grammar;
    rec->tail_split = tail;
    rec->accept_symbol = tail ? seqs[0].start : grammar->start_symbol;
    rec->right_head = sm_malloc(right_len + 1);
    memcpy(rec->right_head, right, right_len);
    rec->right_head[right_len] = '\0';
    rec->right_head_len = split;
    rec->right_whole = rec->right_head;
    rec->right_len = right_len;
    if (block || paths) {
        for (uint32_t i = 0; i < left_state->levels; i++)
            sm_array_push(&rec->left_stack, left_state->stack[i]);
    }
    if (block) {
        rec->block_path = true;
        rec->block_symbol = seqs[1].start;
        rec->block_split = block_split;
    }
    for (uint32_t k = 0; quotient && k < offset_count; k++) {
        if (!used[2 + k] || !ep__has_rules(quotient, seqs[2 + k].start))
            continue;
        ep_cursor_path *path = &rec->cursor_paths[rec->cursor_path_count++];
        path->offset = offsets[k];
        path->depth = depths[k];
        path->symbol = seqs[2 + k].start;
        if (offsets[k] + 1 > rec->cursor_reach)
            rec->cursor_reach = offsets[k] + 1;
    }
    sm_free(left_state);
    return rc;
}

int ep_recognizer_new_fim(const ep_grammar *grammar, const char *left, size_t left_len, const char *right,
                          size_t right_len, ep_recognizer **out)
{
    *out = NULL;
    if (!sm_utf8_valid((const uint8_t *)right, right_len, false, NULL))
        return SM_EUTF8;
    int rc;
    if (right_len == 0) {
        /* The quotient by nothing is the grammar itself: the end of the
         * text is the program's. */
        rc = ep_recognizer_new(grammar, out);
    } else if (grammar->layout != EP_LAYOUT_NONE) {
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

/* A recognizer that records tokens instead of parsing them, in the layout
 * state `state` (NULL: the start of a file). */
static ep_recognizer *ep__capture_new(const ep_grammar *grammar, const ep_layout_state *state)
{
    ep_recognizer *rec;
    ep_recognizer_new(grammar, &rec);
    rec->capture = true;
    rec->run.dead = false;
    if (!state)
        return rec;
    for (uint32_t i = 0; i < state->levels; i++) {
        ep_indent level = {state->stack[i].col, state->stack[i].altcol, rec->run.indent, i + 1};
        sm_array_push(&rec->indents, level);
        rec->run.indent = rec->indents.size - 1;
    }
    rec->run.depth = state->depth;
    rec->run.at_line_start = state->at_line_start;
    /* mid-line, the line holds a token already (see ep__cursor_can_end) */
    rec->run.line_has_tokens = !state->at_line_start;
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
    ep_layout_state *state = NULL;
    if (levels) {
        state = sm_calloc(1, sizeof *state);
        memcpy(state->stack, stack, levels * sizeof *stack);
        state->levels = levels;
        state->at_line_start = true;
    }
    ep_recognizer *rec = ep__capture_new(grammar, state);
    sm_free(state);
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

/* Tokenizes right[from..len) read in layout state `state`.  When `tail`
 * is given (the tokens of right[stop..len) read as a file of its own, stop
 * being a top-level line), the text is lexed only up to stop: if the
 * program reaches stop at a line start outside brackets, the rest is the
 * DEDENTs down to column 0 and the tail's tokens; otherwise all of it is
 * lexed.  False when the text does not lex in that state. */
static bool ep__tokenize_path(const ep_grammar *grammar, const char *right, size_t from, size_t stop, size_t len,
                              const ep_layout_state *state, const ep_tokens *tail, ep_tokens *out)
{
    ep_recognizer *rec = ep__capture_new(grammar, state);
    bool ok = ep__capture_feed(rec, right + from, (tail ? stop : len) - from);
    bool joined = false;
    if (ok && tail) {
        ep_run run = rec->run;
        uint32_t end = rec->text.size;
        uint32_t captured = rec->captured.size;
        bool flushed = true;
        while (flushed && run.dfa != EP_DFA_START)
            flushed = ep__commit_and_relex(rec, &run, end);
        if (flushed && run.depth == 0 && !run.continued && run.at_line_start) {
            for (uint32_t at = run.indent; rec->indents.items[at].parent != EP_NONE; at = rec->indents.items[at].parent)
                ep__scan(rec, &run, grammar->t_dedent);
            for (uint32_t i = 0; i < tail->size; i++)
                sm_array_push(&rec->captured, tail->items[i]);
            joined = true;
        } else {
            rec->captured.size = captured;
            ok = ep__capture_feed(rec, right + stop, len - stop);
        }
    }
    if (ok && !joined)
        ok = ep__run_can_end(rec, &rec->run, rec->text.size);
    if (ok)
        for (uint32_t i = 0; i < rec->captured.size; i++)
            sm_array_push(out, rec->captured.items[i]);
    ep_recognizer_free(rec);
    return ok;
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

/* The layout of a left context, found by lexing it alone.  False when it
 * does not lex. */
static bool ep__layout_after(const ep_grammar *grammar, const char *left, size_t len, ep_layout_state *out)
{
    ep_recognizer *rec = ep__capture_new(grammar, NULL);
    bool ok = ep__capture_feed(rec, left, len);
    if (ok) {
        ep__stack_of(rec, &rec->run, out->stack, &out->levels);
        out->depth = rec->run.depth;
        out->at_line_start = rec->run.at_line_start;
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
    if (rec && rec->fields)
        ep_recognizer_free(rec->fields);
    if (!rec)
        return;
    ep_earley_free(&rec->earley);
    ep_modal_free(&rec->modal);
    ep_grammar_free(rec->owned_grammar);
    sm_free(rec->right_head);
    sm_array_free(&rec->left_stack);
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

bool ep_has_brace(const char *token, size_t len)
{
    return memchr(token, '{', len) || memchr(token, '}', len);
}

bool ep_str_literal(const char *token, size_t len, bool *is_f, bool *raw)
{
    size_t prefix = 0;
    bool f = false, r = false;
    while (prefix < len && prefix < 2 && token[prefix] && strchr("fFrRuU", token[prefix])) {
        f |= token[prefix] == 'f' || token[prefix] == 'F';
        r |= token[prefix] == 'r' || token[prefix] == 'R';
        prefix++;
    }
    if (is_f)
        *is_f = f;
    if (raw)
        *raw = r;
    return prefix < len && (token[prefix] == '\'' || token[prefix] == '"');
}

/* The recognizer that parses f-string fields, made on first use; NULL only
 * if it cannot be made (then no f-string is accepted). */
static ep_recognizer *ep__fields(ep_recognizer *rec)
{
    if (!rec->fields) {
        const ep_grammar *g = rec->grammar;
        if (ep_recognizer_new(g->original ? g->original : g, &rec->fields) != SM_OK)
            return NULL;
        ep_save(rec->fields);
    }
    return rec->fields;
}

/* Hands a finished token to the layout and the parser. */
/* CPython refuses a decimal integer literal of more than 4,300 digits
 * (sys.int_info.default_max_str_digits, 3.11 and the 3.9 and 3.10
 * security releases) when it converts it; zeros alone are exempt. */
#define EP_MAX_INT_DIGITS 4300

static bool ep__int_too_long(const char *token, size_t len)
{
    if (len <= EP_MAX_INT_DIGITS)
        return false;
    size_t digits = 0;
    bool nonzero = false;
    for (size_t i = 0; i < len; i++) {
        if (token[i] == '_')
            continue;
        if (token[i] < '0' || token[i] > '9')
            return false;    /* a float, an imaginary or another base */
        digits++;
        nonzero |= token[i] != '0';
    }
    return nonzero && digits > EP_MAX_INT_DIGITS;
}

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
    const char *token = rec->text.items + run->tok_start;
    size_t from = 0;
    if (python && !px_name_valid(token, end - run->tok_start))
        return false; /* a character CPython does not allow in a name */
    /* f-string expressions are parsed with the compiled grammar, not with a
     * quotient derived from it */
    if (ep_modal_token(rec, run->tok_start, end)) {
        if (!ep_modal_valid(rec, ep__fields(rec), run->tok_start, end, true))
            return false;
    } else if (lex->fstring && (!px_escapes_valid(token, end - run->tok_start, true, &from) ||
                         (ep_has_brace(token, end - run->tok_start) &&
                          (!ep__fields(rec) || !ep_fstring_valid(rec->fields, token, end - run->tok_start)))))
        return false;
    if (python && lex->terminals[0] == g->t_number && g->t_number != EP_NONE &&
        ep__int_too_long(token, end - run->tok_start))
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
        if (rec->capture && run->depth < rec->min_depth)
            rec->min_depth = run->depth;
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

/* Moves the run over text[at], a byte of an f- or t-string past its
 * opening quote (Python 3.12+): the string's scanner says whether the byte
 * belongs to it, closes it or breaks it, and only a closed string is an
 * accepted prefix (CPython's tokenizer is committed to the string from its
 * opening quote on). */
static bool ep__feed_modal(ep_recognizer *rec, ep_run *run, uint32_t at)
{
    const ep_grammar *g = rec->grammar;
    int status = ep_modal_step(rec, run->tok_start, at);
    if (status == PX_FS_PAST)
        return ep__commit_and_relex(rec, run, at + 1);
    if (status == PX_FS_ERROR)
        return false;
    uint32_t next = ep_dfa_step(&g->dfa, run->dfa, (uint8_t)rec->text.items[at]);
    if (next == EP_DFA_DEAD)
        return false;
    run->dfa = next;
    int32_t winner = g->dfa.winner[next];
    if (status == PX_FS_CLOSED && winner >= 0 && g->lexemes[winner].fstring) {
        run->accept_end = at + 1;
        run->accept_lexeme = winner;
    } else {
        run->accept_end = run->tok_start;
        run->accept_lexeme = -1;
    }
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
    } else if (ep_modal_token(rec, run->tok_start, at)) {
        return ep__feed_modal(rec, run, at);
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
bool ep_run_can_grow(const ep_recognizer *rec, const ep_run *run)
{
    const ep_grammar *g = rec->grammar;
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, run->dfa);
    const uint64_t *allowed = ep_earley_allowed(&rec->earley, run->chart);
    bool newline_ok = g->layout != EP_LAYOUT_PYTHON || run->depth > 0 || !run->line_has_tokens ||
                      ep_earley_can_scan(&rec->earley, run->chart, g->t_newline);
    for (uint32_t w = 0; w < g->lex_words; w++) {
        uint64_t bits = reachable[w];
        if (bits & allowed[w])
            return true;
        /* a comment runs to the line's end: outside brackets, only where
         * the logical line may end (CPython refuses "x = #note" at its line
         * break, where nothing can help any more) */
        for (uint64_t skip = bits & g->ignorable_lexemes[w]; skip; skip &= skip - 1) {
            uint32_t lex = w * 64 + (uint32_t)__builtin_ctzll(skip);
            if (newline_ok || g->lexemes[lex].kind != EP_LEX_COMMENT)
                return true;
        }
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

/* Whether the token in progress can still become a valid one as far as
 * CPython's checks beyond the lexer's patterns go: a name's characters, a
 * str literal's "\N{...}" names and an f-string's fields, each checked as
 * far as it has been typed, so that a broken one is refused where it breaks,
 * not when the token ends. */
bool ep_run_token_so_far(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    const char *token = rec->text.items + run->tok_start;
    uint32_t len = end - run->tok_start;
    if (rec->capture || g->layout != EP_LAYOUT_PYTHON)
        return true;
    /* an opening bracket past CPython's nesting limit is refused where it
     * is typed, not when the next character ends its token */
    if (run->accept_end == end && run->accept_lexeme >= 0 &&
        g->lexemes[run->accept_lexeme].bracket == EP_BRACKET_OPEN && run->depth >= EP_MAX_DEPTH)
        return false;
    if (!px_name_valid(token, len))
        return false;
    if (ep_modal_token(rec, run->tok_start, end))
        return ep_modal_valid(rec, ep__fields(rec), run->tok_start, end, false);
    if (!ep_str_literal(token, len, NULL, NULL))
        return true;
    bool finished = run->accept_end == end && run->accept_lexeme >= 0 && g->lexemes[run->accept_lexeme].fstring;
    ep_string_check *seen = &rec->string_check;
    if (seen->tok_start != run->tok_start || seen->checked > end) {
        seen->tok_start = run->tok_start;
        seen->escapes = seen->fields = 0;
    }
    size_t escapes = seen->escapes, fields = seen->fields;
    bool ok = px_escapes_valid(token, len, finished, &escapes);
    if (ok && ep_has_brace(token, len)) {
        ep_recognizer *parser = ep__fields(rec);
        ok = parser && (finished ? ep_fstring_valid(parser, token, len)
                                 : ep_fstring_prefix_valid(parser, token, len, &fields));
    }
    seen->escapes = (uint32_t)escapes;
    seen->fields = (uint32_t)fields;
    seen->checked = run->tok_start + (uint32_t)(escapes > fields ? escapes : fields);
    return ok;
}

static bool ep__run_viable(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    if (run->dead)
        return false;
    if (run->dfa == EP_DFA_START)
        return true;
    return (ep_run_can_grow(rec, run) && ep_run_token_so_far(rec, run, end)) || ep__shorter_token_viable(rec, run, end);
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
    for (size_t i = 0; i < len; i++)
        if (!ep_utf8_next(&need, &lo, &hi, bytes[i]))
            return false;
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

bool ep_end_token(ep_recognizer *rec)
{
    ep_run *run = &rec->run;
    if (run->dead)
        return false;
    if (run->dfa != EP_DFA_START && !ep__commit_and_relex(rec, run, rec->text.size))
        run->dead = true;
    return !run->dead;
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
static bool ep__fim_can_end_slowly(ep_recognizer *rec, uint32_t text_len)
{
    rec->can_end_ways[EP_CAN_END_HEAD]--;
    rec->can_end_ways[EP_CAN_END_WHOLE]++;
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
        const ep_indent *target = sm_array_back(&owner->left_stack);
        while (fed && rec->indents.items[run.indent].col > target->col) {
            run.indent = rec->indents.items[run.indent].parent;
            fed = ep__scan(rec, &run, rec->grammar->t_dedent);
        }
        ep_indent stack[EP_MAX_INDENT + 1];
        uint32_t levels = 0;
        if (fed)
            ep__stack_of(rec, &run, stack, &levels);
        bool same = fed && ep__stack_is_left(owner, &run);
        if (same)
            answer = ep_earley_accepts_symbol(&rec->earley, run.chart, rec->block_symbol) ? 1 : 0;
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    ep__truncate_text(rec, text_len);
    return answer;
}

/* Whether a run's indentation stack is the one the left context ended
 * with. */
static bool ep__stack_is_left(const ep_recognizer *rec, const ep_run *run)
{
    ep_indent stack[EP_MAX_INDENT + 1];
    uint32_t levels;
    ep__stack_of(rec, run, stack, &levels);
    if (levels != rec->left_stack.size)
        return false;
    for (uint32_t i = 0; i < levels; i++)
        if (stack[i].col != rec->left_stack.items[i].col || stack[i].altcol != rec->left_stack.items[i].altcol)
            return false;
    return true;
}

/* can_end by a cursor path: feeds the right context until the first
 * lexeme that starts after the cursor is under way (the lexeme crossing
 * the cursor, if any, is then finished and handed over); 1 or 0 when it
 * starts where a path does and the layout is that path's (then the answer
 * is exact), -1 otherwise. */
static int ep__cursor_can_end(ep_recognizer *rec)
{
    if (rec->run.dead || rec->utf8_need)
        return -1;
    ep_earley_mark mark = ep_earley_get_mark(&rec->earley);
    uint32_t indents = rec->indents.size;
    uint32_t text_len = rec->text.size;
    ep_run run = rec->run;
    int answer = -1;
    for (uint32_t j = 0; j < rec->cursor_reach && j < rec->right_len; j++) {
        sm_array_push(&rec->text, rec->right_whole[j]);
        if (!ep__feed_byte(rec, &run, text_len + j))
            break;
        /* at a line start, the first token's indentation is measured from
         * text left of the path: wait for it */
        if (run.tok_start < text_len || run.at_line_start)
            continue;
        uint32_t offset = run.tok_start - text_len;
        for (uint32_t k = 0; k < rec->cursor_path_count; k++) {
            const ep_cursor_path *path = &rec->cursor_paths[k];
            if (path->offset != offset)
                continue;
            if (run.continued || run.depth != path->depth || !ep__stack_is_left(rec, &run))
                break;
            answer = ep_earley_accepts_symbol(&rec->earley, run.chart, path->symbol) ? 1 : 0;
            break;
        }
        break;
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    ep__truncate_text(rec, text_len);
    return answer;
}

bool ep_can_end(ep_recognizer *rec)
{
    if (rec->cursor_path_count) {
        int answer = ep__cursor_can_end(rec);
        if (answer >= 0) {
            rec->can_end_ways[EP_CAN_END_CURSOR]++;
            return answer == 1;
        }
    }
    if (rec->block_path) {
        int answer = ep__block_can_end(rec);
        if (answer >= 0) {
            rec->can_end_ways[EP_CAN_END_BLOCK]++;
            return answer == 1;
        }
    }
    if (rec->right_head)
        rec->can_end_ways[EP_CAN_END_HEAD]++;
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
    ep__truncate_text(rec, text_len);
    return ok;
}

void ep_recognizer_can_end_ways(const ep_recognizer *rec, uint32_t out[EP_CAN_END_WAYS])
{
    memcpy(out, rec->can_end_ways, sizeof rec->can_end_ways);
}

size_t ep_fed_bytes(const ep_recognizer *rec)
{
    return rec->text.size;
}

ep_snapshot ep_snapshot_take(const ep_recognizer *rec)
{
    return (ep_snapshot){rec->run, ep_earley_get_mark(&rec->earley), rec->text.size,
                         rec->indents.size, rec->utf8_need, rec->utf8_lo, rec->utf8_hi};
}

void ep_snapshot_apply(ep_recognizer *rec, const ep_snapshot *snap)
{
    rec->run = snap->run;
    ep_earley_reset_to(&rec->earley, snap->earley);
    ep__truncate_text(rec, snap->text_len);
    rec->indents.size = snap->indents;
    rec->utf8_need = snap->utf8_need;
    rec->utf8_lo = snap->utf8_lo;
    rec->utf8_hi = snap->utf8_hi;
}

ep_savepoint ep_save(ep_recognizer *rec)
{
    sm_array_push(&rec->saves, ep_snapshot_take(rec));
    return rec->saves.size - 1;
}

void ep_restore(ep_recognizer *rec, ep_savepoint point)
{
    if (point >= rec->saves.size)
        return;
    ep_snapshot_apply(rec, &rec->saves.items[point]);
    rec->saves.size = point + 1;
}
