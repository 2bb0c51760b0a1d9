"""The `kubernetes:` block of the configuration, typed and checked."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from parsers.finding import SEVERITIES

from .desired import TaintRule

MODES = ("enforce", "observe", "off")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
REPAIR_PROFILES = ("off", "eks")  # condition profiles in agent/kube/repair.py


@dataclass(frozen=True)
class KubeSettings:
    kubeconfig: str = ""
    api_server: str = ""
    heartbeat_seconds: float = 300.0
    coalesce_seconds: float = 0.2
    qps: float = 5.0
    burst: int = 10
    request_timeout_seconds: float = 10.0
    max_backoff_seconds: float = 60.0
    taint_prefix: str = "gpu-npd.io/"
    taints: tuple[TaintRule, ...] = field(default_factory=tuple)
    taint_hold_down_seconds: float = 300.0
    event_namespace: str = "default"
    event_burst: int = 25
    events_per_minute: float = 12.0
    event_aggregate_seconds: float = 600.0
    budget_selector: str = "nvidia.com/gpu.present=true"
    max_tainted_fraction: float = 0.1
    max_tainted_nodes: int = 0
    repair_profile: str = "off"  # off | eks: also write the condition types node auto repair acts on
    repair_annotation: bool = False  # write the recommended action and GPUs as JSON on the Node
    repair_annotation_key: str = "gpu-npd.io/repair"
    do_not_repair_label: str = "gpu-npd.io/do-not-repair"  # on a Node: the repair-triggering condition stays True
    dra_device_taints: bool = False  # enforce: one DeviceTaintRule per faulty GPU where DRA serves them
    dra_driver: str = "gpu.nvidia.com"
    dra_taint_effect: str = "NoSchedule"
    # pods on a GPU with a fatal fault get the pod condition gpu-npd.io/GPUFault (enforce; observe: Events only)
    pod_fault_conditions: bool = False
    pod_resources_socket: str = "/var/lib/kubelet/pod-resources/kubelet.sock"  # which pod holds which GPU


def parse(raw: Any, conditions: dict) -> KubeSettings:
    """Raises ValueError naming the key (kubernetes.<key>)."""
    if not isinstance(raw, dict):
        raise ValueError("kubernetes: expected a mapping")
    known = {f.name: f for f in fields(KubeSettings)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ValueError(f"kubernetes.{key}: unknown key (known: {', '.join(known)})")
        default = known[key].default
        if key == "taints":
            values[key] = tuple(_taint(i, t, conditions) for i, t in enumerate(value or []))
            continue
        try:
            if isinstance(default, bool) or default is None:
                values[key] = value
            elif isinstance(default, (int, float)) and not isinstance(default, bool):
                if isinstance(value, bool):
                    raise ValueError
                values[key] = type(default)(value)
                if not math.isfinite(values[key]) or values[key] < 0:
                    raise ValueError
            else:
                values[key] = str(value)
        except (TypeError, ValueError):
            raise ValueError(f"kubernetes.{key}: expected a finite non-negative {type(default).__name__}, got {value!r}") from None
    s = KubeSettings(**values)
    if not 0 < s.max_tainted_fraction <= 1:
        raise ValueError(f"kubernetes.max_tainted_fraction: expected 0 < f <= 1, got {s.max_tainted_fraction}")
    if s.qps <= 0 or s.burst < 1:
        raise ValueError("kubernetes.qps / burst: must be positive")
    if s.repair_profile not in REPAIR_PROFILES:
        raise ValueError(f"kubernetes.repair_profile: expected one of {', '.join(REPAIR_PROFILES)}, got {s.repair_profile!r}")
    for key in ("repair_annotation", "dra_device_taints", "pod_fault_conditions"):
        if not isinstance(getattr(s, key), bool):
            raise ValueError(f"kubernetes.{key}: expected true or false, got {getattr(s, key)!r}")
    if s.dra_taint_effect not in ("NoSchedule", "NoExecute"):
        raise ValueError(f"kubernetes.dra_taint_effect: expected NoSchedule or NoExecute, got {s.dra_taint_effect!r}")
    if not s.taint_prefix.endswith("/"):
        raise ValueError(f"kubernetes.taint_prefix: expected a prefix ending in '/', got {s.taint_prefix!r}")
    return s


def _taint(i: int, t: Any, conditions: dict) -> TaintRule:
    where = f"kubernetes.taints[{i}]"
    if not isinstance(t, dict) or t.get("condition") not in conditions:
        raise ValueError(f"{where}.condition: expected one of {', '.join(conditions)}")
    effect = t.get("effect", "NoSchedule")
    if effect not in EFFECTS:
        raise ValueError(f"{where}.effect: expected one of {', '.join(EFFECTS)}, got {effect!r}")
    severity = t.get("min_severity", "warning")
    if severity not in SEVERITIES:
        raise ValueError(f"{where}.min_severity: expected one of {', '.join(SEVERITIES)}, got {severity!r}")
    unknown = set(t) - {"condition", "effect", "min_severity"}
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    return TaintRule(t["condition"], effect, severity)
