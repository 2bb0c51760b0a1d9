"""The controller's Prometheus metrics, in a registry of its own."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge

from kubeapi.dropped import Dropped, dropped_events
from kubeapi.retry import UNANSWERED
from triage import CATEGORIES

from .recovery import RESULTS

# where the controller's loop met a bug on one input (gpu_npd_cluster_internal_errors_total{stage}): applying a watched
# object, a round of attribution
INTERNAL_STAGES = APPLY, ATTRIBUTION = ("apply", "attribution")


class Metrics:
    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.incidents = Counter("gpu_npd_job_incidents", "Job incidents opened, by the category of their first "
                                 "verdict", ["category"], registry=r)
        for c in CATEGORIES:
            self.incidents.labels(c)
        self.recoveries = Counter("gpu_npd_recoveries", "Cascading-recovery decisions, by result (observed, "
                                  "restarted, budget_exhausted, namespace_budget_exhausted; rate_limited: a restart "
                                  "that waits for the cluster-wide rate limit, once per incident), and restarts that "
                                  "left pods not deleted (failed)", ["result"], registry=r)
        for result in RESULTS:
            self.recoveries.labels(result)
        self.pod_deletions = Counter("gpu_npd_recovery_pod_deletions", "Pods deleted by cascading recovery",
                                     registry=r)
        self.leader = Gauge("gpu_npd_cluster_leader", "1 while this replica holds the Lease", registry=r)
        self.watch_restarts = Counter("gpu_npd_cluster_watch_restarts", "Watch streams that ended, by resource and "
                                      "why (closed: the server ended it; gone: 410, relisted; else the HTTP status "
                                      "or connection)", ["resource", "reason"], registry=r)
        self.objects = Counter("gpu_npd_cluster_objects", "Objects received from lists and watches",
                               ["resource"], registry=r)
        self.writes = Counter("gpu_npd_cluster_event_writes", "Incident Event creates and patches", registry=r)
        self.api_errors = Counter("gpu_npd_cluster_api_errors", "Failed incident Event writes, by HTTP status or "
                                  "connection/timeout", ["kind"], registry=r)
        for kind in UNANSWERED:
            self.api_errors.labels(kind)  # 0 from the start: the write alert's increase() sees the first one
        self.tracked = Gauge("gpu_npd_cluster_tracked", "What the controller holds in memory", ["what"], registry=r)
        # the Events the Book did not keep (Book.dropped, read at scrape time: the controller's Book adds itself)
        self.evidence_dropped = Dropped("gpu_npd_cluster_evidence_dropped", "Events the controller did not keep: "
                                        "Warnings past a pod's cap, the oldest waiting Events and a job's oldest past "
                                        "their caps (cluster/book.py Book.dropped)")
        r.register(self.evidence_dropped)
        self.resource_version = Gauge("gpu_npd_cluster_resource_version", "The newest resourceVersion applied, "
                                      "by resource (how far behind the API the controller is)", ["resource"],
                                      registry=r)
        self.events_dropped = dropped_events()  # the incident Event recorder (cluster/controller.py)
        r.register(self.events_dropped)
        self.internal_errors = Counter("gpu_npd_cluster_internal_errors", "Objects the loop could not apply and "
                                       "attributions that failed (a bug on one input: logged, the loop goes on)",
                                       ["stage"], registry=r)
        for stage in INTERNAL_STAGES:
            self.internal_errors.labels(stage)  # 0 from the start
        self.queue = Gauge("gpu_npd_cluster_queue", "Watch events waiting to be applied", registry=r)
