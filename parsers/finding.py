"""The one record the parsers produce: a recognised line."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from datetime import datetime
from typing import Any

from .kinds import ACTION_RANK, ATTRIBUTIONS, SEVERITIES, SEVERITY_RANK
from .kinds import TABLE as KIND_TABLE

# The stable vocabulary of finding kinds: the kind table's rows (parsers/kinds.py). Add kinds, never rename them.
KINDS = tuple(k.name for k in KIND_TABLE)


@dataclass(slots=True)
class Finding:
    """What a classified line says: its kind, severity, attribution, action and the device and details it names."""

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
    # the host the line's envelope names (pdsh's / clush's "node-a: " before dmesg, syslog's and the journal's host,
    # stern's nodeName), None where it names none: which node of a fleet-wide input said it (`gpu-npd parse`); the
    # agent knows its node and never reads it (a forwarded syslog line's host is not the agent's node).  Last, set
    # after the finding is made and only where the envelope names one: a line without costs no lookup
    host: str | None = None

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
# the one field of a time (to_dict writes it as ISO 8601): checked with a real error (an assert is gone under `python -O`)
if (_times := [f.name for f in fields(Finding) if f.type in ("datetime | None", datetime)]) != ["timestamp"]:
    raise ValueError(f"parsers/finding.py: Finding's fields of a time are not timestamp alone: {', '.join(_times)}")


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

# NVIDIA's own daemons whose lines the rules read (parsers/rules.py), by the program name their syslog / journal lines
# carry, each with the finding kinds its own lines give: such a line is the daemon's word, a node fault as the kernel's
# are.  Only daemons that write these lines to syslog / the journal (seen there in public logs) and only the kinds
# they report themselves: Fabric Manager (nv-fabricmanager; 570+ started by nvidia-fabricmanager-start.sh, whose tag
# its own lines then carry, data-infra/cube-studio #29) refusing a driver of another version (driver_mismatch,
# "fm_driver_mismatch": gpu-operator #544, akash-network/website #632) and its fabric's failures (nvlink: "fm_topology_
# mismatch", "fm_multicast_gpu_missing", "fm_gpu_nvl_error", "fm_trunk_port_failure").  Never an Xid, an SXid or
# another kind of the kernel's alone: the daemon's copy of an NVSwitch error ("detected NVSwitch .. error", kind sxid)
# is the kernel's SXid line's too and counts from the kernel (or from fabricmanager.log, whose envelope names no
# program); a line under a daemon's tag that reads like an Xid stays another program's.  Not here: nv-hostengine
# (DCGM writes its health lines to its own log, /var/log/nv-hostengine.log, not to syslog: common/DcgmLogging.h's
# BASE_LOGGER; that file's lines name no program and count already), nvidia-imex (its own log, or the ComputeDomain
# pod's stderr), nvidia-gridd (no rule reads its lines), nvidia-persistenced (its failure to start, a warning that
# leaves the GPUs working on most nodes: `gpu-npd parse` reports it, parsers/rules.py persistenced_init_failed) and the
# MIG manager (its failed applies are its pod's log: mig_apply_failed).
# What it trusts: a syslog tag and the journal's SYSLOG_IDENTIFIER are the writer's own claim (any local process can
# `logger -t nv-fabricmanager ...`), so such a line can raise one of these kinds and nothing else: at worst the
# GPUUnhealthy / NVLinkUnhealthy a real refusal raises (never an Xid's policy, an SXid's, a reboot), where otherwise
# Fabric Manager's failure to start (the NVSwitch fabric down, every GPU's CUDA failing with 802) is dropped from
# every syslog file and journal export.  The agent's journald source reads the kernel transport alone and tags its
# records "kernel" (agent/sources/journald.py: no SYSLOG_IDENTIFIER, no _COMM), so only its log-file sources and
# `gpu-npd parse` (whose journal exports take SYSLOG_IDENTIFIER: parsers/envelope.py journal_record) see such lines.
# docs/security.md says it.
_FABRIC_MANAGER_KINDS = frozenset({"driver_mismatch", "nvlink"})
DAEMON_KINDS: dict[str, frozenset[str]] = {
    "nv-fabricmanager": _FABRIC_MANAGER_KINDS,
    "nvidia-fabricmanager-start.sh": _FABRIC_MANAGER_KINDS,
    "nvlsm": _FABRIC_MANAGER_KINDS,  # the NVLink Subnet Manager FM's start script runs beside it on NVLink5 systems
}


def from_kernel(f: Finding) -> bool:
    """Was this line written by the kernel, or by the NVIDIA daemon whose own kind this is (DAEMON_KINDS)? Only those
    are node faults, in the agent and in `gpu-npd parse` alike."""
    program = f.program
    return program in KERNEL_PROGRAMS or (program in DAEMON_KINDS and f.kind in DAEMON_KINDS[program])


def seen_at(f: Finding, now: float, since: float | None = None) -> float | None:
    """When `f`'s line was written (Unix seconds: its envelope's time, or the boot's start plus its kmsg stamp), never
    after `now` (a line stamped ahead of the reader's clock: a kernel's wall time drifted from its monotonic one,
    another host's stamp); `now` for a line without a time.  The one reading of a line's time against the agent's
    clock: the health engine's (a problem's first_seen), its Events' eventTime, the pipeline's (a pod line during a GPU
    reset), the counter guard's and the coalescer's (a repeat's spacing).
    `since`: this boot's start.  A line with a kmsg stamp and no wall time is this boot's: `since` plus its stamp (the
    agent dates only the findings it decides: a storm's repeat builds no datetime, agent/pipeline.py); a stamped line
    before it, an earlier boot's, is None (never None without it).  The one call a decided finding and a repeat pay
    (bench/inprocess.py --instructions)."""
    stamp = f.timestamp
    if stamp is not None:
        seen = stamp.timestamp()
        if seen > now:  # (no min(): a storm's every repeat reads it, agent/coalesce.py `repeat`)
            seen = now
        return None if since is not None and seen < since else seen
    if since is not None and f.uptime is not None:
        seen = since + f.uptime
        return now if seen > now else seen
    return now


def at_least(severity: str, minimum: str) -> bool:
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[minimum]


def above(action: str, other: str) -> bool:
    """Is `action` a step above `other` on the remediation ladder (kinds.ACTION_RANK; both on it)?"""
    return action in ACTION_RANK and other in ACTION_RANK and ACTION_RANK[action] > ACTION_RANK[other]


def restated(f: Finding) -> str | None:
    """The program whose own line `f`'s line restates (rules.Rule.restates: "kernel" for the device plugin's Xid), None:
    `f` is its line's own word."""
    return f.details.get("restates") if f.details else None


def amends(f: Finding) -> str | None:
    """What `f` changed of an event's earlier finding ("severity", "pci", "action"; rules.EVENT_AMENDS), None: `f` is no
    amendment (an event of its own)."""
    return f.details.get("amends") if f.details else None
