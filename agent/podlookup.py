"""Which pod a process runs in: pid -> pod uid (cgroup) -> pod name from the pod log tree (no API call)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .pidmap import PidLookup
from parsers.model import PodRef

if TYPE_CHECKING:  # a type only: the pod log reader is imported where pod logs are followed (agent/app.py start)
    from .sources.podlogs import PodLogSource


class PodLookup:
    def __init__(self, proc_root: str):
        self.pids = PidLookup(proc_root)
        self.pod_source: PodLogSource | None = None  # set once pod logs are followed

    def __call__(self, pid: int) -> PodRef | None:
        if self.pod_source is None:
            return None
        hit = self.pids(pid)
        return self.pod_source.pods.get(hit[0]) if hit is not None else None
