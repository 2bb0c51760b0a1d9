"""Samples -> problems: readings from NVML and sysfs judged by the `sample_rules` table.

Pure: no I/O, an injected time.  A rule names an entity kind and a field and one test:

    above: X              value > X
    in: [..]              value is one of these
    below_field: F        value < the same reading's field F (link generation below its max)
    increase_above: N     the counter rose by more than N within `window` seconds (reset-safe)
    changes_above: N      the value changed more than N times within `window` seconds (flapping)

A rule that holds yields a problem spec for that subject; one that stops holding clears what it
raised (the engine syncs per subject and source).
"""

from __future__ import annotations

import fnmatch
from collections import deque
from typing import Any

from parsers.model import Reading, Verdict

TESTS = ("above", "in", "below_field", "increase_above", "changes_above")
ENTITIES = ("gpu", "nvlink", "ib_port", "pci", "node")




class SampleJudge:
    def __init__(self, rules: list[dict[str, Any]], ignore: dict[str, list[str]] | None = None):
        self.by_entity: dict[str, list[dict[str, Any]]] = {}
        for i, rule in enumerate(rules):  # histories are per rule: two windows on one field never mix
            test = next(t for t in TESTS if t in rule)
            self.by_entity.setdefault(rule["entity"], []).append(
                {**rule, "_key": f"{rule['field']}#{i}", "_test": test, "_arg": rule[test],
                 "_window": float(rule.get("window", 300))})
        self.ignore = ignore or {}
        self._hist: dict[tuple[str, str], deque] = {}

    def to_state(self) -> dict[str, list]:
        """Counter histories (rates and flaps survive a restart instead of clearing and re-raising)."""
        return {f"{subject}|{key}": list(h) for (subject, key), h in self._hist.items()}

    def restore(self, state: dict[str, list]) -> None:
        for key, hist in state.items():
            subject, _, rkey = key.rpartition("|")
            try:
                self._hist[(subject, rkey)] = deque((float(t), float(v)) for t, v in hist)
            except (TypeError, ValueError):
                continue

    def forget(self, keep: set[str]) -> None:
        """Drop histories of subjects no longer read (bounded memory when devices go away)."""
        for key in [k for k in self._hist if k[0] not in keep]:
            del self._hist[key]

    def judge(self, r: Reading, now: float) -> list[Verdict]:
        ignore = self.ignore.get(r.entity)
        if ignore and any(fnmatch.fnmatchcase(r.subject, pat) for pat in ignore):
            return []
        out: list[Verdict] = []
        seen: set[str] = set()
        for rule in self.by_entity.get(r.entity, ()):
            value = r.values.get(rule["field"])
            if value is None:
                continue
            hit, shown = self._test(rule, r, value, now)
            if hit and rule["reason"] not in seen:
                seen.add(rule["reason"])
                out.append(self._verdict(rule, r, value, shown))
        return out

    def _test(self, rule: dict, r: Reading, value: float, now: float) -> tuple[bool, float]:
        test, arg = rule["_test"], rule["_arg"]
        if test == "above":
            return value > arg, value
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
        if test == "increase_above":
            if hist and value < hist[-1][1]:
                hist.clear()  # counter reset (driver reload, reboot): start again
            if not hist or hist[-1][1] != value or now - hist[-1][0] >= window:
                hist.append((now, value))
            while len(hist) > 1 and now - hist[1][0] >= window:
                hist.popleft()  # keep the newest sample at or before the window start as the baseline
            rise = value - hist[0][1]
            return rise > arg, rise
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
        return Verdict(rule["condition"], rule["reason"], rule.get("severity", "warning"),
                       rule.get("attribution", "hardware"), action,
                       f"{where}: {what}. Recommended action: {action}", details)


def _where(r: Reading) -> str:
    lab = r.labels
    if r.entity in ("gpu", "nvlink"):
        gpu = f"GPU {lab.get('gpu_index', '?')} ({lab.get('pci_bus_id', '?')}, {lab.get('uuid', '?')})"
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
        if rule.get("condition") not in conditions:
            return f"{where}.condition: {rule.get('condition')!r} is not one of conditions"
        tests = [t for t in TESTS if t in rule]
        if len(tests) != 1:
            return f"{where}: needs exactly one test of {', '.join(TESTS)}"
    return None
