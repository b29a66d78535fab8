/*
 * bench_parser.c - timings of the recognizer on Python files.
 *
 * usage: bench_parser FILE...
 * For each file prints one JSON line:
 *   {"file", "bytes", "feed_whole_us", "complete", "char_feed_ns_median",
 *    "trial_ns_median", "arena_bytes"}
 *  - feed_whole_us: open a recognizer, feed the whole file, ask can_end;
 *  - char_feed_ns_median: one-byte feeds after a prefix of 80% of the file
 *    (and char_feed_ns_at_10/_50/_90: after 10%, 50% and 90%, to show that
 *    the cost does not grow with the prefix);
 *  - trial_ns_median: save + feed one token-sized piece (4 bytes) + restore,
 *    the decoder's trial of a candidate, after the 80% prefix.
 * bench/run_parser_bench.py runs this next to CPython's ast.parse.
 *
 * usage: bench_parser --fstrings
 * Feeds, one byte at a time as a person types, "x = " and an f-string
 * whose one field holds N terms (N = 1000, 2000, 4000) and f-strings
 * nested D deep (D = 40, 80, 149, CPython 3.12's most), and prints one JSON
 * line each: {"case", "bytes", "byte_feed_us_total"}.  A field typed byte
 * by byte costs its length once (linear in N); nesting costs each level
 * its own bytes (D * bytes at most, with D below 150).
 */
#include "seam_parser.h"
#include "seam_languages.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int bench__compare(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t bench__median(uint64_t *samples, size_t count)
{
    qsort(samples, count, sizeof *samples, bench__compare);
    return count ? samples[count / 2] : 0;
}

static char *bench__read(const char *path, size_t *len)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    sm_buf buf;
    sm_buf_init(&buf, 64u << 20);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
        if (sm_buf_append(&buf, chunk, got))
            break;
    fclose(file);
    return sm_buf_take(&buf, len);
}

#define SAMPLES 201

/* Median cost of a one-byte feed (and of a 4-byte trial) after `prefix`
 * bytes, over SAMPLES positions just after it. */
static void bench__feeds_after(const ep_grammar *grammar, const char *text, size_t len, size_t prefix,
                               uint64_t *char_median, uint64_t *trial_median)
{
    uint64_t chars[SAMPLES], trials[SAMPLES];
    ep_recognizer *rec;
    ep_recognizer_new(grammar, &rec);
    ep_feed(rec, text, prefix);
    size_t samples = 0;
    for (size_t i = 0; i < SAMPLES && prefix + i + 4 <= len; i++) {
        ep_savepoint point = ep_save(rec);
        ep_feed(rec, text + prefix, i); /* move along so samples differ */
        ep_savepoint inner = ep_save(rec);
        uint64_t t0 = sm_now_ns();
        ep_feed(rec, text + prefix + i, 1);
        uint64_t t1 = sm_now_ns();
        ep_restore(rec, inner);
        uint64_t t2 = sm_now_ns();
        ep_savepoint trial = ep_save(rec);
        ep_feed(rec, text + prefix + i, 4);
        ep_restore(rec, trial);
        uint64_t t3 = sm_now_ns();
        chars[samples] = t1 - t0;
        trials[samples] = t3 - t2;
        samples++;
        ep_restore(rec, point);
    }
    ep_recognizer_free(rec);
    *char_median = bench__median(chars, samples);
    *trial_median = bench__median(trials, samples);
}

static void bench__file(const ep_grammar *grammar, const char *path)
{
    size_t len;
    char *text = bench__read(path, &len);
    if (!text) {
        fprintf(stderr, "bench_parser: cannot read %s\n", path);
        return;
    }
    uint64_t best = UINT64_MAX;
    bool complete = false;
    for (int round = 0; round < 3; round++) {
        uint64_t start = sm_now_ns();
        ep_recognizer *rec;
        ep_recognizer_new(grammar, &rec);
        ep_feed(rec, text, len);
        complete = ep_can_end(rec);
        ep_recognizer_free(rec);
        uint64_t took = sm_now_ns() - start;
        if (took < best)
            best = took;
    }
    uint64_t char80, trial80, char10, char50, char90, unused;
    bench__feeds_after(grammar, text, len, len * 8 / 10, &char80, &trial80);
    bench__feeds_after(grammar, text, len, len / 10, &char10, &unused);
    bench__feeds_after(grammar, text, len, len / 2, &char50, &unused);
    bench__feeds_after(grammar, text, len, len * 9 / 10, &char90, &unused);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"file\": \"%s\", \"bytes\": %zu, \"feed_whole_us\": %.1f, \"complete\": %s, "
           "\"char_feed_ns_median\": %llu, \"char_feed_ns_at_10\": %llu, \"char_feed_ns_at_50\": %llu, "
           "\"char_feed_ns_at_90\": %llu, \"trial_ns_median\": %llu, \"max_rss_kb\": %ld}\n",
           path, len, (double)best / 1000.0, complete ? "true" : "false", (unsigned long long)char80,
           (unsigned long long)char10, (unsigned long long)char50, (unsigned long long)char90,
           (unsigned long long)trial80, usage.ru_maxrss);
    fflush(stdout);
    sm_free(text);
}

/* Each Python version's grammar compile time, best of 5: a completion's
 * engine compiles the one its project needs when it is made. */
static int bench__grammars(void)
{
    char error[256];
    for (int version = lg_by_name("python")->oldest_version; version <= lg_by_name("python")->newest_version; version++) {
        uint64_t best = UINT64_MAX;
        for (int trial = 0; trial < 5; trial++) {
            ep_grammar *g;
            uint64_t start = sm_now_ns();
            if (ep_grammar_of(lg_by_name("python"), version, &g, error, sizeof error)) {
                fprintf(stderr, "bench_parser: %s\n", error);
                return 1;
            }
            uint64_t took = sm_now_ns() - start;
            ep_grammar_free(g);
            if (took < best)
                best = took;
        }
        printf("{\"python\": \"3.%d\", \"grammar_compile_us\": %.0f}\n", version % 100, (double)best / 1000.0);
    }
    return 0;
}

/* "x = ", `depth` f-strings inside one another, the innermost field
 * holding `terms` names joined by "+", newline: fed a byte at a time. */
static void bench__fstring_case(const ep_grammar *grammar, int depth, int terms)
{
    sm_buf text;
    sm_buf_init(&text, 1u << 20);
    sm_buf_append_str(&text, "x = ");
    for (int i = 0; i < depth; i++)
        sm_buf_append_str(&text, "f'{");
    for (int i = 0; i < terms; i++)
        sm_buf_printf(&text, "%sname_%d", i ? " + " : "", i);
    for (int i = 0; i < depth; i++)
        sm_buf_append_str(&text, "}'");
    sm_buf_append_str(&text, "\n");
    ep_recognizer *rec;
    if (ep_recognizer_new(grammar, &rec) != SM_OK) {
        sm_buf_free(&text);
        return;
    }
    uint64_t start = sm_now_ns();
    bool ok = true;
    for (size_t i = 0; i < text.len && ok; i++)
        ok = ep_feed(rec, text.data + i, 1) == 1;
    uint64_t took = sm_now_ns() - start;
    printf("{\"case\": \"depth %d, terms %d\", \"bytes\": %zu, \"complete\": %s, \"byte_feed_us_total\": %.0f}\n",
           depth, terms, text.len, ok && ep_can_end(rec) ? "true" : "false", (double)took / 1000.0);
    ep_recognizer_free(rec);
    sm_buf_free(&text);
}

static int bench__fstrings(void)
{
    ep_grammar *grammar;
    char error[256];
    if (ep_grammar_of(lg_by_name("python"), 312, &grammar, error, sizeof error)) {
        fprintf(stderr, "bench_parser: %s\n", error);
        return 1;
    }
    static const int cases[][2] = {{1, 1000}, {1, 2000}, {1, 4000}, {40, 1}, {80, 1}, {149, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        bench__fstring_case(grammar, cases[i][0], cases[i][1]);
    ep_grammar_free(grammar);
    return 0;
}

int main(int argc, char **argv)
{
    ep_grammar *grammar;
    char error[256];
    if (argc == 2 && strcmp(argv[1], "--grammars") == 0)
        return bench__grammars();
    if (argc == 2 && strcmp(argv[1], "--fstrings") == 0)
        return bench__fstrings();
    /* --python 3.N: that version's grammar (default 3.11) */
    int version = 311, first = 1;
    if (argc >= 3 && strcmp(argv[1], "--python") == 0) {
        unsigned minor = 0;
        if (sscanf(argv[2], "3.%u", &minor) != 1) {
            fprintf(stderr, "bench_parser: --python takes 3.N\n");
            return 2;
        }
        version = 300 + (int)minor;
        first = 3;
    }
    if (ep_grammar_of(lg_by_name("python"), version, &grammar, error, sizeof error)) {
        fprintf(stderr, "bench_parser: %s\n", error);
        return 1;
    }
    for (int i = first; i < argc; i++)
        bench__file(grammar, argv[i]);
    ep_grammar_free(grammar);
    return 0;
}
