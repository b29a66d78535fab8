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
#include <string.h>

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

/* Declares a Criterion suite (kept as the one place to add suite options). */
#define SEAM_SUITE(name) TestSuite(name)

#endif
