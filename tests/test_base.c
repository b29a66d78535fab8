#include "seam_base.h"
#include "test_support.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

SEAM_SUITE(base);

Test(base, array_grows_and_keeps_order)
{
    SM_ARRAY(int) numbers;
    sm_array_init(&numbers);
    for (int i = 0; i < 1000; i++)
        sm_array_push(&numbers, i * 3);
    cr_assert_eq(numbers.size, 1000);
    cr_assert_geq(numbers.capacity, 1000);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(numbers.items[i], i * 3);
    cr_assert_eq(sm_array_pop(&numbers), 999 * 3);
    cr_assert_eq(*sm_array_back(&numbers), 998 * 3);
    sm_array_free(&numbers);
    cr_assert_null(numbers.items);
    cr_assert_eq(numbers.size, 0);
}

Test(base, buffer_refuses_to_pass_its_cap)
{
    sm_buf buf;
    sm_buf_init(&buf, 10);
    cr_assert_eq(sm_buf_append_str(&buf, "hello"), SM_OK);
    cr_assert_eq(sm_buf_append_str(&buf, "world"), SM_OK);
    cr_assert_eq(sm_buf_append_str(&buf, "!"), SM_ETOOBIG);
    cr_assert_eq(buf.len, 10);
    cr_assert_str_eq(buf.data, "helloworld");
    sm_buf_consume(&buf, 5);
    cr_assert_str_eq(buf.data, "world");
    cr_assert_eq(sm_buf_printf(&buf, "%d", 42), SM_OK);
    cr_assert_str_eq(buf.data, "world42");
    cr_assert_eq(sm_buf_printf(&buf, "%s", "long tail"), SM_ETOOBIG);
    cr_assert_str_eq(buf.data, "world42");
    size_t len;
    char *taken = sm_buf_take(&buf, &len);
    cr_assert_eq(len, 7);
    cr_assert_str_eq(taken, "world42");
    cr_assert_null(buf.data);
    sm_free(taken);
    sm_buf_free(&buf);
}

Test(base, read_file_is_capped)
{
    char path[] = "/tmp/seam-base-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "0123456789", 10), 10);
    close(fd);
    sm_buf out;
    cr_assert_eq(sm_read_file(path, 10, &out), SM_OK);
    cr_assert_eq(out.len, 10);
    cr_assert_str_eq(out.data, "0123456789");
    sm_buf_free(&out);
    cr_assert_eq(sm_read_file(path, 9, &out), SM_ETOOBIG);
    cr_assert_null(out.data);
    unlink(path);
    cr_assert_eq(sm_read_file(path, 10, &out), SM_EIO);
    cr_assert_eq(out.len, 0);
}

Test(base, buffer_reports_allocation_failure)
{
    sm_buf buf;
    sm_buf_init(&buf, 1 << 20);
    sm_alloc_fail_after(0);
    int rc = sm_buf_append_str(&buf, "text");
    sm_alloc_fail_after(-1);
    cr_assert_eq(rc, SM_ENOMEM);
    cr_assert_eq(buf.len, 0);
    cr_assert_eq(sm_buf_append_str(&buf, "text"), SM_OK);
    sm_buf_free(&buf);
}

Test(base, aborting_allocator_aborts_when_memory_runs_out, .signal = SIGABRT)
{
    sm_alloc_fail_after(0);
    void *never = sm_malloc(16);
    sm_free(never);
}

Test(base, utf8_decodes_every_width)
{
    const char *text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    const uint8_t *bytes = (const uint8_t *)text;
    uint32_t cp;
    cr_assert_eq(sm_utf8_decode(bytes, 1, &cp), 1);
    cr_assert_eq(cp, 'a');
    cr_assert_eq(sm_utf8_decode(bytes + 1, 2, &cp), 2);
    cr_assert_eq(cp, 0xE9);
    cr_assert_eq(sm_utf8_decode(bytes + 3, 3, &cp), 3);
    cr_assert_eq(cp, 0x20AC);
    cr_assert_eq(sm_utf8_decode(bytes + 6, 4, &cp), 4);
    cr_assert_eq(cp, 0x1F600);
    /* truncated: the decoder must not read past len */
    cr_assert_eq(sm_utf8_decode(bytes + 6, 3, &cp), SM_EUTF8);
    cr_assert_eq(sm_utf8_decode(bytes, 0, &cp), SM_EINVAL);
}

Test(base, utf8_rejects_malformed_sequences)
{
    static const char *const bad[] = {
        "\x80", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80",
        "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xc3\x28", "\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint32_t cp;
        cr_assert_eq(sm_utf8_decode((const uint8_t *)bad[i], strlen(bad[i]), &cp), SM_EUTF8,
                     "sequence %zu was accepted", i);
    }
    size_t at = 99;
    cr_assert(sm_utf8_valid((const uint8_t *)"ok \xc3\xa9", 5, false, NULL));
    cr_assert_not(sm_utf8_valid((const uint8_t *)"ok\xc3", 3, false, &at));
    cr_assert_eq(at, 2);
    cr_assert_not(sm_utf8_valid((const uint8_t *)"a\0b", 3, false, &at));
    cr_assert_eq(at, 1);
    cr_assert(sm_utf8_valid((const uint8_t *)"a\0b", 3, true, NULL));
}

Test(base, utf8_scrub_leaves_only_valid_utf8)
{
    char text[] = "ok \xC3\xA9 \xFF\xFE cut \xE2\x82 end \xF0\x9F\x98\x80";
    cr_assert_eq(sm_utf8_scrub(text), 4);
    cr_assert_str_eq(text, "ok \xC3\xA9 ?? cut ?? end \xF0\x9F\x98\x80");
    cr_assert(sm_utf8_valid((const uint8_t *)text, strlen(text), false, NULL));
    char clean[] = "plain";
    cr_assert_eq(sm_utf8_scrub(clean), 0);
    cr_assert_str_eq(clean, "plain");
}

Test(base, utf8_encode_round_trips)
{
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp += 97) {
        uint8_t out[4];
        int len = sm_utf8_encode(cp, out);
        if (cp >= 0xD800 && cp <= 0xDFFF) {
            cr_assert_eq(len, 0);
            continue;
        }
        uint32_t back;
        cr_assert_eq(sm_utf8_decode(out, (size_t)len, &back), len);
        cr_assert_eq(back, cp);
    }
}

Test(base, utf8_boundary_never_splits_a_sequence)
{
    const uint8_t *text = (const uint8_t *)"ab\xe2\x82\xac" "c\xf0\x9f\x98\x80";
    cr_assert_eq(sm_utf8_boundary_before(text, 2), 2);
    cr_assert_eq(sm_utf8_boundary_before(text, 3), 2);
    cr_assert_eq(sm_utf8_boundary_before(text, 4), 2);
    cr_assert_eq(sm_utf8_boundary_before(text, 5), 5);
    cr_assert_eq(sm_utf8_boundary_before(text, 6), 6);
    cr_assert_eq(sm_utf8_boundary_before(text, 8), 6);
    cr_assert_eq(sm_utf8_boundary_before(text, 10), 10);
    cr_assert_eq(sm_utf8_boundary_before(text, 0), 0);
}

Test(base, logger_filters_by_level_and_writes_to_file)
{
    char path[] = "/tmp/seam-log-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    sm_logger log;
    sm_logger_init(&log, SM_LOG_WARN);
    log.to_stderr = false;
    cr_assert_eq(sm_logger_open_file(&log, path), SM_OK);
    sm_log(&log, SM_LOG_INFO, "hidden %d", 1);
    sm_log(&log, SM_LOG_ERROR, "shown %d", 2);
    sm_logger_close(&log);
    FILE *file = fopen(path, "r");
    char line[256] = {0};
    cr_assert_not_null(fgets(line, sizeof line, file));
    cr_assert_not_null(strstr(line, "seam error: shown 2"), "got %s", line);
    cr_assert_null(fgets(line, sizeof line, file), "the info line should have been filtered");
    fclose(file);
    unlink(path);
    sm_log_level level;
    cr_assert_eq(sm_log_level_parse("debug", &level), SM_OK);
    cr_assert_eq(level, SM_LOG_DEBUG);
    cr_assert_eq(sm_log_level_parse("loud", &level), SM_EINVAL);
}

Test(base, a_reader_reads_what_the_appends_wrote_and_stops_at_the_end)
{
    sm_buf out;
    sm_buf_init(&out, 64);
    cr_assert_eq(sm_buf_append_u32(&out, 0x01020304u), SM_OK);
    cr_assert_eq(sm_buf_append_u64(&out, 0x1122334455667788ull), SM_OK);
    cr_assert_eq(sm_buf_append(&out, "ab", 2), SM_OK);
    sm_reader r;
    sm_reader_init(&r, out.data, out.len);
    cr_assert_eq(sm_read_u32(&r), 0x01020304u);
    cr_assert_eq(sm_read_u64(&r), 0x1122334455667788ull);
    const char *ab = sm_read_bytes(&r, 2);
    cr_assert(r.ok && ab && memcmp(ab, "ab", 2) == 0);
    cr_assert_eq(r.at, r.end);
    /* past the end: NULL or zeros, and ok stays false */
    cr_assert_eq(sm_read_u32(&r), 0u);
    cr_assert_not(r.ok);
    sm_reader_init(&r, out.data, out.len);
    cr_assert_null(sm_read_bytes(&r, out.len + 1));
    cr_assert_eq(sm_read_u32(&r), 0u, "after a failed read, nothing more is read");
    cr_assert_not(r.ok);
    sm_read_into(&r, NULL, 0);
    sm_buf_free(&out);
}
