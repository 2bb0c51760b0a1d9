"""The kind table: what gpu-npd knows about each finding kind, declared once.

One row per kind (the stable vocabulary: add kinds, never rename them).  Everything else derives from
these rows: `finding.KINDS`, the kinds that are about a PCI device (classify), the workload kinds and
their wording (correlate), a problem's subject and reason and what a lifecycle finding clears (agent/health),
Pod Event reasons (agent/workloads), the default `condition_rules` and `conditions` of the configuration, a
job's root category, its consequences, peer errors and node faults (triage), and the docs' kinds reference.  Xid reason names and the Xid lists come from the Xid catalog (catalog.py).

Iterate `TABLE` (Kind rows) and `CONDITIONS` (Condition rows); `condition_rules()` is the default
configuration's rule list built from the rows' `raises`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from .catalog import NVLINK_XIDS, REPEAT_WORKFLOW_XIDS, XID154_RECOVERY, XID_ACTION_CLEAR, XID_REENGAGES, xid_reason

# The vocabulary of a finding's fields (finding.py re-exports it).
SEVERITIES = ("info", "warning", "error", "fatal")
SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}
# The remediation ladder: higher is more drastic (a reboot resets the GPU too). Actions not listed (INVESTIGATE,
# UPDATE_SWFW, RESET_NIC, ..) are off it: no step of it does what they ask. The repair hand-off's worst action
# (agent/kube/repair.py, unknown actions at 1), and the action a joining line of a multi-line event raises its finding
# to (finding.above: both on the ladder, the line's higher; parsers/classify.py _fill).
ACTION_RANK = MappingProxyType({"NONE": 0, "IGNORE": 0, "RESTART_APP": 1, "CHECK_APP": 1, "RESET_GPU_WHEN_IDLE": 2,
                                "RESET_GPU": 2, "DRAIN_P2P": 2, "RESTART_VM": 3, "RESTART_BM": 3, "CHECK_CABLE": 4,
                                "CHECK_MECHANICALS": 4, "HARDWARE_INSPECTION": 4, "CONTACT_SUPPORT": 4, "REPLACE": 5})
ATTRIBUTIONS = ("hardware", "fabric", "driver", "application", "unknown")
# How a problem ends: a GPU reset or driver reload for that GPU (or a new boot) | a new boot only |
# warning_expire_seconds without a repeat (or a new boot) | the same port coming back up (or a new boot)
CLEAR_MODES = ("reset", "boot", "expire", "link_up")
# The Xid actions by how their problem ends (XID_ACTION_CLEAR), and of them the actions only a new boot answers (a
# reboot asked for, or what reboots did not fix): a problem with one clears at a boot where its rule says `reset`
# (agent/health.py; the Xid rules below split so by action)
_XID_BY_CLEAR = {mode: sorted(a for a, m in XID_ACTION_CLEAR.items() if m == mode) for mode in ("boot", "reset")}
BOOT_ACTIONS = frozenset(_XID_BY_CLEAR["boot"])
# what a finding is about -> the noun an operator uses for it (None: no device, the node or a workload)
DEVICES = MappingProxyType({"gpu": "GPU", "nvswitch": "NVSwitch", "nic": "NIC", "port": "port",
                            "pcie": "PCIe device"})
# Of those, the devices that are one PCI function each: a finding's address about one keeps the function where the line
# names one other than 0 (`0000:08:00.1`, a dual-port ConnectX's second port; `0000:00:1c.4`, one of a bridge's root
# ports), so that two functions of one device number are two devices (parsers/pci.py). A GPU is its device number
# (`0000:5d:00`, NVRM names no function): every table and map keys it so.
FUNCTION_DEVICES = frozenset(DEVICES) - {"gpu"}
# What a job's root cause of a kind is (triage); "by_attribution": the line's attribution decides (hardware and
# driver: hardware, fabric: fabric, application: application)
CATEGORIES = ("hardware", "fabric", "application", "infrastructure", "by_attribution")
# Which problems a lifecycle finding ends (Clears.scope): those on its own subject | on every GPU and NVSwitch
CLEAR_SCOPES = ("subject", "gpus")


@dataclass(frozen=True, slots=True)
class OomScope:
    """Whose memory an OOM kill says ran out (OOM_SCOPES)."""

    category: str  # a job's failure by such a kill (triage), one of CATEGORIES
    said: str  # what ran out, in an incident's reason


# Whose memory an OOM kill (kind oom_kill; a job's end for it, kind job_ended) says ran out: details "oom", set by
# the lines that tell (parsers/rules.py OOM_WORDS: the kernel's constraint and the words before "Kill(ed) process";
# triage.facts WHY_OOM: Slurm's step cgroup, a pod's OOMKilled).  "cgroup": a memory cgroup's own limit (the
# container's, the Slurm step's): the job used more memory than it asked for, the application's; the same job fails
# alike on any node.  "host": the node's memory as a whole (no cgroup limit reached; a cpuset's or NUMA policy's
# nodes): another tenant, a daemon's leak, or the job on a node without a limit; the node's, infrastructure.  A kill
# whose lines say neither (only "invoked oom-killer" or a bare "Killed process" survived, Ray's memory monitor) is the
# kind's category (oom_kill: infrastructure).  The kubelet's node-pressure eviction is no OOM kill (triage.facts
# POD_ENDS "Evicted": infrastructure).
OOM_SCOPES = MappingProxyType({
    "cgroup": OomScope("application", "its memory cgroup's limit, the container's or the step's: the job used more "
                       "memory than it asked for"),
    "host": OomScope("infrastructure", "the node's memory, no cgroup limit reached: another tenant, a daemon or the "
                     "job itself on a node without a limit"),
    # a CUDA OOM (kind cuda_oom) whose figures say one other process held most of the GPU's memory (parsers/rules.py
    # GPU_OOM_HELD): the GPU was not free when the job got it, the node's (unless ranks of the job report that GPU
    # together: triage/attribute.py `_gpu_shared`)
    "gpu_held": OomScope("infrastructure", "the GPU's memory held by other processes, not the job's: a process an "
                         "earlier job left behind or a second pod given the same GPU; find them on the node (`nvidia-smi "
                         "--query-compute-apps=pid,used_memory --format=csv`) and end them, or fix the GPU's sharing"),
})


@dataclass(frozen=True, slots=True)
class Clears:
    """A lifecycle kind: a finding of it that fits `match` (condition rule match keys: its `xid`, its details'
    `state`) ends the problems whose clear mode is `mode` (one of CLEAR_MODES) within `scope` and, where `ends` names
    some, only those whose fields (`kind`, `code`) equal them; and raises nothing."""
    mode: str
    scope: str = "subject"  # one of CLEAR_SCOPES
    match: Mapping[str, Any] = field(default_factory=dict)
    ends: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Raise:
    """One default condition rule of a kind: findings of it that `match` raise `condition` (config
    `condition_rules`, whose match keys these are, `kind` added)."""
    condition: str
    clear: str  # one of CLEAR_MODES
    match: Mapping[str, Any] = field(default_factory=dict)
    reason: str | None = None  # None: the kind's reason


@dataclass(frozen=True, slots=True)
class Repeated:
    """Findings of a kind that `match` (config `condition_rules` match keys) raise nothing alone: one program's
    fault. The same from `processes` different processes (pids) within `window_seconds`, sharing `by` (a finding's
    fields or details: one GPU's Xid of one code; () the node's), says the device or the node is at fault: they raise
    `condition` (clear `expire`, severity warning, action `action`) with `reason` ("<reason>" in it: the finding's own
    reason). Sightings alike in `same_process` (fields or details) less than `same_process_seconds` apart are one
    process: the kernel names each thread's id, and a process's threads fault together, in one address space (one
    process name and instruction pointer: another process's libraries lie elsewhere, ASLR). `named`: a detail the problem names with the pids (the library); `settings`: the configuration keys
    `<settings>_distinct_processes` and `<settings>_window_seconds` that set `processes` and `window_seconds`."""
    condition: str
    reason: str
    match: Mapping[str, Any]
    by: tuple[str, ...]
    processes: int
    window_seconds: float
    action: str = "RUN_DIAGNOSTICS"
    same_process: tuple[str, ...] = ()
    same_process_seconds: float = 0.0
    named: str | None = None
    settings: str | None = None
    # what counts as one source: "pid" (a process), or a detail the finding carries ("workload": the namespace and job
    # of the pod that said it, agent/pipeline.py; a finding without it, a node log's copy, counts nothing), counted in
    # `noun` ("processes", "workloads")
    distinct: str = "pid"
    noun: str = "processes"


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of finding (a row of TABLE) and what follows from it."""

    name: str
    wording: str  # how an operator says it ("GPU fallen off the bus")
    device: str | None  # a key of DEVICES: the finding is about that PCI device; None: the node / a workload
    severity: str  # a rule's severity for it unless the rule says otherwise (refined per line: Xid, AER, ...)
    attribution: str  # likewise: hardware | fabric | driver | application | unknown
    action: str  # likewise: the recommended action
    reason: str  # Event / condition reason; "<code>" in it: per code, from the catalogs (`reason_of`)
    raises: tuple[Raise, ...] = ()  # default condition rules, first match wins; () raises none
    workload: bool = False  # seen in a job's output (NCCL, CUDA): never a node problem, explained by one
    # workload kinds: why a node fault never causes it ("" : a node fault may have; running out of memory: never)
    never_the_node: str = ""
    doc: str = ""
    # what a job's failure of this kind is (triage): one of CATEGORIES; None: never a root by its kind alone
    category: str | None = None
    consequence: bool = False  # what a failure elsewhere makes a healthy rank print: never a job's root
    peer: bool = False  # names the remote peer whose failure it saw (the peer's address)
    fails_job: bool = False  # a failure of the job whatever the severity its rule gives (a warning for the node)
    # a job's first failure of this kind says a member cannot continue: cascading recovery restarts an opted-in gang
    # (cluster/recovery.py FATAL)
    restarts: bool = False
    teardown: bool = False  # what a process group's teardown prints: after the job said it succeeded, no failure
    # what a collective or barrier that never completed prints (triage.teardown HANG_KINDS: a statement of success made
    # before the final save cannot vouch for it)
    hang: bool = False
    # a rank's own watchdog report of a collective that timed out (triage.attribute TIMEOUT_KINDS: the consequences'
    # "N ranks timed out")
    timed_out: bool = False
    clears: tuple[Clears, ...] = ()  # a lifecycle kind: what a finding of it ends, each by its own match
    # a link-state kind (details' `state`): the states that are a fault (up clears; unused is no fault)
    fault_states: tuple[str, ...] = ()
    # of those, the states a port nobody cabled shows: reported early in a boot, the port never up since, no fault
    # (parsers/ports.py); a module the NIC reports in error (too hot, over its power budget, a bad or unsupported
    # cable) is in the cage, so its port is cabled and its error stays one
    unused_states: tuple[str, ...] = ()
    # a node problem of this kind whose text says no more than its reason is attributed so (triage reading a
    # node's Events and conditions, triage/conditions.py); None: the kind's attribution
    node_attribution: str | None = None
    # findings that raise nothing alone and whose repeat by several processes does (decided by it alone, the
    # condition rules not consulted)
    repeated: Repeated | None = None
    # the host is slow while it lasts, not broken: triage names it beside a lagging rank whose host logged it
    slows: bool = False
    # the node's daemon that may run in a pod and print this kind in its own log: (its container's name, what it is).
    # A finding of it in that container's log is the daemon's own word about this node (a node fault: a cause of the
    # node's jobs' failures, counted as the node's finding, the pod's Event saying so), not an application's failure
    # nor a container claiming a kernel line (agent/workloads.py)
    daemon_pod: tuple[str, str] | None = None
    # the severities at which a finding of it is a parsers' catch-all (any NCCL WARN, PyTorch's watchdog lines): a job
    # fact about the same line says more (the work sequence numbers, the hang) and is read in its place (triage.read
    # `generic`, agent/sources/podlogs.py)
    generic: tuple[str, ...] = ()
    # how a line of it is named in a job's reason and in its pod's Event where `wording` says too little (`named_as`;
    # triage.attribute `named`, parsers/correlate.py `what_of`): a template of the evidence's fields (`{xid}`), its
    # details (`{details.cuda_error}`), triage's derived words (triage.attribute NAMED_WORDS: `{oom_scope}`);
    # `{name|default}` where the value may be missing; "": `wording`. A tuple: alternatives for the kind's rules whose
    # lines say different things (their named groups), the first whose every field the line has, none: `wording`
    named: str | tuple[str, ...] = ""
    # a workload kind whose line is the job's own report of a fault of the node it ran on (its host's): it says which
    # node is broken, whatever the application did after (triage.attribute JOB_SEEN_NODE_FAULTS, cluster/evidence.py)
    reports_node_fault: bool = False
    # a workload kind whose line is the node's fault only where the pod that printed it holds GPUs (the kubelet's
    # PodResources answer): a pod given no GPU prints it on a healthy node. In a pod that holds some, the pod's Event
    # names the node's container runtime and the kind's `repeated` row counts its workloads (agent/pipeline.py); in
    # one that holds none, or whose devices are unknown, it is counted only
    pod_holds_gpus: bool = False
    # a `pod_holds_gpus` kind's words for the pod's Event (agent/workloads.py `gpu_access`): what happened to a pod that
    # holds GPUs, and what to check when pods of `repeated`'s workloads say it on the node
    in_gpu_pod: tuple[str, str] = ()
    # a `pod_holds_gpus` kind's reading of another kind's findings: (that kind, the start of its `details.driver_error`).
    # In the log of a pod the kubelet says holds GPUs, while the agent's own NVML on the host answers for each of them,
    # such a finding is this kind's (the container lost its devices, the node's driver is fine: agent/pipeline.py
    # `_holds_gpus`); on the host, in a pod without GPUs or whose devices are unknown, while the host's NVML fails (or
    # is off), and offline (no host NVML to ask), it stays the other kind's
    takes: tuple[tuple[str, str], ...] = ()
    # a node's finding of it, warning or worse, that raises no problem (no condition rule for it) is a Node Event of its
    # reason (agent/health.py `_notice`: at most one per reason and device every `notice_seconds`); a severity here: only
    # from that one up, where its lesser findings are printed on healthy machines (counted and logged only)
    node_event: str = ""

    @property
    def correlated(self) -> bool:
        """A workload kind a node fault may have caused."""
        return self.workload and not self.never_the_node

    @property
    def floor(self) -> str | None:
        """The least severity at which a finding of this kind raises a condition by default (None: never;
        "info": any finding of it, as far as severity goes)."""
        if not self.raises:
            return None
        return SEVERITIES[min(min((SEVERITY_RANK[s] for s in _severities(r)), default=0) for r in self.raises)]

    @property
    def conditions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.condition for r in self.raises))

    def raised_at(self, severity: str) -> str | None:
        """The condition a finding of this kind at `severity` raises by default (None: none), where its rules ask no
        more than the severity: a telemetry row naming this kind takes it (parsers/telemetry.py), so that a reading
        and a log line of one kind and severity raise one condition. ValueError where a rule before the one that
        matches asks more (an Xid's action, a link's state): such a row names its condition itself."""
        for r in self.raises:
            if set(r.match) - {"severity"}:
                raise ValueError(f"kind {self.name}: its condition rules ask more than a severity "
                                 f"({', '.join(sorted(r.match))})")
            if severity in _severities(r):
                return r.condition
        return None


def _severities(r: Raise) -> tuple[str, ...]:
    """The severities a condition rule's match takes (every one where it names none)."""
    want = r.match.get("severity")
    return SEVERITIES if want is None else tuple(want) if isinstance(want, (list, tuple)) else (want,)


@dataclass(frozen=True, slots=True)
class Condition:
    """A NodeCondition gpu-npd owns (problem style: True means a problem) and what it says while healthy."""
    type: str
    ok_reason: str
    ok_message: str
    doc: str = ""
    taint: bool = False  # tainted by default (kubernetes.taints): the node's pods cannot use what it says is broken
    # while it stands, a job on the node can break: triage takes it as a node fault this severe; None: it is not one
    fault: str | None = None


_NOT_APP = MappingProxyType({"not_attribution": "application"})
_LINK_DOWN = ("down", "module_error")
_UNCABLED = ("down",)  # down or its cable unplugged (IB_LINK_STATE's normalised state)


def _workloads_on_node(condition: str, reason: str, action: str) -> Repeated:
    """A `pod_holds_gpus` kind's repeat: pods of two workloads within 10 minutes on one node saying it are the node's
    (its GPUs or its driver stack), not one program's."""
    return Repeated(condition, reason, {}, (), 2, 600.0, action=action, distinct="workload", noun="workloads")

# gpu-npd's taint keys: this prefix + a condition's name ("gpu-npd.io/GPUUnhealthy"; agent/kube/desired.py taint_key);
# the agent's default (agent/kube/settings.py taint_prefix) and what triage reads as gpu-npd's own NoExecute taint
# (triage/facts.py pod_end)
TAINT_PREFIX = "gpu-npd.io/"

CONDITIONS: tuple[Condition, ...] = (
    Condition("GPUUnhealthy", "GPUIsHealthy", "no fatal GPU fault", "a GPU is lost or needs a reset or a reboot",
              taint=True, fault="fatal"),
    Condition("GPUDegraded", "GPUNotDegraded", "no GPU warning", "a GPU works with a fault worth watching"),
    Condition("NVLinkUnhealthy", "NVLinkIsHealthy", "no NVLink fault", "an NVLink or NVSwitch fault",
              taint=True, fault="error"),
    Condition("InfiniBandUnhealthy", "InfiniBandIsHealthy", "no InfiniBand/RoCE port or NIC fault",
              "an InfiniBand / RoCE port down or a NIC failed", taint=True, fault="error"),
    Condition("GPUDriverDegraded", "GPUDriverIsHealthy", "no repeated GPU driver library crash",
              "the GPU driver's user-space library (libcuda, libnvidia-*) crashed in several processes: the node's "
              "driver stack is suspect (a mismatched or corrupt libcuda, a wedged driver)"),
    Condition("PCIeUnhealthy", "PCIeIsHealthy", "no uncorrected PCIe error",
              "an uncorrected PCIe (AER) error, a GPU's replay rate or an RDMA NIC's link trained below its ends",
              fault="error"),
    # the host around the GPUs (no taint by default)
    Condition("KernelDegraded", "KernelIsHealthy",
              "no CPU lockup, RCU stall, unstable clocksource, network device stuck unregistering or full file "
              "table",
              "a CPU lockup, an RCU stall, the clocksource marked unstable, a network device the kernel cannot "
              "unregister or the system-wide file table full"),
    Condition("HostMemoryUnhealthy", "HostMemoryIsHealthy", "no uncorrected host memory error",
              "an uncorrected host memory error"),
    Condition("StorageUnhealthy", "StorageIsHealthy", "no NFS, filesystem or NVMe fault",
              "an NFS server not responding, a filesystem error, a parallel filesystem client evicted (or its node "
              "out of the cluster), a kernel oops in a storage client module or an NVMe controller reset or removed"),
)

# Written by fabric-check (its own service account), not by the agent: `gpu-npd cleanup` removes it too.
FABRIC_CONDITION = "FabricCheckFailed"

TABLE: tuple[Kind, ...] = (
    Kind("xid", "Xid", "gpu", "error", "unknown", "INVESTIGATE", "Xid<code><Name>", (
        Raise("NVLinkUnhealthy", "reset", {"xid": sorted(NVLINK_XIDS), "severity": ["error", "fatal"], **_NOT_APP}),
        Raise("GPUUnhealthy", "boot", {"action": _XID_BY_CLEAR["boot"], **_NOT_APP}),
        Raise("GPUUnhealthy", "reset", {"action": _XID_BY_CLEAR["reset"], "severity": "fatal", **_NOT_APP}),
        Raise("GPUDegraded", "expire", {"severity": ["warning", "error"], **_NOT_APP}),
    ), doc="an NVRM Xid: severity, attribution and action from NVIDIA's Xid catalog; an application Xid 13 or 31 "
           "repeated by several processes on one GPU, and on it alone, raises GPUDegraded (its reason + Repeated)",
       category="by_attribution", node_attribution="hardware",  # application Xids raise no node condition alone
       # NVIDIA's guidance for 13/31 (REPEAT_WORKFLOW_XIDS): the same one on one GPU from different processes points at
       # the GPU; the other application Xids (43: the GPU stays healthy; 45: a killed process) never do
       repeated=Repeated("GPUDegraded", "<reason>Repeated",
                         {"attribution": "application", "xid": sorted(REPEAT_WORKFLOW_XIDS)}, ("pci", "xid"), 3,
                         3600.0, settings="app_xid"), restarts=True,
       # power smoothing reengaged (162) ends its GPU's disengaged (163) problem, a warning that would expire; Xid 154
       # going back to None (XID154_RECOVERY's "none") ends its GPU's earlier 154's problem: the driver recomputes the
       # action from the GPU's live state and logs 154 on a change (open-gpu-kernel-modules 595.45.04 gpu.c
       # _gpuRefreshRecoveryActionInLock), so None is its word that no reset, reboot or drain is pending any more
       clears=(Clears("expire", match={"xid": XID_REENGAGES[0]}, ends={"kind": "xid", "code": XID_REENGAGES[1]}),
               Clears("reset", match={"xid": 154, "action": XID154_RECOVERY["none"][1]},
                      ends={"kind": "xid", "code": 154})), named="Xid {xid}"),
    Kind("sxid", "SXid", "nvswitch", "error", "fabric", "INVESTIGATE", "SXid<code>", (
        Raise("NVLinkUnhealthy", "reset", {"severity": "fatal"}),
    ), doc="an NVSwitch SXid (kernel or Fabric Manager log), fatal or not from the SXid tables", category="fabric",
        named="SXid {sxid}"),
    Kind("fallen_off_bus", "GPU fallen off the bus", "gpu", "fatal", "hardware", "RESTART_BM", "GPUFallenOffBus", (
        Raise("GPUUnhealthy", "boot"),
    ), doc="the GPU no longer answers on the PCI bus", category="hardware"),
    Kind("gpu_reset", "GPU reset", "gpu", "info", "driver", "NONE", "GpuReset",
         doc="a GPU was reset: clears that GPU's problems that a reset ends", clears=(Clears("reset"),)),
    # by severity, as the Xid row's NVLink Xids: an error or a fatal one (a training failure, Fabric Manager's Fatal
    # GPU NVL error or its abort) takes the links out until a reset; a warning (Fabric Manager's Non Fatal GPU NVL
    # error, a trunk port's failure: corrected, or the fabric running on its other links) degrades the GPU until it
    # stops repeating, no taint, as sxid's non-fatal ones raise no NVLinkUnhealthy
    Kind("nvlink", "NVLink error", "gpu", "error", "hardware", "CONTACT_SUPPORT", "NVLinkError", (
        Raise("NVLinkUnhealthy", "reset", {"severity": ["error", "fatal"]}),
        Raise("GPUDegraded", "expire", {"severity": "warning"}),
    ), doc="an NVLink failure the driver or Fabric Manager reports outside an Xid; a warning (Fabric Manager's Non "
           "Fatal GPU NVL error, a trunk port's failure) raises GPUDegraded until it stops repeating",
       category="hardware"),
    # the NVLink fabric's word on a GPU (nvmlDeviceGetGpuFabricInfoV): its registration completed with an error status,
    # or the fabric's health summary Unhealthy, takes its NVLinks out (NVLinkUnhealthy, an error) until a reset
    # re-registers it; Limited Capacity and the health mask's degraded bandwidth or recoveries under way degrade the
    # GPU (GPUDegraded, a warning). The telemetry rows reading it (parsers/sample_rules.yaml, `kind: nvlink_fabric`)
    # take their condition from here, as nvidia-smi -q's Fabric block pasted beside a failed job does (parsers/rules.py
    # "nvsmi_fabric_fault"): one place for what either raises
    Kind("nvlink_fabric", "NVLink fabric fault", "gpu", "error", "fabric", "CHECK_FABRIC_MANAGER", "FabricUnhealthy", (
        Raise("NVLinkUnhealthy", "reset", {"severity": ["error", "fatal"]}),
        Raise("GPUDegraded", "expire", {"severity": "warning"}),
    ), doc="the NVLink fabric's state of a GPU (NVML's fabric info, nvidia-smi -q's Fabric block): registration "
           "completed with an error status or health Unhealthy an error (NVLinkUnhealthy), Limited Capacity a "
           "warning (GPUDegraded); registration in progress is no fault", category="fabric"),
    # corrected AER (warnings) make no Node Event (`node_event`), as corrected memory errors (memory_error): routine on
    # many GPU and NIC links and DIMMs, a rate to watch in the metrics, not an Event per device every 10 minutes
    Kind("pcie_aer", "PCIe AER error", "pcie", "error", "hardware", "INVESTIGATE", "PCIeAERError", (
        Raise("PCIeUnhealthy", "boot", {"severity": "fatal"}, reason="PCIeFatalError"),
        Raise("PCIeUnhealthy", "expire", {"severity": "error"}, reason="PCIeUncorrectedError"),
    ), doc="a PCIe Advanced Error Reporting event, a Downstream Port Containment or a downstream link the port "
           "could not retrain (one per multi-line event); corrected ones are warnings; a link trained below its "
           "device's capability a warning or an info record", category="hardware", node_event="error"),
    # no condition: the device's own failure (a GPU's Xid 31, a NIC's completion errors) says what broke, and boot-time
    # faults of firmware (an integrated GPU's, an NVMe drive's) are common on healthy machines; a storm a warning (no
    # Node Event either, `node_event`: an SMMU's failing command queue, an error, is one)
    Kind("iommu_fault", "IOMMU fault", "pcie", "warning", "unknown", "INVESTIGATE", "IOMMUFault", node_event="error",
         doc="the IOMMU blocked a device's DMA (AMD-Vi `IO_PAGE_FAULT` and its other logged events, Intel VT-d "
             "`DMAR: [DMA Read/Write ..] Request device [..] fault addr ..`): one event per device while they repeat; "
             "an Arm SMMUv3's failing command queue (`CMD_SYNC timeout`, `CMDQ error`) an error"),
    Kind("ib_link", "link down", "port", "error", "fabric", "CHECK_LINK", "IBPortDown", (
        Raise("InfiniBandUnhealthy", "link_up", {"state": list(_LINK_DOWN)}),
    ), doc="an InfiniBand / RoCE port's link or cable state; up clears the port's problem", category="fabric",
         clears=(Clears("link_up", match={"state": "up"}),), fault_states=_LINK_DOWN,
         unused_states=_UNCABLED, named="IB link down"),
    Kind("nic_error", "NIC error", "nic", "error", "hardware", "INVESTIGATE", "NICError", (
        Raise("InfiniBandUnhealthy", "boot", {"severity": "fatal"}, reason="NICFirmwareError"),
    ), doc="a Mellanox NIC failure (firmware health, command failures, TX timeouts, power), a kernel RDMA work "
           "request the ConnectX completed in error (a warning), an AWS EFA device whose admin queue failed, an AWS "
           "ENA device its driver reset (a warning)", category="fabric"),
    # named by what its rules' groups say (parsers/rules.py): the completion's status in ibv_wc_status_str's words and
    # its number (`wc_status`: NCCL's "status=12", UCX's words or mlx5 syndrome), the adapter's async event
    # (`event`: "port error"), libfabric's error (aws-ofi-nccl's `error`: "2 (UNDELIVERABLE)"); else its wording
    Kind("ib_completion_error", "NET/IB completion error", None, "error", "fabric", "CHECK_FABRIC",
         "NCCLIBCompletionError", workload=True, doc="NCCL's NET/IB transport got a failed work completion",
         category="fabric", consequence=True, peer=True,
         named=("NET/IB completion error '{wc_words}' (status {wc_number})", "IB async event '{details.event}'",
                "NET/OFI completion error '{details.error}'")),
    Kind("nccl_timeout", "NCCL watchdog timeout", None, "error", "unknown", "FIND_FIRST_FAILING_RANK",
         "NCCLWatchdogTimeout", workload=True, doc="PyTorch's NCCL watchdog gave up on a collective",
         consequence=True, teardown=True, hang=True, timed_out=True,
         generic=SEVERITIES),
    Kind("nccl_remote_error", "NCCL remote error", None, "error", "unknown", "FIND_FIRST_FAILING_RANK",
         "NCCLRemoteError", workload=True, doc="a peer rank's process or connection went away",
         consequence=True, peer=True, teardown=True),
    # JAX's multi-process runtime (jax.distributed, XLA's coordination service) on a task: a failure elsewhere in the
    # job (a task died, stopped its heartbeats, or the leader went away) or this task's own link to the service; no
    # NCCL in it, and no peer's address (parsers/rules.py jax_fatal_errors)
    Kind("coordination_error", "JAX coordination service error", None, "error", "unknown", "FIND_FIRST_FAILING_RANK",
         "JAXCoordinationError", workload=True, doc="JAX's coordination service reported the job's failure to a task "
         "(another task died or was lost, or this task could not reach the service)", consequence=True, teardown=True,
         # the absl::Status the line quotes (jax_fatal_errors' `status`, `status_text`), as it prints it
         named=("JAX coordination service error '{details.status}: {details.status_text}'",
                "JAX coordination service error '{details.status}'")),
    # named by what its rule's groups say (parsers/rules.py): NCCL's init finding two ranks on one GPU
    # (nccl_duplicate_gpu's `other_rank`, the writer the line's rank; 2.30+'s words, naming no rank, `shared_gpu`),
    # the error NCCL's exception or WARN states
    # (`nccl_text`: "unhandled cuda error"), NVSHMEM's own failure under DeepEP (`nvshmem_error`), NIXL's
    # status (`nixl_status`: "NIXL_ERR_BACKEND"); else "NCCL error"
    Kind("nccl_error", "NCCL error", None, "error", "unknown", "INVESTIGATE", "NCCLError", workload=True,
         doc="an NCCL call failed (system, internal, CUDA, usage errors)", category="by_attribution",
         consequence=True, restarts=True, teardown=True, generic=("warning",),
         named=("two ranks on one GPU (NCCL found rank {details.other_rank} on this rank's device)",
                "ranks sharing one GPU (NCCL: '{details.shared_gpu}')", "NCCL error '{details.nccl_text}'",
                "NVSHMEM error '{details.nvshmem_error}'", "NIXL error '{details.nixl_status}'")),
    # NCCL's shared-memory transport out of room in /dev/shm (parsers/rules.py nccl_shm_full): the container's /dev/shm
    # too small (the runtime's 64 MB default, Docker's --shm-size, where the pod mounts no memory-backed emptyDir there)
    # or full of segments other processes left in it (a pod that shares the host's IPC namespace, a bare-metal node).
    # Neither the GPU nor the program's code: the same job runs once /dev/shm is large enough (NVIDIA/nccl #342, #525;
    # pytorch/ci-infra #490 mounted a 2Gi emptyDir). Who fixes it is whoever owns the pod's template and the nodes'
    # runtime, so a job's root of it is infrastructure (triage; as a pids or open-files limit, triage.facts
    # resource_limit), and no node condition: attribution application (no device of the node is at fault). This row
    # is the one reading of the failure: triage names and categorises a storage error on /dev/shm by it too
    # (triage.attribute SHM_STORAGE).
    Kind("shm_full", "/dev/shm too small or full", None, "error", "application", "CHECK_APP", "SharedMemoryFull",
         workload=True, never_the_node="the pod's /dev/shm is too small or full (not a node fault): mount an emptyDir "
         "with medium Memory and a sizeLimit at /dev/shm in the pod's spec (the runtime's default is 64 MB), or, where "
         "the pod shares the host's IPC namespace, remove the stale /dev/shm/nccl-* segments other jobs left",
         doc="NCCL could not size its shared-memory segment in /dev/shm for want of space (`posix_fallocate failed : "
             "No space left on device`, `failed to extend /dev/shm/nccl-.. to N bytes`): the pod's /dev/shm too small "
             "(no memory-backed emptyDir there) or full",
         category="infrastructure", restarts=True),
    Kind("cuda_error", "CUDA error", None, "error", "unknown", "INVESTIGATE", "CUDAError", workload=True,
         doc="a CUDA runtime error a job printed (reason refined by the error: CUDAIllegalAddress, ...)",
         category="by_attribution", restarts=True, named="CUDA error '{details.cuda_error|}'"),
    # A training framework's own straggler report: the job compared its ranks' speed and names the slow ones, and
    # where it says, their node (nvidia-resiliency-ext's verdict as NeMo and Megatron-Bridge print it, Megatron-LM's
    # StragglerDetector's slowest rank past STRAGGLER_RTT_RATIO: parsers/rules.py "straggler_*"). A warning, never a
    # job's root nor a node condition: a straggler is as often the job's data, its placement or a noisy neighbour as
    # the GPU the rank runs on. The node named is the one to compare with its peers (docs/hangs.md).
    Kind("straggler_report", "straggler reported by the job", None, "warning", "unknown", "INVESTIGATE",
         "StragglerReported", workload=True,
         doc="a training framework's own straggler report naming the slow ranks and, where it says, their nodes "
             "(nvidia-resiliency-ext's `STRAGGLER DETECTION WARNING` as NeMo and Megatron-Bridge print it, Megatron-LM's "
             "StragglerDetector's slowest rank far behind its fastest): a warning, the node named the one to look at",
         named="straggler reported by the job: {details.stragglers|ranks not named}"),
    Kind("cuda_oom", "CUDA out of memory", None, "error", "application", "RESTART_APP", "CUDAOutOfMemory",
         workload=True, never_the_node="the application ran out of GPU memory (not a node fault)",
         doc="the job ran out of GPU memory: its own doing, not the node's, unless PyTorch's figures say one other "
             "process held more than half of the GPU's memory and more than the rank itself (details `oom` "
             "`gpu_held`, action `CHECK_GPU_PROCESSES`): a leftover process or a shared GPU, infrastructure; "
             "several ranks of the job out of memory on one GPU share it, the application's",
         category="application",
         named=("CUDA out of memory: {details.held_gib} of the GPU's {details.total_gib} GiB held by other processes "
                "({details.held_by}), the rank's own {details.own_gib} GiB",)),
    # The job's own words for a node whose GPU driver stack cannot serve it at all, at the job's start: NVML's
    # "Failed to initialize NVML: Driver/library version mismatch" (the kernel module and the user-space driver of
    # different releases, an upgrade without its reload: the node's driver_mismatch seen from the job), the container
    # runtime's "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch", PyTorch's
    # "The NVIDIA driver on your system is too old (found version 11040)", CUDA's "CUDA driver version is insufficient
    # for CUDA runtime version" (35), "system has unsupported display driver / cuda driver combination" (803),
    # "forward compatibility was attempted on non supported HW" (804), "system not yet initialized" (802: Fabric
    # Manager not running on an NVSwitch node), PyTorch's "CUDA unknown error - this may be due to an incorrectly set
    # up environment" (cuInit's 999), and the node's container runtime refusing the pod its GPUs before it runs (the
    # NVIDIA runtime hook's "nvidia-container-cli: initialization error: ..", CDI's "unresolvable CDI devices", no
    # "nvidia" runtime handler: the pod's status and the kubelet's Event, parsers/rules.py "container_cli_error" and
    # after it). The node's software stack, not the program: category infrastructure.
    Kind("driver_unusable", "GPU driver unusable", None, "error", "driver", "CHECK_DRIVER", "GPUDriverUnusable",
         workload=True, doc="a job could not use the node's GPU driver at start: NVML or CUDA refused to initialise "
                            "(user-space driver and kernel module of different releases, a driver too old for the "
                            "job's CUDA, forward compatibility on a GPU without it, Fabric Manager not running, NVLink "
                            "SHARP multicast its Fabric Manager / NVSwitches cannot serve), or "
                            "the node's container runtime could not give its pod the GPUs (the NVIDIA runtime hook "
                            "failing, a CDI device unresolvable, no nvidia runtime handler)",
         category="infrastructure", named="GPU driver unusable ('{details.driver_error|}')",
         reports_node_fault=True),
    # A container that holds GPUs and cannot see them, while the node's GPUs are fine: PyTorch's "RuntimeError: No CUDA
    # GPUs are available" (cudaGetDeviceCount found none: CUDA_VISIBLE_DEVICES names no device the container has),
    # "CUDA driver initialization failed, you might not have a CUDA gpu" (cuInit refused: the device nodes not
    # openable), the NGC images' "WARNING: The NVIDIA Driver was not detected." (their entrypoint found no driver in
    # the container). On a node whose systemd reloads its units with the systemd cgroup driver, the container's device
    # cgroup is rewritten without the NVIDIA devices runc added (NVIDIA/nvidia-container-toolkit #48, #251; NVIDIA/
    # nvidia-docker #1671): every GPU container started before the reload loses its GPUs, the host's NVML still
    # answers. A pod given no GPU prints the same words on a healthy node, so offline (and in such a pod) the line is
    # counted only (category None: no job's root); in a pod the kubelet says holds GPUs it is the node's container
    # runtime: the pod's Event advises restarting it, and pods of two workloads within 10 minutes raise
    # GPUDriverDegraded (the toolkit's or the cgroup driver's configuration: the daemon-reload issue). The CUDA status
    # no device (cudaErrorNoDevice) is this kind in every framework's words (rules.CUDA_ERRORS); busy or unavailable
    # (46) is gpu_busy below.
    Kind("gpu_access_lost", "GPUs not visible in the pod", None, "warning", "driver", "RESTART_APP",
         "PodGPUAccessLost", workload=True, pod_holds_gpus=True, fails_job=True,
         in_gpu_pod=("the node's container runtime lost the pod's GPU devices (not the GPU: the node's NVML still "
                     "answers them)",
                     "the NVIDIA container toolkit's and the cgroup driver's configuration (a systemd daemon-reload "
                     "with the systemd cgroup driver removes the GPU devices from running containers)"),
         # NVML's and nvidia-smi's words in such a container (NVIDIA/nvidia-docker #1671, NVIDIA/nvidia-container-
         # toolkit #48, #251: `nvidia-smi` in the container fails, the host's lists its GPUs)
         takes=(("driver_unusable", "Failed to initialize NVML: Unknown Error"),
                ("driver_unusable", "NVIDIA-SMI has failed because it couldn")),
         doc="a pod's process found no GPU, could not open the driver or was refused its GPUs (`No CUDA GPUs are "
             "available`, `CUDA driver initialization failed, you might not have a CUDA gpu`, the CUDA runtime's `no "
             "CUDA-capable device is detected` in any framework's words, `The NVIDIA Driver was not detected`): in a "
             "pod the kubelet says holds GPUs, the node's container runtime took them away (a systemd daemon-reload "
             "with the systemd cgroup driver); pods of two workloads within 10 minutes raise GPUDriverDegraded; in a "
             "pod without GPUs, or whose devices are unknown, counted only",
         repeated=_workloads_on_node("GPUDriverDegraded", "PodGPUAccessLostRepeated", "CHECK_DRIVER")),
    # A pod's process that found its GPU and was refused a context on it: the CUDA status busy or unavailable
    # (cudaErrorDevicesUnavailable, 46; CUDA_ERROR_DEVICE_UNAVAILABLE) in every framework's words (rules.CUDA_BUSY,
    # CUDA_ERRORS). The container runtime never decides it (it grants device nodes only): another process holds the GPU
    # in exclusive-process compute mode (one an earlier pod left behind, another process of this pod, the device
    # plugin's MPS server refusing it) or the GPU's compute mode is Prohibited; a GPU the driver wants reset refuses it
    # too, and the kernel log says so in its own finding (kubernetes-sigs/dra-driver-nvidia-gpu #982). Restarting the
    # pod on the same GPU fails again while that process lives, and the driver is not at fault: the action is to find
    # the process on the GPU (its compute mode and compute processes, NVML's or nvidia-smi's) and end it, or set the
    # compute mode back (were: gpu_access_lost, RESTART_APP; its repeat GPUDriverDegraded, CHECK_DRIVER). Pods of two
    # workloads within 10 minutes say a GPU of the node is held: GPUDegraded (a GPU works with a fault worth watching),
    # not the driver. In a pod without GPUs (one reaching for the node's GPUs, NVIDIA_VISIBLE_DEVICES=all), counted
    # only.
    Kind("gpu_busy", "GPU busy or unavailable to the pod", None, "warning", "driver", "CHECK_GPU_PROCESSES",
         "PodGPUBusy", workload=True, pod_holds_gpus=True, fails_job=True,
         in_gpu_pod=("the GPU refused it a context: another process holds the GPU in exclusive-process compute mode "
                     "(one an earlier pod left behind, another process of this pod, an MPS server that refused it) or "
                     "the GPU's compute mode is Prohibited",
                     "each GPU's compute mode (`nvidia-smi -q -d COMPUTE`) and the processes on it (`nvidia-smi "
                     "--query-compute-apps=pid,process_name --format=csv` on the host): a process no running pod "
                     "owns keeps the GPU until it is killed, and a restarted pod given that GPU fails again"),
         doc="a pod's process was refused a context on its GPU (the CUDA status busy or unavailable, 46: "
             "`CUDA-capable device(s) is/are busy or unavailable`, `all CUDA-capable devices are busy or "
             "unavailable`, `cudaErrorDevicesUnavailable`, `CUDA_ERROR_DEVICE_UNAVAILABLE`, in any framework's "
             "words): in a pod the kubelet says holds GPUs, another process holds the GPU in exclusive-process "
             "compute mode or its compute mode is Prohibited; action `CHECK_GPU_PROCESSES` (the Event says to check "
             "the compute mode and the processes on the GPU); pods of two workloads within 10 minutes raise "
             "GPUDegraded; in a pod without GPUs, or whose devices are unknown, counted only",
         repeated=_workloads_on_node("GPUDegraded", "PodGPUBusyRepeated", "CHECK_GPU_PROCESSES")),
    # A process's own crash as the kernel reports it (a segfault, a general protection fault, an invalid opcode): the
    # program, not the node. Its library says whose code crashed (details "stack": driver for the GPU driver's user-space
    # libraries, libcuda / libnvidia-*: attribution driver; nccl, pytorch, else none: the application's). No condition
    # and no category of its own: triage reads it as explaining a rank's death by the signal it names (its pid or
    # process name), whose the library says. The GPU driver's library crashing in several processes (different pids,
    # threads of one process faulting together counted once) within minutes says the node's driver stack is broken
    # (a libcuda of another release than the kernel module, a corrupt install, a wedged driver): GPUDriverDegraded,
    # a warning that expires, no taint.
    Kind("process_crash", "process crash", None, "warning", "application", "INVESTIGATE", "ProcessCrash",
         doc="a user-space process crashed (the kernel's `segfault at`, `traps: .. general protection fault`, `trap "
             "invalid opcode` line): its pid, process and the library it crashed in; attribution driver when that is "
             "the GPU driver's user-space library (libcuda, libnvidia-*); that crashing in several processes within "
             "minutes raises GPUDriverDegraded",
         repeated=Repeated("GPUDriverDegraded", "GPUDriverLibraryCrashRepeated", {"attribution": "driver"}, (), 3,
                           600.0, action="CHECK_DRIVER", same_process=("process", "ip"), same_process_seconds=2.0,
                           named="library"),
         named="{details.process|a process}:{pid} crashed (signal {details.signal}) in {details.library|its own code}"),
    Kind("hung_task", "hung task", None, "warning", "unknown", "INVESTIGATE", "HungTask",
         doc="the kernel's hung task detector: a task blocked for minutes", category="infrastructure"),
    # the pids cgroup's own word that it refused a fork or clone (the limit on a pod's or a unit's tasks: the kubelet's
    # podPidsLimit, a runtime's --pids-limit, systemd's TasksMax): a process of that cgroup was refused a thread or a
    # process, which it may retry or die of (triage's resource_limit, its own words of the same refusal)
    Kind("pids_limit", "pids limit reached", None, "warning", "application", "INVESTIGATE", "PidsLimitReached",
         doc="the kernel's pids controller refused a fork or clone in the cgroup it names (details `cgroup`): a "
             "process there was refused a thread or a process by its pod's or unit's pids limit",
         category="infrastructure"),
    Kind("oom_kill", "OOM kill", None, "warning", "application", "RESTART_APP", "OomKill",
         doc="the kernel's OOM killer killed a process; details `oom` says whose memory ran out where its lines "
             "tell (`cgroup`: a container's or step's own limit, the job's; `host`: the node's)",
         category="infrastructure", fails_job=True, named="OOM kill{oom_scope}"),
    Kind("gpu_reset_required", "GPU reset required", "gpu", "fatal", "driver", "RESET_GPU", "GPUResetRequired", (
        Raise("GPUUnhealthy", "reset"),
    ), doc="the driver refuses the GPU work until it is reset: NVRM assertion NV_ERR_RESET_REQUIRED, or its "
           "initialisation failed (RmInitAdapter failed); UVM's global fatal error, every GPU's until the node reboots",
       category="hardware"),
    # `dcgmi diag`'s table as saved or pasted beside a node's logs (parsers/rules.py dcgm_diag_*): a test's Fail on a
    # GPU. A diag run once, not a log that repeats: no taint (a failure can be the run's own, another process holding
    # the GPU, go-dcgm #52); the agent's own dcgm check is what raises DCGMDiagFailed. A Warn (thermal violations) is
    # a warning and raises nothing.
    Kind("dcgm_diag", "DCGM diagnostic failure", "gpu", "error", "hardware", "INVESTIGATE", "DCGMDiagFailed", (
        Raise("GPUDegraded", "expire", {"severity": ["error", "fatal"]}),
    ), doc="`dcgmi diag` output saved with a node's logs: a test (its `test` detail, the test's row's) failed "
           "(an error, GPUDegraded) or warned (a warning, nothing raised) on a GPU (`gpu`: its index; `all GPUs` "
           "for 2.x/3.x's `Fail - All`); a `Pass` row is silent. DCGM's health watches too: `dcgmi health -c`'s "
           "report (a GPU's `Failure` an error, `Warning` a warning; `test` the system, `PCIe`, `NVLINK`, `Memory` "
           "..) and nv-hostengine's log of each incident (`Detected a FAILURE in health system NVLink: ..`); "
           "`Healthy` is silent", category="hardware", named="DCGM diagnostic "
           "{details.test|test} failed"),
    Kind("driver_mismatch", "GPU driver mismatch", "gpu", "error", "driver", "UPDATE_SWFW", "GPUDriverMismatch", (
        Raise("GPUUnhealthy", "reset", {"severity": ["error", "fatal"]}),
    ), doc="the NVIDIA driver as installed cannot drive the GPU: a GPU this release does not support (or only a "
           "legacy branch does), the open kernel module on a GPU without a GSP or the proprietary one on a GPU "
           "that requires the open one, the GSP firmware files missing (RmInitAdapter 0x61), another driver holding "
           "the GPU (nouveau, nova_core), a confidential VM's driver on a GPU whose confidential computing mode the host "
           "left off, the kernel module built for another kernel (unknown symbols), or the kernel "
           "module and the user-space driver of different versions (API mismatch); a driver (re)load ends it. The "
           "NVSwitch driver's Version mismatch is a warning and raises nothing: one client of the switches' control "
           "device of another release (a monitoring container's), printed on nodes without NVSwitches too",
       category="infrastructure"),
    Kind("driver_load", "driver load", None, "info", "driver", "NONE", "DriverLoad",
         doc="the NVIDIA kernel module (re)loaded: clears every GPU problem a reset ends",
         clears=(Clears("reset", "gpus"),)),
    Kind("unclassified", "unclassified", None, "warning", "unknown", "INVESTIGATE", "Unclassified",
         doc="a GPU / NVSwitch / NIC / PCIe driver line with an error word no rule recognised (counted)"),
    Kind("peermem_error", "peermem error", None, "error", "driver", "INVESTIGATE", "PeermemError",
         doc="nvidia-peermem (GPUDirect RDMA) reported an ERROR or could not load; GPU memory not pinned for "
             "GPUDirect RDMA or Storage (gdrcopy's gdrdrv refused by nvidia_p2p_get_pages, an RDMA NIC's registration "
             "that got no pages, GPUDirect Storage's nvidia-fs refusing a cuFile buffer's pin, gdrdrv failing to map "
             "pinned GPU memory: a warning, the driver set-up or the program's request)", category="fabric"),
    # The IMEX daemon (nvidia-imex: the Internode Memory Exchange service of multi-node NVLink, GB200 / GB300 NVL72,
    # GH200 NVL32; run by the host's nvidia-imex.service or the DRA driver's ComputeDomain daemon) failing what a job
    # asked of it: a memory export it could not allocate a reference for, an import a peer refused, or the daemon
    # unable to start at all (no network interface holds an address of its node configuration: the node's GPUs share
    # no memory across nodes). Neither a GPU's fault nor healthy: the job's multi-node NVLink memory failed (its
    # CUDA calls then fail, cuMemImportFromShareableHandle and the like), the NVLink domain's software layer at fault,
    # which restarting the job or the daemon ends (kubernetes-sigs/dra-driver-nvidia-gpu #948). NCCL's MNNVL self-test
    # says the same from the job's side when a fabric handle it exports cannot be imported (parsers/rules.py
    # nccl_mnnvl_imex; one it cannot allocate, no IMEX channel in the container, is the job's nccl_error). An error
    # and a job's root (fabric); no condition: the daemon serves one compute domain at a time and the GPUs' own fabric
    # state is NVML's (FabricNotRegistered, parsers/sample_rules.yaml).
    Kind("imex_error", "IMEX error", None, "error", "fabric", "CHECK_IMEX", "IMEXError",
         doc="the IMEX daemon (nvidia-imex, multi-node NVLink's memory export and import between the nodes of an "
             "NVLink domain) failed a job's request (a memory reference it could not get or allocate, an import a "
             "peer refused: one event per failed request) or could not start (no network interface with an address "
             "of its node configuration), or a job's NCCL found the fabric-handle export or import through it failing "
             "(its MNNVL self-test's 'Check the IMEX configuration (nvidia-imex-ctl -N)')", category="fabric",
         # the NVIDIA DRA driver's ComputeDomain daemon pods run nvidia-imex (its [ERROR] lines on their stderr:
         # dra-driver-nvidia-gpu #948); their container, templates/compute-domain-daemon.tmpl.yaml
         daemon_pod=("compute-domain-daemon", "the IMEX daemon of the NVIDIA DRA driver's ComputeDomain daemon")),
    Kind("kernel_oops", "kernel oops", None, "error", "driver", "RESTART_BM", "KernelOops",
         doc="a kernel oops / BUG / GPF whose faulting instruction is in a GPU or NIC driver module: an error; the same "
             "module's WARN trace (the kernel goes on) a warning",
         category="hardware"),
    # A kernel oops / BUG / GPF whose faulting instruction is in a shared filesystem's client module (BeeGFS, Lustre
    # and LNet, NFS and sunrpc, CephFS, IBM Storage Scale (GPFS), WekaFS: rules.STORAGE_CLIENT_MODULES): the task that
    # oopsed died holding the client's locks, so the mount is broken until a reboot (its processes stuck in D state,
    # the jobs' checkpoints and dataset reads hanging). An error raising StorageUnhealthy until the next boot, the
    # node's storage fault for the job then running (infrastructure). The same module's WARN_ON trace (the kernel goes
    # on: "WARNING: CPU: 3 PID: 18 at fs/..", the same RIP line after it) is a warning, no condition.
    Kind("storage_oops", "kernel oops in a storage client", None, "error", "driver", "RESTART_BM", "StorageClientOops", (
        Raise("StorageUnhealthy", "boot", {"severity": ["error", "fatal"]}),
    ), doc="a kernel oops / BUG / GPF whose faulting instruction is in a shared filesystem's client module (BeeGFS, "
           "Lustre / LNet, NFS / sunrpc, CephFS, IBM Storage Scale (GPFS), WekaFS): an error, its mount broken until "
           "a reboot; the same module's WARN trace (the kernel goes on) a warning",
         category="infrastructure"),
    # The node's kernel itself failing: "Kernel panic - not syncing: <why>" (kernel/panic.c, every era: an oops's
    # "Fatal exception" / "Fatal exception in interrupt", the lockup and hung task detectors' "softlockup: hung tasks",
    # "hung_task: blocked tasks", "Out of memory and no killable processes...", "Attempted to kill init!", "VFS: Unable
    # to mount root fs", an x86 machine check's "Fatal machine check" / "Timeout: Not all CPUs entered broadcast
    # exception handler", arm64's "Asynchronous SError Interrupt"), its closing "---[ end Kernel panic - not syncing:
    # <why> ]---", and the hardware errors arm64 dies of in the kernel's own code: "SError Interrupt on CPU<n>, code
    # <esr> -- SError" (arm64_serror_panic, always followed by the panic) and "Internal error: synchronous external
    # abort: <esr> [#1] SMP" (die(): the kernel consumed poisoned memory or a failed device read). One event
    # (parsers/rules.py "panic"); an oops in a GPU / NIC module followed by its panic stays that module's kernel_oops.
    # Fatal, the node's fault whatever the job did (triage: category hardware, like kernel_oops): a job's ranks on
    # the other nodes then print only timeouts and remote errors. No condition: the kernel that printed it is dead,
    # so the agent reads such lines only from an earlier boot (a console log, journald's previous boot), which raise
    # nothing (agent/health.py: findings before the boot epoch); `gpu-npd parse` and `gpu-npd triage` name it.
    Kind("kernel_panic", "kernel panic", None, "fatal", "unknown", "RESTART_BM", "KernelPanic",
         doc="the node's kernel panicked (`Kernel panic - not syncing: <why>`: a fatal exception, a lockup or hung "
             "task detector set to panic, out of memory with nothing to kill, a machine check, arm64's SError) or died "
             "on a hardware error in its own code (arm64's `SError Interrupt on CPU<n>` and kernel-mode `synchronous "
             "external abort`); attribution hardware for a machine check, an SError or an external abort. Seen in a "
             "console or an earlier boot's log (no condition: the agent that would raise it died with the kernel)",
         category="hardware"),
    # A network device the kernel cannot free (net/core/dev.c netdev_wait_allrefs, every 10 s while it waits):
    # "unregister_netdevice: waiting for <dev> to become free. Usage count = <n>", a reference leaked (a kernel bug:
    # kubernetes/kubernetes #64743, moby/moby #5618) that wedges the teardown of a pod's network namespace under the
    # rtnl lock: pods stuck terminating, new pods' sandboxes not created. node-problem-detector counts it
    # (FrequentUnregisterNetDevice). A warning raising KernelDegraded until it stops repeating; no job's root.
    Kind("netdev_stuck", "network device stuck unregistering", None, "warning", "unknown", "INVESTIGATE",
         "UnregisterNetDevice", (
             Raise("KernelDegraded", "expire"),
         ), doc="the kernel waiting for a network device's last reference to be dropped (`unregister_netdevice: "
                "waiting for <dev> to become free. Usage count = <n>`, every 10 s while it waits): a pod's network "
                "namespace teardown wedged, new pod sandboxes blocked behind it"),
    # A node-wide kernel table full: netfilter's connection tracking ("nf_conntrack: table full, dropping packet",
    # net/netfilter/nf_conntrack_core.c, every era: 2.6's "ip_conntrack: .." and ".. packet.", 4.x+ "nf_conntrack:
    # nf_conntrack: .." where the message gained the module's prefix twice) dropping the first packet of new flows
    # (kube-proxy's and the CNI's NAT on every pod connection: connects and health checks time out at random,
    # kubernetes/kubernetes #18604, #71261), or the system-wide file table ("VFS: file-max limit <n> reached",
    # fs/file_table.c: every open, socket and pipe of every process fails with ENFILE). Peers flag both
    # (aws/eks-node-monitoring-agent ConntrackExceededKernel, leptonai/gpud vfs_file_max_limit_reached). The kernel
    # prints it, rate-limited, while the table stays full; each line a finding (as netdev_stuck's). Connection
    # tracking full is a warning and raises no condition (a Node Event, `node_event`): a busy node's conntrack spikes for
    # a second and a condition would stand for warning_expire_seconds (6 h) after it, as EKS's monitor makes it an
    # Event, not a condition (docs/node-health-issues.adoc ConntrackExceededKernel); the file table full, where every
    # open fails, an error raising KernelDegraded while its lines come, expiring once they stop. No taint, and no
    # job's root by itself.
    Kind("kernel_table_full", "kernel table full", None, "warning", "unknown", "INVESTIGATE", "KernelTableFull", (
        Raise("KernelDegraded", "expire", {"severity": ["error", "fatal"]}),
    ), doc="a node-wide kernel table full: connection tracking (`nf_conntrack: table full, dropping packet`, new "
           "flows' packets dropped: pods' connections time out at random) or the system-wide file table (`VFS: "
           "file-max limit <n> reached`, opens fail with ENFILE); details `table` (`conntrack`, `file-max`)"),
    # the host around the GPUs
    Kind("cpu_lockup", "CPU lockup", None, "error", "unknown", "INVESTIGATE", "CPUSoftLockup", (
        Raise("KernelDegraded", "expire"),
    ), doc="a CPU stuck in the kernel (soft lockup, hard LOCKUP): the node is degraded"),
    Kind("rcu_stall", "RCU stall", None, "warning", "unknown", "INVESTIGATE", "RCUStall", (
        Raise("KernelDegraded", "expire"),
    ), doc="RCU grace periods not completing (a CPU or kthread starved)"),
    Kind("clocksource_unstable", "clocksource unstable", None, "warning", "unknown", "INVESTIGATE",
         "ClocksourceUnstable", (
             Raise("KernelDegraded", "boot"),
         ), doc="the kernel's timekeeping watchdog marked the clocksource (the TSC) unstable: time comes from a "
                "slower source (hpet, acpi_pm) until reboot, clock_gettime leaves the vDSO, timestamps may jump"),
    # The CPU's own thermal throttling (Intel's thermal interrupt, drivers/thermal/intel/therm_throt.c, formerly
    # arch/x86/kernel/cpu/mcheck): the package or a core over its threshold, its clock held down by the hardware until
    # it cools. A node so throttled is slow, not broken: the straggler of a gang-scheduled job (its data loader, its
    # launch of kernels, its NCCL proxy threads), a cooling fault (a fan, blocked airflow, a hot aisle) to look at. A
    # warning and no condition: laptops and desktops print it under any heavy load, 5.5+ kernels print it only when the
    # throttling lasts, and the GPUs' own thermal throttling is telemetry's (ThermalThrottling); never a job's root.
    Kind("cpu_throttle", "CPU thermal throttling", None, "warning", "hardware", "CHECK_COOLING", "CPUThermalThrottle",
         doc="a CPU core or package over its temperature threshold, its clock throttled by the hardware (the kernel's "
             "thermal throttling report; its machine-check record and its 'temperature/speed normal' lines are part "
             "of it): the node is slow while it lasts", slows=True),
    Kind("memory_error", "host memory error", None, "warning", "hardware", "MONITOR", "HostMemoryError", (
        Raise("HostMemoryUnhealthy", "boot", {"severity": "fatal"}, reason="UncorrectedMemoryError"),
        Raise("HostMemoryUnhealthy", "expire", {"severity": "error"}, reason="UncorrectedMemoryError"),
    ), doc="host memory: machine check / EDAC / firmware (CPER) memory error, corrected or not (a CPER record's "
           "stated severity: recoverable is an error, fatal fatal)", named="{host_memory}", node_event="error"),
    # A CPU's own cache or TLB error in an x86 machine-check record (its MCi_STATUS error code: parsers/rules.py
    # MCA_ERROR_CODES), corrected (a warning: the CPU fixed it; repeating, the CPU is failing) or not (an error): the
    # processor's fault, not the DIMMs'. No condition: a fatal one panics the node (kernel_panic), a corrected one asks
    # for watching.
    Kind("cpu_cache_error", "CPU cache error", None, "warning", "hardware", "MONITOR", "CPUCacheError",
         doc="a CPU cache or TLB error in an x86 machine-check record (`mce: [Hardware Error]: CPU n: Machine Check: "
             "0 Bank b: <MCi_STATUS>` whose error code is a cache hierarchy, generic cache or TLB error: details `mca` "
             "the level and transaction, \"L2 instruction cache error, instruction fetch\"), corrected (warning) or "
             "not (error): the processor's fault, not the DIMMs'", named="{details.mca|CPU cache error}"),
    # What a node's BMC logged in its System Event Log (`ipmitool sel elist` / `sel list` rows: parsers/rules.py
    # IPMI_SEL_EVENTS), read after the node crashed, rebooted or its GPUs throttled. A processor's own fault: its
    # internal error (IERR, Intel's CATERR: the machine hung or the platform reset it), its thermal trip (over its trip
    # temperature: the platform cut its power, action CHECK_COOLING) or a failed self test or start-up (FRB1/2/3):
    # an error, the node stopped, a job then running ended by the hardware. No condition: the SEL is read after the
    # fact, the node it stopped has booted since (its Node Event says it).
    Kind("cpu_fault", "CPU fault", None, "error", "hardware", "HARDWARE_INSPECTION", "CPUFault",
         doc="a processor's fault its BMC logged (a SEL row as `ipmitool sel elist` prints it): `IERR` (its internal "
             "error, Intel's CATERR: the machine hung or was reset), `Thermal Trip` (over its trip temperature, the "
             "platform cut its power: action `CHECK_COOLING`), an FRB self-test or start-up failure; details `sensor`, "
             "`event`", category="hardware", named=("{details.sensor}: {details.event}",)),
    # A power supply or the power unit as the BMC logged them: a supply failed or the power unit lost its input (an
    # error: a GPU node's supplies carry its GPUs' load, one fewer power-brakes or drops them, a power unit's AC lost
    # stops the node), or too few supplies left for the load (Non-Redundant: Insufficient Resources, an error); a
    # supply's input lost or out of range, its predictive failure, the redundancy lost or degraded (a warning: the
    # node runs on the others). No condition (the node runs, or has stopped and booted since); its Node Event says it.
    Kind("power_supply", "power supply fault", None, "warning", "hardware", "HARDWARE_INSPECTION",
         "PowerSupplyFault",
         doc="a power supply or the power unit as the BMC logged them (a SEL row): `Failure detected`, the power "
             "unit's `AC lost`, `Non-Redundant: Insufficient Resources` an error; a supply's `Power Supply AC lost` "
             "or out-of-range input, `Predictive failure`, `Redundancy Lost` / degraded a warning; details `sensor`, "
             "`event`", named=("{details.sensor}: {details.event}",)),
    # A BMC's temperature, fan, voltage or current sensor past a critical threshold (`Upper Critical going high`,
    # `Lower Critical going low`: a warning; Non-recoverable: an error, the platform's own limit at which it shuts
    # down or fails), or the fans' redundancy lost: temperature and fans a cooling fault (CHECK_COOLING, a GPU node's
    # GPUs throttle first), voltage and current a board or supply fault. Non-critical thresholds say nothing (the
    # BMC's early notice, crossed under any heavy load). No condition; its Node Event says it.
    Kind("bmc_sensor", "BMC sensor alarm", None, "warning", "hardware", "CHECK_COOLING", "BMCSensorAlarm",
         doc="a BMC sensor past its critical threshold (a SEL row: a `Temperature` or `Fan` sensor, an HGX board's "
             "`GPU0_Temp` too, or a `Voltage` / `Current` one, action `HARDWARE_INSPECTION`): `Upper Critical going "
             "high` / `Lower Critical going low` a warning, Non-recoverable an error; the fans' `Redundancy Lost` a "
             "warning; details `sensor`, `event`", named=("{details.sensor}: {details.event}",)),
    # An NFS server not responding: a hard mount's RPC waits and is retried ("still trying", a warning: the job's I/O
    # blocks, hung tasks follow if it lasts); a soft mount's fails ("timed out": -EIO / -ETIMEDOUT to the read or write,
    # net/sunrpc/clnt.c), an error and, as a Lustre eviction, the node's infrastructure fault for the job then running
    # (triage counts a finding of an infrastructure kind raising a condition at error or worse).
    Kind("nfs_error", "NFS server not responding", None, "warning", "unknown", "CHECK_STORAGE",
         "NFSServerNotResponding", (
             Raise("StorageUnhealthy", "expire", {"severity": ["warning", "error"]}),
         ), doc="an NFS server not responding: a hard mount still trying (warning), a soft mount's RPC timed out "
                "(error: the I/O failed); its recovery (info); NFSv4's state manager that could not recover the "
                "client's lease or session on a server (error: opens, locks and I/O fail until it does), the server "
                "reporting this node's client id in use by another client (warning), NFSv4 state recovery that "
                "lost the client's locks or opens (error)",
         category="infrastructure"),
    # A parallel filesystem's client in the kernel (Lustre: Lustre / DDN EXAScaler / AWS FSx for Lustre): a client
    # the server evicted (LustreError 167-0 "<obd>: This client was evicted by <target>; in progress operations
    # using this service will fail.", lustre/ptlrpc/import.c) lost its locks and every I/O in flight to that target
    # (a checkpoint write, a dataset read): an error, the node's storage fault for the job then running
    # (infrastructure). A connection lost ("Connection to <target> (at <nid>) was lost; in progress operations using
    # this service will wait for recovery to complete") is a warning and raises nothing: the client blocks its I/O
    # and reconnects, most often within seconds ("Connection restored to <target> (at <nid>)", info), a server
    # failover or a network blip; one never restored ends in an eviction, or in the hung tasks of the I/O waiting.
    # IBM Storage Scale (GPFS): a node that lost its membership in the cluster owning a file system ("Lost membership
    # in cluster <cluster>. Unmounting file systems.", mmfs.log) had those file systems unmounted under the job: an
    # error, as an eviction. CephFS's kernel client whose reconnect the metadata server denied ("ceph: mds0 reconnect
    # denied": evicted and blocklisted, its dirty data dropped) is an error too; its session closed ("closed our
    # session") or a new one rejected, a warning.
    Kind("parallel_fs_error", "parallel filesystem client error", None, "warning", "unknown", "CHECK_STORAGE",
         "ParallelFSError", (
             Raise("StorageUnhealthy", "expire", {"severity": ["error", "fatal"]}, reason="ParallelFSClientEvicted"),
         ), doc="a Lustre client (Lustre, EXAScaler, FSx for Lustre) evicted by a server (error: its I/O in flight "
                "failed), its connection to a server lost (warning, no condition: the client waits and reconnects) or "
                "restored (info); an IBM Storage Scale (GPFS) node that lost its membership in the cluster, its file "
                "systems unmounted (error); a CephFS kernel client whose reconnect its metadata server denied "
                "(error: evicted, its dirty data dropped), its session closed or a new one rejected (warning), "
                "reconnected (info)",
         category="infrastructure"),
    Kind("filesystem_error", "filesystem error", None, "error", "unknown", "CHECK_STORAGE", "FilesystemError", (
        Raise("StorageUnhealthy", "boot"),
    ), doc="a filesystem error, a filesystem remounted read-only, its journal aborted, a disk failing its I/O (the "
           "block layer's I/O error, the page cache's lost write), a software RAID (md) array failed or degraded by "
           "a lost disk"),
    Kind("nvme_error", "NVMe error", None, "error", "hardware", "CHECK_STORAGE", "NVMeError", (
        Raise("StorageUnhealthy", "boot", {"severity": "fatal"}, reason="NVMeControllerRemoved"),
        Raise("StorageUnhealthy", "expire", {"severity": "error"}, reason="NVMeReset"),
    ), doc="NVMe I/O timeouts, controller resets, a controller removed, a namespace with no path left, a namespace's "
           "I/O the controller failed; an NVMe over Fabrics controller (TCP, RDMA, FC) whose transport failed, in "
           "error recovery (a warning), its reconnects failing (an error)"),
)


def check_table(table: tuple[Kind, ...]) -> None:
    """The kind table's own checks, at import: a ValueError of one line naming the kinds at fault (real errors, not
    asserts: those are gone under `python -O`)."""
    names = [k.name for k in table]
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"parsers/kinds.py: kind declared twice: {', '.join(twice)}")
    if wordless := [k.name for k in table if bool(k.pod_holds_gpus) != (len(k.in_gpu_pod) == 2)]:
        raise ValueError(f"parsers/kinds.py: pod_holds_gpus kind without its two in_gpu_pod words (or words without "
                         f"pod_holds_gpus): {', '.join(wordless)}")
    if unranked := [k.name for k in table if k.node_event and k.node_event not in SEVERITY_RANK]:
        raise ValueError(f"parsers/kinds.py: node_event not one of {', '.join(SEVERITIES)}: {', '.join(unranked)}")


check_table(TABLE)
BY_NAME: Mapping[str, Kind] = MappingProxyType({k.name: k for k in TABLE})
# kind -> (a start of its `driver_error`, the `pod_holds_gpus` kind that takes such a finding), in table order
# (`Kind.takes`; indexed by the finding's kind once, so a finding of a kind none takes costs one lookup)
_TAKEN_PAIRS = {t: k.name for k in TABLE for t in k.takes}
_TAKEN: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {of: tuple((start, name) for (one, start), name in _TAKEN_PAIRS.items() if one == of) for of, _ in _TAKEN_PAIRS})


def taken_by(kind: str, driver_error: object) -> str | None:
    """The kind that takes a finding of `kind` saying `driver_error` in a pod that holds GPUs (`Kind.takes`), or None."""
    takers = _TAKEN.get(kind)
    if takers is None or not isinstance(driver_error, str):
        return None
    return next((name for start, name in takers if driver_error.startswith(start)), None)


# a CUDA error's Pod Event reason, refined by the error's text (the kind's own reason, CUDAError, otherwise)
CUDA_REASONS: Mapping[str, str] = MappingProxyType({
    "an illegal memory access was encountered": "CUDAIllegalAddress", "cudaErrorIllegalAddress": "CUDAIllegalAddress",
    "uncorrectable ECC error encountered": "CUDAUncorrectableECC", "cudaErrorECCUncorrectable": "CUDAUncorrectableECC",
    "unspecified launch failure": "CUDALaunchFailure", "cudaErrorLaunchFailure": "CUDALaunchFailure",
    "CUDA_ERROR_ILLEGAL_ADDRESS": "CUDAIllegalAddress", "CUDA_ERROR_ECC_UNCORRECTABLE": "CUDAUncorrectableECC",
    "CUDA_ERROR_LAUNCH_FAILED": "CUDALaunchFailure"})


# libibverbs' enum ibv_wc_status: the work completion's status NET/IB prints as "status=N" (older: "error N"), and
# UCX's verbs transports in ibv_wc_status_str's words ("transport retry counter exceeded"), named in
# details["wc_status"].  The name says what a completion error is evidence of: IBV_WC_RETRY_EXC_ERR, the transport's
# retries to the peer ran out (the link or the peer's port); IBV_WC_WR_FLUSH_ERR, a work request flushed because its
# queue pair had already gone to the error state (after an earlier error on it, or the connection torn down by the
# other side): the aftermath of another failure, never evidence of the link of its own.  Declared here, beside the
# kind the statuses are of (ib_completion_error, named by their words: LINE_WORDS), the parsers' rules reading them.
IB_WC_STATUSES = (  # (number, libibverbs' name, ibv_wc_status_str's words: rdma-core libibverbs/enum_strs.c)
    (1, "IBV_WC_LOC_LEN_ERR", "local length error"), (2, "IBV_WC_LOC_QP_OP_ERR", "local QP operation error"),
    (3, "IBV_WC_LOC_EEC_OP_ERR", "local EE context operation error"),
    (4, "IBV_WC_LOC_PROT_ERR", "local protection error"), (5, "IBV_WC_WR_FLUSH_ERR", "Work Request Flushed Error"),
    (6, "IBV_WC_MW_BIND_ERR", "memory management operation error"), (7, "IBV_WC_BAD_RESP_ERR", "bad response error"),
    (8, "IBV_WC_LOC_ACCESS_ERR", "local access error"), (9, "IBV_WC_REM_INV_REQ_ERR", "remote invalid request error"),
    (10, "IBV_WC_REM_ACCESS_ERR", "remote access error"), (11, "IBV_WC_REM_OP_ERR", "remote operation error"),
    (12, "IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded"),
    (13, "IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"),
    (14, "IBV_WC_LOC_RDD_VIOL_ERR", "local RDD violation error"),
    (15, "IBV_WC_REM_INV_RD_REQ_ERR", "remote invalid RD request"), (16, "IBV_WC_REM_ABORT_ERR", "aborted error"),
    (17, "IBV_WC_INV_EECN_ERR", "invalid EE context number"),
    (18, "IBV_WC_INV_EEC_STATE_ERR", "invalid EE context state"), (19, "IBV_WC_FATAL_ERR", "fatal error"),
    (20, "IBV_WC_RESP_TIMEOUT_ERR", "response timeout error"), (21, "IBV_WC_GENERAL_ERR", "general error"),
)
IB_WC_STATUS = {number: name for number, name, _ in IB_WC_STATUSES}
IB_WC_WORDS = {words.lower(): name for _, name, words in IB_WC_STATUSES}  # the words as a line gives them, any case
IB_WC_SAID = {name: (number, words) for number, name, words in IB_WC_STATUSES}


def _wc(line: Any, i: int) -> object:
    said = IB_WC_SAID.get(line.details.get("wc_status"))
    return said[i] if said else None


# Words any reader of a line may name it with (a kind's `named` template; live and offline alike: `named_as`), beside
# its fields and details: what takes a table to say. `wc_words`, `wc_number`: a completion status's
# ibv_wc_status_str words and number ("transport retry counter exceeded", 12) for its libibverbs name
LINE_WORDS: Mapping[str, Any] = MappingProxyType({"wc_words": lambda line: _wc(line, 1),
                                                  "wc_number": lambda line: _wc(line, 0)})
# each of LINE_WORDS read back (`read_named`): the words -> the details they state of the line ({} for words no table
# row says: the status's name by its ibv_wc_status_str words, any case, or by its number)
WORDS_READ: Mapping[str, Any] = MappingProxyType({"wc_words": lambda said: _wc_read(IB_WC_WORDS.get(said.lower())),
                                                  "wc_number": lambda said: _wc_read(
                                                      IB_WC_STATUS.get(int(said)) if said.isdecimal() else None)})


def _wc_read(name: str | None) -> dict[str, str]:
    return {"wc_status": name} if name else {}


def named_as(named: str | tuple[str, ...], line: Any, words: Mapping[str, Any] = MappingProxyType({})) -> str | None:
    """A line (a Finding, triage's Evidence) named by its kind's `named`: one template rendered, a value missing or
    empty said "None" or its `{..|default}`; of a tuple of alternatives, the first whose every field the line has
    (`{details.key}` a detail, `{name}` a word of `words` or of LINE_WORDS, a function of the line, else a field), None
    where none has them; None for "" (no template).  The one renderer of the kind rows' templates, offline's and
    live's."""
    if not named:
        return None
    if isinstance(named, str):
        return _render(named, line, words, strict=False)
    return next((said for t in named if (said := _render(t, line, words, strict=True)) is not None), None)


def _render(template: str, line: Any, words: Mapping[str, Any], strict: bool) -> str | None:
    from string import Formatter  # noqa: PLC0415 (a line named only when a job's failure is said: never at idle)

    out = []
    for literal, name, _spec, _conversion in Formatter().parse(template):
        out.append(literal)
        if name is None:
            continue
        name, bar, default = name.partition("|")
        said = words.get(name) or LINE_WORDS.get(name)
        value = line.details.get(name[8:]) if name.startswith("details.") else \
            said(line) if said is not None else getattr(line, name)
        if value in (None, ""):
            if strict:
                return None
            if bar:
                value = default
        out.append(str(value))
    return "".join(out)


def read_named(named: str | tuple[str, ...], words: str, ends: str) -> dict[str, Any]:
    """The inverse of `named_as`: the details words it rendered of a line state, the first of the templates whose
    pattern (`named_pattern`) they match read back ({} where none does): `{details.key}` the detail itself, a word of
    LINE_WORDS by its inverse (WORDS_READ); a field of the line (`{xid}`), or a value its template's default stands
    for, none.  `ends`: a regex of what may follow the words (the rest of a sentence that opens with them)."""
    for template in (named,) if isinstance(named, str) else named:
        pattern, fields = named_pattern(template, ends)
        said = pattern.match(words) if pattern is not None else None
        if said is None:
            continue
        out: dict[str, Any] = {}
        for (name, default), value in zip(fields, said.groups()):
            if value == default:
                continue
            read = WORDS_READ.get(name)
            out.update({name[8:]: value} if name.startswith("details.") else read(value) if read else {})
        return out
    return {}


@lru_cache(maxsize=None)
def named_pattern(template: str, ends: str) -> tuple[re.Pattern[str] | None, tuple[tuple[str, str], ...]]:
    """A `named` template's words read back (compiled at first use, once): the template's literal text escaped, each
    `{field}` a group, with its (name, default); the last group up to the literal text after it and then `ends`, every
    other up to the first character of the literal text after it (none of that character in it): linear in the words.
    (None, ()) for a template of no field, or of two fields with no text between them."""
    from string import Formatter  # noqa: PLC0415 (read back only where a cut excerpt asks)

    parts = list(Formatter().parse(template))
    last = max((i for i, (_, name, _, _) in enumerate(parts) if name is not None), default=None)
    if last is None:
        return None, ()
    regex, fields = [], []
    for i, (literal, name, _spec, _conversion) in enumerate(parts):
        regex.append(re.escape(literal))
        if name is None:
            continue
        after = parts[i + 1][0] if i + 1 < len(parts) else ""
        if i != last and not after:
            return None, ()
        regex.append("(.+?)" if i == last else f"([^{re.escape(after[0])}]+)")
        fields.append(tuple(name.partition("|")[::2]))
    return re.compile("".join(regex) + f"(?={ends})"), tuple(fields)


def reason_of(name: str, xid: int | None = None, sxid: int | None = None) -> str:
    """The reason a finding of kind `name` (with its Xid / SXid code) gives its problem and Event."""
    if xid is not None:
        return xid_reason(xid)
    if sxid is not None:
        return f"SXid{sxid}"
    row = BY_NAME.get(name)
    return row.reason if row is not None else "".join(w.capitalize() for w in name.split("_"))


def condition_rules() -> list[dict[str, Any]]:
    """The default `condition_rules` (config): every kind's `raises`, in table order, as plain data."""
    out = []
    for k in TABLE:
        for r in k.raises:
            rule: dict[str, Any] = {"match": {"kind": k.name, **{key: list(v) if isinstance(v, (list, tuple)) else v
                                                                for key, v in r.match.items()}},
                                    "condition": r.condition}
            reason = r.reason or k.reason
            if "<code>" not in reason:
                rule["reason"] = reason
            rule["clear"] = r.clear
            out.append(rule)
    return out


def conditions() -> dict[str, dict[str, str]]:
    """The default `conditions` (config): condition type -> its healthy reason and message."""
    return {c.type: {"ok_reason": c.ok_reason, "ok_message": c.ok_message} for c in CONDITIONS}
