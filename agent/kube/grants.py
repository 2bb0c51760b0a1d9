"""Budgets that hold across every agent: grants written into one shared ConfigMap by compare-and-swap.

Used by the GPU budget of DRA device taints (agent/kube/dra.py: one grant per DeviceTaintRule) and by the node-taint
budget (agent/kube/sink.py: one grant per tainted node of a pool). Two agents deciding in the same instant
cannot both take the last slot: the second one's write carries a stale resourceVersion, is refused (409), reads
again and counts again.

A held-back action asks again on `Recheck`'s schedule (exponential backoff with full jitter, up to
BUDGET_RECHECK_CAP_SECONDS), and a node-taint refusal is learnt from the book alone while the book is full
(`pool_count`: the pool's summary, written by a full count less than BOOK_ALONE_SECONDS before, and the pool's
grants): in a fleet-wide event the held agents read one ConfigMap, not the whole pool, each time they ask.  A
refusal from the book alone asks again before its summary is a cap old (`Recheck.refused`'s `until`): a slot the
book cannot show (a tainted node deleted: its grant is reclaimed by a full count) is found within the cap too.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from typing import Any, Callable

from kubeapi.client import own_namespace

from .desired import OWNER, OWNER_LABEL

GRANT_RETRIES = 10  # compare-and-swap attempts on the budget's ConfigMap before the sync fails (and is retried)
GRANT_GRACE_SECONDS = 600.0  # a grant whose action never appeared is anyone's to reclaim after this
BUDGET_RECHECK_SECONDS = 60.0  # a held-back action's first recheck window (full jitter: any time within it) ...
BUDGET_RECHECK_CAP_SECONDS = 900.0  # ... doubling at each refusal up to this: a freed slot is taken within it
SUMMARY_PREFIX = "_pool."  # a pool's summary in the book (no node name starts with "_"): its size, when counted
BOOK_ALONE_SECONDS = BUDGET_RECHECK_CAP_SECONDS / 2  # a summary this young says "full" alone; a full count renews it


def pool_tag(selector: str) -> str:
    """The short name of a node pool (its budget_selector; "" is every node with nvidia.com/gpu capacity) that its
    grants and summary carry in the book."""
    return hashlib.sha256(selector.encode()).hexdigest()[:12]


class Recheck:
    """When a held-back action asks the budget again: exponential backoff with full jitter (AWS's "full jitter":
    the n-th recheck at a uniformly random time within min(cap, base * 2**n) of the refusal), so a fleet of held
    agents neither asks in lockstep nor every minute for the length of the event.  Started over (the next ask
    at once) when the held set changes and when nothing is held (a grant, the condition cleared)."""

    def __init__(self, base: float = BUDGET_RECHECK_SECONDS, cap: float = BUDGET_RECHECK_CAP_SECONDS,
                 uniform: Callable[[float, float], float] = random.uniform):
        self.base, self.cap, self.uniform = base, cap, uniform
        self.attempt = 0
        self.next_at = float("-inf")
        self.held: frozenset[str] = frozenset()

    def due(self, now: float) -> bool:
        return now >= self.next_at

    def refused(self, now: float, held: set[str] | frozenset[str], until: float = float("inf")) -> None:
        """The budget said no to `held` (asked at `now`): the next ask within the next window, and no later than
        `until` (a refusal from the book alone: a cap after the full count it rests on)."""
        if frozenset(held) != self.held:
            self.attempt = 0  # another set held back: the schedule starts over
        self.held = frozenset(held)
        window = min(self.cap, self.base * 2 ** self.attempt, max(0.0, until - now))
        self.next_at = now + self.uniform(0.0, window)
        if self.base * 2 ** self.attempt < self.cap:  # at the cap it stays (2 ** 1024 is past a float: it raised)
            self.attempt += 1

    def reset(self) -> None:
        """Nothing held any more: the next refusal starts the schedule over."""
        self.attempt, self.next_at, self.held = 0, float("-inf"), frozenset()


def configmap_ref(ref: str) -> tuple[str, str]:
    """(namespace, name) of a budget's ConfigMap as configured ([namespace/]name): no namespace is the agent's own
    (its service account's), "gpu-npd" outside a pod."""
    namespace, _, name = ref.rpartition("/")
    return namespace or own_namespace() or "gpu-npd", name


class GrantBook:
    """A budget across every agent: one ConfigMap whose `data` maps a name (a DeviceTaintRule's, or a node's for
    node taints) to its grant (JSON {"node": full node name, "at": unix time}, a node taint's also "pool": its
    pool's tag), and `_pool.<tag>` to that pool's summary (JSON {"nodes": its size when counted, "at": unix time}).
    An agent acts only under a grant it wrote itself with the ConfigMap's resourceVersion (compare-and-swap: a 409
    reads again and counts again), so any number of agents racing never hold more grants than the budget allows.
    Counted: every grant and every standing action without one (an older version's, or one whose grant was lost). A
    grant is released when its action is undone; one whose action never appeared is dropped by its own node once it
    no longer wants it, by anyone after GRANT_GRACE_SECONDS."""

    @classmethod
    def of(cls, ref: str, request: Callable[..., Any], node: str, clock: Callable[[], float]) -> "GrantBook":
        """The book of the ConfigMap a setting names ([namespace/]name, see configmap_ref)."""
        return cls(request, *configmap_ref(ref), node, clock)

    def __init__(self, request: Callable[..., Any], namespace: str, name: str, node: str,
                 clock: Callable[[], float], sleep: Callable[[float], None] = time.sleep):
        self.request, self.namespace, self.name, self.node = request, namespace, name, node
        self.clock, self.sleep = clock, sleep
        self.path = f"/api/v1/namespaces/{namespace}/configmaps"
        self.conflicts = 0

    def _read(self, create: bool = True) -> dict | None:
        """The ConfigMap; when absent, created (or None: `create` False)."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        try:
            return self.request("GET", f"{self.path}/{self.name}")
        except ApiException as exc:
            if exc.status != 404:
                raise
        if not create:
            return None
        try:
            return self.request("POST", self.path, body={
                "apiVersion": "v1", "kind": "ConfigMap", "data": {},
                "metadata": {"name": self.name, "labels": {OWNER_LABEL: OWNER}}})
        except ApiException as exc:
            if exc.status != 409:  # another agent created it first
                raise
        return self.request("GET", f"{self.path}/{self.name}")

    def _swap(self, change: Callable[[dict[str, dict], float], dict[str, dict]], create: bool = True) -> None:
        """Read the grants, `change` them, write them back with the read resourceVersion; again on a 409.  No
        ConfigMap and not `create`: nothing to change."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        for attempt in range(GRANT_RETRIES):
            cm = self._read(create)
            if cm is None:
                return
            grants = {k: _grant(v) for k, v in (cm.get("data") or {}).items()}
            after = change(dict(grants), self.clock())
            if after == grants:
                return
            # an update replaces the whole object: everything read is sent back (others' annotations, owner
            # references, finalizers, binaryData), with the read resourceVersion; only `data` is ours
            body = {**cm, "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {k: v for k, v in cm["metadata"].items() if k != "managedFields"},
                    "data": {k: json.dumps(g, sort_keys=True) for k, g in sorted(after.items())}}
            try:
                self.request("PUT", f"{self.path}/{self.name}", body=body)
                return
            except ApiException as exc:
                if exc.status != 409:
                    raise
                self.conflicts += 1
                self.sleep(random.uniform(0, 0.05 * (attempt + 1)))  # another agent won: read again
        raise RuntimeError(f"the budget ConfigMap {self.namespace}/{self.name} kept changing ({GRANT_RETRIES} tries)")

    def acquire(self, names: list[str], rules: set[str], allowed: int, among: set[str] | None = None,
                pool: str | None = None) -> list[str]:
        """The names among `names` this node may act under (granted before, or now while fewer than `allowed`
        grants and actions stand). `rules`: the names of every standing action (a gpu-npd DeviceTaintRule in the
        cluster, a node carrying a gpu-npd taint). `among`: the names this budget counts (a node pool's nodes;
        None: every name): another pool's grants are not counted (and, as every grant, reclaimed only past the
        grace). `pool` (with `among`): the pool's tag; its grants carry it (an untagged grant of a pool node is
        tagged) and its summary (the pool's size, when counted) is written when missing, changed or older than
        BOOK_ALONE_SECONDS, so that `pool_count` can answer from the book alone."""
        given: list[str] = []

        def change(book: dict[str, dict], now: float) -> dict[str, dict]:
            summaries = {k: g for k, g in book.items() if k.startswith(SUMMARY_PREFIX)
                         and now - _number(g.get("at")) < 2 * BUDGET_RECHECK_CAP_SECONDS}  # a pool none asks: gone
            grants = {k: g for k, g in book.items() if not k.startswith(SUMMARY_PREFIX)}
            keep = grants_change(grants, now)
            if pool is not None and among is not None:
                for k, g in keep.items():
                    if k in among and g.get("pool") != pool:
                        keep[k] = {**g, "pool": pool}
                mine = summaries.get(SUMMARY_PREFIX + pool, {})
                if mine.get("nodes") != len(among) or not 0 <= now - _number(mine.get("at")) < BOOK_ALONE_SECONDS:
                    summaries[SUMMARY_PREFIX + pool] = {"nodes": len(among), "at": round(now, 3)}
            return {**keep, **summaries}

        def grants_change(grants: dict[str, dict], now: float) -> dict[str, dict]:
            def kept(k: str, g: dict) -> bool:
                if k in rules:
                    return True
                if g.get("node") == self.node:
                    return k in names  # ours, no rule yet: kept while we still want it
                # another agent's, about to act; or, past the grace, one whose action never came, or whose node
                # left the cluster, or another pool's whose taint stands (counted by its own pool as such): gone,
                # so grants never pile up as nodes come and go
                return now - _number(g.get("at")) < GRANT_GRACE_SECONDS

            keep = {k: g for k, g in grants.items() if kept(k, g)}
            taken = set(keep) | rules
            if among is not None:
                taken &= among
            given[:] = [n for n in names if keep.get(n, {}).get("node") == self.node]
            mark = {"pool": pool} if pool is not None else {}
            for n in given:  # still wanted, its rule not created yet (the API failed?): not stale, say so
                keep[n] = {"node": self.node, "at": round(now, 3), **mark}
            for n in names:
                if n not in taken and len(taken) < allowed:
                    keep[n] = {"node": self.node, "at": round(now, 3), **mark}
                    taken.add(n)
                    given.append(n)
            return keep

        self._swap(change)
        return given

    def pool_count(self, pool: str, name: str) -> tuple[int, int, float] | None:
        """(grants of `pool`, the pool's nodes when last counted, when) from the book alone, one GET: what a held
        node needs to learn that the pool is still full without listing it.  None (count in full: list the pool)
        when the book has no summary of the pool younger than BOOK_ALONE_SECONDS (the full count also reclaims
        grants whose taint never came or whose node is gone: the book cannot show those slots free, so a refusal
        from it asks again within a cap of the count), or holds a grant under `name` (this node's, to be used).  Grants only: a taint standing without a grant (an older version's) is not counted, so the
        book alone may say "room" (then the full count decides), never "full" wrongly."""
        cm = self._read(create=False)
        if cm is None:
            return None
        book = {k: _grant(v) for k, v in (cm.get("data") or {}).items()}
        summary = book.get(SUMMARY_PREFIX + pool)
        at = _number(summary.get("at")) if summary else 0.0
        # a summary from the future (another node's clock ahead by more than NTP allows) is not trusted either
        if not summary or name in book or not -BUDGET_RECHECK_SECONDS < self.clock() - at < BOOK_ALONE_SECONDS:
            return None
        taken = sum(1 for k, g in book.items() if not k.startswith(SUMMARY_PREFIX) and g.get("pool") == pool)
        return taken, int(_number(summary.get("nodes"))), at

    def release(self, names: list[str]) -> None:
        """Drop this node's grants for `names` (their actions are undone); no ConfigMap: none to drop."""
        self._swap(lambda grants, now: {k: g for k, g in grants.items()
                                        if not (k in names and g.get("node") == self.node)}, create=False)


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _grant(value: Any) -> dict:
    try:
        g = json.loads(value)
    except (TypeError, ValueError):
        return {}  # not a grant of ours: no node, no time (reclaimed when no rule stands behind it)
    return g if isinstance(g, dict) else {}
