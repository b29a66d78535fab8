/*
 * mc_internal.h - what the backends of model_client/ share, not exported.
 */
#ifndef SEAM_MC_INTERNAL_H
#define SEAM_MC_INTERNAL_H

#include "seam_model_client.h"


/* ---- HTTP (http.c) ----------------------------------------------------------
 *
 * POST requests on libcurl's multi-socket interface, driven by the loop.
 * on_data receives the body of a successful (2xx) response as it arrives and
 * returns false to stop the transfer.  on_done is called exactly once, from
 * the loop: SM_OK after a complete 2xx response; SM_ECANCELED after
 * mc_http_cancel or an on_data that returned false; SM_ETIMEDOUT for any of
 * the three timeouts; SM_ETOOBIG when the body passes the cap; SM_ENOTFOUND
 * for HTTP 404 and SM_EIO for a failed connection or another HTTP error, with
 * a message (the server's own error text when it sent one).
 */
typedef struct mc_http mc_http;
typedef struct mc_http_req mc_http_req;

typedef bool (*mc_http_data_cb)(void *data, const char *bytes, size_t len);
typedef void (*mc_http_done_cb)(void *data, int status, const char *message);

typedef struct mc_http_post_args {
    const char *url;
    const char *body;                 /* copied; ignored with get */
    size_t body_len;
    const char *bearer;               /* NULL or an API key; never logged */
    uint32_t connect_timeout_ms, first_byte_timeout_ms, total_timeout_ms;
    uint32_t retries;
    size_t max_response;
    bool tls_verify;
    bool get;                         /* a GET instead of a POST */
} mc_http_post_args;

mc_http *mc_http_new(uv_loop_t *loop);
/* Cancels what is in flight (their on_done follow) and frees the client
 * once its handles are closed. */
void mc_http_free(mc_http *http);
int mc_http_post(mc_http *http, const mc_http_post_args *args, mc_http_data_cb on_data,
                 mc_http_done_cb on_done, void *data, mc_http_req **out);
/* Stops a request whose on_done has not been called yet. */
void mc_http_cancel(mc_http_req *req);

/* ---- Line splitting for streamed bodies ---------------------------------------- */

/* Collects bytes and hands out complete lines (without their "\n" or
 * "\r\n"); a line longer than the cap is an error. */
typedef struct mc_lines {
    sm_buf pending;
} mc_lines;

void mc_lines_init(mc_lines *lines, size_t max_line);
void mc_lines_free(mc_lines *lines);
/* Calls on_line for each complete line; stops and returns false when
 * on_line does, or SM-style failure (sets *error to SM_ETOOBIG). */
typedef bool (*mc_line_cb)(void *data, const char *line, size_t len);
bool mc_lines_feed(mc_lines *lines, const char *bytes, size_t len, mc_line_cb on_line, void *data, int *error);
/* The unterminated rest, for a body that ends without a final line break. */
bool mc_lines_finish(mc_lines *lines, mc_line_cb on_line, void *data);

/* ---- Random draws (full_vocab.c) ---------------------------------------------- */

/* A uniform draw in [0, 1) from a splitmix64 state. */
double mc_random(uint64_t *state);

#endif
