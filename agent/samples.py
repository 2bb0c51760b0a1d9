"""Samples -> problems: readings from NVML and sysfs judged by the `sample_rules` table.

Pure: no I/O, an injected time.  A rule names an entity kind and a field and one test:

    above: X              value > X
    below: X              value < X
    in: [..]              value is one of these
    below_field: F        value < the same reading's field F (link generation below its max)
    increase_above: N     the counter rose by more than N within `window` seconds (reset-safe)
    rate_above: R         the counter rose faster than R per `per` seconds (default 1), measured over up
                          to `window` seconds (reset-safe): the vendors' limits are rates (DCGM: NVLink CRC
                          100/s, PCIe replay 8/min)
    changes_above: N      the value changed more than N times within `window` seconds (flapping)

Confirmation, so that a rule does not accuse on one reading: `polls: N` (the test held in N readings in a
row) and `for: S` (and for at least S seconds); `boot_grace: true` withholds the verdict until the agent's
boot grace has passed since the node booted (links train, fabric registers, counters tick during boot).
Withheld verdicts still count towards confirmation: a fault that stands through boot is reported once
the grace ends, if confirmed.

A rule that holds (and is confirmed) yields a problem spec for that subject; one that stops holding clears
what it raised (the engine syncs per subject and source).  A reading that lacks the rule's field neither
confirms nor clears; where the reading is `partial` (the field was not read this time: its NVML call failed or
missed its deadline) what the rule raised stands, as it does for a subject not read at all.  After an agent
restart, the problems the state file restored are those rules' last verdicts (`adopt`): a first reading that is
partial keeps them too.
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Iterable
from typing import Any

from parsers.model import Problem, Reading, Verdict
from parsers.telemetry import DEFAULT_SEVERITY, finding_kind, kind_condition

from .keyspec import each

TESTS = ("above", "below", "in", "below_field", "increase_above", "rate_above", "changes_above")
ENTITIES = ("gpu", "nvlink", "ib_port", "pci", "node")
_HELD = "held|"  # state key prefix of confirmation progress (beside the counter histories)


class SampleJudge:
    def __init__(self, rules: list[dict[str, Any]], ignore: dict[str, list[str]] | None = None,
                 boot_time: float = 0.0, boot_grace: float = 0.0):
        self.by_entity: dict[str, list[dict[str, Any]]] = {}
        for i, rule in enumerate(rules):  # histories are per rule: two windows on one field never mix
            test = next(t for t in TESTS if t in rule)
            self.by_entity.setdefault(rule["entity"], []).append(
                {**rule, "_key": f"{rule['field']}#{i}", "_test": test, "_arg": rule[test],
                 "_window": float(rule.get("window", 300)), "_polls": int(rule.get("polls", 1)),
                 "_for": float(rule.get("for", 0)), "_per": float(rule.get("per", 1))})
        self.ignore = ignore or {}
        self.grace_until = boot_time + boot_grace
        self._hist: dict[tuple[str, str], deque] = {}
        self._held: dict[tuple[str, str], list[float]] = {}  # (subject, rule) -> [since, readings in a row]
        self._standing: dict[tuple[str, str], Verdict] = {}  # (subject, rule) -> its last verdict, while it holds

    def to_state(self) -> dict[str, list]:
        """Counter histories and confirmation progress (rates, flaps and confirmed problems survive a
        restart instead of clearing and re-raising)."""
        out = {f"{subject}|{key}": list(h) for (subject, key), h in self._hist.items()}
        out.update({f"{_HELD}{subject}|{key}": held for (subject, key), held in self._held.items()})
        return out

    def restore(self, state: dict[str, list]) -> list[str]:
        """What to_state saved; an entry not of its type is dropped alone and its fault returned (keyspec.each)."""
        faults: list[str] = []
        held = {k: v for k, v in state.items() if k.startswith(_HELD)}
        for key, (since, count) in each(held, dict[str, tuple[float, float]], "samples", faults):
            subject, _, rkey = key[len(_HELD):].rpartition("|")
            self._held[(subject, rkey)] = [since, count]
        hists = {k: v for k, v in state.items() if not k.startswith(_HELD)}
        for key, hist in each(hists, dict[str, list[tuple[float, float]]], "samples", faults):
            subject, _, rkey = key.rpartition("|")
            self._hist[(subject, rkey)] = deque(hist)
        return faults

    def adopt(self, problems: Iterable[Problem]) -> None:
        """The problems an agent started again restored (HealthEngine.restore): each stands as the last verdict of
        the rule of its reason whose confirmation for its subject was restored (`restore`), so that a first reading
        without that rule's field (`partial`) keeps it, as for an agent that ran on (it cleared, and came back at
        the next full reading). It stands under the rule's condition now, not the saved one (an upgrade or a
        configuration that changed the row's: HealthEngine.sync moves the problem to it)."""
        rules = {rule["_key"]: rule for by_entity in self.by_entity.values() for rule in by_entity}
        raised = {(p.subject, p.reason): p for p in problems if p.clear == "sample"}  # (not a kernel line's)
        for (subject, key), (_, count) in self._held.items():
            rule = rules.get(key)
            p = raised.get((subject, rule["reason"])) if rule is not None and count >= rule["_polls"] else None
            if p is not None:
                self._standing[(subject, key)] = Verdict(rule["condition"], p.reason, p.severity, p.attribution,
                                                         p.action, p.message, dict(p.details))

    def forget(self, keep: set[str]) -> None:
        """Drop histories of subjects no longer read (bounded memory when devices go away)."""
        for table in (self._hist, self._held, self._standing):
            for key in [k for k in table if k[0] not in keep]:
                del table[key]

    def judge(self, r: Reading, now: float) -> list[Verdict]:
        ignore = self.ignore.get(r.entity)
        if ignore and any(fnmatch.fnmatchcase(r.subject, pat) for pat in ignore):
            return []
        out: list[Verdict] = []
        seen: set[str] = set()
        # a rule that does not hold clears its verdict: `in`, then del where one stands, cheaper than pop(key, None)
        # per rule and reading (most readings clear nothing)
        standing = self._standing
        for rule in self.by_entity.get(r.entity, ()):
            key = (r.subject, rule["_key"])
            value = r.values.get(rule["field"])
            if value is None:
                if not r.partial:  # the field is not there at all: what the rule raised clears
                    if key in standing:
                        del standing[key]
                elif key in standing and rule["reason"] not in seen:  # not read this time: not healthy either
                    seen.add(rule["reason"])
                    out.append(standing[key])
                continue
            hit, shown = self._test(rule, r, value, now)
            if not self._confirmed(rule, key, hit, now):
                if key in standing:
                    del standing[key]
                continue
            verdict = standing[key] = self._verdict(rule, r, value, shown)
            if rule["reason"] not in seen:
                seen.add(rule["reason"])
                out.append(verdict)
        return out

    def _confirmed(self, rule: dict, key: tuple[str, str], hit: bool, now: float) -> bool:
        """The test held in `polls` readings in a row, for `for` seconds, and outside the boot grace; `key`: (subject,
        rule's _key), as judge() built it."""
        if not hit:
            if key in self._held:  # (as for _standing in judge)
                del self._held[key]
            return False
        held = self._held.get(key)
        if held is None:
            held = self._held[key] = [now, 0.0]
        held[1] += 1
        if held[1] < rule["_polls"] or now - held[0] < rule["_for"]:
            return False
        return not (rule.get("boot_grace") and now < self.grace_until)

    def _test(self, rule: dict, r: Reading, value: float, now: float) -> tuple[bool, float]:
        test, arg = rule["_test"], rule["_arg"]
        if test == "above":
            return value > arg, value
        if test == "below":
            return value < arg, value
        if test == "in":
            return value in arg, value
        if test == "below_field":
            ref = r.values.get(arg)
            return ref is not None and value < ref, value
        window = rule["_window"]
        key = (r.subject, rule["_key"])
        hist = self._hist.get(key)
        if hist is None:
            hist = self._hist[key] = deque()
        if test in ("increase_above", "rate_above"):
            if hist and value < hist[-1][1]:
                hist.clear()  # counter reset (driver reload, reboot): start again
            if not hist or hist[-1][1] != value or now - hist[-1][0] >= window:
                hist.append((now, value))
            while len(hist) > 1 and now - hist[1][0] >= window:
                hist.popleft()  # keep the newest sample at or before the window start as the baseline
            rise = value - hist[0][1]
            if test == "increase_above":
                return rise > arg, rise
            elapsed = now - hist[0][0]
            if elapsed <= 0:
                return False, 0.0  # one sample: no rate yet
            rate = rise / elapsed * rule["_per"]
            return rate > arg, round(rate, 3)
        if test == "changes_above":
            if not hist or hist[-1][1] != value:
                hist.append((now, value))
            while hist and now - hist[0][0] > window:
                hist.popleft()
            changes = len(hist) - 1
            return changes > arg, changes
        return False, value

    @staticmethod
    def _verdict(rule: dict, r: Reading, value: float, shown: float) -> Verdict:
        facts = {**{k: _fmt(v) for k, v in r.values.items() if "/" not in k}, **r.labels, **r.text,
                 "value": _fmt(value), "shown": _fmt(shown), "window": _fmt(rule.get("window", 300))}
        try:
            what = rule.get("message", "{field} is {value}").format(field=rule["field"], **facts)
        except (KeyError, IndexError, ValueError):
            what = f"{rule['field']} is {_fmt(value)}"
        where = _where(r)
        action = rule.get("action", "NONE")
        details = {k: r.labels[k] for k in ("gpu_index", "uuid", "pci_bus_id", "device", "port", "link") if k in r.labels}
        return Verdict(rule["condition"], rule["reason"], rule.get("severity", DEFAULT_SEVERITY),
                       rule.get("attribution", "hardware"), action,
                       f"{where}: {what}. Recommended action: {action}", details)


def _where(r: Reading) -> str:
    lab = r.labels
    if r.entity in ("gpu", "nvlink"):
        # a GPU lost at the agent's start has no UUID, and no address where NVML does not say which is lost
        gpu = (f"GPU {lab.get('gpu_index', '?')} ({lab.get('pci_bus_id') or 'address unknown'}, "
               f"{lab.get('uuid') or 'UUID unknown'})")
        return gpu + (f" NVLink {lab['link']}" if r.entity == "nvlink" else "")
    if r.entity == "ib_port":
        return f"{lab.get('device')} port {lab.get('port')}" + (f" ({lab['netdev']})" if lab.get("netdev") else "")
    if r.entity == "pci":
        return f"PCI device {lab.get('pci_bus_id')} ({lab.get('vendor', '?')})"
    return "node"


def _fmt(v: Any) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def validate_rules(rules: Any, conditions: dict) -> str | None:
    """The first problem with the rule table, as text naming the rule, or None."""
    if not isinstance(rules, list):
        return "sample_rules: expected a list"
    for i, rule in enumerate(rules):
        where = f"sample_rules[{i}]"
        if not isinstance(rule, dict):
            return f"{where}: expected a mapping"
        if rule.get("entity") not in ENTITIES:
            return f"{where}.entity: expected one of {', '.join(ENTITIES)}, got {rule.get('entity')!r}"
        for key in ("field", "reason"):
            if not isinstance(rule.get(key), str):
                return f"{where}.{key}: required"
        if "kind" in rule:  # (first: a row raising its kind's condition or its own is told the same)
            try:
                finding_kind(rule["kind"])
            except ValueError as exc:
                return f"{where}.kind: {exc}"
        try:  # a row naming its kind and no condition raises its kind's (parsers/telemetry.py with_condition)
            condition = kind_condition(rule) if "condition" not in rule and "kind" in rule else rule.get("condition")
        except ValueError as exc:
            return f"{where}.condition: required: {exc}"
        if condition not in conditions:
            return f"{where}.condition: {condition!r} is not one of conditions"
        tests = [t for t in TESTS if t in rule]
        if len(tests) != 1:
            return f"{where}: needs exactly one test of {', '.join(TESTS)}"
        for key, least in (("polls", 1), ("for", 0), ("window", 0), ("per", 0)):
            v = rule.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < least
                                  or (key in ("window", "per") and v == 0)):
                return f"{where}.{key}: expected a number of at least {least}{' (not 0)' if least == 0 and key in ('window', 'per') else ''}, got {v!r}"
        if "boot_grace" in rule and not isinstance(rule["boot_grace"], bool):
            return f"{where}.boot_grace: expected true or false, got {rule['boot_grace']!r}"
    return None
