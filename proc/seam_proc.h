/*
 * seam_proc.h - child processes, started so that nothing they are given
 * or do can reach past them (pr_).
 *
 * A child is started from an argument vector (no shell, no command line
 * to build or quote) in its own process group, with standard input and
 * error on /dev/null, in a fresh empty working folder that is also its
 * HOME and TMPDIR (removed afterwards with whatever the child wrote), with
 * no display, a small fixed environment and a memory limit.  Its standard
 * output is read up to a cap and until a deadline: past either, the whole
 * group is killed.  A child that detaches a process which keeps the pipe
 * open (a daemon) does not hold the caller: once the child itself has
 * exited, the pipe is read only as long as bytes keep coming before the
 * deadline.  Nothing here keeps global state; pr_run may be called from
 * any thread.
 */
#ifndef SEAM_PROC_H
#define SEAM_PROC_H

#include "seam_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pr_spec {
    const char *const *argv;  /* borrowed; NULL-terminated; argv[0] is the program's path (no PATH search) */
    const char *const *env;   /* borrowed; NULL-terminated "NAME=value" added to the fixed environment, or NULL */
    uint64_t deadline_ns;     /* sm_now_ns() time by which the child is killed; required (non-zero) */
    size_t max_output;        /* standard output kept at most; past it the child is killed */
    uint64_t memory_bytes;    /* the child's address-space limit; 0: none */
    int cancel_fd;            /* borrowed; when it becomes readable the group is killed (PR_CANCELED); -1: none */
} pr_spec;

typedef enum pr_outcome {
    PR_EXITED,     /* the child exited by itself: exit_code holds its status */
    PR_SIGNALED,   /* a signal it did not get from here ended it */
    PR_TIMED_OUT,  /* the deadline came first: the group was killed */
    PR_TOO_MUCH,   /* it wrote more than max_output: the group was killed */
    PR_CANCELED,   /* cancel_fd became readable: the group was killed */
} pr_outcome;

typedef struct pr_result {
    pr_outcome outcome;
    int exit_code;    /* PR_EXITED: 0..255 */
    sm_buf output;    /* the standard output read, owned: free with pr_result_free */
} pr_result;

/* Runs the child `spec` describes and waits for it, at most until its
 * deadline.  Returns SM_OK with *out filled (free with pr_result_free,
 * whatever the outcome), SM_EINVAL for a bad spec, or SM_EIO when the child
 * could not be started (no such program, no scratch folder): *out is then
 * empty and need not be freed. */
int pr_run(const pr_spec *spec, pr_result *out);

void pr_result_free(pr_result *result);

#endif
