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
        """True when the other channel already reported this Xid. A finding that carries another Xid it absorbed (an
        Xid 48's, amended by the Xid 171 / 172 line after it: details `detail_xid`, parsers/catalog.py XID48_DETAIL)
        reports that Xid too: the other channel's report of it within the window is the same, not counted again."""
        now, detail = time.monotonic(), f.details.get("detail_xid")
        if detail is not None and detail != f.xid:
            self._seen_now((f.pci or "", detail), source, now)  # (the finding itself goes on: the 48's detail)
        return self._seen_now((f.pci or "", f.xid or 0), source, now)

    def _seen_now(self, key: tuple[str, int], source: str, now: float) -> bool:
        seen = self._seen.pop(key, None)
        if seen is not None and seen[1] != source and now - seen[0] <= self.window:
            return True
        self._seen[key] = (now, source)  # (re-)inserted last: the dict is oldest first
        if len(self._seen) > REMEMBERED:
            del self._seen[next(iter(self._seen))]
        return False
