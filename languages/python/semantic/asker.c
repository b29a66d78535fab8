/*
 * asker.c - what only Python can tell, asked of the user's interpreter in
 * the background.
 *
 * A compiled module's attributes (dir() of the imported module) and
 * whether Python finds a module at all are asked of a child interpreter
 * (proc/: an argument vector, a scratch folder, a memory limit, 5 s at
 * most), isolated (-I: no user site, no current folder, no PYTHON*
 * variables), without site (-S: no .pth file runs) and writing no bytecode
 * (-B); the site-packages folders it may import from are put on its path
 * by the question itself.  One worker thread asks, one child per question
 * (a batch of modules), while the threads that asked wait only until
 * their own deadline: a question outlives the completion that asked it,
 * and its answer, or the fact that it had none in time, is kept for every
 * later one.  So a module that imports slowly costs one child, never one
 * per completion, and no caller is held past its budget.
 */
#include "sx_internal.h"

#include "seam_cache.h"
#include "seam_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SX__ASK_LIMIT_MS = 5000, SX__ASK_MAX_ENTRIES = 4096 };
#define SX__ASK_MEMORY (4ull << 30)
#define SX__ASK_OUTPUT (64u << 20)

typedef struct sx__entry {
    sx__ask_kind kind;
    char *name;         /* owned */
    bool done;
    bool answered;      /* Python said (done may also mean it had no answer in time) */
    char *names;        /* DIR: "\n"-separated dir(), owned; NULL: it does not import, or no answer */
    int8_t finds;       /* FINDS: 1 found, -1 not, 0 no answer */
} sx__entry;

typedef struct sx__job {
    sx__ask_kind kind;
    SM_ARRAY(sx__entry *) entries;   /* borrowed from the asker */
} sx__job;

struct sx__asker {
    char *python;                      /* owned; an absolute path */
    char *sites;                       /* owned; "-" then "\n" and a folder each */
    pthread_mutex_t lock;
    pthread_cond_t changed;            /* an answer came, a job was queued, or stop */
    SM_ARRAY(sx__entry *) entries;     /* owned */
    SM_ARRAY(sx__job *) queue;         /* owned */
    pthread_t worker;
    bool started, stop;
    int cancel[2];                     /* a byte written ends the child being run */
    char *cache_dir;                   /* owned; where the answers are kept across runs; NULL: not kept */
    ca_key cache_key;                  /* the interpreter and its folders, as they are */
};

static void sx__answers_key(sx__asker *a, const char *const *sites, uint32_t count);
static void sx__load_answers(sx__asker *a);

sx__asker *sx__asker_new(const char *python, const char *const *sites, uint32_t count, const char *cache_dir)
{
    sx__asker *a = sm_calloc(1, sizeof *a);
    a->python = sm_strdup(python);
    sm_buf joined;
    sm_buf_init(&joined, 64 << 10);
    sm_buf_append_str(&joined, "-");
    for (uint32_t i = 0; i < count; i++) {
        sm_buf_append_str(&joined, "\n");
        sm_buf_append_str(&joined, sites[i]);
    }
    a->sites = sm_buf_take(&joined, NULL);
    pthread_mutex_init(&a->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&a->changed, &attr);
    pthread_condattr_destroy(&attr);
    sm_array_init(&a->entries);
    sm_array_init(&a->queue);
    if (pipe2(a->cancel, O_CLOEXEC) != 0)
        a->cancel[0] = a->cancel[1] = -1;
    if (cache_dir) {
        a->cache_dir = sm_strdup(cache_dir);
        sx__answers_key(a, sites, count);
        sx__load_answers(a);
    }
    return a;
}

/* ---- Answers kept across runs ------------------------------------------------
 *
 * What Python said, in the cache folder (cache/), under a key of the
 * interpreter (its path and what stat() says of the file it runs) and the
 * folders put on its path (their paths and stat(): a package installed
 * or removed changes its folder): a second run asks Python nothing it
 * asked before.  One line per question, "D+name" then dir()'s names, one
 * a line, "D-name" (it does not import), "F+name" or "F-name" (whether
 * Python finds it); a name never has '+' or '-' second.  Questions that
 * had no answer in time are not kept: they are asked again next run. */

enum { SX__MAX_KEPT = 64 << 20 };

static void sx__answers_key(sx__asker *a, const char *const *sites, uint32_t count)
{
    ca_key_init(&a->cache_key);
    ca_key_add_str(&a->cache_key, "seam python answers 1");
    ca_key_add_str(&a->cache_key, a->python);
    ca_key_add_stat(&a->cache_key, a->python);
    for (uint32_t i = 0; i < count; i++) {
        ca_key_add_str(&a->cache_key, sites[i]);
        ca_key_add_stat(&a->cache_key, sites[i]);
    }
}

static bool sx__is_header(const char *line)
{
    return (line[0] == 'D' || line[0] == 'F') && (line[1] == '+' || line[1] == '-') && line[2];
}

/* Takes the answers kept for this interpreter, as if Python had given
 * them.  A file that does not read as answers is left unused. */
static void sx__load_answers(sx__asker *a)
{
    sm_buf kept;
    if (ca_get(a->cache_dir, "python", &a->cache_key, SX__MAX_KEPT, &kept) != SM_OK || !kept.data) {
        sm_buf_free(&kept);
        return;
    }
    sx__entry *current = NULL;
    sm_buf names;
    sm_buf_init(&names, SX__MAX_KEPT);
    for (char *line = kept.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!sx__is_header(line)) {
            if (current && line[0]) {
                sm_buf_append_str(&names, line);
                sm_buf_append(&names, "\n", 1);
            }
            continue;
        }
        if (current && names.len)
            current->names = sm_buf_take(&names, NULL);
        sm_buf_clear(&names);
        current = NULL;
        if (a->entries.size >= SX__ASK_MAX_ENTRIES || strlen(line + 2) > 200)
            continue;
        sx__entry *e = sm_calloc(1, sizeof *e);
        e->kind = line[0] == 'D' ? SX_ASK_DIR : SX_ASK_FINDS;
        e->name = sm_strdup(line + 2);
        e->done = e->answered = true;
        if (e->kind == SX_ASK_FINDS)
            e->finds = line[1] == '+' ? 1 : -1;
        else if (line[1] == '+')
            current = e;
        sm_array_push(&a->entries, e);
    }
    if (current && names.len)
        current->names = sm_buf_take(&names, NULL);
    sm_buf_free(&names);
    sm_buf_free(&kept);
}

/* Writes every answer Python gave, this run's and those taken at the
 * start.  Call without the lock. */
static void sx__save_answers(sx__asker *a)
{
    sm_buf out;
    sm_buf_init(&out, SX__MAX_KEPT);
    pthread_mutex_lock(&a->lock);
    bool ok = true;
    for (uint32_t i = 0; i < a->entries.size && ok; i++) {
        const sx__entry *e = a->entries.items[i];
        if (!e->answered)
            continue;
        char sign = e->kind == SX_ASK_DIR ? (e->names ? '+' : '-') : (e->finds > 0 ? '+' : '-');
        ok = sm_buf_printf(&out, "%c%c%s\n", e->kind == SX_ASK_DIR ? 'D' : 'F', sign, e->name) == SM_OK &&
             (!e->names || sm_buf_append_str(&out, e->names) == SM_OK);
    }
    pthread_mutex_unlock(&a->lock);
    if (ok && out.len)
        ca_put(a->cache_dir, "python", &a->cache_key, out.data, out.len, 8);
    sm_buf_free(&out);
}

/* The program each kind of question runs: "+name" then the answer's lines,
 * or "-name", for each module named after the site folders. */
static const char *sx__script(sx__ask_kind kind)
{
    /* The answers go to a copy of standard output; the module's own
     * writes, Python's or a compiled module's on file descriptor 1, go to
     * /dev/null, so that nothing a module prints is taken for an answer. */
    if (kind == SX_ASK_DIR)
        return "import importlib,os,sys\n"
               "out = os.fdopen(os.dup(1), 'w')\n"
               "os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
               "sys.path += sys.argv[1].split(chr(10))[1:]\n"
               "for n in sys.argv[2:]:\n"
               "    try:\n"
               "        d = [a for a in dir(importlib.import_module(n)) if isinstance(a, str) and a.isidentifier()]\n"
               "    except BaseException:\n"
               "        print('-' + n, file=out, flush=True)\n"
               "        continue\n"
               "    print('+' + n, file=out)\n"
               "    print(chr(10).join(d), file=out, flush=True)\n";
    /* a module's spec runs none of its code */
    return "import importlib.util,os,sys\n"
           "out = os.fdopen(os.dup(1), 'w')\n"
           "os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
           "sys.path += sys.argv[1].split(chr(10))[1:]\n"
           "for n in sys.argv[2:]:\n"
           "    print(('+' if importlib.util.find_spec(n) is not None else '-') + n, file=out, flush=True)\n";
}

/* Stores the answer of `job`'s child (output, NUL-terminated, written in
 * place) in its entries.  Call with the lock held. */
static void sx__store(sx__job *job, char *output)
{
    sx__entry *current = NULL;
    sm_buf names;
    sm_buf_init(&names, SX__ASK_OUTPUT);
    for (char *line = output, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] != '+' && line[0] != '-') {
            if (current) {
                sm_buf_append_str(&names, line);
                sm_buf_append(&names, "\n", 1);
            }
            continue;
        }
        if (current && names.len && !current->names)
            current->names = sm_buf_take(&names, NULL);
        sm_buf_clear(&names);
        current = NULL;
        for (uint32_t i = 0; i < job->entries.size; i++) {
            sx__entry *e = job->entries.items[i];
            if (strcmp(e->name, line + 1) != 0)
                continue;
            e->answered = true;
            if (job->kind == SX_ASK_FINDS)
                e->finds = line[0] == '+' ? 1 : -1;
            else if (line[0] == '+')
                current = e;
        }
    }
    if (current && names.len && !current->names)
        current->names = sm_buf_take(&names, NULL);
    sm_buf_free(&names);
}

/* Runs one job's child, without the lock, and stores what it said. */
static void sx__run_job(sx__asker *a, sx__job *job)
{
    SM_ARRAY(const char *) argv;
    sm_array_init(&argv);
    const char *head[] = {a->python, "-I", "-S", "-B", "-c", sx__script(job->kind), a->sites};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        sm_array_push(&argv, head[i]);
    for (uint32_t i = 0; i < job->entries.size; i++)
        sm_array_push(&argv, job->entries.items[i]->name);
    sm_array_push(&argv, NULL);
    /* one thread each for the numerical libraries a package may load */
    const char *env[] = {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", NULL};
    pr_spec spec = {argv.items, env, sm_now_ns() + (uint64_t)SX__ASK_LIMIT_MS * 1000000u, SX__ASK_OUTPUT,
                    SX__ASK_MEMORY, a->cancel[0]};
    pr_result result;
    int rc = pr_run(&spec, &result);
    sm_array_free(&argv);
    pthread_mutex_lock(&a->lock);
    /* a child cut short leaves the answers it finished; the rest have none */
    if (rc == SM_OK && result.output.data && sm_buf_append(&result.output, "\0", 1) == SM_OK)
        sx__store(job, result.output.data);
    for (uint32_t i = 0; i < job->entries.size; i++)
        job->entries.items[i]->done = true;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
    if (rc == SM_OK)
        pr_result_free(&result);
    if (a->cache_dir && rc == SM_OK && result.outcome == PR_EXITED)
        sx__save_answers(a);
}

static void sx__job_free(sx__job *job)
{
    sm_array_free(&job->entries);
    sm_free(job);
}

static void *sx__work(void *data)
{
    sx__asker *a = data;
    pthread_mutex_lock(&a->lock);
    while (!a->stop) {
        if (a->queue.size == 0) {
            pthread_cond_wait(&a->changed, &a->lock);
            continue;
        }
        sx__job *job = a->queue.items[0];
        memmove(a->queue.items, a->queue.items + 1, (a->queue.size - 1) * sizeof *a->queue.items);
        a->queue.size--;
        pthread_mutex_unlock(&a->lock);
        sx__run_job(a, job);
        sx__job_free(job);
        pthread_mutex_lock(&a->lock);
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

static sx__entry *sx__find(sx__asker *a, sx__ask_kind kind, const char *name)
{
    for (uint32_t i = 0; i < a->entries.size; i++)
        if (a->entries.items[i]->kind == kind && strcmp(a->entries.items[i]->name, name) == 0)
            return a->entries.items[i];
    return NULL;
}

/* Queues a job for the names not asked yet.  Call with the lock held. */
static void sx__queue(sx__asker *a, sx__ask_kind kind, const char *const *names, uint32_t count)
{
    sx__job *job = sm_calloc(1, sizeof *job);
    job->kind = kind;
    sm_array_init(&job->entries);
    for (uint32_t i = 0; i < count; i++) {
        if (sx__find(a, kind, names[i]))
            continue;
        sx__entry *e = sm_calloc(1, sizeof *e);
        e->kind = kind;
        e->name = sm_strdup(names[i]);
        /* past the cap, or with no worker: answered at once, with nothing */
        e->done = a->entries.size >= SX__ASK_MAX_ENTRIES;
        sm_array_push(&a->entries, e);
        if (!e->done)
            sm_array_push(&job->entries, e);
    }
    if (job->entries.size && !a->started && !a->stop)
        a->started = pthread_create(&a->worker, NULL, sx__work, a) == 0;
    if (job->entries.size == 0 || !a->started) {
        for (uint32_t i = 0; i < job->entries.size; i++)
            job->entries.items[i]->done = true;
        sx__job_free(job);
        return;
    }
    sm_array_push(&a->queue, job);
    pthread_cond_broadcast(&a->changed);
}

static bool sx__all_done(sx__asker *a, sx__ask_kind kind, const char *const *names, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        sx__entry *e = sx__find(a, kind, names[i]);
        if (e && !e->done)
            return false;
    }
    return true;
}

void sx__asker_ask(sx__asker *a, sx__ask_kind kind, const char *const *names, uint32_t count, uint64_t deadline_ns,
                   sx__answer *out)
{
    pthread_mutex_lock(&a->lock);
    sx__queue(a, kind, names, count);
    while (!sx__all_done(a, kind, names, count)) {
        if (!deadline_ns) {
            pthread_cond_wait(&a->changed, &a->lock);
            continue;
        }
        if (sm_now_ns() >= deadline_ns)
            break;
        struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
        pthread_cond_timedwait(&a->changed, &a->lock, &until);
    }
    for (uint32_t i = 0; i < count; i++) {
        sx__entry *e = sx__find(a, kind, names[i]);
        out[i].done = e && e->done;
        out[i].names = out[i].done ? e->names : NULL;
        out[i].finds = out[i].done ? e->finds : 0;
    }
    pthread_mutex_unlock(&a->lock);
}

void sx__asker_free(sx__asker *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    a->stop = true;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
    if (a->cancel[1] >= 0) {
        ssize_t written = write(a->cancel[1], "x", 1);
        (void)written;
    }
    if (a->started)
        pthread_join(a->worker, NULL);
    for (uint32_t i = 0; i < a->queue.size; i++)
        sx__job_free(a->queue.items[i]);
    sm_array_free(&a->queue);
    for (uint32_t i = 0; i < a->entries.size; i++) {
        sm_free(a->entries.items[i]->name);
        sm_free(a->entries.items[i]->names);
        sm_free(a->entries.items[i]);
    }
    sm_array_free(&a->entries);
    for (int i = 0; i < 2; i++)
        if (a->cancel[i] >= 0)
            close(a->cancel[i]);
    pthread_cond_destroy(&a->changed);
    pthread_mutex_destroy(&a->lock);
    sm_free(a->python);
    sm_free(a->sites);
    sm_free(a->cache_dir);
    sm_free(a);
}
