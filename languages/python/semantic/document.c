/*
 * document.c - what a Python text binds, scope by scope, from its
 * tree-sitter tree: for the document around the cursor (the scopes code
 * there can see) and for a module's top level (its attributes).
 *
 * Bindings are over-approximated where tree-sitter's view is uncertain, so
 * that a read is never refused for a binding missed: every identifier of a
 * target, a case pattern or a parameter binds, a scope ending just before
 * the cursor still counts while the lines between are blank or deeper.
 */
#include "sx_internal.h"

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

typedef enum sx__scope_kind { SX__MODULE = 0, SX__FUNCTION, SX__CLASS, SX__LAMBDA, SX__COMPREHENSION } sx__scope_kind;

typedef struct sx__scope {
    uint8_t kind;
    uint32_t parent;
    uint32_t start, end, column;
} sx__scope;

typedef struct sx__walk {
    const char *text;
    size_t len;
    sx_env *env;
    SM_ARRAY(sx__scope) scopes;
    SM_ARRAY(uint32_t) owner;     /* the scope of each binding of doc->bindings */
    sx_doc *doc;
    bool decorated;
    uint32_t depth;               /* nodes being walked, one inside the other */
} sx__walk;

/* Deeper than this the walk does not go (CPython itself refuses 200
 * nested brackets): the document is then taken as one whose names may be
 * bound unseen, which makes the pruners refuse less, never more.  The
 * walk recurses, and a thread's stack is not the place for 8,000 frames. */
enum { SX__MAX_DEPTH = 1000 };

/* Enters one level of the walk; false (and the document marked) past the
 * limit.  Pair each true answer with sx__leave. */
static bool sx__enter(sx__walk *w)
{
    if (w->depth >= SX__MAX_DEPTH) {
        w->doc->dynamic = true;
        return false;
    }
    w->depth++;
    return true;
}

static void sx__leave(sx__walk *w)
{
    w->depth--;
}

static bool sx__type(TSNode n, const char *type)
{
    return strcmp(ts_node_type(n), type) == 0;
}

static uint32_t sx__intern(sx_doc *doc, const char *s, size_t len)
{
    uint32_t at = (uint32_t)doc->pool.len;
    sm_buf_append(&doc->pool, s, len);
    sm_buf_append(&doc->pool, "", 1);
    return at;
}

static sx_binding *sx__add(sx__walk *w, TSNode id, uint32_t scope, uint8_t kind)
{
    uint32_t s = ts_node_start_byte(id), e = ts_node_end_byte(id);
    if (e <= s || e > w->len)
        return NULL;
    sx_binding b = {.name = sx__intern(w->doc, w->text + s, e - s), .len = e - s, .kind = kind};
    sm_array_push(&w->doc->bindings, b);
    sm_array_push(&w->owner, scope);
    return sm_array_back(&w->doc->bindings);
}

static uint32_t sx__new_scope(sx__walk *w, TSNode n, uint8_t kind, uint32_t parent)
{
    sx__scope s = {.kind = kind, .parent = parent, .start = ts_node_start_byte(n), .end = ts_node_end_byte(n),
                   .column = ts_node_start_point(n).column};
    sm_array_push(&w->scopes, s);
    return w->scopes.size - 1;
}

static void sx__walk_node(sx__walk *w, TSNode n, uint32_t scope);

static void sx__walk_children(sx__walk *w, TSNode n, uint32_t scope)
{
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++)
        sx__walk_node(w, ts_node_named_child(n, i), scope);
}

/* Binds every identifier of a target (not those under an attribute or a
 * subscript, which are read). */
static void sx__targets_at(sx__walk *w, TSNode n, uint32_t scope);

static void sx__targets(sx__walk *w, TSNode n, uint32_t scope)
{
    if (sx__enter(w)) {
        sx__targets_at(w, n, scope);
        sx__leave(w);
    }
}

static void sx__targets_at(sx__walk *w, TSNode n, uint32_t scope)
{
    if (sx__type(n, "identifier")) {
        sx__add(w, n, scope, SX_BIND_OTHER);
        return;
    }
    if (sx__type(n, "attribute") || sx__type(n, "subscript")) {
        sx__walk_node(w, n, scope);
        return;
    }
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++)
        sx__targets(w, ts_node_named_child(n, i), scope);
}

/* Every identifier under n binds (case patterns, with and except aliases). */
static void sx__all_identifiers_at(sx__walk *w, TSNode n, uint32_t scope);

static void sx__all_identifiers(sx__walk *w, TSNode n, uint32_t scope)
{
    if (sx__enter(w)) {
        sx__all_identifiers_at(w, n, scope);
        sx__leave(w);
    }
}

static void sx__all_identifiers_at(sx__walk *w, TSNode n, uint32_t scope)
{
    if (sx__type(n, "identifier")) {
        sx__add(w, n, scope, SX_BIND_OTHER);
        return;
    }
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++)
        sx__all_identifiers(w, ts_node_named_child(n, i), scope);
}

static uint32_t sx__function_scope(const sx__walk *w, uint32_t scope)
{
    while (w->scopes.items[scope].kind == SX__COMPREHENSION)
        scope = w->scopes.items[scope].parent;
    return scope;
}

/* The keyword names of a parameter list, into the pool; *open for **. */
static uint32_t sx__parameters(sx__walk *w, TSNode params, uint32_t scope, bool *open)
{
    sm_buf names;
    sm_buf_init(&names, 1 << 20);
    uint32_t count = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < count; i++) {
        TSNode p = ts_node_named_child(params, i);
        TSNode id = p;
        if (sx__type(p, "positional_separator")) {
            sm_buf_clear(&names);   /* the ones before are positional only */
            continue;
        }
        if (sx__type(p, "dictionary_splat_pattern")) {
            *open = true;
            sx__all_identifiers(w, p, scope);
            continue;
        }
        if (sx__type(p, "typed_parameter") && ts_node_named_child_count(p) > 0) {
            id = ts_node_named_child(p, 0);
            sx__walk_node(w, ts_node_child_by_field_name(p, "type", 4), scope == 0 ? 0 : w->scopes.items[scope].parent);
            if (sx__type(id, "dictionary_splat_pattern"))
                *open = true;
        } else if (sx__type(p, "default_parameter") || sx__type(p, "typed_default_parameter")) {
            id = ts_node_child_by_field_name(p, "name", 4);
            sx__walk_node(w, ts_node_child_by_field_name(p, "value", 5), w->scopes.items[scope].parent);
        }
        if (ts_node_is_null(id))
            continue;
        if (sx__type(id, "identifier")) {
            uint32_t s = ts_node_start_byte(id), e = ts_node_end_byte(id);
            sm_buf_append(&names, w->text + s, e - s);
            sm_buf_append(&names, " ", 1);
        }
        sx__all_identifiers(w, id, scope);
    }
    uint32_t at = sx__intern(w->doc, names.data ? names.data : "", names.len);
    sm_buf_free(&names);
    return at;
}

static void sx__import(sx__walk *w, TSNode n, uint32_t scope)
{
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_named_child(n, i);
        TSNode name = c, alias = {0};
        if (sx__type(c, "aliased_import")) {
            name = ts_node_child_by_field_name(c, "name", 4);
            alias = ts_node_child_by_field_name(c, "alias", 5);
        }
        if (ts_node_is_null(name) || !sx__type(name, "dotted_name") || ts_node_named_child_count(name) == 0)
            continue;
        uint32_t s = ts_node_start_byte(name), e = ts_node_end_byte(name);
        char module[256];
        size_t m = 0;
        for (uint32_t k = s; k < e && m + 1 < sizeof module; k++)
            if (w->text[k] != ' ' && w->text[k] != '\t' && w->text[k] != '\\' && w->text[k] != '\n')
                module[m++] = w->text[k];
        module[m] = '\0';
        sx_binding *b;
        if (ts_node_is_null(alias)) {
            b = sx__add(w, ts_node_named_child(name, 0), scope, SX_BIND_IMPORT);
            char *dot = strchr(module, '.');
            if (dot)
                *dot = '\0';
        } else {
            b = sx__add(w, alias, scope, SX_BIND_IMPORT);
        }
        if (b)
            b->module = sx__intern(w->doc, module, strlen(module));
    }
}

static void sx__import_from(sx__walk *w, TSNode n, uint32_t scope)
{
    TSNode from = ts_node_child_by_field_name(n, "module_name", 11);
    char module[256] = "";
    bool known = !ts_node_is_null(from) && sx__type(from, "dotted_name");
    if (known) {
        uint32_t s = ts_node_start_byte(from), e = ts_node_end_byte(from);
        size_t m = 0;
        for (uint32_t k = s; k < e && m + 1 < sizeof module; k++)
            if (w->text[k] != ' ' && w->text[k] != '\t')
                module[m++] = w->text[k];
        module[m] = '\0';
    }
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (sx__type(c, "wildcard_import")) {
            /* The module's names bind here: asked of the module when read
             * (one not found binds every name). */
            if (known)
                sm_buf_append(&w->doc->stars, module, strlen(module) + 1);
            else
                w->doc->names_open = true;
            continue;
        }
        if (ts_node_eq(c, from))
            continue;
        TSNode name = c, alias = c;
        if (sx__type(c, "aliased_import")) {
            name = ts_node_child_by_field_name(c, "name", 4);
            alias = ts_node_child_by_field_name(c, "alias", 5);
        } else if (sx__type(c, "dotted_name") && ts_node_named_child_count(c) > 0) {
            alias = ts_node_named_child(c, 0);
        }
        if (ts_node_is_null(alias) || ts_node_is_null(name))
            continue;
        char target[256];
        uint32_t s = ts_node_start_byte(name), e = ts_node_end_byte(name);
        char attribute[128];
        size_t an = e - s < sizeof attribute - 1 ? e - s : sizeof attribute - 1;
        memcpy(attribute, w->text + s, an);
        attribute[an] = '\0';
        bool is_module = known && w->env && sx_env_member_module(w->env, module, attribute, true, target, sizeof target);
        sx_binding *b = sx__add(w, alias, scope, is_module ? SX_BIND_IMPORT : SX_BIND_OTHER);
        if (b && is_module)
            b->module = sx__intern(w->doc, target, strlen(target));
    }
}

static void sx__function(sx__walk *w, TSNode n, uint32_t scope, uint8_t kind)
{
    bool decorated = w->decorated;
    w->decorated = false;
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    sx_binding *b = ts_node_is_null(name) ? NULL : sx__add(w, name, scope, kind == SX__FUNCTION ? SX_BIND_DEF : SX_BIND_CLASS);
    uint32_t inner = sx__new_scope(w, n, kind, scope);
    uint32_t binding = b ? (uint32_t)(b - w->doc->bindings.items) : UINT32_MAX;
    if (kind == SX__FUNCTION) {
        TSNode params = ts_node_child_by_field_name(n, "parameters", 10);
        bool open = decorated;
        uint32_t names = ts_node_is_null(params) ? sx__intern(w->doc, "", 0) : sx__parameters(w, params, inner, &open);
        if (binding != UINT32_MAX) {
            w->doc->bindings.items[binding].params = names;
            w->doc->bindings.items[binding].open = open;
        }
        sx__walk_node(w, ts_node_child_by_field_name(n, "return_type", 11), scope);
    } else {
        sx__walk_node(w, ts_node_child_by_field_name(n, "superclasses", 12), scope);
    }
    sx__walk_node(w, ts_node_child_by_field_name(n, "body", 4), inner);
}

static void sx__walk_node_at(sx__walk *w, TSNode n, uint32_t scope);

/* Whether decorator d is enum's global_enum (`@enum.global_enum`,
 * `@global_enum`), which writes the class's members into the module. */
static bool sx__global_enum(const sx__walk *w, TSNode d)
{
    uint32_t s = ts_node_start_byte(d), e = ts_node_end_byte(d);
    while (e > s && (w->text[e - 1] == ' ' || w->text[e - 1] == '\t' || w->text[e - 1] == '\r' ||
                     w->text[e - 1] == '\n'))
        e--;
    const size_t len = 11;
    if (e - s < len + 1 || memcmp(w->text + e - len, "global_enum", len) != 0)
        return false;
    char before = w->text[e - len - 1];
    return before == '.' || before == '@' || before == ' ';
}

static void sx__walk_node(sx__walk *w, TSNode n, uint32_t scope)
{
    if (sx__enter(w)) {
        sx__walk_node_at(w, n, scope);
        sx__leave(w);
    }
}

/* Whether the globals() or vars() ending at text[at] is written through
 * (reading a name from it, as os does, binds nothing): globals()[...] =,
 * or its update, setdefault or __setitem__. */
static bool sx__namespace_written(const char *text, size_t len, size_t at)
{
    if (at + 2 > len || text[at] != '(' || text[at + 1] != ')')
        return false;
    at += 2;
    static const char *const methods[] = {".update(", ".setdefault(", ".__setitem__(", NULL};
    for (size_t i = 0; methods[i]; i++)
        if (at + strlen(methods[i]) <= len && memcmp(text + at, methods[i], strlen(methods[i])) == 0)
            return true;
    if (at >= len || text[at] != '[')
        return false;
    int depth = 0;
    for (size_t k = at; k < len && text[k] != '\n'; k++) {
        if (text[k] == '[')
            depth++;
        else if (text[k] == ']' && --depth == 0) {
            k++;
            while (k < len && (text[k] == ' ' || text[k] == '\t'))
                k++;
            return k < len && text[k] == '=' && (k + 1 >= len || text[k + 1] != '=');
        }
    }
    return false;
}

/* Whether the call whose name ends at text[at] passes globals() among
 * its arguments (its parentheses matched roughly, strings not skipped). */
static bool sx__call_passes_globals(const char *text, size_t len, size_t at)
{
    if (at >= len || text[at] != '(')
        return false;
    int depth = 0;
    for (size_t k = at; k < len; k++) {
        if (text[k] == '(')
            depth++;
        else if (text[k] == ')' && --depth == 0)
            return false;
        else if (k + 9 <= len && memcmp(text + k, "globals()", 9) == 0)
            return true;
    }
    return false;
}

static void sx__walk_node_at(sx__walk *w, TSNode n, uint32_t scope)
{
    if (ts_node_is_null(n))
        return;
    const char *type = ts_node_type(n);
    if (strcmp(type, "identifier") == 0) {
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        bool exec = e - s == 4 && memcmp(w->text + s, "exec", 4) == 0;
        bool globals = e - s == 7 && memcmp(w->text + s, "globals", 7) == 0;
        bool vars = (e - s == 4 && memcmp(w->text + s, "vars", 4) == 0) ||
                    (e - s == 6 && memcmp(w->text + s, "locals", 6) == 0);   /* the module's, at its level */
        if (exec || globals)
            w->doc->dynamic = true;
        /* The module's namespace is written: by exec at the module level,
         * by exec given globals() anywhere (turtle makes its functions so),
         * by writes through globals() or vars() anywhere. */
        if ((exec && (scope == 0 || sx__call_passes_globals(w->text, w->len, e))) ||
            ((globals || (vars && scope == 0)) && sx__namespace_written(w->text, w->len, e)))
            w->doc->module_writes = true;
        if (e - s == 11 && memcmp(w->text + s, "__getattr__", 11) == 0 && scope == 0)
            w->doc->getattr = true;
        return;
    }
    if (strcmp(type, "decorated_definition") == 0) {
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (!sx__type(c, "decorator"))
                continue;
            if (scope == 0 && sx__global_enum(w, c))
                w->doc->module_writes = true;   /* the enum's members become the module's names */
            sx__walk_node(w, c, scope);
        }
        w->decorated = true;
        sx__walk_node(w, ts_node_child_by_field_name(n, "definition", 10), scope);
        w->decorated = false;
    } else if (strcmp(type, "function_definition") == 0) {
        sx__function(w, n, scope, SX__FUNCTION);
    } else if (strcmp(type, "class_definition") == 0) {
        sx__function(w, n, scope, SX__CLASS);
    } else if (strcmp(type, "lambda") == 0) {
        uint32_t inner = sx__new_scope(w, n, SX__LAMBDA, scope);
        TSNode params = ts_node_child_by_field_name(n, "parameters", 10);
        bool open = false;
        if (!ts_node_is_null(params))
            sx__parameters(w, params, inner, &open);
        sx__walk_node(w, ts_node_child_by_field_name(n, "body", 4), inner);
    } else if (strcmp(type, "list_comprehension") == 0 || strcmp(type, "set_comprehension") == 0 ||
               strcmp(type, "dictionary_comprehension") == 0 || strcmp(type, "generator_expression") == 0) {
        uint32_t inner = sx__new_scope(w, n, SX__COMPREHENSION, scope);
        sx__walk_children(w, n, inner);
    } else if (strcmp(type, "for_in_clause") == 0 || strcmp(type, "for_statement") == 0) {
        sx__targets(w, ts_node_child_by_field_name(n, "left", 4), scope);
        uint32_t count = ts_node_named_child_count(n);
        TSNode left = ts_node_child_by_field_name(n, "left", 4);
        for (uint32_t i = 0; i < count; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (!ts_node_eq(c, left))
                sx__walk_node(w, c, scope);
        }
    } else if (strcmp(type, "assignment") == 0 || strcmp(type, "augmented_assignment") == 0) {
        sx__targets(w, ts_node_child_by_field_name(n, "left", 4), scope);
        sx__walk_node(w, ts_node_child_by_field_name(n, "type", 4), scope);
        sx__walk_node(w, ts_node_child_by_field_name(n, "right", 5), scope);
    } else if (strcmp(type, "named_expression") == 0) {
        TSNode name = ts_node_child_by_field_name(n, "name", 4);
        if (!ts_node_is_null(name))
            sx__add(w, name, sx__function_scope(w, scope), SX_BIND_OTHER);
        sx__walk_node(w, ts_node_child_by_field_name(n, "value", 5), scope);
    } else if (strcmp(type, "as_pattern") == 0) {
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (sx__type(c, "as_pattern_target"))
                sx__all_identifiers(w, c, scope);
            else
                sx__walk_node(w, c, scope);
        }
    } else if (strcmp(type, "except_clause") == 0) {
        TSNode alias = ts_node_child_by_field_name(n, "alias", 5);
        if (!ts_node_is_null(alias))
            sx__all_identifiers(w, alias, scope);
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (!ts_node_eq(c, alias))
                sx__walk_node(w, c, scope);
        }
    } else if (strcmp(type, "case_pattern") == 0) {
        sx__all_identifiers(w, n, scope);
    } else if (strcmp(type, "import_statement") == 0) {
        sx__import(w, n, scope);
    } else if (strcmp(type, "import_from_statement") == 0) {
        sx__import_from(w, n, scope);
    } else if (strcmp(type, "global_statement") == 0) {
        sx__all_identifiers(w, n, 0);
    } else if (strcmp(type, "nonlocal_statement") == 0) {
        sx__all_identifiers(w, n, scope);
    } else if (strcmp(type, "attribute") == 0) {
        TSNode name = ts_node_child_by_field_name(n, "attribute", 9);
        if (scope == 0 && !ts_node_is_null(name) && ts_node_end_byte(name) - ts_node_start_byte(name) == 9 &&
            memcmp(w->text + ts_node_start_byte(name), "_convert_", 9) == 0)
            w->doc->module_writes = true;   /* an enum's members become the module's names */
        sx__walk_node(w, ts_node_child_by_field_name(n, "object", 6), scope);
    } else if (strcmp(type, "keyword_argument") == 0) {
        sx__walk_node(w, ts_node_child_by_field_name(n, "value", 5), scope);
    } else {
        sx__walk_children(w, n, scope);
    }
}

/* The end of scope s stretched over the lines after it that are blank or
 * indented deeper than its header: the cursor there may be in its body. */
static size_t sx__stretched_end(const sx__walk *w, const sx__scope *s)
{
    size_t i = s->end;
    while (i < w->len && w->text[i] != '\n')
        i++;
    while (i < w->len) {
        size_t line = i + 1, k = line;
        uint32_t indent = 0;
        while (k < w->len && (w->text[k] == ' ' || w->text[k] == '\t')) {
            indent += w->text[k] == '\t' ? 8 : 1;
            k++;
        }
        bool blank = k >= w->len || w->text[k] == '\n' || w->text[k] == '\r' || w->text[k] == '#';
        if (!blank && indent <= s->column)
            return line + indent;   /* the cursor at the start of this line's text is outside */
        while (k < w->len && w->text[k] != '\n')
            k++;
        i = k;
    }
    return w->len;
}

static bool sx__encloses(const sx__walk *w, const sx__scope *s, size_t at)
{
    if (s->start >= at)
        return false;
    if (s->kind == SX__LAMBDA || s->kind == SX__COMPREHENSION)
        return at < s->end;
    return at <= sx__stretched_end(w, s);
}

static int sx__by_name(const void *x, const void *y, void *pool)
{
    const sx_binding *a = x, *b = y;
    int c = strcmp((const char *)pool + a->name, (const char *)pool + b->name);
    return c ? c : (a->name > b->name) - (a->name < b->name);   /* then in the order written */
}

/* Sorts the bindings by name, so that finding one is a binary search. */
static void sx__index(sx_doc *doc)
{
    if (doc->bindings.size > 1)
        qsort_r(doc->bindings.items, doc->bindings.size, sizeof *doc->bindings.items, sx__by_name, doc->pool.data);
}

/* text's tree: `given`, or parsed here by `deadline_ns` (0: no limit;
 * *late set when it came first). */
static TSTree *sx__tree(const char *text, size_t len, TSTree *given, uint64_t deadline_ns, bool *late)
{
    *late = false;
    if (given)
        return given;
    if (!sm_tree_sitter_takes(text, len))
        return NULL;   /* (the document is then not read: nothing is refused) */
    uint64_t now = sm_now_ns();
    if (deadline_ns && now >= deadline_ns) {
        *late = true;
        return NULL;
    }
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_python())) {
        if (parser)
            ts_parser_delete(parser);
        return NULL;
    }
    if (deadline_ns)
        ts_parser_set_timeout_micros(parser, (deadline_ns - now) / 1000u + 1);
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    ts_parser_delete(parser);
    *late = !tree && deadline_ns;
    return tree;
}

int sx_doc_read(sx_doc *doc, sx_env *env, const char *text, size_t len, size_t at, TSTree *given,
                uint64_t deadline_ns)
{
    memset(doc, 0, sizeof *doc);
    sm_buf_init(&doc->pool, (size_t)1 << 30);
    sm_buf_init(&doc->stars, 1 << 20);
    sm_array_init(&doc->bindings);
    if (len > UINT32_MAX) {
        if (given)
            ts_tree_delete(given);
        return SM_ETOOBIG;
    }
    if (given && ts_node_end_byte(ts_tree_root_node(given)) > len) {
        ts_tree_delete(given);  /* not a tree of this text */
        given = NULL;
    }
    bool late;
    TSTree *tree = sx__tree(text, len, given, deadline_ns, &late);
    if (!tree)
        return late ? SM_ETIMEDOUT : SM_ENOMEM;
    sx__walk w = {.text = text, .len = len, .env = env, .doc = doc};
    sm_array_init(&w.scopes);
    sm_array_init(&w.owner);
    TSNode root = ts_tree_root_node(tree);
    sx__new_scope(&w, root, SX__MODULE, 0);
    sx__walk_node(&w, root, 0);
    /* Keep the bindings of the scopes code at `at` sees. */
    bool *visible = sm_calloc(w.scopes.size, sizeof *visible);
    visible[0] = true;
    if (at != SIZE_MAX) {
        for (uint32_t s = 1; s < w.scopes.size; s++)
            visible[s] = sx__encloses(&w, &w.scopes.items[s], at);
        /* A class's names are not seen from the functions inside it. */
        for (uint32_t s = 1; s < w.scopes.size; s++) {
            if (!visible[s] || w.scopes.items[s].kind == SX__CLASS || w.scopes.items[s].kind == SX__COMPREHENSION)
                continue;
            bool strictly = w.scopes.items[s].start < at && at < w.scopes.items[s].end;
            for (uint32_t p = w.scopes.items[s].parent; strictly && p != 0; p = w.scopes.items[p].parent)
                if (w.scopes.items[p].kind == SX__CLASS)
                    visible[p] = false;
        }
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < doc->bindings.size; i++)
        if (visible[w.owner.items[i]])
            doc->bindings.items[kept++] = doc->bindings.items[i];
    doc->bindings.size = kept;
    sx__index(doc);
    sm_free(visible);
    sm_array_free(&w.scopes);
    sm_array_free(&w.owner);
    ts_tree_delete(tree);
    return SM_OK;
}

static bool sx__matches(const sx_doc *doc, const sx_binding *b, const char *name, size_t len, bool prefix)
{
    return (prefix ? b->len >= len : b->len == len) && memcmp(doc->pool.data + b->name, name, len) == 0;
}

const sx_binding *sx_doc_find(const sx_doc *doc, const char *name, size_t len, bool prefix, const sx_binding *after)
{
    if (after) {
        /* the bindings that match are next to each other */
        uint32_t i = (uint32_t)(after - doc->bindings.items) + 1;
        return i < doc->bindings.size && sx__matches(doc, &doc->bindings.items[i], name, len, prefix)
                   ? &doc->bindings.items[i]
                   : NULL;
    }
    uint32_t lo = 0, hi = doc->bindings.size;
    while (lo < hi) {   /* the first binding whose first len bytes are not below name's */
        uint32_t mid = lo + (hi - lo) / 2;
        if (strncmp(doc->pool.data + doc->bindings.items[mid].name, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < doc->bindings.size && sx__matches(doc, &doc->bindings.items[lo], name, len, prefix)
               ? &doc->bindings.items[lo]
               : NULL;
}

void sx_doc_free(sx_doc *doc)
{
    sm_buf_free(&doc->pool);
    sm_buf_free(&doc->stars);
    sm_array_free(&doc->bindings);
}
