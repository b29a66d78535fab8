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
 */
#include "ep_trie.h"

#include <string.h>

/* Heads longer than this are not kept. */
#define EP__HEAD 8

struct ep_trie_memo {
    uint64_t fingerprint;     /* the trie's */
    uint32_t n_tokens;
    uint32_t dfa;
    int32_t lexeme;
    uint32_t allowed;
    uint8_t head_len;
    char head[EP__HEAD];      /* the token's head */
    SM_ARRAY(char) prefix;    /* P, the text before the token: its size is
                               * where the token starts */
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

/* The length of the head of `rec`'s token in progress when a memo may
 * serve there (the comment at the top says when), else -1. */
static int ep__plain_head(ep_recognizer *rec)
{
    const ep_grammar *g = rec->grammar;
    const ep_run *run = &rec->run;
    uint32_t len = rec->text.size;
    bool whole = run->accept_lexeme >= 0 && run->accept_end == len;
    bool none = run->accept_lexeme < 0 && run->accept_end == run->tok_start;
    if (!g->lexical || !g->lexical->plain_head || run->dead || run->dfa == EP_DFA_START || !(whole || none) ||
        rec->utf8_need || (size_t)len + EP_TRIE_MAX_BYTES + 1 >= EP_MAX_TEXT ||
        ep__may_keep_extent(g, run))
        return -1;
    const char *token = rec->text.items + run->tok_start;
    uint32_t token_len = len - run->tok_start;
    if (g->layout == EP_LAYOUT_ASI && ep_asi_line_terminator(token, token_len))
        return -1;
    int head = g->lexical->plain_head(token, token_len);
    return head <= EP__HEAD ? head : -1;
}

bool ep_trie_memo_find(ep_recognizer *rec, const ep_trie *trie, uint64_t *mask, uint32_t *allowed)
{
    const struct ep_trie_memo *memo = rec->trie_memo;
    if (!memo || !memo->have || memo->fingerprint != trie->fingerprint || memo->n_tokens != trie->n_tokens ||
        memo->prefix.size != rec->run.tok_start || memo->dfa != rec->run.dfa || memo->lexeme != rec->run.accept_lexeme)
        return false;
    int head = ep__plain_head(rec);
    uint32_t p = memo->prefix.size;
    if (head != memo->head_len || memcmp(memo->head, rec->text.items + p, (size_t)head) != 0 ||
        memcmp(memo->prefix.items, rec->text.items, p) != 0)
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
    int head = ep__plain_head(rec);
    if (head < 0)
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
    uint32_t p = rec->run.tok_start;
    sm_array_reserve(&memo->prefix, p + 1);
    memcpy(memo->prefix.items, rec->text.items, p);
    memo->prefix.size = p;
    memo->head_len = (uint8_t)head;
    memcpy(memo->head, rec->text.items + p, (size_t)head);
    memo->fingerprint = trie->fingerprint;
    memo->n_tokens = trie->n_tokens;
    memo->dfa = rec->run.dfa;
    memo->lexeme = rec->run.accept_lexeme;
    memo->allowed = allowed;
    memo->have = true;
}

void ep_trie_memo_free(struct ep_trie_memo *memo)
{
    if (!memo)
        return;
    sm_array_free(&memo->prefix);
    sm_free(memo->mask);
    sm_free(memo);
}
