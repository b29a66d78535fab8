/*
 * fuzz_semantic.c - libFuzzer target for the semantic pruners.  The input
 * is a left context, a middle and a right context (fuzz_split.h): the
 * document is left + right with the cursor between, and the middle is
 * checked as a decoder offers it, a prefix at a time with restores (a
 * shorter prefix after a longer one), then whole and at its end.  Whatever
 * the bytes: no crash, no leak, no sanitizer report, and the verdict on a
 * middle does not depend on what was checked before it.
 */
#include "fuzz_split.h"
#include "seam_semantic.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_split s;
    if (!fuzz_split_input(data, size, &s))
        return 0;
    size_t len = s.left_len + s.right_len;
    char *text = malloc(len + 1);
    memcpy(text, s.left, s.left_len);
    memcpy(text + s.left_len, s.right, s.right_len);
    text[len] = '\0';
    sx_env *env = sx_env_new(NULL, NULL, NULL);
    unsigned pruners = (1u << SX_NAMES) | (1u << SX_ATTRIBUTES) | (1u << SX_KEYWORDS);
    sx_session *walked = NULL, *fresh = NULL;
    if (sx_session_new(env, pruners, text, len, s.left_len, s.left_len, &walked) == SM_OK &&
        sx_session_new(env, pruners, text, len, s.left_len, s.left_len, &fresh) == SM_OK) {
        for (size_t n = 0; n <= s.middle_len; n += s.step) {
            (void)sx_check(walked, s.middle, n, false, NULL);
            if (n >= s.step)
                (void)sx_check(walked, s.middle, n - s.step / 2, false, NULL); /* a restore */
        }
        bool walked_end = sx_check(walked, s.middle, s.middle_len, true, NULL);
        bool fresh_end = sx_check(fresh, s.middle, s.middle_len, true, NULL);
        if (walked_end != fresh_end)
            abort();
    }
    sx_session_free(walked);
    sx_session_free(fresh);
    sx_env_free(env);
    free(text);
    return 0;
}
