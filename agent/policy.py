"""Semantics operators argue about, as data: what a finding means before the health engine sees it.

Pure and clock-free (times come in with each finding); state is small, bounded and persisted with
the engine's.  Decides, from config tables only:

- per-Xid policy (`xid_policy`): severity / action override, `count` within `window_seconds`
  before an Xid counts at all, and `ignore_after` (an Xid that follows another Xid on the same GPU
  within a few seconds is cleanup, not a new fault: NVIDIA's Xid 45 "Not Solo: IGNORE");
- reboot-aware escalation (`xid_reboot_escalation`): a fatal Xid that comes back on the same GPU
  after N reboots gets action `HARDWARE_INSPECTION` (boots known by boot id);
- Xid semantics as data (parsers/escalation.py): the same Xid 13 on one GPC/TPC, 31 on one GPU, repeating is
  possibly the hardware; spread across GPUs, the application; a fatal Xid in 5+ bursts a day asks for inspection.
  Counted on every sighting, decided ones (`apply`) and repeats the coalescer counts without a decision
  (`remember`, which says when an escalation reached its count so that the repeat is decided afresh);
- unused ports: a link-down / cable-unplugged on a port that never came up since boot is no error.
  Only while the boot is young (`unused_port_boot_seconds`): later, an up line we never saw may
  have been overwritten in the kernel ring, so a down is an error as before.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from types import MappingProxyType
from typing import Any, Callable

from parsers import Finding
from parsers.bounded import keep_newest
from parsers.escalation import Escalations, Verdict as Escalated
from parsers.finding import SEVERITIES
from parsers.ports import LINK_KINDS, UnusedPorts

from .keyspec import Invalid, convert, each

ESCALATED_ACTION = "HARDWARE_INSPECTION"
POLICY_KEYS = ("severity", "action", "count", "window_seconds", "ignore_after")
IGNORE_AFTER_KEYS = ("xids", "within_seconds")
IGNORE_AFTER_ANY = ("any", "application")
MAX_KEYS = 1024  # bound on remembered GPUs / ports / (GPU, Xid) histories
# Why the policy held an Xid back (the `reason` label of gpu_npd_xid_policy_held_total):
# below_threshold: fewer than `count` within `window_seconds`; ignored_after: `ignore_after` matched.
HELD_REASONS = ("below_threshold", "ignored_after")


def validate(table: Any, reboots: Any) -> str | None:
    """One-line reason when the tables are bad, else None (config.py turns it into a ConfigError)."""
    if not isinstance(reboots, int) or isinstance(reboots, bool) or reboots < 0:
        return f"xid_reboot_escalation: expected 0 (off) or a number of reboots, got {reboots!r}"
    if not isinstance(table, dict):
        return f"xid_policy: expected a mapping of Xid code -> policy, got {table!r}"
    for code, entry in table.items():
        where = f"xid_policy.{code}"
        if not str(code).isdigit():
            return f"{where}: the key must be an Xid code (a number)"
        if not isinstance(entry, dict):
            return f"{where}: expected a mapping with some of {', '.join(POLICY_KEYS)}"
        unknown = set(entry) - set(POLICY_KEYS)
        if unknown:
            return f"{where}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(POLICY_KEYS)})"
        if "severity" in entry and entry["severity"] not in SEVERITIES:
            return f"{where}.severity: expected one of {', '.join(SEVERITIES)}, got {entry['severity']!r}"
        if "action" in entry and not (isinstance(entry["action"], str) and entry["action"]):
            return f"{where}.action: expected an action name, got {entry['action']!r}"
        for key in ("count", "window_seconds"):
            value = entry.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                return f"{where}.{key}: expected a number greater than 0, got {value!r}"
        if ("count" in entry) != ("window_seconds" in entry):
            return f"{where}: count and window_seconds go together"
        after = entry.get("ignore_after")
        if after is not None:
            if not isinstance(after, dict) or set(after) - set(IGNORE_AFTER_KEYS) or "within_seconds" not in after:
                return f"{where}.ignore_after: expected {{xids: any|application|[codes], within_seconds: N}}"
            xids = after.get("xids", "any")
            if not (xids in IGNORE_AFTER_ANY or (isinstance(xids, list) and all(isinstance(x, int) for x in xids))):
                return f"{where}.ignore_after.xids: expected any, application or a list of Xid codes, got {xids!r}"
            within = after["within_seconds"]
            if isinstance(within, bool) or not isinstance(within, (int, float)) or within <= 0:
                return f"{where}.ignore_after.within_seconds: expected a number greater than 0, got {within!r}"
    return None


class FindingPolicy:
    def __init__(self, xid_policy: dict, reboots: int, port_of: Callable[[Finding], str],
                 unused_port_seconds: float = 600.0, boot_id: str = ""):
        self.table = {int(code): entry for code, entry in (xid_policy or {}).items() if entry}
        self.reboots = reboots
        self.unused_port_seconds = unused_port_seconds
        self.port_of = port_of
        self.boot_id = boot_id  # this boot's (set once: a reboot is a new agent)
        self._last_xid: OrderedDict[str, tuple[float, int, str]] = OrderedDict()  # gpu -> (t, xid, attribution)
        self._counts: OrderedDict[tuple[str, int], deque] = OrderedDict()  # (gpu, xid) -> times
        self._fatal_boots: OrderedDict[str, list[str]] = OrderedDict()  # "gpu|xid" -> boot ids, oldest first
        self.ports = UnusedPorts(unused_port_seconds)
        self.escalations = Escalations()
        self._counted: tuple[Finding | None, Escalated | None] = (None, None)  # the last Xid counted, its verdict

    # ---- the decision ----------------------------------------------------------------------------

    def repeat_safe(self, f: Finding) -> bool:
        """True when deciding `f` again would change nothing but the last-Xid memory and the escalations' counts
        (`remember`, which says when a count is reached): no count
        window or ignore-after rule applies to it and it is not a link state (those depend on history)."""
        if f.kind in LINK_KINDS:
            return False
        if f.kind != "xid" or f.xid is None:
            return True
        entry = self.table.get(f.xid, _NO_ROW)
        return "count" not in entry and "ignore_after" not in entry

    def remember(self, f: Finding, seen: float) -> bool:
        """A repeat counted without a decision still is the GPU's latest Xid (for later ignore-after rules) and a
        sighting the escalations count.  True when that sighting made an escalation reach its count: the repeat
        must be decided afresh (`apply` then takes the verdict without counting it again: `_counted`)."""
        if f.kind == "xid" and f.xid is not None:
            gpu = f.pci or "-"
            keep_newest(self._last_xid, gpu, (seen, f.xid, f.attribution), MAX_KEYS)
            verdict = self.escalations.see(f.xid, f.severity, gpu, f.message, seen)
            self._counted = (f, verdict)  # (a repeat is remembered once, never after `apply` counted it)
            return verdict is not None and verdict.crossed
        return False

    def apply(self, f: Finding, seen: float, uptime: float | None = None) -> str:
        """Why the policy holds `f` back (one of HELD_REASONS), or "" when it goes on, changed in place (a row's
        overrides, an escalation, an unused port's down report made info; what the policy noted in its details).
        `seen`: when it happened (wall clock); `uptime`: seconds since this boot, None if unknown."""
        if f.kind in LINK_KINDS:
            self._port(f, uptime)
            return ""
        if f.kind != "xid" or f.xid is None:
            return ""
        gpu = f.pci or "-"
        entry = self.table.get(f.xid, _NO_ROW)
        last_xid = self._last_xid
        previous = last_xid.get(gpu) if entry else None  # (only a policy row's ignore_after reads it)
        # `remember`'s keep_newest, inline: every decided Xid passes here, and in a flood of distinct Xids the call was
        # (with a second one since gone) 1% of a record's cost (bench/inprocess.py --instructions).  One test holds
        # the two paths to the same memory (tests/agent/test_policy.py::test_apply_and_remember_keep_the_same_memory).
        last_xid[gpu] = (seen, f.xid, f.attribution)
        last_xid.move_to_end(gpu)
        if len(last_xid) > MAX_KEYS:
            last_xid.popitem(last=False)
        notes: list[str] = []
        if entry:  # a policy row names this Xid (most do not)
            held = self._row(f, entry, gpu, seen, previous, notes)
            if held:
                return held
        counted, verdict = self._counted
        if counted is not f:  # (else `remember` counted this very finding: its verdict, not a second sighting)
            verdict = self.escalations.see(f.xid, f.severity, gpu, f.message, seen)
            self._counted = (f, verdict)
        if verdict is not None:
            rule = verdict.rule
            f.attribution, f.severity = rule.attribution or f.attribution, rule.severity or f.severity
            f.action = rule.action or f.action
            f.details["escalation"] = rule.name
            notes.append(verdict.note)
        if f.severity == "fatal" and self.reboots > 0 and self.boot_id:
            # the GPU across reboots: its UUID where NVRM or NVML named it, else its PCI address
            key = f"{f.details.get('uuid') or f.pci or '-'}|{f.xid}"
            boots = self._fatal_boots.get(key)
            if boots is None:
                boots = []
                keep_newest(self._fatal_boots, key, boots, MAX_KEYS)
            if self.boot_id not in boots:
                boots.append(self.boot_id)
                del boots[:-(self.reboots + 1)]
            if len(boots) > self.reboots:
                f.action = ESCALATED_ACTION
                f.details["reboots_survived"] = len(boots) - 1
                notes.append(f"came back after {len(boots) - 1} reboots")
        if notes:
            f.details["policy"] = "; ".join(notes)
        return ""

    def _row(self, f: Finding, entry: dict, gpu: str, seen: float, previous: tuple | None, notes: list[str]) -> str:
        """The Xid's policy row: why it holds the finding back, else "" (its overrides applied)."""
        after = entry.get("ignore_after")
        if after and previous is not None and previous[1] != f.xid and 0 <= seen - previous[0] <= after["within_seconds"]:
            xids = after.get("xids", "any")
            if xids == "any" or (xids == "application" and previous[2] == "application") or \
                    (isinstance(xids, list) and previous[1] in xids):
                return "ignored_after"
        if "count" in entry:
            need, window = int(entry["count"]), float(entry["window_seconds"])
            times = self._counts.get((gpu, f.xid))
            if times is None:
                times = deque(maxlen=max(need, 1))
                keep_newest(self._counts, (gpu, f.xid), times, MAX_KEYS)
            times.append(seen)
            if len(times) < need or seen - times[0] > window:
                return "below_threshold"
            notes.append(f"{need} within {int(window)} s")
        if "severity" in entry:
            f.severity = entry["severity"]
        if "action" in entry:
            f.action = entry["action"]
        return ""

    def _port(self, f: Finding, uptime: float | None) -> None:
        self.ports.judge(f, self.port_of, uptime, self.boot_id)

    # ---- persistence -----------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {"fatal_boots": dict(self._fatal_boots), "ports_up": sorted(self.ports.up),
                "ports_boot": self.ports.boot, "escalations": self.escalations.to_state()}

    def restore(self, state: dict[str, Any]) -> list[str]:
        """What to_state saved; an entry not of its type is dropped alone and its fault returned (keyspec.each)."""
        faults: list[str] = []
        boots = state.get("fatal_boots", {})
        for key, ids in list(each(boots, dict[str, list[str]], "policy.fatal_boots", faults))[-MAX_KEYS:]:
            self._fatal_boots[key] = ids[-(self.reboots + 1):]
        dropped = self.escalations.restore(state.get("escalations"))  # (parsers/: counted there, said here)
        if dropped:
            faults.append(f"policy.escalations: {dropped} saved entries not of their types")
        ports = [p for _, p in each(state.get("ports_up", []), list[str], "policy.ports_up", faults)][:MAX_KEYS]
        try:
            boot = convert(state.get("ports_boot", ""), str, "policy.ports_boot")
        except Invalid as exc:
            faults.append(str(exc))
        else:
            self.ports.up, self.ports.boot = set(ports), boot
        return faults


_NO_ROW = MappingProxyType({})  # the row of an Xid the policy does not name

