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
