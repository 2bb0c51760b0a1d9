"""Per-Xid policy, reboot-aware escalation and unused ports, with a fake clock and fake boot ids."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from fakeclock import Clock

from agent.config import ConfigError, load
from agent.health import HealthEngine
from parsers import parse_line
from parsers.model import Boot

# leptonai/gpud docs (Xid 109 example), github.com/leptonai/gpud
XID109 = ("NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, "
          "errorString CTX SWITCH TIMEOUT, Info 0x58005")
# leptonai/gpud source comment (Xid 45 after a killed process), github.com/leptonai/gpud
XID45 = "NVRM: Xid (PCI:0000:61:00): 45, pid=1496200, name=distprovers-gpu, Ch 0000000f"
# synthetic: the Xid 13 line of tests/fixtures/dmesg/xid-variants.dmesg-T moved to the GPU of XID45
XID13 = "NVRM: Xid (PCI:0000:61:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address"
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
XID79_OTHER = XID79.replace("5d:00", "5e:00")
XID63 = "NVRM: Xid (PCI:0000:3b:00): 63, pid=1, name=p, Row Remapper: New row marked for remapping, reset gpu to activate."


def at(clock, line):
    f = parse_line(line)
    f.timestamp = datetime.fromtimestamp(clock.t, timezone.utc)
    return f


def engine_with(clock, boot_id="", **flags):
    return HealthEngine(load(env={}, flags=flags), clock, Boot(boot_id))


def test_xid45_right_after_another_xid_on_the_same_gpu_is_cleanup():
    clock = Clock()
    e = engine_with(clock)
    e.observe(at(clock, XID13))
    clock.t += 2
    e.observe(at(clock, XID45))
    assert e.held == {"ignored_after": 1}
    clock.t += 3600  # alone, long after: not held (an application Xid: counted toward repeats)
    e.observe(at(clock, XID45))
    assert e.held == {"ignored_after": 1}


def test_xid45_default_can_be_removed():
    clock = Clock()
    e = engine_with(clock, xid_policy={45: {}})
    e.observe(at(clock, XID13))
    e.observe(at(clock, XID45))
    assert e.held == {}


def test_count_within_window_threshold():
    clock = Clock()
    e = engine_with(clock, xid_policy={109: {"count": 3, "window_seconds": 600}})
    for _ in range(2):
        e.observe(at(clock, XID109))
        clock.t += 200
    assert not e.conditions["GPUUnhealthy"].status and e.held == {"below_threshold": 2}
    e.observe(at(clock, XID109))  # the third within 600 s
    cond = e.conditions["GPUUnhealthy"]
    assert cond.status and cond.reason.startswith("Xid109") and "3 within 600 s" in cond.message


def test_count_spread_wider_than_the_window_raises_nothing():
    clock = Clock()
    e = engine_with(clock, xid_policy={109: {"count": 3, "window_seconds": 600}})
    for _ in range(5):
        e.observe(at(clock, XID109))
        clock.t += 400
    assert not e.conditions["GPUUnhealthy"].status


def test_severity_and_action_override():
    clock = Clock()
    e = engine_with(clock, xid_policy={63: {"severity": "info", "action": "NONE"}})
    e.observe(at(clock, XID63))
    assert not e.conditions["GPUDegraded"].status
    e = engine_with(clock, xid_policy={63: {"severity": "fatal", "action": "RESET_GPU"}})
    e.observe(at(clock, XID63))
    assert not e.conditions["GPUDegraded"].status
    problem, = e.problems.values()
    assert (problem.severity, problem.action) == ("fatal", "RESET_GPU")


def test_fatal_xid_back_after_two_reboots_escalates_to_hardware_inspection(tmp_path):
    clock = Clock()
    state = {}
    actions = []
    for boot in ("boot-a", "boot-b", "boot-c"):
        e = engine_with(clock, boot)
        e.restore(json.loads(json.dumps(state)))  # through JSON, as the state file does
        if state:
            e.new_boot()
        e.observe(at(clock, XID79))
        e.observe(at(clock, XID79))  # a repeat within one boot is not a reboot
        problem, = [p for p in e.problems.values() if p.code == 79]
        actions.append(problem.action)
        state = e.to_state()
        clock.t += 3600
    assert actions == ["RESTART_BM", "RESTART_BM", "HARDWARE_INSPECTION"]
    assert problem.details["reboots_survived"] == 2 and "came back after 2 reboots" in problem.message
    # another GPU in the same (third) boot: its first occurrence, no escalation
    e.observe(at(clock, XID79_OTHER))
    other, = [p for p in e.problems.values() if p.subject == "gpu:0000:5e:00"]
    assert other.action == "RESTART_BM"


def test_reboot_escalation_off_and_configurable():
    clock = Clock()
    actions = []
    state = {}
    for boot in ("a", "b"):
        e = engine_with(clock, boot, xid_reboot_escalation=1)
        e.restore(state)
        e.new_boot()
        e.observe(at(clock, XID79))
        actions.append(next(iter(e.problems.values())).action)
        state = e.to_state()
    assert actions == ["RESTART_BM", "HARDWARE_INSPECTION"]
    e = engine_with(clock, "c", xid_reboot_escalation=0)
    e.restore(state)
    e.new_boot()
    e.observe(at(clock, XID79))
    assert next(iter(e.problems.values())).action == "RESTART_BM"


# mlx5 link lines as in tests/fixtures/dmesg/mlx5-ib.kmsg, in the dmesg envelope (uptime known)
DOWN_EARLY = "[   21.500000] mlx5_core 0000:0c:00.0 ibp12s0: Link down"
UP = "[   25.000000] mlx5_core 0000:0c:00.0 ibp12s0: Link up"
DOWN_LATER = "[ 9000.000000] mlx5_core 0000:0c:00.0 ibp12s0: Link down"


def test_port_that_never_came_up_is_unused_not_down():
    clock = Clock()
    e = engine_with(clock, "a")
    e.observe(parse_line(DOWN_EARLY))
    assert not e.conditions["InfiniBandUnhealthy"].status
    e.observe(parse_line(UP))
    e.observe(parse_line(DOWN_LATER))
    assert e.conditions["InfiniBandUnhealthy"].status


def test_down_late_in_the_boot_is_an_error_even_without_a_seen_up():
    clock = Clock()
    e = engine_with(clock, "a")
    e.observe(parse_line(DOWN_LATER))  # the up line may have left the kernel ring long ago
    assert e.conditions["InfiniBandUnhealthy"].status


def test_ports_seen_up_survive_a_restart_but_not_a_reboot():
    clock = Clock()
    e = engine_with(clock, "a")
    e.observe(parse_line(UP))
    state = json.loads(json.dumps(e.to_state()))
    again = engine_with(clock, "a")
    again.restore(state)
    again.observe(parse_line(DOWN_EARLY.replace("21.5", "30.5")))
    assert again.conditions["InfiniBandUnhealthy"].status
    rebooted = engine_with(clock, "b")
    rebooted.restore(state)
    rebooted.observe(parse_line(DOWN_EARLY))
    assert not rebooted.conditions["InfiniBandUnhealthy"].status


@pytest.mark.parametrize("flags,words", [
    ({"xid_policy": {109: {"count": 3}}}, "count and window_seconds go together"),
    ({"xid_policy": {"x": {}}}, "must be an Xid code"),
    ({"xid_policy": {63: {"severity": "bad"}}}, "xid_policy.63.severity"),
    ({"xid_policy": {63: {"colour": 1}}}, "unknown key 'colour'"),
    ({"xid_policy": {45: {"ignore_after": {"xids": "some"}}}}, "ignore_after"),
    ({"xid_reboot_escalation": -1}, "xid_reboot_escalation"),
])
def test_bad_policy_is_a_clear_config_error(flags, words):
    with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
        load(env={}, flags=flags)


def test_policy_from_a_file_adds_to_the_defaults(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("xid_policy:\n  109: {count: 3, window_seconds: 600}\n")
    cfg = load(str(p), env={})
    assert set(cfg.xid_policy) == {45, 109}


def test_held_xids_are_counted_by_code_and_reason_and_survive_a_restart(tmp_path):
    """gpu_npd_xid_policy_held_total{xid,reason}: each Xid the policy holds back, through the agent's pipeline."""
    import io

    from agent.app import build
    from agent.sources import Record

    def agent():
        cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path),
                                  "fallback_log_files": [],
                                  "xid_policy": {45: {"ignore_after": {"xids": "any", "within_seconds": 10}},
                                                 109: {"count": 3, "window_seconds": 600}}})
        a = build(cfg, out=io.StringIO())
        a.start(serve_http=False)
        return a

    a = agent()
    lines = [(100, XID13), (102, XID45), (200, XID109), (300, XID109), (400, XID109)]
    a.pipeline.process([Record("kmsg", f"3,{i},{int(t * 1e6)},-;{line}") for i, (t, line) in enumerate(lines, 1)])
    value = a.metrics.registry.get_sample_value
    assert value("gpu_npd_xid_policy_held_total", {"xid": "45", "reason": "ignored_after"}) == 1
    assert value("gpu_npd_xid_policy_held_total", {"xid": "109", "reason": "below_threshold"}) == 2
    assert a.engine.conditions["GPUUnhealthy"].status  # the third 109 went through
    a.save()
    a.stop.set()
    a.shutdown()  # its threads stopped (the module must leave none running: tests/conftest.py)
    b = agent()  # totals come back from the state file: the counter never goes down
    assert b.metrics.registry.get_sample_value("gpu_npd_xid_policy_held_total",
                                               {"xid": "109", "reason": "below_threshold"}) == 2
    b.stop.set()
    b.shutdown()


def test_apply_and_remember_keep_the_same_memory(monkeypatch):
    """`apply` records an Xid's sighting inline (the GPU's last Xid, the escalations' count: agent/policy.py says why);
    `remember` records a repeat's with `keep_newest` and the escalations' `see`.  The two must leave the same memory:
    a stream decided line by line, and the same stream where each repeat of a line is only remembered (as the coalescer does;
    decided afresh when an escalation reached its count), end with the same last Xids (bounded alike: a small
    MAX_KEYS here) and the same escalation counts."""
    import agent.policy as policy

    monkeypatch.setattr(policy, "MAX_KEYS", 4)
    clock = Clock()
    lines = []
    for i in range(60):  # Xid 13 on one GPC of 6 GPUs, Xid 31 on 3, Xid 79 on 2: repeats, escalations, eviction
        gpu = f"0000:{i % 6:02x}:00"
        lines.append(XID13.replace("0000:61:00", gpu) if i % 3 else
                     XID79.replace("0000:5d:00", gpu) if i % 5 == 0 else
                     f"NVRM: Xid (PCI:{gpu}): 31, pid={1000 + i % 3}, name=python3, Ch 00000008, MMU Fault")
    decided, remembered = (policy.FindingPolicy({}, 2, lambda f: f.pci or "-", 600.0, "boot") for _ in range(2))
    seen_lines: set[str] = set()
    for n, line in enumerate(lines):
        t = 1000.0 + n * 10
        decided.apply(at(clock, line), t, t)
        f = at(clock, line)
        if line in seen_lines:
            if remembered.remember(f, t):
                remembered.apply(f, t, t)
        else:
            seen_lines.add(line)
            remembered.apply(f, t, t)
    assert list(decided._last_xid.items()) == list(remembered._last_xid.items()) and len(decided._last_xid) == 4
    for name in ("_bursts", "_gpus", "_reached", "_generation"):
        assert getattr(decided.escalations, name) == getattr(remembered.escalations, name), name
    assert decided.escalations._bursts, "the stream reached no escalation count: the test tests nothing"
