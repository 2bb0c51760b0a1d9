"""The health engine: the only place that decides.

Findings (and, later, NVML/sysfs samples) become problems keyed by what they are about; problems
become node conditions.  Rules are data (config `condition_rules`); lifecycle (raise, dedupe,
escalate, clear, expire) is small functions over an injected clock.  No threads, no I/O.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from operator import attrgetter
from typing import Any, Callable, Collection, Mapping

from parsers import Finding, amends
from parsers.bounded import keep_newest
from parsers.correlate import describe
from parsers.escalation import JOBS_ROWS
from parsers.finding import SEVERITY_RANK, seen_at
from parsers.kinds import BOOT_ACTIONS, BY_NAME as KIND, Repeated, reason_of
from parsers.model import Boot, Change, Condition, Notice, PodEvent, Problem, Snapshot

from .config import Config
from .keyspec import Invalid, each
from .policy import FindingPolicy
from .samples import Verdict

# ("problem", id), ("none", None) or ("notice", when its key is said again): what a repeat may count without deciding
Outcome = tuple

REPEAT_PIDS = 16  # processes remembered per repeat (one GPU's application Xid, the node's driver crashes)
_REPEATED: dict[tuple, dict] = {}  # (kind, reason) -> the rule its repeats from several processes raise (built once)
NOTICE_KEYS = 1024  # subjects x reasons whose notice time is remembered (the oldest forgotten: its next line is said)
# kind -> the least severity rank a notice of it has (its `node_event`, else warning; a workload kind's never one)
_NOTICED_FROM = {name: len(SEVERITY_RANK) if row.workload else SEVERITY_RANK[row.node_event or "warning"]
                 for name, row in KIND.items()}


# the kinds of a PCIe device (their subject `pci:` unless the device is known a GPU: _prefix, HealthEngine._as_gpus)
_PCIE = frozenset(name for name, row in KIND.items() if row.device == "pcie")

# a kind's device (parsers/kinds.py) -> the prefix of its problems' subject (a PCIe device's `pci:`, as the sysfs
# AER readings', unless its address is a GPU's: _prefix)
_SUBJECT = {"nic": "nic:", "port": "nic:", "nvswitch": "nvswitch:", "pcie": "pci:"}


def _copied(obj: Any) -> Any:
    """A shallow copy of a Problem or Condition (a tenth of copy.copy's cost): what a snapshot hands out."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def _device(f: Finding) -> str | None:
    """The device a finding's kind names (parsers/kinds.py), None for none."""
    row = KIND.get(f.kind)
    return row.device if row is not None else None


def subject_of(f: Finding) -> str:
    device = _device(f)
    if device in ("nic", "port"):
        port = f.details.get("netdev") or f.details.get("module")
        return f"nic:{f.pci or '-'}" + (f"/{port}" if port is not None and device == "port" else "")
    if f.pci:
        return _prefix(device, f.details) + f.pci
    return "node"


def _prefix(device: str | None, details: Mapping[str, Any]) -> str:
    """The prefix of a subject on a device of this kind. A PCIe device's (a root port, a NIC function, a GPU as the
    PCIe core names it) is `gpu:` only where its address is a GPU's: its `uuid` detail, set where the GPU map named
    the address (agent/gpu/collector.py annotate) or an NVRM line gave its UUID (parsers/classify.py), empty where
    NVML does not name it but sysfs listed a GPU there or a GPU driver printed the line (annotate); any other's
    `pci:`. So what reads `gpu:` as a GPU (the repair hand-off, the DRA device taints, the pod fault conditions,
    the GPU clears) never takes a root port or a NIC function for one."""
    if device == "pcie" and "uuid" in details:
        return "gpu:"
    return _SUBJECT.get(device, "gpu:")


def _renamed(p: Problem, gpus: Collection[str] = ()) -> Problem:
    """A problem under the subject it has now: one saved when every PCIe device's subject was `gpu:` (a root port's, a
    NIC function's) is `pci:`, and one raised `pci:` on an address `gpus` now names as a GPU's (sysfs listed it
    after the line was read: HealthEngine.learn_gpus) is `gpu:` with an empty `uuid` detail (as annotate gives it),
    its id with it, so that its device's next finding is the same problem (no second problem, no second Event) and
    nothing reads a port as a GPU or a GPU as a port; its condition stands unchanged."""
    row = KIND.get(p.kind)
    if row is None or row.device != "pcie" or not p.id.startswith(p.subject + "|"):
        return p
    device = p.subject.partition(":")[2]
    details = p.details if "uuid" in p.details or device not in gpus else {**p.details, "uuid": ""}
    subject = _prefix(row.device, details) + device
    if subject == p.subject:
        return p
    return dataclasses.replace(p, id=subject + p.id[len(p.subject):], subject=subject, details=details)


def _clears(f: Finding) -> Callable[[Problem], bool] | None:
    """What a lifecycle finding ends (its kind's `clears`, parsers/kinds.py: the first whose match it fits); None: this
    one clears nothing."""
    gate, clears = _LIFECYCLE.get(f.kind, _NO_LIFECYCLE)
    if gate is not None and gate[0](f) not in gate[1]:  # fits none (every Xid line but a 154 or a 162): one test
        return None
    for c, tests in clears:
        if _matches(tests, f):
            return _ends(f, c)
    return None


def _ends(f: Finding, c: Any) -> Callable[[Problem], bool] | None:
    """The problems a finding that fits its kind's `clears` c ends; None: it names no device of its own."""
    ends = tuple(c.ends.items())  # of those, only the problems whose fields are these (the Xid it ends)

    def fits(p: Problem) -> bool:
        return p.clear == c.mode and all(getattr(p, key) == want for key, want in ends)
    if c.scope == "gpus":
        return lambda p: fits(p) and p.subject.startswith(("gpu:", "nvswitch:"))
    subject = subject_of(f)
    if subject == "node":  # no device named: nothing of its own to end
        return None
    return lambda p: fits(p) and p.subject == subject


def _clear_of(clear: str, action: str) -> str:
    """A problem's clear mode: its rule's, `boot` where that is `reset` and its action one only a boot answers
    (parsers/kinds.py BOOT_ACTIONS: UVM's global fatal error asks a reboot; a GPU reset does not end it)."""
    return "boot" if clear == "reset" and action in BOOT_ACTIONS else clear


# what a rule's `match` may name -> the finding's value of it (any other key names nothing, and is ignored)
_MATCH_FIELDS: dict[str, Callable[[Finding], Any]] = {
    **{name: attrgetter(name) for name in ("kind", "action", "severity", "attribution", "xid", "sxid")},
    "not_attribution": attrgetter("attribution"), "state": lambda f: f.details.get("state"),
}

Match = tuple  # a rule's `match` as tests, each (the finding's value of a key, the values it may be, negated): `_match`


def _match(match: Mapping[str, Any]) -> Match:
    """A rule's `match` as the tests `_matches` runs, built once per rule: each key's value (a list or tuple: any of
    them) equal to the finding's, and its attribution none of `not_attribution` (a key set to None, or one the table
    does not know, names nothing)."""
    return tuple((_MATCH_FIELDS[key], tuple(want) if isinstance(want, (list, tuple)) else (want,),
                  key == "not_attribution") for key, want in match.items() if want is not None and key in _MATCH_FIELDS)


def _matches(tests: Match, f: Finding) -> bool:
    """Whether `f` is what a rule's match (`_match`'s tests) names: only the keys the match names are looked at (a rule
    names one to three; every finding meets some rule's match)."""
    for value, want, negated in tests:
        if (value(f) in want) is negated:
            return False
    return True


def _gate(tests: tuple[Match, ...]) -> tuple[Callable[[Finding], Any], frozenset] | None:
    """The first key every one of a kind's `clears` (their matches as `_match`'s tests) wants a value of, as (the
    finding's value of it, the values they want): a finding whose value is none of them fits none of its kind's
    `clears`; None where they share no such key (`not_attribution` wants none)."""
    for value, _, negated in tests[0]:
        wants = [next((want for v, want, n in match if v is value and not n), None) for match in tests]
        if not negated and None not in wants:
            return value, frozenset(x for want in wants for x in want)
    return None


def _lifecycle(clears: tuple) -> tuple[Any, tuple[tuple[Any, Match], ...]]:
    """A lifecycle kind's `clears` as `_clears` reads them: their gate (`_gate`) and each with its match as a condition
    rule's (`_match`: the keys and values a rule's match takes, as they are documented, a list any of its values and
    `not_attribution` none of them)."""
    tests = tuple((c, _match(c.match)) for c in clears)
    return _gate(tuple(t for _, t in tests)), tests


# the lifecycle kinds (a `clears` in parsers/kinds.py), the only findings `_clears` need look at -> `_lifecycle`: read
# once, not per finding (every Xid line passes)
_LIFECYCLE: dict[str, tuple[Any, tuple[tuple[Any, Match], ...]]] = {
    name: _lifecycle(row.clears) for name, row in KIND.items() if row.clears}
_NO_LIFECYCLE = (None, ())  # a kind that clears nothing


@dataclass(slots=True)
class _Sightings:
    """The findings of one repeat (a kind's `repeated` row and the values of its `by`: one GPU's application Xid of
    one code, the node's driver library crashes): the processes that raised them, for escalation."""
    last: dict  # pid -> its last sighting, oldest first
    low: float  # at or below the oldest of those sightings
    problem: str | None = None  # the id of the problem they raised
    names: dict = field(default_factory=dict)  # pid -> (its row's `same_process` values, its `named` detail)


def _repeat_rows(cfg: Config) -> dict[str, tuple[Repeated, Match]]:
    """The kind table's `repeated` rows by kind (with their match's tests), their counts and windows from the
    configuration where a row names its keys (`settings`)."""
    out = {}
    for name, row in KIND.items():
        r = row.repeated
        if r is None:
            continue
        if r.settings is not None:
            r = dataclasses.replace(r, processes=getattr(cfg, f"{r.settings}_distinct_processes", r.processes),
                                    window_seconds=getattr(cfg, f"{r.settings}_window_seconds", r.window_seconds))
        out[name] = (r, _match(r.match))
    return out


def sentence(f: Finding, action: str, note: str) -> str:
    """What a problem (or a notice) says of its latest finding: what and where (`describe`: the kind table's wording,
    the device's noun), the GPU's UUID, the line's text, the policy's note, the recommended action."""
    uuid = f.details.get("uuid")
    if f.details.get("pod"):
        note = f"process in pod {f.details['pod']}" + (f"; {note}" if note else "")
    text = f.message.strip().rstrip(".")
    if len(text) > 160:
        text = text[:159] + "…"
    return (f"{describe(f)}{f' ({uuid})' if uuid else ''}: {text}"
            f"{f' [{note}]' if note else ''}. Recommended action: {action}")


def _field(f: Finding, name: str) -> Any:
    return getattr(f, name) if name in _FIELDS else f.details.get(name)


_FIELDS = frozenset(f.name for f in dataclasses.fields(Finding))


class HealthEngine:
    """`boot`: this boot's facts (findings dated before it belong to an earlier boot; reboot-aware escalation
    counts boots by its id)."""

    def __init__(self, cfg: Config, clock: Callable[[], float] = time.time, boot: Boot = Boot()):
        self.cfg = cfg
        self.clock = clock
        self.boot = boot
        self.problems: dict[str, Problem] = {}
        # what the last snapshot handed out (id -> a copy no one mutates, in the order of `problems`) and the
        # problems raised or changed since (ordered): a snapshot copies those only, not every standing problem
        self._published: dict[str, Problem] = {}
        self._touched: dict[str, None] = {}
        # eviction order (warning class first, then least recently seen, then oldest): a heap of (not warning
        # class, last seen, birth, problem); an entry lies at or below its problem's place (last seen only
        # grows) and is re-filed when it comes up stale, so evicting at the cap costs O(log n), not a sort
        self._by_age: list[tuple[bool, float, int, Problem]] = []
        self._born = itertools.count()
        self.conditions: dict[str, Condition] = {
            name: Condition(name, False, spec["ok_reason"], spec["ok_message"], clock())
            for name, spec in cfg.conditions.items()
        }
        # a kind's `repeated` row (parsers/kinds.py) and the matches of it that repeats count
        self._repeat_rows = _repeat_rows(cfg)
        self._rules = tuple((rule, _match(rule["match"])) for rule in cfg.condition_rules)  # each with its tests
        self._repeats: dict[tuple, _Sightings] = {}  # (kind, *its row's `by`) -> its processes
        # problem id -> the problem and what its message must now say (the finding, action, note; rendered by derive):
        # a problem's message is rendered once per derive, not once per line of a storm
        self._restate: dict[str, tuple] = {}
        self.policy = FindingPolicy(cfg.xid_policy, cfg.xid_reboot_escalation, subject_of,
                                    cfg.unused_port_boot_seconds, boot.id)
        self.held: dict[str, int] = {}  # findings the policy held back, by reason (policy.HELD_REASONS)
        # address -> ids of the PCIe problems standing there as `pci:` (_as_gpus: renamed once it is known a GPU's)
        self._on_pci: dict[str, set[str]] = {}
        self._noticed: OrderedDict[str, float] = OrderedDict()  # a notice's key -> when it may be said again (_notice)

    # ---- input -------------------------------------------------------------------------------

    def observe(self, f: Finding, source: str = "kernel") -> Change:
        """Decide one finding and derive the conditions: what it changed."""
        change = Change()
        self.decide(f, source, change)
        return self.derive(change)

    def decide(self, f: Finding, source: str, change: Change) -> Outcome | None:
        """Decide what `f` means for the node; what it changes is added to `change` (a batch's: conditions are
        derived once per batch, by `derive`).  Returns whether a repeat of `f` may skip the decision (see
        `repeat`): ("problem", id) when it only added to a standing problem, ("none", None) when it raised
        nothing and left no state, None when the decision depended on state (policy windows, a kind's repeats by
        several processes, lifecycle)."""
        epoch = self.boot.epoch
        seen = seen_at(f, self.clock(), epoch)  # (wall clock, never in the future)
        if seen is None:
            return None  # from a previous boot: counted by the caller, raises nothing
        uptime = f.uptime if f.uptime is not None else seen - epoch if epoch is not None else None
        held = self.policy.apply(f, seen, uptime)  # (else `f` goes on, changed in place)
        if held:
            self.held[held] = self.held.get(held, 0) + 1
            change.held.append((f.xid, held))
            return None
        if f.kind in _LIFECYCLE:  # (the module's `_clears`, no method around it: every Xid is a lifecycle kind's)
            cleared = _clears(f)
            if cleared is not None:  # a lifecycle mark: it cleared what it clears and raises nothing
                self._drop(cleared)
                return None
        repeated = self._repeat_rows.get(f.kind)
        if repeated is not None and _matches(repeated[1], f):  # alone nothing; by several processes more
            if f.details.get("escalation") not in JOBS_ROWS:  # the table called it the job's: no GPU's repeat
                self._escalate_repeated(repeated[0], f, seen, change)
            return None
        stateless = self.policy.repeat_safe(f)  # (its kind and Xid: the policy's verdict changed neither)
        outcome: Outcome = ("none", None)
        for rule, tests in self._rules:
            if _matches(tests, f):
                pid = self._raise(rule, f, seen, source, change, note=f.details.get("policy", ""))
                outcome = ("problem", pid) if pid is not None else outcome
                break
        if outcome[0] == "none" and source == "kernel" and self.cfg.notice_events:  # (a pod's line: its Pod Event)
            outcome = self._notice(f, seen, change)
        return outcome if stateless else None

    def _notice(self, f: Finding, seen: float, change: Change) -> Outcome:
        """`f`, a node's finding, raised no problem: a Notice (a Node Event of its reason) where it is at least its
        kind's `node_event` severity (else warning) and not an application's (the pod's Event and triage say those), at most once per
        subject and reason every `notice_seconds` (a storm: one each period, its lines counted by the caller).  The
        outcome: a repeat skips the decision until the notice is due again."""
        if f.attribution == "application" or SEVERITY_RANK[f.severity] < _NOTICED_FROM.get(f.kind, len(SEVERITY_RANK)):
            return ("none", None)
        subject, reason = subject_of(f), reason_of(f.kind, f.xid, f.sxid)
        key = f"{subject}|{reason}"
        due = self._noticed.get(key)
        if due is None or seen >= due:
            due = seen + self.cfg.notice_seconds
            keep_newest(self._noticed, key, due, NOTICE_KEYS)
            change.notices.append(Notice(key, subject, f.kind, reason, f.severity,
                                         sentence(f, f.action, f.details.get("policy", "")), seen))
        return ("notice", due)

    def repeat(self, f: Finding, outcome: Outcome, seen: float | None) -> bool:
        """`f` repeats a finding whose decision was `outcome` (from `decide`), written at `seen` (the caller's one
        reading of its time, `seen_at(f, now, boot.epoch)`): count it without deciding again.  False when that
        decision no longer stands (its problem was cleared): the caller decides afresh."""
        if seen is None:
            return True  # from a previous boot: counted by the caller, raises nothing (as decide)
        if self.policy.remember(f, seen):
            return False  # an escalation reached its count with this repeat (agent/policy.py): decide afresh
        if outcome[0] == "none":
            return True
        if outcome[0] == "notice":
            return seen < outcome[1]  # its notice due again: decided afresh (said again)
        p = self.problems.get(outcome[1])
        if p is None:
            return False
        p.count += 1
        p.last_seen = max(p.last_seen, seen)
        self._touched[p.id] = None
        return True

    def snapshot(self, change: Change | None = None, pod_events: tuple[PodEvent, ...] = ()) -> Snapshot:
        """The state now and what `change` changed, as one immutable value (what every sink receives)."""
        self._say()
        published = self._published
        for pid in self._touched:
            published[pid] = _copied(self.problems[pid])
        self._touched.clear()
        conditions = tuple(map(_copied, self.conditions.values()))
        if change is None or not change:
            return Snapshot(conditions, tuple(published.values()), (), (), pod_events)
        moved = {c.type for c in change.conditions}
        # a problem raised and gone again within the change (evicted) is still said once, from a copy of its own
        new = {p.id: published.get(p.id) or _copied(p) for p in change.new_problems}
        return Snapshot(conditions, tuple(published.values()), tuple(c for c in conditions if c.type in moved),
                        tuple(new.values()), pod_events, tuple(change.notices))

    def sync(self, source: str, judged: dict[str, list[Verdict]]) -> Change:
        """Telemetry: for each subject read, what the rules see in its latest reading is exactly what
        stands for it from this source; problems raised earlier and no longer seen are cleared.  A standing problem
        takes its verdict's condition (its rule's now: one restored from an agent whose rule raised another, or a
        row whose `condition` a configuration changed): the other condition clears as at the problem's end (derive),
        one that did not change does not move; a verdict whose condition is not kept clears the problem."""
        now = self.clock()
        change = Change()
        wanted = set()
        for subject, verdicts in judged.items():
            for v in verdicts:
                if v.condition and v.condition not in self.conditions:
                    continue  # an empty condition: a problem that is an Event only (an NPD temporary rule)
                pid = f"{subject}|{source}|{v.reason}"
                wanted.add(pid)
                p = self.problems.get(pid)
                if p is not None:
                    p.last_seen, p.message, p.severity, p.action = now, v.message, v.severity, v.action
                    p.condition = v.condition
                    self._touched[pid] = None
                    continue
                p = Problem(pid, subject, "telemetry", v.condition, v.reason, v.severity, v.attribution, v.action,
                            v.message, "sample", now, now, 1, source, None, dict(v.details))
                self._add(p, change)
        self._drop(lambda p: p.source == source and p.subject in judged and p.id not in wanted)
        return self.derive(change)

    def learn_gpus(self, gpus: Collection[str], change: Change | None = None) -> Change:
        """`gpus`: the addresses now known to be GPUs (agent/pipeline.py, from the poll's SampleBatch). A problem
        raised `pci:` on one before (the kernel log read before the first poll) is renamed `gpu:` (_as_gpus); what
        that changed is added to `change` (the batch's) or to a new Change."""
        change = Change() if change is None else change
        self._as_gpus(gpus, change)
        return self.derive(change)

    def _as_gpus(self, gpus: Collection[str], change: Change) -> None:
        """The PCIe problems standing as `pci:` on addresses now known to be GPUs' (sysfs listed them, or a later
        line of the device was its GPU driver's) renamed `gpu:` (_renamed): the repair hand-off, DRA device taints
        and pod fault conditions see the GPU from the next snapshot, and its next line is the same problem (no second
        problem or Event); where the GPU's own problem stands already, the renamed one's sightings are added to it.
        `change` lists the renamed ids (published, no Event)."""
        olds = [self.problems[pid] for pci in gpus for pid in self._on_pci.get(pci, ())]
        for old in olds:
            p = _renamed(old, gpus)
            if p is old:
                continue
            self._remove(old.id)
            restate = self._restate.pop(old.id, None)
            same = self.problems.get(p.id)
            if same is None:
                self._keep(p)
            else:
                same.count += p.count
                same.first_seen, same.last_seen = min(same.first_seen, p.first_seen), max(same.last_seen, p.last_seen)
                if SEVERITY_RANK[p.severity] > SEVERITY_RANK[same.severity]:
                    same.severity, same.action, same.clear = p.severity, p.action, p.clear
                self._touched[same.id] = None
            if restate is not None and (same is None or p.id not in self._restate):  # said by the problem it is now
                self._restate[p.id] = (same if same is not None else p, *restate[1:])
            change.renamed.append(p.id)

    def new_boot(self) -> Change:
        """A new boot: everything learned from the kernel log is history."""
        change = Change()
        for pid in [p.id for p in self.problems.values() if p.source == "kernel"]:
            self._remove(pid)
        self._repeats.clear()
        return self.derive(change)

    def tick(self) -> Change:
        """Expire quiet warning-class problems."""
        now = self.clock()
        limit = self.cfg.warning_expire_seconds
        expired = [p.id for p in self.problems.values() if p.clear == "expire" and now - p.last_seen >= limit]
        for pid in expired:
            self._remove(pid)
        return self.derive(Change())

    # ---- lifecycle -----------------------------------------------------------------------------

    def _drop(self, pred: Callable[[Problem], bool]) -> None:
        for pid in [p.id for p in self.problems.values() if pred(p)]:
            self._remove(pid)

    def _add(self, p: Problem, change: Change) -> None:
        """A new problem (at the cap, the first in eviction order makes room)."""
        if len(self.problems) >= self.cfg.max_problems:
            self._evict()
        self._keep(p)
        change.new_problems.append(p)

    def _keep(self, p: Problem) -> None:
        self.problems[p.id] = p
        if p.subject.startswith("pci:") and p.kind in _PCIE:
            self._on_pci.setdefault(p.subject[4:], set()).add(p.id)
        self._touched[p.id] = None
        heapq.heappush(self._by_age, (p.clear != "expire", p.last_seen, next(self._born), p))
        if len(self._by_age) > 2 * len(self.problems) + 64:  # entries of problems gone meanwhile: filed afresh
            self._by_age = [(q.clear != "expire", q.last_seen, next(self._born), q) for q in self.problems.values()]
            heapq.heapify(self._by_age)

    def _remove(self, pid: str) -> None:
        p = self.problems.pop(pid)
        ids = self._on_pci.get(p.subject[4:]) if p.subject.startswith("pci:") else None
        if ids is not None:
            ids.discard(pid)
            if not ids:
                del self._on_pci[p.subject[4:]]
        self._published.pop(pid, None)
        self._touched.pop(pid, None)

    def _escalate_repeated(self, row: Repeated, f: Finding, seen: float, change: Change) -> None:
        """`f` fits its kind's `repeated` row: the same from `row.processes` different processes within the window
        raises the row's condition (NVIDIA's guidance for Xid 13/31: the same application Xid on one GPU from
        different processes points at the GPU, not when the escalation table found the burst on several GPUs: the
        job's; the GPU driver's library crashing in several processes: the node's driver stack).  Bounded: per
        repeat the latest sighting of at most REPEAT_PIDS processes."""
        window = row.window_seconds
        need = row.processes
        key = (f.kind, *(_field(f, name) for name in row.by))
        entry = self._repeats.get(key)
        if entry is None:
            entry = self._repeats[key] = _Sightings({}, seen)
        last, names = entry.last, entry.names
        pid = f.pid if row.distinct == "pid" else _field(f, row.distinct)  # one process (a workload: `distinct`)
        if pid is None:
            if row.distinct != "pid":  # no workload said (a node log's copy of a pod's words): no source to count
                return
            pid = f"t{seen}"
        alike = tuple(_field(f, name) for name in row.same_process) if row.same_process else None
        if alike is not None and pid not in last and None not in alike:
            # a thread of a process already seen (the kernel names the thread's id, the address its process's): that one
            pid = next((q for q, t in last.items() if names.get(q, (None,))[0] == alike
                        and abs(seen - t) < row.same_process_seconds), pid)
        last.pop(pid, None)
        last[pid] = seen
        if row.named is not None or alike is not None:
            names[pid] = (alike, f.details.get(row.named) if row.named is not None else None)
        if seen < entry.low:
            entry.low = seen
        if len(last) > REPEAT_PIDS and len(last) > need:
            names.pop(gone := next(iter(last)), None)
            del last[gone]
        if len(last) < need:
            return
        # `low` lies at or below the oldest sighting kept (it goes stale only downwards, as sightings are
        # forgotten): when even it lies within the window, they all do; a storm pays one comparison
        if seen - entry.low > window:
            entry.low = min(last.values())
        within = last if seen - entry.low <= window else {q: t for q, t in last.items() if seen - t <= window}
        n = len(within)
        if n < need:
            return
        pids = [q for q in within if isinstance(q, int)]
        said: dict[str, Any] = {"pids": pids} if row.distinct == "pid" else {row.noun: list(within)}
        note = f"{n} {row.noun} within {int(window)} s"
        if row.named is not None:
            named = list(dict.fromkeys(str(names[q][1]) for q in within if names.get(q, (None, None))[1]))
            said[row.named] = named
            note += f" in {', '.join(named)}" if named else ""
        if row.distinct != "pid":
            note += f": {', '.join(map(str, within))}"
        elif pids:
            note += f": pids {', '.join(map(str, pids))}"
        standing = self.problems.get(entry.problem) if entry.problem is not None else None
        if standing is not None:  # a storm adds to the problem it raised: no need to name it again
            standing.details = {**standing.details, **said}  # a new dict: snapshots share the old one
            self._add_to(standing, f, seen, "warning", row.action, note)
            return
        reason = row.reason.replace("<reason>", reason_of(f.kind, f.xid, f.sxid))
        rule = _REPEATED.get((f.kind, reason))
        if rule is None:
            rule = {"condition": row.condition, "reason": reason, "clear": "expire"}
            if len(_REPEATED) < 256:  # kinds and Xid codes are few; input cannot grow this
                _REPEATED[(f.kind, reason)] = rule
        entry.problem = self._raise(rule, f, seen, "kernel", change, severity="warning", action=row.action,
                                    note=note, details=said)

    def _raise(self, rule: dict, f: Finding, seen: float, source: str, change: Change,
               severity: str | None = None, action: str | None = None, note: str = "",
               details: dict | None = None) -> str | None:
        """Raise (or add to) the problem `rule` names for `f`; its id, None when the condition is not kept."""
        if rule["condition"] not in self.conditions:
            return None
        code = f.xid if f.xid is not None else f.sxid
        subject = subject_of(f)
        if f.pci in self._on_pci and subject.startswith("gpu:") and _device(f) in ("gpu", "pcie"):
            self._as_gpus((f.pci,), change)  # a GPU's line: its earlier ones named no GPU (a port's line naming it)
        reason = rule.get("reason") or reason_of(f.kind, f.xid, f.sxid)
        pid = f"{subject}|{f.kind}|{code if code is not None else ''}|{reason}"
        p = self.problems.get(pid)
        # a line of the same fault that another rule decides (Xid 154 naming a reset after a drain, an NVLink5 Xid
        # NVIDIA's decode sends to a reset after its warnings): a problem of its own, so the worse condition is raised,
        # not added to the other's. Its id is looked up only where it can stand: the problem of the plain id is gone,
        # or stands under another condition (while that one stands under this condition, no such problem is made)
        if p is None or p.condition != rule["condition"]:
            other = f"{pid}|{rule['condition']}"
            if p is not None or other in self.problems:
                pid, p = other, self.problems.get(other)
        amendment = amends(f)  # the event's finding again (parsers/rules.py EVENT_AMENDS): no second sighting
        moved = bool(amendment) and self._moved(f, subject, code, pid, amendment)
        if p is not None:
            # the event's sighting, moved here from the problem its earlier finding raised, is one more of this one's
            self._add_to(p, f, seen, severity or f.severity, action or f.action, note, amendment, moved)
            return pid
        p = Problem(pid, subject, f.kind, rule["condition"], reason, severity or f.severity, f.attribution,
                    action or f.action, "", _clear_of(rule.get("clear", "expire"), action or f.action), seen, seen, 1,
                    source, code,
                    {**{k: v for k, v in f.details.items() if k in ("uuid", "gpu_index", "link", "netdev", "pod",
                                                                     "reboots_survived")}, **(details or {})})
        self._restate[pid] = (p, f, action or f.action, note)  # its message: rendered by derive
        self._add(p, change)
        return pid

    def _moved(self, f: Finding, subject: str, code: int | None, pid: str, amendment: str) -> bool:
        """An amendment's event was counted on the problem its earlier finding raised (another reason: an error the
        amendment says was fatal; another subject: no GPU named then): that sighting is the amendment's now, one
        fewer there (the problem gone when it was its only one).  Whether one was moved."""
        prefix = f"{'node' if amendment == 'pci' else subject}|{f.kind}|{code if code is not None else ''}|"
        rank = SEVERITY_RANK[f.severity]
        for p in self.problems.values():
            if p.id != pid and p.id.startswith(prefix) and (amendment == "pci" or SEVERITY_RANK[p.severity] < rank):
                if p.count > 1:
                    p.count -= 1
                    self._touched[p.id] = None
                else:
                    self._remove(p.id)
                return True
        return False

    def _add_to(self, p: Problem, f: Finding, seen: float, severity: str, action: str, note: str,
                amendment: str | None = None, moved: bool = False) -> None:
        """One more finding of a standing problem: counted; its message says the latest (rendered at derive).  An
        amendment (an event's finding, worse: parsers/rules.py EVENT_AMENDS) is no second sighting: its severity is the
        problem's when higher, its count unchanged unless its event's sighting was `moved` here from another
        problem (_moved: a later event of a GPU already raised, its earlier finding having named no GPU); its
        attribution the problem's where that was unknown (a lockup's trace naming the GPU driver: which amendments may
        carry one is decided where they are made, parsers/classify.py over parsers/rules.py EVENT_FILL_ATTRIBUTION;
        here any amendment's is taken)."""
        if amendment:
            if SEVERITY_RANK[severity] > SEVERITY_RANK[p.severity]:
                p.severity = severity
            if p.attribution == "unknown":
                p.attribution = f.attribution
        if not amendment or moved:
            p.count += 1
        if seen > p.last_seen:
            p.last_seen = seen
        p.action = action  # the latest (an escalation's HARDWARE_INSPECTION stands from then on)
        p.clear = _clear_of(p.clear, action)  # an amendment asking a reboot: a boot ends it from then on
        self._restate[p.id] = (p, f, action, note)
        self._touched[p.id] = None

    def _evict(self) -> None:
        heap = self._by_age
        while heap:
            later, seen, born, p = heap[0]
            if self.problems.get(p.id) is not p:
                heapq.heappop(heap)  # gone already
            elif p.last_seen != seen:
                heapq.heapreplace(heap, (later, p.last_seen, born, p))  # seen since it was filed
            else:
                self._remove(p.id)
                return

    def _say(self) -> None:
        """Render the messages of the problems raised or added to since the last time (`_restate`): what a problem
        says: what and where (`describe`: the kind table's wording, the device's noun), the GPU's UUID, the line's
        text, the policy's note, the recommended action (a problem gone since is said too: one raised and evicted
        within the batch is still in its Change's new problems).  Called by `derive`, once per batch, and by
        `snapshot` and `to_state`, which may run with none since (a batch's slice that raised before its derive, a
        batch whose handler derives nothing): a problem is never published or saved with its message unsaid."""
        if not self._restate:
            return
        for p, f, action, note in self._restate.values():
            p.message = sentence(f, action, note)
        self._restate.clear()

    # ---- node conditions -------------------------------------------------------------------------

    def derive(self, change: Change | None = None) -> Change:
        """Conditions from the problems standing now (after `decide` / `repeat`), added to `change` (the
        batch's, holding its new problems) or to a new Change."""
        change = Change() if change is None else change
        now = self.clock()
        self._say()
        by_cond: dict[str, list[Problem]] = {}
        for p in self.problems.values():
            by_cond.setdefault(p.condition, []).append(p)
        for name, cond in self.conditions.items():
            probs = by_cond.get(name)
            if probs:  # the worst, then latest (the first of equals): a pass, not a sort, once per batch
                top = min(probs, key=lambda p: (-SEVERITY_RANK[p.severity], -p.last_seen))
                more = f" (+{len(probs) - 1} more problem{'s' if len(probs) > 2 else ''})" if len(probs) > 1 else ""
                status, reason, message, severity = True, top.reason, top.message + more, top.severity
            else:
                spec = self.cfg.conditions[name]
                status, reason, message, severity = False, spec["ok_reason"], spec["ok_message"], ""
            if (status, reason, message, severity) != (cond.status, cond.reason, cond.message, cond.severity):
                if status != cond.status:
                    cond.last_transition = now
                cond.status, cond.reason, cond.message, cond.severity = status, reason, message, severity
                change.conditions.append(cond)
        return change

    # ---- persistence -----------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        self._say()
        return {"problems": [asdict(p) for p in self.problems.values()],
                "conditions": {n: asdict(c) for n, c in self.conditions.items()},
                "policy": self.policy.to_state(), "notices": dict(self._noticed),
                "condition_rules": self.cfg.condition_rules}

    def restore(self, state: dict[str, Any]) -> list[str]:
        """Bring back problems and conditions as they were: no flap, same transition times. A saved entry whose
        fields are not of their declared types (parsers/model.py, read alone by keyspec.each: a corrupt or hostile
        state file of the right shape) is dropped, the rest restored; returned: the fault of each dropped entry
        (the policy's too), which the agent says in one warning (app._memory)."""
        faults: list[str] = []
        if isinstance(state.get("policy"), dict):
            faults += self.policy.restore(state["policy"])
        elif state.get("policy") is not None:
            faults.append(str(Invalid("policy", "expected a mapping")))
        before = self._saved_rules(state.get("condition_rules"), faults)  # what the saved problems were judged by
        for i, p in each(state.get("problems", []), list[Problem], "problems", faults):
            p = _renamed(p)
            if p.severity not in SEVERITY_RANK:  # derive ranks problems by it
                faults.append(str(Invalid(f"problems[{i}].severity", f"expected one of {', '.join(SEVERITY_RANK)}")))
            elif p.condition in self.conditions and (p := self._rejudged(p, before)) is not None:
                self._keep(p)
        for name, c in each(state.get("conditions", {}), dict[str, Condition], "conditions", faults):
            if name in self.conditions:
                self.conditions[name] = c
        self._restore_notices(state.get("notices", {}), faults)
        self.derive(Change())
        return faults

    def _rejudged(self, p: Problem, before: tuple | None) -> Problem | None:
        """A restored problem of a line (the kernel log's, a pod's) where the rules put it now, `before` the rules of
        the run that saved it (with their tests): where the first rule its kind, action, severity, attribution and
        code fit is another now (`condition_rules` changed between runs: a rule moved to another condition, or
        removed), it takes that rule's condition and clear, or, no rule fitting now (or one whose condition is not
        kept), is gone (a line of it now would raise nothing). Where the same rule fits (the same rules: always), it
        stands as saved: a problem's fields are not its line's (one made worse by an amendment, one the policy
        decided), so only a change of the rules moves it. Was: its old condition stood, a `boot`-cleared one's until
        the node rebooted, its taint with it. (A telemetry one: `sync`.)"""
        if before is None or p.kind not in KIND or p.source not in ("kernel", "pods"):
            return p
        code = (None, p.code) if p.kind == "sxid" else (p.code, None)
        f = Finding(p.kind, p.severity, p.attribution, p.action, "", xid=code[0], sxid=code[1], details=p.details)
        now, then = (next(((r["condition"], r.get("clear", "expire")) for r, tests in rules if _matches(tests, f)),
                          None) for rules in (self._rules, before))
        if now == then:
            return p
        if now is None or now[0] not in self.conditions:
            return None
        p.condition, p.clear = now[0], _clear_of(now[1], p.action)
        return p

    @staticmethod
    def _saved_rules(saved: Any, faults: list[str]) -> tuple | None:
        """The `condition_rules` the run that saved the state judged by (to_state), with their tests; None where it
        saved none (a version before them) or not as saved (a fault added): its problems stand as saved."""
        if saved is None:
            return None
        if not isinstance(saved, list) or not all(isinstance(r, dict) and isinstance(r.get("match"), dict)
                                                  and isinstance(r.get("condition"), str) for r in saved):
            faults.append(str(Invalid("condition_rules", "expected a list of rules, each a match and a condition")))
            return None
        return tuple((rule, _match(rule["match"])) for rule in saved)

    def _restore_notices(self, saved: Any, faults: list[str]) -> None:
        """When each notice may be said again, as saved (`_noticed`): a restart (a crash loop, a DaemonSet rollout
        over every node) says again only what a running agent would have said, not every reason's first line at once.
        Kept: the newest NOTICE_KEYS whose time lies within a period from now (one past is due: not kept; one further
        ahead, a clock set back or a hostile file, would silence a notice longer than a running agent does)."""
        now = self.clock()
        kept = [(key, due) for key, due in each(saved, dict[str, float], "notices", faults)
                if now < due <= now + self.cfg.notice_seconds]
        self._noticed.update(kept[-NOTICE_KEYS:])
