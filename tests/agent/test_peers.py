"""Stragglers against peers (issue 27): a member k MADs off its peers' median for N polls -> StragglerSuspected.
Readings are simulated (synthetic values in the shape agent/gpu/collector.py and agent/sysfs/infiniband.py
produce)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from agent.peers import CONDITION, REASON, PeerOutliers, median_of
from parsers.model import Reading

MODEL = "NVIDIA H100 80GB HBM3"


def gpus(values: dict[int, float], field: str = "power_watts") -> list[Reading]:
    return [Reading("gpu", f"gpu:0000:{i:02x}:00", {"gpu_index": str(i), "model": MODEL}, {field: v})
            for i, v in values.items()]


def rails(totals: dict[int, float]) -> list[Reading]:
    return [Reading("ib_port", f"ib:mlx5_{i}/1", {"device": f"mlx5_{i}"},
                    {"counters/port_xmit_data": v, "counters/port_rcv_data": v}) for i, v in totals.items()]


JITTER = [695, 700, 705, 698, 702, 699, 701, 700]  # healthy GPUs under load: a few watts apart


def test_a_gpu_5_mads_low_for_n_polls_is_a_straggler_and_clears_when_back():
    p = PeerOutliers(k=5, polls=3)
    slow = dict(enumerate(JITTER)) | {3: 560.0}
    assert p.judge(gpus(slow), 0) == {} and p.judge(gpus(slow), 1) == {}  # 2 polls: not yet
    (subject, (v,)), = p.judge(gpus(slow), 2).items()
    assert subject == "gpu:0000:03:00" and (v.condition, v.reason, v.severity) == (CONDITION, REASON, "warning")
    assert "gpu 3" in v.message and "power_watts 560 W" in v.message and "7 peers' median" in v.message
    assert p.judge(gpus(dict(enumerate(JITTER))), 3) == {}  # back with its peers: cleared


def test_healthy_jitter_an_idle_gpu_and_a_high_member_raise_nothing():
    p = PeerOutliers(k=5, polls=1)
    for t in range(5):
        assert p.judge(gpus({i: v + (t % 3) for i, v in enumerate(JITTER)}), t) == {}
    assert p.judge(gpus(dict(enumerate(JITTER)) | {7: 60.0}), 9) == {}  # idle: not the job's GPU
    assert p.judge(gpus(dict(enumerate(JITTER)) | {7: 900.0}), 10) == {}  # above its peers is no straggler


def test_an_interrupted_run_starts_again():
    p = PeerOutliers(k=5, polls=2)
    slow = dict(enumerate(JITTER)) | {1: 500.0}
    p.judge(gpus(slow), 0)
    p.judge(gpus(dict(enumerate(JITTER))), 1)
    assert p.judge(gpus(slow), 2) == {}


def test_too_few_peers_are_not_compared():
    p = PeerOutliers(k=5, polls=1, min_peers=4)
    assert p.judge(gpus({0: 700, 1: 700, 2: 300}), 0) == {}


def test_a_rail_whose_throughput_sits_off_its_peers_is_named():
    """Rates from cumulative counters (4-byte words): rail 5 carries a third of its peers' traffic."""
    p = PeerOutliers(k=5, polls=3)
    words = {i: 0.0 for i in range(8)}
    found = {}
    for t in range(5):
        found = p.judge(rails(words), float(t))
        words = {i: w + (2.5e9 if i != 5 else 0.8e9) + i * 1e6 for i, w in words.items()}
    assert set(found) == {"ib:mlx5_5/1"}
    assert {v.details["field"] for v in found["ib:mlx5_5/1"]} == {"counters/port_xmit_data", "counters/port_rcv_data"}
    assert "mlx5_5" in found["ib:mlx5_5/1"][0].message and "B/s" in found["ib:mlx5_5/1"][0].message


def test_a_counter_reset_gives_no_rate_that_poll():
    p = PeerOutliers(k=5, polls=1)
    p.judge(rails({i: 1e12 for i in range(8)}), 0.0)
    assert p.judge(rails({i: (1e12 + 2.5e9) if i else 0.0 for i in range(8)}), 1.0) == {}  # rail 0 reset


def test_through_the_agent_a_simulated_gpu_drawing_less_than_its_peers_raises_straggler_suspected(tmp_path):
    """The fake NVML (eight H100s, synthetic power draw): GPU 3 at 520 W against peers at ~700 W, poll after
    poll: with `peer_outliers` enabled, GPUDegraded/StragglerSuspected on its subject at the third poll; off
    (the default), nothing."""
    from telemetry_kit import hgx_scenario
    from test_telemetry import make, poll

    timeline = [{"at": 0, "gpu": i, "set": {"power_watts": 520.0 if i == 3 else JITTER[i]}} for i in range(8)]
    agent, clock = make(tmp_path, hgx_scenario(timeline=timeline), peer_outliers={"enabled": True})
    stragglers = lambda: {p.subject for p in agent.engine.problems.values() if p.reason == REASON}  # noqa: E731
    for n in range(3):
        clock.t += 10
        poll(agent)
        assert stragglers() == (set() if n < 2 else {"gpu:0000:5d:00"})
    assert agent.engine.conditions["GPUDegraded"].status
    (tmp_path / "off").mkdir()
    off, clock2 = make(tmp_path / "off", hgx_scenario(timeline=timeline))
    for _ in range(4):
        clock2.t += 10
        poll(off)
    assert not any(p.reason == REASON for p in off.engine.problems.values())


# ---- throttle time, PCIe and NVLink throughput: the busy gate and the spread floor -------------------------

def loaded(values: dict[int, dict[str, float]], util: float = 100.0) -> list[Reading]:
    return [Reading("gpu", f"gpu:0000:{i:02x}:00", {"gpu_index": str(i), "model": MODEL},
                    {"utilization_gpu": util, **v}) for i, v in values.items()]


def run(p: PeerOutliers, polls: int, step: dict[int, dict[str, float]], util: float = 100.0, every: float = 10.0):
    """`polls` polls `every` seconds apart, each counter growing by `step` (per GPU, per field) per poll (with a
    few units of jitter); the last poll's verdicts."""
    totals = {i: {f: 0.0 for f in fields} for i, fields in step.items()}
    found: dict = {}
    for t in range(polls):
        found = p.judge(loaded({i: dict(v) for i, v in totals.items()}, util), t * every)
        totals = {i: {f: v + step[i][f] * (1 + 0.01 * ((i + t) % 3)) for f, v in fields.items()}
                  for i, fields in totals.items()}
    return found


def test_every_field_has_its_direction_unit_and_floor_and_fields_healthy_at_zero_are_gated_on_load():
    from agent.peers import FIELDS
    for f in FIELDS:
        assert f.direction in ("low", "high") and f.kind in ("gauge", "rate") and f.unit and f.floor > 0
        if f.direction == "high" or f.name.startswith(("pcie_", "nvlink_")):  # its own value cannot say whether
            assert f.gate == "utilization_gpu"  # the GPU is loaded (0 is healthy; little traffic is the straggle)
    names = {f.name for f in FIELDS}
    assert {"throttled_thermal_seconds", "throttled_power_seconds", "pcie_tx_bytes_per_second",
            "pcie_rx_bytes_per_second", "nvlink_tx_bytes", "nvlink_rx_bytes"} <= names


def test_a_gpu_throttled_while_its_peers_are_not_is_a_straggler_after_n_polls():
    """Peers at 0 s throttled (MAD 0): GPU 6 held down thermally 3 s of every 10 (30 % against a 2-point floor:
    15 spreads; synthetic)."""
    p = PeerOutliers(k=5, polls=3)
    step = {i: {"throttled_thermal_seconds": 3.0 if i == 6 else 0.0} for i in range(8)}
    assert run(p, 3, step) == {}  # two rates so far: not yet N polls
    found = run(PeerOutliers(k=5, polls=3), 4, step)
    (v,) = found["gpu:0000:06:00"]
    assert set(found) == {"gpu:0000:06:00"} and v.details["field"] == "throttled_thermal_seconds"
    assert "30.6 % is 15.3 MADs above its 7 peers' median 0 %" in v.message
    assert v.details["what"] == "time throttled (thermal)"


def test_healthy_throttle_jitter_a_power_capped_job_and_idle_gpus_raise_nothing():
    p = PeerOutliers(k=5, polls=1)
    noise = {i: {"throttled_thermal_seconds": 0.05 * (i % 2)} for i in range(8)}  # 0-0.5 % of the time
    assert run(p, 6, noise) == {}
    capped = {i: {"throttled_power_seconds": 9.0 + 0.3 * (i % 3)} for i in range(8)}  # all at the power cap
    assert run(PeerOutliers(k=5, polls=1), 6, capped) == {}
    idle = {i: {"throttled_thermal_seconds": 3.0 if i == 6 else 0.0} for i in range(8)}
    assert run(PeerOutliers(k=5, polls=1), 6, idle, util=0.0) == {}  # no load: not the job's GPUs, not compared
    rare = {i: {"throttled_thermal_seconds": 0.1 if i == 6 else 0.0} for i in range(8)}  # 1 %: under the floor
    assert run(PeerOutliers(k=5, polls=1), 6, rare) == {}


def test_a_gpu_whose_nvlink_or_pcie_traffic_sits_5_mads_below_its_peers_is_named():
    """NVLink: data counters summed over links, in bytes (GPU 2 moves 60 % of its peers' data); PCIe: NVML's sampled B/s
    (GPU 5 at a third of its peers').  Synthetic."""
    p = PeerOutliers(k=5, polls=3)
    step = {i: {"nvlink_tx_bytes": ((6e7 if i == 2 else 1e8) + i * 1e5) * 1024, "nvlink_rx_bytes": (1e8 + i * 1e5) * 1024}
            for i in range(8)}
    found = run(p, 5, step)
    assert set(found) == {"gpu:0000:02:00"}
    (v,) = found["gpu:0000:02:00"]
    assert v.details["field"] == "nvlink_tx_bytes" and "NVLink transmit rate" == v.details["what"]
    assert "B/s is" in v.message and "MADs below" in v.message
    p = PeerOutliers(k=5, polls=2)
    pcie = {i: {"pcie_tx_bytes_per_second": 4e9 + 2e7 * (i % 4), "pcie_rx_bytes_per_second": 4e9}
            for i in range(8)}
    assert p.judge(loaded(pcie), 0) == {}
    slow = {**pcie, 5: {"pcie_tx_bytes_per_second": 1.3e9, "pcie_rx_bytes_per_second": 4e9}}
    assert p.judge(loaded(slow), 1) == {}
    (v,) = p.judge(loaded(slow), 2)["gpu:0000:05:00"]
    assert v.details["field"] == "pcie_tx_bytes_per_second"


def test_healthy_traffic_jitter_and_idle_links_raise_nothing():
    p = PeerOutliers(k=5, polls=1)
    step = {i: {"nvlink_tx_bytes": 1e11 * (1 + 0.03 * (i % 3)), "nvlink_rx_bytes": 1e11} for i in range(8)}
    assert run(p, 6, step) == {}
    quiet = {i: {"nvlink_tx_bytes": 1e4 if i == 2 else 1e7, "nvlink_rx_bytes": 1e7} for i in range(8)}  # idle fabric
    assert run(PeerOutliers(k=5, polls=1), 6, quiet) == {}
    pcie = {i: {"pcie_tx_bytes_per_second": 3e9 * (1 + 0.04 * (i % 3))} for i in range(8)}
    assert all(PeerOutliers(k=5, polls=1).judge(loaded(pcie), t) == {} for t in range(5))


def test_through_the_agent_a_gpu_throttled_and_one_short_of_nvlink_traffic_are_stragglers(tmp_path):
    """The NVML stand-in through the agent's real backend (eight H100s under load, synthetic): GPU 6's thermal
    violation counter gains 3 s every 10 s while its peers' stand still, and GPU 2 sends 60 % of its peers' NVLink
    data (6 against ~10 GB/s); at the fourth poll (three rates) both are StragglerSuspected, on their own fields;
    nothing else."""
    from telemetry_kit import hgx_scenario
    from test_telemetry import make, poll

    timeline = [{"at": 0, "gpu": i, "set": {"utilization_gpu": 100, "clocks_event_mask": 0}} for i in range(8)]
    for n in range(6):
        timeline += [{"at": 10 * n, "gpu": i, "set": {
            "violation_thermal_ns": (3e9 * n if i == 6 else 0),
            "nvlink_tx_kib": int(n * (6e7 if i == 2 else 1e8 + 1e5 * i)), "nvlink_rx_kib": int(n * 1e8)}}
            for i in range(8)]
    agent, clock = make(tmp_path, hgx_scenario(timeline=timeline), peer_outliers={"enabled": True})
    found = lambda: {(p.subject, p.details["field"]) for p in agent.engine.problems.values()  # noqa: E731
                     if p.reason == REASON}
    for _ in range(3):
        poll(agent)
        assert found() == set()
        clock.t += 10
    poll(agent)
    assert found() == {("gpu:0000:ba:00", "throttled_thermal_seconds"), ("gpu:0000:3a:00", "nvlink_tx_bytes")}


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-10**6, 10**6), min_size=1))
def test_the_median_is_statistics_median(values):
    """The peers' and the hang verdict's median (agent.peers.median_of) is statistics.median's, value and type."""
    import statistics  # noqa: PLC0415 - the agent does not load it

    got, want = median_of(values), statistics.median(values)
    assert (got, type(got)) == (want, type(want))
    assert median_of(iter(values)) == want
