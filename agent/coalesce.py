"""The coalescer: the one owner of repeats.  A finding seen again is counted everywhere without being decided again.

A storm repeats one kernel message (the line without its envelope, timestamp and sequence number) hundreds
of thousands of times.  The classifier's memo already makes each repeat a dict lookup; this table does the
same for the decision after it.  When deciding a finding left nothing behind but "one more of problem P"
(or "nothing at all"), and the policy says a repeat would decide the same (`HealthEngine.decide` returns that
outcome), the outcome is remembered under the finding's key.  A repeat then costs: the engine adds one to P's
count and moves its last-seen time (`HealthEngine.repeat`), and the repeat is counted here, to be flushed into
every counter once per batch.  Nothing is dropped and no count is estimated; a repeat whose problem was cleared
meanwhile is decided afresh.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from parsers import Finding, seen_at

from .health import HealthEngine, Outcome

DECISIONS = 4096  # distinct (message, device) decisions remembered; a flood of new messages cycles them
CAUSE_EVERY = 1.0  # a repeat is a possible cause of job failures at most this often (seconds of its time)


@dataclass(slots=True)
class Decision:
    outcome: Outcome  # HealthEngine.decide's
    labels: tuple  # the finding's counter labels (agent/metrics.py: labels_of)
    cause_at: float = 0.0  # last time a repeat was noted as a possible cause of workload failures
    pending: int = 0  # repeats counted since the last flush
    key: tuple = field(default=())


class Coalescer:
    """Bounded map (source, message, device, kind) -> Decision; oldest forgotten first (counted).
    `size` 0 remembers nothing: every finding is decided (the reference the coalesced path must equal)."""

    def __init__(self, engine: HealthEngine, size: int = DECISIONS):
        self.engine = engine
        self.size = max(0, size)
        self._table: OrderedDict[tuple, Decision] = OrderedDict()
        self._pending: dict[tuple, Decision] = {}
        self.evictions = 0

    def repeat(self, source: str, f: Finding) -> bool | None:
        """None: `f` repeats nothing decided that still stands; decide it.  Otherwise it was counted (here and
        on its problem) and the answer says whether to note it as a possible cause of job failures now (at
        most once a second of its time, so a storm does not push every other cause out of the window)."""
        d = self._table.get((source, f.message, f.pci, f.kind))
        if d is None:
            return None
        engine = self.engine
        t = seen_at(f, engine.clock(), engine.boot.epoch)  # (read once, undated: the engine's repeat takes it)
        if not engine.repeat(f, d.outcome, t):
            del self._table[d.key]  # its problem is gone: decide afresh
            return None
        d.pending += 1
        self._pending[d.key] = d
        if t is None or t - d.cause_at < CAUSE_EVERY:  # (None: an earlier boot's line, no cause of a job's failure)
            return False
        d.cause_at = t
        return True

    def remember(self, source: str, f: Finding, outcome: Outcome, labels: tuple) -> None:
        """What deciding `f` gave, for its repeats to count without a decision."""
        if not self.size:
            return
        key = (source, f.message, f.pci, f.kind)
        t = seen_at(f, self.engine.clock())
        self._table[key] = Decision(outcome, labels, t, 0, key)
        if len(self._table) > self.size:
            self._table.popitem(last=False)
            self.evictions += 1

    def flush(self) -> list[tuple[str, tuple, int]]:
        """The repeats counted since the last flush: (source, labels, how many) per decision."""
        out = []
        for d in self._pending.values():
            out.append((d.key[0], d.labels, d.pending))
            d.pending = 0
        self._pending.clear()
        return out
