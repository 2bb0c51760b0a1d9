"""pid -> pod, through /proc/<pid>/cgroup (cgroup v1 and v2, cgroupfs and systemd drivers)."""

from __future__ import annotations

import os
import time
from collections import OrderedDict

from parsers.wordscan import LazyPattern

# kubepods/burstable/pod<uid>/<cid>  |  kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<cid>.scope
_POD = LazyPattern(r"pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})")
_CONTAINER = LazyPattern(r"(?:cri-containerd-|crio-|docker-|/)([0-9a-f]{64})(?:\.scope)?$")


def pod_of_pid(pid: int, proc_root: str = "/") -> tuple[str, str] | None:
    """(pod uid, container id) of a live process, or None (not in a pod, gone, unreadable)."""
    try:
        with open(os.path.join(proc_root, "proc", str(pid), "cgroup"), encoding="ascii", errors="replace") as fh:
            text = fh.read(65536)
    except OSError:
        return None
    for line in text.splitlines():
        path = line.split(":", 2)[-1]
        m = _POD.search(path)
        if m:
            c = _CONTAINER.search(path)
            return m.group(1).replace("_", "-"), c.group(1) if c else ""
    return None


class PidLookup:
    """pod_of_pid with a short memory: an Xid storm from one process reads its cgroup file once."""

    def __init__(self, proc_root: str = "/", ttl: float = 30.0, size: int = 256):
        self.proc_root, self.ttl, self.size = proc_root, ttl, size
        self._cache: OrderedDict[int, tuple[float, tuple[str, str] | None]] = OrderedDict()
        self.reads = 0
        self.evictions = 0  # pids forgotten to keep the memory at `size` entries

    def __call__(self, pid: int) -> tuple[str, str] | None:
        now = time.monotonic()
        hit = self._cache.get(pid)
        if hit is not None and now - hit[0] < self.ttl:
            return hit[1]
        self.reads += 1
        found = pod_of_pid(pid, self.proc_root)
        self._cache[pid] = (now, found)
        self._cache.move_to_end(pid)
        if len(self._cache) > self.size:
            self._cache.popitem(last=False)
            self.evictions += 1
        return found


def running_pods(proc_root: str = "/") -> set[str] | None:
    """The uids of pods that have a live process on this node, or None when /proc cannot be read (then no one
    can say a pod has stopped).  One pass over /proc: for the rare moment a pod goes silent, not per line."""
    base = os.path.join(proc_root, "proc")
    try:
        pids = [p for p in os.listdir(base) if p.isdigit()]
    except OSError:
        return None
    uids: set[str] = set()
    for pid in pids:
        found = pod_of_pid(int(pid), proc_root)
        if found is not None:
            uids.add(found[0])
    return uids
