"""A Pod Event on the pods using a straggling GPU or rail (agent/kube/stragglers.py, issue 27): which pods (the
kubelet's PodResources answer, else the pods of the GPU's compute processes), and through the real process.

Every value is synthetic: eight H100s of tests/telemetry_kit.py (synthetic UUIDs) under load with SM clocks a few
MHz apart, one of them far below; the pod names are synthetic.  The kubelet is test_podfault's grpcio stand-in.
"""

from __future__ import annotations

import time

import pytest
import yaml

from agent.kube.settings import KubeSettings
from agent.kube.stragglers import StragglerEvents, message, pods_using
from agent.peers import REASON, PeerOutliers
from agent.podresources import PodDevices
from apiserver_double import ApiDouble
from kubeapi.client import make_api
from parsers.model import Problem, Reading, Snapshot
from telemetry_kit import hgx_scenario
from test_podfault import StandInKubelet, response

SCEN = hgx_scenario()
UUIDS = [g["uuid"] for g in SCEN["gpus"]]
CLOCKS = [1980, 1965, 1980, 1975, 1980, 1970, 1980, 1975]  # under load, a few MHz apart (synthetic)
SLOW = 3  # the straggler: GPU 3 (0000:5d:00)


def straggler(subject: str = "gpu:0000:5d:00", **details) -> Problem:
    """What PeerOutliers' verdict becomes in the engine (its details keep the reading's device labels)."""
    readings = [Reading("gpu", f"gpu:0000:{i:02x}:00", {"gpu_index": str(i), "uuid": UUIDS[i], "model": "H100"},
                        {"clock_sm_loaded": 1500.0 if i == SLOW else float(c)}) for i, c in enumerate(CLOCKS)]
    (v,) = PeerOutliers(k=5, polls=1).judge(readings, 0)[f"gpu:0000:{SLOW:02x}:00"]
    return Problem(f"{subject}|telemetry|{REASON}", subject, "telemetry", v.condition, v.reason, v.severity,
                   v.attribution, v.action, v.message, "sample", 1.0, 1.0, details={**v.details, **details})


def rail(**details) -> Problem:
    return Problem(f"ib:mlx5_2/1|telemetry|{REASON}", "ib:mlx5_2/1", "telemetry", "GPUDegraded", REASON, "warning",
                   "hardware", "", "ib_port mlx5_2 ... 6.1 MADs below", "sample", 1.0, 1.0,
                   details={"field": "counters/port_xmit_data", "what": "transmit rate", "mads": -6.1,
                            "device": "mlx5_2", "port": "1",
                            "netdev": "ibp41s0", **details})


PODS = [PodDevices("train", "llama-worker-0", frozenset({UUIDS[SLOW].lower()}), frozenset()),
        PodDevices("train", "llama-worker-1", frozenset({UUIDS[0].lower()}), frozenset()),
        PodDevices("infer", "other", frozenset({UUIDS[5].lower()}), frozenset(), frozenset({"mlx5_2"}))]


def test_the_pods_of_a_straggling_gpu_by_uuid_and_of_a_rail_by_its_device():
    p = straggler()
    assert p.details["uuid"] == UUIDS[SLOW] and p.details["gpu_index"] == str(SLOW)
    assert pods_using(p, PODS) == {("train", "llama-worker-0")}
    said = message(p, "gpu-node-1")
    assert said.startswith(f"GPU 3 ({UUIDS[SLOW]}, 0000:5d:00) on node gpu-node-1, used by this pod, is a straggler "
                           f"(SM clock under load): gpu 3 ")
    assert "clock_sm_loaded 1500 MHz is 12.1 MADs below its 7 peers' median 1978 MHz" in said
    assert pods_using(rail(), PODS) == {("infer", "other")}  # the pod allocated that rail
    unallocated = rail(device="mlx5_7", netdev="ibp7")
    assert pods_using(unallocated, PODS) == {(q.namespace, q.name) for q in PODS}  # host network: every GPU pod
    assert message(rail(), "n").startswith("rail mlx5_2 port 1, ibp41s0 on node n, used by this pod, is a straggler "
                                           "(transmit rate): ")


def test_kubelet_silent_falls_back_on_the_gpus_compute_processes():
    seen = []

    def by_pid(p: Problem) -> set[tuple[str, str]]:
        seen.append(p.details["gpu_index"])
        return {("train", "from-pid")}
    assert pods_using(straggler(), None, fallback=by_pid) == {("train", "from-pid")} and seen == ["3"]
    assert pods_using(straggler(), None) == set()


def test_one_event_per_pod_and_straggle_announced_again_after_it_clears():
    with ApiDouble() as api:
        s = KubeSettings(api_server=api.url, max_backoff_seconds=0.2)
        w = StragglerEvents(make_api(s), "gpu-node-1", s, REASON, lister=lambda: PODS)
        p = straggler()
        for _ in range(3):  # poll after poll the straggler stands: one Event
            w.apply(Snapshot(problems=(p,)))
            w.sync()
        (e,) = api.events()
        assert (e["reason"], e["involvedObject"]["name"], e["metadata"]["namespace"]) == \
            (REASON, "llama-worker-0", "train")
        # at the problem's own time (its first_seen: 1.0 here), as its Node Event is (kubeapi.events: the eventTime)
        assert e["eventTime"].startswith("1970-01-01T00:00:01") and p.first_seen == 1.0
        w.apply(Snapshot())
        w.sync()
        w.apply(Snapshot(problems=(p,)))  # back again: said again (a count on the same Event)
        w.sync()
        (e,) = api.events()
        assert e["count"] == 2


# ---- through the real process ------------------------------------------------------------------------

def polls_seen(a, n: int, timeout: float = 120.0) -> int:
    """Wait until the agent has polled at least `n` more times: each poll sets the last poll's wall time, a new
    value (a poll between two scrapes may go unseen: the count is a lower bound)."""
    seen, last, deadline = 0, a.value("gpu_npd_poll_duration_seconds"), time.monotonic() + timeout
    while seen < n and time.monotonic() < deadline:
        time.sleep(0.05)
        now = a.value("gpu_npd_poll_duration_seconds")
        if now is not None and now != last:
            seen, last = seen + 1, now
    return seen


def _run(tmp_path, clocks: list[float], polls: int = 3):
    """A real `gpu-npd run` on the NVML stand-in (eight loaded H100s with these SM clocks), the peer test on,
    the grpcio stand-in kubelet and the API double; returns the Pod Events once 2 x `polls` + 2 polls have run."""
    from harness import AgentProc

    scen = hgx_scenario(timeline=[{"at": 0, "gpu": i, "set": {"clock_sm": c, "clocks_event_mask": 0,
                                                                "utilization_gpu": 100}}
                                  for i, c in enumerate(clocks)])
    (tmp_path / "h100.yaml").write_text(yaml.safe_dump(scen))
    kubelet = StandInKubelet(response([("train", f"llama-worker-{i}", [UUIDS[i]], []) for i in range(8)]
                                      + [("web", "no-gpu", [], [])]))
    try:
        with ApiDouble() as api:
            api.add_node("gpu-node-1")
            for i in range(8):
                api.add_pod("train", f"llama-worker-{i}", "gpu-node-1", gpus=1)
            conf = tmp_path / "gpu-npd.yaml"
            conf.write_text(yaml.safe_dump({
                "mode": "observe", "nvml": f"fake:{tmp_path / 'h100.yaml'}", "sysfs_root": str(tmp_path / "nosys"),
                "poll_seconds": 0.2, "peer_outliers": {"enabled": True, "k": 5, "polls": polls},
                "kubernetes": {"api_server": api.url, "pod_resources_socket": kubelet.socket}}))
            a = AgentProc(tmp_path, "--config", str(conf))
            try:
                a.wait_for(lambda: (a.value("gpu_npd_gpu_sm_clock_mhz", gpu="7") or 0) > 1000, what="a poll")
                if clocks[SLOW] < 1900:
                    a.wait_for(lambda: any(e["reason"] == REASON and e["involvedObject"]["kind"] == "Pod"
                                           for e in api.events()), timeout=60, what="the Pod Event")
                seen = polls_seen(a, 2 * polls + 2)  # well past N polls, counted rather than timed
                assert seen >= 2 * polls + 2
                assert a.value("gpu_npd_gpu_utilization_percent", gpu="0") == 100
                said = [e for e in api.events() if e["reason"] == REASON]
                assert {e["involvedObject"]["kind"] for e in said} <= {"Node", "Pod"}  # the node's own, as any problem
                return [e for e in said if e["involvedObject"]["kind"] == "Pod"], kubelet.calls
            finally:
                assert a.stop()[0] == 0
    finally:
        kubelet.close()


@pytest.mark.slow
def test_through_the_agent_a_gpu_5_mads_slow_yields_one_event_on_its_pod(tmp_path):
    slow = list(CLOCKS)
    slow[SLOW] = 1760.0  # 5.5 MADs below the median 1977.5 MHz (the spread: 2 % of it, 39.55 MHz)
    events, calls = _run(tmp_path, slow)
    (e,) = events
    assert (e["involvedObject"]["kind"], e["involvedObject"]["name"], e["metadata"]["namespace"]) == \
        ("Pod", f"llama-worker-{SLOW}", "train")
    assert UUIDS[SLOW] in e["message"] and "GPU 3" in e["message"] and "clock_sm_loaded" in e["message"]
    assert "(SM clock under load)" in e["message"] and "1760 MHz is 5.5 MADs below its 7 peers' median" in e["message"]
    assert e["count"] == 1
    assert calls >= 1


@pytest.mark.slow
def test_through_the_agent_healthy_jitter_yields_no_event(tmp_path):
    events, calls = _run(tmp_path, list(CLOCKS))
    assert events == [] and calls == 0  # nothing to announce: the kubelet is not even asked


def test_the_fallback_asks_nvml_for_the_gpus_compute_pids_on_a_handle_of_its_own():
    """nvmlDeviceGetComputeRunningProcesses through the binding (the stand-in numbers its processes from 4242);
    init and shutdown in pairs: nothing of NVML stays held."""
    from agent.gpu.nvml import pids_on
    from telemetry_kit import standin_backend

    backend = standin_backend(hgx_scenario(timeline=[{"at": 0, "gpu": 3, "set": {"compute_processes": 2}}]))
    assert pids_on(backend, 3) == [4242, 4243] and pids_on(backend, 0) == []
    assert backend.standin.refcount == 0
    assert pids_on(None, 3) is None


def test_a_pids_call_past_its_deadline_is_the_backends_only_one_until_it_returns(caplog):
    """GPU 3's compute processes hang (a GPU that stopped answering): the call gives up at its deadline and its
    thread stays inside NVML.  The next calls on the same backend (the pod devices' loop asks every GPU, then again
    every refresh) started a second session on it beside the first (init, ask, shutdown: a thread more parked in NVML
    per hung call, every refresh); they are refused at once, said in one line, until the call in flight returns."""
    import threading

    from agent.gpu.nvml import pids_on
    from telemetry_kit import standin_backend

    backend = standin_backend(hgx_scenario(timeline=[{"at": 0, "gpu": 3, "set": {"compute_processes": "hang"}}]))
    parked = lambda: [t for t in threading.enumerate() if t.name == "nvml-pids"]  # noqa: E731
    try:
        assert pids_on(backend, 3, 0.3) is None
        calls = backend.standin.calls
        began = time.monotonic()
        with caplog.at_level("WARNING", logger="gpu_npd.nvml"):
            assert [pids_on(backend, i, 0.3) for i in (3, 0, 3)] == [None, None, None]
        assert time.monotonic() - began < 0.3  # refused, not each waiting out a deadline of its own
        assert len(parked()) == 1 and backend.standin.refcount == 1  # one session: the call in flight
        assert backend.standin.calls == calls  # nothing asked of NVML beside it
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and "has not returned" in said[0]  # said once, however many are refused
    finally:
        backend.standin.release()  # the hung call returns (GPU_IS_LOST) and shuts its session down
    for t in parked():
        t.join(5)
    assert backend.standin.refcount == 0
    assert pids_on(backend, 0, 5) == []  # asked again once it returned


def test_the_agents_fallback_names_the_pod_of_the_gpus_compute_process(tmp_path):
    """As the agent wires it (agent/app.py): GPU 3's compute process (the stand-in's pid 4242) -> its cgroup ->
    the pod of that uid in the pod log tree; nothing asked of NVML while the agent has released it."""
    from types import SimpleNamespace

    from agent.app import _straggler_events
    from agent.config import load
    from agent.gpu.collector import GpuCollector
    from agent.podlookup import PodLookup
    from parsers.model import PodRef

    uid = "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c03"
    scen = tmp_path / "h100.yaml"
    scen.write_text(yaml.safe_dump(hgx_scenario(timeline=[{"at": 0, "gpu": SLOW, "set": {"compute_processes": 1}}])))
    (tmp_path / "proc" / "4242").mkdir(parents=True)
    (tmp_path / "proc" / "4242" / "cgroup").write_text(
        f"0::/kubepods.slice/kubepods-pod{uid.replace('-', '_')}.slice/cri-containerd-{'a' * 64}.scope\n")
    cfg = load(env={}, flags={"nvml": f"fake:{scen}", "proc_root": str(tmp_path), "peer_outliers": {"enabled": True}})
    pods = PodLookup(str(tmp_path))
    pods.pod_source = SimpleNamespace(pods={uid: PodRef("train", "llama-worker-3", uid, "main")})
    gpu = GpuCollector(None)
    w = _straggler_events(cfg, SimpleNamespace(n=SimpleNamespace(api=None)), None, pods, gpu)
    assert w.fallback(straggler()) == {("train", "llama-worker-3")}
    gpu.status = "released"
    assert w.fallback(straggler()) == set()
