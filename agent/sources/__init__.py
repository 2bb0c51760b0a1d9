"""Sources turn one kind of input into records; each owns its cursor and never blocks the others."""

from __future__ import annotations

import threading
from typing import Annotated, Callable

from parsers.model import Record

from ..keyspec import doc

# a file's position as a source saves it (logfile's cursor, podlogs.json): an inode, an offset, a CRC; what lseek takes
POSITION = Annotated[int, doc("an inode, a file offset or a CRC", ge=0, le=2**63 - 1)]
# every SLICE-th record of a batch carries its cursor too, as its last does (kmsg, log files; set once a batch, not a
# record): the agent processes a big batch in slices ending at them, a turn of its loop and a shutdown's drain stopping
# after one at their deadline, the rest of the batch processed next turn or, after a stop, read again (agent/app.py)
SLICE = 128

__all__ = ["SLICE", "Emit", "MissingInputs", "Record", "Source", "SourceAbsent"]


Emit = Callable[[list[Record]], None]


class SourceAbsent(Exception):
    """The input does not exist on this host (no journald, say): not a failure, not retried."""


class Source:
    __slots__ = ()  # (a subclass may declare its own: PodLogSource)
    name = "source"

    def run(self, emit: Emit, stop: threading.Event) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def absent(self) -> str | None:
        """Why the input does not exist on this host at start (an optional log file not there), else None: the
        supervisor says it once and does not start the source (as SourceAbsent from `run`, but before the start-up
        line names the sources followed)."""
        return None

    def counters(self) -> dict[str, int]:
        """Monotonic counters the source keeps itself (e.g. dropped records)."""
        return {}

    def gone(self) -> str | None:
        """Why the source, though running, sees nothing because its input vanished (a followed file or
        directory missing for longer than its grace period), else None. The supervisor reports the source
        down while this says so, exactly as if it had failed, and up again once the input is back."""
        return None


class MissingInputs:
    """When each followed input went missing (monotonic seconds), for `Source.gone`: an input missing for
    longer than `grace` makes the source down; a rotation (rename, then a new file soon after) does not."""

    def __init__(self, grace: float, clock: Callable[[], float]):
        self.grace = grace
        self.clock = clock
        self.since: dict[str, float] = {}

    def missing(self, what: str) -> None:
        self.since.setdefault(what, self.clock())

    def back(self, what: str) -> None:
        self.since.pop(what, None)

    def reason(self) -> str | None:
        now = self.clock()
        gone = sorted((since, what) for what, since in list(self.since.items()) if now - since >= self.grace)
        if not gone:
            return None
        since, what = gone[0]
        more = f" (and {len(gone) - 1} more)" if len(gone) > 1 else ""
        return f"{what} disappeared {now - since:.0f} s ago{more}"
