"""/metrics, /healthz (readiness: engine and sources) and /livez (the engine only) on one small HTTP server that no client can wear down.

A selector loop holds accepted connections and reads each request head (up to MAX_HEAD bytes, without
blocking) until it is complete; only then does one of a fixed pool of workers serve the request (one per
connection, HTTP/1.0, GET has no body). So idle clients and slow senders (slowloris) cost a socket, never a
thread: at most MAX_PENDING connections are held (the oldest is closed past that), each for at most
IDLE_SECONDS from accept to a complete head, and a worker gives up on a client that stops reading the
answer after IO_SECONDS. A client that disconnects early is not news: no traceback, nothing logged.
"""

from __future__ import annotations

import io
import selectors
import socket
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Callable

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

WORKERS = 4
MAX_PENDING = 256
IDLE_SECONDS = 10.0
IO_SECONDS = 5.0
MAX_HEAD = 8192  # request line and headers; a scrape or probe sends a few hundred bytes
Check = Callable[[], tuple[bool, str]]


class _Listener(HTTPServer):
    request_queue_size = 128  # the accept loop drains it; socketserver's 5 drops SYNs under a burst


class MetricsServer:
    def __init__(self, host: str, port: int, registry: CollectorRegistry, health: Check, live: Check | None = None):
        self._http = _Listener((host, port), _handler(registry, {"/healthz": health, "/readyz": health,
                                                                  "/livez": live or health}))
        self.server_address = self._http.server_address
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="http")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="http", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        sel = selectors.DefaultSelector()
        listener = self._http.socket
        listener.setblocking(False)
        sel.register(listener, selectors.EVENT_READ)
        pending: OrderedDict[socket.socket, tuple[float, object, bytearray]] = OrderedDict()

        def drop(conn: socket.socket) -> None:
            pending.pop(conn, None)
            sel.unregister(conn)
            conn.close()

        while not self._stop.is_set():
            for key, _ in sel.select(timeout=0.5):
                if key.fileobj is listener:
                    try:
                        conn, addr = listener.accept()
                    except OSError:
                        continue
                    if len(pending) >= MAX_PENDING:
                        drop(next(iter(pending)))
                    conn.setblocking(False)
                    pending[conn] = (time.monotonic(), addr, bytearray())
                    sel.register(conn, selectors.EVENT_READ)
                else:
                    conn = key.fileobj
                    _, addr, head = pending[conn]
                    try:
                        data = conn.recv(MAX_HEAD)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    head += data
                    if not data or len(head) > MAX_HEAD:  # gone, or not a scrape
                        drop(conn)
                    elif b"\r\n\r\n" in head or b"\n\n" in head:
                        pending.pop(conn)
                        sel.unregister(conn)
                        self._pool.submit(self._serve, conn, addr, bytes(head))
            cutoff = time.monotonic() - IDLE_SECONDS
            while pending and next(iter(pending.values()))[0] < cutoff:
                drop(next(iter(pending)))
        for conn in pending:
            conn.close()
        sel.close()

    def _serve(self, conn: socket.socket, addr, head: bytes) -> None:
        try:
            conn.settimeout(IO_SECONDS)
            self._http.RequestHandlerClass(conn, addr, self._http, head)
        except OSError:  # reset, broken pipe, timeout: the client went away
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def shutdown(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._http.server_close()


def _handler(registry: CollectorRegistry, checks: dict[str, Check]):
    class Handler(BaseHTTPRequestHandler):
        def __init__(self, request, client_address, server, head: bytes = b"") -> None:
            self._head = head
            super().__init__(request, client_address, server)

        def setup(self) -> None:
            super().setup()
            self.rfile = io.BytesIO(self._head)  # the whole request, already read by the selector loop

        def do_GET(self) -> None:  # noqa: N802
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                body, code, ctype = generate_latest(registry), 200, CONTENT_TYPE_LATEST
            elif path in checks:
                ok, text = checks[path]()
                body, code, ctype = (text + "\n").encode(), 200 if ok else 503, "text/plain; charset=utf-8"
            else:
                body, code, ctype = b"not found: try /metrics, /healthz or /livez\n", 404, "text/plain"
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:  # scrapes are not news
            pass

    return Handler


def serve(host: str, port: int, registry: CollectorRegistry, health: Check, live: Check | None = None) -> MetricsServer:
    return MetricsServer(host, port, registry, health, live)
