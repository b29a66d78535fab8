/*
 * http.c - HTTP POST on libcurl's multi-socket interface, driven by libuv.
 *
 * curl tells us which sockets to watch (socket callback) and when to call it
 * back (timer callback); the loop's poll and timer handles call
 * curl_multi_socket_action, and finished transfers are collected from
 * curl_multi_info_read.  Nothing here blocks.  Handles are never removed
 * from the multi handle inside curl's own callbacks: stopping from a write
 * callback returns 0 (curl then fails the transfer), and cancelling from
 * outside goes through a zero timer.
 */
#include "mc_internal.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

enum { MC__ERROR_BODY = 4096 };

struct mc_http {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t timer;
    int open_handles;
    bool freeing;
    mc_http_req *requests;          /* in flight, linked */
    uint32_t closing;               /* finished requests whose handles are closing */
};

struct mc_http_req {
    mc_http *http;
    mc_http_req *next, *prev;
    CURL *easy;
    struct curl_slist *headers;
    char *url;
    char *body;
    size_t body_len;
    mc_http_post_args args;
    uint32_t attempts;
    size_t received;
    bool got_byte;
    bool in_multi;
    bool finished;                  /* on_done decided */
    int status;
    sm_buf message;
    sm_buf error_body;
    bool http_error;
    long http_code;
    uv_timer_t first_byte;          /* first-byte timeout, and deferred work */
    uv_timer_t defer;
    int open_handles;
    mc_http_data_cb on_data;
    mc_http_done_cb on_done;
    void *data;
};

typedef struct mc__socket {
    uv_poll_t poll;
    curl_socket_t fd;
    mc_http *http;
} mc__socket;

static void mc__check_done(mc_http *http);

/* ---- The multi handle and the loop ------------------------------------------------ */

static void mc__socket_closed(uv_handle_t *handle)
{
    sm_free(handle->data);
}

static void mc__on_poll(uv_poll_t *poll, int status, int events)
{
    mc__socket *s = poll->data;
    int flags = 0;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    int running;
    mc_http *http = s->http;
    curl_multi_socket_action(http->multi, s->fd, flags, &running);
    mc__check_done(http);
}

static int mc__socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    mc_http *http = userp;
    mc__socket *s = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (s) {
            uv_poll_stop(&s->poll);
            uv_close((uv_handle_t *)&s->poll, mc__socket_closed);
            curl_multi_assign(http->multi, fd, NULL);
        }
        return 0;
    }
    if (!s) {
        s = sm_calloc(1, sizeof *s);
        s->fd = fd;
        s->http = http;
        if (uv_poll_init_socket(http->loop, &s->poll, fd) != 0) {
            sm_free(s);
            return -1;
        }
        s->poll.data = s;
        curl_multi_assign(http->multi, fd, s);
    }
    int events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
        events |= UV_READABLE;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
        events |= UV_WRITABLE;
    uv_poll_start(&s->poll, events, mc__on_poll);
    return 0;
}

static void mc__on_timer(uv_timer_t *timer)
{
    mc_http *http = timer->data;
    int running;
    curl_multi_socket_action(http->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    mc__check_done(http);
}

static int mc__timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    mc_http *http = userp;
    if (timeout_ms < 0)
        uv_timer_stop(&http->timer);
    else
        uv_timer_start(&http->timer, mc__on_timer, (uint64_t)timeout_ms, 0);
    return 0;
}

static void mc__curl_global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

mc_http *mc_http_new(uv_loop_t *loop)
{
    /* curl's global set-up must run once per process before any handle. */
    static uv_once_t once = UV_ONCE_INIT;
    uv_once(&once, mc__curl_global_init);
    mc_http *http = sm_calloc(1, sizeof *http);
    http->loop = loop;
    http->multi = curl_multi_init();
    if (!http->multi) {
        sm_free(http);
        return NULL;
    }
    curl_multi_setopt(http->multi, CURLMOPT_SOCKETFUNCTION, mc__socket_cb);
    curl_multi_setopt(http->multi, CURLMOPT_SOCKETDATA, http);
    curl_multi_setopt(http->multi, CURLMOPT_TIMERFUNCTION, mc__timer_cb);
    curl_multi_setopt(http->multi, CURLMOPT_TIMERDATA, http);
    uv_timer_init(loop, &http->timer);
    http->timer.data = http;
    http->open_handles = 1;
    return http;
}

static void mc__http_closed(uv_handle_t *handle)
{
    mc_http *http = handle->data;
    if (--http->open_handles == 0) {
        curl_multi_cleanup(http->multi);
        sm_free(http);
    }
}

/* ---- Requests ---------------------------------------------------------------------- */

static void mc__req_closed(uv_handle_t *handle)
{
    mc_http_req *req = handle->data;
    if (--req->open_handles > 0)
        return;
    mc_http *http = req->http;
    sm_buf_free(&req->message);
    sm_buf_free(&req->error_body);
    sm_free(req->url);
    sm_free(req->body);
    sm_free(req);
    http->closing--;
    if (http->freeing && !http->requests && http->closing == 0 && http->open_handles == 1)
        uv_close((uv_handle_t *)&http->timer, mc__http_closed);
}

static void mc__unlink(mc_http_req *req)
{
    mc_http *http = req->http;
    if (req->prev)
        req->prev->next = req->next;
    else if (http->requests == req)
        http->requests = req->next;
    if (req->next)
        req->next->prev = req->prev;
    req->next = req->prev = NULL;
}

static void mc__detach(mc_http_req *req)
{
    if (req->in_multi) {
        curl_multi_remove_handle(req->http->multi, req->easy);
        req->in_multi = false;
    }
    if (req->easy) {
        curl_easy_cleanup(req->easy);
        req->easy = NULL;
    }
    curl_slist_free_all(req->headers);
    req->headers = NULL;
}

/* Reports and releases a request.  Runs from the loop, outside curl. */
static void mc__complete(mc_http_req *req)
{
    mc__detach(req);
    mc__unlink(req);
    uv_timer_stop(&req->first_byte);
    uv_timer_stop(&req->defer);
    const char *message = req->message.len ? req->message.data : NULL;
    req->http->closing++;
    req->on_done(req->data, req->status, message);
    uv_close((uv_handle_t *)&req->first_byte, mc__req_closed);
    uv_close((uv_handle_t *)&req->defer, mc__req_closed);
}

static void mc__on_defer(uv_timer_t *timer)
{
    mc__complete(timer->data);
}

/* Decides a request's outcome once; completion follows on the loop. */
static void mc__fail(mc_http_req *req, int status, const char *message)
{
    if (req->finished)
        return;
    req->finished = true;
    req->status = status;
    if (message)
        sm_buf_append_str(&req->message, message);
    uv_timer_start(&req->defer, mc__on_defer, 0, 0);
}

static size_t mc__on_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    mc_http_req *req = userdata;
    size_t len = size * nmemb;
    if (req->finished)
        return 0;
    req->got_byte = true;
    uv_timer_stop(&req->first_byte);
    if (!req->http_error && !req->received) {
        curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->http_code);
        req->http_error = req->http_code >= 300;
    }
    if (req->http_error) {
        size_t room = MC__ERROR_BODY - req->error_body.len;
        sm_buf_append(&req->error_body, ptr, len < room ? len : room);
        return len;
    }
    if (req->received + len > req->args.max_response) {
        mc__fail(req, SM_ETOOBIG, "the model server's response is larger than the configured cap");
        return 0;
    }
    req->received += len;
    if (!req->on_data(req->data, ptr, len)) {
        mc__fail(req, SM_ECANCELED, NULL);
        return 0;
    }
    return len;
}

static void mc__on_first_byte_timeout(uv_timer_t *timer)
{
    mc_http_req *req = timer->data;
    if (req->got_byte || req->finished)
        return;
    mc__fail(req, SM_ETIMEDOUT, "the model server sent nothing within the first-byte timeout");
}

static int mc__attach(mc_http_req *req)
{
    CURL *e = curl_easy_init();
    if (!e)
        return SM_ENOMEM;
    req->easy = e;
    req->headers = curl_slist_append(NULL, "Content-Type: application/json");
    req->headers = curl_slist_append(req->headers, "Accept: application/json, text/event-stream, application/x-ndjson");
    if (req->args.bearer && *req->args.bearer) {
        sm_buf auth;
        sm_buf_init(&auth, 8192);
        if (sm_buf_printf(&auth, "Authorization: Bearer %s", req->args.bearer) == SM_OK)
            req->headers = curl_slist_append(req->headers, auth.data);
        /* The key is not kept anywhere else and never logged. */
        memset(auth.data, 0, auth.len);
        sm_buf_free(&auth);
    }
    curl_easy_setopt(e, CURLOPT_URL, req->url);
    if (req->args.get) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, mc__on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
    curl_easy_setopt(e, CURLOPT_PRIVATE, req);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)req->args.connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)req->args.total_timeout_ms);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, req->args.tls_verify ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, req->args.tls_verify ? 2L : 0L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "seam/0.1");
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    if (curl_multi_add_handle(req->http->multi, e) != CURLM_OK)
        return SM_EIO;
    req->in_multi = true;
    req->attempts++;
    if (req->args.first_byte_timeout_ms)
        uv_timer_start(&req->first_byte, mc__on_first_byte_timeout,
                       (uint64_t)req->args.connect_timeout_ms + req->args.first_byte_timeout_ms, 0);
    return SM_OK;
}

static void mc__on_retry(uv_timer_t *timer)
{
    mc_http_req *req = timer->data;
    if (req->finished)
        return;
    int rc = mc__attach(req);
    if (rc != SM_OK)
        mc__fail(req, rc, "could not start the request to the model server");
}

/* The server's own message from an error body: {"error": "..."} or
 * {"error": {"message": "..."}}, else the body's first line. */
static void mc__error_message(mc_http_req *req)
{
    sm_buf_printf(&req->message, "the model server answered HTTP %ld", req->http_code);
    if (!req->error_body.len)
        return;
    const char *body = req->error_body.data;
    const char *key = strstr(body, "\"message\"");
    if (!key)
        key = strstr(body, "\"error\"");
    if (key) {
        const char *colon = strchr(key, ':');
        const char *q = colon ? strchr(colon, '"') : NULL;
        if (q && q - colon < 8) {
            const char *end = q + 1;
            while (*end && *end != '"')
                end += (*end == '\\' && end[1]) ? 2 : 1;
            sm_buf_printf(&req->message, ": %.*s", (int)(end - q - 1 < 300 ? end - q - 1 : 300), q + 1);
            return;
        }
    }
    size_t n = strcspn(body, "\r\n");
    sm_buf_printf(&req->message, ": %.*s", (int)(n < 300 ? n : 300), body);
}

/* How a transfer that got no HTTP answer failed, as a format for the URL
 * and curl's words: not reached at all, or reached and answered with
 * something that is not HTTP, or nothing. */
static const char *mc__failure_words(CURLcode result)
{
    switch (result) {
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_HTTP2:
        return "the model server at %s answered, but not in HTTP (is the endpoint another service?): %s";
    case CURLE_GOT_NOTHING:
        return "the model server at %s closed the connection without an answer: %s";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
        return "the connection to the model server at %s broke: %s";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
        return "the model server at %s could not be reached over TLS: %s";
    default:
        return "the model server could not be reached at %s: %s";
    }
}

static void mc__transfer_done(mc_http_req *req, CURLcode result)
{
    if (req->finished) {
        mc__detach(req);
        return;
    }
    long code = 0;
    curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &code);
    bool retryable = result == CURLE_COULDNT_CONNECT || (result == CURLE_OK && code == 503 && !req->received);
    if (retryable && req->attempts <= req->args.retries) {
        mc__detach(req);
        req->http_error = false;
        sm_buf_clear(&req->error_body);
        req->got_byte = false;
        uv_timer_start(&req->defer, mc__on_retry, 100u * req->attempts, 0);
        return;
    }
    if (result == CURLE_OK && code >= 200 && code < 300) {
        mc__fail(req, SM_OK, NULL);
    } else if (result == CURLE_OK || req->http_error) {
        req->http_code = code;
        mc__error_message(req);
        mc__fail(req, code == 404 ? SM_ENOTFOUND : SM_EIO, NULL);
    } else if (result == CURLE_OPERATION_TIMEDOUT) {
        mc__fail(req, SM_ETIMEDOUT, req->got_byte ? "the model server did not finish within the total timeout"
                                                  : "the model server could not be reached within the connect timeout");
    } else {
        sm_buf_printf(&req->message, mc__failure_words(result), req->url, curl_easy_strerror(result));
        mc__fail(req, SM_EIO, NULL);
    }
    mc__detach(req);
}

static void mc__check_done(mc_http *http)
{
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(http->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        mc_http_req *req = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&req);
        CURLcode result = msg->data.result;
        if (req)
            mc__transfer_done(req, result);
    }
}

int mc_http_post(mc_http *http, const mc_http_post_args *args, mc_http_data_cb on_data, mc_http_done_cb on_done,
                 void *data, mc_http_req **out)
{
    mc_http_req *req = sm_calloc(1, sizeof *req);
    req->http = http;
    req->args = *args;
    req->args.url = NULL;
    req->args.body = NULL;
    req->url = sm_strdup(args->url);
    req->body = sm_strndup(args->body, args->body_len);
    req->body_len = args->body_len;
    if (!req->args.max_response)
        req->args.max_response = 16u << 20;
    sm_buf_init(&req->message, 1024);
    sm_buf_init(&req->error_body, MC__ERROR_BODY + 1);
    req->on_data = on_data;
    req->on_done = on_done;
    req->data = data;
    uv_timer_init(http->loop, &req->first_byte);
    uv_timer_init(http->loop, &req->defer);
    req->first_byte.data = req;
    req->defer.data = req;
    req->open_handles = 2;
    req->next = http->requests;
    if (http->requests)
        http->requests->prev = req;
    http->requests = req;
    int rc = mc__attach(req);
    if (rc != SM_OK)
        mc__fail(req, rc, "could not start the request to the model server");
    *out = req;
    return SM_OK;
}

void mc_http_cancel(mc_http_req *req)
{
    mc__fail(req, SM_ECANCELED, NULL);
}

void mc_http_free(mc_http *http)
{
    if (!http)
        return;
    http->freeing = true;
    for (mc_http_req *r = http->requests; r; r = r->next)
        mc__fail(r, SM_ECANCELED, NULL);
    if (!http->requests && http->closing == 0)
        uv_close((uv_handle_t *)&http->timer, mc__http_closed);
}

/* ---- Lines ----------------------------------------------------------------------- */

void mc_lines_init(mc_lines *lines, size_t max_line)
{
    sm_buf_init(&lines->pending, max_line);
}

void mc_lines_free(mc_lines *lines)
{
    sm_buf_free(&lines->pending);
}

static bool mc__emit(mc_lines *lines, const char *line, size_t len, mc_line_cb on_line, void *data)
{
    if (len && line[len - 1] == '\r')
        len--;
    return on_line(data, line, len);
}

bool mc_lines_feed(mc_lines *lines, const char *bytes, size_t len, mc_line_cb on_line, void *data, int *error)
{
    *error = SM_OK;
    while (len) {
        const char *nl = memchr(bytes, '\n', len);
        size_t part = nl ? (size_t)(nl - bytes) : len;
        if (sm_buf_append(&lines->pending, bytes, part) != SM_OK) {
            *error = SM_ETOOBIG;
            return false;
        }
        if (!nl)
            return true;
        bool go_on = mc__emit(lines, lines->pending.data ? lines->pending.data : "", lines->pending.len, on_line, data);
        sm_buf_clear(&lines->pending);
        if (!go_on)
            return false;
        bytes += part + 1;
        len -= part + 1;
    }
    return true;
}

bool mc_lines_finish(mc_lines *lines, mc_line_cb on_line, void *data)
{
    if (!lines->pending.len)
        return true;
    bool go_on = mc__emit(lines, lines->pending.data, lines->pending.len, on_line, data);
    sm_buf_clear(&lines->pending);
    return go_on;
}
