"""One Xid reported by both channels (NVML events and the kernel log) counts once."""

from __future__ import annotations

import time

from parsers import Finding

XID_MERGE_SECONDS = 10.0  # one Xid seen by both NVML events and the kernel log within this is one Xid
REMEMBERED = 1024  # (PCI, Xid) pairs remembered


class XidMerger:
    def __init__(self, window: float = XID_MERGE_SECONDS):
        self.window = window
        self._seen: dict[tuple[str, int], tuple[float, str]] = {}  # oldest first

    def already_seen(self, f: Finding, source: str) -> bool:
        """True when the other channel already reported this Xid."""
        key, now = (f.pci or "", f.xid or 0), time.monotonic()
        seen = self._seen.pop(key, None)
        if seen is not None and seen[1] != source and now - seen[0] <= self.window:
            return True
        self._seen[key] = (now, source)  # (re-)inserted last: the dict is oldest first
        if len(self._seen) > REMEMBERED:
            del self._seen[next(iter(self._seen))]
        return False
