/*
 * fuzz_mask.c - libFuzzer target for full-vocabulary masks: the trie walk
 * (mc_vocab_mask) must allow exactly the tokens that a check of every token
 * on its own allows (mc_vocab_mask_brute), at every position along the
 * middle.  The input is a left context, a middle and a right context
 * (fuzz_split.h); the vocabulary is a fixed set of pieces (names, numbers,
 * strings with fields and their parts, brackets, line breaks, bytes past
 * ASCII) and every piece of the middle of up to six bytes, so that the
 * tokens fit the text.  The third byte's three high bits pick the
 * grammar: Python 3.11 (f-strings as one lexeme), TypeScript, JavaScript as
 * a script, TSX, Python 3.14 (f- and t-strings with modes), JSX as a
 * module, JavaScript as a module (templates, regular expressions against
 * division, semicolons inserted) or Python 3.12.
 */
#include "fuzz_split.h"
#include "seam_languages.h"
#include "seam_model_client.h"
#include "seam_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ep_grammar *fuzz__grammar(uint8_t selector)
{
    static ep_grammar *grammars[8];
    static const struct {
        const char *language;
        int version;
    } slots[8] = {{"python", 311}, {"typescript", 0}, {"javascript", 1}, {"tsx", 0},
                  {"python", 314}, {"jsx", 2},        {"javascript", 2}, {"python", 312}};
    unsigned slot = selector >> 5;
    if (!grammars[slot]) {
        char error[256];
        if (ep_grammar_of(lg_by_name(slots[slot].language), slots[slot].version, &grammars[slot], error,
                          sizeof error) != SM_OK)
            abort();
    }
    return grammars[slot];
}

static const char *const fuzz__pieces[] = {
    "x", "xy", "self", ".", ".y", " =", "=", "==", "(", ")", "()", "[", "]", "{", "}", "{}", "}}", "{{", ",", ", ",
    ":", " :", "!r", "1", "12", "0x", "1.5e", "\n", "\n    ", "    ", " ", "#", " # c", "\"", "'", "\"\"\"", "'''",
    "f\"", "f'", "t\"", "rf'", "F\"", "\"}", "{x", "x}", "}\"", "\"]}", "[\"", "\\", "\\n", "\\N{", "`", "${",
    "`${", "}`", "=>", ";", "/", "/*", "*/", "//", "<", ">", "</", "/>", "\xc3\xa9", "\xc3", "\xa9", "\xe2\x80\x94",
    "\xe4\xb8\xad", "if", " if", "else", "in", " for", "lambda", "await", "yield", "return", " return", "True",
    "/a", "/=", ">/", "/g", "`}", "} c", "++", "\n(", "\n/", "let", " of", "=>{",
    ": string", "<T>", " as", "?:", "interface", " extends", "<div", "</div>", " />", "={", "type",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_split s;
    if (!fuzz_split_input(data, size, &s) || s.middle_len > 64)
        return 0;
    /* the fixed pieces, then every piece of the middle of 1 to 6 bytes */
    enum { FIXED = sizeof fuzz__pieces / sizeof *fuzz__pieces, MAX = FIXED + 64 * 6 };
    const char *pieces[MAX];
    uint32_t lens[MAX], n = 0;
    for (uint32_t i = 0; i < FIXED; i++) {
        pieces[n] = fuzz__pieces[i];
        lens[n++] = (uint32_t)strlen(fuzz__pieces[i]);
    }
    for (size_t at = 0; at < s.middle_len; at++)
        for (size_t len = 1; len <= 6 && at + len <= s.middle_len; len++) {
            pieces[n] = s.middle + at;
            lens[n++] = (uint32_t)len;
        }
    ep_recognizer *rec;
    if (ep_recognizer_new_fim(fuzz__grammar(data[2]), s.left, s.left_len, s.right, s.right_len, &rec) != SM_OK)
        return 0;
    mc_vocab *v = mc_vocab_new(pieces, lens, n);
    uint64_t trie[(MAX + 63) / 64], brute[(MAX + 63) / 64];
    size_t words = (n + 63) / 64;
    for (size_t at = 0; at <= s.middle_len; at++) {
        mc_vocab_mask(v, rec, trie, NULL);
        mc_vocab_mask_brute(v, rec, brute, NULL);
        if (memcmp(trie, brute, words * sizeof *trie) != 0) {
            for (uint32_t t = 0; t < n; t++)
                if (((trie[t / 64] ^ brute[t / 64]) >> (t % 64)) & 1)
                    fprintf(stderr, "after \"%.*s\" the walk %s \"%.*s\"\n", (int)at, s.middle,
                            (trie[t / 64] >> (t % 64)) & 1 ? "allows" : "refuses", (int)lens[t], pieces[t]);
            abort();
        }
        if (at == s.middle_len || ep_feed(rec, s.middle + at, 1) != 1)
            break;
    }
    mc_vocab_free(v);
    ep_recognizer_free(rec);
    return 0;
}
