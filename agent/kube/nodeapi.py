"""What every Kubernetes writer of the node shares (`NodeApi`): the client, the node's name, the settings, the
client-side rate limit and the write counters.  Apart from the writers (agent/kube/sink.py) so that what only
reads (the pod -> device cache, agent/kube/poddevices.py) does not load them."""

from __future__ import annotations

import json
import threading
from typing import Any

from kubeapi.client import call
from kubeapi.events import EventRecorder
from kubeapi.ratelimit import TokenBucket
from kubeapi.retry import UNANSWERED

from .settings import KubeSettings

# A Node's Events live in "default", as kubelet's do: the API server takes an Event of a cluster-scoped object only
# there or in no namespace (kubernetes pkg/apis/core/validation/events.go; any other is refused, 422).  A Pod's go to
# the pod's namespace (its reference's).
NODE_EVENTS = "default"
# gpu_npd_kube_errors_total's kind for a node write another writer's came before (409: read again, written again)
CONFLICT = "conflict"


class NodeApi:
    """What every writer shares: the client, the node's name, the settings, the rate limit, the write counter."""

    def __init__(self, api, node: str, s: KubeSettings, metrics=None):
        self.api, self.node, self.s, self.metrics = api, node, s, metrics
        self.stop = threading.Event()
        self.bucket = TokenBucket(s.qps, s.burst)
        if metrics is not None:  # the kinds known at 0 from the writer's start: an alert's increase() sees the first
            for kind in (*UNANSWERED, CONFLICT):
                metrics.kube_errors.labels(kind)

    def wait(self) -> None:
        """Client-side QPS limit: blocks the writer thread, never the agent."""
        while not self.bucket.take() and not self.stop.is_set():
            self.stop.wait(1.0 / self.bucket.rate / 4)

    def get_node(self) -> dict:
        self.wait()
        resp = self.api.read_node(self.node, _preload_content=False, _request_timeout=self.s.request_timeout_seconds)
        return json.loads(resp.data)

    def call(self, method: str, path: str, body: Any = None, query: list | None = None) -> Any:
        """One API request under the QPS limit (the writers' and the DRA fencer's)."""
        self.wait()
        return call(self.api, method, path, body, query, self.s.request_timeout_seconds)

    def recorder(self, clock) -> EventRecorder:
        """An Event recorder as the settings say, its dropped Events exported (gpu_npd_events_dropped_total)."""
        rec = EventRecorder(NODE_EVENTS, self.node, self.s.event_burst, self.s.events_per_minute,
                            self.s.event_aggregate_seconds, clock)
        return self.metrics.events_dropped.add(rec) if self.metrics is not None else rec

    def count(self, kind: str, n: int = 1) -> None:
        if self.metrics is not None and n:
            self.metrics.kube_writes.labels(kind).inc(n)

    def count_error(self, kind: str) -> None:
        if self.metrics is not None:
            self.metrics.kube_errors.labels(kind).inc()
