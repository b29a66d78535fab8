/*
 * fuzz_recognizer.c - libFuzzer target for the recognizer and the right
 * quotient.  The input is a left context, a middle and a right context
 * (fuzz_split.h).  A fill-in-the-middle recognizer opened on left and right
 * is fed the middle three ways (whole; in pieces with a save point before
 * each and a refused detour restored; byte by byte), and all three must
 * agree with each other and with a plain recognizer fed left + middle +
 * right: the middle can end exactly when that text is a program, and a
 * middle whose text is a program is never refused on the way.  The third
 * byte's three high bits pick the grammar: bit 6 JavaScript (automatic
 * semicolon insertion, the lexical goals, private names) instead of
 * Python; bit 7 Python 3.14's (f-strings with modes, t-strings) over
 * 3.11's, or JavaScript's module goal over its script goal; with bit 6,
 * bit 5 JSX (goal lexemes chosen over their rivals, matched tags): the
 * module goal's with bit 7, else TSX.
 */
#include "fuzz_split.h"
#include "seam_languages.h"
#include "seam_parser.h"

#include <stdlib.h>
#include <string.h>

typedef struct verdict {
    int viable;     /* 1, 0, or SM_EUTF8 */
    bool can_end;
} verdict;

/* The grammar the input's third byte picks (see above), compiled once for
 * the process. */
static const ep_grammar *fuzz__grammar(uint8_t selector)
{
    static ep_grammar *grammars[8];
    unsigned kind = selector >> 6;   /* bit 6: JavaScript; bit 7: the newer Python, or a module */
    bool jsx = (kind & 1) && (selector & 0x20);
    unsigned slot = kind | (jsx ? 4u : 0u);
    if (!grammars[slot]) {
        char error[256];
        const lg_language *js = lg_by_name("javascript");
        int rc = jsx && (kind & 2)   ? ep_grammar_of(lg_by_name("jsx"), 2, &grammars[slot], error, sizeof error)
                 : jsx               ? ep_grammar_of(lg_by_name("tsx"), 0, &grammars[slot], error, sizeof error)
                 : kind & 1          ? ep_grammar_compile_version(js->grammar, strlen(js->grammar), kind & 2 ? 2 : 1,
                                                                  &grammars[slot], error, sizeof error)
                                     : ep_grammar_of(lg_by_name("python"), kind & 2 ? 314 : 311, &grammars[slot], error,
                                                     sizeof error);
        if (rc != SM_OK)
            abort();
    }
    return grammars[slot];
}

/* Feeds `len` bytes in pieces of `step`; returns the last answer. */
static int fuzz__feed(ep_recognizer *rec, const char *bytes, size_t len, size_t step, bool detours)
{
    int rc = 1;
    for (size_t i = 0; i < len && rc == 1; i += step) {
        size_t n = len - i < step ? len - i : step;
        if (detours) {
            ep_savepoint point = ep_save(rec);
            (void)ep_feed(rec, ")]}:=\"'", 7); /* refused or not, undone */
            ep_restore(rec, point);
        }
        rc = ep_feed(rec, bytes + i, n);
    }
    return rc;
}

static bool fuzz__run(const fuzz_split *s, uint8_t selector, size_t step, bool detours, verdict *out)
{
    ep_recognizer *rec;
    int rc = ep_recognizer_new_fim(fuzz__grammar(selector), s->left, s->left_len, s->right, s->right_len, &rec);
    if (rc != SM_OK)
        return false;
    bool started = ep_viable(rec);
    out->viable = started ? fuzz__feed(rec, s->middle, s->middle_len, step ? step : s->middle_len + 1, detours) : 0;
    out->can_end = out->viable == 1 && ep_can_end(rec);
    if (out->viable == 1 && ep_can_end(rec) != out->can_end)
        abort(); /* can_end changed the recognizer */
    ep_recognizer_free(rec);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_split s;
    if (!fuzz_split_input(data, size, &s))
        return 0;
    verdict whole, pieces, bytes;
    uint8_t selector = data[2];
    if (!fuzz__run(&s, selector, 0, false, &whole))
        return 0; /* contexts that are not UTF-8 */
    if (!fuzz__run(&s, selector, s.step, true, &pieces) || !fuzz__run(&s, selector, 1, false, &bytes))
        abort();
    if (whole.viable == SM_EUTF8 || pieces.viable == SM_EUTF8 || bytes.viable == SM_EUTF8) {
        /* a middle that is not UTF-8: refused however it is cut */
        if (pieces.can_end || bytes.can_end || whole.can_end)
            abort();
        return 0;
    }
    if (whole.viable != pieces.viable || whole.viable != bytes.viable || whole.can_end != pieces.can_end ||
        whole.can_end != bytes.can_end)
        abort();
    /* the plain recognizer on the whole text */
    size_t len = s.left_len + s.middle_len + s.right_len;
    ep_recognizer *plain;
    if (ep_recognizer_new(fuzz__grammar(selector), &plain) != SM_OK)
        abort();
    bool program = ep_feed(plain, s.left, len) == 1 && ep_can_end(plain);
    ep_recognizer_free(plain);
    if (program != whole.can_end)
        abort();
    return 0;
}
