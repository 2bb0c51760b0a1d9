"""/metrics and /healthz on one small threaded HTTP server."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest


def serve(host: str, port: int, registry: CollectorRegistry,
          health: Callable[[], tuple[bool, str]]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                body, code, ctype = generate_latest(registry), 200, CONTENT_TYPE_LATEST
            elif path in ("/healthz", "/readyz"):
                ok, text = health()
                body, code, ctype = (text + "\n").encode(), 200 if ok else 503, "text/plain; charset=utf-8"
            else:
                body, code, ctype = b"not found: try /metrics or /healthz\n", 404, "text/plain"
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:  # scrapes are not news
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    return server
