/*
 * test_support.h - shared by every seam test executable.
 *
 * Include it instead of <criterion/criterion.h>.  It wraps Criterion's Test
 * macro so that, under LeakSanitizer, each test ends with a leak check in its
 * own process: a leak fails the test.  (Criterion ignores assertions made in
 * a fini hook, so the check has to run inside the test body.)
 */
#ifndef SEAM_TEST_SUPPORT_H
#define SEAM_TEST_SUPPORT_H

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "seam_base.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
static inline void seam_test_check_leaks(void)
{
    cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "the test leaked memory (see the report above)");
}
#else
static inline void seam_test_check_leaks(void)
{
}
#endif

#undef Test
#define Test(Category, ...) SEAM__TEST(Category, __VA_ARGS__, .sentinel_ = 0)
#define SEAM__TEST(Category, Name, ...)                                  \
    static void seam__body_##Category##_##Name(void);                    \
    CR_EXPAND(CR_TEST_BASE(Category, Name, __VA_ARGS__))                 \
    {                                                                    \
        seam__body_##Category##_##Name();                                \
        seam_test_check_leaks();                                         \
    }                                                                    \
    static void seam__body_##Category##_##Name(void)

/* "x = " and `depth` open brackets, NUL-terminated (free with sm_free);
 * its length in *len.  Deeper than tree-sitter is given. */
static inline char *seam_test_open_brackets(size_t depth, size_t *len)
{
    char *text = (char *)sm_malloc(depth + 5);
    memcpy(text, "x = ", 4);
    memset(text + 4, '(', depth);
    text[4 + depth] = '\0';
    *len = depth + 4;
    return text;
}

/* A fresh folder under /tmp named after `what` (the test's module),
 * written into dir (64 bytes); remove it with seam_test_remove_tree. */
static inline void seam_test_scratch(char dir[64], const char *what)
{
    snprintf(dir, 64, "/tmp/seam-%.20s-XXXXXX", what);
    cr_assert_not_null(mkdtemp(dir));
}

static inline int seam__remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

/* Removes a folder with everything in it (links not followed). */
static inline void seam_test_remove_tree(const char *dir)
{
    nftw(dir, seam__remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Declares a Criterion suite (kept as the one place to add suite options). */
#define SEAM_SUITE(name) TestSuite(name)

#endif
