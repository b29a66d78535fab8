/*
 * daemon.c - the language server's transport: stdio (what editors start)
 * or one TCP client at a time (for debugging), on libuv streams.
 *
 * stdout carries the protocol and nothing else; logs go to stderr and the
 * optional log file.  A client that goes away ends the session (exit code
 * 1 unless it had asked for shutdown).
 */
#include "seam_server.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct srv__conn {
    uv_loop_t *loop;
    uv_stream_t *in;              /* stdin or the TCP client */
    uv_stream_t *out;             /* stdout or the TCP client */
    uv_pipe_t in_pipe, out_pipe;
    uv_tty_t in_tty, out_tty;
    uv_tcp_t tcp;
    uv_fs_t file_read;            /* stdin redirected from a file */
    char file_buf[65536];
    bool in_is_file;
    bool is_tcp;
    bool out_is_file;
    srv_lsp *lsp;
    bool ended;
    int writes_in_flight;
    size_t queued;                /* bytes of replies written to no one yet */
    bool stalled;                 /* the client left too many replies unread */
    cfg_config *config;
    sm_logger *logger;
    char *startup_warning;
} srv__conn;

typedef struct srv__write {
    uv_write_t req;
    srv__conn *conn;
    char *data;
    size_t len;
} srv__write;

/* Replies a client leaves unread, at most: a client that never reads
 * must not make seam queue without bound. */
static size_t srv__max_queued(const srv__conn *c)
{
    return (size_t)c->config->max_message_bytes * 4;
}

static void srv__write_done(uv_write_t *req, int status)
{
    srv__write *w = (srv__write *)req;
    w->conn->writes_in_flight--;
    w->conn->queued -= w->len;
    if (status < 0)
        sm_log(w->conn->logger, SM_LOG_WARN, "writing to the client failed: %s", uv_strerror(status));
    sm_free(w->data);
    sm_free(w);
}

static void srv__write_out(void *data, const char *bytes, size_t len)
{
    srv__conn *c = data;
    if (c->ended && !c->out)
        return;
    if (c->out_is_file) {
        /* A regular file never blocks. */
        size_t done = 0;
        while (done < len) {
            ssize_t n = write(STDOUT_FILENO, bytes + done, len - done);
            if (n <= 0)
                return;
            done += (size_t)n;
        }
        return;
    }
    uv_buf_t buf = uv_buf_init((char *)bytes, (unsigned)len);
    int n = uv_try_write(c->out, &buf, 1);
    if (n == (int)len)
        return;
    size_t sent = n > 0 ? (size_t)n : 0;
    if (c->queued + (len - sent) > srv__max_queued(c)) {
        /* The session ends once the loop is back (this runs inside the
         * language server's handling of a message): no more is read. */
        if (!c->stalled)
            sm_log(c->logger, SM_LOG_ERROR, "the client has left %zu bytes of replies unread (the cap is 4 times "
                   "max_message_bytes): the session ends", c->queued);
        if (!c->stalled && !c->in_is_file && !c->ended)
            uv_read_stop(c->in);
        c->stalled = true;
        return;
    }
    srv__write *w = sm_malloc(sizeof *w);
    w->conn = c;
    w->len = len - sent;
    c->queued += w->len;
    w->data = sm_malloc(len - sent);
    memcpy(w->data, bytes + sent, len - sent);
    buf = uv_buf_init(w->data, (unsigned)(len - sent));
    c->writes_in_flight++;
    if (uv_write(&w->req, c->out, &buf, 1, srv__write_done) != 0) {
        c->writes_in_flight--;
        c->queued -= w->len;
        sm_free(w->data);
        sm_free(w);
    }
}

static void srv__alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)handle;
    (void)suggested;
    buf->base = sm_malloc(65536);
    buf->len = 65536;
}

static void srv__end(srv__conn *c)
{
    if (c->ended)
        return;
    c->ended = true;
    if (!c->in_is_file)
        uv_read_stop(c->in);
    srv_lsp_stop(c->lsp);
}

/* stdin from a regular file: chained reads in the thread pool. */
static void srv__on_file_read(uv_fs_t *req)
{
    srv__conn *c = req->data;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    if (c->ended)
        return;
    if (n <= 0) {
        srv__end(c);
        return;
    }
    srv_lsp_feed(c->lsp, c->file_buf, (size_t)n);
    if (srv_lsp_exited(c->lsp, NULL)) {
        srv__end(c);
        return;
    }
    uv_buf_t buf = uv_buf_init(c->file_buf, sizeof c->file_buf);
    if (uv_fs_read(c->loop, &c->file_read, STDIN_FILENO, &buf, 1, -1, srv__on_file_read) != 0)
        srv__end(c);
}

static void srv__on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    srv__conn *c = stream->data;
    if (nread > 0) {
        srv_lsp_feed(c->lsp, buf->base, (size_t)nread);
        if (srv_lsp_exited(c->lsp, NULL))
            srv__end(c);
    } else if (nread < 0) {
        if (nread != UV_EOF)
            sm_log(c->logger, SM_LOG_WARN, "reading from the client failed: %s", uv_strerror((int)nread));
        else
            sm_log(c->logger, SM_LOG_INFO, "the client closed the connection");
        srv__end(c);
    }
    sm_free(buf->base);
}

static int srv__open_stdio(srv__conn *c)
{
    uv_handle_type tin = uv_guess_handle(STDIN_FILENO);
    uv_handle_type tout = uv_guess_handle(STDOUT_FILENO);
    if (tin == UV_TTY) {
        uv_tty_init(c->loop, &c->in_tty, STDIN_FILENO, 1);
        c->in = (uv_stream_t *)&c->in_tty;
    } else if (tin == UV_NAMED_PIPE || tin == UV_TCP) {
        uv_pipe_init(c->loop, &c->in_pipe, 0);
        uv_pipe_open(&c->in_pipe, STDIN_FILENO);
        c->in = (uv_stream_t *)&c->in_pipe;
    } else if (tin == UV_FILE) {
        c->in_is_file = true;
    } else {
        sm_log(c->logger, SM_LOG_ERROR, "stdin must be a pipe, a terminal or a file");
        return SM_EINVAL;
    }
    if (tout == UV_TTY) {
        uv_tty_init(c->loop, &c->out_tty, STDOUT_FILENO, 0);
        c->out = (uv_stream_t *)&c->out_tty;
    } else if (tout == UV_NAMED_PIPE || tout == UV_TCP) {
        uv_pipe_init(c->loop, &c->out_pipe, 0);
        uv_pipe_open(&c->out_pipe, STDOUT_FILENO);
        c->out = (uv_stream_t *)&c->out_pipe;
    } else {
        c->out_is_file = true;
    }
    if (c->in)
        c->in->data = c;
    return SM_OK;
}

static void srv__walk_close(uv_handle_t *handle, void *arg)
{
    (void)arg;
    if (!uv_is_closing(handle))
        uv_close(handle, NULL);
}

static void srv__on_drain_timeout(uv_timer_t *timer)
{
    *(bool *)timer->data = true;
}

/* Lets completions in flight end and replies reach the client, for at most
 * two seconds: a client that stopped reading must not keep seam alive. */
static void srv__drain(srv__conn *c)
{
    bool expired = false;
    uv_timer_t timer;
    uv_timer_init(c->loop, &timer);
    timer.data = &expired;
    uv_timer_start(&timer, srv__on_drain_timeout, 2000, 0);
    while (!expired && (srv_lsp_busy(c->lsp) || c->writes_in_flight > 0) && uv_run(c->loop, UV_RUN_ONCE))
        ;
    uv_close((uv_handle_t *)&timer, NULL);
    uv_run(c->loop, UV_RUN_NOWAIT);
}

/* Runs one session on c's streams until the client leaves or says exit. */
static int srv__session(srv__conn *c)
{
    c->lsp = srv_lsp_new(c->loop, c->config, c->logger, srv__write_out, c);
    if (c->in_is_file) {
        c->file_read.data = c;
        uv_buf_t buf = uv_buf_init(c->file_buf, sizeof c->file_buf);
        if (uv_fs_read(c->loop, &c->file_read, STDIN_FILENO, &buf, 1, -1, srv__on_file_read) != 0)
            c->ended = true;
    } else {
        uv_read_start(c->in, srv__alloc, srv__on_read);
    }
    while (!c->ended && !c->stalled && uv_run(c->loop, UV_RUN_ONCE))
        ;
    srv__end(c);
    srv__drain(c);
    int code = 1;
    if (!srv_lsp_exited(c->lsp, &code))
        code = 1;   /* the client left without "exit" */
    if (!srv_lsp_busy(c->lsp))
        srv_lsp_free(c->lsp);   /* else a job still refers to it: the process ends anyway */
    c->lsp = NULL;
    return code;
}

typedef struct srv__listener {
    uv_tcp_t server;
    srv__conn *conn;
    bool busy;
    int code;
    bool exit;
    bool closed;               /* the server handle's close callback ran */
} srv__listener;

static void srv__on_listener_closed(uv_handle_t *handle)
{
    ((srv__listener *)handle->data)->closed = true;
}

/* Closes the listening handle, which lives on srv__listen's stack, before
 * that frame returns: nothing on the loop may refer to it afterwards. */
static void srv__close_listener(srv__listener *l)
{
    uv_close((uv_handle_t *)&l->server, srv__on_listener_closed);
    while (!l->closed)
        uv_run(l->conn->loop, UV_RUN_ONCE);
}

static void srv__on_connection(uv_stream_t *server, int status)
{
    srv__listener *l = server->data;
    if (status < 0)
        return;
    srv__conn *c = l->conn;
    if (l->busy) {
        uv_tcp_t *reject = sm_malloc(sizeof *reject);
        uv_tcp_init(c->loop, reject);
        if (uv_accept(server, (uv_stream_t *)reject) == 0)
            sm_log(c->logger, SM_LOG_WARN, "a second client was refused: one at a time");
        uv_close((uv_handle_t *)reject, (uv_close_cb)sm_free);
        return;
    }
    uv_tcp_init(c->loop, &c->tcp);
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, NULL);
        return;
    }
    l->busy = true;
    c->in = c->out = (uv_stream_t *)&c->tcp;
    c->tcp.data = c;
    c->ended = false;
    c->stalled = false;
    c->queued = 0;
    c->lsp = srv_lsp_new(c->loop, c->config, c->logger, srv__write_out, c);
    uv_read_start(c->in, srv__alloc, srv__on_read);
}

static int srv__listen(srv__conn *c, const char *where)
{
    char host[256];
    const char *colon = strrchr(where, ':');
    if (!colon || colon == where || (size_t)(colon - where) >= sizeof host || !colon[1]) {
        sm_log(c->logger, SM_LOG_ERROR, "--listen expects HOST:PORT, not '%s'", where);
        return 64;
    }
    memcpy(host, where, (size_t)(colon - where));
    host[colon - where] = '\0';
    int port = atoi(colon + 1);
    struct sockaddr_storage addr;
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(host, port, (struct sockaddr_in6 *)&addr) != 0) {
        sm_log(c->logger, SM_LOG_ERROR, "cannot use the address '%s'", where);
        return 64;
    }
    srv__listener l = {.conn = c};
    uv_tcp_init(c->loop, &l.server);
    l.server.data = &l;
    int rc = uv_tcp_bind(&l.server, (const struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&l.server, 4, srv__on_connection);
    if (rc != 0) {
        sm_log(c->logger, SM_LOG_ERROR, "cannot listen on %s: %s", where, uv_strerror(rc));
        srv__close_listener(&l);
        return 1;
    }
    sm_log(c->logger, SM_LOG_INFO, "listening on %s", where);
    c->is_tcp = true;
    for (;;) {
        uv_run(c->loop, UV_RUN_ONCE);
        if (c->lsp && c->stalled)
            srv__end(c);
        if (c->lsp && c->ended) {
            srv__drain(c);
            int code = 1;
            bool exited = srv_lsp_exited(c->lsp, &code);
            srv_lsp_free(c->lsp);
            c->lsp = NULL;
            uv_close((uv_handle_t *)&c->tcp, NULL);
            l.busy = false;
            if (exited) {
                srv__close_listener(&l);
                return code;
            }
        }
    }
}

int srv_cmd_lsp(int argc, char **argv)
{
    cfg_config config;
    cfg_init(&config);
    const char *listen = NULL;
    const char *config_path = NULL;
    int i = argc >= 2 && strcmp(argv[1], "lsp") == 0 ? 2 : 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--stdio") == 0)
            continue;
        if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc)
            listen = argv[++i];
        else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            config_path = argv[++i];
        else if ((strcmp(argv[i], "--log-file") == 0 || strcmp(argv[i], "--log-level") == 0) && i + 1 < argc) {
            char error[256];
            const char *name = strcmp(argv[i], "--log-file") == 0 ? "log_file" : "log_level";
            if (cfg_set(&config, name, argv[i + 1], error, sizeof error) != SM_OK) {
                fprintf(stderr, "seam: %s\n", error);
                cfg_free(&config);
                return 64;
            }
            i++;
        } else if (strncmp(argv[i], "--clientProcessId", 17) == 0) {
            /* VS Code's client may pass its process id; not needed. */
            if (!strchr(argv[i], '=') && i + 1 < argc)
                i++;
        } else {
            fprintf(stderr, "seam: unknown option '%s' (seam --help)\n", argv[i]);
            cfg_free(&config);
            return 64;
        }
    }
    sm_logger logger;
    sm_logger_init(&logger, config.log_level);
    char path[1024];
    char error[512];
    sm_buf ignored;
    sm_buf_init(&ignored, 4096);
    const char *file = config_path;
    if (!file && srv_config_default_path(path, sizeof path) && access(path, R_OK) == 0)
        file = path;
    if (file && srv_config_load_file(&config, file, &ignored, error, sizeof error) != SM_OK)
        sm_log(&logger, SM_LOG_ERROR, "%s; using the defaults", error);
    if (ignored.len)
        sm_log(&logger, SM_LOG_WARN, "%s: ignored settings seam does not know: %s", file, ignored.data);
    sm_buf_free(&ignored);
    logger.level = config.log_level;
    if (config.log_file && sm_logger_open_file(&logger, config.log_file) != SM_OK)
        sm_log(&logger, SM_LOG_WARN, "cannot open the log file %s", config.log_file);

    uv_loop_t loop;
    uv_loop_init(&loop);
    srv__conn conn = {.loop = &loop, .config = &config, .logger = &logger};
    int code;
    if (listen) {
        code = srv__listen(&conn, listen);
    } else if (srv__open_stdio(&conn) != SM_OK) {
        code = 1;
    } else {
        code = srv__session(&conn);
    }
    uv_walk(&loop, srv__walk_close, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    sm_logger_close(&logger);
    cfg_free(&config);
    return code;
}
