/*
 * engine.c - one completion from a text and a cursor: the recognizer for
 * the contexts, set up in libuv's thread pool, then the decoding loop on the
 * backend the configuration names.
 */
#include "seam_server.h"
#include "seam_languages.h"

#include <stdatomic.h>
#include "seam_models.h"
#include "seam_cache.h"

#ifdef SEAM_HAVE_INPROC
#include "seam_inproc.h"
#endif

#include <glob.h>
#include <tree_sitter/api.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The embedded model, shared by the engines of one corpus: a new
 * configuration's engine answers from it while the old one's jobs still
 * finish on theirs.  Only the loop touches the count. */
typedef struct srv__shared_model {
    mc_ngram *model;
    uint32_t refs;
} srv__shared_model;

/* The semantic pruners' environment, shared by the engine and the jobs
 * that read it, counted under the engine's env_lock (made and replaced in
 * the pool, where the project's files are read; released on the loop).
 * Replaced, not changed, when a package is installed, removed or upgraded
 * (its fingerprint moves): jobs already running keep the one they started
 * with. */
typedef struct srv__env {
    sx_env *env;
    ca_key fingerprint;          /* sx_env_fingerprint when made */
    uint64_t checked_ns;         /* when the fingerprint was last compared */
    uint32_t refs;
} srv__env;

static void srv__env_release(srv__env *env)
{
    if (env && --env->refs == 0) {
        sx_env_free(env->env);
        sm_free(env);
    }
}

/* An engine lives while its owner holds it or a job (or a training run)
 * still uses it: srv_engine_free drops the owner's reference only, so a
 * configuration change, a cancel or a shutdown never frees what a running
 * job reads (the grammar, the backend, the semantic modules). */
struct srv_engine {
    uint32_t refs;               /* the owner's, one per job, one while training */
    bool released;               /* the owner has let it go */
    uv_loop_t *loop;
    cfg_config config;
    /* the version of each language with versions the project's code is
     * for, and why, by the language's place in the registry: chosen in the
     * pool by the first job that reads the language (reading the project's
     * files, never on the loop), under grammars_lock */
    lg_version_choice versions[SRV_MAX_LANGUAGES];
    bool chosen[SRV_MAX_LANGUAGES];
    char *project_dir;           /* owned; where the project's files say its versions */
    /* the languages' grammars, compiled in the pool by the first job (or
     * model load) that needs one, under grammars_lock */
    srv_grammars grammars;
    uv_mutex_t grammars_lock;
    mc_backend *backend;
    mc_template *custom_template;
    srv__shared_model *model;    /* the embedded model, once trained */
    void *local_model;           /* ip_model of the llama backend, when built with it */
    bool training;
    sm_logger *logger;
    SM_ARRAY(srv_job *) waiting; /* jobs waiting for the model */
    char *workspace;             /* owned; the semantic pruners' workspace, or NULL */
    struct srv__env *env;        /* the semantic pruners' modules, made by the first job and
                                    made again when the environment changes, under env_lock */
    uv_mutex_t env_lock;
    /* the order of the project's chunks in the last prompt, so that the
     * model server's cache keeps serving it (project.c), under context_lock */
    cx_memory context_memory;
    uv_mutex_t context_lock;
    char packages[4400];         /* what env reads, said; "" before it is made */
    void (*on_ready)(void *data); /* the embedded model is trained, or the local one loaded (or not) */
    void *on_ready_data;
    bool loading;                /* the local model is being loaded in the thread pool */
    struct srv__load *load;      /* that load, until it ends; canceled when the engine is let go */
    struct srv__prewarm *prewarm; /* the names' trees being built after it, until that ends; stopped likewise */
    mc_train_job *train;         /* the training being run, until it ends; canceled likewise */
    char *load_error;            /* owned; why the local model did not load, or NULL */
};

struct srv_job {
    srv_engine *engine;
    const ep_grammar *grammar;   /* the engine's, for the job's language (set in the pool) */
    char grammar_error[256];     /* why it did not compile, or "" */
    uv_work_t work;
    char *text;
    size_t len, offset;
    srv_job_options options;
    srv_bound bound;             /* the recognizer, bound as the code allows */
    srv_rec_cache *cache;
    sx_session *semantic;        /* owned; the semantic pruners' check, or NULL */
    struct srv__env *env;        /* a reference: the environment `semantic` reads, or NULL */
    TSTree *tree;                /* owned until the session takes it; the text's tree, or NULL */
    int setup_rc;
    size_t read_bytes;           /* the code the recognizer reads (its cut) */
    uint64_t setup_ns;
    uint64_t start_ns;
    uint64_t waited_ns;          /* waiting for the embedded model to be trained */
    char *path;                  /* owned: the document's file, or NULL */
    srv_peers *peers;            /* owned: other documents offered for the prompt, or NULL */
    srv_project project;         /* the project's chunks the prompt carries (set in the pool) */
    mc_decode *decode;
    bool line_retry;             /* decoding again, the rest of the line bound (srv__rebind_work) */
    bool canceled;
    bool in_pool;
    srv_job_cb on_done;
    void *data;
};

static uint64_t srv__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The user's template, if any: their own format (kept in the engine) or a
 * built-in one by name; *tmpl stays NULL when neither is set. */
static int srv__template(srv_engine *e, const cfg_config *config, const mc_template **tmpl, char *error,
                         size_t error_size)
{
    *tmpl = NULL;
    if (config->template_format) {
        if (mc_template_custom(config->template_format, config->template_stops ? config->template_stops : "",
                               &e->custom_template)) {
            snprintf(error, error_size, "the template format needs {prefix} and {suffix}");
            return SM_EINVAL;
        }
        *tmpl = e->custom_template;
    } else if (config->template_name && !(*tmpl = mc_template_by_name(config->template_name))) {
        snprintf(error, error_size, "unknown template \"%s\"", config->template_name);
        return SM_EINVAL;
    }
    return SM_OK;
}

static void srv__start_job(srv_job *job);
static void srv__fail_job(srv_job *job, const char *message);
static void srv__engine_release(srv_engine *e);

/* The model is there: the jobs that waited for it start, and the owner
 * hears of it. */
static void srv__serve_waiting(srv_engine *e)
{
    uint64_t now = srv__now_ns();
    for (uint32_t i = 0; i < e->waiting.size; i++) {
        e->waiting.items[i]->waited_ns = now - e->waiting.items[i]->start_ns;
        srv__start_job(e->waiting.items[i]);
    }
    sm_array_clear(&e->waiting);
    if (e->on_ready)
        e->on_ready(e->on_ready_data);
}

/* There will be no model: the jobs that waited for it end with `why`
 * (each lets the engine go). */
static void srv__fail_waiting(srv_engine *e, const char *why)
{
    while (e->waiting.size) {
        srv_job *job = e->waiting.items[--e->waiting.size];
        srv__fail_job(job, why);
    }
}

#ifdef SEAM_HAVE_INPROC

/* A local model being loaded in the thread pool: libllama reads the whole
 * file (seconds for a large model), which must not stop the loop. */
typedef struct srv__load {
    uv_work_t work;
    srv_engine *engine;          /* holds a reference */
    char *path;                  /* owned */
    ip_backend_options options;
    bool fallback;               /* a model found on the machine: the embedded one if it fails */
    atomic_bool cancel;          /* the engine was let go: the load stops */
    ip_model *model;
    const ep_grammar *first;     /* the engine's grammar its trees were prepared for */
    int rc;
    char error[512];
} srv__load;

static const ep_grammar *srv__grammar_for(srv_engine *e, const lg_language *language, const char *dialect,
                                          char *why, size_t why_size);

static void srv__load_work(uv_work_t *work)
{
    srv__load *l = work->data;
    l->rc = ip_model_load(l->path, NULL, &l->cancel, &l->model, l->error, sizeof l->error);
    char why[256];
    const ep_grammar *first = l->rc == SM_OK ? srv__grammar_for(l->engine, NULL, NULL, why, sizeof why) : NULL;
    if (first)
        mc_vocab_prewarm(ip_model_vocab(l->model), first);  /* the first masks find their trees */
    l->first = first;
}

/* The trees of masks inside names and along the language's samples
 * (mc_vocab_prewarm_names and mc_vocab_prewarm_samples, about a second for
 * Python 3.12 on one core), built in the thread pool once the model is
 * loaded, while the first requests are served. */
typedef struct srv__prewarm {
    uv_work_t work;
    srv_engine *engine;          /* holds a reference: the model and the grammar stay */
    const mc_vocab *vocab;
    const ep_grammar *grammar;
    atomic_bool stop;            /* the engine was let go: the building stops */
} srv__prewarm;

static void srv__prewarm_work(uv_work_t *work)
{
    srv__prewarm *p = work->data;
    mc_vocab_prewarm_names(p->vocab, p->grammar, &p->stop);
    mc_vocab_prewarm_samples(p->vocab, p->grammar, &p->stop);
}

static void srv__prewarm_after(uv_work_t *work, int status)
{
    (void)status;
    srv__prewarm *p = work->data;
    srv_engine *e = p->engine;
    e->prewarm = NULL;
    sm_free(p);
    srv__engine_release(e);
}

static void srv__prewarm_async(srv_engine *e, const ep_grammar *grammar)
{
    if (!grammar || e->released)
        return;
    srv__prewarm *p = sm_calloc(1, sizeof *p);
    p->engine = e;
    p->vocab = ip_model_vocab(e->local_model);
    p->grammar = grammar;
    atomic_init(&p->stop, false);
    p->work.data = p;
    e->refs++;
    if (uv_queue_work(e->loop, &p->work, srv__prewarm_work, srv__prewarm_after) != 0) {
        e->refs--;
        sm_free(p);
        return;
    }
    e->prewarm = p;
}

/* The local model did not load: jobs waiting for it fail with why, or,
 * for a model found on the machine, the embedded model serves them. */
static void srv__load_failed(srv_engine *e, const srv__load *l)
{
    if (l->fallback) {
        sm_log(e->logger, SM_LOG_WARN, "the model %s was not used (%s): the embedded model serves", l->path,
               l->error);
        e->config.backend = CFG_BACKEND_EMBEDDED;
        sm_free(e->config.model_path);
        e->config.model_path = NULL;
        mc_corpus corpus;
        srv_engine_corpus(e, &corpus, e->workspace);
        if (srv_engine_train_async(e, &corpus) == SM_OK)
            return;
        mc_corpus_free(&corpus);
    }
    e->load_error = sm_strdup(l->error);
    srv__fail_waiting(e, e->load_error);
    if (e->on_ready)
        e->on_ready(e->on_ready_data);
}

static void srv__load_after(uv_work_t *work, int status)
{
    srv__load *l = work->data;
    srv_engine *e = l->engine;
    e->loading = false;
    e->load = NULL;
    if (status != 0 && l->rc == SM_OK && !l->model) {
        l->rc = SM_ECANCELED;
        snprintf(l->error, sizeof l->error, "the model's load was canceled");
    }
    if (e->released) {
        ip_model_free(l->model);
    } else if (l->rc != SM_OK) {
        srv__load_failed(e, l);
    } else {
        e->local_model = l->model;
        char error[512];
        if (ip_backend_new(e->loop, l->model, &l->options, &e->backend, error, sizeof error) != SM_OK) {
            snprintf(l->error, sizeof l->error, "%s", error);
            srv__load_failed(e, l);
        } else {
            sm_log(e->logger, SM_LOG_INFO, "the model %s is loaded", l->path);
            srv__serve_waiting(e);
            srv__prewarm_async(e, l->first);
        }
    }
    sm_free(l->path);
    sm_free(l);
    srv__engine_release(e);
}

static int srv__load_async(srv_engine *e, const char *path, const ip_backend_options *options, bool fallback)
{
    srv__load *l = sm_calloc(1, sizeof *l);
    l->engine = e;
    l->path = sm_strdup(path);
    l->options = *options;
    l->fallback = fallback;
    atomic_init(&l->cancel, false);
    l->work.data = l;
    e->loading = true;
    e->load = l;
    e->refs++;
    int rc = uv_queue_work(e->loop, &l->work, srv__load_work, srv__load_after);
    if (rc != 0) {
        e->loading = false;
        e->load = NULL;
        e->refs--;
        sm_free(l->path);
        sm_free(l);
        return SM_EIO;
    }
    sm_log(e->logger, SM_LOG_INFO, "loading the model %s", path);
    return SM_OK;
}
#endif

/* The llama backend: the GGUF file of model_path loaded in this process,
 * or the model `previous` (may be NULL) holds if it is the same file. */
static int srv__local_backend(srv_engine *e, const cfg_config *config, const srv_engine *previous, bool fallback,
                              char *error, size_t error_size)
{
#ifdef SEAM_HAVE_INPROC
    if (!config->model_path) {
        snprintf(error, error_size, "the llama backend needs model_path (a GGUF file)");
        return SM_EINVAL;
    }
    ip_backend_options o = {.logger = e->logger, .n_slots = config->cached_documents};
    int rc = srv__template(e, config, &o.tmpl, error, error_size);
    if (rc)
        return rc;
    ip_model *model = previous ? previous->local_model : NULL;
    if (model && ip_model_same_file(model, config->model_path)) {
        ip_model_retain(model);
        sm_log(e->logger, SM_LOG_INFO, "the model %s stays loaded", config->model_path);
        e->local_model = model;
        return ip_backend_new(e->loop, model, &o, &e->backend, error, error_size);
    }
    if ((rc = ip_model_check(config->model_path, error, error_size)) != SM_OK)
        return rc;
    return srv__load_async(e, config->model_path, &o, fallback);
#else
    (void)e;
    (void)config;
    (void)previous;
    (void)fallback;
    snprintf(error, error_size, "this seam was built without libllama: the llama backend is not available");
    return SM_EINVAL;
#endif
}

#ifdef SEAM_HAVE_INPROC
/* The GGUF file a default configuration uses, if any (owned by the
 * caller): model_path when it is set; else $SEAM_MODEL; else the first
 * *.gguf, by name, in the models folder (models/: md_first_model). */
static char *srv__found_model(const cfg_config *config)
{
    if (config->model_path)
        return sm_strdup(config->model_path);
    const char *env = getenv("SEAM_MODEL");
    if (env && *env)
        return sm_strdup(env);
    return md_first_model();
}
#endif

/* Without a backend chosen, a model found on the machine (srv__found_model)
 * is used in process; one that does not load leaves the embedded model,
 * with a warning. */
static void srv__use_found_model(srv_engine *e, const srv_engine *previous)
{
#ifdef SEAM_HAVE_INPROC
    char *path = srv__found_model(&e->config);
    if (!path)
        return;
    char error[512];
    cfg_config with = {0};
    cfg_copy(&with, &e->config);
    sm_free(with.model_path);
    with.model_path = path;
    with.backend = CFG_BACKEND_LLAMA;
    if (srv__local_backend(e, &with, previous, true, error, sizeof error) == SM_OK) {
        sm_log(e->logger, SM_LOG_INFO, "using the model %s in process", path);
        cfg_free(&e->config);
        e->config = with;
        return;
    }
    sm_log(e->logger, SM_LOG_WARN, "the model %s was not used (%s): the embedded model serves", path, error);
    cfg_free(&with);
#else
    (void)e;
    (void)previous;
#endif
}

static int srv__version_locked(srv_engine *e, const lg_language *language, size_t i, sm_log_level level);

/* The languages' versions chosen in the pool (the project's files read
 * there, said in the log), holding the engine meanwhile. */
static void srv__choose_work(uv_work_t *work)
{
    srv_engine *e = work->data;
    uv_mutex_lock(&e->grammars_lock);
    const lg_language *const *all = lg_languages();
    for (size_t i = 0; all[i] && i < SRV_MAX_LANGUAGES; i++)
        if (all[i]->oldest_version)
            srv__version_locked(e, all[i], i, SM_LOG_DEBUG);
    uv_mutex_unlock(&e->grammars_lock);
}

static void srv__choose_after(uv_work_t *work, int status)
{
    (void)status;
    srv_engine *e = work->data;
    sm_free(work);
    srv__engine_release(e);
}

static void srv__choose_versions(srv_engine *e)
{
    uv_work_t *work = sm_calloc(1, sizeof *work);
    work->data = e;
    e->refs++;
    if (uv_queue_work(e->loop, work, srv__choose_work, srv__choose_after) != 0) {
        sm_free(work);
        e->refs--;   /* the first job chooses */
    }
}

int srv_engine_new(uv_loop_t *loop, const cfg_config *config, const char *project_dir, const srv_engine *previous,
                   sm_logger *logger, srv_engine **out, char *error, size_t error_size)
{
    srv_engine *e = sm_calloc(1, sizeof *e);
    e->refs = 1;
    e->loop = loop;
    e->logger = logger;
    uv_mutex_init(&e->grammars_lock);
    uv_mutex_init(&e->env_lock);
    uv_mutex_init(&e->context_lock);
    cfg_copy(&e->config, config);
    e->project_dir = project_dir ? sm_strdup(project_dir) : NULL;
    int rc;
    if (config->backend == CFG_BACKEND_EMBEDDED && !config->backend_chosen)
        srv__use_found_model(e, previous);
    if (e->config.backend == CFG_BACKEND_EMBEDDED || e->backend || e->loading)
        rc = SM_OK;
    else if (config->backend == CFG_BACKEND_LLAMA) {
        rc = srv__local_backend(e, config, previous, false, error, error_size);
        if (rc)
            goto fail;
    } else {
        mc_http_options o;
        mc_http_options_init(&o);
        o.kind = config->backend == CFG_BACKEND_LLAMACPP ? MC_HTTP_LLAMACPP
                 : config->backend == CFG_BACKEND_OPENAI ? MC_HTTP_OPENAI
                                                         : MC_HTTP_OLLAMA;
        o.llamacpp_mode = config->llamacpp_mode == CFG_LLAMACPP_INFILL ? MC_LLAMACPP_INFILL : MC_LLAMACPP_COMPLETION;
        o.endpoint = config->endpoint;
        o.model = config->model;
        rc = srv__template(e, config, &o.tmpl, error, error_size);
        if (rc)
            goto fail;
        if (config->api_key_env) {
            o.api_key = getenv(config->api_key_env);
            if (!o.api_key)
                sm_log(logger, SM_LOG_WARN, "the environment variable %s named by api_key_env is not set",
                       config->api_key_env);
        }
        o.connect_timeout_ms = config->connect_timeout_ms;
        o.first_byte_timeout_ms = config->first_byte_timeout_ms;
        o.total_timeout_ms = config->request_timeout_ms;
        o.retries = config->retries;
        o.tls_verify = config->tls_verify;
        o.stream = config->stream;
        o.logger = logger;
        if (!o.endpoint) {
            snprintf(error, error_size, "the %s backend needs an endpoint", cfg_backend_name(config->backend));
            rc = SM_EINVAL;
            goto fail;
        }
        rc = mc_backend_http_new(loop, &o, &e->backend, error, error_size);
        if (rc)
            goto fail;
    }
    srv__choose_versions(e);
    *out = e;
    return SM_OK;
fail:
    srv_engine_free(e);
    return rc ? rc : SM_EINVAL;
}

static void srv__model_release(srv__shared_model *m)
{
    if (m && --m->refs == 0) {
        mc_ngram_free(m->model);
        sm_free(m);
    }
}

/* Frees the engine once nothing uses it any more. */
static void srv__engine_release(srv_engine *e)
{
    if (--e->refs > 0)
        return;
    mc_backend_free(e->backend);
#ifdef SEAM_HAVE_INPROC
    ip_model_free(e->local_model);
#endif
    mc_template_free(e->custom_template);
    srv__model_release(e->model);
    srv_grammars_free(&e->grammars);
    uv_mutex_destroy(&e->grammars_lock);
    uv_mutex_destroy(&e->env_lock);
    uv_mutex_destroy(&e->context_lock);
    cx_memory_free(&e->context_memory);
    sm_free(e->project_dir);
    srv__env_release(e->env);
    sm_free(e->workspace);
    sm_array_free(&e->waiting);
    sm_free(e->load_error);
    cfg_free(&e->config);
    sm_free(e);
}

/* Stops the model's load or training in the thread pool: one not started
 * never starts, one running stops soon (libllama's progress callback, the
 * training's next file); each still ends through its after-callback. */
static void srv__cancel_model_work(srv_engine *e)
{
#ifdef SEAM_HAVE_INPROC
    if (e->load) {
        atomic_store(&e->load->cancel, true);
        uv_cancel((uv_req_t *)&e->load->work);
    }
    if (e->prewarm) {
        atomic_store(&e->prewarm->stop, true);
        uv_cancel((uv_req_t *)&e->prewarm->work);
    }
#endif
    if (e->train)
        mc_train_cancel(e->train);
}

void srv_engine_free(srv_engine *e)
{
    if (!e)
        return;
    e->released = true;
    e->on_ready = NULL;
    /* Jobs still waiting for the model end now, and the model's load or
     * training is not wanted any more: superseded settings, or a shutdown,
     * queue nothing behind them. */
    srv__fail_waiting(e, "the server is shutting down");
    srv__cancel_model_work(e);
    srv__engine_release(e);
}

const cfg_config *srv_engine_config(const srv_engine *e)
{
    return &e->config;
}

const lg_version_choice *srv_engine_version(const srv_engine *e, const lg_language *language)
{
    size_t i = language && language->oldest_version ? lg_index(language) : SIZE_MAX;
    if (i >= SRV_MAX_LANGUAGES)
        return NULL;
    srv_engine *mutable = (srv_engine *)e;   /* the lock only */
    uv_mutex_lock(&mutable->grammars_lock);
    bool chosen = e->chosen[i];
    uv_mutex_unlock(&mutable->grammars_lock);
    return chosen ? &e->versions[i] : NULL;   /* written once, before chosen */
}

/* The version of `language` (one with versions, at place i of the
 * registry) the project's code is for, chosen the first time (reading the
 * project's files: in the pool) and said in the log at `level` (debug when
 * chosen before any document of the language asks).  Under grammars_lock. */
static int srv__version_locked(srv_engine *e, const lg_language *language, size_t i, sm_log_level level)
{
    if (!e->chosen[i]) {
        lg_version_choice *v = &e->versions[i];
        v->version = language->default_version;
        snprintf(v->why, sizeof v->why, "seam's default");
        if (language->choose_version)
            language->choose_version(&e->config, e->project_dir ? e->project_dir : ".", v);
        sm_log(e->logger, level, "%s %d.%d: %s", language->title, v->version / 100, v->version % 100, v->why);
        e->chosen[i] = true;
    }
    return e->versions[i].version;
}

const char *srv_engine_packages(const srv_engine *e)
{
    return e->packages;
}

/* ---- The embedded model ------------------------------------------------------------ */

void srv_engine_corpus(const srv_engine *e, mc_corpus *corpus, const char *workspace)
{
    mc_corpus_init(corpus, e->config.corpus_bytes);
    const char *endings[32];
    lg_all_extensions(endings, sizeof endings / sizeof *endings);
    if (workspace && *workspace)
        mc_corpus_add_tree(corpus, workspace, endings, 4000);
    for (const lg_language *const *l = lg_languages(); e->config.train_stdlib && *l; l++) {
        char found[1024];
        if ((*l)->corpus_found && (*l)->corpus_found(found, sizeof found))
            mc_corpus_add_tree(corpus, found, (*l)->extensions, 4000);
        for (size_t i = 0; (*l)->corpus_dirs && (*l)->corpus_dirs[i]; i++)
            mc_corpus_add_tree(corpus, (*l)->corpus_dirs[i], (*l)->extensions, 1000);
    }
    char cache[4096];
    if (e->config.disk_cache && ca_dir(cache, sizeof cache) == SM_OK)
        mc_corpus_set_cache(corpus, cache);
}

/* The engine answers from `model` (its reference is the engine's). */
static void srv__model_ready(srv_engine *e, srv__shared_model *model)
{
    e->training = false;
    srv__model_release(e->model);
    e->model = model;
    mc_backend_free(e->backend);
    mc_backend_embedded_new(e->loop, model->model, &e->backend);
    mc_ngram_stats stats;
    mc_ngram_get_stats(model->model, &stats);
    sm_log(e->logger, SM_LOG_DEBUG, "embedded model ready%s: %u pieces, %u n-grams, %zu bytes",
           stats.loaded ? " (its files' model from the cache folder)" : "", stats.vocabulary, stats.nodes,
           stats.bytes);
    srv__serve_waiting(e);
}

/* A newly trained model, shared from here on. */
static srv__shared_model *srv__model_new(mc_ngram *model)
{
    if (!model) {
        model = mc_ngram_new(1024);
        mc_ngram_finish(model);
    }
    srv__shared_model *m = sm_calloc(1, sizeof *m);
    m->model = model;
    m->refs = 1;
    return m;
}

void srv_engine_set_workspace(srv_engine *e, const char *workspace)
{
    uv_mutex_lock(&e->env_lock);
    if (!e->env) {
        sm_free(e->workspace);
        e->workspace = workspace ? sm_strdup(workspace) : NULL;
    }
    uv_mutex_unlock(&e->env_lock);
}

void srv_engine_train(srv_engine *e, const mc_corpus *corpus)
{
    srv__model_ready(e, srv__model_new(mc_corpus_train(corpus, 1u << 20)));
}

static void srv__on_trained(void *data, mc_ngram *model)
{
    srv_engine *e = data;
    e->train = NULL;
    if (e->released)
        mc_ngram_free(model);   /* the owner let the engine go while it trained */
    else
        srv__model_ready(e, srv__model_new(model));
    srv__engine_release(e);
}

int srv_engine_train_async(srv_engine *e, mc_corpus *corpus)
{
    if (e->config.backend != CFG_BACKEND_EMBEDDED)
        return SM_OK;
    e->training = true;
    e->refs++;
    int rc = mc_corpus_train_async(e->loop, corpus, 1u << 20, srv__on_trained, e, &e->train);
    if (rc != SM_OK) {
        e->training = false;
        e->refs--;
    }
    return rc;
}

bool srv_engine_share_model(srv_engine *from, srv_engine *to)
{
    if (!from || !from->model || from->training || to->model || to->training)
        return false;
    from->model->refs++;
    srv__model_ready(to, from->model);
    return true;
}

void srv_engine_on_ready(srv_engine *e, void (*on_ready)(void *data), void *data)
{
    e->on_ready = on_ready;
    e->on_ready_data = data;
}

bool srv_engine_ready(const srv_engine *e)
{
    return e->backend != NULL;
}

bool srv_engine_usable(const srv_engine *e)
{
    return e->backend != NULL || e->training || e->loading;
}

bool srv_engine_loading(const srv_engine *e)
{
    return e->loading;
}

const char *srv_engine_load_error(const srv_engine *e)
{
    return e->load_error;
}

/* ---- Jobs ------------------------------------------------------------------------- */

static void srv__job_free(srv_job *job)
{
    sx_session_free(job->semantic);
    if (job->env) {
        uv_mutex_lock(&job->engine->env_lock);
        srv__env_release(job->env);
        uv_mutex_unlock(&job->engine->env_lock);
    }
    srv__engine_release(job->engine);
    if (job->tree)
        ts_tree_delete(job->tree);
    srv_rec_cache_free(job->cache);
    srv_project_free(&job->project);
    srv_peers_free(job->peers);
    sm_free(job->peers);
    sm_free(job->path);
    sm_free(job->text);
    sm_free(job);
}

/* Hands the recognizer's cache to the callee. */
static srv_rec_cache *srv__take_cache(srv_job *job)
{
    srv_rec_cache *c = job->cache;
    job->cache = NULL;
    return c;
}

static void srv__rebind(srv_job *job);

/* Whether a completion that found nothing under the whole binding is
 * tried again with the rest of the line bound: the code after the cursor
 * only took middles the person does not mean (a finished line written as
 * filler), and the rest of the line is the editor's closers, which the
 * person goes on past. */
static bool srv__retry_by_line(const srv_job *job, const mc_completion *c)
{
    return !job->line_retry && !job->canceled && c && !c->found &&
           (c->reason == MC_STOP_DEAD_END || c->reason == MC_STOP_LINES || c->reason == MC_STOP_TOKENS) &&
           srv_bound_line_possible(&job->bound);
}

static void srv__on_decoded(void *data, mc_completion *c)
{
    srv_job *job = data;
    job->decode = NULL;   /* the decoder frees itself once this returns */
    if (srv__retry_by_line(job, c)) {
        mc_completion_free(c);
        srv__rebind(job);
        return;
    }
    srv_completion_info info = {0};
    info.setup_ns = job->setup_ns;
    info.total_ns = srv__now_ns() - job->start_ns;
    info.backend = job->engine->backend->vtable->name;
    info.reused = job->bound.reused;
    info.binding = job->bound.binding;
    info.binding_why = job->bound.why;
    info.cache = srv__take_cache(job);
    info.semantic = job->semantic != NULL;
    for (int p = 0; job->semantic && p < SX_PRUNER_COUNT; p++)
        info.semantic_refused[p] = sx_session_refused(job->semantic, p);
    info.project = job->project.project.count ? &job->project : NULL;
    job->on_done(job->data, c, &info);
    srv__job_free(job);
}

static void srv__fail_job(srv_job *job, const char *message)
{
    srv_completion_info info = {0};
    info.setup_ns = job->setup_ns;
    info.total_ns = srv__now_ns() - job->start_ns;
    info.error = message;
    job->on_done(job->data, NULL, &info);
    srv__job_free(job);
}

/* The pruners the configuration switches on, as a mask. */
static unsigned srv__pruners(const cfg_config *config)
{
    if (!config->semantic)
        return 0;
    return (config->semantic_names ? 1u << SX_NAMES : 0) | (config->semantic_attributes ? 1u << SX_ATTRIBUTES : 0) |
           (config->semantic_keywords ? 1u << SX_KEYWORDS : 0);
}

/* The semantic pruners' check of the job's completion (in the thread
 * pool): the document read, and the modules it imports.  Without it (no
 * pruner on, or the document cannot be read) candidates are not checked
 * semantically. */
static void srv__semantic_setup(srv_job *job)
{
    unsigned pruners = srv__pruners(&job->engine->config);
    const lg_language *language = job->options.language;
    if (!pruners || !job->env || (language && !language->semantic))
        return;
    TSTree *tree = job->tree;
    job->tree = NULL;
    if (sx_session_new_tree(job->env->env, pruners, job->text, job->len, job->offset, job->offset, tree,
                            &job->semantic) != SM_OK) {
        job->semantic = NULL;
        return;
    }
    sx_session_cached_only(job->semantic);
}

/* The job's constraint past the grammar: the caller's filter (the context
 * escape), then the semantic pruners. */
static bool srv__job_filter(void *data, const char *middle, size_t len, bool at_end, uint32_t max_lines)
{
    srv_job *job = data;
    if (job->options.filter && !job->options.filter(job->options.filter_data, middle, len, at_end, max_lines))
        return false;
    return !job->semantic || sx_filter(job->semantic, middle, len, at_end);
}

/* The contexts a job without a front end's contexts reads: the whole
 * text, bound whole. */
static void srv__whole_contexts(const srv_job *job, srv_contexts *out)
{
    memset(out, 0, sizeof *out);
    out->cut_right = job->len;
    out->line_end = out->next_line = job->len;
    out->whole_only = out->whole_first = true;
}

/* The grammar of a language (NULL: the registry's first) in a dialect, or
 * in the version the engine chose for it, compiled the first time in the
 * pool (a grammar takes 30 to 100 ms, not for the loop) and shared under a
 * lock; NULL when it does not compile (why into why[0..size)). */
static const ep_grammar *srv__grammar_for(srv_engine *e, const lg_language *language, const char *dialect,
                                          char *why, size_t why_size)
{
    if (!language)
        language = lg_languages()[0];
    size_t i = language->oldest_version ? lg_index(language) : SIZE_MAX;
    uv_mutex_lock(&e->grammars_lock);
    const ep_grammar *g =
        i < SRV_MAX_LANGUAGES
            ? srv_grammars_of(&e->grammars, language, srv__version_locked(e, language, i, SM_LOG_INFO), why, why_size)
            : srv_grammars_dialect(&e->grammars, language, dialect, why, why_size);
    uv_mutex_unlock(&e->grammars_lock);
    return g;
}

static void srv__env_refresh(srv_engine *e);

/* The job's reference to the semantic pruners' environment, for a
 * language they read (in the pool: making it reads the project's files). */
static void srv__job_env(srv_job *job)
{
    srv_engine *e = job->engine;
    const lg_language *language = job->options.language;
    if (!srv__pruners(&e->config) || (language && !language->semantic))
        return;
    uv_mutex_lock(&e->env_lock);
    srv__env_refresh(e);
    job->env = e->env;
    job->env->refs++;
    uv_mutex_unlock(&e->env_lock);
}

/* The project's other files for the prompt, when the settings want them
 * and the model reads a prompt (the embedded model does not). */
static void srv__project_setup(srv_job *job)
{
    srv_engine *e = job->engine;
    if (!e->config.context_files || e->config.backend == CFG_BACKEND_EMBEDDED || !job->path)
        return;
    srv_project_gather(&job->project, job->options.language, e->workspace, job->path, job->text, job->len,
                       job->offset, e->config.context_files_bytes, job->peers, &e->context_memory,
                       &e->context_lock);
}

static void srv__setup_work(uv_work_t *work)
{
    srv_job *job = work->data;
    uint64_t t0 = srv__now_ns();
    if (!job->cache)
        job->cache = sm_calloc(1, sizeof *job->cache);
    srv_contexts whole;
    if (!job->options.have_contexts)
        srv__whole_contexts(job, &whole);
    const srv_contexts *contexts = job->options.have_contexts ? &job->options.contexts : &whole;
    job->read_bytes = contexts->cut_right - contexts->cut_left;
    if (job->read_bytes > job->engine->config.parse_bytes) {
        job->setup_rc = SM_ETOOBIG; /* answered, with why, in srv__setup_after */
    } else if (!(job->grammar = srv__grammar_for(job->engine, job->options.language, job->options.dialect,
                                                 job->grammar_error, sizeof job->grammar_error))) {
        job->setup_rc = SM_EINVAL;   /* answered, with why, in srv__setup_after */
    } else {
        job->setup_rc = srv_bound_open(job->grammar, job->text, job->len, job->offset, contexts, job->cache,
                                       &job->bound);
        srv__job_env(job);
        srv__semantic_setup(job);
        srv__project_setup(job);
    }
    job->setup_ns = srv__now_ns() - t0;
}

static bool srv__job_can_end(void *data, ep_recognizer *rec, const char *middle, size_t len)
{
    srv_job *job = data;
    (void)rec;   /* the bound's own */
    return srv_bound_can_end(&job->bound, middle, len, NULL);
}

static bool srv__job_line_opens(void *data, ep_recognizer *rec, const char *middle, size_t len)
{
    srv_job *job = data;
    (void)rec;   /* the bound's own */
    return srv_bound_line_opens(&job->bound, middle, len);
}

/* Starts decoding with the job's bound recognizer (from the loop). */
static void srv__decode_start(srv_job *job)
{
    srv_engine *e = job->engine;
    mc_decode_options o;
    mc_decode_options_init(&o);
    o.max_tokens = job->options.max_tokens ? job->options.max_tokens : e->config.max_tokens;
    o.max_lines = job->options.max_lines ? job->options.max_lines : (e->config.multiline ? e->config.max_lines : 1);
    if (e->config.multiline) {
        o.widen_lines = e->config.widen_lines;
        o.widen_tokens = e->config.widen_tokens;
        o.widen_past_end = job->options.have_contexts && job->options.contexts.rest_is_code;
    }
    o.right_is_code = job->options.have_contexts && job->options.contexts.rest_is_code;
    o.timeout_ms = e->config.timeout_ms;
    if (o.timeout_ms) {
        /* The time spent waiting for the model is part of the budget. */
        uint64_t waited_ms = job->waited_ns / 1000000u;
        o.timeout_ms = waited_ms + 1 < o.timeout_ms ? o.timeout_ms - (uint32_t)waited_ms : 1;
    }
    o.prefer_nonempty = job->options.explicit_request;
    o.n_candidates = e->config.candidates;
    o.run_ahead = e->config.run_ahead;
    o.temperature = e->config.temperature;
    o.top_p = e->config.top_p;
    o.mask_every_step = e->config.mask_every_step;
    o.seed = e->config.seed;
    o.context_budget = e->config.context_bytes;
    if (job->project.project.count)
        o.project = &job->project.project;
    if (job->options.run_ahead)
        o.run_ahead = job->options.run_ahead;
    o.can_end = srv__job_can_end;
    o.line_opens = srv__job_line_opens;
    o.can_end_data = job;
    bool filtered = job->options.filter || job->semantic;
    mc_decode_start(e->loop, e->backend, job->bound.rec, job->text, job->offset, job->text + job->offset,
                    job->len - job->offset, &o, filtered ? srv__job_filter : NULL, job, srv__on_decoded, job,
                    &job->decode);
}

static void srv__setup_after(uv_work_t *work, int status)
{
    srv_job *job = work->data;
    srv_engine *e = job->engine;
    job->in_pool = false;
    if (status != 0 || job->canceled) {
        srv__fail_job(job, "canceled");
        return;
    }
    if (job->setup_rc == SM_ETOOBIG) {
        char why[160];
        snprintf(why, sizeof why, "the code around the cursor is %zu bytes, over parse_bytes (%u): no completion",
                 job->read_bytes, e->config.parse_bytes);
        srv__fail_job(job, why);
        return;
    }
    if (job->setup_rc != SM_OK && job->grammar_error[0]) {
        sm_log(e->logger, SM_LOG_ERROR, "the grammar does not compile: %s", job->grammar_error);
        srv__fail_job(job, "the language's grammar does not compile");
        return;
    }
    if (job->setup_rc != SM_OK) {
        srv__fail_job(job, job->setup_rc == SM_EUTF8 ? "the document is not valid UTF-8"
                                                     : "could not set up the recognizer");
        return;
    }
    srv__decode_start(job);
}

/* The semantic pruners' environment, made on first use, and made again
 * when stat() says its interpreter, standard library or package folders
 * changed (looked at once a second at most; a few stat calls).  In the
 * pool, under env_lock. */
static void srv__env_refresh(srv_engine *e)
{
    uint64_t now = srv__now_ns();
    if (e->env && now - e->env->checked_ns > 1000000000u) {
        e->env->checked_ns = now;
        ca_key print = sx_env_fingerprint(e->env->env);
        if (print.a != e->env->fingerprint.a || print.b != e->env->fingerprint.b) {
            sm_log(e->logger, SM_LOG_INFO,
                   "the Python environment changed (a package installed, removed or upgraded): its modules are "
                   "read again");
            srv__env_release(e->env);
            e->env = NULL;
        }
    }
    if (e->env)
        return;
    e->env = sm_calloc(1, sizeof *e->env);
    e->env->refs = 1;
    e->env->env = sx_env_for_project(&e->config, e->workspace, e->logger, e->packages, sizeof e->packages);
    /* the modules a completion's set-up reads count against its time */
    sx_env_set_budget(e->env->env, e->config.timeout_ms);
    e->env->fingerprint = sx_env_fingerprint(e->env->env);
    e->env->checked_ns = now;
}

/* The recognizer again, the rest of the cursor's line bound instead of
 * the whole code after it (in the pool). */
static void srv__rebind_work(uv_work_t *work)
{
    srv_job *job = work->data;
    srv_contexts line = job->bound.contexts;
    line.whole_first = false;
    line.why = "the whole code after the cursor took no middle the model wrote: the rest of the line binds";
    job->setup_rc = srv_bound_open(job->grammar, job->text, job->len, job->offset, &line, job->cache, &job->bound);
}

static void srv__rebind_after(uv_work_t *work, int status)
{
    srv_job *job = work->data;
    job->in_pool = false;
    if (status != 0 || job->canceled) {
        srv__fail_job(job, "canceled");
        return;
    }
    if (job->setup_rc != SM_OK) {
        srv__fail_job(job, "could not set up the recognizer");
        return;
    }
    /* the time already spent counts against the latency budget */
    job->waited_ns = srv__now_ns() - job->start_ns;
    srv__decode_start(job);
}

/* Hands the job's set-up to the pool: `work` there, `after` back on the
 * loop. */
static void srv__queue(srv_job *job, uv_work_cb work, uv_after_work_cb after)
{
    job->work.data = job;
    job->in_pool = true;
    if (uv_queue_work(job->engine->loop, &job->work, work, after) != 0) {
        job->in_pool = false;
        srv__fail_job(job, "could not queue the completion");
    }
}

static void srv__rebind(srv_job *job)
{
    job->line_retry = true;
    srv__queue(job, srv__rebind_work, srv__rebind_after);
}

static void srv__start_job(srv_job *job)
{
    if (job->canceled) {
        srv__fail_job(job, "canceled");
        return;
    }
    srv__queue(job, srv__setup_work, srv__setup_after);
}

int srv_engine_complete(srv_engine *e, const char *text, size_t len, size_t offset, const srv_job_options *options,
                        srv_job_cb on_done, void *data, srv_job **out)
{
    if (offset > len)
        return SM_ERANGE;
    if (options && options->have_contexts &&
        (options->contexts.text_start > options->contexts.cut_left || options->contexts.cut_left > offset ||
         options->contexts.cut_right < offset ||
         options->contexts.cut_right > len || options->contexts.line_end < offset ||
         options->contexts.line_end > options->contexts.next_line || options->contexts.next_line > len))
        return SM_ERANGE;
    srv_job *job = sm_calloc(1, sizeof *job);
    job->engine = e;
    e->refs++;
    job->text = sm_strndup(text, len);
    job->len = len;
    job->offset = offset;
    if (options) {
        job->options = *options;
        job->cache = options->cache;
        job->options.cache = NULL;
        job->tree = options->tree;
        job->options.tree = NULL;
        job->path = options->path ? sm_strdup(options->path) : NULL;
        job->options.path = NULL;
        job->peers = options->peers;
        job->options.peers = NULL;
    }
    job->on_done = on_done;
    job->data = data;
    job->start_ns = srv__now_ns();
    if (out)
        *out = job;
    if (!e->backend && e->load_error) {
        srv__fail_job(job, e->load_error);
        return SM_OK;
    }
    if (!e->backend) {
        sm_array_push(&e->waiting, job);
        return SM_OK;
    }
    srv__start_job(job);
    return SM_OK;
}

void srv_job_cancel(srv_job *job)
{
    job->canceled = true;
    if (job->decode)
        mc_decode_cancel(job->decode);
    else if (job->in_pool)
        uv_cancel((uv_req_t *)&job->work);
    else {
        srv_engine *e = job->engine;
        for (uint32_t i = 0; i < e->waiting.size; i++) {
            if (e->waiting.items[i] == job) {
                e->waiting.items[i] = e->waiting.items[--e->waiting.size];
                srv__fail_job(job, "canceled");
                return;
            }
        }
    }
}

bool srv_engine_memory(const srv_engine *e, srv_memory *out)
{
#ifdef SEAM_HAVE_INPROC
    if (e->local_model && e->backend) {
        ip_memory m;
        ip_backend_memory(e->backend, &m);
        *out = (srv_memory){m.weights, m.kv_cache, m.vocabulary, m.n_ctx, m.n_slots};
        return true;
    }
#endif
    (void)e;
    (void)out;
    return false;
}
