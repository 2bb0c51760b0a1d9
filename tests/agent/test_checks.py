"""Active checks: NPD custom-plugin configs run unchanged, the protocol's edge cases, the built-in checks on
fakes, the GPU-busy gate, and results through the health engine."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest
import yaml

from agent.checks import builtin
from agent.checks.npd import (NONOK, OK, UNKNOWN, ConfigError, Rule, load_config, parse_config, parse_duration,
                              run_rule, run_rules)
from agent.checks.problems import judged
from agent.checks.scheduler import CheckScheduler, gpu_busy
from parsers.model import CheckBatch
from agent.checks.settings import builtin_config, plugin_configs
from agent.config import load
from agent.health import HealthEngine
from telemetry_kit import copy_sysfs, set_attr, standin_backend

NPD = Path(__file__).parents[1] / "fixtures" / "npd"
NPD_CONFIG = NPD / "config" / "custom-plugin-monitor.json"
SYSFS = Path(__file__).parents[1] / "fixtures" / "sysfs" / "dgx-h100"


def script(tmp: Path, name: str, body: str) -> str:
    p = tmp / name
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def fake_systemctl(tmp: Path, exit_code: int) -> dict[str, str]:
    """A PATH whose `systemctl is-active` answers with this exit status (synthetic stand-in for systemd)."""
    bindir = tmp / f"bin{exit_code}"
    bindir.mkdir()
    script(bindir, "systemctl", f"exit {exit_code}\n")
    return {"PATH": str(bindir)}


def cfg_for(tmp: Path, rules: list[dict], **plugin) -> object:
    raw = {"plugin": "custom", "source": "test", "pluginConfig": {"timeout": "5s", **plugin},
           "conditions": [{"type": "TestProblem", "reason": "TestOK", "message": "fine"}], "rules": rules}
    return parse_config(raw, tmp)


# ---- NPD's own config and script, unchanged ------------------------------------------------------------

def test_npd_config_from_npd_repository_runs_unchanged(tmp_path):
    cfg = load_config(NPD_CONFIG, base_dir=NPD)
    assert (cfg.source, cfg.invoke_interval, cfg.timeout, cfg.max_output_length, cfg.concurrency) == \
        ("ntp-custom-plugin-monitor", 30.0, 5.0, 80, 3)
    assert [r.type for r in cfg.rules] == ["temporary", "permanent"]
    assert cfg.rules[1].timeout == 3.0 and cfg.rules[1].condition == "NTPProblem"

    up = run_rules(cfg, env=fake_systemctl(tmp_path, 0))
    assert [(r.status, r.message) for r in up] == [(OK, "ntp.service is running")] * 2
    down = run_rules(cfg, env=fake_systemctl(tmp_path, 3))
    assert [(r.status, r.message) for r in down] == [(NONOK, "ntp.service is not running")] * 2
    nosystemd = run_rules(cfg, env={"PATH": str(tmp_path / "empty")})
    assert {(r.status, r.message) for r in nosystemd} == {(UNKNOWN, "Could not find 'systemctl' - require systemd")}


def test_npd_results_through_the_health_engine(tmp_path):
    """permanent -> the config's condition (True while NonOK, back to its default on OK); temporary -> an
    Event-only problem; the same lifecycle as every other problem."""
    conf = load(env={}, flags={"checks": {"enabled": True, "plugin_configs": [str(NPD_CONFIG)],
                                          "plugin_base_dir": str(NPD)}})
    assert conf.conditions["NTPProblem"] == {"ok_reason": "NTPIsUp", "ok_message": "ntp service is up"}
    engine = HealthEngine(conf, clock=lambda: 1000.0)
    cfg = load_config(NPD_CONFIG, base_dir=NPD)

    change = engine.sync("check:" + cfg.source, judged(cfg, run_rules(cfg, env=fake_systemctl(tmp_path, 3))))
    assert sorted((p.condition, p.reason) for p in change.new_problems) == [("", "NTPIsDown"), ("NTPProblem", "NTPIsDown")]
    cond = engine.conditions["NTPProblem"]
    assert (cond.status, cond.reason) == (True, "NTPIsDown") and "ntp.service is not running" in cond.message

    change = engine.sync("check:" + cfg.source, judged(cfg, run_rules(cfg, env=fake_systemctl(tmp_path, 0))))
    cond = engine.conditions["NTPProblem"]
    assert (cond.status, cond.reason, cond.message) == (False, "NTPIsUp", "ntp service is up")
    assert not engine.problems

    # Unknown is never healthy: the permanent rule's condition stands, marked Unknown, as a warning
    engine.sync("check:" + cfg.source, judged(cfg, run_rules(cfg, env={"PATH": str(tmp_path / "none")})))
    cond = engine.conditions["NTPProblem"]
    assert cond.status and cond.message.startswith("Unknown: Could not find") and cond.severity == "warning"


# ---- the protocol's edge cases: never healthy, never fatal ----------------------------------------------

def test_exit_codes_and_output_cap(tmp_path):
    cfg = cfg_for(tmp_path, [
        {"type": "permanent", "condition": "TestProblem", "reason": "A", "path": script(tmp_path, "ok", "echo '  fine  '\n")},
        {"type": "permanent", "condition": "TestProblem", "reason": "B", "path": script(tmp_path, "bad", "echo bad; exit 1\n")},
        {"type": "permanent", "condition": "TestProblem", "reason": "C", "path": script(tmp_path, "three", "echo odd; exit 3\n")},
        {"type": "permanent", "condition": "TestProblem", "reason": "D",
         "path": script(tmp_path, "long", "head -c 10000000 /dev/zero | tr '\\0' x\n")},
    ], max_output_length=10)
    res = run_rules(cfg)
    assert [(r.status, r.message) for r in res] == [(OK, "fine"), (NONOK, "bad"), (UNKNOWN, "odd"), (OK, "x" * 10)]


def test_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    path = script(tmp_path, "hang", f"sleep 300 & echo $! > {pidfile}\necho started\nwait\n")
    rule = Rule("permanent", "Hang", path, condition="TestProblem", timeout=1.0)
    cfg = cfg_for(tmp_path, [{"type": "permanent", "condition": "TestProblem", "reason": "Hang", "path": path,
                              "timeout": "1s"}], max_output_length=200)
    t0 = time.monotonic()
    res = run_rule(rule, cfg)
    assert res.status == UNKNOWN and res.message.startswith("Timeout when running plugin") and "started" in res.message
    assert time.monotonic() - t0 < 30
    child = int(pidfile.read_text())
    for _ in range(100):  # the grandchild was in the group: gone (reaped by init shortly after the kill)
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").exists() and Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail("the timed-out plugin's child still runs")


@pytest.mark.parametrize("body,why", [
    ("kill -SEGV $$\n", "killed by signal 11"),
    ("printf '\\377\\376garbage\\000'\nexit 0\n", "non-text output"),
])
def test_crash_and_garbage_are_unknown(tmp_path, body, why):
    cfg = cfg_for(tmp_path, [{"type": "permanent", "condition": "TestProblem", "reason": "X",
                              "path": script(tmp_path, "x", body)}], max_output_length=200)
    (res,) = run_rules(cfg)
    assert res.status == UNKNOWN and why in res.message


def test_missing_or_non_executable_program_is_unknown(tmp_path):
    plain = tmp_path / "plain.sh"
    plain.write_text("#!/bin/sh\nexit 0\n")
    cfg = cfg_for(tmp_path, [
        {"type": "temporary", "reason": "Gone", "path": "./nowhere.sh"},
        {"type": "temporary", "reason": "Plain", "path": str(plain)},
    ], max_output_length=200)
    res = run_rules(cfg)
    assert [r.status for r in res] == [UNKNOWN, UNKNOWN]
    assert all(r.message.startswith("cannot start") for r in res)


@pytest.mark.parametrize("raw,error", [
    ({"plugin": "filelog"}, "only 'custom'"),
    ({"plugin": "custom", "rules": [{"type": "permanent", "condition": "X", "reason": "R", "path": "/bin/true"}]},
     "no preset default condition"),
    ({"plugin": "custom", "rules": [{"type": "sometimes", "reason": "R", "path": "/bin/true"}]}, "neither temporary"),
    ({"plugin": "custom", "pluginConfig": {"timeout": "5 seconds"}}, "not a duration"),
])
def test_config_errors_are_one_line(raw, error):
    with pytest.raises(ConfigError, match=error) as e:
        parse_config(raw)
    assert "\n" not in str(e.value)


def test_bad_plugin_config_file_is_a_config_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    from agent.config import ConfigError as AgentConfigError
    with pytest.raises(AgentConfigError, match="checks: .*bad.json"):
        load(env={}, flags={"checks": {"enabled": True, "plugin_configs": [str(bad)]}})


def test_durations():
    assert parse_duration("1m30s") == 90 and parse_duration("500ms") == 0.5 and parse_duration("24h") == 86400


# ---- built-in checks (on the NVML stand-in and the fixture sysfs tree) ----------------------------------------

def nvml_spec(tmp: Path, values: dict | None = None, gpus: int = 2) -> str:
    scen = tmp / "scenario.yaml"
    scen.write_text(yaml.safe_dump({"replicate": gpus, "gpus": [{"values": values or {}}]}))
    return f"fake:{scen}"


def run_builtin(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    old, sys.stdout = sys.stdout, out
    try:
        status = builtin.main(list(argv))
    finally:
        sys.stdout = old
    return status, out.getvalue().strip()


def test_builtin_nvml_settings(tmp_path):
    assert run_builtin("nvml", "--nvml", nvml_spec(tmp_path), "--pcie-width-max") == (0, "2 GPUs: settings as expected")
    status, msg = run_builtin("nvml", "--nvml", nvml_spec(tmp_path, {"persistence_mode": 0, "pcie_link_width": 8}),
                              "--pcie-width-max", "--min-sm-clock", "1500")
    assert status == 1
    assert "GPU 0: persistence mode 0 (expected 1)" in msg and "GPU 1: PCIe x8 of x16" in msg
    status, msg = run_builtin("nvml", "--nvml", nvml_spec(tmp_path, {"ecc_mode_pending": 0}))
    assert status == 1 and "pending ECC mode 0" in msg
    status, msg = run_builtin("nvml", "--nvml", nvml_spec(tmp_path, {"persistence_mode": "error:GPU_IS_LOST"}))
    assert status == 2 and "GPU_IS_LOST" in msg


def test_builtin_ib_ports_and_gids(tmp_path):
    assert run_builtin("ib", "--root", str(SYSFS)) == (0, "8 InfiniBand ports active with valid GIDs")
    root = copy_sysfs(tmp_path)
    ports = "sys/class/infiniband/{}/ports/1/"
    set_attr(root, ports.format("mlx5_2") + "gids/0", "fe80:0000:0000:0000:0000:0000:0000:0000")
    set_attr(root, ports.format("mlx5_5") + "state", "1: DOWN")
    set_attr(root, ports.format("mlx5_5") + "phys_state", "3: Disabled")
    set_attr(root, ports.format("mlx5_6") + "lid", "0x0")
    status, msg = run_builtin("ib", "--root", str(root), "--min-rate-gbps", "400")
    assert status == 1
    assert "mlx5_2/1: GID 0 is fe80" in msg and "mlx5_5/1: 1: DOWN / 3: Disabled" in msg and "mlx5_6/1: no LID" in msg
    assert run_builtin("ib", "--root", str(tmp_path / "none")) == (0, "no InfiniBand devices")


def test_builtin_dcgm(tmp_path, monkeypatch):
    # synthetic stand-ins for dcgmi (the real outputs are in tests/agent/test_checks_dcgm.py)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", str(bindir))
    assert run_builtin("dcgm") == (2, "dcgmi not found")
    script(bindir, "dcgmi", """echo '{"DCGM Diagnostic": {"test_categories": [{"category": "Deployment", "tests": [
{"name": "software", "results": [{"entity_group": "GPU", "entity_id": 0, "status": "Pass"}]}]}]}}'
""")
    assert run_builtin("dcgm") == (0, "dcgmi diag -r 1 passed (1 tests)")


def test_builtin_gpu_without_cuda_runtime_is_unknown(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert run_builtin("gpu") == (2, "no CUDA runtime (torch or cupy) importable")


def test_builtin_as_npd_plugin_through_the_runner(tmp_path):
    """The built-in configs are NPD plugin configs: a permanent rule running python -m agent.checks.builtin."""
    cfg = builtin_config("ib", {"interval": "1m", "timeout": "30s"}, str(SYSFS))
    (res,) = run_rules(cfg)
    assert (res.status, res.message) == (OK, "8 InfiniBand ports active with valid GIDs")
    cfg = builtin_config("nvml", {"persistence": 1, "condition": "GPUConfigMismatch"},
                         nvml=nvml_spec(tmp_path, {"persistence_mode": 0}, gpus=1))
    (res,) = run_rules(cfg)
    assert res.status == NONOK and res.message == "GPU 0: persistence mode 0 (expected 1)"


def test_builtins_enabled_in_config_become_plugin_configs(tmp_path):
    checks = {"enabled": True, "builtin": {"nvml": {"enabled": True}, "ib": {"enabled": True},
                                           "dcgm": {"enabled": True}, "gpu": {"enabled": False}}}
    got = {c.source: c for c in plugin_configs(checks, str(SYSFS), "off")}
    assert "builtin-nvml" in got and "builtin-ib" in got and "builtin-gpu" not in got
    assert ("builtin-dcgm" in got) == bool(__import__("shutil").which("dcgmi"))
    conf = load(env={}, flags={"checks": checks, "sysfs_root": str(SYSFS)})
    assert conf.conditions["GPUConfigMismatch"]["ok_reason"] == "GPUConfigMismatchPassed"
    with pytest.raises(Exception, match="unknown check"):
        plugin_configs({"enabled": True, "builtin": {"burn": {"enabled": True}}})


def test_a_builtin_check_is_one_row(monkeypatch):
    """A row of agent/checks/builtin.py TABLE is the whole declaration: a check added by a row (and its function)
    gets its configuration block (off by default), its subcommand and flags, its condition and its gating."""
    def check_always(args):
        return builtin.NONOK, f"threshold {args.threshold:g}"

    row = builtin.Check("always", check_always, "AlwaysFails", "AlwaysFailed", (builtin.Arg("threshold", 7),),
                        gpu_load=True)
    monkeypatch.setattr(builtin, "TABLE", (*builtin.TABLE, row))
    assert builtin.defaults()["always"] == {"enabled": False, "interval": "5m", "timeout": "30s", "threshold": 7}
    assert builtin.parser().parse_args(["always", "--threshold", "3"]).threshold == 3
    from agent.settings import CHECKS_DEFAULT
    assert set(CHECKS_DEFAULT["builtin"]) == {c.name for c in builtin.TABLE if c is not row}
    assert {"nvml", "ib", "dcgm", "gpu"} <= set(builtin.BY_NAME) and builtin.GPU_LOAD == {"dcgm", "gpu"}


# ---- GPU-loading checks only on an idle GPU ---------------------------------------------------------------

def test_gpu_loading_checks_skip_while_a_compute_process_runs(tmp_path):
    ran = tmp_path / "ran"
    cfg = parse_config({"plugin": "custom", "source": "load", "gpuLoad": True,
                        "conditions": [{"type": "TestProblem", "reason": "OK", "message": "fine"}],
                        "rules": [{"type": "permanent", "condition": "TestProblem", "reason": "Load",
                                   "path": script(tmp_path, "load", f"touch {ran}\necho loaded\n")}]}, tmp_path)
    # one stand-in per process (NVML's soname): each scenario is loaded just before it is used
    assert gpu_busy(standin_backend({"gpus": [{}, {}]})) is None
    assert gpu_busy(standin_backend({"gpus": [{"values": {"compute_processes": "error:UNKNOWN"}}]})) == \
        "nvml: GPU 0: UNKNOWN"
    busy_nvml = standin_backend({"gpus": [{}, {"values": {"compute_processes": 1}}]})
    assert gpu_busy(busy_nvml) == "busy"
    batches: list[CheckBatch] = []
    sched = CheckScheduler([cfg], batches.append, busy=lambda: gpu_busy(busy_nvml))
    sched.run_due()
    assert [(r.status, r.message) for r in batches[0].results] == [("Skipped", "Skipped(busy)")]
    assert not ran.exists()
    assert judged(cfg, batches[0].results) == {}  # nothing changes while skipped
    idle_nvml = standin_backend({"gpus": [{}]})
    sched2 = CheckScheduler([cfg], batches.append, busy=lambda: gpu_busy(idle_nvml))
    assert sched2.run_due() == pytest.approx(30, abs=1)
    assert batches[1].results[0].status == OK and ran.exists()


def test_a_plugin_condition_named_like_the_kubelets_is_refused(tmp_path):
    """Issue 31: a plugin rule named `Ready` wrote Ready=False on the Node within 6 s (a NotReady node)."""
    raw = {"plugin": "custom", "source": "test", "pluginConfig": {"timeout": "5s"},
           "conditions": [{"type": "Ready", "reason": "Fine", "message": "fine"}],
           "rules": [{"type": "permanent", "condition": "Ready", "reason": "Broken",
                      "path": script(tmp_path, "bad", "exit 1\n")}]}
    with pytest.raises(ConfigError, match="'Ready' is the kubelet's"):
        parse_config(raw, tmp_path)


def test_the_busy_gate_names_the_gpu_that_does_not_answer_and_still_sees_a_busy_one():
    """One GPU lost (after an Xid 79) answered `nvml: GPU_IS_LOST` for the whole node, naming no GPU, and the GPUs
    after it were never asked.  Every GPU is asked: one busy says `busy`; else the GPUs that did not answer are
    named, and GPU-loading checks still wait (they would load the lost GPU too and fail on it; its own GPULost
    drains the node)."""
    lost = {"gpus": [{}, {}, {"lost": True}, {}]}
    assert gpu_busy(standin_backend(lost)) == "nvml: GPU 2: GPU_IS_LOST"
    lost["gpus"][3] = {"values": {"compute_processes": 1}}
    assert gpu_busy(standin_backend(lost)) == "busy"
    two = {"gpus": [{"values": {"compute_processes": "error:UNKNOWN"}}, {}, {"lost": True}]}
    assert gpu_busy(standin_backend(two)) == "nvml: GPU 0: UNKNOWN; GPU 2: GPU_IS_LOST"


def test_a_busy_gate_past_its_deadline_is_asked_no_more_until_it_returns(tmp_path, caplog):
    """GPU 3's compute processes hang (a GPU that stopped answering): the gate's call gives up at its deadline and its
    thread stays inside NVML.  Every check period asked again on a thread of its own beside it (a second session on
    the same backend, init and shutdown under the call in flight, one more thread parked in NVML per period: NVML
    never fully shut down for a reset).  Each period is refused at once, naming the GPU, said in one line; the check
    does not run; once the call returns NVML is asked again."""
    import threading

    ran = tmp_path / "ran"
    cfg = parse_config({"plugin": "custom", "source": "load", "gpuLoad": True,
                        "conditions": [{"type": "TestProblem", "reason": "OK", "message": "fine"}],
                        "rules": [{"type": "permanent", "condition": "TestProblem", "reason": "Load",
                                   "path": script(tmp_path, "load", f"touch {ran}\necho loaded\n")}]}, tmp_path)
    nvml = standin_backend({"gpus": [{}, {}, {}, {"values": {"compute_processes": "hang"}}]})
    parked = lambda: [t for t in threading.enumerate() if t.name == "check-gpu-busy"]  # noqa: E731
    now = [0.0]
    batches: list[CheckBatch] = []
    sched = CheckScheduler([cfg], batches.append, busy=lambda: gpu_busy(nvml, 0.3), clock=lambda: now[0])
    try:
        sched.run_due()
        calls = nvml.standin.calls
        began = time.monotonic()
        with caplog.at_level("WARNING", logger="gpu_npd.nvml"):
            for _ in range(5):  # five more check periods
                now[0] += cfg.invoke_interval
                sched.run_due()
        assert time.monotonic() - began < 0.3  # refused, not each waiting out a deadline of its own
        assert [(r.status, r.message) for b in batches for r in b.results] == \
            [("Skipped", "Skipped(nvml: GPU 3: no answer)")] * 6
        assert not ran.exists()
        assert len(parked()) == 1 and nvml.standin.refcount == 1  # one session: the call in flight
        assert nvml.standin.calls == calls  # nothing asked of NVML beside it
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and "on GPU 3" in said[0] and "has not returned" in said[0]
    finally:
        nvml.standin.release()  # the hung call returns (GPU_IS_LOST) and shuts its session down
    for t in parked():
        t.join(5)
    assert nvml.standin.refcount == 0
    assert gpu_busy(nvml, 5) == "nvml: GPU 3: GPU_IS_LOST"  # asked again once it returned
    assert nvml.standin.refcount == 0


def test_a_check_row_declares_what_the_agent_hands_it(monkeypatch):
    """docs/extending.md: a new built-in check that reads /sys is its row alone: `inputs=("root",)` gives its
    program a --root flag and the agent's sysfs_root on its command line (was a special case by check name in
    builtin.parser() and settings.builtin_config: a new row naming no such case got no --root, and its program
    exited 2 on the flag). Every row's command line, as the agent writes it, parses."""
    from agent.checks import settings

    row = builtin.Check("example", lambda args: (OK, args.root), "ExampleCheckFailed", "ExampleFailed",
                        inputs=("root",))
    monkeypatch.setattr(builtin, "TABLE", builtin.TABLE + (row,))
    monkeypatch.setitem(builtin.BY_NAME, "example", row)
    monkeypatch.setitem(settings.BUILTIN_ARGS, "example", ())
    for c in builtin.TABLE:
        args = builtin_config(c.name, {}, "/host", "fake:x").rules[0].args
        parsed = builtin.parser().parse_args(args[2:])
        assert {name: getattr(parsed, name) for name in c.inputs} == {
            name: {"root": "/host", "nvml": "fake:x", "proc_root": "/", "timeout": 595.0}[name] for name in c.inputs}


def test_an_input_is_declared_once_its_flag_default_and_value_together(monkeypatch):
    """An input a row may name (builtin.INPUTS) is one entry: its flag, its default when the program runs alone and
    its value from the agent's configuration (was two tables over one key set, builtin.INPUTS and
    settings.INPUT_VALUES, kept in step by a test: an input added to the first alone had no value)."""
    from agent.checks import settings

    row = builtin.Check("example", lambda args: (OK, args.state_dir), "ExampleCheckFailed", "ExampleFailed",
                        inputs=("state_dir",))
    monkeypatch.setitem(builtin.INPUTS, "state_dir", builtin.Input(
        str, lambda: "/var/lib/gpu-npd", "a directory of the agent's", lambda spec, sysfs, nvml, proc: proc + "x"))
    monkeypatch.setattr(builtin, "TABLE", builtin.TABLE + (row,))
    monkeypatch.setitem(builtin.BY_NAME, "example", row)
    monkeypatch.setitem(settings.BUILTIN_ARGS, "example", ())
    args = settings.builtin_config("example", {}, "/host", "fake:x", "/proc-root/").rules[0].args
    assert list(args[-2:]) == ["--state-dir", "/proc-root/x"]
    assert builtin.parser().parse_args(args[2:]).state_dir == "/proc-root/x"
    assert builtin.parser().parse_args(["example"]).state_dir == "/var/lib/gpu-npd"


def test_a_builtin_block_that_names_only_enabled_runs_on_its_rows_schedule():
    """A block naming only `enabled` (docs/checks.md's example names no timeout; a config file's `checks.builtin`
    replaces the default blocks whole) runs on its row's interval and timeout: was the plugin defaults, 5m and 30s,
    so dcgm (row: 24h, 10m) loaded the GPUs every 5 minutes and was killed after 30 s while dcgmi was told 595 s."""
    for c in builtin.TABLE:
        cfg = builtin_config(c.name, {"enabled": True}, "/host", "fake:x")
        assert (cfg.invoke_interval, cfg.timeout) == (parse_duration(c.interval), parse_duration(c.timeout)), c.name
    args = builtin_config("dcgm", {"enabled": True, "timeout": "2m"}).rules[0].args
    assert args[args.index("--timeout") + 1] == "115.0"  # dcgmi's own limit follows the block's timeout


def test_the_nvml_check_looks_for_libnvidia_ml_on_the_host_as_the_agent_does(monkeypatch):
    """The built-in nvml check is a process of its own: it gets the agent's proc_root, so that where no runtime put
    libnvidia-ml.so.1 in the container it opens NVML through the host's library (agent/gpu/nvml.py load_from_host)
    as the agent's poller does (was: no proc_root, its NVML never looked on the host: Unknown, LIBRARY_NOT_FOUND, on
    every node the agent itself reads)."""
    from agent.gpu import nvml as nvml_mod

    cfg = builtin_config("nvml", {"enabled": True}, "/host", "auto", "/hostproc")
    args = builtin.parser().parse_args(cfg.rules[0].args[2:])
    seen = []
    monkeypatch.setattr(nvml_mod, "open_backend", lambda spec, proc_root="": seen.append((spec, proc_root)))
    assert builtin.check_nvml(args) == (builtin.UNKNOWN, "NVML is off") and seen == [("auto", "/hostproc")]


def test_the_agents_busy_gate_opens_its_own_nvml_at_its_first_question_as_the_other_stages_do(tmp_path, monkeypatch):
    """(h474) agent/app.py `_check_scheduler` opened its NVML handle with `open_backend` itself, at build on the
    agent's main thread, whether or not a GPU-loading check ever came due; now through `_OwnNvml` as the straggler
    Events, the pod device cache and the busy Events: opened once, at the gate's first question, on the thread that
    asks; nothing opened or asked while the agent's NVML is released."""
    import threading  # noqa: PLC0415
    import types  # noqa: PLC0415

    from agent import app  # noqa: PLC0415

    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump({"gpus": [{}, {"values": {"compute_processes": 1}}]}))
    opened: list[str] = []

    def open_backend(spec, proc_root=""):
        opened.append(threading.current_thread().name)
        return real(spec, proc_root)
    real = app.open_backend
    monkeypatch.setattr(app, "open_backend", open_backend)
    load_cfg = parse_config({"plugin": "custom", "source": "load", "gpuLoad": True,
                             "conditions": [{"type": "TestProblem", "reason": "OK", "message": "fine"}],
                             "rules": [{"type": "permanent", "condition": "TestProblem", "reason": "Load",
                                        "path": script(tmp_path, "load", "echo loaded\n")}]}, tmp_path)
    monkeypatch.setattr(app, "plugin_configs", lambda *_: [load_cfg])
    gpu = types.SimpleNamespace(status="released")
    sched = app._check_scheduler(load(env={}, flags={"nvml": f"fake:{path}"}), types.SimpleNamespace(emit=None), gpu)
    assert opened == []  # (was: opened here, at build)
    assert sched.busy() == "nvml: released" and opened == []
    gpu.status = "ok"
    asker = threading.Thread(target=lambda: said.append(sched.busy()), name="checks")
    said: list = []
    asker.start()
    asker.join(10)
    assert said == ["busy"] and opened == ["checks"]
    assert sched.busy() == "busy" and opened == ["checks"]  # one handle, kept
