"""A local server that serves files the way Hugging Face's hub does, for
`seam model pull` (the real one cannot be reached from the tests).

ENDPOINT/USER/REPO/resolve/REVISION/FILE answers HEAD and GET with a 302 to
the file's bytes elsewhere (by default on another host name, 127.0.0.1 for
an endpoint on localhost, so that a token must not follow), stating the
SHA-256 in X-Linked-Etag and the size in X-Linked-Size.  The bytes answer
Range requests with 206.  Failures on demand: a connection dropped after N
bytes, a wrong checksum stated, Range ignored, a token required, a body
longer than the size stated (endless up to a bound), no size nor checksum
stated and the connection closed half way.
"""

import hashlib
import http.server
import os
import socket
import threading
import time


class Hub:
    def __init__(self):
        self.files = {}             # (repo, file) -> path on disk
        self.token = None           # required on resolve when set
        self.drops = []             # byte counts: the next GETs of bytes close after that many
        self.state_sha = {}         # (repo, file) -> the SHA-256 to state instead of the real one
        self.ignore_range = False
        self.endless = set()        # (repo, file): state the real size, then send up to 64 MiB more
        self.unstated = set()       # (repo, file): state no size nor SHA-256, close half way
        self.chunk_delay = 0.0      # seconds between 256 KiB chunks
        self.log = []               # (method, path, headers dict)
        self.lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.endpoint = "http://localhost:%d" % self.port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def add(self, repo, file, path):
        self.files[(repo, file)] = path

    def sha256(self, path):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()

    def requests(self, prefix):
        with self.lock:
            return [entry for entry in self.log if entry[1].startswith(prefix)]

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self._serve(False)

            def do_GET(self):
                self._serve(True)

            def _serve(self, body):
                with hub.lock:
                    hub.log.append((self.command, self.path, dict(self.headers.items())))
                parts = self.path.split("/")
                # /USER/REPO/resolve/REV/FILE...
                if len(parts) >= 6 and parts[3] == "resolve":
                    return self._resolve("/".join(parts[1:3]), "/".join(parts[5:]))
                if len(parts) == 3 and parts[1] == "cdn":
                    return self._bytes(parts[2], body)
                self._plain(404, b"no such route\n")

            def _plain(self, code, text, headers=()):
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(text)

            def _resolve(self, repo, file):
                if hub.token and self.headers.get("Authorization") != "Bearer " + hub.token:
                    return self._plain(401, b"Invalid credentials in Authorization header\n",
                                       [("X-Error-Code", "GatedRepo")])
                path = hub.files.get((repo, file))
                if not path:
                    return self._plain(404, b"Entry not found\n", [("X-Error-Code", "EntryNotFound")])
                sha = hub.state_sha.get((repo, file)) or hub.sha256(path)
                host = "127.0.0.1" if self.headers.get("Host", "").startswith("localhost") else "localhost"
                mode = "-endless" if (repo, file) in hub.endless else "-unstated" if (repo, file) in hub.unstated else ""
                target = "http://%s:%d/cdn/%s%s" % (host, hub.port, key_of(path), mode)
                stated = [] if (repo, file) in hub.unstated else [
                    ("X-Linked-Etag", '"%s"' % sha), ("X-Linked-Size", str(os.path.getsize(path)))]
                self._plain(302, b"Found. Redirecting\n", [("Location", target)] + stated + [
                    ("ETag", 'W/"1f-deadbeef"'), ("X-Repo-Commit", "0" * 40)])

            def _bytes(self, key, body):
                key, _, mode = key.partition("-")
                path = next((p for p in hub.files.values() if key_of(p) == key), None)
                if not path:
                    return self._plain(404, b"gone\n")
                size = os.path.getsize(path)
                if mode:
                    return self._unbounded(path, mode == "endless", body)
                start = 0
                rng = self.headers.get("Range")
                if rng and not hub.ignore_range and rng.startswith("bytes=") and rng.endswith("-"):
                    start = int(rng[6:-1])
                if start >= size and start > 0:
                    return self._plain(416, b"range not satisfiable\n", [("Content-Range", "bytes */%d" % size)])
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(size - start))
                if start:
                    self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
                self.send_header("ETag", '"%s"' % key)
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                if not body:
                    return
                with hub.lock:
                    drop = hub.drops.pop(0) if hub.drops else None
                sent = 0
                with open(path, "rb") as f:
                    f.seek(start)
                    while True:
                        block = f.read(256 << 10)
                        if not block:
                            break
                        if drop is not None and sent + len(block) > drop:
                            self.wfile.write(block[:drop - sent])
                            self.wfile.flush()
                            self.connection.shutdown(socket.SHUT_RDWR)
                            self.close_connection = True
                            return
                        try:
                            self.wfile.write(block)
                        except OSError:
                            return
                        sent += len(block)
                        if hub.chunk_delay:
                            time.sleep(hub.chunk_delay)

            def _unbounded(self, path, endless, body):
                """No Content-Length: the file's bytes and then 64 MiB more
                (endless), or half of them (unstated); the end of the body is
                the connection's close."""
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                if not body:
                    return
                data = open(path, "rb").read()
                try:
                    if endless:
                        self.wfile.write(data)
                        for _ in range(256):
                            self.wfile.write(b"\0" * (256 << 10))
                    else:
                        self.wfile.write(data[:len(data) // 2])
                except OSError:
                    pass

        return Handler


def key_of(path):
    return hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:16]
