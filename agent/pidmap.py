"""pid -> pod, through /proc/<pid>/cgroup (cgroup v1 and v2, cgroupfs and systemd drivers)."""

from __future__ import annotations

import os
import re

# kubepods/burstable/pod<uid>/<cid>  |  kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<cid>.scope
_POD = re.compile(r"pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})")
_CONTAINER = re.compile(r"(?:cri-containerd-|crio-|docker-|/)([0-9a-f]{64})(?:\.scope)?$")


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
