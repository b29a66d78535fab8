#include "seam_protocol.h"
#include "test_support.h"

#include <string.h>

SEAM_SUITE(protocol);

/* "a😀b\n€x\r\ny" : the emoji is one code point, two UTF-16 units, four bytes. */
static const char text[] = "a\xf0\x9f\x98\x80" "b\n\xe2\x82\xacx\r\ny";

Test(protocol, utf16_positions_count_surrogate_pairs_as_two)
{
    size_t len = strlen(text), offset;
    lsp_position pos = {0, 3};
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF16, &offset), SM_OK);
    cr_assert_eq(offset, 5); /* after the emoji */
    pos.character = 2;       /* between the two halves of the pair */
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF16, &offset), SM_ERANGE);
    pos = (lsp_position){1, 1};
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF16, &offset), SM_OK);
    cr_assert_eq(offset, 10);
    pos = (lsp_position){2, 0};
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF16, &offset), SM_OK);
    cr_assert_eq(offset, 13);
}

Test(protocol, utf8_positions_count_bytes)
{
    size_t len = strlen(text), offset;
    lsp_position pos = {0, 5};
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF8, &offset), SM_OK);
    cr_assert_eq(offset, 5);
    pos.character = 3;
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF8, &offset), SM_ERANGE);
}

Test(protocol, positions_past_the_end)
{
    size_t len = strlen(text), offset;
    lsp_position pos = {0, 99}; /* past the line's end: clamps */
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF16, &offset), SM_OK);
    cr_assert_eq(offset, 6);
    pos = (lsp_position){7, 0};
    cr_assert_eq(lsp_position_to_offset(text, len, pos, LSP_ENCODING_UTF16, &offset), SM_ERANGE);
}

Test(protocol, offsets_round_trip_to_positions)
{
    size_t len = strlen(text);
    static const size_t offsets[] = {0, 1, 5, 6, 7, 10, 11, 13, 14};
    for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++) {
        for (int enc = 0; enc < 2; enc++) {
            lsp_position pos;
            size_t back;
            cr_assert_eq(lsp_offset_to_position(text, len, offsets[i], (lsp_encoding)enc, &pos), SM_OK,
                         "offset %zu", offsets[i]);
            cr_assert_eq(lsp_position_to_offset(text, len, pos, (lsp_encoding)enc, &back), SM_OK);
            cr_assert_eq(back, offsets[i]);
        }
    }
    lsp_position pos;
    cr_assert_eq(lsp_offset_to_position(text, len, 3, LSP_ENCODING_UTF16, &pos), SM_ERANGE);
    cr_assert_eq(lsp_offset_to_position(text, len, 12, LSP_ENCODING_UTF16, &pos), SM_ERANGE);
    cr_assert_eq(lsp_offset_to_position(text, len, len + 1, LSP_ENCODING_UTF16, &pos), SM_ERANGE);
}

Test(protocol, invalid_utf8_is_an_error)
{
    const char bad[] = "ab\xc3(";
    size_t offset;
    lsp_position pos = {0, 4};
    cr_assert_eq(lsp_position_to_offset(bad, 4, pos, LSP_ENCODING_UTF16, &offset), SM_EUTF8);
}

/* ---- Framing -------------------------------------------------------------------- */

typedef struct frames {
    char got[16][128];
    int count;
    int bad_headers;
    int too_big;
    size_t big_length;
} frames;

static void on_message(void *data, const char *body, size_t len)
{
    frames *f = data;
    cr_assert_lt(f->count, 16);
    cr_assert_lt(len, 128);
    memcpy(f->got[f->count], body, len);
    f->got[f->count][len] = '\0';
    f->count++;
}

static void on_error(void *data, lsp_frame_error error, size_t length)
{
    frames *f = data;
    if (error == LSP_FRAME_TOO_BIG) {
        f->too_big++;
        f->big_length = length;
    } else {
        f->bad_headers++;
    }
}

static const lsp_framer_callbacks callbacks = {on_message, on_error};

/* Feeds `stream` in pieces of `step` bytes (0: all at once). */
static frames frame_all(const char *stream, size_t len, size_t step, size_t max_body)
{
    frames f = {0};
    lsp_framer framer;
    lsp_framer_init(&framer, max_body);
    if (!step)
        step = len;
    for (size_t i = 0; i < len; i += step)
        lsp_framer_feed(&framer, stream + i, len - i < step ? len - i : step, &callbacks, &f);
    lsp_framer_free(&framer);
    return f;
}

Test(protocol, framing_does_not_depend_on_how_bytes_arrive)
{
    const char stream[] = "Content-Length: 2\r\n\r\n{}"
                          "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 7\r\n\r\n[1,2,3]"
                          "content-length:3\n\n\"a\"";
    for (size_t step = 0; step <= 7; step++) {
        frames f = frame_all(stream, sizeof stream - 1, step, 1024);
        cr_assert_eq(f.count, 3, "step %zu: %d messages", step, f.count);
        cr_assert_str_eq(f.got[0], "{}");
        cr_assert_str_eq(f.got[1], "[1,2,3]");
        cr_assert_str_eq(f.got[2], "\"a\"");
        cr_assert_eq(f.bad_headers, 0);
    }
}

Test(protocol, framing_resynchronises_after_junk)
{
    const char stream[] = "Content-Lenght: 5\r\n\r\n"       /* misspelt: dropped */
                          "junk without a colon\r\n"        /* not a header */
                          "Content-Length: 3\r\n\r\n{}}tail-of-a-lie"
                          "Content-Length: 2\r\n\r\nok";
    for (size_t step = 0; step <= 5; step++) {
        frames f = frame_all(stream, sizeof stream - 1, step, 1024);
        cr_assert_eq(f.count, 2, "step %zu: %d messages", step, f.count);
        cr_assert_str_eq(f.got[0], "{}}");
        cr_assert_str_eq(f.got[1], "ok");
        cr_assert_geq(f.bad_headers, 2);
    }
}

Test(protocol, oversized_bodies_are_skipped_without_buffering)
{
    char stream[400];
    int n = snprintf(stream, sizeof stream, "Content-Length: 300\r\n\r\n");
    memset(stream + n, 'x', 300);
    n += 300;
    n += snprintf(stream + n, sizeof stream - (size_t)n, "Content-Length: 2\r\n\r\nok");
    frames f = frame_all(stream, (size_t)n, 7, 100);
    cr_assert_eq(f.too_big, 1);
    cr_assert_eq(f.big_length, 300);
    cr_assert_eq(f.count, 1);
    cr_assert_str_eq(f.got[0], "ok");
    /* Framing output round-trips. */
    sm_buf out;
    sm_buf_init(&out, 1024);
    cr_assert_eq(lsp_frame(&out, "{\"a\":1}", 7), SM_OK);
    frames g = frame_all(out.data, out.len, 1, 100);
    cr_assert_eq(g.count, 1);
    cr_assert_str_eq(g.got[0], "{\"a\":1}");
    sm_buf_free(&out);
}

Test(protocol, a_header_line_longer_than_the_cap_is_dropped_whatever_the_reads)
{
    /* One line of 20,000 bytes, then a message; and a one-line JSON body
     * sent without its header. */
    size_t junk = 20000;
    char *stream = sm_malloc(junk + 64);
    memset(stream, 'h', junk);
    stream[junk - 1] = '\n';
    size_t n = junk + (size_t)snprintf(stream + junk, 64, "Content-Length: 2\r\n\r\nok");
    for (size_t step = 0; step <= 9000; step += 3000) {
        frames f = frame_all(stream, n, step, 1024);
        cr_assert_eq(f.count, 1, "step %zu: %d messages", step, f.count);
        cr_assert_str_eq(f.got[0], "ok");
        cr_assert_geq(f.bad_headers, 1);
    }
    /* A header that is itself longer than the cap is junk too. */
    memcpy(stream, "Content-Length: 2", 17);
    memset(stream + 17, ' ', junk - 17);
    stream[junk - 1] = '\n';
    n = junk + (size_t)snprintf(stream + junk, 64, "Content-Length: 2\r\n\r\nok");
    for (size_t step = 0; step <= 9000; step += 3000) {
        frames f = frame_all(stream, n, step, 1024);
        cr_assert_eq(f.count, 1, "step %zu: %d messages", step, f.count);
        cr_assert_str_eq(f.got[0], "ok");
    }
    memset(stream, '{', junk);   /* no line break at all before the header */
    n = junk + (size_t)snprintf(stream + junk, 64, "Content-Length: 2\r\n\r\nok");
    frames f = frame_all(stream, n, 0, 1024);
    cr_assert_eq(f.count, 1);
    cr_assert_str_eq(f.got[0], "ok");
    sm_free(stream);
}

Test(protocol, a_length_that_lies_does_not_swallow_the_messages_after_it)
{
    const char stream[] = "Content-Length: 100000000000\r\n\r\n{\"jsonrpc\":\"2.0\"}"
                          "Content-Length: 2\r\n\r\nok"
                          "Content-Length: 4\r\n\r\ntwo!";
    for (size_t step = 0; step <= 7; step++) {
        frames f = frame_all(stream, sizeof stream - 1, step, 1024);
        cr_assert_eq(f.too_big, 1);
        cr_assert_eq(f.count, 2, "step %zu: %d messages", step, f.count);
        cr_assert_str_eq(f.got[0], "ok");
        cr_assert_str_eq(f.got[1], "two!");
    }
}

Test(protocol, lone_surrogate_escapes_become_the_replacement_character)
{
    char json[] = "{\"a\": \"x\\ud800y\", \"b\": \"\\ud83d\\ude00\", \"c\": \"\\\\udc00\", \"d\": \"\\uDC00\"}";
    cr_assert_eq(lsp_json_repair_surrogates(json, strlen(json)), 2);
    cr_assert_str_eq(json, "{\"a\": \"x\\ufffdy\", \"b\": \"\\ud83d\\ude00\", \"c\": \"\\\\udc00\", \"d\": \"\\ufffd\"}");
    char tail[] = "\"\\ud800";   /* cut short: still repaired, nothing read past the end */
    cr_assert_eq(lsp_json_repair_surrogates(tail, strlen(tail)), 1);
    cr_assert(lsp_json_has_nul("\"a\\u0000b\"", 10));
    cr_assert_not(lsp_json_has_nul("\"a\\\\u0000b\"", 11));
    cr_assert_not(lsp_json_has_nul("\"a\\u0001b\"", 10));
}

/* ---- Documents ------------------------------------------------------------------- */

Test(protocol, documents_apply_range_and_full_changes)
{
    lsp_document *doc;
    const char *doc_text = "a = '\xf0\x9f\x98\x80'\nb = 1\n";
    cr_assert_eq(lsp_document_new("file:///x.py", "python", 1, doc_text, strlen(doc_text), 1 << 20, &doc), SM_OK);
    /* After the emoji: UTF-16 character 7 (the emoji counts 2). */
    lsp_position at = {0, 7};
    cr_assert_eq(lsp_document_edit(doc, at, at, LSP_ENCODING_UTF16, "!", 1), SM_OK);
    cr_assert_str_eq(doc->text.data, "a = '\xf0\x9f\x98\x80!'\nb = 1\n");
    /* Replace "1" on line 1 (UTF-8 bytes). */
    lsp_position s = {1, 4}, e = {1, 5};
    cr_assert_eq(lsp_document_edit(doc, s, e, LSP_ENCODING_UTF8, "22", 2), SM_OK);
    cr_assert_str_eq(doc->text.data, "a = '\xf0\x9f\x98\x80!'\nb = 22\n");
    /* Errors leave the text as it was. */
    lsp_position far = {9, 0};
    cr_assert_eq(lsp_document_edit(doc, far, far, LSP_ENCODING_UTF8, "x", 1), SM_ERANGE);
    cr_assert_eq(lsp_document_edit(doc, e, s, LSP_ENCODING_UTF8, "x", 1), SM_ERANGE);
    lsp_position half = {0, 6};
    cr_assert_eq(lsp_document_edit(doc, half, half, LSP_ENCODING_UTF16, "x", 1), SM_ERANGE);
    cr_assert_eq(lsp_document_edit(doc, s, s, LSP_ENCODING_UTF8, "\xff", 1), SM_EUTF8);
    cr_assert_str_eq(doc->text.data, "a = '\xf0\x9f\x98\x80!'\nb = 22\n");
    cr_assert_eq(lsp_document_replace(doc, "", 0), SM_OK);
    cr_assert_eq(doc->text.len, 0);
    cr_assert_eq(lsp_document_edit(doc, (lsp_position){0, 0}, (lsp_position){0, 0}, LSP_ENCODING_UTF8, "x", 1), SM_OK);
    cr_assert_str_eq(doc->text.data, "x");
    lsp_document_free(doc);
    cr_assert_eq(lsp_document_new("u", NULL, 0, "\xc3", 1, 10, &doc), SM_EUTF8);
    cr_assert_eq(lsp_document_new("u", NULL, 0, "abc", 3, 2, &doc), SM_ETOOBIG);
}
