"""Remediation hand-off, computed from the standing problems: pure functions, no I/O.

- The `eks` condition profile: the condition types Karpenter / EKS node auto repair act on
  (`AcceleratedHardwareReady`; True = healthy, False = a GPU fault; reasons in the EKS node monitoring
  agent's stable form, e.g. `NvidiaXID79Error`).  `lastTransitionTime` moves only when the status flips,
  never when only the reason changes (the repair timer keeps running).
- The repair annotation: the recommended action and the GPUs concerned, as JSON, for a remediation
  controller or a runbook that should not parse prose.
"""

from __future__ import annotations

import json
import re
from typing import Any

from parsers.finding import ACTION_RANK, SEVERITY_RANK
from parsers.model import Condition, Problem
from parsers.pci import normalize_pci

from .settings import REPAIR_PROFILES

# profile -> (condition type, reason while healthy, which of our conditions feed it)
PROFILE_CONDITIONS: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {
    "eks": [("AcceleratedHardwareReady", "NvidiaAcceleratedHardwareIsReady", ("GPUUnhealthy", "NVLinkUnhealthy"))],
}
# every profile but "off" has its conditions (checked with a real error: an assert is gone under `python -O`)
if _odd := sorted(set(PROFILE_CONDITIONS) ^ (set(REPAIR_PROFILES) - {"off"})):
    raise ValueError(f"agent/kube/repair.py: PROFILE_CONDITIONS and the repair profiles differ in: {', '.join(_odd)}")
REPAIR_SEVERITY = "error"  # problems at least this severe trigger the repair condition and the hand-off
# The worst action wins when several problems stand (parsers/kinds.py ACTION_RANK: higher is more drastic).
OPTED_OUT_REASON = "RepairOptedOut"
# Every message of a profile condition starts so: the condition type is shared with other writers (the EKS node
# monitoring agent writes AcceleratedHardwareReady too), and `gpu-npd cleanup` removes only those gpu-npd wrote.
MESSAGE_MARK = "gpu-npd: "


def profile_reason(p: Problem) -> str:
    """The stable reason for one problem: NvidiaXID<code>Error for an Xid, else Nvidia<our reason>."""
    if p.kind == "xid" and p.code is not None:
        return f"NvidiaXID{p.code}Error"
    return "Nvidia" + re.sub(r"[^A-Za-z0-9]", "", p.reason)[:60]


def _triggering(problems: list[Problem], feeds: tuple[str, ...]) -> list[Problem]:
    bad = [p for p in problems if p.condition in feeds
           and SEVERITY_RANK.get(p.severity, 0) >= SEVERITY_RANK[REPAIR_SEVERITY]]
    return sorted(bad, key=lambda p: (-SEVERITY_RANK.get(p.severity, 0), p.first_seen, p.id))


def profile_conditions(profile: str, problems: list[Problem], previous: dict[str, Condition], now: float,
                       opted_out: bool) -> dict[str, Condition]:
    """The profile's conditions; `previous` (by type) keeps lastTransitionTime across reason changes."""
    out: dict[str, Condition] = {}
    for ctype, ready_reason, feeds in PROFILE_CONDITIONS.get(profile, []):
        bad = _triggering(problems, feeds)
        if bad and not opted_out:
            healthy, reason = False, profile_reason(bad[0])
            message = (MESSAGE_MARK + "; ".join(p.message for p in bad[:4]))[:1024]
        elif bad:
            healthy, reason = True, OPTED_OUT_REASON
            message = (f"{MESSAGE_MARK}{len(bad)} GPU fault(s) stand ({profile_reason(bad[0])}) but the node carries the "
                       "do-not-repair label; see gpu-npd's own conditions")
        else:
            healthy, reason, message = True, ready_reason, f"{MESSAGE_MARK}monitoring for NVIDIA accelerated hardware is active"
        prev = previous.get(ctype)
        since = prev.last_transition if prev is not None and prev.status == healthy else now
        out[ctype] = Condition(ctype, healthy, reason, message, since, bad[0].severity if bad else "")
    return out


def _gpu(p: Problem) -> dict[str, Any] | None:
    """The annotation's entry of a GPU's problem.  A GPU named by no address (`gpu:nvml<index>`: lost at the agent's
    start, which address NVML does not say) has `pci` empty and its NVML index: no device is named for it."""
    if not p.subject.startswith("gpu:"):
        return None
    gpu = p.subject[4:].partition("/")[0]  # (an NVLink's subject, `gpu:<pci>/nvlink<n>`: its GPU's address)
    named = normalize_pci(gpu) is not None
    g: dict[str, Any] = {"pci": gpu if named else ""}
    for key in ("uuid", "index"):
        if p.details.get(key) is not None:
            g[key] = p.details[key]
    if not named and p.details.get("gpu_index") is not None:
        g.setdefault("index", int(p.details["gpu_index"]))
    return g


def repair_annotation(problems: list[Problem]) -> str | None:
    """JSON for the repair annotation, or None when nothing needs repair.  Deterministic (sorted keys),
    so an unchanged hand-off needs no write."""
    bad = [p for p in problems if SEVERITY_RANK.get(p.severity, 0) >= SEVERITY_RANK[REPAIR_SEVERITY]
           and p.action and ACTION_RANK.get(p.action, 1) > 0]
    if not bad:
        return None
    worst = max(bad, key=lambda p: (ACTION_RANK.get(p.action, 1), SEVERITY_RANK.get(p.severity, 0)))
    gpus: dict[str, dict[str, Any]] = {}
    for p in bad:
        g = _gpu(p)
        if g is not None:
            gpus.setdefault(g["pci"] or p.subject.partition("/")[0], g)
    body = {"action": worst.action, "reason": profile_reason(worst), "gpus": [gpus[k] for k in sorted(gpus)],
            "problems": sorted({f"{p.condition}/{p.reason}" for p in bad})}
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def own_condition_types() -> tuple[str, ...]:
    """Every NodeCondition type the agent writes with its built-in configuration, sorted: the kind table's
    (parsers/kinds.py CONDITIONS), the built-in checks' (agent/checks/builtin.py TABLE) and the repair
    profiles' (PROFILE_CONDITIONS). The ValidatingAdmissionPolicy of deploy/base (and the chart's) lets the
    agent change no other type on nodes/status; tests/deploy/test_vap_nodes.py holds the manifests to this list."""
    from parsers.kinds import CONDITIONS  # noqa: PLC0415

    from ..checks.builtin import TABLE as CHECKS  # noqa: PLC0415

    return tuple(sorted({c.type for c in CONDITIONS} | {c.condition for c in CHECKS}
                        | {t for profile in PROFILE_CONDITIONS.values() for t, _, _ in profile}))
