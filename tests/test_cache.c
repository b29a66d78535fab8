/* The user's cache folder (cache/): entries written whole, read whole or
 * not at all, and only the newest kept. */
#include "seam_cache.h"
#include "test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


static ca_key key_of(const char *text)
{
    ca_key key;
    ca_key_init(&key);
    ca_key_add_str(&key, text);
    return key;
}

/* The one file of `kind` in dir, its path in out; false when none. */
static bool entry_path(const char *dir, const char *kind, const ca_key *key, char *out, size_t size)
{
    snprintf(out, size, "%s/%s-%016llx%016llx", dir, kind, (unsigned long long)key->a, (unsigned long long)key->b);
    return access(out, F_OK) == 0;
}

static size_t count_entries(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    unsigned long n = 0;
    cr_assert_eq(fscanf(p, "%lu", &n), 1);
    pclose(p);
    return n;
}

Test(cache, keys_tell_their_inputs_apart)
{
    ca_key a = key_of("ab"), b;
    ca_key_init(&b);
    ca_key_add_str(&b, "a");
    ca_key_add_str(&b, "b");
    cr_assert(a.a != b.a || a.b != b.b, "\"ab\" and \"a\",\"b\" differ");
    ca_key c = key_of("ab");
    cr_assert(a.a == c.a && a.b == c.b, "the same input, the same key");

    /* a file's stat(): changed by writing it */
    char dir[64], path[128];
    seam_test_scratch(dir, "cache");
    snprintf(path, sizeof path, "%s/f", dir);
    FILE *f = fopen(path, "w");
    fputs("one", f);
    fclose(f);
    ca_key before;
    ca_key_init(&before);
    cr_assert(ca_key_add_stat(&before, path));
    f = fopen(path, "a");
    fputs(" two", f);
    fclose(f);
    ca_key after;
    ca_key_init(&after);
    cr_assert(ca_key_add_stat(&after, path));
    cr_assert(before.a != after.a || before.b != after.b, "a file written to has another key");
    ca_key missing;
    ca_key_init(&missing);
    cr_assert_not(ca_key_add_stat(&missing, "/nonexistent/seam"));
    seam_test_remove_tree(dir);
}

Test(cache, an_entry_reads_back_as_written)
{
    char dir[64];
    seam_test_scratch(dir, "cache");
    ca_key key = key_of("round trip");
    sm_buf got;
    cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_ENOTFOUND, "nothing written yet");
    sm_buf_free(&got);
    static const char payload[] = "what a run made\0with a NUL";
    cr_assert_eq(ca_put(dir, "model", &key, payload, sizeof payload, 4), SM_OK);
    cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_OK);
    cr_assert_eq(got.len, sizeof payload);
    cr_assert_eq(memcmp(got.data, payload, sizeof payload), 0);
    sm_buf_free(&got);
    /* another key or kind is another entry */
    ca_key other = key_of("another");
    cr_assert_eq(ca_get(dir, "model", &other, 1 << 20, &got), SM_ENOTFOUND);
    sm_buf_free(&got);
    cr_assert_eq(ca_get(dir, "python", &key, 1 << 20, &got), SM_ENOTFOUND);
    sm_buf_free(&got);
    /* past the reader's cap: not read */
    cr_assert_eq(ca_get(dir, "model", &key, 4, &got), SM_ENOTFOUND);
    sm_buf_free(&got);
    cr_assert_eq(ca_put(dir, "Bad/kind", &key, payload, 3, 4), SM_EINVAL, "kinds are [a-z_]");
    seam_test_remove_tree(dir);
}

/* A file damaged in any byte, or cut short, is not trusted: it reads as
 * missing and is removed, so that the caller makes the entry again. */
Test(cache, a_damaged_or_short_entry_is_removed_not_trusted)
{
    char dir[64], path[256];
    seam_test_scratch(dir, "cache");
    ca_key key = key_of("damaged");
    char payload[1000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (char)(i * 7);
    struct stat st;
    for (long at = 0; at < 1032; at += 37) {
        cr_assert_eq(ca_put(dir, "model", &key, payload, sizeof payload, 4), SM_OK);
        cr_assert(entry_path(dir, "model", &key, path, sizeof path));
        int fd = open(path, O_RDWR);
        cr_assert_geq(fd, 0);
        unsigned char byte;
        cr_assert_eq(pread(fd, &byte, 1, at), 1);
        byte ^= 0x40;
        cr_assert_eq(pwrite(fd, &byte, 1, at), 1);
        close(fd);
        sm_buf got;
        cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_ENOTFOUND, "byte %ld changed: not trusted", at);
        sm_buf_free(&got);
        cr_assert_neq(stat(path, &st), 0, "and removed");
    }
    cr_assert_eq(ca_put(dir, "model", &key, payload, sizeof payload, 4), SM_OK);
    cr_assert_eq(truncate(path, 500), 0);
    sm_buf got;
    cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_ENOTFOUND, "cut short");
    sm_buf_free(&got);
    /* not a regular file (a FIFO): not waited on, not read */
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_ENOTFOUND);
    sm_buf_free(&got);
    /* a link is not followed */
    unlink(path);
    char target[128];
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    cr_assert_eq(ca_put(dir, "other", &key, payload, sizeof payload, 4), SM_OK);
    char other[256];
    cr_assert(entry_path(dir, "other", &key, other, sizeof other));
    cr_assert_eq(symlink(other, path), 0);
    cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_ENOTFOUND);
    sm_buf_free(&got);
    seam_test_remove_tree(dir);
}

/* Two processes writing the same entry over and over while a third reads
 * it: every read is one writer's whole payload, or none. */
Test(cache, writers_at_once_leave_whole_entries, .timeout = 60)
{
    char dir[64];
    seam_test_scratch(dir, "cache");
    ca_key key = key_of("contended");
    enum { SIZE = 300000, ROUNDS = 40 };
    pid_t writers[2];
    for (int w = 0; w < 2; w++) {
        writers[w] = fork();
        cr_assert_geq(writers[w], 0);
        if (writers[w] == 0) {
            char *payload = malloc(SIZE);
            memset(payload, 'a' + w, SIZE);
            for (int r = 0; r < ROUNDS; r++)
                if (ca_put(dir, "model", &key, payload, SIZE, 2) != SM_OK)
                    _exit(1);
            free(payload);
            _exit(0);
        }
    }
    int whole = 0;
    for (int r = 0; r < 200; r++) {
        sm_buf got;
        if (ca_get(dir, "model", &key, 1 << 20, &got) == SM_OK) {
            cr_assert_eq(got.len, (size_t)SIZE);
            char first = got.data[0];
            cr_assert(first == 'a' || first == 'b');
            for (size_t i = 0; i < got.len; i++)
                cr_assert_eq(got.data[i], first, "one writer's bytes only");
            whole++;
        }
        sm_buf_free(&got);
    }
    for (int w = 0; w < 2; w++) {
        int status;
        cr_assert_eq(waitpid(writers[w], &status, 0), writers[w]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "every write succeeded");
    }
    sm_buf got;
    cr_assert_eq(ca_get(dir, "model", &key, 1 << 20, &got), SM_OK, "a whole entry is left (%d read whole)", whole);
    sm_buf_free(&got);
    cr_assert_eq(count_entries(dir), 1, "no temporary file left behind");
    seam_test_remove_tree(dir);
}

Test(cache, only_the_newest_entries_of_a_kind_are_kept)
{
    char dir[64];
    seam_test_scratch(dir, "cache");
    ca_key keys[5];
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        keys[i] = key_of(name);
        cr_assert_eq(ca_put(dir, "model", &keys[i], name, strlen(name), 3), SM_OK);
        usleep(20000);   /* modification times apart */
    }
    ca_key python = key_of("python");
    cr_assert_eq(ca_put(dir, "python", &python, "x", 1, 3), SM_OK);
    cr_assert_eq(count_entries(dir), 4, "three models and the other kind's entry");
    char path[256];
    cr_assert_not(entry_path(dir, "model", &keys[0], path, sizeof path));
    cr_assert_not(entry_path(dir, "model", &keys[1], path, sizeof path));
    for (int i = 2; i < 5; i++)
        cr_assert(entry_path(dir, "model", &keys[i], path, sizeof path));
    /* a read makes an entry new again: it outlives one written before */
    sm_buf got;
    cr_assert_eq(ca_get(dir, "model", &keys[2], 1 << 20, &got), SM_OK);
    sm_buf_free(&got);
    usleep(20000);
    ca_key late = key_of("late");
    cr_assert_eq(ca_put(dir, "model", &late, "l", 1, 3), SM_OK);
    cr_assert(entry_path(dir, "model", &keys[2], path, sizeof path), "read lately: kept");
    cr_assert_not(entry_path(dir, "model", &keys[3], path, sizeof path), "the least recently used went");
    seam_test_remove_tree(dir);
}

Test(cache, the_folder_comes_from_the_environment)
{
    char dir[64], out[4096], want[160];
    seam_test_scratch(dir, "cache");
    snprintf(want, sizeof want, "%s/own/cache", dir);
    setenv("SEAM_CACHE_DIR", want, 1);
    cr_assert_eq(ca_dir(out, sizeof out), SM_OK);
    cr_assert_str_eq(out, want);
    struct stat st;
    cr_assert(stat(want, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700, "made, the user's only");
    unsetenv("SEAM_CACHE_DIR");
    snprintf(want, sizeof want, "%s/xdg", dir);
    setenv("XDG_CACHE_HOME", want, 1);
    cr_assert_eq(ca_dir(out, sizeof out), SM_OK);
    snprintf(want, sizeof want, "%s/xdg/seam/runs", dir);
    cr_assert_str_eq(out, want);
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", dir, 1);
    cr_assert_eq(ca_dir(out, sizeof out), SM_OK);
    snprintf(want, sizeof want, "%s/.cache/seam/runs", dir);
    cr_assert_str_eq(out, want, "a relative XDG_CACHE_HOME is not used");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "", 1);
    cr_assert_eq(ca_dir(out, sizeof out), SM_ENOTFOUND);
    seam_test_remove_tree(dir);
}
