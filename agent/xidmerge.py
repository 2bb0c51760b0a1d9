"""One Xid reported by both channels (NVML events and the kernel log) counts once."""

from __future__ import annotations

import time
from collections import OrderedDict

from parsers import Finding

XID_MERGE_SECONDS = 10.0  # one Xid seen by both NVML events and the kernel log within this is one Xid
REMEMBERED = 1024  # (PCI, Xid) pairs remembered


class XidMerger:
    def __init__(self, window: float = XID_MERGE_SECONDS):
        self.window = window
        self._seen: OrderedDict[tuple[str, int], tuple[float, str]] = OrderedDict()

    def already_seen(self, f: Finding, source: str) -> bool:
        """True when the other channel already reported this Xid."""
        key, now = (f.pci or "", f.xid or 0), time.monotonic()
        seen = self._seen.get(key)
        if seen is not None and seen[1] != source and now - seen[0] <= self.window:
            del self._seen[key]
            return True
        self._seen[key] = (now, source)
        self._seen.move_to_end(key)
        while len(self._seen) > REMEMBERED:
            self._seen.popitem(last=False)
        return False
