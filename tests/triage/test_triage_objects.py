"""`gpu-npd triage` over a document of Kubernetes objects (`kubectl get events -o yaml`, `kubectl get pods,events -o
json`): each object read as the live path reads it, its own time, node and pod, which in the document sit on other
lines than its reason and message (triage.inventory read_objects / read_events); anything else, and a document that
does not parse, read as text with a one-line note.

`events-evicted.yaml` is verbatim (tests/fixtures/pods/ended/README.md names its source).  The JSON forms are
constructed: the same Event as kubectl prints it with -o json (the YAML loaded and dumped), or built from the API's
Event types (core/v1 and events.k8s.io/v1, k8s.io/api), as named beside each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cluster.evidence import Reader
from gpunpd.cli import main
from offline.triage_cli import Inputs, collect
from parsers.envelope import parse_time
from triage import Evidence, attribute
from triage.inventory import read_inventory, read_objects

EVICTED = Path(__file__).resolve().parent.parent / "fixtures" / "pods" / "ended" / "events-evicted.yaml"
WHEN = "2026-08-18T22:56:34+00:00"


def _triage(*paths) -> dict:
    r = CliRunner().invoke(main, ["triage", "--format", "json", *map(str, paths)])
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)


def _events() -> list[dict]:
    return yaml.safe_load(EVICTED.read_text())


def _collect(*paths) -> tuple[list, Inputs]:
    inputs = Inputs()
    return collect(tuple(map(str, paths)), None, inputs), inputs


def _ended(evidence) -> list:
    return [e for e in evidence if e.kind == "job_ended"]


def test_yaml_events_keep_their_time_node_and_pod():
    """velero-io/velero #10322's Evicted Event, as `kubectl get events -o yaml` prints its items.  Was: its lines read
    as a log's, the reason on one line and its time on others: no time, the host a directory's name ("ended"), no
    pod.  Now one fact of the object: its firstTimestamp, the node whose kubelet reported it (reportingInstance), the
    pod it is about."""
    doc = _triage(EVICTED)
    [incident] = doc["incidents"]
    assert incident["root"]["host"] == "r5-ru2" and incident["root"]["pod"] == "cloudnativepg/example"
    assert incident["time"] == WHEN and "ended by Kubernetes (Evicted" in incident["reason"]
    assert doc["skipped"] == []


def test_json_event_list_and_a_single_event_read_alike(tmp_path: Path):
    """The same Event as `kubectl get events -o json` (an EventList: constructed, the YAML dumped as JSON) and as one
    object (`kubectl get event NAME -o json`): the same fact, time, node and pod."""
    (tmp_path / "events.json").write_text(json.dumps({"apiVersion": "v1", "kind": "EventList", "items": _events()},
                                                     indent=4))
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "event.json").write_text(json.dumps(_events()[0], indent=4))
    for path in (tmp_path / "events.json", tmp_path / "one" / "event.json"):
        [e] = _ended(_collect(path)[0])
        assert (e.time.isoformat(), e.host, e.details["pod_end"], e.details["pod"]) == (
            WHEN, "r5-ru2", "Evicted", "cloudnativepg/example")


def test_events_k8s_io_v1_and_an_image_pull_event():
    """events.k8s.io/v1's names (regarding, note, eventTime, reportingController: constructed from k8s.io/api
    events/v1 types.go) and the kubelet's "Error: ErrImagePull" Event (its words as in
    tests/fixtures/pods/ended/events-image-pull.txt): read as core/v1's are."""
    ev = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "eventTime": "2024-01-22T12:00:00.123456Z",
          "reportingController": "kubelet", "reportingInstance": "node-3", "type": "Warning", "reason": "Failed",
          "regarding": {"kind": "Pod", "namespace": "train", "name": "w-3"}, "note": "Error: ErrImagePull"}
    [e] = read_objects(ev, "events.json")
    assert (e.kind, e.details["pod_end"], e.details["pod"], e.host) == ("job_ended", "ErrImagePull", "train/w-3",
                                                                       "node-3")
    assert e.time.isoformat() == "2024-01-22T12:00:00.123456+00:00" and (e.file, e.line) == ("events.json", None)


def test_an_image_pull_reads_never_started():
    """Was: "pod w-3 ended by Kubernetes (ErrImagePull: ..)" for a pod that never ran.  Now the POD_ENDS row's own
    words ("never started")."""
    ev = {"kind": "Event", "type": "Warning", "reason": "Failed", "firstTimestamp": "2024-01-22T12:00:00Z",
          "involvedObject": {"kind": "Pod", "namespace": "train", "name": "w-3"}, "message": "Error: ErrImagePull",
          "source": {"component": "kubelet", "host": "node-3"}}
    incident = attribute(read_objects({"kind": "EventList", "items": [ev]}))[0]
    assert incident.reason.startswith("pod train/w-3 never started (ErrImagePull: the kubelet could not pull")


def test_mixed_pods_and_events_and_a_log(tmp_path: Path):
    """`kubectl get pods,events -o json` (a List of both: the Pod constructed around kubernetes/kubernetes #122932's
    eviction message) beside a log: the pod's end, the Event's, and the log's line, each with its own time."""
    pod = {"kind": "Pod", "metadata": {"name": "w-1", "namespace": "train"}, "spec": {"nodeName": "node-1"},
           "status": {"phase": "Failed", "reason": "Evicted", "startTime": "2024-01-22T10:00:00Z",
                      "message": "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, "
                                 "available: 777784Ki."}}
    (tmp_path / "cluster.json").write_text(json.dumps({"kind": "List", "items": [pod, *_events()]}, indent=2))
    found = read_objects(json.loads((tmp_path / "cluster.json").read_text()), "cluster.json")
    assert sorted((e.details["pod"], e.host, e.time.isoformat()) for e in found if e.kind == "job_ended") == [
        ("cloudnativepg/example", "r5-ru2", WHEN), ("train/w-1", "node-1", "2024-01-22T10:00:00+00:00")]
    (tmp_path / "node-1").mkdir()
    # the driver's line as tests/fixtures/dmesg's samples hold it (dmesg: seconds since boot, no wall time)
    (tmp_path / "node-1" / "dmesg.log").write_text(
        "[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    evidence, inputs = _collect(tmp_path)
    assert {(e.kind, e.host) for e in evidence if e.kind != "nccl_address"} == {
        ("xid", "node-1"), ("job_ended", "node-1"), ("job_ended", "r5-ru2")}
    assert inputs.skipped == [] and inputs.errors == []


def test_bad_documents_are_read_as_text_with_a_note(tmp_path: Path):
    """Half a JSON document (cut), YAML that does not parse, and YAML that parses to no objects: a one-line note each
    in "skipped", and every line still read as a log's (the cut document's reason line is still the pod's end)."""
    whole = json.dumps({"kind": "EventList", "items": _events()}, indent=4).splitlines(True)
    cut = [line for line in whole if '"lastTimestamp"' not in line]  # (its reason then ends what is kept)
    (tmp_path / "cut.json").write_text("".join(cut[:next(n for n, line in enumerate(cut) if '"reason"' in line) + 1]))
    assert '"reason": "Evicted"' in (tmp_path / "cut.json").read_text()
    (tmp_path / "bad.yaml").write_text("apiVersion: v1\nitems: [\n  - {kind: Event\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n")
    evidence, inputs = _collect(tmp_path)
    notes = inputs.skipped
    assert len(notes) == 3 and all("\n" not in n and n.endswith("; read as text") for n in notes)
    assert any("cut.json: not read as Kubernetes objects (JSON that does not parse: " in n for n in notes)
    assert any("bad.yaml: not read as Kubernetes objects (YAML that does not parse: " in n for n in notes)
    assert any("cm.yaml: YAML with no Pod, Node or Event" in n for n in notes)
    assert [e.details["pod_end"] for e in _ended(evidence)] == ["Evicted"] and inputs.errors == []
    assert _triage(tmp_path / "cut.json")["skipped"] == [n for n in notes if "cut.json" in n]  # (--format json's)


def test_read_inventory_keeps_every_line_of_what_it_cannot_read():
    """Nothing lost: the lines read_inventory took of a document it could not read are handed back whole."""
    lines = ['  "kind": "EventList",\n', '  "items": [\n']
    notes: list[str] = []
    found, taken = read_inventory(iter(lines), "{\n", "x.json", notes=notes)
    assert found is None and taken == ["{\n", *lines] and len(notes) == 1


def test_text_report_names_an_objects_file_without_a_line():
    """An object's evidence has no line of its file: the text report names the file alone (was "FILE:None")."""
    r = CliRunner().invoke(main, ["triage", str(EVICTED)])
    assert r.exit_code == 0 and f"{EVICTED}  " in r.output and ":None" not in r.output, r.output


def test_an_objects_place_in_a_reason_names_its_file_without_a_line():
    """The reason that names failures no clock places (attribute's unplaced) wrote `(FILE:LINE)` itself and gave
    "events.json:None" for an object of a kubectl document; the one `Evidence.place` serves it and the text report."""
    from triage.model import Evidence

    assert Evidence("job_ended", file="events.json").place == "events.json"
    assert Evidence("job_ended", file="train.log", line=12).place == "train.log:12"
    import importlib  # noqa: PLC0415

    module = importlib.import_module("triage.attribute")  # (the package's `attribute` is the function)
    assert "e.file}:{e.line}" not in Path(module.__file__).read_text()


# ---- a Pod object's containers' ends (triage.inventory pod_ends, as the live path reads them) ------------------

OOM_POD = EVICTED.parent / "pod-oomkilled.yaml"


def _timeouts(ranks, at: str) -> list[Evidence]:
    """The other ranks' NCCL watchdog timeouts (Evidence objects, as test_pod_ended.py builds them)."""
    return [Evidence("nccl_timeout", "error", "unknown", parse_time(at), f"node-{r}", r, seq=7219, op="ALLREDUCE",
                     timeout_ms=600000, file=f"pod/w-{r}") for r in ranks]


def test_a_pod_objects_oomkilled_container_is_the_root_over_the_ranks_timeouts():
    """`kubectl get pod w-3 -o yaml` of a rank whose container was OOM-killed (pod-oomkilled.yaml: the state block
    verbatim from flyteorg/flyteplugins #48, exit code 0), the other ranks' NCCL timeouts ten minutes later.  Was:
    the Pod read for its addresses only, the timeouts undetermined.  Now the container's end as the live path reads it
    (oom_kill, its node, finishedAt, the pod), the root: the application's, pod train/w-3 named."""
    found = read_objects(yaml.safe_load(OOM_POD.read_text()), str(OOM_POD))
    [oom] = [e for e in found if e.kind == "oom_kill"]
    assert (oom.host, oom.time.isoformat(), oom.details["pod"], oom.file) == (
        "node-3", "2019-08-29T00:51:41+00:00", "train/w-3", str(OOM_POD))
    incident = attribute(found + _timeouts([0, 1, 2], "2019-08-29T01:01:41Z"))[0]
    assert (incident.category, incident.root.kind, incident.root.host, incident.root.pod) == (
        "application", "oom_kill", "node-3", "train/w-3")
    live = [e for e in Reader().pod_exits(yaml.safe_load(OOM_POD.read_text())) if e.kind != "pod_started"]
    assert [(e.kind, e.host, e.time, e.details) for e in live] == [(oom.kind, oom.host, oom.time, oom.details)]
    doc = _triage(OOM_POD)  # the same through the CLI: one object of the file, no text read
    assert doc["incidents"][0]["root"]["pod"] == "train/w-3" and doc["skipped"] == []


def _crash_looping(terminated: dict) -> dict:
    """A rank's Pod (constructed: core/v1 Pod) whose container waits in CrashLoopBackOff, its last end `terminated`."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w-1", "namespace": "train"},
            "spec": {"nodeName": "node-1"},
            "status": {"phase": "Running", "containerStatuses": [{
                "name": "pytorch", "restartCount": 3, "lastState": {"terminated": terminated},
                "state": {"waiting": {"reason": "CrashLoopBackOff",
                                      "message": "back-off 5m0s restarting failed container=pytorch"}}}]}}


@pytest.mark.parametrize("terminated, kind, signal", [
    # kubernetes/kube-state-metrics #1227 (kubectl describe): Waiting CrashLoopBackOff, Last State OOMKilled, 137,
    # Finished: Tue, 15 Sep 2020 08:45:38 +0200
    ({"reason": "OOMKilled", "exitCode": 137, "startedAt": "2020-09-15T06:45:37Z", "finishedAt": "2020-09-15T06:45:38Z"},
     "oom_kill", None),
    # kubernetes/kubernetes #122256 (kubectl describe): Last State Error, exit code 137, Finished: Mon, 13 Nov 2023
    # 03:50:55 +0100 (there the container running again; here waiting in CrashLoopBackOff)
    ({"reason": "Error", "exitCode": 137, "startedAt": "2023-11-13T02:48:52Z", "finishedAt": "2023-11-13T02:50:55Z"},
     "rank_exit", 9),
    ({"reason": "Error", "exitCode": 1, "finishedAt": "2023-11-13T02:50:55Z"}, "rank_exit", None),
])
def test_a_crash_looping_containers_last_end_read_offline_as_live(terminated, kind, signal):
    """A container in CrashLoopBackOff shows its end in lastState.terminated.  Was: nothing of it read offline.  Now
    its end, as the live path reads it (Reader.pod_exits): the kind, the signal of an exit code 128+N, its node, its
    finishedAt and its pod; the waiting reason itself is no POD_ENDS row (the pod is not Kubernetes' to end)."""
    pod = _crash_looping(terminated)
    offline = [e for e in read_objects(pod) if e.kind not in ("nccl_address", "pod_started")]  # (context: it ran)
    assert [(e.kind, e.signal, e.host, e.time, e.details["pod"]) for e in offline] == [
        (kind, signal, "node-1", parse_time(terminated["finishedAt"]), "train/w-1")]
    assert [(e.kind, e.signal, e.time) for e in Reader().pod_exits(pod) if e.kind != "pod_started"] == [
        (kind, signal, offline[0].time)]
    incident = attribute(offline + _timeouts([0, 2, 3], "2023-11-13T03:00:00Z"))[0]
    assert (incident.root.kind, incident.root.host, incident.root.pod) == (kind, "node-1", "train/w-1")


def test_a_pod_object_with_a_bad_container_status_gives_no_traceback():
    """A hand-edited Pod whose containerStatuses hold a string or a state that is no mapping: no evidence of it, no
    exception."""
    pod = _crash_looping({"reason": "Error", "exitCode": 1})
    pod["status"]["containerStatuses"].append("pytorch")
    pod["status"]["containerStatuses"].append({"name": "x", "state": {"terminated": "137"}})
    assert [e.kind for e in read_objects(pod) if e.kind != "nccl_address"] == ["rank_exit"]


# kubectl edit's header above the YAML it opens, verbatim from kubectl's source (kubernetes/kubectl
# pkg/cmd/util/editor/editoptions.go, quoted as printed in many pages' `kubectl edit` sessions)
KUBECTL_EDIT_HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
                       "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
                       "# reopened with the relevant failures.\n"
                       "#\n")


@pytest.mark.parametrize("header", [KUBECTL_EDIT_HEADER, "# kubectl get events -n cloudnativepg -o yaml\n\n"])
def test_a_yaml_document_after_comment_lines_is_read_as_objects(tmp_path: Path, header: str):
    """A saved `kubectl edit` buffer, or a `#` header a user wrote above `kubectl get -o yaml`'s output: YAML ignores
    the comments, so the objects are read as without them (was: the file read as a log, its first line no
    `apiVersion: `); a log that opens with comments stays a log, every line of it."""
    (tmp_path / "events.yaml").write_text(header + EVICTED.read_text())
    doc = _triage(tmp_path / "events.yaml")
    [incident] = doc["incidents"]
    assert incident["root"]["pod"] == "cloudnativepg/example" and incident["time"] == WHEN, incident
    assert doc["skipped"] == []
    log = ["# a run's notes\n", "\n", "[rank2]: torch.cuda.OutOfMemoryError: CUDA out of memory.\n"]
    found, taken = read_inventory(iter(log[1:]), log[0], "train.log")
    assert found is None and taken == log


def test_a_json_document_after_comment_lines_is_read_as_objects(tmp_path: Path):
    """The same for `kubectl get -o json`'s output under a `#` header: JSON has no comments, so the document parsed is
    the text from its own first line (`{`), the header passed over (a JSON parser given the header fails: the file was
    read as a log, every line of it, and the eviction was lost)."""
    items = yaml.safe_load(EVICTED.read_text())  # (a List's items pasted alone; kubectl's JSON is the List)
    doc = json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}, indent=4)
    (tmp_path / "events.json").write_text("# kubectl get events -n cloudnativepg -o json\n\n" + doc + "\n")
    out = _triage(tmp_path / "events.json")
    [incident] = out["incidents"]
    assert incident["root"]["pod"] == "cloudnativepg/example" and incident["time"] == WHEN, incident
    assert out["skipped"] == []


def _terminating(code: int, finished: str, conditions: tuple = ()) -> dict:
    """CONSTRUCTED from core/v1's Pod fields (k8s.io/api core/v1 types.go: metadata.deletionTimestamp and
    deletionGracePeriodSeconds, which `kubectl get pods` shows as STATUS `Terminating`): a rank's pod being deleted
    at 07:00:02 with a 30 s grace, its container ended at `finished` with `code`."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "train-w-0", "namespace": "ml", "deletionTimestamp": "2024-07-25T07:00:32Z",
                         "deletionGracePeriodSeconds": 30},
            "spec": {"nodeName": "node-a", "terminationGracePeriodSeconds": 30},
            "status": {"podIP": "10.0.0.5", "conditions": list(conditions), "containerStatuses": [
                {"name": "main", "state": {"terminated": {"exitCode": code, "reason": "Error", "finishedAt": finished}}}]}}


def test_a_terminating_pods_sigterm_exit_is_its_deletion_not_a_rank_death(tmp_path: Path):
    """(h379) An offline snapshot of a pod being deleted (`kubectl get pod -o yaml` of a `Terminating` pod) whose
    container exited 143 (the kubelet's SIGTERM) or 137 (its SIGKILL at the grace's end) after the request: the
    deletion's consequence, no rank's death (was: a rank_exit, the incident's root "exit (signal 15)").  Who deleted
    it names the root where the snapshot says (its DisruptionTarget condition: the scheduler's preemption, a drain's
    Eviction API); an exit that came before the request is still the rank's own death.  Read by the live path's rule
    (triage.inventory ended_by_deletion, the clocks alone: a snapshot has no watch order)."""
    def read(pod):
        return [(e.kind, e.details.get("pod_end")) for e in read_objects(pod, "pod.yaml")
                if e.kind in ("rank_exit", "job_ended")]

    for code in (143, 137):
        assert read(_terminating(code, "2024-07-25T07:00:03Z")) == [], code
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(_terminating(143, "2024-07-25T07:00:03Z")))
    assert _triage(path)["incidents"] == []
    preempted = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                 "lastTransitionTime": "2024-07-25T07:00:02Z",
                 "message": "default-scheduler: preempting to accommodate a higher priority pod"}  # (CONSTRUCTED
    # from kube-scheduler's source, kubernetes/kubernetes pkg/scheduler/framework/preemption/preemption.go's
    # fmt.Sprintf("%s: preempting to accommodate a higher priority pod", pod.Spec.SchedulerName))
    assert read(_terminating(143, "2024-07-25T07:00:03Z", (preempted,))) == [("job_ended", "PreemptionByScheduler")]
    assert read(_terminating(1, "2024-07-25T06:10:00Z")) == [("rank_exit", None)]  # before the request: its own
    assert read(_terminating(139, "2024-07-25T07:00:02Z")) == [("rank_exit", None)]  # a segfault at the request
