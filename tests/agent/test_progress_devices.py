"""The pod -> device cache of the hang verdict (agent/kube/poddevices.py, issue 27): the kubelet's answer (device
plugin UUIDs, DRA devices through our ResourceSlice keys, rails) kept by a thread of its own; the agent's side never
blocks; a miss wakes the thread; the kubelet silent, the compute-process fallback.  Pods and UUIDs are synthetic."""

from __future__ import annotations

import threading

from agent.kube.poddevices import MIN_ASK_SECONDS, PodDeviceCache, owned
from agent.kube.settings import KubeSettings
from agent.podresources import Owned, PodDevices
from parsers.model import PodRef

CLAIM = ("gpu.nvidia.com", "gpu-node-1", "gpu-0")
PODS = [PodDevices("train", "w-0", frozenset({"gpu-aaaa"}), frozenset(), frozenset({"mlx5_0"})),
        PodDevices("dra", "claimed", frozenset(), frozenset({CLAIM}))]
REF = PodRef("train", "w-0", "uid-0", "main")


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_the_kubelets_answer_becomes_each_pods_gpus_and_rails():
    got = owned(PODS, {"0000:18:00": CLAIM})
    assert got[("train", "w-0")] == Owned(frozenset({"gpu-aaaa"}), frozenset({"mlx5_0"}), "the kubelet")
    assert got[("dra", "claimed")].gpus == {"0000:18:00"}  # the DRA device as our GPU key
    assert owned(PODS)[("dra", "claimed")].gpus == frozenset()  # ResourceSlices unread: not matched this time


def test_lookups_never_ask_the_kubelet_a_miss_wakes_the_thread_which_does():
    asked = []
    release = threading.Event()

    def lister():
        asked.append(1)
        release.wait(10)  # a slow kubelet: only the cache's thread waits
        return PODS
    clock = Clock()
    cache = PodDeviceCache(None, "gpu-node-1", KubeSettings(), 3600.0, clock=clock, lister=lister)
    assert cache(REF) is None and cache.wake.is_set() and asked == []  # a miss: the thread is woken, nothing asked
    cache.wake.clear()
    cache.start()
    try:
        cache.wake.set()
        release.set()
        for _ in range(1000):  # polled, not timed: the thread's answer arrives
            if cache(REF) is not None:
                break
            threading.Event().wait(0.01)
        assert cache(REF).gpus == {"gpu-aaaa"} and len(asked) == 1
        cache.wake.clear()
        assert cache(PodRef("x", "unknown", "u", "c")) is None and not cache.wake.is_set()  # asked just now
        clock.t += MIN_ASK_SECONDS
        assert cache(PodRef("x", "unknown", "u", "c")) is None and cache.wake.is_set()
    finally:
        cache.close()


def test_the_kubelet_silent_the_fallback_answers_else_nothing_is_known():
    def down():
        raise FileNotFoundError("no PodResources socket")
    by_pid = {("train", "w-0"): Owned(frozenset({"0000:18:00"}), source="its compute processes")}
    cache = PodDeviceCache(None, "n", KubeSettings(), 60.0, lister=down, fallback=lambda: by_pid)
    cache.refresh()
    assert cache(REF).source == "its compute processes"
    bare = PodDeviceCache(None, "n", KubeSettings(), 60.0, lister=down)
    bare.refresh()
    assert bare(REF) is None and bare.asks == 1


def test_nothing_is_asked_while_no_pod_is_tracked():
    asked = []
    cache = PodDeviceCache(None, "n", KubeSettings(), 0.01, lister=lambda: asked.append(1) or PODS,
                           wanted=lambda: False)
    cache.start()
    try:
        for _ in range(5):  # several refresh periods pass (counted by the wakes we give it)
            cache.wake.set()
            threading.Event().wait(0.02)
    finally:
        cache.close()
    assert asked == [] and cache.asks == 0


def test_the_agents_fallback_maps_each_gpus_compute_process_to_its_pod(tmp_path):
    """As agent/app.py wires it: the kubelet silent (no socket), GPU 3's compute process (the NVML stand-in's pid
    4242) -> its cgroup -> the pod of that uid in the pod log tree holds GPU 3 (UUID and PCI address); nothing asked
    of NVML while the agent has released it."""
    from types import SimpleNamespace

    import yaml

    from agent.app import _pod_devices
    from agent.config import load
    from agent.gpu.collector import GpuCollector
    from agent.gpu.nvml import open_backend
    from agent.podlookup import PodLookup
    from telemetry_kit import hgx_scenario

    uid = "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c03"
    scenario = hgx_scenario(timeline=[{"at": 0, "gpu": 3, "set": {"compute_processes": 1}}])
    (tmp_path / "h100.yaml").write_text(yaml.safe_dump(scenario))
    (tmp_path / "proc" / "4242").mkdir(parents=True)
    (tmp_path / "proc" / "4242" / "cgroup").write_text(
        f"0::/kubepods.slice/kubepods-pod{uid.replace('-', '_')}.slice/cri-containerd-{'a' * 64}.scope\n")
    (tmp_path / "pods").mkdir()  # pod logs followed (without them no pod is tracked: no cache, app.follows_pod_logs)
    cfg = load(env={}, flags={"nvml": f"fake:{tmp_path / 'h100.yaml'}", "proc_root": str(tmp_path),
                              "pod_logs_root": str(tmp_path / "pods"),
                              "kubernetes": {"pod_resources_socket": str(tmp_path / "no.sock")}})
    pods = PodLookup(str(tmp_path))
    ref = PodRef("train", "llama-worker-3", uid, "main")
    pods.pod_source = SimpleNamespace(pods={uid: ref})
    gpu = GpuCollector(open_backend(cfg.nvml))
    gpu.start()
    progress = SimpleNamespace(pods={uid: object()})
    cache = _pod_devices(cfg, None, None, pods, gpu, progress)
    cache.refresh()
    got = cache(ref)
    assert got is not None and got.source == "its compute processes"
    assert got.gpus == {scenario["gpus"][3]["uuid"].lower(), "0000:5d:00"}
    gpu.status = "released"
    cache.refresh()
    assert cache(ref) is None
