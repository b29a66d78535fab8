/*
 * lexeme.c - Python's lexemes, as much of them as the pruners need.
 *
 * Names, keywords, numbers, strings (an f-string is one lexeme, read as
 * the newest Python reads it, modes and all: its fields' expressions are
 * analysed apart), operators, and the line
 * breaks that end a logical line.  The text is valid Python so far (the
 * recognizer sees to that), so the reader can be simple; where it is not
 * sure a lexeme is whole it says so, and the caller waits for more text.
 */
#include "sx_internal.h"
#include "seam_pylex.h"


bool sx_tok_is(const char *text, const sx_tok *tok, const char *s)
{
    size_t n = strlen(s);
    return tok->end - tok->start == n && memcmp(text + tok->start, s, n) == 0;
}

bool sx_is_keyword(const char *s, size_t len)
{
    return px_keyword(s, len, PX_NEWEST);
}

bool sx_keyword_has_prefix(const char *s, size_t len)
{
    /* a keyword, or a string's prefix: `rb` may become `rb"..."` */
    return px_keyword_has_prefix(s, len, PX_NEWEST) || (len > 0 && px_string_prefix(s, len, PX_NEWEST, NULL));
}

static const char *const sx__ops3[] = {"**=", "//=", ">>=", "<<=", "...", NULL};
static const char *const sx__ops2[] = {"->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=",
                                       "-=", "*=",  "/=", "%=", "&=", "|=", "^=", "@=", NULL};

static size_t sx__match_op(const char *text, size_t len, size_t pos, bool *maybe_longer)
{
    *maybe_longer = false;
    for (int w = 3; w >= 2; w--) {
        const char *const *ops = w == 3 ? sx__ops3 : sx__ops2;
        for (size_t k = 0; ops[k]; k++) {
            size_t have = len - pos < (size_t)w ? len - pos : (size_t)w;
            if (memcmp(text + pos, ops[k], have) == 0) {
                if (have == (size_t)w)
                    return (size_t)w;
                *maybe_longer = true;
            }
        }
    }
    return 1;
}

/* The string lexeme from `start` (its prefix) whose quote is at `quote`,
 * read as the newest Python reads it (f- and t-strings with modes). */
static bool sx__string_tok(const char *text, size_t len, size_t start, size_t quote, size_t *pos, bool final,
                           sx_tok *out)
{
    size_t end;
    int status = px_string_end(text, len, start, quote, PX_NEWEST, &end, NULL);
    if (status == PX_FS_MORE) {
        if (!final)
            return false;
        end = len;
    } else if (status == PX_FS_ERROR) {
        end = end > quote ? end : quote + 1;    /* not valid: end it there */
    }
    *out = (sx_tok){.kind = SX_TOK_STRING, .start = (uint32_t)start, .end = (uint32_t)end};
    *pos = end;
    return true;
}

bool sx_lex_next(const char *text, size_t len, size_t *pos, int depth, bool final, sx_tok *out)
{
    size_t i = *pos;
    for (;;) {
        if (i >= len) {
            *pos = i;
            return false;
        }
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\f') {
            i++;
        } else if (c == '\\' && i + 1 < len && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            i += 2;
            if (text[i - 1] == '\r' && i < len && text[i] == '\n')
                i++;
        } else if (c == '\\' && i + 1 >= len && !final) {
            *pos = i;
            return false;
        } else if (c == '#') {
            size_t comment = i;
            while (i < len && text[i] != '\n' && text[i] != '\r')
                i++;
            if (i == len && !final) {
                *pos = comment;     /* the text may go on in the comment */
                return false;
            }
        } else if (c == '\n' || c == '\r') {
            size_t start = i++;
            if (c == '\r' && i < len && text[i] == '\n')
                i++;
            if (depth == 0) {
                *out = (sx_tok){.kind = SX_TOK_NEWLINE, .start = (uint32_t)start, .end = (uint32_t)i};
                *pos = i;
                return true;
            }
        } else {
            break;
        }
    }
    *pos = i;
    size_t start = i;
    unsigned char c = (unsigned char)text[i];
    if (px_name_byte(c) && !(c >= '0' && c <= '9')) {
        while (i < len && px_name_byte((unsigned char)text[i]))
            i++;
        if (i < len && (text[i] == '\'' || text[i] == '"') && px_string_prefix(text + start, i - start, PX_NEWEST, NULL))
            return sx__string_tok(text, len, start, i, pos, final, out);
        if (i == len && !final)
            return false;
        bool kw = sx_is_keyword(text + start, i - start);
        *out = (sx_tok){.kind = kw ? SX_TOK_KEYWORD : SX_TOK_NAME, .start = (uint32_t)start, .end = (uint32_t)i};
        *pos = i;
        return true;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && text[i + 1] >= '0' && text[i + 1] <= '9')) {
        while (i < len) {
            char d = text[i];
            if (px_name_byte((unsigned char)d) || d == '.')
                i++;
            else if ((d == '+' || d == '-') && (text[i - 1] == 'e' || text[i - 1] == 'E') &&
                     !(text[start] == '0' && start + 1 < len && (text[start + 1] | 0x20) == 'x'))
                i++;
            else
                break;
        }
        if (i == len && !final)
            return false;
        *out = (sx_tok){.kind = SX_TOK_NUMBER, .start = (uint32_t)start, .end = (uint32_t)i};
        *pos = i;
        return true;
    }
    if (c == '\'' || c == '"') {
        return sx__string_tok(text, len, start, i, pos, final, out);
    }
    bool longer;
    size_t w = sx__match_op(text, len, i, &longer);
    if (w == 1 && !strchr("()[]{},;~", c)) {
        /* One character that a second may still extend: `*` into `**=`,
         * `.` into `...`, `=` into `==`. */
        bool could = longer || (i + 1 == len && strchr("+-*/%&|^@<>=!:.", c));
        if (could && !final && i + 1 >= len)
            return false;
        if (c == '.' && i + 1 < len && text[i + 1] == '.' && i + 2 >= len && !final)
            return false;
    } else if (longer && !final) {
        return false;
    }
    *out = (sx_tok){.kind = SX_TOK_OP, .start = (uint32_t)start, .end = (uint32_t)(start + w)};
    *pos = start + w;
    return true;
}

/* ---- F-strings' replacement fields ------------------------------------------------ */

bool sx_is_fstring(const char *text, const sx_tok *tok)
{
    return px_is_template_start(text + tok->start, tok->end - tok->start, PX_NEWEST, NULL);
}

void sx_fstring_fields(const char *text, const sx_tok *tok, void (*on_field)(void *data, size_t start, size_t end),
                       void *data)
{
    size_t quote = 0, end;
    if (!px_is_template_start(text + tok->start, tok->end - tok->start, PX_NEWEST, &quote))
        return;
    px_fs_exprs exprs;
    sm_array_init(&exprs);
    if (px_string_end(text, tok->end, tok->start, tok->start + quote, PX_NEWEST, &end, &exprs) == PX_FS_CLOSED &&
        end == tok->end)
        for (uint32_t i = 0; i < exprs.size; i++)
            on_field(data, exprs.items[i].start, exprs.items[i].end);
    sm_array_free(&exprs);
}
