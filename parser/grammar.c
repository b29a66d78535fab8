/*
 * grammar.c - compiles a grammar file (docs/GRAMMAR_FORMAT.md) into the
 * tables of ep_grammar.h.
 *
 * Compilation runs in three stages: the text is read into a small syntax
 * tree per definition; EBNF sugar is desugared into plain rules (with
 * helper nonterminals named "@..." shared between identical constructs);
 * then the tables the Earley parser needs are derived: the nullable set,
 * prediction closures and the initial positions of every symbol.
 */
#include "ep_grammar.h"
#include "seam_languages.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- Syntax tree of a rule's right-hand side --------------------------- */

enum { EP_NODE_SYM, EP_NODE_SEQ, EP_NODE_ALT, EP_NODE_OPT, EP_NODE_STAR, EP_NODE_PLUS, EP_NODE_SEP };

typedef struct ep_node ep_node;
struct ep_node {
    int kind;
    uint32_t symbol;            /* EP_NODE_SYM: a tagged symbol reference */
    SM_ARRAY(ep_node *) kids;   /* owned */
};

/* Symbol references are tagged while parsing, because terminal ids are only
 * final once every literal has been seen. */
#define EP_NT_TAG 0x80000000u

typedef struct ep_lexdef {
    char *name;
    char *pattern;
    uint32_t pattern_len;
    bool literal;
    int32_t priority;
    uint8_t kind;
    uint32_t line;
    bool fstring;
    char *also;       /* %also: a declared terminal it may be scanned as too */
    bool first;       /* %first: only at the start of the text */
    bool is_name;     /* %name: a name, whose characters lg_lexical's name_char_valid says */
    uint8_t keep;     /* %keep: only this many bytes are the token (0: all) */
    char *check;      /* %check: the language's check of a finished token */
    bool strict;      /* %strict: a token the check fails is refused, %also or not */
    SM_ARRAY(char *) rivals;  /* %goal: the literal lexemes it is chosen over */
    bool goal;
    bool goal_all;            /* "%goal all": every lexeme with a text that begins with one of its own */
    SM_ARRAY(char *) goal_but; /* "%goal all but A "b"": lexemes that are not rivals after all */
} ep_lexdef;

typedef struct ep_ruledef {
    uint32_t lhs;     /* nonterminal index */
    uint32_t start;   /* into builder.bodies (tagged symbols) */
    uint32_t len;
} ep_ruledef;

typedef struct ep_helper {
    char *key;
    uint32_t nt;
} ep_helper;

typedef struct ep_builder {
    const char *src;
    size_t len;
    size_t at;
    uint32_t line;
    char *error;
    size_t error_size;
    bool failed;

    SM_ARRAY(ep_lexdef) lexdefs;       /* named lexemes, then literals */
    SM_ARRAY(char *) nt_names;         /* nonterminals */
    SM_ARRAY(bool) nt_defined;
    SM_ARRAY(uint32_t) nt_line;        /* first line that referenced or defined it */
    SM_ARRAY(ep_ruledef) rules;
    SM_ARRAY(uint32_t) bodies;
    SM_ARRAY(ep_helper) helpers;
    SM_ARRAY(char *) soft_literals;
    char *soft_target;
    char *scoped_use, *scoped_decl;    /* %scoped */
    char *tags[4];                     /* %tags: name lexeme, end terminal, "<", "/" */
    bool tags_tight;
    char *functions[7];                /* %functions */
    bool top_async;
    bool functions_lenient;
    char *start_name;
    uint8_t layout;
    const lg_lexical *lexical;         /* %lexical NAME */
    bool rules_pass;                   /* second pass: rules only */
    uint32_t depth;                    /* nesting of ( ) and [ ] being read */
    bool have_first_rule;
    uint32_t first_rule;               /* the default start */
} ep_builder;

/* Records the first error with the line it concerns. */
static void ep__fail(ep_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ep__fail(ep_builder *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    b->failed = true;
    if (!b->error || !b->error_size)
        return;
    int n = snprintf(b->error, b->error_size, "line %u: ", b->line);
    if (n < 0 || (size_t)n >= b->error_size)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(b->error + n, b->error_size - (size_t)n, fmt, args);
    va_end(args);
}

static void ep__node_free(ep_node *node)
{
    if (!node)
        return;
    for (uint32_t i = 0; i < node->kids.size; i++)
        ep__node_free(node->kids.items[i]);
    sm_array_free(&node->kids);
    sm_free(node);
}

static ep_node *ep__node_new(int kind)
{
    ep_node *node = sm_calloc(1, sizeof *node);
    node->kind = kind;
    return node;
}

/* ---- Reading the text --------------------------------------------------- */

/* Skips spaces, comments and line breaks that continue the current
 * definition (a following line that starts with whitespace).  Stops at a
 * line break followed by a column-0 character, which ends the definition. */
static void ep__skip_space(ep_builder *b)
{
    while (b->at < b->len) {
        char c = b->src[b->at];
        if (c == ' ' || c == '\t' || c == '\r') {
            b->at++;
        } else if (c == '#') {
            while (b->at < b->len && b->src[b->at] != '\n')
                b->at++;
        } else if (c == '\n') {
            size_t next = b->at + 1;
            if (next < b->len && (b->src[next] == ' ' || b->src[next] == '\t' ||
                                  b->src[next] == '\n' || b->src[next] == '\r')) {
                /* a continuation line, or a blank line: keep going only if a
                 * continuation line follows the blank ones */
                size_t look = next;
                while (look < b->len && (b->src[look] == '\n' || b->src[look] == '\r'))
                    look++;
                if (look >= b->len || (b->src[look] != ' ' && b->src[look] != '\t'))
                    return;
                b->line++;
                b->at = next;
            } else {
                return;
            }
        } else {
            return;
        }
    }
}

static bool ep__at_end_of_definition(ep_builder *b)
{
    ep__skip_space(b);
    return b->at >= b->len || b->src[b->at] == '\n';
}

static bool ep__is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Reads a name; returns a new string or NULL. */
static char *ep__read_name(ep_builder *b)
{
    ep__skip_space(b);
    size_t start = b->at;
    while (b->at < b->len && ep__is_name_char(b->src[b->at]))
        b->at++;
    if (b->at == start)
        return NULL;
    return sm_strndup(b->src + start, b->at - start);
}

/* Reads a "..." literal, decoding \\ \" \n \r \t \f \xHH escapes. */
static char *ep__read_string(ep_builder *b, uint32_t *len_out)
{
    b->at++; /* opening quote */
    SM_ARRAY(char) text;
    sm_array_init(&text);
    while (b->at < b->len && b->src[b->at] != '"' && b->src[b->at] != '\n') {
        char c = b->src[b->at++];
        if (c == '\\' && b->at < b->len) {
            char e = b->src[b->at++];
            switch (e) {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'f': c = '\f'; break;
            case 'x': {
                if (b->at + 2 > b->len || !isxdigit((unsigned char)b->src[b->at]) ||
                    !isxdigit((unsigned char)b->src[b->at + 1])) {
                    ep__fail(b, "\\x in a literal needs two hex digits");
                    sm_array_free(&text);
                    return NULL;
                }
                char hex[3] = {b->src[b->at], b->src[b->at + 1], 0};
                c = (char)strtol(hex, NULL, 16);
                b->at += 2;
                break;
            }
            default: c = e; break;
            }
        }
        sm_array_push(&text, c);
    }
    if (b->at >= b->len || b->src[b->at] != '"') {
        ep__fail(b, "unterminated literal");
        sm_array_free(&text);
        return NULL;
    }
    b->at++;
    if (text.size == 0) {
        ep__fail(b, "empty literal");
        sm_array_free(&text);
        return NULL;
    }
    *len_out = text.size;
    sm_array_push(&text, '\0');
    return text.items;
}

/* Reads a /regex/ body verbatim (escapes are the DFA compiler's business;
 * only \/ is turned into /). */
static char *ep__read_regex(ep_builder *b, uint32_t *len_out)
{
    b->at++;
    SM_ARRAY(char) text;
    sm_array_init(&text);
    bool in_class = false;
    while (b->at < b->len && b->src[b->at] != '\n') {
        char c = b->src[b->at];
        if (c == '/' && !in_class)
            break;
        if (c == '\\' && b->at + 1 < b->len && b->src[b->at + 1] != '\n') {
            if (b->src[b->at + 1] == '/') {
                sm_array_push(&text, '/');
            } else {
                sm_array_push(&text, '\\');
                sm_array_push(&text, b->src[b->at + 1]);
            }
            b->at += 2;
            continue;
        }
        if (c == '[')
            in_class = true;
        else if (c == ']')
            in_class = false;
        sm_array_push(&text, c);
        b->at++;
    }
    if (b->at >= b->len || b->src[b->at] != '/') {
        ep__fail(b, "unterminated /regex/");
        sm_array_free(&text);
        return NULL;
    }
    b->at++;
    *len_out = text.size;
    sm_array_push(&text, '\0');
    return text.items;
}

/* ---- Symbols -------------------------------------------------------------- */

static bool ep__is_terminal_name(const char *name)
{
    return isupper((unsigned char)name[0]);
}

/* Finds a lexeme definition by name (literals are named with their quotes). */
static int64_t ep__find_lexdef(ep_builder *b, const char *name)
{
    for (uint32_t i = 0; i < b->lexdefs.size; i++)
        if (strcmp(b->lexdefs.items[i].name, name) == 0)
            return i;
    return -1;
}

/* The index of a nonterminal, created on first reference. */
static uint32_t ep__nonterminal(ep_builder *b, const char *name)
{
    for (uint32_t i = 0; i < b->nt_names.size; i++)
        if (strcmp(b->nt_names.items[i], name) == 0)
            return i;
    sm_array_push(&b->nt_names, sm_strdup(name));
    sm_array_push(&b->nt_defined, false);
    sm_array_push(&b->nt_line, b->line);
    return b->nt_names.size - 1;
}

/* A literal terminal's lexeme name: the text in double quotes. */
static char *ep__literal_name(const char *text, uint32_t len)
{
    char *name = sm_malloc(len + 3);
    name[0] = '"';
    memcpy(name + 1, text, len);
    name[len + 1] = '"';
    name[len + 2] = '\0';
    return name;
}

/* Reads a "literal" at the cursor into its lexeme name; NULL (and an
 * error from ep__read_string) when there is none. */
static char *ep__read_literal_name(ep_builder *b)
{
    uint32_t len;
    char *text = ep__read_string(b, &len);
    char *name = text ? ep__literal_name(text, len) : NULL;
    sm_free(text);
    return name;
}

/* Registers the lexeme of a literal written in a rule (once). */
static uint32_t ep__literal_lexeme(ep_builder *b, char *text, uint32_t len)
{
    char *name = ep__literal_name(text, len);
    int64_t found = ep__find_lexdef(b, name);
    if (found >= 0) {
        sm_free(name);
        sm_free(text);
        return (uint32_t)found;
    }
    ep_lexdef def = {.name = name, .pattern = text, .pattern_len = len, .literal = true, .priority = 1, .kind = EP_LEX_TOKEN, .line = b->line};
    sm_array_push(&b->lexdefs, def);
    return b->lexdefs.size - 1;
}

/* ---- Rules ------------------------------------------------------------------ */

static ep_node *ep__parse_alternatives(ep_builder *b, char close);

/* Reads one atom: a name, a literal, ( ... ) or [ ... ]. */
static ep_node *ep__parse_atom(ep_builder *b)
{
    ep__skip_space(b);
    if (b->at >= b->len)
        return NULL;
    char c = b->src[b->at];
    if (c == '(' || c == '[') {
        if (b->depth >= 64) {
            ep__fail(b, "groups nested more than 64 deep");
            return NULL;
        }
        b->at++;
        b->depth++;
        ep_node *inner = ep__parse_alternatives(b, c == '(' ? ')' : ']');
        b->depth--;
        if (!inner)
            return NULL;
        ep__skip_space(b);
        if (b->at >= b->len || b->src[b->at] != (c == '(' ? ')' : ']')) {
            ep__fail(b, "expected '%c'", c == '(' ? ')' : ']');
            ep__node_free(inner);
            return NULL;
        }
        b->at++;
        if (c == '(')
            return inner;
        ep_node *opt = ep__node_new(EP_NODE_OPT);
        sm_array_push(&opt->kids, inner);
        return opt;
    }
    if (c == '"') {
        uint32_t len;
        char *text = ep__read_string(b, &len);
        if (!text)
            return NULL;
        ep_node *node = ep__node_new(EP_NODE_SYM);
        node->symbol = ep__literal_lexeme(b, text, len);
        return node;
    }
    if (ep__is_name_char(c)) {
        char *name = ep__read_name(b);
        ep_node *node = ep__node_new(EP_NODE_SYM);
        if (ep__is_terminal_name(name)) {
            /* resolved to a lexeme or declared terminal at the end */
            int64_t lex = ep__find_lexdef(b, name);
            if (lex < 0) {
                ep__fail(b, "unknown terminal %s", name);
                sm_free(name);
                ep__node_free(node);
                return NULL;
            }
            node->symbol = (uint32_t)lex;
        } else {
            node->symbol = EP_NT_TAG | ep__nonterminal(b, name);
        }
        sm_free(name);
        return node;
    }
    ep__fail(b, "unexpected '%c'", c);
    return NULL;
}

/* Reads an atom with its postfix operator, if any. */
static ep_node *ep__parse_item(ep_builder *b)
{
    ep_node *atom = ep__parse_atom(b);
    if (!atom)
        return NULL;
    if (b->at >= b->len)
        return atom;
    char c = b->src[b->at];
    if (c == '?' || c == '*' || c == '+') {
        b->at++;
        ep_node *node = ep__node_new(c == '?' ? EP_NODE_OPT : c == '*' ? EP_NODE_STAR : EP_NODE_PLUS);
        sm_array_push(&node->kids, atom);
        return node;
    }
    if (c == '.' && b->at + 1 < b->len && b->src[b->at + 1] != '.') {
        b->at++;
        ep_node *element = ep__parse_atom(b);
        if (!element) {
            ep__node_free(atom);
            return NULL;
        }
        if (b->at >= b->len || b->src[b->at] != '+') {
            ep__fail(b, "expected '+' after a separated list sep.item");
            ep__node_free(atom);
            ep__node_free(element);
            return NULL;
        }
        b->at++;
        ep_node *node = ep__node_new(EP_NODE_SEP);
        sm_array_push(&node->kids, atom);
        sm_array_push(&node->kids, element);
        return node;
    }
    return atom;
}

/* Reads one alternative: a sequence of items (or %empty). */
static ep_node *ep__parse_sequence(ep_builder *b, char close)
{
    ep_node *seq = ep__node_new(EP_NODE_SEQ);
    for (;;) {
        ep__skip_space(b);
        if (b->at >= b->len || b->src[b->at] == '\n' || b->src[b->at] == '|' ||
            (close && b->src[b->at] == close))
            break;
        if (b->src[b->at] == '%') {
            char *word = (b->at++, ep__read_name(b));
            bool empty = word && strcmp(word, "empty") == 0;
            sm_free(word);
            if (!empty) {
                ep__fail(b, "only %%empty may appear in a rule");
                ep__node_free(seq);
                return NULL;
            }
            continue;
        }
        ep_node *item = ep__parse_item(b);
        if (!item) {
            ep__node_free(seq);
            return NULL;
        }
        sm_array_push(&seq->kids, item);
    }
    return seq;
}

/* Reads alternatives separated by '|' up to `close` (or the end of the
 * definition when close is 0). */
static ep_node *ep__parse_alternatives(ep_builder *b, char close)
{
    ep_node *alt = ep__node_new(EP_NODE_ALT);
    for (;;) {
        ep_node *seq = ep__parse_sequence(b, close);
        if (!seq) {
            ep__node_free(alt);
            return NULL;
        }
        sm_array_push(&alt->kids, seq);
        ep__skip_space(b);
        if (b->at < b->len && b->src[b->at] == '|') {
            b->at++;
            continue;
        }
        break;
    }
    return alt;
}

/* ---- Desugaring ------------------------------------------------------------ */

typedef SM_ARRAY(uint32_t) ep_symbols;

static void ep__desugar(ep_builder *b, const ep_node *node, ep_symbols *out);

static void ep__add_rule(ep_builder *b, uint32_t lhs, const uint32_t *symbols, uint32_t count)
{
    ep_ruledef rule = {lhs, b->bodies.size, count};
    for (uint32_t i = 0; i < count; i++)
        sm_array_push(&b->bodies, symbols[i]);
    sm_array_push(&b->rules, rule);
}

/* Writes a canonical text for a node, used to share helper nonterminals
 * between identical constructs. */
static void ep__node_key(const ep_node *node, sm_buf *key)
{
    if (node->kind == EP_NODE_SYM) {
        sm_buf_printf(key, "%c%u ", node->symbol & EP_NT_TAG ? 'n' : 't', node->symbol & ~EP_NT_TAG);
        return;
    }
    sm_buf_printf(key, "%d(", node->kind);
    for (uint32_t i = 0; i < node->kids.size; i++) {
        ep__node_key(node->kids.items[i], key);
        sm_buf_append_str(key, ",");
    }
    sm_buf_append_str(key, ")");
}

/* Adds one rule per alternative of `node` (an ALT, or anything else as a
 * single alternative) for `lhs`, each followed by `tail`. */
static void ep__add_alternatives(ep_builder *b, uint32_t lhs, const ep_symbols *head, const ep_node *node,
                                 const ep_symbols *tail)
{
    uint32_t count = node->kind == EP_NODE_ALT ? node->kids.size : 1;
    for (uint32_t i = 0; i < count; i++) {
        ep_symbols body;
        sm_array_init(&body);
        for (uint32_t k = 0; head && k < head->size; k++)
            sm_array_push(&body, head->items[k]);
        ep__desugar(b, node->kind == EP_NODE_ALT ? node->kids.items[i] : node, &body);
        for (uint32_t k = 0; tail && k < tail->size; k++)
            sm_array_push(&body, tail->items[k]);
        ep__add_rule(b, lhs, body.items, body.size);
        sm_array_free(&body);
    }
}

/* Returns the helper nonterminal for a compound node, creating its rules
 * the first time an identical construct is seen. */
static uint32_t ep__helper(ep_builder *b, const ep_node *node)
{
    sm_buf key;
    sm_buf_init(&key, SIZE_MAX / 2);
    ep__node_key(node, &key);
    for (uint32_t i = 0; i < b->helpers.size; i++) {
        if (strcmp(b->helpers.items[i].key, key.data) == 0) {
            sm_buf_free(&key);
            return b->helpers.items[i].nt;
        }
    }
    char name[32];
    snprintf(name, sizeof name, "@%u", b->helpers.size);
    uint32_t nt = ep__nonterminal(b, name);
    b->nt_defined.items[nt] = true;
    ep_helper helper = {sm_buf_take(&key, NULL), nt};
    sm_array_push(&b->helpers, helper);
    uint32_t self = EP_NT_TAG | nt;
    ep_symbols self_list;
    sm_array_init(&self_list);
    sm_array_push(&self_list, self);
    switch (node->kind) {
    case EP_NODE_ALT:
        ep__add_alternatives(b, nt, NULL, node, NULL);
        break;
    case EP_NODE_OPT:
        ep__add_alternatives(b, nt, NULL, node->kids.items[0], NULL);
        ep__add_rule(b, nt, NULL, 0);
        break;
    case EP_NODE_STAR: /* N: N x | empty */
        ep__add_alternatives(b, nt, &self_list, node->kids.items[0], NULL);
        ep__add_rule(b, nt, NULL, 0);
        break;
    case EP_NODE_PLUS: /* N: N x | x */
        ep__add_alternatives(b, nt, &self_list, node->kids.items[0], NULL);
        ep__add_alternatives(b, nt, NULL, node->kids.items[0], NULL);
        break;
    case EP_NODE_SEP: { /* N: N s x | x */
        ep_symbols head;
        sm_array_init(&head);
        sm_array_push(&head, self);
        ep__desugar(b, node->kids.items[0], &head);
        ep__add_alternatives(b, nt, &head, node->kids.items[1], NULL);
        ep__add_alternatives(b, nt, NULL, node->kids.items[1], NULL);
        sm_array_free(&head);
        break;
    }
    default:
        break;
    }
    sm_array_free(&self_list);
    return nt;
}

/* Appends the plain symbols that stand for `node` to `out`. */
static void ep__desugar(ep_builder *b, const ep_node *node, ep_symbols *out)
{
    switch (node->kind) {
    case EP_NODE_SYM:
        sm_array_push(out, node->symbol);
        return;
    case EP_NODE_SEQ:
        for (uint32_t i = 0; i < node->kids.size; i++)
            ep__desugar(b, node->kids.items[i], out);
        return;
    case EP_NODE_ALT:
        if (node->kids.size == 1) {
            ep__desugar(b, node->kids.items[0], out);
            return;
        }
        break;
    default:
        break;
    }
    sm_array_push(out, EP_NT_TAG | ep__helper(b, node));
}

/* ---- Definitions and directives ---------------------------------------- */

static void ep__parse_options(ep_builder *b, ep_lexdef *def)
{
    while (!ep__at_end_of_definition(b) && !b->failed) {
        if (b->src[b->at] != '%') {
            ep__fail(b, "expected an option such as %%ignore after the pattern of %s", def->name);
            return;
        }
        b->at++;
        char *word = ep__read_name(b);
        if (!word) {
            ep__fail(b, "expected an option name after %%");
            return;
        }
        if (strcmp(word, "ignore") == 0) def->kind = EP_LEX_IGNORE;
        else if (strcmp(word, "comment") == 0) def->kind = EP_LEX_COMMENT;
        else if (strcmp(word, "newline") == 0) def->kind = EP_LEX_NEWLINE;
        else if (strcmp(word, "continuation") == 0) def->kind = EP_LEX_CONTINUATION;
        else if (strcmp(word, "error") == 0) def->kind = EP_LEX_ERROR;
        else if (strcmp(word, "fstring") == 0) def->fstring = true;
        else if (strcmp(word, "first") == 0) def->first = true;
        else if (strcmp(word, "strict") == 0) def->strict = true;
        else if (strcmp(word, "name") == 0) def->is_name = true;
        else if (strcmp(word, "keep") == 0) {
            ep__skip_space(b);
            char *end;
            long value = strtol(b->src + b->at, &end, 10);
            if (end == b->src + b->at || value < 1 || value > 255)
                ep__fail(b, "%%keep needs a count of bytes from 1 to 255");
            b->at = (size_t)(end - b->src);
            def->keep = (uint8_t)value;
        }
        else if (strcmp(word, "check") == 0) {
            sm_free(def->check);
            def->check = ep__read_name(b);
            if (!def->check || !lg_token_check_named(def->check))
                ep__fail(b, "%%check needs the name of a token check seam has");
        } else if (strcmp(word, "goal") == 0) {
            def->goal = true;
            ep__skip_space(b);
            if (strncmp(b->src + b->at, "all", 3) == 0 && !ep__is_name_char(b->src[b->at + 3])) {
                def->goal_all = true;
                b->at += 3;
                ep__skip_space(b);
                if (strncmp(b->src + b->at, "but", 3) == 0 && !ep__is_name_char(b->src[b->at + 3])) {
                    b->at += 3;
                    ep__skip_space(b);
                    while (!ep__at_end_of_definition(b) && b->src[b->at] != '%' && !b->failed) {
                        char *name = b->src[b->at] == '"' ? ep__read_literal_name(b) : ep__read_name(b);
                        if (!name) {
                            ep__fail(b, "%%goal all but takes lexeme names and \"literals\"");
                            break;
                        }
                        sm_array_push(&def->goal_but, name);
                        ep__skip_space(b);
                    }
                }
            }
            while (!ep__at_end_of_definition(b) && b->src[b->at] == '"' && !b->failed) {
                char *name = ep__read_literal_name(b);
                if (name)
                    sm_array_push(&def->rivals, name);
                ep__skip_space(b);
            }
        }
        else if (strcmp(word, "also") == 0) {
            sm_free(def->also);
            def->also = ep__read_name(b);
            if (!def->also)
                ep__fail(b, "%%also needs a terminal name");
        }
        else if (strcmp(word, "priority") == 0) {
            ep__skip_space(b);
            char *end;
            long value = strtol(b->src + b->at, &end, 10);
            if (end == b->src + b->at || value < -1000 || value > 1000)
                ep__fail(b, "%%priority needs an integer from -1000 to 1000");
            b->at = (size_t)(end - b->src);
            def->priority = (int32_t)value;
        } else {
            ep__fail(b, "unknown option %%%s", word);
        }
        sm_free(word);
    }
}

static void ep__parse_lexeme(ep_builder *b, char *name)
{
    if (ep__find_lexdef(b, name) >= 0) {
        ep__fail(b, "lexeme %s is defined twice", name);
        sm_free(name);
        return;
    }
    ep__skip_space(b);
    ep_lexdef def = {.name = name, .kind = EP_LEX_TOKEN, .line = b->line};
    if (b->at < b->len && b->src[b->at] == '/') {
        def.pattern = ep__read_regex(b, &def.pattern_len);
    } else if (b->at < b->len && b->src[b->at] == '"') {
        def.pattern = ep__read_string(b, &def.pattern_len);
        def.literal = true;
    } else {
        ep__fail(b, "lexeme %s needs a /regex/ or a \"literal\"", name);
    }
    if (!def.pattern) {
        sm_free(name);
        return;
    }
    ep__parse_options(b, &def);
    sm_array_push(&b->lexdefs, def);
}

static void ep__parse_rule(ep_builder *b, char *name)
{
    uint32_t nt = ep__nonterminal(b, name);
    sm_free(name);
    b->nt_defined.items[nt] = true;
    if (!b->have_first_rule) {
        b->have_first_rule = true;
        b->first_rule = nt;
    }
    ep_node *alternatives = ep__parse_alternatives(b, 0);
    if (!alternatives)
        return;
    if (!ep__at_end_of_definition(b))
        ep__fail(b, "unexpected '%c' in rule %s", b->src[b->at], b->nt_names.items[nt]);
    else
        ep__add_alternatives(b, nt, NULL, alternatives, NULL);
    ep__node_free(alternatives);
}

static void ep__parse_directive(ep_builder *b)
{
    b->at++;
    char *word = ep__read_name(b);
    if (!word) {
        ep__fail(b, "expected a directive after %%");
        return;
    }
    if (strcmp(word, "start") == 0) {
        sm_free(b->start_name);
        b->start_name = ep__read_name(b);
        if (!b->start_name)
            ep__fail(b, "%%start needs a rule name");
    } else if (strcmp(word, "layout") == 0) {
        char *kind = ep__read_name(b);
        if (kind && strcmp(kind, "indent") == 0)
            b->layout = EP_LAYOUT_INDENT;
        else if (kind && strcmp(kind, "asi") == 0)
            b->layout = EP_LAYOUT_ASI;
        else
            ep__fail(b, "unknown layout (there are 'indent' and 'asi')");
        sm_free(kind);
    } else if (strcmp(word, "lexical") == 0) {
        char *name = ep__read_name(b);
        b->lexical = lg_lexical_named(name);
        if (!b->lexical)
            ep__fail(b, "%%lexical names no language's lexical rules (languages/registry.c)");
        sm_free(name);
    } else if (strcmp(word, "declare") == 0) {
        while (!ep__at_end_of_definition(b) && !b->failed) {
            char *name = ep__read_name(b);
            if (!name || !ep__is_terminal_name(name)) {
                ep__fail(b, "%%declare takes UPPER_CASE terminal names");
                sm_free(name);
                break;
            }
            if (ep__find_lexdef(b, name) >= 0) {
                ep__fail(b, "terminal %s is declared twice", name);
                sm_free(name);
                break;
            }
            ep_lexdef def = {.name = name, .kind = EP_LEX_TOKEN, .line = b->line};
            sm_array_push(&b->lexdefs, def);
        }
    } else if (strcmp(word, "functions") == 0) {
        /* "await" "yield" PLAIN ASYNC GEN ASYNC_GEN ASYNC_EXPR top */
        for (int i = 0; i < 7; i++) {
            ep__skip_space(b);
            char *name = b->at < b->len && b->src[b->at] == '"' ? ep__read_literal_name(b) : ep__read_name(b);
            if (!name) {
                ep__fail(b, "%%functions takes \"await\" \"yield\", five declared terminals and async or plain");
                break;
            }
            sm_free(b->functions[i]);
            b->functions[i] = name;
        }
        char *top = b->failed ? NULL : ep__read_name(b);
        if (!b->failed && (!top || (strcmp(top, "async") != 0 && strcmp(top, "plain") != 0)))
            ep__fail(b, "%%functions ends with async or plain (the top level's context)");
        b->top_async = top && strcmp(top, "async") == 0;
        sm_free(top);
        /* "lenient": the keywords are operators in every function, and
         * names too where they are not their function's (TypeScript reads
         * "await x" anywhere) */
        b->functions_lenient = false;
        if (!b->failed && !ep__at_end_of_definition(b)) {
            char *mode = ep__read_name(b);
            b->functions_lenient = mode && strcmp(mode, "lenient") == 0;
            if (!b->functions_lenient)
                ep__fail(b, "%%functions takes only \"lenient\" after async or plain");
            sm_free(mode);
        }
    } else if (strcmp(word, "scoped") == 0) {
        sm_free(b->scoped_use);
        sm_free(b->scoped_decl);
        b->scoped_use = ep__read_name(b);
        b->scoped_decl = NULL;
        if (b->scoped_use && strcmp(b->scoped_use, "none") == 0) {
            /* an extending grammar's: no scope check */
            sm_free(b->scoped_use);
            b->scoped_use = NULL;
        } else if (b->scoped_use) {
            b->scoped_decl = ep__read_name(b);
        }
        if (b->scoped_use && !b->scoped_decl)
            ep__fail(b, "%%scoped takes the terminal of a name and the declared terminal of its declarations");
    } else if (strcmp(word, "tags") == 0) {
        for (int i = 0; i < 4 && !b->failed; i++) {
            ep__skip_space(b);
            char *name = b->at < b->len && b->src[b->at] == '"' ? ep__read_literal_name(b) : ep__read_name(b);
            if (!name) {
                ep__fail(b, "%%tags takes the name lexeme, the end terminal, and the \"<\" and \"/\" literals");
                break;
            }
            sm_free(b->tags[i]);
            b->tags[i] = name;
        }
        b->tags_tight = false;
        if (!b->failed && !ep__at_end_of_definition(b)) {
            char *mode = ep__read_name(b);
            b->tags_tight = mode && strcmp(mode, "tight") == 0;
            if (!b->tags_tight)
                ep__fail(b, "%%tags takes only \"tight\" after its four names");
            sm_free(mode);
        }
    } else if (strcmp(word, "unchecked") == 0) {
        /* an extending grammar's: lexemes defined above lose their %check */
        while (!ep__at_end_of_definition(b) && !b->failed) {
            char *name = ep__read_name(b);
            int64_t at = name ? ep__find_lexdef(b, name) : -1;
            if (at < 0)
                ep__fail(b, "%%unchecked names lexemes defined above it");
            else {
                sm_free(b->lexdefs.items[at].check);
                b->lexdefs.items[at].check = NULL;
            }
            sm_free(name);
        }
    } else if (strcmp(word, "soft") == 0) {
        /* several %soft lines (an extending grammar's) add to one list */
        char *target = ep__read_name(b);
        if (b->soft_target && target && strcmp(target, b->soft_target) != 0)
            ep__fail(b, "every %%soft line names the same terminal");
        sm_free(b->soft_target);
        b->soft_target = target;
        while (b->soft_target && !ep__at_end_of_definition(b) && !b->failed) {
            if (b->src[b->at] != '"') {
                ep__fail(b, "%%soft takes a terminal then \"literals\"");
                break;
            }
            char *name = ep__read_literal_name(b);
            if (name)
                sm_array_push(&b->soft_literals, name);
        }
    } else {
        ep__fail(b, "unknown directive %%%s", word);
    }
    sm_free(word);
    if (!b->failed && !ep__at_end_of_definition(b))
        ep__fail(b, "unexpected text after directive");
}

/* Skips the rest of a definition (read in the other pass), honouring
 * quotes and /regex/ bodies so that their contents are not misread. */
static void ep__skip_definition(ep_builder *b)
{
    while (!ep__at_end_of_definition(b)) {
        char c = b->src[b->at];
        uint32_t len;
        char *text = NULL;
        if (c == '"')
            text = ep__read_string(b, &len);
        else if (c == '/')
            text = ep__read_regex(b, &len);
        else
            b->at++;
        sm_free(text);
        if (b->failed)
            return;
    }
}

/* Reads every definition of the file: lexemes and directives in the first
 * pass, rules in the second, so that rules may use lexemes defined below. */
static void ep__parse_file(ep_builder *b)
{
    while (b->at < b->len && !b->failed) {
        char c = b->src[b->at];
        if (c == '\n') {
            b->line++;
            b->at++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '#') {
            /* a blank, comment-only or stray indented line */
            size_t start = b->at;
            ep__skip_space(b);
            if (b->at < b->len && b->src[b->at] != '\n' && b->src[start] != '#') {
                ep__fail(b, "a definition must start in column 0");
                return;
            }
            continue;
        }
        if (c == '%') {
            if (b->rules_pass)
                ep__skip_definition(b);
            else
                ep__parse_directive(b);
            continue;
        }
        char *name = ep__read_name(b);
        ep__skip_space(b);
        if (!name || b->at >= b->len || b->src[b->at] != ':') {
            ep__fail(b, "expected 'name:' at the start of a definition");
            sm_free(name);
            return;
        }
        b->at++;
        if (ep__is_terminal_name(name) == b->rules_pass) {
            sm_free(name);
            ep__skip_definition(b);
        } else if (b->rules_pass) {
            ep__parse_rule(b, name);
        } else {
            ep__parse_lexeme(b, name);
        }
    }
}

/* ---- Tables ------------------------------------------------------------------ */

static uint32_t ep__resolve(const ep_builder *b, uint32_t tagged)
{
    return tagged & EP_NT_TAG ? b->lexdefs.size + (tagged & ~EP_NT_TAG) : tagged;
}

/* Copies symbols and rules into the grammar, adding S' -> start. */
static void ep__build_rules(ep_builder *b, ep_grammar *g, uint32_t start_nt)
{
    g->terminal_count = b->lexdefs.size;
    g->symbol_count = b->lexdefs.size + b->nt_names.size + 1;
    g->symbol_names = sm_calloc(g->symbol_count, sizeof(char *));
    for (uint32_t i = 0; i < b->lexdefs.size; i++)
        g->symbol_names[i] = sm_strdup(b->lexdefs.items[i].name);
    for (uint32_t i = 0; i < b->nt_names.size; i++)
        g->symbol_names[b->lexdefs.size + i] = sm_strdup(b->nt_names.items[i]);
    g->start_symbol = g->symbol_count - 1;
    g->symbol_names[g->start_symbol] = sm_strdup("@start");

    g->rule_count = b->rules.size + 1;
    g->position_count = b->bodies.size + g->rule_count * 2; /* + EP_END each, + S' body */
    g->rule_lhs = sm_malloc(g->rule_count * sizeof(uint32_t));
    g->rule_start = sm_malloc(g->rule_count * sizeof(uint32_t));
    g->body = sm_malloc(g->position_count * sizeof(uint32_t));
    g->position_rule = sm_malloc(g->position_count * sizeof(uint32_t));
    uint32_t at = 0;
    for (uint32_t r = 0; r < g->rule_count; r++) {
        g->rule_start[r] = at;
        if (r == b->rules.size) {
            g->rule_lhs[r] = g->start_symbol;
            g->position_rule[at] = r;
            g->body[at++] = b->lexdefs.size + start_nt;
        } else {
            const ep_ruledef *rule = &b->rules.items[r];
            g->rule_lhs[r] = b->lexdefs.size + rule->lhs;
            for (uint32_t k = 0; k < rule->len; k++) {
                g->position_rule[at] = r;
                g->body[at++] = ep__resolve(b, b->bodies.items[rule->start + k]);
            }
        }
        g->position_rule[at] = r;
        g->body[at++] = EP_END;
    }
    g->position_count = at;
}

/* Appends a rule lhs -> body[0..len) to a grammar whose tables are not
 * computed yet. */
static void ep__append_rule(ep_grammar *g, uint32_t lhs, const uint32_t *body, uint32_t len)
{
    uint32_t r = g->rule_count++;
    g->rule_lhs = sm_realloc(g->rule_lhs, g->rule_count * sizeof(uint32_t));
    g->rule_start = sm_realloc(g->rule_start, g->rule_count * sizeof(uint32_t));
    g->body = sm_realloc(g->body, (g->position_count + len + 1) * sizeof(uint32_t));
    g->position_rule = sm_realloc(g->position_rule, (g->position_count + len + 1) * sizeof(uint32_t));
    g->rule_lhs[r] = lhs;
    g->rule_start[r] = g->position_count;
    for (uint32_t k = 0; k <= len; k++) {
        g->position_rule[g->position_count] = r;
        g->body[g->position_count++] = k < len ? body[k] : EP_END;
    }
}

/* The reversed grammar (for right quotients) parses the right context
 * backwards, where a left-recursive list (N: N a | b, as every x*, x+ and
 * separated list is desugared) would become right-recursive and cost
 * Earley time quadratic in the list's length.  So each nonterminal N whose
 * rules are all N -> N a or N -> b (b without N) gets a helper M with the
 * rules M -> M a | empty: L(M) = a*, unused by the grammar itself, and the
 * reversed grammar reads N as M b reversed and M as left-recursive again
 * (M -> M rev(a)), which generates the same reversed languages.  Returns
 * rev_kind: [symbol] the helper of a rewritten N, EP_REV_HELPER for a
 * helper, EP_NONE otherwise (owned by the caller). */
static uint32_t *ep__add_reversal_helpers(ep_grammar *g)
{
    uint32_t symbols = g->symbol_count;
    uint8_t *state = sm_calloc(symbols, 1); /* 0 unseen, 1 candidate, 2 no */
    for (uint32_t r = 0; r < g->rule_count; r++) {
        uint32_t lhs = g->rule_lhs[r], p = g->rule_start[r];
        bool recursive = g->body[p] == lhs;
        bool other_use = false;
        for (uint32_t q = p + (recursive ? 1 : 0); g->body[q] != EP_END; q++)
            other_use = other_use || g->body[q] == lhs;
        if (other_use || (recursive && g->body[p + 1] == EP_END) || lhs == g->start_symbol)
            state[lhs] = 2;
        else if (recursive && state[lhs] != 2)
            state[lhs] = 1;
    }
    uint32_t *rev_kind = sm_malloc(symbols * sizeof(uint32_t));
    for (uint32_t n = 0; n < symbols; n++)
        rev_kind[n] = EP_NONE;
    uint32_t rules = g->rule_count;
    for (uint32_t n = g->terminal_count; n < symbols; n++) {
        if (state[n] != 1)
            continue;
        uint32_t helper = g->symbol_count++;
        g->symbol_names = sm_realloc(g->symbol_names, g->symbol_count * sizeof(char *));
        size_t len = strlen(g->symbol_names[n]) + 8;
        g->symbol_names[helper] = sm_malloc(len);
        snprintf(g->symbol_names[helper], len, "%s@tail", g->symbol_names[n]);
        rev_kind = sm_realloc(rev_kind, g->symbol_count * sizeof(uint32_t));
        rev_kind[n] = helper;
        rev_kind[helper] = EP_REV_HELPER;
        for (uint32_t r = 0; r < rules; r++) {
            uint32_t p = g->rule_start[r];
            if (g->rule_lhs[r] != n || g->body[p] != n)
                continue;
            uint32_t len_a = 0;
            while (g->body[p + 1 + len_a] != EP_END)
                len_a++;
            uint32_t *body = sm_malloc((len_a + 1) * sizeof(uint32_t));
            body[0] = helper;
            memcpy(body + 1, g->body + p + 1, len_a * sizeof(uint32_t));
            ep__append_rule(g, helper, body, len_a + 1);
            sm_free(body);
        }
        ep__append_rule(g, helper, NULL, 0);
    }
    sm_free(state);
    return rev_kind;
}

/* The nullable set, by fixpoint over the rules. */
void ep_grammar_compute_nullable(ep_grammar *g, const ep_grammar *known)
{
    g->nullable = sm_calloc(g->symbol_count, sizeof(bool));
    uint32_t first_rule = 0;
    if (known) {
        memcpy(g->nullable, known->nullable, known->symbol_count * sizeof(bool));
        first_rule = known->rule_count;
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t r = first_rule; r < g->rule_count; r++) {
            uint32_t lhs = g->rule_lhs[r];
            if (g->nullable[lhs])
                continue;
            uint32_t p = g->rule_start[r];
            while (g->body[p] != EP_END && g->nullable[g->body[p]])
                p++;
            if (g->body[p] == EP_END) {
                g->nullable[lhs] = true;
                changed = true;
            }
        }
    }
}

/* Initial positions grouped by the symbol after them, and for each
 * nonterminal the terminals and nonterminals that its initial positions
 * expect (the latter closed transitively: the prediction closure). */
void ep_grammar_compute_initial(ep_grammar *g, const ep_grammar *known)
{
    uint32_t nts = g->symbol_count - g->terminal_count;
    g->nt_words = (nts + 63) / 64;
    g->term_words = (g->terminal_count + 63) / 64;
    g->predict_closure = sm_calloc((size_t)nts * g->nt_words, sizeof(uint64_t));
    g->initial_terminals = sm_calloc((size_t)nts * g->term_words, sizeof(uint64_t));
    uint32_t *counts = sm_calloc(g->symbol_count + 1, sizeof(uint32_t));
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < g->rule_count; r++) {
            uint32_t lhs_nt = g->rule_lhs[r] - g->terminal_count;
            for (uint32_t p = g->rule_start[r]; g->body[p] != EP_END; p++) {
                uint32_t sym = g->body[p];
                if (pass == 0) {
                    counts[sym + 1]++;
                    if (ep_is_terminal(g, sym))
                        ep_set_add(g->initial_terminals + (size_t)lhs_nt * g->term_words, sym);
                    else
                        ep_set_add(g->predict_closure + (size_t)lhs_nt * g->nt_words, sym - g->terminal_count);
                } else {
                    g->initial_by_symbol_lhs[counts[sym]] = lhs_nt;
                    g->initial_by_symbol[counts[sym]++] = p;
                }
                if (!g->nullable[sym])
                    break;
            }
        }
        if (pass == 0) {
            for (uint32_t s = 0; s < g->symbol_count; s++)
                counts[s + 1] += counts[s];
            g->initial_by_symbol_start = sm_malloc((g->symbol_count + 1) * sizeof(uint32_t));
            memcpy(g->initial_by_symbol_start, counts, (g->symbol_count + 1) * sizeof(uint32_t));
            g->initial_by_symbol = sm_malloc((counts[g->symbol_count] + 1) * sizeof(uint32_t));
            g->initial_by_symbol_lhs = sm_malloc((counts[g->symbol_count] + 1) * sizeof(uint32_t));
        }
    }
    sm_free(counts);
    /* transitive closure, with each nonterminal predicting itself; the
     * known grammar's rows are final already.  Each row is widened by the
     * closures of the nonterminals it predicts directly until nothing
     * changes (a quotient's new nonterminals are numbered so that one pass
     * nearly always does). */
    uint32_t fixed = known ? known->symbol_count - known->terminal_count : 0;
    for (uint32_t n = 0; n < fixed; n++)
        memcpy(g->predict_closure + (size_t)n * g->nt_words, known->predict_closure + (size_t)n * known->nt_words,
               known->nt_words * sizeof(uint64_t));
    uint32_t open_nts = nts - fixed;
    uint64_t *direct = sm_malloc(((size_t)open_nts * g->nt_words + 1) * sizeof(uint64_t));
    if (open_nts)
        memcpy(direct, g->predict_closure + (size_t)fixed * g->nt_words, (size_t)open_nts * g->nt_words * sizeof(uint64_t));
    for (uint32_t n = fixed; n < nts; n++)
        ep_set_add(g->predict_closure + (size_t)n * g->nt_words, n);
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t n = fixed; n < nts; n++) {
            uint64_t *set = g->predict_closure + (size_t)n * g->nt_words;
            const uint64_t *succ = direct + (size_t)(n - fixed) * g->nt_words;
            for (uint32_t sw = 0; sw < g->nt_words; sw++) {
                for (uint64_t bits = succ[sw]; bits; bits &= bits - 1) {
                    uint32_t m = sw * 64 + (uint32_t)__builtin_ctzll(bits);
                    if (m == n)
                        continue;
                    const uint64_t *other = g->predict_closure + (size_t)m * g->nt_words;
                    uint32_t words = m < fixed ? known->nt_words : g->nt_words;
                    for (uint32_t w = 0; w < words; w++) {
                        uint64_t merged = set[w] | other[w];
                        if (merged != set[w]) {
                            set[w] = merged;
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    sm_free(direct);
}

/* The lexeme index of the definition named `name`, or -1. */
static int64_t ep__lexeme_of(const ep_grammar *g, const char *name)
{
    for (uint32_t i = 0; i < g->lexeme_count; i++)
        if (g->lexemes[i].name && strcmp(g->lexemes[i].name, name) == 0)
            return i;
    return -1;
}

/* Each lexeme's own automaton, built on first need (state_count 0: not
 * yet; a pattern that does not build stays without one). */
static const ep_dfa *ep__alone(ep_dfa *alone, const ep_lexeme_spec *specs, uint32_t lexeme)
{
    if (!alone[lexeme].state_count) {
        ep_lexeme_spec spec = specs[lexeme];
        spec.excludable = false;
        if (ep_dfa_build(&spec, 1, &alone[lexeme], NULL, 0) != SM_OK)
            return NULL;
    }
    return &alone[lexeme];
}

/* The bytes that may start a text of `lexeme` (256 bits in out[4], zero):
 * a literal's first, or those its own automaton takes from its start. */
static void ep__first_bytes(ep_dfa *alone, const ep_lexeme_spec *specs, uint32_t lexeme, uint64_t out[4])
{
    const ep_lexeme_spec *spec = &specs[lexeme];
    if (spec->literal) {
        if (spec->pattern_len)
            out[(uint8_t)spec->pattern[0] / 64] |= (uint64_t)1 << ((uint8_t)spec->pattern[0] % 64);
        return;
    }
    const ep_dfa *dfa = ep__alone(alone, specs, lexeme);
    for (unsigned c = 0; dfa && c < 256; c++)
        if (ep_dfa_step(dfa, EP_DFA_START, (uint8_t)c) != EP_DFA_DEAD)
            out[c / 64] |= (uint64_t)1 << (c % 64);
}

/* With "%goal all", the goal lexeme's rivals: every lexeme but the goal
 * lexemes and those the goal spares that has a text beginning with one of
 * the goal lexeme's (ep_dfa_prefix_meets). */
static void ep__goal_all(ep_grammar *g, uint32_t slot, const ep_lexdef *def, const ep_lexeme_spec *specs,
                         ep_dfa *alone)
{
    uint32_t goal = g->goal_lexemes[slot];
    const ep_dfa *goal_dfa = ep__alone(alone, specs, goal);
    for (uint32_t r = 0; goal_dfa && r < g->lexeme_count; r++) {
        bool spared = false;
        for (uint32_t k = 0; k < def->goal_but.size && !spared; k++)
            spared = strcmp(def->goal_but.items[k], g->lexemes[r].name) == 0;
        if (r == goal || spared || g->lexemes[r].goal_bit)
            continue;
        const ep_dfa *dfa = ep__alone(alone, specs, r);
        if (dfa && ep_dfa_prefix_meets(dfa, goal_dfa))
            g->lexemes[r].rival_of |= (uint8_t)(1u << slot);
    }
}

/* Numbers the %goal lexemes (at most EP_MAX_GOALS), marks their rivals and
 * the first bytes each goal matters for, and which lexemes the lexer may
 * leave out (`specs`' excludable). */
static int ep__build_goals(ep_builder *b, ep_grammar *g, ep_lexeme_spec *specs)
{
    uint32_t lex = 0;
    bool all = false;
    for (uint32_t t = 0; t < b->lexdefs.size; t++) {
        const ep_lexdef *def = &b->lexdefs.items[t];
        if (!def->pattern)
            continue;
        if (def->goal) {
            if (g->goal_count == EP_MAX_GOALS) {
                ep__fail(b, "more than %d %%goal lexemes", EP_MAX_GOALS);
                return SM_EINVAL;
            }
            uint32_t slot = g->goal_count++;
            g->goal_lexemes[slot] = lex;
            g->lexemes[lex].goal_bit = (uint8_t)(1u << slot);
            all |= def->goal_all;
            for (uint32_t r = 0; r < def->rivals.size; r++) {
                int64_t rival = ep__lexeme_of(g, def->rivals.items[r]);
                if (rival < 0) {
                    ep__fail(b, "%%goal of %s: %s is not a literal of the grammar", def->name, def->rivals.items[r]);
                    return SM_EINVAL;
                }
                g->lexemes[rival].rival_of |= (uint8_t)(1u << slot);
            }
        }
        lex++;
    }
    if (!g->goal_count)
        return SM_OK;
    ep_dfa *alone = sm_calloc(g->lexeme_count, sizeof *alone);
    for (uint32_t slot = 0, t = 0; all && t < b->lexdefs.size; t++) {
        if (!b->lexdefs.items[t].pattern)
            continue;
        if (b->lexdefs.items[t].goal && b->lexdefs.items[t].goal_all)
            ep__goal_all(g, slot, &b->lexdefs.items[t], specs, alone);
        slot += b->lexdefs.items[t].goal;
    }
    for (uint32_t r = 0; r < g->lexeme_count; r++) {
        const ep_lexeme *lexeme = &g->lexemes[r];
        uint8_t slots = lexeme->goal_bit | lexeme->rival_of;
        specs[r].excludable = slots != 0;
        uint64_t first[4] = {0};
        if (slots)
            ep__first_bytes(alone, specs, r, first);
        for (uint32_t slot = 0; slot < g->goal_count; slot++)
            if (slots & (1u << slot))
                for (int w = 0; w < 4; w++)
                    g->goal_first[slot][w] |= first[w];
    }
    for (uint32_t r = 0; r < g->lexeme_count; r++)
        ep_dfa_free(&alone[r]);
    sm_free(alone);
    return SM_OK;
}

/* Builds the lexeme tables and the automaton from the lexeme definitions
 * that have a pattern. */
static int ep__build_lexemes(ep_builder *b, ep_grammar *g)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < b->lexdefs.size; i++)
        count += b->lexdefs.items[i].pattern != NULL;
    g->lexeme_count = count;
    g->lexemes = sm_calloc(count ? count : 1, sizeof(ep_lexeme));
    ep_lexeme_spec *specs = sm_calloc(count ? count : 1, sizeof(ep_lexeme_spec));
    g->lex_words = (count + 63) / 64;
    if (!g->lex_words)
        g->lex_words = 1;
    g->ignorable_lexemes = sm_calloc(g->lex_words, sizeof(uint64_t));
    g->terminal_lexemes = sm_calloc((size_t)g->terminal_count * g->lex_words, sizeof(uint64_t));
    uint32_t name_terminal = EP_NONE;
    if (b->soft_target) {
        int64_t found = ep__find_lexdef(b, b->soft_target);
        if (found < 0) {
            ep__fail(b, "%%soft names an unknown terminal %s", b->soft_target);
            sm_free(specs);
            return SM_EINVAL;
        }
        name_terminal = (uint32_t)found;
    }
    for (uint32_t t = 0; t < b->lexdefs.size; t++) {
        const ep_lexdef *def = &b->lexdefs.items[t];
        if (!def->also)
            continue;
        int64_t also = ep__find_lexdef(b, def->also);
        bool soft = false;
        for (uint32_t s = 0; s < b->soft_literals.size; s++)
            soft |= strcmp(b->soft_literals.items[s], def->name) == 0;
        if (also < 0 || b->lexdefs.items[also].pattern || soft || def->kind != EP_LEX_TOKEN) {
            ep__fail(b, "%%also of %s: %s must be a %%declare'd terminal, on a token that is not %%soft",
                     def->name, def->also);
            sm_free(specs);
            return SM_EINVAL;
        }
    }
    uint32_t lex = 0;
    for (uint32_t t = 0; t < b->lexdefs.size; t++) {
        const ep_lexdef *def = &b->lexdefs.items[t];
        if (!def->pattern)
            continue;
        ep_lexeme *lexeme = &g->lexemes[lex];
        lexeme->name = sm_strdup(def->name);
        lexeme->kind = def->kind;
        lexeme->fstring = def->fstring;
        lexeme->terminals[0] = def->kind == EP_LEX_TOKEN ? t : EP_NONE;
        lexeme->terminals[1] = EP_NONE;
        for (uint32_t s = 0; s < b->soft_literals.size; s++)
            if (strcmp(b->soft_literals.items[s], def->name) == 0)
                lexeme->terminals[1] = name_terminal;
        if (def->also)
            lexeme->terminals[1] = (uint32_t)ep__find_lexdef(b, def->also); /* checked above */
        if (def->literal && def->pattern_len == 1) {
            char c = def->pattern[0];
            lexeme->bracket = (c == '(' || c == '[' || c == '{') ? EP_BRACKET_OPEN
                            : (c == ')' || c == ']' || c == '}') ? EP_BRACKET_CLOSE : EP_BRACKET_NONE;
        }
        if (def->kind == EP_LEX_IGNORE || def->kind == EP_LEX_COMMENT || def->kind == EP_LEX_CONTINUATION ||
            (def->kind == EP_LEX_NEWLINE && b->layout == EP_LAYOUT_NONE))
            ep_set_add(g->ignorable_lexemes, lex);
        for (int k = 0; k < 2; k++)
            if (lexeme->terminals[k] != EP_NONE)
                ep_set_add(g->terminal_lexemes + (size_t)lexeme->terminals[k] * g->lex_words, lex);
        lexeme->first = def->first;
        lexeme->is_name = def->is_name;
        lexeme->keep = def->keep;
        lexeme->check = def->check ? lg_token_check_named(def->check) : NULL;
        lexeme->check_strict = def->strict;
        specs[lex] = (ep_lexeme_spec){def->pattern, def->pattern_len, def->literal, def->priority, false};
        lex++;
    }
    if (ep__build_goals(b, g, specs) != SM_OK) {
        sm_free(specs);
        return SM_EINVAL;
    }
    char message[256] = "";
    int rc = ep_dfa_build(specs, count, &g->dfa, message, sizeof message);
    sm_free(specs);
    if (rc)
        ep__fail(b, "in the lexemes: %s", message);
    return rc;
}

static uint32_t ep__find_terminal(const ep_grammar *g, const char *name)
{
    for (uint32_t t = 0; t < g->terminal_count; t++)
        if (strcmp(g->symbol_names[t], name) == 0)
            return t;
    return EP_NONE;
}

/* Resolves %tags' names (after the lexemes are built). */
static int ep__build_tags(ep_builder *b, ep_grammar *g)
{
    g->has_tags = b->tags[0] != NULL;
    g->tags_tight = b->tags_tight;
    if (!g->has_tags)
        return SM_OK;
    int64_t name = ep__lexeme_of(g, b->tags[0]);
    g->tag_lexeme = name < 0 ? EP_NONE : (uint32_t)name;
    for (int i = 1; i < 4; i++)
        g->t_tags[i - 1] = ep__find_terminal(g, b->tags[i]);
    if (name < 0 || g->t_tags[0] == EP_NONE || g->t_tags[1] == EP_NONE || g->t_tags[2] == EP_NONE ||
        g->layout != EP_LAYOUT_ASI) {
        ep__fail(b, "%%tags needs %%layout asi, a name lexeme and terminals the grammar has");
        return SM_EINVAL;
    }
    return SM_OK;
}

/* Checks what the layout needs and that every rule used is defined. */
static int ep__check(ep_builder *b, ep_grammar *g)
{
    for (uint32_t i = 0; i < b->nt_names.size; i++) {
        if (!b->nt_defined.items[i]) {
            b->line = b->nt_line.items[i];
            ep__fail(b, "rule %s is used but never defined", b->nt_names.items[i]);
            return SM_EINVAL;
        }
    }
    g->layout = b->layout;
    g->lexical = b->lexical;
    g->t_newline = ep__find_terminal(g, "NEWLINE");
    g->t_indent = ep__find_terminal(g, "INDENT");
    g->t_dedent = ep__find_terminal(g, "DEDENT");
    g->t_endmarker = ep__find_terminal(g, "ENDMARKER");
    g->t_number = ep__find_terminal(g, "NUMBER");
    g->t_asi = ep__find_terminal(g, "ASI");
    g->t_asi_do = ep__find_terminal(g, "ASI_DO");
    g->t_same_line = ep__find_terminal(g, "SL");
    g->t_rbrace = ep__find_terminal(g, "\"}\"");
    g->t_lbrace = ep__find_terminal(g, "\"{\"");
    g->t_scoped_use = b->scoped_use ? ep__find_terminal(g, b->scoped_use) : EP_NONE;
    g->t_scoped_decl = b->scoped_decl ? ep__find_terminal(g, b->scoped_decl) : EP_NONE;
    g->has_functions = b->functions[0] != NULL;
    for (int i = 0; i < 7; i++) {
        uint32_t t = b->functions[i] ? ep__find_terminal(g, b->functions[i]) : EP_NONE;
        if (g->has_functions && t == EP_NONE) {
            ep__fail(b, "%%functions names %s, which the grammar has not", b->functions[i]);
            return SM_EINVAL;
        }
        if (i == 0)
            g->t_await = t;
        else if (i == 1)
            g->t_yield = t;
        else
            g->t_function[i - 2] = t;
    }
    g->top_async = b->top_async;
    g->functions_lenient = b->functions_lenient;
    if ((b->scoped_use || g->has_functions) && (g->t_lbrace == EP_NONE || g->t_rbrace == EP_NONE ||
                                               g->layout != EP_LAYOUT_ASI)) {
        ep__fail(b, "%%scoped and %%functions need %%layout asi and the literals \"{\" and \"}\"");
        return SM_EINVAL;
    }
    if (b->scoped_use && (g->t_scoped_use == EP_NONE || g->t_scoped_decl == EP_NONE)) {
        ep__fail(b, "%%scoped names a terminal the grammar has not");
        return SM_EINVAL;
    }
    if (g->layout == EP_LAYOUT_ASI && g->t_asi == EP_NONE) {
        ep__fail(b, "%%layout asi needs %%declare ASI (ASI_DO and SL are optional)");
        return SM_EINVAL;
    }
    if (g->layout == EP_LAYOUT_INDENT &&
        (g->t_newline == EP_NONE || g->t_indent == EP_NONE || g->t_dedent == EP_NONE ||
         g->t_endmarker == EP_NONE)) {
        ep__fail(b, "%%layout indent needs %%declare NEWLINE INDENT DEDENT ENDMARKER");
        return SM_EINVAL;
    }
    return SM_OK;
}

static void ep__builder_free(ep_builder *b)
{
    for (uint32_t i = 0; i < b->lexdefs.size; i++) {
        sm_free(b->lexdefs.items[i].name);
        sm_free(b->lexdefs.items[i].pattern);
        sm_free(b->lexdefs.items[i].also);
        sm_free(b->lexdefs.items[i].check);
        for (uint32_t r = 0; r < b->lexdefs.items[i].rivals.size; r++)
            sm_free(b->lexdefs.items[i].rivals.items[r]);
        sm_array_free(&b->lexdefs.items[i].rivals);
        for (uint32_t r = 0; r < b->lexdefs.items[i].goal_but.size; r++)
            sm_free(b->lexdefs.items[i].goal_but.items[r]);
        sm_array_free(&b->lexdefs.items[i].goal_but);
    }
    sm_array_free(&b->lexdefs);
    for (uint32_t i = 0; i < b->nt_names.size; i++)
        sm_free(b->nt_names.items[i]);
    sm_array_free(&b->nt_names);
    sm_array_free(&b->nt_defined);
    sm_array_free(&b->nt_line);
    sm_array_free(&b->rules);
    sm_array_free(&b->bodies);
    for (uint32_t i = 0; i < b->helpers.size; i++)
        sm_free(b->helpers.items[i].key);
    sm_array_free(&b->helpers);
    for (uint32_t i = 0; i < b->soft_literals.size; i++)
        sm_free(b->soft_literals.items[i]);
    sm_array_free(&b->soft_literals);
    sm_free(b->soft_target);
    sm_free(b->scoped_use);
    sm_free(b->scoped_decl);
    for (int i = 0; i < 4; i++)
        sm_free(b->tags[i]);
    for (int i = 0; i < 7; i++)
        sm_free(b->functions[i]);
    sm_free(b->start_name);
}

int ep_grammar_compile(const char *source, size_t len, ep_grammar **out, char *error, size_t error_size)
{
    *out = NULL;
    if (error && error_size)
        error[0] = '\0';
    ep_builder b;
    memset(&b, 0, sizeof b);
    b.src = source;
    b.len = len;
    b.line = 1;
    b.error = error;
    b.error_size = error_size;
    if (memchr(source, '\0', len)) {
        ep__fail(&b, "the grammar holds a NUL byte");
        return SM_EINVAL;
    }
    ep__parse_file(&b);
    b.rules_pass = true;
    b.at = 0;
    b.line = 1;
    if (!b.failed)
        ep__parse_file(&b);
    if (!b.failed && b.rules.size == 0)
        ep__fail(&b, "the grammar has no rules");
    uint32_t start_nt = 0;
    if (!b.failed && b.start_name) {
        start_nt = ep__nonterminal(&b, b.start_name);
        if (!b.nt_defined.items[start_nt])
            ep__fail(&b, "%%start names an undefined rule %s", b.start_name);
    } else if (!b.failed) {
        start_nt = b.first_rule;
    }
    ep_grammar *g = NULL;
    if (!b.failed) {
        g = sm_calloc(1, sizeof *g);
        ep__build_rules(&b, g, start_nt);
        if (ep__check(&b, g) == SM_OK && ep__build_lexemes(&b, g) == SM_OK && ep__build_tags(&b, g) == SM_OK) {
            uint32_t *rev_kind = ep__add_reversal_helpers(g);
            ep_grammar_compute_nullable(g, NULL);
            ep_grammar_compute_initial(g, NULL);
            g->reversed = ep_grammar_build_reversed(g, rev_kind);
            sm_free(rev_kind);
        }
    }
    bool failed = b.failed;
    ep__builder_free(&b);
    if (failed) {
        ep_grammar_free(g);
        return SM_EINVAL;
    }
    *out = g;
    return SM_OK;
}

void ep_grammar_free(ep_grammar *g)
{
    if (!g)
        return;
    ep_grammar_free(g->reversed);
    if (!g->derived) {
        for (uint32_t s = 0; g->symbol_names && s < g->symbol_count; s++)
            sm_free(g->symbol_names[s]);
        for (uint32_t i = 0; g->lexemes && i < g->lexeme_count; i++)
            sm_free(g->lexemes[i].name);
        sm_free(g->lexemes);
        ep_dfa_free(&g->dfa);
        sm_free(g->ignorable_lexemes);
        sm_free(g->terminal_lexemes);
    }
    sm_free(g->symbol_names);
    sm_free(g->rule_lhs);
    sm_free(g->rule_start);
    sm_free(g->body);
    sm_free(g->position_rule);
    sm_free(g->nullable);
    sm_free(g->predict_closure);
    sm_free(g->initial_terminals);
    sm_free(g->initial_by_symbol_start);
    sm_free(g->initial_by_symbol);
    sm_free(g->initial_by_symbol_lhs);
    sm_free(g);
}

void ep_grammar_get_stats(const ep_grammar *g, ep_grammar_stats *stats)
{
    stats->terminals = g->terminal_count;
    stats->nonterminals = g->symbol_count - g->terminal_count;
    stats->rules = g->rule_count;
    stats->lexemes = g->lexeme_count;
    stats->dfa_states = g->dfa.state_count;
}
