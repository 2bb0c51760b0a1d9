"""Which GPUs and rails each pod holds, for the hang verdict (agent/progress.py `Owned`), kept by a thread of its
own: asking the kubelet's PodResources API blocks, so the agent's loop only ever reads the last answer.

Pure part: `owned` turns the kubelet's answer (and the DRA devices of our GPUs, `DeviceOwners.dra`) into
(namespace, pod) -> `Owned`.  Edge: `PodDeviceCache`: `__call__(ref)` answers from the cache and never blocks; a
pod it does not know wakes the thread (at most once per `MIN_ASK_SECONDS`), which otherwise asks again every
`refresh_seconds` while pods are wanted.  The kubelet silent: `fallback` (the pods of each GPU's compute processes,
pid -> cgroup) where given, else the pod's devices stay unknown and the verdict says it speaks of the node's GPUs.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from kubeapi.retry import Worker
from parsers.model import PodRef

from ..podresources import KUBELET, Owned, PodDevices
from .nodeapi import NodeApi
from .owners import DeviceOwners

log = logging.getLogger("gpu_npd.kube")
MIN_ASK_SECONDS = 5.0  # a miss asks the kubelet again no sooner than this after the last question
Pod = tuple[str, str]  # (namespace, name)


def owned(pods: list[PodDevices], dra: dict[str, tuple[str, str, str]] | None = None) -> dict[Pod, Owned]:
    """(namespace, pod) -> its GPUs (device-plugin UUIDs; DRA claim devices as our GPU key, a PCI address or a
    UUID) and its other device ids (RDMA rails), for each pod of the kubelet's answer."""
    by_claim = {device: key.lower() for key, device in (dra or {}).items()}
    out = {}
    for p in pods:
        gpus = set(p.devices) | {by_claim[c] for c in p.claims if c in by_claim}
        out[(p.namespace, p.name)] = Owned(frozenset(gpus), frozenset(p.others), KUBELET)
    return out


class PodDeviceCache(Worker):
    """`cache(ref)` -> the pod's `Owned`, or None while unknown (never blocks); `start` / `close` run its thread."""

    def __init__(self, api, node: str, settings, refresh_seconds: float, metrics=None,
                 clock: Callable[[], float] = time.monotonic,
                 lister: Callable[[], list[PodDevices]] | None = None,
                 fallback: Callable[[], dict[Pod, Owned]] | None = None,
                 wanted: Callable[[], bool] = lambda: True, wall: Callable[[], float] = time.time):
        self.n = NodeApi(api, node, settings, metrics)
        self.owners = DeviceOwners(api, node, settings, self.n, clock, lister,
                                   "a hang verdict names the pods' GPUs by their compute processes, else the node's")
        self.refresh_seconds, self.clock, self.fallback, self.wanted = refresh_seconds, clock, fallback, wanted
        super().__init__("pod-devices", self.n.stop)
        self._map: dict[Pod, Owned] = {}  # replaced whole by the thread: a reader sees one answer or the next
        self._asked = -1e18  # when the thread last asked
        self._answered = -1e18  # when (wall clock) the thread last asked the kubelet and it answered (`holds_gpus`)
        self._missed = False  # a pod asked about was not known: ask once, wanted or not
        self.wall = wall
        self.asks = 0  # questions asked (tests, benchmarks)

    # ---- agent side (never blocks) ----------------------------------------------------------------

    def __call__(self, ref: PodRef) -> Owned | None:
        found = self._map.get((ref.namespace, ref.pod))
        if found is None and self.clock() - self._asked >= MIN_ASK_SECONDS:
            self._missed = True
            self.wake.set()  # learn it before a verdict needs it
        return found

    def holds_gpus(self, ref: PodRef, at: float) -> bool | None:
        """Whether the pod holds GPUs, by the kubelet's word (agent/pipeline.py `_holds_gpus`): True when its last
        answer names the pod's GPUs; False when an answer asked after `at` (wall clock: when the pod's line was
        written) does not name the pod (the kubelet allocates a pod's devices before its containers start, so any
        answer after the line names a pod that holds some); None while unknown (no such answer yet; the kubelet
        silent, whose fallback names only the pods with a compute process on a GPU)."""
        found = self(ref)
        if found is not None and found.source == KUBELET:
            return bool(found.gpus)
        return False if self._answered >= at else None

    # ---- the thread --------------------------------------------------------------------------------

    def run(self) -> None:
        while not self.stop.is_set():
            self.wake.wait(self.refresh_seconds)
            self.wake.clear()
            if self.stop.is_set():
                break
            if self.wanted() or self._missed:
                self._missed = False
                try:
                    self.refresh()
                except Exception:  # noqa: BLE001 - a bug here must not end the thread: the verdict falls back
                    log.exception("pod -> device map not refreshed")

    def refresh(self) -> None:
        """Ask the kubelet (else the fallback) once, and keep the answer."""
        self._asked = self.clock()
        self.asks += 1
        wall = self.wall()
        pods = self.owners.pods()
        if pods is not None:
            self._map = owned(pods, self.owners.dra(pods))
            self._answered = wall
        elif self.fallback is not None:
            self._map = self.fallback()
        else:
            self._map = {}
