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

from ..podresources import Owned, PodDevices
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
        out[(p.namespace, p.name)] = Owned(frozenset(gpus), frozenset(p.others), "the kubelet")
    return out


class PodDeviceCache(Worker):
    """`cache(ref)` -> the pod's `Owned`, or None while unknown (never blocks); `start` / `close` run its thread."""

    def __init__(self, api, node: str, settings, refresh_seconds: float, metrics=None,
                 clock: Callable[[], float] = time.monotonic,
                 lister: Callable[[], list[PodDevices]] | None = None,
                 fallback: Callable[[], dict[Pod, Owned]] | None = None,
                 wanted: Callable[[], bool] = lambda: True):
        self.n = NodeApi(api, node, settings, metrics)
        self.owners = DeviceOwners(api, node, settings, self.n, clock, lister,
                                   "a hang verdict names the pods' GPUs by their compute processes, else the node's")
        self.refresh_seconds, self.clock, self.fallback, self.wanted = refresh_seconds, clock, fallback, wanted
        super().__init__("pod-devices", self.n.stop)
        self._map: dict[Pod, Owned] = {}  # replaced whole by the thread: a reader sees one answer or the next
        self._asked = -1e18  # when the thread last asked
        self.asks = 0  # questions asked (tests, benchmarks)

    # ---- agent side (never blocks) ----------------------------------------------------------------

    def __call__(self, ref: PodRef) -> Owned | None:
        found = self._map.get((ref.namespace, ref.pod))
        if found is None and self.clock() - self._asked >= MIN_ASK_SECONDS:
            self.wake.set()  # learn it before a verdict needs it
        return found

    # ---- the thread --------------------------------------------------------------------------------

    def run(self) -> None:
        while not self.stop.is_set():
            self.wake.wait(self.refresh_seconds)
            self.wake.clear()
            if self.stop.is_set():
                break
            if self.wanted():
                try:
                    self.refresh()
                except Exception:  # noqa: BLE001 - a bug here must not end the thread: the verdict falls back
                    log.exception("pod -> device map not refreshed")

    def refresh(self) -> None:
        """Ask the kubelet (else the fallback) once, and keep the answer."""
        self._asked = self.clock()
        self.asks += 1
        pods = self.owners.pods()
        if pods is not None:
            self._map = owned(pods, self.owners.dra(pods))
        elif self.fallback is not None:
            self._map = self.fallback()
        else:
            self._map = {}
