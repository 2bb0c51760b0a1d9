"""Xid semantics as data: what the same Xid repeating means, by where it repeats and how often.

One row per rule (ESCALATIONS): which Xids (codes, or any of a severity), the scope its sightings are counted in
(one GPC/TPC unit of one GPU, one GPU, or the GPUs of the node), how many within how long, and what the finding
then becomes (attribution, severity, action).  Sightings of one Xid on one scope closer than BURST_SECONDS are one
burst (one fault prints an Xid per unit and per SM within milliseconds): GPU and unit rules count bursts, the node
rule counts distinct GPUs.  Rows are tried in order and the first whose count is reached decides; every row that
applies records the sighting.

Where the rows come from:
- NVIDIA's Xid catalog names WORKFLOW_XID_13 and WORKFLOW_XID_31 as their investigatory action; a design of those
  workflows for NVSentinel spells them out (a fork's docs/designs/012-workflow-XID-13-and-31.md,
  github.com/tanishagoyal2/NVSentinel/blob/3d3b605f355265935341753b47206f9fb06ea3c6/docs/designs/): Xid 13 repeating
  on the same GPC and TPC is possibly the hardware (run diagnostics), on different units the application; Xid 31
  repeating on the same GPU is possibly the hardware, on different GPUs the application; ">= 2 repeats" in 24 hours.
- NVSentinel's RepeatedXidError (github.com/NVIDIA/NVSentinel/blob/ab6491c7881947b9e9b6205e7e0438393ba8c9cc/
  health-events-analyzer/pkg/analyzer/xid_burst_detector.go): the same Xid in 5 or more bursts (sightings within
  180 s of each other are one burst) within 24 hours on one GPU; here for fatal Xids, whose action then becomes
  HARDWARE_INSPECTION (what a reset or reboot cleared came back).

`Escalations` keeps the sightings (bounded, no clock: times come in with each call) and `see` is the evaluation:
a finding's fields and its time in, the row that decided and its count out.  The agent applies the result
(agent/policy.py); `gpu-npd parse` does not (a file has no history to weigh).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from .bounded import keep_newest
from .catalog import REPEAT_WORKFLOW_XIDS
from .wordscan import LazyPattern

BURST_SECONDS = 180.0  # sightings of one Xid on one scope this close together are one burst (NVSentinel's window)
SCOPES = ("unit", "gpu", "gpus")
MAX_KEYS = 1024  # scopes remembered (oldest forgotten first): input cannot grow this
MAX_BURSTS = 64  # bursts remembered per scope (more than any row counts)
MAX_GPUS = 32  # GPUs remembered per Xid (a node has 8 or 16; a line can name any address): bounds the spread scan
# the unit an Xid 13 names: "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0)", older "(GPC 0, TPC 0)"
UNIT = LazyPattern(r"\(GPC (\d{1,4}), TPC (\d{1,4})(?:, SM \d{1,4})?\)")


@dataclass(frozen=True, slots=True)
class Escalation:
    name: str
    xids: frozenset[int]  # the codes it applies to; empty: any Xid of one of `severities`
    severities: frozenset[str]  # empty: any (the finding's severity as classified)
    scope: str  # one of SCOPES: "unit" (one GPC/TPC of one GPU), "gpu" (one GPU), "gpus" (distinct GPUs of the node)
    count: int  # bursts on the scope ("unit", "gpu") or GPUs sharing the burst ("gpus") within `window`
    window: float  # seconds
    attribution: str | None = None  # what the finding becomes (None: as it is)
    severity: str | None = None
    action: str | None = None
    says: str = ""  # the note on the finding: {n} is the count, {window} the window in hours or seconds
    solo: bool = False  # count only bursts no other GPU shared (a job's fault on several GPUs is no GPU's repeat)
    jobs: bool = False  # a sighting this row decides is the job's: no rule outside the table counts it as the GPU's
    # (agent/health.py's distinct-process rule for application Xids)


DAY = 86400.0
ESCALATIONS: tuple[Escalation, ...] = (
    # an application Xid on several GPUs at once is the job's (it runs on all of them), whatever it did before
    Escalation("app_xid_across_gpus", REPEAT_WORKFLOW_XIDS, frozenset(), "gpus", 2, DAY,
               attribution="application", says="on {n} GPUs in one burst: the application", jobs=True),
    Escalation("xid13_same_unit", frozenset({13}), frozenset(), "unit", 2, DAY, attribution="hardware",
               severity="warning", action="RUN_DIAGNOSTICS", says="{n} bursts on this GPC/TPC within {window}",
               solo=True),
    Escalation("xid31_same_gpu", frozenset({31}), frozenset(), "gpu", 2, DAY, attribution="hardware",
               severity="warning", action="RUN_DIAGNOSTICS", says="{n} bursts on this GPU within {window}", solo=True),
    Escalation("fatal_xid_recurring", frozenset(), frozenset({"fatal"}), "gpu", 5, DAY, action="HARDWARE_INSPECTION",
               says="{n} bursts on this GPU within {window}"),
)


# the rows whose verdict says a sighting is the job's (a finding's details["escalation"] names its row)
JOBS_ROWS = frozenset(r.name for r in ESCALATIONS if r.jobs)


def _span(seconds: float) -> str:
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds:g} s"


def unit_of(text: str) -> str | None:
    """The GPC/TPC an Xid line names ("1/0"), or None."""
    m = UNIT.search(text)
    return f"{m.group(1)}/{m.group(2)}" if m else None


@dataclass(frozen=True, slots=True)
class Verdict:
    rule: Escalation
    count: int
    crossed: bool  # this sighting made the count reach the rule's (its first escalated finding)
    note: str  # the rule's `says` for this count (formatted once per burst, not per sighting of a storm)


def _verdict(rule: Escalation, count: int, crossed: bool) -> Verdict:
    return Verdict(rule, count, crossed, rule.says.format(n=count, window=_span(rule.window)))


@dataclass(slots=True)
class _Last:
    """What a storm's sighting of one scope needs, found by one lookup: the last verdict of an (xid, gpu, unit), the
    Xid's burst generation then, and the bursts of its GPU and of its unit (None: no unit), the very lists
    `Escalations._bursts` holds.  A list that table forgets is emptied as it goes (`keep_newest`), so a memo never
    extends bursts no longer counted: an empty list sends the sighting to the decision, which starts a new one."""
    verdict: Verdict | None
    generation: int
    bursts: list[list[float]]
    unit_bursts: list[list[float]] | None


class Escalations:
    """The bursts the rows count, per GPU and per unit; `see` records a sighting and says which row (if any)
    decides.  A burst is [start, end]: sightings on one scope at most BURST_SECONDS apart."""

    def __init__(self, table: tuple[Escalation, ...] = ESCALATIONS):
        self.table = table
        self._bursts: OrderedDict[tuple, list[list[float]]] = OrderedDict()  # (xid, gpu[, unit]) -> bursts
        self._gpus: OrderedDict[int, dict[str, None]] = OrderedDict()  # xid -> the GPUs it was seen on
        self._reached: OrderedDict[tuple, int] = OrderedDict()  # (row, scope key) -> its count at the last sighting
        # (xid, gpu, unit) -> its last verdict (_Last): valid while no burst of the Xid began since, on any GPU
        # (another GPU joining changes the "gpus" row's count and the "solo" rows')
        self._last: OrderedDict[tuple, _Last] = OrderedDict()
        self._generation: dict[int, int] = {}  # xid -> the bursts it began, on any GPU
        # (xid, severity) -> the rows that apply, and whether one counts per unit
        self._rules: dict[tuple[int, str], tuple[tuple[Escalation, ...], bool]] = {}

    def see(self, xid: int, severity: str, gpu: str, text: str, t: float) -> Verdict | None:
        """Record a sighting of Xid `xid` (classified `severity`) on `gpu` at time `t` (`text`: its line, which
        may name the GPC/TPC unit); the first row whose count it reaches, else None."""
        rules, by_unit = self._rules.get((xid, severity)) or self._rows(xid, severity)
        if not rules:
            return None
        unit = unit_of(text) if by_unit else None
        last = self._last.get((xid, gpu, unit))
        generation = self._generation.get(xid, 0)
        if last is not None and last.generation == generation:
            bursts, unit_bursts = last.bursts, last.unit_bursts
            if bursts and (latest := bursts[-1])[1] <= t <= latest[1] + BURST_SECONDS and (unit_bursts is None or (
                    unit_bursts and unit_bursts[-1][1] <= t <= unit_bursts[-1][1] + BURST_SECONDS)):
                # a storm: the sighting goes on the scope's latest burst, which changes no count (a count window's
                # old bursts expire in a later burst's sighting): the verdict stands, its crossing is past.  (An
                # empty list is one the bursts table forgot: bounded apart from this one, it may have.)
                latest[1] = t
                if unit_bursts:
                    unit_bursts[-1][1] = t
                return last.verdict
        return self._decide(rules, xid, gpu, unit, t, generation)

    def _rows(self, xid: int, severity: str) -> tuple[tuple[Escalation, ...], bool]:
        """The rows that apply to Xid `xid` classified `severity`, and whether one counts per unit (kept)."""
        rules = tuple(r for r in self.table if (not r.xids or xid in r.xids)
                      and (not r.severities or severity in r.severities))
        hit = (rules, any(r.scope == "unit" for r in rules))
        if len(self._rules) < MAX_KEYS:
            self._rules[(xid, severity)] = hit
        return hit

    def _decide(self, rules: tuple[Escalation, ...], xid: int, gpu: str, unit: str | None, t: float,
                generation: int) -> Verdict | None:
        """`see` off the storm path: the sighting recorded on each scope and every row that applies counted.
        (Apart from `see` so that the storm path does not pay for the cells its generators' closures need.)"""
        bursts, here, new = self._sighting((xid, gpu), t)
        if new:  # a new burst on this GPU changes what the others' sightings count: their verdicts are re-decided
            generation += 1
            self._generation[xid] = generation
            if len(self._generation) > MAX_KEYS:
                del self._generation[next(iter(self._generation))]
        gpus = self._gpus.setdefault(xid, {})
        gpus.pop(gpu, None)
        gpus[gpu] = None  # (the latest last: the oldest is forgotten first)
        keep_newest(self._gpus, xid, gpus, MAX_KEYS)
        if len(gpus) > MAX_GPUS:
            del gpus[next(iter(gpus))]
        unit_bursts = self._sighting((xid, gpu, unit), t)[0] if unit is not None else None
        decided = None
        for rule in rules:
            if rule.scope == "gpus":
                key: tuple = (xid,)
                n = 1 + sum(1 for other in gpus if other != gpu and self._shared(xid, other, here, rule.window, t))
            elif rule.scope == "unit" and unit is None:
                continue
            else:
                key = (xid, gpu) + ((unit,) if rule.scope == "unit" else ())
                n = sum(1 for b in self._bursts[key] if t - b[1] <= rule.window
                        and not (rule.solo and self._spread(xid, gpu, b, rule.window, t)))
            before = self._reached.get((rule.name, key), 0)
            keep_newest(self._reached, (rule.name, key), n, MAX_KEYS)
            if decided is None and n >= rule.count:
                decided = _verdict(rule, n, before < rule.count)
        keep_newest(self._last, (xid, gpu, unit), _Last(None if decided is None else replace(decided, crossed=False),
                                                        generation, bursts, unit_bursts), MAX_KEYS)
        return decided

    def _sighting(self, key: tuple, t: float) -> tuple[list[list[float]], list[float], bool]:
        """Add a sighting at `t` to the bursts of `key`; those bursts, the one it belongs to, and whether it began
        one."""
        bursts = self._bursts.get(key)
        if bursts is None:
            bursts = []
        # a forgotten scope's list emptied: a `_Last` may hold it
        keep_newest(self._bursts, key, bursts, MAX_KEYS, list.clear)
        for b in reversed(bursts):  # (sightings come in time order but for a few out of order: look back)
            if b[0] - BURST_SECONDS <= t <= b[1] + BURST_SECONDS:
                b[0], b[1] = min(b[0], t), max(b[1], t)
                return bursts, b, False
            if b[1] < t - BURST_SECONDS:
                break
        b = [t, t]
        bursts.append(b)
        bursts.sort()
        del bursts[:-MAX_BURSTS]
        return bursts, b, True

    def _shared(self, xid: int, other: str, burst: list[float], window: float, t: float) -> bool:
        """Did GPU `other` see the Xid in a burst overlapping `burst` (within `window` of `t`)?"""
        for b in reversed(self._bursts.get((xid, other), ())):
            if b[1] < burst[0] - BURST_SECONDS or t - b[1] > window:
                return False
            if b[0] <= burst[1] + BURST_SECONDS:
                return True
        return False

    def _spread(self, xid: int, gpu: str, burst: list[float], window: float, t: float) -> bool:
        """Was `burst` (of GPU `gpu`) shared by another GPU?"""
        return any(other != gpu and self._shared(xid, other, burst, window, t) for other in self._gpus.get(xid, ()))

    # ---- persistence (with the policy's state: a 24 h window outlives a restart) -------------------------

    def to_state(self) -> dict[str, Any]:
        return {"bursts": [[list(k), v] for k, v in self._bursts.items()]}

    def restore(self, state: Any) -> int:
        """What to_state saved; returns how many entries (a GPU's bursts, one burst) were not of their types and
        were dropped, the rest restored."""
        raw = state.get("bursts") if isinstance(state, dict) else None
        if not isinstance(raw, list):
            return int(state is not None)
        dropped = 0
        for item in raw[-MAX_KEYS:]:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], list) and len(item[0]) in (2, 3)
                    and isinstance(item[0][0], int) and all(isinstance(x, str) for x in item[0][1:])
                    and isinstance(item[1], list)):
                dropped += 1
                continue
            bursts = [[float(b[0]), float(b[1])] for b in item[1][-MAX_BURSTS:] if isinstance(b, list) and len(b) == 2
                      and all(_time(x) for x in b)]
            dropped += len(item[1][-MAX_BURSTS:]) - len(bursts)
            key = tuple(item[0])
            kept = self._bursts.setdefault(key, [])
            kept[:] = sorted(bursts)  # (in place: a _Last may hold the list)
            gpus = self._gpus.setdefault(key[0], {})
            gpus[key[1]] = None
            if len(gpus) > MAX_GPUS:
                del gpus[next(iter(gpus))]
            keep_newest(self._gpus, key[0], gpus, MAX_KEYS)
            keep_newest(self._bursts, key, kept, MAX_KEYS, list.clear)
        return dropped


def _time(x: Any) -> bool:
    """A saved time: a finite float, or an int that one holds exactly (not a bool, not 10**400)."""
    return type(x) is float and math.isfinite(x) or type(x) is int and abs(x) <= 2**53
