"""The node writers: each keeps one part of this Node equal to what the latest snapshot calls for.

They run on the Kubernetes writer's thread (agent/kube/sink.py runs them in turn), read only the snapshot they
are handed and what they read from the API, and call nothing of the agent's.  Each remembers what it last
wrote so that an unchanged snapshot costs no request (a heartbeat rewrites the conditions, re-reads taints).

    ConditionWriter   our NodeConditions (+ the repair profile's), strategic merge on nodes/status: the body is
                      `condition_patch`, and `condition_key` what a write must carry (pure functions, beside it)
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
from operator import attrgetter
from typing import Any, Callable

from kubeapi.events import EventRecorder, Ref, iso
from kubeapi.pager import items
from kubeapi.reserved import reserved_condition
from kubeapi.retry import api_errors, describe
from parsers.model import Condition, Problem, Snapshot

from .desired import budget_size, merge_taints, our_taint_keys, ours, wanted_taints
from .grants import BUDGET_RECHECK_CAP_SECONDS, GrantBook, Recheck, pool_tag
from .nodeapi import NodeApi
from .repair import profile_conditions, repair_annotation

log = logging.getLogger("gpu_npd.kube")
CONFLICT_RETRIES = 5


def condition_patch(conditions: list[Condition], heartbeat: float) -> dict[str, Any]:
    """Strategic-merge body for nodes/status carrying only our condition types (merged by `type`); the kubelet's
    types are never in it, whatever the configuration says (kubeapi/reserved.py).  Pure, as `condition_key`."""
    return {"status": {"conditions": [
        {"type": c.type, "status": "True" if c.status else "False", "reason": c.reason,
         "message": c.message[:1024], "lastTransitionTime": iso(c.last_transition), "lastHeartbeatTime": iso(heartbeat)}
        for c in sorted(conditions, key=attrgetter("type")) if reserved_condition(c.type) is None]}}


def condition_key(conditions: list[Condition]) -> tuple:
    """What a write must carry; equal keys need no write before the next heartbeat."""
    return tuple(sorted((c.type, c.status, c.reason, c.message[:1024], int(c.last_transition)) for c in conditions))


class ConditionWriter:
    def __init__(self, node: NodeApi):
        self.n = node
        self.written_key: tuple | None = None
        self.next_heartbeat = 0.0
        self.profile: dict[str, Condition] = {}  # the repair profile's conditions as last computed
        self.opted_out = False  # the Node carries the do-not-repair label (as the sink's last read of it said)

    def write(self, snap: Snapshot, now: float, heartbeat: bool) -> None:
        written = list(snap.conditions)
        if self.n.s.repair_profile != "off":
            self.profile = profile_conditions(self.n.s.repair_profile, list(snap.problems), self.profile, now,
                                              self.opted_out)
            written += self.profile.values()
        key = condition_key(written)
        if key != self.written_key or heartbeat:
            self.n.wait()
            self.n.api.patch_node_status(self.n.node, condition_patch(written, now),
                                         _content_type="application/strategic-merge-patch+json",
                                         _request_timeout=self.n.s.request_timeout_seconds)
            self.written_key = key
            self.n.count("conditions")
            self.next_heartbeat = now + self.n.s.heartbeat_seconds * random.uniform(0.9, 1.1)

    def pending(self, snap: Snapshot) -> bool:
        """Whether `snap`'s conditions (with the repair profile's as last computed) differ from the last write."""
        return condition_key([*snap.conditions, *self.profile.values()]) != self.written_key


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
                    self.n.count_error("conflict")
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
                key = self.n.s.taint_prefix + rule.condition
                self.n.metrics.taint_held.labels(key).set(1 if key in self.held else 0)


def _same(a: dict[str, dict], b: dict[str, dict]) -> bool:
    strip = lambda d: {k: (t.get("value"), t.get("effect")) for k, t in d.items()}  # noqa: E731
    return strip(a) == strip(b)
