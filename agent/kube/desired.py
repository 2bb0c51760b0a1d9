"""What the Node's taints should be, computed from the engine's conditions, and the tainted-node budget: pure
functions, no I/O.  (The condition patch body is agent/kube/sink.py's, beside the one writer that sends it.)"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from kubeapi.reserved import reserved_key, unqualified
from parsers.finding import SEVERITIES, SEVERITY_RANK
from parsers.model import Condition

OWNER_LABEL = "app.kubernetes.io/managed-by"  # on what gpu-npd creates (DeviceTaintRules, its budgets' ConfigMaps)
OWNER = "gpu-npd"


@dataclass(frozen=True)
class TaintRule:
    condition: str
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"  # NoExecute only when configured
    min_severity: Literal[SEVERITIES] = "warning"  # taint only while the condition's worst problem is this severe


_VALUE_BAD = re.compile(r"[^A-Za-z0-9_.-]")


def taint_value(reason: str) -> str:
    """A taint value is a label value: <= 63 chars of [A-Za-z0-9_.-], alphanumeric at both ends."""
    return _VALUE_BAD.sub("-", reason)[:63].strip("-_.") or "true"


def taint_key(prefix: str, condition: str) -> str:
    """A condition's taint key: the prefix + the condition's name, after its own domain where it has one
    (`example.com/GPUHot` -> `gpu-npd.io/GPUHot`): a taint key is a qualified name, one '/' at most, and the API
    server refuses a node update holding one that is none, every other taint in it too."""
    return prefix + condition.rpartition("/")[2]


def taint_key_problem(key: str) -> str | None:
    """Why gpu-npd may not write this taint key (no qualified name, or someone else's domain), or None."""
    why = unqualified(key)
    return reserved_key(key) if why is None else f"taint key {key!r} is no qualified name: {why}"


def wanted_taints(conditions: dict[str, Condition], rules: list[TaintRule], prefix: str) -> dict[str, dict[str, str]]:
    """Our taints that the conditions call for, by key."""
    out: dict[str, dict[str, str]] = {}
    for rule in rules:
        c = conditions.get(rule.condition)
        key = taint_key(prefix, rule.condition)
        if c is not None and c.status and SEVERITY_RANK.get(c.severity, 3) >= SEVERITY_RANK[rule.min_severity] \
                and taint_key_problem(key) is None:
            out[key] = {"key": key, "value": taint_value(c.reason), "effect": rule.effect}
    return out


def our_taint_keys(rules: list[TaintRule], prefix: str) -> frozenset[str]:
    """The taint keys gpu-npd writes: one per taint rule. Only these are ever removed or replaced; any other key,
    under our prefix or not, is someone else's."""
    keys = (taint_key(prefix, rule.condition) for rule in rules)
    return frozenset(key for key in keys if taint_key_problem(key) is None)


def ours(taint: dict[str, Any], keys: frozenset[str]) -> bool:
    return taint.get("key") in keys


def merge_taints(current: list[dict[str, Any]], mine: dict[str, dict[str, str]], keys: frozenset[str]) -> list[dict[str, Any]]:
    """The node's taint list with ours (`keys`) replaced by `mine`; everyone else's kept as they are, in order."""
    kept = [t for t in current if not ours(t, keys)]
    old = {t["key"]: t for t in current if ours(t, keys)}
    merged = []
    for key, t in sorted(mine.items()):
        prev = old.get(key)
        if prev is not None and prev.get("value") == t["value"] and prev.get("effect") == t["effect"]:
            merged.append(prev)  # unchanged: keep its timeAdded
        else:
            merged.append(dict(t))
    return kept + merged


def budget_size(total: int, fraction: float, max_nodes: int = 0) -> int:
    """How many of a pool of `total` may be tainted: at least one of any pool; never past the caps."""
    allowed = max(1, int(total * fraction + 1e-9))
    return min(allowed, max_nodes) if max_nodes > 0 else allowed
