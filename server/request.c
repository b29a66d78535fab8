/*
 * request.c - how every completion is set up, whichever front end asks:
 * the scope at the cursor, the job's options, and the recognizer with as
 * much of the code after the cursor bound as the code allows.
 *
 * The quotient recognizer promises left + middle + right is a program.  On
 * finished code that is the right promise; on code being typed it is not.
 * The rest of the cursor's line is then mostly what the editor closed for
 * the person (`)`, `")`), the line's own end (a header's colon) is still to
 * come, and at the end of a file nothing follows at all: no middle written
 * on the line joins the code after it, or only filler does.  So the
 * binding is chosen at set-up, strictest first:
 *
 *   whole  left + middle + right is a program (the whole right context,
 *          where some middle can join it and code follows the line);
 *   line   left + middle + rest + c + after is a program for some c: the
 *          rest of the line binds (a completion never writes its closers
 *          again), the code after the line may follow once the person has
 *          finished the line;
 *   end    left + middle + rest can still become a program: nothing but
 *          blank space follows the line, and the end of the file is never
 *          taken for the end of the program.
 *
 * One recognizer serves each: the quotient by the whole right context, by
 * the code after the line, or by nothing.  Under line and end a middle
 * may end where it closes what it opened and feeding it the line's rest
 * leaves the recognizer viable.  A middle always joins the whole right
 * context somehow (filler can), so whole is chosen wherever code follows;
 * when the model's middles found no end under it and the rest of the
 * line is the editor's closers (`const { a, b|}`, the person's ` = props;`
 * still to come), the engine binds the line and decodes again
 * (srv_bound_line_possible).
 * docs/RECOGNIZER.md has the exactness argument.
 */
#include "seam_server.h"
#include "seam_languages.h"

#include <string.h>

const char *srv_binding_name(srv_binding binding)
{
    static const char *const names[] = {"whole", "line", "end"};
    return (unsigned)binding < sizeof names / sizeof *names ? names[binding] : "?";
}

static bool srv__blank(const char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\f')
            return false;
    return true;
}

/* Whether text[from, to) is an editor's closers with at least one closer:
 * what the person types past, not blank space alone. */
static bool srv__closers_only(const char *text, size_t from, size_t to)
{
    return !srv__blank(text, from, to) && lg_editor_closers(text, from, to);
}

void srv_contexts_of(const lg_scope *scope, const char *text, size_t len, size_t offset, bool cut, bool whole_only,
                     srv_contexts *out)
{
    memset(out, 0, sizeof *out);
    out->cut_left = cut ? scope->cut_left : 0;
    out->cut_right = cut ? scope->cut_right : len;
    out->lex = scope->lex;
    out->language = scope->language;
    out->line_end = scope->line_end;
    out->next_line = scope->next_line < out->cut_right ? scope->next_line : out->cut_right;
    out->at_end = scope->at_end;
    out->whole_only = whole_only;
    out->rest_is_code = scope->rest_is_code;
    if (whole_only) {
        out->whole_first = true;
    } else if (scope->at_end) {
        out->why = "nothing follows the cursor's line";
    } else if (scope->colon_unwritten && srv__closers_only(text, offset, scope->line_end)) {
        /* (other text after the cursor, a comment's words or code, is the
         * person's and binds as written) */
        out->why = "the header's colon comes after the rest of the line";
    } else if (scope->colon_unwritten && !scope->body_below && !scope->rest_is_code) {
        /* (a header whose line goes on with the person's code is finished
         * code with a hole: the middle writes what joins that code) */
        out->why = "the header's body is not written yet";
    } else {
        out->whole_first = true;
    }
    /* A file may begin with a UTF-8 byte-order mark, which CPython skips
     * when it reads the file: the program starts after it (for every
     * front end: seam check's cases too). */
    if (len >= 3 && offset >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        out->text_start = 3;
        if (out->cut_left < 3)
            out->cut_left = 3;
    }
}

/* ---- The recognizer ---------------------------------------------------------------- */

void srv_rec_cache_free(srv_rec_cache *cache)
{
    if (!cache)
        return;
    ep_recognizer_free(cache->rec);
    sm_free(cache->left);
    sm_free(cache->right);
    sm_free(cache->refused_left);
    sm_free(cache->refused_right);
    sm_free(cache);
}

/* Whether the cached recognizer serves these contexts. */
static bool srv__cache_fits(const srv_rec_cache *c, const ep_grammar *grammar, const char *left, size_t left_len,
                            const char *right, size_t right_len)
{
    return c && c->rec && c->grammar == grammar && c->left_len <= left_len && c->right_len == right_len &&
           memcmp(c->left, left, c->left_len) == 0 && memcmp(c->right, right, right_len) == 0;
}

/* The cache's recognizer for (left, right): kept and fed only the new
 * bytes of the left context when it serves them (typing forward), else
 * built anew. */
static int srv__open(const ep_grammar *grammar, srv_rec_cache *c, const char *left, size_t left_len, const char *right,
                     size_t right_len, bool *reused)
{
    *reused = false;
    if (srv__cache_fits(c, grammar, left, left_len, right, right_len)) {
        ep_restore(c->rec, c->point);
        ep_feed(c->rec, left + c->left_len, left_len - c->left_len);
        c->point = ep_save(c->rec);
        sm_free(c->left);
        c->left = sm_strndup(left, left_len);
        c->left_len = left_len;
        *reused = true;
        return SM_OK;
    }
    ep_recognizer_free(c->rec);
    sm_free(c->left);
    sm_free(c->right);
    c->rec = NULL;
    c->left = c->right = NULL;
    c->left_len = c->right_len = 0;
    int rc = ep_recognizer_new_fim(grammar, left, left_len, right, right_len, &c->rec);
    if (rc != SM_OK)
        return rc;
    c->grammar = grammar;
    c->point = ep_save(c->rec);
    c->left = sm_strndup(left, left_len);
    c->left_len = left_len;
    c->right = sm_strndup(right, right_len);
    c->right_len = right_len;
    return SM_OK;
}

/* Whether no middle can join `left` to `right`, as found before. */
static bool srv__known_refused(const srv_rec_cache *c, const char *left, size_t left_len, const char *right,
                               size_t right_len)
{
    return c->refused_left && c->refused_left_len <= left_len && c->refused_right_len == right_len &&
           memcmp(c->refused_left, left, c->refused_left_len) == 0 && memcmp(c->refused_right, right, right_len) == 0;
}

/* Opens the recognizer for (left, right) and answers whether some middle
 * joins them; what it refuses is remembered in the cache. */
static int srv__try(const ep_grammar *grammar, srv_rec_cache *c, const char *left, size_t left_len, const char *right,
                    size_t right_len, bool *reused, bool *joins)
{
    *joins = false;
    *reused = false;
    if (srv__known_refused(c, left, left_len, right, right_len))
        return SM_OK;
    int rc = srv__open(grammar, c, left, left_len, right, right_len, reused);
    if (rc != SM_OK)
        return rc;
    *joins = ep_viable(c->rec);
    if (!*joins) {
        sm_free(c->refused_left);
        sm_free(c->refused_right);
        c->refused_left = sm_strndup(left, left_len);
        c->refused_left_len = left_len;
        c->refused_right = sm_strndup(right, right_len);
        c->refused_right_len = right_len;
    }
    return SM_OK;
}

int srv_bound_open(const ep_grammar *grammar, const char *text, size_t len, size_t offset, const srv_contexts *contexts,
                   srv_rec_cache *cache, srv_bound *out)
{
    memset(out, 0, sizeof *out);
    out->grammar = grammar;
    out->text = text;
    out->len = len;
    out->offset = offset;
    out->contexts = *contexts;
    const srv_contexts *x = contexts;
    const char *left = text + x->cut_left;
    size_t left_len = offset - x->cut_left;
    int rc;
    bool joins;
    out->why = x->why;
    if (x->whole_only) {
        rc = srv__open(grammar, cache, left, left_len, text + offset, x->cut_right - offset, &out->reused);
        out->rec = cache->rec;
        out->binding = SRV_BINDING_WHOLE;
        out->why = "asked for";
        return rc;
    }
    if (x->whole_first) {
        rc = srv__try(grammar, cache, left, left_len, text + offset, x->cut_right - offset, &out->reused, &joins);
        if (rc != SM_OK || joins) {
            out->rec = cache->rec;
            out->binding = SRV_BINDING_WHOLE;
            out->why = "some middle joins the code after the cursor";
            return rc;
        }
        out->why = "no middle joins the code after the cursor";
    }
    if (!x->at_end) {
        rc = srv__try(grammar, cache, left, left_len, text + x->next_line, x->cut_right - x->next_line, &out->reused,
                      &joins);
        if (rc != SM_OK || joins) {
            out->rec = cache->rec;
            out->binding = SRV_BINDING_LINE;
            return rc;
        }
        out->why = "no middle joins the code after the cursor's line";
    }
    rc = srv__open(grammar, cache, left, left_len, "", 0, &out->reused);
    out->rec = cache->rec;
    out->binding = SRV_BINDING_END;
    return rc;
}

/* ---- The end ----------------------------------------------------------------------- */

/* The lexical state at the right cut after the middle.  Lexing the right
 * part depends only on the state the middle leaves, so a few transitions
 * are remembered: most middles leave one of a handful of states. */
static void srv__state_at_cut(srv_lex_memo *memo, const lg_language *language, const lg_lex *at_cursor,
                              const char *middle, size_t middle_len, const char *right, size_t right_len, lg_lex *end)
{
    lg_lex after;
    lg_lex_after(language, at_cursor, middle, middle_len, &after);
    for (uint32_t i = 0; memo && i < memo->count; i++) {
        if (lg_lex_same(&memo->from[i], &after)) {
            *end = memo->to[i];
            return;
        }
    }
    lg_lex_after(language, &after, right, right_len, end);
    if (memo) {
        uint32_t slot = memo->count < SRV_LEX_MEMO ? memo->count++ : memo->next++ % SRV_LEX_MEMO;
        memo->from[slot] = after;
        memo->to[slot] = *end;
    }
}

bool srv_cut_can_end(ep_recognizer *rec, const ep_grammar *grammar, const lg_language *language,
                     const char *whole, size_t len, size_t offset, size_t cut_right, const lg_lex *at_cursor,
                     const char *middle, size_t middle_len, srv_lex_memo *memo, bool *fell_back)
{
    if (fell_back)
        *fell_back = false;
    lg_lex end;
    srv__state_at_cut(memo, language, at_cursor, middle, middle_len, whole + offset, cut_right - offset, &end);
    if (end.depth == 0 && !lg_lex_literal_open(&end))
        return ep_can_end(rec);
    /* Brackets open at the cut: the text beyond it lexes on its own (the
     * cut is only placed where it does), so it closes none of them and the
     * whole text cannot be complete. */
    if (!lg_lex_literal_open(&end))
        return false;
    /* A literal or a line join open at the cut: the text beyond it is not
     * separate, so the whole text decides. */
    if (fell_back)
        *fell_back = true;
    ep_recognizer *full;
    if (ep_recognizer_new(grammar, &full) != SM_OK)
        return false;
    bool ok = ep_feed(full, whole, offset) == 1 && ep_feed(full, middle, middle_len) == 1 &&
              ep_feed(full, whole + offset, len - offset) == 1 && ep_can_end(full);
    ep_recognizer_free(full);
    return ok;
}

/* Whether the line fed can be finished there: one of the language's line
 * enders may follow it (Python's line break is a token: nothing to add).
 * `end` is the lexical state the line's text leaves. */
static bool srv__line_ends(ep_recognizer *rec, const lg_language *language, const lg_lex *end)
{
    const char *const *enders = language->line_enders_at ? language->line_enders_at(end) : language->line_enders;
    if (!enders)
        return true;
    bool ends = false;
    for (size_t i = 0; !ends && enders[i]; i++) {
        ep_savepoint point = ep_save(rec);
        ends = ep_feed(rec, enders[i], strlen(enders[i])) == 1;
        ep_restore(rec, point);
    }
    return ends;
}

bool srv_bound_can_end(srv_bound *b, const char *middle, size_t middle_len, bool *fell_back)
{
    if (fell_back)
        *fell_back = false;
    const srv_contexts *x = &b->contexts;
    if (b->binding == SRV_BINDING_WHOLE) {
        if (x->cut_left == x->text_start && x->cut_right == b->len)
            return ep_can_end(b->rec);
        return srv_cut_can_end(b->rec, b->grammar, x->language, b->text + x->text_start, b->len - x->text_start,
                               b->offset - x->text_start, x->cut_right - x->text_start, &x->lex, middle, middle_len,
                               &b->memo, fell_back);
    }
    /* The line's rest must still follow the middle: fed after it, the
     * recognizer stays viable (the code after the line, if it binds, is its
     * right context).  With nothing after the cursor on its line, the
     * middle ends the line: a line break (or one of the language's line
     * enders) must follow it (a statement is not left half written, a
     * header has its colon), since the person has nothing of theirs left
     * to type there.  With the editor's closers after the cursor the
     * person goes on past them (`const { a, b|}` becomes `... } = props;`),
     * so those closers need only keep the line viable. */
    size_t rest = x->line_end - b->offset;
    bool blank = srv__blank(b->text, b->offset, x->line_end);
    if (!x->language->middle_closed(&x->lex, middle, middle_len, blank))
        return false;
    lg_lex end = x->lex;
    if (blank && x->language->line_enders_at) {
        x->language->lex_scan(&end, middle, middle_len);
        x->language->lex_scan(&end, b->text + b->offset, rest);
    }
    ep_savepoint point = ep_save(b->rec);
    bool ok = (rest == 0 || ep_feed(b->rec, b->text + b->offset, rest) == 1) &&
              (!blank || (ep_feed(b->rec, "\n", 1) == 1 && srv__line_ends(b->rec, x->language, &end)));
    ep_restore(b->rec, point);
    return ok;
}

bool srv_bound_line_possible(const srv_bound *b)
{
    const srv_contexts *x = &b->contexts;
    return b->binding == SRV_BINDING_WHOLE && !x->whole_only && !x->at_end &&
           srv__closers_only(b->text, b->offset, x->line_end);
}

bool srv_bound_line_opens(srv_bound *b, const char *middle, size_t middle_len)
{
    const srv_contexts *x = &b->contexts;
    if (b->binding == SRV_BINDING_WHOLE || !srv__blank(b->text, b->offset, x->line_end))
        return false;
    if (memchr(middle, '\n', middle_len) || memchr(middle, '\r', middle_len))
        return false;
    size_t n = middle_len;
    while (n > 0 && (middle[n - 1] == ' ' || middle[n - 1] == '\t'))
        n--;
    if (n == 0 || !strchr("([{", middle[n - 1]))
        return false;
    lg_lex end;
    lg_lex_after(x->language, &x->lex, middle, middle_len, &end);
    if (end.depth <= x->lex.depth || lg_lex_literal_open(&end) || end.in_comment)
        return false;   /* the bracket is text, or the middle closes more than it opens */
    ep_savepoint point = ep_save(b->rec);
    bool ok = ep_feed(b->rec, "\n", 1) == 1;
    ep_restore(b->rec, point);
    return ok;
}

/* ---- The request ------------------------------------------------------------------- */

void srv_request_setup(srv_request *r, const cfg_config *config, const lg_language *language, const char *dialect,
                       const srv_tree *tree, const char *text, size_t len, size_t offset, bool explicit_request,
                       bool cut, bool whole_only)
{
    memset(r, 0, sizeof *r);
    srv_job_options *o = &r->options;
    o->language = language;
    o->dialect = dialect;
    o->explicit_request = explicit_request;
    o->have_contexts = true;
    srv_scope_at(language, tree, text, len, offset, config->multiline, config->max_lines, &r->scope);
    o->max_lines = r->scope.max_lines;
    if (config->escape_guard && language->escape_filter) {
        o->filter = srv_escape_filter;
        o->filter_data = &r->scope;
    }
    bool reads_lines = language->lex_scan && language->middle_closed;
    srv_contexts_of(&r->scope, text, len, offset, cut, whole_only || !reads_lines, &o->contexts);
    if (!reads_lines && !whole_only)
        o->contexts.why = "the language has no reading of a line being typed";
}

void srv_request_prepare(srv_request *r, const cfg_config *config, const lg_language *language, const char *dialect,
                         const srv_tree *tree, const char *text, size_t len, size_t offset, bool explicit_request)
{
    srv_request_setup(r, config, language, dialect, tree, text, len, offset, explicit_request, config->cut_contexts,
                      false);
}
