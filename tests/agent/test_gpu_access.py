"""A pod that holds GPUs but cannot see them is the node's (parsers/kinds.py `gpu_access_lost`, `pod_holds_gpus`;
one refused its GPU, CUDA status 46, `gpu_busy`):
in a pod the kubelet says holds GPUs, the pod's Event names the node's container runtime and pods of two workloads
within the window raise GPUDriverDegraded; in a pod that holds none it is counted only; in one whose devices are unknown
it waits for the kubelet's answer, then is either.  The lines are tests/fixtures/realworld/jobs-gpu-access-2026.yaml's
(real, sources there); pods, UIDs and GPU UUIDs are synthetic."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from agent.app import build
from agent.config import load
from agent.kube.poddevices import PodDeviceCache
from agent.kube.settings import KubeSettings
from agent.podresources import KUBELET, Owned, PodDevices
from parsers import parse_line
from parsers.gpus import GpuMap
from parsers.kinds import BY_NAME as KIND, taken_by
from parsers.model import Boot, PodRef, WorkloadFindings

NO_GPUS = "RuntimeError: No CUDA GPUs are available"  # Grace9994/CoMoSVC #6
NO_INIT = "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu."  # points2surf #17
A = PodRef("team-a", "train-worker-0", "uid-a0", "main")
A1 = PodRef("team-a", "train-worker-1", "uid-a1", "main")  # the same job as A
B = PodRef("team-b", "serve-0", "uid-b0", "server")


class Devices:
    """The kubelet's cache as the pipeline asks it (agent/kube/poddevices.py PodDeviceCache): whether a pod holds GPUs
    (`holds_gpus(ref, at)`) and the devices every pod holds (`owned`, None: unknown)."""

    def __init__(self, holds) -> None:
        self.holds_gpus, self.owned = holds, None

    def __call__(self, ref: PodRef) -> Owned | None:
        return self.owned


def make(tmp: Path, holds):
    """An agent whose pipeline asks `holds` whether a pod holds GPUs (None: no cache, workload_hang disabled)."""
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": "", "nvml": "off", "mode": "off"})
    agent = build(cfg, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0))
    agent.pipeline.pod_devices = Devices(holds) if holds is not None else None
    return agent


def said(agent, *items, reason="PodGPUAccessLost"):
    snap = agent.pipeline.process(WorkloadFindings([(ref, parse_line(line)) for ref, line in items]))
    return snap, [e for e in (snap.pod_events if snap is not None else ()) if e.reason == reason]


def count(agent, ns, kind="gpu_access_lost"):
    return agent.metrics.registry.get_sample_value("gpu_npd_workload_findings_total",
                                                  {"namespace": ns, "kind": kind}) or 0


def degraded(agent, reason="PodGPUAccessLostRepeated"):
    return [p for p in agent.engine.problems.values() if p.reason == reason]


def test_a_pod_holding_gpus_gets_the_event_with_the_advice_and_one_workload_alone_raises_nothing(tmp_path):
    agent = make(tmp_path, lambda ref, at: True)
    _, events = said(agent, (A, NO_GPUS), (A1, NO_INIT))  # two pods of one job: one workload
    assert events and events[0].ref == A
    msg = events[0].message
    # the kind row's action (parsers/kinds.py), as every other Event says its finding's (was: words typed beside it)
    assert "holds GPUs" in msg and f"Recommended action: {KIND['gpu_access_lost'].action}." in msg
    assert "daemon-reload" in msg
    assert "No CUDA GPUs are available" in msg
    assert count(agent, "team-a") == 2
    assert degraded(agent) == []  # one workload's words alone are the pod's


def test_pods_of_two_workloads_saying_it_raise_the_nodes_problem(tmp_path):
    agent = make(tmp_path, lambda ref, at: True)
    said(agent, (A, NO_GPUS))
    snap, events = said(agent, (B, NO_INIT))
    assert [e.ref for e in events] == [B]
    [p] = degraded(agent)
    assert p.severity == "warning" and p.action == "CHECK_DRIVER"
    assert set(p.details["workloads"]) == {"team-a/train", "team-b/serve"}
    assert agent.engine.conditions["GPUDriverDegraded"].status


def test_a_pod_without_gpus_saying_it_stays_silent(tmp_path):
    agent = make(tmp_path, lambda ref, at: False)
    _, events = said(agent, (A, NO_GPUS), (B, NO_INIT))
    assert events == [] and degraded(agent) == []
    assert count(agent, "team-a") == 1 and count(agent, "team-b") == 1  # counted only
    assert agent.pipeline._unsure == {}


def test_unknown_devices_wait_for_the_kubelets_answer(tmp_path):
    answer = {}
    agent = make(tmp_path, lambda ref, at: answer.get(ref.namespace))
    _, events = said(agent, (A, NO_GPUS), (B, NO_GPUS))
    assert events == [] and len(agent.pipeline._unsure) == 2  # unknown: held, no Event yet
    answer.update({"team-a": True, "team-b": False})  # the kubelet answers
    snap = agent.pipeline.publish(agent.pipeline.recheck_gpu_access())
    assert [e.ref for e in snap.pod_events if e.reason == "PodGPUAccessLost"] == [A]
    assert len(agent.pipeline._unsure) == 0 and degraded(agent) == []


def test_unknown_devices_are_dropped_when_no_answer_comes(tmp_path):
    agent = make(tmp_path, lambda ref, at: None)  # no kubelet (no socket, no cache)
    said(agent, (A, NO_GPUS))
    since, *rest = agent.pipeline._unsure[A.uid]
    agent.pipeline._unsure[A.uid] = (since - 10_000, *rest)
    assert agent.pipeline.publish(agent.pipeline.recheck_gpu_access()) is None
    assert len(agent.pipeline._unsure) == 0 and count(agent, "team-a") == 1


def test_the_cache_says_holds_only_by_the_kubelets_word():
    wall = [1000.0]
    pods = [PodDevices("team-a", "train-worker-0", frozenset({"gpu-aaaa"}), frozenset())]
    cache = PodDeviceCache(None, "n", KubeSettings(), 60.0, lister=lambda: pods, wall=lambda: wall[0])
    assert cache.holds_gpus(A, 999.0) is None  # nothing asked yet
    cache.refresh()
    assert cache.holds_gpus(A, 1001.0) is True  # named: holds GPUs, whenever its line
    assert cache.holds_gpus(B, 999.0) is False  # an answer after its line does not name it: none
    assert cache.holds_gpus(B, 1001.0) is None  # a line after the answer: the pod may be newer than it

    def down():
        raise FileNotFoundError("no PodResources socket")
    fallback = PodDeviceCache(None, "n", KubeSettings(), 60.0, lister=down,
                              fallback=lambda: {("team-a", "train-worker-0"): cache(A).__class__(
                                  frozenset({"0000:18:00"}), source="its compute processes")})
    fallback.refresh()
    # a compute process's pod is no proof either way: the pod that cannot see its GPUs runs none
    assert fallback.holds_gpus(A, 0.0) is None and fallback.holds_gpus(B, 0.0) is None


def test_a_miss_asks_the_kubelet_even_while_no_pod_is_tracked():
    import threading

    asked = threading.Event()
    cache = PodDeviceCache(None, "n", KubeSettings(), 3600.0, lister=lambda: asked.set() or [],
                           wanted=lambda: False)
    cache.start()
    try:
        assert cache(A) is None  # a miss wakes the thread
        assert asked.wait(5)
    finally:
        cache.close()


# Real lines (tests/fixtures/realworld/nvidia-smi-2026k.yaml): NVML's init in a container after the host's systemd
# reload (NVIDIA/nvidia-container-toolkit #1227, NVIDIA/nvidia-docker #1671), nvidia-smi reaching no driver
# (GoogleCloudPlatform/compute-gpu-installation #18)
NVML_UNKNOWN = "Failed to initialize NVML: Unknown Error"
NVSMI_NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
                   "latest NVIDIA driver is installed and running.")
UUID_A, UUID_B = "gpu-aaaa", "gpu-bbbb"  # synthetic


def host(agent, status="ok", uuids=(UUID_A, UUID_B), owned=frozenset({UUID_A}), source=KUBELET):
    """The agent's own NVML (`status`, the GPUs it read) and the kubelet's answer for every pod (`owned`)."""
    agent.pipeline.gpu.status = status
    agent.pipeline.gpu.gpu_map = GpuMap.from_labels(
        {"uuid": u.upper(), "pci_bus_id": f"0000:{i + 0x18:02x}:00.0", "gpu_index": str(i)} for i, u in enumerate(uuids))
    agent.pipeline.pod_devices.owned = Owned(owned, source=source) if owned is not None else None
    return agent


def reasons(snap):
    return [(e.ref, e.reason) for e in (snap.pod_events if snap is not None else ())]


@pytest.mark.parametrize("line", [NVML_UNKNOWN, NVSMI_NO_DRIVER])
def test_nvml_and_nvidia_smi_failing_in_a_pod_holding_gpus_the_host_answers_for_are_its_lost_access(tmp_path, line):
    """The container lost its devices (the host's NVML answers for the pod's GPUs): gpu_access_lost, the pod's Event
    with the runtime's advice, two workloads the node's GPUDriverDegraded; was driver_unusable's GPUDriverUnusable."""
    agent = host(make(tmp_path, lambda ref, at: True))
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(line))]))
    assert reasons(snap) == [(A, "PodGPUAccessLost")]
    assert line.split(".")[0][:40] in snap.pod_events[0].message
    assert f"Recommended action: {KIND['gpu_access_lost'].action}." in snap.pod_events[0].message
    assert count(agent, "team-a") == 1
    snap = agent.pipeline.process(WorkloadFindings([(B, parse_line(line))]))
    [p] = degraded(agent)
    assert set(p.details["workloads"]) == {"team-a/train", "team-b/serve"}


@pytest.mark.parametrize("case", ["host NVML failing", "host NVML off", "a GPU the host does not answer for",
                                  "pod holds none", "pod unknown", "fallback's word", "devices unknown"])
def test_elsewhere_they_stay_the_nodes_driver(tmp_path, case):
    """On a node whose own NVML fails too (or is off, or does not answer for the pod's GPU), in a pod without GPUs or
    whose devices are unknown, NVML's Unknown Error stays driver_unusable (GPUDriverUnusable on the pod), as before."""
    holds = {"pod holds none": False, "pod unknown": None}.get(case, True)
    agent = make(tmp_path, lambda ref, at: holds)
    host(agent, status={"host NVML failing": "UNKNOWN", "host NVML off": "off"}.get(case, "ok"),
         owned={"a GPU the host does not answer for": frozenset({UUID_A, "gpu-cccc"}),
                "devices unknown": None}.get(case, frozenset({UUID_A})),
         source="its compute processes" if case == "fallback's word" else KUBELET)
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(NVML_UNKNOWN))]))
    assert reasons(snap) == [(A, "GPUDriverUnusable")]
    assert len(agent.pipeline._unsure) == 0 and degraded(agent) == []


def test_a_host_line_and_other_driver_errors_are_not_taken():
    """Only a pod's finding is taken (the pipeline's pod path), and only the words the kind table lists."""
    assert taken_by("driver_unusable", parse_line(NVML_UNKNOWN).details["driver_error"]) == "gpu_access_lost"
    assert taken_by("driver_unusable", parse_line(NVSMI_NO_DRIVER).details["driver_error"]) == "gpu_access_lost"
    # nvidia-smi with no GPU brought up, a version mismatch: the node's driver wherever they are said
    for line in ("No devices were found", "Failed to initialize NVML: Driver/library version mismatch"):
        f = parse_line(line)
        assert f.kind == "driver_unusable" and taken_by(f.kind, f.details.get("driver_error")) is None, line
    assert taken_by("cuda_error", NVML_UNKNOWN) is None and taken_by("driver_unusable", None) is None


def test_the_cluster_reads_the_taken_finding_as_offline_does(tmp_path):
    """`gpu-npd cluster` re-reads the PodGPUAccessLost Event's quoted line: driver_unusable, a fault of the pod's node,
    as offline triage reads the same line (docs/triage.md): the verdict names the same node either way."""
    from cluster.evidence import Reader
    from triage.attribute import is_node_fault

    agent = host(make(tmp_path, lambda ref, at: True))
    [e] = agent.pipeline.process(WorkloadFindings([(A, parse_line(NVML_UNKNOWN))])).pod_events
    ev = {"reason": e.reason, "message": e.message, "source": {"host": "node-a"},
          "firstTimestamp": "2026-01-01T00:00:00Z", "involvedObject": {"name": A.pod}}
    assert [(x.kind, x.host, is_node_fault(x)) for x in Reader().pod_event(ev)] == [("driver_unusable", "node-a", True)]


def test_one_pods_flood_while_unknown_keeps_the_other_pods_findings(tmp_path):
    """A pod printing the line in a loop while its devices are unknown holds one place, not UNSURE_MAX: the other
    workload's finding waits too, and the kubelet's answer raises the node's problem (was: the flood's lines pushed
    it out of the bounded queue, silently)."""
    answer = {}
    agent = make(tmp_path, lambda ref, at: answer.get(ref.namespace))
    said(agent, (B, NO_INIT))
    said(agent, *[(A, NO_GPUS)] * 300)
    assert len(agent.pipeline._unsure) == 2
    answer.update({"team-a": True, "team-b": True})
    snap = agent.pipeline.publish(agent.pipeline.recheck_gpu_access())
    assert {e.ref for e in snap.pod_events if e.reason == "PodGPUAccessLost"} == {A, B}
    assert len(degraded(agent)) == 1
    assert count(agent, "team-a") == 300  # every line counted as read


def test_an_unstamped_line_is_judged_by_the_time_it_was_read(tmp_path):
    """A line with no timestamp is dated when read, once: the kubelet's answer after that and not naming its pod says
    it holds none, though the clock moved on before the next look (was: dated again at each look, after every answer,
    so held unknown UNSURE_SECONDS and the kubelet asked again on each tick)."""
    answered = []
    agent = make(tmp_path, lambda ref, at: False if answered and answered[0] >= at else None)
    agent.pipeline.clock = lambda: now[0]
    now = [5000.0]
    said(agent, (A, NO_GPUS))
    assert len(agent.pipeline._unsure) == 1
    answered.append(5001.0)  # the kubelet answered after the line, without the pod
    now[0] = 5010.0
    agent.pipeline.publish(agent.pipeline.recheck_gpu_access())
    assert len(agent.pipeline._unsure) == 0


def test_pods_waiting_for_the_kubelet_are_bounded(tmp_path):
    """UNSURE_MAX pods at most wait (the oldest dropped: counted only, as read): a kubelet that never answers holds no
    more memory however many pods say it."""
    from agent.pipeline import UNSURE_MAX

    agent = make(tmp_path, lambda ref, at: None)
    said(agent, *[(PodRef("team-c", f"job{i}-0", f"uid-c{i}", "main"), NO_GPUS) for i in range(UNSURE_MAX + 44)])
    assert len(agent.pipeline._unsure) == UNSURE_MAX and "uid-c0" not in agent.pipeline._unsure


def test_the_words_in_a_node_log_count_no_workload(tmp_path):
    """The kind's repeat row counts workloads (the pods' `workload` detail): a node log's copy of the words (a bare
    line, the kernel's program) names none and raises nothing (was: each line a workload of its own, `t<time>`, two
    lines GPUDriverDegraded)."""
    from parsers.model import Record

    agent = make(tmp_path, lambda ref, at: True)
    for line in (NO_GPUS, NO_INIT, f"Nov 30 07:00:00 host kernel: {NO_GPUS}", f"Nov 30 07:00:01 host kernel: {NO_GPUS}"):
        agent.pipeline.process([Record("kmsg", line)])
    assert degraded(agent) == [] and not agent.engine.conditions["GPUDriverDegraded"].status


def test_without_the_kubelets_cache_nothing_waits(tmp_path):
    """The cache is the hang verdict's (agent/app.py `_pod_devices`): with `workload_hang.enabled: false` none is
    built and no answer can come, so the line is counted only at once (was: held UNSURE_SECONDS, rechecked each
    tick, for nothing)."""
    agent = make(tmp_path, None)
    said(agent, (A, NO_GPUS))
    assert agent.pipeline._unsure == {} and count(agent, "team-a") == 1


# The CUDA runtime's own words for the same status (cudaErrorNoDevice), as the eras raised it (tests/fixtures/realworld/
# jobs-gpu-access-2026.yaml, real): PyTorch 0.4 (OdingdongO/pytorch_classification #1), CuPy (NVIDIAGameWorks/kaolin
# #393)
NO_DEVICE = [("RuntimeError: cuda runtime error (38) : no CUDA-capable device is detected at "
              "/opt/conda/conda-bld/pytorch_1524584710464/work/aten/src/THC/THCGeneral.cpp:70"),
             "CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected"]


@pytest.mark.parametrize("line", NO_DEVICE)
def test_no_cuda_capable_device_is_judged_by_whether_the_pod_holds_gpus(tmp_path, line):
    """`no CUDA-capable device is detected` is PyTorch's `No CUDA GPUs are available` in the runtime's words: in a pod
    without GPUs the application's, silent on the node (counted only); in a pod holding GPUs its lost access, the
    PodGPUAccessLost Event (was: cuda_error, the node's driver: a CUDAError Event in either pod)."""
    agent = make(tmp_path, lambda ref, at: ref.namespace == "team-a")
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(line)), (B, parse_line(line))]))
    assert reasons(snap) == [(A, "PodGPUAccessLost")]
    assert count(agent, "team-a") == 1 and count(agent, "team-b") == 1


def test_a_pods_lost_access_while_nvml_is_released_for_a_reset_is_the_resets(tmp_path):
    """While the agent released NVML for a GPU reset (a release file, SIGUSR1, `nvidia-smi -r` seen: agent/gpu/
    collector.py), a pod's `Failed to initialize NVML: Unknown Error` is the reset's: info with the reason, counted
    only, no Event and nothing for the node (was: driver_unusable, the GPUDriverUnusable Event blaming the node's
    driver for its own reset).  Judged by when the line was written: one read after NVML resumed is still the
    reset's; one written after, as before.  The real collector on the C stand-in (tests/telemetry_kit.py)."""
    from datetime import datetime, timezone

    from agent.gpu.collector import GpuCollector
    from telemetry_kit import standin_backend

    scen = yaml_scenario("hgx-h100-r550.yaml")
    release = tmp_path / "release-nvml"
    agent = make(tmp_path, lambda ref, at: True)
    c = agent.pipeline.gpu = GpuCollector(standin_backend(scen), release_file=str(release))
    c.poll([])
    owned = frozenset(g["uuid"].lower() for g in scen["gpus"])
    agent.pipeline.pod_devices.owned = Owned(owned)
    assert c.status == "ok"

    release.touch()
    c.poll([])
    assert c.status == "released"
    f = parse_line(NVML_UNKNOWN)
    snap = agent.pipeline.process(WorkloadFindings([(A, f), (B, parse_line(NO_GPUS))]))
    assert reasons(snap) == [] and degraded(agent) == []
    assert f.severity == "info" and f.details["during"] == "NVML released for a GPU reset (file)"
    assert agent.metrics.registry.get_sample_value("gpu_npd_workload_findings_total",
                                                  {"namespace": "team-a", "kind": "driver_unusable"}) == 1
    written = datetime.now(timezone.utc)

    release.unlink()
    c.poll([])
    assert c.status == "ok"
    late = parse_line(NVML_UNKNOWN)
    late.timestamp = written  # written during the release, read after it
    snap = agent.pipeline.process(WorkloadFindings([(A, late)]))
    assert reasons(snap) == [] and late.severity == "info"
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(NVML_UNKNOWN))]))  # written after
    assert reasons(snap) == [(A, "PodGPUAccessLost")]


def yaml_scenario(name: str) -> dict:
    import yaml

    return yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "nvml" / name).read_text())


# MIG devices as the kubelet's PodResources answer names them (formats: NVIDIA's MIG user guide; NVIDIA/dcgm-exporter
# pkg/dcgmexporter/kubernetes.go): before R470 by their parent GPU, `MIG-GPU-<uuid>/<gi>/<ci>`; R470 on by their own
# UUID, `MIG-<uuid>` (synthetic UUIDs, as above)
MIG_ON_A = "MIG-GPU-aaaa/7/0"
MIG_OWN = "MIG-c6d4f1ef"


def mig_pod_answer(resource: str, *ids: str, **resources):
    from agent.podresources import api_pb2, pod_devices

    resp = api_pb2.ListPodResourcesResponse()
    c = resp.pod_resources.add(name=A.pod, namespace=A.namespace).containers.add(name=A.container)
    c.devices.add(resource_name=resource, device_ids=list(ids))
    return pod_devices(resp, **resources)


@pytest.mark.parametrize("resource", ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"])
def test_a_mig_devices_pod_holds_gpus_named_by_their_parent_where_the_id_says(resource):
    """The device plugin's single strategy (`nvidia.com/gpu`) and mixed (`nvidia.com/mig-<profile>`): a MIG pod holds
    GPUs (was: a mixed-strategy pod held none: its `No CUDA GPUs are available` counted only), its devices by the
    GPU their id names (was: the MIG id itself, which no NVML map names)."""
    [p] = mig_pod_answer(resource, MIG_ON_A, MIG_OWN, "GPU-bbbb::2")
    assert p.devices == {"gpu-aaaa", "mig-c6d4f1ef", "gpu-bbbb"}


@pytest.mark.parametrize("resources", [("nvidia.com/gpu",), ("nvidia.com/gpu", "nvidia.com/mig-2g.*")])
def test_a_callers_resources_are_the_gpu_resources_mig_included(resources):
    """The resources a caller names are the GPU ones: MIG's only where the list names them (was: any
    `nvidia.com/mig-` resource held GPUs whatever the list); the default keeps MIG's (the test above)."""
    assert mig_pod_answer("nvidia.com/mig-1g.10gb", MIG_ON_A, resources=resources) == []  # holds no GPU
    [p] = mig_pod_answer("nvidia.com/gpu", MIG_ON_A, resources=resources)
    assert p.devices == {"gpu-aaaa"}
    assert [p.devices for p in mig_pod_answer("nvidia.com/mig-2g.20gb", MIG_ON_A, resources=resources)] == (
        [{"gpu-aaaa"}] if len(resources) > 1 else [])


@pytest.mark.parametrize("device", [MIG_ON_A, MIG_OWN])
def test_a_mig_pods_lost_access_is_judged_by_its_parent_gpu(tmp_path, device):
    """A MIG pod's NVML `Unknown Error` while the host's NVML answers for its GPU is its lost access (was:
    driver_unusable for every MIG pod: its device ids matched no GPU of the map).  A R470+ `MIG-<uuid>` names no GPU:
    answered for where NVML answers for every GPU of the node."""
    [p] = mig_pod_answer("nvidia.com/gpu", device)
    agent = host(make(tmp_path, lambda ref, at: True), owned=frozenset(p.devices))
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(NVML_UNKNOWN))]))
    assert reasons(snap) == [(A, "PodGPUAccessLost")]


def test_a_mig_device_naming_no_gpu_is_not_answered_for_while_a_gpu_does_not_answer(tmp_path):
    """`MIG-<uuid>` may be on the GPU NVML does not answer for (one lost, or sysfs names one NVML lacks): the node's
    driver, as before."""
    agent = host(make(tmp_path, lambda ref, at: True), owned=frozenset({"mig-c6d4f1ef"}))
    agent.pipeline.gpu.known_pci = {"0000:18:00", "0000:19:00", "0000:1a:00"}  # a third GPU NVML does not name
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(NVML_UNKNOWN))]))
    assert reasons(snap) == [(A, "GPUDriverUnusable")]


# The same statuses in the other frameworks' words, and 46's "busy or unavailable" (another process on the pod's GPU
# in exclusive-process mode, compute mode Prohibited): one reading of the status (parsers/rules.py CUDA_ERRORS), REAL
# lines (tests/fixtures/realworld/jobs-gpu-access-2026.yaml, jobs-cuda-busy-2026s.yaml): the CUDA samples'
# checkCudaErrors (NVIDIA/cuda-samples #34), nccl-tests' CUDACHECK (NVIDIA/nccl-tests #30), PyTorch 2.x (pytorch/
# pytorch #100691), TensorRT 6 (NVIDIA/TensorRT #1173)
OTHER_WORDS = ['CUDA error at ../../Common/helper_cuda.h:791 code=100(cudaErrorNoDevice) '
               '"cudaGetDeviceCount(&device_count)"',
               "458398: Test CUDA failure common.cu:730 'no CUDA-capable device is detected'",
               "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
               "[03/08/2021-11:02:17] [E] [TRT] ../rtExt/cuda/cudaFusedConvActRunner.cpp (302) - Cuda Error in "
               "executeFused: 46 (all CUDA-capable devices are busy or unavailable)"]


@pytest.mark.parametrize("line,kind", [(OTHER_WORDS[0], "gpu_access_lost"), (OTHER_WORDS[1], "gpu_access_lost"),
                                       (OTHER_WORDS[2], "gpu_busy"), (OTHER_WORDS[3], "gpu_busy")])
def test_the_status_in_every_frameworks_words_is_judged_by_whether_the_pod_holds_gpus(tmp_path, line, kind):
    """In a pod holding GPUs its lost access (PodGPUAccessLost; 46, PodGPUBusy); in a pod without, counted only (was:
    cuda_error, the node's driver, a CUDAError Event in either pod; 46 RESET_GPU)."""
    agent = make(tmp_path, lambda ref, at: ref.namespace == "team-a")
    snap = agent.pipeline.process(WorkloadFindings([(A, parse_line(line)), (B, parse_line(line))]))
    assert reasons(snap) == [(A, KIND[kind].reason)]
    assert count(agent, "team-a", kind) == 1 and count(agent, "team-b", kind) == 1


# What the Event asks an SRE to check follows the status: busy or unavailable (46: parsers/rules.py CUDA_BUSY) is a GPU
# the container sees and was refused (another process on it in exclusive-process mode, compute mode Prohibited; the
# container runtime never decides it: NVIDIA/nvidia-container-runtime #139), so its Event names the compute mode and the
# processes on the GPU, not the toolkit or the cgroup driver; no device keeps the devices-taken-away advice.  REAL lines
# (tests/fixtures/realworld/jobs-cuda-busy-2026s.yaml: pytorch/pytorch #100691, NVIDIA/TensorRT #1173, NVIDIA/DIGITS
# #2005's Caffe line, jax-ml/jax #23770's XLA line; the no-device lines of jobs-gpu-access-2026.yaml)
BUSY_WORDS = [OTHER_WORDS[2], OTHER_WORDS[3],
              "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable",
              "2024-09-19 21:50:58.963539: W external/xla/xla/service/platform_util.cc:199] unable to create "
              "StreamExecutor for CUDA:0: failed initializing StreamExecutor for CUDA device ordinal 0: INTERNAL: "
              "failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE: CUDA-capable device(s) is/are "
              "busy or unavailable"]


@pytest.mark.parametrize("line", BUSY_WORDS)
def test_a_busy_gpus_event_says_to_check_its_compute_mode_and_processes_not_the_toolkit(tmp_path, line):
    """Was: 'the node's container runtime lost the pod's GPU devices', check the container toolkit and the cgroup
    driver (h430), advice that cannot find a process holding the GPU."""
    agent = make(tmp_path, lambda ref, at: True)
    _, events = said(agent, (A, line), reason="PodGPUBusy")
    msg = events[0].message
    assert "exclusive-process" in msg and "nvidia-smi -q -d COMPUTE" in msg and "--query-compute-apps" in msg
    assert "toolkit" not in msg and "cgroup" not in msg and "lost the pod's GPU devices" not in msg
    # the process holding the GPU outlives a restart of the pod (was: RESTART_APP, gpu_access_lost's)
    assert "Recommended action: CHECK_GPU_PROCESSES." in msg and "RESTART_APP" not in msg


def test_busy_in_pods_of_two_workloads_raises_gpu_degraded_not_the_drivers_condition(tmp_path):
    """A GPU of the node held by a process (a leaked one, an MPS server, a compute mode someone set) refuses every
    workload given it: GPUDegraded, action CHECK_GPU_PROCESSES (was: GPUDriverDegraded, CHECK_DRIVER, the no-device
    reading's, whose advice is the toolkit's and cgroup driver's configuration)."""
    agent = make(tmp_path, lambda ref, at: True)
    said(agent, (A, BUSY_WORDS[0]))
    assert degraded(agent, "PodGPUBusyRepeated") == []  # one workload's words alone are the pod's
    said(agent, (B, BUSY_WORDS[2]))
    [p] = degraded(agent, "PodGPUBusyRepeated")
    assert p.severity == "warning" and p.action == "CHECK_GPU_PROCESSES"
    assert set(p.details["workloads"]) == {"team-a/train", "team-b/serve"}
    assert agent.engine.conditions["GPUDegraded"].status
    assert not agent.engine.conditions["GPUDriverDegraded"].status and degraded(agent) == []


def test_no_device_keeps_the_devices_taken_away_advice(tmp_path):
    for line in (OTHER_WORDS[0], NO_GPUS):
        agent = make(tmp_path, lambda ref, at: True)
        _, events = said(agent, (A, line))
        assert "toolkit" in events[0].message and "compute mode" not in events[0].message
