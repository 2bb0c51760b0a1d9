"""List, then watch, one resource for as long as the controller runs (an informer without its cache).

- The list is paged (`limit` / `continue`); each object is handed on as ADDED, then SYNCED with the keys the
  list held, so the consumer forgets what was deleted while it was not watching.
- The watch resumes from the last resourceVersion it saw (objects and BOOKMARKs) when the stream ends or the
  connection drops; `410 Gone` (the version was compacted away), as an ERROR event on the stream or as the HTTP
  status of the watch request, relists.  Errors back off (1 s doubling to
  `max_backoff`, jittered) and never end the loop; so does a stream the server ends within `SHORT_WATCH` seconds
  with nothing sent (a proxy closing each stream at once: client-go's "very short watch"), which resuming at once
  would ask again in a tight loop.  Only an event or a BOOKMARK counts as sent, as client-go counts decoded events:
  blank lines are no event (the python client yields them as '' since kubernetes-client/python#2372).
- A list the API server refuses (RBAC denying the verb, a kind no longer served: any 4xx but 401 and 429) is said
  in one line naming the verb and the resource (the server's own message) and asked again with backoff; the
  watcher counts as synced meanwhile, so that the controller does not wait for it to decide what the other
  resources say.
- Raw JSON (`_preload_content=False`, decoded by kubeapi.pager's msgspec decoder): the client's models cost several
  times the memory and CPU of a dict.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any, Callable

from kubeapi.pager import decode, pages
from kubeapi.retry import Backoff, describe, refusal

log = logging.getLogger("gpu_npd.cluster")

SHORT_WATCH = 1.0  # seconds: a stream ended sooner with nothing sent is a failure (backed off), as client-go has it

Emit = Callable[[str, str, Any], None]  # (resource, ADDED | MODIFIED | DELETED | SYNCED, object or keys)


class Gone(Exception):
    """The resourceVersion asked for is older than the server keeps: relist."""


class ShortWatch(Exception):
    """The server ended the stream at once, nothing sent: asked again after a backoff, not at once."""


def key_of(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("namespace") or "", meta.get("name") or ""


class Watcher:
    def __init__(self, resource: str, call: Callable[..., Any], emit: Emit, stop: threading.Event, *,
                 page: int = 500, timeout_seconds: int = 300, request_timeout: float = 30.0,
                 max_backoff: float = 30.0, count: Callable[[str, str], None] | None = None, **selectors: str):
        self.resource, self.call, self.emit, self.stop = resource, call, emit, stop
        self.page, self.timeout_seconds, self.request_timeout = page, timeout_seconds, request_timeout
        self.max_backoff, self.selectors = max_backoff, {k: v for k, v in selectors.items() if v}
        self.count = count or (lambda resource, reason: None)
        self.synced = threading.Event()
        self._resp = None
        self.thread = threading.Thread(target=self.run, name=f"watch-{resource}", daemon=True)

    def start(self) -> "Watcher":
        self.thread.start()
        return self

    def close(self) -> None:
        """End the stream now.  The socket is shut down first: that wakes the thread blocked reading it (EOF).
        Closing the response alone waits for that read to return (the reader holds the buffer's lock): until the
        server's next line, a BOOKMARK about a minute apart on a quiet resource, per watcher."""
        resp = self._resp
        if resp is None:
            return
        sock = getattr(getattr(resp, "connection", None), "sock", None)
        try:
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        except Exception:  # noqa: BLE001 - already closed or reset: the read has returned
            pass
        try:
            resp.close()
        except Exception:  # noqa: BLE001
            pass

    def run(self) -> None:
        rv: str | None = None
        retry = Backoff(self.stop, self.max_backoff, f"watch of {self.resource}", log,
                        lambda kind: self.count(self.resource, kind))
        while not self.stop.is_set():
            try:
                if rv is None:
                    rv = self.relist()
                rv = self.watch(rv)
                retry.ok()
            except Gone:
                self.count(self.resource, "gone")
                log.info("watch of %s: resourceVersion %s is gone; listing again", self.resource, rv)
                rv = None
            except Exception as exc:  # noqa: BLE001 - API down, connection reset, timeout: back off, resume
                if self.stop.is_set():
                    break
                if rv is None and refusal(exc) and not self.synced.is_set():
                    log.error("watch of %s: the list is refused (%s); incidents are decided without it until it is "
                              "granted", self.resource, describe(exc))
                    self.synced.set()
                retry.failed(exc)

    def relist(self) -> str:
        keys: set[tuple[str, str]] = set()
        meta: dict = {}
        for page in pages(self.call, self.page, self.request_timeout, restart=keys.clear, **self.selectors):
            for obj in page.get("items") or []:
                keys.add(key_of(obj))
                self.emit(self.resource, "ADDED", obj)
            meta = page.get("metadata") or {}
        self.emit(self.resource, "SYNCED", keys)
        self.synced.set()
        return str(meta.get("resourceVersion") or "")

    def watch(self, rv: str) -> str:
        """Stream changes after `rv`; returns the resourceVersion to resume from when the stream ends."""
        from kubernetes.watch.watch import iter_resp_lines  # noqa: PLC0415

        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        try:
            resp = self.call(watch=True, resource_version=rv, allow_watch_bookmarks=True,
                             timeout_seconds=self.timeout_seconds, _preload_content=False,
                             _request_timeout=(self.request_timeout, self.timeout_seconds + 30), **self.selectors)
        except ApiException as exc:
            if exc.status == 410:  # the answer to the start itself (a server reading etcd, not its watch cache)
                raise Gone() from exc
            raise
        self._resp = resp
        started, sent = time.monotonic(), False
        try:
            for line in iter_resp_lines(resp):
                if self.stop.is_set():
                    break
                if not line.strip():  # a blank keep-alive line (a proxy's), not an event: no proof the watch works
                    continue
                sent = True
                ev = decode(line)
                kind, obj = ev.get("type"), ev.get("object") or {}
                if kind == "ERROR":
                    if obj.get("code") == 410:
                        raise Gone()
                    raise WatchError(obj.get("code"), obj.get("message", ""))
                new_rv = (obj.get("metadata") or {}).get("resourceVersion")
                if kind != "BOOKMARK":
                    self.emit(self.resource, kind, obj)
                if new_rv:
                    rv = str(new_rv)
        finally:
            self._resp = None
            try:
                resp.release_conn()
            except Exception:  # noqa: BLE001
                pass
        if not sent and not self.stop.is_set() and time.monotonic() - started < SHORT_WATCH:
            raise ShortWatch(f"the server ended the stream within {SHORT_WATCH:g} s, nothing sent")
        self.count(self.resource, "closed")
        return rv


class WatchError(Exception):
    def __init__(self, status: Any, message: str):
        super().__init__(f"watch error {status}: {message}")
        self.status = status
