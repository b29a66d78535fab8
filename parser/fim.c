/*
 * fim.c - fill-in-the-middle for the recognizer: the right context's
 * quotients planned and built at set-up (the tail after a top-level split,
 * the block path, the cursor paths), the right context tokenized in the
 * layout state the left context leaves, and the ways can_end is answered
 * with them (docs/RECOGNIZER.md).
 */
#include "ep_crossing.h"
#include "ep_earley.h"
#include "ep_recognizer.h"
#include "ep_quotient.h"

#include <string.h>

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
        ok = ep_lex_relex(rec, &run, rec->text.size);
    uint32_t needed = EP_MAX_DEPTH / 2 - rec->min_depth;
    ep_recognizer_free(rec);
    return ok ? needed : EP_NONE;
}

/* Keeps a copy of the right context in the recognizer: its first `split`
 * bytes are the head that can_end feeds after the middle. */
static void ep__keep_right(ep_recognizer *rec, const char *right, size_t right_len, size_t split)
{
    rec->right_head = sm_malloc(right_len + 1);
    memcpy(rec->right_head, right, right_len);
    rec->right_head[right_len] = '\0';
    rec->right_head_len = split;
    rec->right_whole = rec->right_head;
    rec->right_len = right_len;
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
    ep__keep_right(rec, right, right_len, split);
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

/* A recognizer on the grammar itself whose can_end feeds the whole right
 * context after the middle (automatic semicolon insertion: which line
 * breaks of the right context end a statement depends on the parse, so its
 * tokens are not known apart from the middle).  can_end is exact; viability
 * is that of the text before the right context. */
static int ep__new_fim_text(const ep_grammar *grammar, const char *right, size_t right_len, ep_recognizer **out)
{
    int rc = ep_recognizer_new(grammar, out);
    if (rc)
        return rc;
    ep_recognizer *rec = *out;
    rec->base = grammar;
    ep__keep_right(rec, right, right_len, right_len);
    return SM_OK;
}

/* Whether, with no layout, a token the middle starts may end inside the
 * right context (ep_crossing_indices finds a branch past index 0: a
 * string the middle opens that a quote of the right context closes, the
 * rest of a number).  The right quotient, built from the right context's
 * own tokens, cannot say so; such a right context is then fed whole at
 * can_end instead (exact; viability is that of the text before it). */
static bool ep__crosses(const ep_grammar *grammar, const char *right, size_t right_len)
{
    if (grammar->layout != EP_LAYOUT_NONE)
        return false;
    ep_crossings found;
    sm_array_init(&found);
    ep_crossing_indices(grammar, right, right_len, &found);
    bool crosses = false;
    for (uint32_t i = 0; i < found.size; i++)
        crosses |= found.items[i].index > 0;
    sm_array_free(&found);
    return crosses;
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
    } else if (grammar->layout == EP_LAYOUT_ASI || ep__crosses(grammar, right, right_len)) {
        rc = ep__new_fim_text(grammar, right, right_len, out);
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
    /* mid-line, the line holds a token already (see ep_fim_can_end_by_cursor) */
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
        ok = ep_lex_byte(rec, &rec->run, i);
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
    bool ok = ep__capture_feed(rec, text, len) && ep_run_can_end(rec, &rec->run, (uint32_t)len);
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
            flushed = ep_lex_relex(rec, &run, end);
        if (flushed && run.depth == 0 && !run.continued && run.at_line_start) {
            for (uint32_t at = run.indent; rec->indents.items[at].parent != EP_NONE; at = rec->indents.items[at].parent)
                ep_layout_scan(rec, &run, grammar->t_dedent);
            for (uint32_t i = 0; i < tail->size; i++)
                sm_array_push(&rec->captured, tail->items[i]);
            joined = true;
        } else {
            rec->captured.size = captured;
            ok = ep__capture_feed(rec, right + stop, len - stop);
        }
    }
    if (ok && !joined)
        ok = ep_run_can_end(rec, &rec->run, rec->text.size);
    if (ok)
        for (uint32_t i = 0; i < rec->captured.size; i++)
            sm_array_push(out, rec->captured.items[i]);
    ep_recognizer_free(rec);
    return ok;
}

/* The layout of a left context, found by lexing it alone.  False when it
 * does not lex. */
static bool ep__layout_after(const ep_grammar *grammar, const char *left, size_t len, ep_layout_state *out)
{
    ep_recognizer *rec = ep__capture_new(grammar, NULL);
    bool ok = ep__capture_feed(rec, left, len);
    if (ok) {
        ep_layout_stack(rec, &rec->run, out->stack, &out->levels);
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
bool ep_fim_can_end_by_head(ep_recognizer *rec, ep_run *run, uint32_t text_len)
{
    if (run->dead || rec->utf8_need)
        return false;
    for (size_t i = 0; i < rec->right_head_len; i++) {
        sm_array_push(&rec->text, rec->right_head[i]);
        if (!ep_lex_byte(rec, run, rec->text.size - 1))
            return false;
    }
    uint32_t end = rec->text.size;
    if (!rec->tail_split)
        return ep_run_can_end(rec, run, end);
    while (run->dfa != EP_DFA_START)
        if (!ep_lex_relex(rec, run, end))
            return ep__fim_can_end_slowly(rec, text_len);
    /* the tail was tokenized as a file of its own, starting at a top-level
     * line; if this program does not reach it at a line start outside
     * brackets, the split does not apply and the slow way decides */
    if (run->depth != 0 || run->continued || !run->at_line_start)
        return ep__fim_can_end_slowly(rec, text_len);
    run->line_start = end;
    return ep_layout_indent(rec, run, end) && ep_earley_accepts_symbol(&rec->earley, run->chart, rec->accept_symbol);
}

/* can_end by the block path: 1 or 0 when the program reaches the block
 * path's line with the left context's indentation stack (then the answer is
 * exact), -1 when it does not and the other way must decide. */
int ep_fim_can_end_by_block(ep_recognizer *rec)
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
        fed = ep_lex_byte(rec, &run, rec->text.size - 1);
    }
    uint32_t end = rec->text.size;
    while (fed && run.dfa != EP_DFA_START)
        fed = ep_lex_relex(rec, &run, end);
    if (fed && run.depth == 0 && !run.continued && run.at_line_start) {
        /* the line at the split is indented like the block the left context
         * ended in: levels above it close first, with their DEDENTs */
        const ep_indent *target = sm_array_back(&owner->left_stack);
        while (fed && rec->indents.items[run.indent].col > target->col) {
            run.indent = rec->indents.items[run.indent].parent;
            fed = ep_layout_scan(rec, &run, rec->grammar->t_dedent);
        }
        ep_indent stack[EP_MAX_INDENT + 1];
        uint32_t levels = 0;
        if (fed)
            ep_layout_stack(rec, &run, stack, &levels);
        bool same = fed && ep_layout_stack_is_left(owner, &run);
        if (same)
            answer = ep_earley_accepts_symbol(&rec->earley, run.chart, rec->block_symbol) ? 1 : 0;
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    ep_text_truncate(rec, text_len);
    return answer;
}

/* can_end by a cursor path: feeds the right context until the first
 * lexeme that starts after the cursor is under way (the lexeme crossing
 * the cursor, if any, is then finished and handed over); 1 or 0 when it
 * starts where a path does and the layout is that path's (then the answer
 * is exact), -1 otherwise. */
int ep_fim_can_end_by_cursor(ep_recognizer *rec)
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
        if (!ep_lex_byte(rec, &run, text_len + j))
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
            if (run.continued || run.depth != path->depth || !ep_layout_stack_is_left(rec, &run))
                break;
            answer = ep_earley_accepts_symbol(&rec->earley, run.chart, path->symbol) ? 1 : 0;
            break;
        }
        break;
    }
    ep_earley_reset_to(&rec->earley, mark);
    rec->indents.size = indents;
    ep_text_truncate(rec, text_len);
    return answer;
}
