/*
 * lexer.c - the recognizer's lexer: a maximal-munch lexer that moves one
 * byte at a time on the parser's terms.  The run keeps the parser chart
 * before the token in progress, the automaton state of that token, and the
 * longest prefix of it that some lexeme accepts.  When the automaton dies
 * the token is the longest accepted prefix and the bytes after it are
 * lexed again.  A finished token passes the language's checks beyond the
 * patterns (its %lexical rules: names' characters, escapes, strings'
 * fields, numbers; and %check) before the parser scans it; a string with
 * fields read with modes follows its scanner past its opening quote
 * (languages/python/fields.c).
 */
#include "ep_earley.h"
#include "ep_recognizer.h"
#include "ep_fields.h"

#include <string.h>

bool ep_has_brace(const char *token, size_t len)
{
    return memchr(token, '{', len) || memchr(token, '}', len);
}

bool ep_str_literal(const ep_grammar *g, const char *token, size_t len, bool *is_f, bool *raw)
{
    if (g->lexical && g->lexical->string_shape)
        return g->lexical->string_shape(token, len, is_f, raw);
    if (is_f)
        *is_f = false;
    if (raw)
        *raw = false;
    return len > 0 && (token[0] == '\'' || token[0] == '"');
}

/* The recognizer that parses f-string fields, made on first use; NULL only
 * if it cannot be made (then no f-string is accepted). */
/* The brackets open around the token in progress, for the limit on
 * them inside f-strings: none counted while the recognizer captures a
 * right context's tokens, whose depth is measured from an arbitrary base
 * (fim.c). */
static uint32_t ep__real_depth(const ep_recognizer *rec, const ep_run *run)
{
    return rec->capture ? 0 : run->depth;
}

static ep_recognizer *ep__fields(ep_recognizer *rec)
{
    if (!rec->fields) {
        const ep_grammar *g = rec->grammar;
        rec->fields = ep_fields_of(g)->fields_new(g->original ? g->original : g);
    }
    return rec->fields;
}

/* Hands a finished token to the layout and the parser. */
static bool ep__commit(ep_recognizer *rec, ep_run *run, int32_t lexeme, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    if (lexeme < 0)
        return false;
    const ep_lexeme *lex = &g->lexemes[lexeme];
    bool indent = g->layout == EP_LAYOUT_INDENT;
    bool asi = g->layout == EP_LAYOUT_ASI;
    const lg_lexical *lx = g->lexical;
    if (lex->first && run->tok_start != 0)
        return false;
    switch (lex->kind) {
    case EP_LEX_ERROR:
        return false;
    case EP_LEX_IGNORE:
    case EP_LEX_COMMENT:
        if (asi && lex->kind == EP_LEX_COMMENT &&
            ep_asi_line_terminator(rec->text.items + run->tok_start, end - run->tok_start))
            run->line_break = true;
        /* a file may not end right after a backslash join, but anything
         * after the join, even a comment or spaces, is a line of its own */
        run->continued = false;
        return true;
    case EP_LEX_CONTINUATION:
        run->continued = true;
        return true;
    case EP_LEX_NEWLINE:
        run->continued = false;
        run->line_break = true;
        if (!indent || run->depth > 0)
            return true;
        if (run->line_has_tokens && !ep_layout_scan(rec, run, g->t_newline))
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
    if (lx && lx->name_valid && !lx->name_valid(token, end - run->tok_start))
        return false; /* a character the language does not allow in a name */
    /* f-string expressions are parsed with the compiled grammar, not with a
     * quotient derived from it */
    if (ep_fields_token(rec, run->tok_start, end)) {
        if (!ep_fields_of(g)->valid(rec, ep__fields(rec), run->tok_start, ep__real_depth(rec, run), end, true))
            return false;
    } else if (lex->fstring && lx && lx->escapes_valid && !lx->escapes_valid(token, end - run->tok_start, true, &from)) {
        return false;
    }
    if (lx && lx->number_valid && lex->terminals[0] == g->t_number && g->t_number != EP_NONE &&
        !lx->number_valid(token, end - run->tok_start))
        return false;
    const uint32_t *terminals = lex->terminals;
    uint32_t count = lex->terminals[1] == EP_NONE ? 1 : 2;
    if (lex->check && !lex->check(token, end - run->tok_start)) {
        if (count == 1 || lex->check_strict)
            return false;
        terminals++;   /* scanned only as its %also terminal */
        count = 1;
    }
    if (asi ? !ep_asi_scan(rec, run, terminals, count, end) : !ep_layout_scan_token(rec, run, terminals, count))
        return false;
    run->line_has_tokens = true;
    run->at_line_start = false;
    if (indent && lex->bracket == EP_BRACKET_OPEN) {
        if (++run->depth > EP_MAX_DEPTH)
            return false;
    } else if (indent && lex->bracket == EP_BRACKET_CLOSE) {
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
bool ep_lex_relex(ep_recognizer *rec, ep_run *run, uint32_t end)
{
    uint32_t relex_from = run->accept_end;
    if (relex_from == run->tok_start)
        return false; /* no lexeme accepts any prefix: a lexical error */
    uint8_t keep = rec->grammar->lexemes[run->accept_lexeme].keep;
    if (keep && run->tok_start + keep < relex_from)
        relex_from = run->tok_start + keep;   /* trailing context: read again */
    if (!ep__commit(rec, run, run->accept_lexeme, relex_from))
        return false;
    run->dfa = EP_DFA_START;
    for (uint32_t i = relex_from; i < end; i++)
        if (!ep_lex_byte(rec, run, i))
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
    int status = ep_fields_of(g)->modal_step(rec, run->tok_start, ep__real_depth(rec, run), at);
    if (status == EP_MODAL_PAST)
        return ep_lex_relex(rec, run, at + 1);
    if (status == EP_MODAL_ERROR)
        return false;
    uint32_t next = ep_dfa_step(&g->dfa, run->dfa, (uint8_t)rec->text.items[at]);
    if (next == EP_DFA_DEAD)
        return false;
    run->dfa = next;
    int32_t winner = ep_lex_winner(g, run->goals, next);
    if (status == EP_MODAL_CLOSED && winner >= 0 && g->lexemes[winner].fstring) {
        run->accept_end = at + 1;
        run->accept_lexeme = winner;
    } else {
        run->accept_end = run->tok_start;
        run->accept_lexeme = -1;
    }
    return true;
}

/* Moves the run over the byte at text[at]. */
bool ep_lex_byte(ep_recognizer *rec, ep_run *run, uint32_t at)
{
    const ep_grammar *g = rec->grammar;
    uint8_t byte = (uint8_t)rec->text.items[at];
    if (run->dfa == EP_DFA_START) {
        run->tok_start = at;
        run->accept_end = at;
        run->accept_lexeme = -1;
    } else if (ep_fields_modal_token(rec, run->tok_start, at)) {
        return ep__feed_modal(rec, run, at);
    }
    uint32_t next = ep_dfa_step(&g->dfa, run->dfa, byte);
    /* a token that can only grow into excluded goal lexemes ends here */
    if (next != EP_DFA_DEAD && g->goal_count && run->dfa != EP_DFA_START && !rec->capture &&
        !ep_asi_can_grow(rec, run, next))
        next = EP_DFA_DEAD;
    if (next == EP_DFA_DEAD) {
        if (run->dfa == EP_DFA_START)
            return false;
        return ep_lex_relex(rec, run, at + 1);
    }
    if (run->dfa == EP_DFA_START && g->layout == EP_LAYOUT_INDENT && run->at_line_start &&
        run->depth == 0 && ep_layout_real_token(g, next)) {
        if (!ep_layout_indent(rec, run, at))
            return false;
        run->at_line_start = false;
    }
    if (run->dfa == EP_DFA_START && g->layout == EP_LAYOUT_ASI && !rec->capture && ep_asi_real_token(rec, run, next))
        ep_asi_token_start(rec, run, byte);
    run->dfa = next;
    int32_t winner = ep_lex_winner(g, run->goals, next);
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
    return ep_run_can_grow_by(rec->grammar, run->dfa, ep_run_allowed(rec, run), ep_run_newline_ok(rec, run));
}

const uint64_t *ep_run_allowed(const ep_recognizer *rec, const ep_run *run)
{
    if (rec->grammar->layout == EP_LAYOUT_ASI && !rec->capture)
        return ep_asi_allowed(rec, run);
    return ep_earley_allowed(&rec->earley, run->chart);
}

bool ep_run_newline_ok(const ep_recognizer *rec, const ep_run *run)
{
    const ep_grammar *g = rec->grammar;
    return g->layout != EP_LAYOUT_INDENT || run->depth > 0 || !run->line_has_tokens ||
           ep_earley_can_scan(&rec->earley, run->chart, g->t_newline);
}

bool ep_run_can_grow_by(const ep_grammar *g, uint32_t dfa, const uint64_t *allowed, bool newline_ok)
{
    const uint64_t *reachable = ep_dfa_reachable(&g->dfa, dfa);
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

/* Whether the token in progress can still become a valid one as far as
 * the language's checks beyond the lexer's patterns go (its %lexical rules): a name's characters, a
 * str literal's "\N{...}" names and an f-string's fields, each checked as
 * far as it has been typed, so that a broken one is refused where it breaks,
 * not when the token ends. */
/* Whether a token in progress that can only be a name (its automaton
 * state, `state`: ep_lex_only_name) holds only characters past ASCII that a
 * name may (lg_lexical's name_char_valid, the first at the token's start).
 * A character no name may hold stays in the token whatever follows, so the
 * token is refused where it is typed (JavaScript's "\xef\xbc\x8c", a
 * full-width comma, at the start of a statement), as the vocabulary walk
 * refuses it.  For a language without a whole-token name test (name_valid). */
static bool ep__name_chars_valid(const ep_grammar *g, uint32_t state, const char *token, size_t len)
{
    bool (*name_char)(uint32_t, bool) = g->lexical->name_char_valid;
    if (!name_char || !ep_lex_only_name(g, state))
        return true;
    for (size_t at = 0; at < len;) {
        unsigned char c = (unsigned char)token[at];
        size_t width = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (at + width > len)
            break;   /* a character cut short: the rest comes later */
        uint32_t cp = c & (width == 1 ? 0x7F : width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07);
        for (size_t k = 1; k < width; k++)
            cp = (cp << 6) | ((unsigned char)token[at + k] & 0x3F);
        if (width > 1 && !name_char(cp, at == 0))
            return false;
        at += width;
    }
    return true;
}

bool ep_run_token_so_far(ep_recognizer *rec, const ep_run *run, uint32_t end)
{
    const ep_grammar *g = rec->grammar;
    const char *token = rec->text.items + run->tok_start;
    uint32_t len = end - run->tok_start;
    const lg_lexical *lx = g->lexical;
    if (rec->capture)
        return true;
    /* an opening bracket past the layout's nesting limit is refused where
     * it is typed, not when the next character ends its token */
    if (g->layout == EP_LAYOUT_INDENT && run->accept_end == end && run->accept_lexeme >= 0 &&
        g->lexemes[run->accept_lexeme].bracket == EP_BRACKET_OPEN && run->depth >= EP_MAX_DEPTH)
        return false;
    if (!lx)
        return true;
    if (lx->name_valid && !lx->name_valid(token, len))
        return false;
    if (!lx->name_valid && !ep__name_chars_valid(g, run->dfa, token, len))
        return false;
    if (ep_fields_token(rec, run->tok_start, end))
        return ep_fields_of(g)->valid(rec, ep__fields(rec), run->tok_start, ep__real_depth(rec, run), end, false);
    if (!lx->escapes_valid || !ep_str_literal(g, token, len, NULL, NULL))
        return true;
    bool finished = run->accept_end == end && run->accept_lexeme >= 0 && g->lexemes[run->accept_lexeme].fstring;
    ep_string_check *seen = &rec->string_check;
    if (seen->tok_start != run->tok_start || seen->checked > end) {
        seen->tok_start = run->tok_start;
        seen->checked = run->tok_start;
    }
    size_t escapes = seen->checked - run->tok_start;
    bool ok = lx->escapes_valid(token, len, finished, &escapes);
    seen->checked = run->tok_start + (uint32_t)escapes;
    return ok;
}

bool ep_run_in_text(ep_recognizer *rec, const ep_run *run, uint32_t end, uint8_t *stop)
{
    const struct lg_fields *fields = ep_fields_of(rec->grammar);
    return !rec->capture && fields && fields->in_text(rec, run->tok_start, ep__real_depth(rec, run), end, stop);
}

ep_recognizer *ep_run_field(ep_recognizer *rec, const ep_run *run, uint32_t end, int64_t *offset)
{
    const struct lg_fields *fields = ep_fields_of(rec->grammar);
    if (rec->capture || !fields)
        return NULL;
    return fields->field(rec, run->tok_start, ep__real_depth(rec, run), end, offset);
}
