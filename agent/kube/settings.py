"""The `kubernetes:` block of the configuration: each key declared once (type, default, bounds, doc).

agent/keyspec converts and bounds-checks it with the rest of the configuration (agent/config.py); `check` adds what
spans keys (a taint names a configured condition)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Literal

from kubeapi.reserved import DNS_SUBDOMAIN, reserved_key
from parsers.kinds import CONDITIONS, TAINT_PREFIX

from ..keyspec import doc, num
from .desired import TaintRule, taint_key, taint_key_problem

MODES = ("enforce", "observe", "off")
REPAIR_PROFILES = ("off", "eks")  # condition profiles in agent/kube/repair.py
_CONFIGMAP = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-.a-z0-9]*[a-z0-9])?$")
DEFAULT_TAINTS = tuple(c.type for c in CONDITIONS if c.taint)  # the kind table's conditions tainted by default
# the kubelet's PodResources socket (agent/podresources.list_pods asks it); declared here, not with the client: the
# configuration is read at every start, the client only where pods' devices are asked
SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"


@dataclass(frozen=True)
class KubeSettings:
    kubeconfig: Annotated[str, doc('"": in-cluster config only; outside a pod the agent writes to no cluster '
                                  'unless this (or --kubeconfig) names a kubeconfig ($KUBECONFIG, ~/.kube/config: '
                                  'not read)')] = ""
    api_server: Annotated[str, doc("a plain URL with no credentials (tests, kubectl proxy)")] = ""
    heartbeat_seconds: Annotated[float, num("conditions rewritten this often (+-10% jitter) when nothing changes",
                                            ge=0)] = 300.0
    coalesce_seconds: Annotated[float, num("a burst of changes within this is one write", ge=0)] = 0.2
    qps: Annotated[float, num("client-side limit on API requests per second", gt=0)] = 5.0
    burst: Annotated[int, num("requests allowed at once above qps", ge=1)] = 10
    request_timeout_seconds: Annotated[float, num("an API request's timeout", ge=0)] = 10.0
    max_backoff_seconds: Annotated[float, num("failed writes retry with exponential backoff and jitter up to this",
                                              ge=0)] = 60.0
    taint_prefix: Annotated[str, doc("gpu-npd's taint keys are this prefix (a DNS subdomain and '/') + a taint "
                                     "rule's condition, its name after its own domain where it has one; no other "
                                     "taint, under the prefix or not, is ever touched",
                                     pattern=f"^{DNS_SUBDOMAIN}/$")] = TAINT_PREFIX
    taints: Annotated[tuple[TaintRule, ...], doc(
        "enforce mode only: {condition, effect, min_severity} each; effect NoSchedule unless set (NoExecute "
        "evicts); min_severity: taint only while the condition's worst problem is this severe; one rule per "
        "condition (its one taint key)")] = \
        field(default_factory=lambda: tuple(TaintRule(c) for c in DEFAULT_TAINTS))
    taint_hold_down_seconds: Annotated[float, num("a taint stays this long after its condition clears (no "
                                                  "flapping)", ge=0)] = 300.0
    event_burst: Annotated[int, num("Events: token bucket size; repeats of one problem update one Event's count",
                                    ge=0)] = 25
    events_per_minute: Annotated[float, num("Events: token bucket refill", ge=0)] = 12.0
    event_aggregate_seconds: Annotated[float, num("repeats within this update one Event", ge=0)] = 600.0
    budget_selector: Annotated[str, doc('the pool counted by the taint budget ("" = nodes with nvidia.com/gpu '
                                        'capacity)')] = "nvidia.com/gpu.present=true"
    max_tainted_fraction: Annotated[float, num("never taint when that would put more than this share of the pool "
                                               "...", gt=0, le=1)] = 0.1
    max_tainted_nodes: Annotated[int, num("... or more than this many nodes (0: no absolute cap) under gpu-npd "
                                          "taints", ge=0)] = 0
    taint_budget_configmap: Annotated[str, doc(
        "the ConfigMap ([namespace/]name; namespace: the agent's own) where every agent's grants of the node-taint "
        "budget are kept, written by compare-and-swap: no node is tainted without one")] = "gpu-npd-taint-budget"
    repair_profile: Annotated[Literal[REPAIR_PROFILES], doc(
        "off | eks: also write AcceleratedHardwareReady (True = healthy; False with a stable reason such as "
        "NvidiaXID79Error) for Karpenter / EKS node auto repair")] = "off"
    repair_annotation: Annotated[bool, doc("true: the recommended action and GPUs concerned as JSON in "
                                           "repair_annotation_key")] = False
    repair_annotation_key: Annotated[str, doc("the Node annotation of the repair hand-off")] = "gpu-npd.io/repair"
    do_not_repair_label: Annotated[str, doc("a Node with this label keeps the profile's condition True (reason "
                                            "RepairOptedOut); read at start and at every heartbeat")] = \
        "gpu-npd.io/do-not-repair"
    dra_device_taints: Annotated[bool, doc(
        "enforce: one DeviceTaintRule (resource.k8s.io) per faulty GPU instead of a node taint, where the cluster "
        "serves DeviceTaintRule and ResourceSlices name this node's GPUs (else said once; node taints stay the "
        "fallback). Counted against the budget in GPUs")] = False
    dra_driver: Annotated[str, doc("the DRA driver whose ResourceSlice devices are matched by uuid / "
                                   "pcieBusID")] = "gpu.nvidia.com"
    dra_budget_configmap: Annotated[str, doc(
        "the ConfigMap ([namespace/]name; namespace: the agent's own) where every agent's grants of the GPU budget "
        "are kept, written by compare-and-swap: no DeviceTaintRule is created without one")] = "gpu-npd-dra-budget"
    dra_taint_effect: Annotated[Literal["NoSchedule", "NoExecute"], doc(
        "NoExecute only when set (evicts pods using the GPU)")] = "NoSchedule"
    pod_fault_conditions: Annotated[bool, doc(
        "pods on a GPU with a fatal fault (Xid 79, 48, 95, NVLink ...) get the pod condition gpu-npd.io/GPUFault, "
        "which a Job podFailurePolicy / JobSet failurePolicy acts on (docs/pod-faults.md); enforce writes it, "
        "observe: Events only")] = False
    pod_resources_socket: Annotated[str, doc("the kubelet PodResources API: which pod holds which GPU")] = SOCKET


def check(s: KubeSettings, conditions: dict) -> None:
    """What spans keys, and the keys gpu-npd would write in others' domains (kubeapi/reserved.py); raises
    ValueError naming the key (kubernetes.<key>)."""
    for key in ("dra_budget_configmap", "taint_budget_configmap"):
        if not _CONFIGMAP.match(getattr(s, key)):
            raise ValueError(f"kubernetes.{key}: expected [namespace/]name, got {getattr(s, key)!r}")
    for key in ("taint_prefix", "repair_annotation_key"):
        why = reserved_key(getattr(s, key))
        if why is not None:
            raise ValueError(f"kubernetes.{key}: {why}; gpu-npd writes only keys of its own (e.g. gpu-npd.io/)")
    keys: dict[str, tuple[str, int]] = {}  # taint key -> the condition it is of, its rule's index
    for i, t in enumerate(s.taints):
        if t.condition not in conditions:
            raise ValueError(f"kubernetes.taints[{i}].condition: expected one of {', '.join(sorted(conditions))}, "
                             f"got {t.condition!r}")
        key = taint_key(s.taint_prefix, t.condition)
        if (why := taint_key_problem(key)) is not None:
            raise ValueError(f"kubernetes.taints[{i}].condition: {why}")
        other, j = keys.setdefault(key, (t.condition, i))
        if other != t.condition:
            raise ValueError(f"kubernetes.taints[{i}].condition: {t.condition!r} and {other!r} would share the "
                             f"taint key {key!r}; rename one")
        if j != i:  # one key, one taint: the last rule that held would be written over the other (wanted_taints)
            raise ValueError(f"kubernetes.taints[{i}].condition: {t.condition!r} has a taint rule already "
                             f"(kubernetes.taints[{j}]); one rule per condition: keep the one whose effect and "
                             "min_severity you want")
