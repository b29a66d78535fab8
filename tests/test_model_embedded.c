/*
 * The embedded model: pieces, determinism, predictions, and completions
 * through the decoding loop.
 */
#include "seam_model_client.h"
#include "seam_languages.h"
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

static const char corpus_text[] =
    "import os\n"
    "\n"
    "def read(path):\n"
    "    with open(path) as handle:\n"
    "        return handle.read()\n"
    "\n"
    "def write(path, data):\n"
    "    with open(path, 'w') as handle:\n"
    "        handle.write(data)\n"
    "\n"
    "for name in os.listdir(path):\n"
    "    print(name)\n";

static mc_ngram *trained(void)
{
    mc_ngram *m = mc_ngram_new(100000);
    mc_ngram_train(m, corpus_text, strlen(corpus_text));
    mc_ngram_finish(m);
    return m;
}

static bool has_candidate(const mc_step *s, const char *bytes, uint32_t within)
{
    for (uint32_t i = 0; i < s->count && i < within; i++)
        if (!s->cands[i].eos && strcmp(s->cands[i].bytes, bytes) == 0)
            return true;
    return false;
}

Test(model_embedded, predicts_what_followed_in_training)
{
    mc_ngram *m = trained();
    mc_step s = {0};
    const char *left = "def read(path):\n    with open(";
    mc_ngram_predict(m, left, strlen(left), "", 0, 5, &s);
    cr_assert_gt(s.count, 0);
    cr_assert_str_eq(s.cands[0].bytes, "path");
    for (uint32_t i = 1; i < s.count; i++)
        cr_assert_geq(s.cands[i - 1].logprob, s.cands[i].logprob);
    for (uint32_t i = 0; i < s.count; i++)
        cr_assert(s.cands[i].logprob <= 0 && isfinite(s.cands[i].logprob));
    mc_step_free(&s);
    mc_ngram_free(m);
}

Test(model_embedded, completes_a_partial_name)
{
    mc_ngram *m = trained();
    mc_step s = {0};
    const char *left = "    with open(path) as hand";
    mc_ngram_predict(m, left, strlen(left), "", 0, 5, &s);
    cr_assert(has_candidate(&s, "le", 2), "first candidate %s", s.count ? s.cands[0].bytes : "-");
    mc_step_free(&s);
    mc_ngram_free(m);
}

Test(model_embedded, the_end_is_likely_where_the_right_context_follows)
{
    mc_ngram *m = trained();
    mc_step joins = {0}, not_joins = {0};
    const char *left = "for name in os.listdir(path";
    mc_ngram_predict(m, left, strlen(left), "):\n", 3, 5, &joins);
    mc_ngram_predict(m, left, strlen(left), "import\n", 7, 5, &not_joins);
    double a = -INFINITY, b = -INFINITY;
    for (uint32_t i = 0; i < joins.count; i++)
        if (joins.cands[i].eos)
            a = joins.cands[i].logprob;
    for (uint32_t i = 0; i < not_joins.count; i++)
        if (not_joins.cands[i].eos)
            b = not_joins.cands[i].logprob;
    cr_assert(isfinite(a) && isfinite(b));
    cr_assert_gt(a, b + 1.0, "end log-probabilities %f vs %f", a, b);
    mc_step_free(&joins);
    mc_step_free(&not_joins);
    mc_ngram_free(m);
}

Test(model_embedded, training_is_deterministic_and_capped)
{
    mc_ngram *a = trained(), *b = trained();
    mc_step sa = {0}, sb = {0};
    const char *left = "def write(path, data):\n    ";
    mc_ngram_predict(a, left, strlen(left), "\n", 1, 8, &sa);
    mc_ngram_predict(b, left, strlen(left), "\n", 1, 8, &sb);
    cr_assert_eq(sa.count, sb.count);
    for (uint32_t i = 0; i < sa.count; i++) {
        cr_assert_str_eq(sa.cands[i].bytes, sb.cands[i].bytes);
        cr_assert_eq(sa.cands[i].logprob, sb.cands[i].logprob);
    }
    mc_step_free(&sa);
    mc_step_free(&sb);
    mc_ngram_free(a);
    mc_ngram_free(b);

    mc_ngram *small = mc_ngram_new(1024);
    for (int i = 0; i < 200; i++) {
        char line[64];
        snprintf(line, sizeof line, "name_%d = value_%d + %d\n", i, i * 7, i * 13);
        mc_ngram_train(small, line, strlen(line));
    }
    mc_ngram_finish(small);
    mc_ngram_stats st;
    mc_ngram_get_stats(small, &st);
    cr_assert(st.full);
    cr_assert_leq(st.nodes, 1024);
    mc_ngram_free(small);
}

typedef struct done_box {
    mc_completion *c;
} done_box;

static void on_done(void *data, mc_completion *c)
{
    ((done_box *)data)->c = c;
}

static mc_completion *complete_with(mc_ngram *m, const char *left, const char *right, uint32_t max_lines)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    mc_backend *b;
    cr_assert_eq(mc_backend_embedded_new(&loop, m, &b), SM_OK);
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    ep_recognizer *rec;
    cr_assert_eq(ep_recognizer_new_fim(g, left, strlen(left), right, strlen(right), &rec), SM_OK);
    mc_decode_options o;
    mc_decode_options_init(&o);
    o.max_lines = max_lines;
    o.timeout_ms = 0;
    done_box box = {0};
    cr_assert_eq(mc_decode_start(&loop, b, rec, left, strlen(left), right, strlen(right), &o, NULL, NULL, on_done,
                                 &box, NULL), SM_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    cr_assert_not_null(box.c);
    ep_recognizer_free(rec);
    ep_grammar_free(g);
    mc_backend_free(b);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return box.c;
}

/* Whether left + middle + right parses, by the plain recognizer. */
static bool parses(const char *left, const char *middle, const char *right)
{
    ep_grammar *g;
    char err[256];
    cr_assert_eq(ep_grammar_of(lg_by_name("python"), 311, &g, err, sizeof err), SM_OK);
    ep_recognizer *r;
    cr_assert_eq(ep_recognizer_new(g, &r), SM_OK);
    ep_feed(r, left, strlen(left));
    ep_feed(r, middle, strlen(middle));
    ep_feed(r, right, strlen(right));
    bool ok = ep_can_end(r);
    ep_recognizer_free(r);
    ep_grammar_free(g);
    return ok;
}

Test(model_embedded, completions_through_the_loop_are_valid)
{
    mc_ngram *m = trained();
    static const struct { const char *left, *right; } cases[] = {
        {"for name in os.listdir(", "\n    print(name)\n"},
        {"def read(path):\n    with open(path) as handle:\n        return handle.", "\n"},
        {"x = read(", ")\n"},
        {"import ", "\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mc_completion *c = complete_with(m, cases[i].left, cases[i].right, 1);
        if (c->found)
            cr_assert(parses(cases[i].left, c->text, cases[i].right), "case %zu: '%s' does not parse", i, c->text);
        else
            cr_assert_str_eq(c->text, "");
        cr_assert_eq(strchr(c->text, '\n'), NULL);
        mc_completion_free(c);
    }
    /* The first case has an obvious completion in the corpus. */
    mc_completion *c = complete_with(m, cases[0].left, cases[0].right, 1);
    cr_assert(c->found);
    cr_assert_str_eq(c->text, "path):");
    mc_completion_free(c);
    mc_ngram_free(m);
}

Test(model_embedded, the_document_at_hand_is_mixed_in)
{
    mc_ngram *global = trained();
    const char *doc = "def compute_checksum(blob):\n    return sum(blob) % 251\n\n\nvalue = compute_checksum(data)\n";
    mc_ngram *local = mc_ngram_new(1 << 14);
    mc_ngram_train(local, doc, strlen(doc));
    mc_ngram_finish(local);
    const char *left = "total = comp";
    mc_step plain = {0}, mixed = {0};
    mc_ngram_predict(global, left, strlen(left), "\n", 1, 5, &plain);
    mc_ngram_predict_mixed(global, local, 0.4, left, strlen(left), "\n", 1, 5, &mixed);
    cr_assert_not(has_candidate(&plain, "ute_checksum", 5));
    cr_assert(has_candidate(&mixed, "ute_checksum", 2), "first %s", mixed.count ? mixed.cands[0].bytes : "-");
    /* Still a distribution, best first, with one end candidate. */
    uint32_t ends = 0;
    for (uint32_t i = 0; i < mixed.count; i++) {
        cr_assert(mixed.cands[i].logprob <= 0);
        if (i > 0)
            cr_assert_geq(mixed.cands[i - 1].logprob, mixed.cands[i].logprob);
        ends += mixed.cands[i].eos;
    }
    cr_assert_eq(ends, 1);
    mc_step_free(&plain);
    mc_step_free(&mixed);
    mc_ngram_free(local);
    mc_ngram_free(global);
}

/* Whether two models predict the same candidates, in order, with the same
 * log-probabilities, after each of a few left contexts. */
static void assert_same_predictions(const mc_ngram *a, const mc_ngram *b)
{
    static const char *const lefts[] = {"def write(path, data):\n    ", "for name in os.", "    with open(pa",
                                        "import ", "x"};
    for (size_t k = 0; k < sizeof lefts / sizeof *lefts; k++) {
        mc_step sa = {0}, sb = {0};
        mc_ngram_predict(a, lefts[k], strlen(lefts[k]), "\n", 1, 12, &sa);
        mc_ngram_predict(b, lefts[k], strlen(lefts[k]), "\n", 1, 12, &sb);
        cr_assert_eq(sa.count, sb.count, "after %s", lefts[k]);
        for (uint32_t i = 0; i < sa.count; i++) {
            cr_assert_str_eq(sa.cands[i].bytes, sb.cands[i].bytes, "after %s", lefts[k]);
            cr_assert_eq(sa.cands[i].logprob, sb.cands[i].logprob, "after %s", lefts[k]);
        }
        mc_step_free(&sa);
        mc_step_free(&sb);
    }
}

Test(model_embedded, a_saved_model_loads_as_it_was)
{
    mc_ngram *m = trained();
    sm_buf saved;
    sm_buf_init(&saved, 1 << 26);
    cr_assert_eq(mc_ngram_save(m, &saved), SM_OK);
    mc_ngram *loaded = mc_ngram_load(saved.data, saved.len);
    cr_assert_not_null(loaded);
    assert_same_predictions(m, loaded);
    mc_ngram_stats st;
    mc_ngram_get_stats(loaded, &st);
    cr_assert(st.loaded);
    /* trained on further, both alike */
    const char *more = "def other(path):\n    return os.path.join(path, 'x')\n";
    mc_ngram_train(m, more, strlen(more));
    mc_ngram_finish(m);
    mc_ngram_train(loaded, more, strlen(more));
    mc_ngram_finish(loaded);
    assert_same_predictions(m, loaded);
    mc_ngram_free(loaded);

    /* a model of nothing (an empty corpus) saves and loads too */
    mc_ngram *empty = mc_ngram_new(1024);
    mc_ngram_finish(empty);
    sm_buf nothing;
    sm_buf_init(&nothing, 1 << 20);
    cr_assert_eq(mc_ngram_save(empty, &nothing), SM_OK);
    mc_ngram *back = mc_ngram_load(nothing.data, nothing.len);
    cr_assert_not_null(back);
    mc_ngram_free(back);
    mc_ngram_free(empty);
    sm_buf_free(&nothing);

    /* anything out of place is refused: cut short, a longer tail, a wrong
     * magic, and indices pointing outside (a parent past its node) */
    cr_assert_null(mc_ngram_load(saved.data, saved.len - 1));
    sm_buf longer;
    sm_buf_init(&longer, 1 << 26);
    sm_buf_append(&longer, saved.data, saved.len);
    sm_buf_append(&longer, "x", 1);
    cr_assert_null(mc_ngram_load(longer.data, longer.len));
    sm_buf_free(&longer);
    saved.data[0] ^= 1;
    cr_assert_null(mc_ngram_load(saved.data, saved.len));
    saved.data[0] ^= 1;
    size_t header = 8 + 7 * 8, node = 40;
    uint32_t bad = 0x7fffffff;
    memcpy(saved.data + header + 3 * node, &bad, 4);   /* node 3's parent */
    cr_assert_null(mc_ngram_load(saved.data, saved.len));
    cr_assert_null(mc_ngram_load("", 0));
    sm_buf_free(&saved);
    mc_ngram_free(m);
}

/* A corpus trained with a cache folder keeps its files' model there: the
 * second training loads it, and both models predict alike; a file edited
 * in between is trained again. */
Test(model_embedded, the_files_model_is_kept_in_the_cache_folder)
{
    char dir[64], path[128], cache[128];
    snprintf(dir, sizeof dir, "/tmp/seam-training-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/code.py", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(corpus_text, f);
    fclose(f);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    cr_assert_eq(mkdir(cache, 0700), 0);
    mc_ngram *models[3];
    for (int run = 0; run < 3; run++) {
        if (run == 2) {
            f = fopen(path, "a");
            fputs("def added(x):\n    return x\n", f);
            fclose(f);
        }
        mc_corpus corpus;
        mc_corpus_init(&corpus, 1 << 20);
        mc_corpus_add_path(&corpus, path);
        mc_corpus_add_text(&corpus, "open_buffer = 1\n", 16);
        mc_corpus_set_cache(&corpus, cache);
        corpus.keep_after_ms = 0;   /* this small corpus trains fast: kept all the same */
        models[run] = mc_corpus_train(&corpus, 100000);
        mc_corpus_free(&corpus);
        mc_ngram_stats st;
        mc_ngram_get_stats(models[run], &st);
        cr_assert_eq(st.loaded, run == 1, "run %d: from the cache folder only when its files are the same", run);
    }
    assert_same_predictions(models[0], models[1]);
    /* the same corpus with no cache folder: the same model */
    mc_corpus corpus;
    mc_corpus_init(&corpus, 1 << 20);
    mc_corpus_add_path(&corpus, path);
    mc_corpus_add_text(&corpus, "open_buffer = 1\n", 16);
    mc_ngram *plain = mc_corpus_train(&corpus, 100000);
    mc_corpus_free(&corpus);
    assert_same_predictions(models[2], plain);
    mc_ngram_free(plain);
    /* by default a corpus this small is not kept: training it again costs less */
    char kept[200];
    snprintf(kept, sizeof kept, "rm -f '%s'/ngram-*", cache);
    cr_assert_eq(system(kept), 0);
    mc_corpus_init(&corpus, 1 << 20);
    mc_corpus_add_path(&corpus, path);
    mc_corpus_set_cache(&corpus, cache);
    mc_ngram_free(mc_corpus_train(&corpus, 100000));
    mc_corpus_free(&corpus);
    snprintf(kept, sizeof kept, "ls '%s' | grep -q ngram-", cache);
    cr_assert_neq(system(kept), 0, "a model that trained in milliseconds is not written");
    for (int run = 0; run < 3; run++)
        mc_ngram_free(models[run]);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* The workspace's files of every language given are learnt from; a
 * project's node_modules, like site-packages, is not the workspace's own. */
Test(embedded, corpus_of_the_languages_endings)
{
    char dir[64], sub[128];
    seam_test_scratch(dir, "corpus");
    put_file(dir, "app.js", "const x = 1;\n");
    put_file(dir, "tool.py", "x = 1\n");
    put_file(dir, "lib.mjs", "export const y = 2;\n");
    put_file(dir, "notes.txt", "text\n");
    snprintf(sub, sizeof sub, "%s/node_modules", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    put_file(sub, "dep.js", "module.exports = 3;\n");
    static const char *const endings[] = {".py", ".js", ".mjs", NULL};
    mc_corpus corpus;
    mc_corpus_init(&corpus, 1 << 20);
    mc_corpus_add_tree(&corpus, dir, endings, 100);
    cr_assert_eq(corpus.paths.size, 3, "app.js, lib.mjs and tool.py: %u", corpus.paths.size);
    for (uint32_t i = 0; i < corpus.paths.size; i++)
        cr_assert_null(strstr(corpus.paths.items[i], "node_modules"), "%s", corpus.paths.items[i]);
    mc_corpus_free(&corpus);
    static const char *const python_only[] = {".py", NULL};
    mc_corpus_init(&corpus, 1 << 20);
    mc_corpus_add_tree(&corpus, dir, python_only, 100);
    cr_assert_eq(corpus.paths.size, 1);
    mc_corpus_free(&corpus);
    seam_test_remove_tree(dir);
}
