/*
 * fuzz_split.h - how the fuzz targets read one input as a left context, a
 * middle and a right context: the first two bytes choose the two cut
 * points, as fractions of the rest.
 */
#ifndef FUZZ_SPLIT_H
#define FUZZ_SPLIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_split {
    const char *left, *middle, *right;
    size_t left_len, middle_len, right_len;
    uint8_t step;   /* a piece size for feeding in pieces, 1..16 */
} fuzz_split;

/* False when the input is too short to split. */
static inline int fuzz_split_input(const uint8_t *data, size_t size, fuzz_split *out)
{
    if (size < 3)
        return 0;
    size_t rest = size - 3;
    size_t a = rest * data[0] / 256, b = rest * data[1] / 256;
    if (a > b) {
        size_t t = a;
        a = b;
        b = t;
    }
    const char *text = (const char *)data + 3;
    out->step = (uint8_t)(data[2] % 16 + 1);
    out->left = text;
    out->left_len = a;
    out->middle = text + a;
    out->middle_len = b - a;
    out->right = text + b;
    out->right_len = rest - b;
    return 1;
}

#endif
