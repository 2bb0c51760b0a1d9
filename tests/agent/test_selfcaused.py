"""The agent never reports what it causes: mlx5 ACCESS_REG failures that our own InfiniBand counter reads
cause (issue 12, section 3), on the HGX fixture sysfs with a fake clock."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
import yaml
from fakeclock import Clock
from telemetry_kit import copy_sysfs, hgx_scenario

from agent.app import Agent, build
from agent.config import ConfigError, load
from agent.selfcaused import CounterGuard
from agent.sources import Record
from parsers import parse_line

# prometheus/node_exporter#3434 (a ConnectX-7 PF the fabric manager restricts, its counters read by
# node_exporter): the real line, with its PCI address moved to mlx5_0 / mlx5_1 of the fixture tree (synthetic)
REAL = ("mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) failed, status "
        "bad operation(0x2), syndrome (0x9a6171), err(-22)")
MLX5_0, MLX5_1 = "0000:19:00", "0000:2b:00"  # tests/fixtures/sysfs/dgx-h100: mlx5_0 -> 19:00.0, mlx5_1 -> 2b:00.0
NIC_RULE = {"match": {"kind": "nic_error"}, "condition": "InfiniBandUnhealthy", "reason": "NICCommandFailed",
            "clear": "expire"}  # so that a NIC command failure that is not ours visibly raises a problem


def make(tmp: Path, state: Path | None = None):
    tmp.mkdir(parents=True, exist_ok=True)
    scen = tmp / "scenario.yaml"
    scen.write_text(yaml.safe_dump(hgx_scenario()))
    defaults = load(env={})
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fabricmanager_log": "", "imex_log": "", "fallback_log_files": [],
                              "state_dir": str(state or tmp / "state"), "nvml": f"fake:{scen}",
                              "sysfs_root": str(copy_sysfs(tmp)), "sample_ignore": {"node": ["*"]},
                              "condition_rules": [NIC_RULE, *defaults.condition_rules]})
    clock = Clock()
    agent = build(cfg, clock=clock, out=io.StringIO())
    clock.t = agent.boot.epoch + 1000.0
    return agent, clock


def kmsg(agent: Agent, clock: Clock, pci: str, after: float, seq: int) -> Record:
    """The line as the kernel stamps it `after` seconds past the fake clock's now."""
    uptime_us = int((clock.t + after - agent.boot.epoch) * 1e6)
    return Record("kmsg", f"3,{seq},{uptime_us},-;" + REAL.replace("0000:05:00.0", pci + ".0"))


def problems(agent: Agent) -> list[str]:
    return sorted(p.subject for p in agent.engine.problems.values() if p.reason == "NICCommandFailed")


def value(agent: Agent, name: str, **labels) -> float | None:
    return agent.metrics.registry.get_sample_value(name, labels)


def mlx5_0_counters(agent: Agent) -> list[str]:
    (r,) = [r for r in agent.poller.poll_once().readings if r.subject == "ib:mlx5_0/1"]
    return [k for k in r.values if k.startswith(("counters/", "hw_counters/"))]


def test_lines_our_counter_reads_cause_raise_nothing_and_stop_the_reads_said_once(tmp_path, caplog):
    agent, clock = make(tmp_path)
    assert mlx5_0_counters(agent)  # read at first
    caplog.set_level(logging.WARNING, logger="gpu_npd")
    for seq in range(1, 4):  # each poll reads the counters; each time mlx5 logs the failure 0.3 s later
        clock.t += 10
        agent.pipeline.process(agent.poller.poll_once())
        agent.pipeline.process([kmsg(agent, clock, MLX5_0, 0.3, seq)])
    assert problems(agent) == []  # ours: no node problem
    assert value(agent, "gpu_npd_self_caused_lines_total", kind="nic_error", pci_bus_id=MLX5_0) == 3
    assert value(agent, "gpu_npd_findings_total", kind="nic_error", severity="error", attribution="driver") is None
    assert value(agent, "gpu_npd_ib_counters_disabled", device="mlx5_0", pci_bus_id=MLX5_0) == 1
    said = [r.getMessage() for r in caplog.records if "no longer read" in r.getMessage()]
    assert len(said) == 1 and "mlx5_0" in said[0] and "ACCESS_REG(0x805)" in said[0]
    # the counters of that device are no longer read (state and rate still are); the other devices' are
    assert mlx5_0_counters(agent) == []
    (other,) = [r for r in agent.poller.poll_once().readings if r.subject == "ib:mlx5_1/1"]
    assert any(k.startswith("counters/") for k in other.values)
    # we no longer read it: the same failure now is not ours, and is a problem like any other
    clock.t += 10
    agent.pipeline.process([kmsg(agent, clock, MLX5_0, 0.3, 10)])
    assert problems(agent) == [f"nic:{MLX5_0}"]
    assert len([r for r in caplog.records if "no longer read" in r.getMessage()]) == 1  # said once


def test_a_restart_in_the_same_boot_keeps_the_counters_unread_a_reboot_reads_them_again(tmp_path, caplog):
    import json

    agent, clock = make(tmp_path)
    for seq in range(1, 4):
        clock.t += 10
        agent.pipeline.process(agent.poller.poll_once())
        agent.pipeline.process([kmsg(agent, clock, MLX5_0, 0.3, seq)])
    assert mlx5_0_counters(agent) == []
    agent.save()
    caplog.set_level(logging.WARNING, logger="gpu_npd")
    again, _ = make(tmp_path / "restart", tmp_path / "state")  # a restart: same state dir, same boot
    again.start(serve_http=False)
    try:
        assert mlx5_0_counters(again) == []  # our reads would make mlx5 log the failures again: not read
        assert value(again, "gpu_npd_ib_counters_disabled", device="mlx5_0", pci_bus_id=MLX5_0) == 1
        assert [r for r in caplog.records if "still not read" in r.getMessage() and "mlx5_0" in r.getMessage()]
    finally:
        again.stop.set()
        again.shutdown()
    state = tmp_path / "state" / "state.json"
    saved = json.loads(state.read_text())
    saved["boot_id"] = "an-earlier-boot"
    state.write_text(json.dumps(saved))
    rebooted, _ = make(tmp_path / "reboot", tmp_path / "state")
    rebooted.start(serve_http=False)
    try:
        assert mlx5_0_counters(rebooted)  # a new boot checks afresh
    finally:
        rebooted.stop.set()
        rebooted.shutdown()


def test_a_failure_long_after_our_last_read_is_a_fault(tmp_path):
    agent, clock = make(tmp_path)
    agent.pipeline.process(agent.poller.poll_once())
    clock.t += 30.0
    agent.pipeline.process([kmsg(agent, clock, MLX5_1, 0.0, 1)])  # 30 s after our read: not ours
    assert problems(agent) == [f"nic:{MLX5_1}"]
    assert value(agent, "gpu_npd_self_caused_lines_total", kind="nic_error", pci_bus_id=MLX5_1) is None
    assert value(agent, "gpu_npd_ib_counters_disabled", device="mlx5_1", pci_bus_id=MLX5_1) is None


def test_a_line_stamped_ahead_of_the_clock_is_read_at_the_clock(tmp_path):
    """(h501) A line the kernel's drifted wall time dates 30 s ahead of the clock, read right after our counter read,
    was written by now: its time is the clock's (parsers/finding.py `seen_at`, the health engine's reading), so ours.
    Was its stamp as it stood: 30 s after our read, a NIC fault raised for our own read."""
    agent, clock = make(tmp_path)
    agent.pipeline.process(agent.poller.poll_once())
    agent.pipeline.process([kmsg(agent, clock, MLX5_1, 30.0, 1)])
    assert problems(agent) == []
    assert value(agent, "gpu_npd_self_caused_lines_total", kind="nic_error", pci_bus_id=MLX5_1) == 1


def test_fewer_than_repeats_keep_reading(tmp_path):
    agent, clock = make(tmp_path)
    agent.pipeline.process(agent.poller.poll_once())
    agent.pipeline.process([kmsg(agent, clock, MLX5_0, 0.5, 1)])
    assert problems(agent) == [] and mlx5_0_counters(agent)  # one coincidence does not stop the reads


def test_bad_settings_are_one_line_errors():
    with pytest.raises(ConfigError, match="ib_counter_selfcheck_repeats"):
        load(env={}, flags={"ib_counter_selfcheck_repeats": 0})
    with pytest.raises(ConfigError, match="ib_counter_selfcheck_seconds"):
        load(env={}, flags={"ib_counter_selfcheck_seconds": -1})


# prometheus/node_exporter#3434: the same failure on both functions of one ConnectX (mlx5-more.yaml), verbatim
FUNCTION_0 = ("[11176.517416] mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) "
              "failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)")
FUNCTION_1 = ("[11176.589308] mlx5_core 0000:05:00.1: mlx5_cmd_out_err:835:(pid 10354): ACCESS_REG(0x805) op_mod(0x1) "
              "failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)")


def test_each_function_is_its_own_device_for_the_guard():
    """A function's line is explained by reads of that function (its address as the finding keeps it, function and
    all), never by reads of the other function; stopping one function's reads leaves the other's."""
    clock = Clock(1000.0)
    guard = CounterGuard(clock=clock, repeats=1)
    guard.note_read("0000:05:00.0", "mlx5_0", 999.5, 999.9)
    assert not guard.explains(parse_line(FUNCTION_1))  # the other function's reads: a fault of its own
    guard.note_read("0000:05:00.1", "mlx5_1", 999.5, 999.9)
    assert guard.explains(parse_line(FUNCTION_1))
    assert not guard.reading("0000:05:00.1") and guard.reading("0000:05:00.0")
    assert guard.explains(parse_line(FUNCTION_0)) and not guard.reading("0000:05:00.0")


def test_a_state_saved_before_functions_were_kept_still_stops_every_function_of_its_device(tmp_path):
    """Before functions were kept the guard's key was the device (`0000:05:00`): the run that saved it read no function
    of that device. Restored, its entry keeps every function unread (was function 0's only, function 1 read again in the
    same boot); a state saved now names each function, function 0's too, and a restart reads it back as it was."""
    import json

    old = tmp_path / "state.json"  # the "counter_guard" entry of a state file such a run wrote
    old.write_text(json.dumps({"counter_guard": {"disabled": {"0000:05:00": "reading InfiniBand port counters"},
                                                 "devices": {"0000:05:00": ["mlx5_0", "mlx5_1"]}}}))
    guard = CounterGuard(clock=Clock(1000.0), repeats=1)
    guard.restore(json.loads(old.read_text())["counter_guard"])
    assert not guard.reading("0000:05:00.0") and not guard.reading("0000:05:00.1")
    assert guard.reading("0000:06:00.1")  # another device's functions are read
    again = CounterGuard(clock=Clock(1000.0), repeats=1)
    again.restore(json.loads(json.dumps(guard.to_state())))
    assert not again.reading("0000:05:00.0") and not again.reading("0000:05:00.1")
    # stopped now: function 0 alone, saved by its full address, is function 0 alone after a restart
    now = CounterGuard(clock=Clock(1000.0), repeats=1)
    now.note_read("0000:05:00.0", "mlx5_0", 999.5, 999.9)
    assert now.explains(parse_line(FUNCTION_0))
    saved = now.to_state()
    assert list(saved["disabled"]) == ["0000:05:00.0"] and saved["devices"] == {"0000:05:00.0": ["mlx5_0"]}
    restarted = CounterGuard(clock=Clock(1000.0), repeats=1)
    restarted.restore(json.loads(json.dumps(saved)))
    assert not restarted.reading("0000:05:00.0") and restarted.reading("0000:05:00.1")


def test_a_kmsg_line_is_read_at_its_own_time_from_the_boots_start():
    """The pipeline no longer dates a kmsg finding before admission (a storm's repeat builds no datetime): the guard
    reads its time with the boot's start (`explains(f, since)`, seen_at), so a line the kernel wrote long before our
    read (a backlog read late) is no line of that read, however close the reading of it came to the read."""
    clock = Clock(1000.0)
    guard = CounterGuard(clock=clock, repeats=1)
    guard.note_read("0000:05:00.1", "mlx5_1", 999.5, 999.9)
    f = parse_line(FUNCTION_1)  # its kmsg stamp: 11,176.589308 s after the boot
    assert f is not None and f.timestamp is None
    assert not guard.explains(f, since=1000.0 - 20_000)  # written ~8,800 s before the read
    assert guard.explains(f, since=999.8 - 11176.589308)  # written during it
