"""Stragglers against peers (issue 27): a member k MADs off its peers' median for N polls -> StragglerSuspected.
Readings are simulated (synthetic values in the shape agent/gpu/collector.py and agent/sysfs/infiniband.py
produce)."""

from __future__ import annotations

from agent.peers import CONDITION, REASON, PeerOutliers
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
