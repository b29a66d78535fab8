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

/* Declares a Criterion suite (kept as the one place to add suite options). */
#define SEAM_SUITE(name) TestSuite(name)

#endif
