/*
 * fields.c - Python's f- and t-strings for the recognizer's lexer: the
 * scanner of strings with fields that Python's %lexical rules name
 * (lg_python_fields, a struct lg_fields: parser/ep_fields.h), compiled
 * into the parser (parser/meson.build) since it reads the recognizer's
 * state.  An f-string is one lexeme for seam's parser; pylex's scanner
 * (px_fscan) reads it as the grammar's Python version does, and each
 * field's expression is parsed apart, by a recognizer on the compiled
 * grammar kept for the purpose.
 *
 * Up to 3.11 the string is one token of CPython's tokenizer too: its
 * lexeme's pattern ends it at its quote, and the scanner checks what 3.11
 * checks while parsing it.  A field's expression is parsed as
 * "(" EXPR ")", as CPython 3.11 does.
 *
 * From 3.12 an f-string (and from 3.14 a t-string) is a mode of the
 * tokenizer (PEP 701, PEP 750): the same quote nested inside a field,
 * comments and line breaks in fields.  The lexeme's pattern
 * (languages/python/python.grammar: FSTRING and its kin) is exact up to the
 * first brace and takes anything after it; once the opening quote is read,
 * the scanner decides where it ends, byte by byte, and the lexer follows
 * it (lexer.c, ep__feed_modal).  A field's expression is parsed as the
 * right-hand side of an assignment, "_ = " EXPR, with the field's brace
 * counted as an open bracket: (yield_expr | star_expressions), as
 * CPython's grammar has it for a field, with line breaks inside taken as
 * in brackets.  The scanner has already cut the expression at the field's
 * top-level "=", "!", ":" or "}", and refuses a top-level ";", so nothing
 * else of a statement can follow.
 */
#include "ep_fields.h"
#include "ep_recognizer.h"
#include "seam_pylex.h"

#include <string.h>

/* The scanner of the f- or t-string token in progress (3.12 and later),
 * kept across feeds so that a long string is read once.
 * It has read text[tok_start..tok_start + scan.at), a copy of which it
 * keeps: the text may be rolled back and written again in place (the
 * vocabulary walk does), and the scan goes on only where it is unchanged. */
typedef struct ep_modal {
    px_fscan scan;
    SM_ARRAY(char) seen;     /* the bytes read */
    uint32_t tok_start;      /* UINT32_MAX: nothing read */
    uint32_t epoch;          /* the recognizer's text_epoch when `seen` last matched the text */
    uint32_t exprs_valid;    /* scan.exprs[0..exprs_valid) are known valid */
    /* The open field's expression, fed to the fields recognizer as it
     * grows (from its EP__FIELD_START): where it starts in the token
     * (UINT32_MAX: nothing fed), how many of its bytes were fed, and whether
     * they were viable.  Each byte is fed once while the text only grows. */
    uint32_t open_start;
    uint32_t open_fed;
    bool open_ok;
    /* Where the open field's text last ended in a "!" or "=" that may end
     * it (UINT32_MAX: nowhere yet), and whether the expression is whole
     * before it: asked again at the same text (every check of the token
     * asks), the answer stands, and the bytes fed past it need not be fed
     * again from the field's start. */
    uint32_t open_mark;
    bool open_whole;
    /* Counts the times the fields recognizer went back to EP__FIELD_START:
     * its charts past that point were made again for another expression. */
    uint32_t homes;
} ep_modal;

/* The scanner's word for a byte, in the lexer's terms. */
static int ep__modal_status(int px_status)
{
    switch (px_status) {
    case PX_FS_CLOSED:
        return EP_MODAL_CLOSED;
    case PX_FS_PAST:
        return EP_MODAL_PAST;
    case PX_FS_ERROR:
        return EP_MODAL_ERROR;
    default:
        return EP_MODAL_MORE;
    }
}

static ep_modal *pyf__modal_new(int version)
{
    ep_modal *modal = sm_calloc(1, sizeof *modal);
    px_fscan_init(&modal->scan, version);
    sm_array_init(&modal->seen);
    modal->tok_start = UINT32_MAX;
    modal->epoch = 0;
    modal->exprs_valid = 0;
    modal->open_start = UINT32_MAX;
    modal->open_mark = UINT32_MAX;
    return modal;
}

static void pyf__modal_free(ep_modal *modal)
{
    if (!modal)
        return;
    px_fscan_free(&modal->scan);
    sm_array_free(&modal->seen);
    sm_free(modal);
}

static bool pyf__token(const ep_recognizer *rec, uint32_t tok_start, uint32_t at)
{
    const lg_lexical *lx = rec->grammar->lexical;
    if (at < tok_start + 2 || !lx || !lx->fields)
        return false;
    /* most tokens are told apart by their first byte: a prefix with f or t
     * starts with one of these */
    if (!memchr("fFtTrR", rec->text.items[tok_start], 6))
        return false;
    return px_is_template_start(rec->text.items + tok_start, at - tok_start, rec->modal->scan.version, NULL);
}

/* Reads the next byte of the token, keeping a copy of what was read. */
static int ep__modal_read(ep_modal *m, const char *token)
{
    uint32_t at = m->scan.at;
    int status = px_fscan_step(&m->scan, token);
    if (m->scan.at > at)
        sm_array_push(&m->seen, token[at]);
    return status;
}

/* Whether the scan may go on from where it is for the token at tok_start
 * read up to `end`: the same token, the bytes it read unchanged, and not
 * stopped (a byte past the string or refused may have been replaced). */
static bool ep__modal_current(ep_recognizer *rec, uint32_t tok_start, uint32_t end)
{
    ep_modal *m = rec->modal;
    if (m->tok_start != tok_start || m->scan.status == PX_FS_PAST || m->scan.status == PX_FS_ERROR ||
        tok_start + m->scan.at > end || m->seen.size != m->scan.at)
        return false;
    /* the bytes read are compared only when the text was cut back (or
     * grown over bytes written in place) since they were */
    if (m->epoch == rec->text_epoch)
        return true;
    if (memcmp(m->seen.items, rec->text.items + tok_start, m->seen.size) != 0)
        return false;
    m->epoch = rec->text_epoch;
    return true;
}

/* Brings the scanner to text[end] (not read) of the token at tok_start,
 * from where it was if it can go on, else from the token's opening quote.
 * Returns what the scanner says of text[tok_start..end): PX_FS_MORE or
 * PX_FS_CLOSED (that of its last byte), or PX_FS_PAST or PX_FS_ERROR for a
 * byte before end. */
static int ep__modal_sync(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end)
{
    ep_modal *m = rec->modal;
    const char *token = rec->text.items + tok_start;
    if (!ep__modal_current(rec, tok_start, end) || m->scan.outer_brackets != depth) {
        size_t quote = 0;
        px_prefix pfx;
        int version = m->scan.version;
        if (!px_is_template_start(token, end - tok_start, version, &quote))
            return PX_FS_ERROR;
        px_string_prefix(token, quote, version, &pfx);
        px_fscan_begin(&m->scan, &pfx, (uint32_t)quote);
        m->scan.outer_brackets = depth;
        sm_array_clear(&m->seen);
        for (size_t i = 0; i < quote; i++)
            sm_array_push(&m->seen, token[i]);
        m->tok_start = tok_start;
        m->epoch = rec->text_epoch;
        m->exprs_valid = 0;
        m->open_start = UINT32_MAX;
    }
    while (tok_start + m->scan.at < end) {
        int status = ep__modal_read(m, token);
        if (status == PX_FS_PAST || status == PX_FS_ERROR)
            return status;
    }
    return m->scan.read_status;
}

static int pyf__modal_step(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t at)
{
    int status = ep__modal_sync(rec, tok_start, depth, at);
    if (status == PX_FS_PAST || status == PX_FS_ERROR)
        return ep__modal_status(status);
    return ep__modal_status(ep__modal_read(rec->modal, rec->text.items + tok_start));
}

static bool ep__blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\f')
            return false;
    return true;
}

/* The save point of a fields recognizer where an expression starts: after
 * "_ = " with the field's brace open (3.12 on), or after "(" (up to 3.11). */
#define EP__FIELD_START 1

static ep_recognizer *pyf__fields_new(const ep_grammar *grammar)
{
    ep_recognizer *fields;
    if (ep_recognizer_new(grammar, &fields) != SM_OK)
        return NULL;
    ep_save(fields);
    bool modes = ep_grammar_modal_strings(grammar);
    if ((modes ? ep_feed(fields, "_ = ", 4) : ep_feed(fields, "(", 1)) != 1) {
        ep_recognizer_free(fields);
        return NULL;
    }
    if (modes)
        fields->run.depth++;
    ep_save(fields); /* EP__FIELD_START */
    return fields;
}

/* Whether the fields recognizer, fed a field's expression expr[0..len),
 * holds a whole one there; it is left as it was. */
static bool ep__whole_here(ep_recognizer *fields, const char *expr, size_t len)
{
    bool modes = ep_grammar_modal_strings(fields->grammar);
    ep_savepoint here = ep_save(fields);
    bool ok;
    if (!modes) {
        ok = !ep__blank(expr, len) && ep_feed(fields, ")", 1) == 1 && ep_can_end(fields); /* not "()" */
    } else {
        ok = ep_end_token(fields) && fields->run.depth == 1;
        if (ok) {
            /* the field's "}" closes the bracket and follows any join */
            fields->run.depth = 0;
            fields->run.continued = false;
            ok = ep_can_end(fields);
        }
    }
    ep_restore(fields, here);
    fields->saves.size = here;   /* the point itself goes too */
    return ok;
}

/* Parses a field's expression, whole or as a prefix, from the fields
 * recognizer's EP__FIELD_START, and returns there. */
static bool ep__field_parse(ep_modal *m, ep_recognizer *fields, const char *expr, size_t len, bool whole)
{
    bool ok = ep_feed(fields, expr, len) == 1;
    if (ok && whole)
        ok = ep__whole_here(fields, expr, len);
    ep_restore(fields, EP__FIELD_START);
    m->homes++;
    return ok;
}

/* Brings the fields recognizer back to EP__FIELD_START, forgetting the
 * open field fed to it. */
static void ep__fields_home(ep_modal *m, ep_recognizer *fields)
{
    /* unconditionally: the vocabulary walk moves the
     * recognizer on its own (pyf__field), then returns to a mark */
    ep_restore(fields, EP__FIELD_START);
    m->homes++;
    m->open_start = UINT32_MAX;
}

/* Feeds the open field's expression up to expr[upto] (the bytes not fed
 * yet), unless it is not viable already. */
static void ep__feed_open(ep_modal *m, ep_recognizer *fields, const char *expr, uint32_t upto)
{
    if (m->open_ok && m->open_fed < upto) {
        m->open_ok = ep_feed(fields, expr + m->open_fed, upto - m->open_fed) == 1;
    }
    if (m->open_fed < upto)
        m->open_fed = upto;
}

/* The expression in progress at the end of the text: a prefix of one, or,
 * when the text ends in a "!" or "=" that may end it, whole before it.
 * Fed as it grows: a field typed byte by byte costs its length once, not
 * its length at every byte (and an f-string nested in it the same, each
 * level its own). */
static bool ep__open_field_ok(ep_modal *m, ep_recognizer *fields, const char *token, uint32_t len, uint32_t start,
                              uint32_t tentative)
{
    const char *expr = token + start;
    uint32_t n = len - start;
    uint32_t mark = tentative == UINT32_MAX ? UINT32_MAX : tentative - start;
    bool known = m->open_start == start && mark != UINT32_MAX && mark == m->open_mark;
    if (m->open_start != start || m->open_fed > n || (mark != UINT32_MAX && mark < m->open_fed && !known)) {
        /* another field, or the text cut back: from the field's start */
        ep__fields_home(m, fields);
        m->open_start = start;
        m->open_fed = 0;
        m->open_ok = true;
        m->open_mark = UINT32_MAX;
        known = false;
    }
    if (mark != UINT32_MAX && !known) {
        ep__feed_open(m, fields, expr, mark);
        m->open_whole = m->open_ok && ep__whole_here(fields, expr, mark);
        m->open_mark = mark;
    }
    bool whole = mark != UINT32_MAX && m->open_whole;
    ep__feed_open(m, fields, expr, n);
    return m->open_ok || whole;
}

static bool pyf__valid(ep_recognizer *rec, ep_recognizer *fields, uint32_t tok_start, uint32_t depth, uint32_t end,
                       bool finished)
{
    int status = ep__modal_sync(rec, tok_start, depth, end);
    if (status == PX_FS_ERROR || status == PX_FS_PAST || (finished && status != PX_FS_CLOSED))
        return false;
    ep_modal *m = rec->modal;
    const char *token = rec->text.items + tok_start;
    for (; m->exprs_valid < m->scan.exprs.size; m->exprs_valid++) {
        px_fs_expr e = m->scan.exprs.items[m->exprs_valid];
        if (!fields)
            return false;
        /* the open field closed where a "!" or "=" that may end it stood:
         * whole there was asked when it was typed */
        if (m->open_start == e.start && m->open_mark == e.end - e.start) {
            if (!m->open_whole)
                return false;
            continue;
        }
        /* the open field just closed, fed as it grew: whole where it is */
        if (m->open_start == e.start && m->open_fed == e.end - e.start) {
            if (!m->open_ok || !ep__whole_here(fields, token + e.start, e.end - e.start))
                return false;
            continue;
        }
        ep__fields_home(m, fields);   /* a closed field is parsed from EP__FIELD_START */
        if (!ep__field_parse(m, fields, token + e.start, e.end - e.start, true))
            return false;
    }
    uint32_t start, tentative;
    if (finished || !px_fscan_open_expr(&m->scan, &start, &tentative))
        return true;
    return fields && ep__open_field_ok(m, fields, token, end - tok_start, start, tentative);
}

static bool pyf__in_text(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end, uint8_t *stop)
{
    if (ep__modal_sync(rec, tok_start, depth, end) != PX_FS_MORE)
        return false;
    return px_fscan_in_text(&rec->modal->scan, stop);
}

static bool pyf__expr_byte(uint8_t byte)
{
    return byte && !memchr("'\"#\\()[]{}:;!=\n\r", byte, 16);
}

static uint32_t pyf__field_epoch(const ep_recognizer *rec)
{
    return rec->modal->homes;
}

static ep_recognizer *pyf__field(ep_recognizer *rec, uint32_t tok_start, uint32_t depth, uint32_t end,
                                 int64_t *offset)
{
    if (ep__modal_sync(rec, tok_start, depth, end) != PX_FS_MORE)
        return NULL;
    ep_modal *m = rec->modal;
    uint32_t start, tentative;
    if (!px_fscan_in_expr(&m->scan) || !px_fscan_open_expr(&m->scan, &start, &tentative) ||
        tentative != UINT32_MAX || !rec->fields)
        return NULL;
    /* the expression fed whole and viable, the recognizer left after it */
    if (m->open_start != start || m->open_fed != end - tok_start - start || !m->open_ok)
        return NULL;
    ep_recognizer *fields = rec->fields;
    uint32_t home = fields->saves.items[EP__FIELD_START].text_len;
    *offset = (int64_t)tok_start + start - home;
    return fields;
}

/* ---- Marks for the vocabulary walk ---------------------------------------- */

struct ep_modal_mark {
    px_fscan scan;           /* owned copy */
    uint32_t tok_start, exprs_valid;
    uint32_t open_start, open_fed, open_mark;
    bool open_ok, open_whole;
    uint32_t homes;
    bool have_fields;
    ep_snapshot fields;      /* the fields recognizer's state */
};

static ep_modal_mark *pyf__mark_new(int version)
{
    ep_modal_mark *mark = sm_calloc(1, sizeof *mark);
    px_fscan_init(&mark->scan, version);
    mark->tok_start = UINT32_MAX;
    return mark;
}

static void pyf__mark_free(ep_modal_mark *mark)
{
    if (!mark)
        return;
    px_fscan_free(&mark->scan);
    sm_free(mark);
}

static void pyf__mark_take(ep_recognizer *rec, ep_modal_mark *mark)
{
    const ep_modal *m = rec->modal;
    /* a scan that does not match the text is not worth keeping */
    if (m->tok_start == UINT32_MAX || !ep__modal_current(rec, m->tok_start, rec->text.size)) {
        mark->tok_start = UINT32_MAX;
        return;
    }
    px_fscan_copy(&mark->scan, &m->scan);
    mark->tok_start = m->tok_start;
    mark->exprs_valid = m->exprs_valid;
    mark->open_start = m->open_start;
    mark->open_fed = m->open_fed;
    mark->open_ok = m->open_ok;
    mark->open_mark = m->open_mark;
    mark->open_whole = m->open_whole;
    mark->homes = m->homes;
    mark->have_fields = rec->fields != NULL;
    if (rec->fields)
        mark->fields = ep_snapshot_take(rec->fields);
}

static void pyf__mark_apply(ep_recognizer *rec, const ep_modal_mark *mark, const ep_snapshot *field)
{
    ep_modal *m = rec->modal;
    if (mark->tok_start == UINT32_MAX || mark->tok_start + mark->scan.at > rec->text.size)
        return;   /* the scan is read again when needed */
    px_fscan_copy(&m->scan, &mark->scan);
    m->tok_start = mark->tok_start;
    sm_array_clear(&m->seen);
    sm_array_grow_by(&m->seen, mark->scan.at);
    memcpy(m->seen.items, rec->text.items + mark->tok_start, mark->scan.at);
    m->epoch = rec->text_epoch;
    m->exprs_valid = mark->exprs_valid;
    /* the fields recognizer's charts are the mark's unless it went back to
     * the field's start since: then the open field is fed again */
    if (mark->have_fields && rec->fields && m->homes == mark->homes) {
        ep_snapshot_apply(rec->fields, field ? field : &mark->fields);
        m->open_start = mark->open_start;
        m->open_fed = mark->open_fed;
        m->open_ok = mark->open_ok;
        m->open_mark = mark->open_mark;
        m->open_whole = mark->open_whole;
        if (field) {
            /* the open field's expression fed further, and viable */
            uint32_t home = rec->fields->saves.items[EP__FIELD_START].text_len;
            m->open_fed = field->text_len - home;
            m->open_ok = true;
        }
    } else {
        if (rec->fields)
            ep__fields_home(m, rec->fields);
        m->open_start = UINT32_MAX;
    }
}

const struct lg_fields lg_python_fields = {
    .modal_new = pyf__modal_new,
    .modal_free = pyf__modal_free,
    .token = pyf__token,
    .modal_step = pyf__modal_step,
    .fields_new = pyf__fields_new,
    .valid = pyf__valid,
    .in_text = pyf__in_text,
    .expr_byte = pyf__expr_byte,
    .field = pyf__field,
    .field_epoch = pyf__field_epoch,
    .mark_new = pyf__mark_new,
    .mark_free = pyf__mark_free,
    .mark_take = pyf__mark_take,
    .mark_apply = pyf__mark_apply,
};
