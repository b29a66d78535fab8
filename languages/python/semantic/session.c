/*
 * session.c - one completion's semantic check: the document read once, the
 * middle analysed lexeme by lexeme with a saved state after each, and the
 * facts handed to the pruners switched on.
 */
#include "sx_internal.h"

#include <stdio.h>
#include <stdlib.h>

enum { SX__RIGHT_CAP = 64 << 10 };

typedef struct sx__saved {
    sx_state st;
    uint32_t ntok, npend, nundec, nbind;
    bool refused;
    sx_refusal refusal;
} sx__saved;

struct sx_session {
    sx_env *env;
    unsigned pruners;
    sx_doc doc;
    sx_analysis an;
    char *right;            /* owned: the document after the middle, up to the cap */
    size_t right_len;
    bool right_whole;       /* right holds the document's end */
    size_t left_len;
    SM_ARRAY(sx__saved) saved;
    sm_buf written_pool;    /* the names written in the document outside the middle, NUL-separated */
    SM_ARRAY(const char *) written;  /* into written_pool: sorted, distinct */
    bool load;              /* lookups may read modules (false: cached ones only) */
    char module[256];       /* the module a name the middle imports is bound to */
    uint32_t refused[SX_PRUNER_COUNT];
    sx_refusal last;
};

/* ---- The names the document writes ---------------------------------------------- */

static int sx__cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every name written in text: what the middle's reads may resolve to.  A
 * name's scopes are not asked: tree-sitter's tree of a document with a
 * hole in it can put the cursor in the wrong one, and the middle may go
 * out of the cursor's scope (a method's end, then the class body).  Kept
 * as sorted strings, so that a name being written is looked up by prefix
 * against the same set as the whole name. */
static void sx__collect_written(sx_session *s, const char *text, size_t len)
{
    SM_ARRAY(uint32_t) offsets;
    sm_array_init(&offsets);
    sm_buf_init(&s->written_pool, 2 * len + 1);     /* each name and its NUL */
    size_t pos = 0;
    sx_tok t;
    int depth = 0;
    while (pos < len) {
        if (!sx_lex_next(text, len, &pos, depth, true, &t))
            break;
        char c = text[t.start];
        if (t.kind == SX_TOK_OP && t.end - t.start == 1)
            depth += (c == '(' || c == '[' || c == '{') ? 1 : (c == ')' || c == ']' || c == '}') && depth > 0 ? -1 : 0;
        if (t.kind == SX_TOK_NAME) {
            sm_array_push(&offsets, (uint32_t)s->written_pool.len);
            sm_buf_append(&s->written_pool, text + t.start, t.end - t.start);
            sm_buf_append(&s->written_pool, "", 1);
        }
    }
    for (uint32_t i = 0; i < offsets.size; i++)
        sm_array_push(&s->written, s->written_pool.data + offsets.items[i]);
    sm_array_free(&offsets);
    if (!s->written.size)
        return;
    qsort(s->written.items, s->written.size, sizeof *s->written.items, sx__cmp_str);
    uint32_t n = 1;
    for (uint32_t i = 1; i < s->written.size; i++)
        if (strcmp(s->written.items[i], s->written.items[n - 1]) != 0)
            s->written.items[n++] = s->written.items[i];
    s->written.size = n;
}

/* Whether a name written in the document is name[0..len) (prefix: begins
 * with it). */
static bool sx__is_written(const sx_session *s, const char *name, size_t len, bool prefix)
{
    uint32_t lo = 0, hi = s->written.size;
    while (lo < hi) {   /* the first name whose first len bytes are not below name's */
        uint32_t mid = lo + (hi - lo) / 2;
        if (strncmp(s->written.items[mid], name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == s->written.size || strncmp(s->written.items[lo], name, len) != 0)
        return false;
    return prefix || s->written.items[lo][len] == '\0';
}

/* ---- The pruners ----------------------------------------------------------------- */

static bool sx__doc_has_prefix(const sx_session *s, const char *name, size_t len)
{
    if (sx__is_written(s, name, len, true) || sx_doc_find(&s->doc, name, len, true, NULL))
        return true;
    const sx_analysis *a = &s->an;
    for (uint32_t i = a->first_middle_tok; i < a->toks.size; i++) {
        const sx_tok *t = &a->toks.items[i];
        if (t->kind == SX_TOK_NAME && t->end - t->start >= len && memcmp(a->text.data + t->start, name, len) == 0)
            return true;
    }
    return false;
}

static bool sx__judge_names(sx_session *s, const sx_fact *f, sx_refusal *why)
{
    if (f->kind != SX_FACT_READ || sx_session_names_open(s))
        return true;
    if (f->prefix) {
        if (sx_keyword_has_prefix(f->name, f->name_len) || sx_builtin_has_prefix(f->name, f->name_len) ||
            sx__doc_has_prefix(s, f->name, f->name_len) || s->doc.stars.len > 0)
            return true;
        snprintf(why->why, sizeof why->why, "no name in scope begins with `%.*s`", (int)f->name_len, f->name);
        return false;
    }
    if (sx_session_binds(s, f->name, f->name_len))
        return true;
    snprintf(why->why, sizeof why->why, "`%.*s` is not bound where it is read (nor a builtin)", (int)f->name_len,
             f->name);
    return false;
}

/* Follows `.a.b` (rest[0..len)) from the module in out: each name as the
 * member module of the one before it (os.path is posixpath); false when
 * one is not a module the environment knows. */
static bool sx__members(sx_session *s, const char *rest, size_t len, char *out, size_t size)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i + 1;
        while (j < len && rest[j] != '.')
            j++;
        char member[128], next[256];
        if (!s->env || j - i - 1 >= sizeof member)
            return false;
        memcpy(member, rest + i + 1, j - i - 1);
        member[j - i - 1] = '\0';
        if (!sx_env_member_module(s->env, out, member, s->load, next, sizeof next))
            return false;
        snprintf(out, size, "%s", next);
        i = j;
    }
    return true;
}

/* The module a dotted chain of names ("os.path", or `p.sep` with p bound
 * to a module) refers to, into out; false when it is not a module the
 * environment knows. */
static bool sx__chain_module(sx_session *s, const char *chain, size_t len, char *out, size_t size)
{
    const char *dot = memchr(chain, '.', len);
    size_t first = dot ? (size_t)(dot - chain) : len;
    const char *module = sx_session_module_of(s, chain, first);
    if (!module)
        return false;
    /* the module bound, itself perhaps dotted, then the chain's members */
    size_t head = strcspn(module, ".");
    snprintf(out, size, "%.*s", (int)head, module);
    return sx__members(s, module + head, strlen(module + head), out, size) &&
           sx__members(s, chain + first, len - first, out, size);
}

static bool sx__judge_attributes(sx_session *s, const sx_fact *f, sx_refusal *why)
{
    if (f->kind != SX_FACT_ATTRIBUTE || !s->env)
        return true;
    char module[256], name[128];
    if (!sx__chain_module(s, f->base, f->base_len, module, sizeof module) || f->name_len >= sizeof name)
        return true;
    memcpy(name, f->name, f->name_len);
    name[f->name_len] = '\0';
    bool found;
    bool ok = f->prefix ? sx_env_has_attribute_prefix(s->env, module, name, s->load, &found)
                        : sx__env_has_attribute(s->env, module, name, s->load, &found);
    if (ok || !found)
        return true;
    snprintf(why->why, sizeof why->why, f->prefix ? "module %.100s has no attribute beginning with `%.60s`"
                                                  : "module %.100s has no attribute `%.60s`",
             module, name);
    return false;
}

static bool sx__listed(const char *names, const char *name, size_t len)
{
    for (const char *p = names; *p;) {
        const char *sp = strchr(p, ' ');
        size_t n = sp ? (size_t)(sp - p) : strlen(p);
        if (n == len && memcmp(p, name, len) == 0)
            return true;
        p += n + (sp ? 1 : 0);
    }
    return false;
}

static bool sx__judge_keywords(sx_session *s, const sx_fact *f, sx_refusal *why)
{
    if (f->kind != SX_FACT_KEYWORD)
        return true;
    bool open = false;
    const char *params = NULL;
    char function[400];
    if (f->member) {
        char module[256], member[128];
        const char *m = sx_session_module_of(s, f->base, f->base_len);
        if (!m || !s->env || f->member_len >= sizeof member)
            return true;
        snprintf(module, sizeof module, "%s", m);
        memcpy(member, f->member, f->member_len);
        member[f->member_len] = '\0';
        params = sx__env_parameters(s->env, module, member, s->load, &open);
        snprintf(function, sizeof function, "%s.%s", module, member);
    } else {
        params = sx_session_parameters(s, f->base, f->base_len, &open);
        snprintf(function, sizeof function, "%.*s", (int)f->base_len, f->base);
    }
    if (!params || open || sx__listed(params, f->name, f->name_len))
        return true;
    snprintf(why->why, sizeof why->why, "%.100s() takes no keyword argument `%.*s`", function, (int)(f->name_len > 60 ? 60 : f->name_len), f->name);
    return false;
}

const sx_pruner sx_pruners[SX_PRUNER_COUNT] = {
    [SX_NAMES] = {"names", sx__judge_names},
    [SX_ATTRIBUTES] = {"attributes", sx__judge_attributes},
    [SX_KEYWORDS] = {"keywords", sx__judge_keywords},
};

static bool sx__on_fact(void *data, const sx_fact *fact, sx_refusal *why)
{
    sx_session *s = data;
    for (int p = 0; p < SX_PRUNER_COUNT; p++) {
        if (!(s->pruners & (1u << p)))
            continue;
        if (!sx_pruners[p].judge(s, fact, why)) {
            why->pruner = p;
            return false;
        }
    }
    return true;
}

/* ---- What the document binds ----------------------------------------------------------- */

bool sx_session_names_open(const sx_session *s)
{
    return s->doc.names_open || s->doc.dynamic;
}

bool sx_session_binds(const sx_session *s, const char *name, size_t len)
{
    if (sx_is_builtin(name, len) || sx_analysis_binds(&s->an, name, len) || sx__is_written(s, name, len, false))
        return true;
    if (sx_doc_find(&s->doc, name, len, false, NULL))
        return true;
    if (s->doc.stars.len) {
        char key[128];
        if (!s->env || len >= sizeof key)
            return true;
        memcpy(key, name, len);
        key[len] = '\0';
        for (size_t i = 0; i < s->doc.stars.len; i += strlen(s->doc.stars.data + i) + 1)
            if (sx__env_has_attribute(s->env, s->doc.stars.data + i, key, s->load, NULL))
                return true;
    }
    return false;
}

const char *sx_session_module_of(sx_session *s, const char *name, size_t len)
{
    const char *module = NULL;
    if (sx_analysis_binds(&s->an, name, len)) {
        /* bound in the middle: by an import of a module, or unknown */
        char imported[256], member[256];
        if (!sx_analysis_import_of(&s->an, name, len, imported, member, sizeof imported) || !s->env)
            return NULL;
        if (!member[0])
            snprintf(s->module, sizeof s->module, "%s", imported);
        else if (!sx_env_member_module(s->env, imported, member, s->load, s->module, sizeof s->module))
            return NULL;    /* not a module: an attribute of one */
        module = s->module;
    }
    for (const sx_binding *b = NULL; (b = sx_doc_find(&s->doc, name, len, false, b));) {
        const char *m = s->doc.pool.data + b->module;
        if (b->kind != SX_BIND_IMPORT || (module && strcmp(module, m) != 0))
            return NULL;
        module = m;
    }
    return module;
}

const char *sx_session_parameters(const sx_session *s, const char *name, size_t len, bool *open)
{
    if (sx_analysis_binds(&s->an, name, len))
        return NULL;
    const char *params = NULL;
    for (const sx_binding *b = NULL; (b = sx_doc_find(&s->doc, name, len, false, b));) {
        const char *p = s->doc.pool.data + b->params;
        if (b->kind != SX_BIND_DEF || (params && strcmp(params, p) != 0))
            return NULL;
        params = p;
        *open = *open || b->open;
    }
    return params;
}

/* ---- Sessions -------------------------------------------------------------------------- */

static void sx__save(sx_session *s)
{
    const sx_analysis *a = &s->an;
    sx__saved v = {.st = a->st, .ntok = a->toks.size, .npend = a->pend.size, .nundec = a->undec.size,
                   .nbind = a->binds.size, .refused = a->refused, .refusal = a->refusal};
    sm_array_push(&s->saved, v);
}

static void sx__restore(sx_session *s, uint32_t i)
{
    sx_analysis *a = &s->an;
    const sx__saved *v = &s->saved.items[i];
    a->st = v->st;
    a->toks.size = v->ntok;
    a->pend.size = v->npend;
    a->undec.size = v->nundec;
    a->binds.size = v->nbind;
    a->refused = v->refused;
    a->refusal = v->refusal;
    s->saved.size = i + 1;
}

/* Reads the modules the document imports, so that lookups need not. */
static void sx__warm(sx_session *s)
{
    if (!s->env)
        return;
    /* within the environment's budget: a module not read by then is
     * unknown to this completion, and constrains nothing */
    uint64_t budget = sx__env_budget_ns(s->env);
    uint64_t deadline = budget ? sm_now_ns() + budget : 0;
    SM_ARRAY(const char *) names;
    sm_array_init(&names);
    for (uint32_t i = 0; i < s->doc.bindings.size; i++)
        if (s->doc.bindings.items[i].kind == SX_BIND_IMPORT)
            sm_array_push(&names, s->doc.pool.data + s->doc.bindings.items[i].module);
    for (size_t i = 0; i < s->doc.stars.len; i += strlen(s->doc.stars.data + i) + 1)
        sm_array_push(&names, s->doc.stars.data + i);
    sx__env_warm(s->env, names.items, names.size, deadline);
    sm_array_free(&names);
}

void sx_session_cached_only(sx_session *s)
{
    s->load = false;
}

int sx_session_new(sx_env *env, unsigned pruners, const char *text, size_t len, size_t left_len, size_t right_start,
                   sx_session **out)
{
    return sx_session_new_tree(env, pruners, text, len, left_len, right_start, NULL, out);
}

int sx_session_new_tree(sx_env *env, unsigned pruners, const char *text, size_t len, size_t left_len,
                        size_t right_start, struct TSTree *tree, sx_session **out)
{
    if (tree && left_len != right_start) {
        ts_tree_delete(tree);   /* a tree of the text with the selection in it: not the document read */
        tree = NULL;
    }
    if (left_len > right_start || right_start > len || len > UINT32_MAX / 2) {
        if (tree)
            ts_tree_delete(tree);
        return SM_EINVAL;
    }
    sx_session *s = sm_calloc(1, sizeof *s);
    s->env = env;
    s->pruners = pruners;
    s->load = true;
    s->left_len = left_len;
    /* The document as it is, with the cursor's text (a selection) left
     * out: what the middle's code can see. */
    char *doc = sm_malloc(left_len + (len - right_start) + 1);
    memcpy(doc, text, left_len);
    memcpy(doc + left_len, text + right_start, len - right_start);
    int rc = sx_doc_read(&s->doc, env, doc, left_len + (len - right_start), left_len, tree, 0);
    if (rc != SM_OK) {
        sm_free(doc);
        sx_doc_free(&s->doc);
        sm_free(s);
        return rc;
    }
    sm_array_init(&s->written);
    sx__collect_written(s, doc, left_len + (len - right_start));
    sm_free(doc);
    sx__warm(s);
    s->right_len = len - right_start < SX__RIGHT_CAP ? len - right_start : SX__RIGHT_CAP;
    s->right_whole = s->right_len == len - right_start;
    s->right = sm_strndup(text + right_start, s->right_len);
    sx_analysis_init(&s->an, text, left_len, sx__on_fact, s);
    sm_array_init(&s->saved);
    sx__save(s);
    s->last.pruner = -1;
    *out = s;
    return SM_OK;
}

void sx_session_free(sx_session *s)
{
    if (!s)
        return;
    sx_doc_free(&s->doc);
    sm_array_free(&s->written);
    sm_buf_free(&s->written_pool);
    sx_analysis_free(&s->an);
    sm_array_free(&s->saved);
    sm_free(s->right);
    sm_free(s);
}

/* Brings the analysis to middle[0..len): back to the last saved state the
 * new middle does not change, then on. */
static void sx__advance(sx_session *s, const char *middle, size_t len)
{
    sx_analysis *a = &s->an;
    size_t old_len = a->text.len - s->left_len, common = 0;
    while (common < old_len && common < len && a->text.data[s->left_len + common] == middle[common])
        common++;
    uint32_t i = s->saved.size - 1;
    while (i > 0) {
        size_t limit = s->saved.items[i].st.pos + 3;
        if (limit > a->text.len)
            limit = a->text.len;
        if (limit <= s->left_len + common)
            break;
        i--;
    }
    sx__restore(s, i);
    a->text.len = s->left_len + common;
    sm_buf_append(&a->text, middle + common, len - common);
    a->middle_end = s->left_len + len;
    while (sx_analysis_step(a, false))
        sx__save(s);
}

/* The middle followed by the right context, to its statement's end.  The
 * right context is appended in growing pieces, as the lexemes need it:
 * most statements end within a line of the cursor. */
static bool sx__check_end(sx_session *s, sx_refusal *why)
{
    sx_analysis *a = &s->an;
    uint32_t top = s->saved.size - 1;
    size_t text_len = a->text.len, given = 0, piece = 256;
    bool ended = false;
    for (;;) {
        size_t more = s->right_len - given < piece ? s->right_len - given : piece;
        sm_buf_append(&a->text, s->right + given, more);
        given += more;
        piece *= 4;
        bool all = given == s->right_len;
        while (!a->refused && sx_analysis_step(a, all && s->right_whole)) {
            const sx_tok *t = &a->toks.items[a->toks.size - 1];
            if (t->start >= a->middle_end && a->st.stmt_start == a->toks.size && a->st.depth == 0 &&
                a->st.pend_from == a->pend.size && a->st.undec_from == a->undec.size) {
                ended = true;
                break;
            }
        }
        if (ended || a->refused || all)
            break;
    }
    if (!ended && !a->refused && s->right_whole && a->st.pos >= a->text.len)
        sx_analysis_flush(a);
    bool ok = !a->refused;
    if (!ok && why)
        *why = a->refusal;
    a->text.len = text_len;
    sx__restore(s, top);
    return ok;
}

bool sx_check(sx_session *s, const char *middle, size_t len, bool at_end, sx_refusal *why)
{
    sx_analysis *a = &s->an;
    sx__advance(s, middle, len);
    if (a->refused) {
        if (why)
            *why = a->refusal;
        return false;
    }
    if (at_end)
        return sx__check_end(s, why);   /* the lexeme at the end is whole with the right context */
    sx_analysis_prefix(a);
    if (a->refused) {
        if (why)
            *why = a->refusal;
        a->refused = false;     /* not the saved state's: the lexeme may still change */
        return false;
    }
    return true;
}

bool sx_filter(void *data, const char *middle, size_t len, bool at_end)
{
    sx_session *s = data;
    sx_refusal why = {.pruner = -1};
    if (sx_check(s, middle, len, at_end, &why))
        return true;
    if (why.pruner >= 0 && why.pruner < SX_PRUNER_COUNT)
        s->refused[why.pruner]++;
    s->last = why;
    return false;
}

uint32_t sx_session_refused(const sx_session *s, int pruner)
{
    return pruner >= 0 && pruner < SX_PRUNER_COUNT ? s->refused[pruner] : 0;
}

const sx_refusal *sx_session_last_refusal(const sx_session *s)
{
    return s->last.pruner >= 0 ? &s->last : NULL;
}
