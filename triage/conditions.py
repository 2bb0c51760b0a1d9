"""A Node's conditions as node faults: the one reading of a condition, live and offline.  Pure.

The live cluster component reads each Node it watches (cluster/evidence.py Reader.condition, its clock the
heartbeat check's) and offline triage each Node of a `kubectl get nodes -o json / -o yaml` (triage.inventory
read_objects, `node_conditions`) by `read_condition`:
- gpu-npd's own conditions (parsers/kinds.py CONDITIONS: GPUUnhealthy, NVLinkUnhealthy, InfiniBandUnhealthy,
  PCIeUnhealthy; True = a problem), message as agent/health.py writes it ("Xid 79 on GPU 3 (0000:5d:00): <the
  kernel's line>. Recommended action: RESTART_BM"): the kernel's line is classified again (`node_fact`, as a node
  agent's Node Event is), else its reason names the kind (NODE_REASONS);
- other detectors' (triage.facts FOREIGN_CONDITIONS: the EKS node monitoring agent's AcceleratedHardwareReady=False,
  node-problem-detector's KernelDeadlock=True, NVSentinel's SysLogsXIDError=True, ...), unless turned off or their
  detector stopped beating (`foreign_fact`).
Events expire after an hour; a condition stands while its problem does: in a post-mortem dump it is often the only
trace of the node's fault.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Mapping

from parsers import Classifier
from parsers.envelope import parse_time
from parsers.kinds import BY_NAME as KIND, CONDITIONS as KIND_CONDITIONS, TABLE as KIND_TABLE
from parsers.telemetry import node_fault_reasons

from .attribute import NODE_FAULT_KINDS, STANDING
from .facts import FOREIGN_TYPES, STALE_BEATS, foreign_condition
from .model import Evidence

# characters of a message kept as evidence text: a container status (triage.inventory runtime_faults), a node Event
# (cluster/evidence.py), a node condition
MESSAGE_TEXT = 240
# the GPU a node agent's words name: "on GPU 0000:5d:00", "on GPU 3 (0000:5d:00)"
GPU = re.compile(r"\bon GPU (?:(\d+) \()?((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)\)?")
# the problem's text (agent/health.py _message; a condition adds " (+N more problems)" when others stand)
KERNEL_TEXT = re.compile(r"^(.*?)(?: \[[^\]]*\])?\. Recommended action: \S+(?: \(\+\d+ more problems?\))?$", re.S)
# Node problem reason (Event or condition) -> (kind, attribution) when the text says no more: the per-code
# reasons (parsers/kinds.py "Xid<code><Name>", "SXid<code>": by their prefix), the telemetry rules'
# (parsers/sample_rules.yaml, by each row's `kind`), then each node fault kind's own reasons
# (parsers/kinds.py: the kind's and its condition rules', e.g. PCIeFatalError, NICFirmwareError)
NODE_REASONS: tuple[tuple[re.Pattern, str, str], ...] = tuple(
    (re.compile("^" + re.escape(k.reason.split("<code>")[0]) + r"(\d+)"), k.name, k.node_attribution or k.attribution)
    for k in KIND_TABLE if k.name in NODE_FAULT_KINDS and "<code>" in k.reason
) + tuple((re.compile(re.escape(reason) + "$"), kind, attribution)
             for reason, (kind, attribution) in node_fault_reasons().items()) + tuple(
    (re.compile(re.escape(reason) + "$"), k.name, k.node_attribution or k.attribution)
    for k in KIND_TABLE if k.name in NODE_FAULT_KINDS
    for reason in dict.fromkeys((k.reason, *(r.reason for r in k.raises if r.reason))) if "<code>" not in reason)
# gpu-npd's node conditions that say a job on the node can break, and how bad (parsers/kinds.py CONDITIONS)
FAULT_CONDITIONS = {c.type: c.fault for c in KIND_CONDITIONS if c.fault}
# a condition's fields read, each a string where it is there at all (a hand-edited or cut document's other types: the
# condition is skipped, `read_condition`)
FIELDS = ("type", "status", "reason", "message", "lastTransitionTime", "lastHeartbeatTime")


def classify_alone(classifier: Classifier, text: str) -> Any:
    """A line's finding, read alone (Classifier.classify_alone: nothing of another node's or pod's line reaches it);
    None for none, and for a line the parsers choke on (just not evidence)."""
    try:
        return classifier.classify_alone(text)
    except Exception:  # noqa: BLE001 - a line the parsers choke on is just not evidence
        return None


def node_fact(classifier: Classifier, reason: str, message: str, host: str | None, when: datetime | None,
              severity: str) -> Evidence | None:
    """A node problem in a node agent's words (its Node Event's or condition's reason and message, agent/health.py) as
    a node fault: the kernel's line it quotes classified again, else the kind its reason names (NODE_REASONS) at
    `severity`; the GPU its words name; None for no node fault."""
    text = KERNEL_TEXT.match(message)
    finding = classify_alone(classifier, text.group(1)) if text else None
    if finding is not None and finding.kind in NODE_FAULT_KINDS:
        e = Evidence.from_finding(finding, host=host, time=when, text=message[:MESSAGE_TEXT])
    else:
        for pattern, kind, attribution in NODE_REASONS:
            m = pattern.match(reason)
            if m:
                code = int(m.group(1)) if m.groups() and m.group(1) and m.group(1).isdigit() else None
                e = Evidence(kind, severity, attribution, when, host, text=message[:MESSAGE_TEXT],
                             xid=code if kind == "xid" else None, sxid=code if kind == "sxid" else None,
                             details={"state": "down"} if kind == "ib_link" else {})
                break
        else:
            return None
    gpu = GPU.search(message)
    if gpu:
        e = e.with_context(pci=e.pci or gpu.group(2).lower(),
                           gpu=e.gpu if e.gpu is not None else (int(gpu.group(1)) if gpu.group(1) else None))
    return e.with_context(details={**e.details, "reason": reason}, file=f"node/{host}")


def read_condition(classifier: Classifier, host: str, cond: Any, now: float | None = None,
                   foreign: bool = True) -> Evidence | None:
    """A gpu-npd node condition that stands (status True) as a node fault (`node_fact`), at its lastTransitionTime;
    with `foreign`, another detector's (triage.facts FOREIGN_CONDITIONS) whose status is its problem (`foreign_fact`,
    `now` its heartbeat check's clock).  None for any other: healthy, Unknown, a type not read, and one malformed (not
    a mapping, a field of FIELDS not a string)."""
    if not isinstance(cond, Mapping) or any(not isinstance(cond.get(k), (str, type(None))) for k in FIELDS):
        return None
    ctype = cond.get("type") or ""
    severity = FAULT_CONDITIONS.get(ctype)
    if severity is None:
        return foreign_fact(host, cond, now) if foreign and ctype in FOREIGN_TYPES else None
    if cond.get("status") != "True":
        return None
    e = node_fact(classifier, cond.get("reason") or "", cond.get("message") or "", host,
                  parse_time(cond.get("lastTransitionTime")), severity)
    return e.with_context(details={**e.details, STANDING: ctype}) if e is not None else None


def foreign_fact(host: str, cond: Mapping[str, Any], now: float | None) -> Evidence | None:
    """Another detector's condition as the node fault of the kind its row names, the kind's attribution (as
    NODE_REASONS gives gpu-npd's own), its words in the text: "EKS node monitoring agent: AcceleratedHardwareReady=
    False (NvidiaXID79Error): ...".  None where its status is not its problem, or, with `now` (epoch seconds), its
    detector stopped beating (its lastHeartbeatTime more than STALE_BEATS of its period before `now`)."""
    ctype, status = cond.get("type", ""), cond.get("status")
    reason, message = str(cond.get("reason") or ""), str(cond.get("message") or "")
    row = foreign_condition(ctype, reason)
    if row is None or status != row.problem:
        return None
    if row.heartbeat is not None and now is not None:
        beat = parse_time(cond.get("lastHeartbeatTime"))
        if beat is None or now - beat.timestamp() > STALE_BEATS * row.heartbeat:
            return None  # its detector no longer says it: gone, or wedged
    code = None
    if row.code:
        m = re.search(row.code, reason) or re.search(row.code, message)
        code = int(m.group(1)) if m else None
    k = KIND[row.kind]
    text = f"{row.detector}: {ctype}={status} ({reason})" + (f": {message}" if message else "")
    return Evidence(row.kind, row.severity, k.node_attribution or k.attribution,
                    parse_time(cond.get("lastTransitionTime")), host, text=text[:MESSAGE_TEXT],
                    xid=code if row.kind == "xid" else None, sxid=code if row.kind == "sxid" else None,
                    file=f"node/{host}", details={"reason": reason, "detector": row.detector, STANDING: ctype})
