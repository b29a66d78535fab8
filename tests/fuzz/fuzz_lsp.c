/*
 * fuzz_lsp.c - libFuzzer target for the language server's framing and
 * message handling: the input is the byte stream a client sends, fed in
 * pieces whose size the first byte chooses.  Whatever the bytes, seam must
 * not crash, leak or trip a sanitizer, and every reply it writes must be a
 * well-framed message.
 *
 * Built and run by scripts/fuzz.sh, not by the test suite.
 */
#include "seam_server.h"

#include <stdlib.h>
#include <string.h>

typedef struct sink {
    size_t bytes;
    size_t messages;
} sink;

static void on_message(void *data, const char *body, size_t len)
{
    (void)body;
    (void)len;
    ((sink *)data)->messages++;
}

static void on_error(void *data, lsp_frame_error error, size_t length)
{
    (void)data;
    (void)error;
    (void)length;
    abort();   /* seam's own output must always frame */
}

static const lsp_framer_callbacks check_callbacks = {on_message, on_error};

typedef struct out_check {
    lsp_framer framer;
    sink s;
} out_check;

static void write_cb(void *data, const char *bytes, size_t len)
{
    out_check *o = data;
    o->s.bytes += len;
    lsp_framer_feed(&o->framer, bytes, len, &check_callbacks, &o->s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t step = (size_t)(data[0] % 64) + 1;
    data++;
    size--;
    uv_loop_t loop;
    uv_loop_init(&loop);
    sm_logger logger;
    sm_logger_init(&logger, SM_LOG_ERROR);
    logger.level = SM_LOG_ERROR;
    cfg_config config;
    cfg_init(&config);
    config.train_stdlib = false;
    config.debounce_ms = 0;
    config.max_message_bytes = 1 << 16;
    config.timeout_ms = 200;
    out_check out;
    lsp_framer_init(&out.framer, 1 << 24);
    memset(&out.s, 0, sizeof out.s);
    srv_lsp *lsp = srv_lsp_new(&loop, &config, &logger, write_cb, &out);
    for (size_t i = 0; i < size && !srv_lsp_exited(lsp, NULL); i += step) {
        srv_lsp_feed(lsp, (const char *)data + i, size - i < step ? size - i : step);
        uv_run(&loop, UV_RUN_NOWAIT);
    }
    for (int spins = 0; spins < 100000 && srv_lsp_busy(lsp); spins++)
        uv_run(&loop, UV_RUN_ONCE);
    srv_lsp_stop(lsp);
    while (srv_lsp_busy(lsp))
        uv_run(&loop, UV_RUN_ONCE);
    srv_lsp_free(lsp);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    lsp_framer_free(&out.framer);
    cfg_free(&config);
    sm_logger_close(&logger);
    return 0;
}
