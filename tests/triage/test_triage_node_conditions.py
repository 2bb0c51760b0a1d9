"""A Node's conditions in a dump (`kubectl get nodes -o json`, `kubectl get pods,nodes,events -o json`) read by offline
`gpu-npd triage` as the live cluster component reads them (triage/conditions.py read_condition, cluster/evidence.py
Reader.condition): gpu-npd's own that stand, other detectors' (triage.facts FOREIGN_CONDITIONS) that say their
problem, each a node fault on its node at its lastTransitionTime.  Was: a Node read for its addresses and NoExecute
taints only, its conditions ignored; a post-mortem dump whose node Events had expired (an hour) named no node fault.

Every object here is CONSTRUCTED (core/v1 Node and Event, as kubectl prints them with -o json):
- gpu-npd's GPUUnhealthy condition: reason Xid79FallenOffBus, message as agent/health.py `sentence` words it around
  the driver's line (the kernel line as tests/cluster/test_cluster.py's XID79, tests/fixtures/dmesg's sample), as
  tests/cluster/test_cluster_kubelet_events.py `xid_condition` builds it;
- the EKS node monitoring agent's AcceleratedHardwareReady=False NvidiaXID79Error, as
  tests/cluster/test_cluster_foreign_conditions.py `eks_xid` (aws/eks-node-monitoring-agent's reasons and words);
- the node agent's Node Event of the same Xid (kubeapi/events.py's shape: involvedObject the Node, reason as the
  condition's, message "Xid 79 on GPU <pci>: <the kernel's line>. Recommended action: ..").
The ranks' lines are CONSTRUCTED too: PyTorch's NCCL watchdog timeout as tests/triage/test_triage.py's lines word it,
each behind the stamp `kubectl logs --timestamps` prefixes (which gives the job's year)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.health import sentence
from cluster.evidence import Reader
from gpunpd.cli import main
from offline.triage_cli import Inputs, collect
from parsers import Classifier
from triage import attribute
from triage.facts import STALE_BEATS
from triage.inventory import read_objects

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
SINCE = "2024-07-25T06:36:02Z"  # the fault: ten minutes before the ranks' watchdogs fired
BEAT = "2024-07-25T06:50:00Z"  # the kubelets' last status update before the dump


def gpu_unhealthy(status: str = "True") -> dict:
    """node-b's agent's GPUUnhealthy condition of a standing Xid 79 (constructed; the message agent/health.py's)."""
    f = Classifier().classify_alone(XID79)
    return {"type": "GPUUnhealthy", "status": status, "reason": "Xid79FallenOffBus", "lastTransitionTime": SINCE,
            "lastHeartbeatTime": BEAT, "message": sentence(f, "RESTART_BM", "")}


def eks_xid(status: str = "False", beat: str = BEAT) -> dict:
    """The EKS node monitoring agent's AcceleratedHardwareReady condition of an Xid 79 (constructed)."""
    return {"type": "AcceleratedHardwareReady", "status": status, "reason": "NvidiaXID79Error",
            "message": "detected XID-79 on the instance, review kernel logs for additional information.",
            "lastTransitionTime": SINCE, "lastHeartbeatTime": beat}


def ready() -> dict:
    """The kubelet's own Ready condition (constructed), its heartbeat the dump's latest."""
    return {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
            "lastHeartbeatTime": BEAT, "lastTransitionTime": "2024-07-20T00:00:00Z"}


def node(name: str, ip: str, *conditions) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"addresses": [{"type": "InternalIP", "address": ip}], "conditions": [ready(), *conditions]}}


def xid_event(at: str = "2024-07-25T06:36:02.123456Z") -> dict:
    """node-b's agent's Node Event of the same Xid 79 (constructed)."""
    return {"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": "Xid79FallenOffBus",
            "involvedObject": {"kind": "Node", "name": "node-b"}, "source": {"component": "gpu-npd", "host": "node-b"},
            "eventTime": at, "firstTimestamp": at[:19] + "Z", "lastTimestamp": at[:19] + "Z", "count": 1,
            "message": f"Xid 79 on GPU 0000:5d:00: {XID79.rstrip('.')}. Recommended action: RESTART_BM"}


def watchdog(rank: int) -> str:
    """A rank's NCCL watchdog timeout (constructed, see the module's docstring)."""
    return (f"2024-07-25T06:46:03.341808Z [rank{rank}]:[E725 06:46:03.341808597 ProcessGroupNCCL.cpp:632] [Rank "
            f"{rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7219, OpType=ALLREDUCE, NumelIn=1, "
            "NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n")


def dump(tmp_path: Path, *items: dict, name: str = "cluster.json") -> Path:
    """A job's directory: each node's ranks' log (ranks 0,1 on node-a, 2,3 on node-b) and a kubectl dump of `items`."""
    for host, ranks in (("node-a", (0, 1)), ("node-b", (2, 3))):
        (tmp_path / host).mkdir(exist_ok=True)
        (tmp_path / host / "train.log").write_text("".join(map(watchdog, ranks)))
    (tmp_path / name).write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)}, indent=4))
    return tmp_path


def incidents(path: Path) -> list:
    return attribute(collect((str(path),), None, Inputs()))


def faults(doc) -> list:
    """What read_objects reads of a document, but the located addresses."""
    return [e for e in read_objects(doc, "cluster.json") if e.kind != "nccl_address"]


def test_a_standing_gpu_npd_condition_is_the_root_of_the_ranks_timeouts(tmp_path: Path):
    """node-b's GPUUnhealthy Xid79FallenOffBus, its Event expired: the ranks' timeouts are its consequences, the root
    node-b's Xid 79 on its GPU 0000:5d:00, at the condition's lastTransitionTime, read from the dump.  Was:
    undetermined ("no node fault")."""
    path = dump(tmp_path, node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", gpu_unhealthy()))
    first = incidents(path)[0]
    assert (first.category, first.rule, first.root.host, first.root.kind, first.root.pci) == (
        "hardware", "node_fault", "node-b", "xid", "0000:5d:00")
    root = first.evidence[0]
    assert (root.xid, root.time.isoformat(), root.file) == (79, "2024-07-25T06:36:02+00:00", str(path / "cluster.json"))
    assert root.details["condition"] == "GPUUnhealthy" and "4 ranks (0,1,2,3) timed out" in first.consequences


def test_the_cli_names_the_nodes_fault(tmp_path: Path):
    """The same through `gpu-npd triage <dir>`."""
    path = dump(tmp_path, node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", gpu_unhealthy()))
    r = CliRunner().invoke(main, ["triage", "--format", "json", str(path)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    first = doc["incidents"][0]
    assert (first["category"], first["rule"], first["root"]["host"], first["root"]["kind"]) == (
        "hardware", "node_fault", "node-b", "xid")
    assert first["evidence"][0]["text"].startswith("Xid 79 on GPU 0000:5d:00: NVRM: Xid (PCI:0000:5d:00): 79")
    assert doc["skipped"] == [] and doc["errors"] == []


def test_a_foreign_condition_is_the_root_too(tmp_path: Path):
    """The EKS node monitoring agent's AcceleratedHardwareReady=False (NvidiaXID79Error) on node-b: its Xid 79,
    hardware, its detector and words in the text."""
    path = dump(tmp_path, node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", eks_xid()))
    first = incidents(path)[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("hardware", "node_fault", "node-b", "xid")
    root = first.evidence[0]
    assert root.xid == 79 and root.details["detector"] == "EKS node monitoring agent"
    assert root.text.startswith("EKS node monitoring agent: AcceleratedHardwareReady=False (NvidiaXID79Error): ")


def test_offline_reads_a_condition_as_live_does():
    """The one reading: read_objects' evidence of a Node's condition is the live Reader's of it (its file the
    document's, where live names the node)."""
    now = datetime(2024, 7, 25, 6, 50, tzinfo=timezone.utc).timestamp()
    for cond in (gpu_unhealthy(), eks_xid()):
        [offline] = faults(node("node-b", "10.0.0.2", cond))
        live = Reader().condition("node-b", cond, now)
        assert offline == live.with_context(file="cluster.json"), cond["type"]


@pytest.mark.parametrize("cond", [
    gpu_unhealthy("False"),  # cleared
    gpu_unhealthy("Unknown"),
    eks_xid("True"),  # healthy
    {**gpu_unhealthy(), "type": "MemoryPressure"},  # a type no one reads as a fault
    {**eks_xid(), "type": "NetworkingReady", "reason": "InterfaceNotUp"},  # a type not read (IPoIB false alarms)
])
def test_a_healthy_or_unknown_condition_adds_nothing(cond, tmp_path: Path):
    assert faults(node("node-b", "10.0.0.2", cond)) == []
    first = incidents(dump(tmp_path, node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", cond)))[0]
    assert first.rule == "undetermined"


@pytest.mark.parametrize("bad", [
    "GPUUnhealthy=True",  # not a mapping
    None,
    ["GPUUnhealthy", "True"],
    {**gpu_unhealthy(), "type": ["GPUUnhealthy"]},  # fields of other types
    {**gpu_unhealthy(), "status": True},
    {**gpu_unhealthy(), "reason": 79},
    {**gpu_unhealthy(), "message": {"text": XID79}},
    {**gpu_unhealthy(), "lastTransitionTime": 1721889362},
    {**eks_xid(), "lastHeartbeatTime": ["2024-07-25T06:50:00Z"]},
])
def test_a_malformed_condition_is_skipped_and_nothing_else_is_lost(bad):
    """A hand-edited or cut document: the condition it cannot read is skipped, no exception; the node's addresses, its
    other conditions, the other objects are all read."""
    doc = {"kind": "List", "items": [node("node-b", "10.0.0.2", bad, eks_xid()), xid_event()]}
    found = read_objects(doc, "cluster.json")
    assert {(e.kind, e.address) for e in found if e.kind == "nccl_address"} == {("nccl_address", "10.0.0.2")}
    assert sorted("detector" in e.details for e in found if e.kind == "xid") == [False, True]  # the Event's, EKS's


def test_conditions_that_are_no_list_are_none():
    for conditions in ("GPUUnhealthy", {"type": "GPUUnhealthy"}, 7):
        obj = node("node-b", "10.0.0.2")
        obj["status"]["conditions"] = conditions
        assert faults(obj) == [] and read_objects(obj)[0].address == "10.0.0.2"


def test_a_foreign_condition_whose_detector_stopped_beating_is_none():
    """No clock of its own in a dump: the heartbeat check measures against the newest heartbeat in it (here the
    kubelets' Ready): a detector silent for more than STALE_BEATS periods before it is stale, as live would find it;
    a document with no beat but the condition's own reads it as it stands."""
    stale = "2024-07-25T06:{:02d}:00Z".format(50 - STALE_BEATS * 5 - 1)
    assert faults({"kind": "List", "items": [node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2",
                                                                             eks_xid(beat=stale))]}) == []
    assert [e.kind for e in faults(node("node-b", "10.0.0.2", eks_xid(beat="2024-07-25T06:46:00Z")))] == ["xid"]
    alone = {"kind": "Node", "metadata": {"name": "node-b"}, "status": {"addresses": [], "conditions": [
        eks_xid(beat=stale)]}}
    assert [e.kind for e in faults(alone)] == ["xid"]


def test_an_event_and_a_condition_of_one_fault_are_said_once(tmp_path: Path):
    """The node agent's Event of the Xid and its condition, both in the dump (one document, or the Events in another
    file): one fault, said once, by the Event (as the cluster component's Book says it: the condition repeats it),
    no second line of it.  Was (before conditions were read): the Event alone."""
    for items, events in (((node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", gpu_unhealthy()), xid_event()),
                           None),
                          ((node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", gpu_unhealthy())), xid_event())):
        path = dump(tmp_path, *items)
        if events is not None:
            dump(path, events, name="events.json")
        [first] = incidents(path)
        assert (first.root.host, first.root.kind, first.root.pci) == ("node-b", "xid", "0000:5d:00")
        xids = [e for e in first.evidence if e.kind == "xid"]
        assert len(xids) == 1 and "condition" not in xids[0].details, [e.text for e in xids]
        assert xids[0].time.isoformat() == "2024-07-25T06:36:02.123456+00:00"
        (path / "events.json").unlink(missing_ok=True)


def test_a_condition_speaks_where_its_faults_event_is_outside_the_window(tmp_path: Path):
    """An earlier Xid 79's Event of the same GPU, long before the job's window (an hour before the ranks' timeouts),
    silences no condition: the condition is the root, as live (cluster/book.py `_counting`)."""
    path = dump(tmp_path, node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", gpu_unhealthy()),
                xid_event("2024-07-25T05:30:00.000000Z"))
    first = incidents(path)[0]
    assert (first.root.host, first.root.kind) == ("node-b", "xid")
    assert first.evidence[0].details.get("condition") == "GPUUnhealthy"
    assert first.evidence[0].time.isoformat() == "2024-07-25T06:36:02+00:00"


def test_the_dumps_objects_give_the_year_of_rank_lines_that_print_none(tmp_path: Path):
    """Ranks' logs as `kubectl logs` gives them without --timestamps: PyTorch's c10 stamp prints no year
    ("[E725 06:46:03..]"), and no other line of the job gives one; the dump's objects are dated (the condition's
    lastTransitionTime, the Ready condition's, the heartbeats): their year is the job's, so the node's fault and the
    ranks' timeouts ten minutes later are one incident in any later year.  Was: the rank lines took this year (the
    caller's fallback), two years after the fault, and the fault was outside every window (undetermined)."""
    dump(tmp_path, node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", gpu_unhealthy()))
    for host, ranks in (("node-a", (0, 1)), ("node-b", (2, 3))):
        (tmp_path / host / "train.log").write_text("".join(watchdog(r).split(" ", 1)[1] for r in ranks))
    first = incidents(tmp_path)[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("hardware", "node_fault", "node-b", "xid")
    assert first.evidence[-1].time.year == 2024  # a rank's timeout: the dump's year


def test_a_condition_naming_no_gpu_repeats_what_names_the_gpu_of_the_same_fault(tmp_path: Path):
    """The EKS node monitoring agent's AcceleratedHardwareReady=False (NvidiaXID79Error) names no GPU; the node agent's
    Event of the same Xid 79 names it (0000:5d:00), and so does gpu-npd's own condition: one fault, said once, by what
    names the GPU.  Was: both said, the EKS condition "another fault in the window"."""
    for items in ((node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", eks_xid()), xid_event()),
                  (node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2", eks_xid(), gpu_unhealthy()))):
        [first] = incidents(dump(tmp_path, *items))
        xids = [e for e in first.evidence if e.kind == "xid"]
        assert [(e.pci, e.details.get("detector")) for e in xids] == [("0000:5d:00", None)], [e.text for e in xids]
    # alone, the EKS condition is the root (test_a_foreign_condition_is_the_root_too)
