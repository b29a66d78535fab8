/*
 * analysis.c - what the middle's names are: reads, bindings, attributes,
 * keyword arguments, decided only when no continuation can change them.
 *
 * A name is classified when the lexeme after it is whole.  It is a read for
 * sure when what is around it says so (`x(`, `x.`, `a + x`, `return x`);
 * a binding when it is a target (`x =`, `for x in`, `as x`, parameters,
 * imports); otherwise the statement decides at its end (`a, b = ...`
 * makes targets, `f(a, b)` reads).  A read inside brackets that a
 * comprehension's `for` may still follow waits until they close: `(x` may
 * become `(x for x in y)`.  Each decided read, attribute and keyword goes
 * to the session's pruners as a fact.
 */
#include "sx_internal.h"
#include "seam_pylex.h"

#define SX__NONE UINT32_MAX

static const char *sx__text(const sx_analysis *a)
{
    return a->text.data ? a->text.data : "";
}

static bool sx__is(const sx_analysis *a, uint32_t k, const char *s)
{
    return k != SX__NONE && k < a->toks.size && sx_tok_is(sx__text(a), &a->toks.items[k], s);
}

static uint8_t sx__kind(const sx_analysis *a, uint32_t k)
{
    return k == SX__NONE || k >= a->toks.size ? 0xff : a->toks.items[k].kind;
}

static sx_level *sx__level(sx_analysis *a)
{
    return &a->st.levels[a->st.depth];
}

static bool sx__in_middle(const sx_analysis *a, uint32_t k)
{
    const sx_tok *t = &a->toks.items[k];
    return t->end > a->middle_start && t->start < a->middle_end;
}

/* ---- Facts ------------------------------------------------------------------- */

static void sx__emit(sx_analysis *a, const sx_fact *fact)
{
    if (a->refused || !a->on_fact)
        return;
    sx_refusal why = {.pruner = -1};
    if (!a->on_fact(a->data, fact, &why)) {
        a->refused = true;
        why.at = fact->at;
        a->refusal = why;
    }
}

static size_t sx__at(const sx_analysis *a, uint32_t start)
{
    return start > a->middle_start ? start - a->middle_start : 0;
}

static void sx__read(sx_analysis *a, uint32_t k)
{
    if (!sx__in_middle(a, k))
        return;
    const sx_tok *t = &a->toks.items[k];
    sx_fact f = {.kind = SX_FACT_READ, .name = sx__text(a) + t->start, .name_len = t->end - t->start,
                 .at = sx__at(a, t->start)};
    a->reading = k;         /* a name waiting as a possible target is not its own binding */
    sx__emit(a, &f);
    a->reading = SX__NONE;
}

/* Whether an enclosing bracket may still become a comprehension whose
 * `for` binds names read inside it. */
static bool sx__may_bind_later(const sx_analysis *a)
{
    for (uint32_t d = 1; d <= a->st.depth; d++) {
        const sx_level *l = &a->st.levels[d];
        if (!l->comma && l->role != SX_BR_PARAMS && l->role != SX_BR_SUBSCRIPT)
            return true;
    }
    return false;
}

static void sx__definite_read(sx_analysis *a, uint32_t k)
{
    if (sx__may_bind_later(a))
        sm_array_push(&a->pend, ((sx_pending){.tok = k}));
    else
        sx__read(a, k);
}

/* A name read inside an f-string: text[start, end). */
static void sx__read_span(sx_analysis *a, uint32_t start, uint32_t end)
{
    if (end <= a->middle_start || start >= a->middle_end)
        return;
    if (sx__may_bind_later(a)) {
        sm_array_push(&a->pend, ((sx_pending){.tok = SX_NO_TOK, .start = start, .end = end}));
        return;
    }
    sx_fact f = {.kind = SX_FACT_READ, .name = sx__text(a) + start, .name_len = end - start, .at = sx__at(a, start)};
    sx__emit(a, &f);
}

/* The names a replacement field's expression text[start, end) reads: those
 * not after a dot nor before `=`.  A field that can bind names itself (a
 * comprehension, a lambda, `:=`) is left alone. */
static void sx__on_field(void *data, size_t start, size_t end)
{
    sx_analysis *a = data;
    const char *text = sx__text(a);
    sx_tok toks[64];
    uint32_t n = 0;
    size_t pos = start;
    while (pos < end && n < 64 && sx_lex_next(text, end, &pos, 1, true, &toks[n])) {
        if ((toks[n].kind == SX_TOK_KEYWORD && (sx_tok_is(text, &toks[n], "for") || sx_tok_is(text, &toks[n], "lambda"))) ||
            sx_tok_is(text, &toks[n], ":="))
            return;
        n++;
    }
    if (pos < end)
        return;     /* too long: not followed */
    for (uint32_t i = 0; i < n && !a->refused; i++) {
        /* an f-string inside a field (any quotes from 3.12 on) has fields too */
        if (toks[i].kind == SX_TOK_STRING && sx_is_fstring(text, &toks[i]))
            sx_fstring_fields(text, &toks[i], sx__on_field, a);
        if (toks[i].kind != SX_TOK_NAME || (i > 0 && sx_tok_is(text, &toks[i - 1], ".")) ||
            (i + 1 < n && sx_tok_is(text, &toks[i + 1], "=")))
            continue;
        sx__read_span(a, toks[i].start, toks[i].end);
    }
}

static void sx__bind(sx_analysis *a, uint32_t k)
{
    sm_array_push(&a->binds, k);
}

/* The names of `a.b.c` before token k (a `.`), joined, into a->chain;
 * false when it is not a plain chain of names. */
static bool sx__chain(sx_analysis *a, uint32_t dot)
{
    uint32_t first = dot;
    while (first >= 1 && sx__kind(a, first - 1) == SX_TOK_NAME) {
        first--;
        if (first >= 1 && sx__is(a, first - 1, "."))
            first--;
        else
            break;
    }
    if (first == dot || sx__kind(a, first) != SX_TOK_NAME)
        return false;
    size_t n = 0;
    for (uint32_t i = first; i < dot; i++) {
        const sx_tok *t = &a->toks.items[i];
        size_t len = t->end - t->start;
        if (n + len + 1 >= sizeof a->chain)
            return false;
        memcpy(a->chain + n, sx__text(a) + t->start, len);
        n += len;
    }
    a->chain[n] = '\0';
    return true;
}

static void sx__attribute(sx_analysis *a, uint32_t dot, size_t start, size_t end, bool prefix)
{
    if (a->st.stmt == SX_STMT_IMPORT || !sx__chain(a, dot))
        return;
    sx_fact f = {.kind = SX_FACT_ATTRIBUTE, .prefix = prefix, .name = sx__text(a) + start, .name_len = end - start,
                 .base = a->chain, .base_len = strlen(a->chain), .at = sx__at(a, start)};
    sx__emit(a, &f);
}

static void sx__keyword(sx_analysis *a, uint32_t k)
{
    const sx_level *l = sx__level(a);
    if (!sx__in_middle(a, k) || l->role != SX_BR_CALL || l->callee == SX__NONE)
        return;
    const sx_tok *t = &a->toks.items[k], *c = &a->toks.items[l->callee];
    sx_fact f = {.kind = SX_FACT_KEYWORD, .name = sx__text(a) + t->start, .name_len = t->end - t->start,
                 .base = sx__text(a) + c->start, .base_len = c->end - c->start, .at = sx__at(a, t->start)};
    if (l->member != SX__NONE) {
        const sx_tok *m = &a->toks.items[l->member];
        f.member = sx__text(a) + m->start;
        f.member_len = m->end - m->start;
    }
    sx__emit(a, &f);
}

/* ---- Classifying a name --------------------------------------------------------- */

static bool sx__one_of(const sx_analysis *a, uint32_t k, const char *const *set)
{
    for (; *set; set++)
        if (sx__is(a, k, *set))
            return true;
    return false;
}

static const char *const sx__binary[] = {"+",  "-",  "/",  "//", "%",  "@",  "&",  "|",  "^",  "<<", ">>", "<",
                                         ">",  "<=", ">=", "==", "!=", "~",  "and", "or", "not", "is", "in", NULL};
static const char *const sx__augmented[] = {"+=", "-=", "*=", "/=", "//=", "%=", "@=",  "&=",
                                            "|=", "^=", ">>=", "<<=", "**=", NULL};
/* After these, a name is read whatever follows it (but `:=`). */
static const char *const sx__read_after[] = {"return", "yield", "await", "assert", "raise", "if", "elif", "while",
                                             "else",   "with",  "->",    NULL};
/* Before these, a name is read. */
static const char *const sx__read_before[] = {".", "(", "[", "if", "else", "for", "*", "**", NULL};

/* Classifies name k, followed by token `next`. */
static void sx__classify(sx_analysis *a, uint32_t k, uint32_t next)
{
    sx_state *st = &a->st;
    uint32_t prev = k > 0 ? k - 1 : SX__NONE;
    if (prev != SX__NONE && prev < st->stmt_start)
        prev = SX__NONE;
    sx_level *l = sx__level(a);
    const sx_tok *t = &a->toks.items[k];
    if (prev != SX__NONE && sx__is(a, prev, ".")) {
        if (sx__in_middle(a, k))
            sx__attribute(a, prev, t->start, t->end, false);
        return;
    }
    if (st->stmt == SX_STMT_IMPORT || st->stmt == SX_STMT_DECLARE || sx__one_of(a, prev, (const char *const[]){"def", "class", "as", NULL})) {
        sx__bind(a, k);
        return;
    }
    if (k == st->stmt_start && st->stmt_first_name && !sx__is(a, next, ".") &&
        (sx_tok_is(sx__text(a), t, "match") || sx_tok_is(sx__text(a), t, "case")))
        return;     /* perhaps the soft keyword (no pattern nor subject begins with `.`) */
    bool before_read = sx__one_of(a, next, (const char *const[]){".", "(", "[", NULL});
    if (st->stmt == SX_STMT_CASE) {
        if (before_read)
            sx__definite_read(a, k);
        else
            sx__bind(a, k);
        return;
    }
    if (l->region == SX_REGION_FOR_TARGET) {
        if (sx__is(a, next, ".") || sx__is(a, next, "["))
            sx__definite_read(a, k);
        else
            sx__bind(a, k);
        return;
    }
    bool param_position = prev == SX__NONE || sx__one_of(a, prev, (const char *const[]){"(", ",", "*", "**", "lambda", NULL});
    if ((l->region == SX_REGION_LAMBDA || l->role == SX_BR_PARAMS) && param_position) {
        sx__bind(a, k);
        return;
    }
    if (sx__is(a, next, "=") && ((st->annotated && st->depth == 0) || l->role == SX_BR_PARAMS)) {
        sx__definite_read(a, k);    /* an annotation's last name: `a: int = 3`, `def f(a: int = 3)` */
        return;
    }
    if (sx__is(a, next, "=")) {
        if (l->role == SX_BR_CALL)
            sx__keyword(a, k);
        else
            sx__bind(a, k);
        return;
    }
    if (sx__is(a, next, ":=") || sx__one_of(a, next, sx__augmented)) {
        sx__bind(a, k);
        return;
    }
    if (st->depth == 0 && st->stmt == SX_STMT_PLAIN && k == st->stmt_start && sx__is(a, next, ":")) {
        sx__bind(a, k);     /* an annotated target */
        return;
    }
    if (st->stmt == SX_STMT_DEL && !before_read && l->display_only)
        return;     /* a del target (`del a`, `del (a, b)`); names in subscripts are read */
    bool read = before_read || sx__one_of(a, next, sx__binary) || sx__one_of(a, next, sx__read_before) ||
                sx__one_of(a, prev, sx__binary) || (prev != SX__NONE && sx__one_of(a, prev, sx__read_after)) ||
                (st->stmt == SX_STMT_RAISE && sx__is(a, prev, "from")) ||
                (l->region == SX_REGION_LAMBDA || l->role == SX_BR_PARAMS) || st->annotated ||
                l->role == SX_BR_CALL || l->role == SX_BR_OTHER || l->role == SX_BR_SUBSCRIPT || !l->display_only;
    if (sx__is(a, prev, "*") && st->depth == 0)
        read = false;       /* a starred target, `*a, b = c` */
    if (read) {
        sx__definite_read(a, k);
        return;
    }
    if (st->stmt == SX_STMT_WITH) {
        sx__bind(a, k);     /* `with a as (b, c)`: not followed further */
        return;
    }
    sx_undecided u = {.tok = k, .eqs = st->stmt_eqs, .display_only = l->display_only};
    sm_array_push(&a->undec, u);
    sx__bind(a, k);         /* until the statement says */
}

/* ---- Statements and brackets ------------------------------------------------------ */

static void sx__flush_pending(sx_analysis *a)
{
    for (uint32_t i = a->st.pend_from; i < a->pend.size && !a->refused; i++) {
        const sx_pending *p = &a->pend.items[i];
        if (p->tok != SX_NO_TOK) {
            sx__read(a, p->tok);
        } else {
            sx_fact f = {.kind = SX_FACT_READ, .name = sx__text(a) + p->start, .name_len = p->end - p->start,
                         .at = sx__at(a, p->start)};
            sx__emit(a, &f);
        }
    }
    a->st.pend_from = a->pend.size;
}

static void sx__end_statement(sx_analysis *a)
{
    sx_state *st = &a->st;
    sx__flush_pending(a);
    for (uint32_t i = st->undec_from; i < a->undec.size && !a->refused; i++) {
        const sx_undecided *u = &a->undec.items[i];
        if (!(u->display_only && st->stmt_eqs > u->eqs))
            sx__read(a, u->tok);
    }
    st->undec_from = a->undec.size;
    st->stmt_start = a->toks.size;
    st->stmt_eqs = 0;
    st->stmt = SX_STMT_PLAIN;
    st->stmt_first_name = false;
    st->annotated = false;
    st->depth = 0;
    st->levels[0] = (sx_level){.role = SX_BR_STATEMENT, .display_only = true, .callee = SX__NONE, .member = SX__NONE};
}

static void sx__start_statement(sx_analysis *a, uint32_t k)
{
    sx_state *st = &a->st;
    if (sx__is(a, k, "import") || sx__is(a, k, "from"))
        st->stmt = SX_STMT_IMPORT;
    else if (sx__is(a, k, "global") || sx__is(a, k, "nonlocal"))
        st->stmt = SX_STMT_DECLARE;
    else if (sx__is(a, k, "del"))
        st->stmt = SX_STMT_DEL;
    else if (sx__is(a, k, "with"))
        st->stmt = SX_STMT_WITH;
    else if (sx__is(a, k, "raise"))
        st->stmt = SX_STMT_RAISE;
    else if (sx__kind(a, k) == SX_TOK_KEYWORD &&
             px_compound_keyword(sx__text(a) + a->toks.items[k].start, a->toks.items[k].end - a->toks.items[k].start,
                                 PX_NEWEST))
        st->stmt = SX_STMT_COMPOUND;   /* with, caught above, is one too; match and case are names here */
    else if (sx__kind(a, k) == SX_TOK_NAME)
        st->stmt_first_name = true;
}

static void sx__open(sx_analysis *a, uint32_t k)
{
    sx_state *st = &a->st;
    if (st->depth + 1 >= SX_MAX_DEPTH) {
        st->dead = true;
        return;
    }
    uint32_t prev = k > st->stmt_start ? k - 1 : SX__NONE;
    uint8_t pk = sx__kind(a, prev);
    bool after_value = pk == SX_TOK_NAME || pk == SX_TOK_STRING || sx__is(a, prev, ")") || sx__is(a, prev, "]");
    sx_level n = {.role = SX_BR_OTHER, .callee = SX__NONE, .member = SX__NONE};
    if (sx__is(a, k, "(")) {
        if (pk == SX_TOK_NAME && prev >= 1 && sx__is(a, prev - 1, "def")) {
            n.role = SX_BR_PARAMS;
        } else if (after_value) {
            n.role = SX_BR_CALL;
            if (pk == SX_TOK_NAME) {
                if (prev >= 2 && sx__is(a, prev - 1, ".") && sx__kind(a, prev - 2) == SX_TOK_NAME &&
                    !(prev >= 3 && sx__is(a, prev - 3, "."))) {
                    n.callee = prev - 2;
                    n.member = prev;
                } else if (!(prev >= 1 && sx__is(a, prev - 1, "."))) {
                    n.callee = prev;
                }
            }
        } else {
            n.role = SX_BR_DISPLAY;
        }
    } else if (sx__is(a, k, "[")) {
        n.role = after_value ? SX_BR_SUBSCRIPT : SX_BR_DISPLAY;
    }
    n.display_only = n.role == SX_BR_DISPLAY && sx__level(a)->display_only;
    if (sx__level(a)->region == SX_REGION_FOR_TARGET)
        n.region = SX_REGION_FOR_TARGET;    /* `for (a, b) in` */
    st->levels[++st->depth] = n;
}

static void sx__close(sx_analysis *a)
{
    sx_state *st = &a->st;
    if (st->depth > 0)
        st->depth--;
    if (!sx__may_bind_later(a))
        sx__flush_pending(a);
}

/* Updates the structure for token k (already pushed). */
static void sx__structure(sx_analysis *a, uint32_t k)
{
    sx_state *st = &a->st;
    sx_level *l = sx__level(a);
    const sx_tok *t = &a->toks.items[k];
    if (k == st->stmt_start || (k == st->stmt_start + 1 && sx__is(a, st->stmt_start, "async")))
        sx__start_statement(a, k);
    else if (k == st->stmt_start + 1 && st->stmt_first_name && sx__is(a, st->stmt_start, "case") &&
             !sx__one_of(a, k, (const char *const[]){"=", ".", "[", ":", NULL}) && !sx__one_of(a, k, sx__augmented))
        st->stmt = SX_STMT_CASE;
    if (t->kind == SX_TOK_NEWLINE || (st->depth == 0 && sx__is(a, k, ";"))) {
        sx__end_statement(a);
        return;
    }
    if (t->kind == SX_TOK_KEYWORD) {
        if (sx__is(a, k, "for"))
            l->region = SX_REGION_FOR_TARGET;
        else if (sx__is(a, k, "in") && l->region == SX_REGION_FOR_TARGET)
            l->region = SX_REGION_NONE;
        else if (sx__is(a, k, "lambda")) {
            l->lambdas++;
            l->region = SX_REGION_LAMBDA;
        } else if (sx__is(a, k, "if") && st->depth == 0 && st->stmt == SX_STMT_CASE)
            st->stmt = SX_STMT_COMPOUND;
        return;
    }
    if (t->kind != SX_TOK_OP)
        return;
    char c = sx__text(a)[t->start];
    if (t->end - t->start == 1 && (c == '(' || c == '[' || c == '{')) {
        sx__open(a, k);
    } else if (t->end - t->start == 1 && (c == ')' || c == ']' || c == '}')) {
        sx__close(a);
    } else if (sx__is(a, k, ",")) {
        /* no comprehension after a comma: what waited for this level may be decided */
        l->comma = true;
        if (st->depth > 0 && !sx__may_bind_later(a))
            sx__flush_pending(a);
    } else if (sx__is(a, k, "=") && st->depth == 0) {
        st->stmt_eqs++;
        st->annotated = false;
    } else if (sx__is(a, k, ":")) {
        if (l->lambdas > 0) {
            l->lambdas--;
            if (l->region == SX_REGION_LAMBDA)
                l->region = SX_REGION_NONE;
        } else if (st->depth == 0) {
            bool header = st->stmt == SX_STMT_COMPOUND || st->stmt == SX_STMT_CASE || st->stmt == SX_STMT_WITH ||
                          (st->stmt_first_name && sx__is(a, st->stmt_start, "match"));
            if (header)
                sx__end_statement(a);
            else if (st->stmt == SX_STMT_PLAIN)
                st->annotated = true;
        }
    }
}

/* ---- Running ------------------------------------------------------------------------ */

void sx_analysis_init(sx_analysis *a, const char *left, size_t left_len,
                      bool (*on_fact)(void *data, const sx_fact *fact, sx_refusal *why), void *data)
{
    memset(a, 0, sizeof *a);
    sm_buf_init(&a->text, (size_t)1 << 30);
    sm_buf_append(&a->text, left, left_len);
    a->middle_start = left_len;
    a->middle_end = left_len;
    sm_array_init(&a->toks);
    sm_array_init(&a->pend);
    sm_array_init(&a->undec);
    sm_array_init(&a->binds);
    a->reading = SX__NONE;
    sx__end_statement(a);
    a->on_fact = NULL;      /* the left context holds no facts of the middle */
    while (sx_analysis_step(a, false))
        ;
    a->on_fact = on_fact;
    a->data = data;
    a->first_middle_tok = a->toks.size;
}

void sx_analysis_free(sx_analysis *a)
{
    sm_buf_free(&a->text);
    sm_array_free(&a->toks);
    sm_array_free(&a->pend);
    sm_array_free(&a->undec);
    sm_array_free(&a->binds);
}

/* Takes token t: classifies the name before it, then the structure. */
static void sx__take(sx_analysis *a, const sx_tok *t)
{
    uint32_t k = a->toks.size;
    sm_array_push(&a->toks, *t);
    if (a->st.dead)
        return;
    if (k > a->st.stmt_start && sx__kind(a, k - 1) == SX_TOK_NAME)
        sx__classify(a, k - 1, k);
    if (t->kind == SX_TOK_STRING && sx__in_middle(a, k) && sx_is_fstring(sx__text(a), t))
        sx_fstring_fields(sx__text(a), t, sx__on_field, a);
    sx__structure(a, k);
}

bool sx_analysis_step(sx_analysis *a, bool final)
{
    sx_tok t;
    if (a->refused || !sx_lex_next(sx__text(a), a->text.len, &a->st.pos, (int)a->st.depth, final, &t))
        return false;
    sx__take(a, &t);
    return true;
}

void sx_analysis_flush(sx_analysis *a)
{
    if (a->refused || a->st.dead)
        return;
    uint32_t k = a->toks.size;
    if (k > a->st.stmt_start && sx__kind(a, k - 1) == SX_TOK_NAME) {
        /* The program ends after it: a line break follows. */
        sx_tok nl = {.kind = SX_TOK_NEWLINE, .start = (uint32_t)a->text.len, .end = (uint32_t)a->text.len};
        sm_array_push(&a->toks, nl);
        sx__classify(a, k - 1, k);
        a->toks.size--;
    }
    sx__end_statement(a);
}

/* `name.` at the text's end: the lexer waits (the dot may begin `...`),
 * but after a name only an attribute can follow, so the name is
 * classified as before any `.`.  What this adds to the analysis is undone
 * by the session's next restore. */
static bool sx__prefix_dot(sx_analysis *a)
{
    const char *text = sx__text(a);
    size_t dot = a->st.pos;
    while (dot < a->text.len && (text[dot] == ' ' || text[dot] == '\t'))
        dot++;
    uint32_t k = a->toks.size;
    if (dot + 1 != a->text.len || text[dot] != '.' || dot < a->middle_start || k <= a->st.stmt_start ||
        sx__kind(a, k - 1) != SX_TOK_NAME)
        return false;
    sx_tok t = {.kind = SX_TOK_OP, .start = (uint32_t)dot, .end = (uint32_t)dot + 1};
    sm_array_push(&a->toks, t);
    sx__classify(a, k - 1, k);
    return true;
}

void sx_analysis_prefix(sx_analysis *a)
{
    if (a->refused || a->st.dead)
        return;
    const char *text = sx__text(a);
    size_t start = a->st.pos, end = start;
    if (sx__prefix_dot(a))
        return;
    while (end < a->text.len && (text[end] == '_' || (unsigned)((text[end] | 0x20) - 'a') < 26u ||
                                 (end > start && text[end] >= '0' && text[end] <= '9') || (unsigned char)text[end] >= 0x80))
        end++;
    if (end == start || end != a->text.len || end <= a->middle_start)
        return;
    uint32_t prev = a->toks.size ? a->toks.size - 1 : SX__NONE;
    if (prev == SX__NONE || prev < a->st.stmt_start)
        return;
    if (sx__is(a, prev, ".")) {
        sx__attribute(a, prev, start, end, true);
        return;
    }
    /* A read whatever follows, and not a target of `:=` (which may follow
     * `if`, `elif`, `while` and a decorator's `@`). */
    sx_level *l = sx__level(a);
    if (a->st.stmt == SX_STMT_IMPORT || a->st.stmt == SX_STMT_DECLARE || a->st.stmt == SX_STMT_CASE ||
        l->region != SX_REGION_NONE || (a->st.depth > 0 && sx__may_bind_later(a)))
        return;
    /* In brackets no comprehension can bind: an operand (a bare name may
     * still become a keyword argument or a `:=` target). */
    bool read = (sx__one_of(a, prev, sx__binary) && !sx__is(a, prev, "@")) ||
                (a->st.depth == 0 &&
                 sx__one_of(a, prev, (const char *const[]){"return", "yield", "await", "assert", "raise", "else", "->", NULL}));
    if (!read)
        return;
    sx_fact f = {.kind = SX_FACT_READ, .prefix = true, .name = text + start, .name_len = end - start,
                 .at = sx__at(a, start)};
    sx__emit(a, &f);
}

bool sx_analysis_binds(const sx_analysis *a, const char *name, size_t len)
{
    const char *text = sx__text(a);
    for (uint32_t i = 0; i < a->binds.size; i++) {
        const sx_tok *t = &a->toks.items[a->binds.items[i]];
        if (a->binds.items[i] >= a->first_middle_tok && a->binds.items[i] != a->reading && t->end - t->start == len &&
            memcmp(text + t->start, name, len) == 0)
            return true;
    }
    return false;
}

/* The dotted module name of tokens [from, to) (names and dots), into out;
 * false when they are not one. */
static bool sx__dotted(const sx_analysis *a, uint32_t from, uint32_t to, char *out, size_t size)
{
    size_t n = 0;
    for (uint32_t i = from; i < to; i++) {
        const sx_tok *t = &a->toks.items[i];
        bool want_name = (i - from) % 2 == 0;
        if (want_name ? t->kind != SX_TOK_NAME : !sx__is(a, i, "."))
            return false;
        if (n + (t->end - t->start) + 1 > size)
            return false;
        memcpy(out + n, sx__text(a) + t->start, t->end - t->start);
        n += t->end - t->start;
    }
    out[n] = '\0';
    return n > 0 && (to - from) % 2 == 1;
}

/* The first token of the import statement that token `at` is in (back
 * over names, dots, commas and `as`), or SX__NONE when `at` is not in one. */
static uint32_t sx__import_start(const sx_analysis *a, uint32_t at)
{
    uint32_t i = at;
    while (i > 0 && (sx__is(a, i - 1, ",") || a->toks.items[i - 1].kind == SX_TOK_NAME || sx__is(a, i - 1, ".") ||
                     sx__is(a, i - 1, "as")))
        i--;
    if (i == 0 || !sx__is(a, i - 1, "import"))
        return SX__NONE;
    i--;
    if (i == 0 || a->toks.items[i - 1].kind == SX_TOK_NEWLINE || sx__is(a, i - 1, ";"))
        return i;
    /* from m import n: back over the module and its dots to `from` */
    uint32_t m = i;
    while (m > 0 && (a->toks.items[m - 1].kind == SX_TOK_NAME || sx__is(a, m - 1, ".")))
        m--;
    if (m == 0 || !sx__is(a, m - 1, "from"))
        return SX__NONE;
    m--;
    return m == 0 || a->toks.items[m - 1].kind == SX_TOK_NEWLINE || sx__is(a, m - 1, ";") ? m : SX__NONE;
}

/* What binding k (a name of an import statement) is bound to, into module
 * and member: `import a.b` binds a to module a, `import a.b as c` binds c
 * to a.b, `from m import n [as c]` binds to member n of m (member empty
 * otherwise).  False for anything else (a name being aliased, a relative
 * import, a parenthesised list). */
static bool sx__import_binding(const sx_analysis *a, uint32_t k, char *module, char *member, size_t size)
{
    uint32_t stmt = sx__import_start(a, k);
    uint32_t after = k + 1;     /* past the dotted chain k begins */
    while (after + 1 < a->toks.size && sx__is(a, after, ".") && a->toks.items[after + 1].kind == SX_TOK_NAME)
        after += 2;
    if (stmt == SX__NONE || after >= a->toks.size || sx__is(a, after, "as") || sx__is(a, after, "."))
        return false;
    bool from = sx__is(a, stmt, "from");
    uint32_t chain_end = k, chain = k;  /* the imported chain: k itself, or what `as` aliases */
    if (k > 0 && sx__is(a, k - 1, "as")) {
        chain_end = k - 1;
        chain = chain_end;
        while (chain > 0 && (a->toks.items[chain - 1].kind == SX_TOK_NAME || sx__is(a, chain - 1, ".")))
            chain--;
    } else {
        chain_end = k + 1;
    }
    if (chain == 0 || !(sx__is(a, chain - 1, "import") || sx__is(a, chain - 1, ",")))
        return false;
    member[0] = '\0';
    if (!from) {
        bool aliased = chain_end != k + 1;
        /* `import a.b` binds a: the chain's first name */
        return sx__dotted(a, chain, aliased ? chain_end : chain + 1, module, size);
    }
    uint32_t import_at = stmt + 1;
    while (import_at < a->toks.size && !sx__is(a, import_at, "import"))
        import_at++;
    return sx__dotted(a, stmt + 1, import_at, module, size) && sx__dotted(a, chain, chain_end, member, size) &&
           !strchr(member, '.');
}

bool sx_analysis_import_of(const sx_analysis *a, const char *name, size_t len, char *module, char *member,
                           size_t size)
{
    const char *text = sx__text(a);
    bool found = false;
    char m[256], n[256];
    for (uint32_t i = 0; i < a->binds.size; i++) {
        uint32_t k = a->binds.items[i];
        const sx_tok *t = &a->toks.items[k];
        if (k < a->first_middle_tok || k == a->reading || t->end - t->start != len || memcmp(text + t->start, name, len))
            continue;
        if (!sx__import_binding(a, k, m, n, sizeof m) || strlen(m) >= size || strlen(n) >= size ||
            (found && (strcmp(m, module) != 0 || strcmp(n, member) != 0)))
            return false;
        memcpy(module, m, strlen(m) + 1);
        memcpy(member, n, strlen(n) + 1);
        found = true;
    }
    return found;
}
