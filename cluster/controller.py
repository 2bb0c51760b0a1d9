"""The cluster controller: leader election, the watches, the incident book, and what it writes.

Threads: the Lease (elect, renew), one watcher per resource feeding one queue, the loop here (the only one that
touches the book), and the Event writer (aggregated, rate-limited; an API outage delays Events, never the loop).
Only the leader watches and writes; a replica that loses its Lease exits (the Deployment restarts it as a
standby), as controller-runtime does.
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Any, Callable, TextIO

from kubeapi.events import EventRecorder, Ref
from kubeapi.pager import items
from kubeapi.retry import Backoff, WriterThread, describe, next_delay, refusal, retry_after
from triage import DEFAULT_WINDOW, SCHEMA

from .book import HOLD, Book, Change, Open
from .evidence import AGENT_COMPONENT, JOB_SELECTORS, NODE_SELECTORS, POD_EVENT_SELECTORS
from .leader import LeaseLock
from .metrics import APPLY, ATTRIBUTION, Metrics
from .owners import JOB_LABEL, KIND_NAMES, OWNER_KINDS, Job, Owner, OwnerKind, owner_of
from .recovery import OPT_IN, Decision, Policy, Recovery
from .watch import Watcher

log = logging.getLogger("gpu_npd.cluster")

COMPONENT = "gpu-npd-cluster"  # source.component of the incident Events (the agents' are "gpu-npd")
REASON = "JobIncident"
RECOVERY_REASON = "CascadingRecovery"
ANNOTATION = "gpu-npd.io/incident"
ANNOTATION_SCHEMA = "gpu-npd.incident/v1"
EVIDENCE_IN_ANNOTATION = 10
BACKLOG_SETTLE = 2.0  # seconds between attributions at least, while the watches are ahead of the loop
BACKLOG_SETTLE_COST = 4.0  # ... and at least this many times what the last attribution took
# A pod's deletion throttled or failed (429, 5xx, no answer) is tried again after the server's Retry-After or a
# backoff: DELETE_TRIES times in a row, then (said once) after the pods behind it, again and again, until the restart
# has taken DELETE_SECONDS (each request may hold the loop for the request timeout): the pods left then are not
# deleted, the restart `failed`.
DELETE_TRIES = 10
DELETE_SECONDS = 300.0
DELETES_PER_ROUND = 200  # pod deletions a round of the loop at most (a 10,000-pod gang does not hold the loop)
# A restart's decision records the pods it chose by the API server's clock alone (never the controller's): the newest
# creationTimestamp among them (`created`, whole seconds) and the uids of those created in that second (`uids`), so
# that a next leader finishing it (its Lease lost mid-way) deletes those left and not the owner's new incarnations.
# At most this many uids (about 40 bytes each in the incident Event's annotation, 256 KB in all); more in that one
# second: none recorded, every pod created in it taken for one chosen.
MARK_UIDS = 500


@dataclass
class Settings:
    api_server: str = ""
    kubeconfig: str = ""
    namespace: str = "gpu-npd"  # where the Lease lives
    lease_name: str = "gpu-npd-cluster"
    identity: str = ""
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    window: float = DEFAULT_WINDOW
    idle: float = 1800.0
    hold: float = HOLD  # how long a job whose only failure a healthy end also prints waits (Book._at_end)
    settle_seconds: float = 0.5  # evidence arriving within this is attributed together
    events_per_minute: float = 60.0
    event_burst: int = 50
    request_timeout: float = 30.0
    watch_timeout: int = 300
    max_backoff: float = 30.0
    recovery: Policy = field(default_factory=Policy)  # cascading recovery (opt-in per job; observe by default)
    foreign_conditions: bool = True  # other detectors' node conditions as node faults (triage.facts FOREIGN_CONDITIONS)
    queue_size: int = 2_000  # raw objects between the watches and the loop (a full queue slows the watches)


def _resource_names(data: bytes) -> set[str]:
    """The resource names a discovery answer (an APIResourceList) lists; ValueError when it is not JSON, or JSON of
    another shape (a list, resources that are not objects)."""
    doc = json.loads(data)
    resources = (doc.get("resources") or []) if isinstance(doc, dict) else None
    if not isinstance(resources, list) or not all(isinstance(r, dict) for r in resources):
        raise ValueError("not an APIResourceList")
    return {r.get("name") for r in resources}


class Controller:
    def __init__(self, api, settings: Settings, metrics: Metrics | None = None, out: TextIO = sys.stdout,
                 clock: Callable[[], float] = time.time):
        from kubernetes import client  # noqa: PLC0415

        self.core, self.s, self.out, self.clock = api, settings, out, clock
        self.custom = client.CustomObjectsApi(api.api_client)
        self.coordination = client.CoordinationV1Api(api.api_client)
        self.metrics = metrics or Metrics()
        self.book = self.metrics.evidence_dropped.add(Book(settings.window, settings.idle, settings.hold,
                                                             settings.foreign_conditions))
        self.stop = threading.Event()
        self.lost = threading.Event()
        self.queue: queue.Queue = queue.Queue(settings.queue_size)
        self.recorder = self.metrics.events_dropped.add(EventRecorder(
            "default", settings.identity, settings.event_burst, settings.events_per_minute,
            aggregate_seconds=7 * 86400.0, clock=clock, component=COMPONENT))
        self.lease = LeaseLock(self.coordination, settings.namespace, settings.lease_name, settings.identity,
                               settings.lease_duration, settings.renew_deadline, settings.retry_period)
        self.recovery = Recovery(settings.recovery, clock)
        self.pending: dict[str, tuple[Change, Decision | None]] = {}  # recoveries to act on / decide again
        self.deleting: dict[str, Deleting] = {}  # restarts under way: their pods left to delete
        self.unfinished: dict[str, tuple | None] = {}  # open incidents a previous leader restarted -> chosen()
        # incidents and decisions counted once the incident's Event carries them (count_written): key -> (the
        # counter's child, the Event, its occurrence that carries what is counted)
        self.uncounted: dict[str, tuple[Any, tuple[Ref, str, str], int]] = {}
        self.watchers: list[Watcher] = []
        self.owner_kinds: dict[str, OwnerKind] = {}  # the owner watches' resource names -> their kinds
        self.writer = EventWriter(self.recorder, api, settings.request_timeout, self.stop, settings.max_backoff,
                                  self.metrics)
        self.leading = threading.Event()
        self._rv: dict[str, int] = {}
        self._children: dict[str, tuple] = {}  # resource -> its (objects, resource_version) metric children
        self.ready = threading.Event()  # recovered and every list synced: incidents are decided from here on

    # ---- life ----------------------------------------------------------------------------------------

    def run(self) -> int:
        threading.Thread(target=self.lease.run, args=(self.stop, self._lost, self.leading), name="lease",
                         daemon=True).start()
        while not self.leading.wait(0.5):
            if self.stop.is_set():
                return 0
        self.metrics.leader.set(1)
        self.recover()
        self.start_watches()
        self.writer.start()
        try:
            self.loop()
        finally:
            self.stop.set()
            for w in self.watchers:
                w.close()
            self.writer.close(5)
            self.metrics.leader.set(0)
            if not self.lost.is_set():
                self.lease.release()
        return 1 if self.lost.is_set() else 0

    def _lost(self) -> None:
        self.lost.set()
        self.stop.set()

    def shutdown(self) -> None:
        self.stop.set()

    # ---- recovery ------------------------------------------------------------------------------------

    def recover(self) -> None:
        """Incidents a previous leader wrote: open ones continue (same Event), closed ones are not reopened."""
        retry = Backoff(self.stop, self.s.max_backoff, "recovery: listing incident Events", log)
        while not self.stop.is_set():
            try:
                found = 0
                for ev in items(self.core.list_event_for_all_namespaces, 500, self.s.request_timeout,
                                field_selector=f"source={COMPONENT}"):
                    found += self._restore(ev)
                log.info("recovered %d incident(s) from their Events", found)
                return
            except Exception as exc:  # noqa: BLE001 - the API is down: recovery comes first, keep trying
                retry.failed(exc)

    def _restore(self, ev: dict) -> int:
        raw = ((ev.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION)
        try:
            doc = json.loads(raw) if raw else None
            if not doc or doc.get("schema") != ANNOTATION_SCHEMA:
                return 0
            o = doc["owner"]
            job = Job(tuple(doc["job"]), Owner(o["apiVersion"], o["kind"], o["namespace"], o["name"],
                                                o.get("uid", "")), doc.get("source", "label"))
            seq = int(doc["seq"])
            recovery = doc.get("recovery")
            restarted = recovery is not None and recovery["result"] == "restarted"
            mark = chosen(recovery) if restarted else None
            if recovery:
                self.recovery.restore(doc["id"], job.key, recovery["result"], float(recovery["at"]),
                                      closed=doc.get("state") != "open", category=recovery.get("category"))
                if restarted and doc.get("state") == "open":
                    self.unfinished[doc["id"]] = mark
            if doc.get("state") == "open":
                open_ = Open(doc["id"], seq, float(doc["opened"]), doc["fingerprint"], ev["metadata"]["name"],
                             int(ev.get("count") or 1), float(doc.get("last_evidence") or 0.0), recovery=recovery)
                self.book.restore(job, open_, seq, 0.0, self.clock())
            else:
                # the nodes' clocks (its newest evidence), never "closed" (this controller's clock, minutes off theirs)
                self.book.restore(job, None, seq, float(doc.get("last_evidence") or 0.0), self.clock())
                if mark is not None:  # a restart done: what its pods say as they are torn down is not the job's
                    self.book.restarted(job.key, mark)
            return 1
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("recovery: incident Event %s unreadable (%s)", (ev.get("metadata") or {}).get("name"), exc)
            return 0

    # ---- watches -------------------------------------------------------------------------------------

    def start_watches(self) -> None:
        opts = dict(stop=self.stop, timeout_seconds=self.s.watch_timeout, request_timeout=self.s.request_timeout,
                    max_backoff=self.s.max_backoff, count=lambda r, why: self.metrics.watch_restarts.labels(r, why).inc())
        self.watchers = [
            Watcher("pods", self.core.list_pod_for_all_namespaces, self._put, **opts),
            Watcher("events", self.core.list_event_for_all_namespaces, self._put,
                    field_selector=f"source={AGENT_COMPONENT}", **opts),
            Watcher("nodes", self.core.list_node, self._put, **opts),
            # the kubelet's Warnings on pods that triage's gang judges (FailedMount), the node controller's NodeNotReady
            # and Karpenter's Normal Evicted on pods, and the Events on nodes that triage reads as context of a pod's
            # end (the GPU Operator's GPUDriverUpgrade, Karpenter's DisruptionTerminating): one watch a reason, the API
            # server selecting them (evidence.POD_EVENT_SELECTORS, NODE_SELECTORS); the Job controller's end of a batch
            # Job at its deadline (JOB_SELECTORS); the Book keeps those of its jobs' pods (and of its jobs' Jobs) alone,
            # and of a node those its reading keeps
            *(Watcher(f"events:{selector.rpartition('=')[2]}", self.core.list_event_for_all_namespaces, self._put,
                      field_selector=selector, **opts)
              for selector in (*POD_EVENT_SELECTORS, *NODE_SELECTORS, *JOB_SELECTORS)),
        ]
        for kind in self.served_owner_kinds():
            group, version = kind.api_version.split("/")
            call = partial(self.custom.list_cluster_custom_object, group, version, kind.plural)
            self.watchers.append(Watcher(f"owner:{KIND_NAMES[kind]}", call, self._put, **opts))
            self.owner_kinds[self.watchers[-1].resource] = kind
        for w in self.watchers:
            w.start()

    def served_owner_kinds(self) -> list[OwnerKind]:
        """The owner kinds this cluster serves (discovery); the others are grouped by labels alone.  Only an answer
        says a kind is not served (404, or another refusal: logged); no answer, 429 or a 5xx (the API server
        restarting as a standby takes over) is asked again with backoff until the controller stops: a kind taken
        for not served is not watched for the controller's life (its owners' opt-in, uids and deletions unseen)."""
        out = []
        for kind in OWNER_KINDS:
            group, version = kind.api_version.split("/")
            retry = Backoff(self.stop, self.s.max_backoff, f"discovery of {kind.api_version}", log)
            while not self.stop.is_set():
                try:
                    names = _resource_names(self.custom.get_api_resources(
                        group, version, _preload_content=False, _request_timeout=self.s.request_timeout).data)
                except ValueError as exc:  # an answer that is no APIResourceList: asking again would not change it
                    log.warning("discovery of %s unreadable (%s): its %s grouped by labels alone", kind.api_version,
                                str(exc)[:200], kind.plural)
                    break
                except Exception as exc:  # noqa: BLE001 - whatever the API says, the controller goes on
                    if not refusal(exc):
                        retry.failed(exc)
                        continue
                    if getattr(exc, "status", None) != 404:
                        log.warning("discovery of %s refused (%s): its %s grouped by labels alone",
                                    kind.api_version, describe(exc), kind.plural)
                    break
                if kind.plural in names:
                    out.append(kind)
                break
        return out

    def _put(self, resource: str, kind: str, obj: Any) -> None:
        while not self.stop.is_set():
            try:
                self.queue.put((resource, kind, obj), timeout=0.5)  # a full queue slows the watch: backpressure
                return
            except queue.Full:
                continue

    # ---- the loop ------------------------------------------------------------------------------------

    def loop(self) -> None:
        next_settle = 0.0
        while not self.stop.is_set():
            try:
                item = self.queue.get(timeout=0.2)
            except queue.Empty:
                item = None
            if item is not None:
                self._applied(item)
                for _ in range(5000):  # drain what is there before deciding anything
                    try:
                        self._applied(self.queue.get_nowait())
                    except queue.Empty:
                        break
            now = self.clock()
            if not self.ready.is_set():
                if all(w.synced.is_set() for w in self.watchers):
                    self.ready.set()
                    log.info("all lists synced: %s", self.book.counts())
                else:
                    continue
            if now >= next_settle:
                t0 = time.monotonic()
                try:
                    self.handle(self.book.settle(now))  # also acts on pending recoveries
                except Exception as exc:  # noqa: BLE001 - a bug on one job's evidence: the next round tries again
                    self._failed(ATTRIBUTION, "settle", exc)
                self._gauges()
                next_settle = now + self._settle_interval(time.monotonic() - t0)

    def _applied(self, item: tuple[str, str, Any]) -> None:
        """`apply` one watched object; a bug on it (an object of a shape no handler expects) is one line and counted,
        and the loop goes on: one object never stops the cluster's detection (the loop dying ended the process, and
        the relist after its restart met the same object again)."""
        try:
            self.apply(*item)
        except Exception as exc:  # noqa: BLE001
            self._failed(APPLY, f"{item[0]} {item[1]}", exc)

    def _failed(self, stage: str, what: str, exc: Exception) -> None:
        self.metrics.internal_errors.labels(stage).inc()
        log.error("internal error in %s (%s), ignored: %s: %s", stage, what, type(exc).__name__, str(exc)[:200])

    def _settle_interval(self, took: float) -> float:
        """Seconds to the next attribution: `settle_seconds`, but while the watches are ahead of the loop (the
        queue more than half full: a storm, a relist) at least BACKLOG_SETTLE and never less than
        BACKLOG_SETTLE_COST times what the last one took, so that re-attributing every changed job does not slow
        the catch-up it is waiting for.  Evidence still arriving would change the verdict anyway."""
        if self.queue.qsize() <= self.queue.maxsize // 2:
            return self.s.settle_seconds
        return max(self.s.settle_seconds, BACKLOG_SETTLE, BACKLOG_SETTLE_COST * took)

    def apply(self, resource: str, kind: str, obj: Any) -> None:
        now = self.clock()
        name = resource.split(":")[0]
        counted, newest = self._children.get(name) or self._children.setdefault(
            name, (self.metrics.objects.labels(name), self.metrics.resource_version.labels(name)))
        counted.inc()
        deleted = kind == "DELETED"
        rv = (obj.get("metadata") or {}).get("resourceVersion") if isinstance(obj, dict) else None
        if rv and rv.isdigit() and int(rv) > self._rv.get(name, 0):
            self._rv[name] = int(rv)
            newest.set(int(rv))
        if kind == "SYNCED":
            self._synced(resource, obj, now)
        elif resource == "pods":
            self.book.pod(obj, now, deleted)
        elif name == "events":
            try:
                self.book.event(obj, now, deleted)
            except (AttributeError, TypeError, ValueError) as exc:  # an object of the wrong shape: this one alone
                meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
                log.warning("%s: Event %s/%s unreadable (%s: %s); ignored", resource, meta.get("namespace"),
                            meta.get("name"), type(exc).__name__, str(exc)[:200])
        elif resource == "nodes":
            self.book.node(obj, now, deleted)
        elif resource.startswith("owner:"):
            meta = obj.get("metadata") or {}
            owner = Owner(obj.get("apiVersion", ""), obj.get("kind", ""), meta.get("namespace", ""),
                          meta.get("name", ""), meta.get("uid", ""))
            if deleted:
                self.handle(self.book.owner_deleted(owner, now))
            else:
                self.book.owner_seen(owner, (meta.get("labels") or {}).get(OPT_IN) == "true", owner_of(obj))

    def _synced(self, resource: str, keys: set, now: float) -> None:
        """After a (re)list: forget what was deleted while not watching (an owner's incident closes)."""
        if resource == "pods":
            self.book.other_pods &= keys
            for key in [k for k in self.book.pods if k not in keys]:
                self.book.pod({"metadata": {"namespace": key[0], "name": key[1]}}, now, deleted=True)
        elif resource.startswith("owner:"):
            kind = self.owner_kinds[resource]
            self.handle(self.book.owners_listed(kind.api_version, kind.kind, keys, now))
        elif resource == "nodes":
            self.book.nodes_listed({k[1] for k in keys}, now)

    # ---- what it writes ------------------------------------------------------------------------------

    def handle(self, changes: list[Change]) -> None:
        for c in changes:
            self.changed(c)
        self.recover_jobs()
        if changes:
            self.writer.wake.set()

    def changed(self, c: Change) -> None:
        """One change of an incident: written (its Event, its log line), and its recovery to decide."""
        if c.open.id in self.unfinished:
            mark = self.unfinished.pop(c.open.id)
            if c.what != "closed" and self.finish(c, mark):
                return  # the restart was done: its incident closed
        if c.what == "restored":  # written already: only its recovery, if the previous leader did not decide it
            if c.open.recovery is None and c.open.id not in self.pending:
                self.pending[c.open.id] = (c, None)
            return
        if c.what != "closed" and c.incident is not None:
            if c.open.id not in self.pending or self.pending[c.open.id][1] is None:
                self.pending[c.open.id] = (c, None)  # the latest verdict is decided on
        elif c.what == "closed":
            self.pending.pop(c.open.id, None)
            self.recovery.forget(c.open.id)
        self.log_line(c)
        ref = self.write(c)
        if c.what == "opened" and c.incident is not None:  # counted once its Event is written (count_when_written)
            self.count_when_written(c.open.id, "opened", ref, self.metrics.incidents.labels(c.incident.category))

    def restarted(self, c: Change) -> bool:
        """A restart is done (the pods it chose deleted, or left for good): its incident closes, so that a failure
        of the job's new incarnation is its next incident, decided on its own (the per-job budget and the cluster's
        rate limit count it); what the old incarnation's pods say as they are torn down is not the job's evidence
        (Book.restarted).  False: the decision holds no mark (an older version's)."""
        mark = chosen(c.open.recovery or {})
        if mark is None:
            return False
        for closed in self.book.restarted(c.job.key, mark, c.open.id):
            self.changed(closed)
        self.writer.wake.set()
        return True

    # ---- cascading recovery ----------------------------------------------------------------------------

    def recover_jobs(self) -> None:
        """Decide (once per incident) and act on what was decided; an action waits until its decision is
        written in the incident's Event (by the Event writer's thread), so that a restarted controller never acts
        twice."""
        for incident_id, (c, decided) in list(self.pending.items()):
            ref = owner_ref(c)
            if decided is None:
                pods = self.book.opted_in(c.job.key)
                decided = self.recovery.decide(incident_id, c.job.key, f"{ref.kind}/{c.job.name}", c.incident,
                                               len(pods))
                if decided is None:
                    del self.pending[incident_id]
                    continue
                if decided.result == "rate_limited":  # decided again next round; counted and logged once
                    if decided.first:
                        self.metrics.recoveries.labels(decided.result).inc()
                        log.warning("%s", decided.message)
                    continue
                # the verdict's category it was decided on: a next leader counts a node's restart in the job's
                # budget and not in its namespace's (recovery.tenant)
                c.open.recovery = {"result": decided.result, "at": self.clock(), "category": c.incident.category}
                if decided.act:
                    created, uids = self.book.mark(pods, MARK_UIDS)
                    c.open.recovery.update(created=created, **({"uids": uids} if uids is not None else {}))
                # the decision, in the incident's Event, recorded first: the Events are written in the order
                # recorded, so the incident is in the API before the recovery that names it
                self.write(c)
                self.recorder.record(ref, RECOVERY_REASON, decided.message, "Warning" if decided.act else "Normal",
                                     key=f"{incident_id}|recovery")
                self.count_when_written(incident_id, decided.result, ref,
                                        self.metrics.recoveries.labels(decided.result))
                self.writer.wake.set()
                log.warning("%s", decided.message)
                if not decided.act:
                    del self.pending[incident_id]
                    continue
                self.pending[incident_id] = (c, decided)
            if not (self.recorder.written(ref, REASON, incident_id)
                    and self.recorder.written(ref, RECOVERY_REASON, f"{incident_id}|recovery")):
                continue  # not written yet (rate limit, API down): not acted on; looked at again next round
            del self.pending[incident_id]
            self.deleting[incident_id] = Deleting(c, deque(self.book.opted_in(c.job.key, chosen(c.open.recovery))))
        now = time.monotonic()
        for incident_id, d in list(self.deleting.items()):
            if now >= d.due:
                self.delete_pods(incident_id, d)
        self.count_written()

    def count_when_written(self, incident_id: str, what: str, ref: Ref, counter: Any) -> None:
        """Count an incident opened (gpu_npd_job_incidents_total{category}, `what` "opened") or a decision
        (gpu_npd_recoveries_total{result}, `what` the result) in `counter` (the metric's child) once the incident's
        Event that carries it is written: the incident and decision a next leader restores, and so does not open or
        take again.  A leader that stops before that counts nothing, and the next opens or decides anew and counts its
        own; one that stops after the write has counted it, and the next restores it (and finishes its restart)
        without counting it.  Summed over the replicas, each counts once."""
        event = (ref, REASON, incident_id)
        recorded = self.recorder.progress(*event)
        self.uncounted[f"{incident_id}|{what}"] = (counter, event, recorded[0] if recorded else 0)

    def count_written(self) -> None:
        """Count what waits on its incident Event (count_when_written) once that is written, the occurrence that
        carries it (not the later ones: the incident's updates, its close after a restart); one whose Event the API
        server refused (dropped: a namespace being deleted) is counted by no one, as it is restored by no one."""
        # (once a settle, not a watch event: `uncounted` holds only what waits on an unwritten Event, one lookup each)
        for key, (counter, event, occurrence) in list(self.uncounted.items()):
            progress = self.recorder.progress(*event)
            if progress is not None and progress[1] < occurrence:
                continue
            if progress is not None:
                counter.inc()
            del self.uncounted[key]

    def finish(self, c: Change, mark: tuple | None) -> bool:
        """A restart a previous leader decided (written in the incident's Event, with the mark of the pods it chose)
        and may have left cut short (its Lease lost with some pods deleted, others not): the pods it chose that are
        left (not those the owner recreated since: newer, or of another uid) are deleted as it would have (uid
        preconditions, the same rounds).  None left: it had finished.  Counted in no metric again: the decision was
        the previous leader's.  A decision written without a mark (an older version's) is not finished: only the
        controller's clock would tell its pods from the recreated ones.  True: it was done, and its incident is
        closed now (Controller.restarted)."""
        if mark is None:
            log.warning("recovery: the restart of job %s/%s a previous leader decided (incident %s) records no mark of "
                        "the pods it chose: not finished (any it left are to be deleted by hand)", c.job.owner.kind,
                        c.job.name, c.open.id)
            return False
        pods = self.book.opted_in(c.job.key, mark)
        if c.open.id in self.deleting:
            return False
        if not pods:
            return self.restarted(c)  # done: only its incident's close was not written
        log.warning("recovery: finishing the restart of job %s/%s a previous leader decided (incident %s): %d "
                    "pod(s) it left", c.job.owner.kind, c.job.name, c.open.id, len(pods))
        self.deleting[c.open.id] = Deleting(c, deque(pods))
        return False

    def delete_pods(self, incident_id: str, d: Deleting) -> None:
        """Delete the pods decided on (their uids then: a pod the owner has recreated since is not touched), at most
        DELETES_PER_ROUND a round of the loop.  A throttled or failed request (429, 5xx, no answer) stops the round:
        that pod is tried again on a later one, after the server's Retry-After or a backoff (each pod's own: one pod's
        failures spend no other pod's tries), DELETE_TRIES times in a row, then, said in one line naming it and the
        API's answer, after the pods behind it, until the restart has taken DELETE_SECONDS.  A pod that cannot be
        deleted (refused, or still failing then: those left with it) makes the recovery `failed`, once, said in one
        line and a `CascadingRecovery` Event on the owner (how many, and the first failure: a refusal, whose RBAC
        message names the verb and the resource, or the API still failing at the time bound), not a line per pod.
        Stops when the controller does (not leading)."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        for _ in range(DELETES_PER_ROUND):
            if not d.pods:
                break
            if self.stop.is_set():  # the Lease lost, or on the way out: only the leader acts
                log.warning("recovery: stopped with %d pod(s) of incident %s not deleted", len(d.pods), incident_id)
                return
            ns, name, uid = d.pods[0]
            try:
                self.core.delete_namespaced_pod(name, ns, body={"preconditions": {"uid": uid}} if uid else None,
                                                _request_timeout=self.s.request_timeout)
                self.metrics.pod_deletions.inc()
            except Exception as exc:  # noqa: BLE001 - whatever the API says, the loop goes on
                status = exc.status if isinstance(exc, ApiException) else None
                if status not in (404, 409):  # 404, 409: gone already, or another pod of that name now: leave it
                    failing = status is None or status == 429 or status >= 500
                    if failing and self.retry_pod(d, exc):
                        return
                    d.why = d.why or f"{ns}/{name}: {describe(exc)}"  # said once, at the end (RBAC: every pod)
                    if failing:  # out of time: the API still failing, those left are not asked again
                        d.failed += len(d.pods)
                        d.pods.clear()
                        break
                    d.failed += 1
            d.pods.popleft()
            d.tries, d.backoff = 0, 0.0  # the next pod's tries and backoff its own
        if d.pods:
            return  # the rest on the next rounds
        del self.deleting[incident_id]
        ref = owner_ref(d.change)
        if d.failed:
            message = (f"gpu-npd could not restart job {ref.kind}/{d.change.job.name} whole: {d.failed} pod(s) not "
                       f"deleted (incident {incident_id}; first failure {d.why})")
            log.warning("recovery: %s", message)
            self.recorder.record(ref, RECOVERY_REASON, message, "Warning", key=f"{incident_id}|failed")
        self.restarted(d.change)
        if d.failed:  # counted once the incident's close is written: a next leader finishes no restart closed
            self.count_when_written(incident_id, "failed", ref, self.metrics.recoveries.labels("failed"))

    def retry_pod(self, d: Deleting, exc: Exception) -> bool:
        """The first pod left failed for now (429, 5xx, no answer): when to try it again (`d.due`), and after which
        pods (DELETE_TRIES failures in a row: after the others left, said once).  False: the restart has taken
        DELETE_SECONDS, nothing is tried again."""
        now = time.monotonic()
        if now - d.started >= DELETE_SECONDS:
            return False
        ns, name, _ = pod = d.pods[0]
        d.tries += 1
        wait, d.backoff = next_delay(d.backoff, retry_after(exc), self.s.max_backoff)
        d.due = now + wait
        log.debug("recovery: deleting pod %s/%s failed: %s; again in %.1f s", ns, name, describe(exc), wait)
        if d.tries >= DELETE_TRIES:
            if pod not in d.said:
                d.said.add(pod)
                others = len(d.pods) - 1
                log.warning("recovery: pod %s/%s not deleted after %d tries (%s); tried again%s", ns, name, d.tries,
                            describe(exc), f" after the {others} other pod(s) left" if others else "")
            d.pods.rotate(-1)  # behind the others: tried again on the next pass, not forgotten
            d.tries, d.backoff = 0, 0.0
        return True

    def annotation(self, c: Change) -> str:
        o = c.job.owner
        doc: dict[str, Any] = {
            "schema": ANNOTATION_SCHEMA, "id": c.open.id, "seq": c.open.seq, "state": "closed" if c.what == "closed"
            else "open", "job": list(c.job.key), "source": c.job.source,
            "owner": {"apiVersion": o.api_version, "kind": o.kind, "namespace": o.namespace, "name": o.name,
                      "uid": o.uid},
            "opened": c.open.opened, "last_evidence": c.open.last_evidence, "fingerprint": c.open.fingerprint}
        if c.what == "closed":
            doc["closed"] = self.clock()
        if c.open.recovery:
            doc["recovery"] = c.open.recovery
        if c.incident is not None:
            doc["incident"] = c.incident.to_dict(EVIDENCE_IN_ANNOTATION)
            doc["incident_schema"] = SCHEMA
        return json.dumps(doc, sort_keys=True, separators=(",", ":"))

    def write(self, c: Change) -> Ref:
        """Record the incident's Event (the Event writer's thread writes it); returns the object it is on."""
        ref = owner_ref(c)
        message = event_message(c)
        self.recorder.record(ref, REASON, message, "Normal" if c.what == "closed" else "Warning", key=c.open.id,
                             name=c.open.event, first=c.open.opened, total=c.open.updates,
                             annotations={ANNOTATION: self.annotation(c)})
        return ref

    def log_line(self, c: Change) -> None:
        line = {"time": datetime.fromtimestamp(self.clock(), timezone.utc).isoformat(timespec="milliseconds"),
                "level": "info" if c.what == "closed" else "warning", "msg": f"job incident {c.what}",
                "action": c.what, "incident_id": c.open.id, "job": {"namespace": c.job.key[0], "name": c.job.name,
                                                                    "owner": f"{c.job.owner.kind}/{c.job.owner.name}"},
                "event": c.open.event}
        if c.incident is not None:
            line["incident"] = c.incident.to_dict(20)
        self.out.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.out.flush()

    def _gauges(self) -> None:
        for what, n in self.book.counts().items():
            self.metrics.tracked.labels(what).set(n)
        self.metrics.queue.set(self.queue.qsize())


def owner_ref(c: Change) -> Ref:
    """The object an incident's Events are on: the job's owner."""
    o = c.job.owner
    return Ref(o.kind, o.name, o.namespace, o.uid, o.api_version)


def chosen(recovery: dict) -> tuple[float, frozenset[str] | None] | None:
    """A restart's decision as written: the mark of the pods it chose, for Book.opted_in (None: written without one).
    ValueError, TypeError: not a mark."""
    if "created" not in recovery:
        return None
    uids = recovery.get("uids")
    return float(recovery["created"]), None if uids is None else frozenset(str(u) for u in uids)


@dataclass
class Deleting:
    """A restart under way: the pods decided on, left to delete, and when to try again."""

    change: Change
    pods: deque[tuple[str, str, str]]  # (namespace, name, uid)
    tries: int = 0  # the first pod's failed tries in a row
    backoff: float = 0.0  # ... and its backoff
    due: float = 0.0  # time.monotonic() of the next round
    started: float = field(default_factory=time.monotonic)  # DELETE_SECONDS from here
    said: set[tuple[str, str, str]] = field(default_factory=set)  # pods said to fail DELETE_TRIES times in a row
    failed: int = 0  # pods that could not be deleted
    why: str = ""  # the first one's pod and the API's answer (an RBAC refusal names the verb and the resource)


class EventWriter(WriterThread):
    """The one thread that writes the recorder's Events (the loop only records them): aggregated, rate limited;
    an API outage delays Events (backing off), never the loop.  On the way out, one more try for what is pending."""

    def __init__(self, recorder: EventRecorder, api, timeout: float, stop: threading.Event, max_backoff: float,
                 metrics: Metrics):
        super().__init__("event-writer", stop, max_backoff, "writing incident Events", log,
                         lambda kind: metrics.api_errors.labels(kind).inc())
        self.recorder, self.api, self.timeout, self.metrics = recorder, api, timeout, metrics

    def run(self) -> None:
        while not self.stop.is_set():
            self.wake.wait(1.0 if self.recorder.pending() else 5.0)
            self.wake.clear()
            if self.recorder.pending() and not self.stop.is_set():
                self.attempt(self.flush)
        try:
            self.flush()
        except Exception:  # noqa: BLE001 - on the way out: what is not written now, a successor writes
            pass

    def flush(self) -> None:
        n = self.recorder.flush(self.api, self.timeout)
        if n:
            self.metrics.writes.inc(n)


def event_message(c: Change) -> str:
    """One paragraph for `kubectl describe`: the verdict, the root, what it did to the job, why."""
    i = c.incident
    if i is None:
        return f"gpu-npd incident {c.open.id} closed"
    r = i.root
    where = []
    if r.host:
        where.append(f"node {r.host}" + (f" (pod {r.pod})" if r.pod else ""))
    if r.gpu is not None or r.pci:
        where.append("GPU " + " ".join(x for x in (str(r.gpu) if r.gpu is not None else "",
                                                   f"({r.pci})" if r.pci and r.gpu is not None else r.pci or "") if x))
    elif r.device:
        where.append(f"device {r.device}")
    if r.rank is not None:
        where.append(f"rank {r.rank}")
    root = f"({r.kind or 'unknown'})" + (f" on {', '.join(where)}" if where else "")
    state = "closed; was " if c.what == "closed" else ""
    return (f"{state}{i.category} fault {root}. {i.consequences[:1].upper()}{i.consequences[1:]}. "
            f"Why: {i.reason} (rule {i.rule}; {len(i.evidence)} evidence; incident {c.open.id}; "
            f"label pods {JOB_LABEL}=<name> to group them otherwise)")[:1024]
