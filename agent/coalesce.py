"""Lossless coalescing of repeats: a finding seen again is counted everywhere without being decided again.

A storm repeats one kernel message (the line without its envelope, timestamp and sequence number) hundreds
of thousands of times.  The classifier's memo already makes each repeat a dict lookup; this table does the
same for the decision after it.  When deciding a finding left nothing behind but "one more of problem P"
(or "nothing at all"), and the policy says a repeat would decide the same (`FindingPolicy.repeat_safe`),
the outcome is remembered under the finding's key.  A repeat then costs: count it in every counter, add
one to P's count and move its last-seen time.  Nothing is dropped and no count is estimated; a repeat
whose problem was cleared meanwhile is decided afresh.  Counts are flushed to the metrics once per batch.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from parsers import Finding

DECISIONS = 4096  # distinct (message, device) decisions remembered; a flood of new messages cycles them


@dataclass(slots=True)
class Decision:
    outcome: tuple[str, str | None]  # HealthEngine.observe's `outcome`
    finding_labels: tuple[str, str, str]  # gpu_npd_findings_total{kind, severity, attribution}
    xid_labels: tuple[str, ...] | None  # gpu_npd_xid_errors_total labels, for Xids
    driver: str | None  # gpu_npd_unclassified_lines_total{driver}, for unclassified lines
    cause_at: float = 0.0  # last time a repeat was noted as a possible cause of workload failures
    pending: int = 0  # repeats counted since the last flush
    key: tuple = field(default=())


def key_of(f: Finding) -> tuple:
    """What makes two findings repeats of each other: the message (no envelope) and the device."""
    return f.message, f.pci, f.kind


class Decisions:
    """Bounded map finding key -> Decision, per source; oldest forgotten first (counted)."""

    def __init__(self, size: int = DECISIONS):
        self.size = max(1, size)
        self._table: OrderedDict[tuple, Decision] = OrderedDict()
        self._pending: dict[tuple, Decision] = {}
        self.evictions = 0

    def get(self, source: str, f: Finding) -> Decision | None:
        return self._table.get((source, f.message, f.pci, f.kind))  # (source, *key_of(f)), once per record

    def remember(self, source: str, f: Finding, decision: Decision) -> None:
        key = decision.key = (source, *key_of(f))
        self._table[key] = decision
        if len(self._table) > self.size:
            self._table.popitem(last=False)
            self.evictions += 1

    def forget(self, decision: Decision) -> None:
        self._table.pop(decision.key, None)

    def counted(self, decision: Decision) -> None:
        """One more repeat, to be flushed into the metrics with the others."""
        decision.pending += 1
        self._pending[decision.key] = decision

    def flush(self) -> list[Decision]:
        """The decisions with repeats counted since the last flush (their `pending` is reset by the caller)."""
        out = list(self._pending.values())
        self._pending.clear()
        return out

    def clear(self) -> None:
        self._table.clear()
        self._pending.clear()

    def __len__(self) -> int:
        return len(self._table)
