/*
 * trie_memo.c - the last mask made inside a plain token, kept by the
 * recognizer (ep_trie.h) and copied where it serves.
 *
 * A recognizer's state is a function of its text.  Two positions whose
 * texts are P + u and P + v, u and v the token in progress, give every
 * token t the same verdict when:
 *  - the lexer's automaton is in the same state after u and after v, and
 *    both are accepted whole as the same lexeme or not at all (a string
 *    before its closing quote): it reads the rest alike, and the token
 *    ends as the same lexeme after the same bytes of t.  A token accepted
 *    in part (Python's b'x, whose "b" is a name) may fall back to that part
 *    and read the rest of its text again;
 *  - the language's checks and its scanner of strings with fields read no
 *    more of u and v than a head they share (lg_lexical's plain_head:
 *    nothing of a name, a comment's opening, a string's prefix and quotes
 *    while it has no escape and, with fields, no brace);
 *  - the parser reads nothing else of them: not a token that may end as a
 *    name whose text it keeps (ep_trie_keeps_extent: a private name, a
 *    tag's name), nor a comment's line break, which automatic semicolon
 *    insertion counts;
 *  - the parser's state is that of P (the same text before the token, so
 *    the same charts, indentation, brackets and goals).
 * The memo keeps P itself, compared byte for byte, so nothing of the state
 * is taken on trust; the vocabulary is told apart by its fingerprint.
 *
 * In a field of a string with fields (Python's f-strings from 3.12) the
 * token in progress is the field's expression's, parsed by a recognizer of
 * its own: the same holds of that token, a name, when the string's scanner
 * reads each of its bytes as the expression's and decides nothing by them
 * (lg_fields.field), and the string itself is in the same state (P ends
 * inside it).
 */
#include "ep_trie.h"

#include <string.h>

/* Heads longer than this are not kept. */
#define EP__HEAD 8

/* Where a kept mask may serve: the token in progress, rec's own or, in a
 * field of a string with fields, the field's expression's. */
typedef struct ep__memo_key {
    uint32_t start;           /* where the token starts in rec's text: P's size */
    uint32_t dfa;             /* its automaton state */
    int32_t lexeme;           /* and accepted lexeme (-1: none) */
    uint32_t outer_start;     /* rec's own token (the string, in a field) */
    uint32_t outer_dfa;
    int32_t outer_lexeme;
    bool field;
    uint8_t head_len;
} ep__memo_key;

struct ep_trie_memo {
    uint64_t fingerprint;     /* the trie's */
    uint32_t n_tokens;
    ep__memo_key key;
    uint32_t allowed;
    char head[EP__HEAD];      /* the token's head */
    SM_ARRAY(char) prefix;    /* P, the text before the token */
    uint64_t *mask;           /* owned, ceil(n_tokens / 64) words */
    size_t words;
    bool have;
};

/* Whether the token in progress may end as a lexeme whose text the parser
 * keeps (ep_trie_keeps_extent): any its automaton state still reaches. */
static bool ep__may_keep_extent(const ep_grammar *g, const ep_run *run)
{
    const uint64_t *reach = ep_dfa_reachable(&g->dfa, run->dfa);
    for (uint32_t l = 0; l < g->lexeme_count; l++)
        if (((reach[l / 64] >> (l % 64)) & 1) && ep_trie_keeps_extent(g, run, (int32_t)l))
            return true;
    return false;
}

/* Whether nothing of run's token in progress has been accepted yet. */
static bool ep__accepts_none(const ep_run *run)
{
    return run->accept_lexeme < 0 && run->accept_end == run->tok_start;
}

/* The length of the head of `rec`'s token in progress (its text ends at
 * rec's own end) when a memo may serve there (the comment at the top says
 * when), else -1. */
static int ep__plain_head(const ep_recognizer *rec)
{
    const ep_grammar *g = rec->grammar;
    const ep_run *run = &rec->run;
    uint32_t len = rec->text.size;
    bool whole = run->accept_lexeme >= 0 && run->accept_end == len;
    bool none = ep__accepts_none(run);
    if (!g->lexical || !g->lexical->plain_head || run->dead || run->dfa == EP_DFA_START || !(whole || none) ||
        rec->utf8_need || ep__may_keep_extent(g, run))
        return -1;
    const char *token = rec->text.items + run->tok_start;
    uint32_t token_len = len - run->tok_start;
    if (g->layout == EP_LAYOUT_ASI && ep_asi_line_terminator(token, token_len))
        return -1;
    int head = g->lexical->plain_head(token, token_len);
    return head <= EP__HEAD ? head : -1;
}

/* The head of the token in progress of the expression in a field of rec's
 * string with fields, when a memo may serve there, else -1; key's token is
 * set to that token.  The expression's recognizer is fed up to rec's end,
 * and its token is a name, each of whose bytes the string's scanner reads
 * as the expression's and decides nothing by (lg_fields.field): what else
 * reads it is that recognizer, whose state stands to its token as rec's
 * does to its own. */
static int ep__field_head(ep_recognizer *rec, ep__memo_key *key)
{
    const ep_run *run = &rec->run;
    int64_t offset;
    /* the token's checks bring the open field's recognizer to the end */
    if (!ep__accepts_none(run) || !ep_fields_modal_token(rec, run->tok_start, rec->text.size) ||
        !ep_run_token_so_far(rec, run, rec->text.size))
        return -1;
    const ep_recognizer *fields = ep_run_field(rec, run, rec->text.size, &offset);
    if (!fields || offset < 0 || (int64_t)fields->text.size + offset != (int64_t)rec->text.size ||
        ep__plain_head(fields) != 0)
        return -1;
    uint32_t start = (uint32_t)(fields->run.tok_start + offset);
    for (uint32_t i = start; i < rec->text.size; i++)
        if (!ep_fields_expr_byte(rec->grammar, (uint8_t)rec->text.items[i]))
            return -1;
    key->start = start;
    key->dfa = fields->run.dfa;
    key->lexeme = fields->run.accept_lexeme;
    key->field = true;
    return 0;
}

/* The key of rec's position; false where no memo may serve. */
static bool ep__key_of(ep_recognizer *rec, ep__memo_key *key)
{
    const ep_run *run = &rec->run;
    if (run->dead || run->dfa == EP_DFA_START || (size_t)rec->text.size + EP_TRIE_MAX_BYTES + 1 >= EP_MAX_TEXT)
        return false;
    *key = (ep__memo_key){.start = run->tok_start, .dfa = run->dfa, .lexeme = run->accept_lexeme,
                          .outer_start = run->tok_start, .outer_dfa = run->dfa, .outer_lexeme = run->accept_lexeme};
    int head = ep__plain_head(rec);
    if (head < 0 && ep_fields_of(rec->grammar))
        head = ep__field_head(rec, key);
    key->head_len = (uint8_t)head;
    return head >= 0;
}

static bool ep__same_key(const ep__memo_key *a, const ep__memo_key *b)
{
    return a->start == b->start && a->dfa == b->dfa && a->lexeme == b->lexeme && a->outer_start == b->outer_start &&
           a->outer_dfa == b->outer_dfa && a->outer_lexeme == b->outer_lexeme && a->field == b->field &&
           a->head_len == b->head_len;
}

bool ep_trie_memo_find(ep_recognizer *rec, const ep_trie *trie, uint64_t *mask, uint32_t *allowed)
{
    const struct ep_trie_memo *memo = rec->trie_memo;
    if (!memo || !memo->have || memo->fingerprint != trie->fingerprint || memo->n_tokens != trie->n_tokens ||
        memo->key.outer_start != rec->run.tok_start || memo->key.outer_dfa != rec->run.dfa)
        return false;
    ep__memo_key key;
    if (!ep__key_of(rec, &key) || !ep__same_key(&key, &memo->key))
        return false;
    uint32_t p = key.start;
    if (memcmp(memo->head, rec->text.items + p, key.head_len) != 0 || memcmp(memo->prefix.items, rec->text.items, p) != 0)
        return false;
    memcpy(mask, memo->mask, memo->words * sizeof *mask);
    *allowed = memo->allowed;
    return true;
}

void ep_trie_memo_keep(ep_recognizer *rec, const ep_trie *trie, const uint64_t *mask, uint32_t allowed)
{
    struct ep_trie_memo *memo = rec->trie_memo;
    if (memo)
        memo->have = false;
    ep__memo_key key;
    if (!ep__key_of(rec, &key))
        return;
    if (!memo) {
        memo = rec->trie_memo = sm_calloc(1, sizeof *memo);
        sm_array_init(&memo->prefix);
    }
    size_t words = ((size_t)trie->n_tokens + 63) / 64;
    if (memo->words != words) {
        sm_free(memo->mask);
        memo->mask = sm_malloc(words * sizeof *memo->mask);
        memo->words = words;
    }
    memcpy(memo->mask, mask, words * sizeof *mask);
    uint32_t p = key.start;
    sm_array_reserve(&memo->prefix, p + 1);
    memcpy(memo->prefix.items, rec->text.items, p);
    memo->prefix.size = p;
    memcpy(memo->head, rec->text.items + p, key.head_len);
    memo->key = key;
    memo->fingerprint = trie->fingerprint;
    memo->n_tokens = trie->n_tokens;
    memo->allowed = allowed;
    memo->have = true;
}

void ep_trie_forget(ep_recognizer *rec)
{
    if (rec->trie_memo)
        rec->trie_memo->have = false;
}

void ep_trie_memo_free(struct ep_trie_memo *memo)
{
    if (!memo)
        return;
    sm_array_free(&memo->prefix);
    sm_free(memo->mask);
    sm_free(memo);
}
