"""The Kubernetes sink: the latest snapshot kept apart from the loop that writes it.

`apply(snapshot)` runs on the agent's thread and only keeps the snapshot, records Events (new problems, pod
events) and wakes the writer.  The writer thread coalesces bursts and runs the node writers in turn
(agent/kube/writers.py: conditions, the repair annotation, DRA device taints, taints; then the Events), and
heartbeats.  Any API failure backs off with jitter and retries with the latest snapshot: detection never waits
on the API server.  Nothing here calls into the agent: what the Node says that detection uses (its GPU
capacity) goes back as an input through the intake (`emit`), like every other input.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import partial
from typing import Any, Callable

from kubeapi.events import Ref
from kubeapi.retry import WriterThread, describe, refusal
from parsers.gpus import problem_gpu
from parsers.model import NodeInfo, Snapshot

from .dra import DeviceFencer, faulty_gpus
from .settings import KubeSettings
from .nodeapi import NodeApi
from .writers import AnnotationWriter, ConditionWriter, TaintWriter

log = logging.getLogger("gpu_npd.kube")


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
            self.events.record(node, p.reason, p.message, "Normal" if p.severity == "info" else "Warning", key=p.id)
        for e in snapshot.pod_events:  # an Event on a Pod
            self.events.record(Ref("Pod", e.ref.pod, e.ref.namespace, e.ref.uid), e.reason, e.message, e.type,
                               key=e.key)
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


def _gpus(node: dict) -> int | None:
    """The Node's nvidia.com/gpu capacity, None when it has none (or not a number)."""
    value = node.get("status", {}).get("capacity", {}).get("nvidia.com/gpu")
    try:
        return int(value) if value else None
    except ValueError:
        return None
