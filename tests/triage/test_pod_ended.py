"""A job's pod ended by Kubernetes itself (triage.facts POD_ENDS): read offline from kubectl's output (the k8s_ended
row, `kubectl get pods -o json` beside the logs) and live from the pod's status (cluster/evidence.py, the Book), one
table for both, and how cascading recovery treats the incident (cluster/recovery.py).

The text fixtures are verbatim (tests/fixtures/pods/ended/README.md names each source).  Pod objects here are
synthetic, built around the real words named beside each; the rank timeouts are Evidence objects, not log lines."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from cluster.book import Book
from cluster.evidence import Reader
from cluster.recovery import fatal
from parsers import Classifier
from triage import Evidence, attribute
from triage.clock import Clock
from triage.facts import POD_ENDS, pod_end
from triage.inventory import read_inventory, read_objects
from triage.read import read_lines

ENDED = Path(__file__).resolve().parent.parent / "fixtures" / "pods" / "ended"
T0 = datetime(2024, 1, 22, 12, 0, 0, tzinfo=timezone.utc)

# kubernetes/kubernetes #122932 (kubectl describe pod): the kubelet's node-pressure eviction
EVICTED_MESSAGE = "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 777784Ki."
# kubernetes/kubernetes #114623 (kubectl get po pause1 -o json | jq ...): 1.26's scheduler preemption condition
PREEMPTED = {"lastProbeTime": None, "lastTransitionTime": "2022-12-20T22:45:55Z",
             "message": "Kube-scheduler: preempting to accommodate a higher priority pod: default/pause2",
             "reason": "PreemptionByKubeScheduler", "status": "True", "type": "DisruptionTarget"}
# kubernetes/kubernetes #96519 (the e2e test's error): a pod the device plugin refused its GPU at admission
ADMISSION_MESSAGE = ("Pod Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. "
                     "Requested: 1, Available: 0, which is unexpected")
# kubernetes/kubernetes pkg/controller/tainteviction/taint_eviction.go: the taint manager's condition
TAINTED = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager",
           "message": "Taint manager: deleting due to NoExecute taint", "lastTransitionTime": "2024-01-22T12:00:00Z"}


def _read(name: str) -> list[Evidence]:
    path = ENDED / name
    return [e for e in read_lines(path.read_text().splitlines(True), str(path), Clock(), root=str(ENDED))
            if e.kind == "job_ended"]


def ended(line: str) -> list:
    """The `job_ended` evidence one line gives, read as a kubectl output's line."""
    return [e for e in read_lines([line + "\n"], "k.txt", Clock()) if e.kind == "job_ended"]


@pytest.mark.parametrize("name, pod_end_key, why, host, pod", [
    ("describe-evicted.txt", "Evicted", "NODE PRESSURE", "kaapana", "admin/postgres-keycloak-6d8858f5b-4khf2"),
    ("describe-node-shutdown.txt", "Terminated", "NODE SHUTDOWN", "k22-node1",
     "default/nginx-deployment-66b6c48dd5-2pw4q"),
    ("events-admission-eof.txt", "UnexpectedAdmissionError", "ADMISSION ERROR", None, None),
    ("gitlab-runner-eviction-api.txt", "EvictionByEvictionAPI", "DRAIN", None, None),
    ("events-taint-manager-node-not-ready.txt", "DeletionByTaintManager", "NOEXECUTE TAINT", None,
     "java-demo/java-demo-api-5b876b98f8-nc7ct"),
])

def test_offline_reads_why_kubernetes_ended_the_pod(name, pod_end_key, why, host, pod):
    """Was: the eviction read as "job ended (Evicted)", the node shutdown, the admission errors and the drain not read
    at all (no incident).  Now each is Kubernetes ending the pod, its reason in POD_ENDS's words, on the described
    pod's node; the described pod named as its object names it (live and `-o json`: "namespace/name"; was none)."""
    found = _read(name)
    assert found, name
    assert {(e.details["pod_end"], e.details["why"]) for e in found} == {(pod_end_key, why)}
    assert {e.host for e in found} == {host}
    incident = attribute(found)[0]
    assert incident.category == "infrastructure" and incident.root.kind == "job_ended"
    assert incident.root.pod == pod
    assert f"{POD_ENDS[pod_end_key].ended} (" in incident.reason  # (the row says: a pod never admitted never started)



def _depth(text: str) -> int:
    """How deep the text's brackets nest (0: none)."""
    depth = deepest = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        deepest = max(deepest, depth)
    return deepest


@pytest.mark.parametrize("key", sorted(POD_ENDS))
def test_a_pod_ends_reason_nests_no_bracket(key):
    """Was: "pod X never started (OutOfnvidia.com/gpu: .. counted (a device plugin lost some))", "(FailedPrepare
    DynamicResources: .. (the node's DRA driver))": a POD_ENDS row's words bracketed inside the reason's bracket.  Now
    the reason's one bracket holds the pod's reason and the row's words, which hold none of their own; a pod no line
    names is "a pod" (was "pod never started")."""
    e = Evidence("job_ended", "error", "unknown", T0, "node-1", file="k.txt", line=1,
                 details={"pod_end": key, "why": POD_ENDS[key].why})
    [incident] = attribute([e])
    what = incident.reason.split(" on node-1")[0]
    assert what == f"a pod {POD_ENDS[key].ended} ({key}: {POD_ENDS[key].said})"
    assert _depth(incident.reason) == 1, incident.reason

def test_an_admission_the_device_plugin_refused_for_a_lost_gpu_is_that_nodes_lost_gpu():
    """The kubelet's UnexpectedAdmissionError quoting the device plugin's NVML_ERROR_GPU_IS_LOST ("error creating
    nvml.Device 5: nvml: GPU is lost, which is unexpected", kubernetes/kubernetes #97131): the node has a GPU fallen
    off the bus, and every GPU pod sent there is refused until it reboots.  Was: an infrastructure incident, Kubernetes
    ending the pod, no fault named.  Now the node's lost GPU, a hardware incident (parsers/rules.py
    "nvml_gpu_is_lost")."""
    path = ENDED / "describe-admission-gpu-lost.txt"
    found = list(read_lines(path.read_text().splitlines(True), str(path), Clock(), root=str(ENDED)))
    assert [(e.kind, e.severity) for e in found] == [("fallen_off_bus", "fatal")]
    incident = attribute(found)[0]
    assert incident.category == "hardware" and incident.root.kind == "fallen_off_bus"


@pytest.mark.parametrize("line", [
    # REAL: https://github.com/NVIDIA/k8s-device-plugin/issues/231 (the plugin's 2021 Go bindings)
    "Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown "
    "desc = Unable to retrieve list of available devices: error creating nvml.Device 3: nvml: GPU is lost, which is "
    "unexpected",
    # REAL: https://github.com/pytorch/ci-infra/pull/1057 (go-nvml through the allocator's link discovery; the PR
    # wraps the message, this its fourth line)
    "failed to get nvlink remote pci info: failed to get nvlink state: GPU is lost,",
])
def test_nvmls_gpu_is_lost_in_a_go_error_chain_is_the_lost_gpu(line):
    """Go programs (the device plugin, and the kubelet quoting it) print NVML's text at the end of their error chain,
    "<what failed>: GPU is lost".  Was: nothing (only nvidia-smi's, slurmstepd's and pynvml's prefixes were read)."""
    f = Classifier().classify(line)
    assert f is not None and (f.kind, f.severity, f.attribution) == ("fallen_off_bus", "fatal", "hardware")


@pytest.mark.parametrize("line", [
    # REAL: https://github.com/Project-HAMi/HAMi/issues/71 (the device plugin unreachable: no GPU fault)
    "  Warning  UnexpectedAdmissionError  10s   kubelet  Allocate failed due to rpc error: code = Unavailable desc = "
    "error reading from server: EOF, which is unexpected",
    # REAL: kubernetes/kubernetes #96519 (fewer devices than the scheduler counted)
    ADMISSION_MESSAGE,
    # constructed: the words in prose, no NVML error chain before them
    "if the GPU is lost the plugin marks it unhealthy",
])
def test_admission_errors_naming_no_lost_gpu_stay_no_gpu_fault(line):
    assert Classifier().classify(line) is None, line


def test_offline_reads_the_status_column_of_kubectl_get_pods():
    """`kubectl get pods` (kubernetes/kubernetes #88304): a row whose STATUS is Evicted is the kubelet's eviction; the
    Running row between them, nothing."""
    assert [(e.details["pod_end"], e.details["why"], e.line) for e in _read("get-pods-evicted.txt")] == [
        ("Evicted", "NODE PRESSURE", 2), ("Evicted", "NODE PRESSURE", 4)]


def test_a_serving_engines_evicted_and_preempted_are_no_pod_kubernetes_ended():
    """vllm.rs's "Evicted 715 prefix cache block(s) .." and vLLM's "Preempted request cmpl-.. has been resumed!" (the
    README's sources): a cache's eviction and a request's preemption inside the engine.  Was: each a pod Kubernetes
    ended, a NODE PRESSURE or PREEMPTION incident blamed on the infrastructure."""
    assert _read("serving-cache-words.txt") == []


@pytest.mark.parametrize("line, key", [
    # constructed from kube-scheduler's preemption Event (pkg/scheduler/framework/preemption/preemption.go: reason
    # "Preempted", message "Preempted by %v/%v on node %v"; 1.26+ "Preempted by a pod on node %v") as kubectl get
    # events and describe's Events table lay an Event out
    ("12m         Normal    Preempted           pod/w-3                       Preempted by train/w-9 on node node-3",
     "Preempted"),
    ("  Normal   Preempted  12m   default-scheduler  Preempted by a pod on node node-3", "Preempted"),
    # constructed from the kubelet's critical pod admission (pkg/kubelet/preemption/preemption.go: its message)
    ("Message:          Preempted in order to admit critical pod", "Preempted"),
    # constructed from the kubelet's eviction Event (pkg/kubelet/eviction: reason "Evicted") and a pod's -o yaml
    ("  Warning  Evicted    3m    kubelet  The node had condition: [DiskPressure].", "Evicted"),
    ("  reason: Evicted", "Evicted"),
])
def test_kubernetes_own_shapes_of_evicted_and_preempted_still_read(line, key):
    """The shapes Kubernetes prints the two words in (each built from the source named beside it, not copied from a
    log): each still a pod Kubernetes ended."""
    [e] = ended(line)
    assert e.details["pod_end"] == key


def test_the_kubelets_own_eviction_lines_name_the_pod_it_evicted():
    """The kubelet's eviction manager in its own log, both eras (the README's sources): klog text's "eviction manager:
    pods <name>_<ns>(<uid>) evicted, waiting .." (minikube #3611) and structured logging's "Eviction manager: pod is
    evicted successfully" pod="<ns>/<name>" (kubernetes/kubernetes #132001, on its journald line's host).  Was: not
    read at all (lowercase, no reason field).  Now each the pod's node-pressure eviction, the pod named; the
    "pods ranked for eviction" line before it (candidates, none evicted) nothing."""
    klog, structured = _read("kubelet-eviction-manager-klog.txt"), _read("kubelet-eviction-manager-structured.txt")
    assert [(e.details["pod_end"], e.details["why"], e.details["pod"]) for e in klog] == [
        ("Evicted", "NODE PRESSURE", "kube-system/kube-proxy-kfs8p")]
    assert [(e.details["pod_end"], e.details["pod"], e.host, e.line) for e in structured] == [
        ("Evicted", "sre/infras-logstash-d484d57fc-rkx95", "192-168-250-5", 2)]
    incident = attribute(structured)[0]
    assert incident.root.pod == "sre/infras-logstash-d484d57fc-rkx95" and "ended by Kubernetes" in incident.reason


@pytest.mark.parametrize("line, pod", [
    # constructed from eviction_manager.go (1.9-1.20: klog.Infof("eviction manager: pod %s is evicted successfully",
    # format.Pod(pod)), format.Pod's "<name>_<namespace>(<uid>)"; format.Pods joins several with ", ")
    ("I0322 15:28:11.663393    7481 eviction_manager.go:563] eviction manager: pod w-3_train(edde7e59-4cb6-11e9-a5e8-"
     "02d46899ed62) is evicted successfully", "train/w-3"),
    ("I0322 15:28:11.663452    7481 eviction_manager.go:187] eviction manager: pods w-3_train(edde7e59-4cb6-11e9-a5e8-"
     "02d46899ed62), w-4_train(e8838f63-4cb6-11e9-a5e8-02d46899ed62) evicted, waiting for pod to be cleaned up",
     "train/w-3"),
    # constructed from eviction_manager.go (1.21+: klog.InfoS("Eviction manager: pods evicted, waiting for pod to be
    # cleaned up", "pods", klog.KObjSlice(evictedPods)); KObjs before 1.27 printed the list unquoted)
    ('I0528 16:05:54.802950 2269385 eviction_manager.go:199] "Eviction manager: pods evicted, waiting for pod to be '
     'cleaned up" pods=["train/w-3"]', "train/w-3"),
    ('I0528 16:05:54.802950 2269385 eviction_manager.go:199] "Eviction manager: pods evicted, waiting for pod to be '
     'cleaned up" pods=[train/w-3]', "train/w-3"),
])
def test_every_shape_of_the_kubelets_eviction_line(line, pod):
    """Each era's two lines of the eviction manager (built from its source, named beside each): the pod evicted."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["pod"]) == ("Evicted", pod)


@pytest.mark.parametrize("line", [
    # constructed: eviction_manager.go's other lines (no pod evicted) and an engine's block eviction
    'I0528 16:05:50.514706 2269385 eviction_manager.go:368] "Eviction manager: pods ranked for eviction" pods=["a/b"]',
    "I0322 15:27:33.357616    7481 eviction_manager.go:358] eviction manager: pods ranked for eviction: "
    "w-3_train(edde7e59-4cb6-11e9-a5e8-02d46899ed62)",
    "W0322 15:28:41.663651    7481 eviction_manager.go:392] eviction manager: timed out waiting for pods "
    "w-3_train(edde7e59-4cb6-11e9-a5e8-02d46899ed62) to be cleaned up",
    "INFO 08-21 07:17:09 [block_pool.py:300] evicted 128 blocks from the prefix cache",
])
def test_eviction_words_that_evict_no_pod(line):
    assert ended(line) == []


def _pod(name, node, status, rank=3, ns="train"):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}",
                                        "creationTimestamp": "2024-01-22T10:00:00Z",
                                        "labels": {"job-name": "llama"},
                                        "annotations": {"batch.kubernetes.io/job-completion-index": str(rank)}},
            "spec": {"nodeName": node}, "status": status}


def _timeouts(ranks, at):
    """The other ranks' NCCL watchdog timeouts (Evidence objects, as the agents' Events read back)."""
    return [Evidence("nccl_timeout", "error", "unknown", at, f"node-{r}", r, seq=7219, op="ALLREDUCE",
                     timeout_ms=600000, file=f"pod/w-{r}") for r in ranks]


def test_live_evicted_pod_is_the_root_not_a_rank_death():
    """A gang job's pod the kubelet evicted for node pressure (status as kubernetes/kubernetes #122932 words it), its
    container SIGKILLed (exit 137), the other ranks timing out in NCCL after it.  Was: "rank 3 died first (signal 9)
    ... its cause undetermined" (pod_exits read only the container).  Now the eviction, the pod and its node."""
    pod = _pod("w-3", "node-3", {
        "phase": "Failed", "reason": "Evicted", "message": EVICTED_MESSAGE,
        "containerStatuses": [{"name": "pytorch", "state": {"terminated": {
            "exitCode": 137, "reason": "Error", "finishedAt": "2024-01-22T12:00:00Z"}}}]})
    found = Reader().pod_exits(pod, rank=3)
    assert sorted(e.kind for e in found) == ["job_ended", "rank_exit"]
    ended = next(e for e in found if e.kind == "job_ended")
    assert (ended.host, ended.rank, ended.details["why"], ended.details["pod"]) == ("node-3", 3, "NODE PRESSURE",
                                                                                   "train/w-3")
    assert EVICTED_MESSAGE in ended.text
    incident = attribute(found + _timeouts([0, 1, 2], T0 + timedelta(minutes=10)))[0]
    assert (incident.category, incident.rule, incident.root.kind) == ("infrastructure", "first_failure", "job_ended")
    assert (incident.root.host, incident.root.rank, incident.root.pod) == ("node-3", 3, "train/w-3")
    assert "pod train/w-3 ended by Kubernetes (Evicted" in incident.reason
    assert fatal(incident)  # its node's pressure: the gang restarts (cascading recovery, where opted in)


def test_live_preempted_pod_is_the_schedulers_and_not_restarted():
    """A pod the scheduler preempted (its DisruptionTarget condition as kubernetes/kubernetes #114623 shows it): the
    incident says so; recovery leaves the job to the scheduler that preempted it."""
    pod = _pod("w-1", "node-1", {"phase": "Running", "conditions": [PREEMPTED]}, rank=1)
    found = Reader().pod_exits(pod, rank=1)
    assert [(e.kind, e.details.get("why"), e.details.get("pod_reason")) for e in found] == [
        ("job_ended", "PREEMPTION", "PreemptionByKubeScheduler")]
    assert found[0].time == datetime(2022, 12, 20, 22, 45, 55, tzinfo=timezone.utc)
    incident = attribute(found + _timeouts([0, 2], found[0].time + timedelta(minutes=10)))[0]
    assert incident.root.kind == "job_ended" and "scheduler preempted it" in incident.reason
    assert not fatal(incident)


def test_evicted_status_names_it_better_than_the_kubelets_condition():
    """1.26+'s kubelet adds DisruptionTarget TerminationByKubelet to the pod it evicts: the status.reason (Evicted,
    node pressure) is what is said, the condition's time when it ended."""
    cond = {"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet",
            "lastTransitionTime": "2024-01-22T11:59:00Z"}
    pod = _pod("w-3", "node-3", {"phase": "Failed", "reason": "Evicted", "message": EVICTED_MESSAGE,
                                 "conditions": [cond]})
    [e] = Reader().pod_exits(pod)
    assert e.details["pod_end"] == "Evicted" and e.time == T0 - timedelta(minutes=1)


@pytest.mark.parametrize("taints, key, category, restart", [
    ((), "DeletionByTaintManager", "infrastructure", True),
    (("node.kubernetes.io/unreachable",), "taint:node.kubernetes.io/unreachable", "infrastructure", True),
    (("gpu-npd.io/GPUUnhealthy",), "taint:gpu-npd", "hardware", True),
])
def test_taint_manager_deletion_by_the_nodes_taint(taints, key, category, restart):
    """The taint manager's deletion (its condition as kube-controller-manager writes it) says no taint; the node's
    NoExecute taints (the Book watches nodes) say whose: the node controller's unreachable, gpu-npd's own fault taint
    (a node fault: hardware)."""
    book = Book()
    book.node({"metadata": {"name": "node-2"}, "spec": {"taints": [
        {"key": t, "effect": "NoExecute"} for t in taints] + [{"key": "x", "effect": "NoSchedule"}]}}, 0.0)
    pod = _pod("w-2", "node-2", {"phase": "Running", "conditions": [TAINTED]}, rank=2)
    book.pod(pod, 1.0)
    [e] = [e for e in book.pods[("train", "w-2")].exits if e.kind == "job_ended"]
    assert e.details["pod_end"] == key
    incident = attribute([e] + _timeouts([0, 1], T0 + timedelta(minutes=10)))[0]
    assert incident.category == category and fatal(incident) is restart
    assert POD_ENDS[key].category == category


@pytest.mark.parametrize("line, key, pod, host", [
    # SHAPE of a tutorial's `kubectl get events --field-selector reason=TaintManagerEviction -o
    # custom-columns=OBJECT:.involvedObject.name,MESSAGE:.message` (the message alone, no reason column)
    ("shop-774b84ff8c-f7xmw   Marking for deletion Pod default/shop-774b84ff8c-f7xmw", "DeletionByTaintManager",
     "default/shop-774b84ff8c-f7xmw", None),
    # CONSTRUCTED from kubernetes/kubernetes pkg/controller/tainteviction (1.29+; nodelifecycle/scheduler before):
    # describe's Events row, Eventf(.., "TaintManagerEviction", "Marking for deletion Pod %s", ns/name)
    ("  Normal  TaintManagerEviction  2m  taint-eviction-controller  Marking for deletion Pod train/llama-worker-3",
     "DeletionByTaintManager", "train/llama-worker-3", None),
    # CONSTRUCTED from the node controller's deletePods before taint-based eviction (pkg/controller/node; PR #14748's
    # "Starting deletion of Pod %s from Node %s", later "Marking for deletion Pod %s from Node %s", PR #70045's `get
    # events` row): the node named, the node controller's loss of it
    ("k8s-test  3m  3m  1  llama-worker-3.155eaee00f864418  Pod  Normal  NodeControllerEviction  node-controller  "
     "Marking for deletion Pod llama-worker-3 from Node 10.200.138.226", "NodeLost", "llama-worker-3",
     "10.200.138.226"),
    ("  5m  5m  1  {controllermanager }  Normal  NodeControllerEviction  Starting deletion of Pod llama-worker-3 from "
     "Node gpu-node-7", "NodeLost", "llama-worker-3", "gpu-node-7"),
])
def test_the_taint_managers_deletion_event_is_the_pods_end(line, key, pod, host):
    """Was: nothing (the DisruptionTarget condition's reason read, not the Event `kubectl get events` shows): a job
    whose pod the taint manager deleted, its node not ready, had no incident.  Now the deletion is the pod's end, the
    pod its message names (and the node the node controller's older message names)."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["pod"], e.host) == (key, pod, host)
    assert POD_ENDS[key].category == "infrastructure"


@pytest.mark.parametrize("line", [
    # the taint manager cancelling a deletion (the taint gone in time: the pod stays), the node's own NodeNotReady
    # and the deletion of a pod's words no Kubernetes controller's
    "  Normal  TaintManagerEviction  2m  taint-eviction-controller  Cancelling deletion of Pod train/llama-worker-3",
    "16m         Warning   NodeNotReady           pod/java-demo-api-5b876b98f8-nc7ct    Node is not ready",
    "Starting deletion of Pod llama-worker-3 from Node gpu-node-7",
    "INFO cleanup: Marking for deletion Pods older than 7 days",
])
def test_taint_words_that_end_no_pod(line):
    assert ended(line) == []


def test_admission_refused_gpus_and_out_of_devices():
    """The device plugin refused the pod its GPU at admission (kubernetes/kubernetes #96519's reason and message), and
    the kubelet's "OutOf<resource>" reason: the pod never ran, Kubernetes ended it for its node's devices."""
    pod = _pod("w-0", "node-0", {"phase": "Failed", "reason": "UnexpectedAdmissionError",
                                 "message": ADMISSION_MESSAGE, "startTime": "2024-01-22T12:00:00Z"}, rank=0)
    [e] = Reader().pod_exits(pod, rank=0)
    assert (e.details["why"], e.time, e.host) == ("ADMISSION ERROR", T0, "node-0")
    assert pod_end("OutOfnvidia.com/gpu") == "OutOfDevices"
    # a node resource's refusal is the node's accounting, no device's (OUT OF NODE RESOURCES: the REAL samples of
    # test_the_kubelets_admission_short_of_cpu_or_memory_is_a_pod_kubernetes_ended; was: no pod end)
    assert pod_end("OutOfcpu") == "outof:node" and pod_end("Completed") is None and pod_end(None) is None


# kubernetes/kubernetes #97131 (kubectl describe pod's Message:): the device plugin's NVML found a GPU of the node lost;
# pytorch/ci-infra #1057: go-nvml's wording of it, the kubelet's message as the PR wraps it (verbatim, its lines kept)
GPU_LOST_MESSAGE = (ENDED / "describe-admission-gpu-lost.txt").read_text().split("Message:", 1)[1].strip()
GPU_LOST_1057 = ("Allocate failed due to device plugin GetPreferredAllocation rpc failed with err:\n"
                 "rpc error: code = Unknown desc = error getting list of preferred allocation devices:\n"
                 "unable to get device link information: error getting NVLink for devices (0, 1):\n"
                 "failed to get nvlink remote pci info: failed to get nvlink state: GPU is lost,\n"
                 "which is unexpected")


@pytest.mark.parametrize("message", [GPU_LOST_MESSAGE, GPU_LOST_1057])
def test_live_admission_refused_for_a_lost_gpu_is_the_nodes_lost_gpu_as_offline(message):
    """A gang's pod the kubelet refused at admission because the device plugin's NVML found a GPU of node-0 lost, the
    other ranks timing out after.  Was (live and `kubectl get pods -o json` offline): an infrastructure incident, "the
    device plugin refused its devices", no fault named, while `gpu-npd triage` over kubectl's text named the lost GPU.
    Now the status message is read by the same parser rule (nvml_gpu_is_lost), every line of it: node-0's
    fallen_off_bus is the root, a hardware incident, the pod Kubernetes ended its consequence; the JSON alike."""
    pod = _pod("w-0", "node-0", {"phase": "Failed", "reason": "UnexpectedAdmissionError", "message": message,
                                 "startTime": "2024-01-22T12:00:00Z"}, rank=0)
    offline = [e for e in read_objects({"kind": "List", "items": [pod]}, "pods.json") if e.kind != "nccl_address"]
    for found in (Reader().pod_exits(pod, rank=0), offline):
        assert [(e.kind, e.severity, e.host) for e in found] == [("fallen_off_bus", "fatal", "node-0"),
                                                               ("job_ended", "error", "node-0")]
        assert found[0].details["pod"] == "train/w-0" and found[0].time == T0
        incident = attribute(found + _timeouts([1, 2, 3], T0 + timedelta(minutes=10)))[0]
        assert (incident.category, incident.rule, incident.root.kind, incident.root.host) == (
            "hardware", "node_fault", "fallen_off_bus", "node-0")
        assert [e.kind for e in incident.evidence][:2] == ["fallen_off_bus", "job_ended"]
        assert fatal(incident)


def test_pod_no_one_ended_says_nothing():
    """A running pod, a DisruptionTarget condition that is False, a reason the table does not hold (DeadlineExceeded
    was one before it held the owner's time limit): no evidence."""
    cond = dict(PREEMPTED, status="False")
    for status in ({"phase": "Running"}, {"phase": "Running", "conditions": [cond]},
                   {"phase": "Failed", "reason": "NoSuchReason"}):
        assert [e for e in Reader().pod_exits(_pod("w-0", "node-0", status)) if e.kind == "job_ended"] == []


def test_offline_pod_json_beside_the_logs():
    """`kubectl get pods,nodes -o json` beside the logs: the pod Kubernetes ended is the job's evidence (as live),
    the node's NoExecute taints saying why the taint manager deleted it, besides the addresses."""
    doc = {"kind": "List", "items": [
        {"kind": "Node", "metadata": {"name": "node-2"},
         "spec": {"taints": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]}},
        _pod("w-2", "node-2", {"phase": "Running", "podIP": "10.1.2.3", "conditions": [TAINTED]}, rank=2)]}
    found = read_objects(doc, "pods.json")
    [e] = [e for e in found if e.kind == "job_ended"]
    assert (e.host, e.details["pod_end"], e.file) == ("node-2", "taint:node.kubernetes.io/unreachable", "pods.json")
    assert any(e.kind == "nccl_address" and e.address == "10.1.2.3" for e in found)


def test_the_same_pods_as_kubectl_writes_them_json_or_yaml_and_their_events(tmp_path: Path):
    """`kubectl get pods,nodes -o json` and `-o yaml` of the same List (kubectl's layouts: indented JSON, YAML with
    apiVersion first) read alike offline and as the cluster component reads the pod: its node, the pod, why.  Was: the
    YAML read as a log's lines (the eviction on no node and no pod, one incident line per reason line), and `kubectl get
    events -o json` (a List with no Pod or Node) read as an empty inventory: the eviction lost, "No failure found"."""
    import json

    import yaml
    from click.testing import CliRunner

    from gpunpd.cli import main

    pod = _pod("w-3", "node-3", {"phase": "Failed", "reason": "Evicted", "message": EVICTED_MESSAGE})
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-3"}},
        _pod("w-2", "node-2", {"phase": "Running", "podIP": "10.1.2.3"}, rank=2), pod],
        "metadata": {"resourceVersion": ""}}
    (tmp_path / "pods.json").write_text(json.dumps(doc, indent=4) + "\n")
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump(doc))
    live = [e for e in Reader().pod_exits(pod) if e.kind == "job_ended"]
    seen = []
    for name in ("pods.json", "pods.yaml"):
        r = CliRunner().invoke(main, ["triage", "--format", "json", str(tmp_path / name)])
        assert r.exit_code == 0, r.output
        [incident] = json.loads(r.stdout)["incidents"]
        [e] = incident["evidence"]
        seen.append((incident["root"]["host"], incident["root"]["pod"], e["text"]))
    assert seen[0] == seen[1] == (live[0].host, live[0].details["pod"], live[0].text)
    events = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Event", "reason": "Evicted", "message": EVICTED_MESSAGE, "type": "Warning",
         "involvedObject": {"kind": "Pod", "name": "w-3", "namespace": "train"}}]}
    (tmp_path / "events.json").write_text(json.dumps(events, indent=4) + "\n")
    r = CliRunner().invoke(main, ["triage", "--format", "json", str(tmp_path / "events.json")])
    assert r.exit_code == 0, r.output
    [incident] = json.loads(r.stdout)["incidents"]
    assert incident["root"]["kind"] == "job_ended" and "(Evicted: the kubelet evicted it" in incident["reason"]


def test_json_nested_past_the_recursion_limit_is_no_inventory_and_no_traceback(tmp_path: Path):
    """A file whose first line is "{" but whose document is nested deeper than Python's recursion limit, and a pod whose
    Multus network-status annotation is (constructed: no real object holds one): json.loads raises RecursionError, no
    ValueError.  Was: a traceback out of `gpu-npd triage` for the file, out of read_objects for the pod.  Now the file
    is read as a log, the annotation as no addresses, the pod's other evidence kept."""
    from click.testing import CliRunner

    from gpunpd.cli import main

    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "deep.json").write_text('{\n"a": ' + deep + "}\n")
    r = CliRunner().invoke(main, ["triage", str(tmp_path / "deep.json")])
    assert r.exit_code == 1 and "No failure found" in r.output, r.output
    pod = _pod("w-4", "node-4", {"phase": "Failed", "reason": "Evicted", "message": EVICTED_MESSAGE, "podIP": "10.1.2.4"})
    pod["metadata"]["annotations"]["k8s.v1.cni.cncf.io/network-status"] = deep
    found = read_objects({"kind": "List", "items": [pod]}, "pods.json")
    assert [e.kind for e in found if e.kind == "job_ended"] == ["job_ended"]
    assert any(e.kind == "nccl_address" and e.address == "10.1.2.4" for e in found)


# ---- the time limit its owner set: activeDeadlineSeconds ----------------------------------------------------------
# pkg/kubelet/active_deadline.go: the kubelet's reason and message for a pod past its own activeDeadlineSeconds
DEADLINE_MESSAGE = "Pod was active on the node longer than the specified deadline"


def test_a_jobs_deadline_event_is_its_owners_time_limit_not_the_infrastructure():
    """The Job controller's Event for a Job past its activeDeadlineSeconds (`kubectl get events` as
    oracle/weblogic-kubernetes-operator's domain-events.md shows it; the README).  Was: not read at all (the ranks'
    SIGTERMs then undetermined or a rank's fault).  Now the job's end by the time limit its owner set: the
    application's, as Slurm's DUE TO TIME LIMIT is, and nothing to restart the gang for."""
    found = _read("events-job-deadline-exceeded.txt")
    assert [(e.details["pod_end"], e.details["why"], e.line) for e in found] == [
        ("DeadlineExceeded", "DEADLINE EXCEEDED", 1)]
    incident = attribute(found)[0]
    assert (incident.category, incident.root.kind) == ("application", "job_ended")
    assert "activeDeadlineSeconds ran out" in incident.reason
    assert not fatal(incident)


@pytest.mark.parametrize("line", [
    # constructed from pkg/kubelet/active_deadline.go (reason "DeadlineExceeded", its message) as kubectl describe
    # pod, describe's Events table, `kubectl get pods` and -o yaml lay them out
    "Reason:       DeadlineExceeded",
    f"Message:      {DEADLINE_MESSAGE}",
    f"  Normal  DeadlineExceeded  2m  kubelet  {DEADLINE_MESSAGE}",
    "llama-worker-3   0/1     DeadlineExceeded   0          2h",
    "  reason: DeadlineExceeded",
    # constructed from pkg/controller/job/job_controller.go: the Job's Failed condition as kubectl describe job shows it
    "    Message:               Job was active longer than specified deadline",
])
def test_every_shape_of_a_deadline_kubernetes_enforced(line):
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"]) == ("DeadlineExceeded", "DEADLINE EXCEEDED")


def test_a_grpc_deadline_is_no_pod_kubernetes_ended():
    """The kubelet's own gRPC calls to the container runtime timing out ("rpc error: code = DeadlineExceeded desc =
    context deadline exceeded", kubernetes/kubernetes #67796; the README): the same word, no pod ended."""
    assert _read("kubelet-grpc-deadline-exceeded.txt") == []


def test_live_pod_past_its_deadline_is_the_applications_as_offline():
    """A gang pod the kubelet ended at its activeDeadlineSeconds (status.reason / message as the kubelet writes them),
    its container SIGTERMed, the other ranks timing out after it: the pod's deadline is the root, the application's,
    not a rank death nothing explains; the cluster component reads it off the same table."""
    pod = _pod("w-3", "node-3", {
        "phase": "Failed", "reason": "DeadlineExceeded", "message": DEADLINE_MESSAGE,
        "containerStatuses": [{"name": "pytorch", "state": {"terminated": {
            "exitCode": 143, "reason": "Error", "finishedAt": "2024-01-22T12:00:00Z"}}}]})
    found = Reader().pod_exits(pod, rank=3)
    ended = next(e for e in found if e.kind == "job_ended")
    assert (ended.details["pod_end"], ended.details["why"], ended.host) == ("DeadlineExceeded", "DEADLINE EXCEEDED",
                                                                           "node-3")
    incident = attribute(found + _timeouts([0, 1, 2], T0 + timedelta(minutes=10)))[0]
    assert (incident.category, incident.root.kind, incident.root.pod) == ("application", "job_ended", "train/w-3")
    assert not fatal(incident)


def test_kueues_preemption_of_a_workload_is_the_schedulers():
    """Kueue evicting a workload for a higher-priority one (`kubectl describe workload`, its Evicted and Requeued
    conditions' "Reason: Preempted"; aws-samples/awsome-distributed-training's HyperPod task-governance README, the
    README here): a preemption, infrastructure, each line that says so (the conditions' "Reason: Preempted" and, was
    not read, their "Preempted to accommodate a workload .." message); its QuotaReserved "Pending" and Admitted
    "NoReservation" nothing."""
    found = _read("kueue-workload-preempted.txt")
    assert [(e.details["pod_end"], e.line) for e in found] == [("Preempted", n) for n in (10, 12, 22, 27, 29)]
    incident = attribute(found)[0]
    assert incident.category == "infrastructure" and "scheduler preempted it" in incident.reason


@pytest.mark.parametrize("line", [
    # constructed from Kueue's pkg/scheduler/preemption/preemption.go (the eviction message) as `kubectl describe
    # pytorchjob` shows the job reconciler's "Stopped" Event quoting it, and its older wording
    "  Normal  Stopped  2m  kueue-admission  Preempted to accommodate a workload (UID: 9f542104-a9e2-4344-ad2e-"
    "9c136204da18, JobUID: a20d0a6a-64a3-46ce-9b95-8cfb3bf6e675) due to prioritization in the ClusterQueue",
    "    Message:               Preempted to accommodate a higher priority Workload",
])
def test_kueues_preemption_message_alone_is_the_schedulers(line):
    """Kueue's eviction message where no "Reason: Preempted" stands beside it (the job's own Events): a preemption."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"]) == ("Preempted", "PREEMPTION")


def test_kueues_preemption_of_a_workload_it_then_admitted_again_is_no_failure():
    """Was: kubernetes-sigs/kueue #2012's workload Events (`kubectl describe workloads/..`: "Preempted to accommodate a
    workload .." then "Admitted (x2 over 10m)  Admitted by ClusterQueue cluster-queue") read as the job's incident,
    "the scheduler preempted it", though Kueue requeued the workload and admitted it again: the queue's decision, the
    job runs.  Now a Kueue admission after Kueue's preemption in the same Events (the kueue_admitted row, context)
    makes the preemption no failure; without the admission, or with it only before, the same preemption is still the
    root (the workload's conditions alone, kueue-workload-preempted.txt, too: test above)."""
    name = "kueue-workload-preempted-readmitted.txt"
    found = _all(name)
    assert [(e.kind, e.line) for e in found if e.kind in ("job_ended", "queue_admitted")] == \
        [("job_ended", 4), ("queue_admitted", 6)]
    assert attribute(found) == []
    [incident] = attribute(_all(name, drop="Admitted by ClusterQueue"))
    assert incident.category == "infrastructure" and "Preempted" in incident.reason
    # the admission before the preemption (the workload's first): the preemption stands
    lines = (ENDED / name).read_text().splitlines(True)
    admitted = [line for line in lines if "Admitted by ClusterQueue" in line]
    before = list(read_lines(admitted + [line for line in lines if line not in admitted], "before.txt", Clock()))
    assert len(attribute(before)) == 1
    # a scheduler's preemption of a pod is no queue's requeue, whatever Kueue admitted after it (constructed: the
    # scheduler's Event message, kubernetes/kubernetes pkg/scheduler, before the same admission row)
    pod = "  Normal  Preempted      10m                default-scheduler  Preempted by ns/hi on node gpu-1\n"
    assert len(attribute(list(read_lines([pod, admitted[0]], "pod.txt", Clock())))) == 1


@pytest.mark.parametrize("line", [
    # kubernetes-sigs/kueue #2012 (describe's row of a Workload; Kueue's pkg/scheduler Event, reason Admitted)
    "  Normal  Admitted       26m (x14 over 43m)  kueue-admission  Admitted by ClusterQueue cluster-queue, wait time "
    "since reservation was 0s",
    # constructed from Kueue's jobframework reconciler.go (the job's Started Event, "Admitted by clusterQueue %v") as
    # `kubectl get events` prints it
    "5m          Normal    Started    job/sample-job-abc    Admitted by clusterQueue cluster-queue",
])
def test_kueues_admission_events_are_read(line):
    assert [e.kind for e in read_lines([line], "x.txt", Clock())] == ["queue_admitted"]


def test_kueues_admitted_condition_is_no_admission_event():
    """The Workload's Admitted condition (-o yaml, describe's Status) says no time among the others: no admission."""
    assert [e.kind for e in read_lines(["    Message:               Admitted by ClusterQueue cluster-queue\n"],
                                       "x.txt", Clock())] == []


# ---- a pod the kubelet refused at admission, short of a device: "OutOf<resource>" --------------------------------

OUT_OF_GPU = Path(__file__).resolve().parent.parent / "fixtures" / "incidents" / "gke-accelerators-100-out-of-gpu"


def test_get_pods_row_out_of_gpu_names_its_node_and_pod():
    """`kubectl get pods -o wide | grep replicaset` (GoogleCloudPlatform/container-engine-accelerators #100, the
    incident's source.md): the replica whose STATUS is OutOfnvidia.com/gpu, refused at admission by the restarted
    node's kubelet before its device plugin registered the GPUs again, is OutOfDevices on the row's NODE, the pod its
    NAME; the Running rows nothing.  Was: nothing read (the column's reasons listed word by word, no OutOf<resource>)."""
    path = OUT_OF_GPU / "logs" / "pods.txt"
    found = [e for e in read_lines(path.read_text().splitlines(True), str(path), Clock()) if e.kind == "job_ended"]
    assert [(e.details["pod_end"], e.details["pod_reason"], e.host, e.details["pod"], e.line) for e in found] == [
        ("OutOfDevices", "OutOfnvidia.com/gpu", "controller-2.k8s.ml.prod.srcd.host", "gpu-replicaset-bxbc2", 2)]


@pytest.mark.parametrize("line, host, pod", [
    # constructed from pkg/kubelet/lifecycle/predicate.go (reason "OutOf" + the resource's name, message "Node didn't
    # have enough resource: ..") and pkg/kubelet/kubelet.go rejectPod (the same reason as a Warning Event), as describe,
    # -o yaml, kubectl get events and get pods -A print them
    ("Reason:         OutOfnvidia.com/gpu", None, None),
    ('  reason: OutOfnvidia.com/gpu', None, None),
    ("  Warning  OutOfnvidia.com/gpu  2m    kubelet  Node didn't have enough resource: nvidia.com/gpu, requested: 8, "
     "used: 0, capacity: 7", None, None),
    ("train   llama-worker-3   0/1     OutOfnvidia.com/gpu   0          2h    <none>   gpu-node-7   <none>",
     "gpu-node-7", "train/llama-worker-3"),
    ("llama-worker-3   0/1     OutOfnvidia.com/gpu   0          2h", None, "llama-worker-3"),
])
def test_every_form_of_an_out_of_device_admission(line, host, pod):
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"], e.host, e.details.get("pod")) == (
        "OutOfDevices", "OUT OF DEVICES", host, pod)


@pytest.mark.parametrize("line, key", [
    # REAL: NVIDIA/k8s-device-plugin #1223 (AKS, describe's Message: the kubelet's rejectPod status message, "Pod was
    # rejected: " + the admission's message, its ", which is unexpected" not in the quoted line)
    ("Pod was rejected: Allocate failed due to device plugin GetPreferredAllocation; unable to get device link "
     "information: error calling nvml.Init", "UnexpectedAdmissionError"),
    # the same status message of kubelets before 1.27 ("Pod " + message), a terminal's width cutting the trailer
    ("Message:        Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc",
     "UnexpectedAdmissionError"),
    # constructed from pkg/kubelet/cm/devicemanager (1.10-1.12: "Update plugin resources failed due to %v, which is
    # unexpected.") as the kubelet's status message
    ("Message:  Pod Update plugin resources failed due to requested number of devices unavailable for "
     "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected.", "UnexpectedAdmissionError"),
    # the OutOf<resource> admission's message (pkg/kubelet/lifecycle/predicate.go) without its reason: a status
    # message (rejectPod's "Pod was rejected: "), the Event's message alone
    ("Message:        Pod was rejected: Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 0, "
     "capacity: 0", "OutOfDevices"),
    # klog's line of an Event (client-go tools/record: "Event(%#v): type: '%v' reason: '%v' %v"), the reason quoted;
    # REAL shape: kubernetes/kubernetes #68002 (the kubelet's journal after its restart)
    ("I0829 18:20:22.586445   10333 server.go:457] Event(v1.ObjectReference{Kind:\"Pod\", Namespace:\"default\", "
     "Name:\"busybox-2\", UID:\"1a2ccb08-ab75-11e8-be16-6c0b840b6709\", APIVersion:\"v1\", ResourceVersion:\"278\", "
     "FieldPath:\"\"}): type: 'Warning' reason: 'OutOfnvidia.com/gpu' Node didn't have enough resource: "
     "nvidia.com/gpu", "OutOfDevices"),
    ("I0829 18:20:22.586445   10333 server.go:457] Event(v1.ObjectReference{Kind:\"Pod\", Namespace:\"default\", "
     "Name:\"w-0\"}): type: 'Warning' reason: 'Evicted' The node had condition: [DiskPressure].", "Evicted"),
    # the structured one (1.21+: "Event occurred" .. type="Warning" reason="..."), and compact JSON (jq -c, the API)
    ('I0129 05:42:59.060605 3736781 event.go:294] "Event occurred" object="train/w-0" kind="Pod" apiVersion="v1" '
     'type="Warning" reason="OutOfnvidia.com/gpu" message="Node didn\'t have enough resource: nvidia.com/gpu, '
     'requested: 1, used: 0, capacity: 0"', "OutOfDevices"),
    ('{"status":{"phase":"Failed","reason":"Evicted","message":"The node had condition: [DiskPressure]. "}}',
     "Evicted"),
])
def test_every_form_of_the_kubelets_admission_and_event_words(line, key):
    """Was: nothing (the admission's message read only with its ", which is unexpected"; the OutOf<resource> admission
    only by its reason; a reason only after "Reason:", '"reason": ' or an Event's type)."""
    [e] = ended(line)
    assert e.details["pod_end"] == key, line


# klog's line of an Event (client-go tools/record: "Event(%#v): type: '%v' reason: '%v' %v"), as the kubelet and the
# controllers print it: REAL shape, kubernetes/kubernetes #68002 (the kubelet's journal after its restart)
KLOG_EVENT_OUT_OF_GPU = (
    "I0829 18:20:22.586445   10333 server.go:457] Event(v1.ObjectReference{Kind:\"Pod\", Namespace:\"default\", "
    "Name:\"busybox-2\", UID:\"1a2ccb08-ab75-11e8-be16-6c0b840b6709\", APIVersion:\"v1\", ResourceVersion:\"278\", "
    "FieldPath:\"\"}): type: 'Warning' reason: 'OutOfnvidia.com/gpu' Node didn't have enough resource: nvidia.com/gpu")


@pytest.mark.parametrize("line, pod", [
    (KLOG_EVENT_OUT_OF_GPU, "default/busybox-2"),
    # constructed from the same format: another pod-ending reason, the pre-1.7 api.ObjectReference, no type
    ("I0829 18:20:22.586445   10333 server.go:457] Event(v1.ObjectReference{Kind:\"Pod\", Namespace:\"train\", "
     "Name:\"w-0\"}): type: 'Warning' reason: 'Evicted' The node had condition: [DiskPressure].", "train/w-0"),
    ("I0829 18:20:22.586445   10333 server.go:457] Event(api.ObjectReference{Kind:\"Pod\", Namespace:\"train\", "
     "Name:\"w-0\", UID:\"bar\"}): reason: 'Evicted' The node had condition: [DiskPressure].", "train/w-0"),
    # constructed: an Event about another kind (its name no pod's), the reason read alone as before
    ("I0829 18:20:22.586445   10333 server.go:457] Event(v1.ObjectReference{Kind:\"Node\", Namespace:\"\", "
     "Name:\"gpu-node-7\"}): type: 'Warning' reason: 'Evicted' The node had condition: [DiskPressure].", None),
])
def test_a_klog_event_line_about_a_pod_names_the_pod_it_ended(line, pod):
    """Was: the Event's reason read (the pod's end) but not the pod its ObjectReference names: the incident's root
    named no pod.  Now the pod (namespace/name) of an Event about a pod (Kind:"Pod") is the evidence's pod, and the
    root pod of the incident it decides."""
    [e] = ended(line)
    assert e.details.get("pod") == pod
    if pod is not None:
        incident = attribute([e])[0]
        assert (incident.root.kind, incident.root.pod) == ("job_ended", pod)


@pytest.mark.parametrize("line", [
    # constructed: the words without the kubelet's prefix or trailer, prose (a node resource's "Node didn't have
    # enough resource: cpu, requested: .." is the kubelet's refusal since: OUT OF NODE RESOURCES)
    "Allocate failed due to device plugin GetPreferredAllocation rpc failed",
    "the season: 'Evicted' tenants",
])
def test_admission_words_the_kubelet_did_not_say_end_no_pod(line):
    assert ended(line) == []


@pytest.mark.parametrize("line", [
    # REAL: https://github.com/NVIDIA/k8s-device-plugin/issues/25 (the scheduler found no node with a free GPU: a pod
    # still pending, no node refused it)
    "Message: 0/5 nodes are available: 5 Insufficient nvidia.com/gpu.",
    # REAL: https://github.com/modelscope/FunASR/issues/2006 (the funasr-2006-oom incident: "OutOf" in a CUDA error)
    "[rank2]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 336.00 MiB. GPU  has a total "
    "capacity of 79.15 GiB of which 141.25 MiB is free.",
])
def test_insufficient_gpus_and_out_of_memory_are_no_pod_kubernetes_ended(line):
    assert ended(line) == []


@pytest.mark.parametrize("name, rows", [
    ("get-pods-evicted.txt", [("Evicted", "k8s1", "influxdb-influxdb-75956dbd88-9rqsv", 2),
                              ("Evicted", "k8s1", "influxdb-influxdb-75956dbd88-gfnzs", 4)]),
    ("get-pods-node-shutdown.txt", [("Shutdown", "yp-test2-worker-0dd0512820d9",
                                     "shutdown-test-deploy-69cff7d9b7-bvzj9", 4),
                                    ("Shutdown", "yp-test2-worker-0dd0512820d9",
                                     "shutdown-test-deploy-69cff7d9b7-gncbf", 5)]),
])
def test_a_get_pods_table_beside_the_logs_reads_its_status_column(name, rows):
    """`kubectl get pods -o wide > pods.txt` (header first) is read as the cluster's inventory (read_inventory, as
    `gpu-npd triage` reads it): its addresses, and each row whose STATUS is a pod end that pod's end, its NODE and
    NAME (`get pods,nodes`' "pod/" taken off), the row its line.  Was: the addresses alone, no incident."""
    lines = (ENDED / name).read_text().splitlines(True)
    found, taken = read_inventory(iter(lines[1:]), lines[0], name)
    assert taken == []
    assert [(e.details["pod_end"], e.host, e.details["pod"], e.line) for e in found if e.kind == "job_ended"] == rows
    assert all(e.text.startswith(("pod/", "influxdb")) for e in found if e.kind == "job_ended")


# ---- the cloud reclaiming a spot / preemptible node ------------------------------------------------------------

def test_get_pods_status_of_a_node_shutdown():
    """`kubectl get pods,nodes -o wide` during a graceful node shutdown (kubernetes/kubernetes #100184, the README):
    the rows whose STATUS is Shutdown (1.21's pod reason; NodeShutdown, Terminated later) are the node's shutdown.
    Was: nothing read (only Evicted, Preempted and DeadlineExceeded in that column); the Running and Pending rows
    stay nothing."""
    assert [(e.details["pod_end"], e.details["why"], e.line) for e in _read("get-pods-node-shutdown.txt")] == [
        ("Shutdown", "NODE SHUTDOWN", 4), ("Shutdown", "NODE SHUTDOWN", 5)]


@pytest.mark.parametrize("line, key", [
    ("llama-worker-3   0/1     NodeShutdown   0          2h", "NodeShutdown"),
    ("llama-worker-3   0/1     Terminated     0          2h", "Terminated"),
    ("Reason:       NodeShutdown", "NodeShutdown"),
    ("  reason: Shutdown", "Shutdown"),
])
def test_every_era_of_a_node_shutdowns_reason(line, key):
    """Constructed from pkg/kubelet/nodeshutdown (status.reason "Shutdown" in 1.21, "Terminated" from 1.22) and GKE's
    "NodeShutdown", as `get pods`' STATUS column, describe and -o yaml print a pod's reason: each the node's
    shutdown."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"]) == (key, "NODE SHUTDOWN")


@pytest.mark.parametrize("name, host", [
    ("nth-spot-itn.txt", "ip-10-128-37-128.ec2.internal"),
    ("karpenter-spot-interruption.txt", "ip-172-22-30-249.eu-central-1.compute.internal"),
])
def test_a_spot_interruption_notice_names_the_node_the_cloud_reclaims(name, host):
    """aws-node-termination-handler's event store line ("Kind":"SPOT_ITN" .. "NodeName", aws/aws-node-termination-
    handler #701) and Karpenter's interruption controller ("messageKind": "SpotInterruptionKind", "node",
    aws/karpenter-provider-aws #4028): AWS reclaiming the spot VM, the node named.  Was: nothing read; the gang's
    ranks' timeouts after it undetermined."""
    [e] = _read(name)
    assert (e.details["pod_end"], e.details["why"], e.host) == ("SpotInterruption", "SPOT INTERRUPTION", host)
    incident = attribute([e])[0]
    assert incident.category == "infrastructure" and "the cloud reclaimed its node" in incident.reason


@pytest.mark.parametrize("line, host", [
    # constructed from spack/spack-infrastructure #1297's Karpenter v1 log object (there pretty-printed) on one line, as
    # its JSON logger writes it
    ('{"message":"initiating delete from interruption message","controller":"interruption","messageKind":'
     '"spot_interrupted","action":"CordonAndDrain","Node":{"name":"ip-10-0-101-113.ec2.internal"}}',
     "ip-10-0-101-113.ec2.internal"),
])
def test_every_shape_of_karpenters_spot_interruption(line, host):
    [e] = ended(line)
    assert (e.details["pod_end"], e.host) == ("SpotInterruption", host)


@pytest.mark.parametrize("line, host", [
    # REAL, maksim-paskal/aks-node-termination-handler #98 (a comment's `kubectl describe node` Events row after `az vmss
    # simulate-eviction`): AKS's node-problem-detector's VMEventScheduled condition for Azure's Preempt scheduled
    # event; describe's row names no node (its header does)
    ('Warning  VMEventScheduled  14s               custom-scheduledevents-consolidated-condition-plugin-monitor  Node '
     'condition VMEventScheduled is now: True, reason: VMEventScheduled, message: "Preempt Scheduled: Wed, 26 Feb 2025 '
     '10:13:13 GMT. DurationInSeconds: -1.  For more information, see https://aka.ms/aks/scheduledevents."', None),
    # REAL, cloudpilot-ai/karpenter-provider-gcp PR #37 (`gcloud compute operations list` on a GKE spot pool): GCE's
    # preemption of the instance, the GKE node's name in its target
    ("systemevent-1746631209934-6348d44d25ec7-a6b1f0df-60d95dad  compute.instances.preempted                 us-central"
     "1-a/instances/gke-helen-c1-spot-cast-pool-df29e951           200          DONE    2025-05-07T08:20:20.201-07:00",
     "gke-helen-c1-spot-cast-pool-df29e951"),
    # the Azure row as `kubectl get events` lays out a node's Event (CONSTRUCTED from the real message above): the
    # node named by the object column
    ('2m          Warning   VMEventScheduled   node/aks-spot-23887340-vmss000001   Node condition VMEventScheduled is '
     'now: True, reason: VMEventScheduled, message: "Preempt Scheduled: Wed, 26 Feb 2025 10:13:13 GMT. '
     'DurationInSeconds: -1.  For more information, see https://aka.ms/aks/scheduledevents."',
     "aks-spot-23887340-vmss000001"),
])
def test_azure_and_gcp_reclaiming_a_spot_vm_is_a_spot_interruption(line, host):
    """(h379) Azure's and GCP's words for the cloud reclaiming a spot VM, beside AWS's (was: nothing read, the gang's
    ranks' timeouts after it undetermined); another scheduled event of Azure's (REAL: Azure/AKS #2062's
    RebootScheduled row) is none."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"], e.host) == ("SpotInterruption", "SPOT INTERRUPTION", host)
    assert ended("18m Normal RebootScheduled node/aks-defaultpool-10919361-vmss000000 Node condition RebootScheduled "
                 "is now: True, reason: RebootScheduled") == []


@pytest.mark.parametrize("line", [
    # constructed from karpenter-provider-aws events.go: a rebalance recommendation, no interruption (yet)
    "27m         Normal    SpotRebalanceRecommendation   node/ip-10-2-117-202.ec2.internal   Spot rebalance "
    "recommendation was triggered",
    # constructed from aws-node-termination-handler pkg/monitor: a scheduled event's kind, not a spot interruption
    '{"Kind":"SCHEDULED_EVENT","NodeName":"ip-10-1-2-3.ec2.internal"}',
])
def test_spot_words_that_reclaim_no_node(line):
    assert ended(line) == []


def test_a_gang_member_on_a_reclaimed_spot_node_is_the_root_not_the_ranks_timeouts():
    """The spot interruption on node-3 (NTH's line, #701, its node the job's pod's), the other ranks' NCCL timeouts ten
    minutes later: the reclaim is the root, infrastructure, node-3 named; the timeouts consequences; the gang
    restarts."""
    [notice] = _read("nth-spot-itn.txt")
    notice = Evidence(notice.kind, notice.severity, notice.attribution, T0, "node-3", None, text=notice.text,
                      file="nth.log", line=1, details=notice.details)
    incident = attribute([notice] + _timeouts([0, 1, 2], T0 + timedelta(minutes=10)))[0]
    assert (incident.category, incident.rule, incident.root.host) == ("infrastructure", "first_failure", "node-3")
    assert fatal(incident)


# ---- an image the kubelet could not pull: the node's or the workload's, by the gang ----------------------------

def test_offline_reads_the_kubelets_image_pull_events():
    """The kubelet's "Error: ErrImagePull" and "Error: ImagePullBackOff" Events of a pod (oracle/weblogic-kubernetes-
    operator's domain-events.md, the README), the pod named by the Event's object column.  Was: nothing read.  The
    "Failed to pull image" and "Back-off pulling image" rows around them say the same once more: not read again."""
    assert [(e.details["pod_end"], e.details["pod"], e.line) for e in _read("events-image-pull.txt")] == [
        ("ErrImagePull", "sample-domain1-introspector-jlxsj", 2),
        ("ImagePullBackOff", "sample-domain1-introspector-jlxsj", 6)]


@pytest.mark.parametrize("line, key", [
    # constructed from the kubelet's container waiting reasons (pkg/kubelet/images: ErrImagePull, ImagePullBackOff)
    # as `get pods`' STATUS column, describe's container State and -o yaml print them
    ("llama-worker-3   0/1     ImagePullBackOff   0          2m", "ImagePullBackOff"),
    ("llama-worker-3   0/1     ErrImagePull       0          2m", "ErrImagePull"),
    ("      Reason:       ImagePullBackOff", "ImagePullBackOff"),
    ("          reason: ErrImagePull", "ErrImagePull"),
])
def test_every_shape_of_an_image_pull_failure(line, key):
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"]) == (key, "IMAGE PULL")


# the kubelet's Event message for an image the registry does not have (oracle/weblogic-kubernetes-operator's
# domain-events.md), as a waiting container's message
PULL_DENIED = ("rpc error: code = Unknown desc = pull access denied for domain-home-in-image, repository does not exist "
               "or may require 'docker login'")


def _pulling(name, node, rank):
    return _pod(name, node, {"phase": "Pending", "startTime": "2024-01-22T12:00:00Z", "containerStatuses": [
        {"name": "pytorch", "state": {"waiting": {"reason": "ErrImagePull", "message": PULL_DENIED}}}]}, rank=rank)


def test_one_node_that_cannot_pull_while_the_gang_waits_is_that_nodes():
    """A gang of four: w-3 on node-3 cannot pull its image (its container waiting in ErrImagePull), the others started
    and wait for it in NCCL, timing out.  Was: nothing read of w-3 (only status.reason), the timeouts undetermined.
    Now the node's (its registry reach, disk, credentials): infrastructure, node-3 and its pod named."""
    found = Reader().pod_exits(_pulling("w-3", "node-3", 3), rank=3)
    assert [(e.kind, e.details.get("pod_end"), e.host) for e in found] == [("job_ended", "ErrImagePull", "node-3")]
    incident = attribute(found + _timeouts([0, 1, 2], T0 + timedelta(minutes=10)))[0]
    assert (incident.category, incident.root.host, incident.root.pod) == ("infrastructure", "node-3", "train/w-3")
    assert "only node node-3 of the job failed so" in incident.reason
    assert incident.reason.startswith("pod train/w-3 never started (ErrImagePull: ")  # (was "ended by Kubernetes")
    assert not fatal(incident)


def test_every_pod_that_cannot_pull_alike_is_the_workloads():
    """Every pod of the gang waiting in ErrImagePull, the same message (a wrong image name or tag): the workload's,
    application, whichever pod is named first."""
    found = [e for r in range(4) for e in Reader().pod_exits(_pulling(f"w-{r}", f"node-{r}", r), rank=r)]
    incident = attribute(found)[0]
    assert incident.category == "application" and "failed alike" in incident.reason


def test_offline_events_of_one_pod_of_a_gang_that_cannot_pull():
    """Offline, the Events name the pod, not its node: one pod that could not pull while the other pods' logs (files
    pod/<name>) say they ran is its node's; the Events alone (every pod that says anything failing alike) the
    workload's, as the weblogic operator's own example was (its image missing)."""
    pulls = _read("events-image-pull.txt")
    assert attribute(pulls)[0].category == "application"
    others = [Evidence("nccl_timeout", "error", "unknown", None, None, r, seq=7219, op="ALLREDUCE",
                       timeout_ms=600000, file=f"pod/sample-domain1-worker-{r}", line=9) for r in (1, 2)]
    incident = attribute(pulls + others)[0]
    assert incident.category == "infrastructure" and incident.root.kind == "job_ended"
    assert "only pod sample-domain1-introspector-jlxsj of the job" in incident.reason


# ---- a volume the kubelet could not mount: the node's or the workload's, by the gang (as an image pull) ----------

INCIDENTS = ENDED.parent.parent / "incidents"
A3_382 = INCIDENTS / "gke-a3-382-failed-mount" / "logs" / "describe.txt"


def _read_path(path: Path) -> list[Evidence]:
    return [e for e in read_lines(path.read_text().splitlines(True), str(path), Clock(), root=str(path.parent))
            if e.kind == "job_ended"]


def _others(hosts):
    """The other pods' NCCL watchdog timeouts on their own nodes (Evidence objects, as the agents' Events read back)."""
    return [Evidence("nccl_timeout", "error", "unknown", None, host, r, seq=7219, op="ALLREDUCE", timeout_ms=600000,
                     file=f"pod/a3-high-exp-1-{r}") for r, host in enumerate(hosts, 1)]


def test_a_pod_whose_hostpath_device_no_node_has_is_the_workloads():
    """GoogleCloudPlatform/ai-infra-cluster-provisioning #382 (the incident's describe, verbatim): the kubelet's
    FailedMount, "hostPath type check failed: /dev/dmabuf_import_helper is not a character device", the only pod that
    says anything.  Was: no failure found.  Now the pod never started (FailedMount), on the node the scheduler's row
    names; every pod that says anything failed alike: the workload's volumes' spec, application."""
    found = _read_path(A3_382)
    node = "gke-a3-high-cluster-a3-high-pool-ee769ce2-d5b5"
    assert [(e.details["pod_end"], e.details["why"], e.host, e.line) for e in found] == [
        ("FailedMount", "VOLUME MOUNT", node, 5)]
    incident = attribute(found)[0]
    assert (incident.category, incident.root.host, incident.root.pod) == ("application", node,
                                                                          "default/a3-high-exp-1-0-ffgwr")
    assert incident.reason.startswith("pod default/a3-high-exp-1-0-ffgwr never started (FailedMount: ")
    assert "failed alike, the workload's (its volumes' spec" in incident.reason


def test_one_node_that_cannot_mount_while_the_gang_ran_is_that_nodes():
    """The same FailedMount (#382), while the job's other pods ran on other nodes and timed out in NCCL waiting for it:
    only that node lacks what the spec mounts, its node's, infrastructure, the node named; the wording the volume's,
    not an image pull's (one Gang row per reason, facts.POD_ENDS)."""
    node = "gke-a3-high-cluster-a3-high-pool-ee769ce2-d5b5"
    incident = attribute(_read_path(A3_382) + _others(["gke-a3-high-1", "gke-a3-high-2"]))[0]
    assert (incident.category, incident.root.host, incident.root.kind) == ("infrastructure", node, "job_ended")
    assert f"only node {node} of the job failed so" in incident.reason
    assert "(a device, directory or CSI driver it lacks" in incident.reason and "registry" not in incident.reason


def test_every_pod_of_a_job_failing_the_same_mount_events_is_the_workloads():
    """kubernetes-sigs/kind #1002 (`kubectl get events` rows, the pod in the object column): two pods of one workflow,
    both failing the same hostPath type checks.  Every pod that says anything failed alike: application; with another
    pod's log saying it ran, only those pods': infrastructure."""
    found = _read("events-failed-mount-kind.txt")
    assert {(e.details["pod_end"], e.details["pod"]) for e in found} == {
        ("FailedMount", "singlecluster-parallel-555v9-414213271"),
        ("FailedMount", "singlecluster-parallel-555v9-513887230")}
    assert attribute(found)[0].category == "application"
    ran = [Evidence("nccl_timeout", "error", "unknown", None, None, 1, seq=7219, op="ALLREDUCE", timeout_ms=600000,
                    file="pod/singlecluster-parallel-555v9-1")]
    incident = attribute(found + ran)[0]
    assert incident.category == "infrastructure" and "only pods singlecluster-parallel-555v9-414213271, " \
        "singlecluster-parallel-555v9-513887230 of the job" in incident.reason


@pytest.mark.parametrize("line, key", [
    # leptonai/gpud #1144: describe's Events row, a hostPath device the node lacks
    ('Warning  FailedMount  12s (x9 over 2m20s)  kubelet            MountVolume.SetUp failed for volume "host-dev-mem" '
     ': hostPath type check failed: /dev/mem is not a character device', "FailedMount"),
    # ceph/ceph-csi #710: a CSI driver not registered on the node, the 1.16 era's "kubelet, <node>" source
    ('  Warning  FailedMount             10m (x23 over 40m)  kubelet, master3         MountVolume.MountDevice failed '
     'for volume "pvc-5d317451-01f2-11ea-b95f-eeeeeeeeeeee" : driver name rbd.csi.ceph.com not found in the list of '
     'registered CSI drivers', "FailedMount"),
    # hetznercloud/csi-driver #41: the attach-detach controller's FailedAttachVolume
    ('  Warning  FailedAttachVolume  3s    attachdetach-controller  AttachVolume.Attach failed for volume '
     '"pvc-7ff22820-9333-11e9-b435-96000019d538" : rpc error: code = Internal desc = failed to publish volume: volume '
     'is already attached to a server, please detach it first (service_error)', "FailedAttachVolume"),
    # kubernetes/kubernetes #44536: the 1.6 era's tab-separated describe, the controller-manager's FailedMount
    ('  20s\t\t20s\t\t1\t{controller-manager }\t\t\tWarning\t\tFailedMount\tFailed to attach volume "v2222222222222" '
     'on node "da-kk73n6cdy4-0-z5nbegh6ltn6-kube-minion-gka5gie7czuk" with: volume '
     '09c678bf-2f86-41b1-85c6-92d366a612b9 is not attached to 8574841d-caf1-4283-b27c-0aa926fea5ee', "FailedMount"),
    # kubernetes-sigs/aws-efs-csi-driver #180: the kubelet's message alone, no Event row around it
    ('MountVolume.MountDevice failed for volume "efs-persist" : kubernetes.io/csi: attacher.MountDevice failed to '
     'create newCsiDriverClient: driver name efs.csi.aws.com not found in the list of registered CSI drivers',
     "FailedMount"),
])
def test_every_shape_of_a_volume_mount_failure(line, key):
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"]) == (key, "VOLUME MOUNT")


@pytest.mark.parametrize("name, host", [
    ("describe-dra-prepare-timeout.txt", None),  # kubernetes-sigs/dra-driver-nvidia-gpu PR #1218: a GPU held on the host
    ("describe-dra-driver-not-registered.txt", None),  # kubernetes/kubernetes #131957: the DRA driver not registered
])
def test_a_dra_claim_the_kubelet_could_not_prepare_is_the_nodes_whoever_else_failed(name, host):
    """The kubelet's FailedPrepareDynamicResources (describe's Events row, verbatim): the node's DRA driver timing out
    on the claim's GPU, or not registered with its kubelet.  Was: no failure found.  Now the pod never started, the
    node's DRA setup: infrastructure whether it is the only pod that says anything or one of a gang that ran (no gang
    rule: a DRA driver missing on every node is no fault of the job's spec), no cascading restart (the kubelet
    retries)."""
    [e] = _read(name)
    assert (e.details["pod_end"], e.details["why"], e.host) == ("FailedPrepareDynamicResources", "DRA PREPARE", host)
    [alone] = attribute([e])
    assert alone.category == "infrastructure" and not fatal(alone)
    assert alone.reason.startswith("a pod never started (FailedPrepareDynamicResources: the kubelet could not "
                                   "prepare")
    [gang] = attribute([e] + _others(["node-1", "node-2"]))
    assert gang.category == "infrastructure" and gang.root.kind == "job_ended"


def test_every_shape_of_a_dra_prepare_failure():
    """The kubelet's Event as `kubectl get events` prints it (its object column naming the pod) and its message alone
    (dra-driver-nvidia-gpu #766's words, "Failed to prepare dynamic resources: failed to fetch ResourceClaim .."), and
    a pod the kubelet then started is no failure (its retry got past it)."""
    row = ("5m19s       Warning   FailedPrepareDynamicResources   pod/pod1                                  "
           "Failed to prepare dynamic resources: x")  # dranet PR #221's row, its message cut here
    [e] = ended(row)
    assert (e.details["pod_end"], e.details["pod"]) == ("FailedPrepareDynamicResources", "pod1")
    [e] = ended("I'm getting `Failed to prepare dynamic resources: failed to fetch ResourceClaim "
                "imex-channel-injection-imex-channel-0-hlldb referenced by pod imex-channel-injection: the server could "
                "not find the requested resource` in a new GB200 cluster. The CD pod is not created.")
    assert e.details["pod_end"] == "FailedPrepareDynamicResources"
    started = "  Normal   Started    9s    kubelet            Started container ctr0"  # constructed, describe's format
    lines = [(ENDED / "describe-dra-prepare-timeout.txt").read_text(), started + "\n"]
    assert attribute(read_lines(lines, "describe.txt", Clock())) == []


# The DRA driver's rejection of the claim's own device configuration, the kubelet's FailedPrepareDynamicResources
# message as the EKS user guide quotes it (awsdocs/amazon-eks-user-guide
# latest/ug/ml/device-management-nvidia-time-slicing.adoc: "a `FailedPrepareDynamicResources` event that reports `error
# validating GPU config: unknown GPU sharing strategy: TimeSlicing`"; kubernetes-sigs/dra-driver-nvidia-gpu #762's
# title), and the driver's strict decoding of an unknown field (its tests/bats/test_cd_misc.bats greps describe's
# FailedPrepareDynamicResources row for 'strict decoding error: unknown field "unexpectedField"', wrapped by
# cmd/*-kubelet-plugin/device_state.go's "error decoding config parameters: %w")
DRA_CONFIG = ("error validating GPU config: unknown GPU sharing strategy: TimeSlicing",
              'error decoding config parameters: strict decoding error: unknown field "unexpectedField"')


def _dra_row(error: str, claim: str = "pod-shared-gpu-tpghv") -> str:
    """constructed: describe's Events row of the kubelet's FailedPrepareDynamicResources in its words and the driver's
    around the driver's error (the wrapping as dra-driver-nvidia-gpu #1452's row and cmd/gpu-kubelet-plugin's
    driver.go / device_state.go word it)."""
    return ("  Warning  FailedPrepareDynamicResources  11s   kubelet            Failed to prepare dynamic resources: "
            f"prepare dynamic resources: NodePrepareResources failed for ResourceClaim {claim}: error preparing "
            f"devices for claim default/{claim}:3c8337ad-f366-4541-883d-30b9e99fd6be: prepare devices failed: {error}")


@pytest.mark.parametrize("error", DRA_CONFIG)
def test_a_dra_claim_whose_device_config_its_driver_rejected_is_the_jobs(error):
    """The DRA driver refusing the claim's own opaque config (an unknown sharing strategy, a field it does not know):
    every retry on every node fails alike, "fix your claim", not "drain the node".  Was: infrastructure (the node's
    DRA setup).  Now the pod never started for its claim's config: application, the reason still the kubelet's; on one
    node while the job's other pods ran, that node's driver (another version or feature gates): infrastructure."""
    [e] = ended(_dra_row(error))
    assert (e.details["pod_end"], e.details["pod_reason"], e.details["why"]) == (
        "claim:config", "FailedPrepareDynamicResources", "DRA CLAIM CONFIG")
    [alone] = attribute([e])
    assert alone.category == "application" and not fatal(alone)
    assert alone.reason.startswith("a pod never started (FailedPrepareDynamicResources: its DRA driver rejected the "
                                   "device configuration of its resource claim)"), alone.reason
    [gang] = attribute([e.with_context(host="node-0")] + _others(["node-1", "node-2"]))
    assert gang.category == "infrastructure" and "only node node-0 of the job failed so" in gang.reason, gang.reason


def test_a_dra_prepare_error_of_the_node_stays_the_nodes():
    """The driver's words for what failed on the node, not in the claim, stay infrastructure: applying the config
    (dra-driver-nvidia-gpu #1162's plugin log, "prepare devices failed: error applying config: error asserting
    ComputeDomain Ready: current node not ready in ComputeDomain"), creating the MIG device ("error creating GPU
    instance for '1g.20gb': Insufficient Resources", #35)."""
    for error in ("error applying config: error asserting ComputeDomain Ready: current node not ready in "
                  "ComputeDomain", "error creating MIG device: error creating GPU instance for '1g.20gb': "
                  "Insufficient Resources"):
        [e] = ended(_dra_row(error))
        assert e.details["pod_end"] == "FailedPrepareDynamicResources" and "pod_reason" not in e.details
        assert [i.category for i in attribute([e])] == ["infrastructure"]


# The kubelet's own journal line of the same failure (kuberuntime_manager.go's structured klog, 1.27+: "Failed to
# prepare dynamic resources" err="<the Event's message after its ': '>" pod="<ns>/<name>"), REAL, verbatim:
# kubernetes/kubernetes #124090 (a CDI spec file the node's driver could not write) and google/dranet #30 (a claim not
# reserved for the pod)
KUBELET_DRA = (
    'Mar 28 10:29:43 worker-node-1 kubelet[2855486]: E0328 10:29:43.770694 2855486 kuberuntime_manager.go:1152] '
    '"Failed to prepare dynamic resources" err="NodePrepareResources failed for claim default/rdma-demo: error '
    'preparing devices for claim 71d5aeee-5f6d-47aa-a3d6-98b7fcf3c005: unable to create CDI spec file for claim: '
    'failed to set permissions on spec file: chmod '
    '/var/run/cdik8s.netresources.spidernet.io-claim_71d5aeee-5f6d-47aa-a3d6-98b7fcf3c005.yaml: no such file or '
    'directory" pod="default/rdma-rc-6c5596fdb8-mf95q"',
    'Dec 28 20:39:07 k8s-ng-1 kubelet[723]: E1228 20:39:07.524213     723 kuberuntime_manager.go:1217] "Failed to '
    'prepare dynamic resources" err="pod pod1(8221078e-5853-49ba-969c-04bb67c23c90) is not allowed to use resource '
    'claim pve-interfaces(6c61e511-d23c-411d-8774-1ab087ba807c)" pod="default/pod1"')


@pytest.mark.parametrize("line, host, pod", [(KUBELET_DRA[0], "worker-node-1", "default/rdma-rc-6c5596fdb8-mf95q"),
                                             (KUBELET_DRA[1], "k8s-ng-1", "default/pod1")])
def test_the_kubelets_log_of_a_dra_prepare_failure_is_the_same_fact(line, host, pod):
    """The kubelet's structured journal line (no ": " after "resources": err= holds the Event's message) is its
    FailedPrepareDynamicResources, the pod its pod= names, the node the journal's host.  Was: no failure found."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"], e.details["pod"], e.host) == (
        "FailedPrepareDynamicResources", "DRA PREPARE", pod, host)
    assert [i.category for i in attribute([e])] == ["infrastructure"]


def _kubelet_dra(error: str, claim: str = "pod-shared-gpu-tpghv") -> str:
    """constructed: the kubelet's journal line of its FailedPrepareDynamicResources (KUBELET_DRA's shape) around the
    driver's error as _dra_row wraps it, klog's quoting of the err= value (a quote as \\")."""
    err = (f"prepare dynamic resources: NodePrepareResources failed for ResourceClaim {claim}: error preparing devices "
           f"for claim default/{claim}:3c8337ad-f366-4541-883d-30b9e99fd6be: prepare devices failed: {error}")
    return ('Jan 15 10:00:00 gpu-node-3 kubelet[2061]: E0115 10:00:00.123456    2061 kuberuntime_manager.go:1217] '
            '"Failed to prepare dynamic resources" err="' + err.replace('"', '\\"') + '" pod="default/pod-shared-gpu"')


@pytest.mark.parametrize("error", DRA_CONFIG)
def test_the_kubelets_log_of_a_dra_claim_config_its_driver_rejected_is_the_jobs(error):
    """MESSAGE_ENDS' config errors read in the kubelet's err= text as in the Event's message: application."""
    [e] = ended(_kubelet_dra(error))
    assert (e.details["pod_end"], e.details["pod_reason"], e.details["pod"]) == (
        "claim:config", "FailedPrepareDynamicResources", "default/pod-shared-gpu")
    assert [i.category for i in attribute([e])] == ["application"]
    [node] = ended(_kubelet_dra("error applying config: error asserting ComputeDomain Ready: current node not ready in "
                                "ComputeDomain"))
    assert node.details["pod_end"] == "FailedPrepareDynamicResources" and "pod_reason" not in node.details


def test_a_pod_the_device_taint_manager_deleted_is_its_devices():
    """The device taint eviction controller's DisruptionTarget condition (kubernetes/kubernetes
    pkg/controller/devicetainteviction/device_taint_eviction.go: "DeletionByDeviceTaintManager", "Device Taint manager:
    deleting due to NoExecute taint"), live and offline.  Was: no pod end (the reason unknown to POD_ENDS), the gang's
    timeouts the root.  Now Kubernetes ended the pod for a NoExecute taint on a device it held: infrastructure, the
    gang restarted (its member gone for its device's sake)."""
    cond = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByDeviceTaintManager",
            "message": "Device Taint manager: deleting due to NoExecute taint",
            "lastTransitionTime": "2024-01-22T12:00:00Z"}
    pod = _pod("w-2", "node-2", {"phase": "Running", "conditions": [cond]}, rank=2)
    [e] = Reader().pod_exits(pod, rank=2)
    assert (e.details["pod_end"], e.details["why"], e.host) == ("DeletionByDeviceTaintManager", "DEVICE TAINT",
                                                                "node-2")
    incident = attribute([e] + _timeouts([0, 1], T0 + timedelta(minutes=10)))[0]
    assert (incident.category, incident.root.host) == ("infrastructure", "node-2") and fatal(incident)
    [off] = ended('    reason: DeletionByDeviceTaintManager')
    assert off.details["pod_end"] == "DeletionByDeviceTaintManager"
    assert ended('    reason: DeletionByTaintManager')[0].details["pod_end"] == "DeletionByTaintManager"


def test_a_volume_attached_or_mounted_is_no_failure():
    """ctrox/csi-s3 #98: the attach-detach controller's "AttachVolume.Attach succeeded" row is nothing."""
    assert ended('  Normal   SuccessfulAttachVolume  13s                       attachdetach-controller     '
                 'AttachVolume.Attach succeeded for volume "pvc-3af18048-ea20-4d6e-a55a-2cccc0381343"') == []


@pytest.mark.parametrize("line", [
    # kubernetes/kubernetes #105204 (a `kubectl get events -A` row, 3 s after the pod's "Started container")
    'pgo           12s         Warning   FailedMount               pod/pgo-deploy--1-vs8h9                        '
    'MountVolume.SetUp failed for volume "kube-api-access-gvtq4" : object "pgo"/"kube-root-ca.crt" not registered',
    # kubernetes/kubernetes #119361 (describe's Events row; "After sometime pod stats and works well")
    '  Warning  FailedMount       46s (x2 over 46s)  kubelet            MountVolume.SetUp failed for volume '
    '"kube-api-access-cb2bd" : object "xxx-xxx"/"kube-root-ca.crt" not registered',
    # kiwix/operations #2 (the message alone: "once cronjob terminates, there's a Warning event emitted on the Pod")
    'MountVolume.SetUp failed for volume "gen-scripts-volume" : object "zim"/"gen-scripts" not registered',
])
def test_the_kubelets_not_registered_race_is_no_pod_end(line):
    """The kubelet's "object <ns>/<name> not registered" (its ConfigMap and Secret cache not yet, or no longer, holding
    the pod: kubernetes/kubernetes #105204) is said of pods that start and run, and after they end: no pod that never
    started. Was: FailedMount, the pod never started, the job's incident."""
    assert ended(line) == []


def test_every_pod_end_key_is_read_where_kubectl_prints_its_reason():
    """The k8s_ended row's reason words derive from POD_ENDS (facts REASON_WORDS): every key that is a common word is
    read after describe's "Reason:", -o json's "reason":, an Event's type and in `kubectl get pods`' STATUS column, and
    "Terminated" (also glibc's word for SIGTERM) only in that column.  Lines constructed from kubectl's formats."""
    from triage.facts import REASON_ANYWHERE, REASON_BY_MESSAGE, REASON_STATUS_ONLY, REASON_WORDS
    assert set(REASON_ANYWHERE + REASON_BY_MESSAGE + REASON_STATUS_ONLY) <= set(POD_ENDS)
    for key in REASON_WORDS:
        for line in (f"Reason:         {key}", f'    "reason": "{key}",', f"  Warning  {key}  2m  kubelet  x",
                     f"w-0   0/1     {key}   0          5m"):
            assert [e.details["pod_end"] for e in ended(line)] == [pod_end(key)], (key, line)
    assert [e.details["pod_end"] for e in ended("w-0   0/1     Terminated   0          5m")] == ["Terminated"]
    assert ended("Reason:         Terminated") == []
    for key in REASON_ANYWHERE:
        assert [e.details["pod_end"] for e in ended(f"the pod's condition: {key}")] == [key]


def test_an_object_field_holding_no_object_is_read_as_empty_not_a_traceback():
    """Was: a hand-edited document whose metadata, spec or status holds a string (or a container's state does) raised
    AttributeError out of read_objects.  Now every such field reads as empty (inventory._mapping, one way for the
    question), and the rest of the document is still read: the pod's eviction, its node's addresses."""
    doc = {"kind": "List", "items": [
        {"kind": "Pod", "metadata": "x", "spec": {"nodeName": "n"}, "status": {}},
        {"kind": "Pod", "metadata": {"name": "p", "annotations": "a"}, "spec": "oops",
         "status": {"phase": "Failed", "reason": "Evicted", "containerStatuses": [{"state": "s"}]}},
        {"kind": "Pod", "metadata": {"name": "q"}, "spec": {"nodeName": "n"}, "status": "bad"},
        {"kind": "Node", "metadata": {"name": "n"}, "spec": "x", "status": "y"},
        {"kind": "Node", "metadata": {"name": "m"}, "status": {"addresses": [{"address": "10.0.0.9"}]}}]}
    found = read_objects(doc, "pods.json")
    assert [e.details["pod_end"] for e in found if e.kind == "job_ended"] == ["Evicted"]
    assert any(e.kind == "nccl_address" and e.address == "10.0.0.9" and e.host == "m" for e in found)


def _all(name: str, drop: str | None = None) -> list[Evidence]:
    """Every finding of a fixture of ENDED (job_ended and the context rows), its lines with `drop` in them left out."""
    path = ENDED / name
    lines = [line for line in path.read_text().splitlines(True) if drop is None or drop not in line]
    return read_lines(lines, str(path), Clock(), root=str(ENDED))


@pytest.mark.parametrize("name, pod", [
    ("describe-failed-mount-then-started.txt", "flexvoltest/nginx-flex-kv-podid"),  # Azure/kubernetes-keyvault-flexvol #68
    ("events-failed-mount-then-started.txt", "local-path-provisioner-c49b7b56f-vjkz4"),  # kubebb/core PR #130
])
def test_a_failed_mount_of_a_pod_the_kubelet_then_started_is_no_root(name, pod):
    """Was: a FailedMount the kubelet's retry got past read as "pod .. never started", the job's root (application),
    though the same Events say the kubelet started its container.  Now the pod ran (the k8s_started row, context): its
    mount warning is no failure, no incident; without the Started row the same lines are still the pod's never
    starting, the root."""
    assert [e.details["pod"] for e in _all(name) if e.kind == "pod_started"] == [pod]
    assert attribute(_all(name)) == []
    [incident] = attribute(_all(name, drop="Started container"))
    assert incident.reason.startswith(f"pod {pod} never started (FailedMount: ")


def test_a_configmap_mount_warning_of_a_pod_that_then_started_in_the_old_describe_format_is_no_root():
    """kubeflow/spark-operator #784 (regression; was already right): "FailedMount .. configmap .. not found" then
    Pulled, Created and a bare "Started container" (1.x's "kubelet, vagrant" source, no container named) in one
    describe naming no pod: the pod ran, no incident; without the Started row, the pod that never started."""
    name = "describe-failed-mount-configmap-then-started.txt"
    assert [e.kind for e in _all(name) if e.kind in ("job_ended", "pod_started")] == ["job_ended", "pod_started"]
    assert attribute(_all(name)) == []
    [incident] = attribute(_all(name, drop="Started container"))
    assert "never started (FailedMount: " in incident.reason


@pytest.mark.parametrize("line", [
    # NVIDIA-AI-Blueprints/rag #31 (a NIM LLM's startup probe while it loads, 2x DGX H100)
    'Warning  Unhealthy  16s (x292 over 50m)  kubelet  Startup probe failed: Get "http://172.29.94.143:8000/v1/health/'
    'ready": dial tcp 172.29.94.143:8000: connect: connection refused',
    # paperclipinc/openclaw-operator #344 (describe's Events while the server comes up)
    '  Warning  Unhealthy  93s                kubelet            Startup probe failed: Get "http://10.42.0.181:18790/'
    'healthz": read tcp 10.42.0.1:47222->10.42.0.181:18790: read: connection reset by peer',
    '  Warning  Unhealthy  68s (x3 over 98s)  kubelet            Startup probe failed: Get "http://10.42.0.181:18790/'
    'healthz": EOF',
])
def test_a_probe_failing_while_the_server_loads_is_no_evidence(line):
    """A serving pod's startup / readiness probe refused while its server loads a model (regression; was already
    right): the kubelet's Unhealthy Event is no failure, nor its connection words a network fault's."""
    assert list(read_lines([line], "describe.txt", Clock())) == []


def test_a_pod_that_ran_after_its_mount_warning_counts_as_one_that_ran_in_the_gang():
    """The gang's judgement: kubernetes-sigs/kind #1002's two pods failing the same mount (every pod that says
    anything failed alike: application) beside a pod whose mount warning the kubelet got past (kubebb/core PR #130):
    that pod ran, so only the two failed so (their nodes' or pods': infrastructure); another pod's Started row never
    voids theirs."""
    found = [*_all("events-failed-mount-kind.txt"), *_all("events-failed-mount-then-started.txt")]
    [incident] = attribute(found)
    assert incident.category == "infrastructure" and "only pods singlecluster-parallel-555v9-414213271, " \
        "singlecluster-parallel-555v9-513887230 of the job" in incident.reason


# ---- a pod the kubelet started, as its status says: the pod ran --------------------------------------------------

# real: a container the kubelet could not start (runc's exec failing), terminated StartError with the zero start time
# containerd gives it, https://github.com/kubernetes/kubernetes/issues/120331 (the reporter's container state)
START_ERROR = {"exitCode": 128, "reason": "StartError",
               "message": "failed to create containerd task: failed to create shim task: OCI runtime create failed: "
                          "runc create failed: unable to start container process: exec: \"sleepx\": executable file "
                          "not found in $PATH: unknown",
               "startedAt": "1970-01-01T00:00:00Z", "finishedAt": "2023-09-01T01:58:59Z",
               "containerID": "containerd://b9833afeb22eac8639dd1a8890279525b14d25faefd0b690fe1b32e79aee8f9f"}


@pytest.mark.parametrize("status, started", [
    # constructed: core/v1 ContainerStatus as the kubelet sets it
    ({"containerStatuses": [{"name": "c", "started": True, "state": {"running": {"startedAt": "2024-01-22T12:01:00Z"}}}]},
     "2024-01-22T12:01:00+00:00"),
    ({"containerStatuses": [{"name": "c", "state": {"running": {}}}]}, None),  # running, no time
    ({"containerStatuses": [{"name": "c", "started": True, "state": {}}]}, None),
    ({"initContainerStatuses": [{"name": "i", "state": {"terminated": {
        "exitCode": 0, "startedAt": "2024-01-22T12:00:30Z", "finishedAt": "2024-01-22T12:00:40Z"}}}],
      "containerStatuses": [{"name": "c", "state": {"waiting": {"reason": "PodInitializing"}}}]},
     "2024-01-22T12:00:30+00:00"),
    ({"containerStatuses": [{"name": "c", "state": {"waiting": {"reason": "CrashLoopBackOff"}}, "lastState": {
        "terminated": {"exitCode": 1, "startedAt": "2024-01-22T12:02:00Z", "finishedAt": "2024-01-22T12:02:05Z"}}}]},
     "2024-01-22T12:02:00+00:00"),
    ({"containerStatuses": [{"name": "c", "state": {"terminated": START_ERROR}}]}, "none"),
    ({"phase": "Pending", "containerStatuses": [{"name": "c", "state": {"waiting": {
        "reason": "ContainerCreating"}}}]}, "none"),
    ({"phase": "Pending"}, "none"),
])
def test_a_pod_the_kubelet_started_is_read_off_its_status(status, started):
    """A container running, started, or ended with a start time (now or before a restart; an init container's too:
    the pod's volumes were mounted and its images pulled before it) is the pod's start (pod_started, context), the
    earliest time shown; a container that never started (waiting; StartError, its zero start time) is none."""
    found = [e for e in read_objects(_pod("w-3", "node-3", status)) if e.kind == "pod_started"]
    if started == "none":
        assert found == []
        return
    [e] = found
    assert (e.details["pod"], e.host, e.time and e.time.isoformat()) == ("train/w-3", "node-3", started)


def test_a_mount_warning_of_a_pod_whose_status_says_it_runs_is_no_root_offline():
    """`kubectl get pods,events -o json`: the kubelet's FailedMount its retry got past (kubebb/core PR #130's message,
    in an Event object constructed around it) and the pod's status showing its container running: no incident, as
    with the kubelet's Started row (the k8s_started fact); the pod still waiting, the pod's never starting."""
    message = ('MountVolume.SetUp failed for volume "kube-api-access-pljgx" : failed to sync configmap cache: timed '
               'out waiting for the condition')
    event = {"kind": "Event", "type": "Warning", "reason": "FailedMount", "message": message,
             "involvedObject": {"kind": "Pod", "namespace": "train", "name": "w-3"}, "source": {"host": "node-3"},
             "firstTimestamp": "2024-01-22T12:00:10Z"}
    running = {"phase": "Running", "containerStatuses": [{"name": "c", "started": True, "state": {
        "running": {"startedAt": "2024-01-22T12:01:00Z"}}}]}
    assert attribute(read_objects({"kind": "List", "items": [_pod("w-3", "node-3", running), event]})) == []
    waiting = {"phase": "Pending", "containerStatuses": [{"name": "c", "state": {"waiting": {
        "reason": "ContainerCreating"}}}]}
    [incident] = attribute(read_objects({"kind": "List", "items": [_pod("w-3", "node-3", waiting), event]}))
    assert incident.reason.startswith("pod train/w-3 never started (FailedMount: "), incident.reason


def test_a_deletion_after_the_pods_node_not_ready_event_is_for_its_node_not_ready():
    """REAL (robert-fekete/KubernetesDemo's README, `kubectl get events`): the node controller's "Warning NodeNotReady
    pod/<name> Node is not ready" then the taint manager's "Marking for deletion Pod <ns>/<name>" of the same pod: the
    pod ended for its node not ready (POD_ENDS "taint:NodeNotReady"), not for a NoExecute taint of any kind (was: the
    generic DeletionByTaintManager). The NodeNotReady alone ends nothing (a node's blip says it too); another pod's,
    or one stamped after the deletion, leaves the deletion as it was."""
    path = ENDED / "events-taint-manager-node-not-ready.txt"
    lines = list(read_lines(path.read_text().splitlines(True), str(path), Clock(), root=str(ENDED)))
    (incident,) = attribute(lines)
    end = incident.evidence[0]
    assert (end.details["pod_end"], end.details["why"], end.details["pod_reason"]) == (
        "taint:NodeNotReady", "NODE NOT READY", "DeletionByTaintManager")
    assert incident.category == "infrastructure" and incident.root.pod == "java-demo/java-demo-api-5b876b98f8-nc7ct"
    assert "(DeletionByTaintManager: the taint manager deleted it after the node controller's NodeNotReady Event" \
        in incident.reason
    not_ready = [e for e in lines if e.kind == "pod_not_ready"]
    deletion = [e for e in lines if e.kind == "job_ended"]
    assert [e.line for e in not_ready] == [1] and attribute(not_ready) == []
    other = replace(not_ready[0], details={**not_ready[0].details, "pod": "java-demo-api-5b876b98f8-qkrdc"})
    later = [replace(deletion[0], time=T0), replace(not_ready[0], time=T0 + timedelta(minutes=5))]
    for evidence in (deletion, [other] + deletion, later):
        assert attribute(evidence)[0].evidence[0].details["pod_end"] == "DeletionByTaintManager"


@pytest.mark.parametrize("reason, taints, key", [
    ("DeletionByTaintManager", (), "taint:NodeNotReady"),
    # the node's NoExecute taints say more than the Event (which says not-ready or unreachable, not which)
    ("DeletionByTaintManager", ("node.kubernetes.io/unreachable",), "taint:node.kubernetes.io/unreachable"),
    ("DeletionByTaintManager", ("gpu-npd.io/GPUUnhealthy",), "taint:gpu-npd"),
    ("Evicted", (), "Evicted"),  # another end: the Event refines nothing
])
def test_pod_end_refines_the_taint_managers_deletion_by_the_node_not_ready_event(reason, taints, key):
    """The one refinement of DeletionByTaintManager (facts.pod_end): the node's taints, else the node controller's
    NodeNotReady Event of the pod before it (`not_ready`, as attribute's Job._refined gives it); every other POD_ENDS
    key is itself.  Before: Job._not_ready built "taint:NodeNotReady" and its details by hand (pod_end took no Event)."""
    assert pod_end(reason, taints, not_ready=True) == key
    assert all(pod_end(k, not_ready=True) == k for k in POD_ENDS if k != "DeletionByTaintManager")


def test_a_pod_object_the_taint_manager_deleted_after_its_node_not_ready_event_is_for_its_node_not_ready():
    """The pod's object (`kubectl get pods -o json`: DeletionByTaintManager, its node's taints not known) and the node
    controller's NodeNotReady Event of it before (REAL line: robert-fekete/KubernetesDemo's README, the fixture's first):
    the same end and details as the Events' own deletion (pod_end, why, pod_reason: facts.pod_ended_as)."""
    path = ENDED / "events-taint-manager-node-not-ready.txt"
    not_ready = [e for e in read_lines(path.read_text().splitlines(True)[:1], str(path), Clock(), root=str(ENDED))
                 if e.kind == "pod_not_ready"]
    pod = _pod("java-demo-api-5b876b98f8-nc7ct", "node-2", {"phase": "Running", "conditions": [TAINTED]},
               ns="java-demo")
    [end] = [e for e in read_objects({"kind": "List", "items": [pod]}) if e.kind == "job_ended"]
    assert end.details["pod_end"] == "DeletionByTaintManager"
    (incident,) = attribute(not_ready + [replace(end, time=T0 + timedelta(hours=1))])
    e = incident.evidence[0]
    assert {k: e.details[k] for k in ("pod_end", "why", "pod_reason")} == {
        "pod_end": "taint:NodeNotReady", "why": POD_ENDS["taint:NodeNotReady"].why, "pod_reason": "DeletionByTaintManager"}


def _upgrade_lines() -> list[Evidence]:
    """The GPU Operator's GPUDriverUpgrade Events of one node's upgrade (REAL: NVIDIA/cloud-native-docs
    gpu-operator/gpu-driver-upgrades.rst's example output, every state from upgrade-required to upgrade-done)."""
    path = ENDED / "events-gpu-driver-upgrade.txt"
    return list(read_lines(path.read_text().splitlines(True), str(path), Clock(), root=str(ENDED)))


def test_an_eviction_during_the_gpu_operators_driver_upgrade_is_that_nodes_planned_maintenance():
    """REAL lines: the upgrade controller's GPUDriverUpgrade Events of node localhost.localdomain
    (NVIDIA/cloud-native-docs gpu-driver-upgrades.rst) and gitlab-runner's words for a pod the Eviction API evicted
    (qemu-devel 2025-10-23), the eviction the upgrade's drain helper makes (NVIDIA/k8s-operator-libs pkg/upgrade
    pod_manager.go). Was: the Events not read and the eviction a drain of no node ("no single rank or node", DRAIN).
    Now the pod's end is the GPU Operator's driver upgrade of that node (POD_ENDS "drain:GPUDriverUpgrade",
    infrastructure: the node's planned maintenance, no GPU fault), the node named."""
    upgrade = _upgrade_lines()
    assert [e.line for e in upgrade if e.kind == "node_driver_upgrade"] == [4]  # pod-deletion-required only
    [incident] = attribute(upgrade + _read("gitlab-runner-eviction-api.txt"))
    end = incident.evidence[0]
    assert (end.details["pod_end"], end.details["why"], end.details["pod_reason"]) == (
        "drain:GPUDriverUpgrade", "GPU DRIVER UPGRADE", "EvictionByEvictionAPI")
    assert incident.category == "infrastructure" and incident.root.host == "localhost.localdomain"
    assert "for the GPU Operator's driver upgrade of its node" in incident.reason
    assert POD_ENDS["drain:GPUDriverUpgrade"].restart is False  # the upgrade controller's decision, as a drain's


def test_a_routine_driver_upgrade_alone_is_no_failure_and_refines_no_other_end():
    """A node's routine, successful driver upgrade (every GPUDriverUpgrade Event of it, REAL) is healthy noise: no
    incident. It refines only an Eviction API eviction: not one stamped before the upgrade evicted, not one of a pod
    on another node, not another end (a node-pressure eviction stays the kubelet's)."""
    upgrade = _upgrade_lines()
    assert attribute(upgrade) == []
    [evicted] = _read("gitlab-runner-eviction-api.txt")
    [moved] = [e for e in upgrade if e.kind == "node_driver_upgrade"]
    earlier = [replace(evicted, time=T0), replace(moved, time=T0 + timedelta(minutes=5))]
    other_node = [moved, replace(evicted, host="node-7")]
    pressure = [moved] + _read("describe-evicted.txt")
    for evidence, key in ((earlier, "EvictionByEvictionAPI"), (other_node, "EvictionByEvictionAPI"),
                          (pressure, "Evicted")):
        assert attribute(evidence)[0].evidence[0].details["pod_end"] == key
    assert attribute(other_node)[0].root.host == "node-7"


@pytest.mark.parametrize("line, host", [
    # shapes (not REAL lines) of NVIDIA/k8s-operator-libs' Events: describe node's Events table (no object column),
    # its "Successfully updated node state label to %s" before its "[%s]" (NVIDIA/gpu-operator PR #2168's rows), the
    # drain state, and pod_manager.go's Event after it deleted the node's GPU pods
    ("  Normal  GPUDriverUpgrade           18m (x2 over 34m)      nvidia-gpu-operator  Successfully updated node "
     "state label to [pod-deletion-required]", None),
    ("5m32s       Normal   GPUDriverUpgrade     node/ipp1-2890   Successfully updated node state label to "
     "drain-required", "ipp1-2890"),
    ("Normal GPUDriverUpgrade node/gpu-3 Deleted workload pods on the node for the driver upgrade", "gpu-3"),
])
def test_every_shape_of_the_upgrades_evicting_states(line, host):
    assert [(e.kind, e.host) for e in read_lines([line + "\n"], "k.txt", Clock())] == [("node_driver_upgrade", host)]


@pytest.mark.parametrize("line", [
    # the other states, an upgrade that failed (the node's, not a pod's end), the controller's annotation
    "5m32s       Normal   GPUDriverUpgrade     node/ipp1-2890   Successfully updated node state label to "
    "pod-restart-required",
    "  Normal  GPUDriverUpgrade           20m                    nvidia-gpu-operator  Successfully updated node state "
    "label to [upgrade-failed]",
    "  Normal  GPUDriverUpgrade           30m                    nvidia-gpu-operator  Successfully updated node "
    "annotation to [nvidia.com/gpu-driver-upgrade-validation-start-time 1727183014]=%!s(MISSING)",
])
def test_the_upgrades_other_events_say_nothing(line):
    assert list(read_lines([line + "\n"], "k.txt", Clock())) == []


# ---- a node autoscaler taking the node away: Karpenter's eviction ---------------------------------------------------

def test_karpenters_eviction_is_its_node_disruption_not_the_kubelets_node_pressure():
    """(h657) REAL, aws/karpenter-provider-aws #3594: Karpenter's `Evicted` Event ("Evicted pod", From karpenter) of a
    pod it evicted to consolidate its node.  Was: read as the kubelet's node-pressure eviction ("NODE PRESSURE: its
    node ran low on a resource"); it is the autoscaler disrupting the node through the Eviction API: infrastructure,
    no GPU fault, no cascading restart (the job's own controller reschedules it, as a drain's)."""
    [e] = _read("events-karpenter-evicted.txt")
    assert (e.details["pod_end"], e.details["why"], e.details["pod_reason"]) == \
        ("evict:Karpenter", "NODE DISRUPTION", "Evicted")
    incident = attribute([e])[0]
    assert incident.category == "infrastructure" and "Karpenter evicted it" in incident.reason
    assert "node-pressure" not in incident.reason and not fatal(incident)


@pytest.mark.parametrize("line, pod", [
    # REAL, aws/karpenter-provider-aws PR #2210 (its test's `kubectl get events` row): the 2022 wording, reason `Evict`
    ("16m         Normal    Evict                  pod/ogreveil-4-cjtyd9gst2-6d998fb8b6-z7xd8           Evicted pod",
     "ogreveil-4-cjtyd9gst2-6d998fb8b6-z7xd8"),
    # constructed from kubernetes-sigs/karpenter pkg/controllers/node/termination/terminator/events (v1: EvictPod,
    # reason Evicted, "Evicted pod: " + the disruption's reason) as `kubectl get events` and describe lay it out
    ("22m         Normal    Evicted            pod/checkout-54d668c7cf-fv65x       Evicted pod: Underutilized",
     "checkout-54d668c7cf-fv65x"),
    ("  Normal  Evicted    3m    karpenter          Evicted pod: Drifted", None),
])
def test_every_era_of_karpenters_eviction_event(line, pod):
    [e] = ended(line)
    assert (e.details["pod_end"], e.details.get("pod")) == ("evict:Karpenter", pod)


@pytest.mark.parametrize("line", [
    # the kubelet's own Evicted Events stay its node-pressure evictions (kubernetes/kubernetes #122932's message; a
    # pod/ object before it as `kubectl get events` prints it)
    "5m   Warning   Evicted   pod/postgres-keycloak-6d8858f5b-4khf2   The node was low on resource: ephemeral-storage. "
    "Threshold quantity: 1Gi, available: 777784Ki.",
    "Reason:               Evicted",
])
def test_the_kubelets_evicted_stays_node_pressure(line):
    assert [e.details["pod_end"] for e in ended(line)] == ["Evicted"]


def _disrupting() -> list[Evidence]:
    """REAL, aws/karpenter-provider-aws #5806: Karpenter disrupting node ip-10-0-40-247.ec2.internal for expiry
    (DisruptionTerminating, "Disrupting Node: Expiration/Replace") and its Evicted Event of a pod."""
    path = ENDED / "events-karpenter-disrupting.txt"
    return list(read_lines(path.read_text().splitlines(True), str(path), Clock(), root=str(ENDED)))


def test_karpenters_disruption_of_a_node_is_context_and_its_nodeclaims_twin_names_none():
    lines = _disrupting()
    assert [(e.kind, e.host, e.details.get("disruption")) for e in lines if e.kind == "node_disruption"] == [
        ("node_disruption", "ip-10-0-40-247.ec2.internal", "Expiration/Replace")]
    assert attribute([e for e in lines if e.kind == "node_disruption"]) == []  # routine: no failure


def test_an_eviction_api_eviction_on_a_node_karpenter_was_disrupting_is_karpenters():
    """(h663) The Eviction API's eviction of a pod (REAL: gitlab-runner's DisruptionTarget words) on the node
    Karpenter's DisruptionTerminating Event (REAL, #5806) named before it: Karpenter's node disruption, that node named
    (as the GPU Operator's driver upgrade refines it).  Was: a drain of no known cause ("DRAIN")."""
    [node] = [e for e in _disrupting() if e.kind == "node_disruption"]
    [evicted] = _read("gitlab-runner-eviction-api.txt")
    (incident,) = attribute([replace(node, time=T0), replace(evicted, time=T0 + timedelta(minutes=1))])
    end = incident.evidence[0]
    assert (end.details["pod_end"], end.details["why"], end.details["pod_reason"]) == (
        "evict:Karpenter", "NODE DISRUPTION", "EvictionByEvictionAPI")
    assert incident.root.host == "ip-10-0-40-247.ec2.internal" and "Karpenter evicted it" in incident.reason
    # one stamped after the eviction, or of another node, says nothing of it
    for other in (replace(node, time=T0 + timedelta(minutes=2)), replace(node, time=T0, host="node-7")):
        (incident,) = attribute([other, replace(evicted, time=T0 + timedelta(minutes=1), host="node-3")])
        assert incident.evidence[0].details["pod_end"] == "EvictionByEvictionAPI"


def test_karpenters_evicted_event_of_a_pod_makes_its_eviction_api_end_karpenters():
    """(h663) A pod's object (its DisruptionTarget condition: EvictionByEvictionAPI, CONSTRUCTED around gitlab-runner's
    REAL reason and message) and Karpenter's Evicted Event of the same pod a second later (REAL message, #3594): the
    end is Karpenter's, whichever comes first.  Was: the condition's earlier stamp made the root a drain of no known
    cause ("DRAIN"), the Event's words left to the second evidence."""
    pod = {"kind": "Pod", "metadata": {"name": "llm-w-0-1", "namespace": "train"}, "spec": {"nodeName": "node-b"},
           "status": {"phase": "Running", "conditions": [
               {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                "message": "Eviction API: evicting", "lastTransitionTime": "2024-01-22T12:00:10Z"}]}}

    def event(at: str) -> dict:
        return {"kind": "Event", "type": "Normal", "reason": "Evicted", "message": "Evicted pod",
                "involvedObject": {"kind": "Pod", "name": "llm-w-0-1", "namespace": "train"},
                "source": {"component": "karpenter"}, "firstTimestamp": at, "lastTimestamp": at}

    (incident,) = attribute(read_objects({"kind": "List", "items": [pod, event("2024-01-22T12:00:11Z")]}))
    root = incident.evidence[0]
    assert (root.details["pod_end"], root.details["pod_reason"], root.host) == (
        "evict:Karpenter", "EvictionByEvictionAPI", "node-b")
    # an Evicted Event of a later pod of that name, an hour on, is not this eviction's
    (incident,) = attribute(read_objects({"kind": "List", "items": [pod, event("2024-01-22T13:00:11Z")]}))
    assert incident.evidence[0].details["pod_end"] == "EvictionByEvictionAPI"


@pytest.mark.parametrize("line", [
    # pytorch/ci-infra #696 (2026-06-03): a p5.48xlarge's kubelet under `single-numa-node` refusing a 4-GPU pod, the
    # reason and message as the issue quotes them
    "TopologyAffinityError: Resources cannot be allocated with Topology locality",
    # kubernetes/kubernetes #84869 (1.16, `kubectl get pod`): the reason as that release worded it, in STATUS
    "exclusive-replicaset-27dzq   0/1     Topology Affinity Error   0          19s",
    # kubernetes/kubernetes #83775 (1.16, `kubectl get pods -A`)
    "kube-system   kube-dns-b54d5f547-22dks   0/3     Topology Affinity Error   0    ",
    # constructed from pkg/kubelet/cm/topologymanager's words: `kubectl describe pod`'s reason and message
    "Reason:       TopologyAffinityError",
    "Message:      Resources cannot be allocated with Topology locality",
])
def test_the_kubelets_topology_manager_refusing_a_pod_is_a_pod_kubernetes_ended(line):
    """The kubelet's topology manager (`restricted` / `single-numa-node`) refusing a pod whose GPUs and CPUs fit no NUMA
    node of its node (the node's free GPUs spread over its sockets by the NUMA-blind scheduler): a pod Kubernetes
    ended, never started, the infrastructure's.  Was: nothing (the reason was in no table: the job's pods waiting or
    failing named no cause)."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"]) == ("TopologyAffinityError", "TOPOLOGY AFFINITY"), line
    assert POD_ENDS["TopologyAffinityError"].category == "infrastructure"
    assert pod_end("TopologyAffinityError") == "TopologyAffinityError"


def test_a_pod_the_topology_manager_refused_is_read_live_off_its_status():
    pod = _pod("w-0", "node-0", {"phase": "Failed", "reason": "TopologyAffinityError",
                                 "message": "Resources cannot be allocated with Topology locality",
                                 "startTime": "2024-01-22T12:00:00Z"}, rank=0)
    [e] = Reader().pod_exits(pod, rank=0)
    assert (e.details["why"], e.host) == ("TOPOLOGY AFFINITY", "node-0")


@pytest.mark.parametrize("line, host, pod", [
    # REAL: kubernetes/kubernetes #93338 (1.18, IKS, `kubectl describe pod`: the kubelet's admission refusing a pod
    # scheduled on a label it had not yet seen), reason and message
    ("Reason:       NodeAffinity", None, None),
    ("Message:      Pod Predicate NodeAffinity failed", None, None),
    # REAL: longhorn/longhorn #6930 (EKS, 2023, describe: 1.27+'s "Pod was rejected: " message)
    ("Message:          Pod was rejected: Predicate NodeAffinity failed", None, None),
    # REAL: kubernetes/kubernetes #109663 (1.20, `kubectl get pod -o wide`: STATUS, then IP <none> and NODE)
    ("ceph-rgw-548fdf5fc5-t5k8d          0/1     NodeAffinity   0          4h25m   <none>        node-5   <none>    "
     "       <none>", "node-5", "ceph-rgw-548fdf5fc5-t5k8d"),
    # REAL: kubernetes/kubernetes #102387 (`kubectl get pods`)
    ("sonic-k8s-agent-8684d6989d-bhzbf   0/1     NodeAffinity   0          2d1h", None,
     "sonic-k8s-agent-8684d6989d-bhzbf"),
])
def test_the_kubelet_refusing_a_pod_its_nodes_labels_no_longer_select_is_a_pod_kubernetes_ended(line, host, pod):
    """The kubelet's admission refusing a pod whose node selector or affinity its node's labels no longer match (the
    node relabelled after the scheduler placed it: on a GPU node the GPU Operator's labels while its driver restarts):
    a pod Kubernetes ended, never started, the node's (infrastructure).  Was: nothing (NodeAffinity in no table)."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"], e.host, e.details.get("pod")) == (
        "NodeAffinity", "NODE AFFINITY", host, pod), line
    assert POD_ENDS["NodeAffinity"].category == "infrastructure"
    assert POD_ENDS["NodeAffinity"].ended == "never started"


@pytest.mark.parametrize("line, reason, pod", [
    # REAL: red-hat-storage/ocs-ci #12362 (OpenShift, 2025, `kubectl describe pod`): reason and message
    ("Reason:           OutOfcpu", "OutOfcpu", None),
    ("Message:          Pod was rejected: Node didn't have enough resource: cpu, requested: 150, used: 11388, "
     "capacity: 11500", "OutOfcpu", None),
    # REAL: neondatabase/autoscaling #374 (2023): describe's Events row and `kubectl get po`
    ("  Warning  OutOfcpu          43m   kubelet              Node didn't have enough resource: cpu, requested: "
     "1000, used: 94939, capacity: 95690", "OutOfcpu", None),
    ("vm-stress-0050-dz557   0/1     OutOfcpu   0          48m", "OutOfcpu", "vm-stress-0050-dz557"),
])
def test_the_kubelets_admission_short_of_cpu_or_memory_is_a_pod_kubernetes_ended(line, reason, pod):
    """The kubelet's admission short of a node resource the scheduler counted free ("OutOfcpu", "OutOfmemory",
    "OutOfpods": the two counts apart, or a pod bound by nodeName past the scheduler): a pod Kubernetes ended, never
    started, the node's accounting (infrastructure), not the device plugin's OutOfDevices.  Was: nothing (only an
    extended resource's OutOf<vendor>/<name> was read)."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details["why"], e.details.get("pod_reason"), e.details.get("pod")) == (
        "outof:node", "OUT OF NODE RESOURCES", reason, pod), line
    assert POD_ENDS["outof:node"].category == "infrastructure"
    assert (pod_end("OutOfmemory"), pod_end("OutOfpods"), pod_end("OutOfnvidia.com/gpu")) == (
        "outof:node", "outof:node", "OutOfDevices")


@pytest.mark.parametrize("reason, message, why", [
    # the reasons and messages of the REAL samples above (#93338; ocs-ci #12362) as the pod's status holds them
    ("NodeAffinity", "Pod Predicate NodeAffinity failed", "NODE AFFINITY"),
    ("OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 150, used: 11388, "
     "capacity: 11500", "OUT OF NODE RESOURCES"),
])
def test_a_pod_the_kubelet_refused_at_admission_is_read_live_off_its_status(reason, message, why):
    pod = _pod("w-0", "node-0", {"phase": "Failed", "reason": reason, "message": message,
                                 "startTime": "2024-01-22T12:00:00Z"}, rank=0)
    [e] = Reader().pod_exits(pod, rank=0)
    assert (e.details["why"], e.host) == (why, "node-0")


# ---- Kubernetes' own words, h705: the structured klog Event, the kubelet's other predicates, container reasons -----

# REAL: https://github.com/kubernetes/kubernetes/issues/124345 (nareshku's comment, the kubelet's journal after its
# restart: the names redacted to "<namespace>/<podname>" by the reporter)
STRUCTURED_ADMISSION = (
    'I0129 05:42:59.060605 3736781 event.go:294] "Event occurred" object="<namespace>/<podname>" kind="Pod" '
    'apiVersion="v1" type="Warning" reason="UnexpectedAdmissionError" message="Allocate failed due to requested '
    'number of devices unavailable for nvidia.com/gpu. Requested: 4, Available: 0, which is unexpected"')


@pytest.mark.parametrize("line, key, pod", [
    (STRUCTURED_ADMISSION, "UnexpectedAdmissionError", None),  # a redacted name is no pod's
    # constructed from that line's shape, a pod's name in place of the reporter's placeholders (1.19-1.26: no
    # fieldPath), and with 1.27+'s fieldPath (event.go:307, empty for a pod's own Event; a container's path)
    (STRUCTURED_ADMISSION.replace("<namespace>/<podname>", "train/llama-worker-3"), "UnexpectedAdmissionError",
     "train/llama-worker-3"),
    ('I0815 22:24:53.410771  102192 event.go:307] "Event occurred" object="train/llama-worker-3" fieldPath="" '
     'kind="Pod" apiVersion="v1" type="Warning" reason="TopologyAffinityError" message="Resources cannot be '
     'allocated with Topology locality"', "TopologyAffinityError", "train/llama-worker-3"),
    ('I0129 05:42:59.060605 3736781 event.go:389] "Event occurred" object="train/w-0" '
     'fieldPath="spec.containers{trainer}" kind="Pod" apiVersion="v1" type="Warning" reason="Evicted" '
     'message="The node was low on resource: memory. "', "Evicted", "train/w-0"),
    ('I0129 05:42:59.060605 3736781 event.go:294] "Event occurred" object="train/w-0" kind="Pod" apiVersion="v1" '
     'type="Warning" reason="OutOfnvidia.com/gpu" message="Node didn\'t have enough resource: nvidia.com/gpu, '
     'requested: 1, used: 0, capacity: 0"', "OutOfDevices", "train/w-0"),
    # an Event about another kind names no pod (its reason read alone, as before)
    ('I0129 05:42:59.060605 3736781 event.go:294] "Event occurred" object="gpu-node-7" kind="Node" apiVersion="v1" '
     'type="Warning" reason="Evicted" message="x"', "Evicted", None),
])
def test_a_structured_klog_event_about_a_pod_names_the_pod_it_ended(line, key, pod):
    """Kubernetes 1.19+ prints an Event in structured klog ("Event occurred" object="<ns>/<name>" .. kind="Pod" ..
    reason=".."): the kubelet's, the scheduler's, the controllers' journals.  Was: its reason read (where a reason
    word) but not the pod its object names: the incident's root named no pod (the older Event(v1.ObjectReference{..})
    form named it).  Now the pod of an Event about a pod is the evidence's pod and the incident's root pod."""
    [e] = ended(line)
    assert (e.details["pod_end"], e.details.get("pod")) == (key, pod)
    if pod is not None:
        incident = attribute([e])[0]
        assert (incident.root.kind, incident.root.pod) == ("job_ended", pod)


@pytest.mark.parametrize("line", [
    # the node controller's Event on a pod of a node not ready (context, no end: POD_EVENTS) and a descheduler's
    # eviction Event (its own, not Kubernetes'), structured: lines of public notes found by the code search, whose
    # addresses it did not give (read as constructed)
    'I0827 02:05:45.661972       1 event.go:307] "Event occurred" object="supcon/ice1-1" fieldPath="" kind="Pod" '
    'apiVersion="v1" type="Warning" reason="NodeNotReady" message="Node is not ready"',
    'I0517 17:02:22.426738       1 event.go:294] "Event occurred" object="test/ua-v645d" kind="Pod" apiVersion="v1" '
    'type="Normal" reason="Descheduled" message="pod evicted by sigs.k8s.io/deschedulerNodeAffinity"',
])
def test_a_structured_klog_event_of_no_pod_end_ends_nothing(line):
    assert ended(line) == []


@pytest.mark.parametrize("line, key", [
    # REAL: https://github.com/kubernetes/kubernetes/issues/60726 (kubectl describe of a prow pod, 1.9)
    ("Reason:       PodFitsHostPorts", "PodFitsHostPorts"),
    ("Message:      Pod Predicate PodFitsHostPorts failed", "PodFitsHostPorts"),
    # REAL: https://github.com/cilium/cilium/issues/43872 (its title: the CI step's error, an EKS node)
    ("[v1.18] CI: Conformance EKS: Wait for Cilium to be ready - Pod was rejected: Predicate TaintToleration failed",
     "TaintToleration"),
    # constructed from pkg/kubelet/lifecycle/predicate.go (1.18+: the predicate "NodePorts", rejectPod's "Pod was
    # rejected: " message; 1.31+'s ": <description>" after it, kubernetes/kubernetes PR #125498) as describe prints it
    ("Reason:           NodePorts", "NodePorts"),
    ("Message:          Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the "
     "requested pod ports", "NodePorts"),
    ("Reason:           TaintToleration", "TaintToleration"),
    # REAL: https://github.com/kubernetes-retired/kube-batch/issues/931 (the device manager's 1.10-1.12 words, a
    # kube-batch scheduled TF job's GPU pod)
    ("Message:            Pod Update plugin resources failed due to requested number of devices unavailable for "
     "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected", "UnexpectedAdmissionError"),
])
def test_the_kubelets_other_admission_predicates_are_pod_ends(line, key):
    """The kubelet's admission refusing a pod for a host port bound on its node (NodePorts, PodFitsHostPorts before
    1.18) or a NoExecute taint its node got after the scheduler placed it (TaintToleration, 1.22+): the node's state,
    the pod never ran.  Was: nothing (only NodeAffinity and the resource predicates were read)."""
    [e] = ended(line)
    assert (e.details["pod_end"], POD_ENDS[key].category, POD_ENDS[key].ended) == (key, "infrastructure",
                                                                                   "never started")


# REAL: https://github.com/kubernetes/kubernetes/issues/122932 (kubectl describe of the other pod the kubelet evicted,
# maintenancepage-765549c948-p76fh: its status, then its container's state)
DESCRIBE_EVICTED_UNKNOWN = """\
Status:           Failed
Reason:           Evicted
Message:          The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 0.
    State:          Terminated
      Reason:       ContainerStatusUnknown
      Message:      The container could not be located when the pod was terminated
      Exit Code:    137
      Started:      Mon, 01 Jan 0001 00:00:00 +0000
      Finished:     Mon, 01 Jan 0001 00:00:00 +0000
"""


def test_container_status_unknown_folds_into_the_pods_own_end():
    """ContainerStatusUnknown (exit code 137) is the kubelet's placeholder for a container it could not find when the
    pod was terminated or deleted (kubernetes/kubernetes #122932, #122160, #105467: after an eviction): no kill it
    saw, no end of its own.  The pod's one end is its own reason (Evicted here), in kubectl's text and in its object
    alike; the container's reason adds none (no second end of the pod, no rank killed by SIGKILL)."""
    found = [e for e in read_lines(DESCRIBE_EVICTED_UNKNOWN.splitlines(True), "k.txt", Clock())
             if e.kind in ("job_ended", "rank_exit", "worker_exit")]
    assert [(e.kind, e.details.get("pod_end")) for e in found] == [("job_ended", "Evicted")] * 2  # Reason:, Message:
    # constructed from #122160's pod (its containerStatuses as -o yaml prints them) with the pod's reason
    unknown = {"exitCode": 137, "reason": "ContainerStatusUnknown",
               "message": "The container could not be located when the pod was terminated"}
    pod = {"kind": "Pod", "metadata": {"name": "w-0", "namespace": "train"}, "spec": {"nodeName": "n"},
           "status": {"phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory. ",
                      "containerStatuses": [{"name": "c", "state": {"terminated": unknown},
                                             "lastState": {"terminated": unknown}}]}}
    assert [e.details["pod_end"] for e in read_objects(pod, "pods.json") if e.kind == "job_ended"] == ["Evicted"]
    # the container's reason alone (a pod whose reason the kubelet never wrote) is no end triage can name
    del pod["status"]["reason"]
    assert [e for e in read_objects(pod, "pods.json") if e.kind == "job_ended"] == []
    assert ended("      Reason:       ContainerStatusUnknown") == []


# ---- a spot VM reclaimed: aws-node-termination-handler's notice, then its drain ---------------------------------

# CONSTRUCTED rows around aws-node-termination-handler's REAL Description "Spot ITN received. Instance will be
# interrupted at 2020-09-15T21:15:41Z" and its node ip-172-16-34-43.ec2.internal (NTH's log in
# https://github.com/aws/aws-node-termination-handler/blob/main/docs/aemm_interruption_testing.md), laid out as
# `kubectl get events` prints NTH's Node Event of it (docs/kubernetes_events.md: reason SpotInterruption, on the Node);
# queue mode's words from pkg/monitor/sqsevent/spot-itn-event.go's format ("Spot Interruption notice for instance %s
# was sent at %s")
NTH_ROWS = [
    "default   0s   Normal   SpotInterruption   node/ip-172-16-34-43.ec2.internal   Spot ITN received. Instance will "
    "be interrupted at 2020-09-15T21:15:41Z",
    "default   0s   Normal   SpotInterruption   node/ip-172-16-34-43.ec2.internal   Spot Interruption notice for "
    "instance i-1234567890abcdef0 was sent at 2020-09-15T21:13:41Z",
]


@pytest.mark.parametrize("row", NTH_ROWS)
def test_an_eviction_after_nths_spot_interruption_notice_is_the_reclaim_of_that_node(row):
    """(h738) NTH's SpotInterruption Event of a node, then the Eviction API's eviction of a pod (NTH cordons and drains
    the node; gitlab-runner's REAL words for the eviction, qemu-devel 2025-10-23).  Was: the Event not read, the
    eviction a drain of no known cause (DRAIN, no node).  Now the spot reclaim of that node (POD_ENDS
    "SpotInterruption", infrastructure), the node named; the notice alone is no incident."""
    [notice] = list(read_lines([row + "\n"], "e.txt", Clock()))
    assert (notice.kind, notice.host) == ("node_spot_interruption", "ip-172-16-34-43.ec2.internal")
    assert attribute([notice]) == []
    [incident] = attribute([notice] + _read("gitlab-runner-eviction-api.txt"))
    end = incident.evidence[0]
    assert (end.details["pod_end"], end.details["why"], end.details["pod_reason"]) == (
        "SpotInterruption", "SPOT INTERRUPTION", "EvictionByEvictionAPI")
    assert incident.category == "infrastructure" and incident.root.host == "ip-172-16-34-43.ec2.internal"


def test_nths_other_events_refine_no_eviction():
    """NTH's other reasons (docs/kubernetes_events.md: its CordonAndDrain action, "Node successfully cordoned and
    drained", pkg/observability/k8s-events.go CordonAndDrainMsg) say no reclaim: the eviction stays a drain."""
    row = ("default   0s   Normal   CordonAndDrain   node/ip-172-16-34-43.ec2.internal   Node successfully cordoned "
           "and drained")
    assert list(read_lines([row + "\n"], "e.txt", Clock())) == []


def test_an_event_objects_own_time_is_its_time_not_one_its_message_states():
    """(h738) NTH's notice as an Event object (`kubectl get events -o json`): its time is the Event's (lastTimestamp),
    not the interruption time its message states, two minutes later (here a date years before).  Was: the message's,
    so a drain of the node after the notice was not after it, and stayed a DRAIN."""
    from triage.inventory import read_events
    ev = {"type": "Normal", "reason": "SpotInterruption", "message": NTH_ROWS[0].split("   ")[-1] + " \n",
          "involvedObject": {"kind": "Node", "name": "ip-172-16-34-43.ec2.internal"},
          "source": {"component": "aws-node-termination-handler"}, "lastTimestamp": "2024-07-25T06:01:00Z"}
    [e] = read_events([ev])
    assert (e.kind, e.time) == ("node_spot_interruption", datetime(2024, 7, 25, 6, 1, tzinfo=timezone.utc))


# ---- Karpenter's spot interruption notice, as NTH's: context of the evictions on its node -------------------------

# SYNTHETIC rows from aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go SpotInterrupted (commit
# 1dea438a3d92eeb226f14c8b0804030d46453284: type Warning, reason SpotInterrupted, "Spot interruption warning was
# triggered", on the Node, its NodeClaim and, since PR #8289, the node's pods) as `kubectl get events` and describe node
# lay them out
KARPENTER_SPOT_NODE = ("27m         Warning   SpotInterrupted               node/ip-10-2-117-202.ec2.internal   Spot "
                       "interruption warning was triggered")
KARPENTER_SPOT_DESCRIBE = "  Warning  SpotInterrupted  27m   karpenter  Spot interruption warning was triggered"


@pytest.mark.parametrize("row, host", [(KARPENTER_SPOT_NODE, "ip-10-2-117-202.ec2.internal"),
                                       (KARPENTER_SPOT_DESCRIBE, None)])
def test_karpenters_spot_interrupted_node_event_is_context_as_nths_is(row, host):
    """(h740) Karpenter's SpotInterrupted Event of a node is the notice NTH's SpotInterruption is: context
    (node_spot_interruption), no pod end in its own right, no incident alone.  Was: a pod end (SPOT INTERRUPTION) of
    no pod, an incident of its own whether or not a pod of the job was evicted there."""
    found = list(read_lines([row + "\n"], "e.txt", Clock()))
    assert [(e.kind, e.host) for e in found] == [("node_spot_interruption", host)]
    assert attribute(found) == []


@pytest.mark.parametrize("row", [
    "27m   Warning   SpotInterrupted   nodeclaim/default-x7k2p   Spot interruption warning was triggered",
    "27m   Warning   SpotInterrupted   pod/llm-w-0-1   Spot interruption warning was triggered",
])
def test_karpenters_twins_of_the_notice_on_other_objects_are_not_read(row):
    """SYNTHETIC (events.go): the same notice on its NodeClaim and on the node's pods names no node: nothing."""
    assert list(read_lines([row + "\n"], "e.txt", Clock())) == []


def test_an_eviction_after_karpenters_spot_interruption_notice_is_the_reclaim_of_that_node():
    """(h740) Karpenter's notice of a node, then the Eviction API's eviction of a pod (gitlab-runner's REAL words) and,
    another, Karpenter's Evicted Event of a pod (REAL, aws/karpenter-provider-aws #3594): the spot reclaim of that node
    (SpotInterruption, infrastructure), the node named.  Was: a pod end of the notice itself; the eviction a DRAIN,
    Karpenter's Evicted its consolidation (NODE DISRUPTION)."""
    [notice] = list(read_lines([KARPENTER_SPOT_NODE + "\n"], "e.txt", Clock()))
    notice = replace(notice, time=T0)
    [evicted] = _read("gitlab-runner-eviction-api.txt")
    [said] = _read("events-karpenter-evicted.txt")
    for end, reason in ((evicted, "EvictionByEvictionAPI"), (said, "Evicted")):
        (incident,) = attribute([notice, replace(end, time=T0 + timedelta(minutes=1))])
        root = incident.evidence[0]
        assert (root.details["pod_end"], root.details["why"], root.details["pod_reason"]) == (
            "SpotInterruption", "SPOT INTERRUPTION", reason)
        assert incident.category == "infrastructure" and incident.root.host == "ip-10-2-117-202.ec2.internal"
    # Karpenter's consolidation of a node with no notice stays its disruption
    (incident,) = attribute([replace(said, time=T0)])
    assert incident.evidence[0].details["pod_end"] == "evict:Karpenter"


# ---- cluster-autoscaler scaling a node down, named as Karpenter's consolidation is ---------------------------------

# SYNTHETIC rows from kubernetes/autoscaler cluster-autoscaler/core/scaledown/actuation/drain.go evictPod (commit
# 92aba319cbd5f03b63386412b7b8c45a837b89df: `ctx.Recorder.Eventf(podToEvict, apiv1.EventTypeNormal, "ScaleDown",
# "deleting pod for node scale down")`, then the Eviction API) as `kubectl get events` and describe pod lay them out
CA_SCALE_DOWN = ("12m         Normal    ScaleDown          pod/llm-worker-3                  deleting pod for node "
                 "scale down")
CA_SCALE_DOWN_DESCRIBE = "  Normal  ScaleDown  12m   cluster-autoscaler  deleting pod for node scale down"


@pytest.mark.parametrize("row, pod", [(CA_SCALE_DOWN, "llm-worker-3"), (CA_SCALE_DOWN_DESCRIBE, None)])
def test_cluster_autoscalers_scale_down_of_a_pods_node_is_its_node_disruption(row, pod):
    """(h740) cluster-autoscaler's ScaleDown Event of a pod: the autoscaler evicted it, scaling its node down (NODE
    DISRUPTION, infrastructure, no cascading restart), as Karpenter's consolidation.  Was: nothing read."""
    [e] = ended(row)
    assert (e.details["pod_end"], e.details["why"], e.details.get("pod")) == (
        "evict:cluster-autoscaler", "NODE DISRUPTION", pod)
    incident = attribute([e])[0]
    assert incident.category == "infrastructure" and "cluster-autoscaler evicted it" in incident.reason
    assert not fatal(incident)


def test_cluster_autoscalers_node_event_and_other_scale_down_words_end_nothing():
    """SYNTHETIC (kubernetes/autoscaler's node Event, "marked the node as toBeDeleted/unschedulable"): no pod's end."""
    assert ended("12m   Normal   ScaleDown   node/ip-10-0-0-142   marked the node as toBeDeleted/unschedulable") == []


def test_the_eviction_api_eviction_of_a_pod_cluster_autoscaler_named_is_its_scale_down():
    """(h740) The pod's DisruptionTarget condition (EvictionByEvictionAPI) and cluster-autoscaler's ScaleDown Event of
    the same pod a second before it: the autoscaler's.  Was: a DRAIN of no known cause."""
    pod = {"kind": "Pod", "metadata": {"name": "llm-worker-3", "namespace": "train"}, "spec": {"nodeName": "node-b"},
           "status": {"phase": "Running", "conditions": [
               {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                "message": "Eviction API: evicting", "lastTransitionTime": "2024-01-22T12:00:10Z"}]}}
    event = {"kind": "Event", "type": "Normal", "reason": "ScaleDown", "message": "deleting pod for node scale down",
             "involvedObject": {"kind": "Pod", "name": "llm-worker-3", "namespace": "train"},
             "source": {"component": "cluster-autoscaler"}, "lastTimestamp": "2024-01-22T12:00:09Z"}
    found = [e for e in read_objects(pod, "pods.json") if e.kind == "job_ended"]
    from triage.inventory import read_events
    found += read_events([event])
    (incident,) = attribute(found)
    assert {e.details["pod_end"] for e in incident.evidence} == {"evict:cluster-autoscaler"}


# ---- GKE's node termination handler: a pod deleted before GCE terminates its node (h745) --------------------------

# SYNTHETIC: the message GoogleCloudPlatform/k8s-node-termination-handler termination/eviction.go (commit
# 00ba027b5da4afae74afe76073de38ab20bf7b63) records, a Warning Event of reason NodeTermination on each pod before it
# deletes it ("Node %q is about to be terminated. Evicting pod prior to node termination.", the node's name quoted by
# Go's %q), laid out as kubectl describe pod, `kubectl get events` and the Event object (-o json) hold it; its Node
# Event, termination/taint.go's ImpendingNodeTermination ("Node about to be terminated. Tainting the node to prevent
# further pods from being scheduling on the node"), ends no pod
GKE_NODE = "gke-gpu-pool-a100-4f3c2b1a-x7kq"
GKE_SAYS = f'Node "{GKE_NODE}" is about to be terminated. Evicting pod prior to node termination.'
GKE_ROWS = [f"  Warning  NodeTermination  40s   k8s-node-termination-handler  {GKE_SAYS}",
            f"train   40s   Warning   NodeTermination   pod/llm-w-0-1   {GKE_SAYS}"]


@pytest.mark.parametrize("row", GKE_ROWS)
def test_gkes_node_termination_event_is_its_pods_end_on_that_node(row):
    """(h745) The handler's NodeTermination Event of a pod it deleted (no Eviction API, no DisruptionTarget condition:
    the pod's status says only that it was deleted while running): the pod's end, NODE TERMINATION, infrastructure,
    the node its message names.  Was: nothing read, the pod deleted with no cause."""
    [e] = ended(row)
    assert (e.details["pod_end"], e.details["why"], e.host) == ("NodeTermination", "NODE TERMINATION", GKE_NODE)
    [incident] = attribute([e])
    assert incident.category == "infrastructure" and incident.root.host == GKE_NODE
    assert POD_ENDS["NodeTermination"].restart and POD_ENDS["NodeTermination"].event_only
    assert ended("  Warning  ImpendingNodeTermination  41s  k8s-node-termination-handler  Node about to be "
                 "terminated. Tainting the node to prevent further pods from being scheduling on the node") == []


def test_gkes_node_termination_event_object_reads_as_its_row_and_as_live():
    """(h745) The Event object (`kubectl get events -o json`) offline and the same object the cluster component watches
    (Reader.their_pod_event): one reading, the pod the object names, the node the message names."""
    from triage.inventory import read_events
    ev = {"type": "Warning", "reason": "NodeTermination", "message": GKE_SAYS,
          "involvedObject": {"kind": "Pod", "namespace": "train", "name": "llm-w-0-1"},
          "source": {"component": "k8s-node-termination-handler"}, "lastTimestamp": "2024-07-25T06:01:00Z"}
    [e] = read_events([ev])
    assert (e.details["pod_end"], e.details["pod"], e.host) == ("NodeTermination", "train/llm-w-0-1", GKE_NODE)
    [live] = Reader().their_pod_event(ev, "node-elsewhere")
    assert (live.kind, live.details["pod_end"], live.host) == (e.kind, "NodeTermination", GKE_NODE)
