"""Kubernetes Events: aggregated (a repeat updates the count of the event it repeats) and rate limited
(a token bucket; what waits is aggregated, never dropped unless the bounded backlog overflows or the API server
refuses the Event itself)."""

from __future__ import annotations

import hashlib
import logging
import operator
import threading
import time
from collections import OrderedDict
from datetime import datetime, timezone
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from .dropped import DROP_REASONS, MAX_PENDING
from .message import message_of
from .ratelimit import TokenBucket
from .retry import describe, refusal

log = logging.getLogger("gpu_npd.kube")


def iso(ts: float, micro: bool = False) -> str:
    """RFC 3339 in UTC to the second, as the API's Time fields want it; `micro`: to the microsecond, as its MicroTime
    fields (an Event's eventTime) want it."""
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")


# Every Event is written with an eventTime (core/v1 and events.k8s.io/v1: "Time when this Event was first observed",
# to the microsecond), so every one must name its action and its reporting instance in at most 128 characters, and
# one on a Node (no namespace of its own) be in `default` or `kube-system` (the API server's validation of core/v1
# Events, kubernetes pkg/apis/core/validation/events.go legacyValidateEvent; without an eventTime it checks none of
# them): what the writer did, and the node (a name of up to 253)
ACTION = "Detected"
INSTANCE_MAX = 128


@dataclass
class Ref:
    kind: str  # Node | Pod | the kind of a job's owner
    name: str
    namespace: str = ""
    uid: str = ""
    api_version: str = "v1"


class _Key(NamedTuple):
    """What an aggregate is kept under: the object's kind, namespace and name, the reason, the caller's key."""
    kind: str
    namespace: str
    name: str
    reason: str
    key: str


_REF = operator.attrgetter(*_Key._fields[:3])  # a Ref's part of its key


@dataclass
class _Agg:
    ref: Ref
    reason: str
    message: str
    type: str
    first: float
    last: float
    count: int = 0  # occurrences so far
    written: int = 0  # occurrences the API already shows
    name: str | None = None  # the Event object once created
    fixed_name: str | None = None  # the caller's name for the Event (stable across restarts), else a digest
    annotations: dict[str, str] | None = None
    at: float | None = None  # the time of what the message says, where the caller knows it (`record`'s `at`)


class EventRecorder:
    def __init__(self, namespace: str, host: str, burst: int = 25, per_minute: float = 12,
                 aggregate_seconds: float = 600, clock: Callable[[], float] = time.time,
                 component: str = "gpu-npd"):
        self.namespace, self.host, self.clock, self.component = namespace, host, clock, component
        self.aggregate_seconds = aggregate_seconds
        self.bucket = TokenBucket(per_minute / 60.0, burst, time.monotonic)
        self._aggs: OrderedDict[_Key, _Agg] = OrderedDict()  # the aggregate of the occurrences under each key
        self._lock = threading.Lock()
        self.dropped = dict.fromkeys(DROP_REASONS, 0)  # Events dropped since start, by reason: only ever grows

    def record(self, ref: Ref, reason: str, message: str, type_: str = "Warning", key: str | None = None,
               count: int = 1, name: str | None = None, first: float | None = None, total: int | None = None,
               annotations: dict[str, str] | None = None, at: float | None = None) -> None:
        """Note an occurrence; `key` groups repeats (default: reason and message).  A caller that keeps its own
        identity for the Event gives its `name` (a retried or restarted create then patches that Event), may
        give when it began (`first`) and its count so far (`total`), and annotations for tools.  `at`: when what
        the message says happened (a quoted line's own time, sub-second).  The Event's eventTime (when what it says
        was first observed) goes with its message, the latest occurrence's: that occurrence's `at`, else, where it
        gives none (what the writer itself did or decided), when the Event began (`first`, else the recorder's clock
        at its first occurrence) -- never an earlier occurrence's `at` beside a later message it is not the time of.
        Its latest occurrence is lastTimestamp (to the second), as core/v1 aggregates an Event (`count`).  `count` 0:
        the latest occurrence re-worded (what a later line added to it), written again as it now reads; of an Event not
        held (never recorded, dropped, aggregated out), an occurrence."""
        now = self.clock()
        k = _Key(*_REF(ref), reason, key if key is not None else message)
        with self._lock:
            agg = self._aggs.get(k)
            if agg is None or now - agg.first > self.aggregate_seconds:
                if agg is not None and agg.count > agg.written:
                    return self._bump(agg, message, now, count, at)  # flush the old one first: keep counting it
                agg = self._aggs[k] = _Agg(ref, reason, message, type_, first if first is not None else now, now,
                                           fixed_name=name)
                count = count or 1
            self._bump(agg, message, now, count, at)
            if total is not None:
                agg.count = max(agg.count, total)
            if annotations is not None:
                agg.annotations = annotations
            self._aggs.move_to_end(k)
            while len(self._aggs) > MAX_PENDING:
                self._aggs.popitem(last=False)
                self.dropped["overflow"] += 1

    def written(self, ref: Ref, reason: str, key: str) -> bool:
        """Whether the Event recorded under `key` is in the API with every occurrence recorded so far: what a
        caller that must not act before its Event is written waits for (the flushing thread writes it)."""
        progress = self.progress(ref, reason, key)
        return progress is not None and progress[1] >= progress[0]

    def progress(self, ref: Ref, reason: str, key: str) -> tuple[int, int] | None:
        """The occurrences recorded under `key` so far and those the API shows (as `written`, but for one occurrence
        of many: it is written once the second reaches the first as it was then); None: none held (never recorded,
        or dropped: the API server refused it)."""
        with self._lock:
            agg = self._aggs.get(_Key(*_REF(ref), reason, key))
            return None if agg is None else (agg.count, agg.written if agg.name is not None else 0)

    @staticmethod
    def _bump(agg: _Agg, message: str, now: float, count: int, at: float | None = None) -> None:
        if not count and message != agg.message:  # re-worded: its latest occurrence is due again, as it now reads
            agg.written = min(agg.written, agg.count - 1)
        agg.count += count
        agg.last = now
        agg.message, agg.at = message, at

    def pending(self) -> int:
        with self._lock:
            return sum(1 for a in self._aggs.values() if a.count > a.written)

    def flush(self, api, timeout: float) -> int:
        """Write what is due, within the rate limit; returns API writes made.  Raises on API errors
        (what was not written stays pending: 401 too, the credentials, not the Event), but for an Event the API server
        refuses (a 4xx but 401 and 429: its namespace being deleted or gone, RBAC): that one is dropped, counted in
        `dropped['rejected']` and logged, as client-go's recorder drops it, and the next is written.  One thread
        flushes (`record` may be called from any)."""
        writes = 0
        now = self.clock()
        with self._lock:
            due = [(k, a) for k, a in self._aggs.items() if a.count > a.written]
            for k in [k for k, a in self._aggs.items() if a.count == a.written and now - a.first > self.aggregate_seconds]:
                del self._aggs[k]
        for key, agg in due:
            if not self.bucket.take():
                break
            try:
                writes += self._write(api, agg, timeout)
            except Exception as exc:
                if not refusal(exc):
                    raise
                with self._lock:
                    if self._aggs.get(key) is agg:
                        del self._aggs[key]
                self.dropped["rejected"] += 1
                log.warning("Event %s on %s %s/%s refused, dropped: %s", agg.reason, agg.ref.kind,
                            agg.ref.namespace or self.namespace, agg.ref.name, describe(exc))
        return writes

    def _write(self, api, agg: _Agg, timeout: float) -> int:
        """One Event created or patched: 1, or 0 where it expired on the server (created again at the next flush)."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        with self._lock:  # one consistent picture of the aggregate: record() may be bumping it meanwhile
            body, sent = self._body(agg), agg.count
        ns = agg.ref.namespace or self.namespace
        if agg.name is None:
            digest = hashlib.sha1(f"{agg.ref.name}|{agg.reason}|{agg.message}|{agg.first}".encode()).hexdigest()[:16]
            name = agg.fixed_name or f"{agg.ref.name}.{digest}"  # deterministic: a retried create names the same Event
            created = {**body, "metadata": {**body.get("metadata", {}), "name": name, "namespace": ns}}
            try:
                api.create_namespaced_event(ns, created, _request_timeout=timeout)
            except ApiException as exc:
                if exc.status != 409:
                    raise
                # AlreadyExists: an earlier create was committed but its reply was lost. It is ours;
                # bring its count up to date instead of failing on it forever.
                api.patch_namespaced_event(name, ns, body, _request_timeout=timeout,
                                           _content_type="application/strategic-merge-patch+json")
            agg.name = name
        else:
            try:
                api.patch_namespaced_event(agg.name, ns, body, _request_timeout=timeout,
                                           _content_type="application/strategic-merge-patch+json")
            except ApiException as exc:
                if exc.status != 404:
                    raise
                agg.name = None  # expired on the server (event TTL): create it again
                return 0
        agg.written = max(agg.written, sent)  # what was recorded after the body was made is still due
        return 1

    def _body(self, agg: _Agg) -> dict[str, Any]:
        obj = {"kind": agg.ref.kind, "name": agg.ref.name, "apiVersion": agg.ref.api_version}
        if agg.ref.namespace:
            obj["namespace"] = agg.ref.namespace
        if agg.ref.uid:
            obj["uid"] = agg.ref.uid
        body = {"apiVersion": "v1", "kind": "Event", "involvedObject": obj, "reason": agg.reason,
                "message": message_of(agg.message), "type": agg.type, "count": agg.count,
                "firstTimestamp": iso(agg.first), "lastTimestamp": iso(agg.last),
                "source": {"component": self.component, "host": self.host},
                "reportingComponent": self.component, "reportingInstance": self.host[:INSTANCE_MAX],
                "eventTime": iso(agg.first if agg.at is None else agg.at, micro=True), "action": ACTION}
        if agg.annotations:
            body["metadata"] = {"annotations": dict(agg.annotations)}
        return body
