"""The Kubernetes sink: the latest snapshot kept apart from the loop that writes it, and the node writers that loop runs.

`apply(snapshot)` runs on the agent's thread and only keeps the snapshot, records Events (new problems, notices, pod
events) and wakes the writer.  The writer thread coalesces bursts and runs the node writers in turn
(conditions, the repair annotation, DRA device taints, taints; then the Events), and
heartbeats.  Any API failure backs off with jitter and retries with the latest snapshot: detection never waits
on the API server.  Nothing here calls into the agent: what the Node says that detection uses (its GPU
capacity) goes back as an input through the intake (`emit`), like every other input.

The node writers each keep one part of this Node equal to what the latest snapshot calls for.  They run on the
writer's thread, read only the snapshot they are handed and what they read from the API, and call nothing of the
agent's.  Each remembers what it last wrote so that an unchanged snapshot costs no request (a heartbeat rewrites
the conditions, re-reads taints).

    ConditionWriter   our NodeConditions (+ the repair profile's), strategic merge on nodes/status: the body is
                      `condition_patch` (a pure function, beside it), and what a write must carry the same body
                      without its heartbeat time
    AnnotationWriter  the repair hand-off annotation (merge patch of metadata.annotations); written again when a
                      heartbeat's read of the Node finds another value (the Node recreated, the annotation removed)
    TaintWriter       our taints (read, change ours, write with the read resourceVersion, retry on 409), within
                      the tainted-node budget (a grant per tainted node, compare-and-swapped on one ConfigMap:
                      agent/kube/grants.py), kept through their hold-down; a held-back taint asks again on the
                      budget's backoff (grants.Recheck), learning "still full" from the ConfigMap alone when it can
    (DRA device taints: agent/kube/dra.py's DeviceFencer; Events: kubeapi/events.py's EventRecorder)
"""

from __future__ import annotations

import logging
import random
import threading
import time
from functools import partial
from operator import attrgetter
from typing import Any, Callable

from kubeapi.events import EventRecorder, Ref, iso
from kubeapi.pager import items
from kubeapi.reserved import reserved_condition
from kubeapi.retry import WriterThread, api_errors, describe, refusal
from parsers.gpus import problem_gpu
from parsers.model import Condition, NodeInfo, Problem, Snapshot

from .desired import budget_size, merge_taints, our_taint_keys, ours, taint_key, wanted_taints
from .dra import DeviceFencer, faulty_gpus
from .grants import BUDGET_RECHECK_CAP_SECONDS, GrantBook, Recheck, pool_tag
from .nodeapi import CONFLICT, NodeApi
from .repair import profile_conditions, repair_annotation
from .settings import KubeSettings

log = logging.getLogger("gpu_npd.kube")
CONFLICT_RETRIES = 5


class KubernetesSink(WriterThread):
    def __init__(self, api, node: str, settings: KubeSettings, mode: str, metrics=None,
                 emit: Callable[[Any], None] | None = None, clock: Callable[[], float] = time.time):
        self.node, self.s, self.mode, self.metrics, self.emit, self.clock = node, settings, mode, metrics, emit, clock
        self.n = NodeApi(api, node, settings, metrics)
        super().__init__("kube-writer", self.n.stop, settings.max_backoff_seconds, "Kubernetes API write", log,
                         self.n.count_error, self._api_up)
        self.events = self.n.recorder(clock)
        self.conditions = ConditionWriter(self.n)
        self.annotation = AnnotationWriter(self.n) if settings.repair_annotation else None
        self.taints = TaintWriter(self.n, self.events, clock) if mode == "enforce" else None
        self.fencer = DeviceFencer(self.n, clock, self.events, metrics) \
            if settings.dra_device_taints and mode == "enforce" else None
        self._fence_key: tuple | None = None
        self._snapshot = Snapshot()
        self._lock = threading.Lock()
        self._node_seen = False

    # ---- agent side (never blocks) ----------------------------------------------------------------

    def apply(self, snapshot: Snapshot) -> None:
        with self._lock:
            self._snapshot = snapshot
        node = Ref("Node", self.node, uid=self.node)
        for p in snapshot.new_problems:
            # at the problem's own time (its first line's, the kernel's stamp as wall time: agent/health.py `_seen`),
            # as a Pod Event at its quoted line's: the cluster sets the node fault against the ranks' lines by it
            self.events.record(node, p.reason, p.message, "Normal" if p.severity == "info" else "Warning", key=p.id,
                               at=p.first_seen)
        for n in snapshot.notices:  # a node's finding that raised no problem (agent/health.py `_notice`)
            self.events.record(node, n.reason, n.message, key=f"notice|{n.key}", at=n.at)
        for e in snapshot.pod_events:  # an Event on a Pod
            self.events.record(Ref("Pod", e.ref.pod, e.ref.namespace, e.ref.uid), e.reason, e.message, e.type,
                               key=e.key, count=e.count, at=e.at)
        self.wake.set()

    # ---- the writer loop (`close`, on SIGTERM: one more try for what is pending, then stop) -----------------

    def run(self) -> None:
        while not self.stop.is_set():
            due = min(self.conditions.next_heartbeat, self._next_hold_down())
            if self.events.pending():
                due = min(due, self.clock() + 5.0)  # rate-limited events: try again soon
            if self.wake.wait(max(0.0, due - self.clock())) and not self.stop.is_set():
                self.stop.wait(self.s.coalesce_seconds)  # a burst of changes becomes one write
            self.wake.clear()
            self.attempt(self.sync)  # an API failure: back off, keep the desired state
        try:  # on the way out: one best-effort attempt so a shutdown does not sit on a change
            with self._lock:
                snap = self._snapshot
            if self.conditions.pending(snap) or self.events.pending() > 0:
                self.sync()
        except Exception as exc:  # noqa: BLE001 - the last try, nothing retries it: what it could not write is said
            log.warning("Kubernetes API write at shutdown failed (%s): %d Event(s) not written; the conditions and "
                        "taints are written again from the saved state at the next start", describe(exc),
                        self.events.pending())

    def _next_hold_down(self) -> float:
        """When a sync is due without a change: a taint's hold-down ends, a held-back taint asks the budget again
        (before, only a change or a heartbeat asked again: every 5 minutes, not "every minute"), the DRA fencer's."""
        cleared = list(self.taints.cleared_at.values()) if self.taints else []
        due = min(cleared) + self.s.taint_hold_down_seconds if cleared else float("inf")
        if self.taints is not None:
            due = min(due, self.taints.next_ask())
        return min(due, self.fencer.next_due()) if self.fencer else due

    def sync(self) -> None:
        """Every node writer once, with the latest snapshot.  One the API server refused (a 4xx but 401 and 429: RBAC
        denying one verb, an object that will not take the write) does not stop those after it, so the node's
        Events still go out; that failure is raised once all ran (the thread backs off and tries again; a writer
        that succeeded remembers it and costs no request then).  No answer, 401, 429 or 5xx (the credentials not
        accepted, the API down or overloaded) stops the pass at once."""
        now = self.clock()
        with self._lock:
            snap = self._snapshot
        heartbeat = now >= self.conditions.next_heartbeat
        problems = list(snap.problems)
        # the writes due, in order; each is called when its turn comes (the conditions' after _read_node, which
        # tells the repair profile whether the Node opted out; the Events' after the writers that record some)
        writes: list[Callable[[], None]] = []
        if not self._node_seen or (heartbeat and (self.s.repair_profile != "off" or self.s.repair_annotation)):
            writes.append(self._read_node)
        writes.append(partial(self.conditions.write, snap, now, heartbeat))
        if self.annotation is not None:
            writes.append(partial(self.annotation.write, problems))
        if self.taints is not None:
            writes.append(partial(self._write_taints, snap, problems, now, heartbeat))
        writes.append(self._flush_events)
        refused: list[Exception] = []
        for write in writes:
            try:
                write()
            except Exception as exc:
                if not refusal(exc):
                    raise
                refused.append(exc)
        if refused:
            raise refused[0]

    def _flush_events(self) -> None:
        """The Events recorded and not yet sent (rate-limited ones wait for their turn), if any."""
        if self.events.pending():
            self.n.wait()
            self.n.count("events", self.events.flush(self.n.api, self.s.request_timeout_seconds))

    def _read_node(self) -> None:
        node = self.n.get_node()
        meta = node.get("metadata", {})
        self.conditions.opted_out = self.s.do_not_repair_label in (meta.get("labels") or {})
        if self.annotation is not None:
            self.annotation.found((meta.get("annotations") or {}).get(self.s.repair_annotation_key))
        if not self._node_seen and self.emit is not None:
            self.emit(NodeInfo(_gpus(node)))
        self._node_seen = True

    def _write_taints(self, snap: Snapshot, problems: list, now: float, heartbeat: bool) -> None:
        """The DRA fencer (when on), then the node taints for what it does not answer for."""
        conditions = {c.type: c for c in snap.conditions}
        if self.fencer is not None:
            key = tuple(sorted(faulty_gpus(problems, self.s).items()))
            if key != self._fence_key or heartbeat or self.fencer.due(now):
                self.fencer.sync(problems)
                self._fence_key = key
            conditions = self._unfenced(conditions, problems)
        self.taints.write(conditions, now, heartbeat)

    def _unfenced(self, conditions: dict, problems: list) -> dict:
        """Conditions for node taints: one whose every problem is a GPU the DRA fencing answers for (fenced by a
        DeviceTaintRule of ours, or refused one by the GPU budget: a refusal is no reason to taint the whole
        node) needs no node taint (the other GPUs stay schedulable); otherwise node taints are the fallback."""
        if not self.fencer.active or not (self.fencer.fenced or self.fencer.held):
            return conditions
        out = {}
        for name, c in conditions.items():
            mine = [p for p in problems if p.condition == name]
            if c.status and mine and all(p.subject.startswith("gpu:") and self.fencer.covers(problem_gpu(p)[0])
                                         for p in mine):
                continue
            out[name] = c
        return out

    def _api_up(self, value: float) -> None:
        if self.metrics is not None:
            self.metrics.set_kube_api_up(value)


def condition_patch(conditions: list[Condition], heartbeat: float) -> dict[str, Any]:
    """Strategic-merge body for nodes/status carrying only our condition types (merged by `type`); the kubelet's
    types are never in it, whatever the configuration says (kubeapi/reserved.py).  Pure: built at `heartbeat` 0, it
    is what a write must carry (ConditionWriter.written: equal bodies need no write before the next heartbeat)."""
    return {"status": {"conditions": [
        {"type": c.type, "status": "True" if c.status else "False", "reason": c.reason,
         "message": c.message[:1024], "lastTransitionTime": iso(c.last_transition), "lastHeartbeatTime": iso(heartbeat)}
        for c in sorted(conditions, key=attrgetter("type")) if reserved_condition(c.type) is None]}}


class ConditionWriter:
    def __init__(self, node: NodeApi):
        self.n = node
        self.written: dict | None = None  # the body last written, at heartbeat 0 (`condition_patch`)
        self.next_heartbeat = 0.0
        self.profile: dict[str, Condition] = {}  # the repair profile's conditions as last computed
        self.opted_out = False  # the Node carries the do-not-repair label (as the sink's last read of it said)

    def write(self, snap: Snapshot, now: float, heartbeat: bool) -> None:
        written = list(snap.conditions)
        if self.n.s.repair_profile != "off":
            self.profile = profile_conditions(self.n.s.repair_profile, list(snap.problems), self.profile, now,
                                              self.opted_out)
            written += self.profile.values()
        key = condition_patch(written, 0.0)
        if key != self.written or heartbeat:
            self.n.wait()
            self.n.api.patch_node_status(self.n.node, condition_patch(written, now),
                                         _content_type="application/strategic-merge-patch+json",
                                         _request_timeout=self.n.s.request_timeout_seconds)
            self.written = key
            self.n.count("conditions")
            self.next_heartbeat = now + self.n.s.heartbeat_seconds * random.uniform(0.9, 1.1)

    def pending(self, snap: Snapshot) -> bool:
        """Whether `snap`'s conditions (with the repair profile's as last computed) differ from the last write."""
        return condition_patch([*snap.conditions, *self.profile.values()], 0.0) != self.written


class AnnotationWriter:
    """The recommended action and GPUs as JSON in one annotation of ours (removed when nothing needs repair).
    A merge patch of metadata.annotations touches no one else's annotation."""

    def __init__(self, node: NodeApi):
        self.n = node
        self.value: str | None = ""  # as last written ("": not written yet)

    def found(self, value: str | None) -> None:
        """The value the Node carries (read at a heartbeat): another than last written (the Node deleted and
        registered again under its name, the annotation removed by hand) is written again at the next `write`."""
        if self.value != "" and value != self.value:
            self.value = ""

    def write(self, problems: list[Problem]) -> None:
        value = repair_annotation(problems)
        if value == self.value:
            return
        self.n.wait()
        self.n.api.patch_node(self.n.node, {"metadata": {"annotations": {self.n.s.repair_annotation_key: value}}},
                              _content_type="application/merge-patch+json",
                              _request_timeout=self.n.s.request_timeout_seconds)
        self.value = value
        self.n.count("annotations")
        log.info("repair hand-off on %s: %s", self.n.node, value or "none")


class TaintWriter:
    def __init__(self, node: NodeApi, events: EventRecorder, clock: Callable[[], float]):
        self.n, self.events, self.clock = node, events, clock
        self.keys = our_taint_keys(list(node.s.taints), node.s.taint_prefix)  # the only taints we touch
        self.applied: dict[str, dict] | None = None  # our taints as last seen on the node (None: not read yet)
        self.cleared_at: dict[str, float] = {}
        self.held: set[str] = set()
        self.recheck = Recheck()  # when held-back taints ask again (heartbeats too): backoff with full jitter
        self._refusal = ""  # the budget's last answer, said again for a held taint between asks
        self._book_until = float("inf")  # a refusal from the book alone: ask again before this (its count a cap old)
        self.pool = pool_tag(node.s.budget_selector)
        # this node holds a grant of the taint budget, released when its last taint goes (None: not known, as after
        # a restart: released then too, once; a release with no grant of ours reads the ConfigMap and writes nothing)
        self._granted: bool | None = None
        self.book = GrantBook.of(node.s.taint_budget_configmap, node.call, node.node, clock)

    def _wanted(self, conditions: dict[str, Condition], now: float) -> dict[str, dict]:
        """Our taints the conditions call for, plus those kept through their hold-down."""
        s = self.n.s
        wanted = wanted_taints(conditions, list(s.taints), s.taint_prefix)
        applied = self.applied or {}
        for key in [k for k in self.cleared_at if k in wanted or k not in applied]:
            del self.cleared_at[key]  # the condition is back, or the taint is gone
        for key, t in applied.items():
            if key not in wanted and now - self.cleared_at.setdefault(key, now) < s.taint_hold_down_seconds:
                wanted[key] = {k: t[k] for k in ("key", "value", "effect") if k in t}
        return wanted

    def write(self, conditions: dict[str, Condition], now: float, heartbeat: bool) -> None:
        s = self.n.s
        if self.applied is not None and not heartbeat:
            wanted = self._wanted(conditions, now)
            if not self.recheck.due(now):  # held-back taints wait for their recheck
                wanted = {k: t for k, t in wanted.items() if k not in self.held}
            if _same(wanted, self.applied):
                return
        # the budget is asked once per write, not again on each 409's retry; held-back taints (and only they) not
        # yet due keep the last answer without asking, heartbeats included
        asked = False
        refused: str | None = None
        for _ in range(CONFLICT_RETRIES):
            node = self.n.get_node()
            current = list(node.get("spec", {}).get("taints") or [])
            mine_now = {t["key"]: t for t in current if ours(t, self.keys)}
            self.applied = mine_now  # what is really there (after a restart, or someone's kubectl)
            wanted = self._wanted(conditions, now)
            target = dict(wanted)
            new = sorted(set(target) - set(mine_now))
            # the budget counts nodes: one that already carries a gpu-npd taint is counted, another key costs nothing
            if new and not mine_now and not asked:
                if set(new) <= self.held and not self.recheck.due(now):
                    refused, asked = self._refusal, True
                else:
                    refused, asked = self._budget_refuses(), True
                    if refused is None:
                        self.recheck.reset()
                    else:
                        self._refusal = refused
                        self.recheck.refused(now, set(new), self._book_until)
            if refused is not None and new and not mine_now:
                for key in new:
                    del target[key]
                    if key not in self.held:
                        self.held.add(key)
                        log.warning("taint %s held back: %s", key, refused)
                        self.events.record(Ref("Node", self.n.node, uid=self.n.node), "TaintHeldByBudget",
                                           f"gpu-npd did not add taint {key}: {refused}; the condition stands",
                                           key=f"held|{key}")
            else:
                self.held -= set(new)
            self.held &= set(wanted) - set(mine_now)  # one on the node after all (kubectl's): not held
            if not self.held:
                self.recheck.reset()  # granted, or the condition cleared: a new refusal starts the schedule over
            self._gauge_held()
            merged = merge_taints(current, target, self.keys)
            if merged == current:
                self.applied = {t["key"]: t for t in merged if ours(t, self.keys)}
                if not self.applied and self._granted is not False:  # gone without our patch (kubectl, a restart)
                    self._release()
                return
            from kubernetes.client.rest import ApiException  # noqa: PLC0415
            try:
                self.n.wait()
                self.n.api.patch_node(self.n.node, {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"]},
                                                    "spec": {"taints": merged}},
                                      _content_type="application/merge-patch+json",
                                      _request_timeout=s.request_timeout_seconds)
            except ApiException as exc:
                if exc.status == 409:
                    self.n.count_error(CONFLICT)
                    continue  # someone else wrote the node: read again, change only ours again
                raise
            self.n.count("taints")
            self.applied = {t["key"]: t for t in merged if ours(t, self.keys)}
            log.info("taints on %s: %s", self.n.node, sorted(self.applied) or "none of gpu-npd's")
            if not self.applied and self._granted is not False:
                self._release()
            return
        raise RuntimeError(f"taint update on {self.n.node} kept conflicting ({CONFLICT_RETRIES} tries)")

    def _budget_refuses(self) -> str | None:
        """Why this node may not be tainted now, or None when it may.  First the shared book alone (one GET): when
        its summary of the pool is fresh and the pool's grants fill the budget, the answer is no, unlisted.  Else
        the pool (budget_selector, paged) is listed from the API server's watch cache (resourceVersion "0") and
        its nodes carrying a gpu-npd taint counted; then this node's grant is asked of the shared book, where
        those nodes and every other node's grant count: two agents deciding in the same instant cannot both take
        the last slot."""
        s = self.n.s
        pool: set[str] = set()
        tainted: set[str] = set()
        self._book_until = float("inf")

        def list_node(**kwargs: Any) -> Any:
            self.n.wait()  # each page within the client-side QPS limit
            return self.n.api.list_node(**kwargs)

        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        try:
            self.n.wait()
            known = self.book.pool_count(self.pool, self.n.node)
        except ApiException as exc:
            if exc.status not in (403, 404):
                raise
            return self._no_access(exc)
        if known is not None:
            taken, nodes, counted_at = known
            allowed = budget_size(max(nodes, 1), s.max_tainted_fraction, s.max_tainted_nodes)
            if taken >= allowed:
                log.debug("taint budget (from its ConfigMap alone): %d of %d granted; this one refused", taken,
                          allowed)
                self._book_until = counted_at + BUDGET_RECHECK_CAP_SECONDS  # a slot it cannot show: within the cap
                return self._full_reason()
        # resourceVersion "0": served from the API server's watch cache, not read from etcd (a quorum read of the
        # whole pool at every ask, before); current enough: the grants, compare-and-swapped, are the guarantee
        for item in items(list_node, 100, s.request_timeout_seconds, label_selector=s.budget_selector,
                          resource_version="0"):
            if not s.budget_selector and "nvidia.com/gpu" not in item.get("status", {}).get("capacity", {}):
                continue
            name = item["metadata"]["name"]
            pool.add(name)
            if name != self.n.node and any(ours(t, self.keys) for t in item.get("spec", {}).get("taints") or []):
                tainted.add(name)
        allowed = budget_size(max(len(pool), 1), s.max_tainted_fraction, s.max_tainted_nodes)
        try:
            ok = self.n.node in self.book.acquire([self.n.node], tainted, allowed, among=pool | {self.n.node},
                                                  pool=self.pool)
        except ApiException as exc:
            if exc.status not in (403, 404):  # the API's trouble: the sync is retried with backoff
                raise
            return self._no_access(exc)
        self._granted = ok
        log.info("taint budget: %d of %d pool nodes tainted by gpu-npd, %d may be; this one %s", len(tainted),
                 len(pool), allowed, "granted" if ok else "refused")
        return None if ok else self._full_reason()

    def _no_access(self, exc: Exception) -> str:
        """No access to the budget's ConfigMap (RBAC of an older release, a namespace that does not exist): without
        a grant, no taint, said as the refusal (a warning and an Event); the condition stands and the other
        writers go on."""
        return (f"the taint budget's ConfigMap {self.book.namespace}/{self.book.name} refused the agent "
                f"({describe(exc)}): it needs get, update and create on it (Role gpu-npd-budgets)")

    def _full_reason(self) -> str:
        s = self.n.s
        return (f"more than {s.max_tainted_fraction:.0%} of the pool (or {s.max_tainted_nodes or 'no cap on'} nodes) "
                "would be tainted")

    def next_ask(self) -> float:
        """When a held-back taint asks the budget again (the writer thread wakes for it); inf when none is held."""
        return self.recheck.next_at if self.held else float("inf")

    def _release(self) -> None:
        """This node carries no gpu-npd taint any more: its grant goes back to the pool (a failure is only said:
        another agent reclaims a grant whose node is untainted after the grace)."""
        try:
            self.book.release([self.n.node])
            self._granted = False
        except api_errors() as exc:
            log.warning("taint budget: the grant of %s was not released (%s); it lapses on its own", self.n.node,
                        describe(exc))

    def _gauge_held(self) -> None:
        if self.n.metrics is not None:
            for rule in self.n.s.taints:
                key = taint_key(self.n.s.taint_prefix, rule.condition)
                self.n.metrics.taint_held.labels(key).set(1 if key in self.held else 0)


def _same(a: dict[str, dict], b: dict[str, dict]) -> bool:
    strip = lambda d: {k: (t.get("value"), t.get("effect")) for k, t in d.items()}  # noqa: E731
    return strip(a) == strip(b)


def _gpus(node: dict) -> int | None:
    """The Node's nvidia.com/gpu capacity, None when it has none (or not a number)."""
    value = node.get("status", {}).get("capacity", {}).get("nvidia.com/gpu")
    try:
        return int(value) if value else None
    except ValueError:
        return None
