/*
 * test_parser_modes.c - the recognizer on Python 3.12's f-strings and
 * 3.14's t-strings, read with the tokenizer's modes: fed whole, byte by
 * byte with detours undone by save points, and as fill-in-the-middle cuts
 * anywhere (inside fields, nested strings and format specs too), the
 * answers must agree with each other.  What CPython says of these strings
 * is checked against CPython itself by tests/corpus/version_check.py.
 */
#include "ep_fields.h"
#include "seam_parser.h"
#include "seam_languages.h"
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static const char *const modal_sources[] = {
    "d = {'k': 1}\nprint(f\"{d[\"k\"]!r:>{len(d)}} and {d = }\")\n",
    "x = f\"{f\"{f\"{1 + 1}\"}\"}\" + f'''{\n    a  # first\n    + b\n}'''\n",
    "def f(a, w):\n    return f\"{a:{w}.{w}}\" f'{\"\\n\".join(a)}' rf\"\\d{a}\"\n",
    "s = f\"{{x}} {y:,.2f} }}{{\" + t\"{z!s}\"\n",
};

static ep_grammar *grammar_of(int version)
{
    ep_grammar *grammar = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), version, &grammar, error, sizeof error), SM_OK, "%s", error);
    return grammar;
}

/* Whether `text` is a program for a fresh recognizer, fed whole. */
static bool plain_valid(const ep_grammar *grammar, const char *text, size_t len)
{
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
    bool valid = ep_feed(rec, text, len) == 1 && ep_can_end(rec);
    ep_recognizer_free(rec);
    return valid;
}

/* The t-string source is a program from 3.14 on only. */
static int version_for(size_t source)
{
    return source == 3 ? 314 : 312 + (int)(source % 2);
}

Test(modes, the_sources_are_programs_and_every_prefix_is_viable)
{
    for (size_t s = 0; s < sizeof modal_sources / sizeof *modal_sources; s++) {
        ep_grammar *grammar = grammar_of(version_for(s));
        const char *text = modal_sources[s];
        size_t len = strlen(text);
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        for (size_t i = 0; i < len; i++)
            cr_assert_eq(ep_feed(rec, text + i, 1), 1, "source %zu refused at byte %zu: %s", s, i, text);
        cr_assert(ep_can_end(rec), "source %zu: %s", s, text);
        ep_recognizer_free(rec);
        ep_grammar_free(grammar);
    }
    /* and before 3.14 a t-string is a name before a string */
    ep_grammar *g313 = grammar_of(313);
    cr_assert_not(plain_valid(g313, modal_sources[3], strlen(modal_sources[3])));
    ep_grammar_free(g313);
}

/* Fed byte by byte, with a detour of other bytes before each that a save
 * point undoes, the recognizer answers as a fresh one fed the same prefix:
 * the scanner's memory of the string in progress follows the restores. */
Test(modes, save_and_restore_inside_strings_match_a_fresh_parse)
{
    static const char *const detours[] = {"\"", "}", "{", "'''", "#x\n", "\\", "!r", ":", "\n", "f\"{"};
    unsigned seed = 5;
    for (size_t s = 0; s < sizeof modal_sources / sizeof *modal_sources; s++) {
        ep_grammar *grammar = grammar_of(version_for(s));
        const char *text = modal_sources[s];
        size_t len = strlen(text);
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        for (size_t i = 0; i < len; i++) {
            ep_savepoint point = ep_save(rec);
            const char *detour = detours[rand_r(&seed) % (sizeof detours / sizeof *detours)];
            int detour_viable = ep_feed(rec, detour, strlen(detour));
            bool detour_end = ep_can_end(rec);
            ep_restore(rec, point);
            char prefix[512];
            snprintf(prefix, sizeof prefix, "%.*s%s", (int)i, text, detour);
            ep_recognizer *fresh;
            cr_assert_eq(ep_recognizer_new(grammar, &fresh), SM_OK);
            int fresh_viable = ep_feed(fresh, prefix, strlen(prefix));
            cr_assert_eq(detour_viable, fresh_viable, "source %zu at %zu, detour %s", s, i, detour);
            cr_assert_eq(detour_end, fresh_viable == 1 && ep_can_end(fresh), "source %zu at %zu, detour %s", s, i,
                         detour);
            ep_recognizer_free(fresh);
            cr_assert_eq(ep_feed(rec, text + i, 1), 1, "source %zu refused at byte %zu after a restore", s, i);
        }
        cr_assert(ep_can_end(rec));
        ep_recognizer_free(rec);
        ep_grammar_free(grammar);
    }
}

/* Every cut of every source (and of mutants of it) as fill-in-the-middle:
 * the middle is kept exactly when the whole text is a program. */
Test(modes, fill_in_the_middle_inside_strings_matches_the_plain_recognizer)
{
    static const char noise[] = "()[]{}:!=,'\"\n\\#rx ";
    unsigned seed = 31;
    for (int round = 0; round < 240; round++) {
        size_t s = (size_t)round % (sizeof modal_sources / sizeof *modal_sources);
        ep_grammar *grammar = grammar_of(version_for(s));
        char text[512];
        size_t n = strlen(modal_sources[s]);
        memcpy(text, modal_sources[s], n + 1);
        if (round % 3 == 1)
            text[rand_r(&seed) % n] = noise[rand_r(&seed) % (sizeof noise - 1)];
        size_t cut1 = rand_r(&seed) % (n + 1);
        size_t cut2 = cut1 + rand_r(&seed) % (n - cut1 + 1);
        bool valid = plain_valid(grammar, text, n);
        ep_recognizer *fim;
        cr_assert_eq(ep_recognizer_new_fim(grammar, text, cut1, text + cut2, n - cut2, &fim), SM_OK);
        size_t fed = 0;
        bool viable = ep_viable(fim);
        while (viable && fed < cut2 - cut1 && ep_feed(fim, text + cut1 + fed, 1) == 1)
            fed++;
        viable = viable && fed == cut2 - cut1;
        bool complete = viable && ep_can_end(fim);
        ep_recognizer_free(fim);
        cr_assert_eq(complete, valid, "round %d: fill-in-the-middle says %d, the whole text %d: [%.*s|%.*s|%s]",
                     round, complete, valid, (int)cut1, text, (int)(cut2 - cut1), text + cut1, text + cut2);
        if (valid)
            cr_assert(viable, "round %d: a true middle refused after %zu bytes: [%.*s|%.*s|%s]", round, fed,
                      (int)cut1, text, (int)(cut2 - cut1), text + cut1, text + cut2);
        ep_grammar_free(grammar);
    }
}

/* The parser reaches a language's strings with fields only through the
 * scanner its lexical rules hand it: every language's grammar either has
 * none, and its recognizer no scanner state, or has every function of one;
 * Python has one, JavaScript none (its templates are lexemes). */
Test(modes, each_languages_scanner_of_strings_with_fields_is_whole_or_absent)
{
    bool python = false, javascript = false;
    for (const lg_language *const *l = lg_languages(); *l; l++) {
        if (!(*l)->grammar)
            continue;
        /* its default version, or its first dialect */
        int version = (*l)->dialects ? 1 : (*l)->default_version;
        ep_grammar *grammar = NULL;
        char error[256];
        cr_assert_eq(ep_grammar_of(*l, version, &grammar, error, sizeof error), SM_OK, "%s: %s", (*l)->name, error);
        const struct lg_fields *f = ep_fields_of(grammar);
        ep_recognizer *rec;
        cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
        if (!f) {
            cr_assert_null(rec->modal, "%s: a scanner's state without a scanner", (*l)->name);
        } else {
            void (*const fns[])(void) = {
                (void (*)(void))f->modal_new,  (void (*)(void))f->modal_free,  (void (*)(void))f->token,
                (void (*)(void))f->modal_step, (void (*)(void))f->fields_new,  (void (*)(void))f->valid,
                (void (*)(void))f->in_text,    (void (*)(void))f->expr_byte,   (void (*)(void))f->field,
                (void (*)(void))f->field_epoch, (void (*)(void))f->mark_new,   (void (*)(void))f->mark_free,
                (void (*)(void))f->mark_take,  (void (*)(void))f->mark_apply,
            };
            for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
                cr_assert_not_null(fns[i], "%s: function %zu of its scanner is missing", (*l)->name, i);
            cr_assert_not_null(rec->modal, "%s", (*l)->name);
        }
        python |= strcmp((*l)->name, "python") == 0 && f;
        javascript |= strcmp((*l)->name, "javascript") == 0 && !f;
        ep_recognizer_free(rec);
        ep_grammar_free(grammar);
    }
    cr_assert(python && javascript);
}

/* ep_recognizer_free reads nothing of the grammar, which may be freed
 * first: the scanner's state of a string with fields is freed by the
 * scanner the recognizer kept (under AddressSanitizer, a read of the freed
 * grammar fails this test). */
Test(modes, a_recognizer_in_a_string_with_fields_is_freed_after_its_grammar)
{
    ep_grammar *grammar = grammar_of(312);
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new(grammar, &rec), SM_OK);
    const char *text = "x = f\"{a!r:>{w}} {";
    cr_assert_eq(ep_feed(rec, text, strlen(text)), 1);
    cr_assert_not_null(rec->modal);
    ep_grammar_free(grammar);
    ep_recognizer_free(rec);
}
