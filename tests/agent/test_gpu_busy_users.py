"""A PodGPUBusy Event (CUDA status 46, parsers/kinds.py `gpu_busy`) names who holds the pod's GPUs: each GPU's compute
mode and the compute processes on it with their pods, a process no running pod owns said so (agent/app.py `_gpu_users`,
agent/workloads.py `users_words`).  NVML is the real nvidia-ml-py over the C stand-in (agent/gpu/standin.py: the
scenario's `compute_mode`, `compute_processes`, `compute_pid_first`); asked only when the Event is made, within the NVML
deadline; NVML off or failing, the Event as before plus one sentence saying why the processes are not named.  The
container's line is REAL (pytorch/pytorch #100691, tests/fixtures/realworld/jobs-cuda-busy-2026s.yaml); pods, UIDs,
pids and GPU UUIDs are synthetic."""

from __future__ import annotations

import io
import json
import re
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import yaml

from agent.app import build
from agent.config import load
from agent.podresources import KUBELET, Owned
from agent.workloads import USERS_ASK_SECONDS
from kubeapi.message import MESSAGE_MAX
from parsers import parse_line
from parsers.model import Boot, PodRef, WorkloadFindings
from tests.telemetry_kit import hgx_scenario

BUSY = "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"  # pytorch/pytorch #100691
A = PodRef("team-a", "train-worker-0", "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c00", "main")
B = PodRef("team-b", "serve-0", "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c0b", "server")


def _cgroup(root: Path, pid: int, uid: str) -> None:
    (root / "proc" / str(pid)).mkdir(parents=True)
    (root / "proc" / str(pid) / "cgroup").write_text(
        f"0::/kubepods.slice/kubepods-pod{uid.replace('-', '_')}.slice/cri-containerd-{'a' * 64}.scope\n")


class Devices:
    """The kubelet's cache as the pipeline asks it (agent/kube/poddevices.py PodDeviceCache): pod A holds `owned`."""

    def __init__(self, owned: Owned) -> None:
        self.owned = owned

    def __call__(self, ref: PodRef) -> Owned | None:
        return self.owned if ref == A else None

    def holds_gpus(self, ref: PodRef, at: float) -> bool:
        return ref == A


def agent_with(tmp: Path, nvml: str, gpus: set[str], clock=time.time, **flags):
    """An agent whose kubelet cache says pod A holds `gpus` (UUIDs, lower-cased as the kubelet's ids are keyed), whose
    pod log tree knows pods A and B, and whose NVML (`nvml`) has named the GPUs."""
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp / "state"),
                              "fallback_log_files": [], "fabricmanager_log": "", "imex_log": "", "nvml": nvml,
                              "mode": "off", "proc_root": str(tmp), **flags})
    agent = build(cfg, clock=clock, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0))
    p = agent.pipeline
    p.gpu.start()
    p.pods.pod_source = SimpleNamespace(pods={A.uid: A, B.uid: B}, save=lambda: True)
    owned = Owned(frozenset(gpus), frozenset(), KUBELET)
    p.pod_devices = Devices(owned)
    return agent


def busy_events(snap) -> list:
    return [e for e in (snap.pod_events if snap is not None else ()) if e.reason == "PodGPUBusy"]


def answered(agent, wait: float = 5.0) -> list:
    """The busy Events made once NVML's answer has come, as the agent's tick asks (Pipeline.recheck_gpu_access)."""
    p, deadline = agent.pipeline, time.monotonic() + wait
    while True:
        events = busy_events(p.publish(p.recheck_gpu_access()))
        if events or time.monotonic() > deadline:
            return events
        time.sleep(0.01)


def busy_event(agent) -> str:
    """A busy line's Event: at once where the job's answer is known, else once NVML's has come."""
    [event] = busy_events(agent.pipeline.process(WorkloadFindings([(A, parse_line(BUSY))]))) or answered(agent)
    return event.message


def scenario(tmp: Path, **gpu_values) -> str:
    """Eight H100s; GPU i's values `gpu_values[f"g{i}"]`."""
    s = hgx_scenario()
    for name, values in gpu_values.items():
        s["gpus"][int(name[1:])]["values"] = values
    path = tmp / "scenario.yaml"
    path.write_text(yaml.safe_dump(s))
    return f"fake:{path}"


def uuid(i: int) -> str:
    return hgx_scenario()["gpus"][i]["uuid"].lower()


def test_the_event_names_each_held_gpus_compute_mode_and_its_processes_with_their_pods(tmp_path):
    """GPU 1 in Exclusive_Process held by pod B's process and by a process of no running pod (a leaked one: its pod's
    uid no longer in the pod log tree); GPU 2 Prohibited, nothing on it.  GPU 0, not the pod's, is not named."""
    nvml = scenario(tmp_path, g0={"compute_processes": 1, "compute_pid_first": 100},
                    g1={"compute_mode": 3, "compute_processes": 2, "compute_pid_first": 5000},
                    g2={"compute_mode": 2})
    _cgroup(tmp_path, 5000, B.uid)
    _cgroup(tmp_path, 5001, "0badc0de-0000-4000-8000-000000000001")  # an earlier pod, gone
    msg = busy_event(agent_with(tmp_path, nvml, {uuid(1), uuid(2)}))
    assert ("Now on its GPUs (NVML's index, compute mode, compute processes): GPU 1 (0000:2a:00) Exclusive_Process: "
            "pid 5000 (pod team-b/serve-0), pid 5001 (no running pod); GPU 2 (0000:3a:00) Prohibited: no process.") in msg
    assert "GPU 0" not in msg and "pid 100" not in msg
    # the Event's other words as before, its check the processes it names (the nvidia-smi commands' place)
    assert "Recommended action: CHECK_GPU_PROCESSES. When it repeats on this node, check the processes this Event " \
        "names" in msg and "nvidia-smi" not in msg
    assert msg.endswith(f'Container output: "{BUSY}"') and len(msg) <= MESSAGE_MAX


def test_eight_busy_gpus_fit_the_event_the_containers_line_kept_at_its_end(tmp_path):
    """The API sink writes an Event's first MESSAGE_MAX bytes (kubeapi/events.py): eight GPUs' processes with
    long pod names are cut within their sentence, never the container's line the cluster reads at the end
    (cluster/evidence.py EXCERPT)."""
    nvml = scenario(tmp_path, **{f"g{i}": {"compute_mode": 3, "compute_processes": 2, "compute_pid_first": 6000 + 10 * i}
                                 for i in range(8)})
    long = PodRef("a-namespace-of-sixty-three-characters-" + "x" * 25, "p" * 200, "0badc0de-0000-4000-8000-00000000000b",
                  "c")
    for i in range(8):
        _cgroup(tmp_path, 6000 + 10 * i, long.uid)
    agent = agent_with(tmp_path, nvml, {uuid(i) for i in range(8)})
    agent.pipeline.pods.pod_source.pods[long.uid] = long
    msg = busy_event(agent)
    # filled to the byte (the API server counts an Event's message in bytes; the cut's ellipsis is three)
    assert len(msg.encode()) == MESSAGE_MAX and "\u2026 Recommended action: CHECK_GPU_PROCESSES." in msg
    assert msg.endswith(f'Container output: "{BUSY}"') and "GPU 0 (0000:18:00) Exclusive_Process: pid 6000" in msg


def test_nvml_is_asked_once_per_job_event_not_per_line(tmp_path):
    """A flood of one job's busy lines asks NVML once, again only USERS_ASK_SECONDS later (the stand-in counts its
    calls): the per-line path never waits on NVML."""
    now = [1_800_000_000.0]
    agent = agent_with(tmp_path, scenario(tmp_path, g1={"compute_mode": 3}), {uuid(1)}, clock=lambda: now[0])
    standin = agent.pipeline.gpu.backend.standin
    before = standin.calls
    busy_event(agent)
    asked = standin.calls
    assert asked > before
    for _ in range(5):
        now[0] += 10
        assert "GPU 1 (0000:2a:00) Exclusive_Process: no process" in busy_event(agent)
    assert standin.calls == asked
    now[0] += USERS_ASK_SECONDS
    busy_event(agent)
    assert standin.calls > asked


def test_nvml_off_the_event_says_why_the_processes_are_not_named(tmp_path):
    """As before (the nvidia-smi commands to run on the host), plus one sentence saying why they are not named."""
    msg = busy_event(agent_with(tmp_path, "off", {uuid(1)}))
    assert "The processes on its GPUs are not named: NVML is off (config key `nvml`)." in msg
    assert "Recommended action: CHECK_GPU_PROCESSES." in msg and "nvidia-smi -q -d COMPUTE" in msg


def test_an_nvml_error_on_a_held_gpu_is_said_in_one_sentence(tmp_path):
    """The compute mode call fails on the pod's GPU (GPU_IS_LOST): the Event is made, naming the GPU and the error."""
    msg = busy_event(agent_with(tmp_path, scenario(tmp_path, g1={"compute_mode": "error:GPU_IS_LOST"}), {uuid(1)}))
    assert "The processes on its GPUs are not named: NVML GPU_IS_LOST: GPU 1." in msg


def test_a_hung_nvml_call_never_holds_the_agents_loop_and_its_lines_events_come_after_its_deadline(tmp_path):
    """NVML hangs on the pod's GPU: the busy lines are processed at once (was: the loop waited the NVML deadline, 1 s
    here and 5 s by default, in the first line's Event), their Events (one per line, three) made once the deadline
    has passed, saying so; a question of the job's 60 s later is refused while that call has not returned, and the
    Event says it was refused, not that NVML did not answer within the deadline."""
    now = [1_800_000_000.0]
    agent = agent_with(tmp_path, scenario(tmp_path, g1={"compute_mode": "hang"}), {uuid(1)}, clock=lambda: now[0],
                       nvml_deadline_seconds=1.0)
    p = agent.pipeline
    try:
        began = time.monotonic()
        snaps = [p.process(WorkloadFindings([(A, parse_line(BUSY))])) for _ in range(3)]
        assert time.monotonic() - began < 0.5 and not any(busy_events(s) for s in snaps)
        assert busy_events(p.publish(p.recheck_gpu_access())) == []  # (before the deadline: still waiting)
        events = answered(agent)
        assert time.monotonic() - began >= 1.0 and len(events) == 3 and len({e.message for e in events}) == 1
        assert "The processes on its GPUs are not named: NVML did not answer on GPU 1 within 1 s." in events[0].message
        now[0] += USERS_ASK_SECONDS
        assert re.search(r"The processes on its GPUs are not named: refused: an earlier NVML call has not returned "
                         r"\(compute mode and pids on GPU 1, begun \d+ s ago\)\.", busy_event(agent))
    finally:
        agent.pipeline.gpu.backend.standin.release()


class TwoJobs(Devices):
    """The kubelet's cache: pods A and C, of two jobs, hold `owned`."""

    def __call__(self, ref: PodRef) -> Owned | None:
        return self.owned if ref in (A, C) else None

    def holds_gpus(self, ref: PodRef, at: float) -> bool:
        return ref in (A, C)


C = PodRef("team-c", "eval-0", "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c0c", "main")


def test_two_jobs_busy_at_once_each_event_names_the_processes_nothing_refused(tmp_path, caplog, monkeypatch):
    """Two jobs' busy lines in one batch: the second job's question waits for the first's, in flight within its
    deadline, and is asked when it has returned (was: refused at once, its Event saying "refused: an earlier NVML call
    has not returned (.., begun 0 s ago)" and the agent logging a GPU that stopped answering, on a healthy node).  The
    first question is held in flight (`gate`) until both lines are processed, as a real NVML's milliseconds may."""
    from agent.gpu import nvml as nvml_module

    gate, session = threading.Event(), nvml_module.in_session

    def held(nvml, read, failed):
        ask = session(nvml, read, failed)
        return lambda call: (gate.wait(5), ask(call))

    monkeypatch.setattr(nvml_module, "in_session", held)
    agent = agent_with(tmp_path, scenario(tmp_path, g1={"compute_mode": 3}), {uuid(1)})
    p = agent.pipeline
    p.pods.pod_source.pods[C.uid] = C
    p.pod_devices = TwoJobs(p.pod_devices.owned)
    events = busy_events(p.process(WorkloadFindings([(A, parse_line(BUSY)), (C, parse_line(BUSY))])))
    gate.set()
    deadline = time.monotonic() + 5
    while len(events) < 2 and time.monotonic() < deadline:
        events += answered(agent)
    assert sorted(e.ref.pod for e in events) == ["eval-0", "train-worker-0"]
    for e in events:
        assert "GPU 1 (0000:2a:00) Exclusive_Process: no process." in e.message and "are not named" not in e.message
    assert "stopped answering" not in caplog.text


def test_busy_events_waiting_for_nvml_at_shutdown_are_made_without_its_answer(tmp_path):
    """The agent stops while NVML has not answered: the lines' Events are made with STOPPED (Agent.shutdown's step),
    not lost with the lines, whose pod log offsets are saved."""
    # (the scenario of the test before, whose hang it released: each agent's stand-in plays it from its start)
    agent = agent_with(tmp_path, scenario(tmp_path, g1={"compute_mode": "hang"}), {uuid(1)})
    p = agent.pipeline
    [stdout] = [s for s in p.sinks if type(s).__name__ == "StdoutSink"]
    try:
        assert busy_events(p.process(WorkloadFindings([(A, parse_line(BUSY))]))) == []
        agent.shutdown()
        [said] = [json.loads(line) for line in stdout.out.getvalue().splitlines() if "PodGPUBusy" in line]
        assert "The processes on its GPUs are not named: the agent stopped before NVML answered." in said["message"]
    finally:
        agent.pipeline.gpu.backend.standin.release()


def test_nvml_failing_at_its_init_is_said_not_a_gpu_it_could_not_find(tmp_path):
    """The agent's NVML never initialised (the driver not loaded): the Event says so, not that NVML names none of the
    pod's GPUs (its inventory empty)."""
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(hgx_scenario(init_error="DRIVER_NOT_LOADED")))
    msg = busy_event(agent_with(tmp_path, f"fake:{path}", {uuid(1)}))
    assert "The processes on its GPUs are not named: the agent's NVML has not named the GPUs (DRIVER_NOT_LOADED)." in msg


def test_gpus_the_kubelet_has_not_named_are_said_so(tmp_path):
    agent = agent_with(tmp_path, scenario(tmp_path), {uuid(1)})
    agent.pipeline.pod_devices = None  # no kubelet cache (workload_hang off): holds unknown, the Event not made
    assert agent.pipeline.workloads.gpu_users(A) == "the kubelet has not said which GPUs the pod holds"
