"""Under pressure, a record whose message was seen recently is a duplicate (counted, not classified again)."""

from __future__ import annotations

from collections import OrderedDict

from parsers import detect

DEDUPE_KEYS = 4096  # recent record texts remembered for shedding duplicates


class RecentMessages:
    def __init__(self, size: int = DEDUPE_KEYS):
        self.size = size
        self._recent: OrderedDict[str, None] = OrderedDict()

    def duplicate(self, line: str) -> bool:
        key = detect(line).message if line[:1].isdigit() or line[:1] in "[<{" else line
        if key in self._recent:
            self._recent.move_to_end(key)
            return True
        self._recent[key] = None
        if len(self._recent) > self.size:
            self._recent.popitem(last=False)
        return False
