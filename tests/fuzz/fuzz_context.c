/*
 * fuzz_context.c - libFuzzer target for the project's other files as
 * context: the input is cut in three (fuzz_split.h), a document with the
 * cursor at the first cut and two other files of the project, read by
 * each language's import reader and picked from with each language's
 * rules, with the memory of one request kept for the next.  Whatever the
 * bytes: no crash, no leak, the chunks within the budget, each ending with
 * a line break, none of the document's own.
 */
#include "fuzz_split.h"
#include "seam_context.h"
#include "seam_languages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fuzz__found(void *data, const char *path)
{
    (*(int *)data)++;
    if (!path[0])
        abort();
}

/* A workspace with a few files for the import readers to find, made once. */
static const char *fuzz__root(void)
{
    static char root[64];
    if (!root[0]) {
        snprintf(root, sizeof root, "/tmp/seam-fuzz-context-%d", (int)getpid());
        char cmd[256];
        snprintf(cmd, sizeof cmd, "mkdir -p %s/pkg && touch %s/pkg/__init__.py %s/pkg/a.py %s/util.ts %s/b.js", root,
                 root, root, root, root);
        if (system(cmd) != 0)
            abort();
    }
    return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_split s;
    if (!fuzz_split_input(data, size, &s))
        return 0;
    /* the document is left + middle; the cursor between them */
    size_t doc_len = s.left_len + s.middle_len;
    cx_source sources[] = {
        {"pkg/a.py", s.middle, s.middle_len, CX_IMPORTED, 0},
        {"util.ts", s.right, s.right_len, CX_OPEN, 1},
        {"main.py", s.left, doc_len, CX_OPEN, 0},
    };
    cx_memory memory = {0};
    cx_picked picked;
    cx_picked_init(&picked);
    const char *const banned[] = {"<|file_sep|>", NULL};
    for (const lg_language *const *l = lg_languages(); *l; l++) {
        const lg_language *lang = *l;
        if (lang->imports) {
            int found = 0;
            lang->imports(s.left, doc_len, fuzz__root(), fuzz__root(), fuzz__found, &found);
        }
        if (!lang->definers)
            continue;
        cx_rules rules = {lang->definers, lang->definer_modifiers};
        size_t budget = (size_t)s.step * 97;
        for (int round = 0; round < 2; round++) {
            cx_query q = {.text = s.left, .len = doc_len, .offset = s.left_len, .path = "main.py",
                          .budget = budget, .chunk_lines = s.step};
            cx_pick(&rules, &q, sources, 3, banned, &memory, &picked);
            size_t sum = 0;
            for (uint32_t i = 0; i < picked.chunks.size; i++) {
                const cx_chunk *c = &picked.chunks.items[i];
                if (!c->len || c->text[c->len - 1] != '\n' || strcmp(c->path, "main.py") == 0 ||
                    strlen(c->text) > c->len)
                    abort();
                sum += c->len;
            }
            if (sum != picked.bytes || picked.bytes > budget)
                abort();
        }
    }
    cx_picked_free(&picked);
    cx_memory_free(&memory);
    return 0;
}
