"""Other detectors' node conditions (triage.facts FOREIGN_CONDITIONS) as node faults of the jobs on the node: the EKS
node monitoring agent's AcceleratedHardwareReady=False, node-problem-detector's KernelDeadlock=True, NVSentinel's
SysLogsXIDError=True.  Before, the cluster component read only gpu-npd's own conditions: a job on a node whose EKS
agent said an Xid 79 got no node fault from it.

Every condition here is CONSTRUCTED in its detector's format, from its source:
- EKS: reason `NvidiaXID%dError`, status False (aws/eks-node-monitoring-agent pkg/reasons/reasons.yaml,
  pkg/manager/node_exporter.go Fatal), message as monitors/nvidia/dcgm/dcgm_policies.go handleXidFinding words it;
- NPD: condition KernelDeadlock, reason DockerHung, status True (kubernetes/node-problem-detector
  config/kernel-monitor.json), message a line of that rule's pattern (`task docker:\\w+ blocked for more than \\w+
  seconds\\.`);
- NVSentinel: type the check name, reason `<check>IsNotHealthy`, message "ErrorCode:<code> <entity> .. Recommended
  Action=..;" (NVIDIA/NVSentinel platform-connectors/pkg/connectors/kubernetes/process_node_events.go).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from apiserver_double import ApiDouble
from harness import wait_until

from cluster.book import Book
from cluster.evidence import Reader
from triage.facts import FOREIGN_CONDITIONS, STALE_BEATS

from test_cluster import NODES, controller, gang, incidents


def stamp(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def eks_xid(status: str = "False", since: float | None = None, beat: float | None = None) -> dict:
    now = time.time()
    return {"type": "AcceleratedHardwareReady", "status": status, "reason": "NvidiaXID79Error",
            "message": "detected XID-79 on the instance, review kernel logs for additional information.",
            "lastTransitionTime": stamp(since if since is not None else now - 60),
            "lastHeartbeatTime": stamp(beat if beat is not None else now - 30)}


def npd_deadlock(status: str = "True") -> dict:
    now = time.time()
    return {"type": "KernelDeadlock", "status": status, "reason": "DockerHung",
            "message": "task docker:7 blocked for more than 300 seconds.",
            "lastTransitionTime": stamp(now - 60), "lastHeartbeatTime": stamp(now - 30)}


def nvsentinel_xid() -> dict:
    return {"type": "SysLogsXIDError", "status": "True", "reason": "SysLogsXIDErrorIsNotHealthy",
            "message": "ErrorCode:79 PCI:0000:5d:00 GPU has fallen off the bus. Recommended Action=RESTART_BM;",
            "lastTransitionTime": stamp(time.time() - 60), "lastHeartbeatTime": stamp(time.time() - 60)}


def node(*conditions: dict) -> dict:
    return {"metadata": {"name": "node-b"}, "status": {"conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady"}, *conditions]}}


def pod_of(name: str, host: str) -> dict:
    return {"metadata": {"name": name, "namespace": "train", "uid": f"uid-{name}", "creationTimestamp":
                         "2024-07-25T06:00:00Z", "labels": {"jobset.sigs.k8s.io/jobset-name": "llm",
                                                            "batch.kubernetes.io/job-name": "llm-w-0"}},
            "spec": {"nodeName": host}}


def opened(cond: dict, **kw) -> list:
    """The incidents a Book opens for a 4-node job whose node-b has `cond` (the Book's clock: now)."""
    now = time.time()
    book = Book(**kw)
    for i, host in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", host), now)
    book.node(node(cond), now)
    return [c for c in book.settle(now + 1) if c.what == "opened"]


def test_eks_accelerated_hardware_not_ready_names_its_node():
    """AcceleratedHardwareReady=False (NvidiaXID79Error) on node-b: the job's incident is node-b's Xid 79, hardware,
    its text naming the detector and its words.  Failed before: no incident (the condition was not read)."""
    (c,) = opened(eks_xid())
    root, e = c.incident.root, c.incident.evidence[0]
    assert (c.incident.category, root.host, root.kind, e.xid, e.attribution) == ("hardware", "node-b", "xid", 79,
                                                                                "hardware")
    assert e.text.startswith("EKS node monitoring agent: AcceleratedHardwareReady=False (NvidiaXID79Error): "
                                "detected XID-79"), root.text
    assert e.details["detector"] == "EKS node monitoring agent"


def test_npd_kernel_deadlock_names_its_node():
    """KernelDeadlock=True (DockerHung): gpu-npd's own hung_task, on node-b, as triage reads one (its first
    failure).  Failed before: no incident."""
    (c,) = opened(npd_deadlock())
    assert (c.incident.root.host, c.incident.root.kind) == ("node-b", "hung_task")
    assert c.incident.evidence[0].text.startswith("node-problem-detector: KernelDeadlock=True (DockerHung): task docker:7")


def test_nvsentinel_syslog_xid_names_its_node_with_its_code():
    (c,) = opened(nvsentinel_xid())
    assert (c.incident.root.host, c.incident.root.kind, c.incident.evidence[0].xid) == ("node-b", "xid", 79)


@pytest.mark.parametrize("cond", [
    eks_xid("True"),  # healthy (its ready reason would be NvidiaGPUIsReady; the status is what counts)
    eks_xid("Unknown"),
    eks_xid(beat=time.time() - STALE_BEATS * 300 - 60),  # its agent stopped beating: no longer said
    {k: v for k, v in eks_xid().items() if k != "lastHeartbeatTime"},  # never beat: not known to be said
    npd_deadlock("False"),
    npd_deadlock("Unknown"),
    {**eks_xid(), "type": "NetworkingReady", "reason": "InterfaceNotUp"},  # not a type read (IPoIB false alarms)
])
def test_a_healthy_unknown_stale_or_unread_condition_is_no_fault(cond):
    assert Reader().condition("node-b", cond, time.time()) is None
    assert opened(cond) == []


def test_the_switch_off_reads_no_foreign_condition():
    for cond in (eks_xid(), npd_deadlock(), nvsentinel_xid()):
        assert Reader().condition("node-b", cond, time.time(), foreign=False) is None
        assert opened(cond, foreign_conditions=False) == []


def test_each_foreign_row_reads_back_as_a_node_fact_of_its_kind():
    """Every row of the table: its problem status read as its kind, on the node, its detector named; the other
    status none."""
    now = time.time()
    for row in FOREIGN_CONDITIONS:
        reason = {"AcceleratedHardwareReady": {"xid": "NvidiaXID48Error", "nvlink": "NvidiaNVLinkError",
                                               "nvlink_fabric": "FabricManagerNotRunning"}.get(row.kind, "DCGMError")
                  }.get(row.type, "Something")
        cond = {"type": row.type, "status": row.problem, "reason": reason, "message": "m",
                "lastTransitionTime": stamp(now - 5), "lastHeartbeatTime": stamp(now - 5)}
        e = Reader().condition("node-b", cond, now)
        assert (e.kind, e.host, e.severity, e.details["detector"]) == (row.kind, "node-b", row.severity,
                                                                     row.detector), row
        other = "True" if row.problem == "False" else "False"
        assert Reader().condition("node-b", {**cond, "status": other}, now) is None


def test_an_eks_xid_condition_names_its_node_in_the_incident_event_live():
    """Against the API double: node-b's EKS agent says AcceleratedHardwareReady=False (NvidiaXID79Error) while the
    JobSet's pods run: the incident Event on the JobSet names node-b.  Failed before: no incident."""
    with ApiDouble() as api:
        gang(api)
        api.nodes["node-b"]["status"]["conditions"].append(eks_xid())
        api.nodes.touch("node-b")
        with controller(api):
            ev = wait_until(lambda: next((e for e in incidents(api) if "node node-b" in e["message"]), None),
                            "the incident on node-b's EKS condition")
        assert "hardware" in ev["message"], ev["message"]


def test_the_switch_off_opens_no_incident_live():
    from test_cluster import settled

    with ApiDouble() as api:
        gang(api)
        api.nodes["node-b"]["status"]["conditions"].append(eks_xid())
        api.nodes.touch("node-b")
        with controller(api, foreign_conditions=False) as c:
            settled(c, 3)
            assert incidents(api) == []
