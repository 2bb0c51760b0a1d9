"""Retrying a Kubernetes API call: how long to wait (the server's Retry-After, else exponential backoff with jitter)
and how to name a failure in a metric label and a log line.  Shared by every program that talks to the API:
`Backoff`, the retry step of a loop that must go on (the cluster component's watches and recovery); `Worker`, a
thread woken to run its loop until stopped (agent/kube/poddevices.py); and `WriterThread`, a Worker with the retry
step of a writer that must not block its producer (agent/kube/sink.py, agent/kube/podfault.py, the cluster
component's Event writer)."""

from __future__ import annotations

import json
import logging
import random
import threading
from typing import Callable


def api_errors() -> tuple[type[BaseException], ...]:
    """What a failed API call raises: the server's answer (ApiException), no answer (urllib3's errors, which are no
    OSError: a refused connection is NewConnectionError), a socket's OSError, and the client's RuntimeError."""
    from kubernetes.client.rest import ApiException  # noqa: PLC0415 - loaded with the client, not before
    from urllib3.exceptions import HTTPError  # noqa: PLC0415

    return ApiException, HTTPError, OSError, RuntimeError


def next_delay(backoff: float, retry_after: float | None, maximum: float,
               jitter: Callable[[], float] = lambda: random.uniform(0.8, 1.2)) -> tuple[float, float]:
    """(wait now, backoff to remember) after a failed write. The server's Retry-After is the wait, as given
    (capped at the maximum), and does not grow the backoff; otherwise exponential from 1 s with jitter.
    Never longer than `maximum`."""
    if retry_after is not None:
        return min(retry_after, maximum), backoff
    backoff = min(max(1.0, backoff * 2), maximum)
    return min(backoff * jitter(), maximum), backoff


def retry_after(exc: Exception) -> float | None:
    headers = getattr(exc, "headers", None) or {}
    value = headers.get("Retry-After") if hasattr(headers, "get") else None
    try:
        return min(float(value), 300.0) if value is not None else None
    except ValueError:
        return None


# error_kind's words for a failure the API server did not answer (with an answer: its HTTP status); a counter of
# failures by kind exports these at 0 from the start, so an alert's increase() sees the first one
UNANSWERED = CONNECTION, TIMEOUT = ("connection", "timeout")


def error_kind(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    if isinstance(status, int) and status:
        return str(status)
    return TIMEOUT if "timeout" in type(exc).__name__.lower() or "timed out" in str(exc).lower() else CONNECTION


def refusal(exc: Exception) -> bool:
    """Whether the API server answered this one request no (a 4xx but 401 and 429: RBAC, not found, invalid, a
    conflict): a writer of other objects may go on.  No answer, 429 or a 5xx: the API is down or overloaded, stop
    asking.  401: the credentials were not accepted, so every request would get it (a rotated service-account token
    the client reads again at most a minute later: the in-cluster loader's refresh hook): stop and try again."""
    status = getattr(exc, "status", None)
    return isinstance(status, int) and 400 <= status < 500 and status not in (401, 429)


def describe(exc: Exception) -> str:
    """An API failure in one line: the HTTP status and reason, and the API server's own message when its body is a
    Status (RBAC's names the verb and the resource denied), else the exception's type and text (cut to 300)."""
    status = getattr(exc, "status", None)
    if status:
        message = _status_message(getattr(exc, "body", None))
        text = f"HTTP {status} {getattr(exc, 'reason', '')}" + (f": {message}" if message else "")
    else:
        text = f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())[:300]


def _status_message(body: object) -> str:
    """The `message` of a Status body (JSON text or bytes), "" when the body is none (a proxy's HTML, empty)."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str) or not body.lstrip().startswith("{") or len(body) > 65536:
        return ""
    try:
        status = json.loads(body)
    except ValueError:
        return ""
    message = status.get("message") if isinstance(status, dict) else None
    return message if isinstance(message, str) else ""



class Backoff:
    """The retry step of a loop that must go on whatever the API does: after a failure `failed` counts it
    (`count_error(error_kind)`), says it in one line, and waits `next_delay` (or until `stop` is set); `ok` after a
    success starts the backoff again from 1 s."""

    def __init__(self, stop: threading.Event, maximum: float, what: str, log: logging.Logger,
                 count_error: Callable[[str], None] = lambda _: None):
        self.stop, self.maximum, self.what, self.log, self.count_error = stop, maximum, what, log, count_error
        self.backoff = 0.0

    def failed(self, exc: Exception) -> float:
        delay, self.backoff = next_delay(self.backoff, retry_after(exc), self.maximum)
        self.count_error(error_kind(exc))
        self.log.warning("%s failed (%s); retrying in %.1f s", self.what, describe(exc), delay)
        self.stop.wait(delay)
        return delay

    def ok(self) -> None:
        self.backoff = 0.0


class Worker:
    """A daemon thread named `name` running the subclass's `run` (its loop waits on `wake` until `stop`); `close`
    sets `stop`, wakes it and waits for it."""

    def __init__(self, name: str, stop: threading.Event):
        self.stop = stop
        self.wake = threading.Event()
        self._name = name
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name=self._name, daemon=True)
        self._thread.start()

    def close(self, timeout: float = 2.0) -> None:
        self.stop.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(timeout)


class WriterThread(Worker):
    """Base of an API writer that must never block its producer: its own thread runs the subclass's `run` (its
    loop: wait on `wake`, then a pass through `attempt`).  `attempt` backs off after any failure (`Backoff`: counted
    with `count_error(error_kind)`, said, waited) and sets `wake` to try again with whatever is latest then;
    `up(1)`/`up(0)` after each pass: whether the API answered."""

    def __init__(self, name: str, stop: threading.Event, max_backoff: float, what: str, log: logging.Logger,
                 count_error: Callable[[str], None], up: Callable[[float], None] = lambda _: None):
        super().__init__(name, stop)
        self._up = up
        self._retry = Backoff(stop, max_backoff, what, log, count_error)

    def attempt(self, sync: Callable[[], None]) -> None:
        try:
            sync()
        except Exception as exc:  # noqa: BLE001 - any API failure: back off, keep what is pending
            self._up(0)
            self._retry.failed(exc)
            self.wake.set()
        else:
            self._retry.ok()
            self._up(1)
