/*
 * scope.c - JavaScript's scope rules: what shape a completion takes and
 * where it must stay.
 *
 * The lexical reading (shape.c) says whether the cursor is in a comment, a
 * string, a template's text or a regular expression, and which brackets
 * are open around it; tree-sitter-javascript's tree tells a block's brace
 * (statements follow) from an object's (an expression goes on), with a
 * reading of the code before the brace where the tree, broken by code
 * being typed, cannot.  Validity never comes from here: the recognizer
 * decides it (tree-sitter guesses where semicolons are inserted).
 */
#include "lg_internal.h"

#include <string.h>

#define LG_JS_REACH (64u << 10)   /* how far the right context is read for its closers */
#define LG_JS_OPEN_MAX 256        /* open brackets remembered, innermost first */

/* The brackets open at a point, innermost last: where each opened and
 * which it is ('(', '[', '{', or '$' for a template's "${"). */
typedef struct lg__js_open {
    size_t at[LG_JS_OPEN_MAX];
    char c[LG_JS_OPEN_MAX];
    uint32_t count;      /* open; past LG_JS_OPEN_MAX the innermost are not known */
} lg__js_open;

static bool lg__js_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool lg__js_word_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           (unsigned char)c >= 0x80;
}

/* Scans text[0, offset) into lex, keeping the brackets open. */
static void lg__js_scan(const char *text, size_t offset, bool jsx, lg_lex *lex, lg__js_open *open)
{
    memset(lex, 0, sizeof *lex);
    lex->jsx = jsx;
    open->count = 0;
    for (size_t at = 0; at < offset;) {
        int32_t depth = lex->depth;
        uint8_t templates = lex->templates;
        size_t next = lg_js_lex_step(lex, text, offset, at);
        if (lex->depth > depth || lex->templates > templates) {
            if (open->count < LG_JS_OPEN_MAX) {
                open->at[open->count] = at;
                open->c[open->count] = lex->templates > templates ? '$' : text[at];
            }
            open->count++;
        } else if ((lex->depth < depth || lex->templates < templates) && open->count > 0) {
            open->count--;
        }
        at = next;
    }
}

/* The word that ends just before text[end] (blanks skipped), into
 * word[0..size); its start. */
static size_t lg__js_word_before(const char *text, size_t end, char *word, size_t size)
{
    size_t e = end;
    while (e > 0 && lg__js_blank(text[e - 1]))
        e--;
    size_t b = e;
    while (b > 0 && lg__js_word_byte(text[b - 1]))
        b--;
    size_t n = e - b < size - 1 ? e - b : 0;
    memcpy(word, text + b, n);
    word[n] = '\0';
    return b;
}

/* Whether the statement the brace at text[at] stands in declares a class
 * or a function whose body it opens: "class" or "function" since the last
 * statement boundary before it, on its lines. */
static bool lg__js_declares_body(const char *text, size_t at)
{
    size_t b = at;
    while (b > 0 && text[b - 1] != ';' && text[b - 1] != '{' && text[b - 1] != '}' && at - b < 512)
        b--;
    static const char *const words[] = {"class", "function"};
    for (size_t i = b; i < at; i++) {
        if (i > b && lg__js_word_byte(text[i - 1]))
            continue;
        for (size_t w = 0; w < 2; w++) {
            size_t n = strlen(words[w]);
            if (i + n <= at && memcmp(text + i, words[w], n) == 0 && (i + n == at || !lg__js_word_byte(text[i + n])))
                return true;
        }
    }
    return false;
}

/* Whether the colon at text[colon] ends a switch's clause: its line
 * starts with "case" or "default". */
static bool lg__js_clause_colon(const char *text, size_t colon)
{
    size_t b = colon;
    while (b > 0 && text[b - 1] != '\n' && text[b - 1] != '\r')
        b--;
    while (b < colon && lg__js_blank(text[b]))
        b++;
    static const char *const words[] = {"case", "default"};
    for (size_t w = 0; w < 2; w++) {
        size_t n = strlen(words[w]);
        if (b + n <= colon && memcmp(text + b, words[w], n) == 0 && !lg__js_word_byte(text[b + n]))
            return true;
    }
    return false;
}

/* The lexical reading of the brace at text[at]: whether it opens a block
 * (or a class body), from what comes before it. */
static bool lg__js_brace_opens_block(const char *text, size_t at)
{
    size_t e = at;
    while (e > 0 && lg__js_blank(text[e - 1]))
        e--;
    if (e == 0)
        return true;
    char p = text[e - 1];
    if (p == ')' || p == ';' || p == '{' || p == '}')
        return true;    /* a statement's head, or a statement of its own */
    if (p == ':' && lg__js_clause_colon(text, e - 1))
        return true;    /* "case 1: {": a clause's block */
    if (p == '>' && e >= 2 && text[e - 2] == '=')
        return true;    /* an arrow function's body */
    if (!lg__js_word_byte(p))
        return false;   /* after an operator, a comma, a colon: an object */
    char word[16];
    lg__js_word_before(text, at, word, sizeof word);
    static const char *const block_words[] = {"else", "try", "finally", "do", "static", NULL};
    for (size_t i = 0; block_words[i]; i++)
        if (strcmp(word, block_words[i]) == 0)
            return true;
    static const char *const operand_words[] = {"return", "typeof", "void", "delete", "in", "of", "yield", "await",
                                                "case", "new", "instanceof", "throw", NULL};
    for (size_t i = 0; operand_words[i]; i++)
        if (strcmp(word, operand_words[i]) == 0)
            return false;
    return lg__js_declares_body(text, at);
}

/* The type of the node whose first byte is the brace at text[at], in
 * tree-sitter's tree; NULL without a tree or such a node. */
static const char *lg__js_brace_node(const TSTree *tree, size_t at)
{
    if (!tree)
        return NULL;
    TSNode n = ts_node_descendant_for_byte_range(ts_tree_root_node(tree), (uint32_t)at, (uint32_t)at + 1);
    TSNode parent = ts_node_parent(n);
    if (ts_node_is_null(parent) || ts_node_start_byte(n) != at || ts_node_start_byte(parent) != at)
        return NULL;
    return ts_node_type(parent);
}

/* Whether the brace at text[at], the first byte of a node of `type` (NULL:
 * unknown), opens a block: tree-sitter's word where its tree has the brace
 * as a block's, a class body's, a switch's or an object's; the lexical
 * reading elsewhere. */
static bool lg__js_block_brace_of(const char *type, const char *text, size_t at)
{
    if (type) {
        static const char *const blocks[] = {"statement_block", "class_body", "switch_body", "class_static_block",
                                             NULL};
        /* (and tree-sitter-typescript's: a type literal, an interface's and
         * an enum's members) */
        static const char *const objects[] = {"object", "object_pattern", "named_imports", "export_clause",
                                              "template_substitution", "object_type", "interface_body",
                                              "enum_body", NULL};
        for (size_t i = 0; blocks[i]; i++)
            if (strcmp(type, blocks[i]) == 0)
                return true;
        for (size_t i = 0; objects[i]; i++)
            if (strcmp(type, objects[i]) == 0)
                return false;
    }
    return lg__js_brace_opens_block(text, at);
}

static bool lg__js_block_brace(const TSTree *tree, const char *text, size_t at)
{
    return lg__js_block_brace_of(lg__js_brace_node(tree, at), text, at);
}

/* Whether the brace at text[at] ends its line (blanks after it). */
static bool lg__js_ends_line(const char *text, size_t at)
{
    size_t i = at + 1;
    while (text[i] == ' ' || text[i] == '\t')
        i++;
    return text[i] == '\n' || text[i] == '\r';
}

/* Whether the brace at text[at] holds lines a line typed in it stays in: a
 * block, (tree-sitter-typescript) an interface's or an enum's members, or
 * any brace that ends its line: an object, a type literal or a pattern
 * written a member to a line closes on a line of its own. */
static bool lg__js_holds_lines(const TSTree *tree, const char *text, size_t at)
{
    const char *type = lg__js_brace_node(tree, at);
    if (lg__js_block_brace_of(type, text, at) || lg__js_ends_line(text, at))
        return true;
    if (type && (strcmp(type, "interface_body") == 0 || strcmp(type, "enum_body") == 0))
        return true;
    /* where the tree cannot read code being typed: the brace's line starts
     * the declaration ("export interface A<T> extends B {") */
    size_t i = at;
    while (i > 0 && text[i - 1] != '\n' && text[i - 1] != '\r')
        i--;
    static const char *const words[] = {"export ", "declare ", "const ", "default "};
    for (bool more = true; more;) {
        while (text[i] == ' ' || text[i] == '\t')
            i++;
        more = false;
        for (size_t w = 0; w < sizeof words / sizeof *words && !more; w++)
            if (strncmp(text + i, words[w], strlen(words[w])) == 0) {
                i += strlen(words[w]);
                more = true;
            }
    }
    return strncmp(text + i, "interface ", 10) == 0 || strncmp(text + i, "enum ", 5) == 0;
}

/* Whether `closer` closes a bracket of kind `kind` ('$': a "${"). */
static bool lg__js_matches(char kind, char closer)
{
    return (kind == '(' && closer == ')') || (kind == '[' && closer == ']') ||
           ((kind == '{' || kind == '$') && closer == '}');
}

/* The closers that lead the rest of the cursor's line (after blanks), at
 * most `max`, into closers[]; their count. */
static uint32_t lg__js_leading_closers(const char *text, size_t len, size_t offset, char *closers, uint32_t max)
{
    uint32_t n = 0;
    for (size_t i = offset; i < len && n < max && text[i] != '\n' && text[i] != '\r'; i++) {
        if (lg__js_blank(text[i]))
            continue;
        if (text[i] != ')' && text[i] != ']' && text[i] != '}')
            break;
        closers[n++] = text[i];
    }
    return n;
}

/* How many of closers[0..n) close, in a row, the brackets open at the
 * cursor from the `skip`-th innermost out. */
static uint32_t lg__js_closers_match(const lg__js_open *open, uint32_t skip, const char *closers, uint32_t n)
{
    uint32_t i = 0;
    while (i < n && skip + i < open->count && lg__js_matches(open->c[open->count - 1 - skip - i], closers[i]))
        i++;
    return i;
}

/* Which of the brackets open at the cursor the right context closes
 * before anything else on the cursor's line: its leading closers (after
 * blanks), innermost first, while their kinds match ("foo(|)", "[${|}]":
 * what an editor closed for the person).  Where the line opened more
 * brackets than lead its rest ("push(...readdirSync(|)": an editor closes
 * a bracket only where it may), the middle closes the innermost it opened
 * and the leading closers the line's others, when their kinds match.  A
 * closer further on may close a bracket the middle opens ("if (x" then a
 * body and "}"): it says nothing of what the middle may close.
 * closed[j] for open->c[j]. */
static void lg__js_right_closes(const lg__js_open *open, const char *text, size_t len, size_t offset,
                                size_t line_start, bool *closed)
{
    if (open->count == 0 || open->count > LG_JS_OPEN_MAX)
        return;
    char closers[LG_JS_OPEN_MAX];
    uint32_t n = lg__js_leading_closers(text, len, offset, closers, open->count);
    uint32_t on_line = 0;   /* brackets the cursor's line opened, innermost first */
    while (on_line < open->count && open->at[open->count - 1 - on_line] >= line_start)
        on_line++;
    uint32_t skip = n > 0 && n < on_line ? on_line - n : 0;
    if (skip && lg__js_closers_match(open, skip, closers, n) < n)
        skip = 0;
    for (uint32_t i = 0, m = lg__js_closers_match(open, skip, closers, n); i < m; i++)
        closed[open->count - 1 - skip - i] = true;
}

/* Which brackets open at the cursor a middle keeps (lg_scope's kept). */
static void lg__js_kept(const TSTree *tree, const lg__js_open *open, const char *text, size_t len, size_t offset,
                        size_t line_start, bool stays, bool *kept)
{
    if (open->count == 0 || open->count > LG_JS_OPEN_MAX)
        return;
    bool closed[LG_JS_OPEN_MAX] = {false};
    lg__js_right_closes(open, text, len, offset, line_start, closed);
    int32_t block = -1;   /* the innermost brace holding lines opened before it */
    for (int32_t j = (int32_t)open->count - 1; stays && j >= 0 && block < 0; j--)
        if (open->at[j] < line_start && open->c[j] == '{' && lg__js_holds_lines(tree, text, open->at[j]))
            block = j;
    for (uint32_t k = 0; k < LG_SCOPE_KEPT && k < open->count; k++) {
        int32_t j = (int32_t)open->count - 1 - (int32_t)k;
        kept[k] = closed[j] || j <= block;
    }
}

/* Whether the rest of the line from text[i] (state r) ends outside a
 * quote's string: read as code after the closing quote, it lexes. */
static bool lg__js_line_lexes(lg_lex r, const char *text, size_t end, size_t i)
{
    while (i < end && text[i] != '\n' && text[i] != '\r')
        i = lg_js_lex_step(&r, text, end, i);
    return r.in != '\'' && r.in != '"';
}

/* Whether the literal the cursor is in is closed by the text after it:
 * by a closer of its own (a quote's string: one whose line then lexes as
 * code; "a, f('b')" after the cursor in 'x| opens another string, it does
 * not close this one). */
static bool lg__js_literal_closed_after(const lg_lex *at, const char *text, size_t len, size_t offset)
{
    lg_lex r = *at;
    size_t end = len - offset > LG_JS_REACH ? offset + LG_JS_REACH : len;
    for (size_t i = offset; i < end;) {
        bool line_break = text[i] == '\n' || text[i] == '\r';
        i = lg_js_lex_step(&r, text, end, i);
        if (r.templates <= at->templates && r.in != at->in) {
            if (line_break)
                return false;   /* a quote's string left at a line break is not closed */
            return (at->in != '\'' && at->in != '"') || lg__js_line_lexes(r, text, end, i);
        }
    }
    return false;
}

static void lg__js_scope(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                         uint32_t max_lines, bool jsx, lg_scope *out)
{
    memset(out, 0, sizeof *out);
    out->language = &lg_javascript;
    out->cut_left = 0;
    out->cut_right = len;
    out->node_type = "";
    if (tree && offset > 0) {
        TSNode n = ts_node_descendant_for_byte_range(ts_tree_root_node(tree), (uint32_t)offset - 1,
                                                     (uint32_t)offset - 1);
        out->node_type = ts_node_type(n);
    }
    size_t ls = offset;
    while (ls > 0 && text[ls - 1] != '\n' && text[ls - 1] != '\r')
        ls--;
    lg_scope_lines(text, len, offset, out);
    lg__js_open open;
    lg__js_scan(text, offset, jsx, &out->lex, &open);
    const lg_lex *lex = &out->lex;
    out->bracket_depth = (uint32_t)(lex->depth > 0 ? lex->depth : 0);
    bool text_before = false;
    for (size_t k = ls; k < offset; k++)
        text_before |= !lg__js_blank(text[k]);
    uint32_t many = multiline && max_lines ? max_lines : 1;
    out->max_lines = 1;
    switch (lex->in) {
    case LG_LINE_COMMENT:
    case LG_BLOCK_COMMENT:
        out->kind = LG_SCOPE_COMMENT;
        out->quote = (char)lex->in;
        out->literal_open = lex->in == LG_BLOCK_COMMENT && !lg__js_literal_closed_after(lex, text, len, offset);
        out->max_lines = lex->in == LG_BLOCK_COMMENT ? many : 1;   /* a block comment takes lines */
        return;
    case LG_TEMPLATE:
    case '\'':
    case '"':
        out->kind = LG_SCOPE_STRING;
        out->quote = (char)lex->in;
        out->triple = lex->in == LG_TEMPLATE;   /* a template's text takes line breaks */
        out->literal_open = !lg__js_literal_closed_after(lex, text, len, offset);
        out->max_lines = out->triple ? many : 1;
        return;
    case LG_REGEX:
        out->kind = LG_SCOPE_EXPRESSION;
        return;
    case LG_JSX_TAG:
    case LG_JSX_STRING:
    case LG_JSX_TEXT:
        /* in an element (JSX): the rest of its expression; on an empty line
         * among its children or its tag's attributes, as many lines as it
         * takes */
        out->kind = LG_SCOPE_EXPRESSION;
        out->max_lines = !text_before && lex->in != LG_JSX_STRING ? many : 1;
        return;
    default:
        break;
    }
    /* (a middle that joins the person's code after the cursor on its line
     * may close blocks: that code says where it goes) */
    lg__js_kept(tree, &open, text, len, offset, ls, text_before && !out->rest_is_code, out->kept);
    bool known = open.count <= LG_JS_OPEN_MAX;
    size_t inner = open.count - 1;
    bool statements = open.count == 0 || (known && open.c[inner] == '{' && lg__js_block_brace(tree, text, open.at[inner]));
    if (!statements) {
        /* the rest of an expression; on an empty line of one that already
         * runs over lines, as many lines as it takes */
        out->kind = LG_SCOPE_EXPRESSION;
        out->max_lines = !text_before && known && open.at[inner] < ls ? many : 1;
    } else if (text_before) {
        out->kind = LG_SCOPE_LINE;
    } else {
        out->kind = open.count == 0 && ls == offset ? LG_SCOPE_MODULE : LG_SCOPE_BLOCK;
        out->max_lines = many;
    }
}

void lg_js_scope_at(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                    uint32_t max_lines, lg_scope *out)
{
    lg__js_scope(tree, text, len, offset, multiline, max_lines, false, out);
}

void lg_jsx_scope_at(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                     uint32_t max_lines, lg_scope *out)
{
    lg__js_scope(tree, text, len, offset, multiline, max_lines, true, out);
}

bool lg_js_escape_filter(const lg_scope *sc, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    lg_lex s = sc->lex;
    int32_t cursor = sc->lex.depth + sc->lex.templates, lowest = cursor;
    for (size_t at = 0; at < len;) {
        at = lg_js_lex_step(&s, middle, len, at);
        switch (sc->kind) {
        case LG_SCOPE_COMMENT:
        case LG_SCOPE_STRING:
            /* the middle may not leave the comment or literal it is in,
             * unless the right context does not close it (every
             * completion must then) */
            if (s.templates <= sc->lex.templates && s.in != sc->lex.in && !sc->literal_open)
                return lg_left_for_lines(sc, middle, len, at, at_end);
            break;
        default:
            /* a bracket open at the cursor that the middle closes: not one
             * it keeps (lg__js_kept), unless the scope takes lines and the
             * middle goes on to other lines to join the person's code after
             * the cursor (a hole in finished code: "} = {" after the
             * cursor on an empty line, the middle "};" and a declaration
             * whose type's brace that "}" closes) */
            if (s.depth + s.templates < lowest) {
                lowest = s.depth + s.templates;
                int32_t k = cursor - 1 - lowest;
                if (lowest < 0)
                    return false;   /* nothing open to close */
                if (k >= 0 && k < LG_SCOPE_KEPT && sc->kept[k] &&
                    !(max_lines > 1 && lg_left_for_lines(sc, middle, len, at, at_end)))
                    return false;
            }
            break;
        }
    }
    return true;
}
