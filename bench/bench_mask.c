/*
 * bench_mask - full-vocabulary masks: time per mask with the byte trie and
 * with a check of every token, on real vocabularies, at every position
 * along true middles cut from Python files.
 *
 *   build/release/bench/bench_mask VOCAB.gguf FILE... [--holes N] [--no-brute]
 *                                  [--language NAME] [--version N] [--slow US] [--at OFFSET]
 *                                  [--repeat N] [--walks]
 *
 * Each file gives holes, half boundary cuts (a line from its first non-blank
 * character is the middle) and half random spans of up to 64 bytes; the
 * mask is computed before every byte of the true middle, the positions a
 * decode that finds it goes through.  Prints the median, p90 and p99 of
 * both (the trie's also for the same position at once, its lexeme trees
 * then built), their ratio, the bytes each feeds, how many masks were the
 * one kept inside the same token (a name, a comment, a string: copied, not
 * walked; then "again" is a copy too), the vocabulary's memory with the
 * trees, and the number of positions where the two masks differ (exit 1
 * if any).  --no-brute leaves the check of every token out.
 * Positions inside a string with fields (a Python f- or t-string past its
 * quote) get rows of their own besides all positions.  The language is
 * Python 3.11 unless --language (python, javascript, typescript, ...) and
 * --version (Python: 310 .. 314; a dialect's number, from 1) say otherwise;
 * a language with dialects is read in its first file's.  --slow US prints each
 * position whose mask took longer than US microseconds, with the line
 * before it; every position whose masks differ is printed with the tokens
 * they differ by.  --at OFFSET measures only the positions at that byte
 * offset of the files.  --repeat N computes each position's mask again N
 * times and reports their mean as "again" (for a profiler: --at with
 * --repeat 1000 spends the run on one position).  --walks drops the kept
 * mask before each mask (ep_trie_forget), so that every one, first and
 * again, is walked: the walk's own cost.
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

/* Prints "FILE:OFFSET after "LINE"": the position with its line before it
 * (at most 60 bytes). */
static void print_position(const char *path, const char *text, size_t at)
{
    size_t from = at;
    while (from > 0 && text[from - 1] != '\n' && at - from < 60)
        from--;
    printf("%s:%zu after \"%.*s\"", path, at, (int)(at - from), text + from);
}

/* One class of positions: the times of its masks. */
typedef struct series {
    double *trie, *again, *brute;
    size_t count;
} series;

static void series_print(const char *name, series *s, bool with_brute)
{
    if (!s->count) {
        printf("  %s: no positions\n", name);
        return;
    }
    size_t n = s->count;
    qsort(s->trie, n, sizeof *s->trie, cmp);
    qsort(s->again, n, sizeof *s->again, cmp);
    printf("  %s (%zu positions)\n", name, n);
    printf("    trie:   median %.0f us, p90 %.0f us, p99 %.0f us, max %.0f us\n", s->trie[n / 2],
           s->trie[n * 9 / 10], s->trie[n * 99 / 100], s->trie[n - 1]);
    printf("    again:  median %.0f us, p90 %.0f us, p99 %.0f us (the same position at once)\n", s->again[n / 2],
           s->again[n * 9 / 10], s->again[n * 99 / 100]);
    if (!with_brute)
        return;
    qsort(s->brute, n, sizeof *s->brute, cmp);
    printf("    brute:  median %.0f us, p90 %.0f us, p99 %.0f us; the trie takes %.1fx less time (median), %.1fx at p99\n",
           s->brute[n / 2], s->brute[n * 9 / 10], s->brute[n * 99 / 100], s->brute[n / 2] / s->trie[n / 2],
           s->brute[n * 99 / 100] / s->trie[n * 99 / 100]);
}

static void series_add(series *s, double trie, double again, double brute)
{
    s->trie[s->count] = trie;
    s->again[s->count] = again;
    s->brute[s->count] = brute;
    s->count++;
}

/* Whether option `arg` is followed by its value (all but the flags). */
static bool takes_value(const char *arg)
{
    return strcmp(arg, "--no-brute") != 0 && strcmp(arg, "--walks") != 0;
}

/* The version a language's files are read in when --version does not say:
 * the dialect of the first file (JavaScript's script or module, as Node
 * decides), or the language's default version. */
static int default_version(const lg_language *lang, int argc, char **argv)
{
    if (!lang->dialect_of)
        return lang->default_version;
    for (int a = 2; a < argc; a++) {
        if (argv[a][0] == '-') {
            a += takes_value(argv[a]);
            continue;
        }
        size_t len;
        char *text = read_file(argv[a], &len);
        if (!text)
            continue;
        int dialect = lang->dialect_of(argv[a], text, len);
        free(text);
        return dialect;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_mask VOCAB.gguf FILE... [--holes N] [--no-brute] [--language NAME] "
                        "[--version N] [--slow US] [--at OFFSET] [--repeat N] [--walks]\n");
        return 2;
    }
    int holes_per_file = 4, version = -1;   /* -1: the language's own choice */
    double slow = 0;
    long only = -1, repeat = 1;
    const char *language = "python";
    bool with_brute = true, walks = false;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--language") == 0 && a + 1 < argc)
            language = argv[++a];
        else if (strcmp(argv[a], "--version") == 0 && a + 1 < argc)
            version = atoi(argv[++a]);
        else if (strcmp(argv[a], "--slow") == 0 && a + 1 < argc)
            slow = atof(argv[++a]);
        else if (strcmp(argv[a], "--at") == 0 && a + 1 < argc)
            only = atol(argv[++a]);
        else if (strcmp(argv[a], "--repeat") == 0 && a + 1 < argc)
            repeat = atol(argv[++a]);
        else if (strcmp(argv[a], "--holes") == 0 && a + 1 < argc)
            holes_per_file = atoi(argv[++a]);
        else if (strcmp(argv[a], "--no-brute") == 0)
            with_brute = false;
        else if (strcmp(argv[a], "--walks") == 0)
            walks = true;
    }
    repeat = repeat > 0 ? repeat : 1;
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
    const lg_language *lang = lg_by_name(language);
    if (lang && version < 0)
        version = default_version(lang, argc, argv);
    if (!lang || ep_grammar_of(lang, version, &g, err, sizeof err) != SM_OK) {
        fprintf(stderr, "%s: %s\n", language, lang ? err : "no such language");
        mc_vocab_free(v);
        return 1;
    }
    t0 = now_us();
    uint32_t prewarmed = mc_vocab_prewarm(v, g);
    double prewarm_ms = (now_us() - t0) / 1e3;
    /* the server builds the names' trees and the samples' in the
     * background after the load */
    t0 = now_us();
    uint32_t prewarmed_names = mc_vocab_prewarm_names(v, g, NULL);
    double prewarm_names_ms = (now_us() - t0) / 1e3;
    t0 = now_us();
    uint32_t prewarmed_samples = mc_vocab_prewarm_samples(v, g, NULL);
    double prewarm_samples_ms = (now_us() - t0) / 1e3;
    size_t words = (n + 63) / 64;
    uint64_t *mask = malloc(words * sizeof *mask), *mask_brute = malloc(words * sizeof *mask_brute);
    size_t differ = 0;
    size_t cap = 1 << 16;
    series all = {0}, fields = {0}, rest = {0};
    series *each[] = {&all, &fields, &rest};
    for (size_t k = 0; k < 3; k++) {
        each[k]->trie = malloc(cap * sizeof(double));
        each[k]->again = malloc(cap * sizeof(double));
        each[k]->brute = malloc(cap * sizeof(double));
    }
    double fed_trie = 0, lexed_trie = 0, fed_brute = 0, allowed = 0, scans_made = 0, scans_copied = 0;
    size_t masks_copied = 0;
    /* the options were read above, wherever they stand among the files */
    for (int a = 2; a < argc; a++) {
        if (argv[a][0] == '-') {
            a += takes_value(argv[a]);
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
            for (size_t i = ls; i <= le && all.count < cap; i++) {
                if (only >= 0 && (size_t)only != i) {
                    if (i < le && ep_feed(rec, text + i, 1) != 1)
                        break;
                    continue;
                }
                mc_mask_stats st;
                if (walks)
                    ep_trie_forget(rec);
                double s = now_us();
                allowed += mc_vocab_mask(v, rec, mask, &st);
                double trie = now_us() - s;
                bool in_fields = st.in_fields;
                if (slow > 0 && trie > slow) {
                    printf("slow: %.0f us%s, %llu bytes fed, at ", trie, in_fields ? " (in fields)" : "",
                           (unsigned long long)st.bytes_fed);
                    print_position(argv[a], text, i);
                    printf("\n");
                }
                s = now_us();
                for (long r = 0; r < repeat; r++) {
                    if (walks)
                        ep_trie_forget(rec);
                    mc_vocab_mask(v, rec, mask, NULL);
                }
                double again = (now_us() - s) / (double)repeat;
                fed_trie += (double)st.bytes_fed;
                lexed_trie += (double)st.bytes_lexed;
                scans_made += (double)st.scans_made;
                scans_copied += (double)st.scans_copied;
                masks_copied += st.copied;
                double brute = 0;
                if (with_brute) {
                    s = now_us();
                    mc_vocab_mask_brute(v, rec, mask_brute, &st);
                    brute = now_us() - s;
                    if (memcmp(mask, mask_brute, words * sizeof *mask) != 0) {
                        differ++;
                        printf("differ at ");
                        print_position(argv[a], text, i);
                        printf(":");
                        for (uint32_t t = 0, shown = 0; t < n && shown < 6; t++) {
                            bool x = (mask[t / 64] >> (t % 64)) & 1, y = (mask_brute[t / 64] >> (t % 64)) & 1;
                            if (x == y)
                                continue;
                            uint32_t tl;
                            const char *tb = mc_vocab_token(v, t, &tl);
                            printf(" %s #%u \"%.*s\"", x ? "+" : "-", t, (int)tl, tb);
                            shown++;
                        }
                        printf("\n");
                    }
                    fed_brute += (double)st.bytes_fed;
                }
                series_add(&all, trie, again, brute);
                series_add(in_fields ? &fields : &rest, trie, again, brute);
                if (i < le && ep_feed(rec, text + i, 1) != 1)
                    break;
            }
            ep_recognizer_free(rec);
        }
        free(text);
    }
    int status = 0;
    if (!all.count) {
        fprintf(stderr, "no positions\n");
        status = 1;
        goto done;
    }
    size_t count = all.count;
    printf("%s: %u tokens, %u trie nodes (read and built in %.0f ms), %s %d, %zu positions, %.0f tokens allowed on "
           "average, per mask %.0f bytes fed and %.0f only lexed, %.0f Earley scans made and %.0f copied from the "
           "memo (first visits)\n",
           argv[1], n, mc_vocab_nodes(v), load_ms, language, version, count, allowed / count, fed_trie / count,
           lexed_trie / count, scans_made / count, scans_copied / count);
    printf("  %zu of the %zu masks copied from the one kept inside the same token (first visits)\n", masks_copied, count);
    printf("  vocabulary and lexeme trees: %.1f MiB (%u trees prepared at load in %.0f ms, then %u for names in %.0f "
           "ms and %u for the samples in %.0f ms, as the server does in the background)\n",
           mc_vocab_bytes(v) / 1048576.0, prewarmed, prewarm_ms, prewarmed_names, prewarm_names_ms, prewarmed_samples,
           prewarm_samples_ms);
    series_print("all positions", &all, with_brute);
    series_print("inside strings with fields", &fields, with_brute);
    series_print("elsewhere", &rest, with_brute);
    if (with_brute) {
        printf("  brute: %.0f bytes fed per mask; masks that differ: %zu\n", fed_brute / count, differ);
        status = differ ? 1 : 0;
    }
done:
    for (size_t k = 0; k < 3; k++) {
        free(each[k]->trie);
        free(each[k]->again);
        free(each[k]->brute);
    }
    free(mask);
    free(mask_brute);
    ep_grammar_free(g);
    mc_vocab_free(v);
    return status;
}
