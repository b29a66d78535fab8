#include "seam_proc.h"
#include "test_support.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

SEAM_SUITE(proc);

/* Runs argv with `seconds` to go and at most `cap` bytes of output. */
static int run(const char *const *argv, double seconds, size_t cap, pr_result *out)
{
    pr_spec spec = {argv, NULL, sm_now_ns() + (uint64_t)(seconds * 1e9), cap, 0, -1};
    return pr_run(&spec, out);
}

/* Whether process `pid` is gone (or a zombie no one waits for), within about
 * two seconds. */
static bool gone(long pid)
{
    for (int i = 0; i < 200; i++) {
        char path[64], state = 0;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return true;
        int fields = fscanf(f, "%*d %*s %c", &state);
        fclose(f);
        if (fields == 1 && state == 'Z')
            return true;
        usleep(10000);
    }
    return false;
}

Test(proc, arguments_reach_the_program_as_they_are)
{
    char marker[] = "/tmp/seam-proc-marker-XXXXXX";
    cr_assert_not_null(mkdtemp(marker));
    char argument[256];
    snprintf(argument, sizeof argument, "x$(touch %s/MARK)'\"`touch %s/MARK2`", marker, marker);
    const char *argv[] = {"/bin/echo", argument, NULL};
    pr_result r;
    cr_assert_eq(run(argv, 10, 4096, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_EXITED);
    cr_assert_eq(r.exit_code, 0);
    char expected[300];
    snprintf(expected, sizeof expected, "%s\n", argument);
    cr_assert_eq(r.output.len, strlen(expected));
    cr_assert_eq(memcmp(r.output.data, expected, r.output.len), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/MARK", marker);
    cr_assert_neq(access(path, F_OK), 0, "a shell ran the argument");
    snprintf(path, sizeof path, "%s/MARK2", marker);
    cr_assert_neq(access(path, F_OK), 0, "a shell ran the argument");
    rmdir(marker);
    pr_result_free(&r);
}

Test(proc, exit_status_is_told)
{
    const char *argv[] = {"/bin/sh", "-c", "printf out; exit 3", NULL};
    pr_result r;
    cr_assert_eq(run(argv, 10, 4096, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_EXITED);
    cr_assert_eq(r.exit_code, 3);
    cr_assert_eq(r.output.len, 3);
    pr_result_free(&r);
}

Test(proc, the_deadline_kills_the_whole_group)
{
    /* the child's own child prints its pid, then both sleep */
    const char *argv[] = {"/bin/sh", "-c", "sleep 60 & echo $!; wait", NULL};
    pr_result r;
    uint64_t start = sm_now_ns();
    cr_assert_eq(run(argv, 0.5, 4096, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_TIMED_OUT);
    cr_assert_lt(sm_now_ns() - start, 20ull * 1000000000u, "the run outlived its deadline");
    cr_assert_not_null(r.output.data);
    long grandchild = strtol(r.output.data, NULL, 10);
    cr_assert_gt(grandchild, 0);
    cr_assert(gone(grandchild), "a process of the child's group survived it");
    pr_result_free(&r);
}

Test(proc, a_detached_process_holding_the_pipe_does_not_hold_the_caller)
{
    /* setsid leaves the group and keeps standard output open */
    const char *argv[] = {"/bin/sh", "-c", "setsid sleep 60 & echo $!; echo done", NULL};
    pr_result r;
    uint64_t start = sm_now_ns();
    cr_assert_eq(run(argv, 30, 4096, &r), SM_OK);
    uint64_t took = sm_now_ns() - start;
    cr_assert_eq(r.outcome, PR_EXITED);
    cr_assert_eq(r.exit_code, 0);
    cr_assert_not_null(r.output.data);
    long detached = strtol(r.output.data, NULL, 10);
    cr_assert_not_null(strstr(r.output.data, "\ndone\n"));
    if (detached > 0)
        kill((pid_t)detached, SIGKILL);
    cr_assert_lt(took, 20ull * 1000000000u, "the caller waited for the detached process");
    pr_result_free(&r);
}

Test(proc, output_past_the_cap_ends_the_child)
{
    const char *argv[] = {"/usr/bin/yes", NULL};
    pr_result r;
    cr_assert_eq(run(argv, 30, 65536, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_TOO_MUCH);
    cr_assert_leq(r.output.len, 65536);
    pr_result_free(&r);
}

Test(proc, the_child_works_in_a_scratch_folder_removed_after)
{
    const char *argv[] = {"/bin/sh", "-c",
                          "pwd; echo \"$HOME\"; echo \"$TMPDIR\"; echo \"${DISPLAY-none}\"; "
                          "mkdir d; touch d/f; ln -s / root; chmod 0 d",
                          NULL};
    setenv("DISPLAY", ":0", 1);
    pr_result r;
    cr_assert_eq(run(argv, 10, 4096, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_EXITED);
    cr_assert_not_null(r.output.data);
    char pwd[512], home[512], tmp[512], display[64];
    cr_assert_eq(sscanf(r.output.data, "%511s %511s %511s %63s", pwd, home, tmp, display), 4);
    cr_assert_str_eq(home, pwd);
    cr_assert_str_eq(tmp, pwd);
    cr_assert_str_eq(display, "none");
    cr_assert_not_null(strstr(pwd, "seam-child-"));
    struct stat st;
    cr_assert_neq(stat(pwd, &st), 0, "the scratch folder %s is still there", pwd);
    cr_assert_eq(stat("/bin/sh", &st), 0, "removing the folder followed its link");
    pr_result_free(&r);
}

Test(proc, memory_is_limited)
{
    const char *argv[] = {"/usr/bin/python3", "-S", "-c", "x = bytearray(1 << 30); print('got')", NULL};
    pr_spec spec = {argv, NULL, sm_now_ns() + 30ull * 1000000000u, 4096, 256u << 20, -1};
    pr_result r;
    cr_assert_eq(pr_run(&spec, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_EXITED);
    cr_assert_neq(r.exit_code, 0);
    cr_assert(!r.output.data || !strstr(r.output.data, "got"));
    pr_result_free(&r);
}

Test(proc, a_bad_spec_is_refused)
{
    pr_result r;
    const char *relative[] = {"sh", "-c", "true", NULL};
    cr_assert_eq(run(relative, 10, 4096, &r), SM_EINVAL);
    const char *missing[] = {"/nonexistent/seam-program", NULL};
    cr_assert_eq(run(missing, 10, 4096, &r), SM_EIO);
    pr_spec no_deadline = {(const char *const[]){"/bin/true", NULL}, NULL, 0, 4096, 0, -1};
    cr_assert_eq(pr_run(&no_deadline, &r), SM_EINVAL);
}

Test(proc, a_cancel_ends_the_child_at_once)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    cr_assert_eq(write(fds[1], "x", 1), 1);
    const char *argv[] = {"/bin/sleep", "60", NULL};
    pr_spec spec = {argv, NULL, sm_now_ns() + 60ull * 1000000000u, 4096, 0, fds[0]};
    pr_result r;
    uint64_t start = sm_now_ns();
    cr_assert_eq(pr_run(&spec, &r), SM_OK);
    cr_assert_eq(r.outcome, PR_CANCELED);
    cr_assert_lt(sm_now_ns() - start, 20ull * 1000000000u);
    pr_result_free(&r);
    close(fds[0]);
    close(fds[1]);
}
