"""/metrics, /healthz (readiness: engine and sources) and /livez (the engine only) on one small HTTP server that no client can wear down.

One selector loop owns every connection from accept to close, and never blocks on one:
- it reads each request head (up to MAX_HEAD bytes) without blocking, so idle clients and slow senders
  (slowloris) cost a socket, never a thread;
- probes (/healthz, /readyz, /livez) are answered in the loop itself: they read state and cost microseconds,
  so no /metrics client, however slow, stands between kubelet and a probe;
- /metrics bodies are rendered by one worker thread, at most one render at a time, and one render is shared
  by every scrape that was waiting when it began (a thousand scrapers cost one render, and no scrape gets a
  render older than its request);
- answers are written without blocking as the client reads them; a client that stops reading is closed
  IO_SECONDS after its answer was ready; the answer is one shared bytes object (no copy per client) and the
  kernel holds at most SEND_BUFFER bytes of it per connection;
- at most MAX_CONNECTIONS are held in all (the oldest is closed past that), each for at most IDLE_SECONDS
  from accept to a complete head.
A client that disconnects early is not news: no traceback, nothing logged. HTTP/1.0: one request per
connection, `Connection: close`.
"""

from __future__ import annotations

import selectors
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

WORKERS = 1  # threads that render /metrics (the loop is the other)
MAX_CONNECTIONS = 256
IDLE_SECONDS = 10.0
IO_SECONDS = 5.0
MAX_HEAD = 8192  # request line and headers; a scrape or probe sends a few hundred bytes
SEND_BUFFER = 64 << 10  # bytes the kernel holds per connection (fixed: no autotuning to megabytes per stuck client)
TICK_SECONDS = 0.5  # the loop's longest sleep in select while it holds connections: how often it looks for those past
# their time; with none it sleeps until one comes (or the wake pipe: a render done, shutdown)
Check = Callable[[], tuple[bool, str]]
PROBES = ("/healthz", "/readyz", "/livez")
NOT_FOUND = b"not found: try /metrics, /healthz or /livez\n"
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"}


@dataclass(eq=False)
class _Conn:
    sock: socket.socket
    since: float  # accept time, then when it began to wait for a render, then when its answer was ready
    head: bytearray = field(default_factory=bytearray)
    out: memoryview | None = None  # the answer still to send
    head_only: bool = False


def response(code: int, body: bytes, ctype: str, head_only: bool = False) -> bytes:
    status = f"HTTP/1.0 {code} {REASONS.get(code, '')}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n" \
             "Connection: close\r\n\r\n"
    return status.encode() + (b"" if head_only else body)


def request_target(head: bytes) -> tuple[str, str] | None:
    """(method, path without the query) of a request head, None when its first line is no request line."""
    line = head.split(b"\n", 1)[0].strip()
    parts = line.split()
    if len(parts) not in (2, 3) or not parts[1].startswith(b"/"):
        return None
    return parts[0].decode("latin-1"), parts[1].split(b"?", 1)[0].decode("latin-1")


class MetricsServer:
    def __init__(self, host: str, port: int, registry: CollectorRegistry, health: Check, live: Check | None = None):
        self._checks = {"/healthz": health, "/readyz": health, "/livez": live or health}
        self._registry = registry
        try:
            # the family the address is of (as http.server's): an IPv6 pod IP (an IPv6 cluster's "$(POD_IP):9810")
            # bound as IPv4 was "Address family for hostname not supported", and the agent never started
            # an ASCII host (an address, a plain name) asked as bytes: a str host is encoded with the idna codec,
            # whose import (encodings.idna, stringprep, unicodedata) held ~0.4 MiB of the idle agent's RSS (issue 24)
            name = host.encode("ascii") if host.isascii() else host
            family = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
            self._listener = socket.create_server((host, port), family=family, backlog=128)
        except OSError as exc:  # "address already in use" says which address
            raise OSError(exc.errno, f"metrics address {host}:{port}: {exc.strerror or exc}") from None
        self._listener.setblocking(False)
        self.server_address = self._listener.getsockname()
        self._sel = selectors.DefaultSelector()
        self._conns: OrderedDict[socket.socket, _Conn] = OrderedDict()  # oldest first
        # asked for /metrics, waiting for a render, in the order they asked (so the last one asked last)
        self._waiting: dict[_Conn, None] = {}
        self._rendered: tuple[float, bytes] | None = None  # (when its render began, full response)
        self._render_lock = threading.Condition()
        self._render_wanted = False
        self._render_began: float | None = None  # when the render under way began
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop = threading.Event()
        self._renderer = threading.Thread(target=self._render_loop, name="http-render", daemon=True)
        self._renderer.start()
        self._thread = threading.Thread(target=self._loop, name="http", daemon=True)
        self._thread.start()

    # ---- the loop: accept, read heads, answer probes, hand out renders, write without blocking -------------

    def _loop(self) -> None:
        sel = self._sel
        sel.register(self._listener, selectors.EVENT_READ, "accept")
        sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        while not self._stop.is_set():
            for key, events in sel.select(timeout=TICK_SECONDS if self._conns else None):
                if key.data == "accept":
                    self._accept()
                elif key.data == "wake":
                    self._drain_wake()
                    self._deliver()
                else:
                    conn = self._conns.get(key.fileobj)
                    if conn is None:
                        continue
                    if conn.out is not None:
                        self._write(conn)
                    else:
                        self._read(conn)
            self._expire()
        for conn in list(self._conns.values()):
            self._close(conn)
        sel.close()

    def _accept(self) -> None:
        for _ in range(64):  # drain a burst, then let the others have a turn
            try:
                sock, _ = self._listener.accept()
            except OSError:  # BlockingIOError (none left), EMFILE, ECONNABORTED
                return
            while len(self._conns) >= MAX_CONNECTIONS:
                self._close(next(iter(self._conns.values())))
            sock.setblocking(False)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
            except OSError:
                pass
            conn = _Conn(sock, time.monotonic())
            self._conns[sock] = conn
            self._sel.register(sock, selectors.EVENT_READ, "conn")

    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(MAX_HEAD)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        conn.head += data
        if not data or len(conn.head) > MAX_HEAD:  # gone, or not a scrape
            self._close(conn)
        elif b"\r\n\r\n" in conn.head or b"\n\n" in conn.head:
            self._answer(conn)

    def _answer(self, conn: _Conn) -> None:
        target = request_target(bytes(conn.head))
        conn.head = bytearray()
        if target is None:
            return self._send(conn, response(400, b"bad request\n", "text/plain"))
        method, path = target
        conn.head_only = method == "HEAD"
        if method not in ("GET", "HEAD"):
            return self._send(conn, response(405, b"GET only\n", "text/plain"))
        if path in PROBES:
            try:
                ok, text = self._checks[path]()
            except Exception as exc:  # noqa: BLE001 - a broken check is a failing probe, never a dead loop
                ok, text = False, f"check failed: {type(exc).__name__}: {exc}"
            return self._send(conn, response(200 if ok else 503, (text + "\n").encode(), "text/plain; charset=utf-8",
                                             conn.head_only))
        if path != "/metrics":
            return self._send(conn, response(404, NOT_FOUND, "text/plain", conn.head_only))
        self._sel.unregister(conn.sock)  # nothing to read or write until its render is ready
        conn.since = time.monotonic()
        self._waiting[conn] = None
        self._deliver()

    def _deliver(self) -> None:
        """Give the scrapes that were waiting when the last render began that render; ask for one for the rest."""
        if not self._waiting:
            return
        with self._render_lock:
            rendered = self._rendered
        if rendered is not None:
            served = [conn for conn in self._waiting if conn.since <= rendered[0]]
            self._waiting = {conn: None for conn in self._waiting if conn.since > rendered[0]}
            for conn in served:
                if conn.sock in self._conns:
                    self._sel.register(conn.sock, selectors.EVENT_WRITE, "conn")
                    answer = rendered[1]
                    if conn.head_only:
                        answer = answer[:answer.index(b"\r\n\r\n") + 4]
                    self._send(conn, answer, registered=True)
        if not self._waiting:
            return
        with self._render_lock:
            if self._rendered is not rendered:
                return  # a newer render finished meanwhile: its wake-up serves the rest
            began = self._render_began
            if began is not None and next(reversed(self._waiting)).since <= began:
                return  # the render under way began after every waiting request: it serves them all
            self._render_wanted = True
            self._render_lock.notify()

    def _send(self, conn: _Conn, answer: bytes, registered: bool = False) -> None:
        conn.out = memoryview(answer)
        conn.since = time.monotonic()
        if not registered:
            self._sel.modify(conn.sock, selectors.EVENT_WRITE, "conn")
        self._write(conn)

    def _write(self, conn: _Conn) -> None:
        try:
            sent = conn.sock.send(conn.out)
        except BlockingIOError:
            return
        except OSError:  # reset, broken pipe: the client went away
            return self._close(conn)
        conn.out = conn.out[sent:]
        if not conn.out:
            self._close(conn)

    def _expire(self) -> None:
        now = time.monotonic()
        for conn in list(self._conns.values()):
            limit = IO_SECONDS if conn.out is not None else IDLE_SECONDS
            if conn in self._waiting:
                limit = IDLE_SECONDS + IO_SECONDS
            if now - conn.since > limit:
                self._close(conn)

    def _close(self, conn: _Conn) -> None:
        if self._conns.pop(conn.sock, None) is None:
            return
        if self._waiting.pop(conn, False) is not None:  # a waiting one is not registered with the selector
            try:
                self._sel.unregister(conn.sock)
            except (KeyError, ValueError):
                pass
        try:
            conn.sock.close()
        except OSError:
            pass

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass

    # ---- the renderer: one /metrics body at a time, off the loop ----------------------------------------

    def _render_loop(self) -> None:
        while True:
            with self._render_lock:
                while not self._render_wanted and not self._stop.is_set():
                    self._render_lock.wait()  # a scrape (_deliver) and shutdown notify under the lock
                if self._stop.is_set():
                    return
                self._render_wanted = False
                began = self._render_began = time.monotonic()
            try:
                body = response(200, generate_latest(self._registry), CONTENT_TYPE_LATEST)
            except Exception as exc:  # noqa: BLE001 - a broken collector is a 503, never a stuck scrape
                body = response(503, f"metrics failed: {type(exc).__name__}: {exc}\n".encode(), "text/plain")
            with self._render_lock:
                self._rendered, self._render_began = (began, body), None
            try:
                self._wake_w.send(b"x")
            except OSError:  # the wake pipe is full: the loop is already due to look
                pass

    def shutdown(self) -> None:
        self._stop.set()
        with self._render_lock:
            self._render_lock.notify()
        try:  # the loop wakes now, not at its next tick (every agent's SIGTERM waited for it: up to 0.5 s)
            self._wake_w.send(b"x")
        except OSError:  # the wake pipe is full: the loop is already due to look
            pass
        self._thread.join(timeout=2)
        self._renderer.join(timeout=2)
        self._listener.close()
        self._wake_r.close()
        self._wake_w.close()


def serve(host: str, port: int, registry: CollectorRegistry, health: Check, live: Check | None = None) -> MetricsServer:
    return MetricsServer(host, port, registry, health, live)
