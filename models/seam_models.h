/*
 * seam_models.h - GGUF models on this machine: where they live, which ones
 * are known to fill in the middle well, and their download.
 *
 * seam uses a GGUF file in process when no backend is chosen (server/
 * engine.c): the first *.gguf, by name, in the models folder,
 * $XDG_CACHE_HOME/seam/models (~/.cache/seam/models without it).  `seam
 * model pull` fills that folder from Hugging Face, or from the mirror
 * HF_ENDPOINT names, the way Hugging Face's own tools address files:
 * ENDPOINT/USER/REPO/resolve/REVISION/FILE.
 */
#ifndef SEAM_MODELS_H
#define SEAM_MODELS_H

#include "seam_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- The models folder ------------------------------------------------- */

/* Writes the models folder's path into `out`.  SM_ENOTFOUND when neither
 * XDG_CACHE_HOME nor HOME is set, SM_ETOOBIG when it does not fit. */
int md_models_dir(char *out, size_t out_size);

/* The model seam uses by default: the first *.gguf in the models folder,
 * by name (owned by the caller), or NULL. */
char *md_first_model(void);

/* A GGUF file present in the models folder. */
typedef struct md_present {
    char *name;       /* owned: the file's name */
    char *path;       /* owned */
    uint64_t bytes;
} md_present;

/* The *.gguf files in the models folder, sorted by name (the first is the
 * one seam uses).  *out is owned by the caller: md_present_free. */
int md_present_list(md_present **out, size_t *count);
void md_present_free(md_present *list, size_t count);

/* ---- Known models ------------------------------------------------------ */

/* A model known to fill in the middle well, with the file to fetch. */
typedef struct md_known {
    const char *name;    /* what `seam model pull NAME` takes */
    const char *repo;    /* USER/REPO on Hugging Face */
    const char *file;    /* FILE.gguf in that repository */
    uint64_t bytes;      /* the file's size, about */
    const char *about;   /* one line: what it is good for */
} md_known;

/* The list, static; *count entries.  The first is the one offered when
 * nothing is set up (VS Code's download offer). */
const md_known *md_known_models(size_t *count);

/* The entry named `name` (case-insensitive), or NULL. */
const md_known *md_known_find(const char *name);

/* ---- SHA-256 ----------------------------------------------------------- */

typedef struct md_sha256 {
    uint32_t state[8];
    uint64_t length;        /* bytes hashed so far */
    uint8_t block[64];
    size_t used;            /* bytes waiting in block */
} md_sha256;

void md_sha256_init(md_sha256 *h);
void md_sha256_update(md_sha256 *h, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL into hex. */
void md_sha256_final(md_sha256 *h, char hex[65]);

/* ---- Download ---------------------------------------------------------- */

typedef enum md_pull_stage {
    MD_PULL_START,      /* the file's size (total) and where it resumes */
    MD_PULL_PROGRESS,   /* done of total bytes; at most ten times a second */
    MD_PULL_RETRY,      /* the connection failed (message); tried again */
    MD_PULL_VERIFY,     /* all bytes in; the checksum is being checked */
    MD_PULL_DONE,       /* path is the model, whole and checked */
} md_pull_stage;

typedef struct md_pull_event {
    md_pull_stage stage;
    uint64_t done;          /* bytes on disk */
    uint64_t total;         /* the file's size; 0 when the server gave none */
    uint64_t resumed_from;  /* bytes kept from an earlier attempt */
    double bytes_per_second;
    const char *message;    /* RETRY: what failed */
    const char *path;       /* DONE */
    const char *sha256;     /* DONE: the file's */
    bool verified;          /* DONE: equal to the SHA-256 the server stated (false: --no-verify, none stated) */
} md_pull_event;

typedef struct md_pull_options {
    const char *endpoint;   /* NULL: https://huggingface.co */
    const char *token;      /* a Hugging Face token, or NULL */
    const char *repo;       /* USER/REPO */
    const char *file;       /* a path in the repository, ending in .gguf */
    const char *revision;   /* NULL: main */
    const char *dir;        /* where the model goes; NULL: md_models_dir */
    bool force;             /* fetch again when the file is present */
    bool no_verify;         /* take a file whose SHA-256 the server does not state */
    int retries;            /* attempts after a failed one without progress */
    unsigned retry_delay_ms;  /* the first wait before trying again; doubles */
    unsigned stall_seconds;   /* a connection silent this long is dropped */
    void (*on_event)(void *user, const md_pull_event *event);
    void *user;
} md_pull_options;

/* Defaults: 5 retries, 1 s first delay, 60 s stall. */
void md_pull_options_init(md_pull_options *o);

/* Downloads o->file from o->repo into the models folder.  The bytes go to
 * FILE.gguf.<sha>.part beside it, which a later call resumes (HTTP Range);
 * when all are in, the SHA-256 is checked against the one the server states
 * (X-Linked-Etag, else ETag) and the GGUF magic number is checked, and only
 * then is the file renamed to its name.  A file that fails either check is
 * deleted; so is a download that brings more bytes than the size stated,
 * as soon as it does.  A server that states no SHA-256 is refused unless
 * o->no_verify.  A name with a glob's or a path's special characters is
 * refused.  Blocks; meant for the command line.  *path_out (owned by the
 * caller) is the model's path.  Errors are written into `error`. */
int md_pull(const md_pull_options *o, char **path_out, char *error, size_t error_size);

/* Formats a byte count for people: "531 MB", "1.65 GB". */
void md_format_bytes(uint64_t bytes, char *out, size_t out_size);

#endif
