"""Which pod holds which device (`DeviceOwners`), asked on a writer's or the pod -> device cache's thread: the
kubelet's PodResources answer, and for DRA claims our GPUs in this node's ResourceSlices (agent/kube/dra.py, loaded
only when a pod holds a claim and there is an API to ask).  Shared by the pod-fault writer (agent/kube/podfault.py),
the straggler Events (agent/kube/stragglers.py) and the pod -> device cache (agent/kube/poddevices.py)."""

from __future__ import annotations

import logging
from typing import Callable

from ..podresources import PodDevices, list_pods
from .nodeapi import NodeApi

log = logging.getLogger("gpu_npd.kube")


class DeviceOwners:
    """Which pod holds which device, asked on a writer's thread: the kubelet's PodResources answer now (None when
    it cannot say: said once, with `fallback`, what the writer does then), and our GPUs in this node's
    ResourceSlices (DRA claim devices are matched through them)."""

    def __init__(self, api, node: str, settings, n: NodeApi, clock: Callable[[], float],
                 lister: Callable[[], list[PodDevices]] | None, fallback: str):
        self.api, self.node, self.s, self.n, self.clock, self.fallback = api, node, settings, n, clock, fallback
        self.lister = lister or (lambda: list_pods(settings.pod_resources_socket, settings.request_timeout_seconds))
        self._kubelet_ok: bool | None = None
        self._dra: dict[str, tuple[str, str, str]] | None = None

    def pods(self) -> list[PodDevices] | None:
        try:
            pods = self.lister()
        except Exception as exc:  # noqa: BLE001 - no socket, kubelet down, refused: fall back, said once
            if self._kubelet_ok is not False:
                log.warning("PodResources API unavailable (%s); %s", f"{type(exc).__name__}: {exc}"[:200],
                            self.fallback)
            self._kubelet_ok = False
            return None
        self._kubelet_ok = True
        return pods

    def dra(self, pods: list[PodDevices] | None) -> dict[str, tuple[str, str, str]] | None:
        """Our GPU key (pci or uuid) -> its DRA device, where a pod holds a DRA claim (read once).  Not readable
        now: device-plugin ids only this time, asked again next time."""
        if not pods or not any(p.claims for p in pods) or self.api is None:  # no API: device-plugin ids only
            return None
        if self._dra is None:
            from .dra import DeviceFencer  # noqa: PLC0415 - the API's DRA reads: only where a pod holds a claim

            fencer = DeviceFencer(self.n, self.clock)
            try:
                self._dra = fencer.node_devices()
            except Exception as exc:  # noqa: BLE001
                log.warning("ResourceSlices not readable (%s); DRA-allocated GPUs are not matched to pods this time",
                            f"{type(exc).__name__}: {exc}"[:200])
                return {}
        return self._dra
