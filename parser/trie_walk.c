/*
 * trie_walk.c - the tokens of a vocabulary's trie that keep a recognizer
 * viable, found in one walk (ep_trie_viable).
 *
 * The walk keeps one recognizer state per depth (the state after the
 * node's path), so tokens that share a prefix share the work of feeding
 * it, and a byte the recognizer refuses skips the node's whole subtree:
 * viability is closed under prefixes.
 *
 * Most nodes of a real vocabulary are bytes inside a lexeme: the byte moves
 * the token in progress to another state of the lexer's automaton and the
 * parser is not involved.  Such a byte is taken without ep_feed when
 * the language's checks of the token cannot change their verdict (ep__quiet; a
 * character outside ASCII that ends in a name is checked on the spot):
 * then the text is viable exactly when the token can still grow into a
 * lexeme the parser allows here, which depends only on the parser's chart
 * and the automaton's state, and is remembered for the walk.  Below a node
 * in such a state the walk reads the subtree from its lexeme tree
 * (lextree.c) instead of node by node.  Every other byte (the token in
 * progress ends, a new one starts, a backslash or a brace) goes through
 * ep_feed from its parent's state, or from the token ended once for the
 * bytes that end it in the same state.
 */
#include "ep_fields.h"
#include "ep_recognizer.h"
#include "ep_trie.h"

#include <string.h>

/* ---- The walk ------------------------------------------------------------------ */

/* The state after a node's path.  A byte taken directly changes only the
 * automaton's part of the run, the text's length and the UTF-8 state, kept
 * here; the rest is in the snapshot of the nearest fed node above
 * (`full`, a depth). */
typedef struct ep__step {
    uint32_t dfa;
    uint32_t accept_end;
    int32_t accept_lexeme;
    uint32_t text_len;
    /* the charts change only at a fed byte that makes new ones, and a
     * sibling may make others under the same numbers: a new epoch then */
    uint32_t epoch;
    uint16_t full;
    uint8_t utf8_need, utf8_lo, utf8_hi;
    /* the token in progress passed the language's checks and an ordinary byte
     * (not a backslash or a brace) that only moves it through the
     * automaton keeps them passing (ep__quiet) */
    bool direct;
    /* it is not a name (a string, a comment, a number), so the characters
     * the language allows in names do not apply to a byte outside ASCII */
    bool wide;
    /* in a string with fields, past a brace: its scanner is in the text,
     * where this byte (its quote) and line breaks are not taken directly
     * (0: no such string) */
    uint8_t stop;
    /* in a field's expression of a string with fields (field mode): the
     * bytes taken directly are those of the expression's token in
     * progress, dfa is its automaton's state, and the recognizer of the
     * expression, as it was at the nearest node it was fed (ep__field at
     * `ffull`, a depth), says whether it grows */
    bool field;
    uint16_t ffull;
} ep__step;

/* A field's expression at a node in field mode (ep__step) where it was fed:
 * the recognizer that parses it (lg_fields's `field`) and its state there,
 * where its text starts in the walk's, whether a line break may end a line
 * there, and the recognizer's epoch (ep_fields_epoch) when its state
 * was taken; the lexemes its parser allows are kept apart. */
typedef struct ep__field {
    ep_recognizer *rec;
    const ep_grammar *grammar;
    ep_snapshot snap;
    int64_t offset;
    uint32_t epoch;
    bool newline_ok;
} ep__field;

/* One walk's memory: the snapshots of fed nodes by depth, and whether a
 * token in progress can grow into a lexeme allowed here, by automaton state
 * for the current epoch (its chart). */
typedef struct ep__walk {
    ep_snapshot full[EP_TRIE_MAX_BYTES + 1];
    /* inside a string with fields: its scanner's state with full[depth]
     * (made on first use; NULL: none) */
    ep_modal_mark *marks[EP_TRIE_MAX_BYTES + 1];
    bool marked[EP_TRIE_MAX_BYTES + 1];
    /* field mode: each fed node's field, and the lexemes allowed there
     * (lex_words words per depth, made on first use) */
    ep__field fields[EP_TRIE_MAX_BYTES + 1];
    uint64_t *field_allowed;
    uint32_t field_words;
    /* whether the string's automaton state loop_state keeps itself on
     * every byte of a field's expression (-1: not asked yet) */
    uint32_t loop_state;
    int loop_ok;
    ep__step at_depth[EP_TRIE_MAX_BYTES + 1];
    uint32_t *grow_epoch;   /* [dfa state]: epoch + 1 of the answer, 0 for none */
    bool *grows;            /* [dfa state] */
    uint32_t epochs;
} ep__walk;

static bool ep__grows(ep__walk *walk, ep_recognizer *rec, const ep__step *step)
{
    if (walk->grow_epoch[step->dfa] == step->epoch + 1)
        return walk->grows[step->dfa];
    walk->grow_epoch[step->dfa] = step->epoch + 1;
    if (step->field) {
        const ep__field *f = &walk->fields[step->ffull];
        const uint64_t *allowed = walk->field_allowed + (size_t)step->ffull * walk->field_words;
        return walk->grows[step->dfa] = ep_run_can_grow_by(f->grammar, step->dfa, allowed, f->newline_ok);
    }
    ep_run run = walk->full[step->full].run;
    run.dfa = step->dfa;
    return walk->grows[step->dfa] = ep_run_can_grow(rec, &run);
}

/* The token in progress after `step` as its recognizer reads it: in field
 * mode the expression's, on the field's own recognizer (ep__field), else
 * the walk's; where its text starts in the walk's text. */
typedef struct ep__token {
    const ep_grammar *grammar;
    const ep_run *run;     /* the run of the nearest fed node's snapshot */
    uint32_t start;
} ep__token;

static ep__token ep__token_of(const ep_recognizer *rec, const ep__walk *walk, const ep__step *step)
{
    if (!step->field) {
        const ep_run *run = &walk->full[step->full].run;
        return (ep__token){.grammar = rec->grammar, .run = run, .start = run->tok_start};
    }
    const ep__field *f = &walk->fields[step->ffull];
    return (ep__token){.grammar = f->grammar, .run = &f->snap.run,
                       .start = (uint32_t)(f->snap.run.tok_start + f->offset)};
}

/* Whether the language's checks of the token in progress (which passed them)
 * keep passing whatever ordinary bytes (ASCII, not a backslash or a brace)
 * come next: a name or a number, a bytes or raw literal, or a str literal
 * without an escape cut short and, if an f-string, without a brace.  The
 * literal's shape is read as ep_run_token_so_far reads it
 * (ep_str_literal). */
static bool ep__quiet(const ep_grammar *g, const char *token, size_t len)
{
    bool is_f, raw;
    if (!ep_str_literal(g, token, len, &is_f, &raw))
        return true;
    if (is_f && ep_has_brace(token, len))
        return false;
    if (raw)
        return true;
    if (!g->lexical || !g->lexical->escapes_valid)
        return !memchr(token, '\\', len);   /* no escape: nothing to check */
    size_t resume = 0;
    return g->lexical->escapes_valid(token, len, false, &resume) && resume >= len;
}

/* Whether the state the recognizer is in may take in-lexeme bytes
 * directly (see ep__step); *stop as ep__step has it. */
static bool ep__direct(ep_recognizer *rec, uint8_t *stop)
{
    const ep_run *run = &rec->run;
    uint32_t end = rec->text.size;
    const char *token = rec->text.items + run->tok_start;
    *stop = 0;
    if (run->dead || run->dfa == EP_DFA_START)
        return false;
    /* past a brace or a backslash, a string with fields is its scanner's:
     * in its text (not a field) the scanner reads ordinary bytes as text */
    if (ep_fields_token(rec, run->tok_start, end) &&
        (ep_has_brace(token, end - run->tok_start) || memchr(token, '\\', end - run->tok_start)))
        return ep_run_token_so_far(rec, run, end) && ep_run_in_text(rec, run, end, stop);
    return ep__quiet(rec->grammar, token, end - run->tok_start) && ep_run_token_so_far(rec, run, end);
}

/* What a byte does to the token in progress, taken directly. */
enum {
    EP__REFUSED = -1,   /* no text with it is viable: nothing to feed */
    EP__FED = 0,        /* the parser decides: fed */
    EP__TAKEN = 1,      /* it stays inside the token, which can still grow */
};

/* Whether the character that `byte` ends, at text[at] (the text before it
 * holding its first bytes), may stand in a name whose token starts at
 * `tok_start`: 1 if it may, -1 if not, 0 when the character is not all in
 * the token (ep_feed then decides). */
static int ep__name_char_ends(const ep_grammar *g, const char *text, uint32_t tok_start, uint32_t at, uint8_t byte)
{
    if (!g->lexical || !g->lexical->name_char_valid)
        return 0;
    uint32_t lead = at;
    while (lead > tok_start && at - lead < 3 && ((uint8_t)text[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead > tok_start)
        lead--;
    uint8_t first = (uint8_t)text[lead];
    if ((first & 0xC0) != 0xC0)
        return 0;
    uint32_t width = at - lead + 1;
    uint32_t cp = first & (width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07);
    for (uint32_t i = lead + 1; i < at; i++)
        cp = (cp << 6) | ((uint8_t)text[i] & 0x3F);
    cp = (cp << 6) | (byte & 0x3F);
    return g->lexical->name_char_valid(cp, lead == tok_start) ? 1 : -1;
}

/* Takes `byte` after `parent` into `child` without the parser, if it is a
 * byte that only moves the token in progress (EP__TAKEN).  A byte that
 * breaks UTF-8 is EP__REFUSED (ep_feed refuses it before lexing), and so is
 * the last byte of a character no name may hold when the automaton's state
 * accepts the token and can become no other lexeme (a name: the language's check
 * fails for it whatever follows, and since the state accepts it now, no
 * shorter token is left to try).  Otherwise EP__FED. */
static inline int ep__step_direct(ep_recognizer *rec, ep__walk *walk, const ep__step *parent, uint8_t byte,
                                  ep__step *child)
{
    if (!parent->direct)
        return byte ? EP__FED : EP__REFUSED;
    ep__token token = ep__token_of(rec, walk, parent);
    const ep_grammar *g = token.grammar;
    /* braces are the parser's here, even in a str literal */
    ep_direct_at at = {.dfa = parent->dfa, .stop = parent->stop, .field = parent->field, .goals = !rec->capture,
                       .goal_bits = token.run->goals};
    uint32_t next;
    int direct = ep_direct_next(g, &at, byte, &next);
    if (direct != EP_DIRECT_TAKEN)
        return direct == EP_DIRECT_REFUSED ? EP__REFUSED : EP__FED;
    if (parent->text_len + 1 > EP_MAX_TEXT)
        return EP__FED;
    *child = *parent;
    if (byte >= 0x80 || child->utf8_need) {
        if (!ep_utf8_next(&child->utf8_need, &child->utf8_lo, &child->utf8_hi, byte))
            return EP__REFUSED;
        if (!parent->wide && !child->utf8_need) {
            int name = ep__name_char_ends(g, rec->text.items, token.start, parent->text_len, byte);
            if (name < 0 && !rec->capture && ep_lex_only_name(g, next))
                return EP__REFUSED;
            if (name <= 0)
                return EP__FED;
        }
    }
    child->dfa = next;
    int32_t winner = ep_lex_winner(g, token.run->goals, next);
    if (winner >= 0) {
        child->accept_end = parent->text_len + 1;
        child->accept_lexeme = winner;
    }
    if (!ep__grows(walk, rec, child))
        return EP__FED;   /* may still be viable by ending the token early */
    child->text_len++;
    return EP__TAKEN;
}

/* The whole state after `step`. */
static ep_snapshot ep__snapshot_of(const ep__walk *walk, const ep__step *step)
{
    ep_snapshot snap = walk->full[step->full];
    if (!step->field) {
        /* in field mode the string's state keeps itself (ep__field_of) */
        snap.run.dfa = step->dfa;
        snap.run.accept_end = step->accept_end;
        snap.run.accept_lexeme = step->accept_lexeme;
    }
    snap.text_len = step->text_len;
    snap.utf8_need = step->utf8_need;
    snap.utf8_lo = step->utf8_lo;
    snap.utf8_hi = step->utf8_hi;
    return snap;
}

/* Whether the string's automaton state keeps itself on every byte of a
 * field's expression (ep_fields_expr_byte): then in field mode the string
 * is left as it is. */
static bool ep__loops(ep__walk *walk, const ep_grammar *g, uint32_t state)
{
    if (walk->loop_ok >= 0 && walk->loop_state == state)
        return walk->loop_ok;
    walk->loop_state = state;
    walk->loop_ok = 1;
    for (uint32_t b = 0; b < 256 && walk->loop_ok; b++)
        if (ep_fields_expr_byte(g, (uint8_t)b) && ep_dfa_step(&g->dfa, state, (uint8_t)b) != state)
            walk->loop_ok = 0;
    return walk->loop_ok;
}

/* Records the state of `fields`, the recognizer of a field's expression
 * whose text starts at `offset` in the walk's, as walk->fields[depth], and
 * the lexemes its parser allows there. */
static void ep__field_keep(ep_recognizer *rec, ep__walk *walk, uint32_t depth, ep_recognizer *fields, int64_t offset)
{
    uint32_t words = fields->grammar->lex_words;
    if (!walk->field_allowed || walk->field_words != words) {
        sm_free(walk->field_allowed);
        walk->field_words = words;
        walk->field_allowed = sm_malloc(((size_t)EP_TRIE_MAX_BYTES + 1) * (words ? words : 1) * sizeof(uint64_t));
    }
    memcpy(walk->field_allowed + (size_t)depth * words, ep_run_allowed(fields, &fields->run), words * sizeof(uint64_t));
    walk->fields[depth] = (ep__field){.rec = fields, .grammar = fields->grammar, .snap = ep_snapshot_take(fields),
                                      .offset = offset, .epoch = ep_fields_epoch(rec),
                                      .newline_ok = ep_run_newline_ok(fields, &fields->run)};
}

/* Sets `step`, whose text ends inside a field's expression, from
 * walk->fields[depth]: field mode, and whether the expression's token in
 * progress may take bytes directly. */
static void ep__field_step(ep_recognizer *rec, ep__walk *walk, uint32_t depth, ep__step *step)
{
    const ep__field *f = &walk->fields[depth];
    ep_recognizer *fields = f->rec;
    const ep_run *frun = &fields->run;
    uint32_t tok_start = (uint32_t)(frun->tok_start + f->offset);
    uint8_t stop;
    step->field = true;
    step->ffull = (uint16_t)depth;
    step->stop = 0;
    step->direct = !frun->dead && frun->dfa != EP_DFA_START && ep__direct(fields, &stop) && !stop;
    step->dfa = frun->dfa;
    step->accept_end = frun->accept_end + (uint32_t)f->offset;
    step->accept_lexeme = frun->accept_lexeme;
    step->wide = step->direct &&
                 ep_trie_never_a_name(f->grammar, rec->text.items + tok_start, step->text_len - tok_start);
}

/* Whether the recognizer, whose snapshot is full[depth], is in a field's
 * expression that the walk can follow on its own recognizer (field mode,
 * ep__step): then walk->fields[depth] is set. */
static bool ep__field_of(ep_recognizer *rec, ep__walk *walk, uint32_t depth)
{
    const ep_run *run = &rec->run;
    if (!walk->marked[depth] || run->dead || run->dfa == EP_DFA_START)
        return false;
    int64_t offset;
    ep_recognizer *fields = ep_run_field(rec, run, rec->text.size, &offset);
    if (!fields || fields->grammar->dfa.fingerprint != rec->grammar->dfa.fingerprint ||
        fields->grammar->dfa.state_count != rec->grammar->dfa.state_count || fields->run.dead ||
        !ep__loops(walk, rec->grammar, run->dfa))
        return false;
    ep__field_keep(rec, walk, depth, fields, offset);
    return true;
}

/* Sets `step` from the recognizer's state, whose snapshot is full[depth]. */
static void ep__step_of(ep_recognizer *rec, ep__walk *walk, uint32_t depth, ep__step *step)
{
    const ep_snapshot *snap = &walk->full[depth];
    const ep_run *run = &snap->run;
    step->dfa = run->dfa;
    step->accept_end = run->accept_end;
    step->accept_lexeme = run->accept_lexeme;
    step->text_len = snap->text_len;
    step->full = (uint16_t)depth;
    step->utf8_need = snap->utf8_need;
    step->utf8_lo = snap->utf8_lo;
    step->utf8_hi = snap->utf8_hi;
    step->direct = ep__direct(rec, &step->stop);
    step->wide = step->direct &&
                 ep_trie_never_a_name(rec->grammar, rec->text.items + run->tok_start, snap->text_len - run->tok_start);
    step->field = false;
    if (!step->direct && ep__field_of(rec, walk, depth))
        ep__field_step(rec, walk, depth, step);
}

/* Whether the text ends inside a string with fields read with the
 * tokenizer's modes. */
static bool ep__in_modal_string(const ep_recognizer *rec)
{
    const ep_run *run = &rec->run;
    return rec->modal && !run->dead && run->dfa != EP_DFA_START && ep_fields_token(rec, run->tok_start, rec->text.size);
}

/* Keeps the scanner's state of a string with fields in progress with
 * full[depth], so that bytes fed after it do not read the string again. */
static void ep__mark(ep_recognizer *rec, ep__walk *walk, uint32_t depth)
{
    walk->marked[depth] = ep__in_modal_string(rec);
    if (!walk->marked[depth])
        return;
    if (!walk->marks[depth])
        walk->marks[depth] = ep_fields_of(rec->grammar)->mark_new(ep_grammar_version(rec->grammar));
    ep_fields_of(rec->grammar)->mark_take(rec, walk->marks[depth]);
}

/* Returns the recognizer to full[depth] (or, with `snap`, to that snapshot
 * of its state), with the scanner's state kept there; with `field`, a
 * field's expression fed further since (field mode), to that. */
static void ep__restore(ep_recognizer *rec, ep__walk *walk, uint32_t depth, const ep_snapshot *snap,
                        const ep_snapshot *field)
{
    ep_snapshot_apply(rec, snap ? snap : &walk->full[depth]);
    if (walk->marked[depth])
        ep_fields_of(rec->grammar)->mark_apply(rec, walk->marks[depth], field);
}

/* The field's state to go on from when feeding after `step`: its own if it
 * was fed after the string's nearest fed node. */
static const ep__field *ep__field_after(const ep__walk *walk, const ep__step *step)
{
    return step->field && step->ffull != step->full ? &walk->fields[step->ffull] : NULL;
}

/* Moves an offset recorded after text_len `from` to after `to`: offsets
 * before it belong to the snapshot both paths share. */
static uint32_t ep__shift(uint32_t offset, uint32_t from, uint32_t to)
{
    return offset >= from ? offset - from + to : offset;
}

/* Moves a snapshot recorded after text_len `from` to after `to`. */
static void ep__snapshot_shift(ep_snapshot *snap, uint32_t from, uint32_t to)
{
    snap->run.tok_start = ep__shift(snap->run.tok_start, from, to);
    snap->run.accept_end = ep__shift(snap->run.accept_end, from, to);
    snap->run.line_start = ep__shift(snap->run.line_start, from, to);
    snap->run.tag_prev_end = ep__shift(snap->run.tag_prev_end, from, to);
    snap->text_len = ep__shift(snap->text_len, from, to);
}

/* Whether the parser's charts are those of `before`. */
static bool ep__same_charts(const ep_snapshot *after, const ep_snapshot *before)
{
    return after->earley.charts == before->earley.charts && after->run.chart == before->run.chart;
}

/* Records the recognizer's state after a byte fed from `from` (whose epoch
 * is `epoch`) at depth + 1: a new epoch if the charts changed. */
static void ep__take_fed(ep_recognizer *rec, ep__walk *walk, uint32_t depth, const ep_snapshot *from,
                         uint32_t epoch)
{
    walk->full[depth + 1] = ep_snapshot_take(rec);
    ep__mark(rec, walk, depth + 1);
    ep__step *child = &walk->at_depth[depth + 1];
    ep__step_of(rec, walk, depth + 1, child);
    child->epoch = !child->field && ep__same_charts(&walk->full[depth + 1], from) ? epoch : ++walk->epochs;
}

/* Feeds `byte` after `parent` (at `depth`) through the recognizer; true
 * with at_depth[depth + 1] set if the text stays viable. */
static bool ep__step_fed(ep_recognizer *rec, ep__walk *walk, uint32_t depth, uint8_t byte)
{
    const ep__step *parent = &walk->at_depth[depth];
    const ep__field *field = ep__field_after(walk, parent);
    ep_snapshot from = ep__snapshot_of(walk, parent);
    ep__restore(rec, walk, parent->full, &from, field ? &field->snap : NULL);
    char c = (char)byte;
    if (ep_feed(rec, &c, 1) != 1)
        return false;
    ep__take_fed(rec, walk, depth, &from, parent->epoch);
    return true;
}

/* Writes the walk's text of a field's expression from the field's fed node
 * on into its recognizer's, which is then `len` bytes long. */
static void ep__field_text(ep_recognizer *rec, const ep__field *f, uint32_t len)
{
    ep_recognizer *fields = f->rec;
    uint32_t have = f->snap.text_len;
    sm_array_reserve(&fields->text, len + 1);
    fields->text.size = len;
    memcpy(fields->text.items + have, rec->text.items + have + f->offset, len - have);
}

/* Puts the recognizer of a field's expression in the state after `at`
 * (field mode): its state at the nearest node it was fed, with the bytes
 * taken directly since. */
static void ep__field_put(ep_recognizer *rec, ep__walk *walk, const ep__step *at)
{
    const ep__field *f = &walk->fields[at->ffull];
    ep_snapshot snap = f->snap;
    snap.run.dfa = at->dfa;
    snap.run.accept_end = (uint32_t)(at->accept_end - f->offset);
    snap.run.accept_lexeme = at->accept_lexeme;
    snap.utf8_need = at->utf8_need;
    snap.utf8_lo = at->utf8_lo;
    snap.utf8_hi = at->utf8_hi;
    ep_snapshot_apply(f->rec, &snap);
    ep__field_text(rec, f, (uint32_t)(at->text_len - f->offset));
}

/* Feeds `byte`, a byte of a field's expression, after at_depth[depth] in
 * field mode to the expression's recognizer alone, from the state after the
 * parent (ep__field_put) or, with `ended`, from that state of the
 * recognizer: the string's checks keep passing exactly when the expression
 * stays viable (lg_fields's `field`).  1 with at_depth[depth + 1] set if it
 * does, 0 if not, -1 when the field's state is gone (the recognizer went
 * back to an expression's start since): the caller feeds the string. */
static int ep__step_field(ep_recognizer *rec, ep__walk *walk, uint32_t depth, uint8_t byte, const ep_snapshot *ended)
{
    const ep__step *parent = &walk->at_depth[depth];
    const ep__field *f = &walk->fields[parent->ffull];
    if (f->epoch != ep_fields_epoch(rec))
        return -1;
    ep_recognizer *fields = f->rec;
    if (ended) {
        ep_snapshot_apply(fields, ended);
        ep__field_text(rec, f, ended->text_len);
    } else {
        ep__field_put(rec, walk, parent);
    }
    rec->text.items[parent->text_len] = (char)byte;
    char c = (char)byte;
    if (ep_feed(fields, &c, 1) != 1)
        return 0;
    ep__field_keep(rec, walk, depth + 1, fields, f->offset);
    ep__step *child = &walk->at_depth[depth + 1];
    *child = *parent;
    child->text_len = parent->text_len + 1;
    child->utf8_need = fields->utf8_need;
    child->utf8_lo = fields->utf8_lo;
    child->utf8_hi = fields->utf8_hi;
    child->epoch = ++walk->epochs;
    ep__field_step(rec, walk, depth + 1, child);
    return 1;
}

/* Feeds `byte` after at_depth[depth]: in field mode a byte of the
 * expression to its recognizer alone (ep__step_field), else through the
 * recognizer (ep__step_fed). */
static bool ep__step_fed_any(ep_recognizer *rec, ep__walk *walk, uint32_t depth, uint8_t byte)
{
    const ep__step *parent = &walk->at_depth[depth];
    if (parent->field && ep_fields_expr_byte(rec->grammar, byte)) {
        int fed = ep__step_field(rec, walk, depth, byte, NULL);
        if (fed >= 0)
            return fed == 1;
    }
    return ep__step_fed(rec, walk, depth, byte);
}

static void ep__set(uint64_t *mask, uint32_t id)
{
    mask[id / 64] |= (uint64_t)1 << (id % 64);
}

/* One mask's walk. */
typedef struct ep__mask_walk {
    ep_trie *trie;
    ep_recognizer *rec;
    ep__walk *walk;
    uint64_t *mask;
    uint32_t allowed;
    uint64_t visited, parsed, trees;
} ep__mask_walk;

static void ep__allow(ep__mask_walk *m, const ep_tnode *n)
{
    for (uint32_t k = 0; k < n->token_count; k++)
        ep__set(m->mask, m->trie->tokens[n->first_token + k]);
    m->allowed += n->token_count;
}

static void ep__walk_range(ep__mask_walk *m, uint32_t lo, uint32_t hi);
static void ep__walk_tree(ep__mask_walk *m, const ep_ltree_key *key, const ep__step *at);

/* Whether the subtree below `node` in state `at` may be read from its
 * lexeme tree, whose key is then set: its bytes can be taken directly, a
 * character cut short there began on the node's path, and its token can
 * grow (else every child is fed: the guarded branch). */
static bool ep__tree_fits(ep__mask_walk *m, uint32_t node, const ep__step *at, ep_ltree_key *key)
{
    if (!at->direct || at->text_len + EP_TRIE_MAX_BYTES >= EP_MAX_TEXT || !ep__grows(m->walk, m->rec, at))
        return false;
    const char *text = m->rec->text.items;
    ep__token token = ep__token_of(m->rec, m->walk, at);
    uint32_t tok_start = token.start;
    *key = ep_trie_tree_key(token.grammar, node, at->dfa, at->wide, text + tok_start, at->text_len - tok_start);
    /* trees differ only by the goals that can change the lexing below */
    key->goals = ep_lex_goals_that_matter(token.grammar, token.run->goals, at->dfa);
    key->stop = at->stop;
    key->field = at->field;
    key->utf8_need = at->utf8_need;
    key->utf8_lo = at->utf8_lo;
    key->utf8_hi = at->utf8_hi;
    if (!at->utf8_need)
        return true;
    uint32_t lead = at->text_len - 1, path_start = m->walk->full[0].text_len;
    while (lead > path_start && ((uint8_t)text[lead] & 0xC0) == 0x80)
        lead--;
    if (node == EP_TRIE_ROOT || ((uint8_t)text[lead] & 0xC0) != 0xC0)
        return false;
    key->first_char = lead == tok_start;
    return true;
}

/* A subtree of fewer nodes is walked node by node: finding its lexeme
 * tree, let alone building it, costs more than its nodes (on qwen2, walking
 * the subtrees under 64 nodes cut a mask's median by a fifth to a third). */
#define EP__TREE_MIN_NODES 64

/* Node i was fed and is viable, its state at_depth[depth + 1]: its tokens,
 * then its subtree. */
static void ep__below_fed(ep__mask_walk *m, uint32_t i)
{
    const ep_tnode *n = &m->trie->nodes[i];
    ep__allow(m, n);
    if (n->skip == i + 1)
        return;
    const ep__step *at = &m->walk->at_depth[n->depth + 1];
    ep_ltree_key key;
    if (n->skip - i - 1 >= EP__TREE_MIN_NODES && ep__tree_fits(m, i, at, &key))
        ep__walk_tree(m, &key, at);
    else
        ep__walk_range(m, i + 1, n->skip);
}

/* Nodes lo..hi in preorder, each from its parent's state at_depth[depth]. */
static void ep__walk_range(ep__mask_walk *m, uint32_t lo, uint32_t hi)
{
    ep__walk *walk = m->walk;
    for (uint32_t i = lo; i < hi;) {
        const ep_tnode *n = &m->trie->nodes[i];
        const ep__step *parent = &walk->at_depth[n->depth];
        m->visited++;
        int direct = ep__step_direct(m->rec, walk, parent, n->byte, &walk->at_depth[n->depth + 1]);
        if (direct == EP__TAKEN) {
            m->rec->text.items[parent->text_len] = (char)n->byte;
            ep__allow(m, n);
            i++;
            continue;
        }
        if (direct == EP__REFUSED) {
            i = n->skip;
            continue;
        }
        m->parsed++;
        if (ep__step_fed_any(m->rec, walk, n->depth, n->byte))
            ep__below_fed(m, i);
        i = n->skip;
    }
}

/* A token ended once for the frontier's bytes that end it in the same state
 * (ep__walk_tree), and the state after the last byte fed after it: the
 * frontier is in order of byte too, so each byte is fed once for them. */
typedef struct ep__ended {
    bool have, ok;
    int verdict;           /* of its %check (ep__check_verdict) */
    uint32_t dfa;          /* the state it was ended in */
    uint32_t text_len;     /* and where */
    uint32_t epoch;
    ep_snapshot snap;      /* after ending it */
    bool next_have, next_ok;
    uint8_t next_byte;
    uint32_t next_len;     /* where next_byte was fed */
    ep_snapshot next_snap; /* after it */
    ep__step next_step;
} ep__ended;

/* The verdict of the %check of the lexeme that the token in progress after
 * `from` is accepted as, on the token's text: 1 passes, 0 fails, -1 no
 * check. */
static int ep__check_verdict(const ep__mask_walk *m, const ep__step *from)
{
    ep__token token = ep__token_of(m->rec, m->walk, from);
    const ep_lexeme *lex = &token.grammar->lexemes[from->accept_lexeme];
    if (!lex->check)
        return -1;
    return lex->check(m->rec->text.items + token.start, from->text_len - token.start);
}

/* Whether feeding `e`'s byte from its parent `from` ends the whole token in
 * progress and starts another with the byte.  Then every parent in the same
 * state ends it the same way (" x" and "  x" after a space, " foo" and
 * " bar" before a bracket): the token is committed whole, its checks passed
 * (the step is direct), and the new one starts from the automaton's start;
 * neither reads the token's text, only the offsets differ, but for its
 * lexeme's %check, whose verdict the ended token is kept with
 * (ep__check_verdict).  Not so for a byte that starts a real token at the
 * start of a line outside brackets (the indentation before it is measured
 * on the text; a comment or a line break there measures nothing), with a
 * character cut short, when the token's longest accepted prefix is not all
 * of it (the rest would be lexed again), or when the recognizer keeps where
 * the token is (ep_trie_keeps_extent). */
static bool ep__ends_token(const ep__mask_walk *m, const ep__step *from, const ep_lentry *e, uint8_t byte)
{
    /* in field mode the token is the expression's, on its own recognizer */
    ep__token token = ep__token_of(m->rec, m->walk, from);
    const ep_grammar *g = token.grammar;
    const ep_run *run = token.run;
    return from->accept_end == from->text_len && !from->utf8_need && from->accept_lexeme >= 0 &&
           ep_dfa_step(&g->dfa, e->parent.dfa, byte) == EP_DFA_DEAD &&
           !ep_trie_keeps_extent(g, run, from->accept_lexeme) &&
           !(run->at_line_start && run->depth == 0 &&
             ep_layout_real_token(g, ep_dfa_step(&g->dfa, EP_DFA_START, byte)));
}

/* The expression's token ended once for the frontier's bytes that end it
 * in the same state, in field mode (ep__walk_tree): as ep__ended, for the
 * recognizer of the field's expression, whose epoch it was ended in. */
typedef struct ep__fended {
    bool have, ok;
    int verdict;
    uint32_t dfa, text_len, epoch;
    ep_snapshot snap;
} ep__fended;

/* Feeds `byte` after `from` (at_depth[depth]) in field mode when it ends the
 * expression's token: the token is ended once for the bytes that end it in
 * the same state, then the byte goes to the expression's recognizer
 * (ep__step_field) or, if it is not the expression's, through the
 * recognizer, which goes on from the ended token. */
static bool ep__field_feed_ended(ep__mask_walk *m, ep__fended *fended, uint32_t depth, uint8_t byte)
{
    ep__walk *walk = m->walk;
    const ep__step *from = &walk->at_depth[depth];
    const ep__field *f = &walk->fields[from->ffull];
    uint32_t epoch = ep_fields_epoch(m->rec);
    if (f->epoch != epoch)
        return ep__step_fed(m->rec, walk, depth, byte);
    int verdict = ep__check_verdict(m, from);
    if (!fended->have || fended->dfa != from->dfa || fended->epoch != epoch || fended->verdict != verdict) {
        ep__field_put(m->rec, walk, from);
        fended->have = true;
        fended->verdict = verdict;
        fended->dfa = from->dfa;
        fended->text_len = from->text_len;
        fended->epoch = epoch;
        fended->ok = ep_end_token(f->rec);
        if (fended->ok)
            fended->snap = ep_snapshot_take(f->rec);
    }
    if (!fended->ok)
        return ep__step_fed(m->rec, walk, depth, byte);
    ep_snapshot snap = fended->snap;
    ep__snapshot_shift(&snap, (uint32_t)(fended->text_len - f->offset), (uint32_t)(from->text_len - f->offset));
    if (ep_fields_expr_byte(m->rec->grammar, byte))
        return ep__step_field(m->rec, walk, depth, byte, &snap) == 1;
    ep_snapshot state = ep__snapshot_of(walk, from);
    ep__restore(m->rec, walk, from->full, &state, &snap);
    ep__field_text(m->rec, f, snap.text_len);
    char c = (char)byte;
    if (ep_feed(m->rec, &c, 1) != 1)
        return false;
    ep__take_fed(m->rec, walk, depth, &state, from->epoch);
    return true;
}

/* Sets the state at depth + 1 from the one kept after the same byte was
 * fed after the same ended token (the charts it made are still there: the
 * frontier fed nothing but that state's subtree since), moved to the
 * parent's offsets; the byte is written in place. */
static void ep__reuse_next(ep__mask_walk *m, const ep__ended *ended, uint32_t depth, uint8_t byte)
{
    ep__walk *walk = m->walk;
    uint32_t to = walk->at_depth[depth].text_len;
    m->rec->text.items[to] = (char)byte;
    walk->full[depth + 1] = ended->next_snap;
    ep__snapshot_shift(&walk->full[depth + 1], ended->next_len, to);
    walk->marked[depth + 1] = false;
    ep__step *child = &walk->at_depth[depth + 1];
    *child = ended->next_step;
    child->full = (uint16_t)(depth + 1);
    child->text_len = walk->full[depth + 1].text_len;
    child->accept_end = ep__shift(child->accept_end, ended->next_len, to);
}

/* Feeds `byte` at depth after the token was ended (ended->snap, moved to the
 * parent's offsets): the state at depth + 1, as ep__step_fed makes it.  The
 * state is kept for the next entry with the same byte, unless it is in a
 * string with fields (whose scanner's state is kept apart). */
static bool ep__feed_after_end(ep__mask_walk *m, ep__ended *ended, uint32_t depth, uint8_t byte)
{
    if (ended->next_have && ended->next_byte == byte) {
        m->parsed--;
        if (ended->next_ok)
            ep__reuse_next(m, ended, depth, byte);
        return ended->next_ok;
    }
    ep_snapshot snap = ended->snap;
    ep__snapshot_shift(&snap, ended->text_len, m->walk->at_depth[depth].text_len);
    ep_snapshot_apply(m->rec, &snap);
    char c = (char)byte;
    ended->next_have = true;
    ended->next_byte = byte;
    ended->next_ok = ep_feed(m->rec, &c, 1) == 1;
    if (!ended->next_ok)
        return false;
    ep__take_fed(m->rec, m->walk, depth, &snap, ended->epoch);
    const ep__step *child = &m->walk->at_depth[depth + 1];
    if (m->walk->marked[depth + 1] || child->field) {
        ended->next_have = false;
        return true;
    }
    ended->next_len = m->walk->at_depth[depth].text_len;
    ended->next_snap = m->walk->full[depth + 1];
    ended->next_step = *child;
    return true;
}

/* Feeds a node of a lexeme tree (under `at`, the state of the tree's node)
 * from its parent's state, which is set up from the tree's record of it with
 * the path's bytes written in place.  With `ended` (the frontier, in order
 * of the parent's state), a byte that ends the token reuses the token ended
 * for the previous such byte in that state; any other feed may take the
 * place of its charts, and forgets it. */
static void ep__feed_entry(ep__mask_walk *m, const ep__step *at, const ep_lentry *e, ep__ended *ended,
                           ep__fended *fended)
{
    const ep_tnode *nodes = m->trie->nodes, *n = &nodes[e->node];
    ep__walk *walk = m->walk;
    ep__step *parent = &walk->at_depth[n->depth];
    ep__step from = *at;
    from.dfa = e->parent.dfa;
    if (e->parent.accept_depth) {
        from.accept_end = at->text_len + e->parent.accept_depth;
        from.accept_lexeme = e->parent.accept_lexeme;
    }
    from.text_len = at->text_len + e->parent.depth;
    from.utf8_need = e->parent.utf8_need;
    from.utf8_lo = e->parent.utf8_lo;
    from.utf8_hi = e->parent.utf8_hi;
    *parent = from;
    char *text = m->rec->text.items + at->text_len;
    for (uint32_t r = e->parent.depth, up = n->parent; r >= 1; r--, up = nodes[up].parent)
        text[r - 1] = (char)nodes[up].byte;
    m->visited++;
    m->parsed++;   /* but a byte after an ended token fed before (ep__reuse_next) */
    bool viable;
    if (fended && ep__ends_token(m, &from, e, n->byte)) {
        viable = ep__field_feed_ended(m, fended, n->depth, n->byte);
    } else if (ended && ep__ends_token(m, &from, e, n->byte)) {
        int verdict = ep__check_verdict(m, &from);
        if (!ended->have || ended->dfa != from.dfa || ended->verdict != verdict) {
            ep_snapshot before = ep__snapshot_of(walk, &from);
            ep__restore(m->rec, walk, from.full, &before, NULL);
            ended->have = true;
            ended->verdict = verdict;
            ended->next_have = false;
            ended->dfa = from.dfa;
            ended->text_len = from.text_len;
            ended->ok = ep_end_token(m->rec);
            if (ended->ok) {
                ended->snap = ep_snapshot_take(m->rec);
                ended->epoch = ep__same_charts(&ended->snap, &before) ? from.epoch : ++walk->epochs;
            }
        }
        viable = ended->ok && ep__feed_after_end(m, ended, n->depth, n->byte);
    } else {
        if (ended)
            ended->have = false;
        if (fended)
            fended->have = false;
        viable = ep__step_fed_any(m->rec, walk, n->depth, n->byte);
    }
    if (viable)
        ep__below_fed(m, e->node);
}

/* Whether a state of a lexeme tree can grow into a lexeme allowed here. */
static bool ep__state_grows(ep__mask_walk *m, const ep__step *at, uint32_t dfa)
{
    ep__step probe = *at;
    probe.dfa = dfa;
    return ep__grows(m->walk, m->rec, &probe);
}

/* The subtree of `key`'s node (EP_TRIE_ROOT: the trie) in state `at`, from its
 * lexeme tree: the tokens of every state that grows; the entries of a state
 * that does not, under one that does, and the frontier under a state that
 * grows, fed (lextree.c says why that is the walk's answer). */
static void ep__walk_tree(ep__mask_walk *m, const ep_ltree_key *key, const ep__step *at_node)
{
    ep__step at = *at_node;   /* at_depth[] is written below */
    ep_ltree *owned;
    const ep_grammar *grammar = ep__token_of(m->rec, m->walk, &at).grammar;
    const ep_ltree *tree = ep_ltree_get(m->trie, grammar, ep_trie_names(grammar, m->rec->capture), key, &owned);
    m->trees++;
    m->visited += tree->n_nodes;
    for (uint32_t g = 0; g < tree->n_groups; g++) {
        const ep_lgroup *group = &tree->groups[g];
        if (ep__state_grows(m, &at, group->dfa)) {
            if (group->n_words) {
                for (uint32_t k = 0; k < group->n_words; k++) {
                    const ep_lword *w = &tree->words[group->first_word + k];
                    m->mask[w->index] |= w->bits;
                }
            } else {
                for (uint32_t k = 0; k < group->n_tokens; k++)
                    ep__set(m->mask, tree->tokens[group->first_token + k]);
            }
            m->allowed += group->n_tokens;
            continue;
        }
        for (uint32_t k = 0; k < group->n_entries; k++) {
            const ep_lentry *e = &tree->entries[group->first_entry + k];
            if (ep__state_grows(m, &at, e->parent.dfa))
                ep__feed_entry(m, &at, e, NULL, NULL);
        }
    }
    ep__ended ended = {0};
    ep__fended fended = {0};
    for (uint32_t k = 0; k < tree->n_frontier; k++) {
        const ep_lentry *e = &tree->frontier[k];
        if (ep__state_grows(m, &at, e->parent.dfa))
            ep__feed_entry(m, &at, e, at.field ? NULL : &ended, at.field ? &fended : NULL);
    }
    ep_ltree_free(owned);
}

uint32_t ep_trie_viable(const ep_trie *t, ep_recognizer *rec, uint64_t *mask, ep_trie_stats *stats)
{
    memset(mask, 0, ((t->n_tokens + 63) / 64) * sizeof *mask);
    if (stats)
        *stats = (ep_trie_stats){0};
    if (!ep_viable(rec))
        return 0;
    uint32_t allowed;
    if (ep_trie_memo_find(rec, t, mask, &allowed)) {
        if (stats) {
            stats->copied = true;
            stats->in_fields = ep__in_modal_string(rec);
        }
        return allowed;
    }
    /* the path's bytes are written in place: room for the deepest */
    sm_array_reserve(&rec->text, rec->text.size + EP_TRIE_MAX_BYTES + 1);
    ep__walk *walk = sm_malloc(sizeof *walk);
    uint32_t states = rec->grammar->dfa.state_count;
    walk->grow_epoch = sm_calloc(states, sizeof *walk->grow_epoch);
    walk->grows = sm_malloc(states * sizeof *walk->grows);
    walk->epochs = 0;
    walk->full[0] = ep_snapshot_take(rec);
    memset(walk->marks, 0, sizeof walk->marks);
    walk->field_allowed = NULL;
    walk->field_words = 0;
    walk->loop_ok = -1;
    ep__mark(rec, walk, 0);
    bool in_fields = walk->marked[0], memo_was = rec->earley.memo_on;
    uint64_t made = rec->earley.scans_made, copied = rec->earley.memo_copies;
    /* the walk scans the same tokens after the same paths again and again */
    rec->earley.memo_on = true;
    ep__step_of(rec, walk, 0, &walk->at_depth[0]);
    walk->at_depth[0].epoch = 0;
    /* the cache of lexeme trees is the trie's only mutable part */
    ep__mask_walk m = {.trie = (ep_trie *)t, .rec = rec, .walk = walk, .mask = mask};
    ep_ltree_key key;
    if (ep__tree_fits(&m, EP_TRIE_ROOT, &walk->at_depth[0], &key))
        ep__walk_tree(&m, &key, &walk->at_depth[0]);
    else
        ep__walk_range(&m, 0, t->n_nodes);
    ep__restore(rec, walk, 0, NULL, NULL);
    rec->earley.memo_on = memo_was;
    ep_trie_memo_keep(rec, t, mask, m.allowed);
    for (uint32_t d = 0; d <= EP_TRIE_MAX_BYTES; d++)
        if (walk->marks[d])
            ep_fields_of(rec->grammar)->mark_free(walk->marks[d]);
    sm_free(walk->field_allowed);
    sm_free(walk->grow_epoch);
    sm_free(walk->grows);
    sm_free(walk);
    if (stats) {
        stats->nodes = m.visited;
        stats->parsed = m.parsed;
        stats->trees = m.trees;
        stats->scans_made = rec->earley.scans_made - made;
        stats->scans_copied = rec->earley.memo_copies - copied;
        stats->in_fields = in_fields;
    }
    return m.allowed;
}
