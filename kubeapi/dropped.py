"""The count of Kubernetes Events dropped, never written, as a Prometheus collector (`DroppedEvents`), apart from
the recorders (kubeapi/events.py) so that a process exporting it from the start (the agent's metrics, local mode
included) does not load the writers' modules (kubeapi/retry.py: tests/agent/test_idle_footprint.py)."""

from __future__ import annotations

MAX_PENDING = 512  # distinct Events a recorder keeps pending; past it the oldest aggregate is forgotten

# Why an Event is dropped, never written: the API server refused it for good (`flush`), or the pending backlog was
# full (`record`: the oldest aggregate forgotten).  The label values of gpu_npd_events_dropped_total.
DROP_REASONS = ("rejected", "overflow")


class DroppedEvents:
    """A Prometheus collector: the Events its recorders dropped, by reason (DROP_REASONS), read at scrape time
    from the recorders' own counts.  Every reason is exported from the start, at 0 with no recorder yet (local
    mode); recorders are only ever added, so the totals never go down."""

    def __init__(self) -> None:
        self._recorders: list = []  # EventRecorder (kubeapi/events.py)

    def add(self, recorder):
        self._recorders.append(recorder)
        return recorder

    def describe(self):
        return []

    def collect(self):
        from prometheus_client.core import CounterMetricFamily  # noqa: PLC0415

        fam = CounterMetricFamily("gpu_npd_events_dropped", "Kubernetes Events dropped, never written, by reason "
                                  "(rejected: the API server refused the Event for good, a 4xx but 401 and 429, "
                                  "e.g. its namespace gone or being deleted, RBAC; overflow: more distinct Events "
                                  f"pending than the recorder holds, {MAX_PENDING}, the oldest forgotten).",
                                  labels=["reason"])
        recorders = list(self._recorders)
        for reason in DROP_REASONS:
            fam.add_metric([reason], sum(r.dropped[reason] for r in recorders))
        yield fam
