/*
 * bench_scope.c - what cut points save, and what the tree costs per edit.
 *
 * usage: bench_scope FILE [CURSORS]
 * Picks CURSORS cursors (default 20) in the last tenth of FILE, at the ends
 * of lines, and prints one JSON line with medians over them:
 *  - setup_uncut_us / setup_cut_us: opening the fill-in-the-middle
 *    recognizer on the whole left and right contexts, and on the contexts
 *    cut to the statements around the cursor (scope_us: finding the scope
 *    and the cut points, included in the cut figure);
 *  - tree_edit_us: one-character insertions at those cursors, each
 *    recorded with srv_tree_edit and followed by an incremental
 *    srv_tree_reparse (tree_full_us: parsing the file from scratch).
 * bench/run_scope_bench.py runs it next to CPython's ast.parse.
 */
#include "seam_server.h"

#define PY lg_by_name("python")

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double median_us(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    return n ? (double)v[n / 2] / 1000.0 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_scope FILE [CURSORS]\n");
        return 64;
    }
    size_t cursors = argc > 2 ? (size_t)atoi(argv[2]) : 20;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 1;
    sm_buf buf;
    sm_buf_init(&buf, 64u << 20);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        sm_buf_append(&buf, chunk, got);
    fclose(f);
    const char *text = buf.data;
    size_t len = buf.len;
    ep_grammar *g;
    char err[256];
    if (ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err))
        return 1;
    /* Cursors: ends of non-blank lines in the last tenth. */
    SM_ARRAY(size_t) at;
    sm_array_init(&at);
    for (size_t i = len - len / 10; i < len && at.size < cursors; i++)
        if (text[i] == '\n' && i > 0 && text[i - 1] != '\n' && (i * 7919) % 3 == 0)
            sm_array_push(&at, i);
    uint64_t *uncut = sm_calloc(at.size + 1, 8), *cut = sm_calloc(at.size + 1, 8), *scope = sm_calloc(at.size + 1, 8);
    uint64_t *edit = sm_calloc(at.size + 1, 8);
    for (uint32_t k = 0; k < at.size; k++) {
        size_t o = at.items[k];
        ep_recognizer *rec;
        uint64_t t0 = now_ns();
        ep_recognizer_new_fim(g, text, o, text + o, len - o, &rec);
        uncut[k] = now_ns() - t0;
        ep_recognizer_free(rec);
        t0 = now_ns();
        lg_scope sc;
        srv_scope_at(PY, NULL, text, len, o, true, 6, &sc);
        uint64_t t1 = now_ns();
        ep_recognizer_new_fim(g, text + sc.cut_left, o - sc.cut_left, text + o, sc.cut_right - o, &rec);
        cut[k] = now_ns() - t0;
        scope[k] = t1 - t0;
        ep_recognizer_free(rec);
    }
    /* The tree: one-character edits, each followed by an incremental parse. */
    uint64_t t0 = now_ns();
    srv_tree *tree = srv_tree_new(PY, text, len);
    uint64_t full = now_ns() - t0;
    char *doc = sm_malloc(len + at.size + 1);
    memcpy(doc, text, len);
    size_t doc_len = len;
    for (uint32_t k = 0; k < at.size; k++) {
        size_t o = at.items[k] + k;   /* earlier insertions moved it */
        uint64_t s = now_ns();
        srv_tree_edit(tree, doc, o, o, " ", 1);
        memmove(doc + o + 1, doc + o, doc_len - o);
        doc[o] = ' ';
        doc_len++;
        srv_tree_reparse(tree, doc, doc_len);
        edit[k] = now_ns() - s;
    }
    size_t n = at.size;
    double tree_full = (double)full / 1000.0;
    printf("{\"file\": \"%s\", \"bytes\": %zu, \"cursors\": %zu, \"setup_uncut_us\": %.1f, \"setup_cut_us\": %.1f, "
           "\"scope_us\": %.1f, \"tree_edit_us\": %.1f, \"tree_full_us\": %.1f}\n",
           argv[1], len, n, median_us(uncut, n), median_us(cut, n), median_us(scope, n), median_us(edit, n), tree_full);
    srv_tree_free(tree);
    sm_free(doc);
    sm_free(uncut);
    sm_free(cut);
    sm_free(scope);
    sm_free(edit);
    sm_array_free(&at);
    ep_grammar_free(g);
    sm_buf_free(&buf);
    return 0;
}
