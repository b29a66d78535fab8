/*
 * scope.c - Python's scope rules: what shape a completion takes, where it
 * must stay, and how much context the recognizer needs.
 *
 * tree-sitter-python's tree of the document (the server keeps it up to
 * date with each edit) tells whether the cursor sits in a comment or an
 * f-string's field; the lexical scan, brackets, a block header's end or a
 * block's empty line.  A small lexical scan of the text (strings, comments, brackets,
 * backslash joins) gives what the tree cannot promise while the code is
 * being typed and full of errors: the bracket depth at the cursor, the
 * string it is in, and the lines where a top-level statement starts with
 * nothing open, where the recognizer's contexts may be cut.
 *
 * Validity never comes from here: the recognizer decides it.
 */
#include "lg_internal.h"

#include <stdlib.h>
#include <string.h>

#include "seam_pylex.h"
#include <tree_sitter/api.h>

/* ---- The lexical scan -------------------------------------------------------------- */




#define LG_PY_STRING_REACH (64u << 10)

/* Where the prefix of a string opening at text[i] (a quote) starts: i
 * when the letters before it are not a prefix (or a longer name). */
static size_t lg__py_prefix_start(const char *text, size_t i, px_prefix *pfx)
{
    size_t j = i;
    while (j > 0 && px_name_byte((unsigned char)text[j - 1]) && i - j < 3)
        j--;
    memset(pfx, 0, sizeof *pfx);
    if ((j > 0 && px_name_byte((unsigned char)text[j - 1])) || !px_string_prefix(text + j, i - j, PX_NEWEST, pfx))
        return i;
    return j;
}

/* Opens the string whose quote is text[i]: finds its end in the text when
 * it has one (s->string_left); returns the opening quotes' length. */
static size_t lg__py_open_string(lg_lex *s, const char *text, size_t len, size_t i)
{
    char c = text[i];
    px_prefix pfx;
    size_t start = lg__py_prefix_start(text, i, &pfx), end;
    s->quote = c;
    s->raw = pfx.raw;
    s->escaped = false;
    s->triple = i + 2 < len && text[i + 1] == c && text[i + 2] == c;
    size_t opening = s->triple ? 3 : 1;
    /* looked for within a reach, so that broken strings that never close
     * (an f-string's field takes line breaks) keep the scan linear */
    size_t reach = len - i > LG_PY_STRING_REACH ? i + LG_PY_STRING_REACH : len;
    bool closed = px_string_end(text, reach, start, i, PX_NEWEST, &end, NULL) == PX_FS_CLOSED;
    s->string_left = closed && end > i + opening ? (uint32_t)(end - i - opening) : 0;
    return opening;
}

/* Advances the scan over text[i]; returns how many bytes it consumed. */
static size_t lg__py_lex_step(lg_lex *s, const char *text, size_t len, size_t i)
{
    char c = text[i];
    if (s->in_comment) {
        if (c == '\n' || c == '\r')
            s->in_comment = false;
        return 1;
    }
    if (s->quote && s->string_left) {
        if (--s->string_left == 0)
            s->quote = 0;
        return 1;
    }
    if (s->quote) {
        if (s->escaped) {
            s->escaped = false;
            return 1;
        }
        if (c == '\\') {
            s->escaped = true;
            return 1;
        }
        if (c == s->quote) {
            if (!s->triple) {
                s->quote = 0;
                return 1;
            }
            if (i + 2 < len && text[i + 1] == c && text[i + 2] == c) {
                s->quote = 0;
                return 3;
            }
            return 1;
        }
        if ((c == '\n' || c == '\r') && !s->triple)
            s->quote = 0;   /* an unterminated one-line string ends at the line */
        return 1;
    }
    switch (c) {
    case '#':
        s->in_comment = true;
        return 1;
    case '\'':
    case '"':
        return lg__py_open_string(s, text, len, i);
    case '(':
    case '[':
    case '{':
        s->depth++;
        return 1;
    case ')':
    case ']':
    case '}':
        if (s->depth > 0)
            s->depth--;
        return 1;
    case '\\':
        if (i + 1 < len && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            s->continued = true;
            return 1;
        }
        return 1;
    default:
        return 1;
    }
}

/* Whether text lexes on its own: no closer without its opener, and nothing
 * (bracket, string, backslash join) open at its end. */
static bool lg__py_lexes_alone(const char *text, size_t len)
{
    lg_lex s = {0};
    for (size_t i = 0; i < len;) {
        char c = text[i];
        if (!s.quote && !s.in_comment && (c == ')' || c == ']' || c == '}') && s.depth == 0)
            return false;
        if (s.continued && c != '\n' && c != '\r' && c != '\\')
            s.continued = false;
        i += lg__py_lex_step(&s, text, len, i);
    }
    return s.depth == 0 && !s.quote && !s.continued;
}

void lg_py_lex_scan(lg_lex *lex, const char *text, size_t len)
{
    lex->string_left = 0; /* it counted bytes of another text */
    for (size_t i = 0; i < len;) {
        if (lex->continued && text[i] != '\n' && text[i] != '\r' && text[i] != '\\')
            lex->continued = false;
        i += lg__py_lex_step(lex, text, len, i);
    }
}

/* Whether the middle closes what it opens: no bracket or string of its
 * own left open, no backslash join pending, and no comment that would
 * take in the line's rest.  Where only the line binds, every viable
 * middle could be continued; this is what makes a place to stop (the
 * true completion, which ends before the person's first closer of
 * something opened before the cursor, always has it). */
bool lg_py_middle_closed(const lg_lex *at, const char *middle, size_t len, bool rest_blank)
{
    lg_lex end = *at;
    lg_py_lex_scan(&end, middle, len);
    if (end.continued || end.escaped || end.depth > at->depth)
        return false;
    if (len > 0 && middle[len - 1] == '\\' && !end.quote && !end.in_comment)
        return false;   /* a backslash join the middle leaves for the next line */
    if (end.quote && !(end.quote == at->quote && end.triple == at->triple))
        return false;
    return !end.in_comment || rest_blank;
}

/* Whether a line starting at text[i] begins a new top-level statement that
 * the recognizer's contexts may be cut before. */
static bool lg__py_statement_start(const char *text, size_t len, size_t i)
{
    unsigned char c = (unsigned char)text[i];
    if (c == ' ' || c == '\t' || c == '\f' || c == '#' || c == '\n' || c == '\r' || c == '@')
        return false;
    static const char *const continuations[] = {"else", "elif", "except", "finally", NULL};
    for (const char *const *k = continuations; *k; k++) {
        size_t n = strlen(*k);
        if (i + n <= len && memcmp(text + i, *k, n) == 0 && (i + n == len || !px_name_byte((unsigned char)text[i + n])))
            return false;
    }
    return true;
}

/* Whether the cursor's line begins with a word the cursor is still in (or
 * right after) that may yet become a clause keyword (`el` of else or
 * elif): the statement the line begins then belongs to the compound
 * statement before it, and the contexts may not be cut between them. */
static bool lg__py_clause_begun(const char *text, size_t line_start, size_t offset)
{
    size_t i = line_start;
    while (i < offset && px_name_byte((unsigned char)text[i]))
        i++;
    if (i != offset || i == line_start)
        return false;   /* the cursor is past the first word, or there is none */
    static const char *const clauses[] = {"else", "elif", "except", "finally"};
    for (size_t k = 0; k < sizeof clauses / sizeof *clauses; k++) {
        size_t n = strlen(clauses[k]);
        if (offset - line_start <= n && memcmp(text + line_start, clauses[k], offset - line_start) == 0)
            return true;
    }
    return false;
}

typedef struct lg__py_scan {
    lg_lex at_cursor;          /* state at the cursor */
    size_t cut_left, cut_right;
    size_t line_start;           /* start of the cursor's line */
    uint32_t line_indent;        /* columns of the cursor line's indentation */
    bool text_before;            /* the cursor's line has text before it */
    bool header_end;             /* the text before the cursor on its line ends with ':' */
    uint32_t header_indent;
    int line_depth;              /* brackets open where the cursor's line starts */
    size_t statement_start;      /* start of the logical line holding the cursor */
} lg__py_scan;

static uint32_t lg__py_indent_of(const char *text, size_t len, size_t line_start)
{
    uint32_t col = 0;
    for (size_t i = line_start; i < len; i++) {
        if (text[i] == ' ')
            col++;
        else if (text[i] == '\t')
            col = (col / 8 + 1) * 8;
        else if (text[i] == '\f')
            col = 0;
        else
            break;
    }
    return col;
}

static bool lg__py_line_break_at(const char *text, size_t len, size_t i)
{
    return text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n'));
}

/* One pass over the text: the lexical state at the cursor, the cursor's
 * line, and the cut points.  The left cut is the start of the top-level
 * statement holding the cursor's line, or, when the cursor's line is not
 * such a start with text before the cursor, of the statement before it
 * (the middle may continue that statement's block).  The right cut is the
 * first statement start after the cursor's line. */
static void lg__py_scan_text(const char *text, size_t len, size_t offset, lg__py_scan *out)
{
    memset(out, 0, sizeof *out);
    lg_lex s = {0};
    size_t ls = offset;
    while (ls > 0 && text[ls - 1] != '\n' && text[ls - 1] != '\r')
        ls--;
    out->line_start = ls;
    out->cut_right = len;
    size_t prev_clean = 0;        /* last statement start before the cursor's line */
    bool line_clean = false;      /* the cursor's line is a statement start */
    uint32_t starts_after = 0;    /* statement starts seen after the cursor's line */
    uint32_t tries = 0;
    bool decorated = false;       /* a decorator line came: the next statement is its */
    bool at_line_start = true;
    bool cursor_seen = false;
    for (size_t i = 0; i <= len;) {
        if (!cursor_seen && i >= offset) {
            out->at_cursor = s;
            cursor_seen = true;
        }
        if (i == len)
            break;
        if (i == ls)
            out->line_depth = s.depth;
        if (at_line_start) {
            bool open = s.depth != 0 || s.quote || s.continued || s.in_comment;
            bool clean = !open && lg__py_statement_start(text, len, i) && !decorated;
            if (!open && text[i] == '@')
                decorated = true;
            else if (!open && lg__py_statement_start(text, len, i))
                decorated = false;
            if (!open && i <= ls)
                out->statement_start = i;
            if (clean && i < ls)
                prev_clean = i;
            else if (clean && i == ls && !lg__py_clause_begun(text, ls, offset))
                line_clean = true;
            else if (clean && i > ls && i > offset && ++starts_after >= 2 && tries++ < 8 &&
                     lg__py_lexes_alone(text + i, len - i)) {
                /* R' holds a whole statement (a decorator the middle ends
                 * with applies to it), and what follows is complete. */
                out->cut_right = i;
                break;
            }
            s.continued = false;
            at_line_start = false;
        }
        size_t step = lg__py_lex_step(&s, text, len, i);
        for (size_t q = 0; q < step && i + q < len; q++)
            if (lg__py_line_break_at(text, len, i + q))
                at_line_start = true;
        i += step;
    }
    if (!cursor_seen)
        out->at_cursor = s;
    out->cut_left = line_clean && ls < offset ? ls : prev_clean;
    out->line_indent = lg__py_indent_of(text, len, ls);
    for (size_t k = ls; k < offset; k++)
        if (text[k] != ' ' && text[k] != '\t' && text[k] != '\f')
            out->text_before = true;
    /* A header's end: the last non-blank character before the cursor on its
     * line is ':' (outside strings, comments and brackets) and nothing but
     * blanks follows on the line. */
    size_t k = offset;
    while (k > ls && (text[k - 1] == ' ' || text[k - 1] == '\t'))
        k--;
    bool rest_blank = true;
    for (size_t r = offset; r < len && text[r] != '\n' && text[r] != '\r'; r++)
        if (text[r] != ' ' && text[r] != '\t') {
            rest_blank = false;
            break;
        }
    if (k > ls && text[k - 1] == ':' && out->at_cursor.depth == 0 && !out->at_cursor.quote &&
        !out->at_cursor.in_comment && rest_blank) {
        out->header_end = true;
        out->header_indent = out->line_indent;
    }
}

/* ---- Scope ----------------------------------------------------------------------- */

static bool lg__py_is_type(TSNode n, const char *type)
{
    return strcmp(ts_node_type(n), type) == 0;
}

/* Whether the literal open at the cursor (state `at`) is closed by the text
 * after it, rather than left open to the end of its line or of the text. */
static bool lg__py_literal_closed_after(lg_lex at, const char *text, size_t len, size_t offset)
{
    for (size_t i = offset; i < len && at.quote;) {
        char c = text[i];
        if (!at.escaped && !at.triple && (c == '\n' || c == '\r'))
            return false;
        i += lg__py_lex_step(&at, text, len, i);
    }
    return !at.quote;
}

/* Whether the word at text[i] begins a compound statement or clause. */
static bool lg__py_compound_keyword(const char *text, size_t len, size_t i)
{
    size_t e = i;
    while (e < len && px_name_byte((unsigned char)text[e]))
        e++;
    return px_compound_keyword(text + i, e - i, PX_NEWEST);
}

/* Whether the cursor's line begins a compound statement whose colon is not
 * written yet and whose body the right context does not hold: the next line
 * with code after it is indented no deeper than the header. */
static bool lg__py_open_header(const char *text, size_t len, size_t line_start, size_t offset, uint32_t indent)
{
    size_t i = line_start;
    while (i < offset && (text[i] == ' ' || text[i] == '\t' || text[i] == '\f'))
        i++;
    if (!lg__py_compound_keyword(text, len, i))
        return false;
    size_t e = offset;
    while (e < len && text[e] != '\n' && text[e] != '\r') {
        if (text[e] == ':' || text[e] == '#')
            return false;
        e++;
    }
    while (e < len) {
        while (e < len && (text[e] == '\n' || text[e] == '\r'))
            e++;
        size_t ls = e;
        while (e < len && text[e] != '\n' && text[e] != '\r')
            e++;
        size_t k = ls;
        while (k < e && (text[k] == ' ' || text[k] == '\t' || text[k] == '\f'))
            k++;
        if (k == e || text[k] == '#')
            continue;
        return lg__py_indent_of(text, len, ls) <= indent;
    }
    return true;
}

/* How far lines the middle starts may dedent from `col` (on the line at
 * line_start): to just inside the innermost def or class enclosing that
 * line (a middle may leave an if or a loop, not its function); `col` when
 * none encloses it.  The line itself counts when it is such a header. */
static uint32_t lg__py_def_floor(const char *text, size_t len, size_t line_start, uint32_t col)
{
    uint32_t bound = col;          /* enclosing lines are indented less than this */
    size_t end = line_start;
    for (uint32_t lines = 0; lines < 20000; lines++) {
        size_t ls = end;
        while (ls > 0 && text[ls - 1] != '\n' && text[ls - 1] != '\r')
            ls--;
        uint32_t indent = lg__py_indent_of(text, len, ls);
        size_t k = ls;
        while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '\f'))
            k++;
        bool code = k < len && text[k] != '\n' && text[k] != '\r' && text[k] != '#';
        if (code && indent < bound) {
            bool def = (k + 4 <= len && memcmp(text + k, "def ", 4) == 0) ||
                       (k + 6 <= len && memcmp(text + k, "class ", 6) == 0) ||
                       (k + 10 <= len && memcmp(text + k, "async def ", 10) == 0);
            if (def)
                return indent + 1 < col ? indent + 1 : col;
            if (indent == 0)
                return col;
            bound = indent;
        }
        if (ls == 0)
            break;
        end = ls - 1;
        if (end > 0 && text[end] == '\n' && text[end - 1] == '\r')
            end--;
    }
    return col;
}

/* Whether text[from, to), a logical line that starts with nothing open,
 * holds a colon outside brackets, strings and comments (not a `:=`). */
static bool lg__py_has_header_colon(const char *text, size_t from, size_t to)
{
    lg_lex s = {0};
    for (size_t i = from; i < to;) {
        if (text[i] == ':' && s.depth == 0 && !s.quote && !s.in_comment && (i + 1 >= to || text[i + 1] != '='))
            return true;
        i += lg__py_lex_step(&s, text, to, i);
    }
    return false;
}

/* The cursor's line and what follows it: where its rest ends, where the
 * next line starts, whether only blank space follows, and whether the
 * statement it is part of is a compound one still missing its colon, and
 * whether that statement's body is written below. */
static void lg__py_line_facts(const char *text, size_t len, size_t offset, size_t statement_start, lg_scope *out)
{
    lg_scope_lines(text, len, offset, out);
    size_t k = statement_start;
    while (k < offset && (text[k] == ' ' || text[k] == '\t' || text[k] == '\f'))
        k++;
    out->colon_unwritten = lg__py_compound_keyword(text, len, k) &&
                           !lg__py_has_header_colon(text, statement_start, out->line_end);
    uint32_t indent = lg__py_indent_of(text, len, statement_start);
    for (size_t ls = out->next_line; ls < len;) {
        size_t le = ls;
        while (le < len && text[le] != '\n' && text[le] != '\r')
            le++;
        size_t c = ls;
        while (c < le && (text[c] == ' ' || text[c] == '\t' || text[c] == '\f'))
            c++;
        if (c < le && text[c] != '#') {
            out->body_below = lg__py_indent_of(text, len, ls) > indent;
            break;
        }
        ls = le < len ? le + 1 : len;
    }
}

void lg_py_scope_at(const TSTree *tree, const char *text, size_t len, size_t offset, bool multiline,
                    uint32_t max_lines, lg_scope *out)
{
    memset(out, 0, sizeof *out);
    out->language = &lg_python;
    lg__py_scan sc;
    lg__py_scan_text(text, len, offset, &sc);
    out->cut_left = sc.cut_left;
    out->cut_right = sc.cut_right;
    out->lex = sc.at_cursor;
    out->node_type = "";
    lg__py_line_facts(text, len, offset, sc.statement_start, out);
    /* What the tree says around the cursor. */
    bool in_comment = sc.at_cursor.in_comment, in_string = sc.at_cursor.quote != 0;
    bool in_field = false;
    if (tree) {
        TSNode root = ts_tree_root_node(tree);
        uint32_t at = (uint32_t)(offset > 0 ? offset - 1 : 0);
        TSNode n = ts_node_descendant_for_byte_range(root, at, at);
        out->node_type = ts_node_type(n);
        for (TSNode a = n; !ts_node_is_null(a); a = ts_node_parent(a)) {
            if (lg__py_is_type(a, "comment") && ts_node_end_byte(a) >= offset && ts_node_start_byte(a) < offset)
                in_comment = true;
            if (lg__py_is_type(a, "interpolation") && ts_node_start_byte(a) < offset && ts_node_end_byte(a) >= offset) {
                in_field = true;   /* inside an f-string's field: an expression */
                break;
            }
        }
    }
    out->bracket_depth = (uint32_t)sc.at_cursor.depth;
    /* Brackets open at the cursor that the right context does not close
     * are the middle's to close: the lowest depth the right context
     * reaches. */
    {
        lg_lex r = sc.at_cursor;
        int lowest = r.depth;
        size_t end = len - offset > (64u << 10) ? offset + (64u << 10) : len;
        for (size_t i = offset; i < end && lowest > 0;) {
            i += lg__py_lex_step(&r, text, end, i);
            if (r.depth < lowest)
                lowest = r.depth;
        }
        out->closable = (uint32_t)(lowest > 0 ? lowest : 0);
    }
    if (in_field && in_string) {
        out->kind = LG_SCOPE_EXPRESSION;
        out->max_lines = 1;
    } else if (in_comment) {
        out->kind = LG_SCOPE_COMMENT;
        out->max_lines = 1;
    } else if (in_string) {
        out->kind = LG_SCOPE_STRING;
        out->quote = sc.at_cursor.quote;
        out->triple = sc.at_cursor.triple;
        out->literal_open = !lg__py_literal_closed_after(sc.at_cursor, text, len, offset);
        out->max_lines = sc.at_cursor.triple && multiline ? max_lines : 1;
    } else if (sc.at_cursor.depth > 0) {
        /* Inside brackets: the rest of the expression, on as many lines as
         * its own lines run when a bracket opened on an earlier line (the
         * code already spreads the expression over lines). */
        out->kind = LG_SCOPE_EXPRESSION;
        out->max_lines = multiline && sc.line_depth > 0 ? max_lines : 1;
    } else if (sc.header_end) {
        out->kind = LG_SCOPE_BODY;
        out->body_indent = sc.header_indent + 1;
        out->min_indent = lg__py_def_floor(text, len, sc.line_start, sc.header_indent + 1);
        out->max_lines = multiline ? max_lines : 1;
    } else if (sc.text_before && lg__py_open_header(text, len, sc.line_start, offset, sc.line_indent)) {
        /* The header ends at its colon: its body belongs to the lines
         * the person writes next. */
        out->kind = LG_SCOPE_HEADER;
        out->body_indent = sc.line_indent + 1;
        out->min_indent = lg__py_def_floor(text, len, sc.line_start, sc.line_indent + 1);
        out->max_lines = 1;
    } else if (sc.text_before) {
        out->kind = LG_SCOPE_LINE;
        out->max_lines = 1;
    } else {
        uint32_t col = 0;
        for (size_t k = sc.line_start; k < offset; k++)
            col = text[k] == '\t' ? (col / 8 + 1) * 8 : col + 1;
        out->kind = col == 0 ? LG_SCOPE_MODULE : LG_SCOPE_BLOCK;
        out->min_indent = lg__py_def_floor(text, len, sc.line_start, col);
        out->max_lines = multiline ? max_lines : 1;
    }
    if (out->max_lines == 0)
        out->max_lines = 1;
}

/* ---- Context escape ------------------------------------------------------------------ */

/* Whether text[i..len) begins with a clause keyword (else, elif, except,
 * finally), or, unless the middle is at its end, is a prefix of one that
 * the next tokens may complete. */
static bool lg__py_clause_keyword(const char *text, size_t len, size_t i, bool at_end)
{
    static const char *const words[] = {"else", "elif", "except", "finally"};
    size_t have = len - i;
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        size_t n = strlen(words[w]);
        if (have < n) {
            if (!at_end && memcmp(text + i, words[w], have) == 0)
                return true;
        } else if (memcmp(text + i, words[w], n) == 0 && (have == n || !px_name_byte((unsigned char)text[i + n]))) {
            return true;
        }
    }
    return false;
}

bool lg_py_escape_filter(const lg_scope *sc, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    (void)max_lines;   /* Python's rules do not depend on the budget */
    switch (sc->kind) {
    case LG_SCOPE_COMMENT:
        /* (left when the middle joins the person's code after the cursor
         * on its line: lg_left_for_lines) */
        return sc->rest_is_code || (!memchr(middle, '\n', len) && !memchr(middle, '\r', len));
    case LG_SCOPE_STRING: {
        /* The middle may not close the literal it started in, unless the
         * right context does not close it: then every completion must. */
        if (sc->literal_open)
            return true;
        bool escaped = false;
        for (size_t i = 0; i < len; i++) {
            if (escaped) {
                escaped = false;
                continue;
            }
            if (middle[i] == '\\') {
                escaped = true;
                continue;
            }
            if (middle[i] == sc->quote &&
                (!sc->triple || (i + 2 < len && middle[i + 1] == sc->quote && middle[i + 2] == sc->quote)))
                return lg_left_for_lines(sc, middle, len, i, at_end);
            if (!sc->triple && (middle[i] == '\n' || middle[i] == '\r'))
                return false;
        }
        return true;
    }
    default:
        break;
    }
    /* Code: brackets the middle did not open may not close; in a block, a
     * line the middle starts (code or comment) may not be indented less
     * than the block, unless the middle joins code after the cursor on its
     * line (that code decides where the middle's lines may go); a blank
     * line it writes holds no blanks. */
    lg_lex s = {0};
    bool line_start = false;
    bool first_line = true;        /* the first line the middle starts is still to come */
    uint32_t closed = 0;
    for (size_t i = 0; i < len;) {
        if (line_start && !s.quote && s.depth == 0 && !s.continued && closed == sc->bracket_depth) {
            size_t k = i;
            uint32_t col = 0;
            while (k < len && (middle[k] == ' ' || middle[k] == '\t' || middle[k] == '\f')) {
                col = middle[k] == '\t' ? (col / 8 + 1) * 8 : middle[k] == '\f' ? 0 : col + 1;
                k++;
            }
            if (k < len && k > i && (middle[k] == '\n' || middle[k] == '\r'))
                return false;   /* a blank line the middle writes has no trailing blanks */
            if (k < len && middle[k] != '\n' && middle[k] != '\r') {
                bool block = sc->kind == LG_SCOPE_BLOCK || sc->kind == LG_SCOPE_BODY ||
                             sc->kind == LG_SCOPE_HEADER;
                /* A clause of the compound statement the block is in
                 * (else, elif, except, finally) may dedent to it. */
                if (block && col < sc->min_indent && !sc->rest_is_code &&
                    !lg__py_clause_keyword(middle, len, k, at_end))
                    return false;
                if (first_line && col < sc->body_indent)
                    return false;   /* a header's body is indented */
                first_line = false;
            }
        }
        line_start = false;
        char c = middle[i];
        if (!s.quote && !s.in_comment && (c == ')' || c == ']' || c == '}') && s.depth == 0) {
            /* Closing a bracket it did not open: only one the right context
             * leaves open, or, where the middle joins the person's code
             * after the cursor, one it leaves for other lines (a header
             * finished, its body written, the code's bracket reopened). */
            if (closed >= sc->closable && !lg_left_for_lines(sc, middle, len, i, at_end))
                return false;
            closed++;
            i++;
            continue;
        }
        bool was_continued = s.continued;
        size_t step = lg__py_lex_step(&s, middle, len, i);
        for (size_t q = 0; q < step && i + q < len; q++)
            if (middle[i + q] == '\n' || (middle[i + q] == '\r' && (i + q + 1 >= len || middle[i + q + 1] != '\n')))
                line_start = true;
        if (line_start && was_continued)
            s.continued = false;
        if (line_start && s.continued) {
            line_start = false;   /* a joined line continues the statement */
            s.continued = false;
        }
        i += step;
    }
    return true;
}
