"""The agent's NVML backend through nvidia-ml-py, unmodified, over the C stand-in for libnvidia-ml.so.1.

Real-machine scenarios (tests/fixtures/nvml/sources.md) drive every entry point the agent calls; driver
generations, GPUs lost mid-run, blocking calls and Xid events go through the binding's ctypes structs and
error codes as they would on a node.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pynvml
import pytest
import yaml

from agent.gpu.collector import GpuCollector
from agent.gpu.interface import CHECK_GROUPS, NvmlError
from agent.gpu.standin import StandinError, flatten
from telemetry_kit import StandinClock, standin_backend

FIXTURES = Path(__file__).parents[1] / "fixtures" / "nvml"
REAL = ["a100-sxm4-r470.yaml", "a100-sxm4-40gb.yaml", "hgx-h100-r550.yaml", "gb200-nvl72.yaml",
        "gb200-fabric-unhealthy.yaml", "h200-r580.yaml", "h200-r580-load.yaml"]
# nvidia-ml-py wrapper -> the versioned symbol it resolves in libnvidia-ml
SYMBOL = {"nvmlInit": "nvmlInitWithFlags", "nvmlDeviceGetCount": "nvmlDeviceGetCount_v2",
          "nvmlDeviceGetHandleByIndex": "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetPciInfo": "nvmlDeviceGetPciInfo_v3",
          "nvmlDeviceGetHandleByPciBusId": "nvmlDeviceGetHandleByPciBusId_v2",
          "nvmlDeviceGetComputeRunningProcesses": "nvmlDeviceGetComputeRunningProcesses_v3"}
# predecessors called only where a driver generation lacks the newer entry point
FALLBACKS = {"nvmlDeviceGetCurrentClocksThrottleReasons", "nvmlDeviceGetComputeRunningProcesses_v2"}


def agent_calls() -> set[str]:
    """Every NVML entry point agent/gpu/nvml.py calls, as the symbol the binding resolves."""
    src = (Path(__file__).parents[2] / "agent" / "gpu" / "nvml.py").read_text()
    names = set(re.findall(r"\bn\.(nvml[A-Z]\w+)", src)) - {"nvmlEventTypeXidCriticalError"}
    return {SYMBOL.get(n, n) for n in names}


def scenario(name: str, **extra) -> dict:
    return {**yaml.safe_load((FIXTURES / name).read_text()), **extra}


def exercise(scen: dict) -> tuple[set[str], GpuCollector, list]:
    """Everything the agent does with NVML on one machine: poll, snapshot, the checks' reads, Xid events, stop."""
    seen: set[str] = set()
    real = pynvml._nvmlGetFunctionPointer

    def record(name):
        seen.add(name)
        return real(name)

    pynvml._nvmlGetFunctionPointer = record
    try:
        backend = standin_backend({**scen, "timeline": [{"at": 0, "gpu": 0, "xid": 79}]})
        c = GpuCollector(backend, deadline=5)
        readings = c.poll([])
        c.snapshot()
        backend.probe_pci(c.gpus[0].ident.pci_bus_id)  # asked where a GPU is lost at the init: answers here
        for i in range(backend.count()):
            for group in CHECK_GROUPS:
                backend.read(i, group)
            backend.compute_mode(i)  # asked when a pod's Event says its GPU is busy (agent/app.py _gpu_users)
        event = backend.wait_xid(2000)
        assert event == (0, 79)
        backend.shutdown()
    finally:
        pynvml._nvmlGetFunctionPointer = real
    return seen, c, readings


def test_every_nvml_call_the_agent_makes_runs_on_two_real_machine_scenarios():
    calls = agent_calls()
    seen_by = {name: exercise(scenario(name))[0] for name in REAL}
    for symbol in calls | FALLBACKS:
        machines = [m for m, seen in seen_by.items() if symbol in seen]
        assert len(machines) >= (1 if symbol in FALLBACKS else 2), f"{symbol} ran on {machines}"


def test_a100_on_driver_470_reads_through_the_older_entry_points():
    _, c, readings = exercise(scenario("a100-sxm4-r470.yaml"))
    (gpu,) = [r for r in readings if r.entity == "gpu"]
    assert gpu.values["throttle_sw_power_cap"] == 0 and "clocks_event_mask" in gpu.values  # ThrottleReasons
    assert "fabric" in c.gpus[0].unsupported and "recovery" in c.gpus[0].unsupported  # not on 470: not errors
    assert c.errors == {}
    assert gpu.labels["model"] == "NVIDIA A100-SXM4-80GB" and c.gpus[0].ident.vbios == "92.00.45.00.05"
    assert sum(r.entity == "nvlink" for r in readings) == 12


def test_gb200_fabric_is_read_and_nvlink_counters_are_not_supported_on_blackwell():
    _, c, readings = exercise(scenario("gb200-nvl72.yaml"))
    gpus = [r for r in readings if r.entity == "gpu"]
    assert [g.values["fabric_clique_id"] for g in gpus] == [4026, 4026]
    assert all(g.values["fabric_registration_failed"] == 0 and g.values["fabric_registration_pending"] == 0
               for g in gpus)
    links = [r for r in readings if r.entity == "nvlink"]
    assert len(links) == 36 and all(set(lr.values) == {"state", "down"} for lr in links)
    assert c.errors == {}


def test_gb200_fabric_health_decoded_field_by_field():
    _, _, readings = exercise(scenario("gb200-fabric-unhealthy.yaml"))
    ok_bw, failed = [r.values for r in readings if r.entity == "gpu"]
    assert ok_bw["fabric_health_summary"] == 2 and ok_bw["fabric_degraded_bandwidth"] == 0  # mask 2: "Full"
    assert ok_bw["fabric_registration_failed"] == 0
    assert failed["fabric_registration_failed"] == 1 and failed["fabric_status"] == 23


def test_fabric_info_falls_back_to_v2_on_a_driver_without_v3():
    """A 550-era driver knows nvmlGpuFabricInfo_v2 only: v3 is ARGUMENT_VERSION_MISMATCH there."""
    scen = scenario("gb200-nvl72.yaml")
    for g in scen["gpus"]:
        g["values"] = {**g["values"], "fabric_info_max_version": 2}
    nvml = standin_backend(scen)
    nvml.init()
    fabric = nvml.read(0, "fabric")
    assert fabric["fabric_clique_id"] == 4026 and "fabric_health_summary" not in fabric  # v2 has no summary
    nvml.shutdown()


def test_gpu_lost_mid_run_through_the_binding():
    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[{"at": 10, "gpu": 1, "lost": True}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)
    c.poll([])
    clock.t = 10
    gpus = [r for r in c.poll([]) if r.entity == "gpu"]
    assert [g.values["gpu_lost"] for g in gpus] == [0, 1]
    assert c.errors[("1", "GPU_IS_LOST")] >= 1


def test_a_blocking_call_costs_its_deadline_once_and_only_that_gpu():
    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[{"at": 5, "gpu": 0,
                                                                       "set": {"pcie_replay": "hang"}}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, deadline=0.3, clock=clock)
    c.poll([])
    clock.t = 5
    t0 = time.monotonic()
    gpus = [r for r in c.poll([]) if r.entity == "gpu"]
    assert time.monotonic() - t0 < 1.0
    assert gpus[0].values == {"nvml_timeout": 1} and gpus[1].values["nvml_timeout"] == 0
    nvml.standin.release()


def test_a_hung_call_ends_when_the_next_scenario_is_loaded():
    """A call hung on one scenario ends (GPU_IS_LOST) when the next is loaded, as an Xid wait does.  It waited for a
    release that loading the next scenario had undone (`released` reset) when the load took the lock before the
    woken call: its NVML worker thread then hung for the rest of the run (the thread guard, tests/conftest.py, found
    one `nvml-0` left after test_nvml_standin in a run of tests/agent)."""
    import threading

    hang = [{"at": 0, "gpu": 0, "set": {"pcie_replay": "hang"}}]
    old = standin_backend(scenario("hgx-h100-r550.yaml", timeline=hang))
    old.init()
    answer: list = []

    def read() -> None:
        try:
            answer.append(old.read(0, "pcie"))
        except NvmlError as exc:
            answer.append(exc.code)
    caller = threading.Thread(target=read, daemon=True)
    caller.start()
    time.sleep(0.1)  # inside the hung call
    assert answer == []
    standin_backend(scenario("hgx-h100-r550.yaml")).init()  # no release()
    caller.join(5)
    assert answer == ["GPU_IS_LOST"]


def test_init_errors_come_back_as_nvml_names():
    nvml = standin_backend({"init_error": "LIB_RM_VERSION_MISMATCH", "gpus": [{}]})
    c = GpuCollector(nvml)
    (node,) = c.poll(["0000:18:00.0"])
    assert c.status == "LIB_RM_VERSION_MISMATCH" and node.values["nvml_driver_mismatch"] == 1


def test_vbios_variants_across_one_model_are_counted():
    scen = scenario("hgx-h100-r550.yaml")
    scen["gpus"][1]["vbios"] = "96.00.74.00.1C"
    c = GpuCollector(standin_backend(scen))
    node = c.poll([])[-1]
    assert node.values["vbios_variants"] == 2 and "96.00.30.00.01, 96.00.74.00.1C" in node.text["vbios"]


@pytest.mark.parametrize("bad, says", [
    ({"gpus": [{"values": {"temperature_gpu": "warm"}}]}, "gpus[0].values.temperature_gpu"),
    ({"gpus": [{"values": {"temperature_gpu": "error:MELTED"}}]}, "unknown NVML error 'MELTED'"),
    ({"timeline": [{"gpu": 0}]}, "timeline[0]: needs numeric `at`"),
    (["not", "a", "mapping"], "expected a mapping"),
    ({"gpus": [{"pci_bus_id": 1080.0}]}, "gpus[0].pci_bus_id: expected a string (quote it)"),
])
def test_a_malformed_scenario_names_the_key(bad, says):
    with pytest.raises(StandinError, match=re.escape(says)):
        flatten(bad)


def test_uninitialised_calls_fail_as_nvml_does():
    nvml = standin_backend(scenario("hgx-h100-r550.yaml"))
    with pytest.raises(NvmlError) as e:
        nvml.count()
    assert e.value.code == "UNINITIALIZED"


# ---- releasing NVML for a GPU reset ---------------------------------------------------------------------

def test_release_file_lets_go_of_nvml_and_polling_resumes_when_it_is_gone(tmp_path):
    scen = scenario("hgx-h100-r550.yaml", timeline=[{"at": 0, "gpu": 1, "xid": 79}])
    nvml = standin_backend(scen)
    release = tmp_path / "release-nvml"
    c = GpuCollector(nvml, release_file=str(release))
    c.poll([])
    assert nvml.standin.refcount == 1  # the agent holds NVML while it polls
    assert nvml.wait_xid(1000) == (1, 79)  # and an event set with the GPUs registered
    release.touch()
    readings = c.poll([])
    assert c.status == "released" and nvml.standin.refcount == 0  # nvmlShutdown: nothing held
    assert readings[-1].entity == "node" and readings[-1].values["gpus_missing"] == 0
    held = readings[:-1]  # the GPUs and links, not read: their problems stand, their confirmation counts kept
    assert {r.entity for r in held} == {"gpu", "nvlink"} and all(r.partial and not r.values for r in held)
    with pytest.raises(NvmlError):
        nvml.wait_xid(10)  # the event set is gone with it
    calls = nvml.standin.calls
    c.poll([])
    assert nvml.standin.calls == calls  # not a single NVML call while released
    release.unlink()
    readings = c.poll([])
    assert c.status == "ok" and nvml.standin.refcount == 1
    assert sum(r.entity == "gpu" for r in readings) == 2


def test_a_reset_command_running_releases_nvml_for_a_while(tmp_path):
    proc = tmp_path / "proc" / "4242"
    proc.mkdir(parents=True)
    (proc / "cmdline").write_bytes(b"nvidia-smi\0-r\0-i\0GPU-4039dfe4\0")
    (tmp_path / "proc" / "1").mkdir()
    (tmp_path / "proc" / "1" / "cmdline").write_bytes(b"/sbin/init\0")
    nvml = standin_backend(scenario("hgx-h100-r550.yaml"))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock, proc_root=str(tmp_path))
    c.poll([])
    assert c.status == "released" and nvml.standin.refcount == 0  # seen before the first init: never held
    (proc / "cmdline").unlink()
    proc.rmdir()  # the reset finished
    clock.t += 30
    c.poll([])
    assert c.status == "released"  # held a minute after the last sight of it
    clock.t += 31
    c.poll([])
    assert c.status == "ok" and nvml.standin.refcount == 1


def test_a_reset_command_is_looked_for_cheaply_each_poll(tmp_path):
    """/proc listed every poll, a pid's cmdline read at the first two polls that see it (a fork execs its
    command just after), then remembered until the pid goes; a pid reused is read afresh."""
    from agent.gpu.collector import ResetWatch

    def process(pid: int, argv: bytes) -> None:
        (tmp_path / "proc" / str(pid)).mkdir(parents=True, exist_ok=True)
        (tmp_path / "proc" / str(pid) / "cmdline").write_bytes(argv)

    for pid in range(1, 201):  # daemons and kernel threads (empty cmdline)
        process(pid, b"/usr/bin/containerd\0" if pid % 2 else b"")
    watch = ResetWatch(str(tmp_path))
    assert not watch() and not watch() and watch.reads == 400
    for _ in range(10):
        assert not watch()
    assert watch.reads == 400  # nothing read again: the same processes
    process(777, b"/bin/bash\0")  # forked, not yet exec'd at the poll that first sees it
    assert not watch()
    process(777, b"nvidia-smi\x00--gpu-reset\x00-i\x000\x00")  # exec'd before the next poll
    assert watch() and watch()
    assert watch.reads == 402
    import shutil
    shutil.rmtree(tmp_path / "proc" / "777")
    assert not watch()
    process(777, b"nvidia-smi\x00-mig\x001\x00")  # the pid reused later: read afresh
    assert watch() and watch.reads == 403


def test_signal_hold_expires_on_its_own():
    nvml = standin_backend(scenario("hgx-h100-r550.yaml"))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)
    c.poll([])
    c.hold("signal", 600)
    c.poll([])
    assert nvml.standin.refcount == 0
    clock.t += 601  # nobody sent SIGUSR2: the agent does not stay blind
    c.poll([])
    assert c.status == "ok" and nvml.standin.refcount == 1


def test_gpu_npd_run_on_the_standin_reports_gpus_and_xids_and_releases_nvml_on_sigusr1(tmp_path):
    """The agent as a process: nvidia-ml-py loads the stand-in, an Xid arrives through nvmlEventSetWait_v2,
    SIGUSR1 lets go of NVML and SIGUSR2 takes it back."""
    import signal

    from harness import AgentProc
    scen = tmp_path / "h100.yaml"
    scen.write_text(yaml.safe_dump(scenario("hgx-h100-r550.yaml", timeline=[{"at": 1, "gpu": 1, "xid": 79}])))
    a = AgentProc(tmp_path, env={"GPU_NPD_NVML": f"fake:{scen}", "GPU_NPD_POLL_SECONDS": "0.2"})
    try:
        a.wait_for(lambda: a.value("gpu_npd_gpus", seen_by="nvml") == 2, what="GPUs through NVML")
        a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:2a:00") == 1,
                   what="the Xid from the NVML event")
        assert a.value("gpu_npd_gpu_ecc_errors_total", gpu="0", uuid="GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053",
                       pci_bus_id="0000:18:00", model="NVIDIA H100 80GB HBM3", error_type="uncorrected",
                       counter="volatile") == 0
        a.proc.send_signal(signal.SIGUSR1)
        a.wait_for(lambda: a.value("gpu_npd_nvml_status", status="released") == 1, what="released")
        a.proc.send_signal(signal.SIGUSR2)
        a.wait_for(lambda: a.value("gpu_npd_nvml_status", status="ok") == 1, what="resumed")
    finally:
        assert a.stop()[0] == 0


def test_the_gpu_busy_gate_of_the_checks_holds_no_nvml_between_checks():
    from agent.checks.scheduler import gpu_busy
    nvml = standin_backend({"gpus": [{}, {"values": {"compute_processes": 1}}]})
    assert gpu_busy(nvml) == "busy"
    assert nvml.standin.refcount == 0  # init and shutdown in pairs: a GPU reset is not blocked by a check


def test_compute_mode_and_processes_are_read_through_the_binding_in_one_session_of_their_own():
    """The scenario's `compute_mode` (nvmlComputeMode_t) and processes (`compute_processes` from `compute_pid_first`)
    through nvidia-ml-py's own nvmlDeviceGetComputeMode and _v3 process list; `users_of` inits and shuts down in
    pairs (a GPU reset is not blocked) and says an error as one line naming the GPU."""
    from agent.gpu.interface import COMPUTE_MODES
    from agent.gpu.nvml import answer_of, ask_users

    def users_of(nvml, indices):
        call = ask_users(nvml, indices)
        if isinstance(call, str):
            return call
        call.thread.join(5)
        return answer_of(call, 5)
    nvml = standin_backend({"gpus": [{}, {"values": {"compute_mode": 3, "compute_processes": 2,
                                                     "compute_pid_first": 7100}},
                                     {"values": {"compute_mode": 2}}, {"values": {"compute_mode": "error:UNKNOWN"}}]})
    assert users_of(nvml, [0, 1, 2]) == {0: (0, []), 1: (3, [7100, 7101]), 2: (2, [])}
    assert [COMPUTE_MODES[m] for m in (0, 3, 2)] == ["Default", "Exclusive_Process", "Prohibited"]
    assert (pynvml.NVML_COMPUTEMODE_EXCLUSIVE_PROCESS, pynvml.NVML_COMPUTEMODE_PROHIBITED) == (3, 2)
    assert nvml.standin.refcount == 0
    assert users_of(nvml, [1, 3]) == "NVML UNKNOWN: GPU 3"
    assert users_of(None, [0]) == "NVML is off (config key `nvml`)"
    assert users_of(standin_backend({"init_error": "DRIVER_NOT_LOADED", "gpus": [{}]}), [0]) == \
        "NVML DRIVER_NOT_LOADED: Driver Not Loaded"


def test_sm_clock_and_utilisation_are_read_and_the_clock_counts_for_peers_only_under_load():
    """nvmlDeviceGetClockInfo(SM) and nvmlDeviceGetUtilizationRates through the binding's structs (synthetic
    values: an idle GPU and one under load, its clocks-event mask without the idle bit)."""
    scen = scenario("hgx-h100-r550.yaml")
    scen["gpus"][1] = {**scen["gpus"][1], "values": {**(scen["gpus"][1].get("values") or {}), "clock_sm": 1755,
                                                     "utilization_gpu": 100, "utilization_memory": 41,
                                                     "clocks_event_mask": 0}}
    _, c, readings = exercise(scen)
    idle, busy = [r.values for r in readings if r.entity == "gpu"]
    assert (idle["clock_sm"], idle["utilization_gpu"], idle["utilization_memory"]) == (345, 0, 0)
    assert "clock_sm_loaded" not in idle  # idle clocks drop by design: not compared with peers
    assert (busy["clock_sm"], busy["clock_sm_loaded"], busy["utilization_gpu"], busy["utilization_memory"]) == \
        (1755, 1755, 100, 41)
    assert c.errors == {}


def test_pcie_and_nvlink_throughput_are_read_through_the_binding():
    """nvmlDeviceGetPcieThroughput (KB/s, TX and RX by its counter argument) and the NVLink data field values
    (KiB since driver load, summed over links with scopeId UINT_MAX: nvml.h, https://github.com/NVIDIA/go-nvml/blob/
    main/gen/nvml/nvml.h); synthetic values.  A GPU without NVLink answers the fields NOT_SUPPORTED: not an error."""
    scen = scenario("hgx-h100-r550.yaml")
    scen["gpus"][0] = {**scen["gpus"][0], "values": {**(scen["gpus"][0].get("values") or {}),
                                                     "pcie_tx_bytes_per_second": 2.5e9, "pcie_rx_bytes_per_second": 4e8,
                                                     "nvlink_tx_kib": 3_000_000_000_000, "nvlink_rx_kib": 7}}
    scen["gpus"][1] = {**scen["gpus"][1], "absent": ["nvlink_tx_kib", "nvlink_rx_kib"]}
    _, c, readings = exercise(scen)
    first, second = [r.values for r in readings if r.entity == "gpu"]
    assert (first["pcie_tx_bytes_per_second"], first["pcie_rx_bytes_per_second"]) == (2.5e9, 4e8)
    assert (first["nvlink_tx_kib"], first["nvlink_rx_kib"]) == (3_000_000_000_000, 7)  # past 32 bits
    assert "nvlink_tx_kib" not in second and "nvlink_throughput" in c.gpus[1].unsupported
    assert c.errors == {}


@pytest.mark.parametrize("lacks", ["nvmlDeviceGetNvLinkState", "nvmlDeviceGetNvLinkErrorCounter"])
def test_a_driver_without_an_nvlink_entry_point_reads_the_same_in_the_poll_and_the_snapshot(lacks):
    """FUNCTION_NOT_FOUND for NVLink is one answer on both paths (one code path, read_nvlinks): no state call,
    no links and no errors; no counter call, links with their state only.  Neither is an error link in the
    snapshot nor an NVML error counted."""
    c = GpuCollector(standin_backend(scenario("hgx-h100-r550.yaml", driver_lacks=[lacks])), deadline=5)
    links = [r for r in c.poll([]) if r.entity == "nvlink"]
    snap = c.snapshot()
    if lacks == "nvmlDeviceGetNvLinkState":
        assert links == [] and all(g["nvlinks"] == [] for g in snap["gpus"])
    else:
        assert len(links) == 36 and all(set(lr.values) == {"state", "down"} for lr in links)
        assert all(g["nvlinks"] == [{"state": 1}] * 18 for g in snap["gpus"])
    assert c.errors == {}


# ---- recorded on a real H200 (tests/fixtures/nvml/sources.md: h200-r580) ------------------------------------------
H200 = ("h200-r580.yaml", "h200-r580-load.yaml")


@pytest.mark.parametrize("name", H200)
def test_the_standin_plays_back_a_real_h200_exactly_as_nvml_gave_it(name):
    """`gpu-npd nvml-snapshot` on the real machine, played by the stand-in and read through nvidia-ml-py again:
    the same document, every value and every NOT_SUPPORTED answer (page retirement, NVLink, fabric) as recorded."""
    recorded = scenario(name)
    backend = standin_backend(recorded)
    try:
        got = GpuCollector(backend, deadline=5).snapshot()
    finally:
        backend.shutdown()
    # a one-call reading added to NVML_READINGS since the recording was made is not in it (an answer NVML gave, even
    # NOT_SUPPORTED, is): the stand-in serves that row's healthy value, which the recording cannot say (a new reading
    # is its row alone: docs/extending.md)
    from agent.gpu.interface import NVML_READINGS
    from agent.gpu.standin import HEALTHY_VALUES

    # (the compute mode, recorded since: `Default` as the same minute's nvidia-smi -q says, the stand-in's healthy 0)
    later = {r.name for r in NVML_READINGS} | {"compute_mode"}
    later -= {k for gpu in recorded["gpus"] for k in gpu["values"]}
    assert _smi_value(_smi(name), "Compute Mode") == "Default"
    for gpu in got["gpus"]:
        assert {k: gpu["values"].pop(k) for k in later if k in gpu["values"]} == {k: HEALTHY_VALUES[k] for k in later}
    assert got == recorded


def _smi(name: str) -> str:
    return (FIXTURES / name.replace(".yaml", ".nvidia-smi-q.txt")).read_text()


def _smi_value(text: str, label: str, after: str | None = None) -> str:
    """The value of the first `label : value` line of `nvidia-smi -q` (after the line holding `after`)."""
    if after is not None:
        text = text[text.index(after):]
    return re.search(rf"^\s+{re.escape(label)}\s+: (.*)$", text, re.M).group(1).strip()


@pytest.mark.parametrize("name", H200)
def test_the_h200_recordings_agree_with_nvidia_smi_of_the_same_minute(name):
    """What NVML gave the agent is what `nvidia-smi -q` printed on the machine: identity, PCIe link and replays,
    temperature, power and the SM clock (nvidia-smi read a moment after the snapshot: under load, power within a few
    watts and the clock within a step)."""
    gpu, smi = scenario(name)["gpus"][0], _smi(name)
    v = gpu["values"]
    assert _smi_value(smi, "VBIOS Version") == gpu["vbios"]
    assert _smi_value(smi, "Bus Id") == gpu["pci_bus_id"]
    assert _smi_value(smi, "GPU UUID") == gpu["uuid"]
    assert int(_smi_value(smi, "Replays Since Reset")) == v["pcie_replay"] == 2  # a healthy GPU's: the rule's rate
    assert int(_smi_value(smi, "Max", after="PCIe Generation")) == v["pcie_link_gen_max"]
    assert int(_smi_value(smi, "Current", after="PCIe Generation")) == v["pcie_link_gen"]
    assert _smi_value(smi, "Current", after="Link Width") == f"{v['pcie_link_width']}x"
    assert int(_smi_value(smi, "GPU Current Temp").split()[0]) == v["temperature_gpu"]
    assert abs(float(_smi_value(smi, "Average Power Draw").split()[0]) - v["power_watts"]) < 5
    # (a power-capped clock moves in steps of 15 MHz from one moment to the next: 1485 MHz, then 1500)
    assert abs(int(_smi_value(smi, "SM", after="\n    Clocks\n").split()[0]) - v["clock_sm"]) <= 15


def test_nvml_violation_time_is_nanoseconds_where_nvidia_smi_prints_microseconds():
    """The H200 under load at its power limit: NVML's violation_power_ns 8,187,508,384, nvidia-smi's "SW Power Capping"
    8,248,572 us read a moment later; the agent reads NVML's figure as nanoseconds (throttled seconds)."""
    ns = scenario("h200-r580-load.yaml")["gpus"][0]["values"]["violation_power_ns"]
    us = int(_smi_value(_smi("h200-r580-load.yaml"), "SW Power Capping").split()[0])
    assert 0 <= us * 1000 - ns < 1e9  # the later reading, by less than a second of capping


def test_a_wait_left_by_an_earlier_scenario_never_takes_the_next_scenarios_xid():
    """A thread still waiting for Xid events on the last scenario (an agent a test left running) must not take the
    next scenario's events: it ends UNINITIALIZED when the next is loaded, as a wait on an unloaded driver would.  It
    took them before, which failed `exercise`'s wait for its Xid 79 when the whole suite ran on a loaded host."""
    import threading

    old = standin_backend(scenario("hgx-h100-r550.yaml"))
    old.init()
    answer: list = []
    waiter = threading.Thread(target=lambda: answer.append(_wait(old)), daemon=True)
    waiter.start()
    time.sleep(0.05)  # the old backend is inside nvmlEventSetWait
    new = standin_backend({**scenario("hgx-h100-r550.yaml"), "timeline": [{"at": 0, "gpu": 0, "xid": 79}]})
    new.init()
    time.sleep(0.1)  # the old wait wakes every 10 ms: it would have taken the event by now
    assert new.wait_xid(2000) == (0, 79)
    waiter.join(5)
    assert answer and answer[0] == "UNINITIALIZED"
    new.shutdown()


def _wait(backend) -> object:
    try:
        return backend.wait_xid(3000)
    except NvmlError as exc:
        return exc.code


def test_a_gpu_nvml_could_not_read_this_poll_keeps_the_problems_it_has():
    """A reading that lacks a field because its NVML call failed (UNKNOWN) or the GPU's read missed its deadline says
    nothing about that field's rule: what the rule raised stands, as it does for a GPU not read at all (NVML down).
    It cleared for that poll and came back at the next, so a GPU with uncorrectable ECC errors whose NVML call hung
    read healthy in between (and a GPU_IS_LOST between two hung polls flapped)."""
    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[
        {"at": 0, "gpu": 1, "set": {"ecc_uncorrected_volatile": 2}},
        {"at": 20, "gpu": 1, "set": {"ecc_uncorrected_volatile": "error:UNKNOWN"}},
        {"at": 30, "gpu": 1, "set": {"ecc_uncorrected_volatile": 2, "temperature_gpu": "hang"}},
        {"at": 40, "gpu": 1, "set": {"ecc_uncorrected_volatile": 0, "temperature_gpu": 40}}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, deadline=0.3, clock=clock)
    judge = SampleJudge(sample_rules())

    def reasons(t: float) -> set[str]:
        clock.t = t
        gpu1 = [r for r in c.poll([]) if r.entity == "gpu"][1]
        return {v.reason for v in judge.judge(gpu1, t)}

    assert reasons(0) == set() and reasons(10) == {"UncorrectableECCError"}  # polls: 2
    assert reasons(20) == {"UncorrectableECCError"}  # the ECC call failed: not read, not healthy
    assert reasons(30) == {"UncorrectableECCError"}  # the read missed its deadline (nvml_timeout 1)
    nvml.standin.release()
    time.sleep(0.1)  # the hung call returns; its worker is free for the next poll
    assert reasons(40) == set()  # read again, healthy: it clears
    c.close()


def test_a_field_value_that_fails_once_is_read_again_at_the_next_poll():
    """nvmlDeviceGetFieldValues answers per field: only a field's NOT_SUPPORTED means the GPU lacks it. A field that
    failed otherwise once (UNKNOWN, GPU_IS_LOST) was taken for unsupported and never read again until NVML was
    re-initialised: the driver's recovery action, asked for exactly when a GPU is in a bad state, went unread."""
    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[
        {"at": 10, "gpu": 0, "set": {"recovery_action": "error:UNKNOWN", "nvlink_tx_kib": "error:UNKNOWN"}},
        {"at": 20, "gpu": 0, "set": {"recovery_action": 1, "nvlink_tx_kib": 7}}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)

    def gpu0(t: float):
        clock.t = t
        return [r for r in c.poll([]) if r.entity == "gpu"][0]

    assert gpu0(0).values["recovery_action"] == 0
    failed = gpu0(10)
    assert "recovery_action" not in failed.values and failed.partial
    assert c.errors[("0", "UNKNOWN")] == 2  # the two groups, counted as errors
    again = gpu0(20).values
    assert again["recovery_action"] == 1 and again["nvlink_tx_kib"] == 7
    c.close()


# ---- NVML going away under the running agent --------------------------------------------------------------

BUS = ["0000:18:00.0", "0000:2a:00.0"]  # the scenario's GPUs as sysfs lists them (the poller passes them)


def judged(c: GpuCollector, judge, t: float, bus: list[str]) -> tuple[dict[str, set[str]], list]:
    """One poll at time t through the default rules: subject -> reasons raised (as the pipeline judges)."""
    c.clock.t = t
    readings = c.poll(bus)
    out: dict[str, set[str]] = {}
    for r in readings:
        out.setdefault(r.subject, set()).update(v.reason for v in judge.judge(r, t))
    judge.forget(set(out))
    return {s: v for s, v in out.items() if v}, readings



def test_nvml_gone_under_the_agent_is_said_once_initialised_again_and_no_problem_flaps(caplog):
    """The driver unloaded (an upgrade, `nvidia-smi -r`, a driver container restarted) while the agent polled: every
    call of its NVML session answers UNINITIALIZED.  The agent kept calling with its dead handles for ever; now it
    says so once, shuts NVML down, initialises it again on the init's schedule (every 60 s) and reads again with new
    handles, and the GPUs' problems stand throughout: none cleared while unread, none cleared or raised again when
    reading resumes (their confirmation counts kept)."""
    import logging

    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[
        {"at": 0, "gpu": 1, "set": {"ecc_uncorrected_volatile": 2}},
        {"at": 15, "driver": "gone"}, {"at": 100, "driver": "back"}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)
    judge = SampleJudge(sample_rules())
    ecc = {"gpu:0000:2a:00": {"UncorrectableECCError"}}  # and nothing else: GPU presence from the bus holds

    def poll(t: float) -> dict[str, set[str]]:
        return judged(c, judge, t, BUS)[0]  # as the pipeline does: a subject not read is forgotten

    assert poll(0) == {} and poll(10) == ecc  # polls: 2
    links = sum(len(g.links or ()) for g in c.gpus)
    caplog.set_level(logging.INFO, logger="gpu_npd.nvml")
    assert poll(20) == ecc and c.status == "UNINITIALIZED"  # gone: said, shut down, nothing cleared
    assert nvml.standin.refcount == 0
    readings = c.poll(BUS)
    assert all(r.partial and not r.values for r in readings if r.entity in ("gpu", "nvlink"))
    assert sum(r.entity == "nvlink" for r in readings) == links  # every link's problems stand too
    calls = nvml.standin.calls
    assert poll(40) == ecc and nvml.standin.calls == calls  # no call with the dead handles, no init before 60 s
    assert poll(80) == ecc and c.status == "DRIVER_NOT_LOADED"  # 60 s on: init, the driver not back yet
    assert poll(110) == ecc and c.status == "DRIVER_NOT_LOADED"  # the next try is at 140
    assert poll(140) == ecc and c.status == "ok" and nvml.standin.refcount == 1  # read again: still there
    gpus = [r for r in c.poll(BUS) if r.entity == "gpu"]
    assert [g.values["ecc_uncorrected_volatile"] for g in gpus] == [0, 2] and not any(g.partial for g in gpus)
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "NVML went away (UNINITIALIZED on every GPU" in said[0].getMessage()
    assert any("NVML: 2 GPU(s)" in r.getMessage() for r in caplog.records)  # resumed
    c.close()


def test_nvml_back_with_fewer_gpus_leaves_the_missing_one_unread_not_lost():
    """After the driver came back NVML named one GPU of two: the other is counted missing (presence), its problems
    stand (read as not read), and it is not called lost, which only NVML's GPU_IS_LOST says."""
    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[
        {"at": 0, "gpu": 1, "set": {"ecc_uncorrected_volatile": 2}},
        {"at": 15, "driver": "gone", "error": "DRIVER_NOT_LOADED"}, {"at": 30, "driver": "back", "gpus": 1}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)
    judge = SampleJudge(sample_rules())
    for t in (0, 10, 20, 80):
        clock.t = t
        readings = c.poll(BUS)
        verdicts = {v.reason for r in readings for v in judge.judge(r, t)}
        assert ("UncorrectableECCError" in verdicts) == (t > 0), t  # polls: 2
    assert c.status == "ok" and [g.ident.index for g in c.gpus] == [0]
    gpu1 = next(r for r in readings if r.subject == "gpu:0000:2a:00")
    assert gpu1.partial and "gpu_lost" not in gpu1.values
    node = readings[-1]
    assert node.values["gpus_nvml"] == 1 and node.values["gpus_missing"] == 1
    c.close()


def test_a_driver_library_mismatch_says_once_that_the_pod_must_be_restarted(caplog):
    import logging

    caplog.set_level(logging.INFO, logger="gpu_npd.nvml")
    nvml = standin_backend({"init_error": "LIB_RM_VERSION_MISMATCH", "gpus": [{}]})
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)
    for t in (0, 60, 120):
        clock.t = t
        c.poll(BUS)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "LIB_RM_VERSION_MISMATCH" in said[0] and "restart this pod" in said[0]
    assert "\n" not in said[0]
    c.close()


@pytest.mark.parametrize("event, says", [
    ({"at": 1, "driver": "away"}, "timeline[0].driver: expected 'gone' or 'back'"),
    ({"at": 1, "driver": "gone", "error": "MELTED"}, "unknown NVML error 'MELTED'"),
    ({"at": 1, "driver": "back", "gpus": "two"}, "timeline[0].gpus: expected a count"),
    ({"at": "soon", "driver": "back"}, "timeline[0]: needs a numeric `at`"),
])
def test_a_malformed_driver_event_names_the_key(event, says):
    with pytest.raises(StandinError, match=re.escape(says)):
        flatten({"timeline": [event]})


def test_released_nvml_keeps_the_gpus_confirmation_so_nothing_flaps_when_it_resumes():
    """While NVML was released the poll read no GPU, so the judge forgot the GPUs (the pipeline forgets subjects not
    read): at the first poll after, a problem confirmed over 2 polls was not confirmed yet, and cleared (the engine
    syncs a subject read), to come back a poll later."""
    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(scenario("hgx-h100-r550.yaml", timeline=[
        {"at": 0, "gpu": 1, "set": {"ecc_uncorrected_volatile": 2}}]))
    clock = StandinClock(0.0).bind(nvml.standin)
    c = GpuCollector(nvml, clock=clock)
    judge = SampleJudge(sample_rules())

    def gpu1(t: float) -> set[str]:
        return judged(c, judge, t, BUS)[0].get("gpu:0000:2a:00", set())

    assert gpu1(0) == set() and gpu1(10) == {"UncorrectableECCError"}
    c.hold("signal", 15)
    assert gpu1(20) == {"UncorrectableECCError"} and c.status == "released"
    assert gpu1(40) == {"UncorrectableECCError"} and c.status == "ok"  # resumed: still standing
    c.close()


# ---- a GPU that does not answer at start ------------------------------------------------------------------

BUS4 = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0"]  # sysfs's NVIDIA GPUs of hgx_scenario()[:4]


def four_gpus(gpu2: dict, timeline: list | None = None) -> dict:
    """Four H100s on the fixture tree's first four addresses, GPU 2 with these scenario keys from load."""
    from telemetry_kit import hgx_scenario

    scen = hgx_scenario(timeline=timeline or [])
    scen["gpus"] = scen["gpus"][:4]
    scen["gpus"][2] = {**scen["gpus"][2], **gpu2}
    return scen


def test_an_agent_started_with_one_gpu_lost_reads_the_others_and_names_that_one_lost(caplog):
    """GPU 2 of 4 fell off the bus before the agent started (a pod restart after the Xid 79, a rollout): its handle
    answers GPU_IS_LOST.  The init read every GPU's identity in one call and failed as a whole, so NVML polling
    was down for every GPU, retried every 60 s and failing the same way, and the lost GPU was never called lost.
    Now the GPUs that answer are read, GPU 2 is held lost under its bus id (NVML's handle by PCI bus id answers
    GPU_IS_LOST for the one sysfs address NVML did not name), said in one line, and read normally once it is back."""
    import logging

    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(four_gpus({"lost": True}, [{"at": 70, "gpu": 2, "set": {"lost": 0}}]))
    c = GpuCollector(nvml, clock=StandinClock(0.0).bind(nvml.standin))
    judge = SampleJudge(sample_rules())
    caplog.set_level(logging.INFO, logger="gpu_npd.nvml")
    assert judged(c, judge, 0, BUS4)[0] == {}
    raised, readings = judged(c, judge, 10, BUS4)
    assert c.status == "ok" and [g.ident.index for g in c.gpus] == [0, 1, 3]
    assert raised == {"gpu:0000:3a:00": {"GPULost"}}  # polls: 2, as a GPU lost while polled
    lost = next(r for r in readings if r.subject == "gpu:0000:3a:00")
    assert lost.values["gpu_lost"] == 1 and lost.labels["gpu_index"] == "2" and lost.labels["uuid"] == ""
    assert c.gpu_map.uuid("0000:3a:00") is None and "0000:3a:00" not in c.gpu_map  # no UUID for it, none wrong
    node = readings[-1]
    assert node.values["gpus_missing"] == 0 and node.values["gpus_nvml"] == 4  # lost, not missing
    assert judged(c, judge, 20, BUS4)[0] == {"gpu:0000:3a:00": {"GPULost"}}
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and "GPU 2 (0000:3a:00" in warned[0] and "GPU_IS_LOST" in warned[0]
    assert "\n" not in warned[0]
    assert judged(c, judge, 60, BUS4)[0] == {"gpu:0000:3a:00": {"GPULost"}}  # asked again at 60 s: still lost
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1  # not said again
    raised, readings = judged(c, judge, 120, BUS4)  # reset at 70: read again at the next try
    assert raised == {} and [g.ident.index for g in c.gpus] == [0, 1, 2, 3]
    gpu2 = next(r for r in readings if r.subject == "gpu:0000:3a:00")
    assert gpu2.values["gpu_lost"] == 0 and gpu2.labels["uuid"].endswith("0002")
    assert c.gpu_map.uuid("0000:3a:00") == gpu2.labels["uuid"]
    c.close()


def test_a_gpu_lost_at_start_without_sysfs_is_held_by_its_index_and_cleared_when_back():
    """Where no sysfs address names it (no sysfs, or two GPUs lost: which is which NVML does not say), the lost
    GPU's subject is its NVML index; once it answers its problem clears under that subject too."""
    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(four_gpus({"lost": True}, [{"at": 70, "gpu": 2, "set": {"lost": 0}}]))
    c = GpuCollector(nvml, clock=StandinClock(0.0).bind(nvml.standin))
    judge = SampleJudge(sample_rules())
    judged(c, judge, 0, [])
    raised, readings = judged(c, judge, 10, [])
    assert raised == {"gpu:nvml2": {"GPULost"}}
    assert readings[-1].values["gpus_missing"] == 0
    raised, readings = judged(c, judge, 120, [])
    assert raised == {} and "gpu:0000:3a:00" in {r.subject for r in readings}
    c.close()


def test_a_gpu_answering_unknown_at_start_is_missing_not_lost():
    """Xid 79 may also fail the handle with Unknown Error (nvidia-smi then prints "Unable to determine the device
    handle for GPU ...: Unknown Error"): only GPU_IS_LOST says lost; any other error counts the GPU missing."""
    for bus, named in ((BUS4, "0000:3a:00"), ([], "unknown addresses")):
        nvml = standin_backend(four_gpus({"values": {"handle": "error:UNKNOWN"}}))
        c = GpuCollector(nvml, clock=StandinClock(0.0).bind(nvml.standin))
        readings = c.poll(bus)
        assert c.status == "ok" and [g.ident.index for g in c.gpus] == [0, 1, 3]
        assert not any(r.values.get("gpu_lost") for r in readings)
        node = readings[-1]
        assert node.values["gpus_missing"] == 1 and node.text["missing"] == named  # NVML counts 4, names 3
        c.poll(bus)
        assert c.errors[("2", "UNKNOWN")] == 1  # asked at the init, not at every poll: again on its schedule
        c.close()


def test_a_hang_at_one_gpus_identity_does_not_stop_the_others():
    """The identity of every GPU was read in the init's one call: a handle call that hung took NVML down for all of
    them.  Each GPU is now asked on its own worker under the deadline: the others are read on time, the hung one is
    missing (not lost) and not waited for again while its call hangs, and read once it answers."""
    nvml = standin_backend(four_gpus({"values": {"handle": "hang"}}, [{"at": 50, "gpu": 2, "set": {"handle": 0}}]))
    c = GpuCollector(nvml, deadline=0.3, clock=StandinClock(0.0).bind(nvml.standin))
    t0 = time.monotonic()
    readings = c.poll(BUS4)
    assert time.monotonic() - t0 < 1.5
    assert [g.ident.index for g in c.gpus] == [0, 1, 3] and readings[-1].values["gpus_missing"] == 1
    assert not any(r.values.get("gpu_lost") for r in readings)
    c.clock.t = 60
    t0 = time.monotonic()
    c.poll(BUS4)  # the next try: its worker is still in the hung call, not waited for
    assert time.monotonic() - t0 < 0.3 and [g.ident.index for g in c.gpus] == [0, 1, 3]
    nvml.standin.release()
    time.sleep(0.1)
    c.clock.t = 120
    readings = c.poll(BUS4)
    assert [g.ident.index for g in c.gpus] == [0, 1, 2, 3] and readings[-1].values["gpus_missing"] == 0
    c.close()


def test_xid_events_of_the_other_gpus_arrive_while_one_is_lost():
    """The event set registered every GPU and gave up at the first that failed otherwise than NOT_SUPPORTED: one GPU
    lost at start left NVML's Xid events unavailable for all of them."""
    nvml = standin_backend(four_gpus({"lost": True}, [{"at": 0, "gpu": 3, "xid": 79}]))
    nvml.init()
    try:
        assert nvml.wait_xid(2000) == (3, 79)
    finally:
        nvml.shutdown()


def test_a_gpu_read_again_after_a_reset_has_its_xid_events_registered():
    """The event set registered the GPUs that answered when it was made and no other afterwards: GPU 2, lost at
    start and read again after its reset, had no Xid events through NVML until NVML was started again.  The Xid wait
    now registers every GPU read that the set does not carry yet."""
    import threading

    nvml = standin_backend(four_gpus({"lost": True}, [{"at": 70, "gpu": 2, "set": {"lost": 0}},
                                                      {"at": 130, "gpu": 2, "xid": 79}, {"at": 130, "gpu": 0, "xid": 48}]))
    c = GpuCollector(nvml, clock=StandinClock(0.0).bind(nvml.standin))
    c.poll(BUS4)
    got: list[tuple[str, int]] = []
    stop = threading.Event()
    t = threading.Thread(target=c.xid_events, args=(lambda pci, xid: got.append((pci, xid)), stop))
    t.start()
    try:
        time.sleep(0.3)  # the event set is made: GPUs 0, 1, 3
        c.clock.t = 120
        c.poll(BUS4)  # GPU 2 answers again: read
        assert [g.ident.index for g in c.gpus] == [0, 1, 2, 3]
        time.sleep(1.2)  # the wait in progress ends (1 s); the next registers GPU 2
        c.clock.t = 130
        deadline = time.monotonic() + 5
        while ("0000:18:00", 48) not in got and time.monotonic() < deadline:
            time.sleep(0.05)
        assert got == [("0000:3a:00", 79), ("0000:18:00", 48)]
    finally:
        stop.set()
        t.join(5)
        c.close()


def test_nvml_snapshot_lists_the_gpus_that_did_not_answer_at_start_with_their_error():
    """`gpu-npd nvml-snapshot` listed only the GPUs read: a GPU lost at start was left out, and the operator asking
    "which GPU?" saw three GPUs and no error.  Each GPU that did not answer is listed at its NVML index with its
    error (and its address where sysfs and NVML's handle by PCI bus id name it), in a form the stand-in replays
    the same way."""
    for gpu2, bus, entry in (({"lost": True}, BUS4, {"index": 2, "error": "GPU_IS_LOST", "pci_bus_id": "0000:3a:00.0",
                                                       "lost": True}),
                             ({"lost": True}, [], {"index": 2, "error": "GPU_IS_LOST", "lost": True}),
                             ({"values": {"handle": "error:UNKNOWN"}}, BUS4,
                              {"index": 2, "error": "UNKNOWN", "values": {"handle": "error:UNKNOWN"}})):
        c = GpuCollector(standin_backend(four_gpus(gpu2)), deadline=5)
        snap = c.snapshot(bus)
        c.close()
        assert len(snap["gpus"]) == 4 and snap["gpus"][2] == entry
        assert [g["uuid"][-4:] for g in snap["gpus"][:2] + snap["gpus"][3:]] == ["0000", "0001", "0003"]
        replay = GpuCollector(standin_backend(snap), deadline=5)
        again = replay.snapshot(bus)
        replay.close()
        assert again["gpus"][2] == entry and [g.get("uuid") for g in again["gpus"]] == [g.get("uuid") for g in snap["gpus"]]


def test_nvml_snapshot_looks_for_libnvidia_ml_on_the_host_as_the_agent_does(tmp_path, monkeypatch):
    """`gpu-npd nvml-snapshot` opens NVML with the agent's proc_root (gpunpd.options host_options: --proc-root, else the
    configuration's: --config, GPU_NPD_PROC_ROOT, the default /), so that where only the host search finds
    libnvidia-ml.so.1 (agent/gpu/nvml.py load_from_host) it reads the GPUs as the agent does.  Was: no proc_root, the
    host never searched (LIBRARY_NOT_FOUND in the agent's pod on such a node)."""
    from click.testing import CliRunner

    from agent.cli import nvml_snapshot
    from agent.gpu import nvml as nvml_mod

    searched = []

    def load_from_host(proc_root):
        searched.append(proc_root)
        raise NvmlError("LIBRARY_NOT_FOUND", "none here")

    monkeypatch.setattr(nvml_mod, "load_from_host", load_from_host)
    monkeypatch.delenv("GPU_NPD_CONFIG", raising=False)
    monkeypatch.delenv("GPU_NPD_PROC_ROOT", raising=False)
    config = tmp_path / "config.yaml"
    config.write_text("proc_root: /from-config\n")
    for argv, want in (([], "/"), (["--proc-root", "/host"], "/host"), (["--config", str(config)], "/from-config"),
                       (["--config", str(config), "--proc-root", "/host"], "/host")):
        searched.clear()
        r = CliRunner().invoke(nvml_snapshot, argv)
        assert r.exit_code == 1 and "init_error: LIBRARY_NOT_FOUND" in r.output, (argv, r.output)
        assert searched == [want], argv
    config.write_text("proc_root: [1]\n")
    r = CliRunner().invoke(nvml_snapshot, ["--config", str(config)])
    assert r.exit_code == 2 and r.output.startswith("gpu-npd: configuration error: ") and searched == [want]


def test_a_gpu_lost_under_its_nvml_index_names_no_device_to_repair_or_fence():
    """`gpu:nvml2` (GPU 2 lost at start, no address for it) is no PCI address.  The repair annotation gave it as
    `pci: nvml2` and the problem's message read "GPU 2 (, )"; the DRA device taints find no device for it (none
    published under that key), so none is fenced and the node taint answers for it.  The annotation now has `pci`
    empty and NVML's index, and the message says the address and UUID are unknown."""
    import json

    from agent.config import load
    from agent.health import HealthEngine
    from agent.kube.dra import faulty_gpus, match_devices, wanted_rules
    from agent.kube.repair import repair_annotation
    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    nvml = standin_backend(four_gpus({"lost": True}))
    c = GpuCollector(nvml, clock=StandinClock(0.0).bind(nvml.standin))
    judge = SampleJudge(sample_rules())
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    engine = HealthEngine(cfg, c.clock)
    for t in (0, 10):
        c.clock.t = t
        judged: dict[str, list] = {}
        for r in c.poll([]):
            judged.setdefault(r.subject, []).extend(judge.judge(r, t))
        engine.sync("nvml", judged)
    c.close()
    (lost,) = [p for p in engine.problems.values() if p.reason == "GPULost"]
    assert lost.subject == "gpu:nvml2" and lost.message.startswith("GPU 2 (address unknown, UUID unknown): ")
    assert json.loads(repair_annotation([lost]))["gpus"] == [{"pci": "", "uuid": "", "index": 2}]
    # NVIDIA's DRA driver publishes its GPUs by uuid and pcieBusID (tests/agent/kube/test_dra.py _slice): index 2's
    # device is not taken for it
    slices = [{"spec": {"driver": "gpu.nvidia.com", "pool": {"name": "n"}, "devices": [
        {"name": f"gpu-{i}", "attributes": {"uuid": {"string": f"GPU-standin-{i}"}, "pcieBusID": {"string": bus},
                                            "index": {"int": i}}} for i, bus in enumerate(BUS4)]}}]
    faulty = faulty_gpus([lost], cfg.kube)
    assert faulty == {"nvml2": ("", "GPULost")}
    assert wanted_rules("n", faulty, match_devices(slices, "gpu.nvidia.com"), "NoSchedule", "v1alpha3") == {}


def test_a_gpu_without_xid_events_is_asked_to_register_once(monkeypatch):
    """A GPU whose driver or platform answers NOT_SUPPORTED to nvmlDeviceRegisterEvents is asked once, as when the
    event set registered every GPU at its making (was, since the wait registers GPUs not yet carried: asked again at
    every 1 s wait, for good); the other GPUs' events still arrive."""
    nvml = standin_backend(four_gpus({}, [{"at": 0, "gpu": 3, "xid": 79}]))
    real = pynvml.nvmlDeviceRegisterEvents
    asked: list[int] = []

    def register(handle, types, events):
        index = pynvml.nvmlDeviceGetIndex(handle)
        asked.append(index)
        if index == 1:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return real(handle, types, events)

    monkeypatch.setattr(pynvml, "nvmlDeviceRegisterEvents", register)
    nvml.init()
    try:
        assert nvml.wait_xid(2000, [0, 1, 2, 3]) == (3, 79)
        assert nvml.wait_xid(10, [0, 1, 2, 3]) is None
        assert asked == [0, 1, 2, 3]
    finally:
        nvml.shutdown()


def test_a_gpu_lost_at_start_read_again_in_the_poll_nvml_goes_away_is_cleared_after_the_next_init():
    """GPU 2, lost at start and held by its NVML index (no sysfs), answers its identity again at the 120 s retry,
    and in the same poll every GPU's reading answers UNINITIALIZED (the driver went away between the two calls:
    NVML gone).  The lost GPU's index subject was to be cleared once (`_retired`) at the end of that poll, which
    NVML gone skipped; the next init's inventory recomputed the list from GPUs lost then (none), so `gpu:nvml2`'s
    GPULost stood for good under a GPU read healthy under its address.  It is cleared at the first poll that reads."""
    from agent.samples import SampleJudge
    from parsers.telemetry import sample_rules

    gone = "error:UNINITIALIZED"
    nvml = standin_backend(four_gpus({"lost": True}, [
        {"at": 70, "gpu": 2, "set": {"lost": 0}},
        *({"at": 100, "gpu": i, "set": {"temperature_gpu": gone}} for i in range(4)),
        *({"at": 150, "gpu": i, "set": {"temperature_gpu": 40}} for i in range(4))]))
    c = GpuCollector(nvml, clock=StandinClock(0.0).bind(nvml.standin))
    judge = SampleJudge(sample_rules())
    judged(c, judge, 0, [])
    assert judged(c, judge, 10, [])[0] == {"gpu:nvml2": {"GPULost"}}
    raised, readings = judged(c, judge, 120, [])  # GPU 2 read again, then NVML gone: nothing cleared or raised
    assert c.status == "UNINITIALIZED" and [g.ident.index for g in c.gpus] == [0, 1, 2, 3]
    assert "gpu:nvml2" not in {r.subject for r in readings}  # not read this poll: its problem stands meanwhile
    raised, readings = judged(c, judge, 180, [])  # initialised again: every GPU read under its address
    assert c.status == "ok" and raised == {}
    cleared = [r for r in readings if r.subject == "gpu:nvml2"]
    assert [r.values["gpu_lost"] for r in cleared] == [0]  # once, so the pipeline drops its GPULost
    assert "gpu:nvml2" not in {r.subject for r in c.poll([])}
    c.close()


def test_a_handle_asked_before_nvml_was_shut_down_is_not_kept_for_the_next_session():
    """A GPU's worker asks NVML for its handle (slow: past the deadline) while the poll's thread shuts NVML down
    (NVML gone, or released for a reset) and it is initialised again.  The worker cached the handle after
    shutdown() had cleared the cache, so the next session used a handle of the one shut down.  The handle still
    serves the call it was asked for (in a dead session NVML answers that call's error); it is asked again after."""
    import threading

    nvml = standin_backend(scenario("hgx-h100-r550.yaml"))
    real, asked = pynvml, []
    in_call, shut = threading.Event(), threading.Event()

    class Slow:  # nvidia-ml-py, its handle call held until the other thread has shut NVML down and started it again
        def __getattr__(self, name):
            return getattr(real, name)

        def nvmlDeviceGetHandleByIndex(self, index):
            asked.append(index)
            h = real.nvmlDeviceGetHandleByIndex(index)
            if len(asked) == 1:
                in_call.set()
                assert shut.wait(10)
            return h

    nvml.init()
    nvml.n = Slow()
    worker = threading.Thread(target=nvml.read, args=(0, "temperature"))
    worker.start()
    assert in_call.wait(10)
    nvml.shutdown()
    nvml.init()
    shut.set()
    worker.join(10)
    nvml.read(0, "temperature")
    assert asked == [0, 0]  # the new session asks for its own handle
    nvml.shutdown()


@pytest.mark.parametrize("order", ["releasing first", "hanging first"])
def test_two_runs_of_one_scenario_text_pass_in_either_order(tmp_path, order):
    """(h474) A run's first handle (the agent's poller, `open_backend(fresh=True)`) plays its scenario from its start.
    The stand-in kept its `released` flag while the scenario text was unchanged (a handle on the same text joined the
    one playing), so a test whose hang another test had released saw GPU_IS_LOST at once, not its hang: hang tests
    depended on their order (tests/agent/test_gpu_busy_users.py gave one a scenario of its own to differ). Two such
    runs, as two tests would be, pass in either order; a later handle of a run still joins it."""
    import threading

    from agent.checks.scheduler import gpu_busy
    from agent.gpu.nvml import open_backend

    path = tmp_path / "hang.yaml"
    path.write_text(yaml.safe_dump({"gpus": [{"values": {"compute_processes": "hang"}}]}))

    def hangs_then_released() -> None:
        nvml = open_backend(f"fake:{path}", fresh=True)
        try:
            assert gpu_busy(nvml, 0.3) == "nvml: GPU 0: no answer"  # hung, as the scenario says
            joined = open_backend(f"fake:{path}")  # the run's own second handle: the same scenario playing
            assert joined.standin is nvml.standin and joined.standin.refcount == 1  # the hung call's session
        finally:
            nvml.standin.release()
        for t in [t for t in threading.enumerate() if t.name == "check-gpu-busy"]:
            t.join(5)
        assert gpu_busy(nvml, 5) == "nvml: GPU 0: GPU_IS_LOST" and nvml.standin.refcount == 0

    def hangs() -> None:
        nvml = open_backend(f"fake:{path}", fresh=True)
        try:
            assert gpu_busy(nvml, 0.3) == "nvml: GPU 0: no answer"  # (was: GPU_IS_LOST after the other run)
        finally:
            nvml.standin.release()
        for t in [t for t in threading.enumerate() if t.name == "check-gpu-busy"]:
            t.join(5)

    runs = [hangs_then_released, hangs] if order == "releasing first" else [hangs, hangs_then_released]
    for run in runs:
        run()
