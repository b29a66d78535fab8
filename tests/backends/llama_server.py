"""A real llama-server on loopback, for seam's tests and benchmarks.

The llama.cpp build and the tiny models come from the cache that
scripts/llama.sh and scripts/test_models.sh fill; scripts/test.sh exports
their folders as SEAM_LLAMA_DIR and SEAM_TEST_MODELS.
"""

import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request


def cache_dirs():
    """(llama.cpp folder, models folder) from the environment, or an error."""
    llama = os.environ.get("SEAM_LLAMA_DIR")
    models = os.environ.get("SEAM_TEST_MODELS")
    if not llama or not os.path.exists(os.path.join(llama, "bin", "llama-server")):
        raise SystemExit("SEAM_LLAMA_DIR does not name a llama.cpp build: run scripts/test.sh "
                         "(or export SEAM_LLAMA_DIR=$(scripts/llama.sh))")
    if not models or not os.path.exists(os.path.join(models, "models.json")):
        raise SystemExit("SEAM_TEST_MODELS does not name the test models: run scripts/test.sh "
                         "(or export SEAM_TEST_MODELS=$(scripts/test_models.sh))")
    return llama, models


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """llama-server with one model on 127.0.0.1; a context manager."""

    def __init__(self, llama_dir, model, special=False, ctx=2048, extra=(), threads=2, port=None):
        self.port = port or free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)
        cmd = [os.path.join(llama_dir, "bin", "llama-server"), "-m", model, "--host", "127.0.0.1",
               "--port", str(self.port), "-c", str(ctx), "-t", str(threads), "-np", "1", "--metrics",
               "--no-webui"]
        if special:
            cmd.append("--special")
        cmd += list(extra)
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_ready()

    def wait_ready(self, limit=60.0):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("llama-server exited with %s: %s" % (self.proc.returncode, self.log_tail()))
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("llama-server did not become ready: " + self.log_tail())

    def log_tail(self, n=2000):
        try:
            with open(self.log.name, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def metric(self, name):
        """A counter of /metrics (llamacpp:NAME)."""
        with urllib.request.urlopen(self.url + "/metrics", timeout=5) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("llamacpp:%s " % name):
                    return float(line.split()[1])
        return 0.0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class RecordingProxy:
    """A proxy on 127.0.0.1 in front of a model server that records every
    request's path and JSON body (`requests`), for tests that read what seam
    sent a real server.  Answers are passed on whole (use unstreamed
    requests)."""

    def __init__(self, target):
        import http.server
        import threading
        self.target = target
        self.requests = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self, body):
                if body is not None:
                    try:
                        proxy.requests.append((self.path, json.loads(body or b"{}")))
                    except ValueError:
                        proxy.requests.append((self.path, None))
                req = urllib.request.Request(proxy.target + self.path, data=body,
                                             headers={"Content-Type": "application/json"},
                                             method="POST" if body is not None else "GET")
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        status, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    status, data = e.code, e.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._forward(None)

            def do_POST(self):
                self._forward(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
