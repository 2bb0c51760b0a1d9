"""The Kubernetes sink: desired node state kept apart from the loop that writes it.

`apply()` runs on the agent's thread and only records what the node should show (a snapshot of
the conditions, Events for new problems) and wakes the writer.  The writer thread coalesces bursts,
writes conditions (strategic merge on nodes/status, our types only), reconciles gpu-npd's own
taints (read, change ours, write with the read resourceVersion, retry on 409; within the blast-radius
budget), flushes Events, and heartbeats.  Any API failure backs off with jitter and retries with
the latest desired state: detection never waits on the API server.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from dataclasses import replace
from typing import Any, Callable

from ..health import Change, Condition
from .desired import budget_allows, condition_key, condition_patch, merge_taints, ours, wanted_taints
from kubeapi.events import EventRecorder, Ref, TokenBucket
from .dra import DeviceFencer, faulty_gpus
from .repair import profile_conditions, repair_annotation
from .settings import KubeSettings

log = logging.getLogger("gpu_npd.kube")
CONFLICT_RETRIES = 5
BUDGET_RECHECK_SECONDS = 60.0  # a held-back taint asks the budget again at most this often (and at heartbeats)


class RateLimiter:
    """Client-side QPS limit: blocks the writer thread, never the agent."""

    def __init__(self, qps: float, burst: int):
        self.bucket = TokenBucket(qps, burst)

    def wait(self, stop: threading.Event) -> None:
        while not self.bucket.take() and not stop.is_set():
            stop.wait(1.0 / self.bucket.rate / 4)


class KubernetesSink:
    def __init__(self, api, node: str, settings: KubeSettings, mode: str,
                 snapshot: Callable[[], dict[str, Condition]], metrics=None,
                 on_node: Callable[[dict], None] | None = None, clock: Callable[[], float] = time.time,
                 problems: Callable[[], list] | None = None):
        self.api, self.node, self.s, self.mode = api, node, settings, mode
        self.snapshot, self.metrics, self.on_node, self.clock = snapshot, metrics, on_node, clock
        self.events = EventRecorder(settings.event_namespace, node, settings.event_burst, settings.events_per_minute,
                                    settings.event_aggregate_seconds, clock)
        self.limiter = RateLimiter(settings.qps, settings.burst)
        self.stop = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._conditions: dict[str, Condition] = {}
        self._written_key: tuple | None = None
        self._next_heartbeat = 0.0
        self._applied: dict[str, dict] | None = None  # our taints as last seen on the node (None: not read yet)
        self._cleared_at: dict[str, float] = {}
        self._held: set[str] = set()
        self._budget_checked = -1e18
        self._node_seen = False
        self._thread: threading.Thread | None = None
        self.problems = problems or (lambda: [])
        self._problems: list = []
        self._profile: dict[str, Condition] = {}  # the repair profile's conditions as last computed
        self._opted_out = False  # the Node carries the do-not-repair label
        self._annotation: str | None = ""  # the repair hand-off as last written ("": not written yet)
        self.fencer = DeviceFencer(api, node, settings, lambda: self.limiter.wait(self.stop), clock, self._count) \
            if settings.dra_device_taints and mode == "enforce" else None
        self._fence_key: tuple | None = None

    # ---- agent side (never blocks) ----------------------------------------------------------------

    def apply(self, change: Change) -> None:
        conditions = {n: replace(c) for n, c in self.snapshot().items()}
        problems = [replace(p) for p in self.problems()]
        with self._lock:
            self._conditions, self._problems = conditions, problems
        for p in change.new_problems:
            self.events.record(Ref("Node", self.node, uid=self.node), p.reason, p.message,
                               "Normal" if p.severity == "info" else "Warning", key=p.id)
        self._wake.set()

    def record_event(self, ref: Ref, reason: str, message: str, key: str) -> None:
        """An Event on another object (a Pod): recorded, aggregated, written by the writer thread."""
        self.events.record(ref, reason, message, "Warning", key=key)
        self._wake.set()

    def start(self) -> None:
        with self._lock:
            self._conditions = {n: replace(c) for n, c in self.snapshot().items()}
            self._problems = [replace(p) for p in self.problems()]
        self._thread = threading.Thread(target=self.run, name="kube-writer", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 2.0) -> None:
        """Try once more to write what is pending (SIGTERM), then stop."""
        self.stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    # ---- the writer loop -------------------------------------------------------------------------

    def run(self) -> None:
        backoff = 0.0
        while not self.stop.is_set():
            due = min(self._next_heartbeat, self._next_hold_down())
            if self.events.pending():
                due = min(due, self.clock() + 5.0)  # rate-limited events: try again soon
            wait = max(0.0, due - self.clock())
            if self._wake.wait(wait) and not self.stop.is_set():
                self.stop.wait(self.s.coalesce_seconds)  # a burst of changes becomes one write
            self._wake.clear()
            try:
                self.sync()
                backoff = 0.0
                self._api_up(1)
            except Exception as exc:  # noqa: BLE001 - any API failure: back off, keep the desired state
                delay, backoff = next_delay(backoff, _retry_after(exc), self.s.max_backoff_seconds)
                self._api_up(0)
                if self.metrics is not None:
                    self.metrics.kube_errors.labels(_error_kind(exc)).inc()
                log.warning("Kubernetes API write failed (%s); retrying in %.1f s", _describe(exc), delay)
                self.stop.wait(delay)
                self._wake.set()
        try:  # on the way out: one best-effort attempt so a shutdown does not sit on a change
            if self._dirty():
                self.sync()
        except Exception:  # noqa: BLE001
            pass

    def _dirty(self) -> bool:
        with self._lock:
            conds = list(self._conditions.values())
        return condition_key(conds) != self._written_key or self.events.pending() > 0

    def _next_hold_down(self) -> float:
        cleared = list(self._cleared_at.values()) + (list(self.fencer._cleared_at.values()) if self.fencer else [])
        if not cleared:
            return float("inf")
        return min(cleared) + self.s.taint_hold_down_seconds

    def _unfenced(self, conditions: dict[str, Condition], problems: list) -> dict[str, Condition]:
        """Conditions for node taints: one whose every problem is a GPU fenced by a DeviceTaintRule of ours
        needs no node taint (the other GPUs stay schedulable); otherwise node taints are the fallback."""
        if not self.fencer or not self.fencer.active or not self.fencer.fenced:
            return conditions
        out = {}
        for name, c in conditions.items():
            mine = [p for p in problems if p.condition == name]
            if c.status and mine and all(p.subject.startswith("gpu:") and p.subject[4:].lower() in self.fencer.fenced
                                         for p in mine):
                continue
            out[name] = c
        return out

    def sync(self) -> None:
        now = self.clock()
        with self._lock:
            conditions, problems = dict(self._conditions), list(self._problems)
        heartbeat = now >= self._next_heartbeat
        if not self._node_seen or (heartbeat and self._repairing()):
            node = self._get_node()
            self._opted_out = self.s.do_not_repair_label in (node.get("metadata", {}).get("labels") or {})
            if not self._node_seen and self.on_node is not None:
                self.on_node(node)
            self._node_seen = True
        written = list(conditions.values())
        if self.s.repair_profile != "off":
            self._profile = profile_conditions(self.s.repair_profile, problems, self._profile, now, self._opted_out)
            written += self._profile.values()
        key = condition_key(written)
        if key != self._written_key or heartbeat:
            self.limiter.wait(self.stop)
            self.api.patch_node_status(self.node, condition_patch(written, now),
                                       _content_type="application/strategic-merge-patch+json",
                                       _request_timeout=self.s.request_timeout_seconds)
            self._written_key = key
            self._count("conditions")
            self._next_heartbeat = now + self.s.heartbeat_seconds * random.uniform(0.9, 1.1)
        if self.s.repair_annotation:
            self._sync_annotation(problems)
        if self.mode == "enforce":
            if self.fencer is not None:
                key = tuple(sorted(faulty_gpus(problems, self.s).items()))
                if key != self._fence_key or heartbeat or self.fencer._cleared_at:
                    self.fencer.sync(problems)
                    self._fence_key = key
                conditions = self._unfenced(conditions, problems)
            self._sync_taints(conditions, now, heartbeat)
        if self.events.pending():
            self.limiter.wait(self.stop)
            self._count("events", self.events.flush(self.api, self.s.request_timeout_seconds))

    # ---- repair hand-off ----------------------------------------------------------------------------

    def _repairing(self) -> bool:
        return self.s.repair_profile != "off" or self.s.repair_annotation

    def _sync_annotation(self, problems: list) -> None:
        """The recommended action and GPUs as JSON in one annotation of ours (removed when nothing needs
        repair).  A merge patch of metadata.annotations touches no one else's annotation."""
        value = repair_annotation(problems)
        if value == self._annotation:
            return
        self.limiter.wait(self.stop)
        self.api.patch_node(self.node, {"metadata": {"annotations": {self.s.repair_annotation_key: value}}},
                            _content_type="application/merge-patch+json",
                            _request_timeout=self.s.request_timeout_seconds)
        self._annotation = value
        self._count("annotations")
        log.info("repair hand-off on %s: %s", self.node, value or "none")

    # ---- taints ------------------------------------------------------------------------------------

    def _wanted(self, conditions: dict[str, Condition], now: float) -> dict[str, dict]:
        """Our taints the conditions call for, plus those kept through their hold-down."""
        wanted = wanted_taints(conditions, list(self.s.taints), self.s.taint_prefix)
        applied = self._applied or {}
        for key in [k for k in self._cleared_at if k in wanted or k not in applied]:
            del self._cleared_at[key]  # the condition is back, or the taint is gone
        for key, t in applied.items():
            if key not in wanted and now - self._cleared_at.setdefault(key, now) < self.s.taint_hold_down_seconds:
                wanted[key] = {k: t[k] for k in ("key", "value", "effect") if k in t}
        return wanted

    def _sync_taints(self, conditions: dict[str, Condition], now: float, heartbeat: bool) -> None:
        if self._applied is not None and not heartbeat:
            wanted = self._wanted(conditions, now)
            if now - self._budget_checked < BUDGET_RECHECK_SECONDS:  # held-back taints wait for the recheck
                wanted = {k: t for k, t in wanted.items() if k not in self._held}
            if _same(wanted, self._applied):
                return
        for _ in range(CONFLICT_RETRIES):
            node = self._get_node()
            current = list(node.get("spec", {}).get("taints") or [])
            mine_now = {t["key"]: t for t in current if ours(t, self.s.taint_prefix)}
            self._applied = mine_now  # what is really there (after a restart, or someone's kubectl)
            wanted = self._wanted(conditions, now)
            target = dict(wanted)
            new = sorted(set(target) - set(mine_now))
            if new and not self._budget_allows():
                for key in new:
                    del target[key]
                    if key not in self._held:
                        self._held.add(key)
                        log.warning("taint %s held back: the tainted-node budget is spent", key)
                        self.events.record(Ref("Node", self.node, uid=self.node), "TaintHeldByBudget",
                                           f"gpu-npd did not add taint {key}: more than "
                                           f"{self.s.max_tainted_fraction:.0%} of the pool (or "
                                           f"{self.s.max_tainted_nodes or 'no cap on'} nodes) would be tainted; "
                                           "the condition stands", key=f"held|{key}")
            else:
                self._held -= set(new)
            self._held &= set(wanted)
            self._gauge_held()
            merged = merge_taints(current, target, self.s.taint_prefix)
            if merged == current:
                self._applied = {t["key"]: t for t in merged if ours(t, self.s.taint_prefix)}
                return
            from kubernetes.client.rest import ApiException  # noqa: PLC0415
            try:
                self.limiter.wait(self.stop)
                self.api.patch_node(self.node, {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"]},
                                                "spec": {"taints": merged}},
                                    _content_type="application/merge-patch+json",
                                    _request_timeout=self.s.request_timeout_seconds)
            except ApiException as exc:
                if exc.status == 409:
                    self._count_conflict()
                    continue  # someone else wrote the node: read again, change only ours again
                raise
            self._count("taints")
            self._applied = {t["key"]: t for t in merged if ours(t, self.s.taint_prefix)}
            log.info("taints on %s: %s", self.node, sorted(self._applied) or "none of gpu-npd's")
            return
        raise RuntimeError(f"taint update on {self.node} kept conflicting ({CONFLICT_RETRIES} tries)")

    def _budget_allows(self) -> bool:
        self._budget_checked = self.clock()
        total = tainted = 0
        cont = None
        while True:
            self.limiter.wait(self.stop)
            kwargs: dict[str, Any] = {"limit": 100, "_preload_content": False,
                                      "_request_timeout": self.s.request_timeout_seconds}
            if self.s.budget_selector:
                kwargs["label_selector"] = self.s.budget_selector
            if cont:
                kwargs["_continue"] = cont
            page = json.loads(self.api.list_node(**kwargs).data)
            for item in page.get("items", []):
                if not self.s.budget_selector and "nvidia.com/gpu" not in item.get("status", {}).get("capacity", {}):
                    continue
                total += 1
                name = item["metadata"]["name"]
                if name != self.node and any(ours(t, self.s.taint_prefix) for t in item.get("spec", {}).get("taints") or []):
                    tainted += 1
            cont = page.get("metadata", {}).get("continue")
            if not cont:
                break
        ok = budget_allows(max(total, 1), tainted, self.s.max_tainted_fraction, self.s.max_tainted_nodes)
        log.info("taint budget: %d of %d pool nodes tainted by gpu-npd; one more %s", tainted, total,
                 "allowed" if ok else "refused")
        return ok

    # ---- helpers ----------------------------------------------------------------------------------

    def _get_node(self) -> dict:
        self.limiter.wait(self.stop)
        resp = self.api.read_node(self.node, _preload_content=False, _request_timeout=self.s.request_timeout_seconds)
        return json.loads(resp.data)

    def _count(self, kind: str, n: int = 1) -> None:
        if self.metrics is not None and n:
            self.metrics.kube_writes.labels(kind).inc(n)

    def _count_conflict(self) -> None:
        if self.metrics is not None:
            self.metrics.kube_errors.labels("conflict").inc()

    def _api_up(self, value: float) -> None:
        if self.metrics is not None:
            self.metrics.set_kube_api_up(value)

    def _gauge_held(self) -> None:
        if self.metrics is not None:
            for rule in self.s.taints:
                key = self.s.taint_prefix + rule.condition
                self.metrics.taint_held.labels(key).set(1 if key in self._held else 0)


def _same(a: dict[str, dict], b: dict[str, dict]) -> bool:
    strip = lambda d: {k: (t.get("value"), t.get("effect")) for k, t in d.items()}  # noqa: E731
    return strip(a) == strip(b)


def next_delay(backoff: float, retry_after: float | None, maximum: float,
               jitter: Callable[[], float] = lambda: random.uniform(0.8, 1.2)) -> tuple[float, float]:
    """(wait now, backoff to remember) after a failed write. The server's Retry-After is the wait, as given
    (capped at the maximum), and does not grow the backoff; otherwise exponential from 1 s with jitter.
    Never longer than `maximum`."""
    if retry_after is not None:
        return min(retry_after, maximum), backoff
    backoff = min(max(1.0, backoff * 2), maximum)
    return min(backoff * jitter(), maximum), backoff


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(exc, "headers", None) or {}
    value = headers.get("Retry-After") if hasattr(headers, "get") else None
    try:
        return min(float(value), 300.0) if value is not None else None
    except ValueError:
        return None


def _error_kind(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    if isinstance(status, int) and status:
        return str(status)
    return "timeout" if "timeout" in type(exc).__name__.lower() or "timed out" in str(exc).lower() else "connection"


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    return f"HTTP {status} {getattr(exc, 'reason', '')}".strip() if status else f"{type(exc).__name__}: {exc}"[:200]
