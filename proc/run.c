/*
 * run.c - one child process, from its start to its end within a deadline.
 *
 * fork() then execve(): between them the child only calls what is safe
 * after a fork in a threaded program (setpgid, dup2, close_range, chdir,
 * setrlimit, sigaction, execve, _exit), and everything it needs (the
 * environment, the folder) is made before the fork.  The parent waits on
 * the pipe and on a pidfd of the child together, so that it wakes when
 * bytes come, when the child ends or when the deadline comes, never later.
 */
#include "seam_proc.h"
#include "proc_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PR__MAX_ENV = 32, PR__POLL_MS = 10 };

/* The child's environment: a fixed base, HOME and the temporary folders in
 * its scratch folder, then the caller's additions.  Points into `storage`
 * (three PATH_MAX + 16 byte slots) and the caller's strings. */
static bool pr__environment(const char *scratch, const char *const *extra, const char **envp,
                            char (*storage)[PATH_MAX + 16])
{
    static const char *const names[] = {"HOME", "TMPDIR", "XDG_CACHE_HOME"};
    size_t n = 0;
    envp[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    envp[n++] = "LANG=C.UTF-8";
    for (size_t i = 0; i < 3; i++) {
        snprintf(storage[i], sizeof storage[i], "%s=%s", names[i], scratch);
        envp[n++] = storage[i];
    }
    for (size_t i = 0; extra && extra[i]; i++) {
        if (n == PR__MAX_ENV - 1)
            return false;
        envp[n++] = extra[i];
    }
    envp[n] = NULL;
    return true;
}

/* In the child, after fork: only async-signal-safe calls. */
static void pr__child(const pr_spec *spec, const char *const *envp, const char *scratch, int null_fd, int out_fd)
{
    setpgid(0, 0);
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null_fd, 2) < 0)
        _exit(127);
    syscall(SYS_close_range, 3u, ~0u, 0u);
    if (chdir(scratch) != 0)
        _exit(127);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (spec->memory_bytes) {
        struct rlimit as = {(rlim_t)spec->memory_bytes, (rlim_t)spec->memory_bytes};
        setrlimit(RLIMIT_AS, &as);
    }
    /* what the parent ignores or blocks (libuv ignores SIGPIPE) is the
     * default again in the child */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(spec->argv[0], (char *const *)spec->argv, (char *const *)envp);
    _exit(127);
}

static int pr__ms_until(uint64_t deadline_ns)
{
    uint64_t now = sm_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Reads what the pipe holds now.  Returns 1 at its end, 0 when it is empty
 * for the moment, -1 past the cap. */
static int pr__drain(int fd, sm_buf *output)
{
    char chunk[16384];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got == 0)
            return 1;
        if (got < 0)
            return errno == EINTR ? 0 : errno == EAGAIN ? 0 : 1;
        if (sm_buf_append(output, chunk, (size_t)got) != SM_OK)
            return -1;
    }
}

/* Whether the child has ended, reaping it (its status in *status). */
static bool pr__reaped(pid_t pid, int *status)
{
    return waitpid(pid, status, WNOHANG) == pid;
}

/* Waits up to wait_ms for the child to end (its pidfd; without one, an old
 * kernel, 10 ms at most), for bytes on out_fd (-1: not waited for) or for
 * the caller's cancel.  Returns whether the caller canceled. */
static bool pr__wait(const pr_spec *spec, int pidfd, int out_fd, int wait_ms)
{
    struct pollfd fds[3];
    nfds_t n = 0;
    if (spec->cancel_fd >= 0)
        fds[n++] = (struct pollfd){spec->cancel_fd, POLLIN, 0};
    if (pidfd >= 0)
        fds[n++] = (struct pollfd){pidfd, POLLIN, 0};
    else if (wait_ms > PR__POLL_MS)
        wait_ms = PR__POLL_MS;
    if (out_fd >= 0)
        fds[n++] = (struct pollfd){out_fd, POLLIN, 0};
    return poll(fds, n, wait_ms) > 0 && spec->cancel_fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR));
}

/* Follows the child until it has ended and its output is read, or until
 * the deadline or the cap, when the whole group is killed. */
static void pr__follow(const pr_spec *spec, pid_t pid, int out_fd, pr_result *out)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int status = 0;
    bool ended = false, at_end = false;
    out->outcome = PR_EXITED;
    for (;;) {
        int drained = at_end ? 1 : pr__drain(out_fd, &out->output);
        if (drained < 0) {
            out->outcome = PR_TOO_MUCH;
            break;
        }
        at_end = drained == 1;
        if (pr__reaped(pid, &status)) {
            ended = true;
            /* what it started in its group goes with it; a process that left
             * the group may hold the pipe open: what the child wrote is in
             * the pipe already, so what is there is read and no more */
            kill(-pid, SIGKILL);
            if (!at_end && pr__drain(out_fd, &out->output) < 0)
                out->outcome = PR_TOO_MUCH;
            break;
        }
        int wait_ms = pr__ms_until(spec->deadline_ns);
        if (wait_ms == 0) {
            out->outcome = PR_TIMED_OUT;
            break;
        }
        if (pr__wait(spec, pidfd, at_end ? -1 : out_fd, wait_ms)) {
            out->outcome = PR_CANCELED;
            break;
        }
    }
    if (!ended) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    if (pidfd >= 0)
        close(pidfd);
    if (out->outcome == PR_EXITED && WIFSIGNALED(status))
        out->outcome = PR_SIGNALED;
    out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int pr_run(const pr_spec *spec, pr_result *out)
{
    memset(out, 0, sizeof *out);
    if (!spec || !spec->argv || !spec->argv[0] || spec->argv[0][0] != '/' || !spec->deadline_ns)
        return SM_EINVAL;
    if (access(spec->argv[0], X_OK) != 0)
        return SM_EIO;
    char scratch[PATH_MAX];
    if (!pr__scratch_make(scratch, sizeof scratch))
        return SM_EIO;
    const char *envp[PR__MAX_ENV];
    char storage[3][PATH_MAX + 16];
    int rc = SM_EIO;
    int pipe_fds[2] = {-1, -1};
    int null_fd = -1;
    if (!pr__environment(scratch, spec->env, envp, storage)) {
        rc = SM_EINVAL;
        goto fail_env;
    }
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0)
        goto fail_fds;
    pid_t pid = fork();
    if (pid < 0)
        goto fail_fds;
    if (pid == 0)
        pr__child(spec, envp, scratch, null_fd, pipe_fds[1]);
    setpgid(pid, pid);   /* also here: no kill(-pid) may come before the child's own */
    close(pipe_fds[1]);
    pipe_fds[1] = -1;
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
    sm_buf_init(&out->output, spec->max_output);
    pr__follow(spec, pid, pipe_fds[0], out);
    rc = SM_OK;
fail_fds:
    for (int i = 0; i < 2; i++)
        if (pipe_fds[i] >= 0)
            close(pipe_fds[i]);
    if (null_fd >= 0)
        close(null_fd);
fail_env:
    pr__scratch_remove(scratch);
    return rc;
}

void pr_result_free(pr_result *result)
{
    sm_buf_free(&result->output);
}
