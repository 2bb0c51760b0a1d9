"""The metrics listener under idle, slow and impatient clients (issues 16, 17)."""

from __future__ import annotations

import socket
import threading
import urllib.error
import urllib.request

from prometheus_client import CollectorRegistry, Counter

from agent import httpserver


def _server():
    reg = CollectorRegistry()
    Counter("probe", "a series", registry=reg).inc()
    return httpserver.serve("127.0.0.1", 0, reg, lambda: (True, "ok"))


def _get(port: int, path: str = "/metrics") -> str:
    return urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5).read().decode()


def test_idle_connections_hold_no_threads_and_scrapes_still_answer():
    srv = _server()
    port = srv.server_address[1]
    before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(300)]  # more than MAX_PENDING
    try:
        assert "probe_total 1.0" in _get(port)
        assert _get(port, "/healthz").startswith("ok")
        assert threading.active_count() <= before + httpserver.WORKERS
    finally:
        for s in idle:
            s.close()
        srv.shutdown()


def test_client_that_disconnects_early_is_not_news(capfd):
    srv = _server()
    port = srv.server_address[1]
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close
        s.close()
    half = socket.create_connection(("127.0.0.1", port))
    half.sendall(b"GET /met")  # stalls mid-request line: a worker waits IO_SECONDS at most, then moves on
    assert "probe_total" in _get(port)
    half.close()
    srv.shutdown()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_livez_fails_only_on_a_stalled_engine():
    reg = CollectorRegistry()
    srv = httpserver.serve("127.0.0.1", 0, reg, lambda: (False, "source kernel-log is down"), lambda: (True, "ok"))
    port = srv.server_address[1]
    try:
        assert _get(port, "/livez").startswith("ok")
        try:
            _get(port, "/healthz")
            raise AssertionError("healthz should be 503")
        except urllib.error.HTTPError as exc:
            assert exc.code == 503 and b"kernel-log" in exc.read()
    finally:
        srv.shutdown()
