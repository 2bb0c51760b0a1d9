"""The count of Kubernetes Events dropped, never written, as a Prometheus collector (`dropped_events`; `Dropped`, the
collector, also counts the Events the cluster controller did not keep), apart from the recorders (kubeapi/events.py)
so that a process exporting it from the start (the agent's metrics, local mode included) does not load the writers'
modules (kubeapi/retry.py: tests/agent/test_idle_footprint.py)."""

from __future__ import annotations

MAX_PENDING = 512  # distinct Events a recorder keeps pending; past it the oldest aggregate is forgotten

# Why an Event is dropped, never written: the API server refused it for good (`flush`), or the pending backlog was
# full (`record`: the oldest aggregate forgotten).  The label values of gpu_npd_events_dropped_total.
DROP_REASONS = ("rejected", "overflow")


class Dropped:
    """A Prometheus counter of what its sources dropped, read at scrape time from their own counts (`.dropped`): by
    reason (a dict of `reasons` each; the label `reason`) or, with no reasons, one count (an int each).  Every value is
    exported from the start, at 0 with no source yet (local mode); sources are only ever added and their counts only
    grow, so the totals never go down."""

    def __init__(self, name: str, documentation: str, reasons: tuple[str, ...] = ()) -> None:
        self.name, self.documentation, self.reasons = name, documentation, reasons
        self._sources: list = []  # EventRecorder (kubeapi/events.py), Book (cluster/book.py)

    def add(self, source):
        self._sources.append(source)
        return source

    def describe(self):
        return []

    def collect(self):
        from prometheus_client.core import CounterMetricFamily  # noqa: PLC0415

        fam = CounterMetricFamily(self.name, self.documentation, labels=["reason"] if self.reasons else [])
        sources = list(self._sources)
        for reason in self.reasons:
            fam.add_metric([reason], sum(s.dropped[reason] for s in sources))
        if not self.reasons:
            fam.add_metric([], sum(s.dropped for s in sources))
        yield fam


def dropped_events() -> Dropped:
    """gpu_npd_events_dropped_total{reason}: the Events its recorders dropped, by reason (DROP_REASONS)."""
    return Dropped("gpu_npd_events_dropped", "Kubernetes Events dropped, never written, by reason (rejected: the API "
                   "server refused the Event for good, a 4xx but 401 and 429, e.g. its namespace gone or being deleted, "
                   "RBAC; overflow: more distinct Events pending than the recorder holds, "
                   f"{MAX_PENDING}, the oldest forgotten).", DROP_REASONS)
