/*
 * bench_mask - full-vocabulary masks: time per mask with the byte trie and
 * with a check of every token, on real vocabularies, at every position
 * along true middles cut from Python files.
 *
 *   build/release/bench/bench_mask VOCAB.gguf FILE.py... [--holes N] [--no-brute]
 *
 * Each file gives holes, half boundary cuts (a line from its first non-blank
 * character is the middle) and half random spans of up to 64 bytes; the
 * mask is computed before every byte of the true middle, the positions a
 * decode that finds it goes through.  Prints the median, p90 and p99 of
 * both (the trie's also for the same position at once, its lexeme trees
 * then built), their ratio, the bytes each feeds, the vocabulary's memory
 * with the trees, and the number of positions where the two masks differ
 * (exit 1 if any).  --no-brute leaves the check of every token out.
 */
#include "seam_inproc.h"
#include "seam_languages.h"
#include "seam_model_client.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *len = fread(s, 1, (size_t)n, f);
    s[*len] = 0;
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_mask VOCAB.gguf FILE.py... [--holes N] [--no-brute]\n");
        return 2;
    }
    int holes_per_file = 4;
    bool with_brute = true;
    char err[512];
    double t0 = now_us();
    mc_vocab *v;
    if (ip_vocab_load(argv[1], &v, err, sizeof err) != SM_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double load_ms = (now_us() - t0) / 1e3;
    uint32_t n = mc_vocab_size(v);
    ep_grammar *g;
    if (ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err) != SM_OK)
        return 1;
    t0 = now_us();
    uint32_t prewarmed = mc_vocab_prewarm(v, g);
    double prewarm_ms = (now_us() - t0) / 1e3;
    size_t words = (n + 63) / 64;
    uint64_t *mask = malloc(words * sizeof *mask), *mask_brute = malloc(words * sizeof *mask_brute);
    size_t differ = 0;
    size_t cap = 1 << 16, count = 0;
    double *trie = malloc(cap * sizeof *trie), *brute = malloc(cap * sizeof *brute), *again = malloc(cap * sizeof *again);
    double fed_trie = 0, lexed_trie = 0, fed_brute = 0, allowed = 0;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--holes") == 0 && a + 1 < argc) {
            holes_per_file = atoi(argv[++a]);
            continue;
        }
        if (strcmp(argv[a], "--no-brute") == 0) {
            with_brute = false;
            continue;
        }
        size_t len;
        char *text = read_file(argv[a], &len);
        if (!text)
            continue;
        srand(7);
        for (int h = 0; h < holes_per_file; h++) {
            size_t at = (size_t)rand() % len, ls = at, le = at;
            if (h % 2 == 0) {
                /* a boundary cut: a line from its first non-blank character */
                while (ls > 0 && text[ls - 1] != '\n')
                    ls--;
                while (le < len && text[le] != '\n')
                    le++;
                while (ls < le && (text[ls] == ' ' || text[ls] == '\t'))
                    ls++;
            } else {
                /* a random span of up to 64 bytes, cut anywhere but inside a character */
                le = ls + 1 + (size_t)rand() % 64;
                le = le < len ? le : len;
                while (ls > 0 && ((unsigned char)text[ls] & 0xC0) == 0x80)
                    ls--;
                while (le < len && ((unsigned char)text[le] & 0xC0) == 0x80)
                    le++;
            }
            if (le - ls < 4)
                continue;
            ep_recognizer *rec;
            if (ep_recognizer_new_fim(g, text, ls, text + le, len - le, &rec) != SM_OK)
                continue;
            for (size_t i = ls; i <= le && count < cap; i++) {
                mc_mask_stats st;
                double s = now_us();
                allowed += mc_vocab_mask(v, rec, mask, &st);
                trie[count] = now_us() - s;
                s = now_us();
                mc_vocab_mask(v, rec, mask, NULL);
                again[count] = now_us() - s;
                fed_trie += (double)st.bytes_fed;
                lexed_trie += (double)st.bytes_lexed;
                if (!with_brute) {
                    count++;
                    if (i < le && ep_feed(rec, text + i, 1) != 1)
                        break;
                    continue;
                }
                s = now_us();
                mc_vocab_mask_brute(v, rec, mask_brute, &st);
                differ += memcmp(mask, mask_brute, words * sizeof *mask) != 0;
                brute[count] = now_us() - s;
                fed_brute += (double)st.bytes_fed;
                count++;
                if (i < le && ep_feed(rec, text + i, 1) != 1)
                    break;
            }
            ep_recognizer_free(rec);
        }
        free(text);
    }
    if (!count) {
        fprintf(stderr, "no positions\n");
        return 1;
    }
    qsort(trie, count, sizeof *trie, cmp);
    qsort(again, count, sizeof *again, cmp);
    qsort(brute, count, sizeof *brute, cmp);
    printf("%s: %u tokens, %u trie nodes (read and built in %.0f ms), %zu positions, %.0f tokens allowed on average\n", argv[1],
           n, mc_vocab_nodes(v), load_ms, count, allowed / count);
    printf("  trie:   median %.0f us, p90 %.0f us, p99 %.0f us, per mask %.0f bytes fed and %.0f only lexed\n",
           trie[count / 2], trie[count * 9 / 10], trie[count * 99 / 100], fed_trie / count, lexed_trie / count);
    printf("  again:  median %.0f us, p90 %.0f us, p99 %.0f us (the same position at once: its lexeme trees built)\n",
           again[count / 2], again[count * 9 / 10], again[count * 99 / 100]);
    printf("  vocabulary and lexeme trees: %.1f MiB (%u trees prepared at load in %.0f ms, as the server does)\n",
           mc_vocab_bytes(v) / 1048576.0, prewarmed, prewarm_ms);
    if (!with_brute)
        return 0;
    printf("  brute:  median %.0f us, p90 %.0f us, p99 %.0f us, %.0f bytes fed per mask\n", brute[count / 2],
           brute[count * 9 / 10], brute[count * 99 / 100], fed_brute / count);
    printf("  the trie takes %.1fx less time (median), %.1fx at p99; masks that differ: %zu\n",
           brute[count / 2] / trie[count / 2], brute[count * 99 / 100] / trie[count * 99 / 100], differ);
    return differ ? 1 : 0;
}
