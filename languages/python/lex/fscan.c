/*
 * fscan.c - one f- or t-string token of Python 3.12 and later, read with
 * the tokenizer's modes (PEP 701, PEP 750).
 *
 * A stack of frames, one per mode entered: the literal text of a string
 * (LIT), a field's format specification (SPEC), a field's expression
 * (EXPR), a plain string inside an expression (STR), a comment inside an
 * expression (COMMENT).  Each frame has a small state of its own for what
 * needs a byte of lookahead ("{{", "!=", a triple quote, an escape).  A byte
 * that ends a frame without belonging to it is read again by the frame
 * below (PX__AGAIN).
 *
 * The scan tells where the token ends and refuses what CPython's tokenizer
 * and its f-string rules refuse: a single "}", a line break in a
 * single-quoted string's text, a bad escape in the text, a conversion other
 * than !s, !r, !a right after the "!", fields nested more than three deep,
 * the string's own quotes inside a format specification, 150 f-strings
 * inside one another, a 201st bracket open (counted across fields and
 * strings, from the brackets around the token on: outer_brackets).  The
 * expressions themselves are Python, left to the caller (px_fs_expr).
 *
 * Before 3.12 the string is one token that its first closing quote ends
 * (the caller's lexer finds it); read with an older version, the scan
 * checks what 3.11's f-string rules add: no backslash and no comment in
 * an expression, fields two deep at most, nothing between a conversion and
 * the ":" or "}" after it, "\N{...}" an escape in a format spec too.
 */
#include "seam_pylex.h"

#include <string.h>

#define PX__NONE UINT32_MAX
/* How deep fields nest: "{x:{y:{z}}}" from 3.12 on, "{x:{y}}" before. */
static unsigned px__max_field_level(const px_fscan *scan)
{
    return scan->version >= 312 ? 3 : 2;
}

/* Whether the version reads f-strings with modes (3.12 on). */
static bool px__modes(const px_fscan *scan)
{
    return scan->version >= 312;
}

enum { PX__LIT, PX__SPEC, PX__EXPR, PX__STR, PX__COMMENT };

/* Sub-states.  Strings (LIT, SPEC, STR): */
enum {
    PX__OPEN0,      /* before the opening quote (the outermost string) */
    PX__OPEN1,      /* after one quote: a second may make "" or a triple quote */
    PX__OPEN2,      /* after two: a third makes a triple quote */
    PX__BODY,
    PX__ESC,        /* after a backslash */
    PX__ESC_CR,     /* after a backslash and a carriage return */
    PX__HEX,        /* in \x, \u or \U */
    PX__ESC_N,      /* after \N */
    PX__NAME,       /* in \N{...} */
    PX__CLOSE1,     /* one closing quote of three */
    PX__CLOSE2,
    PX__LBRACE,     /* after "{" in the text: "{{" or a field */
    PX__RBRACE,     /* after "}" in the text: "}}" or an error */
};
/* Expressions (EXPR): */
enum {
    PX__MAIN,       /* in the expression */
    PX__BANG,       /* after "!" at its top level: "!=" or a conversion */
    PX__EQ,         /* after "=" at its top level: "==" or the "=" of "{x=}" */
    PX__AFTER_EQ,
    PX__CONV0,      /* right after the conversion's "!" */
    PX__CONV1,      /* after its letter */
    PX__AFTER_CONV,
    PX__TAIL,       /* a format spec ended by a line break (3.12, 3.13): "}" to come */
};

enum { PX__AGAIN = -1 };

struct px_fs_frame {
    uint8_t kind, sub;
    uint8_t quote, quote_len;   /* the string's, or (EXPR, SPEC) the enclosing string's */
    bool raw;
    bool outer;                 /* part of the outermost string, not of a string inside a field */
    bool spec_field;            /* SPEC: a field was opened in it */
    uint8_t level;              /* field nesting: 0 for a string's text */
    uint8_t hex_left;
    uint32_t hex_value;
    uint32_t depth;             /* EXPR: brackets open */
    uint32_t start;             /* EXPR: where the expression starts; NAME: where the name starts */
    uint32_t mark;              /* EXPR: the "!" or "=" that may end it */
    uint32_t word;              /* EXPR: where the name being read starts, or PX__NONE */
    uint8_t prev;               /* EXPR: the byte before */
};

void px_fscan_init(px_fscan *scan, int version)
{
    memset(scan, 0, sizeof *scan);
    scan->version = version;
    sm_array_init(&scan->frames);
    sm_array_init(&scan->exprs);
}

void px_fscan_free(px_fscan *scan)
{
    sm_array_free(&scan->frames);
    sm_array_free(&scan->exprs);
}

void px_fscan_begin(px_fscan *scan, const px_prefix *pfx, uint32_t prefix)
{
    sm_array_clear(&scan->frames);
    sm_array_clear(&scan->exprs);
    scan->at = prefix;
    scan->outer_brackets = 0;
    scan->status = PX_FS_MORE;
    scan->read_status = PX_FS_MORE;
    px_fs_frame first = {.kind = pfx->f || pfx->t ? PX__LIT : PX__STR, .sub = PX__OPEN0, .raw = pfx->raw,
                         .outer = true};
    sm_array_push(&scan->frames, first);
}

static bool px__newline(uint8_t c)
{
    return c == '\n' || c == '\r';
}

static bool px__blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\f' || px__newline(c);
}

/* Pops a string that just closed: the token closes with the outermost. */
static int px__close_string(px_fscan *scan)
{
    (void)sm_array_pop(&scan->frames);
    return scan->frames.size == 0 ? PX_FS_CLOSED : PX_FS_MORE;
}

static void px__record(px_fscan *scan, const px_fs_frame *expr, uint32_t end)
{
    if (expr->outer)
        sm_array_push(&scan->exprs, ((px_fs_expr){expr->start, end}));
}

/* The brackets open at the scan's point, as CPython's tokenizer counts
 * them from 3.12 on: those around the token, each open field's "{", and
 * the brackets open in each field's expression. */
static uint32_t px__brackets(const px_fscan *scan)
{
    uint32_t n = scan->outer_brackets;
    for (uint32_t i = 0; i < scan->frames.size; i++) {
        const px_fs_frame *f = &scan->frames.items[i];
        if (f->kind == PX__EXPR || f->kind == PX__SPEC)
            n += 1 + (f->kind == PX__EXPR ? f->depth : 0);
    }
    return n;
}

/* Whether one more bracket may open (3.12 on; before, the string is one
 * token that holds no bracket of the tokenizer's). */
static bool px__bracket_room(const px_fscan *scan)
{
    return !px__modes(scan) || px__brackets(scan) < PX_MAX_BRACKETS;
}

/* Opens a field from the text or format spec on top (its "{" read), its
 * expression starting at `start`. */
static int px__open_field(px_fscan *scan, uint32_t start)
{
    px_fs_frame *from = sm_array_back(&scan->frames);
    if (from->level + 1u > px__max_field_level(scan) || !px__bracket_room(scan))
        return PX_FS_ERROR;
    if (from->kind == PX__SPEC)
        from->spec_field = true;
    px_fs_frame expr = {.kind = PX__EXPR, .sub = PX__MAIN, .quote = from->quote, .quote_len = from->quote_len,
                        .raw = from->raw, .outer = from->outer, .level = (uint8_t)(from->level + 1),
                        .start = start, .mark = PX__NONE, .word = PX__NONE};
    sm_array_push(&scan->frames, expr);
    return PX_FS_MORE;
}

/* The expression on top ends at a ":": its format spec begins. */
static int px__to_spec(px_fs_frame *f)
{
    f->kind = PX__SPEC;
    f->sub = PX__BODY;
    f->spec_field = false;
    return PX_FS_MORE;
}

/* A string's opening quotes: one, "" (the empty string, closed: the token
 * may end there unless a third quote makes it triple) or three. */
static int px__opening(px_fscan *scan, px_fs_frame *f, uint8_t c)
{
    if (f->sub == PX__OPEN0) {
        f->quote = c;
        f->quote_len = 1;
        f->sub = PX__OPEN1;
        return PX_FS_MORE;
    }
    if (f->sub == PX__OPEN1 && c == f->quote) {
        f->sub = PX__OPEN2;
        return scan->frames.size == 1 ? PX_FS_CLOSED : PX_FS_MORE;
    }
    if (f->sub == PX__OPEN1) {
        f->sub = PX__BODY;
        return PX__AGAIN;
    }
    if (c == f->quote) {
        f->quote_len = 3;
        f->sub = PX__BODY;
        return PX_FS_MORE;
    }
    (void)sm_array_pop(&scan->frames); /* the empty string, then this byte */
    return scan->frames.size == 0 ? PX_FS_PAST : PX__AGAIN;
}

/* A triple-quoted string's closing quotes, after the first or second: a
 * byte that is not the quote makes them text.  Three close the string; in
 * a format spec they close it before the field does, an error. */
static int px__closing(px_fscan *scan, px_fs_frame *f, uint8_t c)
{
    if (c != f->quote) {
        f->sub = PX__BODY;
        return PX__AGAIN;
    }
    if (f->sub == PX__CLOSE1) {
        f->sub = PX__CLOSE2;
        return PX_FS_MORE;
    }
    return f->kind == PX__SPEC ? PX_FS_ERROR : px__close_string(scan);
}

/* An escape in a string's text or format spec (LIT, SPEC), after the
 * backslash. */
static int px__escape(px_fscan *scan, px_fs_frame *f, uint8_t c)
{
    if (c == '{' || c == '}') {
        f->sub = PX__BODY; /* the brace still opens or closes a field */
        return PX__AGAIN;
    }
    if (c == '\r') {
        f->sub = PX__ESC_CR;
        return PX_FS_MORE;
    }
    f->sub = PX__BODY;
    /* 3.12 and 3.13 decode a raw string's format spec as if it were not
     * raw (3.14 does not): its escapes are checked, and a "\N" there is
     * malformed whatever follows, since the raw tokenizer lets a "{" after
     * it open a field */
    bool raw_spec_decoded = f->raw && f->kind == PX__SPEC && px__modes(scan) && scan->version < 314;
    if (f->raw && !raw_spec_decoded)
        return PX_FS_MORE;
    if (c == 'x' || c == 'u' || c == 'U') {
        f->sub = PX__HEX;
        f->hex_left = c == 'x' ? 2 : c == 'u' ? 4 : 8;
        f->hex_value = 0;
    } else if (c == 'N') {
        if (raw_spec_decoded)
            return PX_FS_ERROR;
        f->sub = PX__ESC_N;
    }
    return PX_FS_MORE;
}

/* The text of an f- or t-string (LIT) or a format spec (SPEC). */
static int px__text(px_fscan *scan, const char *token, px_fs_frame *f, uint8_t c)
{
    uint32_t at = scan->at;
    bool spec = f->kind == PX__SPEC;
    switch (f->sub) {
    case PX__OPEN0:
    case PX__OPEN1:
    case PX__OPEN2:
        return px__opening(scan, f, c);
    case PX__ESC:
        return px__escape(scan, f, c);
    case PX__ESC_CR:
        f->sub = PX__BODY;
        return c == '\n' ? PX_FS_MORE : PX__AGAIN;
    case PX__HEX: {
        int d = sm_hex_digit(c);
        if (d < 0)
            return PX_FS_ERROR;
        f->hex_value = f->hex_value * 16 + (uint32_t)d;
        if (--f->hex_left == 0) {
            f->sub = PX__BODY;
            if (f->hex_value > 0x10FFFF)
                return PX_FS_ERROR;
        }
        return PX_FS_MORE;
    }
    case PX__ESC_N:
        if (c != '{')
            return PX_FS_ERROR;
        f->sub = PX__NAME;
        f->start = at + 1;
        return PX_FS_MORE;
    case PX__NAME:
        if (c == '}') {
            f->sub = PX__BODY;
            return px_unicode_name_known(token + f->start, at - f->start) ? PX_FS_MORE : PX_FS_ERROR;
        }
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ' ' || c == '-'
                   ? PX_FS_MORE
                   : PX_FS_ERROR;
    case PX__CLOSE1:
    case PX__CLOSE2:
        return px__closing(scan, f, c);
    case PX__LBRACE:
        if (c == '{') {
            f->sub = PX__BODY;
            return PX_FS_MORE;
        }
        f->sub = PX__BODY;
        {
            int r = px__open_field(scan, at);
            return r == PX_FS_MORE ? PX__AGAIN : r;
        }
    case PX__RBRACE:
        f->sub = PX__BODY;
        return c == '}' ? PX_FS_MORE : PX_FS_ERROR;
    default:
        break;
    }
    /* PX__BODY */
    if (c == f->quote) {
        if (f->quote_len == 3) {
            f->sub = PX__CLOSE1;
            return PX_FS_MORE;
        }
        return spec ? PX_FS_ERROR : px__close_string(scan);
    }
    if (px__newline(c) && f->quote_len == 1) {
        /* 3.12 and 3.13 end a single-quoted string's format spec at a line
         * break (before any field in it), then want the field's "}" */
        if (!spec || !px__modes(scan) || scan->version >= 314 || f->spec_field)
            return PX_FS_ERROR;
        f->kind = PX__EXPR;
        f->sub = PX__TAIL;
        return PX_FS_MORE;
    }
    if (c == '\\') {
        /* before 3.12 a string inside a field has no backslash */
        if (!f->outer && !px__modes(scan))
            return PX_FS_ERROR;
        f->sub = PX__ESC;
        return PX_FS_MORE;
    }
    if (c == '{') {
        /* in a format spec a "{" opens a field, until a field has been
         * opened in it: from then on (3.12 on) the tokenizer reads "{{" there
         * as a brace of the text, as in the string's own text */
        if (spec && (!f->spec_field || !px__modes(scan)))
            return px__open_field(scan, at + 1);
        f->sub = PX__LBRACE;
        return PX_FS_MORE;
    }
    if (c == '}') {
        if (spec) {
            (void)sm_array_pop(&scan->frames); /* the field closes */
            return PX_FS_MORE;
        }
        f->sub = PX__RBRACE;
        return PX_FS_MORE;
    }
    return PX_FS_MORE;
}

/* A plain string inside an expression: only where it ends matters here
 * (the caller's parser reads it whole). */
static int px__plain(px_fscan *scan, px_fs_frame *f, uint8_t c)
{
    switch (f->sub) {
    case PX__OPEN0:
    case PX__OPEN1:
    case PX__OPEN2:
        return px__opening(scan, f, c);
    case PX__ESC:
        f->sub = c == '\r' ? PX__ESC_CR : PX__BODY;
        return PX_FS_MORE;
    case PX__ESC_CR:
        f->sub = PX__BODY;
        return c == '\n' ? PX_FS_MORE : PX__AGAIN;
    case PX__CLOSE1:
    case PX__CLOSE2:
        return px__closing(scan, f, c);
    default:
        break;
    }
    if (c == '\\') {
        if (!f->outer && !px__modes(scan))
            return PX_FS_ERROR; /* no backslash in a field before 3.12 */
        f->sub = PX__ESC;
        return PX_FS_MORE;
    }
    if (c == f->quote) {
        if (f->quote_len == 1)
            return px__close_string(scan);
        f->sub = PX__CLOSE1;
        return PX_FS_MORE;
    }
    return px__newline(c) && f->quote_len == 1 ? PX_FS_ERROR : PX_FS_MORE;
}

/* A quote in an expression starts a string; the name just before it, if
 * it is a prefix, is that string's. */
static int px__start_string(px_fscan *scan, const char *token, px_fs_frame *f, uint8_t c)
{
    px_prefix p = {0};
    if (f->word != PX__NONE && !px_string_prefix(token + f->word, scan->at - f->word, scan->version, &p))
        memset(&p, 0, sizeof p);
    f->word = PX__NONE;
    f->prev = c;
    if ((p.f || p.t) && px__modes(scan)) {
        /* each f- or t-string is a mode on CPython's tokenizer's stack */
        uint32_t open = 0;
        for (uint32_t i = 0; i < scan->frames.size; i++)
            open += scan->frames.items[i].kind == PX__LIT;
        if (open + 1 >= PX_MAX_NESTED_FSTRINGS)
            return PX_FS_ERROR;
    }
    px_fs_frame s = {.kind = (p.f || p.t) ? PX__LIT : PX__STR, .sub = PX__OPEN1, .quote = c, .quote_len = 1,
                     .raw = p.raw, .word = PX__NONE, .mark = PX__NONE};
    sm_array_push(&scan->frames, s);
    return PX_FS_MORE;
}

/* What may follow an expression's "=", its conversion, or a format spec
 * cut by a line break: blanks, comments, then the rest of the field. */
static int px__field_rest(px_fscan *scan, px_fs_frame *f, uint8_t c)
{
    bool modes = px__modes(scan);
    if (px__blank(c) && (modes || f->sub == PX__AFTER_EQ))
        return PX_FS_MORE;
    if (c == '#' && modes) {
        sm_array_push(&scan->frames, ((px_fs_frame){.kind = PX__COMMENT}));
        return PX_FS_MORE;
    }
    if (c == '}') {
        (void)sm_array_pop(&scan->frames);
        return PX_FS_MORE;
    }
    if (c == '!' && f->sub == PX__AFTER_EQ) {
        f->sub = PX__CONV0;
        return PX_FS_MORE;
    }
    if (c == ':' && f->sub != PX__TAIL)
        return px__to_spec(f);
    /* after a spec cut by a line break, the tokenizer is back in its
     * regular mode, where "{" still opens a field of the spec */
    if (c == '{' && f->sub == PX__TAIL)
        return px__open_field(scan, scan->at + 1);
    return PX_FS_ERROR;
}

/* The expression of a field (EXPR). */
static int px__expr(px_fscan *scan, const char *token, px_fs_frame *f, uint8_t c)
{
    uint32_t at = scan->at;
    switch (f->sub) {
    case PX__BANG:
    case PX__EQ:
        if (c == '=') {
            f->sub = PX__MAIN; /* "!=" or "==" */
            f->prev = c;
            return PX_FS_MORE;
        }
        px__record(scan, f, f->mark);
        f->sub = f->sub == PX__BANG ? PX__CONV0 : PX__AFTER_EQ;
        return PX__AGAIN;
    case PX__CONV0:
        if (c != 's' && c != 'r' && c != 'a')
            return PX_FS_ERROR;
        f->sub = PX__CONV1;
        return PX_FS_MORE;
    case PX__CONV1:
        if (px_name_byte(c))
            return PX_FS_ERROR;
        f->sub = PX__AFTER_CONV;
        return PX__AGAIN;
    case PX__AFTER_EQ:
    case PX__AFTER_CONV:
    case PX__TAIL:
        return px__field_rest(scan, f, c);
    default:
        break;
    }
    /* PX__MAIN */
    if (c == '\'' || c == '"')
        return px__start_string(scan, token, f, c);
    if ((c == '#' || c == '\\') && !px__modes(scan))
        return PX_FS_ERROR; /* before 3.12: no comment, no backslash in an expression */
    if (c == '#') {
        sm_array_push(&scan->frames, ((px_fs_frame){.kind = PX__COMMENT}));
        return PX_FS_MORE;
    }
    uint8_t prev = f->prev;
    f->prev = c;
    if (px_name_byte(c)) {
        if (f->word == PX__NONE)
            f->word = at;
        return PX_FS_MORE;
    }
    f->word = PX__NONE;
    if (c == '(' || c == '[' || c == '{') {
        if (!px__bracket_room(scan))
            return PX_FS_ERROR;
        f->depth++;
        return PX_FS_MORE;
    }
    if (c == ')' || c == ']' || (c == '}' && f->depth > 0)) {
        if (f->depth > 0)
            f->depth--;
        return PX_FS_MORE;
    }
    if (f->depth > 0)
        return PX_FS_MORE;
    switch (c) {
    case '}':
        px__record(scan, f, at);
        (void)sm_array_pop(&scan->frames);
        return PX_FS_MORE;
    case ':':
        px__record(scan, f, at);
        return px__to_spec(f);
    case ';':
        return PX_FS_ERROR; /* no statements in a field */
    case '!':
        f->sub = PX__BANG;
        f->mark = at;
        return PX_FS_MORE;
    case '=':
        if (prev == '<' || prev == '>' || prev == '=' || prev == '!')
            return PX_FS_MORE;
        f->sub = PX__EQ;
        f->mark = at;
        return PX_FS_MORE;
    default:
        return PX_FS_MORE;
    }
}

static int px__handle(px_fscan *scan, const char *token, uint8_t c)
{
    px_fs_frame *f = sm_array_back(&scan->frames);
    switch (f->kind) {
    case PX__LIT:
    case PX__SPEC:
        return px__text(scan, token, f, c);
    case PX__EXPR:
        return px__expr(scan, token, f, c);
    case PX__STR:
        return px__plain(scan, f, c);
    default: /* PX__COMMENT */
        if (px__newline(c))
            (void)sm_array_pop(&scan->frames);
        return PX_FS_MORE;
    }
}

int px_fscan_step(px_fscan *scan, const char *token)
{
    if (scan->status == PX_FS_PAST || scan->status == PX_FS_ERROR)
        return scan->status;
    if (scan->frames.size == 0) {
        scan->status = PX_FS_PAST;
        return PX_FS_PAST;
    }
    uint8_t c = (uint8_t)token[scan->at];
    int r;
    do {
        r = px__handle(scan, token, c);
    } while (r == PX__AGAIN && scan->frames.size > 0);
    if (r == PX__AGAIN)
        r = PX_FS_PAST;
    if (r == PX_FS_MORE || r == PX_FS_CLOSED) {
        scan->at++;
        scan->read_status = (uint8_t)r;
    }
    scan->status = (uint8_t)r;
    return r;
}

void px_fscan_copy(px_fscan *dst, const px_fscan *src)
{
    dst->version = src->version;
    sm_array_clear(&dst->frames);
    for (uint32_t i = 0; i < src->frames.size; i++)
        sm_array_push(&dst->frames, src->frames.items[i]);
    sm_array_clear(&dst->exprs);
    for (uint32_t i = 0; i < src->exprs.size; i++)
        sm_array_push(&dst->exprs, src->exprs.items[i]);
    dst->at = src->at;
    dst->status = src->status;
    dst->read_status = src->read_status;
    dst->outer_brackets = src->outer_brackets;
}

bool px_fscan_in_text(const px_fscan *scan, uint8_t *quote)
{
    if (scan->status != PX_FS_MORE || scan->frames.size == 0)
        return false;
    const px_fs_frame *f = &scan->frames.items[scan->frames.size - 1];
    if ((f->kind != PX__LIT && f->kind != PX__SPEC) || f->sub != PX__BODY || !f->outer)
        return false;
    *quote = f->quote;
    return true;
}

bool px_fscan_in_expr(const px_fscan *scan)
{
    if (scan->status != PX_FS_MORE || scan->frames.size == 0)
        return false;
    const px_fs_frame *f = &scan->frames.items[scan->frames.size - 1];
    return f->kind == PX__EXPR && f->sub == PX__MAIN && f->outer;
}

bool px_fscan_open_expr(const px_fscan *scan, uint32_t *start, uint32_t *tentative)
{
    for (uint32_t i = scan->frames.size; i-- > 0;) {
        const px_fs_frame *f = &scan->frames.items[i];
        if (f->kind != PX__EXPR || !f->outer)
            continue;
        if (f->sub != PX__MAIN && f->sub != PX__BANG && f->sub != PX__EQ)
            return false;
        *start = f->start;
        *tentative = f->sub == PX__MAIN ? UINT32_MAX : f->mark;
        return true;
    }
    return false;
}

int px_string_end(const char *text, size_t len, size_t start, size_t quote, int version, size_t *end,
                  px_fs_exprs *exprs)
{
    px_prefix pfx;
    if (!px_string_prefix(text + start, quote - start, version, &pfx))
        memset(&pfx, 0, sizeof pfx);
    if (version < 312)
        pfx.f = pfx.t = false; /* one token, ended by its quote */
    px_fscan scan;
    px_fscan_init(&scan, version);
    px_fscan_begin(&scan, &pfx, (uint32_t)(quote - start));
    const char *token = text + start;
    size_t n = len - start;
    int status = PX_FS_MORE;
    while (scan.at < n && status != PX_FS_PAST && status != PX_FS_ERROR)
        status = px_fscan_step(&scan, token);
    *end = start + scan.at;
    if (status == PX_FS_MORE || status == PX_FS_CLOSED)
        status = scan.frames.size == 0 ? PX_FS_CLOSED : PX_FS_MORE;
    else if (status == PX_FS_PAST)
        status = PX_FS_CLOSED;
    if (exprs && status == PX_FS_CLOSED)
        for (uint32_t i = 0; i < scan.exprs.size; i++)
            sm_array_push(exprs, ((px_fs_expr){scan.exprs.items[i].start + (uint32_t)start,
                                              scan.exprs.items[i].end + (uint32_t)start}));
    px_fscan_free(&scan);
    return status;
}
