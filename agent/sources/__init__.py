"""Sources turn one kind of input into records; each owns its cursor and never blocks the others."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(slots=True)
class Record:
    source: str
    line: str  # the line as read, envelope included
    cursor: Any = None  # the source's position after this record; persisted once it is processed


Emit = Callable[[list[Record]], None]


class SourceAbsent(Exception):
    """The input does not exist on this host (no journald, say): not a failure, not retried."""


class Source:
    name = "source"

    def run(self, emit: Emit, stop: threading.Event) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def counters(self) -> dict[str, int]:
        """Monotonic counters the source keeps itself (e.g. dropped records)."""
        return {}
