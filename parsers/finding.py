"""The one record the parsers produce: a recognised line."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from datetime import datetime
from typing import Any

SEVERITIES = ("info", "warning", "error", "fatal")
SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}
ATTRIBUTIONS = ("hardware", "fabric", "driver", "application", "unknown")

# The stable vocabulary of finding kinds.  Add kinds, never rename them.
KINDS = (
    "xid", "sxid", "fallen_off_bus", "gpu_reset", "nvlink", "pcie_aer", "ib_link", "nic_error",
    "ib_completion_error", "nccl_timeout", "nccl_remote_error", "nccl_error", "cuda_error",
    "cuda_oom", "hung_task", "oom_kill",
    # added kinds
    "gpu_reset_required",  # NVRM assertion NV_ERR_RESET_REQUIRED: the driver refuses work until reset
    "driver_load",  # NVIDIA kernel module (re)loaded: a lifecycle mark, severity info
    "unclassified",  # a GPU/NVSwitch/NIC/PCIe driver line with an error word that no rule recognised
    "peermem_error",  # nvidia-peermem (GPUDirect RDMA) reported an ERROR
    "kernel_oops",  # a kernel oops / BUG / GPF whose faulting instruction is in a GPU or NIC driver module
    # the host around the GPUs (issue 29)
    "cpu_lockup",  # a CPU stuck in the kernel (soft lockup, hard LOCKUP): the node is degraded
    "rcu_stall",  # RCU grace periods not completing (a CPU or kthread starved)
    "memory_error",  # host memory: machine check / EDAC / firmware (CPER) memory error, corrected or not
    "nfs_error",  # an NFS server not responding (and its recovery, info)
    "filesystem_error",  # a filesystem error, a filesystem remounted read-only
    "nvme_error",  # NVMe I/O timeouts, controller resets, a controller removed
)


@dataclass(slots=True)
class Finding:
    kind: str
    severity: str
    attribution: str
    action: str
    message: str
    timestamp: datetime | None = None  # wall clock, when the envelope carries one
    uptime: float | None = None  # seconds since boot (kmsg, dmesg)
    xid: int | None = None
    sxid: int | None = None
    pci: str | None = None
    pid: int | None = None
    process: str | None = None
    rank: int | None = None
    peer: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    envelope: str = "plain"
    program: str | None = None  # the syslog tag / app name where the envelope carries one ("kernel", ...)
    file: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict; unknown fields are left out."""
        out = {name: value for name, value in zip(_NAMES, _values(self)) if value is not None}
        if not self.details:
            out.pop("details", None)
        if self.timestamp is not None:
            out["timestamp"] = self.timestamp.isoformat()
        return out


_NAMES = tuple(f.name for f in fields(Finding))
_values = attrgetter(*_NAMES)
assert [f.name for f in fields(Finding) if f.type in ("datetime | None", datetime)] == ["timestamp"]


MAX_DIGITS = 18  # longer "numbers" (a 5,000-digit rank from a pod) are text, never int(): no ValueError, no cost


def bounded_int(value: str | None) -> int | None:
    """int of a plain ASCII decimal of at most MAX_DIGITS digits, else None (never raises)."""
    if value is None or not 0 < len(value) <= MAX_DIGITS or not value.isascii() or not value.isdigit():
        return None
    return int(value)


# The programs whose lines are the kernel's: "kernel" (syslog's tag), or none (kmsg and dmesg records of the kernel's
# facility, plain dmesg). Any other (a syslog line of another program, a /dev/kmsg record a process wrote, which
# the kernel gives a facility other than LOG_KERN) is not, however much it reads like a kernel fault.
KERNEL_PROGRAMS = frozenset({None, "kernel"})


def from_kernel(f: Finding) -> bool:
    """Was this line written by the kernel? Only those are node faults, in the agent and in `gpu-npd parse` alike."""
    return f.program in KERNEL_PROGRAMS


def at_least(severity: str, minimum: str) -> bool:
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[minimum]
